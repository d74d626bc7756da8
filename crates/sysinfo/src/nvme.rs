//! NVMe generic char devices (`/dev/ngXnY`, Linux 5.19+): one per namespace, beside its block
//! device when it has one, taking NVMe commands straight through (ioctl, or io_uring's
//! `IORING_OP_URING_CMD`). No read(2) or write(2): the namespace's geometry comes from the
//! drive itself (Identify Namespace), and writes are judged by the block device it shares
//! its data with.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// An NVMe command as the kernel's passthrough takes it: `struct nvme_passthru_cmd` for the
/// ioctls and, with the same layout, `struct nvme_uring_cmd` for io_uring (72 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct NvmeCommand {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    /// The command's result dword (ioctl); reserved for io_uring.
    pub result: u32,
}

impl NvmeCommand {
    /// The command as the 80 bytes of a big SQE's command area (72 used, the rest zero).
    pub fn to_sqe_bytes(&self) -> [u8; 80] {
        let mut out = [0u8; 80];
        // SAFETY: NvmeCommand is repr(C), 72 bytes of plain integers without padding.
        let bytes: &[u8; 72] = unsafe { &*(self as *const NvmeCommand).cast() };
        out[..72].copy_from_slice(bytes);
        out
    }
}

const _: () = assert!(std::mem::size_of::<NvmeCommand>() == 72);

/// NVMe I/O command set opcodes.
pub const NVME_CMD_WRITE: u8 = 0x01;
pub const NVME_CMD_READ: u8 = 0x02;
const NVME_ADMIN_IDENTIFY: u8 = 0x06;
/// Format NVM (admin opcode 0x80).
const NVME_ADMIN_FORMAT_NVM: u8 = 0x80;
/// I/O Management Receive (NVMe 2.0, Flexible Data Placement).
const NVME_CMD_IO_MGMT_RECV: u8 = 0x12;

/// `_IO('N', 0x40)`: the namespace id of the device opened.
const NVME_IOCTL_ID: libc::c_ulong = 0x4e40;
/// `_IOWR('N', 0x41, struct nvme_passthru_cmd)`: an admin command.
const NVME_IOCTL_ADMIN_CMD: libc::c_ulong = 0xc048_4e41;
/// `_IOWR('N', 0x43, struct nvme_passthru_cmd)`: an I/O command.
const NVME_IOCTL_IO_CMD: libc::c_ulong = 0xc048_4e43;
/// `_IOWR('N', 0x80, struct nvme_uring_cmd)`: io_uring's `cmd_op` for an I/O command.
pub const NVME_URING_CMD_IO: u32 = 0xc048_4e80;

/// A namespace's geometry, as Identify Namespace reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Namespace {
    pub nsid: u32,
    /// Bytes per logical block of the format in use.
    pub lba_bytes: u32,
    /// Size in logical blocks (NSZE).
    pub lbas: u64,
    /// Metadata bytes per logical block of the format in use (0: none).
    pub meta_bytes: u16,
    /// End-to-end protection information type (DPS bits 0–2: 0 none, 1, 2 or 3).
    pub pi_type: u8,
    /// The protection information is the metadata's first 8 bytes (DPS bit 3), not its last.
    pub pi_first: bool,
    /// The metadata travels at the end of each block's data (an extended LBA, FLBAS bit 4)
    /// rather than in a buffer of its own.
    pub extended: bool,
    /// The index of the LBA format in use.
    pub format: u8,
}

/// The generic char device's name (`ng0n1`) when `path` is one.
pub fn generic_name(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    if !meta.file_type().is_char_device() {
        return None;
    }
    let rdev = meta.rdev();
    let sys = format!("/sys/dev/char/{}:{}", libc::major(rdev), libc::minor(rdev));
    let class = fs::read_link(format!("{sys}/subsystem")).ok()?;
    (class.file_name()? == "nvme-generic")
        .then(|| {
            fs::canonicalize(&sys)
                .ok()?
                .file_name()?
                .to_str()
                .map(String::from)
        })
        .flatten()
}

