//! The `normal` output: one block per job in the layout of fio's report, so a fio user's eye
//! finds IOPS, BW, slat/clat/lat, the percentiles and CPU where it expects them. iolab adds a
//! CPU line that counts kernel helper threads and IOPS per CPU-second, and the engine notes.

use std::io::{self, Write};

use iolab_job::{JobSpec, RwReporting};
use iolab_results::Direction;
use iolab_results::{DirResult, JobReport, NumberStyle, OpenLoop, RunOutcome};
use iolab_results::{LatencyHistogram, Timebase};

use iolab_report::format::{compact, latency_unit, num2str, Unit};

fn lat_line(
    w: &mut impl Write,
    label: &str,
    h: &LatencyHistogram,
    clock: &Timebase,
) -> io::Result<()> {
    let s = h.summarize(clock, &[]);
    let (mut min, mut max) = (s.min_ns.round() as u64, s.max_ns.round() as u64);
    let (mut mean, mut dev) = (s.mean_ns, s.stddev_ns);
    // fio's display_lat(): msec, else usec, where the whole range and its spread call for it.
    let base = if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        (min, max, mean, dev) = (min / 1_000_000, max / 1_000_000, mean / 1e6, dev / 1e6);
        "msec"
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        (min, max, mean, dev) = (min / 1000, max / 1000, mean / 1e3, dev / 1e3);
        "usec"
    } else {
        "nsec"
    };
    writeln!(
        w,
        "    {label} ({base}): min={}, max={}, avg={mean:5.2}, stdev={dev:5.2}",
        num2str(min, 6, 1, false, Unit::None),
        num2str(max, 6, 1, false, Unit::None),
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

/// fio's `percentile_precision`: the most decimals any percentile of the list is written
/// with (fio counts them in the option's text; its default list has two).
fn precision(pcts: &[f64]) -> usize {
    pcts.iter()
        .map(|p| {
            let t = format!("{p:.6}");
            t.trim_end_matches('0')
                .split('.')
                .nth(1)
                .map_or(0, str::len)
        })
        .max()
        .unwrap_or(2)
}

/// The percentiles fio's block shows (the job's list), and iolab's own tail after it where
/// the list is fio's default (printed after the block, marked iolab's).
fn fio_list(pcts: &[f64]) -> (&[f64], Option<f64>) {
    match pcts == iolab_results::DEFAULT_PERCENTILES {
        true => (pcts, Some(iolab_results::IOLAB_TAIL_PERCENTILE)),
        false => (pcts, None),
    }
}

/// fio's `show_clat_percentiles()`: its unit from the values' range, each value rounded up
/// to it, as many per line as fit in 80 columns, commas between.
fn percentile_block(
    w: &mut impl Write,
    label: &str,
    h: &LatencyHistogram,
    clock: &Timebase,
    pcts: &[f64],
) -> io::Result<()> {
    let (list, extra) = fio_list(pcts);
    let s = h.summarize(clock, list);
    let vals: Vec<u64> = s
        .percentiles_ns
        .iter()
        .map(|p| p.1.round() as u64)
        .collect();
    if vals.is_empty() {
        return Ok(());
    }
    let minv = vals.iter().copied().min().unwrap_or(0);
    let maxv = vals.iter().copied().max().unwrap_or(0);
    let (unit, scale, divisor) = if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 2, 1_000_000)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1, 1000)
    } else {
        ("nsec", 0, 1)
    };
    let prec = precision(list);
    let width = (((maxv / divisor).max(1) as f64).log10() as usize + 1).max(5);
    let per_line = (80 - 7) / (prec + 10 + width);
    write!(w, "    {label} percentiles ({unit}):\n     |")?;
    for (j, ((p, _), v)) in s.percentiles_ns.iter().zip(&vals).enumerate() {
        if j != 0 && j % per_line == 0 {
            write!(w, "     |")?;
        }
        let v = (0..scale).fold(*v, |v, _| v.div_ceil(1000));
        let last = j == vals.len() - 1;
        let end = if last { '\n' } else { ',' };
        write!(w, " {p:>pw$.prec$}th=[{v:>width$}]{end}", pw = prec + 3)?;
        if !last && j % per_line == per_line - 1 {
            writeln!(w)?;
        }
    }
    if let Some(p) = extra {
        let v = h.summarize(clock, &[p]).percentiles_ns[0].1.round() as u64;
        let v = (0..scale).fold(v, |v, _| v.div_ceil(1000));
        writeln!(w, "     | (iolab) {p:.3}th=[{v:>width$}]")?;
    }
    Ok(())
}

