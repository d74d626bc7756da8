//! What fio's file-operation engines (`engines/fileoperations.c`: filecreate, filestat,
//! filedelete) share: the job's I/Os do no I/O and only count (fio's `FIO_FAKEIO`), and the
//! first I/O of each pass over a file does the engine's one operation on it, which is the
//! only thing timed, as fio times the operation in its `open_file` hook and records it as a
//! completion-latency sample. A pass is the file's region in bytes, so a job that loops or
//! runs by time operates on each file again per pass, as fio reopens each file per loop.
//!
//! The operation works on the file's name in its directory, opened once through the file's
//! pin (no symlink followed, the name checked to be what was pinned), never on its path
//! looked up again: `unlinkat` removes that directory's entry and nothing it may point to.

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};

use crate::{Capabilities, EngineError, EngineTarget, IoEngine, IoUnit, QueueStatus};

/// One engine's operation on a file: `dir` holds it under `name` (`path` is its whole
/// checked path, for the calls that look a path up); returns the system call's result.
pub trait Operation {
    /// The engine's fio name, for messages.
    const ENGINE: &'static str;
    fn run(&self, dir: RawFd, name: &CString, path: &CString) -> isize;
    /// The operation's result is a descriptor it opened (filecreate's), closed once the
    /// worker has read its clock ([`IoEngine::settle`]), as fio closes a file outside the
    /// timed open.
    fn opens(&self) -> bool {
        false
    }
    /// Made ready when the engine opens, before the clock starts: dirstat and dirdelete make
    /// their directories there, as fio's `setup_dirs` (one already there is used as it is).
    fn prepare(&self, _dir: RawFd, _name: &CString) -> std::io::Result<()> {
        Ok(())
    }
}

/// Makes the directory `name` in `dir` (private, 0700, as fio's `setup_dirs`); one already
/// there is fine.
pub(crate) fn make_dir(dir: RawFd, name: &CString) -> std::io::Result<()> {
    // SAFETY: a directory descriptor the engine keeps open and a NUL-terminated name.
    if unsafe { libc::mkdirat(dir, name.as_ptr(), 0o700) } == 0 {
        return Ok(());
    }
    match std::io::Error::last_os_error() {
        e if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        e => Err(e),
    }
}

struct OpFile {
    /// Index into the engine's directories.
    dir: usize,
    name: CString,
    path: CString,
    pass: u64,
    /// Bytes of the current pass done.
    done: u64,
}

pub struct FileOpEngine<O: Operation> {
    op: O,
    files: Vec<OpFile>,
    /// The directories the files are in, each opened once (a job may have thousands of
    /// files in one directory).
    dirs: Vec<(std::path::PathBuf, File)>,
    /// The last I/O did the operation (timed), or only counted.
    timed: bool,
    /// What the last operation opened, closed by [`IoEngine::settle`].
    opened: Option<File>,
}

impl<O: Operation> FileOpEngine<O> {
    pub(crate) fn open(target: EngineTarget<'_>, op: O) -> Result<FileOpEngine<O>, EngineError> {
        let mut engine = FileOpEngine {
            op,
            files: Vec::with_capacity(target.pins.len()),
            dirs: Vec::new(),
            timed: true,
            opened: None,
        };
        for (pin, &pass) in target.pins.iter().zip(target.pass_bytes) {
            let setup = |source| EngineError::Setup {
                engine: O::ENGINE,
                op: "opening the file's directory",
                source,
            };
            let (dir, name) = pin.open_dir().map_err(|e| {
                setup(match e {
                    iolab_sysinfo::PinError::Io(e) => e,
                    other => std::io::Error::other(format!("{}: {other}", pin.resolved.display())),
                })
            })?;
            let path = CString::new(pin.resolved.as_os_str().as_encoded_bytes())
                .map_err(|e| setup(std::io::Error::new(std::io::ErrorKind::InvalidInput, e)))?;
            engine
                .op
                .prepare(dir.as_raw_fd(), &name)
                .map_err(|e| EngineError::Setup {
                    engine: O::ENGINE,
                    op: "making the directory",
                    source: std::io::Error::new(
                        e.kind(),
                        format!("{}: {e}", pin.resolved.display()),
                    ),
                })?;
            let parent = pin.resolved.parent().unwrap_or(std::path::Path::new("/"));
            let dir = match engine.dirs.iter().position(|(p, _)| p == parent) {
                Some(i) => i,
                None => {
                    engine.dirs.push((parent.to_path_buf(), dir));
                    engine.dirs.len() - 1
                }
            };
            engine.files.push(OpFile {
                dir,
                name,
                path,
                pass: pass.max(1),
                done: 0,
            });
        }
        Ok(engine)
    }
}

impl<O: Operation> IoEngine for FileOpEngine<O> {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let f = &mut self.files[io.file as usize];
        let begins = f.done == 0;
        f.done += io.len as u64;
        if f.done >= f.pass {
            f.done = 0;
        }
        self.timed = begins;
        if !begins {
            return Ok(QueueStatus::Completed(io.len as i64));
        }
        let dir = self.dirs[f.dir].1.as_raw_fd();
        let ret = self.op.run(dir, &f.name, &f.path);
        if ret < 0 {
            return Ok(QueueStatus::Completed(crate::syscall_result(-1)));
        }
        if self.op.opens() {
            // SAFETY: a descriptor the operation just opened, owned by nobody else.
            self.opened = Some(unsafe { std::os::fd::FromRawFd::from_raw_fd(ret as i32) });
        }
        Ok(QueueStatus::Completed(io.len as i64))
    }

    fn settle(&mut self) {
        self.opened = None;
    }

    #[inline(always)]
    fn timed(&self) -> bool {
        self.timed
    }
}
