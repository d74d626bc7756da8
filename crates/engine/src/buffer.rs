//! Page-aligned I/O buffers, one per in-flight slot.
//!
//! O_DIRECT needs buffers aligned to the device's logical block size; page alignment (4 KiB)
//! covers every device iolab meets. The pool is filled with pseudo-random bytes, as fio does by
//! default, so compressing devices such as zram store what a real workload would.

use crate::memory::{Backing, Memory};

pub use crate::memory::BUFFER_ALIGN;

/// `slots` buffers of `slot_len` bytes each in one aligned allocation.
pub struct BufferPool {
    /// The first buffer (the allocation's start plus `mem_align`).
    ptr: *mut u8,
    _backing: Backing,
    slot_len: usize,
    slots: usize,
}

// SAFETY: the pool owns its allocation; raw pointers into it are handed to engines only by the
// thread that owns the pool.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// Allocates `slots` buffers of at least `len` bytes, each starting on a 4 KiB boundary.
    pub fn new(slots: usize, len: usize, seed: u64) -> BufferPool {
        BufferPool::with_memory(slots, len, seed, &Memory::default())
            .unwrap_or_else(|e| panic!("allocating {slots} I/O buffers of {len} bytes: {e}"))
    }

    /// As [`BufferPool::new`], in the memory `mem` names (fio's `mem`, `mem_align`): the
    /// first buffer `mem.align` bytes past a page boundary, the others a slot apart.
    pub fn with_memory(
        slots: usize,
        len: usize,
        seed: u64,
        mem: &Memory,
    ) -> std::io::Result<BufferPool> {
        let slot_len = len.max(1).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN;
        let size = slot_len * slots.max(1);
        let backing = Backing::allocate(mem, size + mem.align)?;
        // SAFETY: the allocation holds `align` more bytes than the slots need.
        let ptr = unsafe { backing.base().add(mem.align) };
        let mut pool = BufferPool {
            ptr,
            _backing: backing,
            slot_len,
            slots: slots.max(1),
        };
        pool.fill_random(seed);
        Ok(pool)
    }

    fn fill_random(&mut self, seed: u64) {
        // SAFETY: ptr is valid for slots * slot_len bytes and we hold &mut self.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.ptr, self.slots * self.slot_len) };
        let mut state = seed;
        fill_random(bytes, &mut state);
    }

    /// Refills every slot: zeros, or random data of which `compress_percent` % of each
    /// `chunk`-byte chunk (0: the whole slot) is zeros (so it compresses by about that
    /// much; 0 = incompressible).
    pub fn fill(&mut self, seed: u64, zero: bool, compress_percent: u8, chunk: usize) {
        self.fill_with(seed, zero, compress_percent, chunk, None)
    }

    /// As [`BufferPool::fill`], with fio's `buffer_pattern` (see [`fill_buffer_with`]).
    pub fn fill_with(
        &mut self,
        seed: u64,
        zero: bool,
        compress_percent: u8,
        chunk: usize,
        pattern: Option<&FillPattern>,
    ) {
        for i in 0..self.slots {
            // SAFETY: slot i is slot_len bytes inside the allocation; we hold &mut self.
            let buf = unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), self.slot_len) };
            let mut state = seed.wrapping_add(i as u64 * 0x9E37_79B9);
            fill_buffer_with(buf, &mut state, zero, compress_percent, chunk, pattern);
        }
    }

    /// The buffer of slot `i`.
    #[inline(always)]
    pub fn slot_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.slots);
        // SAFETY: i < slots keeps the result inside the allocation.
        unsafe { self.ptr.add(i * self.slot_len) }
    }

    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    /// One iovec per slot, for buffer registration.
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec {
                iov_base: self.slot_ptr(i).cast(),
                iov_len: self.slot_len,
            })
            .collect()
    }
}

/// fio's `buffer_pattern`: up to 512 bytes (fio's `MAX_PATTERN_SIZE`) repeated through a
/// buffer; kept inline so the job's buffer settings stay plain `Copy` data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillPattern {
    bytes: [u8; 512],
    len: u16,
}

