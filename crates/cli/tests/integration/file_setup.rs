//! fio's file-setup options and their neighbours (names, reservation, removal, units,
//! arithmetic, pvsync, splice), each job file run through iolab and fio in a directory of its own:
//! the same I/Os and bytes, and the same files left behind with the same sizes.

use std::fs;

use crate::job_language::{files_in, run_job, totals};
use crate::jobfiles::fio_available;
use crate::support::iolab;

/// Runs `text` with both tools, each in a fresh directory, and checks that they agree.
fn agree(text: &str) {
    let runs: Vec<_> = ["fio", "iolab"]
        .iter()
        .map(|tool| {
            let dir = tempfile::tempdir().unwrap();
            let v = run_job(tool, dir.path(), text);
            let mut left = files_in(dir.path());
            left.retain(|(n, _)| !n.ends_with(".fio"));
            (totals(&v), left, dir)
        })
        .collect();
    let (fio, ours) = (&runs[0], &runs[1]);
    assert_eq!(
        ours.0, fio.0,
        "I/Os and bytes differ from fio's for:\n{text}"
    );
    assert_eq!(ours.1, fio.1, "files left differ from fio's for:\n{text}");
}

#[test]
fn file_setup_options_leave_what_fio_leaves() {
    if !fio_available() {
        return;
    }
    let head = "[global]\ndirectory=DIR\nsize=256k\nbs=16k\n";
    for job in [
        "[j]\nrw=write\nnrfiles=2\nfilename_format=shared.$filenum\n",
        "[j]\nrw=randwrite\nfilename_format=$jobname-$jobnum-$filenum\nfallocate=none\n",
        "[j]\nrw=write\nfallocate=truncate\ncreate_fsync=0\n",
        "[j]\nrw=write\noverwrite=1\nfallocate=posix\n",
        "[j]\nrw=read\nunlink=1\n",
        "[j]\nrw=randwrite\nunlink=1\nsync=dsync\n",
        "[j]\nrw=read\ncreate_only=1\n",
        "[j]\nrw=write\ncreate_on_open=1\n",
        "[j]\nrw=read\npre_read=1\n",
        "[j]\nrw=write\nfsync_on_close=1\nwrite_hint=short\n",
        "[j]\nrw=randread\nioengine=pvsync\n",
        "[j]\nrw=write\nioengine=pvsync\n",
        "[j]\nrw=randwrite\nioengine=splice\nbs=96k\n",
        "[j]\nrw=randread\nioengine=splice\nbs=128k\nsize=1m\n",
        "[j]\nrw=write\nioengine=splice\nverify=crc32c\nbs=96k\nsize=960k\n",
        "[j]\nrw=write\nkb_base=1000\nbs=4k\nsize=256k\n",
        "[j]\nbs=4k\nsize=256k\nkb_base=1000\nrw=read\n",
        "[j]\nrw=write\nbuffer_compress_percentage=50\nbuffer_compress_chunk=4k\n",
        "[j]\nrw=read\nnumjobs=2\ncpus_allowed=0\ncpus_allowed_policy=split\n",
        "[j]\nrw=read\nsize=64*$pagesize\nallrandrepeat=1\nclocksource=gettimeofday\n",
    ] {
        agree(&format!("{head}{job}"));
    }
}

#[test]
fn allow_file_create_0_refuses_a_missing_file_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("missing");
    let name = format!("--filename={}", f.display());
    let out = iolab(&[
        "run",
        "--name=j",
        &name,
        "--size=64k",
        "--allow_file_create=0",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("allow_file_create=0"), "{}", out.stderr);
    assert!(!f.exists());
}

