//! iolab's job model: what one job does, as plain typed data.
//!
//! A job knows its target, engine, direction mix, block sizes, queue depth, limits and CPU
//! placement — and nothing of how a user spelled them. Front ends (fio-style options today,
//! fio job files and the review planner later) translate into [`JobSpec`]; the runner reads it.

pub mod blocksize;
pub mod cgroup;
pub mod cmdprio;
pub mod control;
pub mod cpuset;
pub mod dedupe;
pub mod distribution;
pub mod error;
pub mod errors;
pub mod file_setup;
pub mod fio_mix;
pub mod fio_rand;
pub mod lat_target;
pub mod numa;
pub mod offsets;
pub mod priority;
pub mod rate;
pub mod replay;
pub mod rng;
pub mod run_map;
pub mod spec;
pub mod steady;
pub mod think;
pub mod verify;
pub mod zbd;
pub mod zoned;

pub use blocksize::{BlockDist, BlockSizer};
pub use cgroup::Cgroup;
pub use cmdprio::{CmdPrio, PrioShare, PrioTable, SizePrios};
pub use control::JobControl;
pub use cpuset::CpuSet;
pub use dedupe::{Dedupe, DedupeMode};
pub use distribution::{RandomDistribution, RankGen};
pub use error::JobError;
pub use errors::{ErrorKind, ErrorPolicy};
pub use file_setup::{Fallocate, FileLock, FileSetup, SyncWrites};
pub use fio_mix::FioMix;
pub use fio_rand::{FioRand, FioWalk, Generator, OffsetStream, SeedRule};
pub use lat_target::LatTarget;
pub use numa::{MemPolicy, Numa};
pub use offsets::{LeanOffsets, OffsetGen, Region};
pub use priority::Priority;
pub use rate::{LoadCurve, Rate, RateProcess};
pub use replay::{MergedTrace, Replay, ReplayIo};
pub use rng::Rng;
pub use run_map::RunMap;
pub use spec::{
    BufferContent, ExitWhat, FadviseHint, FileService, FileType, FlowSpec, JobSpec, LogSpec,
    Pattern, Recorded, RwReporting, SizeSpec, StridedZones, TrimMix, COPY_SEED_STEP,
    DEFAULT_PERCENTILES,
};
pub use steady::{Judgement, SteadyMetric, SteadyState};
pub use think::Think;
pub use verify::{Checksum, Verify, VerifyKind};
pub use zbd::ZbdSpec;
pub use zoned::{parse_zoned, Zone, ZoneTable, ZonedSplit};
