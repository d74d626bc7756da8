//! The jobs of runs that are not reviews (`iolab run`, an imported fio run): a row per job
//! and direction with IOPS, bandwidth and the latency figures under the one named mean
//! `show`, `compare` and `history` use (`clat` for an imported fio run, whose percentiles
//! are clat's; `lat` for iolab's own runs).

use std::fmt::Write as _;

use iolab_report::export::markdown::{latency_cell, one_kind};
use iolab_report::format::compact;

use crate::chart::esc;
use crate::data::RunData;
use crate::page::Section;

/// A table per plain run; `None` when every run is a review or an application load.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for r in runs.iter().filter(|r| crate::job_charts::is_plain(r)) {
        let one = one_kind(r.jobs());
        let head = one.map_or(String::new(), |k| format!("{k} "));
        let _ = write!(
            html,
            "<h3>{}</h3><table class=\"jobs\"><thead><tr><th>job</th><th>engine</th>\
             <th>QD</th><th>rw</th><th>bs</th><th>dir</th><th>IOPS</th><th>MB/s</th>\
             <th>{head}mean</th><th>{head}p99</th><th>{head}p99.999</th></tr></thead><tbody>",
            esc(&r.label())
        );
        for j in r.jobs() {
            for dir in j.directions() {
                let m = |n: &str| j.metric(dir, n).unwrap_or(0.0);
                let lat = |n: &str| latency_cell(j, dir, n, one);
                let _ = write!(
                    html,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{dir}</td>\
                     <td>{}</td><td>{:.1}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(&j.name),
                    esc(&j.engine),
                    j.iodepth,
                    esc(&j.rw),
                    j.block_size,
                    compact(m("iops")),
                    m("bw_bytes") / 1e6,
                    esc(&lat("mean_ns")),
                    esc(&lat("p99_ns")),
                    esc(&lat("p99.999_ns")),
                );
            }
        }
        html.push_str("</tbody></table>");
    }
    (!html.is_empty()).then(|| Section::new("jobs", "Jobs", html))
}
