//! iolab's own options of `iolab run` (not fio's): where results go, consent to destroy,
//! parse-only, the runtime cap, the database. One definition per option: its name, its value
//! (a flag, or what it takes), its help, and how it updates the parsed options; `args` parses
//! with it, `--help` and the README list it, and a test checks every flag from it.

use std::path::PathBuf;

use crate::args::OutputFormat;
use crate::FioError;

/// What an option does with its value.
pub enum RunSetter {
    /// An on/off flag: the bool it sets. Bare means on; `=1/0`, `true/false`, `yes/no`,
    /// `on/off` as in fio; the last one given wins.
    Flag(fn(&mut RunOpts) -> &mut bool),
    /// An option with a value: parses and stores it.
    Value(fn(&mut RunOpts, &str) -> Result<(), FioError>),
    /// An option whose value is optional and given only with `=` (fio's `--cmdhelp[=OPT]`).
    OptValue(fn(&mut RunOpts, Option<&str>) -> Result<(), FioError>),
    /// One of fio's command-line options iolab does not take: the reason, said as an error.
    Refused(&'static str),
}

/// A run-wide option (not a job option): name, value placeholder (empty for a flag), help,
/// and how it updates [`RunOpts`].
pub struct RunOptionDef {
    pub name: &'static str,
    pub value: &'static str,
    pub help: &'static str,
    pub set: RunSetter,
}

impl RunOptionDef {
    /// Whether the option is an on/off flag (takes no following argument as its value).
    pub fn is_flag(&self) -> bool {
        matches!(self.set, RunSetter::Flag(_))
    }

    /// Whether a value may follow as the next argument (`--output FILE`).
    pub fn takes_next(&self) -> bool {
        matches!(self.set, RunSetter::Value(_))
    }
}

/// iolab's own options of `iolab run` (not fio's), as parsed.
#[derive(Debug, Clone)]
pub struct RunOpts {
    pub formats: Vec<OutputFormat>,
    pub output: Option<PathBuf>,
    pub allow_destroy: bool,
    pub parse_only: bool,
    /// fio 3.42's `--merge-blktrace-only`: write the jobs' merged blktraces, run nothing.
    pub merge_blktrace_only: bool,
    pub runtime_cap: Option<std::time::Duration>,
    pub db: Option<PathBuf>,
    pub stonewall_hosts: bool,
    pub keep_rseq: bool,
    pub load_curve: Option<iolab_job::LoadCurve>,
    pub repeat: u32,
    pub quiet: bool,
    pub fio_offsets: bool,
    /// How often the drives' health logs are read while the jobs run; `None`: before and
    /// after only.
    pub health_interval: Option<std::time::Duration>,
    /// fio's `--section`: only these sections of the job files run (none given: all).
    pub sections: Vec<String>,
    /// fio's `--minimal`: terse output (as `--output-format=terse`).
    pub minimal: bool,
    /// fio's `--readonly`: no job may write, trim, delete, truncate or lay out a file.
    pub readonly: bool,
    /// fio's `--eta`: when the progress line is drawn.
    pub eta: Eta,
    /// fio's `--eta-newline`: the progress line moves to a new line every so often.
    pub eta_newline: Option<std::time::Duration>,
    /// fio's `--eta-interval`: how often the progress line is redrawn.
    pub eta_interval: Option<std::time::Duration>,
    /// fio's `--showcmd`: print the jobs as one command line and exit.
    pub showcmd: bool,
    /// fio's `--max-jobs`: at most this many job copies.
    pub max_jobs: Option<u32>,
    /// fio's `--warnings-fatal`: a warning about the jobs is an error.
    pub warnings_fatal: bool,
    /// fio's `--debug`: what to print while parsing and running (`parse` only).
    pub debug: Vec<String>,
    /// fio's `--terse-version` (3 by default).
    pub terse_version: u8,
    /// fio's `--status-interval`: whole results every so often while the jobs run.
    pub status_interval: Option<std::time::Duration>,
    /// fio's `--bandwidth-log`: the run's aggregate bandwidth logs (`agg-read_bw.log`, ...).
    pub bandwidth_log: bool,
    /// fio's `--aux-path`: the directory of verify state files.
    pub aux_path: Option<PathBuf>,
    /// iolab's `--latency-windows`: each job's latency percentiles per window of this length.
    pub latency_windows: Option<std::time::Duration>,
}

/// fio's `--eta=when`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eta {
    /// On a terminal only (fio's default).
    Auto,
    /// Also when stderr is not a terminal.
    Always,
    Never,
}

