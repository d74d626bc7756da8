//! Reading db_bench's output (RocksDB 7.x): the result line of each benchmark
//! (`fillseq : 2.977 micros/op 335373 ops/sec 0.060 seconds 20000 operations; 259.1 MB/s`),
//! the latency histogram's summary (`Percentiles: P50: 0.64 P75: 0.96 P99: 3.72 ...`, in
//! microseconds), the stall counters from `--statistics`, and the progress and stall lines it
//! prints on stderr while running.

/// What db_bench printed for one benchmark.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BenchResult {
    pub name: String,
    pub micros_per_op: f64,
    pub ops_per_sec: f64,
    pub seconds: f64,
    pub operations: u64,
    /// Absent for benchmarks that move no bytes.
    pub mb_per_sec: Option<f64>,
    pub latency: Option<LatencySummary>,
    /// `rocksdb.stall.micros COUNT` (with --statistics): time writes were stalled.
    pub stall_micros: Option<u64>,
}

/// The "Microseconds per write/read" block: all in µs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LatencySummary {
    pub count: u64,
    pub average: f64,
    pub stddev: f64,
    pub min: f64,
    pub median: f64,
    pub max: f64,
    pub p50: f64,
    pub p75: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
}

/// The number after `key` in `text` (`key` then optional spaces then the number).
fn after(text: &str, key: &str) -> Option<f64> {
    let i = text.find(key)? + key.len();
    text[i..].split_whitespace().next()?.parse().ok()
}

/// Parses a result line, e.g. `readrandom : 51.641 micros/op 76477 ops/sec 0.262 seconds
/// 20000 operations; 59.1 MB/s (5000 of 5000 found)`.
pub fn parse_result_line(line: &str) -> Option<BenchResult> {
    let (name, rest) = line.split_once(" : ")?;
    let name = name.trim();
    if name.is_empty() || name.contains(' ') || !rest.contains("micros/op") {
        return None;
    }
    let w: Vec<&str> = rest.split_whitespace().collect();
    let num_before = |unit: &str| {
        let i = w.iter().position(|x| x.trim_end_matches(';') == unit)?;
        w.get(i.checked_sub(1)?)?.parse::<f64>().ok()
    };
    Some(BenchResult {
        name: name.to_string(),
        micros_per_op: num_before("micros/op")?,
        ops_per_sec: num_before("ops/sec")?,
        seconds: num_before("seconds")?,
        operations: num_before("operations")? as u64,
        mb_per_sec: num_before("MB/s"),
        latency: None,
        stall_micros: None,
    })
}

/// Every benchmark in db_bench's standard output, with its histogram and stall counter.
pub fn parse_stdout(text: &str) -> Vec<BenchResult> {
    let mut out: Vec<BenchResult> = Vec::new();
    let mut lat = LatencySummary::default();
    for line in text.lines() {
        if let Some(r) = parse_result_line(line) {
            out.push(r);
            lat = LatencySummary::default();
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        let l = line.trim_start();
        if l.starts_with("Count:") {
            lat.count = after(l, "Count:").unwrap_or(0.0) as u64;
            lat.average = after(l, "Average:").unwrap_or(0.0);
            lat.stddev = after(l, "StdDev:").unwrap_or(0.0);
        } else if l.starts_with("Min:") {
            lat.min = after(l, "Min:").unwrap_or(0.0);
            lat.median = after(l, "Median:").unwrap_or(0.0);
            lat.max = after(l, "Max:").unwrap_or(0.0);
        } else if l.starts_with("Percentiles:") {
            lat.p50 = after(l, "P50:").unwrap_or(0.0);
            lat.p75 = after(l, "P75:").unwrap_or(0.0);
            lat.p99 = after(l, "P99:").unwrap_or(0.0);
            lat.p99_9 = after(l, "P99.9:").unwrap_or(0.0);
            lat.p99_99 = after(l, "P99.99:").unwrap_or(0.0);
            cur.latency = Some(lat);
        } else if let Some(v) = l.strip_prefix("rocksdb.stall.micros COUNT :") {
            cur.stall_micros = v.trim().parse().ok();
        }
    }
    out
}

/// A progress line on stderr (`... thread 0: (115000,275000) ops and (114723.3,127157.3)
/// ops/second in (1.002412,2.162675) seconds`): (thread, that thread's operations so far, its
/// ops/s in the last interval). Every thread prints its own.
pub fn parse_progress(line: &str) -> Option<(u32, u64, f64)> {
    let i = line.find("... thread ")?;
    let rest = &line[i + "... thread ".len()..];
    let (thread, rest) = rest.split_once(':')?;
    let thread = thread.trim().parse().ok()?;
    let pair = |s: &str| -> Option<(f64, f64)> {
        let open = s.find('(')?;
        let close = s[open..].find(')')? + open;
        let (a, b) = s[open + 1..close].split_once(',')?;
        Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
    };
    let (_, total) = pair(rest)?;
    let rates = &rest[rest.find(") ops and")? + 9..];
    let (interval_rate, _) = pair(rates)?;
    Some((thread, total as u64, interval_rate))
}

/// db_bench's warning that it was built with assertions (Debian's build is): its figures
/// are then lower than a release build's.
pub fn assertions_enabled(stdout: &str) -> bool {
    stdout.contains("Assertions are enabled")
}

/// `Cumulative stall: 00:00:0.636 H:M:S, 29.1 percent` → 29.1.
pub fn parse_cumulative_stall(line: &str) -> Option<f64> {
    let rest = line.trim().strip_prefix("Cumulative stall:")?;
    let (_, pct) = rest.split_once(',')?;
    pct.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_with_and_without_bandwidth() {
        let r = parse_result_line(
            "fillseq      :       2.977 micros/op 335373 ops/sec 0.060 seconds 20000 operations;  259.1 MB/s",
        )
        .unwrap();
        assert_eq!(r.name, "fillseq");
        assert_eq!(
            (
                r.micros_per_op,
                r.ops_per_sec,
                r.seconds,
                r.operations,
                r.mb_per_sec
            ),
            (2.977, 335373.0, 0.060, 20000, Some(259.1))
        );
        let r = parse_result_line(
            "deleteseq    :       1.000 micros/op 1000000 ops/sec 1.000 seconds 1000000 operations;",
        )
        .unwrap();
        assert_eq!(r.mb_per_sec, None);
        assert_eq!(parse_result_line("DB path: [/tmp/x]"), None);
        assert_eq!(parse_result_line("Keys:       10 bytes each"), None);
    }

    #[test]
    fn progress_and_stall_lines() {
        let l = "2026/11/22-11:32:12  ... thread 0: (115000,275000) ops and (114723.3,127157.3) ops/second in (1.002412,2.162675) seconds";
        assert_eq!(parse_progress(l), Some((0, 275000, 114723.3)));
        assert_eq!(parse_progress("Uptime(secs): 2.2 total"), None);
        assert_eq!(
            parse_cumulative_stall("Cumulative stall: 00:00:0.636 H:M:S, 29.1 percent"),
            Some(29.1)
        );
        assert_eq!(
            parse_cumulative_stall("Interval stall: 00:00:0.2 H:M:S, 28.4 percent"),
            None
        );
    }
}
