//! The option table: one entry per fio option iolab understands, with its fio meaning, its
//! value type and how it sets the job. The command line (and, later, job files) look options
//! up here; `--help` and the README's option table are generated from it.
//!
//! The table is split by topic: the general options here, the others in one file each
//! (verify, cmdprio, zones, ...), each exporting its own table; [`all`] chains them.

pub mod base;
pub mod cmdprio;
pub mod control;
pub mod cpu;
pub mod defrag;
pub mod files;
pub mod known;
pub mod lat_target;
pub mod load;
pub mod logs;
pub mod memory;
pub mod noio;
pub mod pattern;
pub mod placement;
pub mod process;
pub mod profile;
pub mod protection;
pub mod replay;
pub mod report;
pub mod run;
pub mod rwflags;
pub mod split;
pub mod steady;
pub mod submit;
pub mod verify;
pub mod zone;

use iolab_engine::{Direction, EngineKind};
use iolab_job::{
    BlockDist, CpuSet, DedupeMode, ExitWhat, FadviseHint, FileService, JobSpec, MemPolicy, Pattern,
    RandomDistribution, RwReporting, SizeSpec, TrimMix,
};

use crate::units::{
    parse_bool, parse_size, parse_size_or_percent, parse_time, parse_time_us, parse_u32,
    SizeOrPercent,
};

/// The kind of value an option takes, for help text and for bare `--flag` handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Str,
    Size,
    Time,
    Bool,
    Int,
    List,
}

impl ValueKind {
    pub fn label(self) -> &'static str {
        match self {
            ValueKind::Str => "str",
            ValueKind::Size => "size",
            ValueKind::Time => "time",
            ValueKind::Bool => "bool",
            ValueKind::Int => "int",
            ValueKind::List => "list",
        }
    }
}

/// fio's `rw=` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    ReadWrite,
    RandRw,
    Trim,
    RandTrim,
    TrimWrite,
    RandTrimWrite,
}

/// A job being built from options: the job model plus what fio keeps separately until the
/// end (`rw` and `rwmixread` combine into the pattern and read share), and the options as the
/// user wrote them (fio's JSON repeats them under "job options").
#[derive(Debug, Clone)]
pub struct JobDraft {
    pub spec: JobSpec,
    pub rw: Rw,
    pub rwmixread: Option<u32>,
    pub bs_set: bool,
    /// `randrepeat` (default 1) and whether `randseed` was given: with randrepeat=0 and no
    /// seed, the seed comes from the clock, so runs differ (fio's meaning).
    pub randrepeat: bool,
    pub randseed_set: bool,
    /// `filename` as given (None: fio's default name per job copy, `NAME.COPY.0`).
    pub filename: Option<String>,
    /// `directory`: where files named relatively (or by default) live.
    pub directory: Option<String>,
    pub set_options: Vec<(String, String)>,
    /// Engine options given (`hipri`, `fixedbufs`, ...), checked against the engine at the end.
    pub engine_options: Vec<&'static str>,
    /// `verify` and its companions, resolved when the job is finished.
    pub verify: crate::options::verify::VerifyDraft,
    /// `cmdprio*`, resolved when the job is finished.
    pub cmdprio: crate::options::cmdprio::CmdPrioDraft,
    /// `filesize`: the file's size, making `size` the bytes to transfer (resolved at the end).
    pub filesize: Option<u64>,
    /// `zonemode` and its companions, resolved when the job is finished.
    pub zones: crate::options::zone::ZoneDraft,
    /// `nrfiles`: files per job copy when no `filename` names them (fio's `NAME.COPY.FILE`).
    pub nrfiles: u32,
    /// `openfiles`, checked against the number of files at the end.
    pub openfiles: Option<u32>,
    /// `filename_format`: how default file names are made (None: `$jobname.$jobnum.$filenum`).
    pub filename_format: Option<String>,
    /// `kb_base`: 1024 (fio's default) or 1000, how the job's sizes are read.
    pub kb_base: u64,
    /// `allrandrepeat`: the seed is fixed whatever `randrepeat` and `randseed` say.
    pub allrandrepeat: bool,
    /// `log_unix_epoch` / `log_alternate_epoch`, and the clock they name
    /// (`log_alternate_epoch_clock_id`, default 0: `CLOCK_REALTIME`).
    pub log_epoch: [bool; 2],
    pub log_epoch_clock: i32,
    /// `bs_unaligned`: `bsrange` sizes need not be multiples of the smallest.
    pub bs_unaligned: bool,
    /// `read_iolog` and the `replay_*` options.
    pub replay: replay::ReplayDraft,
    /// `continue_on_error` (bits: read, write, verify) and `ignore_error`'s lists.
    pub continue_on_error: u8,
    pub ignore_error: [Option<Vec<i32>>; 3],
    /// `io_submit_mode=offload`, resolved when the job is finished (it needs the rate).
    pub offload: bool,
    /// Every option in force, from any section or the command line, each at its last
    /// setting (a bare flag's value `None`): what reruns the same job.
    pub applied: Vec<(String, Option<String>)>,
}

/// fio's `file_service_type` values iolab has (the zipf, pareto and normal choices are not).
fn parse_file_service(v: &str) -> Result<FileService, String> {
    let (kind, n) = match v.trim().split_once(':') {
        Some((k, n)) => (k, Some(parse_u32(n)?.max(1))),
        None => (v.trim(), None),
    };
    match kind {
        "roundrobin" => Ok(FileService::RoundRobin(n.unwrap_or(1))),
        "sequential" => Ok(FileService::Sequential),
        "random" => Ok(FileService::Random(n.unwrap_or(1))),
        "zipf" | "pareto" | "normal" | "gauss" => {
            Err(format!("{kind} is not supported by iolab yet"))
        }
        _ => Err(format!("'{v}' is not roundrobin, sequential or random")),
    }
}

/// How options are read in this parse: fio's `--debug=parse` (each option said on stderr as
/// it is applied) and `--warnings-fatal` (an option accepted only to be ignored is an error).
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseFlags {
    pub debug_parse: bool,
    pub warnings_fatal: bool,
}

thread_local! {
    static PARSE_FLAGS: std::cell::Cell<ParseFlags> = const {
        std::cell::Cell::new(ParseFlags { debug_parse: false, warnings_fatal: false })
    };
}

/// Puts the flags back as they were when dropped.
pub struct ParseFlagsGuard(ParseFlags);

impl Drop for ParseFlagsGuard {
    fn drop(&mut self) {
        PARSE_FLAGS.with(|f| f.set(self.0));
    }
}

impl ParseFlags {
    /// In force on this thread until the guard drops.
    pub fn set(self) -> ParseFlagsGuard {
        ParseFlagsGuard(PARSE_FLAGS.with(|f| f.replace(self)))
    }
}

/// fio's `--debug=parse` lines for one option: the option and its value, and for a number
/// what it was read as (`ret=0, out=4096`), as fio prints them.
fn debug_parse(def: &OptionDef, v: &str, kb_base: u64) {
    eprintln!("parse    handle_option={}, ptr={v}", def.name);
    if matches!(def.kind, ValueKind::Size | ValueKind::Int) {
        if let Ok(n) = crate::units::with_kb_base(kb_base, || parse_size(v)) {
            eprintln!("parse      ret=0, out={n}");
        }
    }
}

/// The log options that may be given bare, meaning "named after the job" (as fio).
const BARE_LOG_OPTIONS: [&str; 3] = ["write_lat_log", "write_iops_log", "write_bw_log"];

impl JobDraft {
    pub fn new(name: &str) -> JobDraft {
        JobDraft {
            spec: JobSpec::new(name, ""),
            rw: Rw::Read,
            rwmixread: None,
            bs_set: false,
            randrepeat: true,
            randseed_set: false,
            filename: None,
            directory: None,
            set_options: Vec::new(),
            engine_options: Vec::new(),
            verify: Default::default(),
            cmdprio: Default::default(),
            filesize: None,
            zones: Default::default(),
            nrfiles: 1,
            openfiles: None,
            filename_format: None,
            kb_base: 1024,
            allrandrepeat: false,
            log_epoch: [false; 2],
            log_epoch_clock: 0,
            bs_unaligned: false,
            replay: Default::default(),
            continue_on_error: 0,
            ignore_error: Default::default(),
            offload: false,
            applied: Vec::new(),
        }
    }

    /// Applies one option by name; `value` is `None` for a bare `--flag`.
    pub fn apply(&mut self, name: &str, value: Option<&str>) -> Result<(), crate::FioError> {
        let def = find(name)
            .ok_or_else(|| crate::options::known::unknown_or_unsupported(name, names()))?;
        let v = match (value, def.kind) {
            (Some(v), _) => v,
            (None, ValueKind::Bool) => "1",
            // fio names a bare log after the job (`JOBNAME_bw.N.log`): resolved at the end.
            (None, _) if BARE_LOG_OPTIONS.contains(&def.name) => "",
            (None, _) => return Err(crate::FioError::MissingValue(def.name.to_string())),
        };
        let flags = PARSE_FLAGS.with(|f| f.get());
        if flags.debug_parse {
            debug_parse(def, v, self.kb_base);
        }
        if flags.warnings_fatal && def.help.starts_with(crate::options::known::IGNORED_PREFIX) {
            return Err(crate::FioError::BadValue {
                name: def.name.to_string(),
                value: v.to_string(),
                reason: format!(
                    "{} (--warnings-fatal: an option read only to be ignored is an error)",
                    def.help
                ),
            });
        }
        crate::units::with_kb_base(self.kb_base, || (def.apply)(self, v)).map_err(|reason| {
            crate::FioError::BadValue {
                name: def.name.to_string(),
                value: v.to_string(),
                reason,
            }
        })?;
        if iolab_engine::engine_option(def.name) && !self.engine_options.contains(&def.name) {
            self.engine_options.push(def.name);
        }
        self.applied.retain(|(k, _)| k != def.name);
        self.applied
            .push((def.name.to_string(), value.map(str::to_string)));
        self.set_options.retain(|(k, _)| k != def.name);
        // fio's JSON lists options given with a value; a bare flag (`stonewall`) is left out.
        if value.is_some() {
            self.set_options.push((def.name.to_string(), v.to_string()));
        }
        Ok(())
    }

