//! fio 3.42's per-I/O kernel flags: `uncached` (RWF_DONTCACHE, Linux 6.14: buffered I/O that
//! leaves nothing in the page cache) and `atomic` (RWF_ATOMIC, Linux 6.11: torn-write
//! protection). fio 3.33 had neither with these meanings: its `atomic` asked for O_ATOMIC,
//! which Linux never had, and its `uncached` for an RWF_UNCACHED that never merged.

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_u32};

/// The engines fio 3.42 sets RWF_ATOMIC on (FIO_ATOMICWRITES).
pub const ATOMIC_ENGINES: [&str; 3] = ["pvsync2", "libaio", "io_uring"];

pub static RWFLAG_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "uncached",
        alias: None,
        kind: ValueKind::Int,
        help: "pvsync2, io_uring: buffered I/O with RWF_DONTCACHE (Linux 6.14, fio 3.42): reads are evicted once copied, writes start their writeback at once and are evicted when it ends, so the page cache keeps none of the file. Has no effect with direct=1 (said in the notes).",
        apply: |d, v| {
            d.spec.engine.options.uncached = parse_u32(v)? != 0;
            Ok(())
        },
    },
    OptionDef {
        name: "atomic",
        alias: None,
        kind: ValueKind::Bool,
        help: "pvsync2, libaio, io_uring: every write with RWF_ATOMIC (Linux 6.11, fio 3.42): all of it or none reaches the media. Needs direct=1 and a target whose atomic write unit holds the block size (statx STATX_WRITE_ATOMIC); otherwise refused before anything is written, naming the target's limits. Ignored by a job that does not write, as fio.",
        apply: |d, v| {
            d.spec.engine.options.atomic = parse_bool(v)?;
            Ok(())
        },
    },
];

/// fio 3.42's other new job options that iolab takes: a filesystem sync at the end, the
/// threads' name, the I/O priority hint, work between I/Os in cycles and the files' stated
/// type.
pub static V342_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "end_syncfs",
        alias: None,
        kind: ValueKind::Bool,
        help: "When a job that wrote is done, syncfs(2) each filesystem its files are on, once (fio 3.42): end_fsync's one call per filesystem instead of an fsync per file.",
        apply: |d, v| {
            d.spec.end_syncfs = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "comm",
        alias: None,
        kind: ValueKind::Str,
        help: "The name the job's threads take (prctl PR_SET_NAME, fio 3.42), as top and ps -L show them; the kernel keeps 15 bytes.",
        apply: |d, v| {
            d.spec.comm = (!v.is_empty()).then(|| v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "priohint",
        alias: None,
        kind: ValueKind::Int,
        help: "I/O priority hint of the job's threads, 0 to 1023 (fio 3.42), set with ioprio_set beside prio and prioclass (best effort if no class is given); a drive with command duration limits takes it as the limit's index.",
        apply: |d, v| {
            let hint = parse_u32(v)?;
            if hint > u32::from(iolab_job::priority::MAX_HINT) {
                return Err("must be between 0 and 1023".into());
            }
            d.spec.priority.io_hint = hint as u16;
            d.spec.priority.io_class.get_or_insert(0);
            Ok(())
        },
    },
    OptionDef {
        name: "thinkcycles",
        alias: None,
        kind: ValueKind::Int,
        help: "Spin this many pause instructions (fio 3.42's cycles_spin, a rep;nop each) after each I/O before the next, to model work an application does per I/O; apart from thinktime, and never counted as latency.",
        apply: |d, v| {
            d.spec.think.cycles = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "filetype",
        alias: None,
        kind: ValueKind::Str,
        help: "What every file of the job is: file, block or char (none: the default, as found). fio 3.42 takes it on trust to skip a stat per file; iolab looks at each file anyway (its write guard must) and refuses the job where one is not of the stated type.",
        apply: |d, v| {
            d.spec.filetype = match v.trim() {
                "none" | "" => None,
                "file" => Some(iolab_job::FileType::File),
                "block" => Some(iolab_job::FileType::Block),
                "char" => Some(iolab_job::FileType::Char),
                _ => return Err("fio's choices: none, file, block or char".into()),
            };
            Ok(())
        },
    },
];