/// Per second of the job's runtime.
fn per_sec(job: &JobReport, n: u64) -> f64 {
    match job.runtime_ns {
        0 => 0.0,
        ns => n as f64 * 1e9 / ns as f64,
    }
}

/// A direction's first line: IOPS, bandwidth, bytes and runtime, as fio's.
fn rate_line(w: &mut impl Write, job: &JobReport, name: &str, r: &DirResult) -> io::Result<()> {
    let n = Numbers(job.setup.numbers);
    let bw = per_sec(job, r.bytes) as u64;
    // fio on Linux ends every write line with its zone resets (zbd_write_status()).
    let resets = match name {
        "write" => format!("; {} zone resets", job.zone_resets),
        _ => String::new(),
    };
    writeln!(
        w,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){resets}",
        n.count(per_sec(job, r.ios) as u64),
        n.rate(bw, false),
        n.rate(bw, true),
        n.bytes(r.bytes, false),
        job.runtime_ns / 1_000_000
    )
}

fn write_dir(
    w: &mut impl Write,
    job: &JobReport,
    name: &str,
    r: &DirResult,
    clock: &Timebase,
    group_bw: f64,
) -> io::Result<()> {
    rate_line(w, job, name, r)?;
    if r.ios == 0 {
        return Ok(());
    }
    let rec = job.setup.recorded;
    if let Some(slat) = r.slat.as_ref().filter(|_| rec.slat) {
        lat_line(w, "slat", slat, clock)?;
    }
    if rec.clat {
        lat_line(w, "clat", &r.clat, clock)?;
    }
    if rec.lat {
        lat_line(w, " lat", &r.lat, clock)?;
    }
    // Per priority from two priorities with latencies on, as fio's show_ddir_status().
    let prios = || r.prios.iter().filter(|p| p.lat.count() > 0);
    let by_prio = r.prios_with_samples() >= 2;
    let prio_kind = if job.setup.lat_percentiles {
        " lat"
    } else {
        "clat"
    };
    for p in prios().filter(|_| by_prio) {
        let label = format!("{prio_kind} prio {}/{}", p.class(), p.level());
        lat_line(w, &label, &p.lat, clock)?;
    }
    if let Some(slat) = r
        .slat
        .as_ref()
        .filter(|_| job.setup.slat_percentiles && rec.slat)
    {
        percentile_block(w, "slat", slat, clock, &job.setup.percentiles)?;
    }
    if job.setup.clat_percentiles && rec.clat {
        percentile_block(w, "clat", &r.clat, clock, &job.setup.percentiles)?;
    }
    if job.setup.lat_percentiles && rec.lat {
        percentile_block(w, " lat", &r.lat, clock, &job.setup.percentiles)?;
    }
    let any_pcts = job.setup.clat_percentiles || job.setup.lat_percentiles;
    for p in prios().filter(|_| by_prio && any_pcts) {
        let share = p.lat.count() as f64 * 100.0 / r.ios.max(1) as f64;
        let label = format!(
            "{prio_kind} prio {}/{} ({share:.2}% of IOs)",
            p.class(),
            p.level()
        );
        percentile_block(w, &label, &p.lat, clock, &job.setup.percentiles)?;
    }
    if let Some(ol) = &r.open_loop {
        open_loop_lines(w, ol, per_sec(job, r.ios), clock, &job.setup.percentiles)?;
    }
    if let Some(s) = &r.lat_split {
        // In the unit of the clat line above (fio picks it by the minimum).
        let unit = latency_unit(r.clat.summarize(clock, &[]).min_ns);
        iolab_report::split::split_lines(w, s, clock, unit)?;
    }
    if rec.bw && !r.samples.is_empty() {
        sample_lines(w, r, group_bw)?;
    }
    Ok(())
}

