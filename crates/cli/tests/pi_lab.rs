//! End-to-end protection information (fio 3.42's `pi_act`, `pi_chk`, `apptag`, `md_per_io_size`)
//! on `io_uring_cmd`, in the NVMe lab with a namespace formatted with Type 1 PI
//! (`scripts/nvme-lab.sh --pi`). One boot runs `pi_lab/guest.sh`. Checked: what the drive
//! protects (PRACT) reads back clean with the drive checking guard and reference tag, for
//! iolab and fio 3.42; PI iolab computes passes fio 3.42's checks and the drive's, and the
//! other way round; a wrong application tag and a block whose data was changed behind
//! iolab's back are reported as the drive's protection errors, with fio's error number; a
//! metadata buffer too small for the namespace is refused. Skipped with a printed reason
//! where the lab cannot be set up.

use std::sync::OnceLock;

#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{fio_342_ran, first_job, parts, Sections};

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| {
        lab::boot(
            &["--pi", "--timeout", "600"],
            include_str!("pi_lab/guest.sh"),
        )
    })
    .as_ref()
}

/// (reads, writes, error) of the section's one job.
fn figures(s: &Sections, name: &str) -> (u64, u64, i64) {
    let j = first_job(s, name);
    (
        j["read"]["total_ios"].as_u64().unwrap(),
        j["write"]["total_ios"].as_u64().unwrap(),
        j["error"].as_i64().unwrap(),
    )
}

#[test]
fn the_namespace_has_type_1_protection_information() {
    let Some(s) = lab() else { return };
    let (out, _, rc) = parts(s, "idns");
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("dps     : 0x1"), "{out}");
}

#[test]
fn what_the_drive_protects_reads_back_checked_as_with_fio_342() {
    let Some(s) = lab() else { return };
    assert_eq!(figures(s, "iolab_write_act"), (0, 256, 0));
    assert_eq!(figures(s, "iolab_read_act"), (256, 0, 0));
    if fio_342_ran(s, "fio_read_act") {
        assert_eq!(figures(s, "fio_read_act"), (256, 0, 0));
    }
}

#[test]
fn pi_iolab_computes_passes_fio_342s_checks_and_fios_passes_iolabs() {
    let Some(s) = lab() else { return };
    assert_eq!(figures(s, "iolab_write_host"), (0, 256, 0));
    assert_eq!(figures(s, "iolab_read_host"), (256, 0, 0));
    if fio_342_ran(s, "fio_read_host") {
        assert_eq!(figures(s, "fio_read_host"), (256, 0, 0));
        assert_eq!(figures(s, "fio_write_host"), (0, 256, 0));
        assert_eq!(figures(s, "iolab_read_fios"), (256, 0, 0));
        // The application tag fio wrote is not the one asked for: the drive says so.
        let (_, err, rc) = parts(s, "iolab_wrong_apptag");
        assert_ne!(rc, 0, "{err}");
        assert!(
            err.contains("end-to-end application tag check error"),
            "{err}"
        );
    }
}

#[test]
fn a_block_changed_behind_iolabs_back_is_a_guard_check_error_as_in_fio_342() {
    let Some(s) = lab() else { return };
    assert_eq!(parts(s, "corrupt").2, 0, "{:?}", parts(s, "corrupt"));
    let (_, err, rc) = parts(s, "iolab_read_corrupt");
    assert_ne!(rc, 0, "{err}");
    assert!(
        err.contains("offset 32768")
            && err.contains("NVMe status 0x282 (sct 0x2, sc 0x82): end-to-end guard check error"),
        "{err}"
    );
    // Block 10 is in the third 16 KiB read: two read whole, the third the drive refused.
    let (reads, _, error) = figures(s, "iolab_read_corrupt");
    assert_eq!((reads, error), (3, 0x282));
    let (out, _, _) = parts(s, "iolab_read_corrupt");
    assert!(
        out.contains("protection information errors: 1 reported by the drive"),
        "{out}"
    );
    if fio_342_ran(s, "fio_read_corrupt") {
        assert_eq!(figures(s, "fio_read_corrupt").2, 0x282, "fio's err=642");
    }
    // Without checks asked for, the drive hands the changed block over.
    assert_eq!(figures(s, "iolab_read_unchecked"), (256, 0, 0));
}

#[test]
fn a_metadata_buffer_too_small_for_the_namespace_is_refused() {
    let Some(s) = lab() else { return };
    let (_, err, rc) = parts(s, "small_md");
    assert_ne!(rc, 0, "{err}");
    assert!(
        err.contains("md_per_io_size should be at least 32 bytes"),
        "{err}"
    );
}
