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
}

/// iolab's own options of `iolab run` (not fio's), as parsed.
#[derive(Debug, Clone)]
pub struct RunOpts {
    pub formats: Vec<OutputFormat>,
    pub output: Option<PathBuf>,
    pub allow_destroy: bool,
    pub parse_only: bool,
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
}

impl Default for RunOpts {
    fn default() -> RunOpts {
        RunOpts {
            formats: vec![OutputFormat::Normal],
            output: None,
            allow_destroy: false,
            parse_only: false,
            runtime_cap: None,
            db: None,
            stonewall_hosts: false,
            keep_rseq: false,
            load_curve: None,
            repeat: 1,
            quiet: false,
            fio_offsets: false,
            health_interval: Some(std::time::Duration::from_secs(10)),
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

fn set_load_curve(o: &mut RunOpts, v: &str) -> Result<(), FioError> {
    let curve = iolab_job::LoadCurve::parse(v).map_err(|r| bad("load-curve", v, r))?;
    o.load_curve = Some(curve);
    Ok(())
}

/// Run-wide options, for `--help` and the README.
pub static RUN_OPTIONS: &[RunOptionDef] = &[
    RunOptionDef {
        name: "output-format",
        value: "normal|json|json+[,..]",
        help: "normal: fio's report layout; json: fio's JSON schema (extras under \"iolab\"); \
               json+: JSON with the latency histograms' bins. A comma list prints each.",
        set: RunSetter::Value(|o, v| {
            o.formats = crate::args::parse_formats(v)?;
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
];
