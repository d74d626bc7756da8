//! fio's latency-target options: `latency_target` and `latency_window` are microseconds
//! unless a unit is given (fio's `is_time`), `latency_percentile` a share of I/Os.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_time_us};

pub static LAT_TARGET_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "latency_target",
        alias: None,
        kind: ValueKind::Time,
        help: "Find the deepest queue (up to iodepth) whose I/Os meet this latency (microseconds unless a unit is given), then measure at it; the depth found is the JSON's latency_depth.",
        apply: |d, v| {
            d.spec.lat_target.target = parse_time_us(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "latency_window",
        alias: None,
        kind: ValueKind::Time,
        help: "How long each queue depth is tried against latency_target (microseconds unless a unit is given).",
        apply: |d, v| {
            d.spec.lat_target.window = parse_time_us(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "latency_percentile",
        alias: None,
        kind: ValueKind::Str,
        help: "The share of a window's I/Os (0-100, default 100) that must meet latency_target.",
        apply: |d, v| {
            let p: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("'{v}' is not a number"))?;
            if !(0.0..=100.0).contains(&p) {
                return Err("must be between 0 and 100".into());
            }
            d.spec.lat_target.percentile = p;
            Ok(())
        },
    },
    OptionDef {
        name: "latency_run",
        alias: None,
        kind: ValueKind::Bool,
        help: "Keep adjusting the queue depth to latency_target for the whole run instead of settling on one.",
        apply: |d, v| {
            d.spec.lat_target.keep_adjusting = parse_bool(v)?;
            Ok(())
        },
    },
];
