//! The option table's unit tests: parsing, defaults, and how options combine into a job.

use super::*;

#[test]
fn typos_get_a_suggestion_and_fio_only_options_say_so() {
    assert_eq!(
        crate::options::known::suggest("runtme", names()),
        Some("runtime")
    );
    assert_eq!(
        crate::options::known::suggest("ioengin", names()),
        Some("ioengine")
    );
    // An option iolab supports is found in the table before fio's other names are
    // consulted; that list may name it (fio has it too) but the table wins.
    for o in all() {
        assert!(find(o.name).is_some());
    }
}

#[test]
fn engine_options_belong_to_their_engine_as_in_fio() {
    let job = |engine: &str| {
        let mut d = JobDraft::new("x");
        d.apply("filename", Some("/tmp/x")).unwrap();
        d.apply("fixedbufs", None).unwrap();
        d.apply("ioengine", Some(engine)).unwrap();
        d.finish_all()
    };
    let e = job("psync").unwrap_err().to_string();
    assert!(
        e.contains(
            "'fixedbufs' belongs to ioengine io_uring and io_uring_cmd, not to this job's psync"
        ),
        "{e}"
    );
    assert!(job("io_uring").unwrap()[0].engine.options.fixedbufs);
    assert!(job("io_uring_cmd").unwrap()[0].engine.options.fixedbufs);
}
use crate::FioError;
use std::time::Duration;

fn draft(opts: &[(&str, Option<&str>)]) -> Result<JobSpec, FioError> {
    let mut d = JobDraft::new("t");
    d.apply("filename", Some("/tmp/x"))?;
    for (k, v) in opts {
        d.apply(k, *v)?;
    }
    Ok(d.finish_all()?.remove(0))
}

#[test]
fn without_filename_each_copy_gets_fios_default_file() {
    let mut d = JobDraft::new("seq");
    for (k, v) in [
        ("numjobs", "3"),
        ("directory", "/mnt/x"),
        ("stonewall", "1"),
    ] {
        d.apply(k, Some(v)).unwrap();
    }
    let jobs = d.finish_all().unwrap();
    let names: Vec<String> = jobs
        .iter()
        .map(|j| j.filename.display().to_string())
        .collect();
    assert_eq!(
        names,
        ["/mnt/x/seq.0.0", "/mnt/x/seq.1.0", "/mnt/x/seq.2.0"]
    );
    assert!(jobs.iter().all(|j| j.numjobs == 1));
    assert_eq!(
        jobs.iter().map(|j| j.stonewall).collect::<Vec<_>>(),
        [true, false, false]
    );
    let mut d = JobDraft::new("j");
    d.apply("directory", Some("/d")).unwrap();
    d.apply("filename", Some("f\\:1")).unwrap();
    assert_eq!(
        d.finish_all().unwrap()[0].filename.display().to_string(),
        "/d/f:1"
    );
    let mut d = JobDraft::new("j");
    d.apply("filename", Some("/a:b:/c")).unwrap();
    d.apply("directory", Some("/d")).unwrap();
    let j = d.finish_all().unwrap().remove(0);
    // fio joins absolute names to the directory too (it made DIR/tmp/x/f for /tmp/x/f).
    assert_eq!(j.filename, std::path::PathBuf::from("/d/a"));
    assert_eq!(
        j.extra_files,
        vec![
            std::path::PathBuf::from("/d/b"),
            std::path::PathBuf::from("/d/c")
        ]
    );
}

#[test]
fn rw_and_mix_combine() {
    let s = draft(&[("rw", Some("randrw")), ("rwmixread", Some("70"))]).unwrap();
    assert_eq!((s.pattern, s.read_percent), (Pattern::Random, 70));
    let s = draft(&[("rwmixread", Some("70")), ("rw", Some("readwrite"))]).unwrap();
    assert_eq!((s.pattern, s.read_percent), (Pattern::Sequential, 70));
    let s = draft(&[("rw", Some("randwrite"))]).unwrap();
    assert_eq!((s.pattern, s.read_percent), (Pattern::Random, 0));
    assert!(draft(&[("rw", Some("sideways"))]).is_err());
}

#[test]
fn randrepeat_zero_seeds_from_the_clock_unless_randseed_is_given() {
    assert_eq!(draft(&[("randrepeat", Some("1"))]).unwrap().seed, 0x89);
    let a = draft(&[("randrepeat", Some("0"))]).unwrap().seed;
    std::thread::sleep(std::time::Duration::from_millis(2));
    let b = draft(&[("randrepeat", Some("0"))]).unwrap().seed;
    assert_ne!(a, b);
    let s = draft(&[("randrepeat", Some("0")), ("randseed", Some("7"))]).unwrap();
    assert_eq!(s.seed, 7);
}

