//! The device under test as the specification's report header names it (model, serial
//! number, firmware, capacity, interface), and its volatile write cache: PTS-E runs with it
//! disabled, PTS-C with it enabled. iolab reads the state, sets the profile's where the drive
//! takes it (NVMe Set Features; a SCSI or SATA disk's `cache_type`, which the kernel sends to
//! the drive as MODE SELECT), and restores what it found when the run ends, however it ends.
//! The drive is reached through the pin the guard checked (and the command holds claimed),
//! never through the path again.

use std::fs;
use std::path::{Path, PathBuf};

use iolab_sysinfo::{nvme, probe, Pin, TargetKind};

use crate::config::Config;

pub use iolab_results::pts::{Cache, Dut, WriteCache};

fn cache_of(enabled: bool) -> Cache {
    match enabled {
        true => Cache::Enabled,
        false => Cache::Disabled,
    }
}

/// Where the write cache is read and set.
#[derive(Debug, Clone)]
enum Knob {
    /// An NVMe namespace's block device, as the guard pinned it (the admin commands go
    /// through it).
    Nvme(Pin),
    /// A SCSI disk's `cache_type` (SATA drives behind libata too).
    Scsi(PathBuf),
    /// Only the kernel's view (`queue/write_cache`), which changes nothing on the device.
    Sysfs(PathBuf),
    Nothing,
}

/// Restores the write cache found before the run when dropped, or when the process ends
/// without unwinding ([`iolab_sysinfo::undo`]); its record in the results database (made
/// before the change, for a process killed outright) goes once it is restored.
#[derive(Debug)]
pub struct Restore {
    _undo: Option<iolab_sysinfo::undo::Undo>,
}

/// Where a change is recorded: the results database, and the run that made it.
pub struct Record<'a> {
    pub store: &'a iolab_store::Store,
    pub run_id: i64,
}

/// Puts the cache back to `on` through `knob`, then drops the record `row` of `db`.
fn put_back(knob: &Knob, on: bool, row: Option<(PathBuf, i64)>) {
    match set(knob, on) {
        Ok(()) => {
            if let Some((db, id)) = row {
                if let Ok(store) = iolab_store::Store::open(&db) {
                    let _ = store.forget_restore(id);
                }
            }
        }
        Err(e) => eprintln!(
            "iolab pts: warning: could not restore the write cache ({}): {e}",
            if on { "enabled" } else { "disabled" }
        ),
    }
}

/// How a knob is put back by a later process (stored in the results database before the
/// knob is changed): what it reaches and how it is checked to be the same device (its
/// device number, and an NVMe drive's serial).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "knob", rename_all = "lowercase")]
enum RestoreRecord {
    Nvme {
        setting: String,
        to: bool,
        device: PathBuf,
        rdev: Option<[u32; 2]>,
        serial: Option<String>,
    },
    Scsi {
        setting: String,
        to: bool,
        cache_type: PathBuf,
        disk: PathBuf,
        dev: Option<String>,
    },
}

impl RestoreRecord {
    fn to(&self) -> bool {
        match self {
            RestoreRecord::Nvme { to, .. } | RestoreRecord::Scsi { to, .. } => *to,
        }
    }
}

fn describe(k: &Knob, on: bool) -> Option<serde_json::Value> {
    use std::os::unix::fs::MetadataExt;
    let rdev_of = |p: &Path| {
        fs::metadata(p)
            .ok()
            .map(|m| [libc::major(m.rdev()), libc::minor(m.rdev())])
    };
    let setting = "write_cache".to_string();
    let r = match k {
        Knob::Nvme(pin) => RestoreRecord::Nvme {
            setting,
            to: on,
            device: pin.resolved.clone(),
            rdev: rdev_of(&pin.resolved),
            serial: nvme_controller(pin).map(|c| c.serial),
        },
        Knob::Scsi(p) => {
            // .../block/sdX/device/scsi_disk/H:C:T:L/cache_type: the disk is four up.
            let disk = p.ancestors().nth(4)?.to_path_buf();
            RestoreRecord::Scsi {
                setting,
                to: on,
                cache_type: p.clone(),
                dev: read(&disk.join("dev")),
                disk,
            }
        }
        _ => return None,
    };
    serde_json::to_value(r).ok()
}

/// Puts back what processes killed outright left changed (recorded in `store` before they
/// changed it), checking each is still the same device; one line for each, to be said.
pub fn restore_orphans(store: &iolab_store::Store) -> Vec<String> {
    let Ok(orphans) = store.orphaned_restores() else {
        return Vec::new();
    };
    let mut said = Vec::new();
    for o in orphans {
        let w: Option<RestoreRecord> = serde_json::from_value(o.what.clone()).ok();
        let on = w.as_ref().is_none_or(RestoreRecord::to);
        let run = o
            .run_id
            .map(|r| format!("run {r}"))
            .unwrap_or("a run".into());
        let state = if on { "enabled" } else { "disabled" };
        let knob = w.ok_or_else(|| format!("an unknown setting ({})", o.what));
        let (knob, name) = match knob.and_then(orphan_knob) {
            Ok(k) => k,
            Err(why) => {
                said.push(format!(
                    "iolab: {run} was killed with a write cache changed, which cannot be put \
                     back: {why}"
                ));
                continue;
            }
        };
        match set(&knob, on) {
            Ok(()) => {
                let _ = store.forget_restore(o.id);
                said.push(format!(
                    "iolab: restored the write cache of {name} to {state}, as {run} found it \
                     before it was killed"
                ));
            }
            Err(e) => said.push(format!(
                "iolab: could not restore the write cache of {name} to {state} ({run} was \
                 killed): {e}"
            )),
        }
    }
    said
}

