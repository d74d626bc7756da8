//! fio's `cgroup` options: the job's I/O is charged to the cgroup it names. Watched through
//! the kernel's own accounting: a blkio throttle of 200 reads a second set on a cgroup the
//! test made holds iolab's job to 200 IOPS, as it holds fio's; a cgroup iolab made is gone
//! after the run (kept with cgroup_nodelete), and one that was there stays.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::Command;

use crate::jobfiles::fio_available;
use crate::support::iolab;

/// The blkio (v1) hierarchy fio and iolab would pick, or why there is none to test with.
fn blkio_root() -> Result<PathBuf, String> {
    let mounts = fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    for l in mounts.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.get(2..4) {
            Some(["cgroup", opts]) if opts.split(',').any(|o| o == "blkio") => {
                return Ok(PathBuf::from(f[1]))
            }
            Some(["cgroup2", _]) => {
                return Err("the first cgroup hierarchy is cgroup2 (no blkio throttle)".into())
            }
            _ => {}
        }
    }
    Err("no blkio cgroup hierarchy is mounted".into())
}

fn iops(stdout: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
    v["jobs"][0]["read"]["iops"].as_f64().unwrap()
}

#[test]
fn a_jobs_reads_are_throttled_by_the_cgroup_it_names_as_fios_are() {
    let root = match blkio_root() {
        Ok(r) => r,
        Err(why) => return println!("skipped: {why}"),
    };
    let _g = crate::support::device_lock();
    let dev = match crate::support::zram() {
        Ok(d) => d,
        Err(why) => return println!("skipped: {why}"),
    };
    let rdev = fs::metadata(&dev).unwrap().rdev();
    let name = format!("iolab-test-{}", std::process::id());
    let cg = root.join(&name);
    fs::create_dir(&cg).unwrap();
    let limit = format!("{}:{} 200", libc::major(rdev), libc::minor(rdev));
    fs::write(cg.join("blkio.throttle.read_iops_device"), limit).unwrap();
    let job = [
        "--name=t".to_string(),
        format!("--filename={}", dev.display()),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--direct=1".into(),
        "--runtime=2".into(),
        "--time_based".into(),
        "--output-format=json".into(),
        format!("--cgroup={name}"),
    ];
    let mut args = vec!["run".to_string()];
    args.extend(job.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let window = crate::support::Window::open();
    let out = iolab(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ours = iops(&out.stdout);
    // The throttle is a ceiling at any load; reaching it needs the CPU the job waits on.
    assert!(ours < 240.0, "iolab in a 200-IOPS cgroup: {ours}");
    assert!(
        crate::support::holds_or_busy_in(
            ours >= 160.0,
            Some(&window),
            "the throttled rate",
            &format!("iolab in a 200-IOPS cgroup: {ours}")
        ),
        "iolab in a 200-IOPS cgroup: {ours}"
    );
    assert!(cg.is_dir(), "a cgroup the user made stays");
    if fio_available() {
        let window = crate::support::Window::open();
        let o = Command::new("fio")
            .args(&job)
            .arg("--thread")
            .output()
            .unwrap();
        let theirs = iops(&String::from_utf8_lossy(&o.stdout));
        assert!(theirs < 240.0, "fio in a 200-IOPS cgroup: {theirs}");
        assert!(
            crate::support::holds_or_busy_in(
                (ours / theirs - 1.0).abs() < 0.15,
                Some(&window),
                "iolab against fio in the cgroup",
                &format!("iolab {ours} against fio {theirs}")
            ),
            "iolab {ours} against fio {theirs}"
        );
    }
    let tasks = fs::read_to_string(cg.join("tasks")).unwrap();
    assert!(tasks.trim().is_empty(), "every thread left it: {tasks}");
    fs::remove_dir(&cg).unwrap();

    // One iolab makes is removed when the run ends, unless cgroup_nodelete.
    let quick = |extra: &[&str]| {
        let mut a = vec!["run", "--name=t", "--ioengine=null", "--size=1m"];
        a.extend_from_slice(extra);
        let out = iolab(&a);
        assert_eq!(out.code, 0, "{}", out.stderr);
    };
    let made = format!("--cgroup={name}");
    quick(&[&made]);
    assert!(!cg.exists(), "the cgroup iolab made is removed");
    quick(&[&made, "--cgroup_nodelete=1"]);
    assert!(cg.is_dir(), "cgroup_nodelete keeps it");
    fs::remove_dir(&cg).unwrap();
}

/// A weight where the hierarchy has none to set is one line and exit 2, and the cgroup
/// made for it is gone.
#[test]
fn a_weight_the_hierarchy_cannot_take_is_refused_in_one_line() {
    let root = match blkio_root() {
        Ok(r) => r,
        Err(why) => return println!("skipped: {why}"),
    };
    if root.join("blkio.weight").exists() {
        return println!("skipped: this hierarchy has blkio.weight");
    }
    let name = format!("iolab-test-w-{}", std::process::id());
    let cg = format!("--cgroup={name}");
    let out = iolab(&[
        "run",
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        &cg,
        "--cgroup_weight=500",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let err: Vec<&str> = out.stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(err.len(), 1, "{}", out.stderr);
    assert!(err[0].contains("blkio.weight"), "{}", out.stderr);
    assert!(!root.join(&name).exists());
    let out = iolab(&[
        "run",
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--cgroup_weight=50",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("between 100 and 1000"),
        "{}",
        out.stderr
    );
}