/// The block device of the namespace a generic device (`ng0n1`) stands for (`/dev/nvme0n1`),
/// when the kernel made one (it makes none for formats or command sets it cannot drive).
pub fn block_sibling(generic: &str) -> Option<PathBuf> {
    let disk = format!("nvme{}", generic.strip_prefix("ng")?);
    Path::new("/sys/block")
        .join(&disk)
        .exists()
        .then(|| PathBuf::from("/dev").join(disk))
}

/// The generic device (`/dev/ng0n1`) beside the NVMe block device `disk` (`nvme0n1`).
pub fn generic_sibling(disk: &str) -> Option<PathBuf> {
    let path = PathBuf::from(format!("/dev/ng{}", disk.strip_prefix("nvme")?));
    generic_name(&path).is_some().then_some(path)
}

/// The generic char device that reaches the same namespace as `target`: the target itself
/// when it is one, the namespace's `/dev/ngXnY` when it is a whole NVMe namespace's block
/// device (not a partition: the char device spans the whole namespace), else `None`.
pub fn passthrough_of(target: &Path) -> Option<PathBuf> {
    if generic_name(target).is_some() {
        return Some(target.to_path_buf());
    }
    let meta = fs::metadata(target).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let rdev = meta.rdev();
    let sys = fs::canonicalize(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ))
    .ok()?;
    if sys.join("partition").exists() {
        return None;
    }
    generic_sibling(sys.file_name()?.to_str()?)
}

/// The namespace id of the opened NVMe device.
pub fn namespace_id(fd: std::os::fd::RawFd) -> io::Result<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument and returns the id or -1.
    let id = unsafe { libc::ioctl(fd, NVME_IOCTL_ID as _) };
    if id < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(id as u32)
}

/// Identify Namespace on the opened device (an admin command: needs CAP_SYS_ADMIN).
pub fn identify(file: &File) -> io::Result<Namespace> {
    let nsid = namespace_id(file.as_raw_fd())?;
    let mut data = vec![0u8; 4096];
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_IDENTIFY,
        nsid,
        addr: data.as_mut_ptr() as u64,
        data_len: data.len() as u32,
        cdw10: 0, // CNS 0: the namespace's own data structure
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Identify Namespace")?;
    parse_identify(nsid, &data)
}

/// Format NVM of the namespace with its format in use kept (the LBA format, metadata
/// placement and protection settings Identify reported) and `ses` as the Secure Erase
/// Setting (1: user data erase, 0: none). SNIA's PTS names it as a purge. Erases the whole
/// namespace: the caller has the user's consent for the device and decided on `file`.
pub fn format_nvm(file: &File, ns: &Namespace, ses: u8) -> io::Result<()> {
    let cdw10 = (ns.format as u32 & 0x0f)
        | (ns.extended as u32) << 4
        | (ns.pi_type as u32 & 0x07) << 5
        | (ns.pi_first as u32) << 8
        | (ses as u32 & 0x07) << 9
        | ((ns.format as u32 >> 4) & 0x03) << 12;
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_FORMAT_NVM,
        nsid: ns.nsid,
        cdw10,
        // A drive may take minutes to erase; the kernel's default admin timeout is 60 s.
        timeout_ms: 600_000,
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Format NVM")
}

/// What Identify Controller says of the drive: its serial number, model, firmware revision,
/// and whether it has a volatile write cache (VWC bit 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    pub serial: String,
    pub model: String,
    pub firmware: String,
    pub volatile_write_cache: bool,
}

/// Identify Controller (CNS 1) on the opened device.
pub fn identify_controller(file: &File) -> io::Result<Controller> {
    let mut data = vec![0u8; 4096];
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_IDENTIFY,
        addr: data.as_mut_ptr() as u64,
        data_len: data.len() as u32,
        cdw10: 1,
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Identify Controller")?;
    Ok(parse_controller(&data))
}

