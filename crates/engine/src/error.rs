//! Engine errors: which engine, what it was doing, and why.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Setting the engine up failed (io_setup, io_uring_setup, buffer registration...).
    #[error("{engine}: {op} failed: {source}")]
    Setup {
        engine: &'static str,
        op: &'static str,
        #[source]
        source: io::Error,
    },
    /// The kernel or device cannot serve this engine as asked; `reason` says why.
    #[error("{engine}: {reason}")]
    Unsupported {
        engine: &'static str,
        reason: String,
    },
    /// Submitting or reaping failed as a whole (not one I/O's result).
    #[error("{engine}: {op} failed: {source}")]
    Syscall {
        engine: &'static str,
        op: &'static str,
        #[source]
        source: io::Error,
    },
}
