//! Opening a job's targets the way its engine uses them: read-only or read-write, direct or
//! buffered, and not at all for an engine that accepts no target (null).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::EngineKind;

/// How the files are opened.
#[derive(Debug, Clone, Copy)]
pub struct OpenHow {
    /// O_DIRECT: around the page cache.
    pub direct: bool,
    /// Opened for writing as well as reading.
    pub writes: bool,
}

/// Opens each of `paths` for `kind`; the path that failed, with why.
pub fn open_targets<'a>(
    kind: EngineKind,
    paths: impl Iterator<Item = &'a PathBuf>,
    how: OpenHow,
) -> Result<Vec<File>, (&'a Path, std::io::Error)> {
    if kind.def().accepts.nothing() {
        return Ok(Vec::new());
    }
    let mut opts = OpenOptions::new();
    opts.read(true).write(how.writes);
    // A char device cannot be opened O_DIRECT (EINVAL); passthrough has no cache anyway.
    if how.direct && !kind.def().accepts.nvme_generic {
        opts.custom_flags(libc::O_DIRECT);
    }
    paths
        .map(|p| opts.open(p).map_err(|e| (p.as_path(), e)))
        .collect()
}
