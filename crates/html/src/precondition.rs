//! The review's precondition step: what it did to the drive (deallocated, then full
//! sequential writes) and each pass's write throughput second by second, where an SSD's
//! write cache runs out and the throughput falls off (the cliff every SSD review shows).

use std::fmt::Write as _;

use iolab_results::review::{self, Pass, PreconditionStep};

use crate::chart::{esc, Chart, Format, ScaleKind, Series};
use crate::data::RunData;
use crate::page::{chart_block, Section};
use crate::sections::{axis, dashed, name, run_note, step_data};

/// The section, when any run preconditioned its target.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut series = Vec::new();
    let mut notes = String::new();
    for r in runs {
        let Some(data) = step_data(r, "precondition") else {
            continue;
        };
        let data: PreconditionStep = review::read(data);
        if let Some(n) = &data.deallocate_note {
            notes.push_str(&run_note(runs, r, "", n));
        }
        if !data.passes.is_empty() {
            notes.push_str(&passes_table(&name(runs, r, "pass"), &data.passes));
        }
        for j in r.jobs().iter().filter(|j| j.step == "precondition") {
            let pts: Vec<(f64, f64)> = r
                .series(j.id, "write", "bw_bytes")
                .iter()
                .map(|(t, v)| (*t as f64 / 1000.0, *v / 1e6))
                .collect();
            if !pts.is_empty() {
                series.push(Series {
                    name: name(runs, r, &j.name),
                    points: pts,
                    dashed: dashed(runs, r),
                });
            }
        }
    }
    if notes.is_empty() && series.is_empty() {
        return None;
    }
    let mut html = String::from(
        "<p>Before the measurements: the target's blocks deallocated, then written whole, \
         sequentially (128 KiB at QD32), so every later read touches written data and every \
         write lands on a drive in use. The throughput over each pass shows where a drive's \
         write cache fills and its speed falls off.</p>",
    );
    html.push_str(&notes);
    if series.is_empty() {
        html.push_str(
            "<p class=\"note\">No throughput over time was kept for these passes (runs \
             recorded before iolab kept it).</p>",
        );
    } else {
        html.push_str(&chart_block(&Chart::lines(
            "precondition-throughput",
            "Sequential write throughput while preconditioning",
            axis("Time (s)", ScaleKind::Linear, Format::Plain),
            axis("MB/s", ScaleKind::Linear, Format::Plain),
            series,
        )));
    }
    Some(Section::new("precondition", "Precondition", html))
}

fn passes_table(heading: &str, passes: &[Pass]) -> String {
    let mut t = format!(
        "<table class=\"facts\"><thead><tr><th>{}</th><th>written</th><th>MB/s</th></tr>\
         </thead><tbody>",
        esc(heading)
    );
    for p in passes {
        let _ = write!(
            t,
            "<tr><td>{}</td><td>{}</td><td>{:.0}</td></tr>",
            p.pass,
            iolab_report::format::bytes_binary(p.bytes as f64),
            p.mb_per_sec
        );
    }
    t.push_str("</tbody></table>");
    t
}
