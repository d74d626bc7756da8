//! Charts for the jobs of any run that is not a review (`iolab run` of a job file or a command
//! line, an imported fio run), the ones fio-plot draws from fio's logs: across the run's jobs,
//! bars of IOPS, bandwidth and latency (each repeat's 95 % interval drawn where the run had
//! `--repeat`), and lines over queue depth, job count or block size where the jobs vary in
//! one; per job, its IOPS and bandwidth over time, its latency percentiles over time where it
//! kept latency windows, and its latency distribution (the nines curve and the histogram).
//! Several runs overlay, their jobs matched by name.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use iolab_report::export::markdown::latency_kind;
use iolab_results::{JobRecord, Timebase};

use crate::chart::{esc, size_label, BarSet, Bars, Chart, Format, ScaleKind, Series};
use crate::data::{RunData, CURVE_PERCENTILES};
use crate::page::{bars_block, chart_block, Section};
use crate::sections::{axis, dashed, name};

/// A run of jobs of its user's own (not a review, not an application load).
pub(crate) fn is_plain(r: &RunData) -> bool {
    r.detail.steps.is_empty() && r.detail.kind != "kv" && !r.jobs().is_empty()
}

/// Every job name of the plain runs, in the order first met.
fn job_names(plain: &[&RunData]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for j in plain.iter().flat_map(|r| r.jobs()) {
        if !out.contains(&j.name) {
            out.push(j.name.clone());
        }
    }
    out
}

fn job<'a>(r: &'a RunData, name: &str) -> Option<&'a JobRecord> {
    r.jobs().iter().find(|j| j.name == name)
}

/// A job's key parameters: `io_uring · randread · 4 KiB · QD 8 · 1 job · 2 × 2.0 s`.
pub fn params(j: &JobRecord) -> String {
    let bs = match j.block_size {
        b if b > 0 => size_label(b as f64),
        _ => "mixed sizes".into(),
    };
    let jobs = match j.clones {
        n if n > 1 => format!("{n} jobs"),
        _ => "1 job".into(),
    };
    let time = match j.repeats.len() {
        n if n > 1 => format!("{n} × {:.1} s", j.repeats[0].runtime_ns as f64 / 1e9),
        _ => format!("{:.1} s", j.runtime_ns as f64 / 1e9),
    };
    format!(
        "{} · {} · {bs} · QD {} · {jobs} · {time}",
        j.engine, j.rw, j.iodepth
    )
}

/// The charts of every plain run in `runs`; `None` when there is none.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let plain: Vec<&RunData> = runs.iter().filter(|r| is_plain(r)).collect();
    if plain.is_empty() {
        return None;
    }
    let names = job_names(&plain);
    let mut html = String::from(
        "<p>Every job's figures side by side, then each job over time and its latency \
         distribution. Bars carry each figure's 95 % interval where the run was repeated \
         (<code>--repeat N</code>); IOPS and bandwidth axes start at zero.</p>",
    );
    for r in &plain {
        html.push_str(&crate::sections::distortions(r));
    }
    html.push_str(&across(runs, &plain, &names));
    html.push_str(&by_parameter(runs, &plain));
    for (i, n) in names.iter().enumerate() {
        html.push_str(&per_job(runs, &plain, i, n));
    }
    Some(Section::new("job-charts", "Job charts", html))
}

/// A figure and its repeats' 95 % interval (low, high), where it has repeats.
type WithInterval = (f64, Option<(f64, f64)>);

/// A figure of a job's direction with its repeats' 95 % interval, where it has repeats.
fn figure(j: &JobRecord, dir: &str, stored: &str) -> WithInterval {
    let v = j.metric(dir, stored).unwrap_or(f64::NAN);
    let ci = j
        .interval(dir, stored)
        .map(|i| (i.ci95_low.max(0.0), i.ci95_high));
    (v, ci)
}

