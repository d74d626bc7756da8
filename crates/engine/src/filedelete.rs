//! `filedelete`: each pass over a file is one `unlink` of it, timed, as fio's
//! `engines/fileoperations.c`, for measuring a file system's delete path; the job's I/Os do
//! nothing and only count. The files are laid out before the run (`filesize`); removing a
//! file iolab did not make needs consent, as writing it would. The name is removed from the
//! directory it was checked in (`unlinkat`), never through a path looked up again.

use std::ffi::CString;
use std::os::fd::RawFd;

use crate::fileops::{FileOpEngine, Operation};
use crate::{Direction, EngineError, EngineTarget};

/// What `filedelete` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Filedelete,
    name: "filedelete",
    synchronous: true,
    accepts: crate::Accepts::FILES,
    options: &[],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: Some(crate::FileOp::Delete),
};

pub struct Unlink;

impl Operation for Unlink {
    const ENGINE: &'static str = "filedelete";

    fn run(&self, dir: RawFd, name: &CString, _path: &CString) -> isize {
        // SAFETY: a directory descriptor the engine keeps open and a NUL-terminated name.
        (unsafe { libc::unlinkat(dir, name.as_ptr(), 0) }) as isize
    }
}

pub type Filedelete = FileOpEngine<Unlink>;

pub fn open(target: EngineTarget<'_>) -> Result<Filedelete, EngineError> {
    FileOpEngine::open(target, Unlink)
}
