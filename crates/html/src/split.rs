//! Where each microsecond goes (iolab's `lat_split`): every split job's mean latency as a
//! stacked bar of its three parts (submit, device, completion), and the tail's account, what
//! the I/Os above p99 and p99.9 spent their time on beside all I/Os. Absent when no job was
//! split.

use std::fmt::Write as _;

use iolab_report::format::micros;
use iolab_results::JobRecord;

use crate::data::RunData;
use crate::page::{chart_block_raw, Section};
use crate::svg::{esc, WIDTH};

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
        chart_block_raw(
            "split-parts",
            &stacked(
                "split-parts",
                "Where each microsecond goes (mean per I/O)",
                &parts,
                false
            ),
            &table(&parts, false)
        ),
        chart_block_raw(
            "split-tail",
            &stacked(
                "split-tail",
                "The tail's account (share of latency)",
                &tails,
                true
            ),
            &table(&tails, true)
        ),
    );
    Some(Section::new("split", "Where each microsecond goes", body))
}

fn value(v: f64, shares: bool) -> String {
    match shares {
        true => format!("{:.1}%", v * 100.0),
        false => micros(v),
    }
}

fn table(bars: &[(String, [f64; 3])], shares: bool) -> String {
    let mut t = String::from(
        "<table class=\"data\"><thead><tr><th>job</th><th>submit</th><th>device</th>\
         <th>completion</th></tr></thead><tbody>",
    );
    for (label, v) in bars {
        let _ = write!(
            t,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(label),
            value(v[0], shares),
            value(v[1], shares),
            value(v[2], shares)
        );
    }
    t.push_str("</tbody></table>");
    t
}

/// Horizontal bars of three stacked parts, one per label, on a linear axis from 0 (the
/// longest bar's total, or 100 % for shares), with a legend.
fn stacked(id: &str, title: &str, bars: &[(String, [f64; 3])], shares: bool) -> String {
    let (row, left, top) = (26.0, 330.0, 52.0);
    let right = WIDTH - 70.0;
    let bottom = top + bars.len() as f64 * row;
    let height = bottom + 52.0;
    let max = match shares {
        true => 1.0,
        false => bars
            .iter()
            .map(|b| b.1.iter().sum::<f64>())
            .fold(0.0, f64::max),
    };
    let scale = (right - left) / max.max(1e-9);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{}" data-points="{}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" aria-label="{}" font-family="system-ui, sans-serif" font-size="12"><rect width="100%" height="100%" fill="#fff"/><text x="{}" y="20" font-size="15" font-weight="600" text-anchor="middle">{}</text>"##,
        esc(id),
        bars.len(),
        esc(title),
        WIDTH / 2.0,
        esc(title)
    );
    for (i, (p, c)) in PARTS.iter().zip(COLORS).enumerate() {
        let x = left + i as f64 * 120.0;
        let _ = write!(
            s,
            r##"<rect x="{x}" y="30" width="12" height="12" fill="{c}"/><text x="{}" y="40">{p}</text>"##,
            x + 16.0
        );
    }
    let x_title = match shares {
        true => "Share of the I/Os' summed latency",
        false => "Mean latency per I/O",
    };
    for k in 0..=4 {
        let v = max * k as f64 / 4.0;
        let x = left + v * scale;
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{bottom}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#444" font-size="10">{}</text>"##,
            bottom + 14.0,
            esc(&value(v, shares))
        );
    }
    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="600">{x_title}</text><text x="{:.1}" y="{:.1}" text-anchor="end" font-weight="600">Job</text>"##,
        (left + right) / 2.0,
        bottom + 36.0,
        left - 8.0,
        top - 6.0
    );
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = top + i as f64 * row;
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            left - 8.0,
            y + row / 2.0 + 4.0,
            esc(label)
        );
        let mut x = left;
        for ((p, c), part) in PARTS.iter().zip(COLORS).zip(v) {
            let w = (part * scale).max(0.0);
            let _ = write!(
                s,
                r##"<rect class="bar" x="{x:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{c}"><title>{}: {p} {}</title></rect>"##,
                y + 3.0,
                row - 6.0,
                esc(label),
                value(*part, shares)
            );
            x += w;
        }
        // The bar's end, as a point with the whole of it to read on hover.
        let whole = v
            .iter()
            .map(|p| value(*p, shares))
            .collect::<Vec<_>>()
            .join(" + ");
        let _ = write!(
            s,
            r##"<circle class="pt" cx="{x:.1}" cy="{:.1}" r="3" fill="#333"><title>{}: {whole}</title></circle>"##,
            y + row / 2.0,
            esc(label)
        );
        if !shares {
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#333">{}</text>"##,
                x + 6.0,
                y + row / 2.0 + 4.0,
                esc(&micros(v.iter().sum()))
            );
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_stack_their_parts_in_order() {
        let svg = stacked(
            "t",
            "t",
            &[("a".into(), [1_000.0, 8_000.0, 1_000.0])],
            false,
        );
        let widths: Vec<f64> = svg
            .split("class=\"bar\"")
            .skip(1)
            .map(|b| {
                let w = b.split("width=\"").nth(1).unwrap();
                w[..w.find('"').unwrap()].parse().unwrap()
            })
            .collect();
        assert_eq!(widths.len(), 3);
        assert!((widths[1] / widths[0] - 8.0).abs() < 0.05, "{widths:?}");
        assert!(svg.contains("device 8.00 µs"), "{svg}");
    }
}
