//! The data of a verified write: random from the block's seed, or the pattern repeated from
//! the start of the block (and again every `verify_pattern_interval` bytes, where set).

/// Random bytes from `seed` (splitmix64), 8 at a time.
pub fn random(buf: &mut [u8], seed: u64) {
    let mut s = seed;
    for chunk in buf.chunks_mut(8) {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
    }
}

/// `pattern` repeated over `buf`, starting with its first byte, and starting over every
/// `every` bytes of it (fio 3.42's `verify_pattern_interval`).
pub fn pattern(buf: &mut [u8], pattern: &[u8], every: usize) {
    for chunk in buf.chunks_mut(every.max(1)) {
        for (b, p) in chunk.iter_mut().zip(pattern.iter().cycle()) {
            *b = *p;
        }
    }
}

/// The pattern's byte at `pos` in a block filled by [`pattern`].
fn wanted_at(pattern: &[u8], every: usize, pos: usize) -> u8 {
    pattern[(pos % every.max(1)) % pattern.len()]
}

/// Compares `data`, which starts `start` bytes into a pattern-filled block (the pattern
/// starting over every `every` bytes); the first difference as (index in `data`, wanted,
/// found).
pub fn check_pattern(
    data: &[u8],
    pattern: &[u8],
    every: usize,
    start: usize,
) -> Result<(), (usize, u8, u8)> {
    match (0..data.len()).find(|&i| data[i] != wanted_at(pattern, every, start + i)) {
        None => Ok(()),
        Some(i) => Err((i, wanted_at(pattern, every, start + i), data[i])),
    }
}
