//! Why a split cannot be had, in one line each.

use std::path::PathBuf;

/// The reason the kernel's events cannot be had for a target. Its `Display` is the one-line
/// note a run prints before going on without the split.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error("loading an eBPF probe needs root (CAP_BPF and CAP_PERFMON)")]
    NotRoot,
    #[error("the kernel has no BTF at {0} (CONFIG_DEBUG_INFO_BTF), which the probe's CO-RE needs")]
    NoBtf(PathBuf),
    #[error("the kernel's BTF at {path} could not be read: {reason}")]
    BadBtf { path: PathBuf, reason: String },
    #[error("the kernel refused the eBPF probe: {0}")]
    NoBpf(String),
    #[error("the kernel has no {0} tracepoint to attach to: {1}")]
    NoTracepoint(&'static str, String),
    #[error("{0} is bio-based (no block requests, so no request events)")]
    BioBased(String),
    #[error("{0} is not on a block device")]
    NoDevice(String),
    #[error("where {0}'s bytes sit on its disk is unknown: {1}")]
    NoMap(String, String),
}
