//! The options of fio's first topic, "Jobs, directions and sizes" (the name, the I/O
//! pattern, block sizes, sizes and offsets, engines and depths, ...), and the parsers of
//! their values.

use super::*;
/// fio's `file_service_type` values iolab has (the zipf, pareto and normal choices are not).
pub(super) fn parse_file_service(v: &str) -> Result<FileService, String> {
    let (kind, n) = match v.trim().split_once(':') {
        Some((k, n)) => (k, Some(parse_u32(n)?.max(1))),
        None => (v.trim(), None),
    };
    match kind {
        "roundrobin" => Ok(FileService::RoundRobin(n.unwrap_or(1))),
        "sequential" => Ok(FileService::Sequential),
        "random" => Ok(FileService::Random(n.unwrap_or(1))),
        "zipf" | "pareto" | "normal" | "gauss" => {
            Err(format!("{kind} is not supported by iolab yet"))
        }
        _ => Err(format!("'{v}' is not roundrobin, sequential or random")),
    }
}

/// A percentage, 0 to 100.
pub(super) fn percent(v: &str) -> Result<u8, String> {
    match parse_u32(v)? {
        p @ 0..=100 => Ok(p as u8),
        _ => Err("must be between 0 and 100".into()),
    }
}

pub(super) fn size_spec(v: SizeOrPercent) -> SizeSpec {
    match v {
        SizeOrPercent::Bytes(b) => SizeSpec::Bytes(b),
        SizeOrPercent::Percent(p) => SizeSpec::Percent(p),
    }
}

pub(super) fn parse_rw(v: &str) -> Result<Rw, String> {
    Ok(match v {
        "read" => Rw::Read,
        "write" => Rw::Write,
        "randread" => Rw::RandRead,
        "randwrite" => Rw::RandWrite,
        "rw" | "readwrite" => Rw::ReadWrite,
        "randrw" => Rw::RandRw,
        "trim" => Rw::Trim,
        "randtrim" => Rw::RandTrim,
        "trimwrite" => Rw::TrimWrite,
        "randtrimwrite" => Rw::RandTrimWrite,
        _ => {
            return Err(
                "expected read, write, randread, randwrite, rw (readwrite), randrw, \
                 trim, randtrim, trimwrite or randtrimwrite"
                    .into(),
            )
        }
    })
}

/// `rw=NAME:SUFFIX`, as fio's `str_rw_cb()` reads it: on random I/O, a new random offset
/// every SUFFIX I/Os (`atoi`: 0 when not a number, which fio takes as never); on sequential
/// I/O, a signed size added to each next offset (`read:8k` holes, `read:-8k` backwards).
/// Returns (`seq_add`, `random_every`).
pub(super) fn parse_rw_suffix(rw: Rw, suffix: Option<&str>) -> Result<(i64, u32), String> {
    let Some(s) = suffix.map(str::trim) else {
        return Ok((0, 1));
    };
    let random = [
        Rw::RandRead,
        Rw::RandWrite,
        Rw::RandRw,
        Rw::RandTrim,
        Rw::RandTrimWrite,
    ];
    if random.contains(&rw) {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        return Ok((0, digits.parse().unwrap_or(0)));
    }
    let (negative, size) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let n = i64::try_from(parse_size(size)?).map_err(|_| format!("'{s}' is too large"))?;
    Ok((if negative { -n } else { n }, 1))
}

/// `bs=4k`, `bs=4k,64k` or `bs=4k,64k,1m` (read, write, trim); an empty part keeps the
/// default. As fio's parser, the last value given also serves the directions after it.
pub(super) fn parse_bs_pair(v: &str, current: [u32; 3]) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err("expected SIZE or READ,WRITE[,TRIM]".into());
    }
    let mut out = current;
    for (i, p) in parts.iter().enumerate() {
        if !p.trim().is_empty() {
            out[i] = parse_u32(p)?;
        }
    }
    for i in parts.len()..3 {
        out[i] = out[parts.len() - 1];
    }
    Ok(out)
}

pub(super) fn parse_percentiles(v: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for p in v.split(':').filter(|p| !p.is_empty()) {
        let x: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("'{p}' is not a number"))?;
        if !(x > 0.0 && x <= 100.0) {
            return Err(format!("{p} is not in (0, 100]"));
        }
        out.push(x);
    }
    if out.is_empty() {
        return Err("expected percentiles separated by ':' (e.g. 50:99:99.999)".into());
    }
    Ok(out)
}

/// fio's `cpumask`: a bit mask of CPUs, decimal or 0x-hex (1 is CPU 0, 6 is CPUs 1 and 2).
pub(super) fn parse_cpumask(v: &str) -> Result<CpuSet, String> {
    let t = v.trim();
    let mask = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse::<u64>(),
    }
    .map_err(|_| "expected a CPU bit mask, e.g. 1 (CPU 0) or 0xf (CPUs 0-3)".to_string())?;
    if mask == 0 {
        return Err("a mask of 0 allows no CPU".into());
    }
    Ok(CpuSet::from_cpus(
        (0..64).filter(|b| mask & (1u64 << b) != 0).collect(),
    ))
}

/// fio's `bsrange=1k-4k` (or `1k-4k,2k-8k[,4k-4k]` for read, write, trim): (min, max) per
/// direction.
pub(super) fn parse_bsrange(v: &str) -> Result<Vec<(u32, u32)>, String> {
    let mut out = Vec::new();
    for part in v.split(',').take(3) {
        let (lo, hi) = part
            .split_once('-')
            .ok_or_else(|| format!("'{part}': expected MIN-MAX, e.g. 4k-64k"))?;
        let (lo, hi) = (parse_u32(lo)?, parse_u32(hi)?);
        if lo == 0 || lo > hi {
            return Err(format!("'{part}': MIN must be at least 1 and at most MAX"));
        }
        out.push((lo, hi));
    }
    Ok(out)
}

