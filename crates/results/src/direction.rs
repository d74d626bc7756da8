//! The direction of an I/O: every per-direction figure is indexed by it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

impl Direction {
    /// Index into per-direction arrays: read 0, write 1 (fio's DDIR_READ / DDIR_WRITE).
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// fio's name for it: `read`, `write`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
}
