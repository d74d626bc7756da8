//! How fast a job may go and must go (fio's `rate`, `rate_iops`, `rate_min`,
//! `rate_iops_min`, `rate_cycle`, `rate_process`), per direction (read, write, trim). As in fio,
//! 0 (or nothing) means no cap and no floor.

use std::time::Duration;

use crate::JobError;

/// fio's `rate_process`: when each rate-limited I/O falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateProcess {
    /// Evenly spaced, from the bytes issued so far (fio's `linear`).
    #[default]
    Linear,
    /// Exponentially distributed gaps with the same mean (fio's `poisson`).
    Poisson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Most bytes per second (`rate`).
    pub bytes: [Option<u64>; 3],
    /// Most I/Os per second (`rate_iops`), used where `bytes` is not given.
    pub iops: [Option<u32>; 3],
    /// Least bytes per second, checked every `cycle` after two seconds (`rate_min`).
    pub min_bytes: [Option<u64>; 3],
    /// Least I/Os per second, where `min_bytes` is not given (`rate_iops_min`).
    pub min_iops: [Option<u32>; 3],
    /// How often the minimum is checked (`rate_cycle`, fio's default 1000 ms).
    pub cycle: Duration,
    pub process: RateProcess,
    /// iolab's `rate_open_loop`: each I/O goes at its due time whether or not earlier ones
    /// completed (up to `iodepth` in flight), and its response time runs from when it was
    /// due. Off, the job is fio's closed loop: an I/O waits for a slot, and for its turn.
    pub open_loop: bool,
}

impl Default for Rate {
    fn default() -> Rate {
        Rate {
            bytes: [None; 3],
            iops: [None; 3],
            min_bytes: [None; 3],
            min_iops: [None; 3],
            cycle: Duration::from_millis(1000),
            process: RateProcess::Linear,
            open_loop: false,
        }
    }
}

impl Rate {
    /// The cap of direction `d` in bytes per second, as fio's `__setup_rate()` makes it: `rate`
    /// if given, else `rate_iops` × the direction's smallest block size.
    pub fn bytes_per_sec(&self, d: usize, min_bs: u32) -> Option<u64> {
        self.bytes[d].or(self.iops[d].map(|i| i as u64 * min_bs as u64))
    }

    pub fn limits(&self) -> bool {
        self.bytes
            .iter()
            .chain(self.min_bytes.iter())
            .any(Option::is_some)
            || self
                .iops
                .iter()
                .chain(self.min_iops.iter())
                .any(Option::is_some)
    }

    /// fio's checks (`fixup_options()`): a cap in bytes and one in I/Os exclude each other, as
    /// do the two floors, and a floor may not exceed its direction's cap.
    pub fn check(&self) -> Result<(), JobError> {
        let capped =
            self.bytes.iter().any(Option::is_some) || self.iops.iter().any(Option::is_some);
        if self.open_loop && !capped {
            return Err(JobError::invalid(
                "rate_open_loop",
                1,
                "needs a schedule: give rate or rate_iops",
            ));
        }
        let given = |v: [Option<u64>; 3]| v.iter().flatten().next().copied();
        let widen = |v: [Option<u32>; 3]| v.map(|x| x.map(u64::from));
        let exclusive = [
            ("rate", self.bytes, "rate_iops", widen(self.iops)),
            (
                "rate_min",
                self.min_bytes,
                "rate_iops_min",
                widen(self.min_iops),
            ),
        ];
        for (a, x, b, y) in exclusive {
            if let (Some(_), Some(v)) = (given(x), given(y)) {
                return Err(JobError::invalid(
                    b,
                    v,
                    format!("{a} and {b} exclude each other"),
                ));
            }
        }
        let pairs = [
            ("rate_min", self.bytes, self.min_bytes, "rate"),
            (
                "rate_iops_min",
                widen(self.iops),
                widen(self.min_iops),
                "rate_iops",
            ),
        ];
        for (name, cap, floor, cap_name) in pairs {
            for d in 0..2 {
                if let (Some(c), Some(f)) = (cap[d], floor[d]) {
                    if f > c {
                        return Err(JobError::invalid(
                            name,
                            f,
                            format!("exceeds {cap_name}={c}"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// A floor to check (`rate_min` or `rate_iops_min`) in some direction.
    pub fn has_minimum(&self) -> bool {
        self.min_bytes.iter().any(Option::is_some) || self.min_iops.iter().any(Option::is_some)
    }
}
