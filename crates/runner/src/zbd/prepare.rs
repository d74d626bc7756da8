//! Before any I/O: every `zonemode=zbd` job's zones, read from the device (or emulated on a
//! file that is not zoned), checked against the job as fio's `zbd_setup_files()` checks
//! them, and its region moved onto whole zones where it writes.

use std::collections::HashMap;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::Arc;

use iolab_job::{JobSpec, Region, TrimMix, ZbdSpec};
use iolab_results::TargetFacts;
use iolab_sysinfo::target::{disk_max_open_zones, disk_zoned};

use super::ZoneMap;
use crate::{PreparedJob, RunError};

/// fio's `ZBD_MAX_OPEN_ZONES`.
const MAX_OPEN_ZONES: u32 = 4096;

/// Gives every zbd job its target's zones (one map per target, shared by its jobs).
pub(crate) fn attach(jobs: &mut [PreparedJob]) -> Result<(), RunError> {
    let mut maps: HashMap<PathBuf, Arc<ZoneMap>> = HashMap::new();
    for job in jobs.iter_mut() {
        let Some(opts) = job.spec.zbd else {
            continue;
        };
        let fail = |reason: String| RunError::Unusable {
            job: job.spec.name.clone(),
            reason,
        };
        check_job(&job.spec, &job.facts, opts).map_err(fail)?;
        let map = match maps.get(&job.facts.path) {
            Some(m) => m.clone(),
            None => {
                let m = Arc::new(zone_map(job, opts).map_err(fail)?);
                maps.insert(job.facts.path.clone(), m.clone());
                m
            }
        };
        check_limits(&map, opts).map_err(fail)?;
        if let Some(size) = opts.zone_size.filter(|&s| s != map.zone_size) {
            return Err(fail(format!(
                "zonesize {size} does not match the device zone size {}",
                map.zone_size
            )));
        }
        if job.spec.writes() {
            // fio's zbd_adjust_block() fails every such write with EINVAL; said up front
            // here, in fio's words, before anything is written.
            let bs = job.spec.block_size[iolab_results::Direction::Write.index()] as u64;
            if bs > map.zone_size {
                return Err(fail(format!(
                    "I/O buflen {bs} exceeds zone size {} (zonemode=zbd writes stay within a \
                     zone)",
                    map.zone_size
                )));
            }
            job.region = align(&map, job.region).map_err(fail)?;
        }
        job.zbd = Some(map);
    }
    Ok(())
}

/// What iolab's zbd does not take, and what fio refuses.
fn check_job(spec: &JobSpec, facts: &TargetFacts, opts: ZbdSpec) -> Result<(), String> {
    if !spec.extra_files.is_empty() {
        return Err("zonemode=zbd over more than one file is not supported by iolab yet".into());
    }
    if spec.trim != TrimMix::None {
        return Err("trims with zonemode=zbd (zone resets) are not supported by iolab yet".into());
    }
    if spec.verify.is_some() {
        return Err("verify with zonemode=zbd is not supported by iolab yet".into());
    }
    if facts.kind != iolab_results::TargetKind::File
        && facts.kind != iolab_results::TargetKind::BlockDevice
    {
        return Err(format!(
            "zonemode=zbd on {} is not supported by iolab yet (a zoned block device or a \
             file only; fio reaches a namespace's char device through io_uring_cmd)",
            facts.path.display()
        ));
    }
    if spec.writes() && !spec.direct && host_managed(facts) {
        return Err(
            "Using direct I/O is mandatory for writing to ZBD drives (direct=1), as in fio".into(),
        );
    }
    if opts.max_open_zones > MAX_OPEN_ZONES {
        return Err(format!(
            "'max_open_zones' value is larger than {MAX_OPEN_ZONES}"
        ));
    }
    Ok(())
}

fn zoned_model(facts: &TargetFacts) -> Option<String> {
    facts.disk_name.as_deref().and_then(disk_zoned)
}

fn host_managed(facts: &TargetFacts) -> bool {
    zoned_model(facts).as_deref() == Some("host-managed")
}

