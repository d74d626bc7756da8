//! fio's options for what runs around a job and when it stops: commands before and after,
//! the user it runs as, latency limits, errors that end the run, and whether it is reported.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_time_us, parse_u32};

/// `max_latency=R[,W[,T]]`, split as fio's rate options (`parse_rate`: 0 is no limit).
fn parse_max_latency(v: &str) -> Result<[Option<std::time::Duration>; 3], String> {
    if v.split(',').count() > 3 {
        return Err("is not TIME or READ,WRITE[,TRIM]".into());
    }
    crate::options::parse_rate(v, parse_time_us)
}

/// fio's `str2error()` names: errno 1 to 34 in Linux's order.
const ERRNO_NAMES: [&str; 34] = [
    "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD",
    "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV",
    "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC",
    "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
];

/// `continue_on_error`: which kinds (read, write, verify) go on, as bits.
fn parse_continue(v: &str) -> Result<u8, String> {
    Ok(match v.trim() {
        "none" | "0" => 0,
        "read" => 1,
        "write" => 2,
        "io" => 3,
        "verify" => 4,
        "all" | "1" => 7,
        _ => return Err("is not none, read, write, io, verify, all, 0 or 1".into()),
    })
}

/// `ignore_error=READ,WRITE,VERIFY`, each a `:`-list of errno names (fio's: EPERM to
/// ERANGE) or numbers; an empty list leaves that kind alone.
fn parse_ignore(v: &str) -> Result<[Option<Vec<i32>>; 3], String> {
    let kinds: Vec<&str> = v.split(',').collect();
    if kinds.len() > 3 {
        return Err("is not READ_LIST,WRITE_LIST,VERIFY_LIST".into());
    }
    let mut out: [Option<Vec<i32>>; 3] = Default::default();
    for (slot, list) in out.iter_mut().zip(&kinds) {
        let mut errs = Vec::new();
        for e in list.split(':').map(str::trim).take_while(|e| !e.is_empty()) {
            let n = match e.strip_prefix('E') {
                Some(_) => ERRNO_NAMES
                    .iter()
                    .position(|n| *n == e)
                    .map(|i| i as i32 + 1),
                None => e.parse::<i32>().ok().map(i32::abs).filter(|n| *n > 0),
            };
            errs.push(n.ok_or_else(|| format!("unknown error {e}, please use number value"))?);
        }
        *slot = (!errs.is_empty()).then_some(errs);
    }
    Ok(out)
}

/// The job's error policy from `continue_on_error` (bits) and `ignore_error` (lists): a kind
/// goes on when either names it, past the listed errors or fio's EIO and EILSEQ.
pub fn error_policy(continue_bits: u8, ignore: &[Option<Vec<i32>>; 3]) -> iolab_job::ErrorPolicy {
    let mut p = iolab_job::ErrorPolicy::default();
    for (k, forgiven) in p.forgiven.iter_mut().enumerate() {
        *forgiven = match (&ignore[k], continue_bits & (1 << k) != 0) {
            (Some(list), _) => list.clone(),
            (None, true) => iolab_job::errors::NON_FATAL.to_vec(),
            (None, false) => Vec::new(),
        };
    }
    p
}

pub static CONTROL_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "continue_on_error",
        alias: None,
        kind: ValueKind::Str,
        help: "Go on after a non-fatal error (EIO or EILSEQ, or those ignore_error lists) of these kinds: none (default), read, write, io, verify, all; the errors are counted (total_err, first_error).",
        apply: |d, v| {
            d.continue_on_error = parse_continue(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ignore_error",
        alias: None,
        kind: ValueKind::Str,
        help: "The errors to go on after, per kind: READ,WRITE,VERIFY lists of names (EPERM to ERANGE) or numbers joined by ':' (ignore_error=,ENOSPC:122); a list turns continue_on_error on for its kind, as fio.",
        apply: |d, v| {
            d.ignore_error = parse_ignore(v)?;
            Ok(())
        },
    },
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
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn error_policy_is_fios() {
        let p = error_policy(parse_continue("write").unwrap(), &Default::default());
        assert!(p.forgives(iolab_job::ErrorKind::Write, libc::EIO));
        assert!(!p.forgives(iolab_job::ErrorKind::Read, libc::EIO));
        let ignore = parse_ignore(",ENOSPC:122").unwrap();
        let p = error_policy(0, &ignore);
        assert!(p.forgives(iolab_job::ErrorKind::Write, libc::ENOSPC));
        assert!(p.forgives(iolab_job::ErrorKind::Write, 122));
        assert!(!p.forgives(iolab_job::ErrorKind::Write, libc::EIO));
        assert!(parse_ignore("EWHAT").is_err());
    }

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
