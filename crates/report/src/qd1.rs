//! The SPDK blog's QD1 tables: one table per metric (IOPS, mean, p99, p99.999 latency, and
//! the CPU each path burns), workloads as rows, engines as columns, the best value in bold
//! where it earned it ([`crate::best`]): never on CPU %, a tie said as a tie.
//! Engines the target cannot serve stay in the table as "n/a" with the reason underneath.

use std::fmt::Write as _;

use iolab_results::repeats::{values_of, Interval};
use iolab_results::JobReport;
use iolab_results::TickRate;
use iolab_results::{Direction, Marks, Note, RowMark};

use crate::best::{mark, Better, Candidate, Marked, Unjudged, MIN_BEYOND};
use crate::format::{compact, micros3};

/// The figures one engine produced for one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Qd1Numbers {
    pub iops: f64,
    pub mean_ns: f64,
    pub p99_ns: f64,
    pub p99999_ns: f64,
    /// CPU as a share of one core (own threads plus kernel helpers).
    pub cpu_pct: f64,
    pub iops_per_cpu_sec: f64,
    /// I/Os measured (all rounds): how many lie beyond a tail percentile.
    pub ios: f64,
    /// For a cell measured in rounds: each figure's 95 % interval over the rounds (low,
    /// high; from the log scale, see `Interval`), in the same fields (NaN where the rounds
    /// keep none: CPU).
    pub ci95: Option<Box<(Qd1Numbers, Qd1Numbers)>>,
}

impl Qd1Numbers {
    /// Takes the figures of the job's first direction (QD1 jobs are read-only or write-only).
    pub fn from_report(job: &JobReport, clock: &impl TickRate) -> Option<Qd1Numbers> {
        let d = Direction::ALL.into_iter().find(|d| job.dir(*d).is_some())?;
        let r = job.dir(d)?;
        let s = r.lat.summarize(clock, &[99.0, 99.999]);
        Some(Qd1Numbers {
            iops: job.iops(d),
            mean_ns: s.mean_ns,
            p99_ns: s.percentile(99.0).unwrap_or(0.0),
            p99999_ns: s.percentile(99.999).unwrap_or(0.0),
            cpu_pct: job.cpu.total_ns() as f64 * 100.0 / job.runtime_ns.max(1) as f64,
            iops_per_cpu_sec: job.iops_per_cpu_sec(),
            ios: r.ios as f64,
            ci95: Self::intervals(job, d),
        })
    }

    /// The rounds' 95 % intervals, for a job measured more than once.
    fn intervals(job: &JobReport, d: Direction) -> Option<Box<(Qd1Numbers, Qd1Numbers)>> {
        if job.repeats.len() < 2 {
            return None;
        }
        let ends = |name: &str| {
            Interval::of(&values_of(&job.repeats, d.name(), name))
                .map_or((f64::NAN, f64::NAN), |i| (i.ci95_low, i.ci95_high))
        };
        let [iops, mean, p99, p99999] =
            ["iops", "lat_mean_ns", "lat_p99_ns", "lat_p99.999_ns"].map(ends);
        let side = |end: fn((f64, f64)) -> f64| Qd1Numbers {
            iops: end(iops),
            mean_ns: end(mean),
            p99_ns: end(p99),
            p99999_ns: end(p99999),
            cpu_pct: f64::NAN,
            iops_per_cpu_sec: f64::NAN,
            ios: f64::NAN,
            ci95: None,
        };
        Some(Box::new((side(|e| e.0), side(|e| e.1))))
    }

