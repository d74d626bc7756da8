//! `filecreate`: each pass over a file is one `open(O_CREAT)` of it, timed, as fio's
//! `engines/fileoperations.c`, for measuring a file system's create path; the job's I/Os do
//! nothing and only count. Nothing is laid out before the run (fio's `FIO_DISKLESSIO`): the
//! operation makes the file. It is created in the directory it was checked in (`openat`,
//! `O_NOFOLLOW`), never through a path looked up again; an existing file is opened as fio
//! opens it (`O_RDWR`, not truncated), which changes none of its data.

use std::ffi::CString;
use std::os::fd::RawFd;

use crate::fileops::{FileOpEngine, Operation};
use crate::{Direction, EngineError, EngineTarget};

/// What `filecreate` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Filecreate,
    name: "filecreate",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &[],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: Some(crate::FileOp::Create),
};

pub struct Create;

impl Operation for Create {
    const ENGINE: &'static str = "filecreate";

    fn run(&self, dir: RawFd, name: &CString, _path: &CString) -> isize {
        let flags = libc::O_CREAT | libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a directory descriptor the engine keeps open and a NUL-terminated name.
        (unsafe { libc::openat(dir, name.as_ptr(), flags, 0o600) }) as isize
    }

    fn opens(&self) -> bool {
        true
    }
}

pub type Filecreate = FileOpEngine<Create>;

pub fn open(target: EngineTarget<'_>) -> Result<Filecreate, EngineError> {
    FileOpEngine::open(target, Create)
}
