use iolab_job::{Checksum, Verify, VerifyKind};

use super::*;

fn format(kind: VerifyKind, interval: u32) -> Format {
    Format::new(&Verify::new(kind), interval)
}

fn stamped(f: &Format, len: usize, offset: u64) -> Vec<u8> {
    let mut b = vec![0u8; len];
    let s = Stamp {
        seed: 42,
        numberio: 7,
        thread: 1,
        ..Stamp::default()
    };
    f.stamp(&mut b, offset, &s);
    b
}

#[test]
fn every_checksum_round_trips_and_catches_a_flipped_bit() {
    for (c, name) in Checksum::ALL {
        let f = format(VerifyKind::Checksum(c), 4096);
        let mut b = stamped(&f, 8192, 1 << 20);
        assert_eq!(
            f.check(&mut b.clone(), 1 << 20, &Expect::default()),
            Ok(()),
            "{name}"
        );
        b[4096 + 3000] ^= 0x10;
        let m = f.check(&mut b, 1 << 20, &Expect::default()).unwrap_err();
        assert_eq!(m.offset, (1 << 20) + 4096, "{name}");
        assert!(
            matches!(m.problem, Problem::Sum { name: n, .. } if n == name),
            "{name}: {m}"
        );
    }
}

#[test]
fn the_checksums_are_the_standard_ones_fio_uses() {
    // Check values of "123456789" for each CRC, as catalogued for CRC-32C, CRC-64/REDIS,
    // CRC-16/ARC and CRC-7/MMC.
    let mut f = [0u8; 128];
    let data = b"123456789";
    checksum::compute(Checksum::Crc32c, data, &mut f);
    assert_eq!(u32::from_le_bytes(f[..4].try_into().unwrap()), !0xe306_9283);
    checksum::compute(Checksum::Crc64, data, &mut f);
    assert_eq!(
        u64::from_le_bytes(f[..8].try_into().unwrap()),
        0xe9c6_d914_c4b8_d9ca
    );
    checksum::compute(Checksum::Crc16, data, &mut f);
    assert_eq!(u16::from_le_bytes(f[..2].try_into().unwrap()), 0xbb3d);
    checksum::compute(Checksum::Crc7, data, &mut f);
    assert_eq!(f[0], 0x75);
}

#[test]
fn a_block_written_elsewhere_or_never_is_named() {
    let f = format(VerifyKind::Checksum(Checksum::Crc32c), 4096);
    let mut b = stamped(&f, 4096, 8192);
    let m = f
        .check(&mut b.clone(), 12288, &Expect::default())
        .unwrap_err();
    assert_eq!(m.problem, Problem::Offset { found: 8192 });
    assert!(m.to_string().contains("belongs at offset 8192"), "{m}");
    b[20] ^= 1; // inside the stored offset, so the header's own CRC no longer holds
    let m = f
        .check(&mut b, 8192 ^ (1 << 32), &Expect::default())
        .unwrap_err();
    assert!(matches!(m.problem, Problem::HeaderCrc { .. }), "{m}");
    let m = f
        .check(&mut [0u8; 4096], 0, &Expect::default())
        .unwrap_err();
    assert_eq!(m.problem, Problem::Magic { found: 0 });
}

#[test]
fn patterns_are_checked_with_and_without_a_header() {
    for kind in [VerifyKind::Pattern, VerifyKind::HeaderOnly] {
        let v = Verify {
            pattern: vec![0xaa, 0x55, 0x5a, 0xa5],
            ..Verify::new(kind)
        };
        let f = Format::new(&v, 512);
        let mut b = stamped(&f, 4096, 0);
        assert_eq!(f.check(&mut b.clone(), 0, &Expect::default()), Ok(()));
        if kind == VerifyKind::Pattern {
            assert_eq!(&b[..5], &[0xaa, 0x55, 0x5a, 0xa5, 0xaa]);
        }
        b[1024 + 100] = 0;
        let m = f.check(&mut b, 0, &Expect::default()).unwrap_err();
        assert_eq!(m.offset, 1024);
        assert!(
            matches!(
                m.problem,
                Problem::Pattern {
                    at: 100,
                    found: 0,
                    ..
                }
            ),
            "{m}"
        );
    }
}

#[test]
fn meta_without_a_pattern_checks_the_header_only() {
    let f = format(VerifyKind::HeaderOnly, 4096);
    let mut b = stamped(&f, 4096, 0);
    b[1000] ^= 0xff;
    assert_eq!(f.check(&mut b, 0, &Expect::default()), Ok(()));
}

#[test]
fn verify_offset_moves_the_header_and_back() {
    let v = Verify {
        header_offset: 1024,
        ..Verify::new(VerifyKind::Checksum(Checksum::Md5))
    };
    let f = Format::new(&v, 4096);
    let mut b = stamped(&f, 4096, 0);
    assert_eq!(u16::from_le_bytes([b[1024], b[1025]]), MAGIC);
    assert_ne!(u16::from_le_bytes([b[0], b[1]]), MAGIC);
    assert_eq!(f.check(&mut b, 0, &Expect::default()), Ok(()));
    let overlapping = Verify {
        header_offset: 10,
        ..v
    };
    assert!(Format::new(&overlapping, 4096).unfit(4096).is_some());
}

#[test]
fn the_header_is_fios_layout() {
    let f = format(VerifyKind::Checksum(Checksum::Crc32c), 512);
    let b = stamped(&f, 512, 3 << 9);
    assert_eq!(&b[0..2], &[0xca, 0xac]);
    assert_eq!(u16::from_le_bytes([b[2], b[3]]), 5); // VERIFY_CRC32C
    assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 512);
    assert_eq!(u64::from_le_bytes(b[16..24].try_into().unwrap()), 3 << 9);
    assert_eq!(u16::from_le_bytes([b[34], b[35]]), 7);
    let crc = u32::from_le_bytes(b[40..44].try_into().unwrap());
    assert_eq!(crc, !crc32c::crc32c(&b[44..]));
}

#[test]
fn a_header_too_big_for_the_interval_is_refused() {
    let f = format(VerifyKind::Checksum(Checksum::Sha512), 128);
    let why = f.unfit(128).unwrap();
    assert!(why.contains("sha512"), "{why}");
    assert!(format(VerifyKind::Checksum(Checksum::Crc32c), 512)
        .unfit(512)
        .is_none());
}

#[test]
fn a_block_of_another_write_fails_by_its_seed_or_number() {
    let f = format(VerifyKind::Checksum(Checksum::Crc32c), 4096);
    let b = stamped(&f, 4096, 8192);
    let ours = Expect {
        seed: Some(42),
        numberio: Some(7),
    };
    assert_eq!(f.check(&mut b.clone(), 8192, &ours), Ok(()));
    let other_seed = Expect {
        seed: Some(43),
        ..ours
    };
    let m = f.check(&mut b.clone(), 8192, &other_seed).unwrap_err();
    assert_eq!(
        m.problem,
        Problem::Seed {
            found: 42,
            wanted: 43
        }
    );
    assert!(
        m.to_string().contains("bad header rand_seed 42, wanted 43"),
        "{m}"
    );
    let later = Expect {
        numberio: Some(9),
        ..ours
    };
    let m = f.check(&mut b.clone(), 8192, &later).unwrap_err();
    assert_eq!(
        m.problem,
        Problem::NumberIo {
            found: 7,
            wanted: 9
        }
    );
    // Unknown expectations check nothing more.
    assert_eq!(f.check(&mut b.clone(), 8192, &Expect::default()), Ok(()));
}