/// iolab's open-loop lines (`rate_open_loop`): response time from each I/O's due time with
/// its percentiles, and whether the schedule was kept (offered against achieved, how late
/// I/Os went, how many found every slot busy).
fn open_loop_lines(
    w: &mut impl Write,
    ol: &OpenLoop,
    achieved: f64,
    clock: &Timebase,
    pcts: &[f64],
) -> io::Result<()> {
    lat_line(w, "resp", &ol.response, clock)?;
    percentile_block(w, "resp", &ol.response, clock, pcts)?;
    let late = ol.lateness.summarize(clock, &[99.0]);
    let p99 = late.percentiles_ns.first().map_or(0.0, |p| p.1);
    writeln!(
        w,
        "    schedule (iolab, open loop): offered={} IOPS, achieved={}{}, issued late \
         avg={:.1}us p99={:.1}us max={:.1}us, {} due with every slot busy",
        compact_int(ol.offered_iops),
        compact_int(achieved),
        match ol.judge(achieved, clock) {
            j if j.carried() => String::new(),
            j => format!(
                " (NOT SUSTAINED, {} behind: {})",
                j.behind.map_or("", |b| b.label()),
                j.why
            ),
        },
        late.mean_ns / 1e3,
        p99 / 1e3,
        late.max_ns / 1e3,
        ol.late_for_slot
    )
}

/// fio's `bw (KiB/s)` and `iops` lines from the per-interval samples, as its
/// `show_ddir_status()`: whole numbers for min and max, MiB/s once the mean passes 1 GiB/s,
/// and `per=`, the job's share of its group's bandwidth (`group_bw`, bytes/s).
fn sample_lines(w: &mut impl Write, r: &DirResult, group_bw: f64) -> io::Result<()> {
    let (bw, iops) = r.sample_rates();
    let agg_kib = group_bw / 1024.0;
    let per = match agg_kib > 1.0 {
        true => (bw.mean * 100.0 / agg_kib).min(100.0),
        false => 100.0,
    };
    let (div, unit) = match bw.mean > 1024.0 * 1024.0 {
        true => (1024.0, "MiB"),
        false => (1.0, "KiB"),
    };
    writeln!(
        w,
        "   bw ({unit:>5}/s): min={:5}, max={:5}, per={per:3.2}%, avg={:5.2}, stdev={:5.2}, \
         samples={}",
        (bw.min / div) as u64,
        (bw.max / div) as u64,
        bw.mean / div,
        bw.stddev / div,
        bw.samples
    )?;
    writeln!(
        w,
        "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
        iops.min as u64, iops.max as u64, iops.mean, iops.stddev, iops.samples
    )
}

/// fio's `lat (nsec|usec|msec)` lines: the share of I/Os in each latency bucket, the
/// non-empty ones, five to a line.
fn bucket_lines(w: &mut impl Write, job: &JobReport, clock: &Timebase) -> io::Result<()> {
    let b = job.latency_buckets(clock);
    let labels = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    for (unit, shares) in [
        ("nsec", &b.ns[..]),
        ("usec", &b.us[..]),
        ("msec", &b.ms[..]),
    ] {
        let cells: Vec<String> = shares
            .iter()
            .zip(labels)
            .filter(|(v, _)| **v > 0.0)
            .map(|(v, l)| format!("{l}={v:3.2}%"))
            .collect();
        for line in cells.chunks(5) {
            writeln!(w, "  lat ({unit})   : {}", line.join(", "))?;
        }
    }
    Ok(())
}

/// fio's `stat_calc_dist()`: each bucket's share, 0.1 % at least where it has any.
fn dist(map: &[u64; 7]) -> [f64; 7] {
    let total: u64 = map.iter().sum();
    map.map(|n| match (total, n) {
        (0, _) | (_, 0) => 0.0,
        (t, n) => (n as f64 * 100.0 / t as f64).max(0.1),
    })
}

