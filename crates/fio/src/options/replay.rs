//! fio's trace options: `write_iolog` records every I/O a job issues; `read_iolog` replays
//! a recorded stream (fio's text iolog, version 2 or 3) with the `replay_*` options.

use iolab_job::Replay;

use crate::iolog::{parse, ReplayOptions};
use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::{parse_bool, parse_size, parse_u32};

/// `read_iolog` and its companions, resolved when the job is finished.
#[derive(Debug, Clone, Default)]
pub struct ReplayDraft {
    pub path: Option<String>,
    pub opts: ReplayOptions,
    pub no_stall: bool,
    pub time_scale: Option<u32>,
    /// Whether the job sets `iodepth` (else a blktrace's probed depth is the replay's).
    pub iodepth_set: bool,
    /// `merge_blktrace_file`: `read_iolog`'s blktraces merged into this file and replayed.
    pub merge_file: Option<String>,
    /// `merge_blktrace_scalars` and `merge_blktrace_iters`, one per trace (or none).
    pub merge_scalars: Vec<f64>,
    pub merge_iters: Vec<f64>,
}

/// The largest iolog read (a trace of ~10 million I/Os).
const MAX_LOG_BYTES: u64 = 512 << 20;

impl JobDraft {
    /// With `read_iolog`: the log read, its files made the job's, its I/Os the job's
    /// stream, and the job sized to move exactly them (fio's `read_iolog()` adds the
    /// files and sums the bytes into `size`).
    pub(crate) fn apply_replay(&mut self) -> Result<(), String> {
        let Some(path) = self.replay.path.clone() else {
            return Ok(());
        };
        let bytes = match self.replay.merge_file.clone() {
            Some(to) => self.merge_traces(&path, to)?,
            None => read_log(&path)?,
        };
        let log = match crate::blktrace::detect(&bytes) {
            Some(swap) => crate::blktrace::parse(&bytes, swap, &self.replay.opts),
            None => match std::str::from_utf8(&bytes) {
                Ok(text) => parse(text, &self.replay.opts),
                Err(_) => Err("neither a fio iolog nor a blktrace".into()),
            },
        }
        .map_err(|e| format!("{path}: {e}"))?;
        if let Some(depth) = log.depth.filter(|_| !self.replay.iodepth_set) {
            self.spec.iodepth = depth;
        }
        if log.syncs_skipped > 0 {
            eprintln!(
                "iolab: read_iolog {path}: {} sync(s) in the log are not replayed",
                log.syncs_skipped
            );
        }
        let replay = Replay {
            ios: log.ios,
            no_stall: self.replay.no_stall,
            time_scale_percent: self.replay.time_scale.unwrap_or(100),
            merged: self
                .replay
                .merge_file
                .as_ref()
                .map(|to| iolab_job::MergedTrace {
                    path: to.into(),
                    bytes: bytes.clone().into(),
                    sources: path
                        .split(':')
                        .filter(|p| !p.is_empty())
                        .map(Into::into)
                        .collect(),
                }),
        };
        use iolab_engine::Direction::{Read, Trim, Write};
        let has = |d| replay.largest(d).is_some();
        self.rw = match (has(Read), has(Write), has(Trim)) {
            (_, _, true) if has(Read) || has(Write) => {
                return Err(
                    "a log mixing trims with reads or writes is not supported by iolab yet".into(),
                )
            }
            (_, _, true) => super::Rw::Trim,
            (true, true, _) => super::Rw::ReadWrite,
            (false, true, _) => super::Rw::Write,
            _ => super::Rw::Read,
        };
        for d in [Read, Write, Trim] {
            if let Some(bs) = replay.largest(d) {
                self.spec.block_size[d.index()] = bs;
                self.spec.block_dist[d.index()] = iolab_job::BlockDist::Fixed;
            }
        }
        let end = (0..log.files.len() as u32)
            .map(|f| replay.end_of(f))
            .max()
            .unwrap_or(0);
        // `size` is split evenly over the files: each gets the furthest end.
        self.spec.size = Some(iolab_job::SizeSpec::Bytes(end * log.files.len() as u64));
        self.spec.io_size = Some(iolab_job::SizeSpec::Bytes(replay.bytes()));
        self.spec.number_ios = Some(replay.ios.len() as u64);
        self.spec.offset = iolab_job::SizeSpec::Bytes(0);
        self.spec.time_based = false;
        self.filename = Some(
            log.files
                .iter()
                .map(|f| f.replace(':', "\\:"))
                .collect::<Vec<_>>()
                .join(":"),
        );
        self.spec.replay = Some(replay);
        Ok(())
    }
}

impl JobDraft {
    /// `read_iolog`'s blktraces (`a:b`) merged as `merge_blktrace_file` asks; the merged
    /// bytes are replayed, and written to the file when the run starts.
    fn merge_traces(&self, list: &str, to: String) -> Result<Vec<u8>, String> {
        let traces = list
            .split(':')
            .filter(|p| !p.is_empty())
            .map(|p| read_log(p).map(|b| (p.to_string(), b)))
            .collect::<Result<Vec<_>, _>>()?;
        let r = &self.replay;
        crate::blktrace_merge::merge(&traces, &r.merge_scalars, &r.merge_iters)
            .map_err(|e| format!("merge_blktrace_file={to}: {e}"))
    }
}

