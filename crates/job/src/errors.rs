//! Which I/O errors a job goes on after (fio's `continue_on_error` and `ignore_error`):
//! per kind of error (read, write, verify), the errnos forgiven; none means fatal.

/// fio's non-fatal errors when `ignore_error` names none: EIO and EILSEQ.
pub const NON_FATAL: [i32; 2] = [libc::EIO, libc::EILSEQ];

/// The kinds fio tells apart (`ERROR_TYPE_READ`, `_WRITE`, `_VERIFY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Read = 0,
    Write = 1,
    Verify = 2,
}

/// Per kind, the errnos the job goes on after (empty: every error ends the job).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorPolicy {
    pub forgiven: [Vec<i32>; 3],
}

impl ErrorPolicy {
    /// Whether any error is forgiven (then fio counts and reports them).
    pub fn on(&self) -> bool {
        self.forgiven.iter().any(|f| !f.is_empty())
    }

    /// Whether an error `errno` of `kind` lets the job go on.
    pub fn forgives(&self, kind: ErrorKind, errno: i32) -> bool {
        self.forgiven[kind as usize].contains(&errno)
    }
}
