//! `fsync=N`, `fdatasync=N` and `end_fsync`: syncs of the job's files, timed, after every
//! N writes (once the writes in flight have finished, as fio's libaio does). fio counts
//! both kinds in one `sync` figure, and so does iolab.

use std::os::fd::RawFd;

use iolab_stats::{Clock, LatencyHistogram};

pub(super) struct Syncer<'a> {
    fds: &'a [RawFd],
    /// fsync after this many writes (0: never).
    every: u64,
    /// fdatasync after this many writes (0: never).
    data_every: u64,
    pub writes_since: u64,
    /// A sync (or the emptying below) is due once the I/O in flight has finished.
    pub pending: bool,
    /// `unlink_each_loop`: the files are to be emptied before the next loop's first I/O.
    pub empty_due: bool,
    /// fsyncs done (fio's `sync.total_ios`, which leaves fdatasyncs out).
    pub count: u64,
    /// Every sync's latency, fsync and fdatasync alike.
    pub lat: LatencyHistogram,
    /// `sync_file_range=FLAGS:N`: every N writes, the flags, and per file the range
    /// written since the last one (fio's `first_write`/`last_write`; empty: none).
    range_every: u64,
    range_flags: u32,
    pub ranges: Vec<(u64, u64)>,
    /// The fewest writes after which any of the syncs is due (`u64::MAX`: none is asked
    /// for), so that a job without syncs pays one comparison an I/O.
    soonest: u64,
}

/// The fewest of `every` writes that is not 0 (never); `u64::MAX` when all are.
fn soonest(every: &[u64]) -> u64 {
    every
        .iter()
        .copied()
        .filter(|&n| n > 0)
        .min()
        .unwrap_or(u64::MAX)
}

impl<'a> Syncer<'a> {
    pub fn new(fds: &'a [RawFd], every: u32, data_every: u32) -> Syncer<'a> {
        Syncer {
            fds,
            every: every as u64,
            data_every: data_every as u64,
            writes_since: 0,
            pending: false,
            empty_due: false,
            count: 0,
            lat: LatencyHistogram::new(),
            range_every: 0,
            range_flags: 0,
            ranges: Vec::new(),
            soonest: soonest(&[every as u64, data_every as u64]),
        }
    }

    /// Adds fio's `sync_file_range`: `flags` every `every` writes (0: never).
    pub fn with_ranges(mut self, every: u32, flags: u32) -> Syncer<'a> {
        self.range_every = every as u64;
        self.range_flags = flags;
        self.soonest = soonest(&[self.every, self.data_every, self.range_every]);
        if every > 0 {
            self.ranges = vec![(u64::MAX, 0); self.fds.len()];
        }
        self
    }

    /// A write of `len` bytes at `offset` to file `file` was issued: it widens the range the
    /// next `sync_file_range` covers.
    #[inline]
    pub fn wrote(&mut self, file: usize, offset: u64, len: u64) {
        if let Some(r) = self.ranges.get_mut(file) {
            r.0 = r.0.min(offset);
            r.1 = r.1.max(offset + len);
        }
    }

    /// `sync_file_range(2)` over what each file had written since the last one, as fio's
    /// `do_sync_file_range()` (a file with nothing written is skipped); the latency in ticks.
    fn sync_ranges(&mut self, clock: &Clock) -> std::io::Result<u64> {
        let t0 = clock.now();
        for (fd, r) in self.fds.iter().zip(self.ranges.iter_mut()) {
            let (from, to) = std::mem::replace(r, (u64::MAX, 0));
            if to <= from {
                continue;
            }
            // SAFETY: fd is one of the job's files, open for the whole loop.
            let ret = unsafe {
                libc::sync_file_range(
                    *fd,
                    from as libc::off64_t,
                    (to - from) as libc::off64_t,
                    self.range_flags,
                )
            };
            if ret != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(clock.now() - t0)
    }

    /// The job's files.
    pub fn fds(&self) -> &'a [RawFd] {
        self.fds
    }

