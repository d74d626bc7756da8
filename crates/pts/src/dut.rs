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
use serde::Serialize;

use crate::config::Config;

/// What the header says of the device under test.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Dut {
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// How the device is attached (NVMe, SCSI/SATA, a RAM device, a file).
    pub interface: String,
    /// Its user capacity in bytes.
    pub capacity_bytes: u64,
    /// Where the facts came from.
    pub source: String,
}

/// A volatile write cache's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cache {
    Enabled,
    Disabled,
    /// The device has none (a RAM device; a drive with power-loss protection may say so).
    Absent,
    Unknown,
}

impl Cache {
    fn of(enabled: bool) -> Cache {
        match enabled {
            true => Cache::Enabled,
            false => Cache::Disabled,
        }
    }
}

/// The write cache during the run, as the JSON and the header give it.
#[derive(Debug, Clone, Serialize)]
pub struct WriteCache {
    /// Found before the run.
    pub found: Cache,
    /// During the run.
    pub during: Cache,
    /// What the profile requires.
    pub required: Cache,
    /// How it was read or set.
    pub how: String,
    /// Why it departs from the profile's requirement (`None`: it does not).
    pub departs: Option<String>,
}

/// Where the write cache is read and set.
#[derive(Debug)]
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

/// Restores the write cache found before the run when dropped.
#[derive(Debug)]
pub struct Restore {
    knob: Knob,
    to: Option<bool>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(on) = self.to {
            if let Err(e) = set(&self.knob, on) {
                eprintln!(
                    "iolab pts: warning: could not restore the write cache ({}): {e}",
                    if on { "enabled" } else { "disabled" }
                );
            }
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
    d.model = read(&dir.join("device/model"));
    d.firmware = read(&dir.join("device/rev")).or_else(|| read(&dir.join("device/firmware_rev")));
    d.serial = read(&dir.join("device/serial")).or_else(|| scsi_serial(&dir));
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

/// A SCSI disk's unit serial number (VPD page 0x80: a 4-byte header, then the serial).
fn scsi_serial(dir: &Path) -> Option<String> {
    let raw = fs::read(dir.join("device/vpd_pg80")).ok()?;
    let s = String::from_utf8_lossy(raw.get(4..)?).trim().to_string();
    (!s.is_empty()).then_some(s)
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
                .map(Cache::of)
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
pub fn write_cache(c: &Config, pin: Option<&Pin>) -> (WriteCache, Restore) {
    let required = Cache::of(c.profile.write_cache_enabled());
    let k = knob(pin);
    let found = get(&k).unwrap_or(Cache::Unknown);
    let mut during = found;
    let mut restore = Restore {
        knob: Knob::Nothing,
        to: None,
    };
    let mut departs = None;
    let settable = matches!(k, Knob::Nvme(_) | Knob::Scsi(_));
    if matches!(found, Cache::Enabled | Cache::Disabled) && found != required {
        match (c.keep_write_cache, settable) {
            (true, _) => departs = Some("--keep-write-cache: left as found".to_string()),
            (false, false) => departs = Some("the device's cache cannot be set from here".into()),
            (false, true) => match set(&k, required == Cache::Enabled) {
                Ok(()) => {
                    during = get(&k).unwrap_or(Cache::Unknown);
                    restore = Restore {
                        to: Some(found == Cache::Enabled),
                        knob: knob(pin),
                    };
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

/// `enabled`, `disabled`, `absent`, `unknown`.
pub fn name(c: Cache) -> &'static str {
    match c {
        Cache::Enabled => "enabled",
        Cache::Disabled => "disabled",
        Cache::Absent => "absent (the device has no volatile write cache)",
        Cache::Unknown => "unknown",
    }
}
