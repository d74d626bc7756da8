//! The fifth hostile round: the guard claims objects, not names. Each case damages an object
//! through another of its names: the results database through a bind mount of its directory
//! (its WAL not made yet), a name that appears once iolab has started, a loop device over the
//! database, a mounted filesystem through a second loop device over its image (whole and at
//! an offset), an md 1.0 member whose superblock lies at the end, a mistyped device in /dev.
//! Every one: exit 2, one line naming the object and its other name, checksums unchanged.

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{device_lock, loop_device, LoopDev};
use crate::{checksum, ext4_loop, iolab_db, refused, sums};

/// `iolab pts TARGET --quick --tests lat --allow-destroy --quiet EXTRA`, its database `db`.
fn pts(db: &Path, target: &Path, extra: &[&str]) -> crate::support::Out {
    let mut args = vec![
        "pts",
        target.to_str().unwrap(),
        "--quick",
        "--tests",
        "lat",
        "--allow-destroy",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    iolab_db(db, &args)
}

/// A 1 MiB write job on `target` with `--allow-destroy`, recorded in `db`.
fn write_run(db: &Path, target: &Path) -> crate::support::Out {
    let file = format!("--filename={}", target.display());
    let db_arg = format!("--db={}", db.display());
    iolab_db(
        db,
        &[
            "run",
            "--name=w",
            &file,
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            "--allow-destroy",
            &db_arg,
        ],
    )
}

/// A results database with one run in it, in `dir`.
fn database(dir: &Path) -> PathBuf {
    let db = dir.join("r.db");
    let out = iolab_db(
        &db,
        &[
            "run",
            "--name=seed",
            "--ioengine=null",
            "--size=1m",
            &format!("--db={}", db.display()),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    db
}

/// The database still reads: `history` lists its runs.
fn database_reads(db: &Path) {
    let out = iolab_db(db, &["history", "--db", db.to_str().unwrap()]);
    assert_eq!(out.code, 0, "the database no longer reads: {}", out.stderr);
}

/// Binds `from` at `to` (a fresh directory); `None` (reason printed) where mounts fail.
struct Bind(PathBuf);

impl Bind {
    fn new(from: &Path, to: &Path) -> Option<Bind> {
        fs::create_dir_all(to).ok()?;
        let ok = Command::new("mount")
            .arg("--bind")
            .arg(from)
            .arg(to)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("skipped: cannot bind-mount here");
            return None;
        }
        Some(Bind(to.to_path_buf()))
    }
}

impl Drop for Bind {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn the_database_and_its_wal_through_a_bind_mount_are_refused_as_targets() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("D");
    fs::create_dir(&d).unwrap();
    let db_real = database(&d);
    let Some(_bind) = Bind::new(&d, &tmp.path().join("B")) else {
        return;
    };
    let db = tmp.path().join("B/r.db");
    let before = checksum(&db_real);
    // The WAL does not exist between commands: its place is the database's directory.
    let wal = d.join("r.db-wal");
    assert!(!wal.exists());
    let size = ["--size", "16MiB", "--db", db.to_str().unwrap()];
    let out = pts(&db, &wal, &size);
    refused(&out, "r.db-wal");
    assert!(
        out.stderr.contains("B/r.db-wal"),
        "names the other name: {}",
        out.stderr
    );
    // The database itself, by its other name, for pts and run; a hard link of it too.
    for out in [pts(&db, &db_real, &size), write_run(&db, &db_real)] {
        refused(&out, "D/r.db");
        assert!(out.stderr.contains("B/r.db"), "both names: {}", out.stderr);
    }
    let hard = tmp.path().join("hard");
    fs::hard_link(&db_real, &hard).unwrap();
    let out = pts(&db, &hard, &size);
    refused(&out, "hard");
    assert!(out.stderr.contains("r.db"), "both names: {}", out.stderr);
    let review = iolab_db(
        &db,
        &[
            "review",
            wal.to_str().unwrap(),
            "--quick",
            "--size",
            "16MiB",
            "--allow-destroy",
            "--db",
            db.to_str().unwrap(),
        ],
    );
    refused(&review, "r.db-wal");
    assert!(!wal.exists(), "nothing made at the WAL's name");
    assert_eq!(checksum(&db_real), before);
    database_reads(&db);
}

#[test]
fn a_loop_device_over_the_database_is_refused_by_run_and_pts() {
    let _g = device_lock();
    let tmp = tempfile::tempdir().unwrap();
    let db = database(tmp.path());
    let out = Command::new("losetup")
        .args(["-f", "--show"])
        .arg(&db)
        .output()
        .unwrap();
    if !out.status.success() {
        return println!("skipped: losetup: {}", String::from_utf8_lossy(&out.stderr));
    }
    let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let before = checksum(&db);
    let run = iolab_db(
        &db,
        &[
            "run",
            "--name=w",
            &format!("--filename={}", dev.display()),
            "--rw=write",
            "--bs=4k",
            "--size=4k",
            "--allow-destroy",
            &format!("--db={}", db.display()),
        ],
    );
    let p = pts(&db, &dev, &["--db", db.to_str().unwrap()]);
    let _ = Command::new("losetup").arg("-d").arg(&dev).status();
    refused(&run, "r.db");
    assert!(run.stderr.contains(dev.to_str().unwrap()), "{}", run.stderr);
    refused(&p, "r.db");
    assert_eq!(checksum(&db), before);
    database_reads(&db);
}

/// A second loop device over `image`, from `offset`.
fn second_loop(image: &Path, offset: u64) -> Option<PathBuf> {
    let out = Command::new("losetup")
        .args(["-f", "--show", "-o", &offset.to_string()])
        .arg(image)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

#[test]
fn a_mounted_filesystem_through_a_second_loop_device_is_refused_whole_and_at_an_offset() {
    let _g = device_lock();
    let Some(first) = ext4_loop(32 << 20) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mnt = tmp.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    if !Command::new("mount")
        .arg(&first.path)
        .arg(&mnt)
        .status()
        .is_ok_and(|s| s.success())
    {
        return println!("skipped: cannot mount ext4 here");
    }
    let db = tmp.path().join("r.db");
    let seconds: Vec<PathBuf> = [0u64, 1 << 20]
        .iter()
        .filter_map(|&o| second_loop(&first.backing, o))
        .collect();
    let mut outs = Vec::new();
    for dev in &seconds {
        let before = checksum(dev);
        outs.push((write_run(&db, dev), pts(&db, dev, &[]), before, dev.clone()));
    }
    for (run, p, before, dev) in &outs {
        assert_eq!(checksum(dev), *before, "{} changed", dev.display());
        for out in [run, p] {
            refused(out, "mounted");
            assert!(
                out.stderr.contains(first.path.to_str().unwrap()),
                "names the mounted alias: {}",
                out.stderr
            );
        }
    }
    for dev in &seconds {
        let _ = Command::new("losetup").arg("-d").arg(dev).status();
    }
    let _ = Command::new("umount").arg(&mnt).status();
    assert_eq!(seconds.len(), 2, "both second loop devices were made");
}

/// Writes an md 1.0 superblock (its place 8 KiB before the end, 4 KiB aligned, as the kernel
/// and mdadm put it), checksummed as the kernel's `calc_sb_1_csum`, at the end of `f`.
fn md10_superblock(f: &fs::File, bytes: u64) {
    let sectors = bytes / 512;
    let at = (sectors - 16) & !7;
    let mut sb = vec![0u8; 264];
    let put32 = |sb: &mut Vec<u8>, o: usize, v: u32| sb[o..o + 4].copy_from_slice(&v.to_le_bytes());
    let put64 = |sb: &mut Vec<u8>, o: usize, v: u64| sb[o..o + 8].copy_from_slice(&v.to_le_bytes());
    put32(&mut sb, 0, 0xa92b_4efc); // magic
    put32(&mut sb, 4, 1); // major version
    for (i, b) in sb[16..32].iter_mut().enumerate() {
        *b = i as u8 + 1; // set uuid
    }
    sb[32..40].copy_from_slice(b"host:md0");
    put32(&mut sb, 72, 1); // raid1
    put64(&mut sb, 80, at); // size
    put32(&mut sb, 92, 2); // raid disks
    put64(&mut sb, 136, at); // data size
    put64(&mut sb, 144, at); // super offset
    for (i, b) in sb[168..184].iter_mut().enumerate() {
        *b = i as u8 + 17; // device uuid
    }
    put64(&mut sb, 200, 1); // events
    put64(&mut sb, 208, u64::MAX); // resync offset
    put32(&mut sb, 220, 4); // max_dev
    for i in 0..4u16 {
        let role: u16 = if i < 2 { i } else { 0xffff };
        sb[256 + 2 * i as usize..258 + 2 * i as usize].copy_from_slice(&role.to_le_bytes());
    }
    let sum: u64 = sb
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64)
        .sum();
    let csum = (sum & 0xffff_ffff) + (sum >> 32);
    put32(&mut sb, 216, csum as u32);
    f.write_all_at(&sb, at * 512).unwrap();
}

#[test]
fn an_md_1_0_member_with_its_superblock_at_the_end_is_refused() {
    let _g = device_lock();
    let bytes = 64u64 << 20;
    let Some(dev) = loop_device(bytes, false) else {
        return;
    };
    let f = fs::OpenOptions::new()
        .write(true)
        .open(&dev.backing)
        .unwrap();
    md10_superblock(&f, bytes);
    f.sync_all().unwrap();
    drop(f);
    // What util-linux's own blkid says of it: the case is real only if it says a member.
    match Command::new("blkid")
        .args(["-p", "-o", "export"])
        .arg(&dev.path)
        .output()
    {
        Ok(o) => {
            let said = String::from_utf8_lossy(&o.stdout);
            assert!(said.contains("TYPE=linux_raid_member"), "blkid -p: {said}");
            assert!(said.contains("VERSION=1.0"), "blkid -p: {said}");
        }
        Err(e) => return println!("skipped: blkid did not run: {e}"),
    }
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let before = checksum(&dev.path);
    let p = pts(&db, &dev.path, &[]);
    refused(&p, "linux_raid_member");
    // Without consent, run names it too.
    let run = iolab_db(
        &db,
        &[
            "run",
            "--name=w",
            &format!("--filename={}", dev.path.display()),
            "--rw=write",
            "--size=1m",
        ],
    );
    refused(&run, "linux_raid_member");
    assert_eq!(checksum(&dev.path), before);
}

#[test]
fn a_mistyped_device_is_never_created_in_dev() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let typo = Path::new("/dev/loop5x-iolab-typo");
    let _ = fs::remove_file(typo);
    let size = ["--size", "16m"];
    refused(&pts(&db, typo, &size), "/dev");
    let review = iolab_db(
        &db,
        &[
            "review",
            typo.to_str().unwrap(),
            "--quick",
            "--size",
            "16m",
            "--allow-destroy",
        ],
    );
    refused(&review, "/dev");
    let run = iolab_db(
        &db,
        &[
            "run",
            "--name=w",
            &format!("--filename={}", typo.display()),
            "--rw=write",
            "--size=1m",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!typo.exists(), "nothing was made in /dev");
    assert!(!db.exists(), "nothing was written at all");
}

/// What a name is made to lead to once iolab has claimed it.
enum Swap<'a> {
    /// A symlink to a loop device the user never named.
    Link(&'a LoopDev),
    /// A hard link to the user's file.
    Hard(&'a Path),
}

/// Starts `pts NEW --size 16m`, waits for its claim to make NEW, stops it, renames `swap`
/// over NEW, lets it go on; its output and whether it stopped before its check of the name.
fn race_new_name(db: &Path, new: &Path, swap: &Swap) -> crate::support::Out {
    let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(["pts", new.to_str().unwrap(), "--size", "16m"])
        .args(["--quick", "--tests", "lat", "--allow-destroy", "--quiet"])
        .arg("--db")
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let started = Instant::now();
    while fs::symlink_metadata(new).is_err() && started.elapsed() < Duration::from_secs(10) {
        std::hint::spin_loop();
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let appeared = started.elapsed();
    let tmp = new.with_extension("swap");
    match swap {
        Swap::Link(dev) => std::os::unix::fs::symlink(&dev.path, &tmp).unwrap(),
        Swap::Hard(file) => fs::hard_link(file, &tmp).unwrap(),
    }
    fs::rename(&tmp, new).unwrap();
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    println!(
        "the claim made the name {} ms after start",
        appeared.as_millis()
    );
    assert!(
        appeared < Duration::from_millis(500),
        "claimed within 0.5 s"
    );
    crate::support::Out::of(&child.wait_with_output().unwrap())
}

#[test]
fn a_name_swapped_after_the_claim_never_reaches_what_it_now_names() {
    let _g = device_lock();
    let Some(dev) = loop_device(32 << 20, false) else {
        return;
    };
    let (_user_dir, user) = crate::user_file(1 << 20);
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let before = sums(&[&dev.path, &user]);
    for swap in [Swap::Link(&dev), Swap::Hard(&user)] {
        let new = tmp.path().join("NEWPATH");
        let _ = fs::remove_file(&new);
        let out = race_new_name(&db, &new, &swap);
        assert_eq!(sums(&[&dev.path, &user]), before, "{}", out.stderr);
        match out.code {
            2 => {
                refused(&out, "the name now leads to");
                assert!(out.stderr.contains("NEWPATH"), "{}", out.stderr);
            }
            // Stopped after its check of the name: the run wrote only what it claimed.
            0 => println!("the swap came after iolab's check; it wrote only its own file"),
            c => panic!("exit {c}: {}", out.stderr),
        }
    }
}

#[test]
fn pts_options_and_plans_that_cannot_hold_are_refused_before_any_write() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let (_d, user) = crate::user_file(64 << 20);
    let before = checksum(&user);
    for bad in [
        &["--tests", "dirth", "--dirth-bs", "0"][..],
        &["--tests", "dirth", "--dirth-bs", "4GiB"],
        &["--tests", "dirth", "--dirth-bs", "1000"],
        &["--tests", "iops", "--threads", "64", "--depth", "4096"],
    ] {
        let mut args = vec!["pts", user.to_str().unwrap(), "--quick", "--allow-destroy"];
        args.extend_from_slice(bad);
        let out = iolab_db(&db, &args);
        assert_eq!(out.code, 2, "{bad:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        assert_eq!(checksum(&user), before, "{bad:?} wrote");
    }
    // A plan at one byte a second is long, not a panic.
    let out = iolab_db(
        &db,
        &[
            "pts",
            user.to_str().unwrap(),
            "--plan",
            "--rate",
            "1",
            "--capacity",
            "100TB",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("total:"), "{}", out.stdout);
}

#[test]
fn readonly_refuses_programs_before_and_after_the_io() {
    let (_d, user) = crate::user_file(1 << 20);
    let before = checksum(&user);
    for opt in ["--exec_prerun", "--exec_postrun"] {
        let out = iolab_db(
            &user.with_extension("db"),
            &[
                "run",
                "--readonly",
                "--name=r",
                &format!("--filename={}", user.display()),
                "--rw=read",
                "--size=1m",
                &format!("{opt}=truncate -s 0 {}", user.display()),
            ],
        );
        refused(&out, "--readonly");
        assert_eq!(checksum(&user), before);
    }
}

/// The kernel moves at most 2 GiB - 4 KiB in one call: the rest of a 2 GiB read is submitted
/// again, as fio does, and the job completes with every byte.
#[test]
fn a_short_transfer_is_completed_by_submitting_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("two-gib");
    fs::File::create(&f).unwrap().set_len(2 << 30).unwrap();
    let out = iolab_db(
        &tmp.path().join("r.db"),
        &[
            "run",
            "--name=big",
            &format!("--filename={}", f.display()),
            "--rw=read",
            "--bs=2g",
            "--size=2g",
            "--output-format=json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        v["jobs"][0]["read"]["io_bytes"],
        serde_json::json!(2u64 << 30)
    );
    assert_eq!(v["jobs"][0]["read"]["total_ios"], serde_json::json!(1));
}
