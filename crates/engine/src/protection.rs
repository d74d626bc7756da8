//! NVMe end-to-end protection information on `io_uring_cmd` (fio 3.42's `pi_act`, `pi_chk`,
//! `apptag`, `apptag_mask`, `md_per_io_size`, as its `engines/nvme.c`): each command carries
//! PRINFO in CDW12 (PRACT: the controller inserts and strips the 8-byte PI itself; PRCHK:
//! which of guard, application tag and reference tag it checks), the expected initial
//! reference tag in CDW14 (Types 1 and 2: the starting LBA's low 32 bits) and the
//! application tag and its mask in CDW15. Without PRACT, the host writes the PI into each
//! I/O's metadata buffer (the guard a CRC-16 T10-DIF of the block's data) and, where fio
//! does (`md_per_io_size` set), checks a read's PI itself.
//!
//! Namespaces whose metadata travels inside each block (extended LBAs) or with a 64-bit
//! guard are refused by the engine with the reason; fio 3.42 handles both.

/// CDW12's PRINFO bits (NVMe base spec, Read and Write commands).
pub const PRCHK_REF: u32 = 1 << 26;
pub const PRCHK_APP: u32 = 1 << 27;
pub const PRCHK_GUARD: u32 = 1 << 28;
pub const PRACT: u32 = 1 << 29;

/// The 16-bit guard: CRC-16 T10-DIF (polynomial 0x8BB7), as the drive computes it.
const T10DIF: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_T10_DIF);
/// The protection information's size with a 16-bit guard: guard, application tag,
/// reference tag, all big-endian.
pub const PI_BYTES: usize = 8;

/// What the job asks of protection information.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protection {
    /// PRACT (`pi_act`, default 1, as fio).
    pub act: bool,
    /// PRCHK bits (`pi_chk=GUARD,REFTAG,APPTAG`).
    pub check: u32,
    /// `apptag` (default 0x1234) and `apptag_mask` (default 0xffff).
    pub apptag: u16,
    pub apptag_mask: u16,
    /// Bytes of separate metadata buffer per I/O (`md_per_io_size`, default 0).
    pub md_per_io: u32,
}

impl Default for Protection {
    fn default() -> Self {
        Protection {
            act: true,
            check: 0,
            apptag: 0x1234,
            apptag_mask: 0xffff,
            md_per_io: 0,
        }
    }
}

impl Protection {
    /// fio's `pi_chk` string: each of GUARD, REFTAG and APPTAG found in it turns that check
    /// on (fio looks for the words anywhere in the value).
    pub fn parse_checks(v: &str) -> u32 {
        [
            ("GUARD", PRCHK_GUARD),
            ("REFTAG", PRCHK_REF),
            ("APPTAG", PRCHK_APP),
        ]
        .iter()
        .filter(|(w, _)| v.contains(w))
        .fold(0, |acc, (_, bit)| acc | bit)
    }

    /// CDW12's PRINFO bits, set on every read and write as fio sets them (a namespace
    /// without protection information ignores them).
    pub fn io_flags(&self) -> u32 {
        self.check | if self.act { PRACT } else { 0 }
    }
}

/// A namespace's format as protection information needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub lba_bytes: u32,
    /// Metadata bytes per block the host transfers (0 where PRACT leaves the controller
    /// all of an 8-byte PI).
    pub ms: u32,
    pub pi_type: u8,
    pub pi_first: bool,
}

impl Format {
    /// Where in a block's metadata the PI starts.
    fn interval(&self) -> usize {
        match self.pi_first {
            true => 0,
            false => self.ms as usize - PI_BYTES,
        }
    }

    /// The guard of one block: its data, then any metadata bytes before the PI.
    fn guard(&self, data: &[u8], md: &[u8]) -> u16 {
        let mut d = T10DIF.digest();
        d.update(data);
        d.update(&md[..self.interval()]);
        d.finalize()
    }