    /// The finished jobs, validated: one, or, when no `filename` was given, one per copy
    /// (`numjobs`), each on its own file named as fio names it (`NAME.COPY.0` in
    /// `directory`). Reporting is unchanged: copies of a job are reported the same way
    /// whether they share a file or not.
    pub fn finish_all(mut self) -> Result<Vec<JobSpec>, crate::FioError> {
        self.apply_replay()
            .map_err(|reason| crate::FioError::BadValue {
                name: "read_iolog".into(),
                value: self.replay.path.clone().unwrap_or_default(),
                reason,
            })?;
        let dir = self.directory.clone();
        self.spec.directory = dir.as_ref().map(Into::into);
        // fio puts `directory` before every name, absolute ones too (`add_file()`).
        let place = |name: &str| -> std::path::PathBuf {
            match &dir {
                Some(d) => format!("{}/{name}", d.trim_end_matches('/')).into(),
                None => name.into(),
            }
        };
        match self.filename.clone() {
            // The spdk engine's name is one transport id, its PCI address spelled with ':' or
            // with the '.' SPDK's fio plugin uses against fio's split; no directory before it.
            Some(f) if self.spec.engine.kind == EngineKind::Spdk => {
                self.spec.filename = f.trim().into();
                Ok(vec![self.finish()?])
            }
            Some(f) => {
                // fio's list separator is ':'; `\:` is a colon inside a name.
                let names: Vec<String> = f
                    .replace("\\:", "\u{0}")
                    .split(':')
                    .filter(|n| !n.is_empty())
                    .map(|n| n.replace('\u{0}', ":"))
                    .collect();
                let Some((first, rest)) = names.split_first() else {
                    return Err(crate::FioError::BadValue {
                        name: "filename".into(),
                        value: f,
                        reason: "names no file".into(),
                    });
                };
                self.spec.filename = place(first);
                self.spec.extra_files = rest.iter().map(|n| place(n)).collect();
                Ok(vec![self.finish()?])
            }
            None => {
                let copies = self.spec.numjobs.max(1);
                let name = self.spec.name.clone();
                if name.contains('/') && self.filename_format.is_none() {
                    return Err(crate::FioError::BadValue {
                        name: "name".into(),
                        value: name,
                        reason: "names the job's default file (NAME.COPY.0), so it cannot \
                                 contain '/'; give filename= or directory="
                            .into(),
                    });
                }
                if copies > MAX_NUMJOBS {
                    return Err(crate::FioError::BadValue {
                        name: "numjobs".into(),
                        value: copies.to_string(),
                        reason: format!("must be at most {MAX_NUMJOBS}"),
                    });
                }
                let files = self.nrfiles.max(1);
                let format = self
                    .filename_format
                    .clone()
                    .unwrap_or_else(|| "$jobname.$jobnum.$filenum".into());
                let file_name =
                    |copy: u32, f: u32| place(&files::format_filename(&format, &name, copy, f));
                let extra = |copy: u32| -> Vec<std::path::PathBuf> {
                    (1..files).map(|f| file_name(copy, f)).collect()
                };
                self.spec.filename = file_name(0, 0);
                self.spec.extra_files = extra(0);
                let base = self.finish()?;
                Ok((0..copies)
                    .map(|i| {
                        let mut s = base.clone();
                        s.numjobs = 1;
                        s.filename = file_name(i, 0);
                        s.extra_files = extra(i);
                        // Copies start together: only the first waits or starts a group.
                        if i > 0 {
                            s.stonewall = false;
                            s.new_group = false;
                        }
                        s
                    })
                    .collect())
            }
        }
    }

    /// Two options of this job that say opposite things (fio lets the later win; a job
    /// that sets both most likely meant something else).
    fn contradiction(&self) -> Option<String> {
        let get = |k: &str| {
            self.set_options
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        let truth = |v: &str| parse_bool(v).unwrap_or(false);
        if let (Some(d), Some(b)) = (get("direct"), get("buffered")) {
            if truth(d) == truth(b) {
                return Some(format!(
                    "direct={d} and buffered={b} contradict each other (buffered is the \
                     opposite of direct); give one"
                ));
            }
        }
        if let (Some(r), Some(w)) = (get("rwmixread"), get("rwmixwrite")) {
            let sum = parse_u32(r).unwrap_or(0) + parse_u32(w).unwrap_or(0);
            if sum != 100 {
                return Some(format!(
                    "rwmixread={r} and rwmixwrite={w} add up to {sum}, not 100; give one"
                ));
            }
        }
        None
    }

    /// An engine option the job's engine does not read is refused, as fio refuses it
    /// ("unrecognized option"): silently ignoring `fixedbufs` on psync would measure
    /// something else than asked.
    pub(crate) fn check_engine_options(&self) -> Result<(), crate::FioError> {
        let engine = self.spec.engine.kind.def();
        match self
            .engine_options
            .iter()
            .find(|o| !engine.options.contains(o))
        {
            None => Ok(()),
            Some(o) => {
                let owners: Vec<&str> = iolab_engine::ENGINES
                    .iter()
                    .filter(|d| d.options.contains(o))
                    .map(|d| d.name)
                    .collect();
                Err(crate::FioError::Usage(format!(
                    "option '{o}' belongs to ioengine {}, not to this job's {} (fio refuses it too)",
                    owners.join(" and "),
                    engine.name
                )))
            }
        }
    }

    /// `atomic=1` on an engine without atomic writes is refused, as fio 3.42 refuses it
    /// ("engine does not support atomic writes"); a job that does not write drops it, as
    /// fio does. The target's own limits are checked before layout (`iolab_runner`).
    fn check_atomic(&mut self) -> Result<(), crate::FioError> {
        let o = &mut self.spec.engine.options;
        if !o.atomic {
            return Ok(());
        }
        let engine = self.spec.engine.kind.name();
        if !crate::options::rwflags::ATOMIC_ENGINES.contains(&engine) {
            return Err(crate::FioError::Usage(format!(
                "atomic=1: ioengine {engine} does not support atomic writes (fio 3.42 sets \
                 RWF_ATOMIC with {} only)",
                crate::options::rwflags::ATOMIC_ENGINES.join(", ")
            )));
        }
        o.atomic = !matches!(self.rw, Rw::Read | Rw::RandRead | Rw::Trim | Rw::RandTrim);
        Ok(())
    }

    /// The finished job spec, validated (the filename set by the caller).
    /// fio's `filesize`: the file is that big, and a smaller `size` is the bytes to transfer
    /// (as `io_size`).
    fn apply_filesize(&mut self) -> Result<(), crate::FioError> {
        let Some(bytes) = self.filesize else {
            return Ok(());
        };
        // Every file is `filesize` long; `size` is split over the files evenly.
        let total = bytes.saturating_mul(1 + self.spec.extra_files.len() as u64);
        // fio caps size at the files' total (`setup_files()`): less than the files is the
        // bytes to transfer, more is the whole of them.
        if let (None, Some(SizeSpec::Bytes(size))) = (self.spec.io_size, self.spec.size) {
            if size < total {
                self.spec.io_size = Some(SizeSpec::Bytes(size));
            }
        }
        self.spec.size = Some(SizeSpec::Bytes(total));
        Ok(())
    }

    fn finish(mut self) -> Result<JobSpec, crate::FioError> {
        if let Some(c) = self.contradiction() {
            return Err(crate::FioError::Usage(c));
        }
        self.apply_filesize()?;
        let files = 1 + self.spec.extra_files.len() as u32;
        // A file-operation engine works on each file's name, not on a descriptor held open
        // (fio's filecreate example sets openfiles=1 to stay within ulimit -n), so openfiles
        // changes nothing it measures.
        let holds_files = self.spec.engine.kind.def().file_op.is_none();
        if !holds_files {
            // fio's file-operation engines (FIO_NOSTATS): the engine times each operation
            // into clat, unless disable_lat; no lat, slat or latency shares.
            let r = &mut self.spec.recorded;
            (r.clat, r.lat, r.slat, r.buckets) = (r.lat, false, false, false);
        }
        if holds_files && self.openfiles.is_some_and(|n| n < files) {
            return Err(crate::FioError::Unsupported(
                "openfiles (fewer open files than the job has)".into(),
            ));
        }
        self.check_engine_options()?;
        self.check_atomic()?;
        let logs = &self.spec.logs;
        if logs.issue_time && (logs.lat.is_none() || !logs.offset) {
            return Err(crate::FioError::Usage(
                "log_issue_time needs write_lat_log and log_offset (fio 3.42 refuses it too)"
                    .into(),
            ));
        }
        if logs.store_compressed && logs.hist.is_some() {
            return Err(crate::FioError::Unsupported(
                "log_store_compressed with write_hist_log (iolab stores histogram logs as text only)"
                    .into(),
            ));
        }
        self.apply_noio()?;
        self.apply_defrag()?;
        let (pattern, read, trim) = match self.rw {
            Rw::Read => (Pattern::Sequential, 100, TrimMix::None),
            Rw::Write => (Pattern::Sequential, 0, TrimMix::None),
            Rw::RandRead => (Pattern::Random, 100, TrimMix::None),
            Rw::RandWrite => (Pattern::Random, 0, TrimMix::None),
            Rw::ReadWrite => (
                Pattern::Sequential,
                self.rwmixread.unwrap_or(50),
                TrimMix::None,
            ),
            Rw::RandRw => (Pattern::Random, self.rwmixread.unwrap_or(50), TrimMix::None),
            Rw::Trim => (Pattern::Sequential, 0, TrimMix::Only),
            Rw::RandTrim => (Pattern::Random, 0, TrimMix::Only),
            Rw::TrimWrite => (Pattern::Sequential, 0, TrimMix::ThenWrite),
            Rw::RandTrimWrite => (Pattern::Random, 0, TrimMix::ThenWrite),
        };
        self.spec.pattern = pattern;
        self.spec.read_percent = read;
        self.spec.trim = trim;
        (self.spec.zones, self.spec.zbd) = self.zones.resolve()?;
        self.spec.cmdprio = self
            .cmdprio
            .resolve([self.spec.reads(), self.spec.writes()])
            .map_err(crate::FioError::Usage)?;
        // fio's fixup_options(): compressible data is refilled before every write unless
        // refill_buffers says otherwise (a buffer written twice would dedupe).
        let refill_given = self.set_options.iter().any(|(k, _)| k == "refill_buffers");
        if self.spec.buffers.compress_percent > 0 && !refill_given {
            self.spec.buffers.refill = true;
        }
        // fio's str_buffer_pattern_cb(): a pattern is neither scrambled nor zeroed, and is
        // written afresh before every write when the job reads (which would overwrite the
        // buffers) or compresses.
        if self.spec.buffers.pattern.is_some() {
            let b = &mut self.spec.buffers;
            b.scramble = false;
            b.zero = false;
            b.refill = b.compress_percent > 0 || self.spec.read_percent > 0;
        }
        self.spec.control.errors =
            control::error_policy(self.continue_on_error, &self.ignore_error);
        if self.bs_unaligned {
            for dist in &mut self.spec.block_dist {
                if let BlockDist::Range { min } = *dist {
                    *dist = BlockDist::Unaligned { min };
                }
            }
        }
        // fio's fixup_options(): "Any use of blockalign= turns off randommap".
        let spec = &self.spec;
        let realigned = spec.block_align.is_some_and(|ba| {
            Direction::ALL
                .iter()
                .any(|&d| spec.min_block_size(d) as u64 != ba)
        });
        if realigned && self.spec.random_map {
            eprintln!(
                "iolab: job '{}': any use of blockalign= turns off the random map, as in fio",
                self.spec.name
            );
            self.spec.random_map = false;
        }
        // fio's LFSR has a full period: no block twice in a pass, random map or not.
        self.spec.random_map |= self.spec.generator == iolab_job::Generator::FullPeriod;
        let logs = &mut self.spec.logs;
        for prefix in [&mut logs.lat, &mut logs.iops, &mut logs.bw] {
            if prefix.as_deref() == Some("") {
                *prefix = Some(self.spec.name.clone());
            }
        }
        // fio's set_epoch_time(): either option gives the clock's own times.
        self.spec.logs.epoch_clock =
            (self.log_epoch[0] || self.log_epoch[1]).then_some(self.log_epoch_clock);
        self.spec.do_verify = self.verify.settings.after_writes;
        self.spec.verify = self
            .verify
            .resolve()
            .map_err(|reason| crate::FioError::BadValue {
                name: "verify".into(),
                value: self
                    .set_options
                    .iter()
                    .find(|(k, _)| k == "verify")
                    .map_or(String::new(), |(_, v)| v.clone()),
                reason,
            })?;
        // fio's fixup_options(): pre-reading and then dropping the cache is pointless.
        if self.spec.files.pre_read {
            self.spec.invalidate = false;
        }
        // fio 3.33's offsets repeat under randrepeat=1 whatever randseed says (its
        // fixup_options() means a given randseed to turn randrepeat off, but the offsets
        // stay; checked against fio's write_iolog).
        self.spec.seed_rule = iolab_job::SeedRule {
            repeatable: self.randrepeat,
            all_fixed: self.allrandrepeat,
        };
        if self.allrandrepeat {
            // fio's td_fill_rand_seeds(): fixed seeds, randseed or not.
            self.spec.seed = JobSpec::new("", "").seed;
        } else if !self.randrepeat && !self.randseed_set {
            self.spec.seed = clock_seed();
        }
        if self.spec.time_based && self.spec.runtime.is_none() {
            // fio's fixup_options(): a warning, and the job runs size-based.
            eprintln!(
                "iolab: job '{}': time_based requires a runtime setting; ignored, as fio does",
                self.spec.name
            );
            self.spec.time_based = false;
        }
        if self.offload {
            submit::resolve_offload(&mut self.spec)?;
        }
        self.spec.validate()?;
        Ok(self.spec)
    }
}

/// A percentage, 0 to 100.
fn percent(v: &str) -> Result<u8, String> {
    match parse_u32(v)? {
        p @ 0..=100 => Ok(p as u8),
        _ => Err("must be between 0 and 100".into()),
    }
}

/// A seed that differs from run to run (`randrepeat=0`).
fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (t.as_nanos() as u64) ^ ((std::process::id() as u64) << 32)
}

