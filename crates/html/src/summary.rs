//! The one-glance box a review's page opens with: KDiskMark's (CrystalDiskMark's) four rows,
//! SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1 and RND4K Q1T1, read and write, from the review's own
//! jobs where it measured exactly that (one thread, that block size and depth, the device's
//! own path); and the QD1 4 KiB latency. A row the review did not measure says so, with the
//! nearest depth it did measure, rather than standing in for it.

use std::fmt::Write as _;

use iolab_report::export::markdown::latency_kind;
use iolab_report::format::{compact, micros};
use iolab_results::JobRecord;

use crate::chart::esc;
use crate::data::RunData;
use crate::page::Section;

/// One row: its KDiskMark name, sequential or random, block size, queue depth.
struct Row(&'static str, bool, i64, i64);

const ROWS: [Row; 4] = [
    Row("SEQ1M Q8T1", true, 1 << 20, 8),
    Row("SEQ1M Q1T1", true, 1 << 20, 1),
    Row("RND4K Q32T1", false, 4096, 32),
    Row("RND4K Q1T1", false, 4096, 1),
];

/// Steps whose jobs can stand for a row, in the order preferred: each measured one thread,
/// closed loop, on the target (not the load step's rate-limited points, the precondition's
/// fill, the RAM floor or polling).
const STEPS: [&str; 5] = [
    "qd1-engines",
    "qd-sweep",
    "transfer-size",
    "profiles",
    "consistency",
];

fn rw(seq: bool, dir: &str) -> &'static str {
    match (seq, dir) {
        (true, "read") => "read",
        (true, _) => "write",
        (false, "read") => "randread",
        (false, _) => "randwrite",
    }
}

/// Jobs of `r` that measured `rw` at block size `bs`, one thread, on an aligned block, in
/// step preference order; among the QD1 table's cells, every path that took its own path
/// (not the null engine, not a fallback), the fastest first: the row then names the path.
fn candidates<'a>(r: &'a RunData, rw: &'a str, bs: i64, dir: &'a str) -> Vec<&'a JobRecord> {
    let mut out = Vec::new();
    for step in STEPS {
        let mut js: Vec<&JobRecord> = r
            .jobs()
            .iter()
            .filter(|j| {
                j.step == step
                    && j.rw == rw
                    && j.block_size == bs
                    && j.clones == 1
                    && !j.name.contains("512al")
                    && j.engine != "null"
                    && j.fallback.is_none()
            })
            .collect();
        if step == "qd1-engines" {
            let iops = |j: &JobRecord| j.metric(dir, "iops").unwrap_or(0.0);
            js.sort_by(|a, b| iops(b).total_cmp(&iops(a)));
        }
        out.extend(js);
    }
    out
}

/// Where a row's figure came from, shown under it: step, path, depth.
fn source(j: &JobRecord) -> String {
    format!(
        "<span class=\"src\">{} · {} · QD{}</span>",
        esc(&j.step),
        esc(&j.engine),
        j.iodepth
    )
}

/// The job that measured exactly `row` in `dir`, if the review did.
fn exact<'a>(r: &'a RunData, row: &Row, dir: &'a str) -> Option<&'a JobRecord> {
    candidates(r, rw(row.1, dir), row.2, dir)
        .into_iter()
        .find(|j| j.iodepth == row.3)
}

/// A row's cell: `1,234 MB/s (301k IOPS)` and its source, from the job that measured it, or
/// what was not.
fn cell(r: &RunData, row: &Row, dir: &str) -> String {
    if let Some(j) = exact(r, row, dir) {
        let m = |n: &str| j.metric(dir, n).unwrap_or(0.0);
        return format!(
            "<td title=\"{} ({})\">{:.0} MB/s ({} IOPS){}</td>",
            esc(&j.name),
            esc(&j.step),
            m("bw_bytes") / 1e6,
            compact(m("iops")),
            source(j)
        );
    }
    let near = candidates(r, rw(row.1, dir), row.2, dir)
        .iter()
        .min_by_key(|j| (j.iodepth - row.3).abs())
        .map(|j| j.iodepth);
    match near {
        Some(q) => format!("<td class=\"na\">not measured (this review's nearest: QD{q})</td>"),
        None => "<td class=\"na\">not measured</td>".into(),
    }
}

/// The box for every review among `runs`; `None` when none is a review. A row no review
/// measured is left out: the box shows only what was measured, each figure with its source.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let reviews: Vec<&RunData> = runs.iter().filter(|r| r.detail.kind == "review").collect();
    if reviews.is_empty() {
        return None;
    }
    let mut t =
        String::from("<table class=\"summary-figures\"><thead><tr><th>test</th><th>dir</th>");
    for r in &reviews {
        let _ = write!(t, "<th>{}</th>", esc(&r.label()));
    }
    t.push_str("</tr></thead><tbody>");
    for row in &ROWS {
        for dir in ["read", "write"] {
            if reviews.iter().all(|r| exact(r, row, dir).is_none()) {
                continue;
            }
            let _ = write!(t, "<tr><td>{}</td><td>{dir}</td>", row.0);
            for r in &reviews {
                t.push_str(&cell(r, row, dir));
            }
            t.push_str("</tr>");
        }
    }
    for dir in ["read", "write"] {
        let q1 = Row("QD1 4K latency", false, 4096, 1);
        if reviews.iter().all(|r| exact(r, &q1, dir).is_none()) {
            continue;
        }
        let _ = write!(t, "<tr><td>QD1 4K latency</td><td>{dir}</td>");
        for r in &reviews {
            match exact(r, &q1, dir) {
                Some(j) => {
                    let k = latency_kind(j, dir);
                    let v = |n: &str| {
                        j.metric(dir, &format!("{k}_{n}_ns"))
                            .map_or("-".into(), micros)
                    };
                    let _ = write!(
                        t,
                        "<td title=\"{}\">mean {}, p99 {}, p99.99 {}{}</td>",
                        esc(&j.name),
                        v("mean"),
                        v("p99"),
                        v("p99.99"),
                        source(j)
                    );
                }
                None => t.push_str("<td class=\"na\">not measured</td>"),
            }
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    let html = format!(
        "<div class=\"summary\"><p class=\"note\">KDiskMark's rows (MB/s = 10<sup>6</sup> \
         bytes a second, one thread), each from the review job that measured exactly it, named \
         under it (step · path · depth; the QD1 rows from the fastest path of the QD1 table); \
         a row the review did not measure is left out; a quick review's short points are a \
         first look.</p>{t}{}</div>",
        reviews
            .iter()
            .map(|r| crate::sections::distortions(r))
            .collect::<String>()
    );
    Some(Section::new("summary", "Summary", html))
}
