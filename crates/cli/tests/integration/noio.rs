//! fio's engines without I/O beside fio. cpuio: the chunks it burns, the CPU share it
//! takes, zero bytes (and so zero IOPS and runtime, as fio's JSON says), and its stop with
//! the I/O jobs under `exit_on_io_done`. exec: the program it runs, its expanded arguments,
//! its saved output, its SIGTERM at the runtime's end and its SIGKILL after.

use std::path::Path;
use std::process::Command;

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
    let window = crate::support::Window::open();
    let [fio, ours] = both("[burn]\nioengine=cpuio\ncpuload=50\ntime_based\nruntime=2\n");
    let ((f, f_usr), (o, o_usr)) = (burn(&fio), burn(&ours));
    // 50 ms burnt, 50 ms paused: 20 chunks in 2 s.
    let (fn_, on) = (
        f["total_ios"].as_u64().unwrap(),
        o["total_ios"].as_u64().unwrap(),
    );
    // A chunk is CPU time burnt: on a busy machine each takes longer, and by as much as the
    // other work takes while each tool runs. Both burnt some, and moved nothing, at any load.
    assert!(fn_ > 0 && on > 0, "chunks: fio {fn_}, iolab {on}");
    let figures = format!("chunks: fio {fn_}, iolab {on}");
    assert!(
        busy_or(fn_.abs_diff(on) <= 1, &window, "cpuio's chunks", &figures),
        "{figures}"
    );
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
    let figures = format!("a chunk's time: fio {fc}, iolab {oc}");
    assert!(
        busy_or(
            (oc / fc - 1.0).abs() < 0.1,
            &window,
            "a chunk's time",
            &figures
        ),
        "{figures}"
    );
    check_share(f_usr, o_usr, 40.0..60.0, "cpuload=50");
    // qsort times its sort and pauses to keep the load.
    let [fio, ours] =
        both("[burn]\nioengine=cpuio\ncpuload=30\ncpumode=qsort\ntime_based\nruntime=2\n");
    check_share(burn(&fio).1, burn(&ours).1, 20.0..40.0, "qsort cpuload=30");
}

/// `ok`, or a busy machine during `window` (said, with the figures, as a skip).
fn busy_or(ok: bool, window: &crate::support::Window, what: &str, figures: &str) -> bool {
    crate::support::holds_or_busy_in(ok, Some(window), what, figures)
}

/// Both tools' user CPU share within `want` on a quiet machine. A busy one (iolab's own
/// machine check says so) takes the burner's CPU away, by as much as the other work happens
/// to take while each tool runs: the share is then no figure of either tool, and the check
/// is skipped with the reason.
fn check_share(fio: f64, ours: f64, want: std::ops::Range<f64>, what: &str) {
    let ok = want.contains(&fio) && want.contains(&ours);
    assert!(
        crate::support::holds_or_busy(ok, &format!("{what}'s CPU share")),
        "{what}: usr {fio} (fio), {ours} (iolab), wanted {want:?}"
    );
}

#[test]
fn exit_on_io_done_stops_the_burn_with_the_io_jobs_as_fio() {
    if !fio_available() {
        return;
    }
    let window = crate::support::Window::open();
    let [fio, ours] = both(
        "[burn]\nioengine=cpuio\ncpuload=40\nexit_on_io_done=1\n\
         [io]\nfilename=DIR/data\nrw=randread\nsize=8m\nrate_iops=2048\n",
    );
    let chunks = |v: &Value| burn(v).0["total_ios"].as_u64().unwrap();
    let (f, o) = (chunks(&fio), chunks(&ours));
    // About 1 s of I/O: 8 chunks of 125 ms, give or take the start.
    assert!(f > 0 && o > 0, "chunks: fio {f}, iolab {o}");
    let figures = format!("chunks: fio {f}, iolab {o}");
    assert!(
        busy_or(f.abs_diff(o) <= 2, &window, "cpuio's chunks", &figures),
        "{figures}"
    );
    assert_eq!(ours["jobs"][1]["read"]["total_ios"], 2048);
}