/// SN (bytes 4–23), MN (24–63), FR (64–71), ASCII padded with spaces; VWC (byte 525).
fn parse_controller(data: &[u8]) -> Controller {
    let text = |r: std::ops::Range<usize>| {
        String::from_utf8_lossy(&data[r])
            .trim_matches(|c: char| c == ' ' || c == '\0')
            .to_string()
    };
    Controller {
        serial: text(4..24),
        model: text(24..64),
        firmware: text(64..72),
        volatile_write_cache: data[525] & 1 == 1,
    }
}

/// Get Features / Set Features (admin opcodes 0x0a, 0x09) and the Volatile Write Cache
/// feature (FID 0x06: bit 0 of dword 11 / the result, WCE).
const NVME_ADMIN_GET_FEATURES: u8 = 0x0a;
const NVME_ADMIN_SET_FEATURES: u8 = 0x09;
const NVME_FEAT_VOLATILE_WC: u32 = 0x06;

/// Whether the drive's volatile write cache is enabled now (Get Features, current value).
pub fn write_cache_enabled(file: &File) -> io::Result<bool> {
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_GET_FEATURES,
        cdw10: NVME_FEAT_VOLATILE_WC,
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Get Features (Volatile Write Cache)")?;
    Ok(cmd.result & 1 == 1)
}

/// Enables or disables the drive's volatile write cache (Set Features, not saved across a
/// power cycle). Changes how the drive acknowledges writes: the caller restores it.
pub fn set_write_cache(file: &File, enabled: bool) -> io::Result<()> {
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_SET_FEATURES,
        cdw10: NVME_FEAT_VOLATILE_WC,
        cdw11: enabled as u32,
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Set Features (Volatile Write Cache)")
}

/// Whether the format in use of `ns` keeps protection information as the 8 bytes of a
/// 16-bit guard (no storage tag): always so on a controller without extended LBA formats
/// (Identify Controller CTRATT bit 15); otherwise as the NVM command set's Identify
/// Namespace says (ELBAF: storage tag size bits 0–6, protection information format bits
/// 7–8, 0 for the 16-bit guard).
pub fn pi_is_16b_guard(file: &File, ns: &Namespace) -> io::Result<bool> {
    let mut ctrl = vec![0u8; 4096];
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_IDENTIFY,
        addr: ctrl.as_mut_ptr() as u64,
        data_len: ctrl.len() as u32,
        cdw10: 1, // CNS 1: the controller
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Identify Controller")?;
    let ctratt = u32::from_le_bytes(ctrl[96..100].try_into().expect("4 bytes"));
    if ctratt & (1 << 15) == 0 {
        return Ok(true);
    }
    let mut nvm = vec![0u8; 4096];
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_IDENTIFY,
        nsid: ns.nsid,
        addr: nvm.as_mut_ptr() as u64,
        data_len: nvm.len() as u32,
        cdw10: 5, // CNS 5: the namespace's I/O command set specific data; CSI 0 (NVM)
        ..NvmeCommand::default()
    };
    admin(file, &mut cmd, "Identify Namespace (NVM command set)")?;
    let at = 12 + ns.format as usize * 4;
    let elbaf = u32::from_le_bytes(nvm[at..at + 4].try_into().expect("4 bytes"));
    Ok(elbaf & 0x7f == 0 && (elbaf >> 7) & 0x3 == 0)
}

/// The namespace's reclaim unit handles, as I/O Management Receive's Reclaim Unit Handle
/// Status reports them (Flexible Data Placement): each descriptor's placement identifier, in
/// the device's order. A placement handle index (fio's `plids`) indexes this list.
pub fn placement_ids(fd: std::os::fd::RawFd) -> io::Result<Vec<u16>> {
    let nsid = namespace_id(fd)?;
    // As fio: the 16-byte header first, for how many 32-byte descriptors follow, then exactly
    // that much (QEMU's NVMe refuses a transfer longer than the status, NVMe status 0x400f).
    let header = ruh_status(fd, nsid, 16)?;
    let n = u16::from_le_bytes([header[14], header[15]]) as usize;
    Ok(parse_ruh_status(&ruh_status(fd, nsid, 16 + n * 32)?))
}

