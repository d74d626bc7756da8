//! A run on many hosts: a bar per host for its IOPS and for its p99 completion latency, side
//! by side, so a slow host stands out at a glance; the numbers are one click away.

use std::fmt::Write as _;

use iolab_report::hosts::from_meta;
use iolab_results::HostRow;

use crate::chart::{esc, Axis, BarSet, Bars, Format, ScaleKind};
use crate::data::RunData;
use crate::page::{bars_block, bars_block_with_table, Section};

/// The per-host section of every multi-host run among `runs`; `None` when there is none.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for r in runs {
        let Some((head, rows)) = from_meta(&r.detail.meta) else {
            continue;
        };
        let _ = write!(html, "<p>{}: {}.</p>", esc(&r.label()), esc(&head.line()));
        let id = format!("hosts-{}", r.id());
        let iops = bars(
            &format!("{id}-iops"),
            &format!("{}: IOPS per host", r.label()),
            &rows,
            ("IOPS", Format::Count, "#3b6ea5"),
            |h| h.iops,
        );
        let p99 = bars(
            &format!("{id}-p99"),
            &format!("{}: p99 completion latency per host", r.label()),
            &rows,
            ("clat p99", Format::Nanos, "#c0504d"),
            |h| h.clat_p99_ns,
        );
        html.push_str(&bars_block_with_table(&iops, &table(&rows)));
        html.push_str(&bars_block(&p99));
    }
    (!html.is_empty()).then(|| Section::new("hosts", "Hosts", html))
}

fn row_label(r: &HostRow) -> String {
    format!("rank {} {} · {} {}", r.rank, r.hostname, r.job, r.direction)
}

/// One bar per host, so a slow host stands out at a glance.
fn bars(
    id: &str,
    title: &str,
    rows: &[HostRow],
    (what, format, color): (&str, Format, &str),
    value: impl Fn(&HostRow) -> f64,
) -> Bars {
    Bars {
        id: id.into(),
        title: title.into(),
        category_title: "Host".into(),
        categories: rows.iter().map(row_label).collect(),
        value: Axis {
            title: what.into(),
            scale: ScaleKind::Linear,
            format,
        },
        sets: vec![BarSet {
            name: what.into(),
            values: rows.iter().map(value).collect(),
            colors: vec![color.into()],
            intervals: Vec::new(),
        }],
        totals: true,
        grouped: false,
    }
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
