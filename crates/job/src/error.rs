//! Why a job cannot run as specified. Each variant names the setting at fault.

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JobError {
    #[error("{option}={value}: {reason}")]
    Invalid {
        option: &'static str,
        value: String,
        reason: String,
    },
    #[error("{0}")]
    Region(String),
}

impl JobError {
    pub fn invalid(option: &'static str, value: impl ToString, reason: impl Into<String>) -> Self {
        JobError::Invalid {
            option,
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}
