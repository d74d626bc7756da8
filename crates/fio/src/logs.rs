//! Writes the I/O logs a run kept (`write_lat_log`, `write_iops_log`, `write_bw_log`) in fio
//! 3.x's log format, one file per kind and job copy: `PREFIX_lat.N.log`, `PREFIX_clat.N.log`,
//! `PREFIX_slat.N.log`, `PREFIX_iops.N.log`, `PREFIX_bw.N.log`, N being fio's job number;
//! and `write_hist_log`'s `PREFIX_clat_hist.N.log`, a histogram per window.
//!
//! A line is `time (ms), value, direction (0 read, 1 write), block size, 0` (the last column
//! is fio's command priority). Latencies are in ns; per-I/O bandwidth is bytes per ms of the
//! I/O's latency (fio's figure), per-window bandwidth KiB/s, per-window IOPS I/Os per second.
//! Averaged lines (`log_avg_msec`) carry 0 as block size.

use std::path::{Path, PathBuf};

use iolab_results::Timebase;
use iolab_results::{IoLog, RunOutcome};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Lat,
    Clat,
    Slat,
    Iops,
    Bw,
    /// Completion-latency histograms per window (`write_hist_log`).
    ClatHist,
}

impl Kind {
    fn suffix(self) -> &'static str {
        match self {
            Kind::Lat => "lat",
            Kind::Clat => "clat",
            Kind::Slat => "slat",
            Kind::Iops => "iops",
            Kind::Bw => "bw",
            Kind::ClatHist => "clat_hist",
        }
    }
}