    /// A figure's 95 % interval over the rounds, where it has one.
    fn interval(&self, value: fn(&Qd1Numbers) -> f64) -> Option<(f64, f64)> {
        let (lo, hi) = self.ci95.as_deref()?;
        let (lo, hi) = (value(lo), value(hi));
        (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
    }

    /// Whether percentile `q` is beyond what the cell's I/Os resolve: with fewer than
    /// 1 / (1 − q) I/Os (100,000 for p99.999) the percentile is the slowest I/O.
    pub fn is_max(&self, q: f64) -> bool {
        self.ios > 0.0 && self.ios < 100.0 / (100.0 - q)
    }
}

/// One cell: an engine on a workload, measured or not available (with the reason).
#[derive(Debug, Clone)]
pub struct Qd1Cell {
    pub engine: String,
    pub workload: String,
    pub result: Result<Qd1Numbers, String>,
}

/// The whole set of tables.
#[derive(Debug, Clone, Default)]
pub struct Qd1Table {
    pub engines: Vec<String>,
    pub workloads: Vec<String>,
    pub cells: Vec<Qd1Cell>,
    /// Columns that do no I/O (the null engine): shown, but never marked best.
    pub reference_only: Vec<String>,
    /// Columns whose I/O did not take the path asked for (hipri served by interrupts):
    /// shown, never marked best.
    pub not_as_asked: Vec<String>,
    /// What the run noticed of its cells (what the target held, paths not served as asked,
    /// io-wq, mmap): kept with the step's result, printed under the tables.
    pub notes: Vec<Note>,
    /// Rounds each measured cell was taken in (the legend says what its marks stand on).
    pub rounds: u32,
}

struct Metric {
    title: &'static str,
    value: fn(&Qd1Numbers) -> f64,
    show: fn(f64) -> String,
    better: Better,
    /// The percentile, for a tail latency (judged only with enough I/Os beyond it).
    tail: Option<f64>,
}

const METRICS: [Metric; 6] = [
    Metric {
        title: "IOPS",
        value: |n| n.iops,
        show: compact,
        better: Better::Higher,
        tail: None,
    },
    Metric {
        title: "Mean Latency",
        value: |n| n.mean_ns,
        show: micros3,
        better: Better::Lower,
        tail: None,
    },
    Metric {
        title: "99th Percentile Latency",
        value: |n| n.p99_ns,
        show: micros3,
        better: Better::Lower,
        tail: Some(99.0),
    },
    Metric {
        title: "99.999th Percentile Latency",
        value: |n| n.p99999_ns,
        show: micros3,
        better: Better::Lower,
        tail: Some(99.999),
    },
    Metric {
        title: "CPU (% of one core)",
        value: |n| n.cpu_pct,
        show: |v| format!("{v:.0}%"),
        // Low for an efficient path and for one that did little: IOPS per CPU-second below
        // carries the mark.
        better: Better::Neither,
        tail: None,
    },
    Metric {
        title: "IOPS per CPU-second",
        value: |n| n.iops_per_cpu_sec,
        show: compact,
        better: Better::Higher,
        tail: None,
    },
];

/// The widest a pasted table may be: a review page's text column in a monospaced font;
/// the main job's nine paths fit.
pub const PASTE_WIDTH: usize = 160;

/// An interval as "11.9k–12.4k" or "7.95–8.12 µs": a latency's low end in its high end's
/// unit ("0.33–3.98 ms", not "331 µs–3.98 ms"), the unit said once.
fn range(show: fn(f64) -> String, lo: f64, hi: f64) -> String {
    let b = show(hi);
    let scale = match b.rsplit_once(' ').map(|(_, u)| u) {
        Some("ms") => 1e6,
        Some("µs") => 1e3,
        Some("ns") => 1.0,
        _ => return format!("{}–{b}", show(lo)),
    };
    let x = lo / scale;
    let low = match x {
        x if x >= 99.95 => format!("{x:.0}"),
        x if x >= 9.995 => format!("{x:.1}"),
        x => format!("{x:.2}"),
    };
    format!("{low}–{b}")
}

/// One Markdown table: `title` over the rows' names, a right-aligned column per name in
/// `columns`, each as wide as its widest cell.
fn grid<R: AsRef<str>, C: AsRef<str>>(
    title: &str,
    row_names: &[R],
    columns: &[C],
    rows: &[Vec<String>],
) -> String {
    let first = row_names
        .iter()
        .map(|w| w.as_ref().chars().count())
        .chain([title.chars().count()])
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|t| t.chars().count())
                .chain([c.as_ref().chars().count(), 3])
                .max()
                .unwrap_or(3)
        })
        .collect();
    let mut out = String::new();
    let _ = write!(out, "| {title:<first$} |");
    for (c, w) in columns.iter().zip(&widths) {
        let _ = write!(out, " {:>w$} |", c.as_ref());
    }
    out.push('\n');
    let _ = write!(out, "|{}|", "-".repeat(first + 2));
    for w in &widths {
        let _ = write!(out, "{}:|", "-".repeat(w + 1));
    }
    out.push('\n');
    for (name, row) in row_names.iter().zip(rows) {
        let _ = write!(out, "| {:<first$} |", name.as_ref());
        for (text, w) in row.iter().zip(&widths) {
            let _ = write!(out, " {text:>w$} |");
        }
        out.push('\n');
    }
    out
}

