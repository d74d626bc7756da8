//! fio's options for what runs around a job and when it stops: commands before and after,
//! the user it runs as, latency limits, errors that end the run, and whether it is reported.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_time_us, parse_u32};

/// `max_latency=R[,W[,T]]`: one value for every direction, or one each (fio's split).
fn parse_max_latency(v: &str) -> Result<[Option<std::time::Duration>; 3], String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err("is not TIME or READ,WRITE[,TRIM]".into());
    }
    let mut out = [None; 3];
    for (i, slot) in out.iter_mut().enumerate() {
        let p = parts.get(i).or(parts.last()).expect("one part at least");
        let d = parse_time_us(p)?;
        *slot = (!d.is_zero()).then_some(d);
    }
    Ok(out)
}

pub static CONTROL_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "exec_prerun",
        alias: None,
        kind: ValueKind::Str,
        help: "A shell command run before the job's I/O, its output in JOBNAME.prerun.txt; the job fails if the command does.",
        apply: |d, v| {
            d.spec.control.exec_prerun = Some(v.to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "exec_postrun",
        alias: None,
        kind: ValueKind::Str,
        help: "A shell command run after the job, its output in JOBNAME.postrun.txt; a failure is reported, the results kept.",
        apply: |d, v| {
            d.spec.control.exec_postrun = Some(v.to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "uid",
        alias: None,
        kind: ValueKind::Int,
        help: "Run the job's thread as this user ID (from before its files are opened).",
        apply: |d, v| {
            d.spec.control.uid = Some(parse_u32(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "gid",
        alias: None,
        kind: ValueKind::Int,
        help: "Run the job's thread as this group ID (see uid).",
        apply: |d, v| {
            d.spec.control.gid = Some(parse_u32(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "max_latency",
        alias: None,
        kind: ValueKind::Time,
        help: "End the job with ETIMEDOUT when a read or write takes longer than this (its whole latency; microseconds without a unit; READ,WRITE for one each).",
        apply: |d, v| {
            d.spec.control.max_latency = parse_max_latency(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "exitall_on_error",
        alias: None,
        kind: ValueKind::Bool,
        help: "When this job ends in error, stop the others (as exit_what says).",
        apply: |d, v| {
            d.spec.control.exitall_on_error = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "stats",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report the job (default 1); 0 leaves it out of every output and the database (a job that fails still shows).",
        apply: |d, v| {
            d.spec.control.stats = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disk_util",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report the utilization of the disks under the job's files (default 1): fio's \"Disk stats\" and JSON disk_util.",
        apply: |d, v| {
            d.spec.control.disk_util = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "error_dump",
        alias: None,
        kind: ValueKind::Bool,
        help: "Accepted and ignored, as fio does while every error is fatal (continue_on_error=none): the error that ends a job is always printed.",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "write_barrier",
        alias: None,
        kind: ValueKind::Int,
        help: "Accepted and ignored, as fio does on every engine but sg: fio marks every Nth write a barrier, which only the SCSI generic engine acts on.",
        apply: |_, v| parse_u32(v).map(|_| ()),
    },
    OptionDef {
        name: "atomic",
        alias: None,
        kind: ValueKind::Bool,
        help: "0 is the default; 1 (O_ATOMIC writes) is refused, since Linux has no O_ATOMIC (fio's open fails with EINVAL here too).",
        apply: |_, v| match parse_bool(v)? {
            false => Ok(()),
            true => Err("Linux has no O_ATOMIC (fio's open fails with EINVAL too)".into()),
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn max_latency_splits_as_fio() {
        let us = |n| Some(Duration::from_micros(n));
        assert_eq!(parse_max_latency("100"), Ok([us(100), us(100), us(100)]));
        assert_eq!(
            parse_max_latency("1ms,200"),
            Ok([us(1000), us(200), us(200)])
        );
        assert_eq!(parse_max_latency("0"), Ok([None; 3]));
        assert!(parse_max_latency("1,2,3,4").is_err());
    }
}