impl Default for RunOpts {
    fn default() -> RunOpts {
        RunOpts {
            formats: vec![OutputFormat::Normal],
            output: None,
            allow_destroy: false,
            parse_only: false,
            merge_blktrace_only: false,
            runtime_cap: None,
            db: None,
            stonewall_hosts: false,
            keep_rseq: false,
            load_curve: None,
            repeat: 1,
            quiet: false,
            fio_offsets: false,
            health_interval: Some(std::time::Duration::from_secs(10)),
            sections: Vec::new(),
            readonly: false,
            minimal: false,
            eta: Eta::Auto,
            eta_newline: None,
            eta_interval: None,
            showcmd: false,
            max_jobs: None,
            warnings_fatal: false,
            debug: Vec::new(),
            terse_version: 3,
            status_interval: None,
            bandwidth_log: false,
            aux_path: None,
            latency_windows: None,
        }
    }
}

/// Applies `--name[=value]` if `name` is a run option; false when it is not (a job option).
pub fn apply(o: &mut RunOpts, name: &str, value: Option<&str>) -> Result<bool, FioError> {
    let Some(def) = RUN_OPTIONS.iter().find(|d| d.name == name) else {
        return Ok(false);
    };
    match (&def.set, value) {
        (RunSetter::Flag(field), None) => *field(o) = true,
        (RunSetter::Flag(field), Some(v)) => {
            *field(o) = crate::units::parse_bool(v).map_err(|_| FioError::BadValue {
                name: name.to_string(),
                value: v.to_string(),
                reason: "a flag takes 1 or 0 (true/false, yes/no, on/off), or nothing for 1".into(),
            })?
        }
        (RunSetter::Value(set), Some(v)) => set(o, v)?,
        (RunSetter::Value(_), None) => return Err(FioError::MissingValue(name.to_string())),
        (RunSetter::OptValue(set), v) => set(o, v)?,
        (RunSetter::Refused(why), _) => {
            return Err(FioError::Usage(format!("--{name}: {why}")));
        }
    }
    Ok(true)
}

fn bad(name: &str, value: &str, reason: impl Into<String>) -> FioError {
    FioError::BadValue {
        name: name.to_string(),
        value: value.to_string(),
        reason: reason.into(),
    }
}

fn set_repeat(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    o.repeat = match v.trim().parse::<u32>() {
        Ok(n @ 1..=1000) => n,
        _ => {
            return Err(bad(
                "repeat",
                v,
                "give how many times to run the jobs, 1 to 1000",
            ))
        }
    };
    Ok(())
}

fn set_runtime_cap(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    let cap = crate::units::parse_time(v).map_err(|r| bad("runtime-cap", v, r))?;
    if cap.is_zero() {
        return Err(bad("runtime-cap", v, "must be longer than zero"));
    }
    o.runtime_cap = Some(cap);
    Ok(())
}

fn set_health_interval(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    let every = crate::units::parse_time(v).map_err(|r| bad("health-interval", v, r))?;
    o.health_interval = (!every.is_zero()).then_some(every);
    Ok(())
}

fn set_latency_windows(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    let w = crate::units::parse_time(v).map_err(|r| bad("latency-windows", v, r))?;
    if w < std::time::Duration::from_millis(10) {
        return Err(bad(
            "latency-windows",
            v,
            "give a window of at least 10ms, such as 1s",
        ));
    }
    o.latency_windows = Some(w);
    Ok(())
}