/// The target's zones: reported by a zoned device, else emulated from the job's options
/// (fio's `parse_zone_info()` and `init_zone_info()`).
fn zone_map(job: &PreparedJob, opts: ZbdSpec) -> Result<ZoneMap, String> {
    let max_open = max_open(job, opts)?;
    if zoned_model(&job.facts).is_some() {
        let file = job.pins[0]
            .open(libc::O_RDONLY)
            .map_err(|e| format!("{}: {e}", job.facts.path.display()))?;
        let report = iolab_engine::zones::report_zones(file.as_raw_fd())
            .map_err(|e| format!("report zones failed for {}: {e}", job.facts.path.display()))?;
        if report.is_empty() {
            return Err(format!("{} reports no zones", job.facts.path.display()));
        }
        return Ok(ZoneMap::from_report(&report, max_open));
    }
    let name = job.facts.path.display();
    let Some(size) = opts.zone_size else {
        return Err(format!(
            "{name}: zonesize is mandatory for a regular file or a block device that is not \
             zoned with zonemode=zbd (as in fio)"
        ));
    };
    if size < 512 {
        return Err(format!(
            "{name}: zone size must be at least 512 bytes for zonemode=zbd"
        ));
    }
    let capacity = opts.zone_capacity.unwrap_or(size);
    if capacity > size {
        return Err(format!(
            "{name}: zonecapacity {capacity} is larger than zone size {size}"
        ));
    }
    let bytes = job.facts.size_bytes.max(job.region.end());
    if bytes < size {
        return Err(format!(
            "{name}: file/device size {bytes} is smaller than zone size {size}"
        ));
    }
    Ok(ZoneMap::emulated(bytes, size, capacity, max_open))
}

/// The open-zone limit over every job of the target (fio's `zbd_set_max_open_zones()`):
/// the job's, within a host-managed device's own unless told to ignore it.
fn max_open(job: &PreparedJob, opts: ZbdSpec) -> Result<u32, String> {
    let want = opts.max_open_zones;
    if !host_managed(&job.facts) || opts.ignore_zone_limits {
        return Ok(want);
    }
    let device = job
        .facts
        .disk_name
        .as_deref()
        .map_or(0, disk_max_open_zones);
    match (device, want) {
        (0, w) => Ok(w),
        (d, 0) => Ok(d.min(MAX_OPEN_ZONES)),
        (d, w) if w <= d => Ok(w),
        (d, w) => Err(format!(
            "max_open_zones={w} is larger than the device's {d}"
        )),
    }
}

fn check_limits(map: &ZoneMap, opts: ZbdSpec) -> Result<(), String> {
    if opts.max_open_zones > 0 && map.max_open != opts.max_open_zones {
        return Err(
            "Different 'max_open_zones' values for one device (fio refuses this too)".into(),
        );
    }
    if opts.job_max_open_zones > 0 && map.max_open == 0 {
        return Err("'job_max_open_zones' cannot be used without a global open zones limit".into());
    }
    Ok(())
}

/// A writing job's region on whole zones (fio's `zbd_zone_align_file_sizes()`): its start
/// rounded up to a zone's start, its end down to one.
fn align(map: &ZoneMap, region: Region) -> Result<Region, String> {
    let (first, last) = (
        map.index_of(region.start),
        map.index_of(region.end().max(1) - 1),
    );
    if !(first..=last).any(|i| map.zones.get(i as usize).is_some_and(|z| z.has_wp)) {
        return Ok(region);
    }
    let too_small = || "io_size must be at least one zone (zonemode=zbd)".to_string();
    let mut r = region;
    let z = map.index_of(r.start);
    if map
        .zones
        .get(z as usize)
        .is_some_and(|z| z.start != r.start)
    {
        let start = map.zone_end(z);
        if start >= r.end() {
            return Err(too_small());
        }
        r = Region {
            start,
            len: r.end() - start,
        };
    }
    let end_zone = map.index_of(r.end());
    let end = map
        .zones
        .get(end_zone as usize)
        .map_or(map.end, |z| z.start);
    if r.end() != end {
        if end <= r.start {
            return Err(too_small());
        }
        r.len = end - r.start;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writing_region_moves_onto_whole_zones() {
        let m = ZoneMap::emulated(16 << 20, 4 << 20, 4 << 20, 0);
        let r = align(
            &m,
            Region {
                start: 1 << 20,
                len: 10 << 20,
            },
        )
        .unwrap();
        assert_eq!((r.start, r.len), (4 << 20, 4 << 20));
        let r = align(
            &m,
            Region {
                start: 0,
                len: 16 << 20,
            },
        )
        .unwrap();
        assert_eq!((r.start, r.len), (0, 16 << 20));
        assert!(align(
            &m,
            Region {
                start: 1 << 20,
                len: 4 << 20
            }
        )
        .is_err());
    }
}
