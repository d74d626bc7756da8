//! fio job files end to end: the seeds' job files run unchanged on every backing kind, the
//! errors a job file can produce, and a differential suite running the same job files through
//! Debian's fio and through iolab and comparing what must agree.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{backings, device_lock, iolab, loop_device, Backing};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn json_of(out: &crate::support::Out, what: &str) -> Value {
    assert_eq!(out.code, 0, "{what}\nstderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", out.stdout))
}

fn names_and_groups(v: &Value) -> Vec<(String, u64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}

pub fn fio_available() -> bool {
    match Command::new("fio").arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            eprintln!("skipped: fio is not installed (apt-get install fio)");
            false
        }
    }
}

/// The SPDK blog's QD1 job file, as printed, with ioengine and filename on the command line
/// as the blog passed them. `--runtime-cap` shortens its 10 s ramps and 240 s runs.
#[test]
fn spdk_blog_job_file_runs_unchanged_on_every_backing() {
    let _lock = device_lock();
    let job = fixture("spdk-blog-optane-p4800x.fio");
    for b in backings(32 << 20) {
        let target = b.path().display().to_string();
        let out = iolab(&[
            "run",
            "--ioengine=io_uring",
            &format!("--filename={target}"),
            "--allow-destroy",
            "--runtime-cap=300ms",
            "--output-format=json",
            job.to_str().unwrap(),
        ]);
        let v = json_of(&out, b.kind());
        assert_eq!(
            names_and_groups(&v),
            vec![
                ("precondition-sequential".to_string(), 0),
                ("4k_randwrite_qd1".to_string(), 1),
                ("4k_randread_qd1".to_string(), 2)
            ],
            "{}",
            b.kind()
        );
        let jobs = v["jobs"].as_array().unwrap();
        // The precondition job has no size: it writes the whole target once.
        let size = match &b {
            Backing::File(_, p) => fs::metadata(p).unwrap().len(),
            _ => device_size(b.path()),
        };
        assert_eq!(jobs[0]["write"]["io_bytes"], size, "{}", b.kind());
        assert_eq!(jobs[0]["read"]["total_ios"], 0);
        assert_eq!(jobs[0]["desc"], "Sequentially write to the device");
        assert!(jobs[1]["write"]["total_ios"].as_u64().unwrap() > 0);
        assert_eq!(jobs[1]["read"]["total_ios"], 0);
        assert!(jobs[2]["read"]["total_ios"].as_u64().unwrap() > 0);
        for (j, d) in [(&jobs[1], "write"), (&jobs[2], "read")] {
            // percentile_list=50:99:99.999 on total latency only; slat and bw disabled.
            assert_eq!(
                keys(&j[d]["lat_ns"]["percentile"]),
                vec!["50.000000", "99.000000", "99.999000"]
            );
            assert!(j[d]["clat_ns"].get("percentile").is_none());
            assert_eq!(j[d]["slat_ns"]["N"], 0);
            assert_eq!(j[d]["bw_samples"], 0);
            assert_eq!(j["iodepth_level"]["1"], 100.0);
        }
        let g = &v["global options"];
        assert_eq!(g["percentile_list"], "50:99:99.999");
        assert_eq!(g["ioengine"], "io_uring", "command-line globals are listed");
    }
}

fn device_size(p: &Path) -> u64 {
    let name = fs::canonicalize(p).unwrap();
    let name = name.file_name().unwrap().to_string_lossy().to_string();
    let sectors: u64 = fs::read_to_string(format!("/sys/block/{name}/size"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    sectors * 512
}

/// Runs `program args` in a private mount namespace where `/dev/nvme0n1` is `target` (a
/// device node with the target's numbers, or a link to a file): the hosting review's job file
/// names that device, and it must run without an edit. None when namespaces are unavailable.
fn in_namespace_as_nvme(
    target: &Path,
    program: &str,
    args: &[&str],
) -> Option<crate::support::Out> {
    let make = match fs::canonicalize(target).ok()? {
        p if p.starts_with("/dev") => {
            let name = p.file_name()?.to_string_lossy().to_string();
            let dev = fs::read_to_string(format!("/sys/block/{name}/dev")).ok()?;
            let (maj, min) = dev.trim().split_once(':')?;
            format!("mknod /dev/nvme0n1 b {maj} {min}")
        }
        p => format!("ln -s {} /dev/nvme0n1", p.display()),
    };
    let script = format!("mount -t tmpfs iolab-test /dev && {make} && exec \"$0\" \"$@\"");
    let o = Command::new("unshare")
        .env("IOLAB_DB", crate::support::test_db())
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            &script,
            program,
        ])
        .args(args)
        .output()
        .ok()?;
    let out = crate::support::Out::of(&o);
    if out.stderr.contains("unshare failed") || out.stderr.contains("mount: ") {
        eprintln!("skipped: no private mount namespace: {}", out.stderr.trim());
        return None;
    }
    Some(out)
}

