//! What checking produces: a job ready to run, and a file to lay out first. Plain types, so
//! the checks (`prepare`) and the machine's limits (`limits`) can both speak of them.

use std::path::PathBuf;

use std::fs::File;
use std::sync::Arc;

use iolab_job::{JobSpec, Region};
use iolab_sysinfo::{Pin, TargetFacts};

/// A job that passed every check, with its target's facts and its region (and those of its
/// further files, when it spreads over several).
#[derive(Debug, Clone)]
pub struct PreparedJob {
    pub spec: JobSpec,
    pub facts: TargetFacts,
    pub region: Region,
    /// Facts and region of each of `spec.extra_files`, in order.
    pub extra: Vec<(TargetFacts, Region)>,
    /// Most per-I/O log entries each copy of the job keeps in memory.
    pub log_cap_entries: usize,
    /// What the guard checked for each file, in `files()` order: every open goes through
    /// it, so a path swapped after the check opens nothing.
    pub pins: Vec<Pin>,
    /// Exclusive claims (`O_EXCL`) on the block devices this job writes, held from the check
    /// to the end of the run: nobody mounts or claims them meanwhile.
    pub claims: Vec<Arc<File>>,
    /// The locks its copies take turns with on each file (fio's `lockfile`), if asked.
    pub locks: Option<Arc<crate::locks::FileLocks>>,
    /// Its target's zones under `zonemode=zbd` (shared by every job of the target).
    pub(crate) zbd: Option<Arc<crate::zbd::ZoneMap>>,
    /// e4defrag's donor file as checked (made during layout when it was missing).
    pub donor: Option<Pin>,
    /// Each copy's saved verify state (`verify_state_load`), read when the job was checked.
    pub saved_states: Vec<Option<Arc<iolab_verify::state::SavedState>>>,
}

impl PreparedJob {
    /// Facts and region of every file, the first file first.
    pub fn files(&self) -> impl Iterator<Item = (&TargetFacts, &Region)> {
        std::iter::once((&self.facts, &self.region)).chain(self.extra.iter().map(|(f, r)| (f, r)))
    }

    pub(crate) fn files_mut(&mut self) -> impl Iterator<Item = &mut TargetFacts> {
        std::iter::once(&mut self.facts).chain(self.extra.iter_mut().map(|(f, _)| f))
    }
}

/// A file that must be created or extended before the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub path: PathBuf,
    pub from_bytes: u64,
    pub to_bytes: u64,
    /// The file as the guard checked it: laid out through this, never through `path` again.
    pub pin: Pin,
    /// What laying it out means (data, reserved space or an empty file), the most any job
    /// of the file asks.
    pub how: LayoutHow,
}

/// How a file is laid out, weakest first: the most any of its jobs needs wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LayoutHow {
    /// Made empty (fio's `create_on_open` for a job that only writes).
    Create,
    /// Made and its space reserved as `fallocate` says; a job that only writes needs no data
    /// under its writes (fio's default, `overwrite=0`).
    Reserve(iolab_job::Fallocate),
    /// Filled with data to its end: a job reads it, `overwrite` asks it, its engine cannot
    /// grow it (mmap), or an existing file is extended (never unlinked and made again, as
    /// fio would).
    Fill { fsync: bool },
}

impl LayoutHow {
    /// What `spec` needs of a file that did (`exists`) or did not exist.
    pub fn for_job(spec: &iolab_job::JobSpec, exists: bool) -> LayoutHow {
        let files = &spec.files;
        if files.append && !spec.reads() {
            // fio lays nothing out for appending writes: they grow the file themselves.
            LayoutHow::Reserve(iolab_job::Fallocate::None)
        } else if exists || spec.reads() || files.overwrite || !spec.engine.kind.def().extends_files
        {
            LayoutHow::Fill {
                fsync: files.create_fsync,
            }
        } else if files.create_on_open {
            LayoutHow::Create
        } else {
            LayoutHow::Reserve(files.fallocate)
        }
    }
}
