//! The one guard every byte iolab writes goes through: job targets, the review's floor device,
//! trims and hole punches, and every output (`--output`, reports, logs, the results database).
//!
//! Two kinds of destination, two rules:
//! - **Targets** hold data. A block device, or a regular file that existed before iolab and that
//!   iolab did not lay out, is written only with the user's consent for *that* destination
//!   ([`Consent`]: each grant names the flag that gives it, so a refusal can say which flag is
//!   missing). Block devices get the probes of [`crate::safety`] on top (mounted, swap,
//!   holders, root disk, signatures, partitions).
//! - **Outputs** are files the user named to receive results. Naming one is consent to
//!   overwrite a regular file there, but never a block device, never a file on a pseudo
//!   filesystem (procfs, sysfs, ...), never a new file in `/dev`, and never a job's target or
//!   the results database.
//!
//! Files iolab creates are marked with the extended attribute `user.iolab` so that a later run
//! may rewrite them without asking (they hold only iolab's fill data); on a filesystem without
//! user xattrs the mark is simply absent and the file counts as the user's.

use std::ffi::CStr;
use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::safety::{backs_loop_device, check_write_allowed};
use crate::storage::parent_dir;
pub use crate::storage::{check_storage_path, new_file_in_dev, pseudo_filesystem};
use crate::SafetyError;
use iolab_results::{TargetFacts, TargetKind};

/// What a path is, for telling destinations apart across symlinks and `mknod` aliases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Identity {
    /// A block device, by its device number.
    Block(u64),
    /// Anything else, by (filesystem, inode).
    Inode(u64, u64),
}

impl Identity {
    /// What `m` (from a path or an open descriptor) describes.
    pub fn of(m: &fs::Metadata) -> Identity {
        if m.file_type().is_block_device() {
            Identity::Block(m.rdev())
        } else {
            Identity::Inode(m.dev(), m.ino())
        }
    }
}

/// The identity of an existing path (symlinks followed); `None` when it does not exist. A
/// name the command claimed is its claimed object, whatever the name leads to now.
pub fn identity(path: &Path) -> Option<Identity> {
    if let Some(pin) = crate::claim::claimed(path) {
        return pin.identity;
    }
    fs::metadata(path).ok().map(|m| Identity::of(&m))
}

/// The destinations the user allowed iolab to overwrite, and the flag that allows them.
#[derive(Debug, Clone)]
pub struct Consent {
    flag: &'static str,
    granted: Vec<Identity>,
    /// Names no file system holds (an SPDK namespace's transport id), allowed as named.
    named: Vec<PathBuf>,
}

impl Consent {
    /// Nothing allowed yet; `flag` is what the user passes to allow a destination.
    pub fn new(flag: &'static str) -> Consent {
        Consent {
            flag,
            granted: Vec::new(),
            named: Vec::new(),
        }
    }

    /// Allows `path` (as it is now: a path that does not exist yet is allowed by nature).
    pub fn grant(&mut self, path: &Path) {
        match identity(path) {
            Some(id) if !self.granted.contains(&id) => self.granted.push(id),
            Some(_) => {}
            None => self.named.push(path.to_path_buf()),
        }
    }

    /// [`Consent::grant`] for each path, when `given` (the user passed the flag).
    pub fn granting<'p>(
        flag: &'static str,
        given: bool,
        paths: impl IntoIterator<Item = &'p Path>,
    ) -> Consent {
        let mut c = Consent::new(flag);
        if given {
            paths.into_iter().for_each(|p| c.grant(p));
        }
        c
    }

    pub fn covers(&self, path: &Path) -> bool {
        identity(path).is_some_and(|id| self.granted.contains(&id))
    }

    pub fn flag(&self) -> &'static str {
        self.flag
    }
}

const MARK_NAME: &CStr = c"user.iolab";
/// The mark's value: "iolab LEN MTIME_SEC.MTIME_NSEC", the file as iolab last left it. A
/// file whose length or modification time differs has been written by someone else since
/// (or by a run that did not finish), and is the user's data again.
const MARK_PREFIX: &str = "iolab ";

fn mark_value(m: &fs::Metadata) -> String {
    format!(
        "{MARK_PREFIX}{} {}.{:09}",
        m.len(),
        m.mtime(),
        m.mtime_nsec()
    )
}

