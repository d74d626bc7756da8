//! The checksums fio's verify offers, each from a well-kept crate, stored in the header as
//! fio 3.33 stores them (little-endian integers; digests as bytes, in fields that may be
//! longer than the digest: fio's sha256 field is 64 bytes, its sha512 field 128).
//!
//! fio's own sha256 and sha512 are not the standard algorithms (its sha256 keeps one byte
//! of each state word and appends the length little-endian), so iolab's sha256 and sha512
//! blocks are checkable by iolab only; [`fio_compatible`] says which are fio's.

use iolab_job::Checksum;
use md5::Digest;

use crate::Problem;

/// fio's crc64 (crc/crc64.c): the reflected polynomial 0x95AC9329AC4BC9B5, initial value 0,
/// no final xor: CRC-64/REDIS ("Jones").
const CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);
/// fio's crc16 (crc/crc16.c): polynomial 0x8005 reflected, initial value 0: CRC-16/ARC.
const CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);
/// fio's crc7 (crc/crc7.c, the MMC/SD card CRC): CRC-7/MMC.
const CRC7: crc::Crc<u8> = crc::Crc::<u8>::new(&crc::CRC_7_MMC);

/// fio's crc32 (crc/crc32.c): the polynomial 0x04C11DB7 not reflected, initial value 0, no
/// final xor (CRC-32/CKSUM's parameters without its final inversion).
const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
});

/// fio's crc32c (crc/crc32c.c): CRC-32C without the final inversion, so the complement of
/// the catalogued CRC-32C. The `crc32c` crate uses the CPU's instruction where it has one.
pub fn fio_crc32c(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

/// Whether fio computes this checksum as iolab does, so each can check what the other wrote.
pub fn fio_compatible(c: Checksum) -> bool {
    !matches!(c, Checksum::Sha256 | Checksum::Sha512)
}

/// Bytes of the checksum's field after the header (fio's `struct vhdr_*`).
pub fn field_len(c: Checksum) -> usize {
    match c {
        Checksum::Md5 => 16,
        Checksum::Crc64 => 8,
        Checksum::Crc32 | Checksum::Crc32c | Checksum::Xxhash => 4,
        Checksum::Crc16 => 2,
        Checksum::Crc7 => 1,
        Checksum::Sha256 => 64,
        Checksum::Sha512 => 128,
        Checksum::Sha3_224 => 28,
        Checksum::Sha3_256 => 32,
        Checksum::Sha3_384 => 48,
        Checksum::Sha3_512 => 64,
        Checksum::Sha1 => 20,
    }
}

/// fio's `VERIFY_*` number.
pub fn type_code(c: Checksum) -> u16 {
    match c {
        Checksum::Md5 => 2,
        Checksum::Crc64 => 3,
        Checksum::Crc32 => 4,
        Checksum::Crc32c => 5,
        Checksum::Crc16 => 7,
        Checksum::Crc7 => 8,
        Checksum::Sha256 => 9,
        Checksum::Sha512 => 10,
        Checksum::Sha3_224 => 11,
        Checksum::Sha3_256 => 12,
        Checksum::Sha3_384 => 13,
        Checksum::Sha3_512 => 14,
        Checksum::Xxhash => 15,
        Checksum::Sha1 => 16,
    }
}

/// The checksum of `data` into `field` (at least [`field_len`] bytes).
pub fn compute(c: Checksum, data: &[u8], field: &mut [u8]) {
    let mut put = |bytes: &[u8]| field[..bytes.len()].copy_from_slice(bytes);
    match c {
        Checksum::Crc32c => put(&fio_crc32c(data).to_le_bytes()),
        Checksum::Crc32 => put(&CRC32.checksum(data).to_le_bytes()),
        Checksum::Crc64 => put(&CRC64.checksum(data).to_le_bytes()),
        Checksum::Crc16 => put(&CRC16.checksum(data).to_le_bytes()),
        Checksum::Crc7 => put(&[CRC7.checksum(data)]),
        Checksum::Xxhash => put(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes()),
        Checksum::Md5 => put(&md5::Md5::digest(data)),
        Checksum::Sha1 => {
            // fio keeps SHA-1's five words in the CPU's byte order (little-endian here).
            let mut d: [u8; 20] = sha1::Sha1::digest(data).into();
            d.chunks_mut(4).for_each(|w| w.reverse());
            put(&d)
        }
        Checksum::Sha256 => put(&sha2::Sha256::digest(data)),
        Checksum::Sha512 => put(&sha2::Sha512::digest(data)),
        Checksum::Sha3_224 => put(&sha3::Sha3_224::digest(data)),
        Checksum::Sha3_256 => put(&sha3::Sha3_256::digest(data)),
        Checksum::Sha3_384 => put(&sha3::Sha3_384::digest(data)),
        Checksum::Sha3_512 => put(&sha3::Sha3_512::digest(data)),
    }
}

/// Compares the checksum stored in `field` with that of `data`.
pub fn check(c: Checksum, data: &[u8], field: &[u8]) -> Result<(), Problem> {
    let mut computed = [0u8; 128];
    compute(c, data, &mut computed);
    let n = digest_len(c);
    if field[..n] == computed[..n] {
        return Ok(());
    }
    Err(Problem::Sum {
        name: c.name(),
        stored: hex(&field[..n], c),
        computed: hex(&computed[..n], c),
    })
}

/// Bytes of the field the checksum fills (the rest of fio's field stays as it was).
fn digest_len(c: Checksum) -> usize {
    match c {
        Checksum::Sha256 => 32,
        Checksum::Sha512 => 64,
        _ => field_len(c),
    }
}

/// CRCs as the number (what fio prints), digests as their bytes.
fn hex(bytes: &[u8], c: Checksum) -> String {
    let number = matches!(
        c,
        Checksum::Crc32c
            | Checksum::Crc32
            | Checksum::Crc64
            | Checksum::Crc16
            | Checksum::Crc7
            | Checksum::Xxhash
    );
    let ordered: Vec<u8> = if number {
        bytes.iter().rev().copied().collect()
    } else {
        bytes.to_vec()
    };
    ordered.iter().map(|b| format!("{b:02x}")).collect()
}
