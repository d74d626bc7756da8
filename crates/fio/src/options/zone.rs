//! fio's zone options for `zonemode=strided` (`zonesize`, `zonerange`, `zoneskip`), gathered
//! while a job's options are read and resolved when the job is finished, as fio's
//! `fixup_options()` does: `zonemode` defaults to `none`, which refuses a `zonesize` (fio 3.33
//! exits with the same complaint), and `zonerange` defaults to `zonesize`.

use iolab_job::StridedZones;

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::parse_size;
use crate::FioError;

/// `zonemode` as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneMode {
    None,
    Strided,
}

/// The zone options of one job, as given so far.
#[derive(Debug, Clone, Default)]
pub struct ZoneDraft {
    pub mode: Option<ZoneMode>,
    pub size: Option<u64>,
    pub range: Option<u64>,
    pub skip: Option<u64>,
}

impl ZoneDraft {
    /// The job's strided zones, or why the options do not go together (fio's messages).
    pub fn resolve(&self) -> Result<Option<StridedZones>, FioError> {
        let size = self.size.filter(|&s| s > 0);
        let strided = match (self.mode, size) {
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
            (Some(ZoneMode::None), None) | (None, None) => return Ok(None),
            (Some(ZoneMode::Strided), Some(s)) => s,
        };
        Ok(Some(StridedZones {
            size: strided,
            range: self.range.filter(|&r| r > 0).unwrap_or(strided),
            skip: self.skip.unwrap_or(0),
        }))
    }
}

/// The zone options iolab has (`zonemode=zbd` and `zonecapacity` are not yet).
pub static ZONE_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "zonemode",
        alias: None,
        kind: ValueKind::Str,
        help: "`strided`: I/O in zones of `zonerange` bytes, `zonesize` bytes each, `zoneskip` bytes apart; `none` (default). (`zbd` is not supported yet.)",
        apply: |d: &mut JobDraft, v| {
            d.zones.mode = Some(match v.trim() {
                "none" => ZoneMode::None,
                "strided" => ZoneMode::Strided,
                "zbd" => return Err("zonemode=zbd is not supported by iolab yet".into()),
                _ => return Err(format!("'{v}' is not none or strided")),
            });
            Ok(())
        },
    },
    OptionDef {
        name: "zonesize",
        alias: None,
        kind: ValueKind::Size,
        help: "Bytes done in each strided zone before moving on (needs `zonemode=strided`, as in fio).",
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

const ZBD_ONLY: &str = "Accepted and ignored, as fio does outside zonemode=zbd (the only mode it applies to; iolab does not have zbd yet, so it is never in effect)";

fn zbd_number(_: &mut JobDraft, v: &str) -> Result<(), String> {
    let t = v.trim();
    match t.parse::<f64>() {
        Ok(x) if x >= 0.0 => Ok(()),
        _ => parse_size(t).map(|_| ()),
    }
}

const fn zbd_only(name: &'static str, kind: ValueKind) -> OptionDef {
    OptionDef {
        name,
        alias: None,
        kind,
        help: ZBD_ONLY,
        apply: match kind {
            ValueKind::Bool => |_, v| crate::units::parse_bool(v).map(|_| ()),
            _ => zbd_number,
        },
    }
}

/// fio's options of `zonemode=zbd` alone (zbd.c reads them, nothing else does).
pub static ZBD_OPTIONS: &[OptionDef] = &[
    zbd_only("zonecapacity", ValueKind::Size),
    zbd_only("read_beyond_wp", ValueKind::Bool),
    zbd_only("max_open_zones", ValueKind::Int),
    zbd_only("job_max_open_zones", ValueKind::Int),
    zbd_only("ignore_zone_limits", ValueKind::Bool),
    zbd_only("zone_reset_threshold", ValueKind::Str),
    zbd_only("zone_reset_frequency", ValueKind::Str),
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
        }
        .resolve()
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
