//! What iolab writes is what fio writes: the same job through both tools leaves files whose
//! every 512-byte block carries fio's `scramble_buffers` stamps (the block's offset at the
//! start of one cache line, the same line across an I/O; the submit time at bytes 48..64),
//! so a compressing device sees the same kind of data from either.

use std::fs;
use std::process::Command;

use crate::jobfiles::fio_available;
use crate::support::iolab;

/// For each 4 KiB I/O of `data`: the cache line holding every block's offset, if there is
/// one line that does so for all eight blocks; and whether the time stamp at 48..64 is the
/// same in all eight.
fn stamps(data: &[u8]) -> Vec<(Option<usize>, bool)> {
    let u64_at = |o: usize| u64::from_ne_bytes(data[o..o + 8].try_into().unwrap());
    data.chunks(4096)
        .enumerate()
        .map(|(io, chunk)| {
            let base = io * 4096;
            let line = (0..8).find(|l| {
                (0..chunk.len() / 512).all(|b| {
                    let at = base + b * 512;
                    u64_at(at + l * 64) == at as u64
                })
            });
            let time = u64_at(base + 48) as u128 | (u64_at(base + 56) as u128) << 64;
            let same_time = (1..8).all(|b| {
                let at = base + b * 512;
                (u64_at(at + 48) as u128 | (u64_at(at + 56) as u128) << 64) == time
            });
            (line, same_time)
        })
        .collect()
}

/// The job `args` (fio's options) through `tool`, "iolab" or "fio": whether it succeeded.
/// iolab may overwrite the target (the tests own it), as fio does.
fn run_tool(tool: &str, args: &[String]) -> bool {
    if tool == "fio" {
        return Command::new("fio")
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
    }
    let mut a: Vec<&str> = vec!["run", "--allow-destroy"];
    a.extend(args.iter().map(String::as_str));
    iolab(&a).code == 0
}

#[test]
fn writes_carry_fios_scramble_stamps() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for tool in ["iolab", "fio"] {
        let f = dir.path().join(tool);
        let args = [
            "--name=w".to_string(),
            format!("--filename={}", f.display()),
            "--rw=randwrite".into(),
            "--bs=4k".into(),
            "--size=256k".into(),
            "--ioengine=psync".into(),
        ];
        let ok = run_tool(tool, &args);
        assert!(ok, "{tool} failed");
        let s = stamps(&fs::read(&f).unwrap());
        assert_eq!(s.len(), 64, "{tool}");
        for (i, (line, same_time)) in s.iter().enumerate() {
            assert!(line.is_some(), "{tool}: I/O {i} has no offset stamp line");
            assert!(same_time, "{tool}: I/O {i}'s blocks carry different times");
        }
        // The line varies with the submit time: not every I/O uses the same one.
        let lines: std::collections::BTreeSet<usize> = s.iter().filter_map(|x| x.0).collect();
        assert!(lines.len() > 1, "{tool}: one line for every I/O: {lines:?}");
    }
}

/// The same size-based write job through both tools leaves zram holding the same: stored
/// and compressed bytes, same-filled and incompressible ("huge") pages within 5 %.
#[test]
fn zram_stores_the_same_from_both_tools() {
    if !fio_available() {
        return;
    }
    let _g = crate::support::device_lock();
    let dev = match crate::support::zram() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let mm_stat = || -> Vec<u64> {
        fs::read_to_string("/sys/block/zram0/mm_stat")
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect()
    };
    let args: Vec<String> = vec![
        "--name=fill".into(),
        format!("--filename={}", dev.display()),
        "--direct=1".into(),
        "--rw=randwrite".into(),
        "--bs=4k".into(),
        "--ioengine=libaio".into(),
        "--iodepth=8".into(),
        "--size=64m".into(),
    ];
    let mut stats = Vec::new();
    for tool in ["iolab", "fio"] {
        crate::jobfiles::reset_zram();
        let ok = run_tool(tool, &args);
        assert!(ok, "{tool} failed");
        stats.push(mm_stat());
    }
    crate::jobfiles::reset_zram();
    // orig_data_size, compr_data_size, same_pages, huge_pages.
    for (field, name) in [(0, "orig"), (1, "compr"), (5, "same"), (7, "huge")] {
        let (a, b) = (stats[0][field] as f64, stats[1][field] as f64);
        let close = (a - b).abs() <= 0.05 * a.max(b);
        assert!(close, "{name}: iolab {a} fio {b} ({stats:?})");
    }
}