    /// Writes each block's PI into `md` (host-generated, without PRACT): the guard, the
    /// application tag and the reference tag (Types 1 and 2: the block's LBA), each where
    /// its check is on, as fio's `fio_nvme_generate_pi_16b_guard`.
    pub fn generate(&self, p: &Protection, data: &[u8], md: &mut [u8], slba: u64) {
        let (lb, ms) = (self.lba_bytes as usize, self.ms as usize);
        for (n, (block, meta)) in data.chunks(lb).zip(md.chunks_mut(ms)).enumerate() {
            let at = self.interval();
            if p.check & PRCHK_GUARD != 0 {
                let g = self.guard(block, meta);
                meta[at..at + 2].copy_from_slice(&g.to_be_bytes());
            }
            if p.check & PRCHK_APP != 0 {
                meta[at + 2..at + 4].copy_from_slice(&p.apptag.to_be_bytes());
            }
            if p.check & PRCHK_REF != 0 && matches!(self.pi_type, 1 | 2) {
                let r = (slba as u32).wrapping_add(n as u32);
                meta[at + 4..at + 8].copy_from_slice(&r.to_be_bytes());
            }
        }
    }

    /// Checks each block's PI a read brought back, as fio's `fio_nvme_verify_pi_16b_guard`:
    /// a block whose application tag is 0xFFFF (and, for Type 3, reference tag 0xFFFFFFFF)
    /// has checking turned off.
    pub fn verify(
        &self,
        p: &Protection,
        data: &[u8],
        md: &[u8],
        slba: u64,
    ) -> Result<(), Mismatch> {
        let (lb, ms) = (self.lba_bytes as usize, self.ms as usize);
        for (n, (block, meta)) in data.chunks(lb).zip(md.chunks(ms)).enumerate() {
            let at = self.interval();
            let pi = &meta[at..at + PI_BYTES];
            let app = u16::from_be_bytes([pi[2], pi[3]]);
            let reftag = u32::from_be_bytes([pi[4], pi[5], pi[6], pi[7]]);
            let off = app == 0xffff && (self.pi_type != 3 || reftag == u32::MAX);
            if off {
                continue;
            }
            let lba = slba + n as u64;
            let guard = u16::from_be_bytes([pi[0], pi[1]]);
            if p.check & PRCHK_GUARD != 0 {
                let want = self.guard(block, meta);
                if guard != want {
                    return Err(Mismatch::Guard {
                        lba,
                        want,
                        got: guard,
                    });
                }
            }
            if p.check & PRCHK_APP != 0 && app & p.apptag_mask != p.apptag & p.apptag_mask {
                let want = p.apptag & p.apptag_mask;
                return Err(Mismatch::AppTag {
                    lba,
                    want,
                    got: app & p.apptag_mask,
                });
            }
            let want = (slba as u32).wrapping_add(n as u32);
            if p.check & PRCHK_REF != 0 && matches!(self.pi_type, 1 | 2) && reftag != want {
                return Err(Mismatch::RefTag {
                    lba,
                    want,
                    got: reftag,
                });
            }
        }
        Ok(())
    }
}

/// A block whose protection information is not what its data and place say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    #[error("guard compare error: LBA {lba}: expected {want:#x}, found {got:#x}")]
    Guard { lba: u64, want: u16, got: u16 },
    #[error("application tag compare error: LBA {lba}: expected {want:#x}, found {got:#x}")]
    AppTag { lba: u64, want: u16, got: u16 },
    #[error("reference tag compare error: LBA {lba}: expected {want:#x}, found {got:#x}")]
    RefTag { lba: u64, want: u32, got: u32 },
}

/// What an NVMe completion status means where it is an end-to-end protection error
/// (status code type 2, media and data integrity errors).
pub fn status_name(status: u32) -> Option<&'static str> {
    match status & 0x7ff {
        0x282 => Some("end-to-end guard check error"),
        0x283 => Some("end-to-end application tag check error"),
        0x284 => Some("end-to-end reference tag check error"),
        _ => None,
    }
}

