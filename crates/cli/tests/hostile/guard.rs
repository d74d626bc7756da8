//! Paths around the data guard: consent given for one destination taken for another, outputs
//! aimed at devices or at the job's own target, existing files rewritten without consent,
//! and targets on pseudo filesystems or invented in /dev.

use std::fs;
use std::path::Path;

use crate::support::{device_lock, loop_device};
use crate::{ext4_loop, iolab_db, refused, sums, user_file};

#[test]
fn the_floor_device_needs_its_own_consent() {
    let _g = device_lock();
    let Some(dev) = ext4_loop(32 << 20) else {
        return;
    };
    let Some(parted) = loop_device(32 << 20, true) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let before = sums(&[&dev.path, &parted.path]);
    let review = |floor: &Path| {
        iolab_db(
            &db,
            &[
                "review",
                "--quick",
                "--steps",
                "software-floor",
                "--floor-device",
                floor.to_str().unwrap(),
                "--allow-destroy",
            ],
        )
    };
    // A loop device is no RAM device: the floor it would give is its backing file's.
    for floor in [&dev.path, &parted.path] {
        refused(&review(floor), "not a RAM device");
    }
    assert_eq!(sums(&[&dev.path, &parted.path]), before, "no byte changed");
    // --allow-destroy is consent for the target (a scratch file), not the floor device.
    match crate::support::zram() {
        Ok(zram) => {
            let before = sums(&[&zram]);
            let out = review(&zram);
            assert_eq!(out.code, 0, "{}", out.stderr);
            assert!(
                out.stdout
                    .contains("filling it needs --allow-destroy-floor"),
                "{}",
                out.stdout
            );
            assert_eq!(sums(&[&zram]), before, "no byte of zram0 changed");
        }
        Err(why) => println!("skipped the RAM floor's consent: {why}"),
    }
    // A floor device that does not exist is bad input, not a note.
    let out = iolab_db(
        &db,
        &[
            "review",
            "--quick",
            "--steps",
            "software-floor",
            "--floor-device",
            "/dev/iolab-no-such-device",
        ],
    );
    refused(&out, "--floor-device /dev/iolab-no-such-device");
}

#[test]
fn outputs_never_land_on_devices_the_database_or_the_target() {
    let _g = device_lock();
    let Some(dev) = ext4_loop(32 << 20) else {
        return;
    };
    let (dir, target) = user_file(1 << 20);
    let db = dir.path().join("r.db");
    let d = dev.path.to_str().unwrap();
    let t = format!("--filename={}", target.display());
    let before = sums(&[&dev.path, &target]);
    let job = ["run", "--name=j", &t, "--rw=randread", "--runtime=200ms"];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![format!("--output={d}")], "it is a block device"),
        (
            vec![format!("--output={}", target.display())],
            "which this run reads or writes",
        ),
        (
            vec![format!("--output={}", db.display())],
            "which this run reads or writes",
        ),
        (vec![format!("--db={d}")], "--db: it is a block device"),
        (
            vec![format!("--write_lat_log={d}")],
            "does not create files in /dev",
        ),
        (vec![format!("--write_bw_log=/proc/iolab")], "procfs"),
    ];
    for (extra, needle) in &cases {
        let mut args: Vec<&str> = job.to_vec();
        args.extend(extra.iter().map(String::as_str));
        refused(&iolab_db(&db, &args), needle);
    }
    // A run to report on, then the report and the review's report aimed at the device.
    let ok = iolab_db(&db, &job);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    refused(
        &iolab_db(&db, &["report", "1", "-o", d]),
        "-o: it is a block device",
    );
    refused(
        &iolab_db(
            &db,
            &["review", "--quick", "--steps", "info", "--report", d],
        ),
        "--report: it is a block device",
    );
    assert_eq!(sums(&[&dev.path, &target]), before, "no byte changed");
    assert!(!Path::new(&format!("{d}_lat.1.log")).exists());
}

