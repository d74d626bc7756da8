//! Why iolab refuses to write somewhere: the path, and the reason in words (naming the flag
//! that would allow it, where one would).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("refusing to write to {}: {reason}", path.display())]
pub struct SafetyError {
    pub path: PathBuf,
    pub reason: String,
}
