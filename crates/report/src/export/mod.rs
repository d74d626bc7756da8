//! Stored runs written out, one format per file behind one trait (as hyperfine's `export/`):
//! JSON (the run record whole: `iolab import` reads it back), CSV (one row per job, direction
//! and figure, for a spreadsheet), Markdown (the jobs table `iolab show` prints). The HTML
//! report implements the same trait in `iolab_html`.

mod csv;
pub mod csv_wide;
mod json;
pub mod markdown;

use std::io::{self, Write};

use iolab_results::RunRecord;

pub use csv::{quote as csv_quote, Csv};
pub use csv_wide::CsvWide;
pub use json::Json;
pub use markdown::Markdown;

/// One output format of stored runs.
pub trait Exporter {
    /// The format's name, as `--format` takes it.
    fn name(&self) -> &'static str;

    /// Writes `runs` (one or more, in order) to `out`.
    fn export(&self, runs: &[RunRecord], out: &mut dyn Write) -> io::Result<()>;
}
