//! What checking produces: a job ready to run, and a file to lay out first. Plain types, so
//! the checks (`prepare`) and the machine's limits (`limits`) can both speak of them.

use std::path::PathBuf;

use iolab_job::{JobSpec, Region};
use iolab_sysinfo::TargetFacts;

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
}
