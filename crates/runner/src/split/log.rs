//! The split log (`write_split_log`): one line per split I/O, written by the joining thread as
//! I/Os join, so a run of hours leaves biosnoop's evidence behind without holding it in
//! memory. Bounded: at most a share of [`LOG_MAX_LINES`] per job copy, and never more than a
//! quarter of the free space where it is written.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Most split log lines of one run, all copies together (about 800 MB of text), as the
/// per-I/O logs' cap.
pub(crate) const LOG_MAX_LINES: u64 = 10_000_000;
/// A line's length, for the free-space bound: time, direction, bytes, offset and four parts.
const LINE_BYTES: u64 = 80;

/// `<prefix>_split.<job number>.log`, fio's name scheme for per-job logs.
pub(crate) fn path(prefix: &str, job_number: u32) -> PathBuf {
    PathBuf::from(format!("{prefix}_split.{job_number}.log"))
}

/// One job copy's split log.
pub(crate) struct SplitLog {
    pub path: PathBuf,
    out: BufWriter<File>,
    pub lines: u64,
    cap: u64,
    /// Why it stopped early, if it did.
    pub stopped: Option<String>,
}

impl SplitLog {
    /// Opens `path` through the write guard (never a device, a target or a symlink swapped in
    /// since the check) for at most `cap` lines (fewer where its filesystem has less room).
    pub fn open(path: PathBuf, cap: u64, protected: &[&Path]) -> Result<SplitLog, String> {
        let file = iolab_sysinfo::open_output(&path, "write_split_log", protected)
            .map_err(|e| e.to_string())?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        let room = iolab_sysinfo::fsspace::fs_space(dir.unwrap_or(Path::new(".")))
            .map_or(u64::MAX, |s| s.free_bytes / 4 / LINE_BYTES);
        Ok(SplitLog {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            lines: 0,
            cap: cap.min(room),
            stopped: None,
        })
    }

    /// One joined I/O: reaped `ms` into the window, its direction, size, offset and parts.
    pub fn line(&mut self, ms: f64, io: (u8, u32, u64), parts: [u64; 3], nvme: Option<u64>) {
        if self.stopped.is_some() {
            return;
        }
        if self.lines >= self.cap {
            self.stopped = Some(format!("stopped at its cap of {} lines", self.cap));
            return;
        }
        let (dir, len, offset) = io;
        let r = match nvme {
            Some(n) => writeln!(
                self.out,
                "{ms:.3}, {dir}, {len}, {offset}, {}, {}, {}, {n}",
                parts[0], parts[1], parts[2]
            ),
            None => writeln!(
                self.out,
                "{ms:.3}, {dir}, {len}, {offset}, {}, {}, {}",
                parts[0], parts[1], parts[2]
            ),
        };
        match r {
            Ok(()) => self.lines += 1,
            Err(e) => self.stopped = Some(format!("stopped: {e}")),
        }
    }

    /// Writes out what is buffered; the note a run shows for it.
    pub fn finish(mut self) -> String {
        if let Err(e) = self.out.flush() {
            self.stopped.get_or_insert(format!("stopped: {e}"));
        }
        let how = self.stopped.map(|s| format!(", {s}")).unwrap_or_default();
        format!(
            "split log: {} ({} I/Os{how})",
            self.path.display(),
            self.lines
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_the_parts_and_stop_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path().join("s").to_str().unwrap(), 3);
        assert!(p.ends_with("s_split.3.log"));
        let mut log = SplitLog::open(p.clone(), 2, &[]).unwrap();
        log.line(1.5, (0, 4096, 8192), [100, 2000, 300], None);
        log.line(2.0, (1, 4096, 0), [100, 2000, 300], Some(1900));
        log.line(2.5, (0, 4096, 0), [1, 2, 3], None);
        let note = log.finish();
        assert!(
            note.contains("(2 I/Os, stopped at its cap of 2 lines)"),
            "{note}"
        );
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            "1.500, 0, 4096, 8192, 100, 2000, 300\n2.000, 1, 4096, 0, 100, 2000, 300, 1900\n"
        );
    }
}
