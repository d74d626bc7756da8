//! fio's zone options: `zonemode=strided` (`zonesize`, `zonerange`, `zoneskip`) and
//! `zonemode=zbd` (`zonesize`, `zonecapacity`, `max_open_zones`, ...), gathered
//! while a job's options are read and resolved when the job is finished, as fio's
//! `fixup_options()` does: `zonemode` defaults to `none`, which refuses a `zonesize` (fio 3.33
//! exits with the same complaint), and `zonerange` defaults to `zonesize`.

use iolab_job::{StridedZones, ZbdSpec};

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::{parse_bool, parse_size, parse_u32};
use crate::FioError;

/// `zonemode` as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneMode {
    None,
    Strided,
    Zbd,
}

/// The zone options of one job, as given so far.
#[derive(Debug, Clone, Default)]
pub struct ZoneDraft {
    pub mode: Option<ZoneMode>,
    pub size: Option<u64>,
    pub range: Option<u64>,
    pub skip: Option<u64>,
    /// The options only `zonemode=zbd` reads.
    pub zbd: ZbdSpec,
}

/// What the zone options make of a job: strided zones, or a zoned device's.
pub type ZoneModes = (Option<StridedZones>, Option<ZbdSpec>);

impl ZoneDraft {
    /// The job's zones, or why the options do not go together (fio's messages).
    pub fn resolve(&self) -> Result<ZoneModes, FioError> {
        let size = self.size.filter(|&s| s > 0);
        let strided = match (self.mode, size) {
            (Some(ZoneMode::Zbd), _) => return self.resolve_zbd(size).map(|z| (None, Some(z))),
            (Some(ZoneMode::None) | None, Some(_)) => {
                return Err(FioError::Usage(
                    "zonemode=none and zonesize are not compatible".into(),
                ))
            }
            (Some(ZoneMode::Strided), None) => {
                return Err(FioError::Usage(
                    "zonesize must be given with zonemode=strided".into(),
                ))
            }
            (Some(ZoneMode::None), None) | (None, None) => return Ok((None, None)),
            (Some(ZoneMode::Strided), Some(s)) => s,
        };
        let zones = StridedZones {
            size: strided,
            range: self.range.filter(|&r| r > 0).unwrap_or(strided),
            skip: self.skip.unwrap_or(0),
        };
        Ok((Some(zones), None))
    }

    /// `zonemode=zbd`: the zone size is the device's unless given (then it must match);
    /// `zonerange` means nothing here, as in fio.
    fn resolve_zbd(&self, size: Option<u64>) -> Result<ZbdSpec, FioError> {
        if self.skip.is_some_and(|s| s > 0) {
            return Err(FioError::Usage(
                "zoneskip with zonemode=zbd is not supported by iolab yet".into(),
            ));
        }
        let z = self.zbd;
        if let (Some(cap), Some(size)) = (z.zone_capacity.filter(|&c| c > 0), size) {
            if cap > size {
                return Err(FioError::Usage(format!(
                    "zonecapacity {cap} is larger than zonesize {size}"
                )));
            }
        }
        if z.reset_threshold > 1.0 || z.reset_frequency > 1.0 {
            return Err(FioError::Usage(
                "zone_reset_threshold and zone_reset_frequency are fractions from 0 to 1".into(),
            ));
        }
        Ok(ZbdSpec {
            zone_size: size,
            zone_capacity: z.zone_capacity.filter(|&c| c > 0),
            ..z
        })
    }
}

