//! fio's options about its own machinery (clocks, helper CPUs, random seeds) that have an
//! iolab counterpart or none to change.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_u32};

pub static PROCESS_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "cgroup",
        alias: None,
        kind: ValueKind::Str,
        help: "Charge the job's I/O to this control group: made (0755) under the first blkio (cgroup v1) or cgroup2 hierarchy mounted, as fio finds it, and joined for the job. On v1 only the job's thread moves, as fio's thread=1 job; on cgroup2, which moves whole processes, all of iolab does, as fio with thread=1. Each thread goes back where it was afterwards; a cgroup iolab made is removed when the run ends.",
        apply: |d, v| {
            if v.is_empty() || v.contains('/') || v == "." || v == ".." {
                return Err("must name one cgroup under the hierarchy's root".into());
            }
            d.spec.cgroup.name = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "cgroup_weight",
        alias: None,
        kind: ValueKind::Int,
        help: "The blkio.weight written into the job's cgroup, 100 to 1000 (cgroup v1 only, where the I/O scheduler shares by weight: BFQ; refused on cgroup2 as fio refuses it).",
        apply: |d, v| {
            let w = parse_u32(v)?;
            if !(100..=1000).contains(&w) {
                return Err("must be between 100 and 1000".into());
            }
            d.spec.cgroup.weight = w;
            Ok(())
        },
    },
    OptionDef {
        name: "cgroup_nodelete",
        alias: None,
        kind: ValueKind::Bool,
        help: "Keep the cgroup iolab made for the job when the run ends (to read its counters); one that was there before is never removed (default 0).",
        apply: |d, v| {
            d.spec.cgroup.nodelete = parse_bool(v)?;
            Ok(())
        },
    },
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