#[test]
fn time_based_without_runtime_is_dropped_as_fio_does() {
    let s = draft(&[("time_based", None), ("size", Some("1m"))]).unwrap();
    assert!(!s.time_based);
    let s = draft(&[("time_based", None), ("runtime", Some("2"))]).unwrap();
    assert!(s.time_based);
}

#[test]
fn rw_suffixes_are_fios_offset_modifiers() {
    let s = draft(&[("rw", Some("read:-8k"))]).unwrap();
    assert_eq!(
        (s.pattern, s.seq_add, s.random_every),
        (Pattern::Sequential, -8192, 1)
    );
    let s = draft(&[("rw", Some("write:112k"))]).unwrap();
    assert_eq!(s.seq_add, 112 * 1024);
    let s = draft(&[("rw", Some("randread:4"))]).unwrap();
    assert_eq!(
        (s.pattern, s.seq_add, s.random_every),
        (Pattern::Random, 0, 4)
    );
    let s = draft(&[("rw", Some("randread:x"))]).unwrap();
    assert_eq!(s.random_every, 0, "fio's atoi");
    assert!(draft(&[("rw", Some("read:8q"))]).is_err());
    let s = draft(&[("rw", Some("read"))]).unwrap();
    assert_eq!((s.seq_add, s.random_every), (0, 1));
}

#[test]
fn every_option_in_the_issue_is_in_the_table() {
    for name in [
        "name",
        "filename",
        "rw",
        "rwmixread",
        "bs",
        "blockalign",
        "iodepth",
        "ioengine",
        "direct",
        "size",
        "offset",
        "time_based",
        "runtime",
        "ramp_time",
        "numjobs",
        "cpus_allowed",
        "norandommap",
        "randseed",
        "hipri",
        "sqthread_poll",
        "fixedbufs",
        "registerfiles",
        "percentile_list",
        "group_reporting",
        "thread",
    ] {
        assert!(find(name).is_some(), "{name}");
    }
}

#[test]
fn each_option_sets_its_field() {
    let s = draft(&[
        ("bs", Some("64k")),
        ("blockalign", Some("512")),
        ("iodepth", Some("32")),
        ("ioengine", Some("io_uring")),
        ("direct", None),
        ("size", Some("1g")),
        ("offset", Some("4k")),
        ("time_based", None),
        ("runtime", Some("20m")),
        ("ramp_time", Some("500ms")),
        ("numjobs", Some("2")),
        ("cpus_allowed", Some("0-1")),
        ("norandommap", Some("1")),
        ("randseed", Some("42")),
        ("hipri", None),
        ("sqthread_poll", Some("1")),
        ("fixedbufs", Some("1")),
        ("registerfiles", Some("1")),
        ("sqthread_poll_cpu", Some("1")),
        ("nonvectored", Some("0")),
        ("force_async", Some("4")),
        ("percentile_list", Some("50:99:99.999")),
        ("lat_percentiles", Some("1")),
        ("group_reporting", None),
        ("thread", None),
    ])
    .unwrap();
    assert_eq!(s.block_size, [65536; 3]);
    assert_eq!(s.block_align, Some(512));
    assert_eq!(s.iodepth, 32);
    assert_eq!(s.engine.kind, EngineKind::IoUring);
    assert!(s.direct && s.time_based && s.group_reporting && s.lat_percentiles);
    assert_eq!(s.size, Some(SizeSpec::Bytes(1 << 30)));
    assert_eq!(s.offset, SizeSpec::Bytes(4096));
    assert_eq!(s.runtime, Some(Duration::from_secs(1200)));
    assert_eq!(s.ramp_time, Duration::from_millis(500));
    assert_eq!(s.numjobs, 2);
    assert_eq!(s.cpus_allowed.unwrap().cpus(), &[0, 1]);
    assert!(!s.random_map);
    assert_eq!(s.seed, 42);
    let o = s.engine.options;
    assert!(o.hipri && o.sqthread_poll && o.fixedbufs && o.registerfiles);
    assert_eq!(
        (o.sqthread_poll_cpu, o.nonvectored, o.force_async),
        (Some(1), Some(false), 4)
    );
    assert_eq!(s.percentiles, vec![50.0, 99.0, 99.999]);
}