/// The knob an orphaned record names, once it is checked to be the same device.
fn orphan_knob(w: RestoreRecord) -> Result<(Knob, String), String> {
    use std::os::unix::fs::MetadataExt;
    match w {
        RestoreRecord::Nvme {
            device,
            rdev,
            serial,
            ..
        } => {
            let pin = Pin::existing(&device).map_err(|e| format!("{}: {e}", device.display()))?;
            let m = fs::metadata(&pin.resolved).map_err(|e| e.to_string())?;
            if rdev != Some([libc::major(m.rdev()), libc::minor(m.rdev())]) {
                return Err(format!("{} is another device now", device.display()));
            }
            if serial != nvme_controller(&pin).map(|c| c.serial) {
                return Err(format!(
                    "{} is another drive now (serial)",
                    device.display()
                ));
            }
            Ok((Knob::Nvme(pin), device.display().to_string()))
        }
        RestoreRecord::Scsi {
            cache_type,
            disk,
            dev,
            ..
        } => {
            if read(&disk.join("dev")) != dev {
                return Err(format!("{} is another device now", disk.display()));
            }
            let name = disk
                .file_name()
                .map(|n| format!("/dev/{}", n.to_string_lossy()));
            Ok((Knob::Scsi(cache_type), name.unwrap_or_default()))
        }
    }
}

/// The sysfs directory of the whole disk behind the pinned block device.
fn disk_dir(pin: &Pin) -> Option<PathBuf> {
    let facts = probe(&pin.resolved).ok()?;
    if facts.kind != TargetKind::BlockDevice {
        return None;
    }
    let name = iolab_sysinfo::target::whole_disk_name(facts.device)?;
    Some(Path::new("/sys/block").join(name))
}

