//! A job's scheduling priorities (fio's `prio`, `prioclass`, `nice`): the I/O priority its
//! worker thread gets with `ioprio_set`, which the block layer gives every request the
//! thread issues (io_uring and libaio requests included), and its CPU nice value.

/// Priorities the worker threads take before any I/O; `None` / 0 leave the kernel's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Priority {
    /// I/O priority class (`prioclass`: 1 realtime, 2 best effort, 3 idle; 0 means best
    /// effort, as fio's `ioprio_value()`), if `prio` or `prioclass` was given.
    pub io_class: Option<u8>,
    /// I/O priority level within the class (`prio`, 0 highest to 7 lowest).
    pub io_level: u8,
    /// CPU nice value (`nice`, -20 to 19).
    pub nice: i32,
    /// I/O priority hint (fio 3.42's `priohint`, 0 to 1023; e.g. a command duration limit
    /// index on a CDL drive), carried in the priority value's hint bits.
    pub io_hint: u16,
}

/// `ioprio_set`'s class shift (`IOPRIO_CLASS_SHIFT`).
const CLASS_SHIFT: u32 = 13;
/// `IOPRIO_CLASS_BE`.
const CLASS_BE: u8 = 2;
/// Where the hint sits in the priority value (`IOPRIO_HINT_SHIFT`).
const HINT_SHIFT: u32 = 3;
/// The largest hint (`IOPRIO_MAX_PRIO_HINT`: 10 bits).
pub const MAX_HINT: u16 = (1 << 10) - 1;

impl Priority {
    /// The `ioprio_set` value, as fio's `ioprio_value()`: class 0 is taken as best effort.
    pub fn ioprio(&self) -> Option<u32> {
        self.io_class.map(|c| {
            let class = if c == 0 { CLASS_BE } else { c };
            (u32::from(class) << CLASS_SHIFT)
                | (u32::from(self.io_hint) << HINT_SHIFT)
                | u32::from(self.io_level)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioprio_values_are_fios() {
        assert_eq!(Priority::default().ioprio(), None);
        let idle = Priority {
            io_class: Some(3),
            io_level: 0,
            nice: 0,
            io_hint: 0,
        };
        assert_eq!(idle.ioprio(), Some(3 << 13));
        let level_only = Priority {
            io_class: Some(0),
            io_level: 7,
            nice: 0,
            io_hint: 0,
        };
        assert_eq!(level_only.ioprio(), Some((2 << 13) | 7));
        // fio 3.42's ioprio_value(): the hint between class and level.
        let hinted = Priority {
            io_class: Some(2),
            io_level: 4,
            nice: 0,
            io_hint: 3,
        };
        assert_eq!(hinted.ioprio(), Some((2 << 13) | (3 << 3) | 4));
    }
}
