//! `history` and `compare` as CSV (`--output-format=csv`): a header, then a row per job and
//! direction, figures as columns, for a spreadsheet. The job's columns are the wide export's
//! (`iolab_report::export::csv_wide`), so the three commands' sheets line up.

use iolab_report::export::csv_quote as quote;
use iolab_report::export::csv_wide::{job_cells, num, JOB_COLUMNS};
use iolab_report::export::markdown::latency_kind;
use iolab_results::RunRecord;

use crate::verdicts::Row;

/// `history`: each run's own columns (`started` in local time, as `history` prints it), then one row per job and direction (one row of blank
/// job cells for a run that kept no job).
pub fn history(runs: &[RunRecord]) -> String {
    let mut s = format!("run,started,started_unix_ms,kind,status,{JOB_COLUMNS}\n");
    let blank = ",".repeat(JOB_COLUMNS.matches(',').count());
    for r in runs {
        let head = format!(
            "{},{},{},{},{}",
            r.id,
            quote(&crate::local_time::when(r.started_ms)),
            r.started_ms,
            quote(&r.kind),
            quote(&r.status)
        );
        let mut any = false;
        for j in &r.jobs {
            for dir in j.io_directions() {
                s.push_str(&format!("{head},{}\n", job_cells(j, dir)));
                any = true;
            }
        }
        if !any {
            s.push_str(&format!("{head},{blank}\n"));
        }
    }
    s
}

/// The figures `compare` gives each run and each later run's verdict on.
const FIGURES: [&str; 3] = ["iops", "mean", "p99"];

/// A run's figure for a job's direction: IOPS, or the latency `show` takes (`lat`, else
/// `clat`), in ns.
fn figure(r: &RunRecord, job: &str, dir: &str, f: &str) -> Option<f64> {
    let j = r.jobs.iter().find(|j| j.name == job)?;
    match f {
        "iops" => j.metric(dir, "iops"),
        _ => j.metric(dir, &format!("{}_{f}_ns", latency_kind(j, dir))),
    }
}

/// `compare`: a row per job and direction; each run's IOPS, mean and p99 latency (and which
/// latency), then each later run's verdict on each against the first (ratio, its 95 %
/// interval, the word and why it is inconclusive).
pub fn compare(runs: &[RunRecord], columns: &[(String, String)], verdicts: &[Vec<Row>]) -> String {
    let mut head = vec!["job".to_string(), "direction".to_string()];
    for r in runs {
        head.push(format!("run{}_iops", r.id));
        head.push(format!("run{}_mean_ns", r.id));
        head.push(format!("run{}_p99_ns", r.id));
        head.push(format!("run{}_latency", r.id));
    }
    let base = runs.first().map_or(0, |r| r.id);
    for r in runs.iter().skip(1) {
        for f in FIGURES {
            for what in ["ratio", "ci95_low", "ci95_high", "verdict", "why"] {
                head.push(format!("run{}_vs_run{base}_{f}_{what}", r.id));
            }
        }
    }
    let mut s = head.join(",") + "\n";
    for (job, dir) in columns {
        let mut row = vec![quote(job), quote(dir)];
        for r in runs {
            for f in FIGURES {
                row.push(num(figure(r, job, dir, f)));
            }
            let kind = r
                .jobs
                .iter()
                .find(|j| &j.name == job)
                .map(|j| latency_kind(j, dir));
            row.push(kind.unwrap_or("").to_string());
        }
        for rows in verdicts {
            for f in FIGURES {
                let v = rows
                    .iter()
                    .find(|x| &x.job == job && &x.dir == dir && x.figure.label == f)
                    .map(|x| &x.verdict);
                row.push(num(v.map(|v| v.ratio)));
                row.push(num(v.map(|v| v.ci95_low)));
                row.push(num(v.map(|v| v.ci95_high)));
                row.push(quote(v.map_or("", |v| v.verdict.as_str())));
                row.push(quote(v.and_then(|v| v.reason.as_deref()).unwrap_or("")));
            }
        }
        s.push_str(&(row.join(",") + "\n"));
    }
    s
}
