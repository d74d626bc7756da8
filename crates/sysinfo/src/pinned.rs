//! Opening what was checked, and nothing else.
//!
//! A path is a name, looked up again at every open: a symlink swapped in between the guard's
//! check and the open (`ln -s /dev/loop0 l.tmp && mv -T l.tmp link`, the classic `/tmp`
//! attack) would turn a write to a scratch file into a write to someone's disk. So the guard
//! judges a [`Pin`]: the path resolved once (every symlink followed, so what remains has none)
//! and the identity (device, inode, type) found there. Every later open goes through the pin:
//! the resolved path is opened with no symlink followed anywhere in it (`openat2` with
//! `RESOLVE_NO_SYMLINKS`; `O_NOFOLLOW` on kernels without it) and the open descriptor's own
//! identity must be the checked one. A new file is created exclusively (`O_EXCL`), so nothing
//! that appears at its name in the meantime is opened in its stead.
//!
//! A pin the command claimed ([`crate::claim::Claim`]) holds the object itself open from the
//! claim to the end (an `O_PATH` descriptor, its *anchor*): every later open reopens that
//! object (`/proc/self/fd/N`), whatever its name leads to by then, and pinning the same name
//! again gives the claim's pin, so no step of the command looks the name up anew.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::guard::Identity;

/// A checked destination: where it resolved to, and what was there.
#[derive(Debug, Clone)]
pub struct Pin {
    /// The path with every symlink resolved at check time.
    pub resolved: PathBuf,
    /// What the resolved path was when checked; `None` for a file not created yet.
    pub identity: Option<Identity>,
    /// The object held open (`O_PATH`) since it was claimed: opens reopen it, not the path.
    anchor: Option<Arc<File>>,
}

impl PartialEq for Pin {
    fn eq(&self, o: &Pin) -> bool {
        self.resolved == o.resolved && self.identity == o.identity
    }
}

impl Eq for Pin {}

/// Why a pinned open was refused.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The path leads somewhere else than when it was checked.
    #[error(
        "it changed between iolab's check and its open (a symlink or file swapped in); \
         nothing was written"
    )]
    Changed,
}

impl Pin {
    /// Pins an existing path: resolved, and its identity now.
    pub fn existing(path: &Path) -> Result<Pin, PinError> {
        if let Some(claimed) = crate::claim::claimed(path) {
            return Ok(claimed);
        }
        let resolved = std::fs::canonicalize(path)?;
        let identity = crate::guard::identity(&resolved).ok_or(PinError::Changed)?;
        Ok(Pin {
            resolved,
            identity: Some(identity),
            anchor: None,
        })
    }

    /// This pin holding its object open from now on (`O_PATH`, no symlink followed, the
    /// descriptor's identity compared): every later [`Pin::open`] reopens that object.
    pub fn anchored(mut self) -> Result<Pin, PinError> {
        let want = self.identity.ok_or(PinError::Changed)?;
        let held = open_no_symlinks(&self.resolved, libc::O_PATH, 0)?;
        if identity_of(&held)? != want {
            return Err(PinError::Changed);
        }
        self.anchor = Some(Arc::new(held));
        Ok(self)
    }

    /// A pin of `file`, just created at `resolved` by its claim, anchored to it.
    pub(crate) fn of_created(resolved: PathBuf, file: &File) -> Result<Pin, PinError> {
        Ok(Pin {
            resolved,
            identity: Some(identity_of(file)?),
            anchor: Some(Arc::new(file.try_clone()?)),
        })
    }

    /// Whether the pin holds its object open (it was claimed).
    pub fn is_anchored(&self) -> bool {
        self.anchor.is_some()
    }

    /// Pins a file that does not exist yet: its nearest existing directory resolved, the rest
    /// of the name kept. A dangling symlink at the name is pinned where it leads (that is
    /// what creating the name would create), and the file is then created there, never
    /// through the link.
    pub fn new_file(path: &Path) -> Result<Pin, PinError> {
        if let Some(claimed) = crate::claim::claimed(path) {
            return Ok(claimed);
        }
        let to = crate::storage::dangling_link(path);
        Ok(Pin {
            resolved: resolve_missing(to.as_deref().unwrap_or(path))?,
            identity: None,
            anchor: None,
        })
    }

    /// Pins `path` whether it exists or not.
    pub fn any(path: &Path) -> Result<Pin, PinError> {
        if let Some(claimed) = crate::claim::claimed(path) {
            return Ok(claimed);
        }
        if path.exists() {
            Pin::existing(path)
        } else {
            Pin::new_file(path)
        }
    }

