//! What a job checks of the data it reads back: fio's `verify` family as plain data. The
//! block format itself (headers, checksums, patterns) lives in the `iolab-verify` crate.

/// A checksum over each verify interval's data, as fio names them (`verify=crc32c`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    Md5,
    Crc64,
    Crc32,
    Crc32c,
    Crc16,
    Crc7,
    Sha256,
    Sha512,
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
    Xxhash,
    Sha1,
}

impl Checksum {
    /// Every checksum, with fio's name for it.
    pub const ALL: [(Checksum, &'static str); 14] = [
        (Checksum::Md5, "md5"),
        (Checksum::Crc64, "crc64"),
        (Checksum::Crc32, "crc32"),
        (Checksum::Crc32c, "crc32c"),
        (Checksum::Crc16, "crc16"),
        (Checksum::Crc7, "crc7"),
        (Checksum::Sha256, "sha256"),
        (Checksum::Sha512, "sha512"),
        (Checksum::Sha3_224, "sha3-224"),
        (Checksum::Sha3_256, "sha3-256"),
        (Checksum::Sha3_384, "sha3-384"),
        (Checksum::Sha3_512, "sha3-512"),
        (Checksum::Xxhash, "xxhash"),
        (Checksum::Sha1, "sha1"),
    ];

    pub fn name(self) -> &'static str {
        Checksum::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("?", |(_, n)| n)
    }
}

/// How each verify interval of a written block is made checkable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyKind {
    /// fio's header (magic, offset, length, header CRC) and a checksum of the rest.
    Checksum(Checksum),
    /// The header alone (`verify=meta`); with `verify_pattern` the rest is the pattern and
    /// is compared too.
    HeaderOnly,
    /// The header, the rest the pattern (fio's `verify_pattern` without `verify`).
    PatternWithHeader,
    /// The pattern alone, no header (`verify=pattern`).
    Pattern,
}

/// A job's verification settings (fio's `verify`, `do_verify`, `verify_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verify {
    pub kind: VerifyKind,
    /// Bytes per header (fio's `verify_interval`); 0: the smallest write block size.
    pub interval: u32,
    /// Bytes the data is filled with, repeated (`verify_pattern`); empty: random data.
    pub pattern: Vec<u8>,
    /// The pattern starts over every this many bytes of a block (fio 3.42's
    /// `verify_pattern_interval`); 0: once, at the block's start.
    pub pattern_interval: u32,
    /// Where in each interval the header goes, swapped with the data there
    /// (`verify_offset`); 0: at the start.
    pub header_offset: u32,
    /// Read back what a write job wrote once its writes are done (`do_verify`, default 1).
    pub after_writes: bool,
    /// Do not write: read what this job would have written and check it (`verify_only`).
    pub only: bool,
    /// Read back after every this many completed writes instead of only at the end
    /// (`verify_backlog`); 0: at the end.
    pub backlog: u32,
    /// Blocks read back each time the backlog fills (`verify_backlog_batch`; 0: the whole
    /// backlog).
    pub backlog_batch: u32,
    /// Write the bad block and the expected one to files beside the target on a mismatch
    /// (`verify_dump`).
    pub dump: bool,
    /// When a write job ends, save what it wrote (fio's `verify_state_save`, default on) in
    /// fio's state file, for a later job that loads it.
    pub save_state: bool,
    /// Verify only what the saved state says was written (fio's `verify_state_load`).
    pub load_state: bool,
    /// Where the state files are (fio's `--aux-path`); the current directory when `None`.
    pub state_dir: Option<std::path::PathBuf>,
    /// Check that a block read back carries the random seed its write had (fio 3.42's
    /// `verify_header_seed`, default on): a block another writer overwrote, or an older
    /// version of it, passes its checksum but not this.
    pub header_seed: bool,
    /// Check that a block read back carries its write's number in the job (fio 3.42's
    /// `verify_write_sequence`, default on; as fio, only for a write job of one block size
    /// that is not time-based).
    pub write_sequence: bool,
}

impl Verify {
    pub fn new(kind: VerifyKind) -> Verify {
        Verify {
            kind,
            interval: 0,
            pattern: Vec::new(),
            pattern_interval: 0,
            header_offset: 0,
            after_writes: true,
            only: false,
            backlog: 0,
            backlog_batch: 0,
            dump: false,
            save_state: true,
            load_state: false,
            state_dir: None,
            header_seed: true,
            write_sequence: true,
        }
    }

    /// fio's name for the kind (`crc32c`, `meta`, `pattern`).
    pub fn name(&self) -> &'static str {
        match self.kind {
            VerifyKind::Checksum(c) => c.name(),
            VerifyKind::HeaderOnly => "meta",
            VerifyKind::PatternWithHeader | VerifyKind::Pattern => "pattern",
        }
    }

    /// The interval as fio fixes it up (init.c): the smallest write size by default, never
    /// more than it, and a divisor of the smallest and the largest write size.
    pub fn effective_interval(&self, min_write: u32, max_write: u32, min_read: u32) -> u32 {
        let mut i = if self.interval == 0 {
            min_write
        } else {
            self.interval
        };
        if i > min_write {
            i = min_write;
        } else if i > min_read {
            i = min_read;
        }
        if i == 0 || !min_write.is_multiple_of(i) || !max_write.is_multiple_of(i) {
            i = gcd(min_write, max_write);
        }
        i
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_fixed_up_as_fios() {
        let v = Verify::new(VerifyKind::HeaderOnly);
        assert_eq!(v.effective_interval(4096, 4096, 4096), 4096);
        assert_eq!(v.effective_interval(4096, 65536, 4096), 4096);
        let v = Verify { interval: 512, ..v };
        assert_eq!(v.effective_interval(65536, 65536, 65536), 512);
        let v = Verify {
            interval: 3000,
            ..v
        };
        assert_eq!(v.effective_interval(4096, 8192, 4096), 4096);
    }

    #[test]
    fn names_are_fios() {
        assert_eq!(Checksum::Sha3_256.name(), "sha3-256");
        assert_eq!(Verify::new(VerifyKind::Pattern).name(), "pattern");
    }
}
