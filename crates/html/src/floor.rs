//! The review's software-floor step: each path's QD1 4 KiB read mean latency split into
//! iolab's own cost (the null engine), the kernel's block path (a RAM device less that) and
//! the device with the rest (the target less the RAM device), as a stacked bar per path.

use std::fmt::Write as _;

use iolab_report::format::micros;
use iolab_results::review::{self, FloorRow, FloorStep};

use crate::chart::esc;
use crate::data::RunData;
use crate::page::Section;
use crate::sections::step_data;

/// A part's time, "within noise" where the difference came out below zero, or n/a.
fn part(v: Option<f64>) -> String {
    match v {
        Some(ns) if ns < 0.0 => "within noise".into(),
        Some(ns) => micros(ns),
        None => "n/a".into(),
    }
}

/// A share of the split: its time, or "within noise" where the step said so.
fn share(e: &FloorRow, name: &str, v: Option<f64>) -> String {
    match e.within_noise.iter().any(|n| n == name) {
        true => "within noise".into(),
        false => part(v),
    }
}

/// The section, when any run has the software-floor step.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for r in runs {
        let Some(d) = step_data(r, "software-floor") else {
            continue;
        };
        let d: FloorStep = review::read(d);
        if runs.len() > 1 {
            let _ = write!(html, "<h3>{}</h3>", esc(&r.label()));
        }
        let _ = write!(
            html,
            "<p class=\"note\">RAM device: {}; the harness (null engine) {} per I/O.</p>\
             <table class=\"facts\"><thead><tr><th>path</th><th>harness</th>\
             <th>kernel block path</th><th>device + rest</th><th>target mean</th>\
             <th>split</th></tr></thead><tbody>",
            esc(d.ram_device.as_deref().unwrap_or("none")),
            part(d.null_ns)
        );
        for e in &d.engines {
            let nums: Vec<f64> = [e.harness_ns, e.kernel_ns, e.device_ns]
                .iter()
                .map(|v| v.unwrap_or(0.0).max(0.0))
                .collect();
            let total: f64 = nums.iter().sum::<f64>().max(1.0);
            let bar: String = nums
                .iter()
                .zip(["harness", "kernel", "device"])
                .map(|(v, c)| {
                    format!(
                        "<span class=\"floor-{c}\" style=\"display:inline-block;height:0.9em;\
                         width:{:.1}%\"></span>",
                        v / total * 100.0
                    )
                })
                .collect();
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td style=\"width:30%\">{}</td></tr>",
                esc(&e.engine),
                part(e.harness_ns),
                share(e, "kernel", e.kernel_ns),
                share(e, "device", e.device_ns),
                part(e.target_ns),
                match e.unavailable.as_deref() {
                    Some(why) => format!("n/a: {}", esc(why)),
                    None => bar,
                }
            );
        }
        html.push_str("</tbody></table>");
        for n in &d.notes {
            let _ = write!(html, "<p class=\"note\">{}</p>", esc(n));
        }
    }
    (!html.is_empty()).then(|| {
        Section::new(
            "floor",
            "Software floor",
            format!(
                "<p>Where a QD1 4 KiB read's time goes: iolab's own cost per I/O (the null \
                 engine, no I/O), the kernel's block path (a RAM device's mean less that), and \
                 the device with the rest (the target's mean less the RAM device's).</p>{html}"
            ),
        )
    })
}
