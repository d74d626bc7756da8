//! Step 5: the AnandTech pages' transfer-size sweep — QD1, one thread, 512 B to 1 MiB:
//! random read and write with block-aligned offsets and with 512 B-aligned offsets (which a
//! drive with 4 KiB internal pages serves worse), sequential read and write. A size or
//! alignment the target cannot take with direct I/O is listed with the reason.

use iolab_job::Pattern;
use iolab_report::format::micros;
use iolab_results::review::{TransferPoint, TransferStep};

use super::{point_spec, size_label, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::plan::transfer_sizes;
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// (column, rw, read %, pattern, 512 B-aligned offsets)
pub const VARIANTS: [(&str, &str, u32, Pattern, bool); 6] = [
    ("rand read", "randread", 100, Pattern::Random, false),
    ("rand read 512B-al", "randread", 100, Pattern::Random, true),
    ("rand write", "randwrite", 0, Pattern::Random, false),
    ("rand write 512B-al", "randwrite", 0, Pattern::Random, true),
    ("seq read", "read", 100, Pattern::Sequential, false),
    ("seq write", "write", 0, Pattern::Sequential, false),
];

/// The step as the review (and, for QD1, the main job) runs it.
pub struct TransferSize;

impl super::ReviewStep for TransferSize {
    fn step(&self) -> Step {
        Step::TransferSize
    }

    fn points(&self, _cfg: &ReviewConfig, _polled: bool) -> usize {
        VARIANTS.len() * crate::plan::transfer_sizes().len()
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

pub fn run(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    findings: &Findings,
) -> Result<StepOutput, SuiteError> {
    let engine = findings.sweep_engine();
    let sizes = transfer_sizes();
    let mut mbs = Table::new(
        std::iter::once("size".to_string()).chain(VARIANTS.iter().map(|v| format!("{} MB/s", v.0))),
    );
    let mut lat = Table::new(
        std::iter::once("size".to_string()).chain(VARIANTS.iter().map(|v| format!("{} mean", v.0))),
    );
    let mut points = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    for &bs in &sizes {
        let mut row_mbs = vec![size_label(bs)];
        let mut row_lat = vec![size_label(bs)];
        for (col, rw, read, pattern, unaligned) in VARIANTS {
            let name = format!(
                "xfer-{rw}{}-{}",
                if unaligned { "-512al" } else { "" },
                size_label(bs)
            );
            let mut spec = point_spec(
                cfg,
                Step::TransferSize,
                name,
                Workload {
                    engine: engine.clone(),
                    pattern,
                    read_percent: read,
                    bs,
                    iodepth: 1,
                },
            );
            if unaligned {
                spec.block_align = Some(512);
            }
            let label = format!("{} {col}", size_label(bs));
            let point = if unaligned && bs <= 512 {
                // Every 512 B offset is already block-aligned at this size.
                None
            } else {
                Some(ex.run_point(Step::TransferSize, &label, spec, None)?)
            };
            match point {
                None => {
                    row_mbs.push("= aligned".into());
                    row_lat.push("= aligned".into());
                }
                Some(Point::Done(r)) => {
                    let n = Nums::of(&r, &ex.clock);
                    row_mbs.push(n.map_or("-".into(), |n| format!("{:.1}", n.bytes_per_sec / 1e6)));
                    row_lat.push(n.map_or("-".into(), |n| micros(n.mean_ns)));
                    points.push(TransferPoint {
                        bs,
                        variant: col.to_string(),
                        rw: rw.to_string(),
                        offset_align: if unaligned { 512 } else { bs },
                        figures: n.map(Nums::figures),
                        unavailable: None,
                    });
                }
                Some(Point::Unavailable(why)) => {
                    row_mbs.push("n/a".into());
                    row_lat.push("n/a".into());
                    // The first reason per column says it; the rest repeat it for other sizes.
                    if !reasons.iter().any(|x| x.starts_with(&format!("{col}:"))) {
                        reasons.push(format!("{col}: {why}"));
                    }
                    points.push(TransferPoint {
                        bs,
                        variant: col.to_string(),
                        rw: rw.to_string(),
                        offset_align: if unaligned { 512 } else { bs },
                        figures: None,
                        unavailable: Some(why),
                    });
                }
            }
        }
        mbs.row(row_mbs);
        lat.row(row_lat);
    }
    let mut text = format!(
        "QD1, one thread, {}; MB/s = 10^6 bytes per second.\n\n{}\n{}",
        engine.label(),
        mbs.render(),
        lat.render()
    );
    for r in &reasons {
        text.push_str(&format!("- n/a {r}\n"));
    }
    Ok(StepOutput::ok(
        serde_json::to_value(TransferStep {
            engine: engine.label(),
            points,
        })
        .unwrap_or_default(),
        text,
    ))
}
