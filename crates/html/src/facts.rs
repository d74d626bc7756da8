//! The review's info step as a section: the target, its disk and the host as measured, the
//! facts a reader needs to set the figures beside another machine's.

use std::fmt::Write as _;

use iolab_results::review::{self, InfoDisk, InfoHost, InfoStep};

use crate::chart::esc;
use crate::data::RunData;
use crate::page::Section;
use crate::sections::step_data;

/// A fact as a cell: its value, or "-" where the step did not find it.
fn cell<T: ToString>(v: Option<T>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

/// One row: its label, and how its value is read from the step's data.
type Row = (&'static str, fn(&InfoStep) -> String);

fn disk(i: &InfoStep) -> InfoDisk {
    i.disk.clone().unwrap_or_default()
}

fn host(i: &InfoStep) -> InfoHost {
    i.host.clone().unwrap_or_default()
}

const ROWS: [Row; 17] = [
    ("target", |i| cell(i.target.clone())),
    ("kind", |i| cell(i.target_kind.clone())),
    ("filesystem", |i| cell(i.filesystem.clone())),
    ("size (bytes)", |i| cell(i.target_bytes)),
    ("logical block", |i| cell(i.logical_block_size)),
    ("disk", |i| cell(disk(i).name)),
    ("model", |i| cell(disk(i).model)),
    ("scheduler", |i| cell(disk(i).scheduler)),
    ("poll queues", |i| cell(disk(i).nvme_poll_queues)),
    ("write cache", |i| cell(disk(i).write_cache)),
    ("discard max", |i| cell(disk(i).discard_max_bytes)),
    ("host", |i| cell(host(i).hostname)),
    ("CPU", |i| cell(host(i).cpu_model)),
    ("CPUs", |i| cell(host(i).cpus)),
    ("governor", |i| cell(host(i).governor)),
    ("kernel", |i| cell(host(i).kernel)),
    ("clock", |i| cell(host(i).clock_source)),
];

/// The section, when any run has the info step.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let with: Vec<(&RunData, InfoStep)> = runs
        .iter()
        .filter_map(|r| Some((r, review::read(step_data(r, "info")?))))
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut t = String::from("<table class=\"facts\"><thead><tr><th></th>");
    for (r, _) in &with {
        let _ = write!(t, "<th>{}</th>", esc(&r.label()));
    }
    t.push_str("</tr></thead><tbody>");
    for (label, value) in ROWS {
        let _ = write!(t, "<tr><th>{label}</th>");
        for (_, d) in &with {
            let _ = write!(t, "<td>{}</td>", esc(&value(d)));
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    Some(Section::new("info", "Device and host", t))
}
