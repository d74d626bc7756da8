//! `null`: completes every I/O at once without touching the kernel, like fio's
//! `engines/null.c`. What a null run measures is iolab's own cost per I/O.

use crate::{Capabilities, EngineError, IoEngine, IoUnit, QueueStatus};

/// What `null` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Null,
    name: "null",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &[],
    // It pretends to, as fio's null does: buffers are filled and a verify job runs.
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Null;

impl Null {
    pub fn open() -> Null {
        Null
    }
}

impl IoEngine for Null {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline(always)]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        Ok(QueueStatus::Completed(io.len as i64))
    }
}
