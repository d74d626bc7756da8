//! The review's info step as a section: the target, its disk and the host as measured, the
//! facts a reader needs to set the figures beside another machine's.

use std::fmt::Write as _;

use serde_json::Value;

use crate::chart::esc;
use crate::data::RunData;
use crate::page::Section;
use crate::sections::step_data;

/// Rows of the facts: label and where its value is in the step's data.
const ROWS: [(&str, &[&str]); 17] = [
    ("target", &["target"]),
    ("kind", &["target_kind"]),
    ("filesystem", &["filesystem"]),
    ("size (bytes)", &["target_bytes"]),
    ("logical block", &["logical_block_size"]),
    ("disk", &["disk", "name"]),
    ("model", &["disk", "model"]),
    ("scheduler", &["disk", "scheduler"]),
    ("poll queues", &["disk", "nvme_poll_queues"]),
    ("write cache", &["disk", "write_cache"]),
    ("discard max", &["disk", "discard_max_bytes"]),
    ("host", &["host", "hostname"]),
    ("CPU", &["host", "cpu_model"]),
    ("CPUs", &["host", "cpus"]),
    ("governor", &["host", "governor"]),
    ("kernel", &["host", "kernel"]),
    ("clock", &["host", "clock_source"]),
];

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The section, when any run has the info step.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let with: Vec<(&RunData, &Value)> = runs
        .iter()
        .filter_map(|r| Some((r, step_data(r, "info")?)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut t = String::from("<table class=\"facts\"><thead><tr><th></th>");
    for (r, _) in &with {
        let _ = write!(t, "<th>{}</th>", esc(&r.label()));
    }
    t.push_str("</tr></thead><tbody>");
    for (label, path) in ROWS {
        let _ = write!(t, "<tr><th>{label}</th>");
        for (_, d) in &with {
            let v = path.iter().fold(*d, |v, k| &v[*k]);
            let _ = write!(t, "<td>{}</td>", esc(&text(v)));
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    Some(Section::new("info", "Device and host", t))
}
