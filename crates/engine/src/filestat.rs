//! `filestat`: each pass over a file is one `stat` of it (or `lstat`, `statx`: fio's
//! `stat_type`), timed, as fio's `engines/fileoperations.c`, for measuring a file system's
//! lookup and getattr path; the job's I/Os themselves do nothing and only count. The files
//! are laid out before the run (`filesize`), as fio's.

use std::ffi::CString;
use std::os::fd::RawFd;

use crate::fileops::{FileOpEngine, Operation};
use crate::{Direction, EngineError, EngineTarget, StatType};

/// What `filestat` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Filestat,
    name: "filestat",
    synchronous: true,
    accepts: crate::Accepts::FILES,
    options: &["stat_type"],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: Some(crate::FileOp::Stat),
};

pub struct Stat(StatType);

impl Operation for Stat {
    const ENGINE: &'static str = "filestat";

    fn run(&self, _dir: RawFd, _name: &CString, path: &CString) -> isize {
        stat_path(self.0, path)
    }
}

/// One `stat`, `lstat` or `statx` of `path`, as fio's `stat_file`. The whole path is looked
/// up, as fio's stat(f->file_name): the lookup is what is measured, and looking up changes
/// nothing.
pub(crate) fn stat_path(how: StatType, path: &CString) -> isize {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    let mut stx = std::mem::MaybeUninit::<libc::statx>::uninit();
    // SAFETY: a NUL-terminated path and buffers of the kinds each call fills.
    (unsafe {
        match how {
            StatType::Stat => libc::stat(path.as_ptr(), st.as_mut_ptr()),
            StatType::Lstat => libc::lstat(path.as_ptr(), st.as_mut_ptr()),
            StatType::Statx => libc::statx(
                libc::AT_FDCWD,
                path.as_ptr(),
                0,
                libc::STATX_ALL,
                stx.as_mut_ptr(),
            ),
        }
    }) as isize
}

pub type Filestat = FileOpEngine<Stat>;

pub fn open(target: EngineTarget<'_>, how: StatType) -> Result<Filestat, EngineError> {
    FileOpEngine::open(target, Stat(how))
}
