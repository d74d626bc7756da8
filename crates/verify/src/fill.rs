//! The data of a verified write: random from the block's seed, or the pattern repeated from
//! the start of the block.

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

/// `pattern` repeated over `buf`, starting with its first byte.
pub fn pattern(buf: &mut [u8], pattern: &[u8]) {
    for (b, p) in buf.iter_mut().zip(pattern.iter().cycle()) {
        *b = *p;
    }
}

/// Compares `data`, which starts `start` bytes into a pattern-filled block; the first
/// difference as (index in `data`, wanted, found).
pub fn check_pattern(data: &[u8], pattern: &[u8], start: usize) -> Result<(), (usize, u8, u8)> {
    let wanted = pattern.iter().cycle().skip(start % pattern.len());
    match data.iter().zip(wanted).position(|(d, w)| d != w) {
        None => Ok(()),
        Some(i) => Err((i, pattern[(start + i) % pattern.len()], data[i])),
    }
}
