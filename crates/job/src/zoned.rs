//! fio's zoned random distributions (`random_distribution=zoned:` and `zoned_abs:`): the
//! range is cut into consecutive zones, each taking a share of the accesses; within a zone
//! offsets are uniform. `zoned:60/10:30/20:10/70` sends 60 % of the I/Os to the first 10 % of
//! the range. `zoned_abs:` gives the zone sizes in bytes instead of percentages.
//!
//! As fio does (`zone-dist.c`), a worker expands the split into a table of 100 entries, one per
//! percentile of a uniform draw from 1 to 100, so the hot path does one draw and one lookup.

use iolab_engine::Direction;

use crate::Rng;

/// One zone: its share of the accesses, in percent, and its size (percent of the range, or
/// bytes for `zoned_abs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    pub access_percent: u8,
    pub size: u64,
}

/// The zones of a `zoned` or `zoned_abs` distribution, per direction (read, write). An empty
/// list leaves that direction uniform, as fio's `zone_split_nr == 0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZonedSplit {
    /// Sizes are bytes (`zoned_abs`), not percentages of the range.
    pub absolute: bool,
    pub zones: [Vec<Zone>; Direction::COUNT],
}

impl ZonedSplit {
    /// The bytes the zones of a `zoned_abs` split need (the larger direction), for checking
    /// against the region before any I/O; 0 for a relative split.
    pub fn absolute_bytes(&self) -> u64 {
        if !self.absolute {
            return 0;
        }
        let sum = |z: &Vec<Zone>| z.iter().map(|z| z.size).sum::<u64>();
        self.zones.iter().map(sum).max().unwrap_or(0)
    }
}

/// For each percentile of the draw, the zone's first unit and its number of units.
type Percentiles = Box<[(u64, u64); 100]>;

/// A worker's lookup table, per direction; `None` draws uniformly over the whole range.
#[derive(Debug, Clone)]
pub struct ZoneTable {
    dirs: [Option<Percentiles>; Direction::COUNT],
}

impl ZoneTable {
    /// The table for a range of `units` positions of `align` bytes each.
    pub fn new(split: &ZonedSplit, units: u64, align: u64) -> ZoneTable {
        let table = |zones: &Vec<Zone>| {
            if zones.is_empty() {
                return None;
            }
            let mut t = Box::new([(0u64, 0u64); 100]);
            let (mut access, mut size) = (0usize, 0u64);
            for z in zones {
                let (start, end) = if split.absolute {
                    // fio: `size_prev / ba` .. `size / ba`.
                    (size / align, (size + z.size) / align)
                } else {
                    // fio: `stotal * lastb / 100`, and a zone `lastb * (send - stotal) / 100`.
                    let start = size * units / 100;
                    (start, start + units * z.size / 100)
                };
                let end = end.min(units);
                let start = start.min(end);
                for e in t.iter_mut().skip(access).take(z.access_percent as usize) {
                    *e = (start, end - start);
                }
                access += z.access_percent as usize;
                size += z.size;
            }
            Some(t)
        };
        ZoneTable {
            dirs: [
                table(&split.zones[0]),
                table(&split.zones[1]),
                table(&split.zones[2]),
            ],
        }
    }

    /// The next unit in `0..units` for direction `dir`.
    #[inline]
    pub fn next(&self, rng: &mut Rng, dir: Direction, units: u64) -> u64 {
        match &self.dirs[dir.index()] {
            None => rng.below(units.max(1)),
            Some(t) => {
                let (start, len) = t[rng.below(100) as usize];
                start + rng.below(len.max(1))
            }
        }
    }
}

/// Parses fio's `zoned:A/S:A/S...` (or `zoned_abs:`) body after the prefix, with `,` between
/// read, write and trim parts (one part serves all three; with two, trims are uniform).
/// Follows fio's `zone_split_ddir()`: a missing size shares what is left; accesses must add
/// up to 100.
pub fn parse_zoned(
    body: &str,
    absolute: bool,
    size: impl Fn(&str) -> Result<u64, String>,
) -> Result<ZonedSplit, String> {
    let parts: Vec<&str> = body.split(',').collect();
    let one = |s: &str| parse_zones(s, absolute, &size);
    let zones = match parts.as_slice() {
        [all] => {
            let z = one(all)?;
            [z.clone(), z.clone(), z]
        }
        [r, w] => [one(r)?, one(w)?, Vec::new()],
        [r, w, t] => [one(r)?, one(w)?, one(t)?],
        _ => return Err("more than three comma-separated parts (read,write,trim)".into()),
    };
    Ok(ZonedSplit { absolute, zones })
}

