//! Where each microsecond goes (iolab's `lat_split`): every split job's mean latency as a
//! stacked bar of its three parts (submit, device, completion), and the tail's account, what
//! the I/Os above p99 and p99.9 spent their time on beside all I/Os. Absent when no job was
//! split.

use iolab_results::JobRecord;

use crate::chart::{Axis, BarSet, Bars, Format, ScaleKind};
use crate::data::RunData;
use crate::page::{bars_block, Section};

const PARTS: [&str; 3] = ["submit", "device", "completion"];
const COLORS: [&str; 3] = ["#4e79a7", "#f28e2b", "#59a14f"];

/// One split job and direction: its label, each part's mean (ns), and each part's share of
/// the I/Os above p99 and p99.9.
struct Row {
    label: String,
    means: [f64; 3],
    tails: [Option<[f64; 3]>; 2],
}

fn row(runs: &[RunData], r: &RunData, j: &JobRecord, dir: &str) -> Option<Row> {
    j.metric(dir, "split_joined_ios")?;
    let part = |p: &str, what: &str| j.metric(dir, &format!("split_{p}_{what}"));
    let means = [
        part("submit", "mean_ns")?,
        part("device", "mean_ns")?,
        part("completion", "mean_ns")?,
    ];
    let tail = |t: &str| {
        Some(PARTS.map(|p| {
            j.metric(dir, &format!("split_tail_{t}_{p}_share"))
                .unwrap_or(0.0)
        }))
        .filter(|v| v.iter().sum::<f64>() > 0.0)
    };
    let run = match runs.len() {
        1 => String::new(),
        _ => format!("{} · ", r.label()),
    };
    // A review point's name already says its workload and path; a job of both directions
    // needs its direction.
    let dir = match j.directions().len() {
        1 => String::new(),
        _ => format!(" {dir}"),
    };
    Some(Row {
        label: format!("{run}{} QD{}{dir}", j.name, j.iodepth),
        means,
        tails: [tail("p99"), tail("p99.9")],
    })
}

fn rows(runs: &[RunData]) -> Vec<Row> {
    runs.iter()
        .flat_map(|r| {
            r.jobs().iter().flat_map(move |j| {
                j.directions()
                    .into_iter()
                    .filter_map(move |d| row(runs, r, j, d))
            })
        })
        .collect()
}

/// The section, when any stored job was split.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let rows = rows(runs);
    if rows.is_empty() {
        return None;
    }
    let parts: Vec<(String, [f64; 3])> = rows.iter().map(|r| (r.label.clone(), r.means)).collect();
    let mut tails = Vec::new();
    for r in &rows {
        let sum: f64 = r.means.iter().sum::<f64>().max(1.0);
        tails.push((format!("{} · all I/Os", r.label), r.means.map(|m| m / sum)));
        for (t, name) in r.tails.iter().zip(["above p99", "above p99.9"]) {
            if let Some(t) = t {
                tails.push((format!("{} · {name}", r.label), *t));
            }
        }
    }
    let body = format!(
        "<p>Each I/O's latency (fio's <code>lat</code>) cut at the kernel's own block request \
         events: <b>submit</b> (iolab's clock before the submit call → the request issued to \
         the driver), <b>device</b> (issued → completed in the block layer) and \
         <b>completion</b> (→ iolab holds it). The parts of every joined I/O add up to it.</p>{}\
         <p>The tail's account: what the slowest I/Os spent their time on, beside all I/Os. A \
         tail that is the device's is the drive's to answer for; one that is submit's or \
         completion's is the host's.</p>{}",
        bars_block(&stacked(
            "split-parts",
            "Where each microsecond goes (mean per I/O)",
            &parts,
            false
        )),
        bars_block(&stacked(
            "split-tail",
            "The tail's account (share of latency)",
            &tails,
            true
        )),
    );
    Some(Section::new("split", "Where each microsecond goes", body))
}

/// Bars of three stacked parts, one row per label: means in µs with each bar's total at its
/// end, or shares of the whole.
fn stacked(id: &str, title: &str, bars: &[(String, [f64; 3])], shares: bool) -> Bars {
    let value = match shares {
        true => Axis {
            title: "Share of the I/Os' summed latency".into(),
            scale: ScaleKind::Linear,
            format: Format::Share,
        },
        false => Axis {
            title: "Mean latency per I/O".into(),
            scale: ScaleKind::Linear,
            format: Format::Nanos,
        },
    };
    Bars {
        id: id.into(),
        title: title.into(),
        category_title: "Job".into(),
        categories: bars.iter().map(|b| b.0.clone()).collect(),
        value,
        sets: PARTS
            .iter()
            .zip(COLORS)
            .enumerate()
            .map(|(i, (p, c))| BarSet {
                name: p.to_string(),
                values: bars.iter().map(|b| b.1[i]).collect(),
                colors: vec![c.to_string()],
                intervals: Vec::new(),
            })
            .collect(),
        totals: !shares,
        grouped: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_stack_their_parts_in_order() {
        let b = stacked(
            "t",
            "t",
            &[("a".into(), [1_000.0, 8_000.0, 1_000.0])],
            false,
        );
        let names: Vec<&str> = b.sets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, PARTS);
        assert_eq!(b.sets[1].values, [8_000.0]);
        assert!(b.table().contains("<td>8.00 µs</td>"), "{}", b.table());
        assert_eq!(b.drawable(), 3);
    }
}