/// A metric's name as a narrow table's column heading.
fn short_title(title: &str) -> &str {
    match title {
        "Mean Latency" => "mean latency",
        "99th Percentile Latency" => "p99 latency",
        "99.999th Percentile Latency" => "p99.999 latency",
        "CPU (% of one core)" => "CPU % of a core",
        "IOPS per CPU-second" => "IOPS per CPU-s",
        t => t,
    }
}

impl Qd1Table {
    pub fn add(&mut self, cell: Qd1Cell) {
        if !self.engines.contains(&cell.engine) {
            self.engines.push(cell.engine.clone());
        }
        if !self.workloads.contains(&cell.workload) {
            self.workloads.push(cell.workload.clone());
        }
        self.cells.push(cell);
    }

    fn cell(&self, engine: &str, workload: &str) -> Option<&Qd1Cell> {
        self.cells
            .iter()
            .find(|c| c.engine == engine && c.workload == workload)
    }

    /// Whether a column may be marked best: it did I/O, on the path asked for.
    fn may_be_best(&self, engine: &str) -> bool {
        let e = engine.to_string();
        !self.reference_only.contains(&e) && !self.not_as_asked.contains(&e)
    }

    /// The mark one metric's row earns among the columns that may be marked.
    fn mark_row(&self, m: &Metric, wl: &str) -> Marked {
        let cells: Vec<Option<Candidate>> = self
            .engines
            .iter()
            .map(|e| {
                let n = self.cell(e, wl)?.result.as_ref().ok()?;
                let c = Candidate::new((m.value)(n), n.interval(m.value));
                self.may_be_best(e).then(|| match m.tail {
                    Some(q) => c.tail(q, n.ios),
                    None => c,
                })
            })
            .collect();
        mark(&cells, m.better)
    }

    /// Every row's mark with what it rests on, as the step keeps it (and `history` and the
    /// page read it): the same marks the tables print.
    pub fn marks(&self) -> Marks {
        let mut out = Vec::new();
        for m in &METRICS {
            for wl in &self.workloads {
                let marked = self.mark_row(m, wl);
                let name = |i: &usize| self.engines[*i].clone();
                let (best, ties, unjudged) = match &marked {
                    Marked::Best(i) => (Some(name(i)), Vec::new(), None),
                    Marked::Tie(v) => (None, v.iter().map(name).collect(), None),
                    Marked::Nothing if m.better == Better::Neither => (
                        None,
                        Vec::new(),
                        Some("never marked: no direction is better".into()),
                    ),
                    Marked::Nothing => (
                        None,
                        Vec::new(),
                        Some("fewer than two paths to compare".into()),
                    ),
                    Marked::Unjudged(Unjudged::NoInterval) => (
                        None,
                        Vec::new(),
                        Some("a cell measured once has no interval".into()),
                    ),
                    Marked::Unjudged(Unjudged::ThinTail { fewest }) => (
                        None,
                        Vec::new(),
                        Some(format!(
                            "{fewest:.0} I/Os beyond the percentile, fewer than {MIN_BEYOND:.0}"
                        )),
                    ),
                };
                out.push(RowMark {
                    workload: wl.clone(),
                    metric: m.title.to_string(),
                    best,
                    ties,
                    unjudged,
                });
            }
        }
        Marks(out)
    }

