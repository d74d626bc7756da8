//! Flexible Data Placement (fio 3.42's `fdp`, `plids`, `plid_select`, `dp_scheme`) on the NVMe
//! lab's FDP drive (`scripts/nvme-lab.sh --fdp`: bookworm-backports' QEMU 10 and Linux 6.12).
//! One boot runs `fdp_lab/guest.sh`: after each job the drive's own reclaim unit handle status
//! (`nvme fdp status`, each handle's available media writes) shows where its writes landed.
//! Checked: iolab's round robin over two handles puts half the job in each, as fio 3.42's does
//! over two others; random picks spread over the handles named and no others; a scheme file
//! places by offset; an index past the namespace's handles and FDP on a block engine are
//! refused up front. Skipped with a printed reason where the lab cannot be set up.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{ok, section, Sections};

/// 8 MiB of 512-byte blocks.
const JOB_BLOCKS: u64 = 16384;

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| {
        lab::boot(
            &["--fdp", "--timeout", "900"],
            include_str!("fdp_lab/guest.sh"),
        )
    })
    .as_ref()
}

/// Each handle's available media writes, by placement identifier.
fn ruamw(s: &Sections, name: &str) -> BTreeMap<u16, u64> {
    ok(s, name)
        .lines()
        .filter_map(|l| {
            let (id, n) = l.split_once(' ')?;
            Some((id.parse().ok()?, n.trim().parse().ok()?))
        })
        .collect()
}

/// Blocks each handle took between two statuses (only the handles that took any).
fn taken(s: &Sections, before: &str, after: &str) -> BTreeMap<u16, u64> {
    let (b, a) = (ruamw(s, before), ruamw(s, after));
    assert_eq!(b.len(), 8, "{before}: {b:?}");
    b.iter()
        .filter_map(|(id, n)| {
            let d = n - a[id];
            (d > 0).then_some((*id, d))
        })
        .collect()
}

/// The job's write I/Os and bytes from its JSON.
fn writes(s: &Sections, name: &str) -> (u64, u64) {
    let body = ok(s, name);
    let v: Value = serde_json::from_str(&body[body.find('{').expect("json")..])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let w = &v["jobs"][0]["write"];
    (
        w["total_ios"].as_u64().unwrap(),
        w["io_bytes"].as_u64().unwrap(),
    )
}

#[test]
fn round_robin_puts_half_the_writes_in_each_handle_as_fio_342() {
    let Some(s) = lab() else { return };
    assert_eq!(
        taken(s, "start", "after_iolab_rr"),
        BTreeMap::from([(0, JOB_BLOCKS / 2), (3, JOB_BLOCKS / 2)])
    );
    // fio 3.42's leg is checked only where it ran; otherwise the guest's own words say why
    // (not built on this machine, a library missing in the guest, ...), never an empty leg.
    let (out, rc) = section(s, "fio_rr");
    if *rc != 0 || !out.contains('{') {
        let err = section(s, "fio_rr_stderr").0.trim().to_string();
        println!(
            "skipped fio 3.42's leg (iolab's checked above): it exited {rc} in the guest: {}",
            if err.is_empty() { out.trim() } else { &err }
        );
        return;
    }
    assert_eq!(
        taken(s, "after_iolab_rr", "after_fio_rr"),
        BTreeMap::from([(1, JOB_BLOCKS / 2), (5, JOB_BLOCKS / 2)])
    );
    assert_eq!(writes(s, "iolab_rr"), writes(s, "fio_rr"));
    assert_eq!(writes(s, "iolab_rr"), (128, 8 << 20));
}

#[test]
fn random_picks_spread_over_the_handles_named() {
    let Some(s) = lab() else { return };
    let t = taken(s, "after_fio_rr", "after_iolab_random");
    assert_eq!(t.keys().copied().collect::<Vec<_>>(), vec![2, 6], "{t:?}");
    assert_eq!(t.values().sum::<u64>(), JOB_BLOCKS);
    // 128 writes of 128 blocks picked at random: neither handle gets nearly all.
    assert!(t.values().all(|&n| n >= JOB_BLOCKS / 8), "{t:?}");
}

#[test]
fn a_scheme_places_writes_by_their_offset() {
    let Some(s) = lab() else { return };
    assert_eq!(
        taken(s, "after_iolab_random", "after_iolab_scheme"),
        BTreeMap::from([(4, JOB_BLOCKS / 2), (7, JOB_BLOCKS / 2)])
    );
}

#[test]
fn impossible_placements_are_refused_on_one_line() {
    let Some(s) = lab() else { return };
    let (out, rc) = section(s, "past_the_list");
    assert_ne!(*rc, 0, "{out}");
    assert!(out.contains("index 8 must be smaller than 8"), "{out}");
    let (out, rc) = section(s, "not_fdp_engine");
    assert_eq!(*rc, 2, "{out}");
    assert!(out.contains("io_uring_cmd"), "{out}");
    assert_eq!(out.trim().lines().count(), 1, "{out}");
}