/// The time fio's job line shows: fio prints the moment it prints (`time(NULL)` in
/// `show_thread_status_normal`), which for the final results is the job's end. A finished
/// job's end is its start plus its elapsed time (so `show` of an old run dates it as fio
/// did then); an interim status, which has no start yet, is dated now.
fn printed_at(job: &JobReport) -> u64 {
    match job.started_unix_ms {
        0 => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        t => t + job.elapsed_ns / 1_000_000,
    }
}

/// `ctime()` of a Unix time in ms, as fio's job line ends (`Sat Nov 28 08:22:11 2026`).
fn ctime(ms: u64) -> String {
    let t = (ms / 1000) as libc::time_t;
    let mut buf = [0 as libc::c_char; 32];
    // SAFETY: ctime_r writes at most 26 bytes into buf, which holds 32.
    let p = unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: ctime_r wrote a NUL-terminated string into buf.
    let c = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    c.to_string_lossy().trim_end().to_string()
}

/// fio's name for a job's pattern and mix.
pub fn rw_name(spec: &JobSpec) -> &'static str {
    spec.rw_name()
}

/// The line fio prints for each job before it starts (and for `--parse-only`):
/// `name: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B,
/// ioengine=io_uring, iodepth=1`. Each direction shows its smallest and largest block size;
/// trim shows write's (as fio's defaults make it).
pub fn job_line(spec: &JobSpec, group: u32) -> String {
    // fio prints no job line for an engine without I/O; cpuio's init says its load.
    if let Some(line) = spec.engine.banner(&spec.name) {
        return line;
    }
    let range = |d: Direction| {
        format!(
            "{}-{}",
            block_size_str(spec.min_block_size(d) as u64),
            block_size_str(spec.block_size[d.index()] as u64)
        )
    };
    let (r, w) = (range(Direction::Read), range(Direction::Write));
    format!(
        "{}: (g={group}): rw={}, bs=(R) {r}, (W) {w}, (T) {w}, ioengine={}, iodepth={}",
        spec.name,
        rw_name(spec),
        spec.engine.label(),
        spec.iodepth
    )
}

/// A byte count as fio's `num2str(n, 4, 1, 1, N2S_BYTE)` writes it: at most four digits,
/// then KiB, MiB, ... with the decimals that fit (`4096B`, `16.0KiB`, `128KiB`).
pub fn block_size_str(n: u64) -> String {
    num2str(n, 4, 1, true, Unit::Byte)
}

/// A job's figures printed in its style (fio's `significant_figures`, `kb_base`,
/// `unit_base`): the first of a pair in the style's prefixes, the `alt` in the others.
#[derive(Clone, Copy)]
struct Numbers(NumberStyle);

impl Numbers {
    fn binary(self, alt: bool) -> bool {
        self.0.si_first == alt
    }

    fn count(self, v: u64) -> String {
        num2str(v, self.0.sig_figs, 1, false, Unit::None)
    }

    fn bytes(self, v: u64, alt: bool) -> String {
        num2str(v, self.0.sig_figs, 1, self.binary(alt), Unit::Byte)
    }

    fn rate(self, bytes_per_sec: u64, alt: bool) -> String {
        let unit = if self.0.bits {
            Unit::BitPerSec
        } else {
            Unit::BytePerSec
        };
        num2str(bytes_per_sec, self.0.sig_figs, 1, self.binary(alt), unit)
    }
}

/// ` target=PATH`, or nothing for an engine that opens no target (null, cpuio, exec: the
/// name is only the default file name of a job that never makes one).
fn target_field(job: &JobReport) -> String {
    let kind = job.setup.engine.split_whitespace().next();
    let opens_nothing = kind
        .and_then(|k| k.parse::<iolab_engine::EngineKind>().ok())
        .is_some_and(|k| k.def().accepts == iolab_engine::Accepts::NOTHING);
    match opens_nothing {
        true => String::new(),
        false => format!(" target={}", job.target.path.display()),
    }
}

