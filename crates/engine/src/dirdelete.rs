//! `dirdelete` (fio 3.42): each pass over a "file" is one `rmdir` of it, timed, as fio's
//! `engines/fileoperations.c`; the job's I/Os do nothing and only count. The directories are
//! made when the engine opens, before the clock starts (fio's `setup_dirs`); removing one the
//! user had needs consent, as filedelete's files do (only an empty one can be removed). The
//! name is removed from the directory it was checked in (`unlinkat(AT_REMOVEDIR)`).

use std::ffi::CString;
use std::os::fd::RawFd;

use crate::fileops::{make_dir, FileOpEngine, Operation};
use crate::{Direction, EngineError, EngineTarget};

/// What `dirdelete` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Dirdelete,
    name: "dirdelete",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &[],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: Some(crate::FileOp::DeleteDir),
};

pub struct RemoveDir;

impl Operation for RemoveDir {
    const ENGINE: &'static str = "dirdelete";

    fn run(&self, dir: RawFd, name: &CString, _path: &CString) -> isize {
        // SAFETY: a directory descriptor the engine keeps open and a NUL-terminated name.
        (unsafe { libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) }) as isize
    }

    fn prepare(&self, dir: RawFd, name: &CString) -> std::io::Result<()> {
        make_dir(dir, name)
    }
}

pub type Dirdelete = FileOpEngine<RemoveDir>;

pub fn open(target: EngineTarget<'_>) -> Result<Dirdelete, EngineError> {
    FileOpEngine::open(target, RemoveDir)
}
