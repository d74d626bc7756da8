//! [`JobSpec`]: one job, fully specified, plus its validation.

use std::path::PathBuf;
use std::time::Duration;

use iolab_engine::{Direction, EngineConfig, EngineKind};

use crate::{BlockDist, CpuSet, Generator, JobError, RandomDistribution, SeedRule};

pub use iolab_results::DEFAULT_PERCENTILES;

/// Whether offsets walk the region in order or jump around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Sequential,
    Random,
}

/// Whether a job trims (discards) and how: fio's `rw=trim` / `randtrim` trim only;
/// `trimwrite` / `randtrimwrite` trim a block, then write the same block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrimMix {
    #[default]
    None,
    Only,
    ThenWrite,
}

/// A byte count, or a share of the target's size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeSpec {
    Bytes(u64),
    Percent(f64),
}

impl SizeSpec {
    /// Bytes, given the size of the whole target.
    pub fn resolve(self, target_bytes: u64) -> u64 {
        match self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => (target_bytes as f64 * p / 100.0) as u64,
        }
    }
}

pub use iolab_results::{Recorded, RwReporting};

/// The access-pattern advice given to the kernel when a job opens its files (fio's
/// `fadvise_hint`). fio's default, `Type`, advises random or sequential from the job's
/// pattern; buffered random reads then skip readahead and read the device block by block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FadviseHint {
    /// No advice (`fadvise_hint=0`).
    None,
    /// `POSIX_FADV_RANDOM` for random jobs, `POSIX_FADV_SEQUENTIAL` otherwise (`1`).
    #[default]
    Type,
    Random,
    Sequential,
}

/// What write buffers hold. fio's default is random (incompressible) data, which matters on
/// devices that compress or deduplicate (zram does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferContent {
    /// Every byte zero (`zero_buffers`).
    pub zero: bool,
    /// Share of each 512-byte chunk that is zeros, so the data compresses by about this much
    /// (`buffer_compress_percentage`; 0 = incompressible).
    pub compress_percent: u8,
    /// The chunk that share applies to, in bytes (fio's `buffer_compress_chunk`, default
    /// 512); 0: the whole block is one chunk.
    pub compress_chunk: u32,
    /// Refill the buffer with fresh random data before every write (`refill_buffers`).
    pub refill: bool,
    /// Stamp every 512-byte block of each write with its offset and the submit time, as
    /// fio's `small_content_scramble()` (`scramble_buffers`, fio's default).
    pub scramble: bool,
    /// A share of writes that repeat earlier data (fio's `dedupe_percentage`).
    pub dedupe: crate::Dedupe,
    /// The bytes written, repeated (fio's `buffer_pattern`); with `compress_percent`, what
    /// fills each chunk's compressible part instead of zeros.
    pub pattern: Option<iolab_engine::buffer::FillPattern>,
}

impl BufferContent {
    /// Whether writes are stamped: as fio, never over zeroed, refilled or compressible
    /// buffers.
    pub fn scrambles(&self) -> bool {
        self.scramble && !self.zero && !self.refill && self.compress_percent == 0
    }

    /// What written data holds, in a phrase (for the JSON and the store).
    pub fn describe(&self) -> String {
        let base = if let Some(p) = self.pattern.as_ref().filter(|_| self.compress_percent == 0) {
            format!(
                "the pattern 0x{}",
                p.bytes()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            )
        } else if self.zero {
            "zeros".to_string()
        } else if self.compress_percent > 0 {
            format!(
                "random, {}% zeros per 512 B (compressible)",
                self.compress_percent
            )
        } else {
            "random".to_string()
        };
        let base = match self.dedupe.percent {
            0 => base,
            p => format!("{base}, {p}% of writes repeating earlier data"),
        };
        let how = if self.refill && !self.zero {
            ", refilled before every write (refill_buffers)"
        } else if self.scrambles() {
            ", stamped per 512 B with offset and time as fio's scramble_buffers"
        } else {
            ""
        };
        format!("{base}{how}")
    }
}

/// What a job's files are said to be (fio 3.42's `filetype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    File,
    Block,
    Char,
}

impl FileType {
    pub fn name(self) -> &'static str {
        match self {
            FileType::File => "file",
            FileType::Block => "block",
            FileType::Char => "char",
        }
    }
}

#[cfg(test)]
mod buffer_tests {
    use super::BufferContent;

    #[test]
    fn the_content_is_described_and_scrambled_as_fio() {
        let d = BufferContent::default();
        assert!(d.scrambles());
        assert!(
            d.describe().contains("scramble_buffers"),
            "{}",
            d.describe()
        );
        let z = BufferContent { zero: true, ..d };
        assert_eq!((z.scrambles(), z.describe().as_str()), (false, "zeros"));
        let c = BufferContent {
            compress_percent: 50,
            ..d
        };
        assert!(!c.scrambles() && c.describe().contains("50%"));
    }
}