/// fio's `float_list`: values split by ':'.
fn float_list(v: &str) -> Result<Vec<f64>, String> {
    v.split(':')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && *f > 0.0)
                .ok_or_else(|| format!("'{s}' is not a number above 0"))
        })
        .collect()
}

fn read_log(path: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut text = Vec::new();
    f.take(MAX_LOG_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("{path}: {e}"))?;
    if text.len() as u64 > MAX_LOG_BYTES {
        return Err(format!("{path}: larger than {} MiB", MAX_LOG_BYTES >> 20));
    }
    Ok(text)
}

pub static REPLAY_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "write_iolog",
        alias: None,
        kind: ValueKind::Str,
        help: "Record every I/O the job issues to this file in fio's iolog (version 3: µs, file, direction, offset, length), for read_iolog to replay in iolab or fio.",
        apply: |d, v| {
            d.spec.logs.iolog = Some(v.to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "read_iolog",
        alias: None,
        kind: ValueKind::Str,
        help: "Replay this fio iolog (version 2 or 3) or blktrace binary: its files, and its reads, writes and trims at their offsets and sizes, at their recorded times unless replay_no_stall; syncs in the log are not replayed (said on stderr). A blktrace gives its queued reads, writes and discards on each device (the device found in /dev by number or named with replay_redirect; its probed queue depth the job's unless iodepth is set).",
        apply: |d, v| {
            d.replay.path = Some(v.to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "read_iolog_chunked",
        alias: None,
        kind: ValueKind::Bool,
        help: "fio reads a large iolog in pieces to save memory; iolab reads it whole (up to 512 MiB), so the I/Os are the same; checked and accepted.",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "replay_no_stall",
        alias: None,
        kind: ValueKind::Bool,
        help: "Replay as fast as possible, ignoring the log's times and waits.",
        apply: |d, v| {
            d.replay.no_stall = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "replay_redirect",
        alias: None,
        kind: ValueKind::Str,
        help: "Replay every I/O of the log onto this file or device, whatever the log names.",
        apply: |d, v| {
            d.replay.opts.redirect = Some(v.to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "replay_align",
        alias: None,
        kind: ValueKind::Size,
        help: "Round the log's offsets down to this alignment (a power of two).",
        apply: |d, v| {
            let a = parse_size(v)?;
            if a > 1 && !a.is_power_of_two() {
                return Err("must be a power of two".into());
            }
            d.replay.opts.align = a;
            Ok(())
        },
    },
    OptionDef {
        name: "replay_scale",
        alias: None,
        kind: ValueKind::Int,
        help: "Divide the log's offsets by this (default 1).",
        apply: |d, v| {
            d.replay.opts.scale = parse_u32(v)? as u64;
            Ok(())
        },
    },
    OptionDef {
        name: "replay_time_scale",
        alias: None,
        kind: ValueKind::Int,
        help: "Replay at this percentage of the recorded speed (default 100; 200 is twice as fast).",
        apply: |d, v| {
            match parse_u32(v)? {
                0 => return Err("must be at least 1".into()),
                p => d.replay.time_scale = Some(p),
            }
            Ok(())
        },
    },
    OptionDef {
        name: "merge_blktrace_file",
        alias: None,
        kind: ValueKind::Str,
        help: "Merge the blktraces read_iolog lists (a:b) by time into this file and replay it: colocated workloads interleave the same way every run. Only their queued reads, writes and discards are kept. fio documents this but its merge reads no record (every fio to 3.42 ends in 'iolog short read'); iolab's merged file is a plain blktrace fio's read_iolog replays.",
        apply: |d, v| {
            d.replay.merge_file = Some(v.to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "merge_blktrace_scalars",
        alias: None,
        kind: ValueKind::Str,
        help: "Per trace of the merge (':' between, in read_iolog's order), the percentage its times are scaled by: 50 replays it twice as fast. One value per trace, or none.",
        apply: |d, v| {
            d.replay.merge_scalars = float_list(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "merge_blktrace_iters",
        alias: None,
        kind: ValueKind::Str,
        help: "Per trace of the merge (':' between), how many times it is replayed, each repetition after its last event (2:1: the first trace twice while the second runs once).",
        apply: |d, v| {
            d.replay.merge_iters = float_list(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "replay_skip",
        alias: None,
        kind: ValueKind::Str,
        help: "The I/O types (read, write, trim, sync) a blktrace's replay leaves out; a text iolog is replayed whole, as fio does.",
        apply: |d, v| {
            d.replay.opts.skip = 0;
            for t in v.split(',').map(str::trim) {
                let bit = ["read", "write", "trim", "sync"]
                    .iter()
                    .position(|k| *k == t)
                    .ok_or_else(|| format!("'{t}' is not read, write, trim or sync"))?;
                d.replay.opts.skip |= 1 << bit;
            }
            Ok(())
        },
    },
];