fn parse_zones(
    s: &str,
    absolute: bool,
    size: &impl Fn(&str) -> Result<u64, String>,
) -> Result<Vec<Zone>, String> {
    let mut raw: Vec<(u64, Option<u64>)> = Vec::new();
    for z in s.split(':') {
        if z.is_empty() {
            break;
        }
        let (a, sz) = z.split_once('/').unwrap_or((z, ""));
        let access: u64 = a
            .trim()
            .parse()
            .map_err(|_| format!("zone access '{a}' is not a number"))?;
        let sz = match sz.trim() {
            "" if absolute => Some(0),
            "" => None,
            v if absolute => Some(size(v)?),
            // fio's atoi: above 100 is 100, 0 counts as not given.
            v => match v.parse::<u64>() {
                Ok(0) => None,
                Ok(p) => Some(p.min(100)),
                Err(_) => return Err(format!("zone size '{v}' is not a percentage")),
            },
        };
        raw.push((access, sz));
        if raw.len() == 256 {
            break;
        }
    }
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    let access: u64 = raw.iter().map(|z| z.0).sum();
    let given: u64 = raw.iter().filter_map(|z| z.1).sum();
    if access > 100 || (!absolute && given > 100) {
        return Err("zone percentages add up to more than 100".into());
    }
    if access < 100 {
        return Err(format!(
            "zone access percentages add up to {access}, not 100"
        ));
    }
    let missing = raw.iter().filter(|z| z.1.is_none()).count() as u64;
    // A lone zone without a size covers the range (fio's arithmetic would give it 0 %).
    let share = if raw.len() == 1 {
        100
    } else {
        (100 - given) / missing.max(1)
    };
    Ok(raw
        .into_iter()
        .map(|(a, s)| Zone {
            access_percent: a as u8,
            size: s.unwrap_or(share),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> Result<u64, String> {
        let (n, m) = match s.strip_suffix('m') {
            Some(n) => (n, 1 << 20),
            None => (s, 1),
        };
        n.parse::<u64>().map(|n| n * m).map_err(|e| e.to_string())
    }

    #[test]
    fn a_missing_size_takes_what_is_left_as_fio() {
        let z = parse_zoned("50/5:30/15:20/", false, bytes).unwrap();
        let sizes: Vec<u64> = z.zones[0].iter().map(|z| z.size).collect();
        assert_eq!(sizes, [5, 15, 80]);
        assert_eq!(z.zones[0], z.zones[1]);
        let z = parse_zoned("100", false, bytes).unwrap();
        assert_eq!(z.zones[0][0].size, 100);
    }

    #[test]
    fn accesses_must_add_up_to_100() {
        assert!(parse_zoned("50/5:30/15", false, bytes)
            .unwrap_err()
            .contains("add up to 80"));
        assert!(parse_zoned("60/50:50/60", false, bytes).is_err());
        assert!(parse_zoned("x/5", false, bytes).is_err());
    }

    #[test]
    fn read_and_write_parts_differ() {
        let z = parse_zoned("100/10,50/50:50/50", false, bytes).unwrap();
        assert_eq!(z.zones[0].len(), 1);
        assert_eq!(z.zones[1].len(), 2);
        let z = parse_zoned("50/1m:50/3m", true, bytes).unwrap();
        assert_eq!(z.absolute_bytes(), 4 << 20);
    }

    #[test]
    fn draws_fall_in_zones_in_their_shares() {
        let split = parse_zoned("60/10:30/20:10/70", false, bytes).unwrap();
        let units = 1000;
        let t = ZoneTable::new(&split, units, 4096);
        let mut rng = Rng::new(3);
        let mut hits = [0u32; 3];
        for _ in 0..100_000 {
            let u = t.next(&mut rng, Direction::Read, units);
            assert!(u < units);
            hits[match u {
                0..100 => 0,
                100..300 => 1,
                _ => 2,
            }] += 1;
        }
        let share = |i: usize| hits[i] as f64 / 100_000.0;
        assert!((share(0) - 0.6).abs() < 0.01, "{hits:?}");
        assert!((share(1) - 0.3).abs() < 0.01, "{hits:?}");
        assert!((share(2) - 0.1).abs() < 0.01, "{hits:?}");
    }

    #[test]
    fn absolute_zones_are_byte_ranges() {
        let split = parse_zoned("90/1m:10/3m", true, bytes).unwrap();
        let t = ZoneTable::new(&split, 1024, 4096);
        let mut rng = Rng::new(9);
        let hot = (0..10_000)
            .filter(|_| t.next(&mut rng, Direction::Write, 1024) < 256)
            .count();
        assert!((8_800..9_200).contains(&hot), "{hot}");
    }
}