/// The bars of every job and direction: IOPS, bandwidth, and mean and p99 latency.
fn across(runs: &[RunData], plain: &[&RunData], names: &[String]) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    for n in names {
        for r in plain {
            for d in job(r, n).map(JobRecord::io_directions).unwrap_or_default() {
                let row = (n.clone(), d.to_string());
                if !rows.contains(&row) {
                    rows.push(row);
                }
            }
        }
    }
    let cats: Vec<String> = rows.iter().map(|(n, d)| format!("{n} {d}")).collect();
    let set = |r: &RunData, label: String, pick: &dyn Fn(&JobRecord, &str) -> WithInterval| {
        let (values, intervals) = rows
            .iter()
            .map(|(n, d)| job(r, n).map_or((f64::NAN, None), |j| pick(j, d)))
            .unzip();
        BarSet {
            name: label,
            values,
            colors: Vec::new(),
            intervals,
        }
    };
    // A set is named by its run when runs are overlaid, by its figure when one run is shown.
    let label = |r: &RunData, what: &str| match runs.len() {
        1 => what.to_string(),
        _ => r.label(),
    };
    let bars = |id: &str, title: &str, value: crate::chart::Axis, sets: Vec<BarSet>| Bars {
        id: id.into(),
        title: title.into(),
        category_title: "Job and direction".into(),
        categories: cats.clone(),
        value,
        sets,
        totals: false,
        grouped: true,
    };
    let iops: Vec<BarSet> = plain
        .iter()
        .map(|r| set(r, label(r, "IOPS"), &|j, d| figure(j, d, "iops")))
        .collect();
    let mbs = |(v, ci): WithInterval| (v / 1e6, ci.map(|(l, h)| (l / 1e6, h / 1e6)));
    let bw: Vec<BarSet> = plain
        .iter()
        .map(|r| set(r, label(r, "MB/s"), &|j, d| mbs(figure(j, d, "bw_bytes"))))
        .collect();
    let mut lat = Vec::new();
    for r in plain {
        for (fig, what) in [("mean", "mean"), ("p99", "p99")] {
            let named = match runs.len() {
                1 => format!("{what} latency"),
                _ => format!("{} {what}", r.label()),
            };
            lat.push(set(r, named, &|j, d| {
                figure(j, d, &format!("{}_{fig}_ns", latency_kind(j, d)))
            }));
        }
    }
    let mut html = String::new();
    html.push_str(&bars_block(&bars(
        "jobs-iops",
        "IOPS per job",
        axis("IOPS", ScaleKind::Linear, Format::Count),
        iops,
    )));
    html.push_str(&bars_block(&bars(
        "jobs-bandwidth",
        "Bandwidth per job",
        axis("Bandwidth (MB/s)", ScaleKind::Linear, Format::Plain),
        bw,
    )));
    html.push_str(&bars_block(&bars(
        "jobs-latency",
        "Latency per job: mean and p99 (total latency; clat for an imported fio run)",
        axis("Latency", ScaleKind::Linear, Format::Nanos),
        lat,
    )));
    html
}

/// One job parameter the jobs of a run can vary in.
struct Param {
    id: &'static str,
    title: &'static str,
    of: fn(&JobRecord) -> i64,
    format: Format,
}

const PARAMS: [Param; 3] = [
    Param {
        id: "iodepth",
        title: "Queue depth",
        of: |j| j.iodepth,
        format: Format::Plain,
    },
    Param {
        id: "numjobs",
        title: "Jobs (numjobs)",
        of: |j| j.clones,
        format: Format::Plain,
    },
    Param {
        id: "bs",
        title: "Block size",
        of: |j| j.block_size,
        format: Format::Bytes,
    },
];

