//! fio's value grammar against fio's own parse: a generated grid of values (every unit in
//! every case and form, under kb_base=1024 and 1000, decimals, signs, hex, stray words,
//! spaces, arithmetic with and without parentheses, and the time forms) is given to the
//! installed fio (3.33) and to fio 3.42 built from ../shared/sources (scripts/fio-build.sh;
//! Debian's 3.33 lacks the arithmetic), which print what they read under `--debug=parse`
//! (`ret=0, out=N`). For every value:
//! - iolab's model of fio's reading (`fio_reads_size`, `fio_reads_time`) equals fio's, so
//!   the refusals name what fio would really have done;
//! - iolab, applying the option to a job, either takes exactly fio's value or refuses the
//!   value with one line; it never takes another one (no misread);
//! - every plainly written value (a whole number and a unit fio knows) is taken.
//!
//! Skipped, saying why, where neither fio is there.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use iolab_fio::units::{fio_reads_size, fio_reads_time};
use iolab_fio::JobDraft;
use iolab_job::SizeSpec;

/// The fio binaries to compare with: the installed one and the 3.42 build, where present.
fn fios() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for path in [
        PathBuf::from("fio"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio/fio-3.42/fio"),
    ] {
        match Command::new(&path).arg("--version").output() {
            Ok(o) if o.status.success() => {
                let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
                out.push((v, path));
            }
            _ => println!(
                "note: no {} here (apt-get install fio; bash scripts/fio-build.sh)",
                path.display()
            ),
        }
    }
    out
}

/// fio's reading of `option=value` for each value: `Some(out)` for `ret=0`, `None` where fio
/// refused it. Values are given many to a process; fio stops at the first it refuses, and
/// the rest go to the next one.
fn fio_parse(fio: &Path, pre: &[&str], option: &str, values: &[String]) -> Vec<Option<u64>> {
    let mut out = Vec::with_capacity(values.len());
    while out.len() < values.len() {
        let rest = &values[out.len()..];
        let mut cmd = Command::new(fio);
        cmd.args([
            "--debug=parse",
            "--parse-only",
            "--name=g",
            "--ioengine=null",
        ]);
        cmd.args(pre.iter().map(|p| format!("--{p}")));
        cmd.args(rest.iter().map(|v| format!("--{option}={v}")));
        let o = cmd.output().expect("fio runs");
        let text =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        let before = out.len();
        let mut pending = false;
        for line in text.lines() {
            let line = line.trim_end();
            if line.contains(&format!(" handle_option={option}, ptr=")) {
                pending = true;
            } else if let (true, Some(r)) = (pending, line.split_once("ret=")) {
                pending = false;
                let (ret, val) = r.1.split_once(", out=").expect("ret=R, out=N");
                out.push((ret == "0").then(|| val.parse().expect("a number")));
                if ret != "0" {
                    break;
                }
            }
        }
        if pending {
            // Refused before its value was read (fio's option-level checks).
            out.push(None);
        }
        assert!(
            out.len() > before,
            "fio read none of {:?}:\n{text}",
            &rest[..1]
        );
        if o.status.success() {
            assert_eq!(out.len(), values.len(), "fio printed a reading per value");
        } else if out.last().is_some_and(|v| v.is_some()) {
            // Read, then refused for its range: fio's reading stands, the value is out.
        }
    }
    out
}

const NUMBERS: [&str; 16] = [
    "0", "1", "4", "16", "1000", "+4", "-4", "1.5", "0.5", ".5", "0x10", "0X1f", "1e3", "10x",
    "4 ", "007",
];

/// Every size unit as fio users write them: bare, `b`, `i`, `ib`, in three cases, for each
/// prefix; plus words fio half-reads.
fn size_units() -> Vec<String> {
    let mut u = vec!["".into(), "b".into(), "B".into()];
    for p in ["k", "m", "g", "t", "p"] {
        for form in ["", "b", "i", "ib"] {
            let w = format!("{p}{form}");
            u.push(w.clone());
            u.push(w.to_uppercase());
            // Each word capitalised (`Ki`, `KiB`, `Kb`), as people write IEC units.
            let mut c = w.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            let cap = format!("{first}{}", c.as_str().replace('b', "B"));
            u.push(cap);
        }
    }
    for odd in [
        "q", "kbytes", "k+512", "k*2", " k", "kx", "%", "i", "bk", "e",
    ] {
        u.push(odd.into());
    }
    u.sort();
    u.dedup();
    u
}

