//! iolab's report: one self-contained HTML page (CSS, plotly.js and every chart's data inline;
//! nothing fetched when opened) with the charts the seed reviews drew by hand, drawn from the
//! results store. Several runs overlay on every chart. Sections build typed charts
//! ([`chart`]); only [`plot`] knows the charting library.

pub mod chart;
pub mod data;
pub mod health;
mod hosts;
mod jobs;
pub mod ladder;
pub mod load;
pub mod page;
pub mod plot;
pub mod reduce;
pub mod sections;
pub mod split;

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
    let mut s = vec![sections::header(runs)];
    s.extend(jobs::section(runs));
    s.extend(sections::qd1(runs));
    s.extend(split::section(runs));
    s.extend(sections::sweep(runs));
    s.extend(load::section(runs));
    s.extend(sections::transfer(runs));
    s.extend(sections::distribution(runs));
    s.extend(sections::consistency(runs));
    s.extend(health::section(runs));
    s.extend(sections::profiles(runs));
    s.extend(sections::application(runs));
    s.extend(sections::ladder(runs));
    s.extend(hosts::section(runs));
    let ids: Vec<String> = runs.iter().map(|r| r.label()).collect();
    page::document(
        "iolab report",
        &format!("{}; iolab {}", ids.join(" vs "), env!("CARGO_PKG_VERSION")),
        &s,
    )
}