/// fio's `bssplit=4k/10:64k/50:32k/40` (commas give writes, then trims, their own list; the
/// last list also serves the directions after it), read as fio's `split_parse_ddir()` and
/// `bssplit_ddir()` read it: a list ends at its first empty item; a share is the number its
/// text begins with (`atoi`), capped at 100; a size with no share, an empty one (`512/`) or
/// 0 splits what the others leave, each `(100 - given) / open`, rounded down. Shares that
/// come to less than 100 leave the rest to the last size (fio's draw falls through to it);
/// a size whose share comes to 0 is never drawn.
pub(super) fn parse_bssplit(v: &str) -> Result<Vec<Vec<(u32, u32)>>, String> {
    let mut out = Vec::new();
    for list in v.split(',').take(3) {
        let mut pairs: Vec<(u32, Option<u32>)> = Vec::new();
        for item in list.split(':') {
            if item.trim().is_empty() {
                break;
            }
            let (bs, pct) = match item.split_once('/') {
                Some((b, p)) => (parse_u32(b)?, Some(atoi_share(p)).filter(|&p| p > 0)),
                None => (parse_u32(item)?, None),
            };
            if bs == 0 {
                return Err(format!("'{item}': a block size must be at least 1 byte"));
            }
            pairs.push((bs, pct));
        }
        if pairs.is_empty() {
            return Err(format!(
                "'{list}': expected SIZE/PERCENT pairs separated by ':'"
            ));
        }
        let given: u32 = pairs.iter().filter_map(|p| p.1).sum();
        let open = pairs.iter().filter(|p| p.1.is_none()).count() as u32;
        if given > 100 && open > 1 {
            // fio's own words.
            return Err(format!(
                "'{list}': bssplit percentages add to more than 100%"
            ));
        }
        if given > 100 && open == 1 {
            // fio would give the open size (100 - given), a negative share, as unsigned.
            return Err(format!(
                "'{list}': the shares given add to {given}%, leaving nothing for the size \
                 without one"
            ));
        }
        let each = match (open, pairs.len()) {
            (0, _) => 0,
            // A lone size without a share is every I/O.
            (1, 1) => 100,
            _ => (100 - given) / open,
        };
        let resolved: Vec<(u32, u32)> = pairs
            .into_iter()
            .map(|(bs, p)| (bs, p.unwrap_or(each)))
            .filter(|&(_, share)| share > 0)
            .collect();
        if resolved.is_empty() {
            return Err(format!("'{list}': every size's share comes to 0%"));
        }
        out.push(resolved);
    }
    Ok(out)
}

/// C's `atoi` for a share: the digits its text begins with (after blanks), 0 when none,
/// capped at 100 as fio caps it.
fn atoi_share(s: &str) -> u32 {
    let digits: String = s
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    match digits.is_empty() {
        true => 0,
        false => digits.parse::<u64>().map_or(100, |n| n.min(100) as u32),
    }
}

/// fio's `random_distribution`: random, zipf[:theta], pareto[:h], normal[:dev%].
pub(super) fn parse_distribution(v: &str) -> Result<RandomDistribution, String> {
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    let num = |default: f64| -> Result<f64, String> {
        match arg {
            None => Ok(default),
            Some(a) => a
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("'{a}' is not a number")),
        }
    };
    Ok(match kind {
        "random" => RandomDistribution::Uniform,
        "zipf" => RandomDistribution::Zipf(num(1.1)?),
        "pareto" => RandomDistribution::Pareto(num(0.2)?),
        "normal" | "gauss" => RandomDistribution::Normal(num(0.0)?),
        "zoned" | "zoned_abs" => {
            let body = arg.unwrap_or("");
            let split = iolab_job::parse_zoned(body, kind == "zoned_abs", parse_size)?;
            RandomDistribution::Zoned(std::sync::Arc::new(split))
        }
        _ => {
            return Err(
                "expected random, zipf[:THETA], pareto[:H], normal[:DEV], zoned:A/S:... or zoned_abs:A/SIZE:..."
                    .into(),
            )
        }
    })
}

