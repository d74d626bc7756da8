//! The progress line, as a user at a terminal sees it: stderr on a pseudo-terminal 80
//! columns wide, stdout on a pipe. The line names what runs and counts the time left down,
//! every frame fits the width, and nothing of it reaches stdout; `--quiet` and a stderr that
//! is not a terminal get no line at all.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

use crate::support::test_db;

const COLUMNS: u16 = 80;

/// A pseudo-terminal of `COLUMNS` columns: (master, slave).
fn pty() -> (std::fs::File, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: COLUMNS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes the two descriptors it opens; both are owned from here on.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: fresh descriptors from openpty, owned by nothing else.
    unsafe {
        (
            std::fs::File::from_raw_fd(master),
            OwnedFd::from_raw_fd(slave),
        )
    }
}

/// Runs iolab with stderr on a pseudo-terminal: (exit code, stdout, what the terminal got).
fn on_terminal(args: &[&str]) -> (i32, String, String) {
    let (mut master, slave) = pty();
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", test_db())
        .env("TERM", "xterm")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    // The terminal's side ends (EIO) when the last holder of the slave, the child, exits.
    let mut term = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = master.read(&mut buf) {
        if n == 0 {
            break;
        }
        term.extend_from_slice(&buf[..n]);
    }
    let code = child.wait().unwrap().code().unwrap_or(-1);
    (
        code,
        out.join().unwrap(),
        String::from_utf8_lossy(&term).into_owned(),
    )
}

/// The frames the terminal was drawn: the text between carriage returns and newlines, with
/// escape sequences taken out.
fn frames(term: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = term.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters final-byte.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain
        .split(['\r', '\n'])
        .map(|f| f.trim_end().to_string())
        .filter(|f| !f.is_empty())
        .collect()
}

/// The seconds left each frame said, in order ("ETA 1m05s" is 65).
fn etas(frames: &[String]) -> Vec<u64> {
    frames
        .iter()
        .filter_map(|f| f.rsplit_once("ETA ").map(|(_, t)| t.trim()))
        .filter_map(|t| {
            let (m, s) = match t.split_once('m') {
                Some((m, s)) => (m.parse::<u64>().ok()?, s.trim_end_matches('s')),
                None => (0, t.trim_end_matches('s')),
            };
            Some(m * 60 + s.parse::<u64>().ok()?)
        })
        .collect()
}

fn assert_counts_down(what: &str, term: &str, names: &[&str]) {
    let frames = frames(term);
    let progress: Vec<&String> = frames.iter().filter(|f| f.contains("ETA ")).collect();
    assert!(
        progress.len() >= 3,
        "{what}: too few progress frames: {frames:#?}"
    );
    // The progress frames fit the width (log lines, such as the start line, may wrap).
    for f in &progress {
        assert!(
            f.chars().count() <= COLUMNS as usize,
            "{what}: a frame wider than the terminal: {f:?}"
        );
    }
    for n in names {
        assert!(
            progress.iter().any(|f| f.contains(n)),
            "{what}: no frame names {n}: {progress:#?}"
        );
    }
    let left = etas(&frames);
    let (first, last) = (left[0], *left.last().unwrap());
    assert!(
        first > last,
        "{what}: the time left did not count down: {left:?}"
    );
    let mut distinct = left.clone();
    distinct.dedup();
    assert!(distinct.len() >= 3, "{what}: {left:?}");
}

#[test]
fn a_run_shows_one_line_that_counts_down_on_the_terminal_and_nothing_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let job = [
        "run",
        "--name=counted",
        &f,
        "--size=4m",
        "--rw=randread",
        "--ioengine=psync",
        "--runtime=3",
        "--time_based",
        "--repeat=2",
    ];
    let (code, stdout, term) = on_terminal(&job);
    assert_eq!(code, 0, "{term}");
    assert_counts_down(
        "run",
        &term,
        &["[repeat 1/2]", "[repeat 2/2]", "job counted"],
    );
    assert!(
        term.contains("iolab: 1 job(s), 2 repeats, planned 6s"),
        "{term}"
    );
    assert!(
        !stdout.contains("ETA") && !stdout.contains('\r'),
        "{stdout}"
    );
    assert!(stdout.contains("counted: (groupid=0"), "{stdout}");
    // The current rates, as fio's ETA line shows them, once the first second is measured.
    let live = frames(&term)
        .into_iter()
        .find(|f| f.contains("IOPS]"))
        .unwrap_or_else(|| panic!("no frame with live figures: {term}"));
    assert!(
        live.contains("[r=") && live.contains("iB/s][r=") && !live.contains("w="),
        "{live}"
    );

    let mut quiet = job.to_vec();
    quiet.push("--quiet");
    quiet.retain(|a| *a != "--repeat=2");
    let (code, _, term) = on_terminal(&quiet);
    assert_eq!(code, 0, "{term}");
    assert!(
        !term.contains("ETA") && !term.contains("planned"),
        "--quiet: {term}"
    );

    // A stderr that is not a terminal (a log) gets no line, only the end line.
    let out = crate::support::iolab(&job);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stderr.contains("ETA") && !out.stderr.contains('\r'),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("iolab: saved as run"), "{}", out.stderr);
}

#[test]
fn a_quick_review_shows_its_step_and_the_time_left() {
    let (code, stdout, term) =
        on_terminal(&["review", "--quick", "--steps", "qd1-engines,transfer-size"]);
    assert_eq!(code, 0, "{term}");
    assert_counts_down("review", &term, &["qd1-engines", "transfer-size"]);
    assert!(!stdout.contains("ETA"), "{stdout}");
    assert!(
        frames(&term)
            .iter()
            .any(|f| f.contains("IOPS]") && f.contains("[r=")),
        "the review's points show their live figures: {term}"
    );
    // Each point's figures stay on the terminal when it ends, a line of their own.
    assert!(
        term.lines().any(|l| l.contains("qd1-engines] 1/")
            && l.contains(" IOPS ")
            && l.contains("clat mean")
            && l.contains("p99")),
        "each point's figures as it ends: {term}"
    );
}

/// SIGUSR1 asks for the status: fio prints its current results; iolab says where the run
/// stands with its current rates and what each direction has done so far.
#[test]
fn sigusr1_prints_the_current_figures() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let db = crate::support::test_db();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "run",
            "--name=asked",
            &f,
            "--size=4m",
            "--rw=randrw",
            "--runtime=4",
        ])
        .args(["--time_based", "--output-format=json"])
        .arg(format!("--db={}", db.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGUSR1) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let status = err
        .lines()
        .find(|l| l.starts_with("iolab: status:"))
        .unwrap_or_else(|| panic!("no status line: {err}"));
    assert!(
        status.contains("[r=") && status.contains(",w=") && status.contains("IOPS]"),
        "{status}"
    );
    assert!(
        status.contains("so far: read ") && status.contains("I/Os"),
        "{status}"
    );
}
