//! The software-floor step's RAM device when the user named none: a zram device of iolab's
//! own, added through the kernel's zram-control, sized to the step, and removed when dropped
//! (the step's end, an error or an interrupt). The review never touches a device it was not
//! given: `/dev/zram0` may be someone else's benchmark, or their swap.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const CONTROL: &str = "/sys/class/zram-control";

/// A zram device iolab added; removed again on drop.
pub struct OwnZram {
    id: u32,
    path: PathBuf,
}

impl OwnZram {
    /// Adds a zram device of `bytes` (rounded up to a page), or says why it cannot.
    pub fn add(bytes: u64) -> Result<OwnZram, String> {
        let id = fs::read_to_string(Path::new(CONTROL).join("hot_add"))
            .map_err(|e| {
                format!("cannot add a zram device of iolab's own ({CONTROL}/hot_add: {e})")
            })?
            .trim()
            .parse::<u32>()
            .map_err(|e| format!("{CONTROL}/hot_add gave no device number: {e}"))?;
        let dev = OwnZram {
            id,
            path: PathBuf::from(format!("/dev/zram{id}")),
        };
        let size = bytes.div_ceil(4096) * 4096;
        fs::write(dev.sys("disksize"), size.to_string())
            .map_err(|e| format!("cannot size {}: {e}", dev.path.display()))?;
        // devtmpfs makes the node; give it a moment on a busy machine.
        let start = Instant::now();
        while !dev.path.exists() {
            if start.elapsed() > Duration::from_secs(2) {
                return Err(format!("{} did not appear", dev.path.display()));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(dev)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sys(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("/sys/block/zram{}/{name}", self.id))
    }
}

impl Drop for OwnZram {
    fn drop(&mut self) {
        // A descriptor closing late (a worker's) makes hot_remove say EBUSY for a moment.
        for _ in 0..50 {
            if fs::write(Path::new(CONTROL).join("hot_remove"), self.id.to_string()).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!(
            "iolab: warning: could not remove {} (echo {} > {CONTROL}/hot_remove)",
            self.path.display(),
            self.id
        );
    }
}

/// Whether `path` is a zram device (the target itself may be the RAM device).
pub fn is_zram(path: &Path) -> bool {
    let Ok(real) = fs::canonicalize(path) else {
        return false;
    };
    let name = real.file_name().unwrap_or_default().to_string_lossy();
    name.starts_with("zram")
        && Path::new("/sys/block")
            .join(&*name)
            .join("comp_algorithm")
            .exists()
}

/// The kind of RAM-backed block device `path` is (`zram`, brd's `ram`, `null_blk`): the
/// devices whose cost is the kernel's block path alone, which the software floor measures.
/// `None` for any other device (a loop device's cost is its backing file's).
pub fn ram_kind(path: &Path) -> Option<&'static str> {
    if is_zram(path) {
        return Some("zram");
    }
    let real = fs::canonicalize(path).ok()?;
    let name = real.file_name()?.to_string_lossy().into_owned();
    let sys = Path::new("/sys/block").join(&name);
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    match () {
        _ if numbered("ram") && sys.exists() => Some("brd"),
        _ if numbered("nullb") && sys.exists() => Some("null_blk"),
        _ => None,
    }
}
