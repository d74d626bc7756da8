//! Pauses between I/Os (fio's `thinktime`): a job that models an application doing work
//! between its I/Os.

use std::time::Duration;

/// fio's `thinktime` and its companions. `time` zero means no pauses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Think {
    /// The whole pause (`thinktime`).
    pub time: Duration,
    /// The part of it spent busy-waiting on the CPU (`thinktime_spin`); the rest is slept.
    pub spin: Duration,
    /// Pause after this many I/Os (`thinktime_blocks`); `None` when not given (fio's default
    /// is 1, but with `thinktime_iotime` an unset count means "by time only").
    pub blocks: Option<u32>,
    /// Count I/Os as issued rather than completed (`thinktime_blocks_type=issue`).
    pub on_issue: bool,
    /// Pause after this much time doing I/O (`thinktime_iotime`; zero: not by time).
    pub iotime: Duration,
    /// A rate cap does not make the job catch up on its pauses (`rate_ignore_thinktime`).
    pub ignore_for_rate: bool,
    /// Spin this many `pause` instructions after each I/O (fio 3.42's `thinkcycles`: its
    /// `cycles_spin()`, a `rep;nop` a cycle), apart from `thinktime`'s pauses.
    pub cycles: u32,
}

impl Think {
    /// The spin part, no longer than the pause (fio clamps it the same way).
    pub fn spin(&self) -> Duration {
        self.spin.min(self.time)
    }

    /// I/Os between pauses: `thinktime_blocks`, 1 when not given.
    pub fn blocks(&self) -> u64 {
        self.blocks.unwrap_or(1).max(1) as u64
    }
}
