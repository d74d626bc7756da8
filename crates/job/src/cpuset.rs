//! A set of CPUs as written in a cpu list ("0-3,6"), for pinning workers.

use std::fmt;
use std::str::FromStr;

use crate::JobError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSet {
    cpus: Vec<usize>,
}

impl CpuSet {
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// A set from explicit CPU numbers.
    pub fn from_cpus(mut cpus: Vec<usize>) -> CpuSet {
        cpus.sort_unstable();
        cpus.dedup();
        CpuSet { cpus }
    }
}

impl FromStr for CpuSet {
    type Err = JobError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| JobError::invalid("cpus_allowed", s, why);
        let mut cpus = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (a.trim(), b.trim()),
                None => (part, part),
            };
            let lo: usize = lo
                .parse()
                .map_err(|_| bad("expected a CPU list like 0-3,6"))?;
            let hi: usize = hi
                .parse()
                .map_err(|_| bad("expected a CPU list like 0-3,6"))?;
            if lo > hi {
                return Err(bad("a range must go from low to high"));
            }
            if hi >= 4096 {
                return Err(bad("CPU numbers above 4095 are not supported"));
            }
            cpus.extend(lo..=hi);
        }
        if cpus.is_empty() {
            return Err(bad("the CPU list is empty"));
        }
        Ok(CpuSet::from_cpus(cpus))
    }
}

impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s: Vec<String> = self.cpus.iter().map(|c| c.to_string()).collect();
        f.write_str(&s.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_ranges() {
        assert_eq!("0-2,5".parse::<CpuSet>().unwrap().cpus(), &[0, 1, 2, 5]);
        assert_eq!("1".parse::<CpuSet>().unwrap().cpus(), &[1]);
        assert_eq!("3,1,1".parse::<CpuSet>().unwrap().cpus(), &[1, 3]);
    }

    #[test]
    fn rejects_garbage_naming_the_option() {
        for bad in ["", "a", "3-1", "1-", "99999"] {
            let e = bad.parse::<CpuSet>().unwrap_err().to_string();
            assert!(e.starts_with("cpus_allowed="), "{e}");
        }
    }
}
