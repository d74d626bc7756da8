//! What a device or file holds, as libblkid (util-linux's probing library, the one `blkid`,
//! `wipefs`, `mount` and udev use) finds it: every filesystem, volume, RAID, swap, cache or
//! partition-table signature anywhere on it, including those at its end (md 0.90 and 1.0,
//! ZFS's last labels) and the kinds a hand-written list of magics forgets (bcache, VDO,
//! BlueStore, ...). Probing goes through the descriptor the guard claimed, never the path, and
//! enumerates as `wipefs` does (superblocks with bad checksums too, and partition tables), so
//! nothing that one `blkid -p` would report is missed.
//!
//! libblkid is loaded at run time (`libblkid.so.1`, part of util-linux on every Debian) rather
//! than linked: building iolab then needs no `-dev` package and no libclang (the README's first
//! command builds on a fresh machine), and a machine without it fails closed: a device that
//! cannot be probed is not written.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;

/// One signature libblkid found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// libblkid's own name: a superblock's `TYPE` (`ext4`, `linux_raid_member`,
    /// `zfs_member`, `bcache`, `swap`, `LVM2_member`, ...) or a partition table's `PTTYPE`
    /// (`dos`, `gpt`).
    pub kind: String,
    /// Where its magic is, in bytes from the start, when libblkid says.
    pub offset: Option<u64>,
    /// True for a partition table, false for a superblock.
    pub table: bool,
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.table {
            "partition table"
        } else {
            "signature"
        };
        write!(f, "a {what} libblkid calls {}", self.kind)?;
        if let Some(o) = self.offset {
            write!(f, ", at byte {o}")?;
        }
        Ok(())
    }
}

/// Why probing failed: libblkid is missing, or it could not read the device.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("libblkid (util-linux's libblkid.so.1) could not be loaded: {0}")]
    Missing(String),
    #[error("libblkid could not probe it: {0}")]
    Failed(String),
}

// <blkid/blkid.h>
const BLKID_SUBLKS_TYPE: c_int = 1 << 5;
const BLKID_SUBLKS_USAGE: c_int = 1 << 7;
const BLKID_SUBLKS_MAGIC: c_int = 1 << 9;
const BLKID_SUBLKS_BADCSUM: c_int = 1 << 10;
const BLKID_PARTS_FORCE_GPT: c_int = 1 << 1;
const BLKID_PARTS_MAGIC: c_int = 1 << 3;

type Probe = *mut c_void;

/// The few entry points iolab uses, resolved once.
struct Api {
    new_probe: unsafe extern "C" fn() -> Probe,
    free_probe: unsafe extern "C" fn(Probe),
    set_device: unsafe extern "C" fn(Probe, c_int, i64, i64) -> c_int,
    enable_superblocks: unsafe extern "C" fn(Probe, c_int) -> c_int,
    superblocks_flags: unsafe extern "C" fn(Probe, c_int) -> c_int,
    enable_partitions: unsafe extern "C" fn(Probe, c_int) -> c_int,
    partitions_flags: unsafe extern "C" fn(Probe, c_int) -> c_int,
    do_probe: unsafe extern "C" fn(Probe) -> c_int,
    lookup_value:
        unsafe extern "C" fn(Probe, *const c_char, *mut *const c_char, *mut usize) -> c_int,
    /// Keeps the symbols above valid.
    _lib: libloading::Library,
}

fn load() -> Result<Api, String> {
    // SAFETY: loading util-linux's libblkid runs no initialiser with preconditions.
    let lib = unsafe { libloading::Library::new("libblkid.so.1") }.map_err(|e| e.to_string())?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol's C signature is the field's type (blkid.h).
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| e.to_string())?
        };
    }
    Ok(Api {
        new_probe: sym!("blkid_new_probe"),
        free_probe: sym!("blkid_free_probe"),
        set_device: sym!("blkid_probe_set_device"),
        enable_superblocks: sym!("blkid_probe_enable_superblocks"),
        superblocks_flags: sym!("blkid_probe_set_superblocks_flags"),
        enable_partitions: sym!("blkid_probe_enable_partitions"),
        partitions_flags: sym!("blkid_probe_set_partitions_flags"),
        do_probe: sym!("blkid_do_probe"),
        lookup_value: sym!("blkid_probe_lookup_value"),
        _lib: lib,
    })
}

fn api() -> Result<&'static Api, ProbeError> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load)
        .as_ref()
        .map_err(|e| ProbeError::Missing(e.clone()))
}

