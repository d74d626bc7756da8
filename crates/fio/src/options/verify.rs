//! fio's verify options: `verify=` and its companions, gathered while a job's options are
//! read and turned into the job model's [`Verify`] when the job is finished (fio's options
//! can come in any order: `verify_pattern` before `verify` means something else than
//! after it).

use iolab_job::{Checksum, Verify, VerifyKind};

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::{parse_bool, parse_size, parse_u32};

/// The verify options of one job, as given so far.
#[derive(Debug, Clone)]
pub struct VerifyDraft {
    /// `verify=` as given: `None` when not given, `Some(None)` for `verify=0`.
    pub kind: Option<Option<VerifyKind>>,
    /// Everything but the kind (which this holds a placeholder for).
    pub settings: Verify,
}

impl Default for VerifyDraft {
    fn default() -> Self {
        VerifyDraft {
            kind: None,
            settings: Verify::new(VerifyKind::HeaderOnly),
        }
    }
}

impl VerifyDraft {
    /// The job's verification, as fio resolves it: a `verify_pattern` without `verify`
    /// means a header and the pattern.
    pub fn resolve(&self) -> Result<Option<Verify>, String> {
        let has_pattern = !self.settings.pattern.is_empty();
        let kind = match self.kind {
            Some(k) => k,
            None if has_pattern => Some(VerifyKind::PatternWithHeader),
            None => None,
        };
        if kind == Some(VerifyKind::Pattern) && !has_pattern {
            return Err("verify=pattern needs verify_pattern= to say what to write".into());
        }
        Ok(kind.map(|kind| Verify {
            kind,
            ..self.settings.clone()
        }))
    }
}

fn parse_kind(v: &str) -> Result<Option<VerifyKind>, String> {
    let kind = match v {
        "0" | "none" => return Ok(None),
        "meta" => VerifyKind::HeaderOnly,
        "pattern" => VerifyKind::Pattern,
        // fio's crc32c-intel is crc32c with the CPU's instruction, which iolab's crc32c
        // uses wherever the CPU has it.
        "crc32c-intel" => VerifyKind::Checksum(Checksum::Crc32c),
        "null" => return Err("verify=null (pretend to verify) is not supported by iolab".into()),
        _ => match Checksum::ALL.iter().find(|(_, n)| *n == v) {
            Some((c, _)) => VerifyKind::Checksum(*c),
            None => {
                let names: Vec<&str> = Checksum::ALL.iter().map(|(_, n)| *n).collect();
                return Err(format!(
                    "expected 0, meta, pattern or a checksum: {}",
                    names.join(", ")
                ));
            }
        },
    };
    Ok(Some(kind))
}

/// fio's pattern syntax (lib/pattern.c): hexadecimal of any length (`0xaa555aa5`, bytes in
/// the order written), decimal integers (little-endian, as few bytes as they need), and
/// `"strings"`, one after another.
pub fn parse_pattern(v: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = v.trim();
    while !rest.is_empty() {
        if let Some(s) = rest.strip_prefix('"') {
            let end = s.find('"').ok_or("a string without its closing quote")?;
            out.extend_from_slice(&s.as_bytes()[..end]);
            rest = &s[end + 1..];
        } else if let Some(h) = rest.strip_prefix("0x").or(rest.strip_prefix("0X")) {
            let n = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
            if n == 0 {
                return Err("0x without hexadecimal digits".into());
            }
            let digits = &h[..n];
            let (head, tail) = digits.split_at(n % 2);
            if !head.is_empty() {
                out.push(u8::from_str_radix(head, 16).unwrap());
            }
            for pair in tail.as_bytes().chunks(2) {
                out.push(u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap());
            }
            rest = &h[n..];
        } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let n = 1 + rest[1..]
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len() - 1);
            let (num, tail) = if rest[n..].starts_with(['x', 'X']) && rest[..n].ends_with('0') {
                (&rest[..n - 1], &rest[n - 1..])
            } else {
                rest.split_at(n)
            };
            let val: i32 = num
                .parse()
                .map_err(|_| format!("'{num}' is not a 32-bit number"))?;
            let mut u = val as u32;
            if u == 0 {
                out.push(0);
            }
            while u != 0 {
                out.push(u as u8);
                u >>= 8;
            }
            rest = tail;
        } else if rest.starts_with('%') || rest.starts_with('\'') {
            return Err("formats (%o) and pattern files are not supported by iolab yet".into());
        } else {
            return Err(format!("cannot read a pattern from '{rest}'"));
        }
        rest = rest.trim_start_matches([' ', ',']);
    }
    if out.is_empty() {
        return Err("an empty pattern".into());
    }
    Ok(out)
}

