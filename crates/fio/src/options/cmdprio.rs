//! fio's per-I/O priority options of libaio and io_uring (`cmdprio_percentage`,
//! `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`) and `log_prio`, gathered while a job's
//! options are read and resolved into the job model's [`CmdPrio`] when it is finished, as
//! fio's `fio_cmdprio_init()` does when its engine starts: the two forms exclude each other,
//! an unset class is realtime, zero shares are dropped, and a block size's shares may not
//! pass 100 %.

use iolab_job::cmdprio::ioprio_value;
use iolab_job::{CmdPrio, PrioShare, SizePrios};

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::{parse_bool, parse_size};

/// The cmdprio options of one job, as given so far (index 0 reads, 1 writes).
#[derive(Debug, Clone, Default)]
pub struct CmdPrioDraft {
    percentage: [u32; 2],
    /// 0: not given (realtime, as fio).
    class: [u32; 2],
    level: [u32; 2],
    bssplit: Option<String>,
}

/// One `cmdprio_bssplit` entry: block size, percent, and its own priority if it names one.
type Entry = (u64, u32, Option<u16>);

/// fio's `r,w` form of an integer option: one value sets both, a blank side keeps its value.
fn per_dir(v: &str, min: u32, max: u32, into: &mut [u32; 2]) -> Result<(), String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    for (i, slot) in into.iter_mut().enumerate() {
        let p = parts[i.min(parts.len() - 1)];
        if p.is_empty() {
            continue;
        }
        let n: u32 = p.parse().map_err(|_| format!("'{p}' is not a number"))?;
        if !(min..=max).contains(&n) {
            return Err(format!("{n} is outside {min}..{max}"));
        }
        *slot = n;
    }
    Ok(())
}

/// One direction's list of `bs/perc[/class/level]` entries, as fio's
/// `parse_cmdprio_bssplit_entry()` (zero shares dropped, sorted by block size).
fn parse_entries(list: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for e in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let f: Vec<&str> = e.split('/').collect();
        let num = |s: &str| -> Result<u32, String> {
            s.trim()
                .parse()
                .map_err(|_| format!("'{s}' in '{e}' is not a number"))
        };
        let bs = parse_size(f[0])?;
        let percent = match f.get(1) {
            Some(p) if !p.is_empty() => num(p)?.min(100),
            _ => 0,
        };
        let prio = match f.len() {
            1 | 2 => None,
            4 => Some(ioprio_value(num(f[2])?, num(f[3])?)),
            _ => return Err(format!("'{e}' is not bs/percent or bs/percent/class/level")),
        };
        if percent > 0 {
            out.push((bs, percent, prio));
        }
    }
    out.sort_by_key(|e| e.0);
    Ok(out)
}

/// Entries grouped by block size, each entry without a priority taking `implicit`.
fn group(entries: &[Entry], implicit: u16) -> Result<Vec<SizePrios>, String> {
    let mut out: Vec<SizePrios> = Vec::new();
    for &(bs, percent, prio) in entries {
        let share = PrioShare {
            percent,
            ioprio: prio.unwrap_or(implicit),
        };
        match out.last_mut() {
            Some(last) if last.bs == Some(bs) => last.shares.push(share),
            _ => out.push(SizePrios {
                bs: Some(bs),
                shares: vec![share],
            }),
        }
    }
    for s in &out {
        if s.shares.iter().map(|p| p.percent).sum::<u32>() > 100 {
            let bs = s.bs.unwrap_or(0);
            return Err(format!("total percentage for bs {bs} exceeds 100"));
        }
    }
    Ok(out)
}

impl CmdPrioDraft {
    fn given(&self) -> bool {
        self.bssplit.is_some() || self.percentage.iter().any(|&p| p > 0)
    }

    /// The job's per-I/O priorities; `does` says whether it reads and whether it writes
    /// (fio sets none up for a direction the job does not do).
    pub fn resolve(&self, does: [bool; 2]) -> Result<CmdPrio, String> {
        let split = self.bssplit.as_deref().filter(|s| !s.trim().is_empty());
        if split.is_some() && self.percentage.iter().any(|&p| p > 0) {
            return Err("cmdprio_percentage and cmdprio_bssplit are mutually exclusive".into());
        }
        let mut out = CmdPrio::default();
        let lists: Vec<&str> = split.map(|s| s.split(',').collect()).unwrap_or_default();
        for (d, &does) in does.iter().enumerate() {
            if !does {
                continue;
            }
            let class = if self.class[d] == 0 { 1 } else { self.class[d] };
            let implicit = ioprio_value(class, self.level[d]);
            out.dirs[d] = match lists.get(d.min(lists.len().saturating_sub(1))) {
                Some(list) => {
                    let entries =
                        parse_entries(list).map_err(|e| format!("cmdprio_bssplit: {e}"))?;
                    group(&entries, implicit).map_err(|e| format!("cmdprio_bssplit: {e}"))?
                }
                None if self.percentage[d] > 0 => vec![SizePrios {
                    bs: None,
                    shares: vec![PrioShare {
                        percent: self.percentage[d],
                        ioprio: implicit,
                    }],
                }],
                None => Vec::new(),
            };
        }
        Ok(out)
    }
}

