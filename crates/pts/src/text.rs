//! A PTS run in words and tables, from its stored document ([`PtsDocument`]): each test's
//! purge and what keeps it from standing beside a certified result, the steady-state verdict
//! with every tracked variable's window, and its result table as the report draws it (the
//! IOPS mix × block size table, the throughput and latency tables, write saturation's summary,
//! the demand-intensity table). `iolab pts` prints it as each test ends; `iolab show` prints
//! it for a stored run. One unit per quantity: IOPS as counts, throughput in MB/s, response
//! times in µs.

use std::fmt::Write as _;

use iolab_report::format::{compact, unitless};
use iolab_results::pts::{
    size_name, Figure, Loop, Measured, PhasePoint, PhaseRun, PtsDocument, TestDoc,
};

/// The summary of one test's entry in `tests[]`.
pub fn test_summary(t: &TestDoc) -> String {
    let mut out = format!("{}: {}\n", t.name, t.title);
    if let Some(why) = &t.unavailable {
        let _ = writeln!(out, "  not run: {why}");
        if t.purge.is_empty() {
            return out;
        }
    }
    let _ = writeln!(out, "  purge: {}", t.purge);
    for why in &t.not_comparable {
        let _ = writeln!(out, "  not comparable: {why}");
    }
    if let Some(left) = &t.interrupted {
        let _ = writeln!(out, "  interrupted: {left}");
    }
    for l in &t.left_out {
        let _ = writeln!(out, "  left out: {l}");
    }
    if let Some(w) = &t.wipc {
        let _ = writeln!(
            out,
            "  preconditioning: {:.1} GB of {} at {:.0} MB/s",
            w.bytes as f64 / 1e9,
            w.stimulus,
            w.bw_bytes / 1e6
        );
    }
    if let Some(p) = &t.preconditioning {
        out.push_str(&loop_line(p));
    }
    out.push_str(&verdict(t));
    out.push_str(&table(t));
    for p in &t.phases {
        out.push_str(&phase_summary(p));
    }
    out
}

/// The test's own preconditioning loop in a line.
fn loop_line(p: &Loop) -> String {
    let st = &p.steady;
    let how = match (st.reached, &st.window) {
        (true, Some(w)) => format!(
            "steady in rounds {}-{} (average {} IOPS)",
            w.rounds[0],
            w.rounds[1],
            compact(w.average)
        ),
        _ => format!("NOT steady in {} round(s)", st.values.len()),
    };
    format!(
        "  workload-dependent preconditioning: {} in rounds of {} intervals, {}: {how}\n",
        p.stimulus,
        p.intervals_a_round,
        unitless(&p.tracked)
    )
}

/// The steady-state verdict, a line per tracked variable.
fn verdict(t: &TestDoc) -> String {
    let ss = &t.steady_state;
    let n = ss.values.len();
    if ss.series {
        return format!(
            "  {}: a series of {n} rounds (no steady-state criterion)\n",
            unitless(&t.tracked)
        );
    }
    let mut out = match (ss.reached, ss.window_rounds) {
        (true, Some([a, b])) => format!("  steady state reached in rounds {a}-{b}:\n"),
        (_, Some([a, b])) => {
            format!("  steady state NOT reached in {n} rounds (last window {a}-{b}):\n")
        }
        _ => format!("  {n} round(s): too few for a window\n"),
    };
    for v in &ss.variables {
        let Some(win) = &v.window else { continue };
        let label = unitless(&v.label);
        let avg = win.average;
        let average = match () {
            _ if label.contains("throughput") => format!("{:.1} MB/s", avg / 1e6),
            _ if label.contains("response time") => format!("{:.1} µs", avg / 1e3),
            _ => format!("{} IOPS", compact(avg)),
        };
        let _ = writeln!(
            out,
            "    {label}: average {average}, range {:.1} %, slope excursion {:.1} %{}",
            win.range_pct,
            win.slope_excursion_pct,
            if v.reached { "" } else { " (not steady)" }
        );
    }
    out
}

/// The test's result table, as the report has it.
fn table(t: &TestDoc) -> String {
    match t.name.as_str() {
        "iops" => iops_table(t),
        n if n.starts_with("tp-") => tp_table(t),
        "lat" => lat_table(t),
        "wsat" => wsat_summary(t),
        "cbw" | "dirth" => demand_table(t),
        _ => String::new(),
    }
}