    /// Opens the pinned path with `flags` (`O_RDONLY`, `O_RDWR`, `O_DIRECT`, ...), following
    /// no symlink, and checks the descriptor is what was pinned.
    pub fn open(&self, flags: i32) -> Result<File, PinError> {
        let file = match &self.anchor {
            Some(held) => reopen(held, flags & !libc::O_CREAT)?,
            None => open_no_symlinks(&self.resolved, flags & !libc::O_CREAT, 0)?,
        };
        let id = identity_of(&file)?;
        match self.identity {
            Some(want) if want == id => Ok(file),
            _ => Err(PinError::Changed),
        }
    }

    /// Creates the pinned file, which must not exist (`O_EXCL`), and pins what was created.
    pub fn create(&mut self, flags: i32) -> Result<File, PinError> {
        if self.identity.is_some() {
            // Claimed and made already: it is opened, not made again.
            return self.open(flags);
        }
        let file = open_no_symlinks(&self.resolved, flags | libc::O_CREAT | libc::O_EXCL, 0o644)?;
        self.identity = Some(identity_of(&file)?);
        Ok(file)
    }

    /// Opens the directory the pinned path is in (`O_PATH`, no symlink followed) and gives
    /// the file's name in it, for engines that work on the name itself (fio's filecreate,
    /// filestat, filedelete: `openat`, `unlinkat` on the directory, never the path looked up
    /// again). Where a file was pinned, the name in that directory must still be it.
    pub fn open_dir(&self) -> Result<(File, std::ffi::CString), PinError> {
        let (Some(dir), Some(name)) = (self.resolved.parent(), self.resolved.file_name()) else {
            return Err(PinError::Changed);
        };
        let dir = open_no_symlinks(dir, libc::O_PATH | libc::O_DIRECTORY, 0)?;
        let name = std::ffi::CString::new(name.as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        if let Some(want) = self.identity {
            use std::os::fd::AsRawFd;
            let flags = libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            // SAFETY: a directory descriptor we own and a NUL-terminated name.
            let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags) };
            if fd < 0 {
                return Err(PinError::Io(io::Error::last_os_error()));
            }
            // SAFETY: a descriptor just opened, owned by nobody else.
            let entry = unsafe { File::from_raw_fd(fd) };
            let m = entry.metadata()?;
            if m.file_type().is_symlink() || Identity::of(&m) != want {
                return Err(PinError::Changed);
            }
        }
        Ok((dir, name))
    }

    /// True when the pinned path still leads, without a symlink, to what was pinned: for
    /// removing a file iolab created, and nothing that took its name.
    pub fn still_there(&self) -> bool {
        open_no_symlinks(&self.resolved, libc::O_PATH, 0)
            .ok()
            .and_then(|f| identity_of(&f).ok())
            .is_some_and(|id| Some(id) == self.identity)
    }
}

/// Opens the object `held` is a descriptor of again, with `flags`, through its magic link
/// (`/proc/self/fd/N`): the same inode or device whatever its name now leads to.
fn reopen(held: &File, flags: i32) -> io::Result<File> {
    let link = std::ffi::CString::new(format!("/proc/self/fd/{}", held.as_raw_fd()))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: a NUL-terminated path; open(2) without O_CREAT takes no mode.
    let fd = unsafe { libc::open(link.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened, owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// The identity of an open descriptor.
fn identity_of(file: &File) -> io::Result<Identity> {
    file.metadata().map(|m| Identity::of(&m))
}

/// `path` made absolute with its existing part resolved (symlinks, `..`), for a file and
/// directories not created yet. `..` after a missing directory is refused: it cannot be
/// resolved without the directory.
fn resolve_missing(path: &Path) -> io::Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let base = abs
        .ancestors()
        .skip(1)
        .find(|a| a.exists())
        .unwrap_or(Path::new("/"));
    let mut out = std::fs::canonicalize(base)?;
    for c in abs.strip_prefix(base).unwrap_or(&abs).components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "'..' after a directory that does not exist",
                ))
            }
        }
    }
    Ok(out)
}

/// `struct open_how` of <linux/openat2.h> (libc's is non-exhaustive, so not buildable here).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

const RESOLVE_NO_SYMLINKS: u64 = 0x04;

/// Opens `path` following no symlink in any of its components: `openat2` with
/// `RESOLVE_NO_SYMLINKS`, or, where the kernel lacks it (or a seccomp filter hides it),
/// `O_NOFOLLOW` on the last component (the descriptor's identity check covers the rest).
fn open_no_symlinks(path: &Path, flags: i32, mode: u32) -> io::Result<File> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let flags = flags | libc::O_CLOEXEC;
    let how = OpenHow {
        flags: flags as u64,
        mode: if flags & libc::O_CREAT != 0 {
            mode as u64
        } else {
            0
        },
        resolve: RESOLVE_NO_SYMLINKS,
    };
    // SAFETY: a NUL-terminated path, and an open_how of the size passed.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            libc::AT_FDCWD,
            c.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd >= 0 {
        // SAFETY: a descriptor just opened, owned by nobody else.
        return Ok(unsafe { File::from_raw_fd(fd as i32) });
    }
    let err = io::Error::last_os_error();
    if !matches!(err.raw_os_error(), Some(libc::ENOSYS) | Some(libc::EPERM)) {
        return Err(symlink_said(err));
    }
    // SAFETY: as above; open(2) with a mode for O_CREAT.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_NOFOLLOW, mode) };
    if fd < 0 {
        return Err(symlink_said(io::Error::last_os_error()));
    }
    // SAFETY: as above.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// ELOOP from a no-symlink open means a symlink appeared on the path after the check.