/// I/O Management Receive, Reclaim Unit Handle Status, `len` bytes of it.
fn ruh_status(fd: std::os::fd::RawFd, nsid: u32, len: usize) -> io::Result<Vec<u8>> {
    let mut data = vec![0u8; len];
    let mut cmd = NvmeCommand {
        opcode: NVME_CMD_IO_MGMT_RECV,
        nsid,
        addr: data.as_mut_ptr() as u64,
        data_len: len as u32,
        cdw10: 1, // management operation 1: Reclaim Unit Handle Status
        cdw11: (len as u32 >> 2) - 1,
        ..NvmeCommand::default()
    };
    // SAFETY: cmd is a valid nvme_passthru_cmd whose addr/data_len describe `data`, which
    // lives across the call; the kernel writes at most data_len bytes there.
    let ret = unsafe { libc::ioctl(fd, NVME_IOCTL_IO_CMD as _, &mut cmd as *mut _) };
    match ret {
        0 => Ok(data),
        r if r < 0 => Err(io::Error::last_os_error()),
        status => Err(io::Error::other(format!(
            "Reclaim Unit Handle Status failed with NVMe status {status:#x} (no Flexible Data Placement on the namespace?)"
        ))),
    }
}

/// NRUHSD (bytes 14–15), then each descriptor's placement identifier (its first 2 bytes).
fn parse_ruh_status(data: &[u8]) -> Vec<u16> {
    let n = u16::from_le_bytes([data[14], data[15]]) as usize;
    (0..n)
        .map(|i| 16 + i * 32)
        .take_while(|at| at + 2 <= data.len())
        .map(|at| u16::from_le_bytes([data[at], data[at + 1]]))
        .collect()
}

/// Issues an admin command (needs CAP_SYS_ADMIN); an NVMe status is an error naming the
/// command. The kernel writes the command's result dword back into `cmd.result`.
pub(crate) fn admin(file: &File, cmd: &mut NvmeCommand, what: &str) -> io::Result<()> {
    // SAFETY: cmd is a valid nvme_passthru_cmd; when it carries a buffer, addr/data_len
    // describe the caller's memory, which lives across the call, and the kernel writes at
    // most data_len bytes there.
    let ret = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ADMIN_CMD as _, cmd as *mut _) };
    match ret {
        0 => Ok(()),
        r if r < 0 => Err(io::Error::last_os_error()),
        status => Err(io::Error::other(format!(
            "{what} failed with NVMe status {status:#x}"
        ))),
    }
}

