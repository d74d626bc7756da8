//! fio's file-setup options: how files are named, made, reserved, opened and removed.
//! They set the job model's [`iolab_job::FileSetup`]; `filename_format` names the files.

use iolab_job::{Fallocate, SyncWrites};

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_bool;

fn parse_fallocate(v: &str) -> Result<Fallocate, String> {
    Ok(match v.trim() {
        "none" | "0" => Fallocate::None,
        "native" => Fallocate::Native,
        "posix" | "1" => Fallocate::Posix,
        "keep" => Fallocate::Keep,
        "truncate" => Fallocate::Truncate,
        _ => return Err("is not none, native, posix, keep, truncate, 0 or 1".into()),
    })
}

fn parse_sync(v: &str) -> Result<SyncWrites, String> {
    Ok(match v.trim() {
        "none" | "0" => SyncWrites::None,
        "sync" | "1" => SyncWrites::Sync,
        "dsync" => SyncWrites::Dsync,
        _ => return Err("is not none, sync, dsync, 0 or 1".into()),
    })
}

/// `sync_file_range=FLAGS[:N]`: (every N writes, the flags), as fio's `str_sfr_cb`.
fn parse_sync_file_range(v: &str) -> Result<(u32, u32), String> {
    let (flags, n) = match v.rsplit_once(':') {
        Some((f, n)) => (f, crate::units::parse_u32(n)?),
        None => (v, 1),
    };
    let mut bits = 0;
    for f in flags.split(',').map(str::trim) {
        bits |= match f {
            "wait_before" => libc::SYNC_FILE_RANGE_WAIT_BEFORE,
            "write" => libc::SYNC_FILE_RANGE_WRITE,
            "wait_after" => libc::SYNC_FILE_RANGE_WAIT_AFTER,
            _ => return Err(format!("'{f}' is not wait_before, write or wait_after")),
        };
    }
    Ok((n, bits))
}

/// fio's `filename_format` keywords (matched ignoring case, as fio's `strcasestr`), replaced
/// by the job's name, the copy's number and the file's number. `$clientuid` is the client's
/// address in fio's client/server mode; a local run has none, and fio puts an empty string.
pub fn format_filename(format: &str, job: &str, copy: u32, file: u32) -> String {
    let mut out = String::with_capacity(format.len() + job.len());
    let mut rest = format;
    'scan: while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        for (key, value) in [
            ("$jobname", job.to_string()),
            ("$jobnum", copy.to_string()),
            ("$filenum", file.to_string()),
            ("$clientuid", String::new()),
        ] {
            if tail.len() >= key.len() && tail[..key.len()].eq_ignore_ascii_case(key) {
                out.push_str(&value);
                rest = &tail[key.len()..];
                continue 'scan;
            }
        }
        out.push('$');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// fio's `opendir`: every regular file below `dir`, recursively (sorted, where fio takes
