//! How much room a filesystem has, and whether it can be written at all (`statvfs`): the
//! free-space checks before layout and before db_bench, and the read-only database open.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The filesystem holding a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsSpace {
    /// Bytes an unprivileged user may still write.
    pub free_bytes: u64,
    pub total_bytes: u64,
    /// Mounted read-only.
    pub read_only: bool,
}

/// The filesystem holding `path` (which must exist).
pub fn fs_space(path: &Path) -> std::io::Result<FsSpace> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: zeroed statvfs is a valid out-buffer; c is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let unit = st.f_frsize as u64;
    Ok(FsSpace {
        free_bytes: st.f_bavail as u64 * unit,
        total_bytes: st.f_blocks as u64 * unit,
        read_only: st.f_flag & libc::ST_RDONLY != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temp_directory_has_room_and_proc_is_no_path() {
        let dir = tempfile::tempdir().unwrap();
        let s = fs_space(dir.path()).unwrap();
        assert!(s.total_bytes >= s.free_bytes && s.total_bytes > 0, "{s:?}");
        assert!(!s.read_only);
        assert!(fs_space(Path::new("/nonexistent/iolab")).is_err());
    }
}
