//! The control group a job's I/O is charged to (fio's `cgroup`, `cgroup_weight`,
//! `cgroup_nodelete`), as plain data: the runner joins it.

/// Where the job's thread runs for its I/O: a cgroup under the first blkio (v1) or cgroup2
/// hierarchy mounted, as fio finds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cgroup {
    /// The cgroup's name under the hierarchy's root (`cgroup=`): made when missing. `None`:
    /// the job stays where iolab runs (fio ignores `cgroup_weight` without a name too).
    pub name: Option<String>,
    /// blkio.weight to write into it (`cgroup_weight`, 1 to 1000; 0: leave it).
    pub weight: u32,
    /// Keep a cgroup iolab made when the run ends (`cgroup_nodelete`); one that was there
    /// before is never removed.
    pub nodelete: bool,
}
