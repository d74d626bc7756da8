//! fio's verify block format: what a write carries so that a later read can tell whether the
//! device gave back what was written, and the check of a block read back.
//!
//! The layout is fio 3.33's (verify.h), byte for byte, so either tool can check what the
//! other wrote: each `interval` bytes of a block start with a 40-byte header (magic 0xacca,
//! verify type, interval length, random seed, the interval's offset in the file, the write's
//! time, job number, I/O number, and fio's CRC32C of the header), then the checksum's own field
//! (4 bytes for crc32c, 16 for md5, …), then data: random, or `verify_pattern` repeated from
//! the start of the block. `verify=pattern` has no header at all. With `verify_offset` the
//! header is swapped with the data that many bytes into the interval.

mod checksum;
mod fill;
pub mod state;

use std::fmt;

use iolab_job::{Verify, VerifyKind};

pub use checksum::{field_len, fio_compatible};

/// fio's `FIO_HDR_MAGIC`.
const MAGIC: u16 = 0xacca;
/// `sizeof(struct verify_header)`.
const HEADER: usize = 40;
/// Where the header's own CRC32C is (it covers the bytes before it).
const HEADER_CRC_AT: usize = 36;

/// What a write stamps into each header besides offset and length.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stamp {
    /// Seed of the block's random data (fio's `rand_seed`).
    pub seed: u64,
    pub time_sec: u32,
    pub time_nsec: u32,
    /// fio's job number.
    pub thread: u16,
    /// The write's number in the job (fio's `numberio`, kept to 16 bits as fio's header).
    pub numberio: u16,
}

/// What a block read back must carry besides its offset: the seed and the write number its
/// write was stamped with, where the reader knows them (fio 3.42's `verify_header_seed` and
/// `verify_write_sequence`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expect {
    pub seed: Option<u64>,
    pub numberio: Option<u16>,
}

/// One job's block format: its kind, interval, pattern and header offset.
#[derive(Debug, Clone)]
pub struct Format {
    kind: VerifyKind,
    interval: usize,
    pattern: Vec<u8>,
    /// The pattern starts over every this many bytes of a block (`verify_pattern_interval`;
    /// `usize::MAX`: once, at the block's start).
    pattern_every: usize,
    header_offset: usize,
}

/// Why a block read back is not what was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Magic {
        found: u16,
    },
    Length {
        found: u32,
    },
    Offset {
        found: u64,
    },
    HeaderCrc {
        stored: u32,
        computed: u32,
    },
    Seed {
        found: u64,
        wanted: u64,
    },
    NumberIo {
        found: u16,
        wanted: u16,
    },
    Sum {
        name: &'static str,
        stored: String,
        computed: String,
    },
    Pattern {
        at: usize,
        wanted: u8,
        found: u8,
    },
}

/// A verify interval that failed its check: where it is and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The interval's offset in the file.
    pub offset: u64,
    pub len: u32,
    pub problem: Problem,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (off, len) = (self.offset, self.len);
        match &self.problem {
            Problem::Magic { found } => write!(
                f,
                "bad header magic at offset {off} (length {len}): expected 0x{MAGIC:04x}, found 0x{found:04x}"
            ),
            Problem::Length { found } => write!(
                f,
                "bad header length at offset {off}: expected {len}, found {found}"
            ),
            Problem::Offset { found } => write!(
                f,
                "bad header offset at offset {off} (length {len}): the block read says it belongs at offset {found}"
            ),
            Problem::Seed { found, wanted } => write!(
                f,
                "bad header rand_seed {found}, wanted {wanted} at offset {off} (length {len}): the block is another write's"
            ),
            Problem::NumberIo { found, wanted } => write!(
                f,
                "bad header numberio {found}, wanted {wanted} at offset {off} (length {len}): the block is another write's"
            ),
            Problem::HeaderCrc { stored, computed } => write!(
                f,
                "bad header crc32c at offset {off} (length {len}): expected 0x{stored:08x}, found 0x{computed:08x}"
            ),
            Problem::Sum {
                name,
                stored,
                computed,
            } => write!(
                f,
                "{name} mismatch at offset {off} (length {len}): expected 0x{stored} (written in the header), found 0x{computed} (of the data read)"
            ),
            Problem::Pattern { at, wanted, found } => write!(
                f,
                "pattern mismatch at offset {} (in the block at {off}, length {len}): expected 0x{wanted:02x}, found 0x{found:02x}",
                off + *at as u64
            ),
        }
    }
}