/// IOPS and p99 latency over a parameter the jobs vary in (fio-plot's bars across queue
/// depth and numjobs): a line per group of jobs alike in everything else.
fn by_parameter(runs: &[RunData], plain: &[&RunData]) -> String {
    let mut html = String::new();
    for p in &PARAMS {
        let mut iops = Vec::new();
        let mut p99 = Vec::new();
        for r in plain {
            // Jobs alike but for `p`: engine, rw and the other two parameters.
            let mut groups: BTreeMap<String, Vec<&JobRecord>> = BTreeMap::new();
            for j in r.jobs() {
                let others: Vec<String> = PARAMS
                    .iter()
                    .filter(|q| q.id != p.id)
                    .map(|q| format!("{} {}", q.id, q.format.apply((q.of)(j) as f64)))
                    .collect();
                let key = format!("{} {} {}", j.engine, j.rw, others.join(" "));
                groups.entry(key).or_default().push(j);
            }
            for (key, jobs) in groups {
                let mut xs: Vec<i64> = jobs.iter().map(|j| (p.of)(j)).collect();
                xs.sort_unstable();
                xs.dedup();
                if xs.len() < 2 || xs[0] <= 0 {
                    continue;
                }
                let dirs: Vec<&str> = jobs.iter().flat_map(|j| j.io_directions()).collect();
                for d in ["read", "write", "trim"]
                    .iter()
                    .filter(|d| dirs.contains(d))
                {
                    let pts = |f: &dyn Fn(&JobRecord) -> Option<f64>| -> Vec<(f64, f64)> {
                        jobs.iter()
                            .filter_map(|j| Some(((p.of)(j) as f64, f(j)?)))
                            .collect()
                    };
                    let label = name(runs, r, &format!("{key} {d}"));
                    iops.push(Series {
                        name: label.clone(),
                        points: pts(&|j| j.metric(d, "iops")),
                        dashed: dashed(runs, r),
                    });
                    p99.push(Series {
                        name: label,
                        points: pts(&|j| j.metric(d, &format!("{}_p99_ns", latency_kind(j, d)))),
                        dashed: dashed(runs, r),
                    });
                }
            }
        }
        if iops.is_empty() {
            continue;
        }
        let x = || axis(p.title, ScaleKind::Log2, p.format);
        let mut c = Chart::lines(
            &format!("jobs-by-{}-iops", p.id),
            &format!("IOPS by {}", p.title.to_lowercase()),
            x(),
            axis("IOPS", ScaleKind::Linear, Format::Count),
            iops,
        );
        c.y_switch = true;
        html.push_str(&chart_block(&c));
        html.push_str(&chart_block(&Chart::lines(
            &format!("jobs-by-{}-p99", p.id),
            &format!("p99 latency by {}", p.title.to_lowercase()),
            x(),
            axis("Latency", ScaleKind::Log10, Format::Nanos),
            p99,
        )));
    }
    html
}

/// A job's charts: over time, and its latency distribution.
fn per_job(runs: &[RunData], plain: &[&RunData], i: usize, n: &str) -> String {
    let jobs: Vec<(&RunData, &JobRecord)> = plain
        .iter()
        .filter_map(|r| Some((*r, job(r, n)?)))
        .collect();
    let Some((_, first)) = jobs.first() else {
        return String::new();
    };
    let what = params(first);
    let mut html = format!("<h3 id=\"job-{i}\">{}</h3>", esc(n));
    for (r, j) in &jobs {
        let who = if runs.len() > 1 {
            format!("{}: ", r.label())
        } else {
            String::new()
        };
        let _ = write!(
            html,
            "<p class=\"note\">{}{} on {}</p>",
            esc(&who),
            esc(&params(j)),
            esc(&j.target)
        );
    }
    let time = || axis("Time (s)", ScaleKind::Linear, Format::Plain);
    let over_time = |key: &str, scale: f64| -> Vec<Series> {
        let mut out = Vec::new();
        for (r, j) in &jobs {
            for d in j.io_directions() {
                let pts: Vec<(f64, f64)> = r
                    .series(j.id, d, key)
                    .iter()
                    .map(|(t, v)| (*t as f64 / 1000.0, v / scale))
                    .collect();
                if !pts.is_empty() {
                    out.push(Series {
                        name: name(runs, r, d),
                        points: pts,
                        dashed: dashed(runs, r),
                    });
                }
            }
        }
        out
    };
    let iops = over_time("iops", 1.0);
    if !iops.is_empty() {
        html.push_str(&chart_block(&Chart::lines(
            &format!("job-{i}-iops"),
            &format!("{n}: IOPS over time ({what})"),
            time(),
            axis("IOPS", ScaleKind::Linear, Format::Count),
            iops,
        )));
    }
    let bw = over_time("bw_bytes", 1e6);
    if !bw.is_empty() {
        html.push_str(&chart_block(&Chart::lines(
            &format!("job-{i}-bandwidth"),
            &format!("{n}: bandwidth over time ({what})"),
            time(),
            axis("Bandwidth (MB/s)", ScaleKind::Linear, Format::Plain),
            bw,
        )));
    }
    let mut lat = Vec::new();
    for (key, p) in [
        ("lat_p50_ns", "p50"),
        ("lat_p99_ns", "p99"),
        ("lat_p99.99_ns", "p99.99"),
        ("lat_max_ns", "max"),
    ] {
        for mut s in over_time(key, 1.0) {
            s.name = format!("{} {p}", s.name);
            lat.push(s);
        }
    }
    if lat.is_empty() {
        html.push_str(
            "<p class=\"note\">Latency over time was not kept for this job: \
             <code>iolab run --latency-windows=1s</code> keeps its percentiles per second.</p>",
        );
    } else {
        html.push_str(&chart_block(&Chart::lines(
            &format!("job-{i}-latency-time"),
            &format!("{n}: latency percentiles over time ({what})"),
            time(),
            axis("Latency", ScaleKind::Log10, Format::Nanos),
            lat,
        )));
    }
    let (nines, hist) = distribution(runs, &jobs);
    if !nines.is_empty() {
        html.push_str(&chart_block(&Chart::lines(
            &format!("job-{i}-nines"),
            &format!("{n}: latency distribution ({what})"),
            axis("Percentile", ScaleKind::Nines, Format::Percentile),
            axis("Latency", ScaleKind::Log10, Format::Nanos),
            nines,
        )));
        html.push_str(&chart_block(&Chart::lines(
            &format!("job-{i}-histogram"),
            &format!("{n}: latency histogram ({what})"),
            axis("Latency", ScaleKind::Log10, Format::Nanos),
            axis(
                "Share of I/Os (per 1/10 decade)",
                ScaleKind::Linear,
                Format::Share,
            ),
            hist,
        )));
    }
    html
}