fn symlink_said(e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        io::Error::other("a symbolic link appeared on its path after iolab checked it")
    } else {
        e
    }
}

/// Whether `m` (an open descriptor's) is something iolab may write results into: a regular
/// file, a pipe or socket, a terminal, or `/dev/null`; never a block device, a directory or
/// another character device (an NVMe generic device carries data).
pub fn is_output_sink(m: &std::fs::Metadata) -> Result<(), &'static str> {
    let ft = m.file_type();
    if ft.is_file() || ft.is_fifo() || ft.is_socket() {
        Ok(())
    } else if ft.is_block_device() {
        Err("it is a block device; results go to a regular file")
    } else if ft.is_dir() {
        Err("it is a directory")
    } else if ft.is_char_device() && char_sink(m.rdev()) {
        Ok(())
    } else {
        Err("it is a character device; results go to a regular file")
    }
}

/// `/dev/null`, `/dev/zero`, and terminals (tty, console, pseudo-terminals).
fn char_sink(rdev: u64) -> bool {
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    matches!((major, minor), (1, 3) | (1, 5)) || matches!(major, 4 | 5 | 136..=143)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file-operation engines work on a name in its directory: a file swapped for a
    /// symlink (or another file) at the name, or a directory swapped for a symlink, is
    /// refused, never operated on.
    #[test]
    fn open_dir_gives_the_checked_directory_and_name_or_refuses_a_swap() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let f = sub.join("f");
        std::fs::write(&f, b"f").unwrap();
        let pin = Pin::existing(&f).unwrap();
        let (_, name) = pin.open_dir().unwrap();
        assert_eq!(name.to_bytes(), b"f");
        std::fs::rename(&f, sub.join("kept")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", &f).unwrap();
        assert!(matches!(pin.open_dir(), Err(PinError::Changed)));
        let new = Pin::new_file(&sub.join("g")).unwrap();
        assert!(
            new.open_dir().is_ok(),
            "a file to be made needs only its directory"
        );
        std::fs::rename(&sub, dir.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("moved"), &sub).unwrap();
        assert!(new.open_dir().is_err(), "a directory swapped for a symlink");
    }

    #[test]
    fn a_swapped_symlink_is_not_followed_and_a_swapped_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let pin = Pin::existing(&link).unwrap();
        assert_eq!(pin.resolved, std::fs::canonicalize(&a).unwrap());
        pin.open(libc::O_RDONLY).unwrap();
        // The link now leads elsewhere: the pin still opens a.
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&b, &link).unwrap();
        pin.open(libc::O_RDONLY).unwrap();
        // a itself replaced by another file: refused.
        std::fs::rename(&b, &a).unwrap();
        assert!(matches!(pin.open(libc::O_RDONLY), Err(PinError::Changed)));
        // a replaced by a symlink: refused.
        std::fs::remove_file(&a).unwrap();
        std::os::unix::fs::symlink("/dev/null", &a).unwrap();
        assert!(pin.open(libc::O_RDONLY).is_err());
    }

    #[test]
    fn new_files_are_created_exclusively_and_dangling_links_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("dangling");
        let missing = dir.path().join("missing");
        std::os::unix::fs::symlink(&missing, &link).unwrap();
        let at = Pin::new_file(&link).unwrap();
        assert_eq!(
            at.resolved,
            std::fs::canonicalize(dir.path()).unwrap().join("missing")
        );
        let new = dir.path().join("sub/new");
        let mut pin = Pin::new_file(&new).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        pin.create(libc::O_WRONLY).unwrap();
        assert!(pin.still_there());
        pin.open(libc::O_RDWR).unwrap();
        // Something at the name before the create: EEXIST, nothing opened.
        let mut again = Pin::new_file(&dir.path().join("x")).unwrap();
        std::os::unix::fs::symlink("/dev/null", dir.path().join("x")).unwrap();
        assert!(again.create(libc::O_WRONLY).is_err());
        assert!(Pin::new_file(Path::new("/no/such/../x")).is_err());
    }

    #[test]
    fn outputs_are_files_pipes_terminals_or_null() {
        let null = File::options().write(true).open("/dev/null").unwrap();
        assert_eq!(is_output_sink(&null.metadata().unwrap()), Ok(()));
        let dir = tempfile::tempdir().unwrap();
        let d = File::open(dir.path()).unwrap();
        assert!(is_output_sink(&d.metadata().unwrap()).is_err());
    }
}