    /// One metric's rows: each workload's cell texts, marks applied; ties said in `ties`.
    fn metric_rows(
        &self,
        m: &Metric,
        ties: &mut Vec<String>,
        marks: &mut Vec<(&'static str, Marked)>,
    ) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        for wl in &self.workloads {
            let marked = self.mark_row(m, wl);
            marks.push((m.title, marked.clone()));
            if let Marked::Tie(v) = &marked {
                let who: Vec<&str> = v.iter().map(|&i| self.engines[i].as_str()).collect();
                ties.push(format!(
                    "- {} of {wl}: {} tie (within each other's 95% intervals), none marked.",
                    m.title,
                    who.join(" and ")
                ));
            }
            let mut row = Vec::new();
            for (i, e) in self.engines.iter().enumerate() {
                row.push(match self.cell(e, wl).map(|c| &c.result) {
                    // A figure the run did not keep (fio's JSON has no p99.999).
                    Some(Ok(n)) if (m.value)(n) == 0.0 && m.better != Better::Higher => {
                        "-".to_string()
                    }
                    Some(Ok(n)) => {
                        let mut s = (m.show)((m.value)(n));
                        if m.tail.is_some_and(|q| n.is_max(q)) {
                            s = format!("max {s}");
                        }
                        match () {
                            _ if marked.is_best(i) => format!("**{s}**"),
                            _ if marked.ties(i) => format!("*{s}*"),
                            _ => s,
                        }
                    }
                    Some(Err(_)) => "n/a".to_string(),
                    None => "-".to_string(),
                });
            }
            rows.push(row);
        }
        rows
    }

    /// The tables as Markdown, then the reasons for n/a cells and the notes; in the
    /// narrower layout when the terminal is narrower than the wide one (see [`crate::width`]).
    pub fn render(&self) -> String {
        self.render_within(crate::width::terminal())
    }

    /// [`Qd1Table::render`] fitting `width` columns where it can: the wide layout (a table
    /// per metric, paths as columns, as the SPDK blog's) when it fits, else a table per
    /// workload with paths as rows and three metrics a table.
    pub fn render_within(&self, width: Option<usize>) -> String {
        let mut ties: Vec<String> = Vec::new();
        let mut marks = Vec::new();
        let tables: Vec<Vec<Vec<String>>> = METRICS
            .iter()
            .map(|m| self.metric_rows(m, &mut ties, &mut marks))
            .collect();
        let wide = self.wide(&tables);
        let narrow = match width {
            Some(w) => crate::width::widest(&wide) > w,
            None => false,
        };
        let mut out = match narrow {
            true => self.narrow(&tables),
            false => wide,
        };
        out.push_str(&self.notes_text(ties, &marks, narrow));
        out
    }

    /// A table per metric: workloads as rows, paths as columns, each column as wide as its
    /// widest cell, so nine paths paste into a review page ([`PASTE_WIDTH`]); a table that
    /// would pass it with the SPDK blog's long metric title takes the short one.
    fn wide(&self, tables: &[Vec<Vec<String>>]) -> String {
        let mut out = String::new();
        for (m, rows) in METRICS.iter().zip(tables) {
            let long = grid(m.title, &self.workloads, &self.engines, rows);
            match crate::width::widest(&long) > PASTE_WIDTH {
                true => {
                    let short = short_title(m.title);
                    out.push_str(&grid(short, &self.workloads, &self.engines, rows));
                }
                false => out.push_str(&long),
            }
            out.push('\n');
        }
        out
    }

