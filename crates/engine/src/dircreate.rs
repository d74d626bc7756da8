//! `dircreate` (fio 3.42): each pass over a "file" is one `mkdir` of it, timed, as fio's
//! `engines/fileoperations.c`, for measuring a file system's directory-create path; the job's
//! I/Os do nothing and only count. Nothing is made before the run: the operation makes the
//! directory, in the directory it was checked in (`mkdirat`). One already there is an error
//! of the job's, as fio's. The directory is private (0700, as fio's `setup_dirs` makes them;
//! fio's dircreate passes `S_IFDIR` as the mode and so makes it with no permission bits).

use std::ffi::CString;
use std::os::fd::RawFd;

use crate::fileops::{FileOpEngine, Operation};
use crate::{Direction, EngineError, EngineTarget};

/// What `dircreate` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Dircreate,
    name: "dircreate",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &[],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: Some(crate::FileOp::CreateDir),
};

pub struct MakeDir;

impl Operation for MakeDir {
    const ENGINE: &'static str = "dircreate";

    fn run(&self, dir: RawFd, name: &CString, _path: &CString) -> isize {
        // SAFETY: a directory descriptor the engine keeps open and a NUL-terminated name.
        (unsafe { libc::mkdirat(dir, name.as_ptr(), 0o700) }) as isize
    }
}

pub type Dircreate = FileOpEngine<MakeDir>;

pub fn open(target: EngineTarget<'_>) -> Result<Dircreate, EngineError> {
    FileOpEngine::open(target, MakeDir)
}
