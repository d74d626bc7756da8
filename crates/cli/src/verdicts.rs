//! `compare`'s verdicts at the command line: the Markdown table, and `--fail-if-worse`, the
//! exit status CI wants. The verdicts themselves are `iolab_report::compare`'s (the HTML
//! report shows the same ones).

pub use iolab_report::compare::{disagreements, json, rows, setting_differences, Figure, Row};
use iolab_report::verdict::Word;
use iolab_results::RunRecord;

/// `--fail-if-worse [FIGURE=]PERCENT`: fail when a later run is worse by more than PERCENT
/// on FIGURE (IOPS unless named), beyond its noise where the runs have repeats.
#[derive(Debug, Clone, PartialEq)]
pub struct FailIfWorse {
    pub figure: Figure,
    pub percent: f64,
}

impl std::str::FromStr for FailIfWorse {
    type Err = String;
    fn from_str(s: &str) -> Result<FailIfWorse, String> {
        let (figure, pct) = match s.split_once(['=', ':']) {
            Some((f, p)) => (Figure::parse(f)?, p),
            None => (Figure::parse("iops")?, s),
        };
        let percent: f64 = pct
            .trim()
            .trim_end_matches('%')
            .parse()
            .map_err(|_| format!("'{pct}' is not a percentage (10 or p99=10)"))?;
        if !(0.0..=1000.0).contains(&percent) {
            return Err(format!("{percent} is not a percentage from 0 to 1000"));
        }
        Ok(FailIfWorse { figure, percent })
    }
}

/// `--noise-threshold`: a percentage from 0 to 100.
pub fn parse_noise(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..100.0).contains(&p) => Ok(p),
        _ => Err(format!("'{s}' is not a percentage from 0 to 100")),
    }
}

/// The verdict table of `new` against `base`, in markdown.
pub fn table(base: &RunRecord, new: &RunRecord, rows: &[Row], noise: f64) -> String {
    let mut s = format!(
        "\nRun {} against run {} (ratio {}/{} [its 95% interval, from the log scale]; \
         inconclusive where the interval spans more than 2x; no difference under {}% change; \
         figures are the mean of the repeats' figures ± 95% interval (repeats)):\n\
         | job | figure | run {} | run {} | ratio | verdict |\n|---|---|---:|---:|---:|---|\n",
        new.id,
        base.id,
        new.id,
        base.id,
        noise * 100.0,
        base.id,
        new.id
    );
    // What differed between the runs' jobs, above the verdicts that would hide it.
    let differences = setting_differences(base, new);
    if !differences.is_empty() {
        let at = s.find("| job |").unwrap_or(s.len());
        s.insert_str(at, &(differences.join("\n") + "\n"));
    }
    for r in rows {
        s.push_str(&format!(
            "| {} {} | {} | {} | {} | {} | {} |\n",
            r.job,
            r.dir,
            r.shown_as,
            r.base,
            r.new,
            r.verdict.ratio_text(),
            r.verdict.word_text()
        ));
    }
    for line in disagreements(rows) {
        s.push_str(&line);
        s.push('\n');
    }
    for run in [base, new] {
        if iolab_results::record_changed(&run.jobs) {
            s.push_str(&format!(
                "- run {}'s drive changed under the test, so a verdict may measure the drive's \
                 state rather than the change: {}\n",
                run.id,
                iolab_results::record_lines(&run.jobs).join("; ")
            ));
        }
    }
    s
}

/// The rows that break `--fail-if-worse`: worse by more than its percentage on its figure,
/// and worse beyond noise by both runs' intervals. A row without an interval (a run
/// measured once) fails nothing: a single run's ratio cannot tell a change from noise
/// (see [`unjudged`]); an inconclusive figure fails nothing either (the table says why).
pub fn failures<'a>(rows: &'a [Row], rule: &FailIfWorse) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r.figure == rule.figure)
        .filter(|r| r.verdict.verdict == Word::Slower)
        .filter(|r| r.worse_percent() > rule.percent)
        .collect()
}

/// The rows of the rule's figure that have no interval to judge by (a run measured once).
pub fn unjudged<'a>(rows: &'a [Row], rule: &FailIfWorse) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r.figure == rule.figure && r.verdict.verdict == Word::Unknown)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_if_worse_takes_a_percentage_and_a_figure() {
        let r: FailIfWorse = "10".parse().unwrap();
        assert_eq!((r.figure.label.as_str(), r.percent), ("iops", 10.0));
        let r: FailIfWorse = "p99.9=5%".parse().unwrap();
        assert_eq!((r.figure.stored(), r.percent), ("_p99.9_ns", 5.0));
        assert!("fast=5".parse::<FailIfWorse>().is_err());
        for bad in ["p101=5", "p0=5", "p-1=5", "pnan=5", "pinf=5"] {
            assert!(bad.parse::<FailIfWorse>().is_err(), "{bad}");
        }
        let r: FailIfWorse = "p99.000=5".parse().unwrap();
        assert_eq!(
            r.figure.stored(),
            "_p99_ns",
            "the stored name, however written"
        );
        assert!("ten".parse::<FailIfWorse>().is_err());
    }
}