fn read(p: &Path) -> Option<String> {
    let s = fs::read_to_string(p).ok()?;
    let s = s.trim().trim_matches('\0').trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// The device under test behind `pin` (`None`: a file): Identify Controller on an NVMe
/// namespace, sysfs for others.
pub fn facts(c: &Config, pin: Option<&Pin>) -> Dut {
    let mut d = Dut {
        capacity_bytes: c.capacity,
        ..Dut::default()
    };
    let Some((pin, dir)) = pin.and_then(|p| Some((p, disk_dir(p)?))) else {
        d.interface = "a file (the drive under its filesystem is not the device tested)".into();
        d.source = "none".into();
        return d;
    };
    let name = dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    if let Some(ctrl) = nvme_controller(pin) {
        d.model = Some(ctrl.model);
        d.serial = Some(ctrl.serial);
        d.firmware = Some(ctrl.firmware);
        d.interface = "NVMe".into();
        d.source = "NVMe Identify Controller".into();
        return d;
    }
    let id = iolab_sysinfo::drive::identity(&dir);
    (d.model, d.firmware, d.serial) = (id.model, id.firmware, id.serial);
    d.interface = match () {
        _ if dir.join("device/scsi_disk").exists() => "SCSI/SATA".into(),
        _ if name.starts_with("zram") => "zram (RAM)".into(),
        _ if name.starts_with("loop") => "loop device".into(),
        _ if name.starts_with("vd") => "virtio".into(),
        _ => name.clone(),
    };
    d.source = "sysfs".into();
    d
}

/// Identify Controller through the namespace's block device, opened through its pin.
fn nvme_controller(pin: &Pin) -> Option<nvme::Controller> {
    let f = pin.open(libc::O_RDONLY).ok()?;
    nvme::namespace_id(std::os::fd::AsRawFd::as_raw_fd(&f)).ok()?;
    nvme::identify_controller(&f).ok()
}

/// The write cache's knob for the pinned target.
fn knob(pin: Option<&Pin>) -> Knob {
    let Some((pin, dir)) = pin.and_then(|p| Some((p, disk_dir(p)?))) else {
        return Knob::Nothing;
    };
    if nvme_controller(pin).is_some() {
        return Knob::Nvme(pin.clone());
    }
    let scsi = fs::read_dir(dir.join("device/scsi_disk"))
        .ok()
        .and_then(|mut d| d.next())
        .and_then(|e| e.ok())
        .map(|e| e.path().join("cache_type"));
    match scsi {
        Some(p) if p.exists() => Knob::Scsi(p),
        _ => Knob::Sysfs(dir.join("queue/write_cache")),
    }
}

fn get(k: &Knob) -> Result<Cache, String> {
    match k {
        Knob::Nvme(pin) => {
            let f = pin.open(libc::O_RDONLY).map_err(|e| e.to_string())?;
            let ctrl = nvme::identify_controller(&f).map_err(|e| e.to_string())?;
            if !ctrl.volatile_write_cache {
                return Ok(Cache::Absent);
            }
            nvme::write_cache_enabled(&f)
                .map(cache_of)
                .map_err(|e| e.to_string())
        }
        Knob::Scsi(p) | Knob::Sysfs(p) => {
            let s = read(p).ok_or_else(|| format!("cannot read {}", p.display()))?;
            Ok(match s.as_str() {
                s if s.starts_with("write back") => Cache::Enabled,
                s if s.starts_with("write through") => match k {
                    Knob::Sysfs(_) => Cache::Absent,
                    _ => Cache::Disabled,
                },
                "none" => Cache::Absent,
                _ => Cache::Unknown,
            })
        }
        Knob::Nothing => Ok(Cache::Unknown),
    }
}

fn set(k: &Knob, on: bool) -> Result<(), String> {
    match k {
        Knob::Nvme(pin) => {
            let f = pin.open(libc::O_RDONLY).map_err(|e| e.to_string())?;
            nvme::set_write_cache(&f, on).map_err(|e| e.to_string())
        }
        Knob::Scsi(p) => fs::write(p, if on { "write back" } else { "write through" })
            .map_err(|e| format!("{}: {e}", p.display())),
        Knob::Sysfs(_) | Knob::Nothing => Err("the device's cache cannot be set from here".into()),
    }
}

fn how(k: &Knob) -> String {
    match k {
        Knob::Nvme(_) => "NVMe Get/Set Features (Volatile Write Cache)".into(),
        Knob::Scsi(p) => format!("{} (MODE SELECT to the drive)", p.display()),
        Knob::Sysfs(p) => format!("{} (the kernel's view; not settable)", p.display()),
        Knob::Nothing => "none: the target is a file".into(),
    }
}

/// Reads the write cache and sets the profile's (unless the operator keeps it); the
/// returned guard restores what was found. Nothing is set on a target that has no cache or
/// whose cache cannot be set: the departure is said instead.
pub fn write_cache(c: &Config, pin: Option<&Pin>, record: Record) -> (WriteCache, Restore) {
    let required = cache_of(c.profile.write_cache_enabled());
    let k = knob(pin);
    let found = get(&k).unwrap_or(Cache::Unknown);
    let mut during = found;
    let mut restore = Restore { _undo: None };
    let mut departs = None;
    let settable = matches!(k, Knob::Nvme(_) | Knob::Scsi(_));
    if matches!(found, Cache::Enabled | Cache::Disabled) && found != required {
        match (c.keep_write_cache, settable) {
            (true, _) => departs = Some("--keep-write-cache: left as found".to_string()),
            (false, false) => departs = Some("the device's cache cannot be set from here".into()),
            (false, true) => match change(&k, required == Cache::Enabled, found, &record) {
                Ok(undo) => {
                    during = get(&k).unwrap_or(Cache::Unknown);
                    restore = Restore { _undo: Some(undo) };
                    if during != required {
                        departs = Some("the drive did not take the setting".into());
                    }
                }
                Err(e) => departs = Some(format!("setting it failed: {e}")),
            },
        }
    }
    if found == Cache::Unknown {
        departs = Some("its state cannot be read".into());
    }
    let how = how(&k);
    (
        WriteCache {
            found,
            during,
            required,
            how,
            departs: departs.map(|d| {
                format!(
                    "write cache {} during the run where {} requires it {}: {d}",
                    name(during),
                    c.profile_name(),
                    name(required)
                )
            }),
        },
        restore,
    )
}

/// Sets the cache to `on`, having recorded first how to put `found` back (in the database,
/// for a process killed outright, and as the process's undo action for every other end).
fn change(
    k: &Knob,
    on: bool,
    found: Cache,
    record: &Record,
) -> Result<iolab_sysinfo::undo::Undo, String> {
    let back = found == Cache::Enabled;
    let row = describe(k, back)
        .map(|w| record.store.record_restore(Some(record.run_id), &w))
        .transpose()
        .map_err(|e| format!("cannot record the cache's state before changing it: {e}"))?
        .map(|id| (record.store.path().to_path_buf(), id));
    let undo_knob = k.clone();
    let undo = iolab_sysinfo::undo::push(move || put_back(&undo_knob, back, row));
    set(k, on)?;
    Ok(undo)
}

/// `enabled`, `disabled`, `absent`, `unknown`.
pub fn name(c: Cache) -> &'static str {
    match c {
        Cache::Enabled => "enabled",
        Cache::Disabled => "disabled",
        Cache::Absent => "absent (the device has no volatile write cache)",
        Cache::Unknown => "unknown",
    }
}