/// Every fio option iolab understands. Keep sorted roughly as fio's HOWTO groups them.
pub static OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "name",
        alias: None,
        kind: ValueKind::Str,
        help: "Job name. On the command line, each --name starts a new job; options before the first apply to all jobs.",
        apply: |d, v| {
            d.spec.name = v.to_string();
            Ok(())
        },
    },
    OptionDef {
        name: "filename",
        alias: None,
        kind: ValueKind::Str,
        help: "File or block device to run against; a:b:c spreads the job over several, one I/O each in turn, size split evenly (\\: is a colon in a name). A missing file is created when size is given. Without it, each copy of the job gets its own file, NAME.COPY.0, as in fio.",
        apply: |d, v| {
            d.filename = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "directory",
        alias: None,
        kind: ValueKind::Str,
        help: "Directory put before every file name, absolute ones too (as fio), and for default names.",
        apply: |d, v| {
            d.directory = Some(v.to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "rw",
        alias: Some("readwrite"),
        kind: ValueKind::Str,
        help: "I/O pattern: read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite (trim a block, then write it) or randtrimwrite; trims are BLKDISCARD on a block device and punched holes in a file, and need --allow-destroy as writes do; read:8k leaves 8k holes, read:-8k steps back, randread:N draws a new offset every N I/Os.",
        apply: |d, v| {
            let (name, suffix) = match v.split_once(':') {
                Some((n, s)) => (n, Some(s)),
                None => (v, None),
            };
            d.rw = parse_rw(name)?;
            (d.spec.seq_add, d.spec.random_every) = parse_rw_suffix(d.rw, suffix)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rwmixread",
        alias: None,
        kind: ValueKind::Int,
        help: "Percentage of a mixed workload that is reads (default 50); each I/O's direction is drawn as fio draws it, from fio's own stream, so a job's reads and writes come in fio's order and counts.",
        apply: |d, v| {
            let p = parse_u32(v)?;
            if p > 100 {
                return Err("must be between 0 and 100".into());
            }
            d.rwmixread = Some(p);
            Ok(())
        },
    },
    OptionDef {
        name: "rwmixwrite",
        alias: None,
        kind: ValueKind::Int,
        help: "Percentage of a mixed workload that is writes (rwmixread is 100 minus it).",
        apply: |d, v| {
            let p = parse_u32(v)?;
            if p > 100 {
                return Err("must be between 0 and 100".into());
            }
            d.rwmixread = Some(100 - p);
            Ok(())
        },
    },
    OptionDef {
        name: "bs",
        alias: Some("blocksize"),
        kind: ValueKind::Size,
        help: "Block size of each I/O (default 4k); READ,WRITE[,TRIM] sets each direction (the last given serves the rest).",
        apply: |d, v| {
            d.spec.block_size = parse_bs_pair(v, d.spec.block_size)?;
            d.spec.block_dist = Default::default();
            d.bs_set = true;
            Ok(())
        },
    },
    OptionDef {
        name: "bsrange",
        alias: Some("blocksize_range"),
        kind: ValueKind::Str,
        help: "Block sizes drawn uniformly from MIN-MAX, in steps of MIN (MIN-MAX,MIN-MAX[,MIN-MAX] for read, write, trim).",
        apply: |d, v| {
            let r = parse_bsrange(v)?;
            for side in 0..3 {
                let (lo, hi) = r[side.min(r.len() - 1)];
                d.spec.block_size[side] = hi;
                d.spec.block_dist[side] = BlockDist::Range { min: lo };
            }
            Ok(())
        },
    },
    OptionDef {
        name: "bssplit",
        alias: None,
        kind: ValueKind::Str,
        help: "Block sizes with shares, e.g. 4k/10:64k/50:32k/40 (commas give writes, then trims, their own lists). Sizes with no share (4k, 4k/ or 4k/0) split what the others leave evenly, as fio's.",
        apply: |d, v| {
            let lists = parse_bssplit(v)?;
            for side in 0..3 {
                let l = &lists[side.min(lists.len() - 1)];
                d.spec.block_size[side] = l.iter().map(|p| p.0).max().unwrap_or(4096);
                d.spec.block_dist[side] = BlockDist::Split(l.clone());
            }
            Ok(())
        },
    },
    OptionDef {
        name: "blockalign",
        alias: Some("ba"),
        kind: ValueKind::Size,
        help: "Align random offsets to this many bytes (default: the block size), e.g. 512 for misaligned transfers.",
        apply: |d, v| {
            d.spec.block_align = Some(parse_bs_pair(v, [0; 3])?[0] as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth",
        alias: None,
        kind: ValueKind::Int,
        help: "I/Os kept in flight (default 1). Synchronous engines (psync, pvsync2, null) always run at 1.",
        apply: |d, v| {
            d.spec.iodepth = parse_u32(v)?;
            d.replay.iodepth_set = true;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_low",
        alias: None,
        kind: ValueKind::Int,
        help: "Once the queue is full, let it drain to this many in flight before filling it again (default: iodepth, always kept full).",
        apply: |d, v| {
            d.spec.iodepth_low = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "serialize_overlap",
        alias: None,
        kind: ValueKind::Bool,
        help: "An I/O waits until no I/O in flight overlaps its bytes (in any file, as fio compares offsets only), for jobs that write, trim or replay a log at iodepth>1; elsewhere ignored, as fio drops it.",
        apply: |d, v| {
            d.spec.serialize_overlap = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_batch_submit",
        alias: Some("iodepth_batch"),
        kind: ValueKind::Int,
        help: "I/Os submitted per system call (default 1, as fio: each I/O as soon as it is ready; 0: the whole iodepth). Submission latency (slat) runs from an I/O's preparation to the return of its submit call.",
        apply: |d, v| {
            d.spec.iodepth_batch_submit = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_batch_complete_min",
        alias: Some("iodepth_batch_complete"),
        kind: ValueKind::Int,
        help: "Completions to wait for each time iolab reaps (default 1, as fio; 0 is taken as 1).",
        apply: |d, v| {
            d.spec.iodepth_batch_complete_min = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "iodepth_batch_complete_max",
        alias: None,
        kind: ValueKind::Int,
        help: "Most completions taken per reap (default: iodepth_batch_complete_min, so one at a time, as fio).",
        apply: |d, v| {
            d.spec.iodepth_batch_complete_max = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ioengine",
        alias: None,
        kind: ValueKind::Str,
        help: "How I/O is issued: sync, psync, vsync (lseek and readv/writev of one iovec), pvsync, pvsync2, mmap (memcpy through a shared mapping of the file), libaio, posixaio (glibc's POSIX AIO), splice (through a pipe: splice and vmsplice, 64 KiB at a time), io_uring, io_uring_cmd, null (no I/O: measures iolab itself), cpuio (no I/O: burns cpuload percent of a CPU; zero bytes, its CPU line is the figure), exec (no I/O: runs program= for the job's runtime, its output in JOBNAME.stdout and .stderr), e4defrag (each write one EXT4_IOC_MOVE_EXT of its range into donorname's blocks: the file keeps its data on new blocks; ext4 only), or the file-system engines falloc (each I/O one fallocate: read reserves, write extends, trim punches a hole) ftruncate (each write sets the file's length to its offset), filecreate, filestat and filedelete (each pass over a file is one timed create, stat or unlink of it; the I/Os only count, and their latency is the operation's); fio 3.42's dircreate, dirstat and dirdelete do the same to directories: mkdir, stat, rmdir), or spdk (SPDK's user-space NVMe driver, polled; filename='trtype=PCIe traddr=0000.01.00.0 ns=1' as SPDK's fio plugin, on a controller `iolab spdk bind` handed over; only in a build with the feature spdk).",
        apply: |d, v| {
            let kind = v.parse::<EngineKind>().map_err(|e| e.to_string())?;
            if kind == EngineKind::Spdk && !iolab_engine::spdk::BUILT {
                return Err(iolab_engine::spdk::HOW_TO_BUILD.into());
            }
            d.spec.engine.kind = kind;
            Ok(())
        },
    },
    OptionDef {
        name: "direct",
        alias: None,
        kind: ValueKind::Bool,
        help: "Use O_DIRECT (bypass the page cache). Block size and offsets must then be multiples of the logical block size.",
        apply: |d, v| {
            d.spec.direct = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "buffered",
        alias: None,
        kind: ValueKind::Bool,
        help: "The opposite of direct (buffered=0 is direct=1).",
        apply: |d, v| {
            d.spec.direct = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "size",
        alias: None,
        kind: ValueKind::Size,
        help: "Bytes of the target to use, or a percentage of it; without time_based, also how much to transfer. Default: the whole file or device.",
        apply: |d, v| {
            d.spec.size = Some(size_spec(parse_size_or_percent(v)?));
            Ok(())
        },
    },
    OptionDef {
        name: "offset",
        alias: Some("fileoffset"),
        kind: ValueKind::Size,
        help: "Where in the target the job's region starts (bytes or percentage).",
        apply: |d, v| {
            d.spec.offset = size_spec(parse_size_or_percent(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "offset_increment",
        alias: None,
        kind: ValueKind::Size,
        help: "Each job copy (numjobs) starts this much further than the one before (bytes or percentage of the target), so copies work on neighbouring regions.",
        apply: |d, v| {
            d.spec.offset_increment = size_spec(parse_size_or_percent(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "io_size",
        alias: Some("io_limit"),
        kind: ValueKind::Size,
        help: "Bytes to transfer (bytes or percentage), when not size=: more goes over the region again, less stops early.",
        apply: |d, v| {
            d.spec.io_size = Some(size_spec(parse_size_or_percent(v)?));
            Ok(())
        },
    },
    OptionDef {
        name: "filesize",
        alias: Some("file_size"),
        kind: ValueKind::Size,
        help: "The file's size; a smaller size= is then the bytes to transfer over the whole file, a larger one is capped at the file, as in fio. A range (LOW-HIGH) is not supported yet.",
        apply: |d, v| {
            if v.contains('-') || v.contains(':') {
                return Err("a range of file sizes is not supported by iolab yet".into());
            }
            d.filesize = Some(parse_size(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "wait_for",
        alias: None,
        kind: ValueKind::Str,
        help: "Start only once every copy of the earlier job of this name has finished (the others in its phase run on).",
        apply: |d, v| {
            d.spec.wait_for = Some(v.trim().to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "number_ios",
        alias: None,
        kind: ValueKind::Int,
        help: "Stop after this many I/Os (per loop), even before the bytes are done (0: no count); a time_based job runs its time regardless, as in fio.",
        apply: |d, v| {
            let n = parse_size(v)?;
            d.spec.number_ios = (n > 0).then_some(n);
            Ok(())
        },
    },
    OptionDef {
        name: "time_based",
        alias: None,
        kind: ValueKind::Bool,
        help: "Run for runtime, going over the region as often as needed.",
        apply: |d, v| {
            d.spec.time_based = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "runtime",
        alias: Some("timeout"),
        kind: ValueKind::Time,
        help: "How long to measure (after ramp_time); seconds unless a unit is given (500ms, 20m, 1h).",
        apply: |d, v| {
            d.spec.runtime = Some(parse_time(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "ramp_time",
        alias: None,
        kind: ValueKind::Time,
        help: "Run this long before measuring; statistics are reset when it ends.",
        apply: |d, v| {
            d.spec.ramp_time = parse_time(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "ramp_size",
        alias: None,
        kind: ValueKind::Size,
        help: "Transfer this many bytes (each job copy) before measuring, then reset the statistics (fio 3.42; bytes unless a unit is given). Not with ramp_time, nor with group_reporting (fio then counts the group's bytes together).",
        apply: |d, v| {
            d.spec.ramp_bytes = parse_size(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "numjobs",
        alias: None,
        kind: ValueKind::Int,
        help: "Run this many identical copies of the job side by side, each in its own thread.",
        apply: |d, v| {
            d.spec.numjobs = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cpus_allowed",
        alias: None,
        kind: ValueKind::List,
        help: "CPUs the job's threads may run on, e.g. 0-3,6.",
        apply: |d, v| {
            d.spec.cpus_allowed = Some(v.parse::<CpuSet>().map_err(|e| match e {
                iolab_job::JobError::Invalid { reason, .. } => reason,
                other => other.to_string(),
            })?);
            Ok(())
        },
    },
    OptionDef {
        name: "norandommap",
        alias: None,
        kind: ValueKind::Bool,
        help: "Draw random offsets independently, instead of visiting every block once per pass.",
        apply: |d, v| {
            d.spec.random_map = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "randseed",
        alias: None,
        kind: ValueKind::Int,
        help: "Seed for random offsets, the read/write mix and buffer contents (default 0x89: runs repeat).",
        apply: |d, v| {
            d.spec.seed = parse_size(v)?;
            d.randseed_set = true;
            Ok(())
        },
    },
    OptionDef {
        name: "randrepeat",
        alias: None,
        kind: ValueKind::Bool,
        help: "1 (default): random offsets, mix and buffers repeat from run to run; 0: seeded from the clock unless randseed is given.",
        apply: |d, v| {
            d.randrepeat = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "hipri",
        alias: None,
        kind: ValueKind::Bool,
        help: "Polled completion: RWF_HIPRI for pvsync2, IOPOLL for io_uring. Needs a device with poll queues.",
        apply: |d, v| {
            d.spec.engine.options.hipri = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cmd_type",
        alias: None,
        kind: ValueKind::Str,
        help: "io_uring_cmd: the command set sent; nvme (the only one, and the default).",
        apply: |_, v| match v.trim() {
            "nvme" => Ok(()),
            other => Err(format!(
                "'{other}' is not a command type iolab sends (it has nvme)"
            )),
        },
    },
    OptionDef {
        name: "sqthread_poll",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring: a kernel thread (SQPOLL) picks up submissions; its CPU is counted.",
        apply: |d, v| {
            d.spec.engine.options.sqthread_poll = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "sqthread_poll_cpu",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring: the CPU the SQPOLL thread runs on (with sqthread_poll).",
        apply: |d, v| {
            d.spec.engine.options.sqthread_poll_cpu = Some(parse_u32(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "nonvectored",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring: 1 READ/WRITE (the default, as fio picks on kernels that have them), 0 READV/WRITEV.",
        apply: |d, v| {
            d.spec.engine.options.nonvectored = match v.trim() {
                "-1" => None,
                other => Some(parse_bool(other)?),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "force_async",
        alias: None,
        kind: ValueKind::Int,
        help: "io_uring: every Nth request is sent straight to io-wq workers (IOSQE_ASYNC); 0 none.",
        apply: |d, v| {
            d.spec.engine.options.force_async = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "stat_type",
        alias: None,
        kind: ValueKind::Str,
        help: "filestat: the call that looks each file up, stat (default), lstat or statx.",
        apply: |d, v| {
            d.spec.engine.options.stat_type = match v.trim() {
                "stat" => iolab_engine::StatType::Stat,
                "lstat" => iolab_engine::StatType::Lstat,
                "statx" => iolab_engine::StatType::Statx,
                _ => return Err("must be stat, lstat or statx".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "thp",
        alias: None,
        kind: ValueKind::Bool,
        help: "mmap: map the file privately with MADV_HUGEPAGE (transparent huge pages); as in fio, writes then stay in memory and never reach the file.",
        apply: |d, v| {
            d.spec.engine.options.thp = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fixedbufs",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring: register the I/O buffers with the kernel once.",
        apply: |d, v| {
            d.spec.engine.options.fixedbufs = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "registerfiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "io_uring: register the file with the kernel once.",
        apply: |d, v| {
            d.spec.engine.options.registerfiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "percentile_list",
        alias: None,
        kind: ValueKind::List,
        help: "Latency percentiles to report, separated by ':' (default: fio's list; iolab adds p99.999 under its own name, the JSON's iolab.clat_p99.999_ns and a line marked (iolab)).",
        apply: |d, v| {
            d.spec.percentiles = parse_percentiles(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "slat_percentiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report submission latency percentiles too (asynchronous engines; synchronous ones have no slat, as in fio).",
        apply: |d, v| {
            d.spec.slat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "clat_percentiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report completion-latency percentiles (default 1).",
        apply: |d, v| {
            d.spec.clat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "lat_percentiles",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report total-latency (submission + completion) percentiles (default 0).",
        apply: |d, v| {
            d.spec.lat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "group_reporting",
        alias: None,
        kind: ValueKind::Bool,
        help: "Report the copies of a job (numjobs) as one.",
        apply: |d, v| {
            d.spec.group_reporting = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "description",
        alias: None,
        kind: ValueKind::Str,
        help: "Free text describing the job, shown with its results.",
        apply: |d, v| {
            d.spec.description = v.trim_matches('"').to_string();
            Ok(())
        },
    },
    OptionDef {
        name: "stonewall",
        alias: Some("wait_for_previous"),
        kind: ValueKind::Bool,
        help: "Start this job only when every job before it has finished; it also starts a new reporting group.",
        apply: |d, v| {
            d.spec.stonewall = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "new_group",
        alias: None,
        kind: ValueKind::Bool,
        help: "Start a new reporting group here without waiting for the jobs before.",
        apply: |d, v| {
            d.spec.new_group = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "startdelay",
        alias: None,
        kind: ValueKind::Time,
        help: "Wait this long before starting the job (seconds unless a unit is given).",
        apply: |d, v| {
            d.spec.start_delay = parse_time(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "loops",
        alias: None,
        kind: ValueKind::Int,
        help: "Repeat the job's work this many times (default 1).",
        apply: |d, v| {
            d.spec.loops = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cpumask",
        alias: None,
        kind: ValueKind::Int,
        help: "CPUs the job's threads may run on, as a bit mask (1 is CPU 0; 0x6 is CPUs 1 and 2).",
        apply: |d, v| {
            d.spec.cpus_allowed = Some(parse_cpumask(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "disable_slat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not report submission latency (reported as zeros, as fio does).",
        apply: |d, v| {
            d.spec.recorded.slat = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disable_clat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not report completion latency (reported as zeros, as fio does).",
        apply: |d, v| {
            d.spec.recorded.clat = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disable_lat",
        alias: None,
        kind: ValueKind::Bool,
        help: "Do not report total latency (reported as zeros, as fio does).",
        apply: |d, v| {
            d.spec.recorded.lat = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "disable_bw_measurement",
        alias: Some("disable_bw"),
        kind: ValueKind::Bool,
        help: "Do not sample bandwidth and IOPS over time (bw_min/bw_max and friends report zeros).",
        apply: |d, v| {
            d.spec.recorded.bw = !parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "gtod_reduce",
        alias: None,
        kind: ValueKind::Bool,
        help: "Shorthand for disable_slat, disable_clat, disable_lat and disable_bw together.",
        apply: |d, v| {
            if parse_bool(v)? {
                d.spec.recorded = iolab_job::Recorded {
                    slat: false,
                    clat: false,
                    lat: false,
                    bw: false,
                    buckets: true,
                };
            }
            Ok(())
        },
    },
    OptionDef {
        name: "random_distribution",
        alias: None,
        kind: ValueKind::Str,
        help: "Where random offsets fall: random (uniform), zipf[:THETA], pareto[:H], normal[:DEV%], zoned:ACCESS%/SIZE%:... or zoned_abs:ACCESS%/BYTES:... (READ,WRITE,TRIM parts), as fio defines them. Non-uniform ones draw independently (as norandommap).",
        apply: |d, v| {
            d.spec.distribution = parse_distribution(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "flow",
        alias: None,
        kind: ValueKind::Int,
        help: "Weight (1-1000) in the job's flow group: the jobs of one flow_id issue I/O in the ratio of their weights, one ahead of its share waiting (0: no flow).",
        apply: |d, v| {
            let w = parse_u32(v)?;
            if w > 1000 {
                return Err("the most is 1000".into());
            }
            d.spec.flow.weight = w;
            Ok(())
        },
    },
    OptionDef {
        name: "flow_id",
        alias: None,
        kind: ValueKind::Int,
        help: "The flow group this job's flow weight counts in (default 0).",
        apply: |d, v| {
            d.spec.flow.id = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "random_generator",
        alias: None,
        kind: ValueKind::Str,
        help: "`tausworthe` (default) or `tausworthe64`: fio's own generators, seeded as fio seeds them, so a `norandommap` job's offsets are fio's, in fio's order, and so are a random-map job's with iolab's `--fio-offsets` (or `zonemode=zbd`); without it the random map does every block once a pass in iolab's own order, about 3 ns an I/O cheaper (fio widens `tausworthe` to 64 bits for a file of over 2^32 blocks, and so does iolab). `lfsr`: every block once per pass even with `norandommap`, as fio's, in iolab's own order.",
        apply: |d, v| {
            d.spec.generator = match v.trim() {
                "tausworthe" => iolab_job::Generator::Tausworthe,
                "tausworthe64" => iolab_job::Generator::Tausworthe64,
                "lfsr" => iolab_job::Generator::FullPeriod,
                _ => return Err(format!("'{v}' is not tausworthe, tausworthe64 or lfsr")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "prio",
        alias: None,
        kind: ValueKind::Int,
        help: "I/O priority level of the job's threads, 0 (highest) to 7 (lowest), in prioclass (best effort if none), set with ioprio_set as fio does; every request they issue carries it.",
        apply: |d, v| {
            let level = parse_u32(v)?;
            if level > 7 {
                return Err("must be between 0 (highest) and 7 (lowest)".into());
            }
            d.spec.priority.io_level = level as u8;
            d.spec.priority.io_class.get_or_insert(0);
            Ok(())
        },
    },
    OptionDef {
        name: "prioclass",
        alias: None,
        kind: ValueKind::Int,
        help: "I/O priority class of the job's threads: 1 realtime, 2 best effort, 3 idle (0: best effort).",
        apply: |d, v| {
            let class = parse_u32(v)?;
            if class > 3 {
                return Err("must be 1 (realtime), 2 (best effort) or 3 (idle)".into());
            }
            d.spec.priority.io_class = Some(class as u8);
            Ok(())
        },
    },
    OptionDef {
        name: "nice",
        alias: None,
        kind: ValueKind::Int,
        help: "CPU nice value of the job's threads, -20 to 19 (default 0: unchanged).",
        apply: |d, v| {
            let n: i32 = v
                .trim()
                .parse()
                .map_err(|_| format!("'{v}' is not a whole number"))?;
            if !(-20..=19).contains(&n) {
                return Err("must be between -20 and 19".into());
            }
            d.spec.priority.nice = n;
            Ok(())
        },
    },
    OptionDef {
        name: "numa_cpu_nodes",
        alias: None,
        kind: ValueKind::List,
        help: "Run the job on the CPUs of these NUMA nodes, e.g. 0 or 0-1 (with `cpus_allowed`, on the CPUs in both).",
        apply: |d, v| {
            let nodes = v
                .parse::<CpuSet>()
                .map_err(|_| format!("'{v}' is not a node list like 0-1,3"))?;
            d.spec.numa.cpu_nodes = Some(nodes);
            Ok(())
        },
    },
    OptionDef {
        name: "numa_mem_policy",
        alias: None,
        kind: ValueKind::Str,
        help: "Where the job's buffers live: `default`, `prefer:N`, `bind:NODES`, `interleave:NODES` or `local` (Linux's set_mempolicy).",
        apply: |d, v| {
            d.spec.numa.mem = Some(MemPolicy::parse(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "nrfiles",
        alias: Some("nr_files"),
        kind: ValueKind::Int,
        help: "Files per job copy when `filename` is not given (NAME.COPY.FILE), `size` split between them.",
        apply: |d, v| {
            d.nrfiles = parse_u32(v)?.max(1);
            Ok(())
        },
    },
    OptionDef {
        name: "file_service_type",
        alias: None,
        kind: ValueKind::Str,
        help: "Which file the next I/O goes to: `roundrobin[:N]` (default, N I/Os each in turn), `sequential` (one file's I/O, then the next), `random[:N]`.",
        apply: |d, v| {
            d.spec.file_service = parse_file_service(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "openfiles",
        alias: None,
        kind: ValueKind::Int,
        help: "Most files open at once: the I/O goes to that many files at a time, the next joining when one has had its share, in fio's order. iolab keeps every file of the job open all the same (and says so when this is fewer).",
        apply: |d, v| {
            d.openfiles = Some(parse_u32(v)?).filter(|&n| n > 0);
            Ok(())
        },
    },
    OptionDef {
        name: "exitall",
        alias: None,
        kind: ValueKind::Bool,
        help: "When a job ends, stop other jobs (those `exit_what` names); set on any job, it holds for every job of the run, as in fio.",
        apply: |d, v| {
            d.spec.exitall = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "exit_what",
        alias: None,
        kind: ValueKind::Str,
        help: "What `exitall` stops when this job ends: `group` (its reporting group, default), `stonewall` (every job running beside it), `all` (everything; no later job starts).",
        apply: |d, v| {
            d.spec.exit_what = match v.trim() {
                "group" => ExitWhat::Group,
                "stonewall" => ExitWhat::Stonewall,
                "all" => ExitWhat::All,
                _ => return Err(format!("'{v}' is not group, stonewall or all")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "rate_ignore_thinktime",
        alias: Some("rate_ign_think"),
        kind: ValueKind::Bool,
        help: "With a rate cap and thinktime, go on at the rate after a pause instead of catching up on it (fio's handle_thinktime).",
        apply: |d, v| {
            d.spec.think.ignore_for_rate = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime",
        alias: None,
        kind: ValueKind::Time,
        help: "Pause after each I/O (or each `thinktime_blocks`), microseconds unless a unit is given; what is in flight completes first, and the pause is never latency.",
        apply: |d, v| {
            d.spec.think.time = parse_time_us(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_spin",
        alias: None,
        kind: ValueKind::Time,
        help: "The part of `thinktime` spent busy on the CPU rather than asleep (microseconds unless a unit is given).",
        apply: |d, v| {
            d.spec.think.spin = parse_time_us(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_blocks",
        alias: None,
        kind: ValueKind::Int,
        help: "I/Os between `thinktime` pauses (default 1).",
        apply: |d, v| {
            d.spec.think.blocks = Some(parse_u32(v)?);
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_blocks_type",
        alias: None,
        kind: ValueKind::Str,
        help: "`complete` (default): count I/Os completed toward `thinktime_blocks`; `issue`: count I/Os issued.",
        apply: |d, v| {
            d.spec.think.on_issue = match v.trim() {
                "complete" => false,
                "issue" => true,
                _ => return Err(format!("'{v}' is not complete or issue")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "thinktime_iotime",
        alias: None,
        kind: ValueKind::Time,
        help: "Pause once this long has passed doing I/O (seconds unless a unit is given), besides or instead of `thinktime_blocks`.",
        apply: |d, v| {
            d.spec.think.iotime = parse_time(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "flow_sleep",
        alias: None,
        kind: ValueKind::Int,
        help: "Microseconds a job ahead of its flow share sleeps before asking again (0: it yields).",
        apply: |d, v| {
            d.spec.flow.sleep = std::time::Duration::from_micros(parse_u32(v)? as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "rate",
        alias: None,
        kind: ValueKind::Size,
        help: "Cap on bytes per second (READ,WRITE,TRIM caps each direction; 0 or empty: none); each I/O falls due when the bytes before it allow, and a job that falls behind catches up.",
        apply: |d, v| {
            d.spec.rate.bytes = parse_rate(v, parse_size)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_iops",
        alias: None,
        kind: ValueKind::Int,
        help: "Cap on I/Os per second (READ,WRITE,TRIM caps each direction), as rate= of IOPS x the smallest block size; a job that falls behind catches up.",
        apply: |d, v| {
            d.spec.rate.iops = parse_rate(v, parse_u32)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_min",
        alias: Some("ratemin"),
        kind: ValueKind::Size,
        help: "Least bytes per second (READ,WRITE,TRIM): after 2 s, a rate_cycle in which the job did less ends it with an error, as fio.",
        apply: |d, v| {
            d.spec.rate.min_bytes = parse_rate(v, parse_size)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_iops_min",
        alias: None,
        kind: ValueKind::Int,
        help: "Least I/Os per second (READ,WRITE,TRIM), checked as rate_min; rate_min wins where both are given.",
        apply: |d, v| {
            d.spec.rate.min_iops = parse_rate(v, parse_u32)?;
            Ok(())
        },
    },
    OptionDef {
        name: "rate_cycle",
        alias: Some("ratecycle"),
        kind: ValueKind::Int,
        help: "Milliseconds over which rate_min and rate_iops_min are averaged (default 1000).",
        apply: |d, v| {
            d.spec.rate.cycle = std::time::Duration::from_millis(parse_u32(v)? as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "rate_process",
        alias: None,
        kind: ValueKind::Str,
        help: "How capped I/Os are spaced: linear (evenly, default) or poisson (random gaps of the same mean, as independent arrivals).",
        apply: |d, v| {
            d.spec.rate.process = match v.trim() {
                "linear" => iolab_job::RateProcess::Linear,
                "poisson" => iolab_job::RateProcess::Poisson,
                _ => return Err("expected linear or poisson".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "fsync",
        alias: None,
        kind: ValueKind::Int,
        help: "fsync the file after every N writes (I/Os in flight finish first); reported under sync.",
        apply: |d, v| {
            d.spec.fsync_every = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fdatasync",
        alias: None,
        kind: ValueKind::Int,
        help: "fdatasync the file after every N writes (data, not metadata), as fsync=N otherwise; reported under sync.",
        apply: |d, v| {
            d.spec.fdatasync_every = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "end_fsync",
        alias: None,
        kind: ValueKind::Bool,
        help: "fsync the file once when the job's I/O is done.",
        apply: |d, v| {
            d.spec.end_fsync = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "invalidate",
        alias: None,
        kind: ValueKind::Bool,
        help: "Drop the region's page cache when the job opens its files (default 1, as fio: posix_fadvise DONTNEED on files, BLKFLSBUF on devices).",
        apply: |d, v| {
            d.spec.invalidate = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "fadvise_hint",
        alias: None,
        kind: ValueKind::Str,
        help: "Advice to the kernel when the job opens its files: 1 (default, as fio): random or sequential from the job's pattern; 0: none; random; sequential.",
        apply: |d, v| {
            d.spec.fadvise_hint = match v.trim() {
                "0" | "none" => FadviseHint::None,
                "1" | "type" => FadviseHint::Type,
                "random" => FadviseHint::Random,
                "sequential" => FadviseHint::Sequential,
                _ => return Err("expected 0, 1, random or sequential".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "unified_rw_reporting",
        alias: None,
        kind: ValueKind::Str,
        help: "none (0): reads and writes apart; mixed (1): one \"mixed\" direction; both (2): apart and mixed.",
        apply: |d, v| {
            d.spec.rw_reporting = match v {
                "none" | "0" => RwReporting::Separate,
                "mixed" | "1" => RwReporting::Mixed,
                "both" | "2" => RwReporting::Both,
                _ => return Err("expected none, mixed or both (0, 1, 2)".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "zero_buffers",
        alias: None,
        kind: ValueKind::Bool,
        help: "Write zeros instead of random data (compresses and dedupes to nothing).",
        apply: |d, v| {
            d.spec.buffers.zero = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "refill_buffers",
        alias: None,
        kind: ValueKind::Bool,
        help: "Fill the buffer with fresh random data before every write.",
        apply: |d, v| {
            d.spec.buffers.refill = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "scramble_buffers",
        alias: None,
        kind: ValueKind::Bool,
        help: "Stamp each 512-byte chunk of every write with its offset, so writes never repeat (default 1, as fio).",
        apply: |d, v| {
            d.spec.buffers.scramble = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "buffer_pattern",
        alias: None,
        kind: ValueKind::Str,
        help: "Write this pattern, repeated (fio's pattern syntax: 0x hex, decimal, \"string\", up to 512 bytes); with buffer_compress_percentage it fills the compressible part. Turns scramble_buffers and zero_buffers off; refilled before every write when the job also reads or compresses, as fio.",
        apply: |d, v| {
            let bytes = crate::options::verify::parse_pattern(v)?;
            d.spec.buffers.pattern = Some(
                iolab_engine::buffer::FillPattern::new(&bytes)
                    .ok_or("must be 1 to 512 bytes long")?,
            );
            Ok(())
        },
    },
    OptionDef {
        name: "buffer_compress_chunk",
        alias: None,
        kind: ValueKind::Size,
        help: "The chunk buffer_compress_percentage applies to (default 512): each chunk is that share zeros, the rest random; 0 makes the whole block one chunk.",
        apply: |d, v| {
            d.spec.buffers.compress_chunk =
                u32::try_from(parse_size(v)?).map_err(|_| "is too large".to_string())?;
            Ok(())
        },
    },
    OptionDef {
        name: "buffer_compress_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "Make written data compress by about this percentage (zeros in each 512-byte chunk); default 0: incompressible.",
        apply: |d, v| {
            d.spec.buffers.compress_percent = percent(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "Share of writes (0-100) that repeat data already written, for deduplicating devices; implies refill_buffers, as fio.",
        apply: |d, v| {
            d.spec.buffers.dedupe.percent = percent(v)?;
            d.spec.buffers.refill = true;
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_mode",
        alias: None,
        kind: ValueKind::Str,
        help: "What a repeating write repeats: `repeat` (the last unique buffer, default) or `working_set` (a random page of the first dedupe_working_set_percentage of the size).",
        apply: |d, v| {
            d.spec.buffers.dedupe.mode = match v.trim() {
                "repeat" => DedupeMode::Repeat,
                "working_set" => DedupeMode::WorkingSet,
                _ => return Err(format!("'{v}' is not repeat or working_set")),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_working_set_percentage",
        alias: None,
        kind: ValueKind::Int,
        help: "The working set of dedupe_mode=working_set, as a percentage of the size (default 5).",
        apply: |d, v| {
            d.spec.buffers.dedupe.working_set_percent = percent(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "dedupe_global",
        alias: None,
        kind: ValueKind::Bool,
        help: "Share the dedupe working set among the jobs that set this, so their writes repeat each other's data.",
        apply: |d, v| {
            d.spec.buffers.dedupe.global = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "thread",
        alias: None,
        kind: ValueKind::Bool,
        help: "Accepted for fio compatibility: iolab always runs jobs as threads, so thread=0 (fio's default) does not make processes. Where it shows: fio's processes each start a session (setsid), and with the kernel's autogroup on (kernel.sched_autogroup_enabled=1) each session is its own scheduling group, so on a busy machine fio's N jobs get a group's share each while iolab's threads share their session's (BENCHMARKS.md: 1.36 against 1.00 CPUs for two jobs beside two hogs). Compare the tools beside other work with autogroup off, or fio with --thread.",
        apply: |_, v| parse_bool(v).map(|_| ()),
    },
];
