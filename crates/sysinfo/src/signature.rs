//! Recognises the on-disk signatures that mean "this device holds something": filesystems,
//! volume managers, RAID members, swap, encrypted volumes and partition tables. The checks are
//! the magic numbers blkid uses, at the same offsets, on the first 68 KiB of the device.

/// How much of the device's start the checks need (btrfs's superblock sits at 64 KiB).
pub const PROBE_BYTES: usize = 68 * 1024;

fn at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    buf.get(off..off + magic.len()) == Some(magic)
}

/// A valid DOS/MBR partition table: boot signature, status bytes 0x00/0x80, one used entry.
fn mbr(buf: &[u8]) -> bool {
    if !at(buf, 510, &[0x55, 0xAA]) {
        return false;
    }
    let entries: Vec<&[u8]> = (0..4)
        .filter_map(|i| buf.get(446 + 16 * i..462 + 16 * i))
        .collect();
    entries.len() == 4
        && entries.iter().all(|e| e[0] == 0 || e[0] == 0x80)
        && entries.iter().any(|e| e[4] != 0)
}

/// The name and byte offset of the first signature found at the start of a device.
pub fn find_signature(buf: &[u8]) -> Option<(&'static str, usize)> {
    let md_magic = 0xa92b_4efc_u32.to_le_bytes();
    let checks: [(&str, usize, &[u8]); 16] = [
        ("ext2/3/4 filesystem", 1080, &[0x53, 0xEF]),
        ("XFS filesystem", 0, b"XFSB"),
        ("btrfs filesystem", 65536 + 64, b"_BHRfS_M"),
        ("LVM2 physical volume", 512 + 24, b"LVM2 001"),
        ("LVM2 physical volume", 512, b"LABELONE"),
        ("LUKS encrypted volume", 0, b"LUKS\xba\xbe"),
        ("swap space", 4086, b"SWAPSPACE2"),
        ("swap space", 4086, b"SWAP-SPACE"),
        ("Linux RAID (md 1.1) member", 0, &md_magic),
        ("Linux RAID (md 1.2) member", 4096, &md_magic),
        ("GPT partition table", 512, b"EFI PART"),
        ("NTFS filesystem", 3, b"NTFS    "),
        ("FAT filesystem", 54, b"FAT1"),
        ("FAT32 filesystem", 82, b"FAT32   "),
        ("ISO 9660 filesystem", 32769, b"CD001"),
        ("squashfs filesystem", 0, b"hsqs"),
    ];
    for (name, off, magic) in checks {
        if at(buf, off, magic) {
            return Some((name, off));
        }
    }
    if at(buf, 1024, &0xF2F5_2010_u32.to_le_bytes()) {
        return Some(("F2FS filesystem", 1024));
    }
    if mbr(buf) {
        return Some(("DOS/MBR partition table", 510));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_known_magics_and_not_random_or_zero_data() {
        let mut buf = vec![0u8; PROBE_BYTES];
        assert_eq!(find_signature(&buf), None);
        buf[1080] = 0x53;
        buf[1081] = 0xEF;
        assert_eq!(find_signature(&buf), Some(("ext2/3/4 filesystem", 1080)));
        let mut b = vec![0u8; PROBE_BYTES];
        b[65600..65608].copy_from_slice(b"_BHRfS_M");
        assert_eq!(find_signature(&b).unwrap().0, "btrfs filesystem");
        let mut m = vec![0u8; PROBE_BYTES];
        m[510] = 0x55;
        m[511] = 0xAA;
        assert_eq!(
            find_signature(&m),
            None,
            "boot signature alone is no partition table"
        );
        m[446 + 4] = 0x83;
        assert_eq!(find_signature(&m).unwrap().0, "DOS/MBR partition table");
        // Random data (what iolab writes) is not mistaken for a signature.
        let mut x = 88172645463325252u64;
        let rnd: Vec<u8> = (0..PROBE_BYTES)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert_eq!(find_signature(&rnd), None);
    }
}