fn plain_size(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let digits = lower.trim_start_matches(|c: char| c.is_ascii_digit());
    digits.len() < lower.len()
        && !lower.starts_with('0')
        && ["", "b"]
            .iter()
            .map(|s| s.to_string())
            .chain(
                ["k", "m", "g", "t", "p"]
                    .iter()
                    .flat_map(|p| ["", "b", "i", "ib"].iter().map(move |f| format!("{p}{f}"))),
            )
            .any(|u| u == digits)
}

fn iolab_size(kb: &str, option: &str, v: &str) -> Result<u64, String> {
    let mut d = JobDraft::new("g");
    d.apply("kb_base", Some(kb)).unwrap();
    d.apply(option, Some(v)).map_err(|e| e.to_string())?;
    Ok(match option {
        "size" => match d.spec.size {
            Some(SizeSpec::Bytes(b)) => b,
            Some(SizeSpec::Percent(p)) => u64::MAX - p as u64,
            None => panic!("size={v} set no size"),
        },
        "offset" => match d.spec.offset {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => u64::MAX - p as u64,
        },
        "bs" => d.spec.block_size[0] as u64,
        "iodepth" => d.spec.iodepth as u64,
        _ => unreachable!(),
    })
}

fn iolab_time(option: &str, v: &str) -> Result<u64, String> {
    let mut d = JobDraft::new("g");
    d.apply(option, Some(v)).map_err(|e| e.to_string())?;
    let t = match option {
        "runtime" => d.spec.runtime.unwrap_or(Duration::ZERO),
        "ramp_time" => d.spec.ramp_time,
        "thinktime" => d.spec.think.time,
        _ => unreachable!(),
    };
    Ok(t.as_micros() as u64)
}

