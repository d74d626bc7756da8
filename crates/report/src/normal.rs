//! The `normal` output: one block per job in the layout of fio's report, so a fio user's eye
//! finds IOPS, BW, slat/clat/lat, the percentiles and CPU where it expects them. iolab adds a
//! CPU line that counts kernel helper threads and IOPS per CPU-second, and the engine notes.

use std::io::{self, Write};

use iolab_engine::Direction;
use iolab_runner::{JobReport, RunOutcome};
use iolab_stats::{Clock, LatencyHistogram};

use crate::format::{bytes_binary, bytes_decimal, compact, latency_unit};

fn lat_line(
    w: &mut impl Write,
    label: &str,
    h: &LatencyHistogram,
    clock: &Clock,
) -> io::Result<()> {
    let s = h.summarize(clock, &[]);
    let (unit, div) = latency_unit(s.min_ns);
    writeln!(
        w,
        "    {label} ({unit}): min={}, max={}, avg={:.2}, stdev={:.2}",
        compact_int(s.min_ns / div),
        compact_int(s.max_ns / div),
        s.mean_ns / div,
        s.stddev_ns / div
    )
}

/// fio prints large integers with a k/M suffix (max=12044k).
fn compact_int(v: f64) -> String {
    if v >= 100_000_000.0 {
        format!("{}M", (v / 1e6).round() as u64)
    } else if v >= 100_000.0 {
        format!("{}k", (v / 1e3).round() as u64)
    } else {
        format!("{}", v.round() as u64)
    }
}

fn pct_label(p: f64) -> String {
    let two = format!("{p:.2}");
    if (two.parse::<f64>().unwrap_or(p) - p).abs() > 1e-9 {
        format!("{p:.3}")
    } else {
        two
    }
}

fn percentile_block(
    w: &mut impl Write,
    label: &str,
    h: &LatencyHistogram,
    clock: &Clock,
    pcts: &[f64],
) -> io::Result<()> {
    let s = h.summarize(clock, pcts);
    let (unit, div) = latency_unit(s.percentiles_ns.first().map_or(0.0, |p| p.1));
    writeln!(w, "    {label} percentiles ({unit}):")?;
    for row in s.percentiles_ns.chunks(4) {
        let cells: Vec<String> = row
            .iter()
            .map(|(p, v)| format!("{:>6}th=[{:>6}]", pct_label(*p), compact_int(v / div)))
            .collect();
        writeln!(w, "     | {}", cells.join(", "))?;
    }
    Ok(())
}

fn write_dir(w: &mut impl Write, job: &JobReport, d: Direction, clock: &Clock) -> io::Result<()> {
    let Some(r) = job.dir(d) else { return Ok(()) };
    let name = match d {
        Direction::Read => "read",
        Direction::Write => "write",
    };
    let bw = job.bw_bytes_per_sec(d);
    writeln!(
        w,
        "  {name}: IOPS={}, BW={}/s ({}/s)({}/{}msec)",
        compact(job.iops(d)),
        bytes_binary(bw),
        bytes_decimal(bw),
        bytes_binary(r.bytes as f64),
        job.runtime_ns / 1_000_000
    )?;
    if r.ios == 0 {
        return Ok(());
    }
    if let Some(slat) = &r.slat {
        lat_line(w, "slat", slat, clock)?;
    }
    lat_line(w, "clat", &r.clat, clock)?;
    lat_line(w, " lat", &r.lat, clock)?;
    if job.spec.clat_percentiles {
        percentile_block(w, "clat", &r.clat, clock, &job.spec.percentiles)?;
    }
    if job.spec.lat_percentiles {
        percentile_block(w, " lat", &r.lat, clock, &job.spec.percentiles)?;
    }
    Ok(())
}

fn write_job(w: &mut impl Write, job: &JobReport, clock: &Clock) -> io::Result<()> {
    writeln!(
        w,
        "{}: (groupid=0, jobs={}): err= 0: engine={} iodepth={} target={}{}",
        job.spec.name,
        job.clones,
        job.spec.engine.label(),
        job.spec.effective_iodepth(),
        job.target.path.display(),
        if job.interrupted {
            " [INTERRUPTED]"
        } else {
            ""
        }
    )?;
    for d in [Direction::Read, Direction::Write] {
        write_dir(w, job, d, clock)?;
    }
    let cpu = &job.cpu;
    let rt = job.runtime_ns.max(1) as f64;
    let pct = |ns: u64| ns as f64 * 100.0 / rt;
    writeln!(
        w,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, iops/cpu-s={}",
        pct(cpu.user_ns),
        pct(cpu.sys_ns + cpu.helper_ns()),
        cpu.ctx,
        compact(job.iops_per_cpu_sec())
    )?;
    if cpu.helper_ns() > 0 {
        writeln!(
            w,
            "  kernel helpers: io-wq={:.2}%, sqpoll={:.2}% (included in sys; fio leaves them out)",
            pct(cpu.iowq_ns),
            pct(cpu.sqpoll_ns)
        )?;
    }
    for n in &job.notes {
        writeln!(w, "  note: {n}")?;
    }
    Ok(())
}

/// Writes every job of `out` in fio's normal layout, then the run-wide lines.
pub fn write_normal(out: &RunOutcome, w: &mut impl Write) -> io::Result<()> {
    for job in &out.jobs {
        write_job(w, job, &out.clock)?;
        writeln!(w)?;
    }
    writeln!(w, "Run status (all jobs):")?;
    for d in [Direction::Read, Direction::Write] {
        let (bytes, bw): (u64, f64) = out
            .jobs
            .iter()
            .filter_map(|j| j.dir(d).map(|r| (r.bytes, j.bw_bytes_per_sec(d))))
            .fold((0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        if bytes == 0 {
            continue;
        }
        let run_ms = out
            .jobs
            .iter()
            .map(|j| j.runtime_ns / 1_000_000)
            .max()
            .unwrap_or(0);
        writeln!(
            w,
            "  {}: bw={}/s ({}/s), io={} ({}), run={}msec",
            if d == Direction::Read {
                " READ"
            } else {
                "WRITE"
            },
            bytes_binary(bw),
            bytes_decimal(bw),
            bytes_binary(bytes as f64),
            bytes_decimal(bytes as f64),
            run_ms
        )?;
    }
    writeln!(
        w,
        "iolab: clock={} ({:.3} ticks/ns){}",
        out.clock.source(),
        out.clock.ticks_per_ns(),
        if out.interrupted {
            ", run INTERRUPTED: partial results"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_labels_keep_needed_digits() {
        assert_eq!(pct_label(99.0), "99.00");
        assert_eq!(pct_label(99.999), "99.999");
        assert_eq!(pct_label(99.95), "99.95");
    }

    #[test]
    fn compact_ints_like_fio() {
        assert_eq!(compact_int(1159.0), "1159");
        assert_eq!(compact_int(12_044_000.0), "12044k");
    }
}