/// An NVMe completion status in words: `NVMe status 0x282 (sct 0x2, sc 0x82): end-to-end
/// guard check error`.
pub fn status_text(status: u32) -> String {
    let (sct, sc) = ((status >> 8) & 0x7, status & 0xff);
    let what = status_name(status).unwrap_or(match sct {
        0 => "generic command status",
        1 => "command specific status",
        2 => "media and data integrity error",
        3 => "path related status",
        _ => "vendor specific status",
    });
    format!("NVMe status {status:#x} (sct {sct:#x}, sc {sc:#x}): {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u32 = PRCHK_GUARD | PRCHK_APP | PRCHK_REF;

    #[test]
    fn the_guard_is_crc16_t10dif() {
        // The catalogue's check value: CRC-16/T10-DIF("123456789") = 0xD0DB.
        assert_eq!(T10DIF.checksum(b"123456789"), 0xd0db);
        // A zeroed 512-byte block's guard is 0 (the CRC starts at 0, no final XOR).
        assert_eq!(T10DIF.checksum(&[0u8; 512]), 0);
    }

    #[test]
    fn pi_checks_parse_as_fio_and_set_cdw12() {
        assert_eq!(
            Protection::parse_checks("GUARD,REFTAG"),
            PRCHK_GUARD | PRCHK_REF
        );
        assert_eq!(Protection::parse_checks("APPTAG"), PRCHK_APP);
        let p = Protection {
            check: PRCHK_GUARD,
            ..Protection::default()
        };
        assert_eq!(p.io_flags(), PRCHK_GUARD | PRACT);
        assert_eq!(Protection { act: false, ..p }.io_flags(), PRCHK_GUARD);
    }

    #[test]
    fn generated_pi_verifies_and_a_changed_byte_or_place_does_not() {
        let f = Format {
            lba_bytes: 512,
            ms: 8,
            pi_type: 1,
            pi_first: false,
        };
        let p = Protection {
            act: false,
            check: ALL,
            ..Protection::default()
        };
        let data: Vec<u8> = (0..1024u32).map(|i| (i * 7) as u8).collect();
        let mut md = vec![0u8; 16];
        f.generate(&p, &data, &mut md, 100);
        assert_eq!(&md[2..8], &[0x12, 0x34, 0, 0, 0, 100]);
        assert_eq!(&md[12..16], &101u32.to_be_bytes());
        assert_eq!(f.verify(&p, &data, &md, 100), Ok(()));
        let mut bad = data.clone();
        bad[600] ^= 1;
        assert!(matches!(
            f.verify(&p, &bad, &md, 100),
            Err(Mismatch::Guard { lba: 101, .. })
        ));
        assert!(matches!(
            f.verify(&p, &data, &md, 7),
            Err(Mismatch::RefTag { lba: 7, .. })
        ));
        let other = Protection {
            apptag: 0x4321,
            ..p
        };
        assert!(matches!(
            f.verify(&other, &data, &md, 100),
            Err(Mismatch::AppTag { .. })
        ));
        // An application tag of 0xFFFF turns checking off for the block.
        md[2..4].copy_from_slice(&[0xff, 0xff]);
        md[10..12].copy_from_slice(&[0xff, 0xff]);
        assert_eq!(f.verify(&p, &bad, &md, 7), Ok(()));
    }

    #[test]
    fn pi_at_the_end_of_larger_metadata_guards_the_bytes_before_it() {
        let f = Format {
            lba_bytes: 512,
            ms: 16,
            pi_type: 3,
            pi_first: false,
        };
        let p = Protection {
            act: false,
            check: PRCHK_GUARD,
            ..Protection::default()
        };
        let data = vec![5u8; 512];
        let mut md = vec![9u8; 16];
        f.generate(&p, &data, &mut md, 0);
        let mut whole = data.clone();
        whole.extend_from_slice(&[9u8; 8]);
        assert_eq!(&md[8..10], &T10DIF.checksum(&whole).to_be_bytes());
        md[0] = 0;
        assert!(f.verify(&p, &data, &md, 0).is_err());
    }

    #[test]
    fn protection_statuses_are_named() {
        assert_eq!(status_name(0x282), Some("end-to-end guard check error"));
        assert_eq!(status_name(0x4282), Some("end-to-end guard check error"));
        assert_eq!(status_name(0x281), None);
        assert_eq!(
            status_text(0x282),
            "NVMe status 0x282 (sct 0x2, sc 0x82): end-to-end guard check error"
        );
        assert_eq!(
            status_text(0x181),
            "NVMe status 0x181 (sct 0x1, sc 0x81): command specific status"
        );
    }
}
