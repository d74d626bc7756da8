//! `dirstat` (fio 3.42): each pass over a "file" is one `stat` of a directory (or `lstat`,
//! `statx`: `stat_type`), timed, as fio's `engines/fileoperations.c`; the job's I/Os do
//! nothing and only count. The directories are made when the engine opens, before the
//! clock starts (fio's `setup_dirs`); one already there is used as it is.

use std::ffi::CString;
use std::os::fd::RawFd;

use crate::fileops::{make_dir, FileOpEngine, Operation};
use crate::{Direction, EngineError, EngineTarget, StatType};

/// What `dirstat` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Dirstat,
    name: "dirstat",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &["stat_type"],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: Some(crate::FileOp::StatDir),
};

pub struct StatDir(StatType);

impl Operation for StatDir {
    const ENGINE: &'static str = "dirstat";

    fn run(&self, _dir: RawFd, _name: &CString, path: &CString) -> isize {
        crate::filestat::stat_path(self.0, path)
    }

    fn prepare(&self, dir: RawFd, name: &CString) -> std::io::Result<()> {
        make_dir(dir, name)
    }
}

pub type Dirstat = FileOpEngine<StatDir>;

pub fn open(target: EngineTarget<'_>, how: StatType) -> Result<Dirstat, EngineError> {
    FileOpEngine::open(target, StatDir(how))
}
