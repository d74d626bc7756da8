//! fio's options about how figures are reported: the averaging of bandwidth and IOPS.

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_u32;

fn avg_ms(v: &str) -> Result<u32, String> {
    match parse_u32(v)? {
        0 => Err("must be at least 1 ms".into()),
        ms => Ok(ms),
    }
}

pub static REPORT_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "bwavgtime",
        alias: None,
        kind: ValueKind::Int,
        help: "Average bandwidth samples (bw_min, bw_max, bw_mean, bw_samples) over this many ms (default 500).",
        apply: |d, v| {
            d.spec.avg_ms[0] = avg_ms(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iopsavgtime",
        alias: None,
        kind: ValueKind::Int,
        help: "Average IOPS samples (iops_min, iops_max, iops_mean, iops_samples) over this many ms (default 500).",
        apply: |d, v| {
            d.spec.avg_ms[1] = avg_ms(v)?;
            Ok(())
        },
    },
];
