//! `zonemode=zbd` on a regular file, whose zones both tools emulate (fio's
//! `init_zone_info()`): iolab and fio on the same job file over the same fresh file move the
//! same bytes and I/Os per job and reset as many zones. The zoned device itself is the NVMe
//! lab's (`zbd_lab.rs`).

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::iolab;

/// A write job whose zones have less capacity than size (it skips to each zone's end), reads
/// of what it wrote (sequential over empty zones, random), random writes over 4 zones with
/// 2 open at a time (12 MiB into 3 MiB: resets), a random mix, and two io_uring copies with
/// writes in flight together.
const JOB: &str = "[global]
filename=DATA
zonemode=zbd
zonesize=1M
zonecapacity=768k
max_open_zones=2
bs=64k
direct=1
ioengine=psync

[w]
rw=write
size=6M
offset=1M

[r]
stonewall
rw=read
bs=128k
size=16M

[rr]
stonewall
rw=randread
io_size=4M
size=16M

[w2]
stonewall
rw=randwrite
size=4M
io_size=12M

[mix]
stonewall
rw=randrw
size=8M

[uring]
stonewall
ioengine=io_uring
iodepth=8
rw=randwrite
numjobs=2
size=16M
io_size=8M
";

/// Each job's (read bytes, read I/Os, write bytes, write I/Os), and the zone resets on the
/// write lines of the normal output, in job order.
fn run(tool: &str, dir: &Path) -> (Vec<[u64; 4]>, Vec<u64>) {
    let data = dir.join("data");
    // fio sizes the emulated zones from the file as it is before the job: made first.
    let _ = fs::remove_file(&data);
    fs::File::create(&data).unwrap().set_len(16 << 20).unwrap();
    let job = dir.join("zbd.fio");
    fs::write(&job, JOB.replace("DATA", data.to_str().unwrap())).unwrap();
    let job = job.to_str().unwrap();
    let (code, out, err) = match tool {
        "fio" => {
            let o = Command::new("fio")
                .args(["--output-format=json,normal", job])
                .output()
                .expect("fio runs");
            let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (o.status.code().unwrap_or(-1), s(&o.stdout), s(&o.stderr))
        }
        _ => {
            let o = iolab(&["run", "--allow-destroy", "--output-format=json,normal", job]);
            (o.code, o.stdout, o.stderr)
        }
    };
    assert_eq!(code, 0, "{tool}: {err}");
    let at = out.find("\n{").map_or(0, |i| i + 1);
    let at = if out.starts_with('{') { 0 } else { at };
    let v: Value = serde_json::Deserializer::from_str(&out[at..])
        .into_iter()
        .next()
        .expect("JSON")
        .expect("JSON");
    let jobs = v["jobs"].as_array().unwrap().iter().map(|j| {
        let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
        [
            n("read", "io_bytes"),
            n("read", "total_ios"),
            n("write", "io_bytes"),
            n("write", "total_ios"),
        ]
    });
    let resets = out
        .lines()
        .filter(|l| l.trim_start().starts_with("write:"))
        .filter_map(|l| {
            l.rsplit("; ")
                .next()?
                .strip_suffix(" zone resets")?
                .parse()
                .ok()
        })
        .collect();
    (jobs.collect(), resets)
}

#[test]
fn emulated_zones_move_fios_bytes_and_resets() {
    if !fio_available() {
        eprintln!("skipped: fio is not installed");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (fio, fio_resets) = run("fio", dir.path());
    let (ours, our_resets) = run("iolab", dir.path());
    // w: six zones of 768 KiB written; r: all of it read, zone 0 (empty) skipped.
    assert_eq!(fio[0], [0, 0, 6 * (768 << 10), 72], "fio");
    assert_eq!(fio[1], [6 * (768 << 10), 36, 0, 0], "fio");
    assert_eq!(ours[..4], fio[..4], "w, r, rr, w2");
    // The mix draws its directions from each tool's own generator: the same I/Os in all.
    let all = |j: [u64; 4]| (j[0] + j[2], j[1] + j[3]);
    assert_eq!(all(ours[4]), all(fio[4]), "mix");
    // Two copies with 8 writes in flight each, over 2 open zones.
    assert_eq!(ours[5..], fio[5..], "uring");
    assert!(fio_resets[1] > 0, "w2 resets zones: {fio_resets:?}");
    assert_eq!(our_resets[..2], fio_resets[..2], "resets of w and w2");
}

#[test]
fn zbd_jobs_iolab_cannot_run_are_refused_with_one_line() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let file = dir.path().join("f");
    let name = format!("--filename={}", file.display());
    let cases: [(&[&str], &str); 3] = [
        (&["--zonemode=zbd"], "zonesize is mandatory"),
        (
            &["--zonemode=zbd", "--zonesize=1m", "--verify=md5"],
            "verify with zonemode=zbd",
        ),
        (
            &["--zonemode=zbd", "--zonesize=1m", "--zonecapacity=2m"],
            "larger than",
        ),
    ];
    for (args, why) in cases {
        let mut a = vec![
            "run",
            "--name=z",
            &name,
            "--rw=write",
            "--size=4m",
            "--direct=1",
        ];
        a.extend_from_slice(args);
        let o = iolab(&a);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(why), "{args:?}: {}", o.stderr);
        assert_eq!(o.stderr.trim().lines().count(), 1, "{}", o.stderr);
        assert!(!file.exists(), "{args:?}: nothing laid out");
    }
}
