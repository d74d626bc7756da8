//! fio 3.42's end-to-end protection information options of `io_uring_cmd`: `pi_act`,
//! `pi_chk`, `apptag`, `apptag_mask` and `md_per_io_size`, with fio's defaults. What they
//! mean on the wire is `iolab_engine::protection`'s.

use iolab_engine::protection::Protection;

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::{parse_bool, parse_size};

fn protection(d: &mut JobDraft) -> &mut Protection {
    &mut d.spec.engine.options.protection
}

/// A 16-bit tag, decimal or 0x-hexadecimal as fio's integer options take it.
fn tag(v: &str) -> Result<u16, String> {
    let v = v.trim();
    let n = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => v.parse::<u32>().ok(),
    };
    n.and_then(|n| u16::try_from(n).ok())
        .ok_or_else(|| "must be a 16-bit value (0 to 0xffff)".to_string())
}

pub static PROTECTION_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "pi_act",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring_cmd: the PRACT bit (default 1, as fio 3.42): on a namespace formatted with protection information the drive inserts it on writes and strips it on reads; 0 makes iolab write it (the guard a CRC-16 T10-DIF of each block) into md_per_io_size's buffer and, on reads, check it.",
        apply: |d, v| {
            protection(d).act = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "pi_chk",
        alias: None,
        kind: ValueKind::Str,
        help: "io_uring_cmd: which protection fields the drive checks on each read and write (PRCHK): GUARD, REFTAG and APPTAG, joined by commas; unset, none.",
        apply: |d, v| {
            protection(d).check = Protection::parse_checks(v);
            Ok(())
        },
    },
    OptionDef {
        name: "apptag",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring_cmd: the application tag written and expected with pi_chk=APPTAG (default 0x1234).",
        apply: |d, v| {
            protection(d).apptag = tag(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "apptag_mask",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring_cmd: which bits of the application tag are checked (default 0xffff).",
        apply: |d, v| {
            protection(d).apptag_mask = tag(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "md_per_io_size",
        alias: None,
        kind: ValueKind::Size,
        help: "io_uring_cmd: bytes of separate metadata buffer per I/O (default 0), at least the largest block's logical blocks times the namespace's metadata size where the namespace has metadata the host moves.",
        apply: |d, v| {
            let n = parse_size(v)?;
            protection(d).md_per_io =
                u32::try_from(n).map_err(|_| "must be under 4 GiB".to_string())?;
            Ok(())
        },
    },
];