/// One job's block as fio's `show_thread_status_normal()` prints it, line for line, then
/// iolab's own lines (each says it is iolab's). `group_bw`: the job's reporting group's
/// bandwidth per direction (bytes/s), for the bw lines' `per=`.
fn write_job(
    w: &mut impl Write,
    job: &JobReport,
    clock: &Timebase,
    group_bw: [f64; 3],
) -> io::Result<()> {
    let err = match (&job.error, job.errors.filter(|e| e.first != 0)) {
        (Some(e), _) => format!("{:2} (error={})", e.errno, strerror(e.errno)),
        // Errors gone past: fio's err= is the first of them.
        (None, Some(e)) => format!("{:2} ({})", e.first, strerror(e.first)),
        (None, None) => format!("{:2}", 0),
    };
    writeln!(
        w,
        "{}: (groupid={}, jobs={}): err={err}: pid={}: {}",
        job.setup.name,
        job.group_id,
        job.clones,
        std::process::id(),
        ctime(printed_at(job))
    )?;
    if !job.setup.description.is_empty() {
        writeln!(w, "  Description  : [{}]", job.setup.description)?;
    }
    if job.setup.rw_reporting != RwReporting::Mixed {
        for d in Direction::ALL {
            let name = d.name();
            // A direction that moved no bytes in its I/Os is an engine's without I/O
            // (cpuio): fio shows no block for it (its runtime is zero); the CPU line speaks.
            if let Some(r) = job.dir(d).filter(|r| r.bytes > 0 || r.ios == 0) {
                write_dir(w, job, name, r, clock, group_bw[d as usize])?;
            }
        }
    }
    if job.setup.rw_reporting != RwReporting::Separate {
        write_dir(w, job, "mixed", &job.mixed(), clock, group_bw.iter().sum())?;
    }
    bucket_lines(w, job, clock)?;
    if let Some(s) = job.sync.as_ref().filter(|s| s.lat.count() > 0) {
        // fio's heading; the count takes fsyncs and fdatasyncs (JSON's total_ios, as fio's,
        // only fsyncs).
        writeln!(
            w,
            "  fsync/fdatasync/sync_file_range: {} calls",
            s.lat.count()
        )?;
        lat_line(w, "sync", &s.lat, clock)?;
    }
    let cpu = &job.cpu;
    let rt = job.total_runtime_ns.max(1) as f64;
    let pct = |ns: u64| ns as f64 * 100.0 / rt;
    writeln!(
        w,
        "  cpu          : usr={:3.2}%, sys={:3.2}%, ctx={}, majf={}, minf={}",
        pct(cpu.user_ns),
        pct(cpu.sys_ns),
        cpu.ctx,
        cpu.majflt,
        cpu.minflt
    )?;
    let rows = [
        (
            "  IO depths    : ",
            ["1", "2", "4", "8", "16", "32", ">=64"],
            &job.depth.level,
        ),
        (
            "     submit    : ",
            ["0", "4", "8", "16", "32", "64", ">=64"],
            &job.depth.submit,
        ),
        (
            "     complete  : ",
            ["0", "4", "8", "16", "32", "64", ">=64"],
            &job.depth.complete,
        ),
    ];
    for (head, keys, map) in rows {
        let cells: Vec<String> = keys
            .iter()
            .zip(dist(map))
            .map(|(k, v)| format!("{k}={v:3.1}%"))
            .collect();
        writeln!(w, "{head}{}", cells.join(", "))?;
    }
    let ios = |d| job.dir(d).map_or(0, |r| r.ios);
    writeln!(
        w,
        "     issued rwts: total={},{},{},0 short=0,0,0,0 dropped=0,0,0,0",
        ios(Direction::Read),
        ios(Direction::Write),
        ios(Direction::Trim)
    )?;
    if let Some(e) = &job.errors {
        writeln!(
            w,
            "     errors    : total={}, first_error={}/<{}>",
            e.total,
            e.first,
            strerror(e.first)
        )?;
    }
    search_lines(w, job)?;
    iolab_lines(w, job)
}

