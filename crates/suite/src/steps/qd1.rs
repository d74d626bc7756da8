//! Step 3: the SPDK blog's QD1 tables — 4 KiB random read and write at queue depth 1 through
//! every path (engines as columns, best marked). A path the target cannot serve stays in the
//! table with the reason; paths the kernel serves differently from what was asked carry the
//! runner's notes (hipri without poll queues, io_uring through io-wq).

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::Pattern;
use iolab_report::qd1::Qd1Numbers;
use iolab_report::{Qd1Cell, Qd1Table};
use iolab_results::review::{Figures, Qd1Cell as StoredCell, Qd1Step, Rounds};
use iolab_results::{About, Note, NoteKind};

use super::{point_spec, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::{ReviewConfig, Step, SuiteError};

/// Every path but the null engine (the software-floor step measures that).
pub static PATHS: std::sync::LazyLock<Vec<EngineConfig>> = std::sync::LazyLock::new(|| {
    EngineConfig::paths()
        .into_iter()
        .filter(|c| c.kind != EngineKind::Null)
        .collect()
});

pub const WORKLOADS: [(&str, &str, u32); 2] = [
    ("4KiB Random Read", "randread", 100),
    ("4KiB Random Write", "randwrite", 0),
];

/// Async paths the sweeps may use (sqpoll is left out: it adds a polling kernel thread).
fn is_sweep_candidate(c: &EngineConfig) -> bool {
    matches!(c.kind, EngineKind::Libaio | EngineKind::IoUring) && !c.options.sqthread_poll
}

/// The step as the review (and, for QD1, the main job) runs it.
pub struct Qd1Engines;

impl super::ReviewStep for Qd1Engines {
    fn step(&self) -> Step {
        Step::Qd1Engines
    }

    fn points(&self, cfg: &ReviewConfig, _polled: bool) -> usize {
        2 * cfg.qd1_paths.len()
    }

    /// Every cell once a round, each round as long as [`ReviewConfig::qd1_rounds`] says.
    fn estimate(
        &self,
        cfg: &ReviewConfig,
        _target_bytes: u64,
        polled: bool,
    ) -> (usize, std::time::Duration) {
        let (rounds, t) = cfg.qd1_rounds();
        let n = self.points(cfg, polled) * rounds as usize;
        (n, t.per_point() * n as u32)
    }

    fn run(
        &self,
        cfg: &ReviewConfig,
        ex: &mut Executor<'_>,
        findings: &mut Findings,
    ) -> Result<StepOutput, SuiteError> {
        run(cfg, ex, findings)
    }
}

/// A column measured elsewhere (a stored run: fio's JSON with SPDK's plugin, say), shown
/// beside the paths measured here (`iolab qd1 --with RUN`): its label, the workload's `rw`,
/// its figures, and the run it came from.
#[derive(Debug, Clone)]
pub struct ImportedCell {
    pub engine: String,
    pub rw: String,
    pub numbers: Qd1Numbers,
    /// The step's cell figures (a figure the run did not keep is `None`: n/a, never 0).
    pub figures: Figures,
    pub run: i64,
}

impl ImportedCell {
    /// The cell as the step keeps it (its `cells`, which the report draws).
    pub fn cell(&self) -> StoredCell {
        StoredCell {
            engine: self.engine.clone(),
            rw: self.rw.clone(),
            figures: Some(self.figures),
            imported_from: Some(self.run),
            ..StoredCell::default()
        }
    }
}

/// Adds the columns measured elsewhere to the table and the step's cells.
fn add_imported(cfg: &ReviewConfig, table: &mut Qd1Table, cells: &mut Vec<StoredCell>) {
    for c in &cfg.with_qd1 {
        let Some((title, _, _)) = WORKLOADS.iter().find(|(_, rw, _)| *rw == c.rw) else {
            continue;
        };
        cells.push(c.cell());
        table.add(Qd1Cell {
            engine: c.engine.clone(),
            workload: title.to_string(),
            result: Ok(c.numbers.clone()),
        });
    }
}

/// One cell of the table: workload and path, with what each round measured there.
struct CellRuns {
    title: &'static str,
    rw: &'static str,
    read: u32,
    engine: EngineConfig,
    points: Vec<Point>,
}

/// Measures every cell in rounds ([`ReviewConfig::qd1_rounds`]), one whole round of cells
/// after another (so a drift over the minutes hits every path alike); stops at an
/// interrupt, keeping the rounds' cells measured so far. Repeated cells are saved pooled,
/// by [`cell_point`].
fn measure_rounds(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
) -> Result<(Vec<CellRuns>, bool), SuiteError> {
    let mut cells: Vec<CellRuns> = Vec::new();
    for (title, rw, read) in WORKLOADS {
        for engine in &cfg.qd1_paths {
            cells.push(CellRuns {
                title,
                rw,
                read,
                engine: engine.clone(),
                points: Vec::new(),
            });
        }
    }
    let (rounds, timing) = cfg.qd1_rounds();
    for round in 1..=rounds {
        for c in cells.iter_mut() {
            let label = c.engine.label();
            let mut spec = point_spec(
                cfg,
                Step::Qd1Engines,
                format!("qd1-{}-{label}", c.rw),
                Workload {
                    engine: c.engine.clone(),
                    pattern: Pattern::Random,
                    read_percent: c.read,
                    bs: 4096,
                    iodepth: 1,
                },
            );
            spec.runtime = Some(timing.runtime);
            spec.ramp_time = timing.ramp;
            let name = match rounds {
                1 => format!("4k {} {label}", c.rw),
                n => format!("4k {} {label} (repeat {round}/{n})", c.rw),
            };
            let point = match rounds {
                1 => ex.run_point(Step::Qd1Engines, &name, spec, None),
                _ => ex.run_repeat(Step::Qd1Engines, &name, spec),
            };
            match point {
                Err(SuiteError::Interrupted) => return Ok((cells, true)),
                p => c.points.push(p?),
            }
        }
    }
    Ok((cells, false))
}

/// A cell's one point: its only one, or its repeats pooled (and saved so); unavailable when
/// a round found it so.
fn cell_point(ex: &mut Executor<'_>, points: Vec<Point>) -> Result<Option<Point>, SuiteError> {
    if points.len() <= 1 {
        return Ok(points.into_iter().next());
    }
    let mut reports = Vec::new();
    for p in points {
        match p {
            Point::Done(r) => reports.push(*r),
            unavailable => return Ok(Some(unavailable)),
        }
    }
    let clock = ex.clock.timebase();
    let Some(pooled) = iolab_results::repeats::pool_jobs(reports, &clock) else {
        return Ok(None);
    };
    ex.save_point(Step::Qd1Engines, &pooled)?;
    Ok(Some(Point::Done(Box::new(pooled))))
}

pub fn run(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    findings: &mut Findings,
) -> Result<StepOutput, SuiteError> {
    let mut table = Qd1Table {
        rounds: cfg.qd1_rounds().0,
        ..Qd1Table::default()
    };
    // The null engine, when asked for, is the harness's own cost: shown, never the best.
    table
        .reference_only
        .push(EngineConfig::new(EngineKind::Null).label());
    let mut cells = Vec::new();
    let (runs, interrupted) = measure_rounds(cfg, ex)?;
    for c in runs {
        let (title, rw, read, label) = (c.title, c.rw, c.read, c.engine.label());
        let Some(point) = cell_point(ex, c.points)? else {
            continue;
        };
        let result = match &point {
            Point::Done(r) => {
                gather_notes(&mut table, &label, title, r);
                if let Some(n) = Nums::of(r, &ex.clock) {
                    // A path that fell back measures another path: never the best async
                    // one for the sweeps either.
                    if read == 100 && r.fallback.is_none() {
                        findings.qd1_read.push((label.clone(), n.iops, n.mean_ns));
                        let iops = iolab_results::repeats::values_of(&r.repeats, "read", "iops");
                        if let Some(i) = iolab_results::Interval::of(&iops) {
                            // t · sem: the prediction bound is a difference, symmetric.
                            let half = iolab_results::repeats::t95((i.n - 1) as f64) * i.sem();
                            findings.qd1_read_noise.push((label.clone(), half, i.n));
                        }
                    }
                    cells.push(StoredCell {
                        engine: label.clone(),
                        rw: rw.into(),
                        workload: Some(title.into()),
                        figures: Some(n.figures()),
                        fallback: r.fallback.clone(),
                        repeats: (r.repeats.len() > 1).then(|| rounds_of(r)),
                        ..StoredCell::default()
                    });
                }
                Qd1Numbers::from_report(r, &ex.clock).ok_or_else(|| "no I/O completed".into())
            }
            Point::Unavailable(why) => {
                cells.push(StoredCell {
                    engine: label.clone(),
                    rw: rw.into(),
                    workload: Some(title.into()),
                    unavailable: Some(why.clone()),
                    ..StoredCell::default()
                });
                Err(why.clone())
            }
        };
        table.add(Qd1Cell {
            engine: label.clone(),
            workload: title.to_string(),
            result,
        });
    }
    add_imported(cfg, &mut table, &mut cells);
    findings.best_async = cfg
        .qd1_paths
        .iter()
        .filter(|c| is_sweep_candidate(c))
        .filter_map(|c| {
            let l = c.label();
            findings
                .qd1_read
                .iter()
                .find(|(e, _, _)| *e == l)
                .map(|(_, iops, _)| (c.clone(), *iops))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c);
    let best = findings.best_async.as_ref().map(|c| c.label());
    let mut text = table.render();
    // Said only where later steps use it (not when the step runs alone, as the main job).
    if let Some(b) = best.as_ref().filter(|_| cfg.steps.len() > 1) {
        text.push_str(&format!(
            "\nBest async path at QD1 (used by the sweeps): {b}\n"
        ));
    }
    // The step's result keeps what the tables concluded and noticed, for every output.
    let mut out = StepOutput::ok(
        serde_json::to_value(Qd1Step {
            cells,
            best_async: best,
            notes: Some(table.notes.clone()),
            marks: Some(table.marks()),
        })
        .unwrap_or_default(),
        text,
    );
    // The table of the cells measured so far is worth printing (the main job's partial
    // tables); the review stops after it.
    out.interrupted = interrupted;
    Ok(out)
}

/// A cell's notes kept as the table's: each naming its row (the path and the workload it was
/// measured on); what the target held when the first read began, once, for the whole run;
/// a path not served as asked, with the kernel's reason, once per cell unless a note said it.
fn gather_notes(table: &mut Qd1Table, label: &str, title: &str, r: &iolab_results::JobReport) {
    let cell = || About::Cell {
        path: label.to_string(),
        workload: title.to_string(),
    };
    for n in &r.notes {
        let note = match n.starts_with("reads of ") {
            true if table.notes.iter().any(|t| t.kind == NoteKind::Stored) => continue,
            true => Note::new(About::Run, NoteKind::Stored, n.clone()),
            false => Note::new(cell(), NoteKind::Caveat, row_note(label, title, n)),
        };
        match note.kind {
            NoteKind::Stored => table.notes.insert(0, note),
            _ if table.notes.iter().any(|t| t.text == note.text) => {}
            _ => table.notes.push(note),
        }
    }
    if let Some(why) = &r.fallback {
        if !table.not_as_asked.iter().any(|l| l == label) {
            table.not_as_asked.push(label.to_string());
        }
        if !table.notes.iter().any(|n| n.text.contains(why.as_str())) {
            let text = format!("{label}, {title}: {why}");
            table
                .notes
                .push(Note::new(cell(), NoteKind::Fallback, text));
        }
    }
}

/// A runner's note said under the table with its row (`pvsync2+hipri, 4KiB Random Read: ...`),
/// its own engine prefix (`pvsync2 --hipri: `) replaced by the row's name.
fn row_note(label: &str, title: &str, note: &str) -> String {
    let engine = label.split('+').next().unwrap_or(label);
    let rest = match note.split_once(": ") {
        Some((head, rest)) if head == engine || head.starts_with(&format!("{engine} --")) => rest,
        _ => note,
    };
    format!("{label}, {title}: {rest}")
}

/// A repeated cell's rounds: how many, and each figure's 95 % interval.
fn rounds_of(r: &iolab_runner::JobReport) -> Rounds {
    let intervals = iolab_results::repeats::intervals(&r.repeats)
        .into_iter()
        .filter(|(_, n, _)| {
            ["iops", "lat_mean_ns", "lat_p99_ns", "lat_p99.999_ns"].contains(&n.as_str())
        })
        .map(|(_, n, i)| (n, i))
        .collect();
    Rounds {
        count: r.repeats.len(),
        intervals,
    }
}

#[cfg(test)]
mod tests {
    use super::row_note;

    #[test]
    fn a_note_names_its_row_instead_of_its_engine() {
        assert_eq!(
            row_note(
                "pvsync2+hipri",
                "4KiB Random Write",
                "pvsync2 --hipri: vda raised 5 interrupts for 5 I/Os"
            ),
            "pvsync2+hipri, 4KiB Random Write: vda raised 5 interrupts for 5 I/Os"
        );
        // A note whose head is a sentence keeps it.
        assert_eq!(
            row_note(
                "mmap",
                "4KiB Random Read",
                "mmap with direct=1 is not O_DIRECT: as fio's"
            ),
            "mmap, 4KiB Random Read: mmap with direct=1 is not O_DIRECT: as fio's"
        );
    }
}