#[test]
fn unlink_never_removes_a_users_file_without_consent() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("theirs");
    fs::write(&f, vec![7u8; 65536]).unwrap();
    let name = format!("--filename={}", f.display());
    let out = iolab(&["run", "--name=j", &name, "--rw=read", "--unlink=1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--allow-destroy"), "{}", out.stderr);
    assert_eq!(fs::read(&f).unwrap(), vec![7u8; 65536]);
    let out = iolab(&[
        "run",
        "--name=j",
        &name,
        "--rw=read",
        "--unlink=1",
        "--allow-destroy",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!f.exists(), "unlink=1 with consent removes it, as fio");
}

/// Runs a tool in `dir` as its working directory: (exit status, stderr).
pub(crate) fn run_in(dir: &std::path::Path, tool: &str, args: &[&str]) -> (i32, String) {
    let mut c = match tool {
        "fio" => std::process::Command::new("fio"),
        _ => {
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
            c.env("IOLAB_DB", crate::support::test_db()).arg("run");
            c
        }
    };
    let o = c.args(args).current_dir(dir).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn exec_prerun_and_postrun_save_their_output_as_fio() {
    if !fio_available() {
        return;
    }
    for tool in ["fio", "iolab"] {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "--name=j",
            "--filename=f",
            "--size=64k",
            "--exec_prerun=echo before; echo oops >&2",
            "--exec_postrun=echo after",
        ];
        let (code, err) = run_in(dir.path(), tool, &args);
        assert_eq!(code, 0, "{tool}: {err}");
        let read = |n: &str| fs::read_to_string(dir.path().join(n)).unwrap_or_default();
        // fio appends "> FILE 2>&1" to the command: only its last part is saved.
        assert_eq!(read("j.prerun.txt"), "oops\n", "{tool}");
        assert_eq!(read("j.postrun.txt"), "after\n", "{tool}");
    }
}

#[test]
fn max_latency_ends_the_job_with_etimedout_as_fio() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let name = format!("--filename={}", f.display());
    // No read of a file takes under a nanosecond... 1 us is fio's smallest limit.
    let args = [
        "--name=j",
        &name,
        "--size=1m",
        "--max_latency=1",
        "--output-format=json",
    ];
    let out = iolab(&[
        "run",
        "--name=j",
        &name,
        "--size=1m",
        "--max_latency=1",
        "--output-format=json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["jobs"][0]["error"], 110, "{}", out.stdout);
    assert!(out.stderr.contains("max_latency"), "{}", out.stderr);
    let fio = std::process::Command::new("fio")
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&fio.stdout);
    let fv: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    assert_eq!(fv["jobs"][0]["error"], 110);
}

#[test]
fn stats_0_leaves_the_job_out_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let name = format!("--filename={}", f.display());
    let out = iolab(&[
        "run",
        "--output-format=json",
        &name,
        "--size=64k",
        "--name=hidden",
        "--stats=0",
        "--name=shown",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shown"]);
}

#[test]
fn buffer_pattern_writes_the_bytes_fio_writes() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for pattern in ["0xdeadbeef", "\"abc\"", "0x11\"xy\"7"] {
        let mut data = Vec::new();
        for tool in ["fio", "iolab"] {
            let f = dir.path().join(format!("{tool}.data"));
            let _ = fs::remove_file(&f);
            let name = format!("--filename={}", f.display());
            let pat = format!("--buffer_pattern={pattern}");
            let args = ["--name=b", &name, "--size=64k", "--rw=write", &pat];
            let (code, err) = run_in(dir.path(), tool, &args);
            assert_eq!(code, 0, "{tool}: {err}");
            data.push(fs::read(&f).unwrap());
        }
        assert!(
            data[0] == data[1],
            "{pattern}: iolab's file differs from fio's"
        );
    }
}

/// The (file, direction, offset, length) of every I/O line of an iolog.
pub(crate) fn logged_ios(path: &std::path::Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 5 && ["read", "write", "trim"].contains(&w[2]))
        .map(|w| w[1..].join(" "))
        .collect()
}