/// iolab's own lines of a job, after fio's: what ran where, the CPU counted with the
/// kernel's helper threads, how the engine was set up, repeats and notes.
fn iolab_lines(w: &mut impl Write, job: &JobReport) -> io::Result<()> {
    writeln!(
        w,
        "  iolab        : engine={} iodepth={}{}{}",
        job.setup.engine,
        job.setup.iodepth,
        target_field(job),
        if job.interrupted {
            " [INTERRUPTED]"
        } else {
            ""
        }
    )?;
    let cpu = &job.cpu;
    let rt = job.total_runtime_ns.max(1) as f64;
    let pct = |ns: u64| ns as f64 * 100.0 / rt;
    writeln!(
        w,
        "  iolab cpu    : sys={:.2}% with kernel helpers, iops/cpu-s={}",
        pct(cpu.sys_ns + cpu.helper_ns()),
        compact(job.iops_per_cpu_sec())
    )?;
    if cpu.helper_ns() > 0 {
        writeln!(
            w,
            "  kernel helpers: io-wq={:.2}%, sqpoll={:.2}% (fio leaves them out)",
            pct(cpu.iowq_ns),
            pct(cpu.sqpoll_ns)
        )?;
    }
    if let Some(s) = &job.engine_setup {
        writeln!(w, "  engine setup : {s}")?;
    }
    if let Some(e) = &job.error {
        writeln!(w, "  iolab error  : {e}")?;
    }
    iolab_report::repeats::repeat_lines(w, job)?;
    for n in &job.notes {
        writeln!(w, "  note: {n}")?;
    }
    Ok(())
}

/// What the latency-target search and the steady-state check found, where a job had them;
/// fio 3.33's latency line otherwise (no target, the job's depth).
fn search_lines(w: &mut impl Write, job: &JobReport) -> io::Result<()> {
    match &job.lat_target {
        Some(t) => writeln!(
            w,
            // fio prints the target in ns (its `latency_target` as stored) and the window
            // in µs: `target=50000000, window=200000` for 50ms and 200ms.
            "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
            t.target_ns, t.window_us, t.percentile, t.depth
        )?,
        None => writeln!(
            w,
            "     latency   : target=0, window=0, percentile=100.00%, depth={}",
            job.setup.iodepth
        )?,
    }
    if let Some(ss) = &job.steady {
        // fio 3.42 prints a lat criterion's mean in ns: its unit step needs a deviation,
        // and it passes none.
        let lat = match ss.metric.as_str() {
            "lat" => format!(
                ", lat={}nsec",
                Numbers(job.setup.numbers).count(ss.lat_mean())
            ),
            _ => String::new(),
        };
        writeln!(
            w,
            "  steadystate  : attained={}, bw={} ({}), iops={}{lat}, {}{}={:.3}{}",
            if ss.attained { "yes" } else { "no" },
            Numbers(job.setup.numbers).rate(ss.bw_mean(), false),
            Numbers(job.setup.numbers).rate(ss.bw_mean(), true),
            Numbers(job.setup.numbers).count(ss.iops_mean()),
            ss.metric,
            if ss.slope { " slope" } else { " mean dev" },
            ss.criterion,
            if ss.percent { "%" } else { "" }
        )?;
    }
    Ok(())
}

/// fio's per-group summary: aggregate bandwidth, the range over the group's jobs, total
/// I/O and the range of run times.
fn write_group(w: &mut impl Write, out: &RunOutcome, group: u32) -> io::Result<()> {
    writeln!(w, "Run status group {group} (all jobs):")?;
    let jobs: Vec<&JobReport> = out.jobs.iter().filter(|j| j.group_id == group).collect();
    for d in Direction::ALL {
        let with: Vec<&&JobReport> = jobs.iter().filter(|j| j.dir(d).is_some()).collect();
        let bytes: u64 = with.iter().map(|j| j.dir(d).map_or(0, |r| r.bytes)).sum();
        if bytes == 0 {
            continue;
        }
        let bws: Vec<u64> = with.iter().map(|j| j.bw_bytes_per_sec(d) as u64).collect();
        let runs: Vec<u64> = with.iter().map(|j| j.runtime_ns / 1_000_000).collect();
        let total: u64 = bws.iter().sum();
        let lo = bws.iter().copied().min().unwrap_or(0);
        let hi = bws.iter().copied().max().unwrap_or(0);
        // The group prints as its first job asks (fio keeps one style per group).
        let n = Numbers(jobs.first().map(|j| j.setup.numbers).unwrap_or_default());
        writeln!(
            w,
            "  {}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            match d {
                Direction::Read => " READ",
                Direction::Write => "WRITE",
                Direction::Trim => " TRIM",
            },
            n.rate(total, false),
            n.rate(total, true),
            n.rate(lo, false),
            n.rate(hi, false),
            n.rate(lo, true),
            n.rate(hi, true),
            n.bytes(bytes, false),
            n.bytes(bytes, true),
            runs.iter().min().unwrap_or(&0),
            runs.iter().max().unwrap_or(&0)
        )?;
    }
    Ok(())
}

