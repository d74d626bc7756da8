//! fio's long tail (issue 71): job-file shapes from the field that iolab once ran otherwise
//! than fio, each run beside fio 3.33 on temp files: the same job names, bytes and I/O
//! counts, or iolab's refusal where fio's own behaviour explains one. One test per class.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::{iolab, loop_device, Out};

/// Per job: (name, read bytes, read I/Os, write bytes, write I/Os).
type Rows = Vec<(String, u64, u64, u64, u64)>;

fn rows(v: &Value) -> Rows {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
            (
                j["jobname"].as_str().unwrap().to_string(),
                n("read", "io_bytes"),
                n("read", "total_ios"),
                n("write", "io_bytes"),
                n("write", "total_ios"),
            )
        })
        .collect()
}

fn json(out: &Out, what: &str) -> Value {
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", out.stdout))
}

/// Writes `text` (with `@D@` for `dir`) as a job file and runs it through iolab; the output.
fn run_iolab(dir: &Path, name: &str, text: &str) -> Out {
    let f = job_file(dir, name, text);
    iolab(&["run", "--allow-destroy", "--output-format=json", &f])
}

/// The same through fio: its exit status, JSON (when it ran) and standard error.
fn run_fio(dir: &Path, name: &str, text: &str) -> (i32, Option<Value>, String) {
    let f = job_file(dir, name, text);
    let o = Command::new("fio")
        .args(["--output-format=json", &f])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let doc = out
        .find('{')
        .and_then(|at| serde_json::from_str(&out[at..]).ok());
    (
        o.status.code().unwrap_or(-1),
        doc,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn job_file(dir: &Path, name: &str, text: &str) -> String {
    let f = dir.join(format!("{name}.fio"));
    fs::write(&f, text.replace("@D@", dir.to_str().unwrap())).unwrap();
    f.to_str().unwrap().to_string()
}

/// Empties `dir` but for its job files, so each tool starts from the same nothing.
fn clean(dir: &Path) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "fio") {
            continue;
        }
        if p.is_dir() {
            fs::remove_dir_all(&p).unwrap();
        } else {
            fs::remove_file(&p).unwrap();
        }
    }
}

/// What `dir` holds besides the job files: each name and length, sorted.
fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .filter(|(n, _)| !n.ends_with(".fio"))
        .collect();
    v.sort();
    v
}

/// Runs `text` through both tools from an empty directory each; fio's rows and iolab's
/// (and iolab's standard error).
fn both(name: &str, text: &str) -> (Rows, Rows, String) {
    let dir = tempfile::tempdir().unwrap();
    let (code, doc, err) = run_fio(dir.path(), name, text);
    assert_eq!(code, 0, "{name}: fio: {err}");
    let theirs = rows(&doc.unwrap());
    clean(dir.path());
    let out = run_iolab(dir.path(), name, text);
    (theirs, rows(&json(&out, name)), out.stderr)
}

#[test]
fn ioengine_aio_is_fios_libaio() {
    if !fio_available() {
        return;
    }
    let text = "[a]\nfilename=@D@/a\nsize=1m\nioengine=aio\ndirect=1\nrw=randread\n\
                iodepth=4\n[b]\nfilename=@D@/b\nsize=256k\nioengine=linuxaio\nrw=write\n";
    let (fio, ours, _) = both("aio", text);
    assert_eq!(ours, fio);
}

#[test]
fn a_header_without_its_bracket_is_read_as_fio_reads_it() {
    if !fio_available() {
        return;
    }
    let text = "[global]\nfilename=@D@/h\nsize=256k\n[bs=64K\nrw=write\nbs=64k\n";
    let (fio, ours, err) = both("header", text);
    assert_eq!(ours, fio);
    assert_eq!(ours[0].0, "bs=64");
    assert!(err.contains("has no closing ']'"), "{err}");
}

#[test]
fn an_unset_variable_drops_the_job_in_fio_and_is_refused_naming_it() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (opt, var) in [
        ("bs", "IOLAB_LT_UNSET_BS"),
        ("numjobs", "IOLAB_LT_UNSET_NJOBS"),
    ] {
        let text = format!(
            "[global]\nfilename=@D@/e\nsize=256k\n[e]\nrw=write\n{opt}=${{{var}}}\n[f]\nrw=read\n"
        );
        let (code, _, err) = run_fio(dir.path(), "env", &text);
        assert_eq!(code, 1, "fio: {err}");
        assert!(err.contains("job e dropped"), "{err}");
        clean(dir.path());
        let out = run_iolab(dir.path(), "env", &text);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.contains(&format!("option '{opt}' is empty"))
                && out.stderr.contains(var)
                && out.stderr.lines().count() == 1,
            "{}",
            out.stderr
        );
        assert!(!dir.path().join("e").exists(), "nothing written");
    }
}

