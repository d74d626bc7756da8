//! Whether the device served a point's reads: a table that compares I/O paths compares
//! what each path got from the device, and a path whose reads came from the page cache
//! (mmap of a cached file, a buffered read of a file in memory) measured a memory copy.
//! The evidence is the disk's own count of reads over the point (`/proc/diskstats`, which
//! the run records for the disk behind the target): well under the job's reads, the page
//! cache served them. Such a cell is kept, flagged, and never marked best (it is treated
//! as a path not taken as asked, as hipri served by interrupts is).

use iolab_engine::EngineKind;
use iolab_job::JobSpec;
use iolab_results::{Direction, RunOutcome};

/// Fewer job reads than this say nothing either way (a few reads can all be cached).
const MIN_READS: u64 = 1000;

/// The disk must have completed at least this share of the job's reads to have served them
/// (readahead and merging can only lower the disk's count for sequential reads; these are
/// random).
const SERVED_SHARE: f64 = 0.5;

/// Whether the page cache can serve the job's reads at all: mmap always (its `direct` is
/// not O_DIRECT), the file and block engines when buffered. Passthrough (io_uring_cmd),
/// SPDK and the engines that do no I/O never: their reads are not counted in the disk's
/// statistics either, so the check would misread them.
fn page_cache_can_serve(spec: &JobSpec) -> bool {
    use EngineKind::*;
    match spec.engine.kind {
        Mmap => true,
        Sync | Psync | Vsync | Pvsync | Pvsync2 | Libaio | Posixaio | IoUring | Splice => {
            !spec.direct
        }
        _ => false,
    }
}

/// Why the point's reads were not the device's, when the disk's counts show it: the page
/// cache can serve `spec`'s reads ([`page_cache_can_serve`]), its one job read at least
/// [`MIN_READS`] and the one disk behind it completed under half as many.
pub fn page_cache_reason(spec: &JobSpec, outcome: &RunOutcome) -> Option<String> {
    if !page_cache_can_serve(spec) {
        return None;
    }
    let [job] = outcome.jobs.as_slice() else {
        return None;
    };
    let [disk] = outcome.disks.as_slice() else {
        return None;
    };
    let reads = job.dir(Direction::Read)?.ios;
    let served = disk.counters.read_ios;
    (reads >= MIN_READS && (served as f64) < SERVED_SHARE * reads as f64).then(|| {
        format!(
            "read from the page cache, not the device: {} completed {served} reads for the \
             job's {reads}",
            disk.name
        )
    })
}
