//! fio's per-I/O log options: which logs, their names and what a line holds.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_u32};

pub static LOG_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "write_lat_log",
        alias: None,
        kind: ValueKind::Str,
        help: "Log every I/O's latency to PREFIX_lat.N.log, PREFIX_clat.N.log and PREFIX_slat.N.log (N: the job's number), in fio's format (ms, ns, direction, bytes, 0).",
        apply: |d, v| {
            d.spec.logs.lat = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "write_iops_log",
        alias: None,
        kind: ValueKind::Str,
        help: "Log IOPS to PREFIX_iops.N.log (per I/O, or per log_avg_msec window).",
        apply: |d, v| {
            d.spec.logs.iops = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "write_bw_log",
        alias: None,
        kind: ValueKind::Str,
        help: "Log bandwidth to PREFIX_bw.N.log (per I/O, or KiB/s per log_avg_msec window).",
        apply: |d, v| {
            d.spec.logs.bw = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "log_avg_msec",
        alias: None,
        kind: ValueKind::Int,
        help: "Average log entries over windows of this many ms, one line per window and direction (default 0: every I/O).",
        apply: |d, v| {
            d.spec.logs.avg_msec = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_offset",
        alias: None,
        kind: ValueKind::Bool,
        help: "Per-I/O log lines also give the I/O's offset in bytes (fio's sixth column, before the priority).",
        apply: |d, v| {
            d.spec.logs.offset = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_issue_time",
        alias: None,
        kind: ValueKind::Bool,
        help: "Latency log lines also give when each I/O was issued, in ns since the log's start (fio 3.42; a last column: set on the completion and submission latency logs, 0 on the others). Needs write_lat_log and log_offset, as fio.",
        apply: |d, v| {
            d.spec.logs.issue_time = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_entries",
        alias: None,
        kind: ValueKind::Int,
        help: "fio's first allocation of log entries (memory only). iolab sizes its logs from the run and its memory room; the value is checked and the logs are the same.",
        apply: |_, v| parse_u32(v).map(|_| ()),
    },
    OptionDef {
        name: "log_compression",
        alias: None,
        kind: ValueKind::Size,
        help: "fio compresses logs in memory in chunks of this size (memory only; the files are text unless log_store_compressed). iolab keeps logs uncompressed in memory; the value is checked and the files are the same.",
        apply: |_, v| crate::units::parse_size(v).map(|_| ()),
    },
    OptionDef {
        name: "log_store_compressed",
        alias: None,
        kind: ValueKind::Bool,
        help: "Store the logs as fio's compressed PREFIX_KIND.N.log.fz files: zlib streams of fio's binary samples, which fio --inflate-log prints as the text log (not with write_hist_log).",
        apply: |d, v| {
            d.spec.logs.store_compressed = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_compression_cpus",
        alias: None,
        kind: ValueKind::Str,
        help: "CPUs for fio's log compression threads; iolab has none (see log_compression), the CPU list is checked.",
        apply: |_, v| v.parse::<iolab_job::CpuSet>().map(|_| ()).map_err(|e| e.to_string()),
    },
    OptionDef {
        name: "log_unix_epoch",
        alias: None,
        kind: ValueKind::Bool,
        help: "Log lines carry Unix time in ms (the clock log_alternate_epoch_clock_id names, CLOCK_REALTIME by default) instead of ms since the job's start.",
        apply: |d, v| {
            d.log_epoch[0] = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_alternate_epoch",
        alias: None,
        kind: ValueKind::Bool,
        help: "Log lines carry the time of the clock log_alternate_epoch_clock_id names, in ms.",
        apply: |d, v| {
            d.log_epoch[1] = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_alternate_epoch_clock_id",
        alias: None,
        kind: ValueKind::Int,
        help: "The clock_gettime clock of log_unix_epoch and log_alternate_epoch (default 0, CLOCK_REALTIME; 1 is CLOCK_MONOTONIC).",
        apply: |d, v| {
            d.log_epoch_clock =
                i32::try_from(parse_u32(v)?).map_err(|_| "is too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "job_start_clock_id",
        alias: None,
        kind: ValueKind::Int,
        help: "The clock_gettime clock the JSON's job_start is read from, in ms (fio 3.42; default 0, CLOCK_REALTIME; 1 is CLOCK_MONOTONIC).",
        apply: |d, v| {
            d.spec.start_clock =
                i32::try_from(parse_u32(v)?).map_err(|_| "is too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "write_hist_log",
        alias: None,
        kind: ValueKind::Str,
        help: "Log completion-latency histograms to PREFIX_clat_hist.N.log, one line per log_hist_msec window and direction: ms, direction, block size, then the window's count in each of fio's 1856 latency bins (summed 2^log_hist_coarseness at a time), as fio's (fio's tools/hist/fiologparser_hist.py reads it).",
        apply: |d, v| {
            d.spec.logs.hist = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "log_hist_msec",
        alias: None,
        kind: ValueKind::Int,
        help: "The histogram log's window in ms (default 0: the file is made but, as in fio, holds no lines).",
        apply: |d, v| {
            d.spec.logs.hist_msec = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "log_hist_coarseness",
        alias: None,
        kind: ValueKind::Int,
        help: "0 to 6: each histogram log column sums 2^N of fio's bins (1856 columns at 0, 29 at 6).",
        apply: |d, v| {
            let n = parse_u32(v)?;
            if n > 6 {
                return Err("must be between 0 and 6".into());
            }
            d.spec.logs.hist_coarseness = n as u8;
            Ok(())
        },
    },
    OptionDef {
        name: "log_window_value",
        alias: Some("log_max_value"),
        kind: ValueKind::Str,
        help: "With log_avg_msec, what a window's latency line gives: avg (the mean, the default), max (the largest latency in it) or both (fio 3.42: the mean, then the largest, as two columns; an IOPS or bandwidth line repeats its value, a per-I/O line's second value is 0); 0 and 1 are avg and max, as fio 3.33's log_max_value (fio 3.42's name is log_window_value).",
        apply: |d, v| {
            (d.spec.logs.max_value, d.spec.logs.window_both) = match v.trim() {
                "avg" | "0" => (false, false),
                "max" | "1" => (true, false),
                "both" => (false, true),
                _ => return Err("fio's choices: avg, max or both (0 and 1 as avg and max)".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "per_job_logs",
        alias: None,
        kind: ValueKind::Bool,
        help: "Each job copy logs to its own PREFIX_KIND.N.log (default 1); 0: copies with one prefix share PREFIX_KIND.log, one after another (the file is started afresh by each run, where fio appends to an old one).",
        apply: |d, v| {
            d.spec.logs.per_job = parse_bool(v)?;
            Ok(())
        },
    },
];