/// the directory's own order), as a `filename` list.
pub fn files_below(dir: &str) -> Result<String, String> {
    fn walk(d: &std::path::Path, out: &mut Vec<String>, depth: usize) -> std::io::Result<()> {
        if depth > 64 {
            return Ok(());
        }
        let mut entries: Vec<_> = std::fs::read_dir(d)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let t = e.file_type()?;
            if t.is_dir() {
                walk(&e.path(), out, depth + 1)?;
            } else if t.is_file() {
                out.push(e.path().display().to_string().replace(':', "\\:"));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(std::path::Path::new(dir), &mut out, 0).map_err(|e| format!("{dir}: {e}"))?;
    if out.is_empty() {
        return Err(format!("{dir} holds no regular file"));
    }
    Ok(out.join(":"))
}

pub static FILE_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "lockfile",
        alias: None,
        kind: ValueKind::Str,
        help: "none (default), exclusive (one I/O at a time per file) or readwrite (reads together, a write alone): the job's numjobs copies take turns on each file, the lock held while an I/O is issued (the whole I/O for a synchronous engine). As in fio, separate jobs naming one file do not share it.",
        apply: |d, v| {
            d.spec.files.lock = match v.trim() {
                "none" => iolab_job::FileLock::None,
                "exclusive" => iolab_job::FileLock::Exclusive,
                "readwrite" => iolab_job::FileLock::ReadWrite,
                _ => return Err("must be none, exclusive or readwrite".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "opendir",
        alias: None,
        kind: ValueKind::Str,
        help: "Use every regular file below this directory, recursively, as the job's files (symlinks are not followed).",
        apply: |d, v| {
            d.filename = Some(files_below(v.trim())?);
            Ok(())
        },
    },
    OptionDef {
        name: "filename_format",
        alias: None,
        kind: ValueKind::Str,
        help: "How files are named when filename is not given (default $jobname.$jobnum.$filenum): $jobname, $jobnum (the copy) and $filenum are replaced, so jobs can share files (testfiles.$filenum).",
        apply: |d, v| {
            d.filename_format = (!v.is_empty()).then(|| v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "unique_filename",
        alias: None,
        kind: ValueKind::Bool,
        help: "Accepted and ignored, as fio does outside client/server mode (it prefixes a network client's address to generated names).",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "allow_file_create",
        alias: None,
        kind: ValueKind::Bool,
        help: "Whether a missing file may be created (default 1); with 0 a missing file is an error before any I/O.",
        apply: |d, v| {
            d.spec.files.allow_create = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "allow_mounted_write",
        alias: None,
        kind: ValueKind::Bool,
        help: "0 (fio's default) is what iolab always does: a mounted device is never written; 1 is refused, since iolab never writes under a mounted file system.",
        apply: |_, v| match parse_bool(v)? {
            false => Ok(()),
            true => Err("iolab never writes to a mounted device; unmount it first".into()),
        },
    },
    OptionDef {
        name: "fallocate",
        alias: None,
        kind: ValueKind::Str,
        help: "How a new file's space is reserved: native (default: fallocate, nothing where the file system refuses), posix (posix_fallocate, an error if it fails), keep (FALLOC_FL_KEEP_SIZE), truncate (ftruncate: sparse), none; 0 and 1 mean none and posix.",
        apply: |d, v| {
            d.spec.files.fallocate = parse_fallocate(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "overwrite",
        alias: None,
        kind: ValueKind::Bool,
        help: "Fill a write-only job's new file with data before its I/O, as a reading job's always is (default 0: the file is only made and reserved).",
        apply: |d, v| {
            d.spec.files.overwrite = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "create_fsync",
        alias: None,
        kind: ValueKind::Bool,
        help: "fsync a file after laying it out (default 1).",
        apply: |d, v| {
            d.spec.files.create_fsync = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "create_serialize",
        alias: None,
        kind: ValueKind::Bool,
        help: "Lay files out one after another (default 1). iolab always does; 0 is accepted and lays them out the same way.",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
    OptionDef {
        name: "create_on_open",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not lay out a write-only job's missing file: it is made empty, unreserved, when the job opens it.",
        apply: |d, v| {
            d.spec.files.create_on_open = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "create_only",
        alias: None,
        kind: ValueKind::Bool,
        help: "Only lay the job's files out; run none of its I/O.",
        apply: |d, v| {
            d.spec.files.create_only = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "unlink",
        alias: None,
        kind: ValueKind::Bool,
        help: "Remove the job's files when it ends. A file iolab did not make is only removed with --allow-destroy.",
        apply: |d, v| {
            d.spec.files.unlink = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "unlink_each_loop",
        alias: None,
        kind: ValueKind::Bool,
        help: "Between loops, empty the job's files before the next (fio unlinks them; iolab truncates them in place, the same bytes and I/Os); the last loop's files stay, as fio's. Emptying a file iolab did not make needs --allow-destroy; a job that reads is refused (fio's finds nothing to read on its second loop).",
        apply: |d, v| {
            d.spec.files.unlink_each_loop = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fsync_on_close",
        alias: None,
        kind: ValueKind::Bool,
        help: "fsync each written file when the job closes it (untimed, unlike end_fsync).",
        apply: |d, v| {
            d.spec.files.fsync_on_close = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "pre_read",
        alias: None,
        kind: ValueKind::Bool,
        help: "Read the job's region into the page cache before its I/O starts; clears invalidate, as fio.",
        apply: |d, v| {
            d.spec.files.pre_read = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "file_append",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do the I/O past the end of the file (as offset= the file's size); ignored on block devices, as fio.",
        apply: |d, v| {
            d.spec.files.append = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fill_device",
        alias: Some("fill_fs"),
        kind: ValueKind::Bool,
        help: "Without size, size a regular file to fill its file system, up to the 5% iolab always leaves free (and the file size limit); fio writes until ENOSPC, iolab never to the last block. On a device, the device's size. With size, the job moves that size per loop, as fio's.",
        apply: |d, v| {
            d.spec.files.fill_device = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ioscheduler",
        alias: None,
        kind: ValueKind::Str,
        help: "Switch the disk under each file (or the device) to this I/O scheduler before the I/O, and fail if it does not take (as fio; the scheduler stays switched). A bio-based device such as zram has none to switch.",
        apply: |d, v| {
            d.spec.files.ioscheduler = Some(v.trim().to_string()).filter(|s| !s.is_empty());
            Ok(())
        },
    },
    OptionDef {
        name: "write_hint",
        alias: None,
        kind: ValueKind::Str,
        help: "Tell the kernel how long written data will live (fcntl F_SET_RW_HINT on each file): none, short, medium, long or extreme.",
        apply: |d, v| {
            d.spec.files.write_hint = Some(match v.trim() {
                "none" => 1,
                "short" => 2,
                "medium" => 3,
                "long" => 4,
                "extreme" => 5,
                _ => return Err("is not none, short, medium, long or extreme".into()),
            });
            Ok(())
        },
    },
    OptionDef {
        name: "sync_file_range",
        alias: None,
        kind: ValueKind::Str,
        help: "sync_file_range(2) every N writes over what each file had written since (FLAGS:N; FLAGS of wait_before, write, wait_after joined by commas; N default 1), timed with the syncs.",
        apply: |d, v| {
            d.spec.sync_file_range = parse_sync_file_range(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "sync",
        alias: None,
        kind: ValueKind::Str,
        help: "Synchronous writes: sync (1) opens the files O_SYNC, dsync O_DSYNC, none (0, default) neither.",
        apply: |d, v| {
            d.spec.files.sync = parse_sync(v)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filename_format_replaces_fios_keywords() {
        assert_eq!(
            format_filename("$jobname.$jobnum.$filenum", "j", 2, 3),
            "j.2.3"
        );
        assert_eq!(
            format_filename("testfiles.$FILENUM", "j", 2, 3),
            "testfiles.3"
        );
        assert_eq!(format_filename("a/b/$jobnum", "j", 0, 0), "a/b/0");
        assert_eq!(format_filename("x$$y$clientuid", "j", 0, 0), "x$$y");
    }

    #[test]
    fn sync_file_range_takes_flags_and_a_count() {
        let w = libc::SYNC_FILE_RANGE_WRITE;
        assert_eq!(parse_sync_file_range("write:8"), Ok((8, w)));
        assert_eq!(
            parse_sync_file_range("wait_before,write"),
            Ok((1, w | libc::SYNC_FILE_RANGE_WAIT_BEFORE))
        );
        assert!(parse_sync_file_range("flush:2").is_err());
    }

    #[test]
    fn fallocate_and_sync_take_fios_words() {
        assert_eq!(parse_fallocate("1"), Ok(Fallocate::Posix));
        assert_eq!(parse_fallocate("keep"), Ok(Fallocate::Keep));
        assert!(parse_fallocate("yes").is_err());
        assert_eq!(parse_sync("1"), Ok(SyncWrites::Sync));
        assert_eq!(parse_sync("dsync"), Ok(SyncWrites::Dsync));
        assert!(parse_sync("2").is_err());
    }
}