/// Marks a file iolab has just laid out or written (on its open descriptor), as it is now,
/// so later runs know it holds only iolab's data. Best effort: a filesystem without user
/// xattrs keeps no mark.
pub fn mark_created(file: &fs::File) {
    let Ok(m) = file.metadata() else {
        return;
    };
    let value = mark_value(&m);
    // SAFETY: a valid NUL-terminated name and a readable value buffer of the given length.
    unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            MARK_NAME.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        );
    }
}

/// The file's iolab mark, if it has one.
fn read_mark(file: &fs::File) -> Option<String> {
    let mut buf = [0u8; 64];
    // SAFETY: a valid NUL-terminated name; buf is writable for its length.
    let len = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            MARK_NAME.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    (len >= 0).then(|| String::from_utf8_lossy(&buf[..len as usize]).into_owned())
}

/// Whether the regular file at `path` carries iolab's mark, and if so whether the mark is
/// current (true: nobody changed the file since iolab last wrote it).
fn iolab_mark(path: &Path) -> Option<bool> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let (mark, m) = (read_mark(&f)?, f.metadata().ok()?);
    (m.is_file() && mark.starts_with(MARK_PREFIX)).then(|| mark == mark_value(&m))
}

/// True when iolab created the file and nobody has changed it since iolab last wrote it
/// (its mark matches its length and modification time).
pub fn created_by_iolab(path: &Path) -> bool {
    iolab_mark(path) == Some(true)
}

/// Brings the mark of a file iolab wrote up to date (its new length and time); a file
/// without one stays without.
pub fn remark(file: &fs::File) {
    if read_mark(file).is_some_and(|m| m.starts_with(MARK_PREFIX)) {
        mark_created(file);
    }
}

/// May a job write the target `facts` describes? Block devices: the device probes, with the
/// consent for this device. Regular files: a file that existed before and that iolab did not
/// create needs the consent too; a file iolab creates or created needs none.
pub fn check_target_write(facts: &TargetFacts, consent: &Consent) -> Result<(), SafetyError> {
    check_storage_path(&facts.path)?;
    let allowed = consent.covers(&facts.path);
    match facts.kind {
        TargetKind::BlockDevice => check_write_allowed(facts, allowed, consent.flag()),
        TargetKind::NvmeGeneric => check_generic_write(facts, consent),
        TargetKind::SpdkNvme => match consent.named.contains(&facts.path) {
            true => Ok(()),
            false => Err(SafetyError {
                path: facts.path.clone(),
                reason: format!(
                    "it is an NVMe namespace SPDK drives: writing destroys its data, and the \
                     kernel cannot see what is on it; pass {} to confirm",
                    consent.flag()
                ),
            }),
        },
        TargetKind::File => {
            if let Some(l) = identity(&facts.path).and_then(|id| backs_loop_device(&id)) {
                return Err(SafetyError {
                    path: facts.path.clone(),
                    reason: format!(
                        "it backs {l}; detach it first (losetup -d; {} does not override this)",
                        consent.flag()
                    ),
                });
            }
            let existing = fs::metadata(&facts.path).ok();
            match existing {
                Some(m) if !allowed && !created_by_iolab(&facts.path) => Err(SafetyError {
                    path: facts.path.clone(),
                    reason: format!(
                        "it is an existing file ({} bytes) that {}; writing changes its data; \
                         pass {} to allow it",
                        m.len(),
                        if iolab_mark(&facts.path) == Some(false) {
                            "iolab made but that has changed since iolab last wrote it \
                             (someone else wrote it, or a run did not finish)"
                        } else {
                            "iolab did not create"
                        },
                        consent.flag()
                    ),
                }),
                _ => Ok(()),
            }
        }
    }
}

