//! fio's memory options: where the I/O buffers live and how much memory a job locks away.

use iolab_engine::memory::MemKind;

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_size;

fn parse_mem(v: &str) -> Result<MemKind, String> {
    let (kind, file) = match v.trim().split_once(':') {
        Some((k, f)) => (k, Some(f)),
        None => (v.trim(), None),
    };
    if file.is_some() {
        return Err(format!(
            "{kind} backed by a file is not supported by iolab yet; use {kind} without a file"
        ));
    }
    Ok(match kind {
        "malloc" => MemKind::Malloc,
        "shm" => MemKind::Shm,
        "shmhuge" => MemKind::ShmHuge,
        "mmap" => MemKind::Mmap,
        "mmaphuge" => MemKind::MmapHuge,
        "mmapshared" => MemKind::MmapShared,
        "cudamalloc" => {
            return Err("cudamalloc needs the rdma engine, which iolab does not have".into())
        }
        _ => return Err("is not malloc, shm, shmhuge, mmap, mmaphuge or mmapshared".into()),
    })
}

pub static MEMORY_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "mem",
        alias: Some("iomem"),
        kind: ValueKind::Str,
        help: "Where the I/O buffers live: malloc (default), shm, shmhuge, mmap, mmaphuge (huge pages, anonymous) or mmapshared; the huge kinds need free huge pages (/proc/sys/vm/nr_hugepages).",
        apply: |d, v| {
            d.spec.memory.kind = parse_mem(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "mem_align",
        alias: Some("iomem_align"),
        kind: ValueKind::Size,
        help: "Start the first I/O buffer this many bytes past a page boundary (default 0; the others follow a buffer apart).",
        apply: |d, v| {
            d.spec.memory.align =
                usize::try_from(parse_size(v)?).map_err(|_| "is too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "hugepage-size",
        alias: None,
        kind: ValueKind::Size,
        help: "The huge page size shmhuge and mmaphuge round their buffers up to (default 2 MiB).",
        apply: |d, v| {
            let s = parse_size(v)?;
            if s == 0 || !s.is_power_of_two() {
                return Err("must be a power of two".into());
            }
            d.spec.memory.hugepage = usize::try_from(s).map_err(|_| "is too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "lockmem",
        alias: None,
        kind: ValueKind::Size,
        help: "Lock this much memory (mlock) per job copy while it runs, as if the machine had that much less.",
        apply: |d, v| {
            d.spec.control.lockmem = parse_size(v)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_kinds_are_fios() {
        assert_eq!(parse_mem("shmhuge"), Ok(MemKind::ShmHuge));
        assert!(parse_mem("mmap:/tmp/x").unwrap_err().contains("file"));
        assert!(parse_mem("cudamalloc").is_err());
    }
}
