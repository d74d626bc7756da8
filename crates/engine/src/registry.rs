//! The engines iolab has, each declared by its own file (`DEF`): its fio name, whether every
//! call completes its I/O, what it can be pointed at, and the fio options it reads. Adding an
//! engine is its file, a variant of [`EngineKind`], its `DEF` in [`ENGINES`] and its arm in
//! [`crate::open_engine`].

use iolab_results::TargetKind;

use crate::EngineKind;

/// What an engine can be pointed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepts {
    pub files: bool,
    pub block_devices: bool,
    /// NVMe generic char devices (`/dev/ngXnY`), which take NVMe commands only.
    pub nvme_generic: bool,
    /// A namespace of a controller a user-space driver holds (SPDK), named by its transport
    /// id: nothing the kernel opens.
    pub user_space_nvme: bool,
}

impl Accepts {
    /// Regular files and block devices.
    pub const STORAGE: Accepts = Accepts {
        files: true,
        block_devices: true,
        nvme_generic: false,
        user_space_nvme: false,
    };
    /// NVMe generic char devices only (io_uring_cmd).
    pub const NVME_GENERIC: Accepts = Accepts {
        files: false,
        block_devices: false,
        nvme_generic: true,
        user_space_nvme: false,
    };
    /// Regular files only (ftruncate).
    pub const FILES: Accepts = Accepts {
        files: true,
        block_devices: false,
        nvme_generic: false,
        user_space_nvme: false,
    };
    /// An SPDK namespace only (spdk).
    pub const USER_SPACE_NVME: Accepts = Accepts {
        files: false,
        block_devices: false,
        nvme_generic: false,
        user_space_nvme: true,
    };
    /// Nothing: the engine does no I/O (null), so its target is neither opened nor laid out.
    pub const NOTHING: Accepts = Accepts {
        files: false,
        block_devices: false,
        nvme_generic: false,
        user_space_nvme: false,
    };

    /// Whether the kernel opens nothing for the engine: null does no I/O, spdk drives its
    /// controller itself. Its target is neither opened, laid out, claimed nor traced.
    pub fn nothing(self) -> bool {
        !self.files && !self.block_devices && !self.nvme_generic
    }

    /// Whether a target of `kind` can be given to the engine.
    pub fn target(self, kind: TargetKind) -> bool {
        match kind {
            TargetKind::File => self.files,
            TargetKind::BlockDevice => self.block_devices,
            TargetKind::NvmeGeneric => self.nvme_generic,
            TargetKind::SpdkNvme => self.user_space_nvme,
        }
    }
}

/// One engine as iolab knows it.
#[derive(Debug)]
pub struct EngineDef {
    pub kind: EngineKind,
    /// fio's name for it (`ioengine=`).
    pub name: &'static str,
    /// Every call blocks until its I/O is done: queue depth above 1 means nothing to it (fio
    /// caps such engines the same way).
    pub synchronous: bool,
    pub accepts: Accepts,
    /// The fio options that belong to it (fio refuses them for other engines).
    pub options: &'static [&'static str],
    /// Whether an I/O moves data between the buffer and the target. Engines that only
    /// change the file's allocation or length (falloc, ftruncate) do not: there is nothing
    /// to verify and no buffer to fill.
    pub moves_data: bool,
    /// The directions it can do; a job asking another is refused before it starts.
    pub directions: &'static [crate::Direction],
    /// Opens its files read-write whatever the job does (falloc: its reads reserve blocks,
    /// which a read-only descriptor may not). Such a read changes no data, so it needs no
    /// consent; writes still do.
    pub read_write: bool,
    /// Whether a write past the file's end grows it. mmap's cannot (fio's `FIO_NOEXTEND`):
    /// its files are laid out whole before it writes, and `file_append` is refused.
    pub extends_files: bool,
    /// For fio's engines that work on files rather than their data (filecreate, filestat,
    /// filedelete): what is done to a file when a pass over it begins. That operation is the
    /// engine's one timed act; the pass's I/Os only count (fio's `FIO_FAKEIO`).
    pub file_op: Option<FileOp>,
}

/// What a file-operation engine does to a file at the start of each pass over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// `open(O_CREAT)` (filecreate): the file is made during the run, not laid out before.
    Create,
    /// `stat`, `lstat` or `statx` (filestat, fio's `stat_type`).
    Stat,
    /// `unlink` (filedelete): removes the file, which is as destructive as writing it.
    Delete,
    /// `mkdir` (dircreate, fio 3.42): the directory is made during the run.
    CreateDir,
    /// `stat` of a directory (dirstat, fio 3.42): the directories are made (or found) when
    /// the engine opens, before the clock starts, as fio's `setup_dirs`.
    StatDir,
    /// `rmdir` (dirdelete, fio 3.42): made (or found) when the engine opens, removed timed.
    DeleteDir,
}

impl FileOp {
    /// The operation removes what the job names: consent where it existed before.
    pub fn deletes(self) -> bool {
        matches!(self, FileOp::Delete | FileOp::DeleteDir)
    }

    /// The job's "files" are directories (fio 3.42's dir engines): never laid out, never
    /// opened, and `unlink=1` removes them with `rmdir`.
    pub fn on_directories(self) -> bool {
        matches!(
            self,
            FileOp::CreateDir | FileOp::StatDir | FileOp::DeleteDir
        )
    }
}

/// Every engine, in the order fio's docs and iolab's tables list them.
pub static ENGINES: [&EngineDef; 24] = [
    &crate::sync::DEF,
    &crate::psync::DEF,
    &crate::vsync::DEF,
    &crate::pvsync::DEF,
    &crate::pvsync2::DEF,
    &crate::mmap::DEF,
    &crate::libaio::DEF,
    &crate::posixaio::DEF,
    &crate::uring::DEF,
    &crate::uring_cmd::DEF,
    &crate::null::DEF,
    &crate::falloc::DEF,
    &crate::ftruncate::DEF,
    &crate::filecreate::DEF,
    &crate::filestat::DEF,
    &crate::filedelete::DEF,
    &crate::dircreate::DEF,
    &crate::dirstat::DEF,
    &crate::dirdelete::DEF,
    &crate::splice::DEF,
    &crate::cpuio::DEF,
    &crate::exec::DEF,
    &crate::e4defrag::DEF,
    &crate::spdk::DEF,
];

/// The options some engine declares: fio's engine-specific options.
pub fn engine_option(name: &str) -> bool {
    ENGINES.iter().any(|d| d.options.contains(&name))
}

impl EngineKind {
    /// What this engine declares about itself.
    pub fn def(self) -> &'static EngineDef {
        ENGINES
            .iter()
            .find(|d| d.kind == self)
            .expect("every engine kind is registered in ENGINES")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_registered_once_under_its_name() {
        for k in EngineKind::ALL {
            assert_eq!(ENGINES.iter().filter(|d| d.kind == k).count(), 1, "{k:?}");
            assert_eq!(k.def().name, k.name());
        }
        assert!(engine_option("fixedbufs") && engine_option("hipri"));
        assert!(!engine_option("bs"));
        assert!(EngineKind::Null.def().accepts.nothing());
    }
}