impl Default for BufferContent {
    fn default() -> Self {
        BufferContent {
            zero: false,
            compress_percent: 0,
            compress_chunk: iolab_engine::buffer::CHUNK as u32,
            refill: false,
            scramble: true,
            dedupe: crate::Dedupe::default(),
            pattern: None,
        }
    }
}

pub use iolab_results::LogSpec;

/// fio's flow control: jobs with the same `id` issue I/O in the ratio of their `weight`s
/// (`flow`, 0: not in a flow); one ahead of its share waits `sleep` (`flow_sleep`) and asks
/// again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlowSpec {
    pub id: u32,
    pub weight: u32,
    pub sleep: Duration,
}

/// fio's `zonemode=strided`: the job does `size` bytes (`zonesize`) in a zone of `range`
/// bytes (`zonerange`), then moves on by the range and `skip` (`zoneskip`), from the start
/// again past the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedZones {
    pub size: u64,
    pub range: u64,
    pub skip: u64,
}

/// fio's `file_service_type`: which file the next I/O goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileService {
    /// The files in turn, this many I/Os each (`roundrobin[:N]`, the default).
    RoundRobin(u32),
    /// All of a file's I/O before the next file (`sequential`).
    Sequential,
    /// A file drawn at random, for this many I/Os (`random[:N]`).
    Random(u32),
}

/// Which jobs stop when a job ends, in a run where any job sets fio's `exitall`
/// (`exit_what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExitWhat {
    /// The jobs of the ending job's reporting group (fio's default).
    #[default]
    Group,
    /// Every job running in the ending job's stonewall phase; the next phase still runs.
    Stonewall,
    /// Every job, and no later phase starts.
    All,
}

/// How far apart the seeds of a job's copies are (`numjobs`): the runner's step between the
/// clones of one spec, and the parser's between copies that are specs of their own (one
/// file each, named by default), so either way each copy draws its own sizes and offsets.
pub const COPY_SEED_STEP: u64 = 0x1_0000_0001;

