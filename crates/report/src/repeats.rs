//! iolab's repeats in the normal output (`--repeat N`): under a job whose figures pool every
//! repeat, each direction's main figures as mean ± the half-width of a 95 % confidence
//! interval, with the range the repeats spanned.

use std::io::{self, Write};

use iolab_results::repeats::{values_of, Interval};
use iolab_results::JobReport;

use crate::format::{compact, micros};

/// The figures shown, with how each is printed: IOPS, then total latency (fio's `lat`, or
/// `clat` where the job does not record `lat`).
const SHOWN: [(&str, &str); 5] = [
    ("IOPS", "iops"),
    ("mean", "_mean_ns"),
    ("p50", "_p50_ns"),
    ("p99", "_p99_ns"),
    ("p99.9", "_p99.9_ns"),
];

/// The repeats' lines of one job (nothing for a job run once).
pub fn repeat_lines(w: &mut impl Write, job: &JobReport) -> io::Result<()> {
    let reps = &job.repeats;
    if reps.len() < 2 {
        return Ok(());
    }
    writeln!(
        w,
        "  repeats (iolab): {}, each figure's mean [its 95% confidence interval, from the log \
         scale] (min … max)",
        reps.len()
    )?;
    let Some(first) = reps.first() else {
        return Ok(());
    };
    for dir in first.metrics.directions() {
        let lat = if first.metrics.get(dir, "lat_mean_ns").is_some() {
            "lat"
        } else {
            "clat"
        };
        for (label, name) in SHOWN {
            let (label, name) = match name.starts_with('_') {
                true => (format!("{lat} {label}"), format!("{lat}{name}")),
                false => (label.to_string(), name.to_string()),
            };
            let Some(i) = Interval::of(&values_of(reps, dir, &name)) else {
                continue;
            };
            let f = if name == "iops" { compact } else { micros };
            writeln!(
                w,
                "    {:<16}: {} ({} … {})",
                format!("{dir} {label}"),
                i.text(f),
                f(i.min),
                f(i.max)
            )?;
        }
    }
    Ok(())
}
