//! fio's e4defrag engine on a real ext4 (a loop-mounted image): each write moves its range's
//! blocks into a donor's, the file keeping its data and getting new blocks, with fio's I/O
//! counts; inplace empties the donor after each move; a donor that is the user's needs
//! consent, and nothing is changed without it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::job_language::{run_job, totals};
use crate::jobfiles::fio_available;
use crate::support::{device_lock, iolab};

/// An ext4 file system on a loop-mounted image in a temporary directory, unmounted on drop.
struct Ext4 {
    mnt: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mnt).status();
    }
}

fn ext4() -> Option<Ext4> {
    let dir = tempfile::tempdir().unwrap();
    let (img, mnt) = (dir.path().join("img"), dir.path().join("mnt"));
    fs::File::create(&img).unwrap().set_len(256 << 20).unwrap();
    fs::create_dir(&mnt).unwrap();
    let run = |cmd: &mut Command| match cmd.output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Err(e.to_string()),
    };
    let made = run(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&img)).and_then(|_| {
        run(Command::new("mount")
            .args(["-o", "loop"])
            .arg(&img)
            .arg(&mnt))
    });
    match made {
        Ok(()) => Some(Ext4 { mnt, _dir: dir }),
        Err(e) => {
            eprintln!("skipped: no ext4 to defragment on (mkfs.ext4 and a loop mount): {e}");
            None
        }
    }
}

/// The first physical block of `path` (FIEMAP, as `filefrag -v` shows it).
fn first_block(path: &Path) -> String {
    let o = Command::new("filefrag")
        .arg("-v")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("0:"))
        .unwrap_or_else(|| panic!("{text}"));
    line.split(':').nth(2).unwrap().trim().to_string()
}

#[test]
fn e4defrag_moves_the_blocks_keeps_the_data_and_counts_as_fio() {
    let _dev = device_lock();
    let Some(fs4) = ext4() else { return };
    let dir = fs4.mnt.as_path();
    let file = dir.join("data");
    // iolab's own file, with data in it.
    let out = iolab(&[
        "run",
        "--name=fill",
        &format!("--filename={}", file.display()),
        "--rw=write",
        "--bs=64k",
        "--size=4m",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (before, at) = (fs::read(&file).unwrap(), first_block(&file));
    let job = "[d]\nioengine=e4defrag\ndirectory=DIR\nfilename=data\ndonorname=data.def\n\
               rw=write\nbs=32k\nsize=4m\nfilesize=4m\nbuffered=0\n";
    // (fio reserves the donor over `filesize` and fails its init without one; iolab
    // reserves it over the job's file either way.)
    let v = run_job("iolab", dir, job);
    assert_eq!(totals(&v)[1], (128, 4 << 20), "iolab");
    assert_eq!(fs::read(&file).unwrap(), before, "the data stays");
    assert_ne!(first_block(&file), at, "on new blocks");
    assert_eq!(fs::metadata(dir.join("data.def")).unwrap().len(), 4 << 20);
    if fio_available() {
        let v = run_job("fio", dir, &job.replace("data", "fiodata"));
        assert_eq!(totals(&v)[1], (128, 4 << 20), "fio");
    }
    // inplace: the donor's space is taken for each move and given back after it.
    let job = "[d]\nioengine=e4defrag\ndirectory=DIR\nfilename=TOOL.in\ndonorname=TOOL.def\n\
               inplace=1\nrw=randwrite\nbs=4k\nsize=1m\n";
    let tools: &[&str] = if fio_available() {
        &["fio", "iolab"]
    } else {
        &["iolab"]
    };
    for tool in tools {
        let v = run_job(tool, dir, job);
        assert_eq!(totals(&v)[1], (256, 1 << 20), "{tool} inplace");
        let donor = dir.join(format!("{tool}.def"));
        assert_eq!(fs::metadata(&donor).unwrap().len(), 0, "{tool}'s donor");
    }
}

#[test]
fn a_users_donor_needs_consent_and_reads_are_refused() {
    let _dev = device_lock();
    let Some(fs4) = ext4() else { return };
    let dir = fs4.mnt.as_path();
    let donor = dir.join("mine");
    fs::write(&donor, b"the user's own data").unwrap();
    // Written back: ext4 will not move blocks into a donor still waiting for its own (EBUSY,
    // in fio as in iolab).
    fs::File::open(&donor).unwrap().sync_all().unwrap();
    let job = dir.join("j.fio");
    let text = |extra: &str| {
        format!(
            "[d]\nioengine=e4defrag\ndirectory={}\nfilename=f\ndonorname=mine\nsize=1m\n{extra}",
            dir.display()
        )
    };
    fs::write(&job, text("rw=write\n")).unwrap();
    let out = iolab(&["run", job.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--allow-destroy"), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert_eq!(fs::read(&donor).unwrap(), b"the user's own data");
    assert!(!dir.join("f").exists(), "nothing laid out");
    let out = iolab(&["run", "--allow-destroy", job.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // A donor that leads to a device is never opened.
    std::os::unix::fs::symlink("/dev/null", dir.join("dev")).unwrap();
    fs::write(&job, text("rw=write\n").replace("=mine", "=dev")).unwrap();
    let out = iolab(&["run", "--allow-destroy", job.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
    fs::write(&job, text("rw=read\n")).unwrap();
    let out = iolab(&["run", job.to_str().unwrap()]);
    assert_eq!(out.code, 2, "a read: {}", out.stderr);
    let out = iolab(&[
        "run",
        "--name=d",
        "--ioengine=e4defrag",
        "--size=1m",
        "--rw=write",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("donorname"), "{}", out.stderr);
}
