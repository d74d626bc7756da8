//! fio drops a job's page cache when it opens its files (`invalidate=1`) and advises the
//! kernel of the access pattern (`fadvise_hint=1`), so a buffered random read of a file just
//! written reads the device, not memory. iolab must do the same, or its buffered figures
//! are the page cache's (56 times fio's before it did).

use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::iolab;

fn iops(stdout: &str) -> f64 {
    let v: Value = serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
    v["jobs"][0]["read"]["iops"].as_f64().unwrap()
}

#[test]
fn buffered_reads_of_a_fresh_file_read_the_device_as_fios_do() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fresh");
    let job = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "--name=b",
            &format!("--filename={}", f.display()),
            "--size=64m",
            "--rw=randread",
            "--bs=4k",
            "--time_based",
            "--runtime=1",
            "--output-format=json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    // iolab lays the file out (through the page cache), then both tools read it.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..2 {
        let a = job(&["--allow-destroy"]);
        let mut args: Vec<&str> = vec!["run"];
        args.extend(a.iter().map(String::as_str));
        let o = iolab(&args);
        assert_eq!(o.code, 0, "{}", o.stderr);
        ours.push(iops(&o.stdout));
        let fio = Command::new("fio").args(job(&[])).output().unwrap();
        assert!(
            fio.status.success(),
            "{}",
            String::from_utf8_lossy(&fio.stderr)
        );
        theirs.push(iops(&String::from_utf8_lossy(&fio.stdout)));
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ratio = med(&mut ours) / med(&mut theirs);
    println!("buffered randread of a fresh file, iolab/fio IOPS: {ratio:.2}");
    assert!(
        (0.33..=3.0).contains(&ratio),
        "iolab {ours:?} vs fio {theirs:?} IOPS: ratio {ratio:.2}"
    );
}
