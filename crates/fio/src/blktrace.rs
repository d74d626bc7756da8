//! `blktrace`'s binary traces as `read_iolog` replays them, as fio's `blktrace.c` reads
//! them: a run of `struct blk_io_trace` records (48 bytes, each followed by `pdu_len` bytes
//! fio skips), in either byte order. Only queue events become I/Os (the rest are the block
//! layer's own steps); reads and writes are `fs` requests, discards trims, flushes syncs
//! (not replayed by iolab, said on stderr). Each device (`major:minor`) is a file: the one
//! block device in `/dev` with that number, or `replay_redirect` for all of them. The queue
//! depth the trace reached (queue events less merges, up to a completion) is the replay's
//! `iodepth` unless the job sets one, as fio's.

use std::path::{Path, PathBuf};

use iolab_engine::Direction;
use iolab_job::ReplayIo;

use crate::iolog::{ReadLog, ReplayOptions};

const MAGIC: u32 = 0x6561_7400;
const VERSION: u32 = 0x07;
pub(crate) const RECORD: usize = 48;

/// `BLK_TC_ACT(BLK_TC_*)`: the category bits of `action`.
const TC_READ: u32 = 1 << 16;
const TC_WRITE: u32 = 1 << 17;
const TC_FLUSH: u32 = 1 << 18;
const TC_NOTIFY: u32 = 1 << 26;
const TC_DISCARD: u32 = 1 << 29;
/// `__BLK_TA_*`: the action in the low 16 bits.
pub(crate) const TA_QUEUE: u32 = 1;
const TA_BACKMERGE: u32 = 2;
const TA_FRONTMERGE: u32 = 3;
const TA_COMPLETE: u32 = 8;

/// Whether `bytes` start with a trace record, and whether it is in the other byte order.
pub fn detect(bytes: &[u8]) -> Option<bool> {
    let m = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
    if bytes.len() < RECORD {
        return None;
    }
    match (
        m & 0xffff_ff00 == MAGIC,
        m.swap_bytes() & 0xffff_ff00 == MAGIC,
    ) {
        (true, _) => Some(false),
        (_, true) => Some(true),
        _ => None,
    }
}

/// fio's `t_get_ddir` of an `action`: read (0), write (1) or trim (2) by category, else none.
pub(crate) fn category_dir(action: u32) -> Option<usize> {
    if action & TC_READ != 0 {
        Some(0)
    } else if action & TC_WRITE != 0 {
        Some(1)
    } else if action & TC_DISCARD != 0 {
        Some(2)
    } else {
        None
    }
}

/// One record's fields fio reads.
struct Trace {
    magic: u32,
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
    pdu_len: u16,
}

