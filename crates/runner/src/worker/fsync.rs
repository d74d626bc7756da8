//! `fsync=N` and `end_fsync`: syncs of the job's files, timed, after every N writes (once
//! the writes in flight have finished, as fio's libaio does).

use std::os::fd::RawFd;

use iolab_stats::{Clock, LatencyHistogram};

pub(super) struct Syncer<'a> {
    fds: &'a [RawFd],
    /// Sync after this many writes (0: never).
    every: u64,
    pub writes_since: u64,
    /// A sync is due once the I/O in flight has finished.
    pub pending: bool,
    pub count: u64,
    pub lat: LatencyHistogram,
}

impl<'a> Syncer<'a> {
    pub fn new(fds: &'a [RawFd], every: u32) -> Syncer<'a> {
        Syncer {
            fds,
            every: every as u64,
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
        self.every > 0 && self.writes_since >= self.every
    }

    /// fsyncs every file; the latency in ticks.
    pub fn fsync(&self, clock: &Clock) -> std::io::Result<u64> {
        let t0 = clock.now();
        for &fd in self.fds {
            // SAFETY: fd is one of the job's files, open for the whole loop.
            if unsafe { libc::fsync(fd) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(clock.now() - t0)
    }

    /// The due sync, recorded.
    #[cold]
    pub fn sync(&mut self, clock: &Clock) -> std::io::Result<()> {
        let ticks = self.fsync(clock)?;
        self.writes_since = 0;
        self.pending = false;
        self.count += 1;
        self.lat.record(ticks);
        Ok(())
    }

    /// Forgets the ramp's syncs.
    pub fn reset(&mut self) {
        self.count = 0;
        self.lat.reset();
    }
}
