//! The run record whole (figures, histograms, series, steps, host), pretty-printed: what
//! `iolab import` reads back. Several runs are a JSON array.

use std::io::{self, Write};

use iolab_results::RunRecord;

use super::Exporter;

pub struct Json;

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn export(&self, runs: &[RunRecord], out: &mut dyn Write) -> io::Result<()> {
        match runs {
            [one] => serde_json::to_writer_pretty(&mut *out, one)?,
            many => serde_json::to_writer_pretty(&mut *out, many)?,
        }
        writeln!(out)
    }
}
