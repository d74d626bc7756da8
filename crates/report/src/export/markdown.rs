//! The jobs of each run as a Markdown table (one row per job and direction: IOPS, MB/s,
//! mean, p99, p99.999), as `iolab show` prints it: pastes into a review as it is.

use std::io::{self, Write};

use iolab_results::{JobRecord, Note, RunRecord};

use super::Exporter;
use crate::format::{compact, micros};

pub struct Markdown;

/// The latency a row shows: total latency where its percentiles were kept (always by iolab;
/// by fio only with lat_percentiles=1), else completion latency, so mean and percentiles of
/// one row are of one kind.
pub fn latency_kind(j: &JobRecord, dir: &str) -> &'static str {
    if j.metric(dir, "lat_p99_ns").is_some() || j.metric(dir, "clat_mean_ns").is_none() {
        "lat"
    } else {
        "clat"
    }
}

/// One row per job and direction, then the jobs' notes.
/// The latency columns are named by their kind (`lat mean` or `clat mean`, the one
/// [`latency_kind`] picks, as `compare` takes it); where the rows differ, each cell says its
/// kind.
/// The latency kind every job and direction of `jobs` shares (the column heads name it), or
/// `None` when they differ (each cell names its own).
pub fn one_kind(jobs: &[JobRecord]) -> Option<&'static str> {
    let kinds: Vec<&str> = jobs
        .iter()
        .flat_map(|j| j.directions().into_iter().map(move |d| latency_kind(j, d)))
        .collect();
    kinds
        .first()
        .filter(|k| kinds.iter().all(|x| x == *k))
        .copied()
}

/// A latency figure (`mean_ns`, `p99_ns`, ...) of the job's own kind, named in the cell when
/// the table's jobs do not share one kind.
pub fn latency_cell(j: &JobRecord, dir: &str, figure: &str, one: Option<&str>) -> String {
    let kind = latency_kind(j, dir);
    let v = j
        .metric(dir, &format!("{kind}_{figure}"))
        .map_or("-".to_string(), micros);
    match one {
        Some(_) => v,
        None => format!("{v} ({kind})"),
    }
}

pub fn jobs_table(jobs: &[JobRecord], out: &mut dyn Write) -> io::Result<()> {
    let one = one_kind(jobs);
    let head = one.map_or(String::new(), |k| format!("{k} "));
    writeln!(
        out,
        "| job | group | engine | QD | rw | bs | dir | IOPS | MB/s | {head}mean | {head}p99 | \
         {head}p99.999 |"
    )?;
    writeln!(
        out,
        "|---|---:|---|---:|---|---:|---|---:|---:|---:|---:|---:|"
    )?;
    for j in jobs {
        for dir in j.directions() {
            let m = |n: &str| j.metric(dir, n).unwrap_or(0.0);
            let lat = |n: &str| latency_cell(j, dir, n, one);
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {dir} | {} | {:.1} | {} | {} | {} |",
                j.name,
                j.group_id,
                j.engine,
                j.iodepth,
                j.rw,
                j.block_size,
                compact(m("iops")),
                m("bw_bytes") / 1e6,
                lat("mean_ns"),
                lat("p99_ns"),
                lat("p99.999_ns"),
            )?;
        }
    }
    open_loop_table(jobs, out)?;
    split_table(jobs, out)?;
    for j in jobs {
        for n in &j.notes {
            writeln!(out, "- {}: {n}", j.name)?;
        }
    }
    Ok(())
}