#[test]
fn block_size_distributions() {
    let s = draft(&[("bssplit", Some("4k/10:64k/50:32k"))]).unwrap();
    assert_eq!(
        s.block_dist[0],
        BlockDist::Split(vec![(4096, 10), (65536, 50), (32768, 40)])
    );
    assert_eq!(s.block_size, [65536; 3]);
    let s = draft(&[("bssplit", Some("4k:8k,16k/100"))]).unwrap();
    assert_eq!(
        s.block_dist[0],
        BlockDist::Split(vec![(4096, 50), (8192, 50)])
    );
    assert_eq!(s.block_dist[1], BlockDist::Split(vec![(16384, 100)]));
    assert_eq!(s.block_dist[2], s.block_dist[1], "trims take the last list");
    let s = draft(&[("bsrange", Some("4k-16k"))]).unwrap();
    assert_eq!(s.block_dist[1], BlockDist::Range { min: 4096 });
    assert_eq!(s.block_size, [16384; 3]);
    let s = draft(&[("bsrange", Some("4k-16k")), ("bs", Some("8k"))]).unwrap();
    assert_eq!(s.block_dist[0], BlockDist::Fixed, "bs after bsrange wins");
    // As fio: shares over 100 with every size given are taken (the draw stops at the
    // first); with two or more sizes left open, refused in fio's words.
    let s = draft(&[("bssplit", Some("4k/60:8k/60"))]).unwrap();
    assert_eq!(
        s.block_dist[0],
        BlockDist::Split(vec![(4096, 60), (8192, 60)])
    );
    let e = draft(&[("bssplit", Some("4k/60:8k:16k/50:1m"))]).unwrap_err();
    assert!(e.to_string().contains("add to more than 100%"), "{e}");
    assert!(draft(&[("bssplit", Some("4k/60:8k:16k/50"))]).is_err());
    // Empty shares and 0 split what is left evenly, rounded down (fio's (100 - 50) / 4).
    let s = draft(&[("bssplit", Some("512/:1k/:2k/0:4k/50:8k/"))]).unwrap();
    assert_eq!(
        s.block_dist[0],
        BlockDist::Split(vec![
            (512, 12),
            (1024, 12),
            (2048, 12),
            (4096, 50),
            (8192, 12)
        ])
    );
    // A share is the number its text begins with, capped at 100; a list ends at an empty
    // item.
    let s = draft(&[("bssplit", Some("4k/30x:8k/250::16k/5"))]).unwrap();
    assert_eq!(
        s.block_dist[0],
        BlockDist::Split(vec![(4096, 30), (8192, 100)])
    );
    assert!(draft(&[("bsrange", Some("16k-4k"))]).is_err());
}

#[test]
fn distributions_rates_syncs_and_buffers() {
    let s = draft(&[
        ("random_distribution", Some("zipf:1.2")),
        ("rate_iops", Some("500,")),
        ("fsync", Some("8")),
        ("fdatasync", Some("3")),
        ("end_fsync", None),
        ("invalidate", Some("0")),
        ("fadvise_hint", Some("0")),
        ("unified_rw_reporting", Some("mixed")),
        ("buffer_compress_percentage", Some("50")),
        ("refill_buffers", None),
        ("scramble_buffers", Some("0")),
    ])
    .unwrap();
    assert_eq!(s.distribution, RandomDistribution::Zipf(1.2));
    assert_eq!(s.rate.iops, [Some(500), None, None]);
    assert_eq!(
        (s.fsync_every, s.fdatasync_every, s.end_fsync),
        (8, 3, true)
    );
    assert!(!s.invalidate);
    assert_eq!(s.fadvise_hint, FadviseHint::None);
    assert_eq!(s.rw_reporting, RwReporting::Mixed);
    assert_eq!(s.buffers.compress_percent, 50);
    assert!(s.buffers.refill && !s.buffers.scramble);
    let s = draft(&[("random_distribution", Some("pareto"))]).unwrap();
    assert_eq!(s.distribution, RandomDistribution::Pareto(0.2));
    assert_eq!(
        draft(&[("random_distribution", Some("normal:5"))])
            .unwrap()
            .distribution,
        RandomDistribution::Normal(5.0)
    );
    let z = draft(&[("random_distribution", Some("zoned:50/5:50/95"))]).unwrap();
    let RandomDistribution::Zoned(z) = z.distribution else {
        panic!("not zoned: {:?}", z.distribution)
    };
    assert_eq!(z.zones[0][1].size, 95);
    assert!(draft(&[("random_distribution", Some("zoned:50/5:40/95"))]).is_err());
    assert!(draft(&[("random_distribution", Some("zipf:1"))]).is_err());
    assert!(draft(&[("unified_rw_reporting", Some("sideways"))]).is_err());
    // 0 is no limit, as in fio.
    assert_eq!(
        draft(&[("rate_iops", Some("0"))]).unwrap().rate.iops,
        [None; 3]
    );
    let s = draft(&[("rate", Some("1m,500k")), ("ratemin", Some("1k"))]).unwrap();
    assert_eq!(
        s.rate.bytes,
        [Some(1 << 20), Some(500 << 10), Some(500 << 10)]
    );
    assert_eq!(s.rate.min_bytes, [Some(1024); 3]);
}