/// Checks one option over its values against one fio; returns (taken, refused) counts.
fn check(
    fio: &(String, PathBuf),
    pre: &[&str],
    option: &str,
    values: &[String],
    model: impl Fn(&str) -> Option<u64>,
    iolab: impl Fn(&str) -> Result<u64, String>,
    plain: impl Fn(&str) -> bool,
) -> (usize, usize) {
    let readings = fio_parse(&fio.1, pre, option, values);
    let (mut taken, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for (v, fio_read) in values.iter().zip(&readings) {
        let modelled = model(v);
        if modelled != *fio_read {
            failures.push(format!(
                "{option}={v:?}: fio read {fio_read:?}, iolab's model of fio {modelled:?}"
            ));
        }
        match iolab(v) {
            Ok(got) if Some(got) == *fio_read => taken += 1,
            Ok(got) => failures.push(format!(
                "{option}={v:?}: iolab took {got}, fio {fio_read:?}"
            )),
            Err(e) if plain(v) => {
                failures.push(format!("{option}={v:?}: plainly written, refused: {e}"))
            }
            Err(e) => {
                assert!(!e.contains('\n'), "one line: {e}");
                refused += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} ({} {}): {} of {} values disagree:\n{}",
        fio.0,
        pre.join(" "),
        option,
        failures.len(),
        values.len(),
        failures.join("\n")
    );
    (taken, refused)
}

#[test]
fn sizes_read_as_fio_reads_them_or_refused() {
    let fios = fios();
    if fios.is_empty() {
        println!("skipped: no fio to compare with");
        return;
    }
    let units = size_units();
    let grid: Vec<String> = NUMBERS
        .iter()
        .flat_map(|n| units.iter().map(move |u| format!("{n}{u}")))
        .collect();
    let small: Vec<String> = ["1", "4", "2", "1.5", "0x10", "4 "]
        .iter()
        .flat_map(|n| {
            ["", "k", "Ki", "kib", "KiB", "kB", "q", "m"]
                .iter()
                .map(move |u| format!("{n}{u}"))
        })
        .collect();
    for fio in &fios {
        for kb in ["1024", "1000"] {
            let kbn: u64 = kb.parse().unwrap();
            let pre = [format!("kb_base={kb}")];
            let pre: Vec<&str> = pre.iter().map(String::as_str).collect();
            let model = |v: &str| fio_reads_size(v, kbn).map(|(n, _)| n);
            let (t, r) = check(
                fio,
                &pre,
                "size",
                &grid,
                model,
                |v| iolab_size(kb, "size", v),
                plain_size,
            );
            println!(
                "{} kb_base={kb} size: {} values, {t} read as fio, {r} refused",
                fio.0,
                grid.len()
            );
            assert!(t > 300, "most of the grid is plainly written");
            check(
                fio,
                &pre,
                "bs",
                &small,
                model,
                |v| iolab_size(kb, "bs", v),
                |_| false,
            );
            check(
                fio,
                &pre,
                "iodepth",
                &small[..16],
                model,
                |v| iolab_size(kb, "iodepth", v),
                |_| false,
            );
        }
        let percents: Vec<String> = ["50%", "12.5%", "100%", "+5%", "0%"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        check(
            fio,
            &[],
            "offset",
            &percents,
            |v| fio_reads_size(v, 1024).map(|(n, _)| n),
            |v| iolab_size("1024", "offset", v),
            |v| !v.contains('.'),
        );
    }
}

#[test]
fn times_read_as_fio_reads_them_or_refused() {
    let fios = fios();
    if fios.is_empty() {
        println!("skipped: no fio to compare with");
        return;
    }
    let units = [
        "", "s", "S", "sec", "us", "usec", "US", "ms", "msec", "MS", "Ms", "m", "M", "min", "h",
        "H", "d", "D", "x", " s", "hours", "mss",
    ];
    let grid: Vec<String> = ["0", "1", "10", "+10", "1.5", "0.5", "0x10", "-1", "007"]
        .iter()
        .flat_map(|n| units.iter().map(move |u| format!("{n}{u}")))
        .collect();
    let plain = |v: &str| {
        let u = v.trim_start_matches(|c: char| c.is_ascii_digit());
        u.len() < v.len()
            && ["", "s", "us", "usec", "ms", "msec", "m", "h", "d"]
                .contains(&u.to_ascii_lowercase().as_str())
    };
    for fio in &fios {
        for (option, seconds) in [("runtime", true), ("ramp_time", true), ("thinktime", false)] {
            let (t, r) = check(
                fio,
                &[],
                option,
                &grid,
                |v| fio_reads_time(v, seconds),
                |v| iolab_time(option, v),
                plain,
            );
            println!(
                "{} {option}: {} values, {t} read as fio, {r} refused",
                fio.0,
                grid.len()
            );
        }
    }
}

/// Arithmetic in parentheses, generated from operands with and without units and decimals
/// and every operator; fio 3.42 only (Debian's 3.33 is built without it).
#[test]
fn arithmetic_read_as_fio_3_42_reads_it_or_refused() {
    let Some(fio) = fios().into_iter().find(|(v, _)| v == "fio-3.42") else {
        println!("skipped: no fio 3.42 build (bash scripts/fio-build.sh makes one)");
        return;
    };
    let exprs = |operands: &[&str]| -> Vec<String> {
        let mut out = Vec::new();
        for a in operands {
            out.push(format!("({a})"));
            for op in ["+", "-", "*", "/", "%", "^"] {
                for b in operands {
                    out.push(format!("({a}{op}{b})"));
                }
            }
        }
        out
    };
    let sizes = exprs(&[
        "4k", "1.5", "2", "0x10", "1m", "512", "0", "3kib", "1.5k", "2mb",
    ])
    .into_iter()
    .filter(|e| {
        !e.contains("^1m")
            && !e.contains("^512")
            && !e.contains("^4k")
            && !e.contains("^0x10")
            && !e.contains("^2mb")
            && !e.contains("^3kib")
    })
    .chain(
        [
            "(-2+5)", "( 4 k )", "(4ki)", "(1e3)", "(1+2k)", "(2*3k)", "(3k/2)", "(6/2k)",
            "(4k, 8k)",
        ]
        .map(String::from),
    )
    .collect::<Vec<_>>();
    for kb in ["1024", "1000"] {
        let pre = [format!("kb_base={kb}")];
        let pre: Vec<&str> = pre.iter().map(String::as_str).collect();
        let (t, r) = check(
            &fio,
            &pre,
            "size",
            &sizes,
            |v| fio_reads_size(v, 1024).map(|(n, _)| n),
            |v| iolab_size(kb, "size", v),
            |_| false,
        );
        println!(
            "fio-3.42 kb_base={kb} size: {} expressions, {t} read as fio, {r} refused",
            sizes.len()
        );
        if kb == "1024" {
            assert!(t > sizes.len() / 3, "most expressions mean what fio reads");
        }
    }
    let times = exprs(&["1m", "30s", "0.5", "2", "1500ms", "100us", "0", "1h"])
        .into_iter()
        .filter(|e| !e.contains('^') || e.ends_with("^2)") || e.ends_with("^0)"))
        .collect::<Vec<_>>();
    for (option, seconds) in [("runtime", true), ("thinktime", false)] {
        let (t, r) = check(
            &fio,
            &[],
            option,
            &times,
            |v| fio_reads_time(v, seconds),
            |v| iolab_time(option, v),
            |_| false,
        );
        println!(
            "fio-3.42 {option}: {} expressions, {t} read as fio, {r} refused",
            times.len()
        );
    }
}
