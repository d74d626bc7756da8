//! Helpers for the integration tests: running the binary, and the backing kinds (temp file,
//! zram, loop device), each skipped with a printed reason where the machine lacks it.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

pub mod browser;

use serde_json::Value;

pub struct Out {
    pub code: i32,
    pub stdout: String,
    /// Standard error without the machine's pre-run line (see `machine_warning`).
    pub stderr: String,
    /// The one line a measuring command prints before it starts when the machine distorts
    /// figures (a VM, other work on the CPUs): a statement about the machine, apart from
    /// what the command itself says, so tests of "one line" errors read the rest.
    pub machine_warning: Option<String>,
}

/// The pre-run line's start (`doctor::distortions`).
pub const MACHINE_WARNING: &str = "iolab: this machine distorts figures:";

impl Out {
    /// A finished process's output, its machine line split off.
    pub fn of(o: &std::process::Output) -> Out {
        let (stderr, machine_warning) = split_machine_warning(&String::from_utf8_lossy(&o.stderr));
        Out {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr,
            machine_warning,
        }
    }
}

/// Splits the machine's pre-run line from the rest of standard error.
pub fn split_machine_warning(stderr: &str) -> (String, Option<String>) {
    let mut warning = None;
    let mut rest = String::new();
    for line in stderr.split_inclusive('\n') {
        match line.starts_with(MACHINE_WARNING) && warning.is_none() {
            true => warning = Some(line.trim_end().to_string()),
            false => rest.push_str(line),
        }
    }
    (rest, warning)
}

/// The results database the tests' runs are recorded in (one per test process), so tests
/// never write to the user's own.
pub fn test_db() -> PathBuf {
    std::env::temp_dir().join(format!("iolab-tests-{}.db", std::process::id()))
}

pub fn iolab(args: &[&str]) -> Out {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", test_db())
        .args(args)
        .output()
        .unwrap();
    Out::of(&o)
}

/// `iolab run ARGS --output-format=json`, which must succeed; the parsed document.
pub fn iolab_json(args: &[String]) -> Value {
    let mut a: Vec<&str> = vec!["run"];
    a.extend(args.iter().map(String::as_str));
    if !args.iter().any(|s| s.starts_with("--output-format")) {
        a.push("--output-format=json");
    }
    let out = iolab(&a);
    assert_eq!(out.code, 0, "iolab {a:?}\nstderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// `fio ARGS --output-format=json`, which must succeed; the parsed document.
pub fn fio_json(args: &[String]) -> Value {
    let out = Command::new("fio")
        .args(args)
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: fio {args:?}"))
}

static DEVICES: Mutex<()> = Mutex::new(());

/// Serialises tests that use zram or loop devices.
pub fn device_lock() -> MutexGuard<'static, ()> {
    DEVICES.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct LoopDev {
    pub path: PathBuf,
    pub backing: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.path).status();
    }
}

/// A loop device over a zeroed temp file of `bytes`; with `partitioned`, the file first gets
/// an MBR with one partition and the device is attached with partition scanning.
pub fn loop_device(bytes: u64, partitioned: bool) -> Option<LoopDev> {
    let dir = tempfile::tempdir().ok()?;
    let backing = dir.path().join("backing");
    let f = fs::File::create(&backing).ok()?;
    f.set_len(bytes).ok()?;
    if partitioned {
        // One Linux partition from sector 2048 to the end.
        let mut e = [0u8; 16];
        e[4] = 0x83;
        e[8..12].copy_from_slice(&2048u32.to_le_bytes());
        e[12..16].copy_from_slice(&((bytes / 512) as u32 - 2048).to_le_bytes());
        f.write_all_at(&e, 446).ok()?;
        f.write_all_at(&[0x55, 0xAA], 510).ok()?;
    }
    drop(f);
    let mut cmd = Command::new("losetup");
    cmd.args(["-f", "--show"]);
    if partitioned {
        cmd.arg("-P");
    }
    match cmd.arg(&backing).output() {
        Ok(o) if o.status.success() => Some(LoopDev {
            path: PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
            backing,
            _dir: dir,
        }),
        Ok(o) => {
            eprintln!(
                "skipped loop device: losetup: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            );
            None
        }
        Err(e) => {
            eprintln!("skipped loop device: losetup: {e}");
            None
        }
    }
}

pub enum Backing {
    File(tempfile::TempDir, PathBuf),
    Zram(PathBuf),
    Loop(LoopDev),
}

impl Backing {
    pub fn path(&self) -> &Path {
        match self {
            Backing::File(_, p) | Backing::Zram(p) => p,
            Backing::Loop(l) => &l.path,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Backing::File(..) => "file",
            Backing::Zram(_) => "zram",
            Backing::Loop(_) => "loop",
        }
    }
}

/// /dev/zram0 sized (1 GiB when it reads 0) and not in use, or the reason it cannot be used.
pub fn zram() -> Result<PathBuf, String> {
    let dev = PathBuf::from("/dev/zram0");
    if !dev.exists() {
        return Err("no /dev/zram0 (modprobe zram)".into());
    }
    let size_path = "/sys/block/zram0/disksize";
    let size = |_: ()| {
        fs::read_to_string(size_path)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
    };
    if size(()) == Some(0) {
        let _ = fs::write(size_path, "1G");
    }
    if size(()).is_none_or(|s| s == 0) {
        return Err("zram0 has no disksize and it could not be set".into());
    }
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    let mounts = fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    if swaps.contains("/dev/zram0") || mounts.contains("/dev/zram0") {
        return Err("zram0 is in use (swap or mounted)".into());
    }
    Ok(dev)
}

/// Every backing kind available here, printing why any is skipped. The file is `bytes` long.
pub fn backings(bytes: u64) -> Vec<Backing> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("target");
    fs::write(&p, vec![0u8; bytes as usize]).unwrap();
    let mut v = vec![Backing::File(dir, p)];
    match zram() {
        Ok(p) => v.push(Backing::Zram(p)),
        Err(why) => eprintln!("skipped zram: {why}"),
    }
    if let Some(l) = loop_device(bytes, false) {
        v.push(Backing::Loop(l));
    }
    v
}