/// A positive time for one of fio's intervals (`--status-interval`, `--eta-newline`, ...).
fn interval(name: &str, v: &str) -> Result<std::time::Duration, FioError> {
    let t = crate::units::parse_time(v).map_err(|r| bad(name, v, r))?;
    match t.is_zero() {
        true => Err(bad(name, v, "must be longer than zero")),
        false => Ok(t),
    }
}

fn set_eta(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    o.eta = match v.trim() {
        "auto" => Eta::Auto,
        "always" => Eta::Always,
        "never" => Eta::Never,
        _ => return Err(bad("eta", v, "fio's choices: always, never or auto")),
    };
    Ok(())
}

fn set_terse_version(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    o.terse_version = match v.trim() {
        "3" => 3,
        "2" | "4" | "5" => {
            return Err(bad(
                "terse-version",
                v,
                "iolab writes fio's terse version 3 (fio's default), not 2, 4 or 5",
            ))
        }
        _ => {
            return Err(bad(
                "terse-version",
                v,
                "fio's terse versions are 2, 3, 4 and 5",
            ))
        }
    };
    Ok(())
}

fn set_debug(o: &mut RunOpts, v: Option<&str>) -> Result<(), FioError> {
    let v = v.unwrap_or("");
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "parse" => o.debug.push(part.to_string()),
            "?" | "help" => {
                return Err(FioError::Usage(
                    "--debug: iolab prints fio's `parse` category (each option as it is read); \
                     for what a run does, see its JSON's iolab section and iolab doctor"
                        .into(),
                ))
            }
            other => {
                return Err(bad(
                    "debug",
                    other,
                    "iolab has fio's `parse` category only (process, file, io, mem, ... are \
                     fio's internals)",
                ))
            }
        }
    }
    if o.debug.is_empty() {
        return Err(bad("debug", v, "name a category: parse"));
    }
    Ok(())
}

fn set_load_curve(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    let curve = iolab_job::LoadCurve::parse(v).map_err(|r| bad("load-curve", v, r))?;
    o.load_curve = Some(curve);
    Ok(())
}

