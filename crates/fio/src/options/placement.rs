//! fio 3.42's data placement options for NVMe writes through `io_uring_cmd`: `fdp`,
//! `dataplacement`, `plids`, `plid_select` and `dp_scheme`, with fio's aliases. What they
//! mean on the wire is `iolab_engine::placement`'s.

use iolab_engine::placement::{Placement, PlacementInterface, PlacementSelect, MAX_IDS};

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::parse_bool;

fn placement(d: &mut JobDraft) -> &mut Placement {
    &mut d.spec.engine.options.placement
}

/// `0,3`, `0-3,7`: indices (or stream ids), as fio's `str_fdp_pli_cb` reads them.
fn parse_ids(v: &str) -> Result<Vec<u16>, String> {
    let mut ids = Vec::new();
    for part in v.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let num = |s: &str| {
            s.trim()
                .parse::<u16>()
                .map_err(|_| format!("'{s}' is not a placement id index"))
        };
        let (start, end) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if start > end {
            return Err(format!("'{part}' runs backwards"));
        }
        ids.extend(start..=end);
        if ids.len() > MAX_IDS {
            return Err(format!("at most {MAX_IDS} ids, as fio"));
        }
    }
    Ok(ids)
}

pub static PLACEMENT_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "fdp",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring_cmd: put each write in a placement handle of the namespace's Flexible Data Placement (directive type 2, fio 3.42); the same as dataplacement=fdp.",
        apply: |d, v| {
            placement(d).fdp = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "dataplacement",
        alias: Some("data_placement"),
        kind: ValueKind::Str,
        help: "io_uring_cmd: the placement directive writes carry (fio 3.42): none (the default), fdp (Flexible Data Placement) or streams (the stream ids in plids).",
        apply: |d, v| {
            placement(d).interface = Some(match v.trim() {
                "none" => PlacementInterface::None,
                "fdp" => PlacementInterface::Fdp,
                "streams" => PlacementInterface::Streams,
                _ => return Err("must be none, fdp or streams".into()),
            });
            Ok(())
        },
    },
    OptionDef {
        name: "plids",
        alias: Some("fdp_pli"),
        kind: ValueKind::Str,
        help: "io_uring_cmd: the placement handles writes use, as indices into the namespace's reclaim unit handle list (FDP) or as stream ids (streams): 0,3 or 0-3 (fio 3.42; default: every handle).",
        apply: |d, v| {
            placement(d).ids = parse_ids(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "plid_select",
        alias: Some("fdp_pli_select"),
        kind: ValueKind::Str,
        help: "io_uring_cmd: how each write's placement handle is picked (fio 3.42): roundrobin (each in turn, the default), random, or scheme (by the write's offset, from dp_scheme).",
        apply: |d, v| {
            placement(d).select = match v.trim() {
                "roundrobin" => PlacementSelect::RoundRobin,
                "random" => PlacementSelect::Random,
                "scheme" => PlacementSelect::Scheme,
                _ => return Err("must be roundrobin, random or scheme".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "dp_scheme",
        alias: None,
        kind: ValueKind::Str,
        help: "io_uring_cmd: a file of start,end,placement id lines (byte offsets, at most 32 lines): with plid_select=scheme a write at an offset in [start, end) goes to that placement id, elsewhere to 0 (fio 3.42).",
        apply: |d, v| {
            let text = std::fs::read_to_string(v.trim())
                .map_err(|e| format!("cannot read the scheme file: {e}"))?;
            placement(d).scheme = Placement::parse_scheme(&text)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_take_lists_and_ranges() {
        assert_eq!(parse_ids("0,3").unwrap(), vec![0, 3]);
        assert_eq!(parse_ids("1-3,7").unwrap(), vec![1, 2, 3, 7]);
        assert!(parse_ids("3-1").is_err());
        assert!(parse_ids("x").is_err());
        assert!(parse_ids("0-200").unwrap_err().contains("128"));
    }
}