type Apply = fn(&mut JobDraft, &str) -> Result<(), String>;

/// Most copies of one job (fio's own limit on jobs).
pub const MAX_NUMJOBS: u32 = 4096;

/// One fio option.
pub struct OptionDef {
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub kind: ValueKind,
    /// What it means, in fio's terms (shown by `--help` and in the README).
    pub help: &'static str,
    pub apply: Apply,
}

fn size_spec(v: SizeOrPercent) -> SizeSpec {
    match v {
        SizeOrPercent::Bytes(b) => SizeSpec::Bytes(b),
        SizeOrPercent::Percent(p) => SizeSpec::Percent(p),
    }
}

fn parse_rw(v: &str) -> Result<Rw, String> {
    Ok(match v {
        "read" => Rw::Read,
        "write" => Rw::Write,
        "randread" => Rw::RandRead,
        "randwrite" => Rw::RandWrite,
        "rw" | "readwrite" => Rw::ReadWrite,
        "randrw" => Rw::RandRw,
        "trim" => Rw::Trim,
        "randtrim" => Rw::RandTrim,
        "trimwrite" => Rw::TrimWrite,
        "randtrimwrite" => Rw::RandTrimWrite,
        _ => {
            return Err(
                "expected read, write, randread, randwrite, rw (readwrite), randrw, \
                 trim, randtrim, trimwrite or randtrimwrite"
                    .into(),
            )
        }
    })
}

/// `rw=NAME:SUFFIX`, as fio's `str_rw_cb()` reads it: on random I/O, a new random offset
/// every SUFFIX I/Os (`atoi`: 0 when not a number, which fio takes as never); on sequential
/// I/O, a signed size added to each next offset (`read:8k` holes, `read:-8k` backwards).
/// Returns (`seq_add`, `random_every`).
fn parse_rw_suffix(rw: Rw, suffix: Option<&str>) -> Result<(i64, u32), String> {
    let Some(s) = suffix.map(str::trim) else {
        return Ok((0, 1));
    };
    let random = [
        Rw::RandRead,
        Rw::RandWrite,
        Rw::RandRw,
        Rw::RandTrim,
        Rw::RandTrimWrite,
    ];
    if random.contains(&rw) {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        return Ok((0, digits.parse().unwrap_or(0)));
    }
    let (negative, size) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let n = i64::try_from(parse_size(size)?).map_err(|_| format!("'{s}' is too large"))?;
    Ok((if negative { -n } else { n }, 1))
}

/// `bs=4k`, `bs=4k,64k` or `bs=4k,64k,1m` (read, write, trim); an empty part keeps the
/// default. As fio's parser, the last value given also serves the directions after it.
fn parse_bs_pair(v: &str, current: [u32; 3]) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err("expected SIZE or READ,WRITE[,TRIM]".into());
    }
    let mut out = current;
    for (i, p) in parts.iter().enumerate() {
        if !p.trim().is_empty() {
            out[i] = parse_u32(p)?;
        }
    }
    for i in parts.len()..3 {
        out[i] = out[parts.len() - 1];
    }
    Ok(out)
}

fn parse_percentiles(v: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for p in v.split(':').filter(|p| !p.is_empty()) {
        let x: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("'{p}' is not a number"))?;
        if !(x > 0.0 && x <= 100.0) {
            return Err(format!("{p} is not in (0, 100]"));
        }
        out.push(x);
    }
    if out.is_empty() {
        return Err("expected percentiles separated by ':' (e.g. 50:99:99.999)".into());
    }
    Ok(out)
}

/// fio's `cpumask`: a bit mask of CPUs, decimal or 0x-hex (1 is CPU 0, 6 is CPUs 1 and 2).
fn parse_cpumask(v: &str) -> Result<CpuSet, String> {
    let t = v.trim();
    let mask = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse::<u64>(),
    }
    .map_err(|_| "expected a CPU bit mask, e.g. 1 (CPU 0) or 0xf (CPUs 0-3)".to_string())?;
    if mask == 0 {
        return Err("a mask of 0 allows no CPU".into());
    }
    Ok(CpuSet::from_cpus(
        (0..64).filter(|b| mask & (1u64 << b) != 0).collect(),
    ))
}

/// fio's `bsrange=1k-4k` (or `1k-4k,2k-8k[,4k-4k]` for read, write, trim): (min, max) per
/// direction.
fn parse_bsrange(v: &str) -> Result<Vec<(u32, u32)>, String> {
    let mut out = Vec::new();
    for part in v.split(',').take(3) {
        let (lo, hi) = part
            .split_once('-')
            .ok_or_else(|| format!("'{part}': expected MIN-MAX, e.g. 4k-64k"))?;
        let (lo, hi) = (parse_u32(lo)?, parse_u32(hi)?);
        if lo == 0 || lo > hi {
            return Err(format!("'{part}': MIN must be at least 1 and at most MAX"));
        }
        out.push((lo, hi));
    }
    Ok(out)
}

/// fio's `bssplit=4k/10:64k/50:32k/40` (commas give writes, then trims, their own list; the
/// last list also serves the directions after it). Sizes without
/// a share split what the others leave, evenly.
fn parse_bssplit(v: &str) -> Result<Vec<Vec<(u32, u32)>>, String> {
    let mut out = Vec::new();
    for list in v.split(',').take(3) {
        let mut pairs: Vec<(u32, Option<u32>)> = Vec::new();
        for item in list.split(':').filter(|s| !s.trim().is_empty()) {
            let (bs, pct) = match item.split_once('/') {
                Some((b, p)) => (
                    parse_u32(b)?,
                    Some(p.trim().parse::<u32>().map_err(|_| {
                        format!("'{item}': the share after '/' must be a whole percentage")
                    })?),
                ),
                None => (parse_u32(item)?, None),
            };
            if bs == 0 {
                return Err(format!("'{item}': a block size must be at least 1 byte"));
            }
            pairs.push((bs, pct));
        }
        let given: u32 = pairs.iter().filter_map(|p| p.1).sum();
        let open = pairs.iter().filter(|p| p.1.is_none()).count() as u32;
        if pairs.is_empty() || given > 100 || (open == 0 && given != 100) {
            return Err(format!(
                "'{list}': expected SIZE/PERCENT pairs separated by ':' adding up to 100"
            ));
        }
        let mut rest = 100 - given;
        let mut resolved = Vec::new();
        let mut left = open;
        for (bs, p) in pairs {
            let share = p.unwrap_or_else(|| {
                let s = rest / left;
                rest -= s;
                left -= 1;
                s
            });
            if share > 0 {
                resolved.push((bs, share));
            }
        }
        out.push(resolved);
    }
    Ok(out)
}

/// fio's `random_distribution`: random, zipf[:theta], pareto[:h], normal[:dev%].
fn parse_distribution(v: &str) -> Result<RandomDistribution, String> {
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    let num = |default: f64| -> Result<f64, String> {
        match arg {
            None => Ok(default),
            Some(a) => a
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("'{a}' is not a number")),
        }
    };
    Ok(match kind {
        "random" => RandomDistribution::Uniform,
        "zipf" => RandomDistribution::Zipf(num(1.1)?),
        "pareto" => RandomDistribution::Pareto(num(0.2)?),
        "normal" | "gauss" => RandomDistribution::Normal(num(0.0)?),
        "zoned" | "zoned_abs" => {
            let body = arg.unwrap_or("");
            let split = iolab_job::parse_zoned(body, kind == "zoned_abs", parse_size)?;
            RandomDistribution::Zoned(std::sync::Arc::new(split))
        }
        _ => {
            return Err(
                "expected random, zipf[:THETA], pareto[:H], normal[:DEV], zoned:A/S:... or zoned_abs:A/SIZE:..."
                    .into(),
            )
        }
    })
}