/// A probe freed when dropped.
struct Owned<'a>(&'a Api, Probe);

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        // SAFETY: a probe from blkid_new_probe, freed once.
        unsafe { (self.0.free_probe)(self.1) }
    }
}

impl Owned<'_> {
    /// The value `name` of the current result, if set.
    fn value(&self, name: &CStr) -> Option<String> {
        let mut data: *const c_char = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: a live probe, a NUL-terminated name and two out-pointers.
        let r = unsafe { (self.0.lookup_value)(self.1, name.as_ptr(), &mut data, &mut len) };
        if r != 0 || data.is_null() {
            return None;
        }
        // SAFETY: libblkid's values are NUL-terminated strings owned by the probe.
        Some(
            unsafe { CStr::from_ptr(data) }
                .to_string_lossy()
                .into_owned(),
        )
    }
}

/// Every signature on what `file` (a block device or a regular file, as claimed) holds, in
/// libblkid's order; empty when it holds none. Reads only.
pub fn signatures(file: &File) -> Result<Vec<Signature>, ProbeError> {
    let api = api()?;
    // SAFETY: blkid_new_probe has no preconditions; NULL is its failure.
    let raw = unsafe { (api.new_probe)() };
    if raw.is_null() {
        return Err(ProbeError::Failed("blkid_new_probe failed".into()));
    }
    let probe = Owned(api, raw);
    let fail =
        |what: &str| ProbeError::Failed(format!("{what}: {}", std::io::Error::last_os_error()));
    // SAFETY: a live probe and a descriptor that outlives it; size 0 means the whole device.
    unsafe {
        if (api.set_device)(raw, file.as_raw_fd(), 0, 0) != 0 {
            return Err(fail("blkid_probe_set_device"));
        }
        (api.enable_superblocks)(raw, 1);
        (api.superblocks_flags)(
            raw,
            BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE | BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM,
        );
        (api.enable_partitions)(raw, 1);
        (api.partitions_flags)(raw, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
    }
    let mut found = Vec::new();
    // As wipefs: each blkid_do_probe gives the next result of every enabled chain.
    loop {
        // SAFETY: a live probe.
        match unsafe { (api.do_probe)(raw) } {
            0 => {}
            1 => break,
            _ => return Err(fail("blkid_do_probe")),
        }
        let offset = |k: &CStr| probe.value(k).and_then(|v| v.parse().ok());
        if let Some(kind) = probe.value(c"TYPE") {
            found.push(Signature {
                kind,
                offset: offset(c"SBMAGIC_OFFSET"),
                table: false,
            });
        } else if let Some(kind) = probe.value(c"PTTYPE") {
            found.push(Signature {
                kind,
                offset: offset(c"PTMAGIC_OFFSET"),
                table: true,
            });
        }
        if found.len() > 64 {
            break;
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    fn probe_bytes(len: u64, at: &[(u64, &[u8])]) -> Vec<Signature> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("img");
        let f = File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&p)
            .unwrap();
        f.set_len(len).unwrap();
        for (off, bytes) in at {
            f.write_all_at(bytes, *off).unwrap();
        }
        signatures(&f).unwrap()
    }

    #[test]
    fn zeros_hold_nothing_and_swap_and_a_partition_table_are_named_as_libblkid_names_them() {
        assert_eq!(probe_bytes(1 << 20, &[]), vec![]);
        let mut entry = [0u8; 16];
        entry[4] = 0x83;
        entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
        entry[12..16].copy_from_slice(&1000u32.to_le_bytes());
        let mbr = probe_bytes(4 << 20, &[(446, &entry), (510, &[0x55, 0xAA])]);
        assert!(mbr.iter().any(|s| s.table && s.kind == "dos"), "{mbr:?}");
        // A swap area as util-linux's own mkswap makes it.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("swap");
        File::create(&p).unwrap().set_len(1 << 20).unwrap();
        match std::process::Command::new("mkswap").arg(&p).output() {
            Ok(o) if o.status.success() => {
                let found = signatures(&File::open(&p).unwrap()).unwrap();
                assert_eq!(found.len(), 1, "{found:?}");
                assert_eq!((found[0].kind.as_str(), found[0].table), ("swap", false));
                assert_eq!(found[0].offset, Some(4086));
            }
            _ => println!("skipped the swap case: mkswap did not run"),
        }
    }
}