impl Format {
    /// The format of a job verifying with `v`, `interval` bytes per header (already fixed up,
    /// see [`Verify::effective_interval`]).
    pub fn new(v: &Verify, interval: u32) -> Format {
        Format {
            kind: v.kind,
            interval: interval as usize,
            pattern: v.pattern.clone(),
            pattern_every: match v.pattern_interval {
                0 => usize::MAX,
                n => n as usize,
            },
            header_offset: v.header_offset as usize,
        }
    }

    /// Bytes of header and checksum at the start of each interval.
    pub fn header_len(&self) -> usize {
        match self.kind {
            VerifyKind::Pattern => 0,
            VerifyKind::Checksum(c) => HEADER + field_len(c),
            VerifyKind::HeaderOnly | VerifyKind::PatternWithHeader => HEADER,
        }
    }

    /// Why this format cannot work with blocks of `smallest` bytes, if it cannot.
    pub fn unfit(&self, smallest: u32) -> Option<String> {
        let need = self.header_len() + self.header_offset;
        if self.header_offset > 0 && self.header_offset < self.header_len() {
            return Some(format!(
                "verify_offset={} would overlap the {}-byte header it is swapped with; use 0 or at least {}",
                self.header_offset,
                self.header_len(),
                self.header_len()
            ));
        }
        if self.interval <= self.header_len() || need > self.interval {
            return Some(format!(
                "verify={} needs more than {need} bytes per verify interval, which is {} (block size {smallest})",
                self.type_name(),
                self.interval
            ));
        }
        None
    }