/// Run-wide options, for `--help` and the README: iolab's own, then fio's command-line
/// options (`fio --help`), each with fio's meaning or refused with the reason.
pub static RUN_OPTIONS: &[RunOptionDef] = &[
    RunOptionDef {
        name: "output-format",
        value: "normal|json|json+|terse[,..]",
        help: "normal: fio's report layout; json: fio's JSON schema (extras under \"iolab\"); \
               json+: JSON with the latency histograms' bins; terse: fio's semicolon-separated \
               line per job (version 3). A comma list prints each.",
        set: RunSetter::Value(|o, v| {
            o.formats = crate::args::parse_formats(v)?;
            // As fio: whichever of --minimal and --output-format comes last decides.
            o.minimal = false;
            Ok(())
        }),
    },
    RunOptionDef {
        name: "output",
        value: "FILE",
        help: "Write results to FILE instead of standard output.",
        set: RunSetter::Value(|o, v| {
            o.output = Some(PathBuf::from(v));
            Ok(())
        }),
    },
    RunOptionDef {
        name: "parse-only",
        value: "",
        help: "Check the options and job files, print the jobs, and exit without touching any \
               target.",
        set: RunSetter::Flag(|o| &mut o.parse_only),
    },
    RunOptionDef {
        name: "allow-destroy",
        value: "",
        help: "(iolab) Allow the jobs to overwrite their targets: block devices, and existing \
               files iolab did not create. Mounted devices, devices in use (held exclusively, \
               backing a loop device) and the disk holding / are refused regardless.",
        set: RunSetter::Flag(|o| &mut o.allow_destroy),
    },
    RunOptionDef {
        name: "db",
        value: "PATH",
        help: "(iolab) Results database the run is recorded in (default: $IOLAB_DB, else \
               $XDG_DATA_HOME/iolab/results.db); see iolab history and iolab show.",
        set: RunSetter::Value(|o, v| {
            o.db = Some(PathBuf::from(v));
            Ok(())
        }),
    },
    RunOptionDef {
        name: "runtime-cap",
        value: "TIME",
        help: "(iolab) Cut every job's ramp_time and runtime to at most TIME, to try a long job \
               file quickly.",
        set: RunSetter::Value(set_runtime_cap),
    },
    RunOptionDef {
        name: "health-interval",
        value: "TIME",
        help: "(iolab) How often an NVMe drive's SMART / health log is read while the jobs run \
               (default 10s; 0: only before and after). The run says whether the drive \
               throttled, crossed its warning temperature or raised a critical warning, or \
               \"no throttling, peak N °C\"; other drives have no such log, which is said.",
        set: RunSetter::Value(set_health_interval),
    },
    RunOptionDef {
        name: "latency-windows",
        value: "TIME",
        help: "(iolab) Keep every job's latency percentiles (p50, p99, p99.99, max) per window \
               of TIME (at least 10ms; 1s as the reviews' consistency step), stored with the \
               run: iolab report draws them over time beside IOPS and bandwidth, as fio-plot \
               draws fio's latency logs.",
        set: RunSetter::Value(set_latency_windows),
    },
    RunOptionDef {
        name: "keep-rseq",
        value: "",
        help: "(iolab) Keep glibc's restartable-sequence (rseq) registration on the I/O \
               threads. By default each drops it, as GLIBC_TUNABLES=glibc.pthread.rseq=0 \
               would: the kernel updates it after every sleep, which costs an I/O that waits \
               for its completion 100-200 ns. The setup line says \"rseq off\".",
        set: RunSetter::Flag(|o| &mut o.keep_rseq),
    },
    RunOptionDef {
        name: "load-curve",
        value: "LOADS",
        help: "(iolab) Latency under load: run the jobs once at full speed (the peak), then \
               open loop (rate_open_loop) at each load, given as shares of the peak \
               (10%,50%,0.9) or as I/Os per second (20000,40000); prints offered against \
               achieved IOPS, lat and response-time percentiles, and whether each load was \
               carried. Every point is saved with the run.",
        set: RunSetter::Value(set_load_curve),
    },
    RunOptionDef {
        name: "fio-offsets",
        value: "",
        help: "(iolab) Random offsets in fio's own order: fio's random map, draw for draw, so \
               a random job issues the very offsets fio's would (write_iolog lines match). By \
               default each block is still done once a pass, in iolab's own order, about \
               3 ns an I/O cheaper; zonemode=zbd always takes fio's order, which decides the \
               zones' write pointers. norandommap jobs draw fio's offsets either way.",
        set: RunSetter::Flag(|o| &mut o.fio_offsets),
    },
    RunOptionDef {
        name: "quiet",
        value: "",
        help: "(iolab) No progress line on stderr. The line (a start line with the plan, then \
               what runs and the time left) is drawn only on a terminal anyway; errors, \
               warnings and where the run was saved are always said.",
        set: RunSetter::Flag(|o| &mut o.quiet),
    },
    RunOptionDef {
        name: "repeat",
        value: "N",
        help: "(iolab) Run the jobs N times, one after another (a job file's jobs interleave: \
               A B A B ..., so drift hits all alike). Each job's figures pool every repeat \
               (histograms merged, so percentiles are exact) and each repeat is kept; normal \
               output adds each figure's mean with its 95 % confidence interval, JSON adds \
               iolab.repeats. iolab compare then says faster, slower or no difference.",
        set: RunSetter::Value(set_repeat),
    },
    RunOptionDef {
        name: "stonewall-hosts",
        value: "",
        help: "(iolab, many hosts) Under mpirun: when the first host finishes a phase (a \
               size-based job), stop it on every host, so stragglers do not stretch the \
               aggregate's window (IOR's stonewalling). See docs/multihost.md.",
        set: RunSetter::Flag(|o| &mut o.stonewall_hosts),
    },
    RunOptionDef {
        name: "section",
        value: "NAME",
        help: "Run only the job file section NAME ([global] sections always apply); give it \
               again for more sections, as fio.",
        set: RunSetter::Value(|o, v| {
            o.sections.push(v.trim().to_string());
            Ok(())
        }),
    },
    RunOptionDef {
        name: "readonly",
        value: "",
        help: "fio's safety check: refuse any job that writes, trims, deletes (filedelete, dirdelete, \
               unlink), truncates (ftruncate), creates (filecreate, dircreate), allocates \
               (falloc), moves blocks (e4defrag) or runs a program (exec, which iolab cannot \
               keep from writing), or whose file would have to be laid out or extended; nothing \
               is written. (fio 3.33 still deletes a filedelete job's files under --readonly; \
               iolab refuses the job.)",
        set: RunSetter::Flag(|o| &mut o.readonly),
    },
    RunOptionDef {
        name: "minimal",
        value: "",
        help: "fio's terse output (as --output-format=terse): one line of semicolon-separated \
               figures per job, terse version 3.",
        set: RunSetter::Flag(|o| &mut o.minimal),
    },
    RunOptionDef {
        name: "terse-version",
        value: "3",
        help: "The terse format's version: 3 (fio's default, the one iolab writes).",
        set: RunSetter::Value(set_terse_version),
    },
    RunOptionDef {
        name: "status-interval",
        value: "TIME",
        help: "Print the whole results so far every TIME while the jobs run, in the output \
               format asked for (each a JSON document with json), as fio does; the final \
               results follow as usual.",
        set: RunSetter::Value(|o, v| {
            o.status_interval = Some(interval("status-interval", v)?);
            Ok(())
        }),
    },
    RunOptionDef {
        name: "eta",
        value: "auto|always|never",
        help: "When the progress line (fio's ETA line) is drawn: on a terminal (auto, the \
               default), also when stderr is not one (always), or never (as --quiet).",
        set: RunSetter::Value(set_eta),
    },
    RunOptionDef {
        name: "eta-newline",
        value: "TIME",
        help: "Start the progress line afresh on a new line every TIME (a log keeps each).",
        set: RunSetter::Value(|o, v| {
            o.eta_newline = Some(interval("eta-newline", v)?);
            Ok(())
        }),
    },
    RunOptionDef {
        name: "eta-interval",
        value: "TIME",
        help: "How often the progress line is redrawn (default 250ms).",
        set: RunSetter::Value(|o, v| {
            o.eta_interval = Some(interval("eta-interval", v)?);
            Ok(())
        }),
    },
    RunOptionDef {
        name: "showcmd",
        value: "",
        help: "Print the job files' jobs as one iolab run command line (fio's --showcmd) and \
               exit without running them.",
        set: RunSetter::Flag(|o| &mut o.showcmd),
    },
    RunOptionDef {
        name: "cmdhelp",
        value: "[=OPTION]",
        help: "Without a value: every job option with its one-line help, as fio lists them. \
               With one (or all): that option's help in fio's layout.",
        set: RunSetter::OptValue(|_, _| Ok(())),
    },
    RunOptionDef {
        name: "enghelp",
        value: "[=ENGINE]",
        help: "Without a value: the I/O engines iolab has. With one: that engine's own \
               options.",
        set: RunSetter::OptValue(|_, _| Ok(())),
    },
    RunOptionDef {
        name: "bandwidth-log",
        value: "",
        help: "Write the run's aggregate bandwidth logs, agg-read_bw.log, agg-write_bw.log \
               and agg-trim_bw.log, in fio's log format (the sum of every job's samples).",
        set: RunSetter::Flag(|o| &mut o.bandwidth_log),
    },
    RunOptionDef {
        name: "warnings-fatal",
        value: "",
        help: "A warning about the jobs (an option fio would ignore, a value adjusted) is an \
               error: exit 2, nothing written.",
        set: RunSetter::Flag(|o| &mut o.warnings_fatal),
    },
    RunOptionDef {
        name: "max-jobs",
        value: "N",
        help: "Refuse a run of more than N job copies (numjobs counted), as fio's limit.",
        set: RunSetter::Value(|o, v| {
            o.max_jobs = Some(match v.trim().parse::<u32>() {
                Ok(n) if n > 0 => n,
                _ => return Err(bad("max-jobs", v, "give a number of jobs, 1 or more")),
            });
            Ok(())
        }),
    },
    RunOptionDef {
        name: "debug",
        value: "parse",
        help: "fio's debug output; iolab has its parse category: each option as iolab reads \
               it (`parse  option=bs, value=4k -> 4096`) on stderr.",
        set: RunSetter::OptValue(set_debug),
    },
    RunOptionDef {
        name: "alloc-size",
        value: "KB",
        help: "fio's shared-memory pool size; iolab has no such pool, so it is read and \
               ignored.",
        set: RunSetter::Value(|_, v| {
            crate::units::parse_size(v).map_err(|r| bad("alloc-size", v, r))?;
            Ok(())
        }),
    },
    RunOptionDef {
        name: "client",
        value: "",
        help: "",
        set: RunSetter::Refused(
            "iolab has no fio server protocol; it runs one job on many hosts under mpirun \
             instead (one process per host, the results joined as fio's client output is): \
             see docs/multihost.md",
        ),
    },
    RunOptionDef {
        name: "server",
        value: "",
        help: "",
        set: RunSetter::Refused(
            "iolab has no fio server protocol; run iolab on each host under mpirun instead: \
             see docs/multihost.md",
        ),
    },
    RunOptionDef {
        name: "daemonize",
        value: "",
        help: "",
        set: RunSetter::Refused("goes with --server, which iolab does not have (see docs/multihost.md)"),
    },
    RunOptionDef {
        name: "remote-config",
        value: "",
        help: "",
        set: RunSetter::Refused("goes with --client, which iolab does not have (see docs/multihost.md)"),
    },
    RunOptionDef {
        name: "idle-prof",
        value: "",
        help: "",
        set: RunSetter::Refused(
            "iolab does not measure CPU idleness with spinning threads; every job's CPU use is \
             in its cpu line, and iolab doctor says what else loads the machine",
        ),
    },
    RunOptionDef {
        name: "inflate-log",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab writes its logs uncompressed (no log_compression), so there is nothing to inflate"),
    },
    RunOptionDef {
        name: "trigger-file",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab has no triggers; stop a run with SIGINT or SIGTERM (its results are kept)"),
    },
    RunOptionDef {
        name: "trigger-timeout",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab has no triggers; a job's runtime bounds it"),
    },
    RunOptionDef {
        name: "trigger",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab has no triggers"),
    },
    RunOptionDef {
        name: "trigger-remote",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab has no triggers (nor fio's server)"),
    },
    RunOptionDef {
        name: "aux-path",
        value: "DIR",
        help: "Where verify state files (verify_state_save, verify_state_load) are written and \
               read, instead of the current directory, as fio's.",
        set: RunSetter::Value(|o, v| {
            if v.is_empty() {
                return Err(bad("aux-path", v, "give a directory"));
            }
            o.aux_path = Some(PathBuf::from(v));
            Ok(())
        }),
    },
    RunOptionDef {
        name: "cpuclock-test",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab's clock is calibrated every run; iolab doctor shows the clock source"),
    },
    RunOptionDef {
        name: "crctest",
        value: "",
        help: "",
        set: RunSetter::Refused("iolab has no checksum benchmark; verify's checksums are fio's"),
    },
    RunOptionDef {
        name: "merge-blktrace-only",
        value: "",
        help: "Write the jobs' merged blktraces (merge_blktrace_file) and exit without running \
               any I/O (fio 3.42).",
        set: RunSetter::Flag(|o| &mut o.merge_blktrace_only),
    },
];