/// An NVMe generic char device carries its namespace's data: writing it is judged as writing
/// the namespace's block device (mounted, partitioned, signed), with the consent given for
/// either. Without a block device nothing can be checked, and the consent alone decides.
fn check_generic_write(facts: &TargetFacts, consent: &Consent) -> Result<(), SafetyError> {
    let name = facts
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let block = crate::nvme::block_sibling(name);
    let allowed =
        consent.covers(&facts.path) || block.as_deref().is_some_and(|b| consent.covers(b));
    let flag = consent.flag();
    match block {
        Some(block) => {
            let blk = crate::probe(&block).map_err(|e| SafetyError {
                path: facts.path.clone(),
                reason: format!("cannot check its block device {}: {e}", block.display()),
            })?;
            check_write_allowed(&blk, allowed, flag).map_err(|e| SafetyError {
                path: facts.path.clone(),
                reason: format!(
                    "it carries the data of {}, and {}",
                    block.display(),
                    e.reason
                ),
            })
        }
        None if allowed => Ok(()),
        None => Err(SafetyError {
            path: facts.path.clone(),
            reason: format!("writing an NVMe namespace destroys its data; pass {flag} to allow it"),
        }),
    }
}

/// The paths this process must never write results over, said once by the command that
/// knows them (every target as named and as resolved, the results database, `--output`):
/// every output opened later, wherever in the code (exec's `JOBNAME.stdout`, a prerun's
/// text, a split log, an I/O log), is checked against them as well as against what its
/// caller passes, so a run-time open is never weaker than the up-front check.
static PROTECTED: std::sync::LazyLock<std::sync::RwLock<Protected>> =
    std::sync::LazyLock::new(Default::default);

/// The registered paths in the order given, and a set of them, so that registering a job
/// of 500,000 files is linear (a scan of the list for each would take minutes).
#[derive(Default)]
struct Protected {
    list: Vec<PathBuf>,
    seen: std::collections::HashSet<PathBuf>,
}

/// Adds `paths` to the paths no output of this process may be (see [`PROTECTED`]).
pub fn protect<P: AsRef<Path>>(paths: &[P]) {
    let mut all = PROTECTED.write().unwrap_or_else(|e| e.into_inner());
    for p in paths {
        let p = p.as_ref();
        if !all.seen.contains(p) {
            all.seen.insert(p.to_path_buf());
            all.list.push(p.to_path_buf());
        }
    }
}

/// `protected` and every path [`protect`] was given.
fn with_registered(protected: &[&Path]) -> Vec<PathBuf> {
    let all = PROTECTED.read().unwrap_or_else(|e| e.into_inner());
    protected
        .iter()
        .map(|p| p.to_path_buf())
        .chain(all.list.iter().cloned())
        .collect()
}

/// May iolab write results to `path` (named by `option`, e.g. `--output`)? `protected` are
/// the paths it must never overwrite: the jobs' targets and the results database.
pub fn check_output(path: &Path, option: &str, protected: &[&Path]) -> Result<(), SafetyError> {
    check_output_in(path, option, protected, true)
}

