//! Data placement on NVMe writes (fio 3.42's `fdp`, `dataplacement`, `plids`, `plid_select`,
//! `dp_scheme`): each write command names where the drive should put its data, by the
//! directive type in CDW12 (bits 20–23: 2 for Flexible Data Placement, 1 for streams) and the
//! directive specific value in CDW13 (bits 16–31: a placement identifier, or a stream id).
//! Hyperscalers separate data of different lifetimes this way to cut write amplification.
//!
//! With FDP the job's `plids` are indices into the namespace's reclaim unit handle list (I/O
//! Management Receive, read when the engine opens each file), as in fio; with streams they are
//! the stream ids themselves. `plid_select` picks one per write: in turn, at random, or by the
//! write's offset from a `dp_scheme` file (`start,end,placement id` lines).

use crate::EngineError;

/// The directive a write carries (fio's `dataplacement`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PlacementInterface {
    /// No directive (`none`, fio's default).
    #[default]
    None,
    /// Flexible Data Placement (`fdp`, also `fdp=1`): directive type 2.
    Fdp,
    /// Streams (`streams`): directive type 1.
    Streams,
}

/// How the next write's placement identifier is picked (fio's `plid_select`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PlacementSelect {
    /// Each in turn (fio's default).
    #[default]
    RoundRobin,
    /// Uniformly at random.
    Random,
    /// By the write's offset, from the `dp_scheme` file's ranges; 0 outside them.
    Scheme,
}

/// One `dp_scheme` line: writes at offsets in `[start, end)` go to `pli`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemeRange {
    pub start: u64,
    pub end: u64,
    pub pli: u16,
}

/// A job's data placement, as its options give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// fio's `fdp=1` (the same as `dataplacement=fdp`).
    pub fdp: bool,
    /// fio's `dataplacement`, where given.
    pub interface: Option<PlacementInterface>,
    /// fio's `plids`: placement handle indices (FDP) or stream ids; empty: every handle.
    pub ids: Vec<u16>,
    pub select: PlacementSelect,
    /// The `dp_scheme` file's ranges (at most fio's 32), for `plid_select=scheme`.
    pub scheme: Vec<SchemeRange>,
}

/// fio's `DP_MAX_SCHEME_ENTRIES`.
pub const MAX_SCHEME_RANGES: usize = 32;
/// fio's `FIO_MAX_DP_IDS`.
pub const MAX_IDS: usize = 128;

impl Placement {
    /// The interface in force: `fdp=1` is FDP.
    pub fn interface(&self) -> PlacementInterface {
        match (self.fdp, self.interface) {
            (true, _) => PlacementInterface::Fdp,
            (false, i) => i.unwrap_or_default(),
        }
    }

    /// Whether writes carry a directive at all.
    pub fn on(&self) -> bool {
        self.interface() != PlacementInterface::None
    }

    /// Why the options cannot go together, as fio 3.42 refuses them.
    pub fn unfit(&self) -> Option<String> {
        if self.fdp
            && matches!(
                self.interface,
                Some(PlacementInterface::Streams | PlacementInterface::None)
            )
        {
            return Some("fdp=1 is dataplacement=fdp; it cannot go with another interface".into());
        }
        if self.interface() == PlacementInterface::Streams && self.ids.is_empty() {
            return Some("dataplacement=streams needs the stream ids in plids".into());
        }
        if self.on() && self.select == PlacementSelect::Scheme && self.scheme.is_empty() {
            return Some("plid_select=scheme needs a dp_scheme file with ranges".into());
        }
        None
    }

    /// Reads a `dp_scheme` file's lines, `start,end,placement id` (as fio's `%llu,%llu,%hu`),
    /// the first [`MAX_SCHEME_RANGES`].
    pub fn parse_scheme(text: &str) -> Result<Vec<SchemeRange>, String> {
        let mut ranges = Vec::new();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            let bad = || format!("line {}: '{line}' is not start,end,placement id", n + 1);
            let [start, end, pli] = f[..] else {
                return Err(bad());
            };
            let range = SchemeRange {
                start: start.parse().map_err(|_| bad())?,
                end: end.parse().map_err(|_| bad())?,
                pli: pli.parse().map_err(|_| bad())?,
            };
            if ranges.len() < MAX_SCHEME_RANGES {
                ranges.push(range);
            }
        }
        Ok(ranges)
    }
}

/// One file's placement identifiers and the pick of the next.
#[derive(Debug, Clone)]
pub(crate) struct Placer {
    /// Directive type for CDW12 bits 20–23.
    dtype: u32,
    plis: Vec<u16>,
    next: usize,
    select: PlacementSelect,
    scheme: Vec<SchemeRange>,
    rng: u64,
}

impl Placer {
    /// The placement of writes to the opened namespace `fd`, `None` when the job has none.
    /// FDP reads the namespace's reclaim unit handles and takes the job's indices of them.
    pub fn open(
        engine: &'static str,
        fd: i32,
        p: &Placement,
    ) -> Result<Option<Placer>, EngineError> {
        let (dtype, plis) = match p.interface() {
            PlacementInterface::None => return Ok(None),
            PlacementInterface::Streams => (1, p.ids.clone()),
            PlacementInterface::Fdp => {
                let handles = iolab_sysinfo::nvme::placement_ids(fd).map_err(|e| {
                    EngineError::Unsupported {
                        engine,
                        reason: format!("fdp: reading the reclaim unit handles failed: {e}"),
                    }
                })?;
                (2, pick_handles(engine, &handles, &p.ids)?)
            }
        };
        Ok(Some(Placer {
            dtype,
            plis,
            next: 0,
            select: p.select.clone(),
            scheme: p.scheme.clone(),
            // The same picks every run, as fio's with its default randrepeat.
            rng: 0x9e37_79b9_7f4a_7c15,
        }))
    }

