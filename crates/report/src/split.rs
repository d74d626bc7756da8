//! iolab's latency split in the normal output: the three parts beside fio's slat/clat/lat,
//! in the same line shape, how many I/Os were joined, and the tail's account.

use std::io::{self, Write};

use iolab_results::{LatSplit, LatencyHistogram, Timebase};

/// The tails accounted for: the I/Os slower than p99 and p99.9.
const TAILS: [f64; 2] = [99.0, 99.9];

/// The split's lines of one direction, in `unit` (the job's own latency lines' unit and its
/// divisor in ns, so the parts read beside the whole).
pub fn split_lines(
    w: &mut impl Write,
    s: &LatSplit,
    clock: &Timebase,
    (unit, div): (&str, f64),
) -> io::Result<()> {
    writeln!(
        w,
        "    split (iolab): {} of {} I/Os joined ({:.2}%){}",
        s.joined,
        s.issued,
        s.joined_share() * 100.0,
        match s.split_or_merged {
            0 => String::new(),
            n => format!(", {n} split or merged by the block layer"),
        }
    )?;
    if s.joined == 0 {
        return Ok(());
    }
    for (label, h) in [
        ("submit", &s.submit),
        ("device", &s.device),
        ("compl ", &s.completion),
    ] {
        part_line(w, label, h, clock, unit, div)?;
    }
    if let Some(h) = &s.nvme_device {
        part_line(w, "nvme  ", h, clock, unit, div)?;
    }
    for p in TAILS {
        let Some(t) = s.tail.share(p) else { continue };
        // The band: the slowest (100 - p) % of the joined I/Os.
        writeln!(
            w,
            "    tail, the slowest {}% ({} of {} I/Os, from {:.2} {unit}): submit={:.1}%, \
             device={:.1}%, completion={:.1}%",
            band(p),
            t.ios,
            s.joined,
            clock.ticks_to_ns(t.from_ticks) / div,
            t.submit * 100.0,
            t.device * 100.0,
            t.completion * 100.0
        )?;
    }
    Ok(())
}

/// `100 - p` as a share, without float noise: 1, 0.1.
fn band(p: f64) -> String {
    let b = ((100.0 - p) * 1000.0).round() / 1000.0;
    format!("{b}")
}

fn part_line(
    w: &mut impl Write,
    label: &str,
    h: &LatencyHistogram,
    clock: &Timebase,
    unit: &str,
    div: f64,
) -> io::Result<()> {
    let s = h.summarize(clock, &[50.0, 99.0, 99.9]);
    let p = |i: usize| s.percentiles_ns.get(i).map_or(0.0, |p| p.1) / div;
    writeln!(
        w,
        "    {label} ({unit}): avg={:.2}, stdev={:.2}, p50={:.2}, p99={:.2}, p99.9={:.2}, \
         max={:.2}",
        s.mean_ns / div,
        s.stddev_ns / div,
        p(0),
        p(1),
        p(2),
        s.max_ns / div
    )
}