/// [`check_output`] for the results database, whose directory iolab creates when missing.
pub fn check_database(path: &Path, protected: &[&Path]) -> Result<(), SafetyError> {
    check_output_in(path, "--db", protected, false)?;
    // The other way round: a target that is one of the database's own files (`X.db-wal` as
    // the target of a run saved in `X.db`) would wipe committed rows too.
    for p in protected {
        if let Some(place) = first_same_place(p, &[path]) {
            return Err(SafetyError {
                path: p.to_path_buf(),
                reason: format!(
                    "it is {}, a file of the results database this run saves to; name \
                     another target or another --db",
                    place.display()
                ),
            });
        }
        // A block device whose bytes are the database's (a loop device over it).
        if let Some(dev) = fs::metadata(p)
            .ok()
            .filter(|m| m.file_type().is_block_device())
        {
            let under = crate::aliases::extents((libc::major(dev.rdev()), libc::minor(dev.rdev())));
            let db_file = guarded_places(&[path])
                .find(|f| identity(f).is_some_and(|id| crate::aliases::holds_file(&under, id)));
            if let Some(f) = db_file {
                return Err(SafetyError {
                    path: p.to_path_buf(),
                    reason: format!(
                        "its bytes are {}, a file of the results database this run saves to \
                         (a loop device over it); name another target or another --db",
                        f.display()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The files no target's bytes may be: every registered path ([`protect`]) and its SQLite
/// companions, as they exist now, by identity.
pub fn protected_files() -> Vec<(PathBuf, Identity)> {
    let all = with_registered(&[]);
    let all: Vec<&Path> = all.iter().map(PathBuf::as_path).collect();
    guarded_places(&all)
        .filter_map(|p| Some((p.clone(), identity(&p)?)))
        .filter(|(_, id)| matches!(id, Identity::Inode(..)))
        .collect()
}

fn check_output_in(
    path: &Path,
    option: &str,
    protected: &[&Path],
    dir_must_exist: bool,
) -> Result<(), SafetyError> {
    let refuse = |reason: String| SafetyError {
        path: path.to_path_buf(),
        reason: format!("{option}: {reason}"),
    };
    let all = with_registered(protected);
    let protected: Vec<&Path> = all.iter().map(PathBuf::as_path).collect();
    let protected = protected.as_slice();
    check_storage_path(path).map_err(|e| refuse(e.reason))?;
    if let Ok(m) = fs::metadata(path) {
        let ft = m.file_type();
        if ft.is_block_device() {
            return Err(refuse(
                "it is a block device; results go to a regular file".to_string(),
            ));
        }
        if ft.is_dir() {
            return Err(refuse("it is a directory".to_string()));
        }
        // The database (the only output whose directory need not exist) is SQLite's file
        // and its companions: never a character device, FIFO or socket.
        if !dir_must_exist && !ft.is_file() {
            let kind = if ft.is_char_device() {
                "a character device"
            } else if ft.is_fifo() {
                "a FIFO"
            } else {
                "a socket"
            };
            return Err(refuse(format!(
                "it is {kind}; the results database is a regular file"
            )));
        }
    } else if dir_must_exist && !parent_dir(path).is_dir() {
        return Err(refuse("its directory does not exist".to_string()));
    }
    if let Some(p) = first_same_place(path, protected) {
        return Err(refuse(format!(
            "it is {}, which this run reads or writes; name another file",
            p.display()
        )));
    }
    Ok(())
}

/// Where a name puts an object: the object itself when it exists, else the directory entry
/// it would be made as (the nearest existing directory, by identity, and the rest of the
/// name). Two names of one place (a bind mount of the directory, a hard link, a symlink)
/// give equal places, whatever their strings.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Object(Identity),
    Entry(Identity, PathBuf),
}

/// The place `path` names; `None` when not even its directory can be found.
fn place(path: &Path) -> Option<Place> {
    if let Some(id) = identity(path) {
        return Some(Place::Object(id));
    }
    if let Some(to) = crate::storage::dangling_link(path) {
        // Creating `path` creates what the link leads to.
        return place(&to);
    }
    let (dir, rest) = dir_place(&parent_dir(path))?;
    Some(Place::Entry(dir, rest.join(path.file_name()?)))
}

/// A directory as its nearest existing ancestor's identity and the rest of its name.
fn dir_place(dir: &Path) -> Option<(Identity, PathBuf)> {
    let base = dir
        .ancestors()
        .find(|a| !a.as_os_str().is_empty() && a.exists())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let rest = dir
        .strip_prefix(&base)
        .unwrap_or(Path::new(""))
        .to_path_buf();
    Some((identity(&base)?, rest))
}

/// The first of `protected`'s places ([`guarded_places`]) that is `path`'s [`Place`]: the
/// same object where both exist, else the same entry of the same directory. `path`'s place
/// is worked out once, and each protected path's directory once (its SQLite companions
/// share it): a job of 500,000 files is 2,000,000 places to compare.
fn first_same_place(path: &Path, protected: &[&Path]) -> Option<PathBuf> {
    let mine = place(path)?;
    protected.iter().find_map(|p| {
        let dir = std::cell::OnceCell::new();
        guarded_places(std::slice::from_ref(p)).find(|candidate| {
            let theirs = match identity(candidate) {
                Some(id) => Some(Place::Object(id)),
                None if crate::storage::dangling_link(candidate).is_some() => place(candidate),
                None => dir
                    .get_or_init(|| dir_place(&parent_dir(candidate)))
                    .as_ref()
                    .zip(candidate.file_name())
                    .map(|((id, rest), name)| Place::Entry(*id, rest.join(name))),
            };
            theirs.as_ref() == Some(&mine)
        })
    })
}

/// Refuses `path` when it is one of `protected` or one of their SQLite companions, by
/// place: before a claim, where the object may not exist yet, and again after it, by the
/// opened object's identity.
pub fn refuse_protected(path: &Path, protected: &[&Path]) -> Result<(), SafetyError> {
    match first_same_place(path, protected) {
        Some(p) => Err(SafetyError {
            path: path.to_path_buf(),
            reason: format!(
                "it is {}, which this command keeps its results in or reads; name another \
                 target",
                p.display()
            ),
        }),
        None => Ok(()),
    }
}

/// The protected paths and the files SQLite keeps beside a database (`-wal`, `-shm`,
/// `-journal`): writing over a WAL file wipes committed rows.
fn guarded_places<'a>(protected: &'a [&'a Path]) -> impl Iterator<Item = PathBuf> + 'a {
    protected.iter().flat_map(|p| {
        let mut v = vec![p.to_path_buf()];
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut s = p.as_os_str().to_os_string();
            s.push(suffix);
            v.push(PathBuf::from(s));
        }
        v
    })
}

/// Opens an output [`check_output`] passed, deciding again on the open descriptor, since the
/// path may have been swapped since: an existing file is opened where its path leads, a
/// missing one created exclusively (never through a symlink that appeared at its name), and
/// the descriptor must be a regular file, pipe, terminal or `/dev/null`, and none of
/// `protected` (or their SQLite companions) as they are now. Only then is a regular file
/// emptied.
pub fn open_output(
    path: &Path,
    option: &str,
    protected: &[&Path],
) -> Result<fs::File, SafetyError> {
    open_output_at(path, option, protected, false)
}

/// [`open_output`] for an output that grows, as fio's `write_iolog` does from run to run: an
/// existing file is kept and written at its end.
pub fn open_output_appending(
    path: &Path,
    option: &str,
    protected: &[&Path],
) -> Result<fs::File, SafetyError> {
    open_output_at(path, option, protected, true)
}

fn open_output_at(
    path: &Path,
    option: &str,
    protected: &[&Path],
    append: bool,
) -> Result<fs::File, SafetyError> {
    let refuse = |reason: String| SafetyError {
        path: path.to_path_buf(),
        reason: format!("{option}: {reason}"),
    };
    let all = with_registered(protected);
    let protected: Vec<&Path> = all.iter().map(PathBuf::as_path).collect();
    let (file, created) = open_or_create(path).map_err(|e| refuse(e.to_string()))?;
    let undo = |reason: String| {
        if let Some(made) = &created {
            let _ = fs::remove_file(made);
        }
        refuse(reason)
    };
    let meta = file.metadata().map_err(|e| undo(e.to_string()))?;
    crate::pinned::is_output_sink(&meta).map_err(|why| undo(why.to_string()))?;
    let id = Identity::of(&meta);
    if let Some(p) = guarded_places(&protected).find(|p| identity(p) == Some(id)) {
        return Err(undo(format!(
            "it is {}, which this run reads or writes; name another file",
            p.display()
        )));
    }
    let dev_fs = fs::metadata("/dev").map(|d| d.dev()).ok();
    if created.is_some() && meta.is_file() && Some(meta.dev()) == dev_fs {
        return Err(undo(
            "it would be a new file in /dev; iolab does not create files there".to_string(),
        ));
    }
    if meta.is_file() {
        let at_end = |mut f: &fs::File| std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0));
        match append {
            true => at_end(&file).map(drop),
            false => file.set_len(0),
        }
        .map_err(|e| refuse(e.to_string()))?;
    }
    Ok(file)
}

/// How long an output that is a FIFO may wait for a reader (`iolab run --output=p & cat p`
/// starts the reader a moment later) before it is refused.
const FIFO_READER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Opens an existing `path` for writing without ever blocking in open(2): a FIFO nobody
/// reads would block for ever (the run never stored), so it is opened non-blocking, waited
/// on for a reader for [`FIFO_READER_WAIT`], then refused; the descriptor is made blocking
/// again for the writes.
fn open_existing_without_blocking(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let start = std::time::Instant::now();
    let file = loop {
        match fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open(path)
        {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if start.elapsed() >= FIFO_READER_WAIT {
                    return Err(std::io::Error::other(format!(
                        "it is a FIFO that no process read from within {} s",
                        FIFO_READER_WAIT.as_secs()
                    )));
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => break r?,
        }
    };
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

/// Opens `path` for writing where it leads, or creates it exclusively when missing (where a
/// dangling link leads, never through the link); whether it was created.
fn open_or_create(path: &Path) -> std::io::Result<(fs::File, Option<PathBuf>)> {
    for _ in 0..3 {
        match open_existing_without_blocking(path) {
            Ok(f) => return Ok((f, None)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let at = crate::storage::dangling_link(path).unwrap_or_else(|| path.to_path_buf());
        check_storage_path(&at).map_err(|e| std::io::Error::other(e.reason))?;
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&at)
        {
            Ok(f) => return Ok((f, Some(at))),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "it keeps changing while iolab opens it",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{probe, probe_new_file};

    #[test]
    fn an_existing_file_needs_consent_a_new_or_marked_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("data");
        fs::write(&p, b"precious").unwrap();
        let none = Consent::new("--allow-destroy");
        let e = check_target_write(&probe(&p).unwrap(), &none).unwrap_err();
        assert!(e.reason.contains("existing file (8 bytes)"), "{e}");
        assert!(e.reason.contains("--allow-destroy"), "{e}");
        let yes = Consent::granting("--allow-destroy", true, [p.as_path()]);
        check_target_write(&probe(&p).unwrap(), &yes).unwrap();
        // Consent for one file is not consent for another.
        let other = dir.path().join("other");
        fs::write(&other, b"x").unwrap();
        assert!(check_target_write(&probe(&other).unwrap(), &yes).is_err());
        let new = dir.path().join("new");
        check_target_write(&probe_new_file(&new).unwrap(), &none).unwrap();
        fs::write(&new, b"fill").unwrap();
        mark_created(&fs::File::open(&new).unwrap());
        if created_by_iolab(&new) {
            check_target_write(&probe(&new).unwrap(), &none).unwrap();
            // Filled by the user since: theirs again, and the refusal says why.
            fs::write(&new, b"users now").unwrap();
            assert!(!created_by_iolab(&new));
            let e = check_target_write(&probe(&new).unwrap(), &none).unwrap_err();
            assert!(
                e.reason.contains("changed since iolab last wrote it"),
                "{e}"
            );
            // A run of iolab's that wrote it marks it again.
            remark(&fs::File::open(&new).unwrap());
            assert!(created_by_iolab(&new));
        } else {
            println!("skipped: no user xattrs on the temp directory's filesystem");
        }
    }

    #[test]
    fn pseudo_filesystems_and_new_files_in_dev_are_refused() {
        assert_eq!(
            pseudo_filesystem(Path::new("/proc/sys/vm/drop_caches")),
            Some("procfs")
        );
        assert_eq!(pseudo_filesystem(Path::new("/sys/block")), Some("sysfs"));
        assert_eq!(
            pseudo_filesystem(Path::new("/proc/nope/new")),
            Some("procfs")
        );
        assert!(check_storage_path(Path::new("/proc/self/status")).is_err());
        assert!(new_file_in_dev(Path::new("/dev/iolab-no-such-device")));
        assert!(!new_file_in_dev(Path::new("/dev/null")));
        let dir = tempfile::tempdir().unwrap();
        check_storage_path(&dir.path().join("f")).unwrap();
    }

    #[test]
    fn outputs_are_never_devices_targets_or_missing_directories() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, b"x").unwrap();
        let out = dir.path().join("out.json");
        check_output(&out, "--output", &[&target]).unwrap();
        let e = check_output(&target, "--output", &[&target]).unwrap_err();
        assert!(e.reason.contains("which this run reads or writes"), "{e}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(check_output(&link, "--output", &[&target]).is_err());
        assert!(check_output(dir.path(), "-o", &[]).is_err());
        assert!(check_output(&dir.path().join("no/such/f"), "-o", &[]).is_err());
        // /dev/null is a sink, not data.
        check_output(Path::new("/dev/null"), "--output", &[]).unwrap();
        // A target that does not exist yet is still the target.
        let later = dir.path().join("later");
        let again = dir.path().join(".").join("later");
        assert!(check_output(&again, "--output", &[&later]).is_err());
        assert!(check_output(Path::new("/dev/iolab-nope_lat.1.log"), "x", &[]).is_err());
    }
}
