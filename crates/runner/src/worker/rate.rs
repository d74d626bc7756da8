//! fio's rate control. A cap (`rate`, `rate_iops`) makes each direction's next I/O due when
//! the bytes issued before it allow, from the start of the measured window (fio's
//! `usec_for_io()`); with `rate_process=poisson` the gaps are exponential with the same mean.
//! A job that fell behind is not made to wait until it has caught up (fio does the same).
//!
//! How the queue fills is fio's too (`rate_ddir()`): an I/O that is due goes at once,
//! however many are in flight, so a job behind its schedule fills its queue; one that is
//! not due yet first lets everything in flight complete (`io_u_quiesce()`, the async loop's
//! `quiesce`), then sleeps as fio's `usec_sleep()` does ([`sleep_as_fio`]). A rate-limited
//! job at `iodepth=4` thus reports fio's `iodepth_level` and fio's latencies, which count
//! the wait of a completion until the job reaps it. The smooth arrival of one I/O at each
//! due time, whatever is in flight, is the open loop's (`rate_open_loop=1`), which also
//! reports the response time from when each I/O was due.
//!
//! A floor (`rate_min`, `rate_iops_min`) is checked as fio's `check_min_rate()` does: after
//! a two-second settle, the bytes (or I/Os) completed over each `rate_cycle` must reach it, or
//! the job ends with an error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use iolab_engine::Direction;
use iolab_job::{JobSpec, Rate, RateProcess, Rng};
use iolab_stats::Clock;

/// fio lets a job settle this long before its floor is checked.
const SETTLE: Duration = Duration::from_secs(2);

pub(super) struct RateLimit {
    /// Any direction capped.
    pub on: bool,
    /// Cap per direction in bytes per second (0: none).
    bps: [u64; 3],
    ticks_per_sec: u64,
    /// Bytes issued since `base`, and ticks from `base` to each direction's next I/O.
    issued: [u64; 3],
    next_due: [u64; 3],
    base: u64,
    /// The directions the job issues (a read job's write cap never makes it wait).
    issues: [bool; 3],
    /// Poisson: mean ticks between I/Os.
    poisson: Option<([f64; 3], Rng)>,
    floor: Floor,
    /// The job's time ran out while waiting: no further I/O.
    pub out_of_time: bool,
    /// `rate_open_loop`: an I/O goes at its due time, a stall does not hold the next back.
    pub open_loop: bool,
    /// When the I/O the last [`RateLimit::wait`] let go was due (ticks).
    pub last_due: u64,
}

/// The floor's state: what it asks, and the completions at the last check.
struct Floor {
    min_bytes: [u64; 3],
    min_ios: [u64; 3],
    cycle: u64,
    settle: u64,
    /// Tick of the next check (`u64::MAX`: none), and the counters at the last one.
    pub due: u64,
    last: Option<(u64, [u64; 3], [u64; 3])>,
}

impl RateLimit {
    pub fn new(clock: &Clock, spec: &JobSpec, seed: u64, now: u64) -> RateLimit {
        let r: &Rate = &spec.rate;
        let ticks_per_sec = clock.duration_to_ticks(Duration::from_secs(1));
        let min_bs = |i: usize| spec.min_block_size(Direction::ALL[i]);
        let bps = [0, 1, 2].map(|i| r.bytes_per_sec(i, min_bs(i)).unwrap_or(0));
        let poisson = (r.process == RateProcess::Poisson).then(|| {
            let mean = [0, 1, 2].map(|i| {
                let iops = bps[i] as f64 / min_bs(i).max(1) as f64;
                ticks_per_sec as f64 / iops.max(f64::MIN_POSITIVE)
            });
            (mean, Rng::new(seed ^ 0x9e37_79b9))
        });
        let floor = Floor {
            min_bytes: r.min_bytes.map(|b| b.unwrap_or(0)),
            min_ios: r.min_iops.map(|i| i.unwrap_or(0) as u64),
            cycle: clock.duration_to_ticks(r.cycle),
            settle: clock.duration_to_ticks(SETTLE),
            due: u64::MAX,
            last: None,
        };
        let issues = [spec.reads(), spec.writes(), spec.trims()];
        RateLimit {
            on: bps.iter().any(|&b| b > 0),
            issues,
            bps,
            ticks_per_sec,
            issued: [0; 3],
            next_due: [0; 3],
            base: now,
            poisson,
            floor,
            out_of_time: false,
            open_loop: r.open_loop,
            last_due: now,
        }
    }

    /// Counting starts again at `now` (the measured window began).
    pub fn restart(&mut self, now: u64) {
        self.base = now;
        self.issued = [0; 3];
        self.next_due = [0; 3];
        let f = &mut self.floor;
        f.last = None;
        let floored = f.min_bytes.iter().chain(f.min_ios.iter()).any(|&m| m > 0);
        f.due = if floored {
            now.saturating_add(f.settle)
        } else {
            u64::MAX
        };
    }

