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
    /// A sync is due once the I/O in flight has finished.
    pub pending: bool,
    /// fsyncs done (fio's `sync.total_ios`, which leaves fdatasyncs out).
    pub count: u64,
    /// Every sync's latency, fsync and fdatasync alike.
    pub lat: LatencyHistogram,
}

impl<'a> Syncer<'a> {
    pub fn new(fds: &'a [RawFd], every: u32, data_every: u32) -> Syncer<'a> {
        Syncer {
            fds,
            every: every as u64,
            data_every: data_every as u64,
            writes_since: 0,
            pending: false,
            count: 0,
            lat: LatencyHistogram::new(),
        }
    }

    /// The job's files.
    pub fn fds(&self) -> &'a [RawFd] {
        self.fds
    }

    /// Whether `fsync=N` calls for a sync now.
    #[inline(always)]
    pub fn due(&self) -> bool {
        self.fsync_due() || (self.data_every > 0 && self.writes_since >= self.data_every)
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
        let ticks = match full {
            true => self.fsync(clock)?,
            false => self.each_file(clock, libc::fdatasync)?,
        };
        self.writes_since = 0;
        self.pending = false;
        // fio counts only fsyncs in `sync.total_ios` (`total_io_u[DDIR_SYNC]`); its latency
        // figures take fdatasyncs too.
        self.count += full as u64;
        self.lat.record(ticks);
        Ok(())
    }

    /// Forgets the ramp's syncs.
    pub fn reset(&mut self) {
        self.count = 0;
        self.lat.reset();
    }
}