/// The zone options.
pub static ZONE_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "zonemode",
        alias: None,
        kind: ValueKind::Str,
        help: "`strided`: I/O in zones of `zonerange` bytes, `zonesize` bytes each, `zoneskip` bytes apart; `zbd`: a zoned block device's zones (writes at the write pointers, resets, open-zone limits; emulated on other files); `none` (default).",
        apply: |d: &mut JobDraft, v| {
            d.zones.mode = Some(match v.trim() {
                "none" => ZoneMode::None,
                "strided" => ZoneMode::Strided,
                "zbd" => ZoneMode::Zbd,
                _ => return Err(format!("'{v}' is not none, strided or zbd")),
            });
            Ok(())
        },
    },
    OptionDef {
        name: "zonesize",
        alias: None,
        kind: ValueKind::Size,
        help: "Bytes done in each strided zone before moving on (needs `zonemode=strided`, as in fio); with `zonemode=zbd`, the zone size (the device's by default; mandatory for a file that is not zoned).",
        apply: |d, v| {
            d.zones.size = Some(parse_size(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "zonerange",
        alias: None,
        kind: ValueKind::Size,
        help: "The size of a strided zone (default `zonesize`); smaller than `zonesize`, the zone is gone over again.",
        apply: |d, v| {
            d.zones.range = Some(parse_size(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "zoneskip",
        alias: None,
        kind: ValueKind::Size,
        help: "Bytes skipped after each strided zone; past the end of the file the walk starts over.",
        apply: |d, v| {
            d.zones.skip = Some(parse_size(v)?);
            Ok(())
        },
    },
];

/// A fraction from 0 to 1, as fio's float options take it.
fn fraction(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("'{v}' is not a fraction from 0 to 1")),
    }
}

/// fio's options of `zonemode=zbd` alone (zbd.c reads them, nothing else does); outside
/// that mode they are accepted and mean nothing, as in fio.
pub static ZBD_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "zonecapacity",
        alias: None,
        kind: ValueKind::Size,
        help: "zonemode=zbd on a file that is not zoned: the bytes of each emulated zone that take writes (default the zone size).",
        apply: |d, v| {
            d.zones.zbd.zone_capacity = Some(parse_size(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "read_beyond_wp",
        alias: None,
        kind: ValueKind::Bool,
        help: "zonemode=zbd: reads go where they are drawn, also past the write pointers (default: only written data is read).",
        apply: |d, v| {
            d.zones.zbd.read_beyond_wp = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "max_open_zones",
        alias: None,
        kind: ValueKind::Int,
        help: "zonemode=zbd: the most zones written at a time, over every job of the device (default the device's limit, or none).",
        apply: |d, v| {
            d.zones.zbd.max_open_zones = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "job_max_open_zones",
        alias: None,
        kind: ValueKind::Int,
        help: "zonemode=zbd: the most zones one job copy writes at a time (needs max_open_zones or a device limit).",
        apply: |d, v| {
            d.zones.zbd.job_max_open_zones = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ignore_zone_limits",
        alias: None,
        kind: ValueKind::Bool,
        help: "zonemode=zbd: do not apply the device's open-zone limit (only max_open_zones).",
        apply: |d, v| {
            d.zones.zbd.ignore_zone_limits = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "zone_reset_threshold",
        alias: None,
        kind: ValueKind::Str,
        help: "zonemode=zbd: with zone_reset_frequency, zones are reset early once this fraction of the job's bytes hold data.",
        apply: |d, v| {
            d.zones.zbd.reset_threshold = fraction(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "zone_reset_frequency",
        alias: None,
        kind: ValueKind::Str,
        help: "zonemode=zbd: past zone_reset_threshold, one write in 1/this resets its zone first (0: never).",
        apply: |d, v| {
            d.zones.zbd.reset_frequency = fraction(v)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(
        mode: Option<ZoneMode>,
        size: Option<u64>,
    ) -> Result<Option<StridedZones>, FioError> {
        ZoneDraft {
            mode,
            size,
            range: None,
            skip: Some(3),
            zbd: ZbdSpec::default(),
        }
        .resolve()
        .map(|(s, _)| s)
    }

    #[test]
    fn the_range_defaults_to_zonesize_and_zonesize_needs_strided() {
        let z = resolve(Some(ZoneMode::Strided), Some(1 << 20))
            .unwrap()
            .unwrap();
        assert_eq!((z.size, z.range, z.skip), (1 << 20, 1 << 20, 3));
        assert_eq!(resolve(None, None).unwrap(), None);
        assert!(
            resolve(None, Some(4096)).is_err(),
            "fio 3.33's default is none"
        );
        assert!(resolve(Some(ZoneMode::Strided), None).is_err());
        assert!(resolve(Some(ZoneMode::None), Some(4096)).is_err());
    }
}