    /// The rounds' 95 % intervals, a table per workload (metrics as rows, paths as
    /// columns), under the figures: the figures' tables paste into a review as the seeds'
    /// do, and the evidence for their marks stays beside them.
    fn intervals_table(&self, narrow: bool) -> String {
        let mut out = format!(
            "95 % intervals of the {} rounds' figures (Student's t on the log scale, never \
             below zero; each figure above pools every round's I/Os):\n\n",
            self.rounds.max(2)
        );
        // The metrics the rounds keep an interval of (not CPU).
        let kept: Vec<&Metric> = METRICS
            .iter()
            .filter(|m| {
                self.cells.iter().any(|c| {
                    c.result
                        .as_ref()
                        .is_ok_and(|n| n.interval(m.value).is_some())
                })
            })
            .collect();
        let titles: Vec<&str> = kept
            .iter()
            .map(|m| short_title(m.title).trim_end_matches(" latency"))
            .collect();
        for wl in &self.workloads {
            let rows: Vec<Vec<String>> = kept
                .iter()
                .map(|m| {
                    self.engines
                        .iter()
                        .map(|e| match self.cell(e, wl).map(|c| &c.result) {
                            Some(Ok(n)) => n
                                .interval(m.value)
                                .map_or("-".into(), |(lo, hi)| range(m.show, lo, hi)),
                            Some(Err(_)) => "n/a".into(),
                            None => "-".into(),
                        })
                        .collect()
                })
                .collect();
            // The workload above its table, not in its first column: nine paths fit.
            let _ = writeln!(out, "{wl}:\n");
            match narrow {
                false => out.push_str(&grid("95 %", &titles, &self.engines, &rows)),
                // Paths as rows, as the narrow figures' tables.
                true => {
                    let cols: Vec<Vec<String>> = (0..self.engines.len())
                        .map(|i| rows.iter().map(|r| r[i].clone()).collect())
                        .collect();
                    out.push_str(&grid("95 %", &self.engines, &titles, &cols));
                }
            }
            out.push('\n');
        }
        out
    }

    /// Whether a cell's tail percentile is its maximum (too few I/Os to resolve it).
    fn any_max(&self) -> bool {
        METRICS.iter().filter_map(|m| m.tail).any(|q| {
            self.cells
                .iter()
                .any(|c| c.result.as_ref().is_ok_and(|n| n.is_max(q)))
        })
    }

    /// For a narrow terminal: per workload, paths as rows, three metrics a table (a cell
    /// with its interval is about 20 columns, so a table stays under 100).
    fn narrow(&self, tables: &[Vec<Vec<String>>]) -> String {
        let mut out = String::new();
        let first = self
            .engines
            .iter()
            .map(|e| e.chars().count())
            .max()
            .unwrap_or(0);
        for (k, wl) in self.workloads.iter().enumerate() {
            for metrics in [0..3, 3..METRICS.len()] {
                let heads: Vec<&str> = METRICS[metrics.clone()]
                    .iter()
                    .map(|m| short_title(m.title))
                    .collect();
                let cols: Vec<Vec<&String>> = metrics
                    .clone()
                    .map(|m| tables[m][k].iter().collect())
                    .collect();
                let widths: Vec<usize> = heads
                    .iter()
                    .zip(&cols)
                    .map(|(h, c)| {
                        c.iter()
                            .map(|t| t.chars().count())
                            .chain([h.chars().count()])
                            .max()
                            .unwrap_or(0)
                    })
                    .collect();
                let first = first.max(wl.chars().count());
                let _ = write!(out, "| {wl:<first$} |");
                for (h, w) in heads.iter().zip(&widths) {
                    let _ = write!(out, " {h:>w$} |");
                }
                out.push('\n');
                let _ = write!(out, "|{}|", "-".repeat(first + 2));
                for w in &widths {
                    let _ = write!(out, "{}:|", "-".repeat(w + 1));
                }
                out.push('\n');
                for (i, e) in self.engines.iter().enumerate() {
                    let _ = write!(out, "| {e:<first$} |");
                    for (c, w) in cols.iter().zip(&widths) {
                        let _ = write!(out, " {:>w$} |", c[i]);
                    }
                    out.push('\n');
                }
                out.push('\n');
            }
        }
        out
    }

