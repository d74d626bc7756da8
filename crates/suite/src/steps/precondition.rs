//! Step 2: put the target in a known state, as the reviews did before measuring: deallocate
//! the whole region (BLKDISCARD on a device, hole punching on a file), then write it
//! sequentially end to end N times (128 KiB, QD32), so every later read hits written data and
//! every later write lands on a drive that has been filled.

use std::time::Duration;

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::{Pattern, SizeSpec};
use iolab_report::format::bytes_binary;
use iolab_results::review::{Pass, PreconditionStep};

use crate::purge::deallocate;

use super::{point_spec, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// The step as the review (and, for QD1, the main job) runs it.
pub struct Precondition;

impl super::ReviewStep for Precondition {
    fn step(&self) -> Step {
        Step::Precondition
    }

    fn points(&self, cfg: &ReviewConfig, _polled: bool) -> usize {
        cfg.precondition_passes as usize
    }

    /// Planned at 1 GB/s per pass; the bar shows the real rate.
    fn estimate(&self, cfg: &ReviewConfig, target_bytes: u64, polled: bool) -> (usize, Duration) {
        let secs = target_bytes as f64 / 1e9 * cfg.precondition_passes as f64;
        (self.points(cfg, polled), Duration::from_secs_f64(secs))
    }

    fn run(
        &self,
        cfg: &ReviewConfig,
        ex: &mut Executor<'_>,
        _findings: &mut Findings,
    ) -> Result<StepOutput, SuiteError> {
        run(cfg, ex)
    }
}

pub fn run(cfg: &ReviewConfig, ex: &mut Executor<'_>) -> Result<StepOutput, SuiteError> {
    let dealloc = match deallocate(&cfg.target, cfg.size, &mut ex.consent) {
        Ok(d) => d,
        Err(why) => return Ok(StepOutput::skipped(why)),
    };
    let region = dealloc.region;
    let dealloc_text = dealloc.text();
    let mut t = Table::new(["pass", "written", "MB/s", "mean latency"]);
    let mut passes = Vec::new();
    for pass in 1..=cfg.precondition_passes {
        let mut spec = point_spec(
            cfg,
            Step::Precondition,
            format!("precondition-pass-{pass}"),
            Workload {
                engine: EngineConfig::new(EngineKind::Libaio),
                pattern: Pattern::Sequential,
                read_percent: 0,
                bs: 128 << 10,
                iodepth: 32,
            },
        );
        spec.time_based = false;
        spec.runtime = None;
        spec.ramp_time = std::time::Duration::ZERO;
        spec.size = Some(SizeSpec::Bytes(region));
        // Throughput every 100 ms, so even a short pass draws its curve (the report's
        // throughput over time: where the drive's write cache runs out).
        spec.avg_ms = [100, 100];
        let label = format!("sequential write pass {pass}");
        match ex.run_point(Step::Precondition, &label, spec, Some(region))? {
            Point::Done(r) => {
                let n = Nums::of(&r, &ex.clock);
                let mbs = n.map_or(0.0, |n| n.bytes_per_sec / 1e6);
                t.row([
                    pass.to_string(),
                    bytes_binary(region as f64),
                    format!("{mbs:.0}"),
                    n.map_or("-".into(), |n| iolab_report::format::micros(n.mean_ns)),
                ]);
                passes.push(Pass {
                    pass,
                    bytes: region,
                    mb_per_sec: mbs,
                });
            }
            Point::Unavailable(why) => return Ok(StepOutput::skipped(why)),
        }
    }
    let text = format!(
        "{dealloc_text}; then {} full sequential write pass(es), 128 KiB at QD32 (libaio)\n\n{}",
        cfg.precondition_passes,
        t.render()
    );
    Ok(StepOutput::ok(
        serde_json::to_value(PreconditionStep {
            deallocated: dealloc.error.is_none(),
            deallocate_note: Some(dealloc_text),
            region_bytes: region,
            passes,
        })
        .unwrap_or_default(),
        text,
    ))
}
