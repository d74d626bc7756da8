//! One row per run, job and direction, the figures as columns: the wide form a spreadsheet
//! charts directly (`iolab export --format csv --wide`), beside [`super::Csv`]'s long form.
//! `history` and `compare` write their CSV from the same columns.

use std::io::{self, Write};

use iolab_results::{JobRecord, RunRecord};

use super::csv::quote;
use super::markdown::latency_kind;
use super::Exporter;

pub struct CsvWide;

/// The columns of a job's direction, after the run's own.
pub const JOB_COLUMNS: &str = "job,step,group,engine,rw,block_size,iodepth,numjobs,target,\
direction,runtime_s,repeats,iops,iops_ci95_low,iops_ci95_high,bw_bytes,latency,mean_ns,\
p50_ns,p99_ns,p99.9_ns,p99.99_ns,p99.999_ns,max_ns,cpu_pct";

/// A number as a spreadsheet reads it; empty where the figure was not measured.
pub fn num(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or(String::new(), |v| format!("{v}"))
}

/// The cells of [`JOB_COLUMNS`] for job `j`'s direction `dir`. The latency figures are of
/// one kind, named in the `latency` column (`lat`, or `clat` for an imported fio run
/// without total-latency percentiles), as `show` and `compare` take them.
pub fn job_cells(j: &JobRecord, dir: &str) -> String {
    let k = latency_kind(j, dir);
    let lat = |n: &str| num(j.metric(dir, &format!("{k}_{n}_ns")));
    let ci = j.interval(dir, "iops");
    [
        quote(&j.name),
        quote(&j.step),
        j.group_id.to_string(),
        quote(&j.engine),
        quote(&j.rw),
        j.block_size.to_string(),
        j.iodepth.to_string(),
        j.clones.to_string(),
        quote(&j.target),
        dir.to_string(),
        num(Some(j.runtime_ns as f64 / 1e9)),
        j.repeats.len().max(1).to_string(),
        num(j.metric(dir, "iops")),
        num(ci.map(|i| i.ci95_low)),
        num(ci.map(|i| i.ci95_high)),
        num(j.metric(dir, "bw_bytes")),
        k.to_string(),
        lat("mean"),
        lat("p50"),
        lat("p99"),
        lat("p99.9"),
        lat("p99.99"),
        lat("p99.999"),
        lat("max"),
        num(j.cpu_percent()),
    ]
    .join(",")
}

impl Exporter for CsvWide {
    fn name(&self) -> &'static str {
        "csv-wide"
    }

    fn export(&self, runs: &[RunRecord], out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "run,{JOB_COLUMNS}")?;
        for r in runs {
            for j in &r.jobs {
                for dir in j.io_directions() {
                    writeln!(out, "{},{}", r.id, job_cells(j, dir))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_results::Metrics;

    #[test]
    fn a_row_per_job_and_direction_with_every_figure_in_its_column() {
        let m = |v: &[(&str, &str, f64)]| {
            Metrics(
                v.iter()
                    .map(|(d, n, x)| (d.to_string(), n.to_string(), *x))
                    .collect(),
            )
        };
        let run = RunRecord {
            id: 7,
            jobs: vec![JobRecord {
                name: "a,b".into(),
                engine: "psync".into(),
                rw: "randrw".into(),
                block_size: 4096,
                iodepth: 1,
                clones: 1,
                metrics: m(&[
                    ("read", "iops", 5.0),
                    ("read", "lat_mean_ns", 100.0),
                    ("read", "lat_p99_ns", 200.0),
                    ("write", "iops", 6.0),
                    ("sync", "iops", 1.0),
                ]),
                ..JobRecord::default()
            }],
            ..RunRecord::default()
        };
        let mut out = Vec::new();
        CsvWide.export(&[run], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "header, read, write (no sync row): {text}");
        let head: Vec<&str> = lines[0].split(',').collect();
        let read: Vec<String> = split(lines[1]);
        assert_eq!(head.len(), read.len(), "{text}");
        let col =
            |row: &[String], name: &str| row[head.iter().position(|h| *h == name).unwrap()].clone();
        assert_eq!(col(&read, "job"), "\"a,b\"");
        assert_eq!(col(&read, "iops"), "5");
        assert_eq!(col(&read, "p99_ns"), "200");
        assert_eq!(col(&read, "latency"), "lat");
        assert_eq!(col(&read, "p99.9_ns"), "", "not measured: empty");
        assert_eq!(col(&split(lines[2]), "iops"), "6");
    }

    /// CSV fields, quotes kept (enough for the test's one quoted field).
    fn split(line: &str) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '"' => {
                    quoted = !quoted;
                    out.last_mut().unwrap().push(c);
                }
                ',' if !quoted => out.push(String::new()),
                c => out.last_mut().unwrap().push(c),
            }
        }
        out
    }
}