/// Buckets per decade of the histogram chart.
const PER_DECADE: f64 = 10.0;

/// Each job's latency curve on the nines axis and its histogram, per direction, from the
/// stored histograms (total latency, clat where total was not kept).
fn distribution(runs: &[RunData], jobs: &[(&RunData, &JobRecord)]) -> (Vec<Series>, Vec<Series>) {
    let (mut nines, mut hist) = (Vec::new(), Vec::new());
    for (r, j) in jobs {
        for d in j.io_directions() {
            let Some((kind, h)) = ["lat", "clat"]
                .into_iter()
                .find_map(|k| Some((k, j.histogram(d, k)?)))
            else {
                continue;
            };
            let label = name(runs, r, &format!("{d} {kind}"));
            nines.push(Series {
                name: label.clone(),
                points: h.percentiles_ns(&CURVE_PERCENTILES),
                dashed: dashed(runs, r),
            });
            hist.push(Series {
                name: label,
                points: log_buckets(
                    &h.histogram
                        .bins_ns(&Timebase::with_ticks_per_ns(h.ticks_per_ns)),
                ),
                dashed: dashed(runs, r),
            });
        }
    }
    (nines, hist)
}

/// A histogram's (ns, count) bins gathered into buckets a tenth of a decade wide: (the
/// bucket's geometric middle, its share of the I/Os).
fn log_buckets(bins: &[(u64, u64)]) -> Vec<(f64, f64)> {
    let total: u64 = bins.iter().map(|b| b.1).sum();
    let mut by: BTreeMap<i64, u64> = BTreeMap::new();
    for &(ns, n) in bins.iter().filter(|b| b.0 > 0) {
        *by.entry(((ns as f64).log10() * PER_DECADE).floor() as i64)
            .or_default() += n;
    }
    by.into_iter()
        .map(|(k, n)| {
            let mid = 10f64.powf((k as f64 + 0.5) / PER_DECADE);
            (mid, n as f64 / total.max(1) as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_a_tenth_of_a_decade_wide_and_give_shares_of_every_io() {
        let b = log_buckets(&[(10_000, 3), (10_100, 1), (20_000, 4), (0, 2)]);
        assert_eq!(b.len(), 2, "{b:?}");
        assert!((b[0].0 - 10f64.powf(4.05)).abs() < 1e-6);
        assert!((b[0].1 - 0.4).abs() < 1e-12 && (b[1].1 - 0.4).abs() < 1e-12);
    }
}
