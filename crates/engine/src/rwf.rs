//! The per-I/O `RWF_` flags fio 3.42's options set, shared by the engines that take them:
//! `uncached` (RWF_DONTCACHE on buffered I/O: pvsync2 and io_uring) and `atomic`
//! (RWF_ATOMIC on writes: pvsync2, libaio, io_uring). Worked out once at open, so the I/O
//! path only copies a word. (`hipri` is pvsync2's RWF_HIPRI, added there; io_uring polls by
//! IOPOLL, the ring's setup.)

use crate::{EngineOptions, EngineTarget};

/// The flags of reads and of writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RwFlags {
    pub read: i32,
    pub write: i32,
}

/// The flags `opts` ask for on `target`; what has no effect there is said in `notes`.
pub fn flags(opts: &EngineOptions, target: &EngineTarget<'_>, notes: &mut Vec<String>) -> RwFlags {
    let mut both = 0;
    if opts.uncached {
        if target.direct {
            // As fio 3.42: RWF_DONTCACHE is set on buffered I/O only.
            notes.push(
                "uncached=1 has no effect with direct=1: O_DIRECT I/O never enters the page \
                 cache (fio sets RWF_DONTCACHE on buffered I/O only)"
                    .into(),
            );
        } else {
            both |= libc::RWF_DONTCACHE;
        }
    }
    RwFlags {
        read: both,
        write: both | if opts.atomic { libc::RWF_ATOMIC } else { 0 },
    }
}
