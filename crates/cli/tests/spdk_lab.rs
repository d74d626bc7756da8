//! The spdk engine in the NVMe lab (`scripts/nvme-lab.sh --spdk`): a second emulated
//! controller handed to SPDK with `iolab spdk bind`, one boot running `spdk_lab/guest.sh`.
//! What SPDK reads is what the kernel's path wrote and read (each block's md5 checked);
//! what it writes lands where the kernel then reads it; binding refuses a mounted or signed
//! namespace; writes need --allow-destroy; the main job has the spdk column. Behaviour and
//! counts only: the IOPS against spdk_nvme_perf are bench/spdk_vs_perf.sh's (BENCHMARKS.md).
//! Built only with the feature `spdk`; skipped with a printed reason where the lab cannot be
//! set up (no QEMU, not root, SPDK's sources missing).
#![cfg(feature = "spdk")]

use std::sync::OnceLock;

use serde_json::Value;

#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{ok, section, Sections};

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| {
        lab::boot(
            &["--spdk", "--timeout", "900"],
            include_str!("spdk_lab/guest.sh"),
        )
    })
    .as_ref()
}

fn job(s: &Sections, name: &str) -> Value {
    let body = ok(s, name);
    let start = body.find('{').unwrap_or(0);
    let v: Value = serde_json::from_str(&body[start..])
        .unwrap_or_else(|e| panic!("{name}: not JSON ({e}):\n{body}"));
    v["jobs"][0].clone()
}

#[test]
fn spdk_reads_every_block_the_kernel_wrote_and_read() {
    let Some(s) = lab() else { return };
    let r = job(s, "spdk_randread");
    assert_eq!(r["read"]["total_ios"], 16384, "{r}");
    assert_eq!(r["read"]["io_bytes"], 64 << 20);
    assert_eq!(r["error"], 0);
    // The polling thread is busy all the time, and its CPU figures say so.
    assert!(
        r["usr_cpu"].as_f64().unwrap() > 90.0,
        "usr_cpu {}",
        r["usr_cpu"]
    );
    let k = job(s, "kernel_write");
    assert_eq!(k["write"]["total_ios"], 16384);
    assert_eq!(
        k["read"]["total_ios"], 16384,
        "the kernel read back what it wrote"
    );
    // Every 4 KiB block the kernel wrote, read by SPDK and checked against its md5 header.
    let v = job(s, "spdk_verify");
    assert_eq!(v["read"]["total_ios"], 16384, "{v}");
    assert_eq!(v["write"]["total_ios"], 0, "verify_only writes nothing");
    assert_eq!(v["error"], 0);
    // SPDK's reads changed nothing: the kernel reads the same 64 MiB before and after.
    let before = ok(s, "kernel_md5");
    assert_eq!(before, ok(s, "kernel_md5_after"));
}

#[test]
fn spdk_writes_land_where_the_kernel_reads_them() {
    let Some(s) = lab() else { return };
    let w = job(s, "spdk_write");
    assert_eq!(w["write"]["total_ios"], 4096, "{w}");
    let sums = lab::sums(s, "write_check");
    assert_eq!(sums.len(), 2, "{sums:?}");
    assert_eq!(
        sums[0], sums[1],
        "the namespace at 64 MiB against psync's file of the same job"
    );
}

#[test]
fn writes_need_consent_and_binding_refuses_a_namespace_in_use_or_signed() {
    let Some(s) = lab() else { return };
    let (body, rc) = section(s, "spdk_write_refused");
    assert_eq!(*rc, 2, "{body}");
    assert!(body.contains("pass --allow-destroy"), "{body}");
    let (body, rc) = section(s, "bind_mounted");
    assert_eq!(*rc, 2, "{body}");
    assert!(
        body.contains("in use") || body.contains("mounted"),
        "{body}"
    );
    let (body, rc) = section(s, "bind_signed");
    assert_eq!(*rc, 2, "{body}");
    assert!(body.contains("ext") && body.contains("signature"), "{body}");
    assert_eq!(section(s, "bind").1, 0, "bound once wiped");
    assert_eq!(
        section(s, "bind_again").1,
        0,
        "binding a bound controller is a no-op"
    );
    let list = ok(s, "list");
    assert!(
        list.contains("uio_pci_generic") && list.contains("trtype=PCIe traddr="),
        "{list}"
    );
}

#[test]
fn the_reviews_qd1_and_polling_steps_add_spdk() {
    let Some(s) = lab() else { return };
    let t = ok(s, "review");
    let header = t
        .lines()
        .find(|l| l.starts_with("| IOPS"))
        .expect("the QD1 IOPS table");
    assert!(header.contains(" spdk "), "{header}");
    let row = t
        .lines()
        .find(|l| l.starts_with("| spdk ") && l.contains("polling, in user space"))
        .unwrap_or_else(|| panic!("no spdk row in the polling table:\n{t}"));
    assert!(row.contains("µs"), "{row}");
}

#[test]
fn the_main_job_has_the_spdk_column_beside_the_kernels_paths() {
    let Some(s) = lab() else { return };
    let t = ok(s, "main_job");
    let header = t
        .lines()
        .find(|l| l.starts_with("| IOPS"))
        .expect("the IOPS table");
    for p in ["psync", "io_uring+iopoll", "spdk"] {
        assert!(header.contains(&format!(" {p} ")), "{header}");
    }
    let row = t
        .lines()
        .find(|l| l.starts_with("| 4KiB Random Read"))
        .expect("a read row");
    let col = header
        .split('|')
        .position(|c| c.trim() == "spdk")
        .expect("spdk's column");
    let spdk = row.split('|').map(str::trim).nth(col).unwrap_or("");
    // The figure, bold or italic (its rounds' interval is in a table of its own).
    let figure = spdk.trim_matches('*');
    assert!(
        figure.ends_with('k') || figure.ends_with('M'),
        "the spdk cell is a figure: {row}"
    );
}
