//! fio's engine without I/O, cpuio, beside fio: the chunks it burns, the CPU share it
//! takes, zero bytes (and so zero IOPS and runtime, as fio's JSON says), and its stop with
//! the I/O jobs under `exit_on_io_done`.

use serde_json::Value;

use crate::job_language::run_job;
use crate::jobfiles::fio_available;
use crate::support::iolab;

/// The first job's read block and user CPU share.
fn burn(v: &Value) -> (&Value, f64) {
    let j = &v["jobs"][0];
    (&j["read"], j["usr_cpu"].as_f64().unwrap())
}

fn both(text: &str) -> [Value; 2] {
    ["fio", "iolab"].map(|tool| {
        let dir = tempfile::tempdir().unwrap();
        run_job(tool, dir.path(), text)
    })
}

#[test]
fn cpuio_burns_fios_chunks_and_share_and_moves_nothing() {
    if !fio_available() {
        return;
    }
    let [fio, ours] = both("[burn]\nioengine=cpuio\ncpuload=50\ntime_based\nruntime=2\n");
    let ((f, f_usr), (o, o_usr)) = (burn(&fio), burn(&ours));
    // 50 ms burnt, 50 ms paused: 20 chunks in 2 s.
    let (fn_, on) = (
        f["total_ios"].as_u64().unwrap(),
        o["total_ios"].as_u64().unwrap(),
    );
    assert!(fn_.abs_diff(on) <= 1, "chunks: fio {fn_}, iolab {on}");
    for key in ["io_bytes", "runtime", "bw"] {
        assert_eq!(o[key], f[key], "{key}");
    }
    assert_eq!(
        o["iops"].as_f64(),
        Some(0.0),
        "no bytes, no runtime: IOPS 0 as fio's"
    );
    let (fc, oc) = (
        f["clat_ns"]["mean"].as_f64().unwrap(),
        o["clat_ns"]["mean"].as_f64().unwrap(),
    );
    assert!(
        (oc / fc - 1.0).abs() < 0.1,
        "a chunk's time: fio {fc}, iolab {oc}"
    );
    for usr in [f_usr, o_usr] {
        assert!(
            (40.0..60.0).contains(&usr),
            "usr {f_usr} (fio), {o_usr} (iolab)"
        );
    }
    // qsort times its sort and pauses to keep the load.
    let [fio, ours] =
        both("[burn]\nioengine=cpuio\ncpuload=30\ncpumode=qsort\ntime_based\nruntime=2\n");
    for usr in [burn(&fio).1, burn(&ours).1] {
        assert!((20.0..40.0).contains(&usr), "qsort usr {usr}");
    }
}

#[test]
fn exit_on_io_done_stops_the_burn_with_the_io_jobs_as_fio() {
    if !fio_available() {
        return;
    }
    let [fio, ours] = both(
        "[burn]\nioengine=cpuio\ncpuload=40\nexit_on_io_done=1\n\
         [io]\nfilename=DIR/data\nrw=randread\nsize=8m\nrate_iops=2048\n",
    );
    let chunks = |v: &Value| burn(v).0["total_ios"].as_u64().unwrap();
    let (f, o) = (chunks(&fio), chunks(&ours));
    // About 1 s of I/O: 8 chunks of 125 ms, give or take the start.
    assert!(f.abs_diff(o) <= 2, "chunks: fio {f}, iolab {o}");
    assert_eq!(ours["jobs"][1]["read"]["total_ios"], 2048);
}

#[test]
fn cpuio_without_a_load_or_its_options_elsewhere_are_refused() {
    let out = iolab(&["run", "--name=b", "--ioengine=cpuio", "--runtime=1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("cpuload"), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let out = iolab(&["run", "--name=b", &f, "--size=64k", "--cpuload=50"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("ioengine cpuio"), "{}", out.stderr);
}
