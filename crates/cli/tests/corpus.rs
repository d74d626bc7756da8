//! The project's corpus of job files (`tests/corpus/`): the shapes people's own job files
//! take (cloud disk guides' IOPS and throughput jobs, Kubernetes storage checks, a
//! CrystalDiskMark-style set, SSD qualification, a file-system suite's many-file jobs,
//! database logs, preconditioning, steady state, logs, verification, rate limits, ...),
//! written for iolab's tests. `scripts/fio_examples.py` shrinks each onto temporary files and
//! runs it through fio and iolab: every file fio runs must run in iolab with fio's bytes and
//! I/Os or be refused with one line (exit 2), and iolab must run at least 95 % of them.
//! Skipped with a printed reason without fio or python3.

use std::path::Path;
use std::process::Command;

#[test]
fn iolab_runs_the_corpus_as_fio() {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if !have("fio") || !have("python3") {
        eprintln!("skipped: the corpus needs fio and python3");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/fio_examples.py"))
        .arg(root.join("crates/cli/tests/corpus"))
        .args(["--iolab", env!("CARGO_BIN_EXE_iolab")])
        .output()
        .expect("python3 runs");
    let table = String::from_utf8_lossy(&out.stdout);
    eprintln!("{table}");
    // The summary and the rows of the files that failed first, where a shortened log keeps
    // them; the whole table after.
    let summary: Vec<&str> = table.lines().rev().take(2).collect();
    let failed: Vec<&str> = summary
        .iter()
        .find_map(|l| l.split("not as they should: ").nth(1))
        .map(|names| names.split(", ").collect())
        .unwrap_or_default();
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| failed.iter().any(|n| l.starts_with(&format!("| {n} |"))))
        .collect();
    assert!(
        out.status.success(),
        "a file fio runs did not run in iolab as it should:\n{}\n{}\n{}\n{table}",
        rows.join("\n"),
        summary.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    let last = table.lines().last().unwrap_or("");
    let n = |word: &str| -> u32 {
        let at = last
            .find(word)
            .unwrap_or_else(|| panic!("no '{word}' in {last}"))
            + word.len();
        last[at..]
            .split_whitespace()
            .next()
            .unwrap()
            .trim_end_matches(';')
            .parse()
            .unwrap()
    };
    let (fio, both) = (n("fio runs "), n("iolab runs "));
    assert!(fio >= 35, "fio runs {fio} of the corpus: {last}");
    assert!(
        both * 100 >= fio * 95,
        "iolab runs {both} of fio's {fio}: {last}"
    );
}