/// The text of one log file (tests compare it whole).
#[cfg(test)]
fn render(log: &IoLog, kind: Kind, clock: &Timebase, has_slat: bool) -> String {
    let mut out = Vec::new();
    render_into(log, (kind, 0), clock, has_slat, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Writes one log file's lines to `out` as they are formatted, so a long per-I/O log never
/// exists twice in memory.
fn render_into(
    log: &IoLog,
    (kind, coarseness): (Kind, u8),
    clock: &Timebase,
    has_slat: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    if let Kind::ClatHist = kind {
        return render_hist(log, coarseness, out);
    }
    let ns = |ticks: u64| clock.ticks_to_ns(ticks).round() as u64;
    for e in &log.per_io {
        let value = match kind {
            Kind::Lat => ns(e.lat_ticks),
            Kind::Clat => ns(e.clat_ticks),
            Kind::Slat if !has_slat => continue,
            Kind::Slat => ns(e.slat_ticks),
            Kind::Iops => 1,
            Kind::Bw => e.len as u64 * 1_000_000 / ns(e.lat_ticks).max(1),
            Kind::ClatHist => unreachable!("histograms are rendered above"),
        };
        let ms = ns(e.at_ticks) / 1_000_000 + log.epoch_ms;
        let (d, bs, p) = (e.dir.index(), e.len, prio_column(log, e.prio));
        // fio 3.42's `both` on a per-I/O line: its second value is 0.
        let value = if log.with_max {
            format!("{value}, 0")
        } else {
            value.to_string()
        };
        // fio 3.42's `log_issue_time`: when the I/O was issued, in ns of the log's time
        // (its completion less its completion latency); fio gives it on clat and slat lines.
        let issued = match (log.with_issue_time, kind) {
            (true, Kind::Clat | Kind::Slat) => {
                format!(", {}", ns(e.at_ticks.saturating_sub(e.clat_ticks)))
            }
            (true, _) => ", 0".into(),
            (false, _) => String::new(),
        };
        if log.with_offset {
            writeln!(out, "{ms}, {value}, {d}, {bs}, {}, {p}{issued}", e.offset)?;
        } else {
            writeln!(out, "{ms}, {value}, {d}, {bs}, {p}{issued}")?;
        }
    }
    for w in &log.windows {
        // The last, partial window: fio's finalize_logs() writes it for the latency logs;
        // its IOPS and bandwidth logs average rate samples, which a window cut short
        // by the job's end does not have, so those are left as they were.
        let partial = w.span_ms < log.avg_ms as f64;
        if partial && matches!(kind, Kind::Iops | Kind::Bw) {
            continue;
        }
        let window_s = w.span_ms / 1000.0;
        let mean_ns = |ticks: f64| (ticks * clock.ticks_to_ns(1)).round() as u64;
        let value = match kind {
            Kind::Lat => mean_ns(w.lat_ticks),
            Kind::Clat => mean_ns(w.clat_ticks),
            Kind::Slat if !has_slat => continue,
            Kind::Slat => mean_ns(w.slat_ticks),
            Kind::Iops => (w.ios as f64 / window_s).round() as u64,
            Kind::Bw => (w.bytes as f64 / 1024.0 / window_s).round() as u64,
            Kind::ClatHist => unreachable!("histograms are rendered above"),
        };
        // fio 3.42's `both`: the window's largest after its mean; a rate's window has one
        // value, written twice.
        let value = match (log.with_max, kind) {
            (false, _) => value.to_string(),
            (true, Kind::Slat) => format!("{value}, {}", mean_ns(w.max_ticks[0])),
            (true, Kind::Clat) => format!("{value}, {}", mean_ns(w.max_ticks[1])),
            (true, Kind::Lat) => format!("{value}, {}", mean_ns(w.max_ticks[2])),
            (true, _) => format!("{value}, {value}"),
        };
        // fio's averaged entries carry no block size or offset: zeros.
        let offset = if log.with_offset { "0, " } else { "" };
        let p = prio_column(log, 0);
        let issued = if log.with_issue_time { ", 0" } else { "" };
        writeln!(
            out,
            "{}, {value}, {}, 0, {offset}{p}{issued}",
            w.at_ms + log.epoch_ms,
            w.dir.index()
        )?;
    }
    Ok(())
}

/// fio's histogram log (`flush_hist_samples()`): per window, `ms, direction, block size, `
/// then the counts of fio's bins, 2^`coarseness` bins to a column.
fn render_hist(log: &IoLog, coarseness: u8, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let columns = iolab_results::FIO_PLAT_BINS >> coarseness;
    let mut counts = vec![0u64; columns];
    for e in &log.hist {
        counts.fill(0);
        for &(bin, n) in &e.bins {
            counts[bin as usize >> coarseness] += n;
        }
        write!(
            out,
            "{}, {}, {}, ",
            e.at_ms + log.epoch_ms,
            e.dir.index(),
            e.bs
        )?;
        let cells: Vec<String> = counts.iter().map(u64::to_string).collect();
        writeln!(out, "{}", cells.join(", "))?;
    }
    Ok(())
}

/// fio's last column: the priority value in hex with `log_prio`, else 1 for a realtime
/// I/O and 0 for any other (`ioprio_value_is_class_rt()`).
fn prio_column(log: &IoLog, prio: u16) -> String {
    match log.with_prio {
        true => format!("0x{prio:04x}"),
        false => u8::from(prio >> 13 == 1).to_string(),
    }
}

/// One log file to write: where, from which job copy's log, and what it holds.
struct LogFile<'a> {
    path: PathBuf,
    log: &'a IoLog,
    kind: Kind,
    has_slat: bool,
    /// False for a latency that is not recorded: fio writes the file, empty.
    on: bool,
    /// Bins summed per column of a histogram log, as a power of two.
    coarseness: u8,
    /// Written as fio's compressed samples (`log_store_compressed`), not as text.
    compressed: bool,
}

/// Every log file the run's jobs asked for.
fn log_files(out: &RunOutcome) -> Vec<LogFile<'_>> {
    let mut files = Vec::new();
    for job in &out.jobs {
        let spec = &job.setup;
        let has_slat = !spec.synchronous;
        let rec = spec.recorded;
        let mut kinds: Vec<(&str, Kind)> = Vec::new();
        if let Some(p) = &spec.logs.lat {
            kinds.extend([(p.as_str(), Kind::Lat), (p, Kind::Clat), (p, Kind::Slat)]);
        }
        if let Some(p) = &spec.logs.iops {
            kinds.push((p, Kind::Iops));
        }
        if let Some(p) = &spec.logs.bw {
            kinds.push((p, Kind::Bw));
        }
        if let Some(p) = &spec.logs.hist {
            kinds.push((p, Kind::ClatHist));
        }
        for log in &job.logs {
            for &(prefix, kind) in &kinds {
                let on = match kind {
                    Kind::Lat => rec.lat,
                    Kind::Clat => rec.clat,
                    Kind::Slat => rec.slat,
                    Kind::Iops | Kind::Bw | Kind::ClatHist => true,
                };
                let mut path = log_name(prefix, kind.suffix(), log.job_number, spec.logs.per_job);
                if spec.logs.store_compressed {
                    path.as_mut_os_string().push(".fz");
                }
                files.push(LogFile {
                    path,
                    compressed: spec.logs.store_compressed,
                    log,
                    kind,
                    has_slat,
                    on,
                    coarseness: spec.logs.hist_coarseness,
                });
            }
        }
    }
    files
}