#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub name: String,
    /// The name the job's copies after the first report under (`numjobs`), where it
    /// differs from `name`: fio names the first by a section's `name=` and its clones by
    /// the section (`[sect]` with `name=given` reports given, sect, sect).
    pub clone_name: Option<String>,
    /// Free text shown beside the results.
    pub description: String,
    pub filename: PathBuf,
    /// Further files the job spreads its I/O over after `filename` (fio's `filename=a:b:c`
    /// or `nrfiles`), as `file_service` says. `size` is split evenly.
    pub extra_files: Vec<PathBuf>,
    /// How the next I/O's file is chosen when there are several (fio's `file_service_type`).
    pub file_service: FileService,
    /// How many files the I/O is spread over at once (fio's `openfiles`; `None`: all): the
    /// next file joins only when one of these has had its share of the pass, as fio opens
    /// the next file only when one it has open is done. iolab keeps every descriptor open.
    pub file_window: Option<u32>,
    pub engine: EngineConfig,
    /// Open with O_DIRECT (bypass the page cache).
    pub direct: bool,
    pub pattern: Pattern,
    /// Sequential I/O: bytes added to each next offset after the first (holes; negative steps
    /// back, wrapping to the end), fio's `rw=read:8k` / `rw=read:-8k`. 0: none.
    pub seq_add: i64,
    /// Random I/O: a new random offset every this many I/Os, sequential in between, fio's
    /// `rw=randread:N` (1: every I/O, the default; 0: never).
    pub random_every: u32,
    /// Of the I/Os a random job draws, the share per direction that is random; the rest
    /// continue sequentially from the last (fio's `percentage_random`, default 100).
    pub percentage_random: [u8; Direction::COUNT],
    /// Between `rw=randread:N`'s random draws, repeat the last offset instead of going on
    /// sequentially (fio's `rw_sequencer=identical`).
    pub rw_identical: bool,
    /// Share of I/Os that are reads: 100 read-only, 0 write-only (ignored by trim jobs).
    pub read_percent: u32,
    /// Whether the job trims, and how (fio's `rw=trim`, `randtrim`, `trimwrite`).
    pub trim: TrimMix,
    /// Block size per direction, indexed by [`Direction::index`].
    pub block_size: [u32; Direction::COUNT],
    /// Random offsets are multiples of this (bytes); `None` means the block size.
    pub block_align: Option<u64>,
    pub iodepth: u32,
    /// Once the queue is full, let it drain to this depth before filling it again (fio's
    /// `iodepth_low`; 0: refill at once).
    pub iodepth_low: u32,
    /// An I/O waits while any I/O in flight overlaps its byte range (fio's
    /// `serialize_overlap`). Applied, as fio's `fixup_options()` does, only where the job
    /// changes data or replays a log and more than one I/O may be in flight: see
    /// [`JobSpec::serializes_overlap`].
    pub serialize_overlap: bool,
    /// I/Os handed to the kernel per submit call (fio's `iodepth_batch_submit`, default 1:
    /// each I/O as soon as it is ready; 0 means iodepth).
    pub iodepth_batch_submit: u32,
    /// Completions to wait for per reap (fio's `iodepth_batch_complete_min`, default 1).
    pub iodepth_batch_complete_min: u32,
    /// Most completions taken per reap (fio's `iodepth_batch_complete_max`; unset, 0, it is
    /// the min, so fio reaps one I/O at a time by default).
    pub iodepth_batch_complete_max: u32,
    /// Bytes of the target to use (and, unless time-based, to transfer); `None`: all of it.
    pub size: Option<SizeSpec>,
    /// Where the region starts.
    pub offset: SizeSpec,
    /// Added to `offset` for each job copy after the first (fio's `offset_increment`), so
    /// `numjobs` copies work on neighbouring regions.
    pub offset_increment: SizeSpec,
    /// What a percentage `offset` (or `offset_increment`) is rounded up to (fio's
    /// `offset_align`; None: the smallest block size, as fio).
    pub offset_align: Option<u64>,
    /// Bytes to transfer, when not `size` (fio's `io_size`): more wraps over the region,
    /// less stops early.
    pub io_size: Option<SizeSpec>,
    /// Stop after this many I/Os (each loop), even before the bytes or the runtime are done
    /// (fio's `number_ios`).
    pub number_ios: Option<u64>,
    /// Keep going over the region until `runtime` ends.
    pub time_based: bool,
    pub runtime: Option<Duration>,
    /// Run this long before measuring; stats are reset when it ends.
    pub ramp_time: Duration,
    /// Or transfer this many bytes before measuring (fio 3.42's `ramp_size`; 0: none).
    pub ramp_bytes: u64,
    /// Identical copies of this job running side by side.
    pub numjobs: u32,
    pub cpus_allowed: Option<CpuSet>,
    /// Each job copy gets one CPU of `cpus_allowed`, by its number in the run, round robin
    /// (fio's `cpus_allowed_policy=split`); false: all share the set.
    pub cpus_split: bool,
    /// Random offsets hit every block once per pass (fio's random map) instead of drawing
    /// independently (`norandommap`).
    pub random_map: bool,
    /// Under the random map, every block in fio's own order (fio's `axmap`, draw for draw:
    /// the same offsets as fio), not iolab's full-period walk (every block once a pass too,
    /// in an order of its own). fio's rule costs about 3 ns an I/O more, which only the null
    /// engine shows; it is taken where the order decides what fio reports (a zoned device's
    /// write pointers) and where asked (iolab's `--fio-offsets`).
    pub fio_order: bool,
    pub seed: u64,
    /// How random offsets are drawn: fio's generators (fio's draws; the same offsets as fio
    /// under `norandommap` or [`Self::fio_order`]) or iolab's full-period walk.
    pub generator: Generator,
    /// Whether the offsets repeat from run to run (fio's `randrepeat` and the rest).
    pub seed_rule: SeedRule,
    /// Percentiles to report, in percent.
    pub percentiles: Vec<f64>,
    pub clat_percentiles: bool,
    /// Report submission latency percentiles too (fio's `slat_percentiles`).
    pub slat_percentiles: bool,
    pub lat_percentiles: bool,
    /// Report every job of the same group (copies included) merged into one.
    pub group_reporting: bool,
    pub recorded: Recorded,
    /// How the normal report prints its figures (`significant_figures`, `kb_base`,
    /// `unit_base`).
    pub numbers: iolab_results::NumberStyle,
    /// Start only once every job before this one has finished; also starts a new group.
    pub stonewall: bool,
    /// Start a new reporting group without waiting for the jobs before.
    pub new_group: bool,
    /// Wait this long after the others start before starting (not measured).
    pub start_delay: Duration,
    /// Weighted pacing against the other jobs of the same flow id (fio's `flow`).
    pub flow: FlowSpec,
    /// fio's `exitall`: once any job sets it, every job that ends stops others (`exit_what`).
    pub exitall: bool,
    pub exit_what: ExitWhat,
    /// NUMA placement (`numa_cpu_nodes`, `numa_mem_policy`).
    pub numa: crate::Numa,
    /// I/O priority and nice value of the worker threads (`prio`, `prioclass`, `nice`).
    pub priority: crate::Priority,
    /// Per-I/O priorities (fio's `cmdprio*` options of libaio and io_uring).
    pub cmdprio: crate::CmdPrio,
    /// fio's strided zones (`zonemode=strided`), if any.
    pub zones: Option<StridedZones>,
    /// fio's `zonemode=zbd`: writes at the zones' write pointers, if asked.
    pub zbd: Option<crate::ZbdSpec>,
    /// Start only when every copy of the earlier job of this name has finished (fio's
    /// `wait_for`).
    pub wait_for: Option<String>,
    /// Repeat the job's work this many times (size-based jobs transfer `loops` × size).
    pub loops: u32,
    /// Block sizes other than the fixed `block_size` (fio's `bsrange`, `bssplit`); per
    /// direction. `block_size` then holds the largest.
    pub block_dist: [BlockDist; Direction::COUNT],
    /// Where random offsets fall (fio's `random_distribution`).
    pub distribution: RandomDistribution,
    /// How fast the job may and must go (fio's `rate`, `rate_iops`, `rate_min`, ...).
    pub rate: crate::Rate,
    /// Pauses between I/Os (fio's `thinktime`).
    pub think: crate::Think,
    /// Split each I/O's latency at the kernel's block request events into submit, device
    /// and completion (iolab's `lat_split`); the run goes on without it where the kernel
    /// cannot say.
    pub lat_split: bool,
    /// Where each split I/O goes, one line per I/O (iolab's `write_split_log`): the prefix
    /// of `<prefix>_split.<job number>.log`. Implies `lat_split`.
    pub split_log: Option<String>,
    /// The directory the job's files are named in (fio's `directory`): it must exist, as
    /// fio requires; missing directories below it are created with the files.
    pub directory: Option<PathBuf>,
    /// End the job (or its reporting group) once it reaches steady state (fio's `ss`).
    pub steady: crate::SteadyState,
    /// Search for the deepest queue that meets a latency target (fio's `latency_target`).
    pub lat_target: crate::LatTarget,
    /// fsync the file after every this many writes (fio's `fsync`); 0: never.
    pub fsync_every: u32,
    /// fio's `do_verify` as given (default 1), with or without `verify`: besides reading
    /// back, it decides whether fio starts a done file over for another pass
    /// (`reset_io_counters()`).
    pub do_verify: bool,
    /// fdatasync the file after every this many writes (fio's `fdatasync`); 0: never.
    pub fdatasync_every: u32,
    /// `sync_file_range(2)` every this many writes, with these flags (fio's
    /// `sync_file_range=FLAGS:N`; 0: never).
    pub sync_file_range: (u32, u32),
    /// fsync the file once when the job ends (fio's `end_fsync`).
    pub end_fsync: bool,
    /// syncfs(2) each filesystem of the job's files once when the job ends (fio 3.42's
    /// `end_syncfs`): one call a filesystem instead of an fsync a file.
    pub end_syncfs: bool,
    /// The name the job's threads take (fio 3.42's `comm`, prctl(PR_SET_NAME); the kernel
    /// keeps 15 bytes), as `top` and `ps -L` show them.
    pub comm: Option<String>,
    /// The control group the job's thread joins for its I/O (fio's `cgroup` options).
    pub cgroup: crate::Cgroup,
    /// The `clock_gettime` clock the job's start time is read from for the JSON's `job_start`
    /// (fio 3.42's `job_start_clock_id`; 0, `CLOCK_REALTIME`, by default).
    pub start_clock: i32,
    /// The file type the user says every file is (fio 3.42's `filetype`); checked against
    /// each file before anything is written.
    pub filetype: Option<FileType>,
    /// Drop the target region's page cache when the job opens its files (fio's `invalidate`,
    /// default on): `posix_fadvise(DONTNEED)` on files, `BLKFLSBUF` on block devices, so a
    /// buffered read job reads the device, not what an earlier write left in memory.
    pub invalidate: bool,
    pub fadvise_hint: FadviseHint,
    pub rw_reporting: RwReporting,
    pub buffers: BufferContent,
    pub logs: LogSpec,
    /// Summarise latency (p50/p99/p99.99/max) per window of this length as well as over the
    /// whole run: latency over time, for consistency runs.
    pub latency_window: Option<Duration>,
    /// Bandwidth and IOPS are averaged over these many ms (fio's `bwavgtime`,
    /// `iopsavgtime`; 500 each by default).
    pub avg_ms: [u32; 2],
    /// Check what is read back (fio's `verify`): writes carry headers and checksums, reads
    /// are checked, and a write job reads its blocks back when its writes are done.
    pub verify: Option<crate::Verify>,
    /// How the files are made, opened and left (fio's file-setup options).
    pub files: crate::FileSetup,
    /// What runs around the job's I/O and when it gives up.
    pub control: crate::JobControl,
    /// Where the I/O buffers live (fio's `mem`, `mem_align`, `hugepage-size`).
    pub memory: iolab_engine::memory::Memory,
    /// Issue a recorded stream instead of drawing offsets (fio's `read_iolog`).
    pub replay: Option<crate::Replay>,
}

