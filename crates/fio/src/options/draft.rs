//! The job being built from fio's options: [`JobDraft`] takes each option in turn (as the
//! command line and job files give them) and, when the job is finished, resolves what fio
//! keeps apart until then into the job model ([`iolab_job::JobSpec`]), which knows nothing of
//! fio's syntax.

use super::*;

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
    /// The job file section this job is (None on the command line): fio names the job's
    /// default files and its clones by it, whatever a `name=` inside it says.
    pub section: Option<String>,
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

/// Whether `path` exists and is not a regular file (fio's `exists_and_not_regfile()`,
/// following links as its stat does): a job named so takes it as its file.
fn names_a_device(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.file_type().is_file())
}

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
            section: None,
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
        // fio names a job's clones after its section, the first after a `name=` in it.
        self.spec.clone_name = self.section.clone().filter(|s| *s != self.spec.name);
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
                // fio's add_job(): files are named after the section, and so are the clones
                // (the first keeps a `name=`).
                let name = self
                    .section
                    .clone()
                    .unwrap_or_else(|| self.spec.name.clone());
                if self.nrfiles <= 1 && names_a_device(&name) {
                    // fio's exists_and_not_regfile(): a job named after an existing device
                    // (`[/dev/sdb]` with no filename=) runs on it; the guard still decides
                    // whether it may be written.
                    self.spec.filename = place(&name);
                    return Ok(vec![self.finish()?]);
                }
                if name.contains('/') && self.filename_format.is_none() {
                    return Err(crate::FioError::BadValue {
                        name: "name".into(),
                        value: name.clone(),
                        reason: format!(
                            "names no existing device, so it names the job's default file \
                             ({name}.0.0), which iolab does not make from a name with '/' \
                             (fio would create it); give filename= or directory="
                        ),
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
                        if i > 0 {
                            if let Some(c) = s.clone_name.take() {
                                s.name = c;
                            }
                            // Each copy draws its own sizes and offsets, as a clone of one
                            // spec does (the worker adds the same step per clone) and as
                            // fio's seeds differ by thread number.
                            s.seed = s.seed.wrapping_add(i as u64 * iolab_job::COPY_SEED_STEP);
                            // Copies start together: only the first waits or starts a group.
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
        if let Some(open) = self.openfiles.filter(|&n| holds_files && n < files) {
            // fio opens at most `open` at once and moves on when one is done: iolab takes
            // the files in that order, with every descriptor open from the start.
            self.spec.file_window = Some(open);
            eprintln!(
                "iolab: job '{}': openfiles={open}: iolab spreads the I/O over {open} files \
                 at a time, moving on when one is done, as fio does, but keeps all {files} \
                 files open",
                self.spec.name
            );
        }
        if self.spec.engine.kind == EngineKind::Vsync && self.spec.iodepth > 1 {
            // Measured against fio 3.33 and 3.42 (engines/sync.c): each commit keeps one
            // event, so fio reaps one I/O of those in flight each time and never counts
            // the others' bytes, though it wrote them.
            eprintln!(
                "iolab: job '{}': vsync is synchronous, so iolab runs it at depth 1 and counts \
                 every byte it moves; fio at iodepth={} issues the same I/Os but counts the \
                 bytes of only the one it reaps at a time (its vsync commit keeps one event), \
                 so fio's io_bytes for this job is lower than what was moved",
                self.spec.name, self.spec.iodepth
            );
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
        if self.allrandrepeat {
            // fio's td_fill_rand_seeds(): fixed seeds, randseed or not.
            self.spec.seed = JobSpec::new("", "").seed;
        } else if !self.randrepeat && !self.randseed_set {
            self.spec.seed = clock_seed();
        }
        self.spec.seed_rule = iolab_job::SeedRule {
            repeatable: self.randrepeat,
            all_fixed: self.allrandrepeat,
            seed: self.spec.seed,
        };
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
/// A seed that differs from run to run (`randrepeat=0`).
fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (t.as_nanos() as u64) ^ ((std::process::id() as u64) << 32)
}
