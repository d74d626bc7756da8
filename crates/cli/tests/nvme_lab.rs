//! The NVMe lab (`scripts/nvme-lab.sh`): Debian's kernel under QEMU's software emulation with
//! an emulated NVMe drive that has poll queues. One boot runs `nvme_lab/guest.sh`, whose
//! sections every test here reads: polling that really polled (the drive's interrupts did not
//! rise), pvsync2's hipri that the kernel served by interrupt, NVMe passthrough through
//! `/dev/ng0n1`, iolab and fio agreeing on every engine, the main job and the quick review.
//! Figures are emulation speed: only behaviour and counts are checked, never timings.
//! Skipped with a printed reason where the lab cannot be set up (no QEMU, not root).

use std::sync::OnceLock;

use serde_json::Value;

#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{ok, Sections};

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| lab::boot(&["--timeout", "1200"], include_str!("nvme_lab/guest.sh")))
        .as_ref()
}

/// The section's JSON (fio prints notes before it).
fn json(s: &Sections, name: &str) -> Value {
    let body = ok(s, name);
    let start = body.find("\n{").map_or(0, |i| i + 1);
    serde_json::from_str(&body[start..])
        .unwrap_or_else(|e| panic!("{name}: not JSON ({e}):\n{body}"))
}

/// (read ios, read bytes, write ios, write bytes) of a fio-style JSON's first job.
fn counts(v: &Value) -> (u64, u64, u64, u64) {
    let j = &v["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or(0);
    (
        n("read", "total_ios"),
        n("read", "io_bytes"),
        n("write", "total_ios"),
        n("write", "io_bytes"),
    )
}

#[test]
fn the_drive_has_poll_queues() {
    let Some(s) = lab() else { return };
    assert_eq!(ok(s, "io_poll").trim(), "1");
}

#[test]
fn doctor_checks_the_nvme_drive_and_its_power_states() {
    let Some(s) = lab() else { return };
    let v = json(s, "doctor");
    let checks = v["checks"].as_array().unwrap();
    let get = |n: &str| {
        checks
            .iter()
            .find(|c| c["name"] == n)
            .unwrap_or_else(|| panic!("no {n} in {v}"))
    };
    // The nvme driver is loaded in the lab: its power-state setting is read, not n/a.
    assert_ne!(get("NVMe power states")["verdict"], "not_applicable", "{v}");
    assert_eq!(
        get("io_poll")["value"],
        "1",
        "the lab's drive has poll queues"
    );
    for n in [
        "nomerges",
        "io_poll_delay",
        "I/O scheduler",
        "device",
        "format",
    ] {
        assert!(!get(n)["value"].as_str().unwrap().is_empty(), "{n}");
    }
    assert!(get("device")["value"]
        .as_str()
        .unwrap()
        .starts_with("nvme0n1"));
}

#[test]
fn io_uring_hipri_polls_and_says_nothing_fell_back() {
    let Some(s) = lab() else { return };
    let v = json(s, "uring_hipri");
    assert_eq!(counts(&v).0, 16384);
    let iolab = &v["jobs"][0]["iolab"];
    assert!(iolab["fallback"].is_null(), "{iolab}");
    let irqs = iolab["device_interrupts"]
        .as_u64()
        .expect("the drive's interrupts counted");
    assert!(
        irqs < 16384 / 20,
        "{irqs} interrupts for 16384 polled reads"
    );
}

/// The lab's split of one run's reads; its part `p`'s mean and p99 (ns).
fn split_part(v: &Value, p: &str) -> (f64, f64) {
    let s = &v["jobs"][0]["iolab"]["lat_split"]["read"][p];
    let mean = s["mean_ns"]
        .as_f64()
        .unwrap_or_else(|| panic!("no {p} in {v}"));
    (mean, s["percentile"]["99.000000"].as_f64().unwrap())
}

#[test]
fn the_split_puts_polled_completions_in_the_poll_loop_and_the_command_inside_the_device() {
    let Some(s) = lab() else { return };
    let (hipri, irq) = (json(s, "split_hipri"), json(s, "split_irq"));
    for (name, v) in [("hipri", &hipri), ("irq", &irq)] {
        let split = &v["jobs"][0]["iolab"]["lat_split"]["read"];
        let (joined, issued) = (split["joined_ios"].as_f64(), split["issued_ios"].as_f64());
        let (joined, issued) = (joined.unwrap(), issued.unwrap());
        assert!(
            joined >= 0.99 * issued,
            "{name}: {joined} of {issued} joined"
        );
        // The NVMe driver's completion comes before the block layer's.
        let (nvme, device) = (split_part(v, "nvme_device"), split_part(v, "device"));
        assert!(
            nvme.0 <= device.0,
            "{name}: nvme {nvme:?} > device {device:?}"
        );
        assert!(
            nvme.1 <= device.1 * 1.01,
            "{name}: nvme p99 {nvme:?} > device {device:?}"
        );
    }
    let polled = hipri["jobs"][0]["iolab"]["device_interrupts"]
        .as_u64()
        .unwrap();
    assert!(
        polled < 16384 / 20,
        "{polled} interrupts for 16384 polled reads"
    );
    let (poll_c, irq_c) = (
        split_part(&hipri, "completion").0,
        split_part(&irq, "completion").0,
    );
    assert!(
        poll_c < irq_c,
        "polled completion {poll_c} ns not below the interrupt path's {irq_c} ns"
    );
}

#[test]
fn pvsync2_hipri_carries_the_note_that_the_kernel_used_interrupts() {
    let Some(s) = lab() else { return };
    let v = json(s, "pvsync2_hipri");
    assert_eq!(counts(&v).0, 16384);
    let iolab = &v["jobs"][0]["iolab"];
    let why = iolab["fallback"].as_str().expect("a fallback");
    assert!(why.contains("by interrupt"), "{why}");
    assert!(iolab["notes"].to_string().contains("by interrupt"));
    assert!(iolab["device_interrupts"].as_u64().unwrap() >= 16384 / 2);
}

#[test]
fn passthrough_reads_the_same_blocks_as_fio() {
    let Some(s) = lab() else { return };
    let ours = counts(&json(s, "cmd"));
    assert_eq!(ours, (16384, 64 << 20, 0, 0));
    assert_eq!(counts(&json(s, "cmd_fio")), ours);
    let polled = json(s, "cmd_polled");
    assert_eq!(counts(&polled).0, 16384);
    let irqs = polled["jobs"][0]["iolab"]["device_interrupts"]
        .as_u64()
        .unwrap();
    assert!(
        irqs < 16384 / 20,
        "{irqs} interrupts for 16384 polled commands"
    );
}

#[test]
fn passthrough_writes_land_on_the_blocks_asked() {
    let Some(s) = lab() else { return };
    assert_eq!(counts(&json(s, "cmd_write")).2, 64);
    let sums = lab::sums(s, "lba_check");
    assert_eq!(sums.len(), 2, "{sums:?}");
    assert_eq!(
        sums[0], sums[1],
        "the drive's first 12 MiB are not rand|zeros|rand"
    );
}

#[test]
fn iolab_and_fio_agree_on_bytes_and_ios_on_every_engine() {
    let Some(s) = lab() else { return };
    for e in ["psync", "pvsync2", "libaio", "io_uring", "io_uring_cmd"] {
        for rw in ["randread", "write"] {
            let ours = counts(&json(s, &format!("iolab-{e}-{rw}")));
            let fios = counts(&json(s, &format!("fio-{e}-{rw}")));
            assert_eq!(
                ours, fios,
                "{e} {rw}: iolab (r ios, r bytes, w ios, w bytes) vs fio"
            );
            assert_eq!(ours.1 + ours.3, 8 << 20, "{e} {rw}");
        }
    }
}

#[test]
fn the_main_job_has_every_path_and_what_claims_polling_polled() {
    let Some(s) = lab() else { return };
    let v = json(s, "main_job");
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().filter_map(|j| j["jobname"].as_str()).collect();
    let paths = [
        "psync",
        "pvsync2",
        "pvsync2+hipri",
        "libaio",
        "io_uring",
        "io_uring+iopoll",
        "io_uring+sqpoll",
        "io_uring_cmd",
        "io_uring_cmd+iopoll",
        "null",
    ];
    for p in paths {
        for rw in ["randread", "randwrite"] {
            let n = format!("qd1-{rw}-{p}");
            assert!(names.contains(&n.as_str()), "no {n} (n/a?) in {names:?}");
        }
    }
    for j in jobs {
        let name = j["jobname"].as_str().unwrap();
        let iolab = &j["iolab"];
        let ios =
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
        let irqs = iolab["device_interrupts"].as_u64();
        if name.ends_with("+iopoll") {
            assert!(
                irqs.unwrap() * 20 < ios,
                "{name}: {irqs:?} interrupts for {ios} I/Os"
            );
            assert!(iolab["fallback"].is_null(), "{name}");
        }
        if name.ends_with("pvsync2+hipri") {
            assert!(
                iolab["fallback"].is_string(),
                "{name}: pvsync2 hipri said it polled"
            );
        }
    }
}

#[test]
fn the_quick_review_completes_with_polling_beside_interrupts() {
    let Some(s) = lab() else { return };
    let out = ok(s, "review");
    assert!(
        out.contains("deallocated"),
        "precondition did not deallocate:\n{out}"
    );
    let poll = out
        .split(". poll-vs-irq — ")
        .nth(1)
        .unwrap_or_else(|| panic!("no polling step:\n{out}"));
    // The "completed by" cell of a path's row.
    let by = |p: &str| {
        let row = poll
            .lines()
            .find(|l| l.split('|').nth(1).map(str::trim) == Some(p))
            .unwrap_or_else(|| panic!("no {p} row:\n{poll}"));
        row.split('|').nth(2).unwrap_or("").trim().to_string()
    };
    assert!(
        by("io_uring+iopoll").starts_with("polling"),
        "{}",
        by("io_uring+iopoll")
    );
    assert!(
        by("io_uring").starts_with("interrupts"),
        "{}",
        by("io_uring")
    );
    assert!(by("pvsync2+hipri").starts_with("interrupts, not polling"));
    assert!(
        out.contains("io_uring_cmd+iopoll"),
        "passthrough not in the QD1 table"
    );
}

#[test]
fn an_untouched_drive_says_no_throttling_and_its_peak() {
    let Some(s) = lab() else { return };
    let out = ok(s, "health_cool");
    // QEMU's drive reports 323 K; read before, every second (3 s under TCG) and after.
    let line = out
        .lines()
        .find(|l| l.starts_with("iolab: drive health (nvme0): "))
        .unwrap_or_else(|| panic!("no health line:\n{out}"));
    assert!(line.contains("no throttling, peak 50 °C ("), "{line}");
    let readings: u32 = line
        .rsplit('(')
        .next()
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(readings >= 3, "not sampled during the run: {line}");
}

#[test]
fn a_drive_put_over_its_threshold_mid_run_says_so_everywhere() {
    let Some(s) = lab() else { return };
    let v = json(s, "health_hot");
    let drives = v["iolab"]["drive_health"].as_array().expect("drive_health");
    let d = drives
        .iter()
        .find(|d| d["drive"] == "nvme0")
        .unwrap_or_else(|| panic!("no nvme0 in {drives:?}"));
    assert_eq!(d["changed"], true, "{d}");
    let verdict = d["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("crossed its warning temperature: 50 °C at")
            && verdict.contains("threshold 0 °C")
            && verdict.contains("critical warning raised during the run: temperature"),
        "{verdict}"
    );
    let samples = d["samples"].as_array().unwrap();
    assert!(samples.len() >= 3, "{d}");
    // Before the host lowered it, the threshold was QEMU's warning temperature (343 K).
    assert_eq!(samples[0]["threshold_k"], 343, "{d}");
    assert_eq!(samples[0]["critical_warning"], 0, "{d}");
    assert_eq!(samples.last().unwrap()["threshold_k"], 273, "{d}");
    // show, compare's verdicts and the report say it too.
    let show = ok(s, "health_show");
    assert!(
        show.contains("drive health (nvme0) in h: crossed its warning temperature"),
        "{show}"
    );
    let compare = ok(s, "health_compare");
    assert!(
        compare.contains("run 2's drive changed under the test"),
        "{compare}"
    );
    let report = ok(s, "health_report");
    for want in [
        "temperature-1",
        "temperature-2",
        "critical warning",
        "class=\"warn\"",
        "no throttling, peak 50 °C",
    ] {
        assert!(report.contains(want), "{want} not in the report:\n{report}");
    }
}

#[test]
fn a_consistency_step_samples_the_health_log_and_draws_the_temperature() {
    let Some(s) = lab() else { return };
    ok(s, "health_review");
    let v = json(s, "health_review_json");
    let jobs = v["jobs"].as_array().expect("jobs");
    let job = jobs
        .iter()
        .find(|j| j["step"] == "consistency")
        .unwrap_or_else(|| panic!("no consistency job in {v}"));
    let samples = job["health"][0]["samples"].as_array().expect("samples");
    // Before, after, and at least two seconds sampled between.
    assert!(samples.len() >= 4, "{}", job["health"]);
    let count: u32 = ok(s, "health_review_report").trim().parse().unwrap_or(0);
    assert!(
        count >= 1,
        "no temperature chart in the consistency section"
    );
}

#[test]
fn hipri_without_poll_queues_runs_where_fio_runs_it_and_says_by_interrupt() {
    let Some(s) = lab() else { return };
    assert_eq!(
        ok(s, "unpolled_io_poll").trim(),
        "0",
        "the poll queues are gone"
    );
    for (ours, fios) in [
        ("unpolled_uring", "unpolled_uring_fio"),
        ("unpolled_cmd", "unpolled_cmd_fio"),
    ] {
        let v = json(s, ours);
        let f = json(s, fios);
        assert_eq!(
            counts(&v),
            counts(&f),
            "{ours}: iolab and fio moved the same I/Os"
        );
        assert_eq!(counts(&v).0, 4096, "{ours}");
        let iolab = &v["jobs"][0]["iolab"];
        let notes = iolab["notes"].to_string();
        assert!(notes.contains("has no poll queues"), "{ours}: {notes}");
        let why = iolab["fallback"].as_str().expect("a fallback: not polled");
        assert!(why.contains("by interrupt"), "{ours}: {why}");
        assert!(
            iolab["device_interrupts"].as_u64().unwrap() >= 4096 / 2,
            "{ours}"
        );
    }
}
