//! How a job's files are made, opened and left: what fio's file-setup options decide
//! (`fallocate`, `overwrite`, `allow_file_create`, `create_*`, `unlink`, `sync`, ...), as
//! plain data the runner reads.

/// How a new file's space is reserved before its I/O (fio's `fallocate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Fallocate {
    /// No reservation: the file grows as it is written.
    None,
    /// `fallocate(2)` mode 0, and no reservation where the file system refuses it (fio's
    /// default on Linux).
    #[default]
    Native,
    /// `posix_fallocate(3)`: an error when it fails.
    Posix,
    /// `fallocate(2)` with `FALLOC_FL_KEEP_SIZE`: blocks reserved, the length unchanged.
    Keep,
    /// `ftruncate(2)` to the final length: a sparse file.
    Truncate,
}

/// Whether writes are synchronous (fio's `sync`: the file opened `O_SYNC` or `O_DSYNC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncWrites {
    #[default]
    None,
    /// `O_SYNC`: each write returns once its data and metadata are stable.
    Sync,
    /// `O_DSYNC`: each write returns once its data are stable.
    Dsync,
}

/// Whether a job's copies take turns on each file (fio's `lockfile`). As in fio 3.33, the
/// lock is shared by the copies of one job (`numjobs`), not by separate jobs naming the same
/// file, and is held from just before an I/O is issued until the issuing call returns: the
/// whole I/O for a synchronous engine, its submission for an asynchronous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileLock {
    #[default]
    None,
    /// One I/O at a time.
    Exclusive,
    /// Reads together, a write alone.
    ReadWrite,
}

/// The file-setup choices of one job; fio's defaults from [`Default`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSetup {
    /// A missing file may be created (`allow_file_create`, default true).
    pub allow_create: bool,
    pub fallocate: Fallocate,
    /// A write-only job's new file is filled with data before its I/O (`overwrite`), as a
    /// job that reads always is; without it the file is only made and reserved.
    pub overwrite: bool,
    /// The laid-out file is synced (`create_fsync`, default true).
    pub create_fsync: bool,
    /// A write-only job's missing file is made when the job opens it, empty and unreserved
    /// (`create_on_open`).
    pub create_on_open: bool,
    /// Only lay the files out; run no I/O (`create_only`).
    pub create_only: bool,
    /// Remove the job's files when it ends (`unlink`) or after every loop
    /// (`unlink_each_loop`).
    pub unlink: bool,
    pub unlink_each_loop: bool,
    /// `fsync(2)` each written file when the job closes it (`fsync_on_close`), untimed.
    pub fsync_on_close: bool,
    /// Read the job's region into the page cache before the I/O starts (`pre_read`).
    pub pre_read: bool,
    /// I/O starts at the file's end (`file_append`): as `offset` set to the file's size.
    pub append: bool,
    pub sync: SyncWrites,
    /// The I/O scheduler to switch the files' disks to before the I/O (`ioscheduler`).
    pub ioscheduler: Option<String>,
    /// Fill the file system: the file grows to the space iolab leaves free to use (fio's
    /// `fill_device`, `fill_fs`, which write until ENOSPC).
    pub fill_device: bool,
    /// The write-lifetime hint given to each file (`write_hint`: `F_SET_RW_HINT`'s value,
    /// 1 none to 5 extreme).
    pub write_hint: Option<u64>,
    /// Copies of the job take turns on each file (`lockfile`).
    pub lock: FileLock,
}

impl Default for FileSetup {
    fn default() -> FileSetup {
        FileSetup {
            allow_create: true,
            fallocate: Fallocate::default(),
            overwrite: false,
            create_fsync: true,
            create_on_open: false,
            create_only: false,
            unlink: false,
            unlink_each_loop: false,
            fsync_on_close: false,
            pre_read: false,
            append: false,
            sync: SyncWrites::default(),
            ioscheduler: None,
            fill_device: false,
            write_hint: None,
            lock: FileLock::None,
        }
    }
}

impl FileSetup {
    /// The open flags the job's files need beyond read/write and direct.
    pub fn open_flags(&self) -> i32 {
        match self.sync {
            SyncWrites::None => 0,
            SyncWrites::Sync => libc::O_SYNC,
            SyncWrites::Dsync => libc::O_DSYNC,
        }
    }

    /// Whether the job's files may be removed or emptied during the run (`unlink`, or
    /// `unlink_each_loop` between loops): the guard asks for consent for an existing file.
    pub fn unlinks(&self) -> bool {
        self.unlink || self.unlink_each_loop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_fios() {
        let s = FileSetup::default();
        assert!(s.allow_create && s.create_fsync && !s.overwrite && !s.unlinks());
        assert_eq!(s.fallocate, Fallocate::Native);
        assert_eq!(s.open_flags(), 0);
    }

    #[test]
    fn sync_flags_are_linuxs() {
        let mut s = FileSetup {
            sync: SyncWrites::Sync,
            ..FileSetup::default()
        };
        // O_SYNC includes O_DSYNC's bit on Linux.
        assert_eq!(s.open_flags() & libc::O_DSYNC, libc::O_DSYNC);
        s.sync = SyncWrites::Dsync;
        assert_eq!(s.open_flags(), libc::O_DSYNC);
    }
}