#[test]
fn a_job_without_io_shows_fios_init_line_and_no_target() {
    let out = iolab(&[
        "run",
        "--name=b",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=10000",
        "--time_based",
        "--runtime=300ms",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("b (noop): ioengine=cpuio, cpuload=50, cpucycle=10000"),
        "{}",
        out.stdout
    );
    let head = out.stdout.lines().find(|l| l.contains("groupid=")).unwrap();
    assert!(!head.contains("target="), "nothing is opened: {head}");
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

/// Runs `text` (with `DIR` for `dir`) in `dir`, where exec saves its program's output;
/// the JSON and stderr.
fn run_in(tool: &str, dir: &Path, text: &str) -> (Value, String) {
    let job = dir.join(format!("{tool}.fio"));
    std::fs::write(&job, text.replace("DIR", dir.to_str().unwrap())).unwrap();
    let mut cmd = match tool {
        "fio" => Command::new("fio"),
        _ => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
            c.env("IOLAB_DB", crate::support::test_db()).arg("run");
            c
        }
    };
    let o = cmd
        .current_dir(dir)
        .arg("--output-format=json")
        .arg(&job)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{tool}: {err}");
    // fio prints exec's lines before its JSON.
    let json = &out[out.find("\n{").map_or(0, |i| i + 1)..];
    let v = serde_json::from_str(json).unwrap_or_else(|e| panic!("{tool}: {e}: {out}"));
    (v, err)
}

/// A program that says what it was given and when it is told to stop, then waits to be
/// killed (its `sleep` in the background, so the trap runs at once).
const TRAPPER: &str = "#!/bin/sh\necho \"args $*\"\necho started >&2\n\
                       trap 'echo term; exit 0' TERM\nsleep 30 &\nwait\n";

#[test]
fn exec_runs_the_program_for_the_runtime_as_fio() {
    if !fio_available() {
        return;
    }
    // The default grace_time of 1 s gives the trap time to write before the SIGKILL.
    let text = "[watch]\nioengine=exec\nprogram=DIR/trapper\narguments=%n  %r x\n\
                time_based\nruntime=1\n\
                [quiet]\nioengine=exec\nprogram=/bin/sleep\narguments=%r\nstd_redirect=0\n\
                time_based\nruntime=1\n";
    let window = crate::support::Window::open();
    let runs = ["fio", "iolab"].map(|tool| {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("trapper");
        std::fs::write(&script, TRAPPER).unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let (v, _) = run_in(tool, dir.path(), text);
        let saved = |ext: &str| std::fs::read_to_string(dir.path().join(format!("watch.{ext}")));
        let (out, err) = (saved("stdout").unwrap(), saved("stderr").unwrap());
        let quiet_saved = dir.path().join("quiet.stdout").exists();
        (v, out, err, quiet_saved)
    });
    for (tool, (v, out, err, quiet_saved)) in ["fio", "iolab"].iter().zip(&runs) {
        // %n and %r expanded, the words split at spaces (the double space gone).
        let (args, term) = out.split_at(out.find('\n').map_or(out.len(), |i| i + 1));
        assert_eq!(args, "args watch 1 x\n", "{tool}'s saved stdout");
        // The trap's line, written between SIGTERM and the SIGKILL a grace time later: on a
        // busy machine the shell may not run in that second (fio's own run loses it too).
        let figures = format!("{tool}'s saved stdout after its arguments: {term:?}");
        let said = "the trap's line before the SIGKILL";
        assert!(
            busy_or(term == "term\n", &window, said, &figures),
            "{figures}"
        );
        assert_eq!(err, "started\n", "{tool}'s saved stderr");
        assert!(!quiet_saved, "{tool}: std_redirect=0 saves nothing");
        for j in v["jobs"].as_array().unwrap() {
            let r = &j["read"];
            assert_eq!(r["io_bytes"], 0, "{tool}");
            // A check every 50 ms and a 50 ms pause after it: about 11 in a second.
            let n = r["total_ios"].as_u64().unwrap();
            assert!(n > 0, "{tool} {}: {n} checks", j["jobname"]);
            let figures = format!("{tool} {}: {n} checks", j["jobname"]);
            let ok = (8..=12).contains(&n);
            assert!(busy_or(ok, &window, "exec's checks", &figures), "{figures}");
        }
    }
    let ios = |i: usize| runs[i].0["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    let figures = format!("fio {}, iolab {}", ios(0), ios(1));
    let ok = ios(0).abs_diff(ios(1)) <= 1;
    assert!(busy_or(ok, &window, "exec's checks", &figures), "{figures}");
}

#[test]
fn exec_without_a_program_is_refused_and_its_program_is_killed_at_the_end() {
    let out = iolab(&["run", "--name=x", "--ioengine=exec", "--runtime=1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("program="), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let args = [
        "run",
        "--name=x",
        "--ioengine=exec",
        "--program=no-such-tool",
    ];
    let out = iolab(&args);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("program=no-such-tool"),
        "{}",
        out.stderr
    );
    // A program that ignores SIGTERM is killed when the job ends, and reaped.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("stubborn");
    std::fs::write(
        &script,
        "#!/bin/sh\ntrap '' TERM\necho $$\nwhile :; do sleep 0.05; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let text = "[s]\nioengine=exec\nprogram=DIR/stubborn\ngrace_time=0\ntime_based\nruntime=1\n";
    run_in("iolab", dir.path(), text);
    let pid = std::fs::read_to_string(dir.path().join("s.stdout")).unwrap();
    let pid = pid.trim();
    assert!(!pid.is_empty());
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the program ({pid}) outlived its job"
    );
    // A saved output never lands on a device.
    std::fs::remove_file(dir.path().join("s.stderr")).unwrap();
    std::os::unix::fs::symlink("/dev/zram0", dir.path().join("s.stderr")).unwrap();
    let job = dir.path().join("j.fio");
    std::fs::write(&job, text.replace("DIR", dir.path().to_str().unwrap())).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", crate::support::test_db())
        .current_dir(dir.path())
        .args(["run", job.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("s.stderr"), "{err}");
}
