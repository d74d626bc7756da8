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

/// iolab's load curve (`--load-curve`): the jobs run once at full speed, then open-loop at
/// each load, given as shares of that peak or as I/Os per second.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadCurve {
    Shares(Vec<f64>),
    Iops(Vec<u32>),
}

impl LoadCurve {
    /// `10%,50%,0.9` (shares of the peak) or `20000,40000` (I/Os per second); sorted. A
    /// share has a `%` or a decimal point; a bare integer is I/Os per second.
    pub fn parse(s: &str) -> Result<LoadCurve, String> {
        let items: Vec<&str> = s
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .collect();
        if items.is_empty() {
            return Err("no loads given".into());
        }
        let share = |i: &&str| i.ends_with('%') || i.contains('.');
        if items.iter().all(share) {
            let mut v = Vec::new();
            for i in &items {
                let x = match i.strip_suffix('%') {
                    Some(p) => p.parse::<f64>().map(|p| p / 100.0),
                    None => i.parse::<f64>(),
                }
                .map_err(|_| format!("'{i}' is not a share of the peak (50% or 0.5)"))?;
                if !(x > 0.0 && x <= 10.0) {
                    return Err(format!(
                        "'{i}': a share is above 0 and at most 10 times the peak"
                    ));
                }
                v.push(x);
            }
            v.sort_by(f64::total_cmp);
            v.dedup();
            return Ok(LoadCurve::Shares(v));
        }
        let mut v = Vec::new();
        for i in &items {
            match i.parse::<u32>() {
                Ok(n) if n > 0 => v.push(n),
                _ => {
                    return Err(format!(
                        "'{i}': give every load as a share (50%, 0.5) or every one as I/Os per second (20000)"
                    ))
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        Ok(LoadCurve::Iops(v))
    }

    /// How many open-loop points the curve has.
    pub fn len(&self) -> usize {
        match self {
            LoadCurve::Shares(v) => v.len(),
            LoadCurve::Iops(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_curve_is_shares_or_iops_never_both() {
        assert_eq!(
            LoadCurve::parse("50%, 0.1,110%").unwrap(),
            LoadCurve::Shares(vec![0.1, 0.5, 1.1])
        );
        assert_eq!(
            LoadCurve::parse("40000,20000").unwrap(),
            LoadCurve::Iops(vec![20000, 40000])
        );
        assert!(LoadCurve::parse("50%,20000").unwrap_err().contains("20000"));
        assert!(LoadCurve::parse("0%").is_err());
        assert!(LoadCurve::parse("").is_err());
        assert!(LoadCurve::parse("fast").is_err());
    }
}