    /// CDW12's directive type bits and CDW13's directive value for a write at `offset`.
    #[inline]
    pub fn directive(&mut self, offset: u64) -> (u32, u32) {
        let dspec = match self.select {
            PlacementSelect::RoundRobin => {
                if self.next >= self.plis.len() {
                    self.next = 0;
                }
                self.next += 1;
                self.plis[self.next - 1]
            }
            PlacementSelect::Random => {
                // xorshift64: any uniform pick will do; fio's own sequence is its RNG's.
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                self.plis[(self.rng % self.plis.len() as u64) as usize]
            }
            PlacementSelect::Scheme => self
                .scheme
                .iter()
                .find(|r| offset >= r.start && offset < r.end)
                .map_or(0, |r| r.pli),
        };
        (self.dtype << 20, (dspec as u32) << 16)
    }
}

/// The placement identifiers the job's handle indices name (all of them, at most
/// [`MAX_IDS`], without indices), refusing an index past the list as fio does.
fn pick_handles(
    engine: &'static str,
    handles: &[u16],
    ids: &[u16],
) -> Result<Vec<u16>, EngineError> {
    if handles.is_empty() {
        return Err(EngineError::Unsupported {
            engine,
            reason: "fdp: the namespace has no reclaim unit handles".into(),
        });
    }
    if ids.is_empty() {
        return Ok(handles.iter().take(MAX_IDS).copied().collect());
    }
    ids.iter()
        .map(|&i| {
            handles.get(i as usize).copied().ok_or_else(|| EngineError::Unsupported {
                engine,
                reason: format!(
                    "plids: placement handle index {i} must be smaller than {} (the namespace's handles)",
                    handles.len()
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placer(select: PlacementSelect, plis: Vec<u16>) -> Placer {
        Placer {
            dtype: 2,
            plis,
            next: 0,
            select,
            scheme: vec![
                SchemeRange {
                    start: 0,
                    end: 4096,
                    pli: 5,
                },
                SchemeRange {
                    start: 8192,
                    end: 16384,
                    pli: 6,
                },
            ],
            rng: 1,
        }
    }

    #[test]
    fn round_robin_takes_each_handle_in_turn_as_directive_bits() {
        let mut p = placer(PlacementSelect::RoundRobin, vec![0, 3]);
        let got: Vec<(u32, u32)> = (0..3).map(|_| p.directive(0)).collect();
        assert_eq!(got, vec![(2 << 20, 0), (2 << 20, 3 << 16), (2 << 20, 0)]);
    }

    #[test]
    fn a_scheme_places_by_offset_and_outside_it_at_zero() {
        let mut p = placer(PlacementSelect::Scheme, vec![]);
        assert_eq!(p.directive(100).1 >> 16, 5);
        assert_eq!(p.directive(4096).1 >> 16, 0);
        assert_eq!(p.directive(10000).1 >> 16, 6);
    }

    #[test]
    fn random_picks_only_the_jobs_handles() {
        let mut p = placer(PlacementSelect::Random, vec![2, 7]);
        let picks: std::collections::BTreeSet<u32> =
            (0..200).map(|_| p.directive(0).1 >> 16).collect();
        assert_eq!(picks.into_iter().collect::<Vec<_>>(), vec![2, 7]);
    }

    #[test]
    fn handle_indices_name_placement_ids_and_past_the_list_is_refused() {
        assert_eq!(
            pick_handles("e", &[10, 11, 12], &[2, 0]).unwrap(),
            vec![12, 10]
        );
        assert_eq!(pick_handles("e", &[10, 11], &[]).unwrap(), vec![10, 11]);
        let e = pick_handles("e", &[10, 11], &[2]).unwrap_err().to_string();
        assert!(e.contains("index 2 must be smaller than 2"), "{e}");
    }

    #[test]
    fn options_that_contradict_are_refused_as_fio_does() {
        let fdp_streams = Placement {
            fdp: true,
            interface: Some(PlacementInterface::Streams),
            ids: vec![1],
            ..Placement::default()
        };
        assert!(fdp_streams.unfit().unwrap().contains("fdp=1"));
        let streams = Placement {
            interface: Some(PlacementInterface::Streams),
            ..Placement::default()
        };
        assert!(streams.unfit().unwrap().contains("stream ids"));
        let scheme = Placement {
            fdp: true,
            select: PlacementSelect::Scheme,
            ..Placement::default()
        };
        assert!(scheme.unfit().unwrap().contains("dp_scheme"));
        assert!(!Placement::default().on());
    }

    #[test]
    fn scheme_files_read_as_fio_reads_them() {
        let r = Placement::parse_scheme("0,4096,1\n4096, 8192, 2\n").unwrap();
        assert_eq!(
            r[1],
            SchemeRange {
                start: 4096,
                end: 8192,
                pli: 2
            }
        );
        assert!(Placement::parse_scheme("0,4096")
            .unwrap_err()
            .contains("line 1"));
    }
}
