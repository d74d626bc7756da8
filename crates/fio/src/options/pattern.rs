//! fio's options that shape where a job's offsets go beyond `rw` itself.

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_u32;

/// `percentage_random=R[,W[,T]]`: one share for every direction, or one each.
fn parse_shares(v: &str) -> Result<[u8; 3], String> {
    crate::options::per_direction(v, |p| match parse_u32(p)? {
        n @ 0..=100 => Ok(n as u8),
        _ => Err("must be between 0 and 100".into()),
    })
}

pub static PATTERN_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "bs_unaligned",
        alias: Some("blocksize_unaligned"),
        kind: ValueKind::Bool,
        help: "bsrange sizes may be any size between its bounds, not only multiples of the smaller (direct I/O then fails, as on the device).",
        apply: |d, v| {
            d.bs_unaligned = crate::units::parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "offset_align",
        alias: None,
        kind: ValueKind::Size,
        help: "What a percentage offset (or offset_increment) is rounded up to (default: the smallest block size, as fio).",
        apply: |d, v| {
            let a = crate::units::parse_size(v)?;
            d.spec.offset_align = (a > 0).then_some(a);
            Ok(())
        },
    },
    OptionDef {
        name: "percentage_random",
        alias: None,
        kind: ValueKind::List,
        help: "Of a random job's I/Os, the percentage that is random (default 100); the others go on sequentially from the last. READ,WRITE[,TRIM] for one each.",
        apply: |d, v| {
            d.spec.percentage_random = parse_shares(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rw_sequencer",
        alias: None,
        kind: ValueKind::Str,
        help: "Between rw=randread:N's random offsets: sequential (default) goes on from the last I/O, identical repeats its offset.",
        apply: |d, v| {
            d.spec.rw_identical = match v.trim() {
                "sequential" => false,
                "identical" => true,
                _ => return Err("is not sequential or identical".into()),
            };
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_split_as_fio() {
        assert_eq!(parse_shares("30"), Ok([30, 30, 30]));
        assert_eq!(parse_shares("30,70"), Ok([30, 70, 70]));
        assert!(parse_shares("101").is_err());
    }
}