impl JobSpec {
    /// A job with fio's defaults: psync, sequential read, 4 KiB, QD1, buffered.
    pub fn new(name: impl Into<String>, filename: impl Into<PathBuf>) -> JobSpec {
        JobSpec {
            name: name.into(),
            clone_name: None,
            description: String::new(),
            filename: filename.into(),
            extra_files: Vec::new(),
            file_service: FileService::RoundRobin(1),
            file_window: None,
            engine: EngineConfig::new(EngineKind::Psync),
            direct: false,
            pattern: Pattern::Sequential,
            seq_add: 0,
            random_every: 1,
            percentage_random: [100; Direction::COUNT],
            rw_identical: false,
            read_percent: 100,
            trim: TrimMix::None,
            block_size: [4096; Direction::COUNT],
            block_align: None,
            iodepth: 1,
            iodepth_low: 0,
            serialize_overlap: false,
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            size: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            offset_align: None,
            io_size: None,
            number_ios: None,
            time_based: false,
            runtime: None,
            ramp_time: Duration::ZERO,
            ramp_bytes: 0,
            numjobs: 1,
            cpus_allowed: None,
            cpus_split: false,
            random_map: true,
            seed: 0x89,
            fio_order: false,
            generator: Generator::Tausworthe,
            seed_rule: SeedRule::default(),
            percentiles: DEFAULT_PERCENTILES.to_vec(),
            clat_percentiles: true,
            slat_percentiles: false,
            lat_percentiles: false,
            group_reporting: false,
            recorded: Recorded::default(),
            numbers: iolab_results::NumberStyle::default(),
            stonewall: false,
            new_group: false,
            start_delay: Duration::ZERO,
            flow: FlowSpec::default(),
            exitall: false,
            exit_what: ExitWhat::Group,
            numa: crate::Numa::default(),
            priority: crate::Priority::default(),
            cmdprio: crate::CmdPrio::default(),
            zones: None,
            zbd: None,
            wait_for: None,
            loops: 1,
            block_dist: [BlockDist::Fixed, BlockDist::Fixed, BlockDist::Fixed],
            distribution: RandomDistribution::Uniform,
            rate: crate::Rate::default(),
            lat_split: false,
            split_log: None,
            think: crate::Think::default(),
            directory: None,
            steady: crate::SteadyState::default(),
            lat_target: crate::LatTarget::default(),
            fsync_every: 0,
            do_verify: true,
            fdatasync_every: 0,
            sync_file_range: (0, 0),
            end_fsync: false,
            end_syncfs: false,
            comm: None,
            cgroup: crate::Cgroup::default(),
            start_clock: 0,
            filetype: None,
            invalidate: true,
            fadvise_hint: FadviseHint::Type,
            rw_reporting: RwReporting::Separate,
            buffers: BufferContent::default(),
            logs: LogSpec::default(),
            latency_window: None,
            avg_ms: [500, 500],
            verify: None,
            files: crate::FileSetup::default(),
            control: crate::JobControl::default(),
            memory: iolab_engine::memory::Memory::default(),
            replay: None,
        }
    }