    /// When the floor is next checked (`u64::MAX`: never).
    #[inline(always)]
    pub fn floor_due(&self) -> u64 {
        self.floor.due
    }

    /// Waits until an I/O may go, and says in which direction: `d` if it is due; in a mixed
    /// job (`mixed`), the other direction instead if that one is due or falls due first (fio's
    /// `rate_ddir()`). Returns early when a stop is asked for or the job's time ends (`end`, in
    /// ticks) first: then `out_of_time` is set, and a slow rate never keeps a job past its
    /// runtime.
    #[cold]
    pub fn wait(
        &mut self,
        d: Direction,
        mixed: bool,
        clock: &Clock,
        stop: &AtomicBool,
        end: u64,
    ) -> Direction {
        let now = clock.now();
        let (dir, until) = self.pick(d, mixed, now);
        self.last_due = until;
        if until <= now {
            // Due already (behind, or an open loop catching up): no second clock read.
            return dir;
        }
        let reached = match self.open_loop {
            true => wait_until(clock, until.min(end), stop),
            false => sleep_as_fio(clock, until.min(end), stop),
        };
        if reached && until > end {
            self.out_of_time = true;
        }
        dir
    }

    /// How long the next I/O would wait at `now` when every capped direction the job issues
    /// is ahead of its schedule (fio's `rate_ddir()` sleeping), in ticks; `None` when one is
    /// due (or nothing is capped).
    #[inline]
    pub fn ahead(&self, now: u64) -> Option<u64> {
        let mut wait: Option<u64> = None;
        for i in 0..3 {
            if self.issues[i] && self.bps[i] > 0 {
                let due = self.base.saturating_add(self.next_due[i]);
                if due <= now {
                    return None;
                }
                wait = Some(wait.map_or(due - now, |w| w.min(due - now)));
            }
        }
        wait
    }

    /// Which direction goes next and when it is due (ticks), without waiting: `d`, or in a
    /// mixed job the other direction if that one is due at `now` or falls due first (fio's
    /// `rate_ddir()`).
    #[inline]
    pub fn pick(&self, d: Direction, mixed: bool, now: u64) -> (Direction, u64) {
        let due = |d: Direction| self.base.saturating_add(self.next_due[d.index()]);
        if due(d) <= now || !mixed {
            return (d, due(d));
        }
        let other = match d {
            Direction::Read => Direction::Write,
            Direction::Write => Direction::Read,
            Direction::Trim => Direction::Trim,
        };
        match due(other) <= now || due(other) < due(d) {
            true => (other, due(other)),
            false => (d, due(d)),
        }
    }

    /// An I/O of `len` bytes in direction `d` was issued: when the direction's next falls due
    /// (fio's `usec_for_io()`).
    #[inline(always)]
    pub fn issued(&mut self, d: Direction, len: u32) {
        let i = d.index();
        if self.bps[i] == 0 {
            return;
        }
        self.issued[i] += len as u64;
        self.next_due[i] = match &mut self.poisson {
            Some((mean, rng)) => {
                let u = ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
                self.next_due[i].saturating_add((mean[i] * -u.ln()) as u64)
            }
            None => (self.issued[i] as u128 * self.ticks_per_sec as u128 / self.bps[i] as u128)
                .min(u64::MAX as u128) as u64,
        };
    }

    /// fio's `rate_ignore_thinktime`: the job paused `ticks` thinking, and the rate does not
    /// make it catch up: each capped direction counts the bytes it would have issued
    /// meanwhile, less one block so the next I/O goes at once (fio's `handle_thinktime()`).
    #[cold]
    pub fn skip_thinking(&mut self, ticks: u64, min_bs: [u32; 3]) {
        for (i, bs) in min_bs.iter().enumerate() {
            if self.bps[i] == 0 {
                continue;
            }
            let tps = self.ticks_per_sec.max(1) as u128;
            let missed = (self.bps[i] as u128 * ticks as u128 / tps) as u64;
            let bs = *bs as u64;
            let per_op = (bs as u128 * tps / self.bps[i] as u128) as u64;
            let over = if per_op <= ticks { bs } else { 0 };
            self.issued[i] += missed.saturating_sub(over);
            self.next_due[i] = match &self.poisson {
                Some(_) => self.next_due[i].saturating_add(ticks),
                None => (self.issued[i] as u128 * tps / self.bps[i] as u128).min(u64::MAX as u128)
                    as u64,
            };
        }
    }

