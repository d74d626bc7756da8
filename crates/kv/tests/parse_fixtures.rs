//! The parser against real db_bench output captured on this machine (RocksDB 7.8.3 from
//! Debian's rocksdb-tools): the hosting review's fillseq parameters, a fillrandom long enough
//! to print progress and stall lines, a 4-thread readrandom.

use iolab_kv::parse::{assertions_enabled, parse_cumulative_stall, parse_progress, parse_stdout};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn fillseq_with_the_reviews_parameters() {
    let r = parse_stdout(&fixture("fillseq.stdout"));
    assert_eq!(r.len(), 1);
    let r = &r[0];
    assert_eq!(r.name, "fillseq");
    assert_eq!(
        (r.operations, r.ops_per_sec, r.mb_per_sec),
        (20000, 335373.0, Some(259.1))
    );
    let l = r.latency.unwrap();
    assert_eq!(l.count, 20000);
    assert_eq!(
        (l.p50, l.p75, l.p99, l.p99_9, l.p99_99),
        (0.64, 0.96, 3.72, 28.00, 4185.71)
    );
    assert_eq!((l.average, l.max), (3.0703, 4889.0));
    assert_eq!(r.stall_micros, Some(0));
}

#[test]
fn fillrandom_with_stalls_and_progress() {
    let r = &parse_stdout(&fixture("fillrandom.stdout"))[0];
    assert_eq!(r.name, "fillrandom");
    assert_eq!((r.operations, r.seconds), (300000, 2.362));
    assert_eq!(r.stall_micros, Some(635909));
    assert_eq!(r.latency.unwrap().p99_99, 4135.29);
    let err = fixture("fillrandom.stderr");
    let progress: Vec<_> = err.lines().filter_map(parse_progress).collect();
    assert_eq!(progress, vec![(0, 160000, 137899.8), (0, 275000, 114723.3)]);
    let stall = err.lines().filter_map(parse_cumulative_stall).next_back();
    assert_eq!(stall, Some(29.1));
}

#[test]
fn readrandom_over_four_threads() {
    let r = &parse_stdout(&fixture("readrandom.stdout"))[0];
    assert_eq!(r.name, "readrandom");
    assert_eq!((r.operations, r.mb_per_sec), (20000, Some(59.1)));
    let l = r.latency.unwrap();
    assert_eq!((l.p50, l.p99, l.p99_99), (5.15, 515.09, 18800.00));
}

#[test]
fn every_thread_reports_its_own_progress() {
    let err = fixture("readrandom4.stderr");
    let p: Vec<_> = err.lines().filter_map(parse_progress).collect();
    assert_eq!(&p[..2], &[(1, 98000, 97998.9), (3, 98000, 97734.7)]);
    let mut threads: Vec<u32> = p.iter().map(|x| x.0).collect();
    threads.sort();
    threads.dedup();
    assert_eq!(threads, vec![0, 1, 2, 3]);
    assert!(assertions_enabled(&fixture("fillseq.stdout")));
    assert!(!assertions_enabled("fillseq : 1 micros/op"));
}
