//! The test script's closing summary (scripts/test-summary.sh, what `scripts/test.sh` ends
//! with): a failure is named last and fails the script; a clean run says so and passes.

use std::process::Command;

fn summary(log: &str, status: i32) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.log");
    std::fs::write(&path, log).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/test-summary.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(&path)
        .arg(status.to_string())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_failing_test_is_named_last_and_fails_the_script() {
    let log = "test store::a ... ok\n\
               test results::export_round_trip ... FAILED\n\
               test result: FAILED. 1 passed; 1 failed; 0 ignored\n\
               test result: ok. 7 passed; 0 failed; 0 ignored\n";
    let (code, out) = summary(log, 101);
    assert_eq!(code, 101, "{out}");
    assert!(out.contains("iolab tests: 8 passed, 1 failed"), "{out}");
    assert_eq!(
        out.lines().last(),
        Some("  results::export_round_trip"),
        "{out}"
    );
}

#[test]
fn a_build_error_fails_the_script_with_the_status() {
    let (code, out) = summary("error[E0425]: cannot find value\n", 101);
    assert_eq!(code, 101);
    assert!(
        out.lines()
            .last()
            .unwrap()
            .contains("exited with status 101"),
        "{out}"
    );
}

#[test]
fn a_clean_run_says_so_and_passes() {
    let (code, out) = summary("test result: ok. 3 passed; 0 failed; 0 ignored\n", 0);
    assert_eq!(
        (code, out.trim()),
        (
            0,
            "iolab tests: 3 passed, 0 failed, 0 skipped in whole or in part (0 of them on a \
             busy machine)"
        )
    );
}

/// libtest's times (`--report-time`) after a failure, and the tests that skipped, counted
/// from their shown output (`--show-output`), busy machines apart.
#[test]
fn skips_are_counted_and_timed_failures_named() {
    let log = "test a::slow ... ok <1.200s>\n\
               test b::timed ... FAILED <0.300s>\n\
               successes:\n\n\
               ---- a::slow stdout ----\n\
               skipped the zram case: no /dev/zram0\n\
               ---- c::rate stdout ----\n\
               skipped a throttle: the machine is busy (load 2.0 of 2)\n\
               skipped again: counted once\n\n\
               successes:\n    a::slow\n\n\
               test result: FAILED. 2 passed; 1 failed; 0 ignored\n";
    let (code, out) = summary(log, 101);
    assert_eq!(code, 101);
    assert!(
        out.contains("2 passed, 1 failed, 2 skipped in whole or in part (1 of them on a busy"),
        "{out}"
    );
    assert!(out.contains("  c::rate: skipped a throttle"), "{out}");
    assert_eq!(out.lines().last(), Some("  b::timed"), "{out}");
}
