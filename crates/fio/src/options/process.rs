//! fio's options about its own machinery (clocks, helper CPUs, random seeds) that have an
//! iolab counterpart or none to change.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_u32};

pub static PROCESS_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "clocksource",
        alias: None,
        kind: ValueKind::Str,
        help: "fio's timing source: gettimeofday, clock_gettime or cpu. iolab always times with the CPU's TSC calibrated against CLOCK_MONOTONIC (fio's cpu, the clock it prefers), so every value times the same way; the run's first line names the clock.",
        apply: |_, v| match v.trim() {
            "gettimeofday" | "clock_gettime" | "cpu" => Ok(()),
            _ => Err("is not gettimeofday, clock_gettime or cpu".into()),
        },
    },
    OptionDef {
        name: "gtod_cpu",
        alias: None,
        kind: ValueKind::Int,
        help: "fio keeps a thread on this CPU calling gettimeofday for gtod_reduce. iolab reads the TSC and has no such thread: the CPU is checked and stays free for the jobs.",
        apply: |_, v| parse_u32(v).map(|_| ()),
    },
    OptionDef {
        name: "allrandrepeat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Every random stream (offsets, sizes, mixes, data) repeats from run to run, whatever randrepeat and randseed say (default 0). iolab's streams all derive from the job's seed, which this fixes.",
        apply: |d, v| {
            d.allrandrepeat = parse_bool(v)?;
            Ok(())
        },
    },
];
