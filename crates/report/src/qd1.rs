//! The SPDK blog's QD1 tables: one table per metric (IOPS, mean, p99, p99.999 latency, and
//! the CPU each path burns), workloads as rows, engines as columns, the best value in bold.
//! Engines the target cannot serve stay in the table as "n/a" with the reason underneath.

use std::fmt::Write as _;

use iolab_results::repeats::{values_of, Interval};
use iolab_results::Direction;
use iolab_results::JobReport;
use iolab_results::TickRate;

use crate::format::{compact, micros};

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
    /// For a cell measured in rounds (`--repeat`): each figure's 95 % interval half-width
    /// over the rounds, in the same fields (0 where the rounds keep none: CPU).
    pub ci95_half: Option<Box<Qd1Numbers>>,
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
            ci95_half: Self::half_widths(job, d),
        })
    }

    /// The rounds' 95 % interval half-widths, for a job measured more than once.
    fn half_widths(job: &JobReport, d: Direction) -> Option<Box<Qd1Numbers>> {
        if job.repeats.len() < 2 {
            return None;
        }
        let half = |name: &str| {
            Interval::of(&values_of(&job.repeats, d.name(), name))
                .map_or(0.0, |i| i.ci95_high - i.mean)
        };
        Some(Box::new(Qd1Numbers {
            iops: half("iops"),
            mean_ns: half("lat_mean_ns"),
            p99_ns: half("lat_p99_ns"),
            p99999_ns: half("lat_p99.999_ns"),
            cpu_pct: 0.0,
            iops_per_cpu_sec: 0.0,
            ci95_half: None,
        }))
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
    pub notes: Vec<String>,
}

struct Metric {
    title: &'static str,
    value: fn(&Qd1Numbers) -> f64,
    show: fn(f64) -> String,
    higher_is_better: bool,
}

const METRICS: [Metric; 6] = [
    Metric {
        title: "IOPS",
        value: |n| n.iops,
        show: compact,
        higher_is_better: true,
    },
    Metric {
        title: "Mean Latency",
        value: |n| n.mean_ns,
        show: micros,
        higher_is_better: false,
    },
    Metric {
        title: "99th Percentile Latency",
        value: |n| n.p99_ns,
        show: micros,
        higher_is_better: false,
    },
    Metric {
        title: "99.999th Percentile Latency",
        value: |n| n.p99999_ns,
        show: micros,
        higher_is_better: false,
    },
    Metric {
        title: "CPU (% of one core)",
        value: |n| n.cpu_pct,
        show: |v| format!("{v:.0}%"),
        higher_is_better: false,
    },
    Metric {
        title: "IOPS per CPU-second",
        value: |n| n.iops_per_cpu_sec,
        show: compact,
        higher_is_better: true,
    },
];

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

    /// The tables as Markdown, then the reasons for n/a cells and the notes.
    /// Whether a column may be marked best: it did I/O, on the path asked for.
    fn may_be_best(&self, engine: &str) -> bool {
        let e = engine.to_string();
        !self.reference_only.contains(&e) && !self.not_as_asked.contains(&e)
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let w = self
            .engines
            .iter()
            .map(|e| e.len())
            .max()
            .unwrap_or(0)
            .max(12);
        for m in &METRICS {
            let _ = write!(out, "| {:<27} |", m.title);
            for e in &self.engines {
                let _ = write!(out, " {e:>w$} |");
            }
            out.push('\n');
            let _ = write!(out, "|{}|", "-".repeat(29));
            for _ in &self.engines {
                let _ = write!(out, "{}:|", "-".repeat(w + 1));
            }
            out.push('\n');
            for wl in &self.workloads {
                let best = self
                    .engines
                    .iter()
                    .filter(|e| self.may_be_best(e))
                    .filter_map(|e| self.cell(e, wl)?.result.as_ref().ok().map(m.value))
                    .filter(|v| *v > 0.0)
                    .fold(None, |b: Option<f64>, v| {
                        Some(match b {
                            None => v,
                            Some(b) if m.higher_is_better => b.max(v),
                            Some(b) => b.min(v),
                        })
                    });
                let _ = write!(out, "| {wl:<27} |");
                for e in &self.engines {
                    let text = match self.cell(e, wl).map(|c| &c.result) {
                        // A figure the run did not keep (fio's JSON has no p99.999).
                        Some(Ok(n)) if (m.value)(n) == 0.0 && !m.higher_is_better => {
                            "-".to_string()
                        }
                        Some(Ok(n)) => {
                            let v = (m.value)(n);
                            let mut s = (m.show)(v);
                            if let Some(h) = n.ci95_half.as_deref().map(m.value) {
                                if h > 0.0 {
                                    s = format!("{s} ± {}", (m.show)(h));
                                }
                            }
                            if Some(v) == best && self.may_be_best(e) {
                                format!("**{s}**")
                            } else {
                                s
                            }
                        }
                        Some(Err(_)) => "n/a".to_string(),
                        None => "-".to_string(),
                    };
                    let _ = write!(out, " {text:>w$} |");
                }
                out.push('\n');
            }
            out.push('\n');
        }
        let rounds = self
            .cells
            .iter()
            .any(|c| c.result.as_ref().is_ok_and(|n| n.ci95_half.is_some()));
        if rounds {
            out.push_str(
                "± is the 95% confidence interval of the rounds' figures (--repeat); the figure \
                 itself pools every round's I/Os.\n\n",
            );
        }
        let mut reasons: Vec<String> = Vec::new();
        for c in &self.cells {
            if let Err(why) = &c.result {
                let line = format!("- {} n/a: {why}", c.engine);
                if !reasons.contains(&line) {
                    reasons.push(line);
                }
            }
        }
        for r in reasons {
            let _ = writeln!(out, "{r}");
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
        for n in &self.notes {
            let _ = writeln!(out, "- note: {n}");
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
            ci95_half: None,
        }
    }

    #[test]
    fn best_is_marked_per_metric_and_na_is_explained() {
        let mut t = Qd1Table::default();
        let wl = "4KiB Random Read".to_string();
        t.add(Qd1Cell {
            engine: "psync".into(),
            workload: wl.clone(),
            result: Ok(nums(100_000.0, 9_000.0)),
        });
        t.add(Qd1Cell {
            engine: "libaio".into(),
            workload: wl.clone(),
            result: Ok(nums(120_000.0, 8_000.0)),
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
        let s = t.render();
        assert!(s.contains("**120k**"), "{s}");
        assert!(s.contains("**8.00 µs**"), "{s}");
        assert!(
            !s.contains("**9.00M**") && s.contains("9.00M"),
            "null is never best: {s}"
        );
        assert!(
            s.contains("n/a") && s.contains("io_uring+iopoll n/a: no poll queues"),
            "{s}"
        );
        assert_eq!(s.matches("| 4KiB Random Read").count(), METRICS.len());
    }
}
