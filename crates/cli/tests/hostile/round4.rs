//! The fourth hostile round. `iolab pts` goes through the guard `run` goes through: a device
//! another process holds exclusively, its own results database and the database's WAL, a
//! partitioned or signed device, and a report it could not write are refused up front (exit
//! 2, every byte unchanged); a pts that ran no test fails. And the multipliers and stored
//! text that round found unbounded: `thinkcycles` against SIGTERM, `merge_blktrace_iters`
//! under an address-space limit, a description with line breaks in `show --job-file`,
//! `--readonly` with an exec job, a CSV cell that would start a spreadsheet formula, and
//! `show` and `history` writing to a full device.

use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{device_lock, loop_device};
use crate::{ext4_loop, iolab_db, refused, sums};

/// `iolab pts DEV --quick --tests lat --allow-destroy`, its database in `db`.
fn pts(db: &std::path::Path, target: &std::path::Path, extra: &[&str]) -> crate::support::Out {
    let t = target.to_str().unwrap();
    let mut args = vec![
        "pts",
        t,
        "--quick",
        "--tests",
        "lat",
        "--allow-destroy",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    iolab_db(db, &args)
}

#[test]
fn pts_refuses_a_device_another_process_holds_exclusively() {
    let _g = device_lock();
    let Some(dev) = loop_device(32 << 20, false) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let before = sums(&[&dev.path]);
    // As ZFS, LVM, btrfs and bcache claim theirs.
    let held = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&dev.path)
        .unwrap();
    let out = pts(&db, &dev.path, &[]);
    drop(held);
    refused(&out, "another process holds it exclusively");
    assert_eq!(sums(&[&dev.path]), before, "no byte changed: no purge ran");
}

#[test]
fn pts_refuses_its_own_database_and_its_companions() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let f = format!("--filename={}", tmp.path().join("f").display());
    let run = [
        "run",
        "--name=j",
        &f,
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
    ];
    assert_eq!(iolab_db(&db, &run).code, 0);
    // The WAL as SQLite names it, whether it is there now or not.
    let wal = tmp.path().join("r.db-wal");
    let before = sums(&[&db]);
    refused(
        &pts(&db, &db, &["--size", "16m"]),
        "which this run reads or writes",
    );
    refused(
        &pts(&db, &wal, &["--size", "16m"]),
        "a file of the results database",
    );
    let other = tmp.path().join("x.db");
    let o = other.to_str().unwrap();
    refused(&pts(&db, &other, &["--size", "16m", "--db", o]), "--db");
    assert!(!other.exists(), "nothing made");
    assert_eq!(sums(&[&db]), before, "the database is untouched");
    assert_eq!(iolab_db(&db, &["history"]).code, 0, "and still reads");
}

#[test]
fn pts_refuses_partitioned_and_signed_devices_with_what_they_carry() {
    let _g = device_lock();
    let Some(ext4) = ext4_loop(32 << 20) else {
        return;
    };
    let Some(parted) = loop_device(32 << 20, true) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let before = sums(&[&ext4.path, &parted.path]);
    refused(&pts(&db, &ext4.path, &[]), "signature libblkid calls ext4");
    // Its partitions, or its partition table where the kernel shows no partition.
    refused(&pts(&db, &parted.path, &[]), "partition");
    // Through a symlink, it is the same device.
    let link = tmp.path().join("disk");
    std::os::unix::fs::symlink(&ext4.path, &link).unwrap();
    refused(&pts(&db, &link, &[]), "signature libblkid calls ext4");
    assert_eq!(sums(&[&ext4.path, &parted.path]), before, "no byte changed");
}

/// A pts whose every test could not run has measured nothing: it fails, and says why.
#[test]
fn a_pts_that_ran_no_test_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(&small)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        return println!("skipped: cannot mount a 4 MiB tmpfs here");
    }
    let db = tmp.path().join("r.db");
    let out = pts(&db, &small.join("f"), &["--size", "16m"]);
    let _ = Command::new("umount").arg(&small).status();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("iolab: error:"), "{}", out.stderr);
}

/// thinkcycles=4294967295 is minutes of spinning after each I/O: SIGTERM still ends it at
/// once, with what was measured.
#[test]
fn a_huge_thinkcycles_ends_within_seconds_of_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", tmp.path().join("f").display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", tmp.path().join("r.db"))
        .args(["run", "--name=j", &f, "--size=1m", "--rw=read"])
        .args(["--thinkcycles=4294967295", "--time_based", "--runtime=120"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("still running 10 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(143), "{status:?}");
}

/// A blktrace record (48 bytes, no payload): a queued 4 KiB read at `time` ns.
fn record(seq: u32, time: u64, sector: u64) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0x6561_7407u32.to_le_bytes());
    out.extend(seq.to_le_bytes());
    out.extend(time.to_le_bytes());
    out.extend(sector.to_le_bytes());
    out.extend(4096u32.to_le_bytes());
    out.extend((1u32 | 1 << 16).to_le_bytes()); // queued, read
    out.extend(1234u32.to_le_bytes());
    out.extend((254u32 << 20).to_le_bytes());
    out.extend([0u8; 8]);
    out
}