fn size_of(e: &Measured) -> String {
    size_name(e.element.bs)
}

fn mix_of(e: &Measured) -> String {
    e.element.mix()
}

/// Rows × columns of a figure, a header row first.
fn grid(
    corner: &str,
    rows: &[String],
    cols: &[String],
    cell: impl Fn(&str, &str) -> String,
) -> String {
    let mut out = format!("    {corner:>10}");
    for c in cols {
        let _ = write!(out, " {c:>9}");
    }
    out.push('\n');
    for r in rows {
        let _ = write!(out, "    {r:>10}");
        for c in cols {
            let _ = write!(out, " {:>9}", cell(r, c));
        }
        out.push('\n');
    }
    out
}

fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// SNIA's layout: block sizes down, small to large; mixes across, from 100 % write on the
/// left to 100 % read on the right.
fn iops_table(t: &TestDoc) -> String {
    let avg = t.window_average(Figure::Iops);
    let by = |k: fn(&Measured) -> u32| {
        let mut v: Vec<u32> = avg.iter().map(|(e, _)| k(e)).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let rows: Vec<String> = by(|e| e.element.bs).into_iter().map(size_name).collect();
    let cols: Vec<String> = by(|e| e.element.read_pct.into())
        .into_iter()
        .map(|r| format!("{r}/{}", 100 - r))
        .collect();
    let cell = |r: &str, c: &str| {
        avg.iter()
            .find(|(e, _)| size_of(e) == r && mix_of(e) == c)
            .map_or("-".into(), |(_, v)| compact(*v))
    };
    format!(
        "  IOPS over the window (block size down, read/write mix across):\n{}",
        grid("", &rows, &cols, cell)
    )
}

fn tp_table(t: &TestDoc) -> String {
    let avg = t.window_average(Figure::BwBytes);
    let mut out = String::from("  throughput over the window:\n");
    for (e, v) in avg {
        let what = match e.element.read_pct {
            100 => "read",
            _ => "write",
        };
        let _ = writeln!(
            out,
            "    {} sequential {what}: {:.1} MB/s",
            size_of(e),
            v / 1e6
        );
    }
    out
}

fn lat_table(t: &TestDoc) -> String {
    let mean = t.window_average(Figure::MeanNs);
    let nines = t.window_average(Figure::P99999Ns);
    let max = t.window_average(Figure::MaxNs);
    let mut out =
        String::from("  response times over the window, µs (average / 99.999 % / maximum):\n");
    let rows = distinct(mean.iter().map(|(e, _)| size_of(e)));
    let cols = distinct(mean.iter().map(|(e, _)| mix_of(e)));
    let find = |set: &[(&Measured, f64)], r: &str, c: &str| {
        set.iter()
            .find(|(e, _)| size_of(e) == r && mix_of(e) == c)
            .map(|(_, v)| *v / 1e3)
    };
    for r in &rows {
        for c in &cols {
            let (Some(a), Some(n), Some(m)) =
                (find(&mean, r, c), find(&nines, r, c), find(&max, r, c))
            else {
                continue;
            };
            let _ = writeln!(out, "    {r:>8} {c:>7}: {a:>9.1} {n:>10.1} {m:>10.1}");
        }
    }
    // The 99.999th percentile of fewer than 100,000 I/Os is the largest of them.
    let at_max = nines.iter().zip(&max).any(|((_, n), (_, m))| n >= m);
    if at_max {
        out.push_str(
            "    (an element of fewer than 100,000 I/Os has no I/O beyond its 99.999th \
             percentile: there it is the maximum)\n",
        );
    }
    out
}

fn wsat_summary(t: &TestDoc) -> String {
    let written: f64 = t
        .rounds
        .iter()
        .flat_map(|r| &r.elements)
        .map(|e| e.write_bytes as f64)
        .sum();
    let iops = &t.steady_state.values;
    let last = &iops[iops.len().saturating_sub(5)..];
    format!(
        "  {} rounds, {:.1} GB written: IOPS {} in the first round, {} over the last {}\n",
        iops.len(),
        written / 1e9,
        iops.first().map_or("-".into(), |v| compact(*v)),
        compact(last.iter().sum::<f64>() / last.len().max(1) as f64),
        last.len()
    )
}

fn demand_table(t: &TestDoc) -> String {
    let iops = t.window_average(Figure::Iops);
    let mean = t.window_average(Figure::MeanNs);
    let th = |e: &Measured| format!("T{}", e.element.threads);
    let qd = |e: &Measured| format!("Q{}", e.element.depth);
    let rows = distinct(iops.iter().map(|(e, _)| th(e)));
    let cols = distinct(iops.iter().map(|(e, _)| qd(e)));
    let cell = |set: &[(&Measured, f64)], scale: f64, r: &str, c: &str| {
        set.iter().find(|(e, _)| th(e) == r && qd(e) == c).map_or(
            "-".into(),
            |(_, v)| match scale {
                1.0 => compact(*v),
                _ => format!("{:.1}", v / scale),
            },
        )
    };
    format!(
        "  IOPS over the window (threads down, queue depth across):\n{}  average response time over the window, µs:\n{}",
        grid("", &rows, &cols, |r, c| cell(&iops, 1.0, r, c)),
        grid("", &rows, &cols, |r, c| cell(&mean, 1e3, r, c))
    )
}

/// A phase in a line (its points' average IOPS and throughput), and a line per point that
/// kept a histogram (its IOPS, average and 99.99th percentile response time).
fn phase_summary(p: &PhaseRun) -> String {
    // A pre-write prepares the point; the point's own figures are what the phase measured.
    let points: Vec<&PhasePoint> = p.points.iter().filter(|x| x.role != "pre-write").collect();
    let n = points.len().max(1) as f64;
    let avg = |f: Figure| points.iter().map(|x| f.of(&x.measured)).sum::<f64>() / n;
    let pre = match p.points.len() - points.len() {
        0 => String::new(),
        k => format!(" after {k} pre-write(s)"),
    };
    let mut out = format!(
        "  {}: {} step(s){pre}, average {} IOPS, {:.1} MB/s\n",
        p.name,
        points.len(),
        compact(avg(Figure::Iops)),
        avg(Figure::BwBytes) / 1e6
    );
    for x in points.iter().filter(|x| x.measured.histogram.is_some()) {
        let m = &x.measured;
        let role = match x.role.as_str() {
            "" => String::new(),
            r => format!("{r}: "),
        };
        let _ = writeln!(
            out,
            "    {role}{}: {} IOPS, average {:.1} µs, 99.99 % {:.1} µs{}",
            m.label,
            compact(m.iops),
            m.mean_ns / 1e3,
            m.p9999_ns / 1e3,
            tail_note(x)
        );
    }
    out
}

/// Where a percentile is the maximum because too few I/Os lie beyond it (the 99.999th
/// needs 100,000 I/Os to have one past it), said beside it.
pub fn tail_note(x: &PhasePoint) -> String {
    let ios = x.measured.iops * x.time_s;
    match ios.is_finite() && ios < 100_000.0 {
        true => format!(
            " ({:.0} I/Os: the 99.999 % is the maximum until 100,000)",
            ios
        ),
        false => String::new(),
    }
}

/// The summary of every test of a stored PTS run.
pub fn summary(doc: &PtsDocument) -> String {
    let mut out = String::new();
    let p = &doc.pts;
    let _ = writeln!(
        out,
        "{} on {}, active range {} bytes ({:.1} % of {} bytes){} ({})",
        p.profile,
        p.target,
        p.region_bytes,
        p.active_range_pct,
        p.capacity_bytes,
        if p.quick {
            ", --quick: scaled, not comparable"
        } else {
            ""
        },
        crate::DISCLAIMER
    );
    let d = &p.dut;
    let _ = writeln!(
        out,
        "device: {} · serial {} · firmware {} · {}; write cache {}; data {}\n",
        d.model.as_deref().unwrap_or("unknown model"),
        d.serial.as_deref().unwrap_or("unknown"),
        d.firmware.as_deref().unwrap_or("unknown"),
        d.interface,
        p.write_cache.as_ref().map_or("", |w| w.during.name()),
        p.data_pattern
    );
    if let Some(plan) = &p.plan {
        let _ = writeln!(out, "plan: {}\n", plan.words());
    }
    for t in &doc.tests {
        out.push_str(&test_summary(t));
    }
    out
}
