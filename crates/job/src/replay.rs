//! A replayed I/O stream (fio's `read_iolog`): the I/Os a log recorded, in order, each with
//! the file it went to and when it was issued. The worker issues these instead of drawing
//! offsets; nothing here knows the log's syntax.

use std::sync::Arc;

use iolab_engine::Direction;

/// One recorded I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayIo {
    /// Index into the job's files.
    pub file: u32,
    pub dir: Direction,
    pub offset: u64,
    pub len: u32,
    /// When it was issued, in µs since the log's start (0 for every I/O of a log without
    /// times).
    pub at_us: u64,
}

/// The stream and how to pace it.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    pub ios: Arc<[ReplayIo]>,
    /// Issue as fast as possible, ignoring the recorded times (`replay_no_stall`).
    pub no_stall: bool,
    /// Recorded times are divided by this percentage / 100 (`replay_time_scale`, 100:
    /// as recorded).
    pub time_scale_percent: u32,
    /// The merged blktrace the stream came from (`merge_blktrace_file`), written to its
    /// path when the run starts.
    pub merged: Option<MergedTrace>,
}

/// A blktrace made by merging others, and where it is to be kept.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedTrace {
    pub path: std::path::PathBuf,
    pub bytes: Arc<[u8]>,
    /// The traces merged, which the merged file must not overwrite.
    pub sources: Vec<std::path::PathBuf>,
}

impl Replay {
    /// The bytes the stream moves.
    pub fn bytes(&self) -> u64 {
        self.ios.iter().map(|io| io.len as u64).sum()
    }

    /// Where the furthest I/O of file `file` ends.
    pub fn end_of(&self, file: u32) -> u64 {
        self.ios
            .iter()
            .filter(|io| io.file == file)
            .map(|io| io.offset.saturating_add(io.len as u64))
            .max()
            .unwrap_or(0)
    }

    /// The largest I/O of direction `dir` (the buffers must hold it).
    pub fn largest(&self, dir: Direction) -> Option<u32> {
        self.ios
            .iter()
            .filter(|io| io.dir == dir)
            .map(|io| io.len)
            .max()
    }

    /// When I/O `i` is due, in ns after the replay's start (scaled).
    pub fn due_ns(&self, i: usize) -> u64 {
        let at = self.ios.get(i).map_or(0, |io| io.at_us);
        at.saturating_mul(1000) * 100 / self.time_scale_percent.max(1) as u64
    }
}