    /// The floor's check at `now`, given the bytes and I/Os completed so far per direction:
    /// fio's message when a direction that did any I/O fell below it.
    #[cold]
    pub fn check_floor(&mut self, now: u64, bytes: [u64; 3], ios: [u64; 3]) -> Result<(), String> {
        let f = &mut self.floor;
        f.due = now.saturating_add(f.cycle.max(1));
        let Some((t, b0, i0)) = f.last.replace((now, bytes, ios)) else {
            return Ok(());
        };
        let ms = ((now - t) as u128 * 1000 / self.ticks_per_sec.max(1) as u128).max(1);
        for d in 0..Direction::COUNT {
            if bytes[d] == 0 {
                continue;
            }
            if f.min_bytes[d] > 0 {
                let got = (bytes[d] - b0[d]) as u128 * 1000 / ms;
                if got < f.min_bytes[d] as u128 {
                    let want = f.min_bytes[d];
                    return Err(format!("rate_min={want}B/s not met, got {got}B/s"));
                }
            } else if f.min_ios[d] > 0 {
                let got = (ios[d] - i0[d]) as u128 * 1000 / ms;
                if got < f.min_ios[d] as u128 {
                    let want = f.min_ios[d];
                    return Err(format!("rate_iops_min={want} not met, got {got} IOPS"));
                }
            }
        }
        Ok(())
    }
}

/// fio's sleep granularity (`fio_time_init()`): the longest of ten 1 µs `nanosleep`s, in ns
/// (about 55 µs beside the default 50 µs timer slack).
fn granularity_ns() -> u64 {
    static G: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *G.get_or_init(|| {
        (0..10)
            .map(|_| {
                let t = std::time::Instant::now();
                std::thread::sleep(Duration::from_micros(1));
                t.elapsed().as_nanos() as u64
            })
            .max()
            .unwrap_or(0)
    })
}

/// Waits until `until` (ticks) as fio's `usec_sleep()` does for its rate: a wait shorter
/// than the sleep granularity spins; a longer one sleeps for the wait less the granularity
/// and goes on with what is left. The thread wakes as late as fio's does, so a closed-loop
/// job falls behind and catches up as fio's does. False when a stop came first.
pub(super) fn sleep_as_fio(clock: &Clock, until: u64, stop: &AtomicBool) -> bool {
    let g = granularity_ns();
    wait_spinning_under(clock, until, stop, g, g)
}

/// Waits until `until` (ticks), spinning the last 200 µs, as a sleep wakes tens of µs late.
/// False when a stop came first.
pub(super) fn wait_until(clock: &Clock, until: u64, stop: &AtomicBool) -> bool {
    wait_spinning_under(clock, until, stop, 200_000, 100_000)
}

/// Waits until `until` (ticks): spins while at most `spin_ns` are left; before that, sleeps
/// for what is left less `early_ns`, in slices of at most 50 ms so a stop is heard. False
/// when a stop came first.
fn wait_spinning_under(
    clock: &Clock,
    until: u64,
    stop: &AtomicBool,
    spin_ns: u64,
    early_ns: u64,
) -> bool {
    loop {
        let now = clock.now();
        if now >= until {
            return true;
        }
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let left_ns = clock.ticks_to_ns(until - now) as u64;
        if left_ns <= spin_ns {
            std::hint::spin_loop();
            continue;
        }
        let nap = Duration::from_nanos(left_ns.saturating_sub(early_ns));
        std::thread::sleep(nap.min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read job capped at 1000 IOPS of 4 KiB, on a clock of nanoseconds.
    fn read_job() -> (Clock, RateLimit) {
        let clock = Clock::monotonic();
        let mut spec = JobSpec::new("r", "/tmp/x");
        spec.read_percent = 100;
        spec.rate.iops = [Some(1000); 3];
        let r = RateLimit::new(&clock, &spec, 1, 0);
        (clock, r)
    }

    #[test]
    fn a_job_is_ahead_only_while_its_next_io_is_not_due() {
        let (_, mut r) = read_job();
        // Nothing issued: the first I/O is due at once.
        assert_eq!(r.ahead(0), None);
        r.issued(Direction::Read, 4096);
        // The next is due 1 ms after the start: ahead before (by what is left), due from
        // then on (a job that fell behind issues at once, however many are in flight).
        assert_eq!(r.ahead(999_000), Some(1_000));
        assert_eq!(r.ahead(1_000_000), None);
        assert_eq!(r.ahead(5_000_000), None);
        // The write cap of a job that only reads never holds it.
        assert!(!r.issues[1] || r.bps[1] == 0);
    }

    #[test]
    fn a_wait_shorter_than_the_sleep_granularity_spins_to_its_time() {
        let (clock, _) = read_job();
        let stop = AtomicBool::new(false);
        for wait_us in [20u64, 300] {
            let until = clock.now() + clock.duration_to_ticks(Duration::from_micros(wait_us));
            assert!(sleep_as_fio(&clock, until, &stop));
            assert!(clock.now() >= until);
        }
        // A stop is heard.
        stop.store(true, Ordering::Relaxed);
        let until = clock.now() + clock.duration_to_ticks(Duration::from_secs(5));
        assert!(!sleep_as_fio(&clock, until, &stop));
    }
}
