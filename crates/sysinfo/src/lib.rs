//! Facts about the targets iolab runs against, and the probes that keep it from destroying
//! data: what a file or block device is, its block sizes and poll queues, and whether writing
//! to it is safe.

pub mod aliases;
pub mod atomic;
pub mod blkid;
pub mod claim;
pub mod device;
pub mod diskstats;
pub mod doctor;
pub mod drive;
pub mod fsspace;
pub mod guard;
pub mod health;
pub mod host;
pub mod interrupts;
pub mod nvme;
pub mod pinned;
mod refusal;
pub mod safety;
mod storage;
pub mod stored;
pub mod target;
pub mod undo;

pub use guard::{
    check_database, check_output, check_storage_path, check_target_write, open_output,
    open_output_appending, Consent,
};
pub use pinned::{Pin, PinError};
pub use refusal::SafetyError;
pub use safety::{check_blank, check_handover, check_write_allowed};
pub use storage::existing_dir;
pub use target::{probe, probe_new_file, TargetError, TargetFacts, TargetKind};