fn draft(d: &mut JobDraft) -> &mut CmdPrioDraft {
    &mut d.cmdprio
}

/// Whether the job asked for per-I/O priorities at all.
pub fn asked(d: &JobDraft) -> bool {
    d.cmdprio.given()
}

pub static CMDPRIO_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "cmdprio_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "libaio, io_uring: this percentage of I/Os (reads,writes) carry the priority cmdprio_class/cmdprio on the request itself; the rest keep the thread's. Latencies are reported per priority.",
        apply: |d, v| per_dir(v, 0, 100, &mut draft(d).percentage),
    },
    OptionDef {
        name: "cmdprio_class",
        alias: None,
        kind: ValueKind::Int,
        help: "libaio, io_uring: the class of cmdprio_percentage's priority (1 realtime, the default; 2 best effort; 3 idle), reads,writes.",
        apply: |d, v| per_dir(v, 1, 3, &mut draft(d).class),
    },
    OptionDef {
        name: "cmdprio",
        alias: None,
        kind: ValueKind::Int,
        help: "libaio, io_uring: the level (0 highest to 7) of cmdprio_percentage's priority, reads,writes.",
        apply: |d, v| per_dir(v, 0, 7, &mut draft(d).level),
    },
    OptionDef {
        name: "cmdprio_bssplit",
        alias: None,
        kind: ValueKind::Str,
        help: "libaio, io_uring: per block size, the share of I/Os with a priority of their own: bs/percent (cmdprio_class/cmdprio's priority) or bs/percent/class/level, ':' between entries, a comma before the writes' list, e.g. 64k/25/1/1:64k/75/3/2.",
        apply: |d, v| {
            parse_entries(v.split(',').next().unwrap_or(""))?;
            draft(d).bssplit = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "log_prio",
        alias: None,
        kind: ValueKind::Bool,
        help: "Per-I/O log lines end with the I/O's priority value (in hex, as fio: class << 13 plus level, 0x4003 for best effort 3) instead of 1 for a realtime I/O and 0 for any other.",
        apply: |d, v| {
            d.spec.logs.prio = parse_bool(v)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn d(pairs: &[(&str, &str)]) -> CmdPrioDraft {
        let mut c = CmdPrioDraft::default();
        for (k, v) in pairs {
            match *k {
                "perc" => per_dir(v, 0, 100, &mut c.percentage).unwrap(),
                "class" => per_dir(v, 1, 3, &mut c.class).unwrap(),
                "level" => per_dir(v, 0, 7, &mut c.level).unwrap(),
                _ => c.bssplit = Some(v.to_string()),
            }
        }
        c
    }

    #[test]
    fn percentage_per_direction_with_realtime_by_default() {
        let c = d(&[("perc", "30,10"), ("level", "2")]).resolve([true, true]);
        let c = c.unwrap();
        assert_eq!(
            c.dirs[0][0].shares[0],
            PrioShare {
                percent: 30,
                ioprio: (1 << 13) | 2
            }
        );
        assert_eq!(c.dirs[1][0].shares[0].percent, 10);
        // A direction the job does not do gets none, as fio.
        let r = d(&[("perc", "30")]).resolve([true, false]).unwrap();
        assert!(r.dirs[1].is_empty());
    }

    #[test]
    fn bssplit_as_fios_example() {
        // cmdprio-bssplit.fio's "cmdprio-adv" job.
        let c = d(&[("split", "64k/25/1/1:64k/75/3/2:1024k/0,1024k/0")])
            .resolve([true, true])
            .unwrap();
        assert_eq!(c.dirs[0].len(), 1, "the zero share is dropped");
        assert_eq!(c.dirs[0][0].bs, Some(65536));
        let prios: Vec<u16> = c.dirs[0][0].shares.iter().map(|s| s.ioprio).collect();
        assert_eq!(prios, [(1 << 13) | 1, (3 << 13) | 2]);
        assert!(c.dirs[1].is_empty());
        // The simple form takes cmdprio_class/cmdprio.
        let c = d(&[("split", "64k/100:1024k/0,1024k/0"), ("class", "1")])
            .resolve([true, true])
            .unwrap();
        assert_eq!(c.dirs[0][0].shares[0].ioprio, 1 << 13);
    }

    #[test]
    fn fios_refusals() {
        let both = d(&[("perc", "10"), ("split", "4k/10")]).resolve([true, true]);
        assert!(both.unwrap_err().contains("mutually exclusive"));
        let over = d(&[("split", "4k/60/1/0:4k/50/2/0")]).resolve([true, true]);
        assert!(over.unwrap_err().contains("exceeds 100"));
        assert!(per_dir("101", 0, 100, &mut [0; 2]).is_err());
        assert!(per_dir("4", 1, 3, &mut [0; 2]).is_err());
        assert!(parse_entries("4k/10/1").is_err());
    }
}