impl FillPattern {
    /// The pattern of `bytes` (1 to 512 of them).
    pub fn new(bytes: &[u8]) -> Option<FillPattern> {
        if bytes.is_empty() || bytes.len() > 512 {
            return None;
        }
        let mut out = FillPattern {
            bytes: [0; 512],
            len: bytes.len() as u16,
        };
        out.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(out)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Repeats the pattern over `buf`, from its first byte: one copy of the pattern, then
    /// what is filled copied onto what follows, doubling each time (fio's `cpy_pattern()`),
    /// so a long buffer costs a few `memcpy`s rather than a loop per byte.
    pub fn fill(&self, buf: &mut [u8]) {
        let first = self.bytes().len().min(buf.len());
        buf[..first].copy_from_slice(&self.bytes()[..first]);
        let mut done = first;
        while done < buf.len() {
            let n = done.min(buf.len() - done);
            buf.copy_within(..n, done);
            done += n;
        }
    }
}

/// splitmix64: spreads a state over the four lanes of [`fill_random`] (and a dedupe page
/// number over its fill state).
#[inline(always)]
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One wyrand step's output for the lane value `s` (Wang Yi's generator, as `fastrand`'s).
#[inline(always)]
fn wy(s: u64) -> u64 {
    let t = (s as u128) * ((s ^ 0xE703_7ED1_A0B4_28DB) as u128);
    (t >> 64) as u64 ^ t as u64
}

const WY_STEP: u64 = 0xA076_1D64_78BD_642F;

/// Fresh random bytes over `buf`, a pure function of `state`, which moves on.
///
/// Why four lanes of wyrand and not one generator: a single generator's next word waits for
/// its last, so one core makes about 5 GB/s here (the xorshift64* this replaced) or 10
/// (`fastrand`'s `fill`, one wyrand). Four lanes seeded apart (splitmix64 of the state and
/// its next three values) have no chain between them, and the core computes them side by
/// side: 25-27 GB/s, as fio's `__fill_random_buf()` does with its seed buckets
/// (bench/fill_generators, with the figures in BENCHMARKS.md). The bytes stay incompressible to zram's LZ4 and zstd.
#[inline]
pub fn fill_random(buf: &mut [u8], state: &mut u64) {
    let base = *state;
    let mut lanes: [u64; 4] = std::array::from_fn(|i| splitmix(base.wrapping_add(i as u64)));
    let mut blocks = buf.chunks_exact_mut(32);
    for block in &mut blocks {
        for (lane, word) in lanes.iter_mut().zip(block.chunks_exact_mut(8)) {
            *lane = lane.wrapping_add(WY_STEP);
            word.copy_from_slice(&wy(*lane).to_le_bytes());
        }
    }
    for word in blocks.into_remainder().chunks_mut(8) {
        lanes[0] = lanes[0].wrapping_add(WY_STEP);
        let v = wy(lanes[0]).to_le_bytes();
        word.copy_from_slice(&v[..word.len()]);
    }
    *state = base.wrapping_add(4);
}

/// Chunk size for compressibility and scrambling, fio's `buffer_compress_chunk` default.
pub const CHUNK: usize = 512;

/// Fills `buf` as [`BufferPool::fill`] describes, advancing the random `state`.
pub fn fill_buffer(
    buf: &mut [u8],
    state: &mut u64,
    zero: bool,
    compress_percent: u8,
    chunk: usize,
) {
    fill_buffer_with(buf, state, zero, compress_percent, chunk, None)
}

/// As [`fill_buffer`], with fio's `buffer_pattern`: the buffer is the pattern repeated, or
/// with `compress_percent`, each chunk's compressible part is (fio's
/// `fill_random_buf_percentage()` with a pattern).
pub fn fill_buffer_with(
    buf: &mut [u8],
    state: &mut u64,
    zero: bool,
    compress_percent: u8,
    chunk: usize,
    pattern: Option<&FillPattern>,
) {
    if let (Some(p), 0) = (pattern, compress_percent) {
        p.fill(buf);
        return;
    }
    if zero {
        buf.fill(0);
        return;
    }
    let size = match chunk {
        0 => buf.len().max(1),
        c => c,
    };
    let random_len = size * (100 - compress_percent.min(100) as usize) / 100;
    for chunk in buf.chunks_mut(size) {
        let n = random_len.min(chunk.len());
        fill_random(&mut chunk[..n], state);
        match pattern {
            Some(p) => p.fill(&mut chunk[n..]),
            None => chunk[n..].fill(0),
        }
    }
}

/// fio's `scramble_buffers` (`small_content_scramble()` in fio's io_u.c), byte for byte in
/// layout: in every 512-byte block, the block's file offset goes at the start of one 64-byte
/// cache line (the same line in every block of the I/O, picked from the submit time and the
/// offset), and the submit time's seconds and nanoseconds at bytes 48..64. A compressing or
/// deduplicating device (zram) then sees the same kind of data from iolab as from fio: each
/// block carries 24 bytes of stamps, 16 of them the same in every block of an I/O.
#[inline]
pub fn scramble(buf: &mut [u8], offset: u64, time_sec: u64, time_nsec: u64) {
    let line = (((time_nsec ^ offset) & 7) as usize) << 6;
    let mut boffset = offset;
    for block in buf.chunks_exact_mut(CHUNK) {
        block[line..line + 8].copy_from_slice(&boffset.to_ne_bytes());
        block[48..56].copy_from_slice(&time_sec.to_ne_bytes());
        block[56..64].copy_from_slice(&time_nsec.to_ne_bytes());
        boffset += CHUNK as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_disjoint_and_not_zero() {
        let p = BufferPool::new(3, 5000, 7);
        assert_eq!(p.slot_len(), 8192);
        for i in 0..3 {
            assert_eq!(p.slot_ptr(i) as usize % BUFFER_ALIGN, 0);
        }
        assert_eq!(p.slot_ptr(1) as usize - p.slot_ptr(0) as usize, 8192);
        // SAFETY: slot 2 is 8192 bytes inside the pool.
        let s = unsafe { std::slice::from_raw_parts(p.slot_ptr(2), 8192) };
        assert!(s.iter().filter(|&&b| b == 0).count() < 100);
    }

    #[test]
    fn fills_compress_as_asked() {
        let mut buf = vec![0xffu8; 4096];
        let mut st = 5;
        fill_buffer(&mut buf, &mut st, false, 50, CHUNK);
        let zeros = buf.iter().filter(|&&b| b == 0).count();
        assert!((2048..2100).contains(&zeros), "{zeros}");
        fill_buffer(&mut buf, &mut st, true, 0, CHUNK);
        assert!(buf.iter().all(|&b| b == 0));
        fill_buffer(&mut buf, &mut st, false, 0, CHUNK);
        assert!(buf.iter().filter(|&&b| b == 0).count() < 64);
        let before = buf.clone();
        scramble(&mut buf, 42, 0, 0);
        let changed = buf.iter().zip(&before).filter(|(a, b)| a != b).count();
        assert!((8..=24 * 8).contains(&changed), "{changed}");
    }

    #[test]
    fn scramble_lays_out_stamps_as_fio() {
        let mut buf = vec![0xAAu8; 1536];
        // (nsec ^ offset) & 7 = 3: offsets go at byte 192 of each block.
        scramble(&mut buf, 4096, 7, 3 ^ 4096);
        for (i, block) in buf.chunks(512).enumerate() {
            let at = |o: usize| u64::from_ne_bytes(block[o..o + 8].try_into().unwrap());
            assert_eq!(at(192), 4096 + 512 * i as u64);
            assert_eq!((at(48), at(56)), (7, 3 ^ 4096));
            assert!(block[..48].iter().all(|&b| b == 0xAA));
        }
        // A length short of a block is left alone, as fio's nr_blocks = buflen >> 9.
        let mut short = vec![0u8; 511];
        scramble(&mut short, 0, 1, 1);
        assert!(short.iter().all(|&b| b == 0));
    }
}
