//! iolab's report: one self-contained HTML page (CSS, plotly.js and every chart's data inline;
//! nothing fetched when opened) with the charts the seed reviews drew by hand, drawn from the
//! results store. Several runs overlay on every chart. Sections build typed charts
//! ([`chart`]); only [`plot`] knows the charting library.

pub mod chart;
pub mod data;
mod facts;
mod floor;
pub mod health;
mod hosts;
pub mod job_charts;
mod jobs;
pub mod ladder;
pub mod load;
pub mod page;
pub mod plot;
mod precondition;
pub mod pts;
mod pts_columns;
mod pts_terms;
pub mod reduce;
pub mod sections;
pub mod split;
pub mod summary;
mod utc;
pub mod verdicts;

pub use data::{load, RunData};

/// The report as an exporter of stored runs, beside JSON, CSV and Markdown.
pub struct Html;

impl iolab_report::export::Exporter for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn export(
        &self,
        runs: &[iolab_results::RunRecord],
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let data: Vec<RunData> = runs.iter().cloned().map(RunData::from_record).collect();
        out.write_all(build(&data).as_bytes())
    }
}

/// The report of `runs` as one HTML document; sections without data are left out.
pub fn build(runs: &[RunData]) -> String {
    let mut s: Vec<page::Section> = summary::section(runs).into_iter().collect();
    s.push(sections::header(runs));
    // A PTS run's hundreds of elements are its own sections' (pts-*), not job tables.
    let plain: Vec<RunData> = runs
        .iter()
        .filter(|r| r.detail.kind != "pts")
        .cloned()
        .collect();
    s.extend(jobs::section(&plain));
    s.extend(verdicts::section(runs));
    s.extend(job_charts::section(&plain));
    s.extend(facts::section(runs));
    s.extend(precondition::section(runs));
    s.extend(sections::qd1(runs));
    s.extend(split::section(runs));
    s.extend(sections::sweep(runs));
    s.extend(load::section(runs));
    s.extend(sections::transfer(runs));
    s.extend(sections::distribution(runs));
    s.extend(sections::consistency(runs));
    s.extend(health::section(runs));
    s.extend(floor::section(runs));
    s.extend(sections::profiles(runs));
    s.extend(sections::application(runs));
    s.extend(sections::ladder(runs));
    s.extend(hosts::section(runs));
    s.extend(pts::sections(runs));
    page::document(&naming(runs), &s)
}

/// The page's title, each chart's caption and the saved images' file stem, from the runs:
/// device (model and kernel name), host and day of each.
pub fn naming(runs: &[RunData]) -> page::Naming {
    let uniq = |f: &dyn Fn(&RunData) -> String| {
        let mut v: Vec<String> = Vec::new();
        for r in runs {
            let x = f(r);
            if !v.contains(&x) {
                v.push(x);
            }
        }
        v.join(", ")
    };
    let devices = uniq(&|r| r.device_named());
    let hosts = uniq(&|r| r.detail.host.hostname.clone());
    let days = uniq(&|r| r.day());
    let title = match runs.len() {
        0 => "iolab report".to_string(),
        1 => format!("iolab report: {devices}"),
        _ => format!(
            "iolab report: {}",
            runs.iter()
                .map(|r| format!("run {} ({})", r.id(), r.device_named()))
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
    };
    let ids: Vec<String> = runs.iter().map(|r| format!("run {}", r.id())).collect();
    let stem: Vec<String> = runs
        .iter()
        .map(|r| format!("{}_{}", r.device_named(), r.day()))
        .collect();
    page::Naming {
        title,
        subtitle: format!(
            "{}; on {hosts}; {days}; iolab {}",
            ids.join(" vs "),
            env!("CARGO_PKG_VERSION")
        ),
        caption: format!("{devices} · {hosts} · {days}"),
        file_stem: file_safe(&stem.join("_vs_")),
    }
}

/// A file name's part from free text: letters, digits, `.`, `-` and `_` kept, runs of
/// anything else one `-` (`INTEL SSDPE21D375GA (nvme0n1)` → `INTEL-SSDPE21D375GA-nvme0n1`).
fn file_safe(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').replace("-_", "_")
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_names_keep_what_a_file_system_takes() {
        assert_eq!(
            super::file_safe("INTEL SSDPE21D375GA (nvme0n1)_2026-11-28"),
            "INTEL-SSDPE21D375GA-nvme0n1_2026-11-28"
        );
        assert_eq!(super::file_safe("a/b\\c"), "a-b-c");
    }
}
