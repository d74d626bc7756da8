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
mod draft;
pub mod files;
mod jobs;
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

pub use draft::{JobDraft, ParseFlags, ParseFlagsGuard};
pub use jobs::OPTIONS;

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
mod tests;
