//! `compare`'s verdicts in the page of several runs: each later run's jobs against the first
//! run's, by job name, on IOPS, mean and p99 latency; the ratio with its 95 % interval, the
//! word, and why a verdict is `inconclusive`. The same rows `iolab compare` prints
//! (`iolab_report::compare`), so the page and the terminal never disagree.

use std::fmt::Write as _;

use iolab_report::compare::{disagreements, rows, setting_differences, Row};
use iolab_report::differences;
use iolab_report::verdict::{Word, NOISE_THRESHOLD};

use crate::chart::esc;
use crate::data::RunData;
use crate::page::Section;

/// Tables longer than this start folded (two reviews share hundreds of job names).
const OPEN_UP_TO: usize = 60;

/// The verdict tables of a report of two or more runs; `None` for one run, or when no later
/// run shares a job name with the first.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let base = runs.first()?;
    let mut html = String::new();
    for r in runs.iter().skip(1) {
        let rows = rows(&base.detail, &r.detail, None, NOISE_THRESHOLD);
        if rows.is_empty() {
            continue;
        }
        let table = table(base, r, &rows);
        // What made the runs differ beyond the moment, said before any verdict, as
        // `compare` says it: a verdict between two settings is not one between two moments.
        let mut said = String::new();
        let lines = differences::machine(&base.detail, &r.detail)
            .into_iter()
            .chain(setting_differences(&base.detail, &r.detail))
            .chain(differences::moment(&r.detail))
            .chain(differences::drive(&r.detail));
        for line in lines {
            let line = line.trim_start_matches("- ").trim_start_matches("iolab: ");
            let _ = write!(said, "<p class=\"note differs\">{}</p>", esc(line));
        }
        html.push_str(&said);
        let open = if rows.len() <= OPEN_UP_TO {
            " open"
        } else {
            ""
        };
        let _ = write!(
            html,
            "<details class=\"verdicts\"{open}><summary>{} against {}: {} verdicts \
             ({} faster, {} slower, {} no difference, {} inconclusive, {} without repeats)\
             </summary>{table}",
            esc(&r.label()),
            esc(&base.label()),
            rows.len(),
            count(&rows, Word::Faster),
            count(&rows, Word::Slower),
            count(&rows, Word::NoDifference),
            count(&rows, Word::Inconclusive),
            count(&rows, Word::Unknown),
        );
        for line in disagreements(&rows) {
            let _ = write!(
                html,
                "<p class=\"note\">{}</p>",
                esc(line.trim_start_matches("- "))
            );
        }
        html.push_str("</details>");
    }
    (!html.is_empty()).then(|| {
        Section::new(
            "verdicts",
            "Verdicts",
            format!(
                "<p>Each later run's jobs against the first run's, as <code>iolab compare</code> \
                 gives them: {}. A run without repeats gets a ratio and no verdict beyond it: \
                 run with <code>--repeat N</code> for one.</p>{html}",
                esc(&iolab_report::verdict::legend(NOISE_THRESHOLD))
            ),
        )
    })
}

fn count(rows: &[Row], w: Word) -> usize {
    rows.iter().filter(|r| r.verdict.verdict == w).count()
}

fn table(base: &RunData, new: &RunData, rows: &[Row]) -> String {
    let mut t = format!(
        "<table class=\"verdicts\"><thead><tr><th>job</th><th>dir</th><th>figure</th>\
         <th>run {}</th><th>run {}</th><th>ratio [95 %]</th><th>verdict</th><th>why</th>\
         </tr></thead><tbody>",
        base.id(),
        new.id()
    );
    for r in rows {
        let word = r.verdict.verdict.as_str();
        let _ = write!(
            t,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            word.split(':').next().unwrap_or("").replace(' ', "-"),
            esc(&r.job),
            esc(&r.dir),
            esc(&r.shown_as),
            esc(&r.base),
            esc(&r.new),
            esc(&r.verdict.ratio_text()),
            esc(word),
            esc(r.verdict.reason.as_deref().unwrap_or("")),
        );
    }
    t.push_str("</tbody></table>");
    t
}
