//! Step 8: the PC Perspective comparison — QD1 4 KiB random read latency distribution with
//! interrupts and with polled completion (pvsync2 vs pvsync2+hipri, io_uring vs
//! io_uring+iopoll). Polling only reaches a device that has poll queues; without them the
//! step records why it could not run instead of printing interrupt figures twice.

use iolab_engine::{EngineConfig, EngineKind, EngineOptions};
use iolab_job::Pattern;
use iolab_report::format::micros;
use iolab_sysinfo::{probe, probe_new_file};
use serde_json::json;

use super::{point_spec, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

pub const PATHS: [(EngineKind, bool); 4] = [
    (EngineKind::Pvsync2, false),
    (EngineKind::Pvsync2, true),
    (EngineKind::IoUring, false),
    (EngineKind::IoUring, true),
];

/// The step as the review (and, for QD1, the main job) runs it.
pub struct PollVsIrq;

impl super::ReviewStep for PollVsIrq {
    fn step(&self) -> Step {
        Step::PollVsIrq
    }

    fn points(&self, cfg: &ReviewConfig, polled: bool) -> usize {
        if polled {
            paths(cfg).len()
        } else {
            0
        }
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

/// The kernel's paths with and without polling, and SPDK's (which only polls) when `--spdk`
/// names a namespace.
fn paths(cfg: &ReviewConfig) -> Vec<EngineConfig> {
    let mut all: Vec<EngineConfig> = PATHS
        .iter()
        .map(|&(kind, hipri)| EngineConfig {
            kind,
            options: EngineOptions {
                hipri,
                ..EngineOptions::default()
            },
        })
        .collect();
    if cfg.spdk.is_some() {
        all.push(EngineConfig::new(EngineKind::Spdk));
    }
    all
}

pub fn run(cfg: &ReviewConfig, ex: &mut Executor<'_>) -> Result<StepOutput, SuiteError> {
    let facts = if cfg.target.exists() {
        probe(&cfg.target)
    } else {
        probe_new_file(&cfg.target)
    }
    .map_err(|e| SuiteError::Other(e.to_string()))?;
    if !facts.polled {
        let disk = facts.disk_name.as_deref().unwrap_or("the target's disk");
        return Ok(StepOutput::skipped(format!(
            "{disk} has no poll queues (/sys/block/{disk}/queue/io_poll is 0 or missing), so \
             polled I/O would run as interrupt I/O; NVMe gets poll queues with the nvme \
             driver's poll_queues=N parameter"
        )));
    }
    let mut t = Table::new([
        "path",
        "completed by",
        "mean",
        "p50",
        "p99",
        "p99.99",
        "p99.999",
        "IOPS",
    ]);
    let mut rows = Vec::new();
    let mut notes = String::new();
    for engine in paths(cfg) {
        let hipri = engine.options.hipri;
        let user_space = engine.kind == EngineKind::Spdk;
        let label = engine.label();
        let spec = point_spec(
            cfg,
            Step::PollVsIrq,
            format!("poll-{label}"),
            Workload {
                engine,
                pattern: Pattern::Random,
                read_percent: 100,
                bs: 4096,
                iodepth: 1,
            },
        );
        match ex.run_point(Step::PollVsIrq, &format!("4k randread {label}"), spec, None)? {
            Point::Done(r) => match Nums::of(&r, &ex.clock) {
                Some(n) => {
                    let polled = (hipri || user_space) && r.fallback.is_none();
                    if let Some(why) = &r.fallback {
                        notes.push_str(&format!("- {why}\n"));
                    }
                    let by = match user_space {
                        // No kernel driver, no interrupt: the thread polls its queue pair.
                        true => "polling, in user space (SPDK)".to_string(),
                        false => completed_by(hipri, polled, r.device_interrupts),
                    };
                    t.row([
                        label.clone(),
                        by,
                        micros(n.mean_ns),
                        micros(n.p50_ns),
                        micros(n.p99_ns),
                        micros(n.p9999_ns),
                        micros(n.p99999_ns),
                        iolab_report::format::compact(n.iops),
                    ]);
                    rows.push(
                        json!({"path": label, "asked_polling": hipri || user_space, "polled": polled,
                        "device_interrupts": r.device_interrupts, "figures": n.to_json()}),
                    );
                }
                None => t.row([label.clone(), "no I/O".to_string()]),
            },
            Point::Unavailable(why) => {
                t.row([label.clone(), format!("n/a: {why}")]);
                rows.push(json!({"path": label, "polled": hipri, "unavailable": why}));
            }
        }
    }
    Ok(StepOutput::ok(
        json!({"paths": rows}),
        format!(
            "QD1 4 KiB random read, interrupts vs polling; \"completed by\" is what the disk's \
             interrupt count showed, not what was asked.\n\n{}{notes}",
            t.render()
        ),
    ))
}

/// How the path's I/O completed, as the disk's interrupt count (when it has one) showed.
fn completed_by(asked: bool, polled: bool, interrupts: Option<u64>) -> String {
    let count = interrupts.map_or(String::new(), |n| format!(" ({n} interrupts)"));
    match (asked, polled) {
        (true, true) => format!("polling{count}"),
        (true, false) => format!("interrupts, not polling{count}"),
        _ => format!("interrupts{count}"),
    }
}
