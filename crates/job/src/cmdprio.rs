//! Per-I/O priorities (fio's `cmdprio_percentage`, `cmdprio_class`, `cmdprio` and
//! `cmdprio_bssplit`, options of its libaio and io_uring engines): a share of a direction's
//! I/Os, or of its I/Os of one block size, carries an I/O priority of its own, set on the
//! request itself (`aio_reqprio`, an SQE's `ioprio`), while the rest keep the thread's.
//!
//! fio reports each priority's completion latencies apart (its `clat_prio` stats), index 0
//! being the thread's priority; [`PrioTable`] keeps fio's order so the reports line up.

use crate::Priority;

/// One priority and the share of I/Os (percent) that take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrioShare {
    pub percent: u32,
    /// The `ioprio` value (class << 13 | level), as fio's `ioprio_value()`.
    pub ioprio: u16,
}

/// The priorities of I/Os of one block size (`None`: of every size, `cmdprio_percentage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizePrios {
    pub bs: Option<u64>,
    pub shares: Vec<PrioShare>,
}

/// Per-I/O priorities of a job's reads (index 0) and writes (index 1); an empty list
/// leaves that direction's I/Os at the thread's priority.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CmdPrio {
    pub dirs: [Vec<SizePrios>; 2],
}

/// fio's `ioprio_value()`: class 0 is taken as best effort.
pub fn ioprio_value(class: u32, level: u32) -> u16 {
    let class = if class == 0 { 2 } else { class.min(3) };
    ((class << 13) | level.min(7)) as u16
}

/// The priorities one direction is reported under, and the draw that picks an I/O's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrioTable {
    /// The `ioprio` values in fio's order: the thread's first, then each new one as the
    /// options name it.
    pub values: Vec<u16>,
    /// Per block size (`None`: every size): (cumulative percent, index into `values`).
    by_size: Vec<(Option<u64>, Vec<Cumulative>)>,
}

/// A share's cumulative percent and its priority's index into `PrioTable::values`.
type Cumulative = (u32, u8);

impl PrioTable {
    /// The table of direction `dir` (0 read, 1 write); `thread` is the job's own priority.
    pub fn new(cmdprio: &CmdPrio, dir: usize, thread: &Priority) -> PrioTable {
        let mut values = vec![thread.ioprio().unwrap_or(0) as u16];
        let by_size = cmdprio.dirs[dir]
            .iter()
            .map(|s| {
                let mut sum = 0;
                let cum = s
                    .shares
                    .iter()
                    .map(|p| {
                        sum += p.percent;
                        let i = values
                            .iter()
                            .position(|&v| v == p.ioprio)
                            .unwrap_or_else(|| {
                                values.push(p.ioprio);
                                values.len() - 1
                            });
                        (sum, i as u8)
                    })
                    .collect();
                (s.bs, cum)
            })
            .collect();
        PrioTable { values, by_size }
    }

    /// Whether any I/O of this direction takes a priority of its own.
    pub fn is_on(&self) -> bool {
        !self.by_size.is_empty()
    }

    /// The index into `values` of an I/O of `len` bytes, given a draw in 0..100 (fio's
    /// `rand_between(prio_state, 0, 99)`); `None` keeps the thread's priority.
    #[inline]
    pub fn pick(&self, len: u64, draw: u32) -> Option<u8> {
        let (_, cum) = self
            .by_size
            .iter()
            .find(|(bs, _)| bs.is_none_or(|b| b == len))?;
        cum.iter().find(|(c, _)| draw < *c).map(|&(_, i)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(percent: u32, class: u32, level: u32) -> PrioShare {
        PrioShare {
            percent,
            ioprio: ioprio_value(class, level),
        }
    }

    #[test]
    fn ioprio_values_are_fios() {
        assert_eq!(ioprio_value(1, 0), 1 << 13);
        assert_eq!(ioprio_value(0, 7), (2 << 13) | 7);
        assert_eq!(ioprio_value(3, 9), (3 << 13) | 7);
    }

    #[test]
    fn the_threads_priority_comes_first_and_each_value_once() {
        // cmdprio-bssplit.fio's advanced form: 64k reads 25% RT/1 and 75% idle/2, and a
        // default of best effort 7.
        let c = CmdPrio {
            dirs: [
                vec![SizePrios {
                    bs: Some(65536),
                    shares: vec![share(25, 1, 1), share(75, 3, 2)],
                }],
                vec![],
            ],
        };
        let thread = Priority {
            io_class: Some(2),
            io_level: 7,
            nice: 0,
            io_hint: 0,
        };
        let t = PrioTable::new(&c, 0, &thread);
        assert_eq!(t.values, [(2 << 13) | 7, (1 << 13) | 1, (3 << 13) | 2]);
        assert_eq!(t.pick(65536, 0), Some(1));
        assert_eq!(t.pick(65536, 24), Some(1));
        assert_eq!(t.pick(65536, 25), Some(2));
        assert_eq!(t.pick(65536, 99), Some(2));
        assert_eq!(t.pick(1 << 20, 0), None);
        assert!(t.is_on());
        let w = PrioTable::new(&c, 1, &thread);
        assert!(!w.is_on());
        assert_eq!(w.pick(65536, 0), None);
    }

    #[test]
    fn a_percentage_applies_to_every_size() {
        let c = CmdPrio {
            dirs: [
                vec![SizePrios {
                    bs: None,
                    shares: vec![share(30, 1, 0)],
                }],
                vec![],
            ],
        };
        let t = PrioTable::new(&c, 0, &Priority::default());
        assert_eq!(t.values, [0, 1 << 13]);
        assert_eq!(t.pick(4096, 29), Some(1));
        assert_eq!(t.pick(512, 30), None);
    }
}