/// The I/Os of fio's per-I/O latency log written with `log_offset=1`, in an iolog's words
/// (`FILE DIRECTION OFFSET LENGTH`) for `file`: fio writes no iolog while it replays one.
pub(crate) fn lat_logged_ios(log: &std::path::Path, file: &std::path::Path) -> Vec<String> {
    let name = file.display().to_string();
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| l.split(", ").collect::<Vec<_>>())
        .map(|c| {
            let dir = ["read", "write", "trim"][c[2].parse::<usize>().unwrap()];
            format!("{name} {dir} {} {}", c[4], c[3])
        })
        .collect()
}

#[test]
fn an_iolog_written_by_fio_replays_in_iolab_and_the_other_way_round() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let name = format!("--filename={}", data.display());
    let (code, err) = run_in(
        dir.path(),
        "fio",
        &[
            "--name=w",
            &name,
            "--size=256k",
            "--rw=randrw",
            "--write_iolog=fio.log",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let from_fio = logged_ios(&dir.path().join("fio.log"));
    assert_eq!(from_fio.len(), 64);
    // iolab replays fio's log, recording what it issued: the same I/Os, in order.
    let (code, err) = run_in(
        dir.path(),
        "iolab",
        &[
            "--name=r",
            "--read_iolog=fio.log",
            "--write_iolog=iolab.log",
            "--replay_no_stall=1",
            "--allow-destroy",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(logged_ios(&dir.path().join("iolab.log")), from_fio);
    // fio replays iolab's log (fio writes no iolog while reading one): its per-I/O log,
    // with offsets, shows the same I/Os in the same order (psync completes in order).
    let args = [
        "--name=x",
        "--read_iolog=iolab.log",
        "--write_lat_log=back",
        "--log_offset=1",
    ];
    let (code, err) = run_in(dir.path(), "fio", &args);
    assert_eq!(code, 0, "{err}");
    let replayed = lat_logged_ios(&dir.path().join("back_lat.1.log"), &data);
    assert_eq!(replayed, from_fio);
}

/// A blktrace binary as the kernel's tracer writes it: `(time ns, sector, bytes, action)`
/// records of device 254:0, each 48 bytes, every third with a 4-byte payload after it.
fn blktrace_file(events: &[(u64, u64, u32, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, &(time, sector, bytes, action)) in events.iter().enumerate() {
        let pdu: u16 = if i % 3 == 0 { 4 } else { 0 };
        out.extend(0x6561_7407u32.to_le_bytes());
        out.extend((i as u32).to_le_bytes());
        out.extend(time.to_le_bytes());
        out.extend(sector.to_le_bytes());
        out.extend(bytes.to_le_bytes());
        out.extend(action.to_le_bytes());
        out.extend(1234u32.to_le_bytes()); // pid
        out.extend((254u32 << 20).to_le_bytes()); // device
        out.extend(0u32.to_le_bytes()); // cpu
        out.extend(0u16.to_le_bytes()); // error
        out.extend(pdu.to_le_bytes());
        out.extend(vec![0u8; pdu as usize]);
    }
    out
}

#[test]
fn a_blktrace_replays_the_ios_fio_replays_from_it() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Queue events of reads and writes (some followed by the block layer's issue and
    // complete events, which are not I/Os), sizes 4 to 16 KiB, 20 µs apart.
    let (read, write, queue, issue, complete) = (1 << 16, 1 << 17, 1, 7, 8);
    let mut events = Vec::new();
    for i in 0..48u64 {
        let dir = if i % 3 == 1 { write } else { read };
        let bytes = 4096 << (i % 3);
        let sector = (i * 7919 % 200) * 8;
        events.push((1_000 + i * 20_000, sector, bytes, queue | dir));
        if i % 4 == 0 {
            events.push((1_500 + i * 20_000, sector, bytes, issue | dir));
            events.push((9_000 + i * 20_000, sector, bytes, complete | dir));
        }
    }
    fs::write(dir.path().join("trace.bin"), blktrace_file(&events)).unwrap();
    // A trace names devices, which exist: fio opens the redirected file, never makes it.
    let data = dir.path().join("data");
    fs::File::create(&data).unwrap().set_len(1 << 20).unwrap();
    let redirect = format!("--replay_redirect={}", data.display());
    let common = [
        "--name=r",
        "--read_iolog=trace.bin",
        &redirect,
        "--replay_no_stall=1",
    ];
    let fio_args = [&common[..], &["--write_lat_log=back", "--log_offset=1"]].concat();
    let (code, err) = run_in(dir.path(), "fio", &fio_args);
    assert_eq!(code, 0, "fio: {err}");
    let from_fio = lat_logged_ios(&dir.path().join("back_lat.1.log"), &data);
    assert_eq!(from_fio.len(), 48, "fio replays every queued I/O");
    let ours = [&common[..], &["--write_iolog=iolab.log", "--allow-destroy"]].concat();
    let (code, err) = run_in(dir.path(), "iolab", &ours);
    assert_eq!(code, 0, "iolab: {err}");
    assert_eq!(logged_ios(&dir.path().join("iolab.log")), from_fio);
    // Four reads queued before each completion: the replay's depth is 4 in both tools
    // when the job sets none.
    let mut events = Vec::new();
    for k in 0..50u64 {
        for j in 0..4 {
            events.push((
                events.len() as u64 * 1_000,
                (k * 4 + j) * 8,
                4096,
                queue | read,
            ));
        }
        events.push((events.len() as u64 * 1_000, 0, 4096, complete | read));
    }
    fs::write(dir.path().join("deep.bin"), blktrace_file(&events)).unwrap();
    let depths: Vec<serde_json::Value> = ["fio", "iolab"]
        .iter()
        .map(|tool| {
            let v = crate::job_language::run_job(
                tool,
                dir.path(),
                &format!(
                    "[r]\nread_iolog=DIR/deep.bin\nreplay_redirect={}\nreplay_no_stall=1\n\
                     ioengine=libaio\ndirect=1\n",
                    data.display()
                ),
            );
            assert_eq!(v["jobs"][0]["read"]["total_ios"], 200, "{tool}");
            v["jobs"][0]["iodepth_level"].clone()
        })
        .collect();
    let at4 = |d: &serde_json::Value| d["4"].as_f64().unwrap();
    assert!(at4(&depths[0]) > 90.0, "fio: {}", depths[0]);
    assert!(
        (at4(&depths[1]) - at4(&depths[0])).abs() <= 2.0 && depths[1]["8"] == 0.0,
        "iolab {}, fio {}",
        depths[1],
        depths[0]
    );
}

/// fio's merge_blktrace_file, as its HOWTO describes it (fio's own merge reads no record):
/// two traces merged by time, the first twice as fast and twice over, and replayed in that
/// order; the merged file is a blktrace fio replays with the same I/Os. A scalar list of the
/// wrong length is one line, exit 2, and no merged file.
#[test]
fn merged_blktraces_replay_in_time_order_and_fio_replays_the_merged_file() {
    let dir = tempfile::tempdir().unwrap();
    let (read, write, queue) = (1 << 16, 1 << 17, 1);
    // a: reads at 0, 30, 60 µs (sectors 0, 8, 16); b: writes at 10, 40, 70, 100, 130 µs.
    let a: Vec<_> = (0..3u64)
        .map(|i| (i * 30_000, i * 8, 4096, queue | read))
        .collect();
    let b: Vec<_> = (0..5u64)
        .map(|i| (10_000 + i * 30_000, 512 + i * 8, 4096, queue | write))
        .collect();
    fs::write(dir.path().join("a.bin"), blktrace_file(&a)).unwrap();
    fs::write(dir.path().join("b.bin"), blktrace_file(&b)).unwrap();
    let data = dir.path().join("data");
    fs::File::create(&data).unwrap().set_len(1 << 20).unwrap();
    let redirect = format!("--replay_redirect={}", data.display());
    let ours = [
        "--name=m",
        "--read_iolog=a.bin:b.bin",
        "--merge_blktrace_file=merged.bin",
        "--merge_blktrace_scalars=50:100",
        "--merge_blktrace_iters=2:1",
        &redirect,
        "--replay_no_stall=1",
        "--write_iolog=iolab.log",
        "--allow-destroy",
    ];
    let (code, err) = run_in(dir.path(), "iolab", &ours);
    assert_eq!(code, 0, "iolab: {err}");
    // a at half time, twice (its repetition starts at its last event, 60 µs, so at 30 µs
    // after halving): 0, 15, 30 | 30, 45, 60; b as recorded: 10, 40, 70, 100, 130.
    let name = data.display();
    let r = |s: u64| format!("{name} read {} 4096", s * 512);
    let w = |s: u64| format!("{name} write {} 4096", (512 + s * 8) * 512);
    let want = [
        r(0),
        w(0),
        r(8),
        r(16),
        r(0),
        w(1),
        r(8),
        r(16),
        w(2),
        w(3),
        w(4),
    ];
    assert_eq!(logged_ios(&dir.path().join("iolab.log")), want);
    let merged = fs::read(dir.path().join("merged.bin")).unwrap();
    assert_eq!(merged.len(), 11 * 48, "eleven queued I/Os, no payloads");
    if fio_available() {
        let theirs = [
            "--name=r",
            "--read_iolog=merged.bin",
            &redirect,
            "--replay_no_stall=1",
            "--write_lat_log=back",
            "--log_offset=1",
        ];
        let (code, err) = run_in(dir.path(), "fio", &theirs);
        assert_eq!(code, 0, "fio: {err}");
        let mut fio = lat_logged_ios(&dir.path().join("back_lat.1.log"), &data);
        let mut mine = want.to_vec();
        fio.sort();
        mine.sort();
        assert_eq!(fio, mine, "fio replays the merged file's I/Os");
    }
    fs::remove_file(dir.path().join("merged.bin")).unwrap();
    let wrong = [
        "--name=m",
        "--read_iolog=a.bin:b.bin",
        "--merge_blktrace_file=merged.bin",
        "--merge_blktrace_scalars=50",
        &redirect,
    ];
    let (code, err) = run_in(dir.path(), "iolab", &wrong);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("merge_blktrace_scalars has 1 value(s) for 2 trace(s)"),
        "{err}"
    );
    assert!(!dir.path().join("merged.bin").exists());
    // fio 3.42's --merge-blktrace-only (which --cmdhelp lists): the merged file, the same
    // bytes as the merge of a run, and no I/O (no iolog, the data file untouched).
    fs::remove_file(dir.path().join("iolab.log")).unwrap();
    let before = fs::read(&data).unwrap();
    let mut only = ours.to_vec();
    only.push("--merge-blktrace-only");
    let (code, err) = run_in(dir.path(), "iolab", &only);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read(dir.path().join("merged.bin")).unwrap(), merged);
    assert!(!dir.path().join("iolab.log").exists(), "no I/O ran");
    assert_eq!(fs::read(&data).unwrap(), before);
}

#[test]
fn continue_on_error_goes_past_the_errors_fio_goes_past_and_counts_them_as_fio() {
    if !fio_available() {
        return;
    }
    // Writes past a 1 MiB RLIMIT_FSIZE fail with EFBIG (SIGXFSZ ignored, for both tools; the
    // limit leaves room for iolab's results database).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    for policy in [
        "--continue_on_error=write --ignore_error=,EFBIG",
        "--continue_on_error=write",
        "--continue_on_error=none",
    ] {
        let mut seen = Vec::new();
        for tool in ["fio", "iolab run"] {
            let data = dir.path().join("data");
            let _ = fs::remove_file(&data);
            let _ = fs::remove_file(&db);
            let tool = match tool {
                "fio" => "fio".to_string(),
                _ => format!("{} run", env!("CARGO_BIN_EXE_iolab")),
            };
            let cmd = format!(
                "trap '' XFSZ; exec prlimit --fsize=1048576 {tool} --name=e --filename={} \
                 --size=2m --rw=write --bs=4k --fallocate=none {policy} --output-format=json",
                data.display()
            );
            let o = std::process::Command::new("bash")
                .args(["-c", &cmd])
                .env("IOLAB_DB", &db)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            let v: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..])
                .unwrap_or_else(|e| panic!("{tool} {policy}: {e}: {text}"));
            let j = &v["jobs"][0];
            seen.push([
                j["error"].clone(),
                j["write"]["total_ios"].clone(),
                j["write"]["io_bytes"].clone(),
                j["total_err"].clone(),
                j["first_error"].clone(),
            ]);
        }
        assert_eq!(seen[1], seen[0], "iolab against fio with {policy}");
    }
}