/// Every way iolab can write an existing file leaves it alone without --allow-destroy, and
/// with it (the test's own consent) writes it: the checks can fail.
#[test]
fn existing_files_are_data_and_need_consent() {
    let (dir, f) = user_file(4 << 20);
    let (_d2, g) = user_file(1 << 20);
    let db = dir.path().join("r.db");
    let fname = format!("--filename={}", f.display());
    let both = format!("--filename={}:{}", g.display(), f.display());
    let target = f.to_str().unwrap();
    let size = "--size=2m";
    let runs: Vec<Vec<&str>> = vec![
        vec!["run", "--name=w", &fname, "--rw=write", size],
        vec![
            "run",
            "--name=w",
            &fname,
            "--rw=randwrite",
            "--ioengine=libaio",
            size,
        ],
        vec![
            "run",
            "--name=w",
            &fname,
            "--rw=randrw",
            "--ioengine=io_uring",
            size,
        ],
        vec![
            "run",
            "--name=w",
            &fname,
            "--rw=write",
            "--ioengine=pvsync2",
            size,
        ],
        vec!["run", "--name=w", &both, "--rw=randwrite", size],
        // A read job larger than the file would extend it.
        vec!["run", "--name=r", &fname, "--rw=read", "--size=8m"],
        vec!["review", target, "--quick", "--steps", "precondition"],
        vec![
            "review",
            target,
            "--quick",
            "--steps",
            "qd1-engines,profiles",
        ],
    ];
    let before = sums(&[&f, &g]);
    for args in &runs {
        let mut a = args.clone();
        a.push("--runtime=300ms");
        if a[0] == "review" {
            a.pop();
            a.extend(["--runtime", "300ms"]);
        }
        refused(&iolab_db(&db, &a), "--allow-destroy");
        assert_eq!(sums(&[&f, &g]), before, "{args:?} changed a file");
    }
    // The main job measures the reads and leaves the write row n/a.
    let out = iolab_db(
        &db,
        &[
            "--target",
            target,
            "--engines=psync",
            "--runtime=200ms",
            "--ramp_time=0",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("existing file"), "{}", out.stdout);
    assert_eq!(sums(&[&f, &g]), before, "the main job changed the file");
    // With consent, the same write does change it.
    let out = iolab_db(
        &db,
        &[
            "run",
            "--name=w",
            &fname,
            "--rw=write",
            size,
            "--allow-destroy",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_ne!(sums(&[&f]), before[..1], "consent must allow the write");
}

/// A file iolab laid out holds only iolab's data: rewriting it later needs no consent (where
/// the filesystem keeps iolab's mark).
#[test]
fn files_iolab_created_can_be_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("made-by-iolab");
    let fname = format!("--filename={}", f.display());
    let args = ["run", "--name=w", &fname, "--rw=randwrite", "--size=1m"];
    assert_eq!(iolab_db(&db, &args).code, 0);
    let again = iolab_db(&db, &args);
    if again.code == 2 && again.stderr.contains("did not create") {
        println!("skipped: no user xattrs here, so iolab's mark is not kept");
        return;
    }
    assert_eq!(again.code, 0, "{}", again.stderr);
    // Once the user has filled it, it is theirs: the mark no longer covers it.
    let data: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
    fs::write(&f, &data).unwrap();
    let before = sums(&[&f]);
    refused(&iolab_db(&db, &args), "changed since iolab last wrote it");
    assert_eq!(sums(&[&f]), before, "the user's data stays");
}

#[test]
fn pseudo_filesystems_and_invented_devices_are_never_targets() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let drop_caches = fs::read("/proc/sys/vm/drop_caches").ok();
    let cases: [(&str, &str); 5] = [
        ("/proc/sys/vm/drop_caches", "procfs"),
        ("/proc/self/status", "procfs"),
        ("/sys/kernel/mm/transparent_hugepage/enabled", "sysfs"),
        (
            "/dev/null",
            "not a regular file, block device or NVMe generic",
        ),
        ("/dev/iolab-loop6p2", "does not create files in /dev"),
    ];
    for (path, needle) in cases {
        let fname = format!("--filename={path}");
        let out = iolab_db(&db, &["run", "--name=r", &fname, "--rw=read", "--size=8"]);
        refused(&out, needle);
    }
    assert!(!Path::new("/dev/iolab-loop6p2").exists());
    assert_eq!(fs::read("/proc/sys/vm/drop_caches").ok(), drop_caches);
    // A job name that would make its default file outside the directory.
    let dirarg = format!("--directory={}", dir.path().display());
    let out = iolab_db(
        &db,
        &[
            "run",
            "--name=../../escape",
            &dirarg,
            "--rw=read",
            "--size=1m",
        ],
    );
    refused(&out, "does not make from a name with '/'");
    assert!(!dir.path().join("../../escape.0.0").exists());
    assert!(!db.exists(), "no database for runs that never started");
}

/// A mounted device is refused even with consent, as target and as floor device.
#[test]
fn mounted_devices_are_refused_even_with_consent() {
    let _g = device_lock();
    let Some(dev) = ext4_loop(32 << 20) else {
        return;
    };
    let mnt = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .arg(&dev.path)
        .arg(mnt.path())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("skipped: cannot mount an ext4 loop device here");
        return;
    }
    let dbdir = tempfile::tempdir().unwrap();
    let db = dbdir.path().join("r.db");
    let d = dev.path.to_str().unwrap();
    let fname = format!("--filename={d}");
    let write = iolab_db(
        &db,
        &[
            "run",
            "--name=w",
            &fname,
            "--rw=randwrite",
            "--allow-destroy",
            "--runtime=100ms",
        ],
    );
    let floor = iolab_db(
        &db,
        &[
            "review",
            "--quick",
            "--steps",
            "software-floor",
            "--floor-device",
            d,
            "--allow-destroy-floor",
        ],
    );
    let _ = std::process::Command::new("umount")
        .arg(mnt.path())
        .status();
    let _ = fs::remove_file(&db);
    refused(&write, "is mounted");
    refused(&floor, "is mounted");
}

