//! fio's `zonemode=zbd`: I/O to a zoned block device as its zones allow. Writes go to a
//! zone's write pointer, a full zone is reset before it is written again, at most
//! `max_open_zones` zones take writes at a time, and reads stay below the write pointers.
//! On a device that is not zoned (a regular file, zram) the zones are emulated, as fio's
//! `init_zone_info()` does, from `zone_size` and `zone_capacity`.

/// The zone options of one job (fio's `zonesize`, `zonecapacity`, `max_open_zones`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ZbdSpec {
    /// `zonesize`: must match a zoned device's; mandatory for an emulated one.
    pub zone_size: Option<u64>,
    /// `zonecapacity`: the writable bytes of an emulated zone (default its size).
    pub zone_capacity: Option<u64>,
    /// `max_open_zones` over every job of the device (0: the device's limit, or none).
    pub max_open_zones: u32,
    /// `job_max_open_zones`: the most one job copy keeps open (0: no limit of its own).
    pub job_max_open_zones: u32,
    /// `read_beyond_wp`: reads go where they are drawn, written or not.
    pub read_beyond_wp: bool,
    /// `ignore_zone_limits`: the device's open-zone limit is not applied.
    pub ignore_zone_limits: bool,
    /// `zone_reset_threshold` (a fraction of the job's bytes holding data) and
    /// `zone_reset_frequency` (1/N of the writes past it reset their zone first).
    pub reset_threshold: f64,
    pub reset_frequency: f64,
}