/// The hosting review's job file, as printed (it names /dev/nvme0n1), on each backing kind;
/// and, where fio is installed, fio on the same target: the same jobs, groups and exact bytes.
#[test]
fn hosting_review_job_file_runs_unchanged_and_agrees_with_fio() {
    let _lock = device_lock();
    let job = fixture("hosting-review-optane-750gb.fio");
    let job = job.to_str().unwrap();
    let with_fio = fio_available();
    let mut kinds = backings(64 << 20);
    kinds.retain(|b| !matches!(b, Backing::Loop(_)));
    if let Some(l) = loop_device(64 << 20, false) {
        kinds.push(Backing::Loop(l));
    }
    for b in kinds {
        let size = match &b {
            Backing::File(_, p) => fs::metadata(p).unwrap().len(),
            _ => device_size(b.path()),
        };
        let Some(out) = in_namespace_as_nvme(
            b.path(),
            env!("CARGO_BIN_EXE_iolab"),
            &["run", "--allow-destroy", "--output-format=json", job],
        ) else {
            return;
        };
        let ours = json_of(&out, b.kind());
        assert_eq!(
            names_and_groups(&ours),
            vec![("readtest".to_string(), 0), ("writetest".to_string(), 0)],
            "{}",
            b.kind()
        );
        // No size and no time_based: each job transfers the whole target once.
        assert_eq!(ours["jobs"][0]["read"]["io_bytes"], size, "{}", b.kind());
        assert_eq!(ours["jobs"][1]["write"]["io_bytes"], size, "{}", b.kind());
        assert_eq!(ours["jobs"][0]["iolab"]["engine"], "libaio");
        if !with_fio {
            continue;
        }
        let fio = in_namespace_as_nvme(b.path(), "fio", &["--output-format=json", job]).unwrap();
        let theirs = json_of(&fio, &format!("fio on {}", b.kind()));
        assert_eq!(names_and_groups(&ours), names_and_groups(&theirs));
        for (i, d) in [(0, "read"), (1, "write")] {
            for k in ["io_bytes", "total_ios"] {
                assert_eq!(
                    ours["jobs"][i][d][k],
                    theirs["jobs"][i][d][k],
                    "{} {d}.{k}",
                    b.kind()
                );
            }
        }
        assert_eq!(
            keys(&ours["jobs"][0]["job options"]),
            keys(&theirs["jobs"][0]["job options"])
        );
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

#[test]
fn job_file_errors_name_file_and_line_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t");
    let head = format!(
        "[global]\nfilename={}\nsize=1m\n\n[first]\nrw=write\n\n[second]\n",
        target.display()
    );
    let cases = [
        (
            "profile=tiobench\n",
            ":9: option 'profile' is not supported by iolab: fio's built-in profiles",
        ),
        (
            "iodepht=4\n",
            ":9: unknown option 'iodepht' (did you mean 'iodepth'?)",
        ),
        ("bs=4q\n", ":9: option 'bs': bad value '4q'"),
        (
            // Unset is empty, as in fio, which drops the job: refused, naming the variable.
            "rw=${IOLAB_SURELY_UNSET}\n",
            ":9: option 'rw' is empty: the environment variable IOLAB_SURELY_UNSET",
        ),
        ("iodepth=0\n", ":8: job 'second': iodepth"),
    ];
    for (line, needle) in cases {
        let f = write(dir.path(), "bad.fio", &format!("{head}{line}"));
        let out = iolab(&["run", f.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{line}: {}", out.stderr);
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
        let want = format!("{}{needle}", f.display());
        assert!(
            out.stderr.contains(&want),
            "wanted {want}\ngot {}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
        assert!(!target.exists(), "{line}: the first job ran");
    }
    let out = iolab(&["run", "/nonexistent/x.fio"]);
    assert_eq!(out.code, 2);
    assert!(out
        .stderr
        .contains("cannot read job file /nonexistent/x.fio"));
}

#[test]
fn parse_only_prints_the_jobs_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t");
    let f = write(
        dir.path(),
        "p.fio",
        &format!(
            "[global]\nfilename={}\nsize=1m\n[a]\nrw=randwrite\nbs=8k\n[b]\nstonewall\nrw=read\n",
            target.display()
        ),
    );
    let out = iolab(&[
        "run",
        "--parse-only",
        "--ioengine=libaio",
        f.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "a: (g=0): rw=randwrite, bs=(R) 8192B-8192B, (W) 8192B-8192B, (T) 8192B-8192B, ioengine=libaio, iodepth=1\n\
         b: (g=1): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=1\n"
    );
    assert!(!target.exists());
}

/// What must agree between the two tools' figures, beyond structure.
#[derive(Clone, Copy, PartialEq)]
enum Agree {
    /// Bytes, I/O counts and sync counts per direction (size-based, deterministic split).
    Exact,
    /// Bytes per direction (block sizes vary, so I/O counts do not).
    Bytes,
    /// Total bytes within one block (a random read/write split).
    Total,
    /// IOPS within 5 % (rate-limited, time-based).
    Iops,
}

/// One differential case: a job file (with `@T@` standing for the target file) run by both.
struct Case {
    name: &'static str,
    text: &'static str,
    agree: Agree,
}

const CASES: &[Case] = &[
    Case {
        name: "filename-list",
        text: "[global]\nfilename=@D@/fa:@D@/fb\nsize=1m\n[m]\nrw=randwrite\nioengine=libaio\n\
               iodepth=4\ndirect=1\n[r]\nstonewall\nrw=read\nnumjobs=2\n",
        agree: Agree::Exact,
    },
    Case {
        name: "default-filenames-in-directory",
        text: "[global]\ndirectory=@D@\nsize=256k\n[d]\nrw=write\nnumjobs=2\n",
        agree: Agree::Exact,
    },
    Case {
        name: "fsync-every-4",
        text: "[global]\nfilename=@T@\nsize=256k\n[s]\nrw=randwrite\nfsync=4\nend_fsync=1\n",
        agree: Agree::Exact,
    },
    Case {
        name: "fdatasync-every-3",
        text: "[global]\nfilename=@T@\nsize=256k\n[s]\nrw=write\nfdatasync=3\n",
        agree: Agree::Exact,
    },
    Case {
        name: "unified-mixed",
        text: "[global]\nfilename=@T@\nsize=256k\n[m]\nrw=randrw\nunified_rw_reporting=mixed\n",
        agree: Agree::Exact,
    },
    Case {
        name: "zipf-and-pareto",
        text: "[global]\nfilename=@T@\nsize=1m\n[z]\nrw=randread\nrandom_distribution=zipf:1.2\n\
               [p]\nrw=randread\nrandom_distribution=pareto:0.3\n[n]\nrw=randread\n\
               random_distribution=normal:5\nnorandommap\n",
        agree: Agree::Exact,
    },
    Case {
        name: "bssplit-and-bsrange",
        text: "[global]\nfilename=@T@\nsize=2m\n[b]\nrw=randwrite\nbssplit=4k/50:64k/50\n\
               [r]\nstonewall\nrw=read\nbsrange=4k-16k\n",
        agree: Agree::Bytes,
    },
    Case {
        name: "rate-iops",
        text: "[global]\nfilename=@T@\nsize=1m\n[r]\nrw=randread\nrate_iops=400\n\
               time_based\nruntime=1\n",
        agree: Agree::Iops,
    },
    Case {
        name: "buffers",
        text: "[global]\nfilename=@T@\nsize=256k\nrw=write\n[z]\nzero_buffers\n\
               [c]\nbuffer_compress_percentage=50\nrefill_buffers\n[s]\nscramble_buffers=0\n",
        agree: Agree::Exact,
    },
    Case {
        name: "stonewall-groups-numjobs",
        text: "[global]\nfilename=@T@\nsize=1m\nioengine=psync\ngroup_reporting\n\
               [a]\nrw=read\nnumjobs=2\n[b]\nrw=write\n[c]\nstonewall\nrw=randread\n\
               [d]\nnew_group\nrw=randwrite\nbs=8k\n[e]\nwait_for_previous\nrw=read\n",
        agree: Agree::Exact,
    },
    Case {
        name: "no-group-reporting-numjobs",
        text: "[global]\nfilename=@T@\nsize=512k\n[x]\nrw=randread\nnumjobs=3\n",
        agree: Agree::Exact,
    },
    Case {
        name: "loops-and-startdelay",
        text: "[global]\nfilename=@T@\n[l]\nsize=256k\nrw=read\nloops=3\nstartdelay=100ms\n",
        agree: Agree::Exact,
    },
    Case {
        name: "percentiles-and-disables",
        text: "[global]\nfilename=@T@\nsize=1m\nioengine=libaio\niodepth=4\ndirect=1\n\
               [p]\nrw=randread\nlat_percentiles=1\nclat_percentiles=0\n\
               percentile_list=10:50:99.5\ndisable_slat=1\ndisable_bw=1\n",
        agree: Agree::Exact,
    },
    Case {
        name: "split-block-sizes-and-mix",
        text: "[global]\nfilename=@T@\nsize=1m\n[m]\nrw=rw\nbs=4k,16k\nrwmixwrite=30\n",
        agree: Agree::Total,
    },
    Case {
        name: "gtod-reduce-io-uring",
        text: "; a comment\n# another\n[global]\nfilename=@T@\nsize=2m\nthread\n\
               [u]\nioengine=io_uring\niodepth=8\nrw=randwrite\ndirect=1\ngtod_reduce=1\n",
        agree: Agree::Exact,
    },
];

/// Every case through fio and iolab, on one temp file: the same jobs in the same groups, the
/// same directions reporting, exact bytes and I/O counts for size-based jobs, the same
/// percentile keys, and every field iolab writes present in fio's output.
#[test]
fn job_files_agree_with_real_fio() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    fs::write(&target, vec![0u8; 2 << 20]).unwrap();
    for case in CASES {
        let text = case
            .text
            .replace("@T@", target.to_str().unwrap())
            .replace("@D@", dir.path().to_str().unwrap());
        let f = write(dir.path(), &format!("{}.fio", case.name), &text);
        let f = f.to_str().unwrap();
        let window = crate::support::Window::open();
        let ours = json_of(
            &iolab(&["run", "--allow-destroy", "--output-format=json", f]),
            case.name,
        );
        let fio = Command::new("fio")
            .args(["--output-format=json", f])
            .output()
            .unwrap();
        assert!(
            fio.status.success(),
            "{}: {}",
            case.name,
            String::from_utf8_lossy(&fio.stderr)
        );
        let theirs: Value = serde_json::from_slice(&fio.stdout).unwrap();
        compare(case, &ours, &theirs, &window);
    }
    // A list of files: the size split evenly between them.
    for f in ["fa", "fb"] {
        assert_eq!(
            fs::metadata(dir.path().join(f)).unwrap().len(),
            512 << 10,
            "{f}"
        );
    }
    // fio's default names, in `directory`, one file per copy.
    assert!(dir.path().join("d.0.0").exists() && dir.path().join("d.1.0").exists());
}

fn compare(case: &Case, ours: &Value, theirs: &Value, window: &crate::support::Window) {
    let c = case.name;
    assert_eq!(
        names_and_groups(ours),
        names_and_groups(theirs),
        "{c}: jobs and groups"
    );
    let (oj, tj) = (
        ours["jobs"].as_array().unwrap(),
        theirs["jobs"].as_array().unwrap(),
    );
    for (o, t) in oj.iter().zip(tj) {
        let job = format!("{c}/{}", o["jobname"]);
        let newer = iolab_fio::json::FIO_342_JOB_KEYS;
        for k in keys(o).iter().filter(|k| *k != "iolab") {
            let theirs = t.get(k).is_some() || newer.contains(&k.as_str());
            assert!(theirs, "{job}: key {k} is not fio's");
        }
        for k in ["read", "write", "trim", "mixed", "sync"] {
            assert_eq!(o.get(k).is_some(), t.get(k).is_some(), "{job}: has {k}");
        }
        assert_eq!(
            keys(&o["job options"]),
            keys(&t["job options"]),
            "{job}: job options"
        );
        let dirs = ["read", "write", "trim", "mixed"]
            .into_iter()
            .filter(|d| o.get(d).is_some());
        for d in dirs {
            let reports = |v: &Value| v[d]["total_ios"].as_u64().unwrap() > 0;
            assert_eq!(reports(o), reports(t), "{job}: does {d} report");
            for k in keys(&o[d]) {
                assert!(t[d].get(&k).is_some(), "{job}: {d}.{k} is not fio's");
            }
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                let pk = |v: &Value| keys(&v[d][lat]["percentile"]);
                let (op, tp) = (pk(o), pk(t));
                if !tp.is_empty() && !op.is_empty() {
                    // iolab's default list is fio's (its p99.999 is under iolab's name).
                    assert_eq!(op, tp, "{job}: {d}.{lat} percentiles");
                } else {
                    assert_eq!(op.is_empty(), tp.is_empty(), "{job}: {d}.{lat} percentiles");
                }
                assert_eq!(
                    o[d][lat]["N"].as_u64().unwrap() > 0,
                    t[d][lat]["N"].as_u64().unwrap() > 0,
                    "{job}: is {d}.{lat} recorded"
                );
            }
            match case.agree {
                Agree::Exact => {
                    assert_eq!(o[d]["io_bytes"], t[d]["io_bytes"], "{job}: {d}.io_bytes");
                    assert_eq!(o[d]["total_ios"], t[d]["total_ios"], "{job}: {d}.total_ios");
                }
                Agree::Bytes => {
                    assert_eq!(o[d]["io_bytes"], t[d]["io_bytes"], "{job}: {d}.io_bytes")
                }
                Agree::Iops => {
                    let (a, b) = (
                        o[d]["iops"].as_f64().unwrap(),
                        t[d]["iops"].as_f64().unwrap(),
                    );
                    // A rate is kept only where the CPUs were the tools' (fio fell to a
                    // quarter of a 400-IOPS rate beside two CPU hogs).
                    let figures = format!("{job}: {d}.iops {a} vs fio {b}");
                    let ok = (a - b).abs() <= b * 0.05;
                    assert!(
                        crate::support::holds_or_busy_in(ok, Some(window), "a rate", &figures),
                        "{figures}"
                    );
                }
                Agree::Total => {}
            }
        }
        if case.agree == Agree::Exact && o.get("sync").is_some() {
            assert_eq!(
                o["sync"]["total_ios"], t["sync"]["total_ios"],
                "{job}: sync.total_ios"
            );
        }
        if case.agree == Agree::Total {
            let sum = |v: &Value| {
                v["read"]["io_bytes"].as_u64().unwrap() + v["write"]["io_bytes"].as_u64().unwrap()
            };
            // A mixed job stops once its size is transferred, whatever the split.
            let (a, b) = (sum(o), sum(t));
            assert!(a.abs_diff(b) <= 16384, "{job}: {a} vs {b} bytes");
        }
    }
    assert_eq!(
        ours.get("global options").map(keys),
        theirs.get("global options").map(keys),
        "{c}: global options"
    );
}

/// Empties /dev/zram0 (its counters too) and gives it 1 GiB again. Callers hold the device
/// lock.
pub fn reset_zram() {
    fs::write("/sys/block/zram0/reset", "1").unwrap();
    fs::write("/sys/block/zram0/disksize", "1G").unwrap();
}

/// zram compresses what it stores, so it shows what write buffers hold: random data (the
/// default) barely compresses, `buffer_compress_percentage=50` halves, `zero_buffers` stores
/// nothing at all.
#[test]
fn write_buffer_content_shows_in_zram_compression() {
    let _lock = device_lock();
    let Some(zram) = backings(1 << 20)
        .into_iter()
        .find(|b| matches!(b, Backing::Zram(_)))
    else {
        return;
    };
    let stat = |field: usize| -> u64 {
        fs::read_to_string("/sys/block/zram0/mm_stat")
            .unwrap()
            .split_whitespace()
            .nth(field)
            .unwrap()
            .parse()
            .unwrap()
    };
    let mut ratios = Vec::new();
    for extra in [
        None,
        Some("--buffer_compress_percentage=50"),
        Some("--zero_buffers"),
    ] {
        reset_zram();
        let target = format!("--filename={}", zram.path().display());
        let mut args = vec![
            "run",
            "--name=c",
            &target,
            "--rw=write",
            "--bs=128k",
            "--size=32m",
            "--direct=1",
            "--allow-destroy",
        ];
        args.extend(extra);
        let out = iolab(&args);
        assert_eq!(out.code, 0, "{extra:?}: {}", out.stderr);
        // mm_stat: orig_data_size, compr_data_size, ..., same_pages (zero pages) is field 5.
        let (orig, compr, same) = (stat(0), stat(1), stat(5));
        ratios.push((orig, compr, same));
    }
    reset_zram();
    let full = 32u64 << 20;
    let (orig, compr, _) = ratios[0];
    assert_eq!(orig, full, "random data: every page stored");
    assert!(
        compr as f64 > 0.95 * full as f64,
        "random data compressed to {compr}"
    );
    let (orig, compr, _) = ratios[1];
    assert_eq!(orig, full);
    let r = compr as f64 / full as f64;
    assert!(
        (0.4..0.65).contains(&r),
        "50% compressible data compressed to {r:.2}"
    );
    let (_, compr, same) = ratios[2];
    assert_eq!(compr, 0, "zero pages take no compressed space: {ratios:?}");
    assert_eq!(
        same,
        full / 4096,
        "every page is a same-filled page: {ratios:?}"
    );
}

/// The I/O logs: the same files as fio writes, with fio's five columns, one line per I/O (or
/// per window with log_avg_msec), directions and block sizes as fio has them.
#[test]
fn io_logs_match_fios_files() {
    if !fio_available() {
        return;
    }
    // The rate-limited windows need a machine that is not saturated: run apart from the
    // device tests, which load both CPUs.
    let _g = device_lock();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let job = format!(
        "[global]\nfilename={}\n[per-io]\nrw=randrw\nsize=256k\nioengine=libaio\niodepth=2\n\
         write_lat_log=a\nwrite_iops_log=a\nwrite_bw_log=a\n\
         [windows]\nstonewall\nrw=randread\nsize=1m\ntime_based\nruntime=1\nrate_iops=2000\n\
         write_bw_log=w\nwrite_iops_log=w\nwrite_lat_log=w\nlog_avg_msec=100\n",
        target.display()
    );
    let run = |tool: &str| -> std::collections::BTreeMap<String, Vec<Vec<u64>>> {
        let cwd = dir.path().join(tool);
        fs::create_dir_all(&cwd).unwrap();
        fs::write(cwd.join("j.fio"), &job).unwrap();
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
            // The test made the target: writing an existing file needs consent.
            c.args(["run", "--allow-destroy"])
                .env("IOLAB_DB", crate::support::test_db());
            c
        };
        let o = cmd.arg("j.fio").current_dir(&cwd).output().unwrap();
        assert!(
            o.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        fs::read_dir(&cwd)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .map(|p| {
                let rows = fs::read_to_string(&p)
                    .unwrap()
                    .lines()
                    .map(|l| l.split(", ").map(|v| v.trim().parse().unwrap()).collect())
                    .collect();
                (p.file_name().unwrap().to_string_lossy().to_string(), rows)
            })
            .collect()
    };
    // The windows' rates hold only while the machine gives the job its time: measured.
    let window = crate::support::Window::open();
    let ours = run("iolab");
    let ours_window = window.busy();
    let theirs = run("fio");
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "the same log files"
    );
    for (name, rows) in &ours {
        let fio_rows = &theirs[name];
        assert!(rows.iter().all(|r| r.len() == 5), "{name}: five columns");
        if name.starts_with("a_") {
            // Per I/O: one line each, the same directions and sizes in total.
            assert_eq!(rows.len(), fio_rows.len(), "{name}: lines");
            let count = |r: &Vec<Vec<u64>>, d: u64| r.iter().filter(|x| x[2] == d).count();
            assert_eq!(count(rows, 0) + count(rows, 1), 64, "{name}");
            assert!(rows.iter().all(|r| r[3] == 4096), "{name}: block sizes");
        } else if name.contains("slat") {
            // psync (the default engine) has no submission latency: an empty file, as fio's.
            assert!(rows.is_empty() && fio_rows.is_empty(), "{name}");
        } else {
            // 100 ms windows over 1 s: about ten lines; IOPS about 2000 in each. fio's
            // windows are cut by its helper thread and vary with load (3 to 10 lines seen
            // here for the same job), so fio is only held to writing some.
            // Load-free: some windows, none over the rate's bound, fio's too.
            assert!(
                (1..=11).contains(&rows.len()),
                "{name}: {} lines",
                rows.len()
            );
            assert!(!fio_rows.is_empty(), "{name}: fio wrote none");
            let lines_ok = (8..=11).contains(&rows.len());
            let quiet = |ok: bool, what: &str, figures: String| match (ok, &ours_window) {
                (true, _) => {}
                (false, Some(load)) => {
                    println!("skipped: busy: {what} ({figures}): {load}")
                }
                (false, None) => panic!("{what}: {figures} on a quiet machine"),
            };
            quiet(
                lines_ok,
                "ten 100 ms windows",
                format!("{name}: {} lines", rows.len()),
            );
            if name.starts_with("w_iops") {
                // The rate holds in every window but the last, which the job's end can cut
                // short; no window ever passes the rate, at any load.
                let (last, full) = rows.split_last().unwrap();
                assert!(rows.iter().all(|r| r[1] <= 2300), "{rows:?}");
                assert!(last[1] > 0, "{rows:?}");
                let steady = full.iter().all(|r| (1700..=2300).contains(&r[1]));
                quiet(
                    steady,
                    "2000 IOPS in every full window",
                    format!("{rows:?}"),
                );
            }
        }
    }
}

/// `filename=a:b` across two block devices: each gets its half of `size`, at its start.
#[test]
fn a_file_list_spans_devices() {
    let _lock = device_lock();
    let Some(zram) = backings(1 << 20)
        .into_iter()
        .find(|b| matches!(b, Backing::Zram(_)))
    else {
        return;
    };
    let Some(lo) = loop_device(8 << 20, false) else {
        return;
    };
    reset_zram();
    let files = format!("--filename={}:{}", zram.path().display(), lo.path.display());
    let out = iolab(&[
        "run",
        "--name=span",
        &files,
        "--rw=write",
        "--bs=64k",
        "--size=4m",
        "--direct=1",
        "--ioengine=io_uring",
        "--iodepth=4",
        "--allow-destroy",
        "--output-format=json",
    ]);
    let v = json_of(&out, "span");
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], 4 << 20);
    let data = fs::read(&lo.backing).unwrap();
    let written = |d: &[u8]| d.chunks(4096).filter(|c| c.iter().any(|&b| b != 0)).count();
    assert_eq!(
        written(&data[..2 << 20]),
        512,
        "loop: its 2 MiB half written"
    );
    assert_eq!(written(&data[2 << 20..]), 0, "loop: nothing past its half");
    let mut z = vec![0u8; 4 << 20];
    use std::io::Read;
    fs::File::open(zram.path())
        .unwrap()
        .read_exact(&mut z)
        .unwrap();
    assert_eq!(written(&z[..2 << 20]), 512, "zram: its 2 MiB half written");
    assert_eq!(written(&z[2 << 20..]), 0, "zram: nothing past its half");
}