/// A per-direction rate (`rate_iops=500` or `500,100`, `rate=1m,` ...; read, write, trim;
/// the last value given serves the directions after it, as fio's parser has it). An empty
/// side, or 0, is no limit, as in fio.
pub(crate) fn parse_rate<T: Copy + Default + PartialEq>(
    v: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<[Option<T>; 3], String> {
    per_direction(v, |p| {
        if p.trim().is_empty() {
            return Ok(None);
        }
        let r = parse(p)?;
        Ok((r != T::default()).then_some(r))
    })
}

/// fio's `READ,WRITE,TRIM` values: one for all three, or two (trims take the write's), or
/// one each.
pub(crate) fn per_direction<T: Copy>(
    v: &str,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<[T; 3], String> {
    let parts: Vec<&str> = v.split(',').collect();
    Ok(match parts.as_slice() {
        [a] => [one(a)?; 3],
        [a, b] => {
            let w = one(b)?;
            [one(a)?, w, w]
        }
        [a, b, c, ..] => [one(a)?, one(b)?, one(c)?],
        [] => [one("")?; 3],
    })
}

/// Every fio option iolab understands. Keep sorted roughly as fio's HOWTO groups them.
pub static OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "name",
        alias: None,
        kind: ValueKind::Str,
        help: "Job name. On the command line, each --name starts a new job; options before the first apply to all jobs.",
        apply: |d, v| {
            d.spec.name = v.to_string();
            Ok(())
        },
    },
    OptionDef {
        name: "filename",
        alias: None,
        kind: ValueKind::Str,
        help: "File or block device to run against; a:b:c spreads the job over several, one I/O each in turn, size split evenly (\\: is a colon in a name). A missing file is created when size is given. Without it, each copy of the job gets its own file, NAME.COPY.0, as in fio.",
        apply: |d, v| {
            d.filename = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "directory",
        alias: None,
        kind: ValueKind::Str,
        help: "Directory put before every file name, absolute ones too (as fio), and for default names.",
        apply: |d, v| {
            d.directory = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "rw",
        alias: Some("readwrite"),
        kind: ValueKind::Str,
        help: "I/O pattern: read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite (trim a block, then write it) or randtrimwrite; trims are BLKDISCARD on a block device and punched holes in a file, and need --allow-destroy as writes do; read:8k leaves 8k holes, read:-8k steps back, randread:N draws a new offset every N I/Os.",
        apply: |d, v| {
            let (name, suffix) = match v.split_once(':') {
                Some((n, s)) => (n, Some(s)),
                None => (v, None),
            };
            d.rw = parse_rw(name)?;
            (d.spec.seq_add, d.spec.random_every) = parse_rw_suffix(d.rw, suffix)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rwmixread",
        alias: None,
        kind: ValueKind::Int,
        help: "Percentage of a mixed workload that is reads (default 50).",
        apply: |d, v| {
            let p = parse_u32(v)?;
            if p > 100 {
                return Err("must be between 0 and 100".into());
            }
            d.rwmixread = Some(p);
            Ok(())
        },
    },
    OptionDef {
        name: "rwmixwrite",
        alias: None,
        kind: ValueKind::Int,
        help: "Percentage of a mixed workload that is writes (rwmixread is 100 minus it).",
        apply: |d, v| {
            let p = parse_u32(v)?;
            if p > 100 {
                return Err("must be between 0 and 100".into());
            }
            d.rwmixread = Some(100 - p);
            Ok(())
        },
    },
    OptionDef {
        name: "bs",
        alias: Some("blocksize"),
        kind: ValueKind::Size,
        help: "Block size of each I/O (default 4k); READ,WRITE[,TRIM] sets each direction (the last given serves the rest).",
        apply: |d, v| {
            d.spec.block_size = parse_bs_pair(v, d.spec.block_size)?;
            d.spec.block_dist = Default::default();
            d.bs_set = true;
            Ok(())
        },
    },
    OptionDef {
        name: "bsrange",
        alias: Some("blocksize_range"),
        kind: ValueKind::Str,
        help: "Block sizes drawn uniformly from MIN-MAX, in steps of MIN (MIN-MAX,MIN-MAX[,MIN-MAX] for read, write, trim).",
        apply: |d, v| {
            let r = parse_bsrange(v)?;
            for side in 0..3 {
                let (lo, hi) = r[side.min(r.len() - 1)];
                d.spec.block_size[side] = hi;
                d.spec.block_dist[side] = BlockDist::Range { min: lo };
            }
            Ok(())
        },
    },
    OptionDef {
        name: "bssplit",
        alias: None,
        kind: ValueKind::Str,
        help: "Block sizes with shares, e.g. 4k/10:64k/50:32k/40 (commas give writes, then trims, their own lists).",
        apply: |d, v| {
            let lists = parse_bssplit(v)?;
            for side in 0..3 {
                let l = &lists[side.min(lists.len() - 1)];
                d.spec.block_size[side] = l.iter().map(|p| p.0).max().unwrap_or(4096);
                d.spec.block_dist[side] = BlockDist::Split(l.clone());
            }
            Ok(())
        },
    },
    OptionDef {
        name: "blockalign",
        alias: Some("ba"),
        kind: ValueKind::Size,
        help: "Align random offsets to this many bytes (default: the block size), e.g. 512 for misaligned transfers.",
        apply: |d, v| {
            d.spec.block_align = Some(parse_bs_pair(v, [0; 3])?[0] as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth",
        alias: None,
        kind: ValueKind::Int,
        help: "I/Os kept in flight (default 1). Synchronous engines (psync, pvsync2, null) always run at 1.",
        apply: |d, v| {
            d.spec.iodepth = parse_u32(v)?;
            d.replay.iodepth_set = true;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_low",
        alias: None,
        kind: ValueKind::Int,
        help: "Once the queue is full, let it drain to this many in flight before filling it again (default: iodepth, always kept full).",
        apply: |d, v| {
            d.spec.iodepth_low = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "serialize_overlap",
        alias: None,
        kind: ValueKind::Bool,
        help: "An I/O waits until no I/O in flight overlaps its bytes (in any file, as fio compares offsets only), for jobs that write, trim or replay a log at iodepth>1; elsewhere ignored, as fio drops it.",
        apply: |d, v| {
            d.spec.serialize_overlap = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_batch_submit",
        alias: Some("iodepth_batch"),
        kind: ValueKind::Int,
        help: "I/Os submitted per system call (default 1, as fio: each I/O as soon as it is ready; 0: the whole iodepth). Submission latency (slat) runs from an I/O's preparation to the return of its submit call.",
        apply: |d, v| {
            d.spec.iodepth_batch_submit = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_batch_complete_min",
        alias: Some("iodepth_batch_complete"),
        kind: ValueKind::Int,
        help: "Completions to wait for each time iolab reaps (default 1, as fio; 0 is taken as 1).",
        apply: |d, v| {
            d.spec.iodepth_batch_complete_min = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_batch_complete_max",
        alias: None,
        kind: ValueKind::Int,
        help: "Most completions taken per reap (default: iodepth_batch_complete_min, so one at a time, as fio).",
        apply: |d, v| {
            d.spec.iodepth_batch_complete_max = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ioengine",
        alias: None,
        kind: ValueKind::Str,
        help: "How I/O is issued: sync, psync, vsync (lseek and readv/writev of one iovec), pvsync, pvsync2, mmap (memcpy through a shared mapping of the file), libaio, posixaio (glibc's POSIX AIO), splice (through a pipe: splice and vmsplice, 64 KiB at a time), io_uring, io_uring_cmd, null (no I/O: measures iolab itself), cpuio (no I/O: burns cpuload percent of a CPU; zero bytes, its CPU line is the figure), exec (no I/O: runs program= for the job's runtime, its output in JOBNAME.stdout and .stderr), e4defrag (each write one EXT4_IOC_MOVE_EXT of its range into donorname's blocks: the file keeps its data on new blocks; ext4 only), or the file-system engines falloc (each I/O one fallocate: read reserves, write extends, trim punches a hole) ftruncate (each write sets the file's length to its offset), filecreate, filestat and filedelete (each pass over a file is one timed create, stat or unlink of it; the I/Os only count, and their latency is the operation's); fio 3.42's dircreate, dirstat and dirdelete do the same to directories: mkdir, stat, rmdir), or spdk (SPDK's user-space NVMe driver, polled; filename='trtype=PCIe traddr=0000.01.00.0 ns=1' as SPDK's fio plugin, on a controller `iolab spdk bind` handed over; only in a build with the feature spdk).",
        apply: |d, v| {
            let kind = v.parse::<EngineKind>().map_err(|e| e.to_string())?;
            if kind == EngineKind::Spdk && !iolab_engine::spdk::BUILT {
                return Err(iolab_engine::spdk::HOW_TO_BUILD.into());
            }
            d.spec.engine.kind = kind;
            Ok(())
        },
    },
    OptionDef {
        name: "direct",
        alias: None,
        kind: ValueKind::Bool,
        help: "Use O_DIRECT (bypass the page cache). Block size and offsets must then be multiples of the logical block size.",
        apply: |d, v| {
            d.spec.direct = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "buffered",
        alias: None,
        kind: ValueKind::Bool,
        help: "The opposite of direct (buffered=0 is direct=1).",
        apply: |d, v| {
            d.spec.direct = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "size",
        alias: None,
        kind: ValueKind::Size,
        help: "Bytes of the target to use, or a percentage of it; without time_based, also how much to transfer. Default: the whole file or device.",
        apply: |d, v| {
            d.spec.size = Some(size_spec(parse_size_or_percent(v)?));
            Ok(())
        },
    },
    OptionDef {
        name: "offset",
        alias: Some("fileoffset"),
        kind: ValueKind::Size,
        help: "Where in the target the job's region starts (bytes or percentage).",
        apply: |d, v| {
            d.spec.offset = size_spec(parse_size_or_percent(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "offset_increment",
        alias: None,
        kind: ValueKind::Size,
        help: "Each job copy (numjobs) starts this much further than the one before (bytes or percentage of the target), so copies work on neighbouring regions.",
        apply: |d, v| {
            d.spec.offset_increment = size_spec(parse_size_or_percent(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "io_size",
        alias: Some("io_limit"),
        kind: ValueKind::Size,
        help: "Bytes to transfer (bytes or percentage), when not size=: more goes over the region again, less stops early.",
        apply: |d, v| {
            d.spec.io_size = Some(size_spec(parse_size_or_percent(v)?));
            Ok(())
        },
    },
    OptionDef {
        name: "filesize",
        alias: Some("file_size"),
        kind: ValueKind::Size,
        help: "The file's size; a smaller size= is then the bytes to transfer over the whole file, a larger one is capped at the file, as in fio. A range (LOW-HIGH) is not supported yet.",
        apply: |d, v| {
            if v.contains('-') || v.contains(':') {
                return Err("a range of file sizes is not supported by iolab yet".into());
            }
            d.filesize = Some(parse_size(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "wait_for",
        alias: None,
        kind: ValueKind::Str,
        help: "Start only once every copy of the earlier job of this name has finished (the others in its phase run on).",
        apply: |d, v| {
            d.spec.wait_for = Some(v.trim().to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "number_ios",
        alias: None,
        kind: ValueKind::Int,
        help: "Stop after this many I/Os (per loop), even before the bytes are done (0: no count); a time_based job runs its time regardless, as in fio.",
        apply: |d, v| {
            let n = parse_size(v)?;
            d.spec.number_ios = (n > 0).then_some(n);
            Ok(())
        },
    },
    OptionDef {
        name: "time_based",
        alias: None,
        kind: ValueKind::Bool,
        help: "Run for runtime, going over the region as often as needed.",
        apply: |d, v| {
            d.spec.time_based = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "runtime",
        alias: Some("timeout"),
        kind: ValueKind::Time,
        help: "How long to measure (after ramp_time); seconds unless a unit is given (500ms, 20m, 1h).",
        apply: |d, v| {
            d.spec.runtime = Some(parse_time(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "ramp_time",
        alias: None,
        kind: ValueKind::Time,
        help: "Run this long before measuring; statistics are reset when it ends.",
        apply: |d, v| {
            d.spec.ramp_time = parse_time(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ramp_size",
        alias: None,
        kind: ValueKind::Size,
        help: "Transfer this many bytes (each job copy) before measuring, then reset the statistics (fio 3.42; bytes unless a unit is given). Not with ramp_time, nor with group_reporting (fio then counts the group's bytes together).",
        apply: |d, v| {
            d.spec.ramp_bytes = parse_size(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "numjobs",
        alias: None,
        kind: ValueKind::Int,
        help: "Run this many identical copies of the job side by side, each in its own thread.",
        apply: |d, v| {
            d.spec.numjobs = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cpus_allowed",
        alias: None,
        kind: ValueKind::List,
        help: "CPUs the job's threads may run on, e.g. 0-3,6.",
        apply: |d, v| {
            d.spec.cpus_allowed = Some(v.parse::<CpuSet>().map_err(|e| match e {
                iolab_job::JobError::Invalid { reason, .. } => reason,
                other => other.to_string(),
            })?);
            Ok(())
        },
    },
    OptionDef {
        name: "norandommap",
        alias: None,
        kind: ValueKind::Bool,
        help: "Draw random offsets independently, instead of visiting every block once per pass.",
        apply: |d, v| {
            d.spec.random_map = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "randseed",
        alias: None,
        kind: ValueKind::Int,
        help: "Seed for random offsets, the read/write mix and buffer contents (default 0x89: runs repeat).",
        apply: |d, v| {
            d.spec.seed = parse_size(v)?;
            d.randseed_set = true;
            Ok(())
        },
    },
    OptionDef {
        name: "randrepeat",
        alias: None,
        kind: ValueKind::Bool,
        help: "1 (default): random offsets, mix and buffers repeat from run to run; 0: seeded from the clock unless randseed is given.",
        apply: |d, v| {
            d.randrepeat = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "hipri",
        alias: None,
        kind: ValueKind::Bool,
        help: "Polled completion: RWF_HIPRI for pvsync2, IOPOLL for io_uring. Needs a device with poll queues.",
        apply: |d, v| {
            d.spec.engine.options.hipri = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cmd_type",
        alias: None,
        kind: ValueKind::Str,
        help: "io_uring_cmd: the command set sent; nvme (the only one, and the default).",
        apply: |_, v| match v.trim() {
            "nvme" => Ok(()),
            other => Err(format!(
                "'{other}' is not a command type iolab sends (it has nvme)"
            )),
        },
    },
    OptionDef {
        name: "sqthread_poll",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring: a kernel thread (SQPOLL) picks up submissions; its CPU is counted.",
        apply: |d, v| {
            d.spec.engine.options.sqthread_poll = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "sqthread_poll_cpu",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring: the CPU the SQPOLL thread runs on (with sqthread_poll).",
        apply: |d, v| {
            d.spec.engine.options.sqthread_poll_cpu = Some(parse_u32(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "nonvectored",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring: 1 READ/WRITE (the default, as fio picks on kernels that have them), 0 READV/WRITEV.",
        apply: |d, v| {
            d.spec.engine.options.nonvectored = match v.trim() {
                "-1" => None,
                other => Some(parse_bool(other)?),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "force_async",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring: every Nth request is sent straight to io-wq workers (IOSQE_ASYNC); 0 none.",
        apply: |d, v| {
            d.spec.engine.options.force_async = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "stat_type",
        alias: None,
        kind: ValueKind::Str,
        help: "filestat: the call that looks each file up, stat (default), lstat or statx.",
        apply: |d, v| {
            d.spec.engine.options.stat_type = match v.trim() {
                "stat" => iolab_engine::StatType::Stat,
                "lstat" => iolab_engine::StatType::Lstat,
                "statx" => iolab_engine::StatType::Statx,
                _ => return Err("must be stat, lstat or statx".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "thp",
        alias: None,
        kind: ValueKind::Bool,
        help: "mmap: map the file privately with MADV_HUGEPAGE (transparent huge pages); as in fio, writes then stay in memory and never reach the file.",
        apply: |d, v| {
            d.spec.engine.options.thp = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fixedbufs",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring: register the I/O buffers with the kernel once.",
        apply: |d, v| {
            d.spec.engine.options.fixedbufs = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "registerfiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring: register the file with the kernel once.",
        apply: |d, v| {
            d.spec.engine.options.registerfiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "percentile_list",
        alias: None,
        kind: ValueKind::List,
        help: "Latency percentiles to report, separated by ':' (default: fio's list; iolab adds p99.999 under its own name, the JSON's iolab.clat_p99.999_ns and a line marked (iolab)).",
        apply: |d, v| {
            d.spec.percentiles = parse_percentiles(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "slat_percentiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report submission latency percentiles too (asynchronous engines; synchronous ones have no slat, as in fio).",
        apply: |d, v| {
            d.spec.slat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "clat_percentiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report completion-latency percentiles (default 1).",
        apply: |d, v| {
            d.spec.clat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "lat_percentiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report total-latency (submission + completion) percentiles (default 0).",
        apply: |d, v| {
            d.spec.lat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "group_reporting",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report the copies of a job (numjobs) as one.",
        apply: |d, v| {
            d.spec.group_reporting = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "description",
        alias: None,
        kind: ValueKind::Str,
        help: "Free text describing the job, shown with its results.",
        apply: |d, v| {
            d.spec.description = v.trim_matches('"').to_string();
            Ok(())
        },
    },
    OptionDef {
        name: "stonewall",
        alias: Some("wait_for_previous"),
        kind: ValueKind::Bool,
        help: "Start this job only when every job before it has finished; it also starts a new reporting group.",
        apply: |d, v| {
            d.spec.stonewall = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "new_group",
        alias: None,
        kind: ValueKind::Bool,
        help: "Start a new reporting group here without waiting for the jobs before.",
        apply: |d, v| {
            d.spec.new_group = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "startdelay",
        alias: None,
        kind: ValueKind::Time,
        help: "Wait this long before starting the job (seconds unless a unit is given).",
        apply: |d, v| {
            d.spec.start_delay = parse_time(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "loops",
        alias: None,
        kind: ValueKind::Int,
        help: "Repeat the job's work this many times (default 1).",
        apply: |d, v| {
            d.spec.loops = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cpumask",
        alias: None,
        kind: ValueKind::Int,
        help: "CPUs the job's threads may run on, as a bit mask (1 is CPU 0; 0x6 is CPUs 1 and 2).",
        apply: |d, v| {
            d.spec.cpus_allowed = Some(parse_cpumask(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "disable_slat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not report submission latency (reported as zeros, as fio does).",
        apply: |d, v| {
            d.spec.recorded.slat = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disable_clat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not report completion latency (reported as zeros, as fio does).",
        apply: |d, v| {
            d.spec.recorded.clat = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disable_lat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not report total latency (reported as zeros, as fio does).",
        apply: |d, v| {
            d.spec.recorded.lat = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disable_bw_measurement",
        alias: Some("disable_bw"),
        kind: ValueKind::Bool,
        help: "Do not sample bandwidth and IOPS over time (bw_min/bw_max and friends report zeros).",
        apply: |d, v| {
            d.spec.recorded.bw = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "gtod_reduce",
        alias: None,
        kind: ValueKind::Bool,
        help: "Shorthand for disable_slat, disable_clat, disable_lat and disable_bw together.",
        apply: |d, v| {
            if parse_bool(v)? {
                d.spec.recorded = iolab_job::Recorded {
                    slat: false,
                    clat: false,
                    lat: false,
                    bw: false,
                    buckets: true,
                };
            }
            Ok(())
        },
    },
    OptionDef {
        name: "random_distribution",
        alias: None,
        kind: ValueKind::Str,
        help: "Where random offsets fall: random (uniform), zipf[:THETA], pareto[:H], normal[:DEV%], zoned:ACCESS%/SIZE%:... or zoned_abs:ACCESS%/BYTES:... (READ,WRITE,TRIM parts), as fio defines them. Non-uniform ones draw independently (as norandommap).",
        apply: |d, v| {
            d.spec.distribution = parse_distribution(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "flow",
        alias: None,
        kind: ValueKind::Int,
        help: "Weight (1-1000) in the job's flow group: the jobs of one flow_id issue I/O in the ratio of their weights, one ahead of its share waiting (0: no flow).",
        apply: |d, v| {
            let w = parse_u32(v)?;
            if w > 1000 {
                return Err("the most is 1000".into());
            }
            d.spec.flow.weight = w;
            Ok(())
        },
    },
    OptionDef {
        name: "flow_id",
        alias: None,
        kind: ValueKind::Int,
        help: "The flow group this job's flow weight counts in (default 0).",
        apply: |d, v| {
            d.spec.flow.id = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "random_generator",
        alias: None,
        kind: ValueKind::Str,
        help: "`tausworthe` (default) or `tausworthe64`: fio's own generators, seeded as fio seeds them, so a `norandommap` job's offsets are fio's, in fio's order, and so are a random-map job's with iolab's `--fio-offsets` (or `zonemode=zbd`); without it the random map does every block once a pass in iolab's own order, about 3 ns an I/O cheaper (fio widens `tausworthe` to 64 bits for a file of over 2^32 blocks, and so does iolab). `lfsr`: every block once per pass even with `norandommap`, as fio's, in iolab's own order.",
        apply: |d, v| {
            d.spec.generator = match v.trim() {
                "tausworthe" => iolab_job::Generator::Tausworthe,
                "tausworthe64" => iolab_job::Generator::Tausworthe64,
                "lfsr" => iolab_job::Generator::FullPeriod,
                _ => return Err(format!("'{v}' is not tausworthe, tausworthe64 or lfsr")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "prio",
        alias: None,
        kind: ValueKind::Int,
        help: "I/O priority level of the job's threads, 0 (highest) to 7 (lowest), in prioclass (best effort if none), set with ioprio_set as fio does; every request they issue carries it.",
        apply: |d, v| {
            let level = parse_u32(v)?;
            if level > 7 {
                return Err("must be between 0 (highest) and 7 (lowest)".into());
            }
            d.spec.priority.io_level = level as u8;
            d.spec.priority.io_class.get_or_insert(0);
            Ok(())
        },
    },
    OptionDef {
        name: "prioclass",
        alias: None,
        kind: ValueKind::Int,
        help: "I/O priority class of the job's threads: 1 realtime, 2 best effort, 3 idle (0: best effort).",
        apply: |d, v| {
            let class = parse_u32(v)?;
            if class > 3 {
                return Err("must be 1 (realtime), 2 (best effort) or 3 (idle)".into());
            }
            d.spec.priority.io_class = Some(class as u8);
            Ok(())
        },
    },
    OptionDef {
        name: "nice",
        alias: None,
        kind: ValueKind::Int,
        help: "CPU nice value of the job's threads, -20 to 19 (default 0: unchanged).",
        apply: |d, v| {
            let n: i32 = v
                .trim()
                .parse()
                .map_err(|_| format!("'{v}' is not a whole number"))?;
            if !(-20..=19).contains(&n) {
                return Err("must be between -20 and 19".into());
            }
            d.spec.priority.nice = n;
            Ok(())
        },
    },
    OptionDef {
        name: "numa_cpu_nodes",
        alias: None,
        kind: ValueKind::List,
        help: "Run the job on the CPUs of these NUMA nodes, e.g. 0 or 0-1 (with `cpus_allowed`, on the CPUs in both).",
        apply: |d, v| {
            let nodes = v
                .parse::<CpuSet>()
                .map_err(|_| format!("'{v}' is not a node list like 0-1,3"))?;
            d.spec.numa.cpu_nodes = Some(nodes);
            Ok(())
        },
    },
    OptionDef {
        name: "numa_mem_policy",
        alias: None,
        kind: ValueKind::Str,
        help: "Where the job's buffers live: `default`, `prefer:N`, `bind:NODES`, `interleave:NODES` or `local` (Linux's set_mempolicy).",
        apply: |d, v| {
            d.spec.numa.mem = Some(MemPolicy::parse(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "nrfiles",
        alias: Some("nr_files"),
        kind: ValueKind::Int,
        help: "Files per job copy when `filename` is not given (NAME.COPY.FILE), `size` split between them.",
        apply: |d, v| {
            d.nrfiles = parse_u32(v)?.max(1);
            Ok(())
        },
    },
    OptionDef {
        name: "file_service_type",
        alias: None,
        kind: ValueKind::Str,
        help: "Which file the next I/O goes to: `roundrobin[:N]` (default, N I/Os each in turn), `sequential` (one file's I/O, then the next), `random[:N]`.",
        apply: |d, v| {
            d.spec.file_service = parse_file_service(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "openfiles",
        alias: None,
        kind: ValueKind::Int,
        help: "Most files open at once; iolab keeps every file of a job open, so it must be at least their number.",
        apply: |d, v| {
            d.openfiles = Some(parse_u32(v)?).filter(|&n| n > 0);
            Ok(())
        },
    },
    OptionDef {
        name: "exitall",
        alias: None,
        kind: ValueKind::Bool,
        help: "When a job ends, stop other jobs (those `exit_what` names); set on any job, it holds for every job of the run, as in fio.",
        apply: |d, v| {
            d.spec.exitall = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "exit_what",
        alias: None,
        kind: ValueKind::Str,
        help: "What `exitall` stops when this job ends: `group` (its reporting group, default), `stonewall` (every job running beside it), `all` (everything; no later job starts).",
        apply: |d, v| {
            d.spec.exit_what = match v.trim() {
                "group" => ExitWhat::Group,
                "stonewall" => ExitWhat::Stonewall,
                "all" => ExitWhat::All,
                _ => return Err(format!("'{v}' is not group, stonewall or all")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "rate_ignore_thinktime",
        alias: Some("rate_ign_think"),
        kind: ValueKind::Bool,
        help: "With a rate cap and thinktime, go on at the rate after a pause instead of catching up on it (fio's handle_thinktime).",
        apply: |d, v| {
            d.spec.think.ignore_for_rate = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime",
        alias: None,
        kind: ValueKind::Time,
        help: "Pause after each I/O (or each `thinktime_blocks`), microseconds unless a unit is given; what is in flight completes first, and the pause is never latency.",
        apply: |d, v| {
            d.spec.think.time = parse_time_us(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_spin",
        alias: None,
        kind: ValueKind::Time,
        help: "The part of `thinktime` spent busy on the CPU rather than asleep (microseconds unless a unit is given).",
        apply: |d, v| {
            d.spec.think.spin = parse_time_us(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_blocks",
        alias: None,
        kind: ValueKind::Int,
        help: "I/Os between `thinktime` pauses (default 1).",
        apply: |d, v| {
            d.spec.think.blocks = Some(parse_u32(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_blocks_type",
        alias: None,
        kind: ValueKind::Str,
        help: "`complete` (default): count I/Os completed toward `thinktime_blocks`; `issue`: count I/Os issued.",
        apply: |d, v| {
            d.spec.think.on_issue = match v.trim() {
                "complete" => false,
                "issue" => true,
                _ => return Err(format!("'{v}' is not complete or issue")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_iotime",
        alias: None,
        kind: ValueKind::Time,
        help: "Pause once this long has passed doing I/O (seconds unless a unit is given), besides or instead of `thinktime_blocks`.",
        apply: |d, v| {
            d.spec.think.iotime = parse_time(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "flow_sleep",
        alias: None,
        kind: ValueKind::Int,
        help: "Microseconds a job ahead of its flow share sleeps before asking again (0: it yields).",
        apply: |d, v| {
            d.spec.flow.sleep = std::time::Duration::from_micros(parse_u32(v)? as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "rate",
        alias: None,
        kind: ValueKind::Size,
        help: "Cap on bytes per second (READ,WRITE,TRIM caps each direction; 0 or empty: none); each I/O falls due when the bytes before it allow, and a job that falls behind catches up.",
        apply: |d, v| {
            d.spec.rate.bytes = parse_rate(v, parse_size)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_iops",
        alias: None,
        kind: ValueKind::Int,
        help: "Cap on I/Os per second (READ,WRITE,TRIM caps each direction), as rate= of IOPS x the smallest block size; a job that falls behind catches up.",
        apply: |d, v| {
            d.spec.rate.iops = parse_rate(v, parse_u32)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_min",
        alias: Some("ratemin"),
        kind: ValueKind::Size,
        help: "Least bytes per second (READ,WRITE,TRIM): after 2 s, a rate_cycle in which the job did less ends it with an error, as fio.",
        apply: |d, v| {
            d.spec.rate.min_bytes = parse_rate(v, parse_size)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_iops_min",
        alias: None,
        kind: ValueKind::Int,
        help: "Least I/Os per second (READ,WRITE,TRIM), checked as rate_min; rate_min wins where both are given.",
        apply: |d, v| {
            d.spec.rate.min_iops = parse_rate(v, parse_u32)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_cycle",
        alias: Some("ratecycle"),
        kind: ValueKind::Int,
        help: "Milliseconds over which rate_min and rate_iops_min are averaged (default 1000).",
        apply: |d, v| {
            d.spec.rate.cycle = std::time::Duration::from_millis(parse_u32(v)? as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "rate_process",
        alias: None,
        kind: ValueKind::Str,
        help: "How capped I/Os are spaced: linear (evenly, default) or poisson (random gaps of the same mean, as independent arrivals).",
        apply: |d, v| {
            d.spec.rate.process = match v.trim() {
                "linear" => iolab_job::RateProcess::Linear,
                "poisson" => iolab_job::RateProcess::Poisson,
                _ => return Err("expected linear or poisson".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "fsync",
        alias: None,
        kind: ValueKind::Int,
        help: "fsync the file after every N writes (I/Os in flight finish first); reported under sync.",
        apply: |d, v| {
            d.spec.fsync_every = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fdatasync",
        alias: None,
        kind: ValueKind::Int,
        help: "fdatasync the file after every N writes (data, not metadata), as fsync=N otherwise; reported under sync.",
        apply: |d, v| {
            d.spec.fdatasync_every = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "end_fsync",
        alias: None,
        kind: ValueKind::Bool,
        help: "fsync the file once when the job's I/O is done.",
        apply: |d, v| {
            d.spec.end_fsync = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "invalidate",
        alias: None,
        kind: ValueKind::Bool,
        help: "Drop the region's page cache when the job opens its files (default 1, as fio: posix_fadvise DONTNEED on files, BLKFLSBUF on devices).",
        apply: |d, v| {
            d.spec.invalidate = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fadvise_hint",
        alias: None,
        kind: ValueKind::Str,
        help: "Advice to the kernel when the job opens its files: 1 (default, as fio): random or sequential from the job's pattern; 0: none; random; sequential.",
        apply: |d, v| {
            d.spec.fadvise_hint = match v.trim() {
                "0" | "none" => FadviseHint::None,
                "1" | "type" => FadviseHint::Type,
                "random" => FadviseHint::Random,
                "sequential" => FadviseHint::Sequential,
                _ => return Err("expected 0, 1, random or sequential".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "unified_rw_reporting",
        alias: None,
        kind: ValueKind::Str,
        help: "none (0): reads and writes apart; mixed (1): one \"mixed\" direction; both (2): apart and mixed.",
        apply: |d, v| {
            d.spec.rw_reporting = match v {
                "none" | "0" => RwReporting::Separate,
                "mixed" | "1" => RwReporting::Mixed,
                "both" | "2" => RwReporting::Both,
                _ => return Err("expected none, mixed or both (0, 1, 2)".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "zero_buffers",
        alias: None,
        kind: ValueKind::Bool,
        help: "Write zeros instead of random data (compresses and dedupes to nothing).",
        apply: |d, v| {
            d.spec.buffers.zero = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "refill_buffers",
        alias: None,
        kind: ValueKind::Bool,
        help: "Fill the buffer with fresh random data before every write.",
        apply: |d, v| {
            d.spec.buffers.refill = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "scramble_buffers",
        alias: None,
        kind: ValueKind::Bool,
        help: "Stamp each 512-byte chunk of every write with its offset, so writes never repeat (default 1, as fio).",
        apply: |d, v| {
            d.spec.buffers.scramble = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "buffer_pattern",
        alias: None,
        kind: ValueKind::Str,
        help: "Write this pattern, repeated (fio's pattern syntax: 0x hex, decimal, \"string\", up to 512 bytes); with buffer_compress_percentage it fills the compressible part. Turns scramble_buffers and zero_buffers off; refilled before every write when the job also reads or compresses, as fio.",
        apply: |d, v| {
            let bytes = crate::options::verify::parse_pattern(v)?;
            d.spec.buffers.pattern = Some(
                iolab_engine::buffer::FillPattern::new(&bytes)
                    .ok_or("must be 1 to 512 bytes long")?,
            );
            Ok(())
        },
    },
    OptionDef {
        name: "buffer_compress_chunk",
        alias: None,
        kind: ValueKind::Size,
        help: "The chunk buffer_compress_percentage applies to (default 512): each chunk is that share zeros, the rest random; 0 makes the whole block one chunk.",
        apply: |d, v| {
            d.spec.buffers.compress_chunk =
                u32::try_from(parse_size(v)?).map_err(|_| "is too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "buffer_compress_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "Make written data compress by about this percentage (zeros in each 512-byte chunk); default 0: incompressible.",
        apply: |d, v| {
            d.spec.buffers.compress_percent = percent(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "Share of writes (0-100) that repeat data already written, for deduplicating devices; implies refill_buffers, as fio.",
        apply: |d, v| {
            d.spec.buffers.dedupe.percent = percent(v)?;
            d.spec.buffers.refill = true;
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_mode",
        alias: None,
        kind: ValueKind::Str,
        help: "What a repeating write repeats: `repeat` (the last unique buffer, default) or `working_set` (a random page of the first dedupe_working_set_percentage of the size).",
        apply: |d, v| {
            d.spec.buffers.dedupe.mode = match v.trim() {
                "repeat" => DedupeMode::Repeat,
                "working_set" => DedupeMode::WorkingSet,
                _ => return Err(format!("'{v}' is not repeat or working_set")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_working_set_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "The working set of dedupe_mode=working_set, as a percentage of the size (default 5).",
        apply: |d, v| {
            d.spec.buffers.dedupe.working_set_percent = percent(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_global",
        alias: None,
        kind: ValueKind::Bool,
        help: "Share the dedupe working set among the jobs that set this, so their writes repeat each other's data.",
        apply: |d, v| {
            d.spec.buffers.dedupe.global = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thread",
        alias: None,
        kind: ValueKind::Bool,
        help: "Accepted for fio compatibility: iolab always runs jobs as threads.",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
];

/// The README's option table, generated from [`OPTIONS`] and the run options (one source of
/// truth; a test keeps the README equal to this).
pub fn markdown_table() -> String {
    let mut s = String::from(
        "# iolab run: every option\n\nGenerated from the option table in \
         `crates/fio/src/options/` (`IOLAB_UPDATE_README=1 cargo test -p iolab --test readme` \
         rewrites it; a test keeps the two equal). Values are read as fio reads them: see \
         [values.md](values.md). `iolab run --cmdhelp=OPTION` prints one option's help.\n",
    );
    for (topic, table) in topics() {
        s.push_str(&format!(
            "\n## {topic}\n\n| option | value | meaning |\n|---|---|---|\n"
        ));
        for o in table {
            let names = match o.alias {
                Some(a) => format!("`{}` / `{a}`", o.name),
                None => format!("`{}`", o.name),
            };
            s.push_str(&format!("| {names} | {} | {} |\n", o.kind.label(), o.help));
        }
    }
    s.push_str("\n## Options of the run (iolab's own, and fio's command line)\n\n");
    s.push_str("| option | value | meaning |\n|---|---|---|\n");
    for o in crate::options::run::RUN_OPTIONS {
        let value = match &o.set {
            crate::options::run::RunSetter::Flag(_) => "flag (bare or `=1`; `=0` off)".to_string(),
            crate::options::run::RunSetter::Refused(why) => {
                s.push_str(&format!("| `--{}` | refused | {why} |\n", o.name));
                continue;
            }
            _ => format!("`{}`", o.value),
        };
        s.push_str(&format!("| `--{}` | {value} | {} |\n", o.name, o.help));
    }
    s.push_str("\n## fio's options iolab refuses\n\n");
    s.push_str(&known::refused_markdown());
    s
}

/// Every option iolab has: the table here, the verify options, then the profile options fio
/// accepts and ignores.
/// The option tables by topic, in the order `--help` and docs/options.md show them.
pub fn topics() -> [(&'static str, &'static [OptionDef]); 27] {
    [
        ("Jobs, directions and sizes", OPTIONS),
        ("Files", files::FILE_OPTIONS),
        ("Units and repeatability", base::BASE_OPTIONS),
        ("CPUs", cpu::CPU_OPTIONS),
        ("Logs", logs::LOG_OPTIONS),
        ("Processes and priorities", process::PROCESS_OPTIONS),
        ("Run control and errors", control::CONTROL_OPTIONS),
        ("Buffer contents", pattern::PATTERN_OPTIONS),
        ("Memory", memory::MEMORY_OPTIONS),
        ("Replaying I/O logs", replay::REPLAY_OPTIONS),
        ("Reporting", report::REPORT_OPTIONS),
        ("Verification", crate::options::verify::VERIFY_OPTIONS),
        (
            "Command priorities",
            crate::options::cmdprio::CMDPRIO_OPTIONS,
        ),
        ("Strided zones", crate::options::zone::ZONE_OPTIONS),
        ("Zoned block devices", crate::options::zone::ZBD_OPTIONS),
        ("Profiles", crate::options::profile::PROFILE_OPTIONS),
        ("Steady state", crate::options::steady::STEADY_OPTIONS),
        (
            "Latency target",
            crate::options::lat_target::LAT_TARGET_OPTIONS,
        ),
        ("Rate and load", crate::options::load::LOAD_OPTIONS),
        (
            "Submission and completion",
            crate::options::submit::SUBMIT_OPTIONS,
        ),
        (
            "Latency split (iolab)",
            crate::options::split::SPLIT_OPTIONS,
        ),
        ("Engines without I/O", crate::options::noio::NOIO_OPTIONS),
        ("e4defrag", crate::options::defrag::DEFRAG_OPTIONS),
        (
            "Kernel I/O flags (fio 3.42)",
            crate::options::rwflags::RWFLAG_OPTIONS,
        ),
        (
            "Data placement (fio 3.42)",
            crate::options::placement::PLACEMENT_OPTIONS,
        ),
        (
            "Protection information (fio 3.42)",
            crate::options::protection::PROTECTION_OPTIONS,
        ),
        (
            "Syncs, names, hints and cycles (fio 3.42)",
            crate::options::rwflags::V342_OPTIONS,
        ),
    ]
}

/// Every job option, topic by topic.
pub fn all() -> impl Iterator<Item = &'static OptionDef> {
    topics().into_iter().flat_map(|(_, t)| t.iter())
}

/// The values an option takes where they are a fixed list (for completions and help).
pub fn choices(name: &str) -> Option<Vec<&'static str>> {
    Some(match name {
        "rw" | "readwrite" => vec![
            "read",
            "write",
            "randread",
            "randwrite",
            "rw",
            "readwrite",
            "randrw",
            "trim",
            "randtrim",
            "trimwrite",
            "randtrimwrite",
        ],
        "ioengine" => iolab_engine::ENGINES.iter().map(|e| e.name).collect(),
        "kb_base" => vec!["1024", "1000"],
        "output-format" => vec!["normal", "json", "json+", "terse"],
        "eta" => vec!["auto", "always", "never"],
        "terse-version" => vec!["3"],
        "debug" => vec!["parse"],
        _ => match find(name)?.kind {
            ValueKind::Bool => vec!["1", "0"],
            _ => return None,
        },
    })
}

/// Every option's name and alias.
pub fn names() -> impl Iterator<Item = &'static str> {
    all().flat_map(|o| std::iter::once(o.name).chain(o.alias))
}

/// Looks an option up by name or alias.
pub fn find(name: &str) -> Option<&'static OptionDef> {
    all().find(|o| o.name == name || o.alias == Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_a_suggestion_and_fio_only_options_say_so() {
        assert_eq!(
            crate::options::known::suggest("runtme", names()),
            Some("runtime")
        );
        assert_eq!(
            crate::options::known::suggest("ioengin", names()),
            Some("ioengine")
        );
        // An option iolab supports is found in the table before fio's other names are
        // consulted; that list may name it (fio has it too) but the table wins.
        for o in all() {
            assert!(find(o.name).is_some());
        }
    }

    #[test]
    fn engine_options_belong_to_their_engine_as_in_fio() {
        let job = |engine: &str| {
            let mut d = JobDraft::new("x");
            d.apply("filename", Some("/tmp/x")).unwrap();
            d.apply("fixedbufs", None).unwrap();
            d.apply("ioengine", Some(engine)).unwrap();
            d.finish_all()
        };
        let e = job("psync").unwrap_err().to_string();
        assert!(
            e.contains("'fixedbufs' belongs to ioengine io_uring and io_uring_cmd, not to this job's psync"),
            "{e}"
        );
        assert!(job("io_uring").unwrap()[0].engine.options.fixedbufs);
        assert!(job("io_uring_cmd").unwrap()[0].engine.options.fixedbufs);
    }
    use crate::FioError;
    use std::time::Duration;

    fn draft(opts: &[(&str, Option<&str>)]) -> Result<JobSpec, FioError> {
        let mut d = JobDraft::new("t");
        d.apply("filename", Some("/tmp/x"))?;
        for (k, v) in opts {
            d.apply(k, *v)?;
        }
        Ok(d.finish_all()?.remove(0))
    }

    #[test]
    fn without_filename_each_copy_gets_fios_default_file() {
        let mut d = JobDraft::new("seq");
        for (k, v) in [
            ("numjobs", "3"),
            ("directory", "/mnt/x"),
            ("stonewall", "1"),
        ] {
            d.apply(k, Some(v)).unwrap();
        }
        let jobs = d.finish_all().unwrap();
        let names: Vec<String> = jobs
            .iter()
            .map(|j| j.filename.display().to_string())
            .collect();
        assert_eq!(
            names,
            ["/mnt/x/seq.0.0", "/mnt/x/seq.1.0", "/mnt/x/seq.2.0"]
        );
        assert!(jobs.iter().all(|j| j.numjobs == 1));
        assert_eq!(
            jobs.iter().map(|j| j.stonewall).collect::<Vec<_>>(),
            [true, false, false]
        );
        let mut d = JobDraft::new("j");
        d.apply("directory", Some("/d")).unwrap();
        d.apply("filename", Some("f\\:1")).unwrap();
        assert_eq!(
            d.finish_all().unwrap()[0].filename.display().to_string(),
            "/d/f:1"
        );
        let mut d = JobDraft::new("j");
        d.apply("filename", Some("/a:b:/c")).unwrap();
        d.apply("directory", Some("/d")).unwrap();
        let j = d.finish_all().unwrap().remove(0);
        // fio joins absolute names to the directory too (it made DIR/tmp/x/f for /tmp/x/f).
        assert_eq!(j.filename, std::path::PathBuf::from("/d/a"));
        assert_eq!(
            j.extra_files,
            vec![
                std::path::PathBuf::from("/d/b"),
                std::path::PathBuf::from("/d/c")
            ]
        );
    }

    #[test]
    fn rw_and_mix_combine() {
        let s = draft(&[("rw", Some("randrw")), ("rwmixread", Some("70"))]).unwrap();
        assert_eq!((s.pattern, s.read_percent), (Pattern::Random, 70));
        let s = draft(&[("rwmixread", Some("70")), ("rw", Some("readwrite"))]).unwrap();
        assert_eq!((s.pattern, s.read_percent), (Pattern::Sequential, 70));
        let s = draft(&[("rw", Some("randwrite"))]).unwrap();
        assert_eq!((s.pattern, s.read_percent), (Pattern::Random, 0));
        assert!(draft(&[("rw", Some("sideways"))]).is_err());
    }

    #[test]
    fn randrepeat_zero_seeds_from_the_clock_unless_randseed_is_given() {
        assert_eq!(draft(&[("randrepeat", Some("1"))]).unwrap().seed, 0x89);
        let a = draft(&[("randrepeat", Some("0"))]).unwrap().seed;
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = draft(&[("randrepeat", Some("0"))]).unwrap().seed;
        assert_ne!(a, b);
        let s = draft(&[("randrepeat", Some("0")), ("randseed", Some("7"))]).unwrap();
        assert_eq!(s.seed, 7);
    }

    #[test]
    fn time_based_without_runtime_is_dropped_as_fio_does() {
        let s = draft(&[("time_based", None), ("size", Some("1m"))]).unwrap();
        assert!(!s.time_based);
        let s = draft(&[("time_based", None), ("runtime", Some("2"))]).unwrap();
        assert!(s.time_based);
    }

    #[test]
    fn rw_suffixes_are_fios_offset_modifiers() {
        let s = draft(&[("rw", Some("read:-8k"))]).unwrap();
        assert_eq!(
            (s.pattern, s.seq_add, s.random_every),
            (Pattern::Sequential, -8192, 1)
        );
        let s = draft(&[("rw", Some("write:112k"))]).unwrap();
        assert_eq!(s.seq_add, 112 * 1024);
        let s = draft(&[("rw", Some("randread:4"))]).unwrap();
        assert_eq!(
            (s.pattern, s.seq_add, s.random_every),
            (Pattern::Random, 0, 4)
        );
        let s = draft(&[("rw", Some("randread:x"))]).unwrap();
        assert_eq!(s.random_every, 0, "fio's atoi");
        assert!(draft(&[("rw", Some("read:8q"))]).is_err());
        let s = draft(&[("rw", Some("read"))]).unwrap();
        assert_eq!((s.seq_add, s.random_every), (0, 1));
    }

    #[test]
    fn every_option_in_the_issue_is_in_the_table() {
        for name in [
            "name",
            "filename",
            "rw",
            "rwmixread",
            "bs",
            "blockalign",
            "iodepth",
            "ioengine",
            "direct",
            "size",
            "offset",
            "time_based",
            "runtime",
            "ramp_time",
            "numjobs",
            "cpus_allowed",
            "norandommap",
            "randseed",
            "hipri",
            "sqthread_poll",
            "fixedbufs",
            "registerfiles",
            "percentile_list",
            "group_reporting",
            "thread",
        ] {
            assert!(find(name).is_some(), "{name}");
        }
    }

    #[test]
    fn each_option_sets_its_field() {
        let s = draft(&[
            ("bs", Some("64k")),
            ("blockalign", Some("512")),
            ("iodepth", Some("32")),
            ("ioengine", Some("io_uring")),
            ("direct", None),
            ("size", Some("1g")),
            ("offset", Some("4k")),
            ("time_based", None),
            ("runtime", Some("20m")),
            ("ramp_time", Some("500ms")),
            ("numjobs", Some("2")),
            ("cpus_allowed", Some("0-1")),
            ("norandommap", Some("1")),
            ("randseed", Some("42")),
            ("hipri", None),
            ("sqthread_poll", Some("1")),
            ("fixedbufs", Some("1")),
            ("registerfiles", Some("1")),
            ("sqthread_poll_cpu", Some("1")),
            ("nonvectored", Some("0")),
            ("force_async", Some("4")),
            ("percentile_list", Some("50:99:99.999")),
            ("lat_percentiles", Some("1")),
            ("group_reporting", None),
            ("thread", None),
        ])
        .unwrap();
        assert_eq!(s.block_size, [65536; 3]);
        assert_eq!(s.block_align, Some(512));
        assert_eq!(s.iodepth, 32);
        assert_eq!(s.engine.kind, EngineKind::IoUring);
        assert!(s.direct && s.time_based && s.group_reporting && s.lat_percentiles);
        assert_eq!(s.size, Some(SizeSpec::Bytes(1 << 30)));
        assert_eq!(s.offset, SizeSpec::Bytes(4096));
        assert_eq!(s.runtime, Some(Duration::from_secs(1200)));
        assert_eq!(s.ramp_time, Duration::from_millis(500));
        assert_eq!(s.numjobs, 2);
        assert_eq!(s.cpus_allowed.unwrap().cpus(), &[0, 1]);
        assert!(!s.random_map);
        assert_eq!(s.seed, 42);
        let o = s.engine.options;
        assert!(o.hipri && o.sqthread_poll && o.fixedbufs && o.registerfiles);
        assert_eq!(
            (o.sqthread_poll_cpu, o.nonvectored, o.force_async),
            (Some(1), Some(false), 4)
        );
        assert_eq!(s.percentiles, vec![50.0, 99.0, 99.999]);
    }

    #[test]
    fn block_size_distributions() {
        let s = draft(&[("bssplit", Some("4k/10:64k/50:32k"))]).unwrap();
        assert_eq!(
            s.block_dist[0],
            BlockDist::Split(vec![(4096, 10), (65536, 50), (32768, 40)])
        );
        assert_eq!(s.block_size, [65536; 3]);
        let s = draft(&[("bssplit", Some("4k:8k,16k/100"))]).unwrap();
        assert_eq!(
            s.block_dist[0],
            BlockDist::Split(vec![(4096, 50), (8192, 50)])
        );
        assert_eq!(s.block_dist[1], BlockDist::Split(vec![(16384, 100)]));
        assert_eq!(s.block_dist[2], s.block_dist[1], "trims take the last list");
        let s = draft(&[("bsrange", Some("4k-16k"))]).unwrap();
        assert_eq!(s.block_dist[1], BlockDist::Range { min: 4096 });
        assert_eq!(s.block_size, [16384; 3]);
        let s = draft(&[("bsrange", Some("4k-16k")), ("bs", Some("8k"))]).unwrap();
        assert_eq!(s.block_dist[0], BlockDist::Fixed, "bs after bsrange wins");
        assert!(draft(&[("bssplit", Some("4k/60:8k/60"))]).is_err());
        assert!(draft(&[("bsrange", Some("16k-4k"))]).is_err());
    }

    #[test]
    fn distributions_rates_syncs_and_buffers() {
        let s = draft(&[
            ("random_distribution", Some("zipf:1.2")),
            ("rate_iops", Some("500,")),
            ("fsync", Some("8")),
            ("fdatasync", Some("3")),
            ("end_fsync", None),
            ("invalidate", Some("0")),
            ("fadvise_hint", Some("0")),
            ("unified_rw_reporting", Some("mixed")),
            ("buffer_compress_percentage", Some("50")),
            ("refill_buffers", None),
            ("scramble_buffers", Some("0")),
        ])
        .unwrap();
        assert_eq!(s.distribution, RandomDistribution::Zipf(1.2));
        assert_eq!(s.rate.iops, [Some(500), None, None]);
        assert_eq!(
            (s.fsync_every, s.fdatasync_every, s.end_fsync),
            (8, 3, true)
        );
        assert!(!s.invalidate);
        assert_eq!(s.fadvise_hint, FadviseHint::None);
        assert_eq!(s.rw_reporting, RwReporting::Mixed);
        assert_eq!(s.buffers.compress_percent, 50);
        assert!(s.buffers.refill && !s.buffers.scramble);
        let s = draft(&[("random_distribution", Some("pareto"))]).unwrap();
        assert_eq!(s.distribution, RandomDistribution::Pareto(0.2));
        assert_eq!(
            draft(&[("random_distribution", Some("normal:5"))])
                .unwrap()
                .distribution,
            RandomDistribution::Normal(5.0)
        );
        let z = draft(&[("random_distribution", Some("zoned:50/5:50/95"))]).unwrap();
        let RandomDistribution::Zoned(z) = z.distribution else {
            panic!("not zoned: {:?}", z.distribution)
        };
        assert_eq!(z.zones[0][1].size, 95);
        assert!(draft(&[("random_distribution", Some("zoned:50/5:40/95"))]).is_err());
        assert!(draft(&[("random_distribution", Some("zipf:1"))]).is_err());
        assert!(draft(&[("unified_rw_reporting", Some("sideways"))]).is_err());
        // 0 is no limit, as in fio.
        assert_eq!(
            draft(&[("rate_iops", Some("0"))]).unwrap().rate.iops,
            [None; 3]
        );
        let s = draft(&[("rate", Some("1m,500k")), ("ratemin", Some("1k"))]).unwrap();
        assert_eq!(
            s.rate.bytes,
            [Some(1 << 20), Some(500 << 10), Some(500 << 10)]
        );
        assert_eq!(s.rate.min_bytes, [Some(1024); 3]);
    }

    #[test]
    fn split_block_sizes_and_buffered() {
        let s = draft(&[("bs", Some("4k,1m")), ("buffered", Some("0"))]).unwrap();
        assert_eq!(s.block_size, [4096, 1 << 20, 1 << 20]);
        assert!(s.direct);
        let s = draft(&[("blocksize", Some(",8k"))]).unwrap();
        assert_eq!(s.block_size, [4096, 8192, 8192]);
        let s = draft(&[("bs", Some("4k,8k,1m")), ("rw", Some("trimwrite"))]).unwrap();
        assert_eq!(s.block_size, [4096, 8192, 1 << 20]);
        assert_eq!(
            (s.trim, s.pattern),
            (TrimMix::ThenWrite, Pattern::Sequential)
        );
        let s = draft(&[("rw", Some("randtrim"))]).unwrap();
        assert_eq!((s.trim, s.pattern), (TrimMix::Only, Pattern::Random));
    }

    #[test]
    fn bad_values_name_option_and_value() {
        let e = draft(&[("bs", Some("4q"))]).unwrap_err().to_string();
        assert!(e.starts_with("option 'bs': bad value '4q'"), "{e}");
        let e = draft(&[("iodepth", Some("0"))]).unwrap_err().to_string();
        assert!(e.contains("iodepth") && e.contains("at least 1"), "{e}");
        let e = draft(&[("ioengine", Some("spdk_bdev"))])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown ioengine 'spdk_bdev'"), "{e}");
        if !iolab_engine::spdk::BUILT {
            let e = draft(&[("ioengine", Some("spdk"))])
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("built without SPDK") && e.contains("--features spdk"),
                "{e}"
            );
        }
        let e = draft(&[("runtime", None)]).unwrap_err();
        assert_eq!(e, FioError::MissingValue("runtime".into()));
        let e = draft(&[("percentile_list", Some("50:101"))])
            .unwrap_err()
            .to_string();
        assert!(e.contains("101"), "{e}");
        let e = draft(&[("cpus_allowed", Some("x"))])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("option 'cpus_allowed': bad value 'x'"), "{e}");
    }

    #[test]
    fn unknown_and_unsupported_options_differ() {
        let mut d = JobDraft::new("t");
        assert_eq!(
            d.apply("iodepht", Some("1")).unwrap_err().to_string(),
            "unknown option 'iodepht' (did you mean 'iodepth'?)"
        );
        assert_eq!(
            d.apply("trim_backlog", Some("1")).unwrap_err().to_string(),
            "option 'trim_backlog' is not supported by iolab yet"
        );
        assert!(d
            .apply("verify", Some("md6"))
            .unwrap_err()
            .to_string()
            .contains("expected 0, meta, pattern or a checksum"));
        d.apply("verify", Some("md5")).unwrap();
        d.apply("verify", Some("0")).unwrap();
    }

    #[test]
    fn a_bare_log_option_is_named_after_the_job() {
        let mut d = JobDraft::new("global");
        d.apply("write_bw_log", None).unwrap();
        d.apply("write_lat_log", Some("lat")).unwrap();
        d.apply("filename", Some("/tmp/x")).unwrap();
        let mut job = d.clone();
        job.spec.name = "reader".into();
        let spec = &job.finish_all().unwrap()[0];
        assert_eq!(spec.logs.bw.as_deref(), Some("reader"));
        assert_eq!(spec.logs.lat.as_deref(), Some("lat"));
        assert!(matches!(
            d.apply("runtime", None),
            Err(crate::FioError::MissingValue(_))
        ));
    }

    #[test]
    fn directory_goes_before_every_name_as_fio() {
        let mut d = JobDraft::new("j");
        d.apply("directory", Some("/data/")).unwrap();
        d.apply("filename", Some("/abs/f:rel")).unwrap();
        let spec = &d.finish_all().unwrap()[0];
        assert_eq!(spec.filename, std::path::Path::new("/data//abs/f"));
        assert_eq!(spec.extra_files, [std::path::PathBuf::from("/data/rel")]);
    }
}