/// The open-loop jobs (iolab's `rate_open_loop`) again, with what fio cannot show: offered
/// against achieved IOPS, response time from each I/O's due time beside `lat`, how late the
/// schedule issued I/Os, and whether the load was carried. Nothing when no job ran so.
fn open_loop_table(jobs: &[JobRecord], out: &mut dyn Write) -> io::Result<()> {
    let open = |j: &&JobRecord| {
        j.directions()
            .iter()
            .any(|d| j.metric(d, "offered_iops").is_some())
    };
    if !jobs.iter().any(|j| open(&j)) {
        return Ok(());
    }
    writeln!(
        out,
        "\nOpen loop (iolab: response time runs from when each I/O was due)\n\n\
         | job | dir | offered IOPS | achieved IOPS | lat p99 | resp mean | resp p99 | \
         resp p99.9 | late p99 | due, slots busy | carried |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    )?;
    for j in jobs.iter().filter(open) {
        for dir in j.directions() {
            let Some(offered) = j.metric(dir, "offered_iops") else {
                continue;
            };
            let m = |n: &str| j.metric(dir, n).map_or("-".to_string(), micros);
            let carried = j.metric(dir, "sustained") == Some(1.0);
            writeln!(
                out,
                "| {} | {dir} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                j.name,
                compact(offered),
                compact(j.metric(dir, "iops").unwrap_or(0.0)),
                m("lat_p99_ns"),
                m("response_mean_ns"),
                m("response_p99_ns"),
                m("response_p99.9_ns"),
                m("lateness_p99_ns"),
                j.metric(dir, "late_for_slot").unwrap_or(0.0),
                match (carried, j.metric(dir, "generator_behind") == Some(1.0)) {
                    (true, _) => "yes",
                    (false, true) => "**no: generator**",
                    (false, false) => "**no: device**",
                },
            )?;
        }
    }
    Ok(())
}

/// The split jobs (iolab's `lat_split`) again: each part's mean and p99 beside `lat`'s,
/// how many I/Os were joined, and what the I/Os above p99 spent their time on. Nothing when
/// no job was split.
fn split_table(jobs: &[JobRecord], out: &mut dyn Write) -> io::Result<()> {
    let split = |j: &&JobRecord| {
        j.directions()
            .iter()
            .any(|d| j.metric(d, "split_joined_ios").is_some())
    };
    if !jobs.iter().any(|j| split(&j)) {
        return Ok(());
    }
    writeln!(
        out,
        "\nLatency split (iolab: each I/O's lat cut at the kernel's request events)\n\n\
         | job | dir | joined | lat mean | submit mean | device mean | completion mean | \
         lat p99 | submit p99 | device p99 | completion p99 | tail > p99: submit / device / \
         completion |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    )?;
    for j in jobs.iter().filter(split) {
        for dir in j.directions() {
            let Some(joined) = j.metric(dir, "split_joined_ios") else {
                continue;
            };
            let m = |n: &str| j.metric(dir, n).map_or("-".to_string(), micros);
            let issued = j.metric(dir, "split_issued_ios").unwrap_or(0.0).max(1.0);
            let share = |part: &str| {
                j.metric(dir, &format!("split_tail_p99_{part}_share"))
                    .map_or("-".to_string(), |v| format!("{:.0}%", v * 100.0))
            };
            writeln!(
                out,
                "| {} | {dir} | {:.2}% | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} / {} |",
                j.name,
                joined * 100.0 / issued,
                m("lat_mean_ns"),
                m("split_submit_mean_ns"),
                m("split_device_mean_ns"),
                m("split_completion_mean_ns"),
                m("lat_p99_ns"),
                m("split_submit_p99_ns"),
                m("split_device_p99_ns"),
                m("split_completion_p99_ns"),
                share("submit"),
                share("device"),
                share("completion"),
            )?;
        }
    }
    Ok(())
}

impl Exporter for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn export(&self, runs: &[RunRecord], out: &mut dyn Write) -> io::Result<()> {
        for (i, r) in runs.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(
                out,
                "### run {} ({}, {}): {}\n",
                r.id, r.kind, r.status, r.command
            )?;
            jobs_table(&r.jobs, out)?;
            step_notes(r, out)?;
        }
        Ok(())
    }
}

/// What the run's steps noticed beyond their jobs' own notes (a path not served as asked,
/// with the kernel's reason), from the notes each step kept with its result.
fn step_notes(r: &RunRecord, out: &mut dyn Write) -> io::Result<()> {
    let said = |text: &str| {
        r.jobs
            .iter()
            .any(|j| j.notes.iter().any(|n| text.ends_with(n.as_str())))
    };
    for st in &r.steps {
        let Some(notes) = st.data.get("notes") else {
            continue;
        };
        let notes: Vec<Note> = serde_json::from_value(notes.clone()).unwrap_or_default();
        for n in notes.iter().filter(|n| !said(&n.text)) {
            writeln!(out, "- {}: {}", st.name, n.text)?;
        }
    }
    Ok(())
}