    fn type_name(&self) -> &'static str {
        match self.kind {
            VerifyKind::Checksum(c) => c.name(),
            VerifyKind::HeaderOnly => "meta",
            _ => "pattern",
        }
    }

    /// Fills a write's buffer (`buf`, written at `offset`) with data and a header per
    /// interval. `fill` is the job's random stream for the data.
    pub fn stamp(&self, buf: &mut [u8], offset: u64, stamp: &Stamp) {
        if self.pattern.is_empty() {
            fill::random(buf, stamp.seed);
        } else {
            fill::pattern(buf, &self.pattern, self.pattern_every);
        }
        let hdr = self.header_len();
        for (n, chunk) in buf.chunks_exact_mut(self.interval).enumerate() {
            if hdr == 0 {
                continue;
            }
            let at = offset + (n * self.interval) as u64;
            self.write_header(chunk, at, stamp);
            if let VerifyKind::Checksum(c) = self.kind {
                let (head, data) = chunk.split_at_mut(hdr);
                checksum::compute(c, data, &mut head[HEADER..]);
            }
            if self.header_offset > 0 {
                swap(chunk, self.header_offset, hdr);
            }
        }
    }

    fn write_header(&self, chunk: &mut [u8], at: u64, s: &Stamp) {
        let h = &mut chunk[..HEADER];
        h[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        h[2..4].copy_from_slice(&self.type_code().to_le_bytes());
        h[4..8].copy_from_slice(&(self.interval as u32).to_le_bytes());
        h[8..16].copy_from_slice(&s.seed.to_le_bytes());
        h[16..24].copy_from_slice(&at.to_le_bytes());
        h[24..28].copy_from_slice(&s.time_sec.to_le_bytes());
        h[28..32].copy_from_slice(&s.time_nsec.to_le_bytes());
        h[32..34].copy_from_slice(&s.thread.to_le_bytes());
        h[34..36].copy_from_slice(&s.numberio.to_le_bytes());
        let crc = checksum::fio_crc32c(&h[..HEADER_CRC_AT]);
        h[HEADER_CRC_AT..HEADER].copy_from_slice(&crc.to_le_bytes());
    }

    /// fio's `verify_type` number (verify.h's enum).
    fn type_code(&self) -> u16 {
        match self.kind {
            VerifyKind::HeaderOnly => 1,
            VerifyKind::Checksum(c) => checksum::type_code(c),
            VerifyKind::PatternWithHeader => 17,
            VerifyKind::Pattern => 18,
        }
    }

    /// Checks a block read back from `offset`, whose write is `expect`ed to have stamped it
    /// so; the first interval that fails, if any. Undoes `verify_offset`'s swap in `buf` on
    /// the way.
    pub fn check(&self, buf: &mut [u8], offset: u64, expect: &Expect) -> Result<(), Mismatch> {
        let hdr = self.header_len();
        for (n, chunk) in buf.chunks_exact_mut(self.interval).enumerate() {
            let at = offset + (n * self.interval) as u64;
            let fail = |problem| Mismatch {
                offset: at,
                len: self.interval as u32,
                problem,
            };
            if self.header_offset > 0 && hdr > 0 {
                swap(chunk, self.header_offset, hdr);
            }
            if hdr > 0 {
                self.check_header(chunk, at, expect).map_err(fail)?;
            }
            match self.kind {
                VerifyKind::Checksum(c) => {
                    let (head, data) = chunk.split_at(hdr);
                    checksum::check(c, data, &head[HEADER..]).map_err(fail)?;
                }
                _ if self.pattern.is_empty() => {}
                _ => {
                    let start = n * self.interval + hdr;
                    fill::check_pattern(&chunk[hdr..], &self.pattern, self.pattern_every, start)
                        .map_err(|(i, wanted, found)| {
                            fail(Problem::Pattern {
                                at: hdr + i,
                                wanted,
                                found,
                            })
                        })?;
                }
            }
        }
        Ok(())
    }

    fn check_header(&self, chunk: &[u8], at: u64, expect: &Expect) -> Result<(), Problem> {
        let u16_at = |i: usize| u16::from_le_bytes([chunk[i], chunk[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(chunk[i..i + 4].try_into().unwrap());
        let magic = u16_at(0);
        if magic != MAGIC {
            return Err(Problem::Magic { found: magic });
        }
        let len = u32_at(4);
        if len as usize != self.interval {
            return Err(Problem::Length { found: len });
        }
        // In fio 3.42's order: the seed before the offset, the write number after it.
        let seed = u64::from_le_bytes(chunk[8..16].try_into().unwrap());
        if let Some(wanted) = expect.seed.filter(|w| *w != seed) {
            return Err(Problem::Seed {
                found: seed,
                wanted,
            });
        }
        let found = u64::from_le_bytes(chunk[16..24].try_into().unwrap());
        if found != at {
            return Err(Problem::Offset { found });
        }
        let numberio = u16_at(34);
        if let Some(wanted) = expect.numberio.filter(|w| *w != numberio) {
            return Err(Problem::NumberIo {
                found: numberio,
                wanted,
            });
        }
        let stored = u32_at(HEADER_CRC_AT);
        let computed = checksum::fio_crc32c(&chunk[..HEADER_CRC_AT]);
        if stored != computed {
            return Err(Problem::HeaderCrc { stored, computed });
        }
        Ok(())
    }
}

/// fio's `memswp`: exchanges the first `len` bytes with the `len` bytes at `at`.
fn swap(chunk: &mut [u8], at: usize, len: usize) {
    for i in 0..len {
        chunk.swap(i, at + i);
    }
}

#[cfg(test)]
mod tests;