#[test]
fn bssplit_shares_left_empty_split_the_rest_as_fios() {
    if !fio_available() {
        return;
    }
    let text = "[b]\nfilename=@D@/b\nsize=2m\nrw=randwrite\nbssplit=512/:1k/:2k/:4k/50:8k/\n";
    let (fio, ours, _) = both("bssplit", text);
    // The sizes are drawn from each tool's own numbers: the bytes, which end exactly at
    // the size, are the same; the I/O counts near (both near 2 MiB over a mean block of
    // 0.12 * (512 + 1k + 2k + 8k) + 0.5 * 4k + the 2 % left to the last size).
    assert_eq!((ours[0].1, ours[0].3), (fio[0].1, fio[0].3));
    let (a, b) = (ours[0].4 as f64, fio[0].4 as f64);
    assert!((a - b).abs() <= 0.1 * b, "{a} against fio's {b} I/Os");
}

#[test]
fn a_job_named_after_a_device_runs_on_it() {
    if !fio_available() {
        return;
    }
    let Some(dev) = loop_device(8 << 20, false) else {
        return;
    };
    let name = dev.path.to_str().unwrap();
    let text = format!("[{name}]\nsize=1m\nrw=read\ndirect=1\n");
    let (fio, ours, _) = both("device", &text);
    assert_eq!(ours, fio);
    assert_eq!(ours[0].0, name);
    assert_eq!(ours[0].1, 1 << 20);
    // Writing it still needs consent, as with filename=.
    let dir = tempfile::tempdir().unwrap();
    let f = job_file(
        dir.path(),
        "devw",
        &format!("[{name}]\nsize=1m\nrw=write\n"),
    );
    let out = iolab(&["run", &f]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--allow-destroy"), "{}", out.stderr);
}

#[test]
fn name_names_the_first_copy_and_the_section_the_clones_and_files() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = "[sect]\ndirectory=@D@\nsize=64k\nrw=write\nname=given\nnumjobs=3\n";
    let (_, doc, err) = run_fio(dir.path(), "name", text);
    let fio = rows(&doc.unwrap_or_else(|| panic!("fio: {err}")));
    let fio_files = files_in(dir.path());
    clean(dir.path());
    let ours = rows(&json(&run_iolab(dir.path(), "name", text), "name"));
    let our_files = files_in(dir.path());
    assert_eq!(ours, fio);
    let names: Vec<&str> = ours.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["given", "sect", "sect"]);
    assert_eq!(our_files, fio_files);
    assert!(
        our_files.iter().any(|(n, _)| n == "sect.2.0"),
        "{our_files:?}"
    );
    // With one filename, the clones are named so too.
    let text = "[s2]\nfilename=@D@/one\nsize=64k\nrw=read\nname=first\nnumjobs=2\n";
    let (fio, ours, _) = both("name2", text);
    assert_eq!(ours, fio);
}

#[test]
fn openfiles_below_nrfiles_runs_with_fios_bytes() {
    if !fio_available() {
        return;
    }
    let text = "[o]\ndirectory=@D@\nnrfiles=8\nopenfiles=2\nsize=1m\nrw=randwrite\nbs=4k\n";
    let (fio, ours, err) = both("openfiles", text);
    assert_eq!(ours, fio);
    assert!(
        err.contains("openfiles=2: iolab spreads the I/O over 2 files at a time"),
        "{err}"
    );
}

#[test]
fn fill_device_with_a_size_moves_the_size_each_loop() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = "[f]\nfilename=@D@/fill\nsize=1m\nfill_device=1\nloops=2\nrw=write\nbs=64k\n";
    let (_, doc, err) = run_fio(dir.path(), "fill", text);
    let fio = rows(&doc.unwrap_or_else(|| panic!("fio: {err}")));
    let fio_len = fs::metadata(dir.path().join("fill")).unwrap().len();
    clean(dir.path());
    let ours = rows(&json(&run_iolab(dir.path(), "fill", text), "fill"));
    assert_eq!(ours, fio);
    assert_eq!(ours[0].3, 2 << 20);
    assert_eq!(
        fs::metadata(dir.path().join("fill")).unwrap().len(),
        fio_len
    );
}

