//! iolab's report: one self-contained HTML page (CSS, script and SVG charts inline; nothing
//! fetched when opened) with the charts the seed reviews drew by hand, drawn from the results
//! store. Several runs overlay on every chart.

pub mod data;
pub mod hosts;
pub mod ladder;
pub mod load;
pub mod page;
pub mod scale;
pub mod sections;
pub mod split;
pub mod svg;

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
    s.extend(sections::qd1(runs));
    s.extend(split::section(runs));
    s.extend(sections::sweep(runs));
    s.extend(load::section(runs));
    s.extend(sections::transfer(runs));
    s.extend(sections::distribution(runs));
    s.extend(sections::consistency(runs));
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
