//! fio's `lockfile`: the copies of one job take turns on each of its files. One set of
//! locks per prepared job (its copies share it, as fio's `dup_files()` shares the lock);
//! a worker holds a file's lock from just before it issues an I/O until the issuing call
//! returns. Jobs without `lockfile` have no set and take no lock.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use iolab_engine::Direction;
use iolab_job::FileLock;

/// The locks of one job's files.
#[derive(Debug)]
pub struct FileLocks {
    exclusive: bool,
    files: Vec<RwLock<()>>,
}

/// A held lock; released when dropped.
pub enum FileGuard<'a> {
    Shared(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Alone(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

impl FileLocks {
    /// The locks `mode` asks for over `files` files; `None` for `lockfile=none`.
    pub fn new(mode: FileLock, files: usize) -> Option<FileLocks> {
        let exclusive = match mode {
            FileLock::None => return None,
            FileLock::Exclusive => true,
            FileLock::ReadWrite => false,
        };
        Some(FileLocks {
            exclusive,
            files: (0..files).map(|_| RwLock::new(())).collect(),
        })
    }

    /// Waits for file `file`'s lock as an I/O of `dir` needs it: shared for a read under
    /// `readwrite`, alone otherwise. A lock poisoned by a panicked copy is taken anyway
    /// (it guards no data).
    pub fn lock(&self, file: u32, dir: Direction) -> FileGuard<'_> {
        let l = &self.files[file as usize];
        if !self.exclusive && dir == Direction::Read {
            FileGuard::Shared(l.read().unwrap_or_else(|e| e.into_inner()))
        } else {
            FileGuard::Alone(l.write().unwrap_or_else(|e| e.into_inner()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_share_and_writers_wait_under_readwrite_only() {
        assert!(FileLocks::new(FileLock::None, 1).is_none());
        let rw = FileLocks::new(FileLock::ReadWrite, 2).unwrap();
        let a = rw.lock(0, Direction::Read);
        let b = rw.lock(0, Direction::Read);
        assert!(
            rw.files[0].try_write().is_err(),
            "a writer waits for readers"
        );
        assert!(rw.files[1].try_write().is_ok(), "files are locked apart");
        drop((a, b));
        let ex = FileLocks::new(FileLock::Exclusive, 1).unwrap();
        let g = ex.lock(0, Direction::Read);
        assert!(
            ex.files[0].try_read().is_err(),
            "exclusive: even reads wait"
        );
        drop(g);
    }
}
