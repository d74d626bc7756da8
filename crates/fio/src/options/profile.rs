//! The options of fio's built-in profiles (`tiobench`, `act`). fio registers them at start-up,
//! so a job file may set them without `profile=`; fio then checks their values and ignores
//! them. iolab does the same, so such files run as they do under fio (fio's own
//! `examples/waitfor.fio` sets `threads=1`).

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_time, parse_u32};

const IGNORED: &str = "Accepted and ignored, as fio does without `profile=`";

fn int(_: &mut crate::options::JobDraft, v: &str) -> Result<(), String> {
    parse_u32(v).map(|_| ())
}

fn text(_: &mut crate::options::JobDraft, _: &str) -> Result<(), String> {
    Ok(())
}

const fn profile(name: &'static str, kind: ValueKind) -> OptionDef {
    OptionDef {
        name,
        alias: None,
        kind,
        help: IGNORED,
        apply: match kind {
            ValueKind::Int => int,
            ValueKind::Time => |_, v| parse_time(v).map(|_| ()),
            ValueKind::Bool => |_, v| parse_bool(v).map(|_| ()),
            _ => text,
        },
    }
}

/// tiobench's options (`size` is iolab's own) and act's, with fio's value types.
pub static PROFILE_OPTIONS: &[OptionDef] = &[
    profile("block", ValueKind::Int),
    profile("numruns", ValueKind::Int),
    profile("dir", ValueKind::Str),
    profile("threads", ValueKind::Int),
    profile("device-names", ValueKind::Str),
    profile("load", ValueKind::Int),
    profile("test-duration", ValueKind::Time),
    profile("threads-per-queue", ValueKind::Int),
    profile("read-req-num-512-blocks", ValueKind::Int),
    profile("large-block-op-kbytes", ValueKind::Int),
    profile("prep", ValueKind::Bool),
];
