//! `compare`'s verdicts at the command line: the Markdown table, and `--fail-if-worse`, the
//! exit status CI wants. The verdicts themselves are `iolab_report::compare`'s (the HTML
//! report shows the same ones).

pub use iolab_report::compare::{disagreements, json, rows, setting_differences, Figure, Row};
use iolab_report::verdict::{Better, Word};
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
        "\nRun {} against run {} ({}; figures: the mean of the repeats' figures with its 95 % \
         interval and the number of repeats):\n\
         | job | figure | run {} | run {} | ratio | verdict |\n|---|---|---:|---:|---:|---|\n",
        new.id,
        base.id,
        iolab_report::verdict::legend(noise),
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

/// What `--fail-if-worse N` concludes of one row, from the ratio's 95 % interval against the
/// bound an N % loss sets (IOPS × (1 − N/100), latency × (1 + N/100)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// The whole interval lies beyond the bound: worse by more than N %, shown.
    Worse,
    /// The whole interval lies on the good side of the bound: not worse by N %, shown.
    NotWorse,
    /// The interval holds the bound (or there is none: a run measured once).
    CannotTell,
}

/// `--fail-if-worse`'s exit statuses, each its own so a CI gate tells "passed" from "could
/// not judge" (2 stays bad input).
pub mod exit_code {
    pub const NOT_WORSE: u8 = 0;
    pub const WORSE: u8 = 1;
    pub const CANNOT_TELL: u8 = 3;
}

impl FailIfWorse {
    /// The ratio (later / first) an N % loss is: 0.9 for IOPS at 10, 1.1 for a latency.
    pub fn bound(&self) -> f64 {
        match self.figure.better() {
            Better::Higher => 1.0 - self.percent / 100.0,
            Better::Lower => 1.0 + self.percent / 100.0,
        }
    }

    /// The judgement of one row of the rule's figure.
    pub fn judge(&self, row: &Row) -> Judgement {
        let v = &row.verdict;
        if v.verdict == Word::Unknown {
            return Judgement::CannotTell;
        }
        let bound = self.bound();
        let (beyond, within) = match self.figure.better() {
            Better::Higher => (v.ci95_high < bound, v.ci95_low > bound),
            Better::Lower => (v.ci95_low > bound, v.ci95_high < bound),
        };
        match (beyond, within) {
            (true, _) => Judgement::Worse,
            (_, true) => Judgement::NotWorse,
            _ => Judgement::CannotTell,
        }
    }

    /// The rule's rows with their judgements.
    pub fn judged<'a>(&self, rows: &'a [Row]) -> Vec<(&'a Row, Judgement)> {
        rows.iter()
            .filter(|r| r.figure == self.figure)
            .map(|r| (r, self.judge(r)))
            .collect()
    }
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
