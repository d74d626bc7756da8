//! The hostile corpus: what a careless or hostile user tries, each case asserting the exit
//! status, a one-line message, and the unchanged bytes (checksums) of every device and file
//! involved. Devices are loop devices over temp files carrying real signatures (ext4 from
//! mkfs, an MBR partition table) or mounted; a kind this machine cannot make is skipped with
//! the reason printed.

#[path = "hostile/consent.rs"]
mod consent;
#[path = "hostile/database.rs"]
mod database;
#[path = "hostile/edges.rs"]
mod edges;
#[path = "hostile/guard.rs"]
mod guard;
#[path = "hostile/input.rs"]
mod input;
#[path = "hostile/kept.rs"]
mod kept;
#[path = "hostile/limits.rs"]
mod limits;
#[path = "hostile/objects.rs"]
mod objects;
#[path = "hostile/pipes.rs"]
mod pipes;
#[path = "hostile/race.rs"]
mod race;
#[path = "hostile/round4.rs"]
mod round4;
#[path = "hostile/sidefiles.rs"]
mod sidefiles;
mod support;

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::Out;

/// iolab with `args`, its results database in `db`.
pub fn iolab_db(db: &Path, args: &[&str]) -> Out {
    iolab_env(args, &[("IOLAB_DB", db.to_str().unwrap())])
}

/// iolab with `args` and extra environment.
pub fn iolab_env(args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.env("IOLAB_DB", support::test_db()).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    Out::of(&o)
}

/// Exit 2, one line on stderr naming `needle`, said once, nothing on stdout.
pub fn refused(out: &Out, needle: &str) {
    assert_eq!(out.code, 2, "stdout: {} stderr: {}", out.stdout, out.stderr);
    let text = out.stderr.trim();
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    assert!(text.contains(needle), "wanted '{needle}' in: {text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", out.stdout);
    said_once(text);
}

/// No clause of the message repeats (errors used to print their cause two or three times).
pub fn said_once(text: &str) {
    let parts: Vec<&str> = text
        .split(": ")
        .map(str::trim)
        .filter(|p| p.len() > 12)
        .collect();
    for (i, p) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..].contains(p),
            "'{p}' is said twice in: {text}"
        );
    }
}

/// A checksum of a file's or device's whole contents.
pub fn checksum(path: &Path) -> u64 {
    let mut f = std::fs::File::open(path).unwrap();
    let mut h = DefaultHasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        h.write(&buf[..n]);
    }
    h.finish()
}

/// Checksums of several paths, to compare before and after.
pub fn sums(paths: &[&Path]) -> Vec<u64> {
    paths.iter().map(|p| checksum(p)).collect()
}

/// A loop device carrying an ext4 filesystem, or `None` (reason printed).
pub fn ext4_loop(bytes: u64) -> Option<support::LoopDev> {
    let dev = support::loop_device(bytes, false)?;
    match Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&dev.path)
        .status()
    {
        Ok(s) if s.success() => Some(dev),
        _ => {
            eprintln!("skipped: mkfs.ext4 did not run");
            None
        }
    }
}

/// A temp directory with a file of `bytes` that the user made (iolab did not).
pub fn user_file(bytes: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("users-data");
    let data: Vec<u8> = (0..bytes).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&p, data).unwrap();
    (dir, p)
}