#[test]
fn unlink_each_loop_empties_the_files_between_loops_and_keeps_the_last() {
    if !fio_available() {
        return;
    }
    for engine in ["psync", "libaio\niodepth=8\ndirect=1"] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "[u]\ndirectory=@D@\nsize=256k\nrw=randwrite\nioengine={engine}\nloops=3\n\
             unlink_each_loop=1\nnrfiles=2\n"
        );
        let (_, doc, err) = run_fio(dir.path(), "unlink", &text);
        let fio = rows(&doc.unwrap_or_else(|| panic!("fio: {err}")));
        let fio_files = files_in(dir.path());
        clean(dir.path());
        let out = run_iolab(dir.path(), "unlink", &text);
        let ours = rows(&json(&out, "unlink"));
        assert_eq!(ours, fio, "{engine}");
        assert_eq!(ours[0].3, 3 * (256 << 10));
        assert_eq!(
            files_in(dir.path()),
            fio_files,
            "{engine}: the last loop's files stay"
        );
    }
    // A reading job: fio's second loop finds the files gone; iolab says so up front.
    let dir = tempfile::tempdir().unwrap();
    let text = "[r]\nfilename=@D@/r\nsize=256k\nrw=read\nloops=2\nunlink_each_loop=1\n";
    let (code, doc, _) = run_fio(dir.path(), "unlink_read", text);
    let failed = code != 0 || doc.is_some_and(|d| d["jobs"][0]["error"].as_u64() != Some(0));
    assert!(failed, "fio's reading job should fail on its second loop");
    clean(dir.path());
    let out = run_iolab(dir.path(), "unlink_read", text);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("ENOENT"), "{}", out.stderr);
}

#[test]
fn verify_after_gapped_writes_reads_the_newest_of_each_block() {
    if !fio_available() {
        return;
    }
    for (bs, extra) in [("1m", "number_ios=10\n"), ("4k", "")] {
        let text = format!(
            "[v]\nfilename=@D@/vg\nrw=write:3M\nbs={bs}\nsize=16m\n{extra}verify=crc32c\n\
             fallocate=none\nverify_dump=1\n"
        );
        let (fio, ours, err) = both("gaps", &text);
        assert_eq!(ours, fio, "bs={bs}: {err}");
    }
}

#[test]
fn random_sizes_over_many_files_overshoot_the_size_as_fios_and_copies_differ() {
    if !fio_available() {
        return;
    }
    let text = "[b]\ndirectory=@D@\nnrfiles=4\nopenfiles=8\nlockfile=readwrite\n\
                blocksize_range=64k-1M\nsize=16m\nrw=randrw\nnumjobs=4\nnorandommap\n";
    let (fio, ours, _) = both("bsrange", text);
    let size = 16u64 << 20;
    for (tool, r) in [("fio", &fio), ("iolab", &ours)] {
        for j in r.iter() {
            let bytes = j.1 + j.3;
            // Without the random map, the last I/O runs past the size by up to a block.
            assert!(
                (size..size + (1 << 20)).contains(&bytes),
                "{tool}: {bytes} bytes"
            );
        }
    }
    // Each copy draws its own sizes, as fio's do (its seeds differ by job number).
    let counts: Vec<(u64, u64)> = ours.iter().map(|j| (j.1 + j.3, j.2 + j.4)).collect();
    assert!(
        counts.iter().any(|c| *c != counts[0]),
        "every copy moved the same: {counts:?}"
    );
}

#[test]
fn vsync_at_depth_counts_every_byte_fio_undercounts() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = "[v]\ndirectory=@D@\nioengine=vsync\niodepth=32\ncreate_on_open=1\nbs=1m\n\
                size=8m\nrw=write\nbuffer_pattern=0x5a\n";
    let (_, doc, err) = run_fio(dir.path(), "vsync", text);
    let fio = rows(&doc.unwrap_or_else(|| panic!("fio: {err}")));
    // fio wrote every block (its file holds the pattern throughout) though its io_bytes
    // counts fewer: its vsync commit keeps one event, so each reap finds one I/O.
    let written = fs::read(dir.path().join("v.0.0")).unwrap();
    assert_eq!(written.len(), 8 << 20);
    assert!(written.iter().all(|&b| b == 0x5a), "fio wrote every block");
    assert!(fio[0].3 < 8 << 20, "fio 3.33 counts fewer: {fio:?}");
    clean(dir.path());
    let out = run_iolab(dir.path(), "vsync", text);
    let ours = rows(&json(&out, "vsync"));
    assert_eq!(
        (ours[0].3, ours[0].4),
        (8 << 20, fio[0].4),
        "bytes moved, fio's I/Os"
    );
    assert!(
        out.stderr.contains("fio's io_bytes for this job is lower"),
        "{}",
        out.stderr
    );
}