pub fn logical_block_size(p: &Path) -> u32 {
    let name = fs::canonicalize(p).unwrap();
    let name = name.file_name().unwrap().to_string_lossy();
    fs::read_to_string(format!("/sys/block/{name}/queue/logical_block_size"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(512)
}

/// The CPU pressure the kernel measured (PSI, /proc/pressure/cpu): the share of time some
/// runnable task waited for a CPU, over the last 10 and 60 seconds, and the running total
/// in microseconds; `None` where the kernel keeps no PSI.
pub fn cpu_pressure() -> Option<(f64, f64, u64)> {
    let text = fs::read_to_string("/proc/pressure/cpu").ok()?;
    let some = text.lines().find(|l| l.starts_with("some "))?;
    let field = |k: &str| {
        some.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .and_then(|v| v.parse::<f64>().ok())
    };
    Some((field("avg10=")?, field("avg60=")?, field("total=")? as u64))
}

/// Share of time (%) above which tasks waiting for a CPU mean the figures measured the
/// machine: on a quiet machine a test's own threads keep it near zero.
pub const BUSY_PRESSURE_PCT: f64 = 15.0;

/// A measurement's window: how much of it tasks spent waiting for a CPU (PSI), and the
/// VM's stolen time, so that a bound that fails can tell a busy machine from a wrong one.
pub struct Window {
    started: std::time::Instant,
    total_us: Option<u64>,
}

impl Window {
    pub fn open() -> Window {
        Window {
            started: std::time::Instant::now(),
            total_us: cpu_pressure().map(|p| p.2),
        }
    }

    /// The share (%) of the window some task waited for a CPU; `None` without PSI.
    pub fn pressure_pct(&self) -> Option<f64> {
        let now = cpu_pressure()?.2;
        let wall = self.started.elapsed().as_micros().max(1) as f64;
        Some(now.saturating_sub(self.total_us?) as f64 / wall * 100.0)
    }

    /// Why the window's figures measured the machine, when they did.
    pub fn busy(&self) -> Option<String> {
        let p = self.pressure_pct()?;
        (p >= BUSY_PRESSURE_PCT).then(|| {
            format!(
                "tasks waited for a CPU {p:.0} % of the measurement's {:.1} s (PSI; a quiet \
                 machine: under {BUSY_PRESSURE_PCT:.0} %)",
                self.started.elapsed().as_secs_f64()
            )
        })
    }
}

/// Other work on the CPUs lately: the kernel's CPU pressure over the last 10 or 60 seconds
/// at or above [`BUSY_PRESSURE_PCT`] (tasks, the test's own or others, waiting for a CPU),
/// or where the kernel has no PSI, iolab's own machine check (`iolab doctor`'s "load from
/// others"); the figures when busy, else `None`. A test whose bound holds only on a quiet
/// machine asks this before it fails: on a busy machine it skips with these figures.
pub fn machine_busy() -> Option<String> {
    if let Some((avg10, avg60, _)) = cpu_pressure() {
        return (avg10.max(avg60) >= BUSY_PRESSURE_PCT).then(|| {
            format!(
                "tasks waited for a CPU {avg10:.0} % of the last 10 s and {avg60:.0} % of the \
                 last 60 s (PSI)"
            )
        });
    }
    let out = iolab(&["doctor", "--output-format=json"]);
    let v: Value = serde_json::from_str(&out.stdout).ok()?;
    v["checks"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == "load from others" && c["verdict"] == "distorts")
        .map(|c| c["value"].as_str().unwrap_or("busy").to_string())
}

/// `ok`, or a skip with the figures when the window (`Some`) or the last minute (`None`) was
/// busy; `false` (the caller asserts) when it was quiet, where the bound must hold.
pub fn holds_or_busy_in(ok: bool, window: Option<&Window>, what: &str, figures: &str) -> bool {
    if ok {
        return true;
    }
    let busy = match window {
        Some(w) => w.busy().or_else(machine_busy),
        None => machine_busy(),
    };
    match busy {
        Some(load) => {
            println!("skipped: busy: {what} ({figures}): {load}; the bound holds only on a quiet machine");
            true
        }
        None => false,
    }
}

/// `ok`, or a skip with the reason when the machine is busy (see [`machine_busy`]); `false`
/// (the caller asserts) on a quiet machine, where the bound must hold.
pub fn holds_or_busy(ok: bool, what: &str) -> bool {
    holds_or_busy_in(ok, None, what, "")
}