#[test]
fn split_block_sizes_and_buffered() {
    let s = draft(&[("bs", Some("4k,1m")), ("buffered", Some("0"))]).unwrap();
    assert_eq!(s.block_size, [4096, 1 << 20, 1 << 20]);
    assert!(s.direct);
    let s = draft(&[("blocksize", Some(",8k"))]).unwrap();
    assert_eq!(s.block_size, [4096, 8192, 8192]);
    let s = draft(&[("bs", Some("4k,8k,1m")), ("rw", Some("trimwrite"))]).unwrap();
    assert_eq!(s.block_size, [4096, 8192, 1 << 20]);
    assert_eq!(
        (s.trim, s.pattern),
        (TrimMix::ThenWrite, Pattern::Sequential)
    );
    let s = draft(&[("rw", Some("randtrim"))]).unwrap();
    assert_eq!((s.trim, s.pattern), (TrimMix::Only, Pattern::Random));
}

#[test]
fn bad_values_name_option_and_value() {
    let e = draft(&[("bs", Some("4q"))]).unwrap_err().to_string();
    assert!(e.starts_with("option 'bs': bad value '4q'"), "{e}");
    let e = draft(&[("iodepth", Some("0"))]).unwrap_err().to_string();
    assert!(e.contains("iodepth") && e.contains("at least 1"), "{e}");
    let e = draft(&[("ioengine", Some("spdk_bdev"))])
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown ioengine 'spdk_bdev'"), "{e}");
    if !iolab_engine::spdk::BUILT {
        let e = draft(&[("ioengine", Some("spdk"))])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("built without SPDK") && e.contains("--features spdk"),
            "{e}"
        );
    }
    let e = draft(&[("runtime", None)]).unwrap_err();
    assert_eq!(e, FioError::MissingValue("runtime".into()));
    let e = draft(&[("percentile_list", Some("50:101"))])
        .unwrap_err()
        .to_string();
    assert!(e.contains("101"), "{e}");
    let e = draft(&[("cpus_allowed", Some("x"))])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("option 'cpus_allowed': bad value 'x'"), "{e}");
}

#[test]
fn unknown_and_unsupported_options_differ() {
    let mut d = JobDraft::new("t");
    assert_eq!(
        d.apply("iodepht", Some("1")).unwrap_err().to_string(),
        "unknown option 'iodepht' (did you mean 'iodepth'?)"
    );
    assert_eq!(
        d.apply("trim_backlog", Some("1")).unwrap_err().to_string(),
        "option 'trim_backlog' is not supported by iolab yet"
    );
    assert!(d
        .apply("verify", Some("md6"))
        .unwrap_err()
        .to_string()
        .contains("expected 0, meta, pattern or a checksum"));
    d.apply("verify", Some("md5")).unwrap();
    d.apply("verify", Some("0")).unwrap();
}

#[test]
fn a_bare_log_option_is_named_after_the_job() {
    let mut d = JobDraft::new("global");
    d.apply("write_bw_log", None).unwrap();
    d.apply("write_lat_log", Some("lat")).unwrap();
    d.apply("filename", Some("/tmp/x")).unwrap();
    let mut job = d.clone();
    job.spec.name = "reader".into();
    let spec = &job.finish_all().unwrap()[0];
    assert_eq!(spec.logs.bw.as_deref(), Some("reader"));
    assert_eq!(spec.logs.lat.as_deref(), Some("lat"));
    assert!(matches!(
        d.apply("runtime", None),
        Err(crate::FioError::MissingValue(_))
    ));
}

#[test]
fn directory_goes_before_every_name_as_fio() {
    let mut d = JobDraft::new("j");
    d.apply("directory", Some("/data/")).unwrap();
    d.apply("filename", Some("/abs/f:rel")).unwrap();
    let spec = &d.finish_all().unwrap()[0];
    assert_eq!(spec.filename, std::path::Path::new("/data//abs/f"));
    assert_eq!(spec.extra_files, [std::path::PathBuf::from("/data/rel")]);
}