    /// fio's name for the job's pattern and mix (`randread`, `rw`, ...).
    pub fn rw_name(&self) -> &'static str {
        match (self.pattern, self.trim) {
            (Pattern::Sequential, TrimMix::Only) => return "trim",
            (Pattern::Random, TrimMix::Only) => return "randtrim",
            (Pattern::Sequential, TrimMix::ThenWrite) => return "trimwrite",
            (Pattern::Random, TrimMix::ThenWrite) => return "randtrimwrite",
            (_, TrimMix::None) => {}
        }
        match (self.pattern, self.read_percent) {
            (Pattern::Sequential, 100) => "read",
            (Pattern::Sequential, 0) => "write",
            (Pattern::Sequential, _) => "rw",
            (Pattern::Random, 100) => "randread",
            (Pattern::Random, 0) => "randwrite",
            (Pattern::Random, _) => "randrw",
        }
    }

    /// The job as its results describe it.
    /// How the job's bandwidth and IOPS are sampled (see [`iolab_results::Sampling`]).
    pub fn sampling(&self) -> iolab_results::Sampling {
        iolab_results::Sampling::for_averages(self.avg_ms[0], self.avg_ms[1])
    }

    pub fn setup(&self) -> iolab_results::JobSetup {
        self.setup_of_copy(0)
    }

    /// [`Self::setup`] for copy `copy` (0-based) of a `numjobs` job: the clones carry
    /// [`Self::clone_name`] where the job has one.
    pub fn setup_of_copy(&self, copy: u32) -> iolab_results::JobSetup {
        let name = match (&self.clone_name, copy) {
            (Some(c), 1..) => c.clone(),
            _ => self.name.clone(),
        };
        iolab_results::JobSetup {
            name,
            description: self.description.clone(),
            engine: self.engine.label(),
            synchronous: self.engine.kind.is_synchronous(),
            iodepth: self.effective_iodepth(),
            rw: self.rw_name().to_string(),
            block_size: self.max_block_size(),
            files: self.files().cloned().collect(),
            percentiles: self.percentiles.clone(),
            clat_percentiles: self.clat_percentiles,
            lat_percentiles: self.lat_percentiles,
            slat_percentiles: self.slat_percentiles,
            recorded: self.recorded,
            rw_reporting: self.rw_reporting,
            latency_window_ms: self.latency_window.map(|w| w.as_millis() as u64),
            stonewall: self.stonewall,
            write_buffers: self.writes().then(|| self.buffers.describe()),
            logs: self.logs.clone(),
            numbers: self.numbers,
        }
    }

    /// Every file the job uses: `filename`, then `extra_files`.
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.filename).chain(&self.extra_files)
    }

    /// This job as seen from each of its files, in [`JobSpec::files`] order: that file as
    /// `filename`, and its even share of `size`. The copies carry none of the other files'
    /// names: a job of 500,000 files copied whole per file is 500,000² names.
    pub fn per_file(&self) -> impl Iterator<Item = JobSpec> + '_ {
        let n = 1 + self.extra_files.len() as u64;
        let mut base = JobSpec {
            extra_files: Vec::new(),
            ..self.clone()
        };
        base.size = self.size.map(|s| match s {
            SizeSpec::Bytes(b) => SizeSpec::Bytes(b / n),
            p => p,
        });
        self.files().map(move |f| JobSpec {
            filename: f.clone(),
            ..base.clone()
        })
    }

    /// Whether a direction's block size varies from I/O to I/O (`bsrange`, `bssplit`).
    pub fn size_varies(&self, d: Direction) -> bool {
        self.block_dist[d.index()] != BlockDist::Fixed
    }

    /// The smallest block size a direction uses.
    pub fn min_block_size(&self, d: Direction) -> u32 {
        self.block_dist[d.index()]
            .min()
            .unwrap_or(self.block_size[d.index()])
    }

    /// Every block size a direction may use (for alignment checks).
    pub fn block_sizes(&self, d: Direction) -> Vec<u32> {
        match &self.block_dist[d.index()] {
            BlockDist::Fixed => vec![self.block_size[d.index()]],
            BlockDist::Range { min } => vec![*min, self.block_size[d.index()]],
            // Any size between: one past the smallest stands for the sizes that are not
            // multiples of it (direct I/O refuses them, as the device would).
            BlockDist::Unaligned { min } => {
                let max = self.block_size[d.index()];
                let mut v = vec![*min, max];
                if *min < max {
                    v.push(min + 1);
                }
                v
            }
            BlockDist::Split(v) => v.iter().map(|(bs, _)| *bs).collect(),
        }
    }

    pub fn reads(&self) -> bool {
        self.trim == TrimMix::None && self.read_percent > 0
    }

    /// Whether overlapping I/Os are kept apart in flight: asked for, and fio would not drop
    /// it (a job that only reads, at depth 1, needs no check; a replayed log may overlap).
    /// The option that paces or holds I/O besides an open-loop schedule, if the job has one:
    /// an open loop issues each I/O at its due time and nothing else may delay it.
    pub fn unfit_for_open_loop(&self) -> Option<&'static str> {
        if !self.rate.open_loop {
            return None;
        }
        let others = [
            (self.lat_target.on(), "latency_target"),
            (self.replay.is_some(), "read_iolog"),
            (!self.think.time.is_zero(), "thinktime"),
            (self.verify.is_some(), "verify"),
            (self.fsync_every > 0, "fsync"),
            (self.fdatasync_every > 0, "fdatasync"),
            (self.sync_file_range.0 > 0, "sync_file_range"),
            (self.flow.weight > 0, "flow"),
            // Emptied between loops once what is in flight finishes: the open loop never
            // waits for that.
            (
                self.files.unlink_each_loop && self.loops > 1,
                "unlink_each_loop with loops",
            ),
            (self.serializes_overlap(), "serialize_overlap"),
            (self.files.lock != crate::FileLock::None, "lockfile"),
            (
                self.iodepth_low > 0 && self.iodepth_low < self.iodepth,
                "iodepth_low",
            ),
        ];
        others.iter().find(|(on, _)| *on).map(|(_, name)| *name)
    }

    pub fn serializes_overlap(&self) -> bool {
        self.serialize_overlap
            && self.iodepth > 1
            && (self.writes() || self.trims() || self.replay.is_some())
    }

    pub fn writes(&self) -> bool {
        match self.trim {
            TrimMix::None => self.read_percent < 100,
            TrimMix::Only => false,
            TrimMix::ThenWrite => true,
        }
    }

    pub fn trims(&self) -> bool {
        self.trim != TrimMix::None
    }

    /// Whether the job changes the target's data: it writes or trims, and not `verify_only`
    /// (which reads where the writes would go).
    pub fn writes_data(&self) -> bool {
        self.trims() || (self.writes() && !self.verify.as_ref().is_some_and(|v| v.only))
    }

    /// The directions this job issues.
    pub fn directions(&self) -> impl Iterator<Item = Direction> + '_ {
        Direction::ALL.into_iter().filter(|d| match d {
            Direction::Read => self.reads(),
            Direction::Write => self.writes(),
            Direction::Trim => self.trims(),
        })
    }

    /// The largest block size any of its directions uses (buffers are this big).
    pub fn max_block_size(&self) -> u32 {
        self.directions()
            .map(|d| self.block_size[d.index()])
            .max()
            .unwrap_or(self.block_size[0])
    }

    /// I/Os per submit call: `iodepth_batch_submit`, with 0 (or more than the depth) meaning
    /// the whole depth, as fio fixes it up.
    pub fn effective_batch_submit(&self) -> u32 {
        let depth = self.effective_iodepth();
        match self.iodepth_batch_submit {
            0 => depth,
            b => b.min(depth),
        }
    }

    /// (fewest, most) completions per reap, as fio fixes them up: the most is at least the
    /// fewest; both within 1..=iodepth (iolab reaps only when it must wait, so at least one).
    pub fn effective_batch_complete(&self) -> (u32, u32) {
        let depth = self.effective_iodepth();
        let min = self.iodepth_batch_complete_min.clamp(1, depth);
        let max = self.iodepth_batch_complete_max.max(min).min(depth);
        (min, max)
    }

    /// Queue depth the engine really gets: synchronous engines are always at 1.
    pub fn effective_iodepth(&self) -> u32 {
        if self.engine.kind.is_synchronous() {
            1
        } else {
            self.iodepth
        }
    }

    /// Checks everything that can be checked without looking at the target.
    pub fn validate(&self) -> Result<(), JobError> {
        self.validate_shape()?;
        self.validate_pattern()?;
        self.validate_extent()?;
        if self.ramp_bytes > 0 && !self.ramp_time.is_zero() {
            let why = "give ramp_time or ramp_size, not both (fio 3.42 refuses both too)";
            return Err(JobError::invalid("ramp_size", self.ramp_bytes, why));
        }
        if self.ramp_bytes > 0 && self.group_reporting {
            let why = "with group_reporting fio 3.42 counts the group's bytes together; iolab counts each job copy's, so it refuses the two together";
            return Err(JobError::invalid("ramp_size", self.ramp_bytes, why));
        }
        if let Some(why) = self.engine.options.placement.unfit() {
            return Err(JobError::invalid("dataplacement", "set", why));
        }
        if self.engine.options.placement.on() && self.engine.kind != EngineKind::IoUringCmd {
            let why = "data placement goes on NVMe write commands: ioengine=io_uring_cmd (fio 3.42 also takes xnvme, which iolab does not have)";
            return Err(JobError::invalid(
                "dataplacement",
                self.engine.kind.name(),
                why,
            ));
        }
        if let Some(why) = self.steady.unfit() {
            return Err(JobError::invalid(
                "ss_interval",
                format!("{}s", self.steady.interval_s),
                why,
            ));
        }
        if let Some(p) = self
            .percentiles
            .iter()
            .find(|p| !(**p > 0.0 && **p <= 100.0))
        {
            return Err(JobError::invalid(
                "percentile_list",
                p,
                "each percentile must be in (0, 100]",
            ));
        }
        Ok(())
    }

    /// Name, target, depth, block sizes and copies.
    fn validate_shape(&self) -> Result<(), JobError> {
        if self.name.is_empty() {
            return Err(JobError::invalid("name", "", "a job needs a name"));
        }
        if self.filename.as_os_str().is_empty() {
            let why = "a job needs a target file or device";
            return Err(JobError::invalid("filename", "", why));
        }
        if self.iodepth == 0 {
            return Err(JobError::invalid("iodepth", 0, "must be at least 1"));
        }
        if self.iodepth > 65536 {
            return Err(JobError::invalid(
                "iodepth",
                self.iodepth,
                "must be at most 65536",
            ));
        }
        if self.directions().any(|d| self.block_size[d.index()] == 0) {
            return Err(JobError::invalid("bs", 0, "must be at least 1 byte"));
        }
        if self.block_align == Some(0) {
            return Err(JobError::invalid(
                "blockalign",
                0,
                "must be at least 1 byte",
            ));
        }
        if self.trims() && self.engine.kind == EngineKind::IoUringCmd {
            let why = "the io_uring_cmd engine cannot trim yet (fio 3.33's cannot either)";
            return Err(JobError::invalid("rw", self.rw_name(), why));
        }
        let engine = self.engine.kind.def();
        if let Some(d) = self.directions().find(|d| !engine.directions.contains(d)) {
            let why = format!("ioengine={} cannot do {}s", engine.name, d.name());
            return Err(JobError::invalid("rw", self.rw_name(), why));
        }
        if self.files.append && !engine.extends_files {
            let why = format!(
                "ioengine={} cannot grow a file (fio refuses it too)",
                engine.name
            );
            return Err(JobError::invalid("file_append", 1, why));
        }
        if self.verify.is_some() && !engine.moves_data {
            let why = format!(
                "ioengine={} moves no data, so there is nothing to verify",
                engine.name
            );
            return Err(JobError::invalid("verify", "set", why));
        }
        if self.trims() && self.verify.is_some() {
            let why = "verify of a trim workload is not supported by iolab yet";
            return Err(JobError::invalid("rw", self.rw_name(), why));
        }
        if self.loops == 0 {
            return Err(JobError::invalid("loops", 0, "must be at least 1"));
        }
        if self.numjobs == 0 {
            return Err(JobError::invalid("numjobs", 0, "must be at least 1"));
        }
        Ok(())
    }

    /// The mix, the random distribution, the rate and the write buffers.
    fn validate_pattern(&self) -> Result<(), JobError> {
        if self.read_percent > 100 {
            let why = "must be between 0 and 100";
            return Err(JobError::invalid("rwmixread", self.read_percent, why));
        }
        match self.distribution {
            RandomDistribution::Zipf(t) if t.is_nan() || t <= 0.0 || t == 1.0 => {
                return Err(JobError::invalid(
                    "random_distribution",
                    format!("zipf:{t}"),
                    "zipf's theta must be above 0 and not 1",
                ));
            }
            RandomDistribution::Pareto(h) if !(h > 0.0 && h < 1.0) => {
                return Err(JobError::invalid(
                    "random_distribution",
                    format!("pareto:{h}"),
                    "pareto's h must be between 0 and 1",
                ));
            }
            _ => {}
        }
        self.rate.check()?;
        if let Some(other) = self.unfit_for_open_loop() {
            return Err(JobError::invalid(
                "rate_open_loop",
                1,
                format!("not with {other}: the schedule alone sets when I/O goes"),
            ));
        }
        if self.lat_split && !self.recorded.lat {
            return Err(JobError::invalid(
                "lat_split",
                1,
                "not with disable_lat or gtod_reduce: the split cuts each I/O's lat in parts",
            ));
        }
        if self.buffers.compress_percent > 100 {
            return Err(JobError::invalid(
                "buffer_compress_percentage",
                self.buffers.compress_percent,
                "must be between 0 and 100",
            ));
        }
        let files = 1 + self.extra_files.len();
        if let Some(why) = self.buffers.dedupe.unfit(files, self.size.is_some()) {
            return Err(JobError::invalid("dedupe_mode", "working_set", why));
        }
        Ok(())
    }

    /// How long and how much: runtime, size and offset.
    fn validate_extent(&self) -> Result<(), JobError> {
        if self.time_based && self.runtime.is_none() {
            let why = "needs runtime to say how long to run";
            return Err(JobError::invalid("time_based", 1, why));
        }
        if self.runtime == Some(Duration::ZERO) {
            return Err(JobError::invalid("runtime", 0, "must be longer than zero"));
        }
        if let Some(SizeSpec::Bytes(0)) = self.size {
            return Err(JobError::invalid("size", 0, "must be more than zero bytes"));
        }
        for (opt, s) in [("size", self.size), ("offset", Some(self.offset))] {
            if let Some(SizeSpec::Percent(p)) = s {
                if !(0.0..=100.0).contains(&p) || (opt == "size" && p == 0.0) {
                    return Err(JobError::invalid(
                        opt,
                        format!("{p}%"),
                        "a percentage must be in (0, 100]",
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate() {
        JobSpec::new("j", "/tmp/x").validate().unwrap();
    }

    #[test]
    fn each_bad_setting_is_named() {
        let base = JobSpec::new("j", "/tmp/x");
        type Breaker = Box<dyn Fn(&mut JobSpec)>;
        let cases: Vec<(&str, Breaker)> = vec![
            ("iodepth", Box::new(|j| j.iodepth = 0)),
            ("bs", Box::new(|j| j.block_size = [0; 3])),
            ("numjobs", Box::new(|j| j.numjobs = 0)),
            ("loops", Box::new(|j| j.loops = 0)),
            ("rwmixread", Box::new(|j| j.read_percent = 101)),
            ("time_based", Box::new(|j| j.time_based = true)),
            ("size", Box::new(|j| j.size = Some(SizeSpec::Bytes(0)))),
            ("percentile_list", Box::new(|j| j.percentiles = vec![0.0])),
            ("blockalign", Box::new(|j| j.block_align = Some(0))),
        ];
        for (opt, f) in cases {
            let mut j = base.clone();
            f(&mut j);
            let e = j.validate().unwrap_err().to_string();
            assert!(e.starts_with(opt), "{opt}: {e}");
        }
    }

    #[test]
    fn sync_engines_run_at_depth_one() {
        let mut j = JobSpec::new("j", "/tmp/x");
        j.iodepth = 32;
        assert_eq!(j.effective_iodepth(), 1);
        j.engine = EngineConfig::new(EngineKind::IoUring);
        assert_eq!(j.effective_iodepth(), 32);
    }

    #[test]
    fn directions_follow_the_mix() {
        let mut j = JobSpec::new("j", "/tmp/x");
        assert_eq!(j.directions().collect::<Vec<_>>(), vec![Direction::Read]);
        j.read_percent = 0;
        assert_eq!(j.directions().collect::<Vec<_>>(), vec![Direction::Write]);
        j.read_percent = 70;
        j.block_size = [4096, 65536, 4096];
        assert_eq!(j.directions().count(), 2);
        assert_eq!(j.max_block_size(), 65536);
        j.trim = TrimMix::Only;
        assert_eq!(j.directions().collect::<Vec<_>>(), vec![Direction::Trim]);
        assert!(j.writes_data() && !j.writes());
        j.trim = TrimMix::ThenWrite;
        let both = vec![Direction::Write, Direction::Trim];
        assert_eq!(j.directions().collect::<Vec<_>>(), both);
        assert_eq!(j.rw_name(), "trimwrite");
    }
}