/// fio's log file name: `PREFIX_KIND.N.log`, or `PREFIX_KIND.log` shared by the job's
/// copies with `per_job_logs=0`.
fn log_name(prefix: &str, kind: &str, job_number: u32, per_job: bool) -> PathBuf {
    match per_job {
        true => PathBuf::from(format!("{prefix}_{kind}.{job_number}.log")),
        false => PathBuf::from(format!("{prefix}_{kind}.log")),
    }
}

/// A path for each log prefix the jobs name (their first file), to check before the run
/// that logs will not land on a device, in /dev or on a pseudo filesystem.
pub fn planned_log_paths(specs: &[iolab_job::JobSpec]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for s in specs {
        let l = &s.logs;
        let merged = s.replay.as_ref().and_then(|r| r.merged.as_ref());
        if let Some(p) = merged.map(|m| m.path.clone()) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if let Some(p) = l.iolog.as_ref().map(PathBuf::from) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        let kinds = [
            (&l.lat, "lat"),
            (&l.iops, "iops"),
            (&l.bw, "bw"),
            (&l.hist, "clat_hist"),
        ];
        for (p, kind) in kinds {
            if let Some(p) = p {
                let path = log_name(p, kind, 1, l.per_job);
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        // exec's saved output (`std_redirect`), opened by the engine when the program starts.
        if let Some((out_path, err_path)) = &s.engine.options.exec.redirect {
            if s.engine.kind == iolab_engine::EngineKind::Exec {
                for p in [out_path, err_path] {
                    if !out.contains(p) {
                        out.push(p.clone());
                    }
                }
            }
        }
        // iolab's split log, streamed by the runner under the same name scheme.
        if let Some(p) = &s.split_log {
            let path = log_name(p, "split", 1, true);
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// fio's `--bandwidth-log`: the run's aggregate bandwidth per direction (`agg-read_bw.log`,
/// `agg-write_bw.log`, `agg-trim_bw.log`), one line per sampling interval of `every_ms`:
/// the sum over every job of the bytes done in it, in KiB/s, as fio 3.42 writes it (`time,
/// KiB/s, direction, 0, 0`). The jobs' samples are summed by interval from each job's start
/// of measurement, so the run must be one phase (its jobs side by side).
pub fn aggregate_bw(out: &RunOutcome, every_ms: u32) -> [(String, String); 3] {
    let every_ms = every_ms.max(1) as u64;
    // Every direction has a line per interval, zero where it did nothing (as fio).
    let intervals = out
        .jobs
        .iter()
        .flat_map(|j| j.dirs.iter().flatten())
        .map(|d| d.samples.len())
        .max()
        .unwrap_or(0);
    std::array::from_fn(|d| {
        let mut sums: Vec<u64> = vec![0; intervals];
        for dir in out.jobs.iter().filter_map(|j| j.dirs[d].as_ref()) {
            for (k, s) in dir.samples.iter().enumerate() {
                sums[k] += s.bytes;
            }
        }
        let text: String = sums
            .iter()
            .enumerate()
            .map(|(k, bytes)| {
                let kib_s = bytes * 1000 / every_ms / 1024;
                format!("{}, {kib_s}, {d}, 0, 0\n", (k as u64 + 1) * every_ms)
            })
            .collect();
        let name = ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"][d];
        (name.to_string(), text)
    })
}

/// The columns a log's lines have, for packing them as fio's samples.
fn fz_columns(log: &IoLog) -> crate::logs_fz::Columns {
    crate::logs_fz::Columns {
        max: log.with_max,
        offset: log.with_offset,
        prio: log.with_prio,
        issue_time: log.with_issue_time,
    }
}

/// Writes the run's log files; returns their paths.
/// `create` opens each log file for writing (the caller's guard decides on the descriptor).
pub fn write_logs(
    out: &RunOutcome,
    create: impl Fn(&Path) -> std::io::Result<std::fs::File>,
) -> std::io::Result<Vec<PathBuf>> {
    let mut written: Vec<PathBuf> = Vec::new();
    let mut open: Vec<std::io::BufWriter<std::fs::File>> = Vec::new();
    for f in log_files(out) {
        // A name shared by several copies (`per_job_logs=0`) is opened once and gets their
        // logs one after another.
        let at = written.iter().position(|p| *p == f.path);
        let mut write = || -> std::io::Result<()> {
            let w = match at {
                Some(i) => &mut open[i],
                None => {
                    open.push(std::io::BufWriter::new(create(&f.path)?));
                    open.last_mut().expect("just pushed")
                }
            };
            let kind = (f.kind, f.coarseness);
            if f.on && f.compressed {
                let mut text = Vec::new();
                render_into(f.log, kind, &out.clock, f.has_slat, &mut text)?;
                let text = String::from_utf8(text).map_err(std::io::Error::other)?;
                crate::logs_fz::write(&text, fz_columns(f.log), &mut *w)?;
            } else if f.on {
                render_into(f.log, kind, &out.clock, f.has_slat, &mut *w)?;
            }
            std::io::Write::flush(w)
        };
        write().map_err(|e| {
            std::io::Error::new(e.kind(), format!("writing log {}: {e}", f.path.display()))
        })?;
        if at.is_none() {
            written.push(f.path);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_engine::Direction;
    use iolab_results::{IoEntry, WindowEntry};

    #[test]
    fn per_io_lines_are_fios_five_columns() {
        let log = IoLog {
            job_number: 1,
            avg_ms: 0,
            per_io: vec![IoEntry {
                at_ticks: 2_500_000,
                dir: Direction::Write,
                len: 4096,
                slat_ticks: 1000,
                clat_ticks: 9000,
                lat_ticks: 10_000,
                offset: 8192,
                prio: 0,
            }],
            windows: vec![],
            dropped: 0,
            epoch_ms: 0,
            hist: vec![],
            with_offset: false,
            with_prio: false,
            with_max: false,
            with_issue_time: false,
        };
        let c = Timebase::NANOSECONDS;
        assert_eq!(render(&log, Kind::Lat, &c, true), "2, 10000, 1, 4096, 0\n");
        assert_eq!(render(&log, Kind::Slat, &c, true), "2, 1000, 1, 4096, 0\n");
        assert_eq!(render(&log, Kind::Slat, &c, false), "");
        assert_eq!(render(&log, Kind::Iops, &c, true), "2, 1, 1, 4096, 0\n");
        // 4096 bytes in 10 µs: 409,600 bytes per ms.
        assert_eq!(render(&log, Kind::Bw, &c, true), "2, 409600, 1, 4096, 0\n");
        // log_offset=1: the offset goes before the priority column.
        let log = IoLog {
            with_offset: true,
            ..log
        };
        assert_eq!(
            render(&log, Kind::Lat, &c, true),
            "2, 10000, 1, 4096, 8192, 0\n"
        );
        // A realtime I/O: 1, or with log_prio its value in hex.
        let mut log = IoLog {
            with_offset: false,
            ..log
        };
        log.per_io[0].prio = (1 << 13) | 4;
        assert_eq!(render(&log, Kind::Lat, &c, true), "2, 10000, 1, 4096, 1\n");
        log.with_prio = true;
        assert_eq!(
            render(&log, Kind::Lat, &c, true),
            "2, 10000, 1, 4096, 0x2004\n"
        );
    }

    #[test]
    fn window_lines_average_and_rate() {
        let log = IoLog {
            job_number: 2,
            avg_ms: 500,
            per_io: vec![],
            windows: vec![WindowEntry {
                at_ms: 500,
                dir: Direction::Read,
                ios: 1000,
                bytes: 1000 * 4096,
                span_ms: 500.0,
                slat_ticks: 0.0,
                clat_ticks: 20_000.4,
                lat_ticks: 21_000.6,
                max_ticks: [0.0; 3],
            }],
            dropped: 0,
            epoch_ms: 0,
            hist: vec![],
            with_offset: false,
            with_prio: false,
            with_max: false,
            with_issue_time: false,
        };
        let c = Timebase::NANOSECONDS;
        assert_eq!(render(&log, Kind::Lat, &c, false), "500, 21001, 0, 0, 0\n");
        assert_eq!(render(&log, Kind::Iops, &c, false), "500, 2000, 0, 0, 0\n");
        assert_eq!(render(&log, Kind::Bw, &c, false), "500, 8000, 0, 0, 0\n");
    }
}