/// NSZE (bytes 0–7) and the LBA format FLBAS (byte 26) selects from the table at byte 128.
fn parse_identify(nsid: u32, data: &[u8]) -> io::Result<Namespace> {
    let lbas = u64::from_le_bytes(data[0..8].try_into().expect("8 bytes"));
    let flbas = data[26];
    // Bits 0–3, and 5–6 as the high bits when the drive has more than 16 formats.
    let index = (flbas & 0x0f) as usize | (((flbas >> 5) & 0x03) as usize) << 4;
    let lbads = data.get(128 + index * 4 + 2).copied().unwrap_or(0);
    if !(9..=16).contains(&lbads) {
        return Err(io::Error::other(format!(
            "Identify Namespace gave an LBA data size of 2^{lbads} bytes (format {index})"
        )));
    }
    let ms = data
        .get(128 + index * 4..130 + index * 4)
        .unwrap_or(&[0, 0]);
    let meta_bytes = u16::from_le_bytes([ms[0], ms[1]]);
    let dps = data[29];
    Ok(Namespace {
        nsid,
        lba_bytes: 1 << lbads,
        lbas,
        meta_bytes,
        pi_type: if meta_bytes > 0 { dps & 0x07 } else { 0 },
        pi_first: dps & 0x08 != 0,
        extended: meta_bytes > 0 && flbas & 0x10 != 0,
        format: index as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruh_status_lists_each_descriptors_placement_id() {
        let mut d = vec![0u8; 16 + 3 * 32];
        d[14] = 2; // two descriptors, though the buffer has room for three
        d[16..18].copy_from_slice(&7u16.to_le_bytes());
        d[48..50].copy_from_slice(&3u16.to_le_bytes());
        d[80..82].copy_from_slice(&9u16.to_le_bytes());
        assert_eq!(parse_ruh_status(&d), vec![7, 3]);
    }

    #[test]
    fn identify_controller_gives_serial_model_firmware_and_cache() {
        let mut d = vec![0u8; 4096];
        d[4..24].copy_from_slice(b"S4EWNX0R123456      ");
        d[24..64].copy_from_slice(&[b' '; 40]);
        d[24..42].copy_from_slice(b"Samsung SSD 980PRO");
        d[64..72].copy_from_slice(b"5B2QGXA7");
        d[525] = 0x07;
        let c = parse_controller(&d);
        assert_eq!(c.serial, "S4EWNX0R123456");
        assert_eq!(c.model, "Samsung SSD 980PRO");
        assert_eq!(c.firmware, "5B2QGXA7");
        assert!(c.volatile_write_cache);
    }

    #[test]
    fn identify_data_gives_size_and_the_format_in_use() {
        let mut d = vec![0u8; 4096];
        d[0..8].copy_from_slice(&(2_097_152u64).to_le_bytes());
        d[26] = 1; // format 1
        d[128 + 2] = 9; // format 0: 512 B
        d[128 + 4 + 2] = 12; // format 1: 4 KiB
        let ns = parse_identify(1, &d).unwrap();
        assert_eq!((ns.lba_bytes, ns.lbas), (4096, 2_097_152));
        d[26] = 0;
        assert_eq!(parse_identify(1, &d).unwrap().lba_bytes, 512);
        d[128 + 2] = 0;
        assert!(parse_identify(1, &d).is_err());
    }

    #[test]
    fn identify_data_gives_the_formats_metadata_and_protection() {
        let mut d = vec![0u8; 4096];
        d[128 + 2] = 9; // format 0: 512 B, no metadata
        d[128 + 4..128 + 6].copy_from_slice(&8u16.to_le_bytes()); // format 1: 8 B each
        d[128 + 4 + 2] = 12;
        d[29] = 0x01; // Type 1, in the metadata's last 8 bytes
        let ns = parse_identify(1, &d).unwrap();
        assert_eq!((ns.meta_bytes, ns.pi_type, ns.extended), (0, 0, false));
        d[26] = 0x11; // format 1, metadata at the end of each block
        let ns = parse_identify(1, &d).unwrap();
        assert_eq!((ns.lba_bytes, ns.meta_bytes, ns.pi_type), (4096, 8, 1));
        assert!(ns.extended && !ns.pi_first);
        d[26] = 0x01;
        d[29] = 0x0b; // Type 3, first
        let ns = parse_identify(1, &d).unwrap();
        assert!(!ns.extended && ns.pi_first && ns.pi_type == 3);
    }

    #[test]
    fn commands_fill_the_sqe_area_in_the_kernels_layout() {
        let c = NvmeCommand {
            opcode: NVME_CMD_READ,
            nsid: 1,
            addr: 0x1122_3344_5566_7788,
            data_len: 4096,
            cdw10: 8,
            cdw12: 7,
            ..NvmeCommand::default()
        };
        let b = c.to_sqe_bytes();
        assert_eq!(b[0], 0x02);
        assert_eq!(&b[4..8], &1u32.to_le_bytes());
        assert_eq!(&b[24..32], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&b[36..40], &4096u32.to_le_bytes());
        assert_eq!(&b[40..44], &8u32.to_le_bytes());
        assert_eq!(&b[48..52], &7u32.to_le_bytes());
        assert!(b[72..].iter().all(|&x| x == 0));
    }

    #[test]
    fn names_map_between_generic_and_block_devices() {
        assert_eq!(generic_name(Path::new("/dev/null")), None);
        assert_eq!(block_sibling("zram0"), None);
        assert_eq!(generic_sibling("vda"), None);
    }
}