/// merge_blktrace_iters=4294967295 over two 2-record traces is 8 billion records (400 GB):
/// refused before anything is built, under a 4 GB address-space limit that would otherwise
/// end it in an allocation failure (or, without the limit, the OOM killer).
#[test]
fn a_merge_past_its_bound_is_refused_up_front_under_an_address_space_limit() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, base) in [("a.bin", 0u64), ("b.bin", 5_000)] {
        let t = [record(0, base, 0), record(1, base + 10_000, 8)].concat();
        std::fs::write(tmp.path().join(name), t).unwrap();
    }
    let data = tmp.path().join("data");
    std::fs::File::create(&data)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let script = format!(
        "ulimit -v 4000000 && exec {} run --name=m --read_iolog=a.bin:b.bin \
         --merge_blktrace_file=merged.bin --merge_blktrace_iters=4294967295:1 \
         --replay_redirect={} --replay_no_stall=1",
        env!("CARGO_BIN_EXE_iolab"),
        data.display()
    );
    let t = Instant::now();
    let o = Command::new("sh")
        .args(["-c", &script])
        .current_dir(tmp.path())
        .env("IOLAB_DB", tmp.path().join("r.db"))
        .output()
        .unwrap();
    let out = crate::support::Out::of(&o);
    refused(&out, "lower merge_blktrace_iters");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(!tmp.path().join("merged.bin").exists());
}

/// A stored description is data: its line breaks make no section of the rerun file.
#[test]
fn a_description_with_line_breaks_makes_no_job_in_the_rerun_file() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let f = format!("--filename={}", tmp.path().join("f").display());
    let evil = format!(
        "--description=ok\n[evil]\nfilename={}\nrw=write",
        tmp.path().join("victim").display()
    );
    let run = ["run", "--name=j", &f, "--rw=read", "--size=64k", &evil];
    assert_eq!(iolab_db(&db, &run).code, 0);
    let out = iolab_db(&db, &["show", "1", "--job-file"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sections: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .collect();
    assert_eq!(sections, ["[j]"], "{}", out.stdout);
    assert!(
        !out.stdout.lines().any(|l| l.starts_with("rw=write")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("description=ok\\n[evil]"),
        "{}",
        out.stdout
    );
}

#[test]
fn readonly_refuses_an_exec_job() {
    let tmp = tempfile::tempdir().unwrap();
    let touched = tmp.path().join("touched");
    let args = format!("--arguments={}", touched.display());
    let out = iolab_db(
        &tmp.path().join("r.db"),
        &[
            "run",
            "--readonly",
            "--name=x",
            "--ioengine=exec",
            "--program=/bin/touch",
            &args,
        ],
    );
    refused(&out, "--readonly");
    assert!(!touched.exists(), "the program never ran");
}

/// A job named like a formula is text in the spreadsheet, never a formula.
#[test]
fn a_csv_cell_never_starts_a_formula() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let f = format!("--filename={}", tmp.path().join("f").display());
    let name = "--name==HYPERLINK(\"http://x\";\"y\")";
    let run = ["run", name, &f, "--ioengine=null", "--rw=read", "--size=1m"];
    assert_eq!(iolab_db(&db, &run).code, 0);
    for args in [
        &["export", "1", "--format", "csv"][..],
        &["history", "--output-format=csv"],
    ] {
        let out = iolab_db(&db, args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        for cell in out.stdout.lines().flat_map(|l| l.split(',')) {
            let cell = cell.trim_start_matches('"');
            assert!(!cell.starts_with(['=', '+', '@']), "{args:?}: {cell}");
        }
        assert!(out.stdout.contains("'=HYPERLINK"), "{}", out.stdout);
    }
}

/// A report pts could not write is refused before the first byte of the test: `/dev/full`,
/// and a file on a read-only filesystem.
#[test]
fn a_pts_report_that_cannot_be_written_is_refused_up_front() {
    let _g = device_lock();
    let Some(dev) = loop_device(32 << 20, false) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let before = sums(&[&dev.path]);
    refused(&pts(&db, &dev.path, &["--report", "/dev/full"]), "--report");
    let (rw, ro) = (tmp.path().join("rw"), tmp.path().join("ro"));
    std::fs::create_dir_all(&rw).unwrap();
    std::fs::create_dir_all(&ro).unwrap();
    let mount = |args: &[&str]| {
        Command::new("mount")
            .args(args)
            .status()
            .is_ok_and(|s| s.success())
    };
    let (r, o) = (rw.to_str().unwrap(), ro.to_str().unwrap());
    if mount(&["--bind", r, o]) && mount(&["-o", "remount,ro,bind", o]) {
        let page = ro.join("pts.html");
        let out = pts(&db, &dev.path, &["--report", page.to_str().unwrap()]);
        let _ = Command::new("umount").arg(&ro).status();
        refused(&out, "Read-only file system");
    } else {
        let _ = Command::new("umount").arg(&ro).status();
        println!("skipped the read-only report: cannot bind-mount read-only here");
    }
    assert_eq!(sums(&[&dev.path]), before, "nothing purged or written");
}

/// `show` and `history` whose output cannot be written fail (exit 1) and say why.
#[test]
fn results_written_to_a_full_device_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let f = format!("--filename={}", tmp.path().join("f").display());
    let run = [
        "run",
        "--name=j",
        &f,
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
    ];
    assert_eq!(iolab_db(&db, &run).code, 0);
    for args in [&["show", "1"][..], &["history"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .env("IOLAB_DB", &db)
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("writing to standard output"), "{err}");
    }
}