impl Trace {
    fn read(b: &[u8], swap: bool) -> Trace {
        let u32_at = |o: usize| {
            let v = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        let u64_at = |o: usize| {
            let v = u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        let pdu = u16::from_le_bytes(b[46..48].try_into().unwrap());
        Trace {
            magic: u32_at(0),
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            device: u32_at(36),
            pdu_len: if swap { pdu.swap_bytes() } else { pdu },
        }
    }

    /// fio's `t_get_ddir`: read, write or trim by category, else none.
    fn dir(&self) -> Option<usize> {
        category_dir(self.action)
    }
}

/// Reads a trace (`swap`: the other byte order) as fio's `read_blktrace()` does.
pub fn parse(bytes: &[u8], swap: bool, opts: &ReplayOptions) -> Result<ReadLog, String> {
    let mut r = Reader {
        opts,
        files: Vec::new(),
        devices: Vec::new(),
        ios: Vec::new(),
        syncs: 0,
        last_time: 0,
        at_us: 0,
        zero_warned: false,
    };
    let (mut this_depth, mut depth) = ([0i64; 3], [0i64; 3]);
    let mut pos = 0;
    // A partial record at the end is fio's "iolog short read": the trace ends there.
    while bytes.len() - pos.min(bytes.len()) >= RECORD {
        let t = Trace::read(&bytes[pos..pos + RECORD], swap);
        if t.magic & 0xffff_ff00 != MAGIC {
            return Err(format!("bad magic in blktrace data: {:x}", t.magic));
        }
        if t.magic & 0xff != VERSION {
            return Err(format!("bad blktrace version {}", t.magic & 0xff));
        }
        pos += RECORD + t.pdu_len as usize;
        if t.action & TC_NOTIFY == 0 {
            if let Some(d) = t.dir() {
                match t.action & 0xffff {
                    TA_QUEUE => this_depth[d] += 1,
                    TA_BACKMERGE | TA_FRONTMERGE => this_depth[d] -= 1,
                    TA_COMPLETE => {
                        depth[d] = depth[d].max(this_depth[d]);
                        this_depth[d] = 0;
                    }
                    _ => {}
                }
            }
        }
        r.queue_trace(t)?;
    }
    if r.ios.is_empty() && r.syncs == 0 {
        return Err("found no ios in blktrace data".into());
    }
    let mut counts = [0u64; 3];
    for io in &r.ios {
        counts[io.dir.index()] += 1;
    }
    // Stacked devices may never complete: depth is capped at 1024, and 1 where none was seen.
    let depth = (0..3)
        .map(|d| match depth[d] {
            n if n > 1024 => 1024,
            0 if counts[d] > 0 => 1,
            n => n.max(0),
        })
        .max()
        .unwrap_or(0);
    Ok(ReadLog {
        files: r.files,
        ios: r.ios.into(),
        syncs_skipped: r.syncs,
        depth: (depth > 0).then_some(depth as u32),
    })
}

struct Reader<'a> {
    opts: &'a ReplayOptions,
    files: Vec<String>,
    /// Each device seen (major, minor) and its file.
    devices: Vec<((u32, u32), u32)>,
    ios: Vec<ReplayIo>,
    syncs: u64,
    /// The last queue event's time (ns), fio's `io_log_last_ttime`.
    last_time: u64,
    /// When the next I/O is due, µs from the start: each stored event's delay added, whole
    /// µs each, as fio's `ipo->delay`.
    at_us: u64,
    zero_warned: bool,
}

impl Reader<'_> {
    /// fio's `queue_trace()`: a queue event becomes an I/O, a sync or nothing.
    fn queue_trace(&mut self, mut t: Trace) -> Result<(), String> {
        if t.action & 0xffff != TA_QUEUE {
            return Ok(());
        }
        if t.action & TC_NOTIFY != 0 {
            return Ok(());
        }
        // The first event, and one earlier than the last, wait for nothing.
        let delay_ns = match self.last_time {
            0 => 0,
            last if t.time < last => 0,
            last => t.time - last,
        };
        self.last_time = t.time;
        let align = self.opts.align;
        if align > 1 {
            t.bytes = ((t.bytes as u64 + align - 1) & !(align - 1)) as u32;
        }
        let skip = |d: u8| self.opts.skip & (1 << d) != 0;
        let dir = if t.action & TC_DISCARD != 0 {
            if skip(2) {
                return Ok(());
            }
            Direction::Trim
        } else if t.action & TC_FLUSH != 0 {
            if skip(3) {
                return Ok(());
            }
            self.file(t.device)?;
            self.syncs += 1;
            self.at_us += delay_ns / 1000;
            return Ok(());
        } else {
            // fio adds the device's file before it looks at the rest.
            self.file(t.device)?;
            let write = t.action & TC_WRITE != 0;
            if skip(write as u8) {
                return Ok(());
            }
            if t.bytes == 0 {
                if !self.zero_warned {
                    eprintln!(
                        "iolab: blktrace: ignoring zero byte trace: action={:x}",
                        t.action
                    );
                    self.zero_warned = true;
                }
                return Ok(());
            }
            if write {
                Direction::Write
            } else {
                Direction::Read
            }
        };
        let file = self.file(t.device)?;
        let offset = self.opts.offset(t.sector * 512);
        self.at_us += delay_ns / 1000;
        self.ios.push(ReplayIo {
            file,
            dir,
            offset,
            len: t.bytes,
            at_us: self.at_us,
        });
        Ok(())
    }

