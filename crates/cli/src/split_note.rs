//! Whether a review's or the main job's points split each I/O's latency here, said once.

use std::path::Path;

/// True when the kernel can split `target`'s I/O (root, BTF, a request-based disk); else
/// says why on one line and the points run without the split.
pub fn split_here(target: &Path) -> bool {
    match iolab_trace::can_split(target) {
        Ok(()) => true,
        Err(why) => {
            say!("iolab: latency split off: {why}");
            false
        }
    }
}
