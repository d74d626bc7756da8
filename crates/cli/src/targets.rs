//! What every subcommand does before its first I/O: check all jobs against their targets
//! (bad input stops here, with nothing written), open the output, then lay out the files the
//! jobs need, saying so on stderr.

use std::io::Write;
use std::path::Path;

use iolab_job::JobSpec;
use iolab_runner::prepare::{lay_out, layouts_needed};
use iolab_runner::{prepare, PreparedJob};

use crate::exit::CliError;
use crate::output;

pub fn prepare_all(
    specs: &[JobSpec],
    allow_destroy: bool,
    output_path: Option<&Path>,
) -> Result<(Vec<PreparedJob>, Box<dyn Write>), CliError> {
    let mut jobs = prepare(specs, allow_destroy)?;
    let out = output::open(output_path)?;
    for l in layouts_needed(&jobs) {
        eprintln!(
            "iolab: laying out {} ({})",
            l.path.display(),
            iolab_report::format::bytes_binary((l.to_bytes - l.from_bytes) as f64)
        );
        lay_out(&l, &mut jobs)?;
    }
    Ok((jobs, out))
}