#[test]
fn fill_device_fills_a_file_only_to_the_limits_iolab_keeps() {
    // Under a 1 MiB file size limit the file system's free space is not the bound: the
    // job's file grows to exactly the limit, and the job ends without an error.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fill");
    let db = dir.path().join("t.db");
    let cmd = format!(
        "exec prlimit --fsize=1048576 {} run --name=f --filename={} --rw=write --bs=64k \
         --fill_device=1",
        env!("CARGO_BIN_EXE_iolab"),
        f.display()
    );
    let o = std::process::Command::new("bash")
        .args(["-c", &cmd])
        .env("IOLAB_DB", &db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::metadata(&f).unwrap().len(), 1 << 20);
}

/// The normal report's figures in the job's style (`significant_figures`, `kb_base`,
/// `unit_base`), compared with fio's on what both must print alike: the bytes moved and the
/// units of the rates. Command-line options apply in the order given, as fio's: `size` before
/// `kb_base=1000` is still binary.
#[test]
fn number_style_and_option_order_print_as_fio() {
    if !fio_available() {
        return;
    }
    let io_field = |text: &str| -> (String, String) {
        let line = text
            .lines()
            .find(|l| l.contains("IOPS="))
            .unwrap_or_default();
        let io = line
            .rsplit_once('(')
            .map(|(_, r)| r.split('/').next().unwrap_or("").to_string());
        let bw = line.split("BW=").nth(1).unwrap_or("");
        // The prefix (K, M, G) follows the measured rate, which differs run to run; the
        // base (`KiB` against `kB`) and the order of the two rates are the style's.
        let units: String = bw
            .chars()
            .filter(|c| c.is_alphabetic() || *c == '/' || *c == '(')
            .take_while(|c| *c != 'm')
            .map(|c| if "kKMGTP".contains(c) { '_' } else { c })
            .collect();
        (io.unwrap_or_default(), units)
    };
    for extra in [
        &["--significant_figures=6"][..],
        &["--kb_base=1000", "--size=1m"],
        &["--size=1m", "--kb_base=1000"],
        &["--unit_base=1", "--significant_figures=2"],
    ] {
        let mut got = Vec::new();
        for tool in ["fio", "iolab"] {
            let dir = tempfile::tempdir().unwrap();
            let name = format!("--filename={}", dir.path().join("f").display());
            let mut args = vec!["--name=n", &name, "--size=1m", "--bs=4k", "--rw=read"];
            args.extend_from_slice(extra);
            let stdout = if tool == "fio" {
                let o = std::process::Command::new("fio")
                    .args(&args)
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&o.stdout).into_owned()
            } else {
                let mut a = vec!["run"];
                a.extend(&args);
                iolab(&a).stdout
            };
            got.push(io_field(&stdout));
        }
        assert!(!got[0].0.is_empty() && !got[0].1.is_empty(), "{got:?}");
        assert_eq!(got[1], got[0], "iolab against fio with {extra:?}");
    }
}