/// Writes every job of `out` in fio's normal layout, then each group's summary and the
/// disks' counters.
pub fn write_normal(out: &RunOutcome, w: &mut impl Write) -> io::Result<()> {
    for job in &out.jobs {
        let group_bw = Direction::ALL.map(|d| {
            out.jobs
                .iter()
                .filter(|j| j.group_id == job.group_id)
                .map(|j| j.bw_bytes_per_sec(d))
                .sum::<f64>()
        });
        write_job(w, job, &out.clock, group_bw)?;
        writeln!(w)?;
    }
    let mut groups: Vec<u32> = out.jobs.iter().map(|j| j.group_id).collect();
    groups.dedup();
    for g in groups {
        write_group(w, out, g)?;
        writeln!(w)?;
    }
    if !out.disks.is_empty() {
        writeln!(w, "Disk stats (read/write):")?;
        for d in &out.disks {
            let c = &d.counters;
            writeln!(
                w,
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
                d.name,
                c.read_ios,
                c.write_ios,
                c.read_merges,
                c.write_merges,
                c.read_ticks_ms,
                c.write_ticks_ms,
                c.in_queue_ms,
                d.util_percent()
            )?;
        }
    }
    for line in iolab_results::health_lines(&out.health) {
        writeln!(w, "iolab: {line}")?;
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

/// C's `strerror()` text for `errno`, as fio prints it ("Success" for 0).
fn strerror(errno: i32) -> String {
    match errno {
        0 => "Success".to_string(),
        e => {
            let s = std::io::Error::from_raw_os_error(e).to_string();
            // Rust appends " (os error N)".
            s.split(" (os error").next().unwrap_or(&s).to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_job::Pattern;

    #[test]
    fn percentile_precision_counts_decimals_as_fio() {
        assert_eq!(precision(&[1.0, 50.0, 99.0]), 0);
        assert_eq!(precision(&[99.5, 99.95]), 2);
        assert_eq!(precision(&[99.999]), 3);
        let fio_default = &iolab_results::DEFAULT_PERCENTILES[..];
        assert_eq!(precision(fio_default), 2);
        assert_eq!(
            fio_list(&iolab_results::DEFAULT_PERCENTILES),
            (fio_default, Some(99.999))
        );
    }

    #[test]
    fn job_lines_name_pattern_sizes_engine_and_depth() {
        let mut j = JobSpec::new("4k_randread_qd1", "/dev/zram0");
        j.pattern = Pattern::Random;
        j.iodepth = 8;
        assert_eq!(
            job_line(&j, 2),
            "4k_randread_qd1: (g=2): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
             ioengine=psync, iodepth=8"
        );
        j.read_percent = 70;
        assert_eq!(rw_name(&j), "randrw");
        j.pattern = Pattern::Sequential;
        j.read_percent = 0;
        assert_eq!(rw_name(&j), "write");
    }

    #[test]
    fn block_sizes_print_as_fios_num2str() {
        let got: Vec<String> = [
            512u64,
            4096,
            8192,
            9216,
            16384,
            131072,
            1 << 20,
            1536,
            65536,
        ]
        .iter()
        .map(|&n| block_size_str(n))
        .collect();
        // As fio 3.33 printed them for bs=512 ... bs=64k.
        let want = [
            "512B", "4096B", "8192B", "9216B", "16.0KiB", "128KiB", "1024KiB", "1536B", "64.0KiB",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn compact_ints_like_fio() {
        assert_eq!(compact_int(1159.0), "1159");
        assert_eq!(compact_int(12_044_000.0), "12044k");
    }
}