fn settings(d: &mut JobDraft) -> &mut Verify {
    &mut d.verify.settings
}

/// The verify options iolab has.
pub static VERIFY_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "verify",
        alias: None,
        kind: ValueKind::Str,
        help: "Make written data checkable and check it when read: md5, crc64, crc32c, crc32, crc16, crc7, sha1, sha256, sha512, sha3-224/256/384/512, xxhash (fio's header and checksum per verify_interval, fio's on-disk format), meta (header only), pattern (verify_pattern only), 0. A write job reads its blocks back when done; a read job checks every read. Checksums are computed outside the timed latency. A bad block stops the job with its offset, expected and found checksum, exit 1.",
        apply: |d, v| {
            d.verify.kind = Some(parse_kind(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "do_verify",
        alias: None,
        kind: ValueKind::Bool,
        help: "Read a write job's blocks back and check them when its writes are done (default 1; 0 writes the headers only).",
        apply: |d, v| {
            settings(d).after_writes = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_only",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not write: read where the job would write, and check what an earlier run with the same options wrote.",
        apply: |d, v| {
            settings(d).only = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_backlog",
        alias: None,
        kind: ValueKind::Int,
        help: "Read back and check after every this many completed writes, not only at the end.",
        apply: |d, v| {
            settings(d).backlog = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "experimental_verify",
        alias: None,
        kind: ValueKind::Bool,
        help: "fio finds what it wrote by replaying its offsets instead of keeping a list; iolab keeps the list, and the same blocks are read back and checked either way.",
        apply: |_, v| crate::units::parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "trim_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "Accepted and ignored, as fio does without trim_backlog (which iolab does not have yet): fio trims this share of verified blocks only then.",
        apply: |_, v| match parse_u32(v)? {
            0..=100 => Ok(()),
            _ => Err("must be between 0 and 100".into()),
        },
    },
    OptionDef {
        name: "trim_verify_zero",
        alias: None,
        kind: ValueKind::Bool,
        help: "Accepted and ignored, as fio does without trim_backlog (which iolab does not have yet): only blocks trim_backlog trimmed are checked for zeros.",
        apply: |_, v| crate::units::parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "trim_backlog_batch",
        alias: None,
        kind: ValueKind::Int,
        help: "Accepted and ignored, as fio does without trim_backlog (which iolab does not have yet).",
        apply: |_, v| parse_u32(v).map(|_| ()),
    },
    OptionDef {
        name: "verify_backlog_batch",
        alias: None,
        kind: ValueKind::Int,
        help: "Blocks read back each time verify_backlog fills (default: the whole backlog); fewer leaves the rest for later.",
        apply: |d, v| {
            settings(d).backlog_batch = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_interval",
        alias: None,
        kind: ValueKind::Size,
        help: "Bytes per verify header (default: the smallest write block size).",
        apply: |d, v| {
            let b = parse_size(v)?;
            settings(d).interval = u32::try_from(b).map_err(|_| "too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_offset",
        alias: None,
        kind: ValueKind::Size,
        help: "Put the verify header this many bytes into each interval (swapped with the data there).",
        apply: |d, v| {
            let b = parse_size(v)?;
            settings(d).header_offset = u32::try_from(b).map_err(|_| "too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_pattern",
        alias: None,
        kind: ValueKind::Str,
        help: "Fill written data with this pattern and check it: 0xaa555aa5, a decimal number, \"text\", or several one after another.",
        apply: |d, v| {
            settings(d).pattern = parse_pattern(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_pattern_interval",
        alias: None,
        kind: ValueKind::Int,
        help: "Start verify_pattern over every this many bytes of each block (fio 3.42; 0, the default: once, at the block's start). fio 3.42 pairs it with %o patterns, which iolab does not have; without them it decides where each pattern copy begins.",
        apply: |d, v| {
            settings(d).pattern_interval = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_fatal",
        alias: None,
        kind: ValueKind::Bool,
        help: "Stop at the first bad block. iolab always does, as fio does without continue_on_error.",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "verify_header_seed",
        alias: None,
        kind: ValueKind::Bool,
        help: "Check that each block read back carries the random seed its write was stamped with (fio 3.42, default 1): another writer's block, or an older version of the block, has a valid checksum but another seed. iolab checks it on what a job reads back of its own writes, where no block is written twice before it is read back (one pass, no wrap, sequential or under the random map).",
        apply: |d, v| {
            settings(d).header_seed = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_write_sequence",
        alias: None,
        kind: ValueKind::Bool,
        help: "Check that each block read back carries its write's number in the job (fio 3.42, default 1; as fio, for a write job of one block size that is not time-based). Turn it off where several jobs write the same blocks, or to test atomic writes by their checksums alone.",
        apply: |d, v| {
            settings(d).write_sequence = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_dump",
        alias: None,
        kind: ValueKind::Bool,
        help: "On a bad block, write the block as read to NAME.OFFSET.received in the current directory.",
        apply: |d, v| {
            settings(d).dump = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_state_save",
        alias: None,
        kind: ValueKind::Bool,
        help: "When a write job that verifies ends, save what it wrote in fio's state file local-JOB-INDEX-verify.state (in --aux-path or the current directory), fio 3.33's layout. Default on, as fio.",
        apply: |d, v| {
            settings(d).save_state = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_state_load",
        alias: None,
        kind: ValueKind::Bool,
        help: "Verify only what a saved state file (fio 3.33's or 3.42's) says was written: stop where the writing job stopped, by the rule of the fio that wrote the file.",
        apply: |d, v| {
            settings(d).load_state = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "verify_async",
        alias: None,
        kind: ValueKind::Int,
        help: "fio's threads for checking; iolab checks in the job's own thread, after the I/O's latency is taken, so the figures are the same.",
        apply: |_, v| parse_u32(v).map(|_| ()),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_read_as_fios() {
        assert_eq!(
            parse_pattern("0xaa555aa5").unwrap(),
            [0xaa, 0x55, 0x5a, 0xa5]
        );
        assert_eq!(parse_pattern("0xabc").unwrap(), [0x0a, 0xbc]);
        assert_eq!(parse_pattern("258").unwrap(), [0x02, 0x01]);
        assert_eq!(parse_pattern("0").unwrap(), [0]);
        assert_eq!(parse_pattern("\"ab\"0xff").unwrap(), [b'a', b'b', 0xff]);
        assert!(parse_pattern("%o").unwrap_err().contains("not supported"));
        assert!(parse_pattern("zz").is_err());
    }

    #[test]
    fn kinds_and_their_resolution() {
        assert_eq!(parse_kind("0").unwrap(), None);
        assert_eq!(
            parse_kind("crc32c-intel").unwrap(),
            Some(VerifyKind::Checksum(Checksum::Crc32c))
        );
        assert!(parse_kind("crc33").unwrap_err().contains("sha256"));
        let mut d = VerifyDraft::default();
        assert_eq!(d.resolve().unwrap(), None);
        d.settings.pattern = vec![1];
        assert_eq!(
            d.resolve().unwrap().unwrap().kind,
            VerifyKind::PatternWithHeader
        );
        d.kind = Some(Some(VerifyKind::HeaderOnly));
        assert_eq!(d.resolve().unwrap().unwrap().kind, VerifyKind::HeaderOnly);
        d.settings.pattern.clear();
        d.kind = Some(Some(VerifyKind::Pattern));
        assert!(d.resolve().is_err());
    }
}