    /// Whether a sync is due now: `fsync=N`, `fdatasync=N` or `sync_file_range=...:N`.
    #[inline(always)]
    pub fn due(&self) -> bool {
        // The same as asking each of fsync's, fdatasync's and sync_file_range's count.
        self.writes_since >= self.soonest
    }

    /// Whether `fsync=N` (not only `fdatasync=N`) calls for a sync now.
    #[inline(always)]
    fn fsync_due(&self) -> bool {
        self.every > 0 && self.writes_since >= self.every
    }

    /// fsyncs every file; the latency in ticks.
    pub fn fsync(&self, clock: &Clock) -> std::io::Result<u64> {
        self.each_file(clock, libc::fsync)
    }

    /// Calls `sync` (fsync or fdatasync) on every file; the latency in ticks.
    fn each_file(
        &self,
        clock: &Clock,
        sync: unsafe extern "C" fn(i32) -> i32,
    ) -> std::io::Result<u64> {
        let t0 = clock.now();
        for &fd in self.fds {
            // SAFETY: fd is one of the job's files, open for the whole loop.
            if unsafe { sync(fd) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(clock.now() - t0)
    }

    /// The due sync (fsync where `fsync=N` is due, else fdatasync), recorded.
    #[cold]
    pub fn sync(&mut self, clock: &Clock) -> std::io::Result<()> {
        let full = self.fsync_due();
        let data = self.data_every > 0 && self.writes_since >= self.data_every;
        let ticks = match (full, data) {
            (true, _) => self.fsync(clock)?,
            (false, true) => self.each_file(clock, libc::fdatasync)?,
            (false, false) => self.sync_ranges(clock)?,
        };
        self.writes_since = 0;
        self.pending = false;
        // fio counts only fsyncs in `sync.total_ios` (`total_io_u[DDIR_SYNC]`); its latency
        // figures take fdatasyncs too.
        self.count += full as u64;
        self.lat.record(ticks);
        Ok(())
    }

    /// fio's `unlink_each_loop` between loops: each file emptied, in place. fio unlinks
    /// the files and creates them again when the next loop opens them; iolab keeps each file
    /// open for the whole job (registered with a ring, shared with the engine), so it
    /// truncates it to nothing instead: the file system frees its blocks and allocates them
    /// again as the next loop writes, as after fio's unlink, on the same inode.
    #[cold]
    pub fn empty_files(&mut self) -> std::io::Result<()> {
        for &fd in self.fds {
            // SAFETY: fd is one of the job's files, open for the whole loop; fstat writes
            // only into `st`.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            if unsafe { libc::fstat(fd, &mut st) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Only regular files, as fio unlinks only those (a device stays as it is).
            if st.st_mode & libc::S_IFMT != libc::S_IFREG {
                continue;
            }
            // SAFETY: as above.
            if unsafe { libc::ftruncate(fd, 0) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        self.empty_due = false;
        Ok(())
    }

    /// Forgets the ramp's syncs.
    pub fn reset(&mut self) {
        self.count = 0;
        self.lat.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_is_due_at_the_first_count_any_kind_reaches() {
        let due_after = |s: &mut Syncer| {
            s.writes_since = 0;
            (1..=20).find(|_| {
                s.writes_since += 1;
                s.due()
            })
        };
        assert_eq!(due_after(&mut Syncer::new(&[], 0, 0)), None, "no syncs");
        assert_eq!(due_after(&mut Syncer::new(&[], 8, 0)), Some(8));
        assert_eq!(due_after(&mut Syncer::new(&[], 0, 5)), Some(5));
        assert_eq!(due_after(&mut Syncer::new(&[], 8, 5)), Some(5));
        let ranges = Syncer::new(&[], 8, 0).with_ranges(3, 0);
        assert_eq!(due_after(&mut { ranges }), Some(3));
        let ranges = Syncer::new(&[], 0, 6).with_ranges(0, 0);
        assert_eq!(due_after(&mut { ranges }), Some(6));
    }
}
