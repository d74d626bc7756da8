//! fio 3.42's per-I/O kernel flags on this machine's disk: `uncached=1` (RWF_DONTCACHE)
//! leaves none of the file in the page cache, as fio 3.42's does, where plain buffered I/O
//! leaves all of it; `atomic=1` (RWF_ATOMIC) on a disk without atomic writes is refused up
//! front, one line naming the limits, nothing written.

use std::path::Path;
use std::process::Command;

use crate::support::iolab;

/// Bytes of `file` in the page cache (`fincore`).
fn resident(file: &Path) -> u64 {
    let out = Command::new("fincore")
        .args(["-b", "-n", "-o", "RES"])
        .arg(file)
        .output()
        .expect("fincore (util-linux)");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn fio_342() -> Option<std::path::PathBuf> {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio/fio-3.42/fio");
    f.exists().then_some(f)
}

/// One 16 MiB buffered pass (`rw`) over `file` with `uncached` on or off.
fn pass(tool: Option<&Path>, file: &Path, engine: &str, rw: &str, uncached: u8) -> (i32, String) {
    let args = [
        "--name=u".to_string(),
        format!("--filename={}", file.display()),
        "--size=16m".into(),
        format!("--rw={rw}"),
        "--bs=128k".into(),
        format!("--ioengine={engine}"),
        format!("--uncached={uncached}"),
    ];
    match tool {
        None => {
            let db = file.with_extension("db");
            let mut a: Vec<&str> = vec!["run", "--db", db.to_str().unwrap()];
            a.extend(args.iter().map(String::as_str));
            let o = iolab(&a);
            (o.code, o.stderr)
        }
        Some(fio) => {
            let o = Command::new(fio).args(&args).output().unwrap();
            (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stderr).into(),
            )
        }
    }
}

#[test]
fn uncached_io_leaves_no_page_cache_as_fio_342s_does() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("u.dat");
    let fio = fio_342();
    if fio.is_none() {
        println!("note: no fio 3.42 build here (bash scripts/fio-build.sh): iolab alone");
    }
    for engine in ["pvsync2", "io_uring"] {
        for rw in ["write", "read"] {
            let mut got = Vec::new();
            for (who, tool) in [("iolab", None), ("fio 3.42", fio.as_deref())] {
                if who != "iolab" && tool.is_none() {
                    continue;
                }
                for uncached in [0, 1] {
                    if rw == "write" {
                        let _ = std::fs::remove_file(&file);
                    }
                    let (code, err) = pass(tool, &file, engine, rw, uncached);
                    if code != 0 && err.contains("Operation not supported") {
                        println!("skipped: this kernel or filesystem has no RWF_DONTCACHE: {err}");
                        return;
                    }
                    assert_eq!(code, 0, "{who} {engine} {rw} uncached={uncached}: {err}");
                    got.push((who, uncached, resident(&file)));
                }
            }
            println!("{engine} {rw}: {got:?}");
            let of = |who: &str, u: u8| got.iter().find(|g| g.0 == who && g.1 == u).map(|g| g.2);
            assert_eq!(of("iolab", 0), Some(16 << 20), "buffered: all of it cached");
            assert_eq!(of("iolab", 1), Some(0), "uncached: none of it cached");
            if let Some(theirs) = of("fio 3.42", 1) {
                assert!(of("iolab", 1).unwrap() <= theirs, "{engine} {rw}: {got:?}");
            }
        }
    }
}

#[test]
fn atomic_writes_on_a_disk_without_them_are_refused_up_front_naming_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.dat");
    let run = |extra: &[&str]| {
        let db = dir.path().join("r.db");
        let mut a = vec![
            "run",
            "--db",
            db.to_str().unwrap(),
            "--name=a",
            "--size=8m",
            "--rw=randwrite",
            "--runtime=1",
        ];
        let f = format!("--filename={}", file.display());
        a.push(&f);
        a.extend(extra);
        iolab(&a)
    };
    let limits = iolab_sysinfo::atomic::atomic_limits(&file);
    if limits.unit_max >= 4096 {
        println!("skipped: {} writes 4 KiB atomically here", file.display());
        return;
    }
    // A file still to be made: the disk's queue limits; nothing laid out.
    let out = run(&["--direct=1", "--ioengine=pvsync2", "--atomic=1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let line = out.stderr.trim();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("atomic write unit is 0 to 0 bytes"), "{line}");
    assert!(!file.exists(), "nothing laid out");
    // An existing file: statx's figures; not a byte written.
    std::fs::write(&file, vec![7u8; 8 << 20]).unwrap();
    for engine in ["pvsync2", "libaio", "io_uring"] {
        let out = run(&["--direct=1", &format!("--ioengine={engine}"), "--atomic=1"]);
        assert_eq!(out.code, 2, "{engine}: {}", out.stderr);
        assert!(
            out.stderr.contains("statx STATX_WRITE_ATOMIC"),
            "{}",
            out.stderr
        );
    }
    assert!(std::fs::read(&file).unwrap().iter().all(|b| *b == 7));
    // Buffered, and an engine without RWF_ATOMIC: refused for what they are.
    let out = run(&["--ioengine=pvsync2", "--atomic=1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("need direct=1"), "{}", out.stderr);
    let out = run(&["--direct=1", "--ioengine=psync", "--atomic=1"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("does not support atomic writes"),
        "{}",
        out.stderr
    );
}