    /// The file a device's I/O goes to: `replay_redirect`, or the block device in `/dev`
    /// with its number (fio's `trace_add_file()`).
    fn file(&mut self, device: u32) -> Result<u32, String> {
        let key = (device >> 20, device & ((1 << 20) - 1));
        if let Some(&(_, f)) = self.devices.iter().find(|(d, _)| *d == key) {
            return Ok(f);
        }
        let name = match &self.opts.redirect {
            Some(r) => r.clone(),
            None => find_device(Path::new("/dev"), key.0, key.1)
                .ok_or_else(|| {
                    format!(
                        "no block device in /dev is {}:{}, the trace's device; name a file \
                         for it with replay_redirect",
                        key.0, key.1
                    )
                })?
                .to_string_lossy()
                .into_owned(),
        };
        let index = match self.files.iter().position(|f| *f == name) {
            Some(i) => i as u32,
            None => {
                self.files.push(name);
                self.files.len() as u32 - 1
            }
        };
        self.devices.push((key, index));
        Ok(index)
    }
}

/// The first block device under `dir` (searched as fio's `blktrace_lookup_device`, into
/// subdirectories, never through symlinks) numbered `maj:min`.
fn find_device(dir: &Path, maj: u32, min: u32) -> Option<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let path = e.path();
        let Ok(m) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if m.is_dir() {
            if let Some(p) = find_device(&path, maj, min) {
                return Some(p);
            }
        } else if m.file_type().is_block_device() {
            let rdev = m.rdev();
            if libc::major(rdev) == maj && libc::minor(rdev) == min {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One record as blktrace writes it on this machine.
    fn record(time: u64, sector: u64, bytes: u32, action: u32, device: u32, pdu: u16) -> Vec<u8> {
        let mut r = Vec::with_capacity(RECORD + pdu as usize);
        r.extend((MAGIC | VERSION).to_le_bytes());
        r.extend(0u32.to_le_bytes());
        r.extend(time.to_le_bytes());
        r.extend(sector.to_le_bytes());
        r.extend(bytes.to_le_bytes());
        r.extend(action.to_le_bytes());
        r.extend(0u32.to_le_bytes()); // pid
        r.extend(device.to_le_bytes());
        r.extend(0u32.to_le_bytes()); // cpu
        r.extend(0u16.to_le_bytes());
        r.extend(pdu.to_le_bytes());
        r.extend(vec![0u8; pdu as usize]);
        r
    }

    #[test]
    fn queue_events_become_ios_with_fios_delays_and_depth() {
        let dev = (7 << 20) | 3;
        let q = TA_QUEUE;
        let trace: Vec<u8> = [
            record(1_000, 8, 4096, q | TC_READ, dev, 0),
            record(3_500, 16, 8192, q | TC_WRITE, dev, 4),
            record(3_600, 16, 8192, 7 | TC_WRITE, dev, 0), // issue: not an I/O
            record(9_000, 0, 0, q | TC_FLUSH, dev, 0),
            record(10_000, 64, 4096, q | TC_DISCARD, dev, 0),
            record(12_000, 32, 0, q | TC_READ, dev, 0), // zero bytes: skipped
            record(20_000, 8, 4096, TA_COMPLETE | TC_READ, dev, 0),
        ]
        .concat();
        assert_eq!(detect(&trace), Some(false));
        let opts = ReplayOptions {
            redirect: Some("/tmp/f".into()),
            ..Default::default()
        };
        let log = parse(&trace, false, &opts).unwrap();
        assert_eq!(log.files, ["/tmp/f"]);
        assert_eq!(log.syncs_skipped, 1);
        // Two reads queued before the completion (the zero-byte one counts, as in fio).
        assert_eq!(log.depth, Some(2));
        let got: Vec<_> = log
            .ios
            .iter()
            .map(|i| (i.dir, i.offset, i.len, i.at_us))
            .collect();
        // Delays from the previous queue event, whole µs each: 2.5, then 5.5 and 1.
        assert_eq!(
            got,
            [
                (Direction::Read, 4096, 4096, 0),
                (Direction::Write, 8192, 8192, 2),
                (Direction::Trim, 32768, 4096, 8),
            ]
        );
        let skip = ReplayOptions {
            skip: 0b10,
            ..opts.clone()
        };
        assert_eq!(parse(&trace, false, &skip).unwrap().ios.len(), 2);
        let swapped: Vec<u8> = trace
            .chunks(4)
            .flat_map(|c| c.iter().rev().copied().collect::<Vec<_>>())
            .collect();
        assert_eq!(detect(&swapped[..RECORD]), Some(true));
        assert!(parse(b"fio version 2 iolog", false, &opts).is_err());
    }
}
