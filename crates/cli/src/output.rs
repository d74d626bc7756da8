//! Where results go: stdout, or the file named by --output.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::Context;

use crate::exit::CliError;

pub fn open(path: Option<&Path>) -> Result<Box<dyn Write>, CliError> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::new(
            File::create(p)
                .with_context(|| format!("--output={}", p.display()))
                .map_err(CliError::bad_input)?,
        )),
        None => Box::new(io::stdout().lock()),
    })
}