#[test]
fn ioengine_net_is_refused_by_design() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[n]\nioengine=net\nfilename=localhost,8765,tcp\nrw=write\nsize=1m\n";
    let out = run_iolab(dir.path(), "net", text);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("measures a network path") && out.stderr.lines().count() == 1,
        "{}",
        out.stderr
    );
}

#[test]
fn per_job_logs_names_the_logs_as_fio() {
    if !fio_available() {
        return;
    }
    for per_job in [0, 1] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "[global]\nfilename=@D@/p\nsize=64k\nrw=write\nper_job_logs={per_job}\n\
             write_lat_log=@D@/lat\n[p]\nnumjobs=2\n"
        );
        let logs = |d: &Path| -> Vec<String> {
            files_in(d)
                .into_iter()
                .map(|(n, _)| n)
                .filter(|n| n.ends_with(".log"))
                .collect()
        };
        let (code, _, err) = run_fio(dir.path(), "pjl", &text);
        assert_eq!(code, 0, "{err}");
        let fio_logs = logs(dir.path());
        clean(dir.path());
        let out = run_iolab(dir.path(), "pjl", &text);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(logs(dir.path()), fio_logs, "per_job_logs={per_job}");
    }
}

/// The I/Os (file, direction, offset, length) a job file wrote to its `write_iolog`
/// (`@D@/io.log`) in fio, then in iolab, each from the same empty directory.
fn both_logged(name: &str, text: &str) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("io.log");
    let (code, _, err) = run_fio(dir.path(), name, text);
    assert_eq!(code, 0, "{name}: fio: {err}");
    let theirs = crate::file_setup::logged_ios(&log);
    clean(dir.path());
    let out = run_iolab(dir.path(), name, text);
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    (theirs, crate::file_setup::logged_ios(&log))
}

#[test]
fn openfiles_below_nrfiles_takes_the_files_in_fios_order() {
    if !fio_available() {
        return;
    }
    // Two files open at a time: fio writes 0 and 1 in turn to their ends, then 2 and 3.
    let text = "[w]\ndirectory=@D@\nnrfiles=4\nopenfiles=2\nfilesize=16k\nrw=write\nbs=4k\n\
                write_iolog=@D@/io.log\n";
    let (fio, ours) = both_logged("window", text);
    assert_eq!(fio.len(), 16, "{fio:?}");
    assert_eq!(ours, fio);
}

#[test]
fn a_mixed_job_draws_fios_directions_and_block_sizes() {
    if !fio_available() {
        return;
    }
    // norandommap: fio's offsets; rwmixread and bsrange: fio's mix and size streams.
    let text = "[m]\nfilename=@D@/m\nsize=1m\nrw=randrw\nrwmixread=70\nnorandommap\n\
                bsrange=4k-16k\nwrite_iolog=@D@/io.log\n";
    let (fio, ours) = both_logged("mix", text);
    assert!(fio.len() > 50, "{fio:?}");
    assert_eq!(ours, fio);
}

#[test]
fn a_size_short_of_its_files_ends_past_it_by_the_last_block_as_fios() {
    if !fio_available() {
        return;
    }
    // 16 MiB over ten 4 MiB files: fio stops issuing once 16 MiB are issued, and its last
    // block (64k-1M, drawn as fio draws) runs past; the same sizes in the same order here.
    let text = "[s]\ndirectory=@D@\nnrfiles=10\nfilesize=4m\nsize=16m\nrw=read\n\
                bsrange=64k-1m\nnumjobs=2\n";
    let (fio, ours, _) = both("overshoot", text);
    assert!(fio.iter().any(|r| r.1 > 16 << 20), "{fio:?}");
    assert_eq!(ours, fio);
}

#[test]
fn randrw_with_verify_reads_and_writes_fios_counts() {
    if !fio_available() {
        return;
    }
    // Each copy its own file (fio's default names), so each verifies its own writes.
    let text = "[v]\ndirectory=@D@\nsize=4m\nrw=randrw\nverify=crc32\nnumjobs=4\n";
    let (fio, ours, _) = both("verify_mix", text);
    assert_eq!(ours, fio);
}
