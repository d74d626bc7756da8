//! One boot of the NVMe lab (`scripts/nvme-lab.sh`) running a guest script whose sections are
//! framed by "=== NAME" and "=== rc NAME STATUS", taken apart for the lab tests (`nvme_lab.rs`,
//! `spdk_lab.rs`). A lab that cannot be set up here (exit 125: no QEMU, not root, no SPDK
//! sources) is `None`, with the reason printed; one that fails otherwise fails the test.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Each section's output and exit status, by name.
pub type Sections = BTreeMap<String, (String, i32)>;

/// Boots the lab with `flags` (before `--`) and runs `guest` in it with this test's iolab.
pub fn boot(flags: &[&str], guest: &str) -> Option<Sections> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/nvme-lab.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args(flags)
        .arg("--")
        .arg(guest)
        .env("IOLAB", env!("CARGO_BIN_EXE_iolab"))
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(125) {
        let why = stderr.lines().rev().find(|l| l.starts_with("nvme-lab:"));
        eprintln!(
            "skipped: the NVMe lab cannot be set up here: {}",
            why.unwrap_or("")
        );
        return None;
    }
    assert!(
        out.status.success(),
        "the lab failed ({:?}); its stderr ends:\n{}",
        out.status,
        tail(&stderr, 60)
    );
    Some(sections(&String::from_utf8_lossy(&out.stdout)))
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Splits the guest's output at its `=== NAME` / `=== rc NAME STATUS` frames.
pub fn sections(out: &str) -> Sections {
    let mut map = Sections::new();
    let mut current: Option<(String, String)> = None;
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("=== rc ") {
            let (name, rc) = rest.rsplit_once(' ').expect("rc line");
            let (n, body) = current.take().expect("a section is open");
            assert_eq!(n, name);
            map.insert(n, (body, rc.parse().expect("status")));
        } else if let Some(name) = line.strip_prefix("=== ") {
            current = Some((name.to_string(), String::new()));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    map
}

/// The section (output and status).
pub fn section<'a>(s: &'a Sections, name: &str) -> &'a (String, i32) {
    s.get(name).unwrap_or_else(|| panic!("no section {name}"))
}

/// A section's stdout, stderr and exit status, for guest scripts that frame each command's
/// stderr after a `--- stderr` line (pi_lab, atomic_lab).
pub fn parts(s: &Sections, name: &str) -> (String, String, i32) {
    let (body, rc) = section(s, name);
    let (out, err) = body.split_once("--- stderr").unwrap_or((body, ""));
    (out.to_string(), err.to_string(), *rc)
}

/// The first job of the JSON a section's stdout holds (iolab's or fio's `--output-format=json`).
pub fn first_job(s: &Sections, name: &str) -> serde_json::Value {
    let (out, err, _) = parts(s, name);
    let at = out
        .find('{')
        .unwrap_or_else(|| panic!("{name}: no JSON: {out}{err}"));
    let v: serde_json::Value =
        serde_json::from_str(&out[at..]).unwrap_or_else(|e| panic!("{name}: {e}"));
    v["jobs"][0].clone()
}

/// Whether fio 3.42 ran in the guest's section `name` (scripts/fio-build.sh built it), saying
/// so when it did not.
pub fn fio_342_ran(s: &Sections, name: &str) -> bool {
    let ran = !parts(s, name).1.contains("not found");
    if !ran {
        println!("fio 3.42 not in the guest (bash scripts/fio-build.sh): iolab alone");
    }
    ran
}

/// The section's output, after checking it exited 0.
pub fn ok(s: &Sections, name: &str) -> String {
    let (body, rc) = section(s, name);
    assert_eq!(*rc, 0, "{name} exited {rc}:\n{body}");
    body.clone()
}

/// The first field of each line of a section that exited 0: the sums of a `sha256sum` or
/// `md5sum` of two places, one per line, for a test to compare.
pub fn sums(s: &Sections, name: &str) -> Vec<String> {
    ok(s, name)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}
