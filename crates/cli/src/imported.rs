//! Runs measured elsewhere as columns (`iolab qd1 --with RUN`, `iolab report RUN --with
//! RUN`): a stored run's 4 KiB QD1 random read and write jobs (fio's JSON imported with
//! `iolab import`, fio with SPDK's plugin for the SPDK blog's SPDK column) made into QD1
//! cells named by their engine.

use iolab_report::qd1::Qd1Numbers;
use iolab_results::review::{self, Figures, Qd1Step};
use iolab_results::{JobRecord, RunRecord};
use iolab_store::Store;
use iolab_suite::steps::qd1::ImportedCell;

use crate::exit::CliError;

/// The column's name: fio's engine as fio's JSON named it (an external engine by its file
/// name), marked as fio's; another run's by its run id.
fn label(run: &RunRecord, job: &JobRecord) -> String {
    let engine = job.engine.rsplit('/').next().unwrap_or(&job.engine);
    let engine = engine.trim_end_matches(".so");
    match run.kind.as_str() {
        "fio" => format!("fio {engine}"),
        _ => format!("{engine} (run {})", run.id),
    }
}

fn kept(v: f64) -> Option<f64> {
    (v > 0.0).then_some(v)
}

/// The cell of one 4 KiB QD1 random job, if it is one.
fn cell(run: &RunRecord, job: &JobRecord) -> Option<ImportedCell> {
    let dir = match job.rw.as_str() {
        "randread" => "read",
        "randwrite" => "write",
        _ => return None,
    };
    if job.block_size != 4096 || job.iodepth != 1 {
        return None;
    }
    // Total latency where the run kept it; fio's JSON lists percentiles of clat only.
    let m = |name: &str| {
        job.metric(dir, &format!("lat_{name}_ns"))
            .or_else(|| job.metric(dir, &format!("clat_{name}_ns")))
            .unwrap_or(0.0)
    };
    let numbers = Qd1Numbers {
        iops: job.metric(dir, "iops")?,
        mean_ns: m("mean"),
        p99_ns: m("p99"),
        p99999_ns: m("p99.999"),
        cpu_pct: job.cpu_percent().unwrap_or(0.0),
        iops_per_cpu_sec: job.cpu.iops_per_cpu_sec,
        ios: job.metric(dir, "ios").unwrap_or(0.0),
        ci95: None,
    };
    Some(ImportedCell {
        engine: label(run, job),
        rw: job.rw.clone(),
        // A figure the run did not keep is null (n/a), never 0 (which would read as best).
        figures: Figures {
            iops: Some(numbers.iops),
            mean_ns: kept(numbers.mean_ns),
            p99_ns: kept(numbers.p99_ns),
            p99999_ns: kept(numbers.p99999_ns),
            cpu_pct: kept(numbers.cpu_pct),
            iops_per_cpu_sec: kept(numbers.iops_per_cpu_sec),
            ..Figures::default()
        },
        numbers,
        run: run.id,
    })
}

/// The QD1 cells of the stored runs `ids` (the first job of each workload per run); a run
/// without one is refused with the reason.
pub fn qd1_columns(store: &Store, ids: &[i64]) -> Result<Vec<ImportedCell>, CliError> {
    let mut out: Vec<ImportedCell> = Vec::new();
    for &id in ids {
        let run = store.run(id).map_err(CliError::bad_input)?;
        let before = out.len();
        for job in &run.jobs {
            if let Some(c) = cell(&run, job) {
                if !out[before..].iter().any(|o| o.rw == c.rw) {
                    out.push(c);
                }
            }
        }
        if out.len() == before {
            return Err(CliError::bad_input(anyhow::anyhow!(
                "--with {id}: run {id} has no 4 KiB random read or write job at queue depth 1 \
                 (rw=randread or randwrite, bs=4k, iodepth=1) to stand as a QD1 column"
            )));
        }
    }
    Ok(out)
}

/// Adds `cells` to the QD1 step of each of `runs` (the report's copy), as the step adds
/// them when measuring with `--with`.
pub fn add_to_runs(runs: &mut [iolab_html::RunData], cells: &[ImportedCell]) {
    for r in runs {
        let Some(step) = r.detail.steps.iter_mut().find(|s| s.name == "qd1-engines") else {
            continue;
        };
        let mut data: Qd1Step = review::read(&step.data);
        for c in cells {
            // A run measured with --with already has the column.
            if data
                .cells
                .iter()
                .any(|x| x.engine == c.engine && x.rw == c.rw)
            {
                continue;
            }
            data.cells.push(c.cell());
        }
        step.data = serde_json::to_value(&data).unwrap_or_default();
    }
}
