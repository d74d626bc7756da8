//! A run on many hosts: a bar per host for its IOPS and for its p99 completion latency, side
//! by side, so a slow host stands out at a glance; the numbers are one click away.

use std::fmt::Write as _;

use iolab_report::format::{compact, micros};
use iolab_report::hosts::from_meta;
use iolab_results::HostRow;

use crate::data::RunData;
use crate::page::{chart_block_raw, Section};
use crate::svg::esc;

const ROW_PX: usize = 22;
const LABEL_PX: usize = 170;
const BAR_PX: usize = 300;

/// The per-host section of every multi-host run among `runs`; `None` when there is none.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for r in runs {
        let Some((head, rows)) = from_meta(&r.detail.meta) else {
            continue;
        };
        let _ = write!(html, "<p>{}: {}.</p>", esc(&r.label()), esc(&head.line()));
        let id = format!("hosts-{}", r.id());
        let title = format!("{}: IOPS and p99 completion latency per host", r.label());
        html.push_str(&chart_block_raw(&id, &bars(&title, &rows), &table(&rows)));
    }
    (!html.is_empty()).then(|| Section::new("hosts", "Hosts", html))
}

fn row_label(r: &HostRow) -> String {
    format!("rank {} {} · {} {}", r.rank, r.hostname, r.job, r.direction)
}

/// Two bar columns, IOPS and p99, one row per host, each scaled to its column's largest.
fn bars(title: &str, rows: &[HostRow]) -> String {
    let max_iops = rows.iter().map(|r| r.iops).fold(0.0, f64::max).max(1.0);
    let max_p99 = rows
        .iter()
        .map(|r| r.clat_p99_ns)
        .fold(0.0, f64::max)
        .max(1.0);
    let width = LABEL_PX + 2 * (BAR_PX + 80);
    let height = 50 + ROW_PX * rows.len();
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"12\"><title>{}</title>\
         <text x=\"{LABEL_PX}\" y=\"16\" font-weight=\"bold\">IOPS</text>\
         <text x=\"{}\" y=\"16\" font-weight=\"bold\">clat p99</text>",
        esc(title),
        LABEL_PX + BAR_PX + 80
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 30 + i * ROW_PX;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            LABEL_PX - 6,
            y + 14,
            esc(&row_label(r))
        );
        let columns = [
            (LABEL_PX, r.iops / max_iops, compact(r.iops), "#3b6ea5"),
            (
                LABEL_PX + BAR_PX + 80,
                r.clat_p99_ns / max_p99,
                micros(r.clat_p99_ns),
                "#c0504d",
            ),
        ];
        for (x, frac, text, color) in columns {
            let w = (frac * BAR_PX as f64).round().max(1.0);
            let _ = write!(
                s,
                "<rect class=\"pt\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{}\" \
                 fill=\"{color}\"><title>{}: {}</title></rect>\
                 <text x=\"{}\" y=\"{}\">{}</text>",
                ROW_PX - 6,
                esc(&row_label(r)),
                esc(&text),
                x as f64 + w + 4.0,
                y + 14,
                esc(&text)
            );
        }
    }
    s.push_str("</svg>");
    s
}

fn table(rows: &[HostRow]) -> String {
    let mut t = String::from(
        "<table class=\"data\"><thead><tr><th>rank</th><th>host</th><th>job</th><th>dir</th>\
         <th>I/Os</th><th>IOPS</th><th>clat mean (ns)</th><th>clat p99 (ns)</th></tr></thead><tbody>",
    );
    for r in rows {
        let _ = write!(
            t,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}</td>\
             <td>{:.0}</td><td>{:.0}</td></tr>",
            r.rank,
            esc(&r.hostname),
            esc(&r.job),
            esc(&r.direction),
            r.ios,
            r.iops,
            r.clat_mean_ns,
            r.clat_p99_ns
        );
    }
    t.push_str("</tbody></table>");
    t
}
