//! `zonemode=zbd` on the NVMe lab's zoned namespace (`scripts/nvme-lab.sh --zoned`: 64 MiB
//! zones, host-managed). One boot runs `zbd_lab/guest.sh`: fio and then iolab run the same
//! jobs from the same zone state (fio's zbd examples among them, shrunk onto the drive), and
//! util-linux's blkzone reports the write pointers each leaves. Checked: the same bytes and
//! I/Os, the same write pointers where the job decides them, and where racing copies or a
//! clock do (16 timed copies), write pointers that account for every byte written and every
//! zone reset; with psync, and with libaio and io_uring keeping writes in flight together.
//! fio's random write example (4 copies, size-based), and one copy of it run long enough to
//! fill and reset zones, leave fio's write pointers zone for zone: each copy's writes are
//! fio's own. Skipped with a printed reason where the lab cannot be set up.

use std::sync::OnceLock;

use serde_json::Value;

// The lab's helpers for checksums are the other lab tests'.
#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{ok, section, Sections};

const ZONE: u64 = 64 << 20;

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| {
        lab::boot(
            &["--zoned", "--timeout", "900"],
            include_str!("zbd_lab/guest.sh"),
        )
    })
    .as_ref()
}

/// The section's JSON (fio prints its normal output after it, iolab before).
fn json(s: &Sections, name: &str) -> Value {
    let body = ok(s, name);
    let start = match body.starts_with('{') {
        true => 0,
        false => body.find("\n{").map_or(0, |i| i + 1),
    };
    let mut values = serde_json::Deserializer::from_str(&body[start..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => v,
        other => panic!("{name}: not JSON ({other:?}):\n{body}"),
    }
}

/// Bytes and I/Os of the first job's direction `dir`.
fn moved(v: &Value, dir: &str) -> (u64, u64) {
    let d = &v["jobs"][0][dir];
    (
        d["io_bytes"].as_u64().unwrap(),
        d["total_ios"].as_u64().unwrap(),
    )
}

/// Each zone's write pointer, relative to its start, from `blkzone report`.
fn write_pointers(s: &Sections, name: &str) -> Vec<u64> {
    let hex = |l: &str, key: &str| {
        let at = l.find(key).unwrap_or_else(|| panic!("no {key} in {l}")) + key.len();
        let v = l[at..].trim_start().split([',', ' ']).next().unwrap();
        u64::from_str_radix(v.trim_start_matches("0x"), 16).unwrap()
    };
    let wps: Vec<u64> = ok(s, name)
        .lines()
        .filter(|l| l.contains("wptr"))
        .map(|l| hex(l, "wptr") * 512)
        .collect();
    assert_eq!(wps.len(), 16, "{name}: 16 zones of 64 MiB");
    wps
}

/// The zone resets on the group's write line of fio's normal output.
fn resets(s: &Sections, name: &str) -> u64 {
    let body = ok(s, name);
    let line = body
        .lines()
        .find(|l| l.trim_start().starts_with("write:"))
        .unwrap_or_else(|| panic!("{name}: no write line:\n{body}"));
    let n = line.rsplit("; ").next().unwrap();
    n.trim_end_matches(" zone resets").parse().unwrap()
}

#[test]
fn the_namespace_is_host_managed() {
    let Some(s) = lab() else { return };
    assert_eq!(ok(s, "model").trim(), "host-managed");
}

#[test]
fn a_sequential_write_leaves_fios_write_pointers() {
    let Some(s) = lab() else { return };
    let (fio, iolab) = (json(s, "fio-seq-write"), json(s, "iolab-seq-write"));
    assert_eq!(moved(&iolab, "write"), moved(&fio, "write"));
    assert_eq!(moved(&fio, "write"), (320 << 20, 1280));
    let wps = write_pointers(s, "iolab-seq-write-wp");
    assert_eq!(wps, write_pointers(s, "fio-seq-write-wp"));
    let full: Vec<u64> = (0..16)
        .map(|z| if (1..=5).contains(&z) { ZONE } else { 0 })
        .collect();
    assert_eq!(
        wps, full,
        "zones 1 to 5 full, as the job's offset and size say"
    );
}

#[test]
fn fios_seq_read_example_reads_only_written_data() {
    let Some(s) = lab() else { return };
    let (fio, iolab) = (json(s, "fio-seq-read"), json(s, "iolab-seq-read"));
    assert_eq!(moved(&iolab, "read"), moved(&fio, "read"));
    // 512 MiB asked from zone 1 on; zones 1 to 5 hold data.
    assert_eq!(moved(&iolab, "read"), (320 << 20, 1280));
}

#[test]
fn fios_rand_write_example_leaves_fios_write_pointers() {
    let Some(s) = lab() else { return };
    let (fio, iolab) = (json(s, "fio-rand-write"), json(s, "iolab-rand-write"));
    assert_eq!(moved(&iolab, "write"), moved(&fio, "write"));
    assert_eq!(moved(&iolab, "write"), (768 << 20, 1536));
    // Each copy draws fio's offsets for its number; no zone fills, so a zone's pointer is
    // its share of the writes whatever order the copies' threads take them in.
    assert_eq!(
        write_pointers(s, "iolab-rand-write-wp"),
        write_pointers(s, "fio-rand-write-wp")
    );
    for t in ["fio", "iolab"] {
        accounted(
            s,
            t,
            "rand-write",
            moved(&json(s, &format!("{t}-rand-write")), "write").0,
        );
    }
}

#[test]
fn one_copy_of_fios_rand_write_example_leaves_fios_write_pointers_zone_for_zone() {
    let Some(s) = lab() else { return };
    let (fio, iolab) = (json(s, "fio-rand-write-1"), json(s, "iolab-rand-write-1"));
    assert_eq!(moved(&iolab, "write"), moved(&fio, "write"));
    assert_eq!(moved(&iolab, "write"), (1280 << 20, 2560));
    let n = resets(s, "fio-rand-write-1");
    assert!(n > 0, "a pass and a quarter over the drive resets zones");
    eprintln!(
        "one copy, 1,280 MiB: {n} zone resets; write pointers (MiB) {:?}",
        write_pointers(s, "fio-rand-write-1-wp")
            .iter()
            .map(|w| w >> 20)
            .collect::<Vec<_>>()
    );
    assert_eq!(resets(s, "iolab-rand-write-1"), n);
    assert_eq!(
        write_pointers(s, "iolab-rand-write-1-wp"),
        write_pointers(s, "fio-rand-write-1-wp"),
        "the same random writes at the same pointers"
    );
}

#[test]
fn sixteen_timed_copies_write_only_at_the_write_pointers() {
    let Some(s) = lab() else { return };
    for t in ["fio", "iolab"] {
        let name = format!("{t}-rand-write-timed");
        let v = json(s, &name);
        assert_eq!(v["jobs"][0]["error"].as_u64(), Some(0), "{name}");
        let bytes = moved(&v, "write").0;
        assert!(bytes > ZONE, "{name}: {bytes} bytes in 3 s");
        accounted(s, t, "rand-write-timed", bytes);
    }
}

/// Every byte `t`'s job wrote is below a write pointer, except those of the zones it reset
/// (a zone is reset only when full): the device's pointers add up to bytes − resets × zone.
fn accounted(s: &Sections, t: &str, job: &str, bytes: u64) {
    let wps = write_pointers(s, &format!("{t}-{job}-wp"));
    let n = resets(s, &format!("{t}-{job}"));
    assert_eq!(
        wps.iter().sum::<u64>(),
        bytes - n * ZONE,
        "{t} {job}: {bytes} bytes, {n} resets, write pointers {wps:?}"
    );
}

#[test]
fn writes_in_flight_together_stay_at_the_write_pointers() {
    let Some(s) = lab() else { return };
    // libaio, 8 in flight, in order: 256 MiB fill zones 0 to 3, as fio's.
    let (fio, iolab) = (json(s, "fio-aio-seq"), json(s, "iolab-aio-seq"));
    assert_eq!(moved(&iolab, "write"), moved(&fio, "write"));
    assert_eq!(moved(&iolab, "write"), (256 << 20, 4096));
    assert_eq!(
        write_pointers(s, "iolab-aio-seq-wp"),
        write_pointers(s, "fio-aio-seq-wp")
    );
    // io_uring, 8 in flight from each of 2 copies over 4 open zones, at random.
    let (fio, iolab) = (json(s, "fio-uring-rand"), json(s, "iolab-uring-rand"));
    assert_eq!(moved(&iolab, "write"), moved(&fio, "write"));
    for t in ["fio", "iolab"] {
        let bytes = moved(&json(s, &format!("{t}-uring-rand")), "write").0;
        accounted(s, t, "uring-rand", bytes);
    }
}

#[test]
fn a_write_without_zonemode_zbd_is_refused() {
    let Some(s) = lab() else { return };
    assert_eq!(section(s, "refused").1, 2);
}
