//! Atomic writes (fio 3.42's `atomic=1`: RWF_ATOMIC, Linux 6.11) in the NVMe lab on a drive with
//! an atomic write unit (`scripts/nvme-lab.sh --atomic`: QEMU 10's controller-wide AWUPF of 16
//! KiB, Linux 6.12). One boot runs `atomic_lab/guest.sh`. Checked: the guest's block device
//! shows the unit; iolab and fio 3.42 run the same atomic write job on pvsync2, libaio and
//! io_uring with the same I/Os and bytes; every one of iolab's writes carries RWF_ATOMIC, as
//! fio's do (strace); and a write above the unit is refused up front with the limits named,
//! where fio 3.42 fails its first write. Skipped with a printed reason where the lab cannot be
//! set up.

use std::sync::OnceLock;

#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{fio_342_ran, first_job, parts, Sections};

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| {
        lab::boot(
            &["--atomic", "--timeout", "900"],
            include_str!("atomic_lab/guest.sh"),
        )
    })
    .as_ref()
}

/// (write I/Os, bytes, error) of the section's one job.
fn writes(s: &Sections, name: &str) -> (u64, u64, i64) {
    let j = first_job(s, name);
    (
        j["write"]["total_ios"].as_u64().unwrap(),
        j["write"]["io_bytes"].as_u64().unwrap(),
        j["error"].as_i64().unwrap(),
    )
}

fn fio_ran(s: &Sections) -> bool {
    fio_342_ran(s, "fio_pvsync2")
}

#[test]
fn the_block_device_has_an_atomic_write_unit() {
    let Some(s) = lab() else { return };
    let (out, _, _) = parts(s, "limits");
    assert!(out.contains("atomic_write_unit_min_bytes 4096"), "{out}");
    assert!(out.contains("atomic_write_unit_max_bytes 16384"), "{out}");
}

#[test]
fn the_same_atomic_job_writes_the_same_as_fio_342_on_every_engine() {
    let Some(s) = lab() else { return };
    for e in ["pvsync2", "libaio", "io_uring"] {
        assert_eq!(writes(s, &format!("iolab_{e}")), (256, 4 << 20, 0), "{e}");
        if fio_ran(s) {
            assert_eq!(
                writes(s, &format!("iolab_{e}")),
                writes(s, &format!("fio_{e}")),
                "{e}"
            );
        }
    }
}

#[test]
fn every_write_carries_rwf_atomic_as_fios() {
    let Some(s) = lab() else { return };
    let counts = |name: &str| -> Vec<u64> {
        let (out, err, rc) = parts(s, name);
        assert_eq!(rc, 0, "{out}{err}");
        out.lines().filter_map(|l| l.trim().parse().ok()).collect()
    };
    assert_eq!(counts("strace_iolab"), vec![256, 256]);
    if fio_ran(s) {
        assert_eq!(counts("strace_fio"), vec![256, 256]);
    }
}

#[test]
fn a_write_above_the_unit_is_refused_up_front_where_fio_fails_its_first() {
    let Some(s) = lab() else { return };
    let (out, err, rc) = parts(s, "too_big");
    assert_eq!(rc, 2, "{out}{err}");
    assert!(
        err.contains("a 32768-byte write does not fit") && err.contains("4096 to 16384 bytes"),
        "{err}"
    );
    assert!(!out.contains('{'), "nothing ran: {out}");
    if fio_ran(s) {
        assert_eq!(writes(s, "fio_too_big").2, 22, "fio's first write: EINVAL");
    }
}