/// The review touches only what it was given: on a scratch file, the software-floor step
/// makes its own RAM device and removes it, never opening `/dev/zram0` (someone else's
/// benchmark, or their swap). Checked with strace, which sees every open.
#[test]
fn the_software_floor_opens_no_device_nobody_named() {
    let _g = device_lock();
    if std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("skipped: no strace (apt-get install strace)");
        return;
    }
    let zrams = || -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir("/sys/block")
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.retain(|n| n.starts_with("zram"));
        v.sort();
        v
    };
    let before = zrams();
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let trace = tmp.path().join("trace");
    let out = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "review",
            "--quick",
            "--steps",
            "software-floor",
            "--runtime",
            "300ms",
        ])
        .args(["--ramp-time", "0", "--output-format=json"])
        .env("IOLAB_DB", &db)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let opened = fs::read_to_string(&trace).unwrap();
    assert!(!opened.contains("\"/dev/zram0\""), "opened /dev/zram0");
    assert_eq!(
        zrams(),
        before,
        "its own RAM device removed, no other touched"
    );
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let floor = run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "software-floor")
        .unwrap();
    let ram = floor["data"]["ram_device"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if Path::new("/sys/class/zram-control/hot_add").exists() && nix_root() {
        assert!(ram.contains("iolab added"), "{floor:#}");
        assert!(opened.contains(&format!("\"{}\"", ram.split(',').next().unwrap())));
        for e in floor["data"]["engines"].as_array().unwrap() {
            for part in ["kernel_ns", "device_ns"] {
                assert!(e[part].is_null() || e[part].as_f64().unwrap() >= 0.0, "{e}");
            }
        }
    } else {
        eprintln!("no zram-control here (or not root): the step said why: {floor}");
        assert!(
            floor["data"]["notes"].to_string().contains("no RAM device"),
            "{floor}"
        );
    }
}

fn nix_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}

/// e4defrag's donor is written: it may not be the job's own file, by name or through a
/// link, nor the results database.
#[test]
fn an_e4defrag_donor_is_never_the_jobs_own_file_or_the_database() {
    let (dir, file) = user_file(1 << 20);
    let db = dir.path().join("r.db");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let before = sums(&[&file]);
    let f = format!("--filename={}", file.display());
    let with_donor = |donor: &Path| {
        let d = format!("--donorname={}", donor.display());
        let args = [
            "run",
            "--name=d",
            &f,
            &d,
            "--ioengine=e4defrag",
            "--rw=write",
        ];
        let mut args = args.to_vec();
        args.extend(["--size=1m", "--allow-destroy"]);
        iolab_db(&db, &args)
    };
    for donor in [&file, &link] {
        refused(&with_donor(donor), "it is the job's own file");
    }
    refused(&with_donor(&db), "--db");
    assert_eq!(sums(&[&file]), before, "no byte changed");
}