    /// The rounds' legend, the n/a reasons, the columns never marked, ties and notes.
    fn notes_text(&self, ties: Vec<String>, marks: &[(&str, Marked)], narrow: bool) -> String {
        let mut out = String::new();
        let rounds = self
            .cells
            .iter()
            .any(|c| c.result.as_ref().is_ok_and(|n| n.ci95.is_some()));
        if rounds {
            out.push_str(&self.intervals_table(narrow));
        }
        if self.any_max() {
            out.push_str(
                "(max): the cell's I/Os are too few to resolve the percentile (fewer than 1 / \
                 (1 − p): 100,000 for p99.999), so it is the slowest I/O, as fio's figure is.\n\n",
            );
        }
        let rows: Vec<(&str, &Marked)> = marks.iter().map(|(t, m)| (*t, m)).collect();
        for line in crate::best::legend(&rows, self.rounds.max(1) as usize) {
            let _ = writeln!(out, "- {line}");
        }
        // Each refusal once, with every cell it refused (engine and workload).
        let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
        for c in &self.cells {
            if let Err(why) = &c.result {
                let cell = format!("{} {}", c.engine, c.workload);
                match reasons.iter_mut().find(|(w, _)| *w == why.as_str()) {
                    Some((_, cells)) => cells.push(cell),
                    None => reasons.push((why.as_str(), vec![cell])),
                }
            }
        }
        for (why, cells) in reasons {
            let _ = writeln!(out, "- n/a ({}): {why}", cells.join(", "));
        }
        for e in self
            .not_as_asked
            .iter()
            .filter(|e| self.engines.contains(e))
        {
            let _ = writeln!(
                out,
                "- {e} is never marked best: its I/O did not take the path asked for (see its note)."
            );
        }
        for e in self
            .reference_only
            .iter()
            .filter(|e| self.engines.contains(e))
        {
            let _ = writeln!(
                out,
                "- {e} does no I/O: its column is iolab's own cost per I/O, never marked best."
            );
        }
        for t in ties {
            let _ = writeln!(out, "{t}");
        }
        out.push_str("- CPU % is never marked: a path that did little work uses little CPU; IOPS per CPU-second is the efficiency.\n");
        for n in &self.notes {
            let _ = writeln!(out, "- note: {}", n.text);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(iops: f64, mean: f64) -> Qd1Numbers {
        Qd1Numbers {
            iops,
            mean_ns: mean,
            p99_ns: mean * 2.0,
            p99999_ns: mean * 10.0,
            cpu_pct: 100.0,
            iops_per_cpu_sec: iops,
            ios: 3_000_000.0,
            ci95: None,
        }
    }

    /// `nums` measured in rounds whose intervals are `share` of each figure (none of CPU,
    /// as the rounds keep none: `Qd1Numbers::intervals`).
    fn rounds(iops: f64, mean: f64, share: f64) -> Qd1Numbers {
        let mut n = nums(iops, mean);
        let side = |k: f64| Qd1Numbers {
            cpu_pct: f64::NAN,
            iops_per_cpu_sec: f64::NAN,
            ..nums(iops * k, mean * k)
        };
        n.ci95 = Some(Box::new((side(1.0 - share), side(1.0 + share))));
        n
    }

    /// The main job's nine paths with their rounds' intervals: each table pastes within
    /// 160 columns (the intervals in tables of their own), and a 100-column terminal gets
    /// the narrow layout, marks kept.
    #[test]
    fn nine_paths_paste_within_160_columns_and_a_narrow_terminal_gets_tables_that_fit_it() {
        let engines = [
            "psync",
            "pvsync2",
            "pvsync2+hipri",
            "mmap",
            "libaio",
            "io_uring",
            "io_uring+iopoll",
            "io_uring+sqpoll",
            "null",
        ];
        let mut t = Qd1Table::default();
        for (k, e) in engines.iter().enumerate() {
            for wl in ["4KiB Random Read", "4KiB Random Write"] {
                // A second of I/Os at 3 ms: the p99.999 is the slowest (max); the
                // percentile's widest figure, 812.34 µs, in the tables.
                let mut n = rounds(
                    20_000.0 + 2000.0 * k as f64,
                    81_234.0 - 3000.0 * k as f64,
                    0.02,
                );
                n.ios = 60_000.0;
                t.add(Qd1Cell {
                    engine: e.to_string(),
                    workload: wl.into(),
                    result: Ok(n),
                });
            }
        }
        t.rounds = 3;
        let wide = t.render_within(None);
        let tables: String = wide
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(crate::width::widest(&tables) <= PASTE_WIDTH, "{wide}");
        assert!(crate::width::widest(&tables) > 100, "{wide}");
        assert!(wide.contains("max 812 µs"), "{wide}");
        assert!(
            wide.contains("(max): the cell's I/Os are too few"),
            "{wide}"
        );
        assert!(wide.contains("95 % intervals of the 3 rounds"), "{wide}");
        assert!(wide.contains("19.6k–20.4k"), "{wide}");
        assert_eq!(range(micros3, 331_000.0, 3_980_000.0), "0.33–3.98 ms");
        assert_eq!(range(micros3, 833.0, 2_180.0), "0.83–2.18 µs");
        assert_eq!(range(compact, 670.0, 30_100.0), "670–30.1k");
        let narrow = t.render_within(Some(100));
        for l in narrow.lines().filter(|l| l.starts_with('|')) {
            assert!(
                l.chars().count() <= 100,
                "{} columns: {l}",
                l.chars().count()
            );
        }
        for e in engines {
            assert!(narrow.contains(&format!("| {e} ")), "no {e} row:\n{narrow}");
        }
        assert!(narrow.contains("| 4KiB Random Read "), "{narrow}");
        assert!(narrow.contains("p99.999 latency") && narrow.contains("IOPS per CPU-s"));
        // The same marks either way (null does no I/O: never marked).
        assert_eq!(wide.matches("**").count(), narrow.matches("**").count());
        assert!(narrow.matches("**").count() > 0, "{narrow}");
        // Wide enough: the wide layout, as before.
        assert_eq!(t.render_within(Some(1000)), wide);
    }

    #[test]
    fn best_is_marked_per_metric_and_na_is_explained() {
        let mut t = Qd1Table::default();
        let wl = "4KiB Random Read".to_string();
        t.add(Qd1Cell {
            engine: "psync".into(),
            workload: wl.clone(),
            result: Ok(rounds(100_000.0, 9_000.0, 0.01)),
        });
        t.add(Qd1Cell {
            engine: "libaio".into(),
            workload: wl.clone(),
            result: Ok(rounds(120_000.0, 8_000.0, 0.01)),
        });
        t.add(Qd1Cell {
            engine: "io_uring+iopoll".into(),
            workload: wl.clone(),
            result: Err("no poll queues".into()),
        });
        t.add(Qd1Cell {
            engine: "null".into(),
            workload: wl.clone(),
            result: Ok(nums(9e6, 50.0)),
        });
        t.reference_only.push("null".into());
        t.rounds = 3;
        let s = t.render();
        assert!(s.contains("**120k**") && s.contains("119k–121k"), "{s}");
        assert!(
            s.contains("**8.00 µs**") && s.contains("7.92–8.08 µs"),
            "{s}"
        );
        assert!(s.contains("best beyond the 95 % intervals of the cells' 3 rounds"));
        assert!(
            !s.contains("**9.00M**") && s.contains("9.00M"),
            "null is never best: {s}"
        );
        assert!(
            s.contains("n/a")
                && s.contains("- n/a (io_uring+iopoll 4KiB Random Read): no poll queues"),
            "{s}"
        );
        assert_eq!(s.matches("| 4KiB Random Read").count(), METRICS.len());
    }

    /// A run of one round each, as the reruns were: no mark, and the legend says
    /// why; a tail with too few I/Os beyond it is left unmarked even with rounds.
    #[test]
    fn one_round_marks_nothing_and_a_thin_tail_is_not_judged() {
        let mut t = Qd1Table::default();
        let wl = "4KiB Random Read";
        for (e, iops) in [("psync", 374_000.0), ("pvsync2", 372_000.0)] {
            t.add(Qd1Cell {
                engine: e.into(),
                workload: wl.into(),
                result: Ok(nums(iops, 2_600.0)),
            });
        }
        let s = t.render();
        assert!(!s.contains("**"), "{s}");
        assert!(
            s.contains("Nothing marked: each cell was measured once"),
            "{s}"
        );
        let mut t = Qd1Table::default();
        for (e, iops) in [("psync", 374_000.0), ("libaio", 100_000.0)] {
            let mut n = rounds(iops, 1e9 / iops, 0.01);
            n.ios = iops;
            t.add(Qd1Cell {
                engine: e.into(),
                workload: wl.into(),
                result: Ok(n),
            });
        }
        t.rounds = 3;
        let s = t.render();
        let tail = s
            .lines()
            .skip_while(|l| !l.starts_with("| 99.999th"))
            .nth(2);
        assert!(!tail.unwrap().contains("**"), "{s}");
        assert!(s.contains("**374k**"), "{s}");
        assert!(
            s.contains("99.999th Percentile Latency not marked: a cell had only 1 I/Os beyond it (a mark needs 30)"),
            "{s}"
        );
    }

    #[test]
    fn cpu_is_never_marked_and_cells_within_noise_tie() {
        let mut t = Qd1Table::default();
        let wl = "4KiB Random Read".to_string();
        let mut a = nums(40_600.0, 20_000.0);
        a.cpu_pct = 57.0;
        let mut b = nums(41_000.0, 24_000.0);
        b.cpu_pct = 100.0;
        // b's IOPS 41.0k ± 2k against a's 40.6k ± 1k: within noise. Its mean latency
        // 24 µs ± 1 µs against 20 µs ± 1 µs: beyond it.
        let span = |n: &Qd1Numbers, iops: f64, mean: f64| {
            // Intervals of IOPS and the mean only (the other figures keep none here).
            let side = |k: f64| Qd1Numbers {
                iops: n.iops + k * iops,
                mean_ns: n.mean_ns + k * mean,
                p99_ns: f64::NAN,
                p99999_ns: f64::NAN,
                cpu_pct: f64::NAN,
                iops_per_cpu_sec: f64::NAN,
                ..nums(0.0, 0.0)
            };
            Some(Box::new((side(-1.0), side(1.0))))
        };
        a.ci95 = span(&a, 1_000.0, 1_000.0);
        b.ci95 = span(&b, 2_000.0, 1_000.0);
        for (e, n) in [("io_uring", a), ("psync", b)] {
            t.add(Qd1Cell {
                engine: e.into(),
                workload: wl.clone(),
                result: Ok(n),
            });
        }
        let s = t.render();
        let cpu_row = s
            .lines()
            .skip_while(|l| !l.starts_with("| CPU"))
            .nth(2)
            .unwrap();
        assert!(!cpu_row.contains("**"), "{cpu_row}");
        assert!(
            s.contains("*40.6k*") && s.contains("*41.0k*") && s.contains("39.6k–41.6k"),
            "{s}"
        );
        assert!(
            s.contains("- IOPS of 4KiB Random Read: io_uring and psync tie"),
            "{s}"
        );
        assert!(
            s.contains("**20.0 µs**") && s.contains("19.0–21.0 µs"),
            "{s}"
        );
    }
}
