//! Joining the control group a job names (fio's `cgroup`, `cgroup_weight`,
//! `cgroup_nodelete`, as fio's `cgroup.c`): the hierarchy is the first blkio (v1) or cgroup2
//! one mounted, the cgroup is made under its root when missing, and the job's thread joins
//! it for the job. Where fio moves each job back to the hierarchy's root afterwards, the
//! thread here goes back to the cgroup it came from. The cgroups iolab made are removed
//! when the run ends (fio's `cgroup_kill`), never one that was there before.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use iolab_job::JobSpec;

use crate::RunError;

/// The cgroups this process made and must remove when the run ends.
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A hierarchy fio would use: where it is mounted and whether it is cgroup2.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hierarchy {
    root: PathBuf,
    v2: bool,
}

impl Hierarchy {
    /// The file a task id is written to, to join a cgroup: `tasks` moves one thread (v1);
    /// `cgroup.procs` moves its whole process (v2, where fio writes it too).
    fn join_file(&self) -> &'static str {
        match self.v2 {
            true => "cgroup.procs",
            false => "tasks",
        }
    }
}

/// The first line of `mounts` (as /proc/self/mounts) that is a blkio cgroup or cgroup2,
/// as fio's `find_cgroup_mnt` picks it.
fn hierarchy_in(mounts: &str) -> Option<Hierarchy> {
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (dir, kind, opts) = (f.get(1)?, f.get(2)?, f.get(3)?);
        let v2 = *kind == "cgroup2";
        let blkio = *kind == "cgroup" && opts.split(',').any(|o| o == "blkio");
        (v2 || blkio).then(|| Hierarchy {
            root: PathBuf::from(unescape(dir)),
            v2,
        })
    })
}

/// A mount path as /proc/self/mounts escapes it (`\040` for a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], octal) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The cgroup (relative to the hierarchy's root) that `own` (as /proc/thread-self/cgroup)
/// puts the thread in for that hierarchy.
fn own_cgroup(own: &str, v2: bool) -> Option<String> {
    own.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (id, controllers, path) = (f.next()?, f.next()?, f.next()?);
        let hit = match v2 {
            true => id == "0" && controllers.is_empty(),
            false => controllers.split(',').any(|c| c == "blkio"),
        };
        hit.then(|| path.trim_start_matches('/').to_string())
    })
}

/// The job's thread in its cgroup; dropping it puts the thread back where it was.
pub(crate) struct Joined {
    back: PathBuf,
    file: &'static str,
    tid: i32,
}

impl Drop for Joined {
    fn drop(&mut self) {
        let _ = std::fs::write(self.back.join(self.file), self.tid.to_string());
    }
}

/// Moves the calling thread into the job's cgroup, if it names one; `None` if not.
pub(crate) fn join(spec: &JobSpec) -> Result<Option<Joined>, RunError> {
    let Some(name) = spec.cgroup.name.as_deref() else {
        return Ok(None);
    };
    let fail = |what: String| RunError::Unusable {
        job: spec.name.clone(),
        reason: format!("cgroup={name}: {what}"),
    };
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let h = hierarchy_in(&mounts)
        .ok_or_else(|| fail("no blkio cgroup or cgroup2 hierarchy is mounted".into()))?;
    let own = std::fs::read_to_string("/proc/thread-self/cgroup").unwrap_or_default();
    let back = h.root.join(own_cgroup(&own, h.v2).unwrap_or_default());
    let dir = h.root.join(name);
    make(&dir, spec.cgroup.nodelete).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    if spec.cgroup.weight != 0 {
        if h.v2 {
            return Err(fail(format!(
                "cgroup_weight does not work on cgroup2 ({} is one; fio refuses it too)",
                h.root.display()
            )));
        }
        let file = dir.join("blkio.weight");
        if !file.exists() {
            return Err(fail(format!(
                "cgroup_weight: {} has no blkio.weight (only an I/O scheduler that shares by \
                 weight, BFQ, gives one)",
                h.root.display()
            )));
        }
        std::fs::write(&file, spec.cgroup.weight.to_string())
            .map_err(|e| fail(format!("cgroup_weight: {}: {e}", file.display())))?;
    }
    // SAFETY: gettid takes nothing and cannot fail.
    let tid = unsafe { libc::gettid() };
    let file = dir.join(h.join_file());
    std::fs::write(&file, tid.to_string())
        .map_err(|e| fail(format!("joining it: {}: {e}", file.display())))?;
    Ok(Some(Joined {
        back,
        file: h.join_file(),
        tid,
    }))
}

/// Makes the cgroup if it is missing, remembered for removal unless `keep`.
fn make(dir: &Path, keep: bool) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o755).create(dir) {
        Ok(()) if keep => Ok(()),
        Ok(()) => {
            MADE.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(dir.to_path_buf());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes the cgroups the run made when dropped, however the run ends.
pub(crate) struct RemoveAtEnd;

impl Drop for RemoveAtEnd {
    fn drop(&mut self) {
        remove_made();
    }
}

/// Removes the cgroups the run made (its jobs have left them), as fio does at its end.
fn remove_made() {
    let made = std::mem::take(&mut *MADE.lock().unwrap_or_else(|p| p.into_inner()));
    for dir in made {
        let _ = std::fs::remove_dir(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_blkio_or_cgroup2_mount_is_the_hierarchy_as_fio_picks_it() {
        let m = "tmpfs /sys/fs/cgroup tmpfs rw 0 0\n\
                 cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n\
                 cgroup /sys/fs/cgroup/blk\\040io cgroup rw,relatime,blkio 0 0\n\
                 cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n";
        let h = hierarchy_in(m).unwrap();
        assert_eq!(
            (h.root.to_str().unwrap(), h.v2),
            ("/sys/fs/cgroup/blk io", false)
        );
        assert_eq!(h.join_file(), "tasks");
        let h = hierarchy_in("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n").unwrap();
        assert!(h.v2 && h.join_file() == "cgroup.procs");
        assert_eq!(hierarchy_in("cgroup /c cgroup rw,blkio_x 0 0\n"), None);
    }

    #[test]
    fn the_thread_goes_back_to_its_own_cgroup() {
        let own = "9:name=systemd:/\n7:cpu,blkio:/user/a\n0::/system.slice/x\n";
        assert_eq!(own_cgroup(own, false).as_deref(), Some("user/a"));
        assert_eq!(own_cgroup(own, true).as_deref(), Some("system.slice/x"));
        assert_eq!(own_cgroup("4:memory:/m\n", false), None);
    }
}
