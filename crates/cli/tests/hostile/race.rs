//! The `/tmp` symlink attack: a link the job names is swapped between a scratch file and an
//! ext4-signed loop device, over and over, while iolab checks, lays out, runs and writes its
//! output (`ln -s /dev/loop0 l.tmp && mv -T l.tmp link`). Whatever the timing, the device
//! keeps every byte: iolab opens what it checked or nothing. Devices in use (held `O_EXCL` by
//! another process, or backing a loop device) are refused even with `--allow-destroy`.

use std::fs;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::support::{device_lock, loop_device};
use crate::{checksum, ext4_loop, iolab_db, refused};

const TRIES: usize = 20;

/// Swaps `link` between `a` and `b` as fast as it can until `stop`, each swap atomic
/// (a new link renamed over the old one).
fn flipper(
    link: PathBuf,
    a: PathBuf,
    b: PathBuf,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let tmp = link.with_extension("tmp");
        let mut n = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let to = if n.is_multiple_of(2) { &a } else { &b };
            let _ = fs::remove_file(&tmp);
            if std::os::unix::fs::symlink(to, &tmp).is_ok() {
                let _ = fs::rename(&tmp, &link);
            }
            n += 1;
        }
        n
    })
}

/// Runs `args` TRIES times with `link` flipping between `scratch` and the device; the device's
/// checksum must never change. Returns how many runs exited 0 (a race that never lets a run
/// through would test nothing).
fn race(dev: &Path, link: &Path, scratch: &Path, db: &Path, args: &[&str], fresh: bool) -> usize {
    let before = checksum(dev);
    let mut ok = 0;
    for _ in 0..TRIES {
        if fresh {
            let _ = fs::remove_file(scratch);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let _ = fs::remove_file(link);
        std::os::unix::fs::symlink(scratch, link).unwrap();
        let f = flipper(
            link.to_path_buf(),
            dev.to_path_buf(),
            scratch.to_path_buf(),
            stop.clone(),
        );
        let out = iolab_db(db, args);
        stop.store(true, Ordering::Relaxed);
        f.join().unwrap();
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        assert!([0, 1, 2].contains(&out.code), "{}", out.stderr);
        ok += usize::from(out.code == 0);
        assert_eq!(checksum(dev), before, "the device changed: {}", out.stderr);
    }
    ok
}

/// A short read of a 1 MiB `target` with its results written to `output`.
fn read_into(target: &Path, output: &Path) -> Vec<String> {
    [
        "run",
        "--name=j",
        "--size=1m",
        "--rw=read",
        "--runtime=50ms",
    ]
    .map(String::from)
    .into_iter()
    .chain([
        format!("--filename={}", target.display()),
        format!("--output={}", output.display()),
    ])
    .collect()
}

#[test]
fn a_symlink_swapped_during_layout_run_or_output_never_reaches_the_device() {
    let _g = device_lock();
    let Some(dev) = ext4_loop(32 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let link = dir.path().join("link");
    let scratch = dir.path().join("scratch");
    let file = format!("--filename={}", link.display());
    // During layout: the scratch file is new each time, laid out through the link's target.
    let layout = [
        "run",
        "--name=j",
        &file,
        "--size=8m",
        "--rw=write",
        "--bs=1m",
        "--runtime=100ms",
    ];
    let n = race(&dev.path, &link, &scratch, &db, &layout, true);
    println!("layout race: {n} of {TRIES} runs went through");
    // During the run: the scratch file exists (iolab made it, so it needs no consent); a
    // direct io_uring random write and trims through the link.
    for rw in ["--rw=randwrite", "--rw=randtrim"] {
        let run = [
            "run",
            "--name=j",
            &file,
            "--size=8m",
            rw,
            "--ioengine=io_uring",
            "--direct=1",
            "--iodepth=8",
            "--runtime=150ms",
            "--time_based",
        ];
        let n = race(&dev.path, &link, &scratch, &db, &run, false);
        println!("run race ({rw}): {n} of {TRIES} runs went through");
    }
    // On --output: the report follows the link only if it still is what was checked.
    let out_link = dir.path().join("out");
    let out_file = dir.path().join("out.txt");
    let output = read_into(&dir.path().join("target"), &out_link);
    let output: Vec<&str> = output.iter().map(String::as_str).collect();
    let n = race(&dev.path, &out_link, &out_file, &db, &output, false);
    println!("output race: {n} of {TRIES} runs went through");
}

#[test]
fn a_dangling_link_into_dev_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link");
    let missing = "/dev/iolab-no-such-nvme9n9";
    std::os::unix::fs::symlink(missing, &link).unwrap();
    let db = dir.path().join("r.db");
    let file = format!("--filename={}", link.display());
    let args = [
        "run",
        "--name=j",
        &file,
        "--size=1m",
        "--rw=write",
        "--runtime=50ms",
    ];
    // In a private mount namespace with its own /dev when unshare works here, so a failure
    // could not litter the real one.
    let bin = env!("CARGO_BIN_EXE_iolab");
    let script = format!(
        "mount -t tmpfs none /dev && IOLAB_DB={} {bin} {} ; echo rc=$?; ls /dev",
        db.display(),
        args.join(" ")
    );
    match Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .output()
    {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(text.contains("rc=2"), "{text}");
            assert!(!text.contains("iolab-no-such-nvme9n9"), "created: {text}");
            assert!(
                String::from_utf8_lossy(&o.stderr).contains("does not create files in /dev"),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        _ => println!("no private mount namespace here (unshare -m): run against the real /dev"),
    }
    refused(&iolab_db(&db, &args), "does not create files in /dev");
    assert!(!Path::new(missing).exists());
    // The same link as --output or a log prefix.
    let r = read_into(&dir.path().join("t"), &link);
    let r: Vec<&str> = r.iter().map(String::as_str).collect();
    refused(&iolab_db(&db, &r), "does not create files in /dev");
    assert!(!Path::new(missing).exists());
}

#[test]
fn output_through_a_dangling_link_to_the_database_or_target_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let target = dir.path().join("target");
    let to_db = dir.path().join("to-db");
    let to_target = dir.path().join("to-target");
    let to_wal = dir.path().join("to-wal");
    std::os::unix::fs::symlink(&db, &to_db).unwrap();
    std::os::unix::fs::symlink(&target, &to_target).unwrap();
    std::os::unix::fs::symlink(dir.path().join("new.db-wal"), &to_wal).unwrap();
    let t = format!("--filename={}", target.display());
    for link in [&to_db, &to_target, &to_wal] {
        let o = format!("--output={}", link.display());
        let args = [
            "run",
            "--name=j",
            &t,
            "--size=1m",
            "--rw=write",
            "--runtime=50ms",
            &o,
        ];
        refused(&iolab_db(&db, &args), "--output");
        assert!(!target.exists(), "nothing laid out");
    }
    // The database's WAL file named directly, once the database exists.
    let ok = [
        "run",
        "--name=j",
        &t,
        "--size=1m",
        "--rw=read",
        "--runtime=50ms",
    ];
    assert_eq!(iolab_db(&db, &ok).code, 0);
    let wal = format!("--output={}-wal", db.display());
    let args = ["run", "--name=j", &t, "--rw=read", "--runtime=50ms", &wal];
    refused(&iolab_db(&db, &args), "which this run reads or writes");
}

#[test]
fn devices_in_use_are_refused_even_with_consent() {
    let _g = device_lock();
    let Some(dev) = ext4_loop(16 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let before = checksum(&dev.path);
    let d = format!("--filename={}", dev.path.display());
    let write = [
        "run",
        "--name=j",
        &d,
        "--rw=write",
        "--runtime=100ms",
        "--allow-destroy",
    ];
    {
        // Held exclusively, as a filesystem, LVM, ZFS or btrfs holds its devices.
        let _held = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(&dev.path)
            .unwrap();
        refused(&iolab_db(&db, &write), "in use");
    }
    // The device under another loop device, and a file under a loop device.
    let over = Command::new("losetup")
        .args(["-f", "--show"])
        .arg(&dev.path)
        .output()
        .unwrap();
    assert!(
        over.status.success(),
        "{}",
        String::from_utf8_lossy(&over.stderr)
    );
    let upper = String::from_utf8_lossy(&over.stdout).trim().to_string();
    let refusal = iolab_db(&db, &write);
    let _ = Command::new("losetup").args(["-d", &upper]).status();
    refused(&refusal, "it backs /dev/loop");
    let Some(other) = loop_device(4 << 20, false) else {
        return;
    };
    let f = format!("--filename={}", other.backing.display());
    let file_write = [
        "run",
        "--name=j",
        &f,
        "--rw=write",
        "--runtime=100ms",
        "--allow-destroy",
    ];
    let file_before = checksum(&other.backing);
    refused(&iolab_db(&db, &file_write), "it backs /dev/loop");
    assert_eq!(checksum(&other.backing), file_before);
    assert_eq!(checksum(&dev.path), before, "no byte changed");
    // With nothing holding it, the same consent writes (the checks can pass).
    assert_eq!(iolab_db(&db, &write).code, 0);
}

/// One new file named two ways (`f`, `dir/./f`) is laid out once, exclusively, to the end
/// the larger job needs, and both jobs run on it.
#[test]
fn one_file_named_two_ways_is_laid_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let a = format!("--filename={}", dir.path().join("f").display());
    let b = format!("--filename={}/./f", dir.path().display());
    let args = [
        "run",
        "--name=a",
        &a,
        "--size=1m",
        "--rw=read",
        "--runtime=50ms",
        "--name=b",
        &b,
        "--size=2m",
        "--rw=read",
        "--runtime=50ms",
    ];
    let out = iolab_db(&db, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("laying out").count(),
        1,
        "{}",
        out.stderr
    );
    assert_eq!(fs::metadata(dir.path().join("f")).unwrap().len(), 2 << 20);
}
