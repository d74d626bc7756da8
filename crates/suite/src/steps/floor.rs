//! Step 9: where the target's QD1 read latency goes. The same QD1 4 KiB read through the
//! null engine (iolab's own cost per I/O: the harness), on a RAM-backed block device (zram:
//! the kernel's block path with a device that costs almost nothing), and on the target. The
//! differences split the target's latency into harness, kernel block path, and device plus
//! the rest, one stacked line per engine.

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::{Pattern, SizeSpec};
use iolab_report::format::micros;
use iolab_sysinfo::{probe, TargetKind};
use serde_json::json;

use super::{point_spec, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// The interrupt-driven paths every block device serves.
pub const ENGINES: [EngineKind; 4] = [
    EngineKind::Psync,
    EngineKind::Pvsync2,
    EngineKind::Libaio,
    EngineKind::IoUring,
];

/// Most of the RAM device the floor reads over (and fills).
const FLOOR_REGION_MAX: u64 = 256 << 20;

/// A stacked bar of `width` characters: H harness, K kernel block path, D device and rest.
pub fn stacked_bar(parts_ns: [f64; 3], scale_ns: f64, width: usize) -> String {
    let mut s = String::new();
    let mut used = 0.0;
    for (part, ch) in parts_ns.iter().zip(['H', 'K', 'D']) {
        let from = (used / scale_ns * width as f64).round() as usize;
        used += part.max(0.0);
        let to = ((used / scale_ns * width as f64).round() as usize).min(width);
        s.extend(std::iter::repeat_n(ch, to.saturating_sub(from)));
    }
    s
}

fn read_point(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    target: &std::path::Path,
    engine: EngineConfig,
    region: Option<u64>,
    name: String,
    notes: &mut Vec<String>,
) -> Result<Result<Nums, String>, SuiteError> {
    let mut spec = point_spec(
        cfg,
        Step::SoftwareFloor,
        name.clone(),
        Workload {
            engine,
            pattern: Pattern::Random,
            read_percent: 100,
            bs: 4096,
            iodepth: 1,
        },
    );
    spec.filename = target.to_path_buf();
    spec.size = region.map(SizeSpec::Bytes);
    Ok(
        match ex.run_point(Step::SoftwareFloor, &name, spec, None)? {
            Point::Done(r) => {
                for n in &r.notes {
                    if !notes.contains(n) {
                        notes.push(n.clone());
                    }
                }
                Nums::of(&r, &ex.clock).ok_or_else(|| "no I/O completed".to_string())
            }
            Point::Unavailable(why) => Err(why),
        },
    )
}

/// The step as the review (and, for QD1, the main job) runs it.
pub struct SoftwareFloor;

impl super::ReviewStep for SoftwareFloor {
    fn step(&self) -> Step {
        Step::SoftwareFloor
    }

    fn points(&self, _cfg: &ReviewConfig, _polled: bool) -> usize {
        2 + ENGINES.len()
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
    let harness_pt = read_point(
        cfg,
        ex,
        &cfg.target.clone(),
        EngineConfig::new(EngineKind::Null),
        cfg.size,
        "floor-null".into(),
        &mut Vec::new(),
    )?
    .map_err(|why| SuiteError::Other(format!("null engine: {why}")))?;
    let mut notes: Vec<String> = Vec::new();
    // The RAM device: usable when it exists with a size; the target itself when it is one.
    let ram = cfg.floor_device.as_ref().and_then(|p| match probe(p) {
        Ok(f) if f.kind == TargetKind::BlockDevice && f.size_bytes > 0 => Some(f),
        Ok(_) => {
            notes.push(format!(
                "{} has no size (echo 1G > /sys/block/{}/disksize)",
                p.display(),
                p.file_name().unwrap_or_default().to_string_lossy()
            ));
            None
        }
        Err(e) => {
            notes.push(format!("no RAM device: {e}"));
            None
        }
    });
    let same = ram.as_ref().is_some_and(|f| {
        std::fs::canonicalize(&f.path).ok() == std::fs::canonicalize(&cfg.target).ok()
    });
    let region = ram.as_ref().map(|f| f.size_bytes.min(FLOOR_REGION_MAX));
    if let (Some(f), Some(len), false) = (&ram, region, same) {
        // Never-written zram pages read as zero-fill (no decompression): fill the region so
        // the floor is a real read — only when the user allowed destroying data.
        let mut fill = point_spec(
            cfg,
            Step::SoftwareFloor,
            "floor-fill".into(),
            Workload {
                engine: EngineConfig::new(EngineKind::Libaio),
                pattern: Pattern::Sequential,
                read_percent: 0,
                bs: 128 << 10,
                iodepth: 32,
            },
        );
        fill.filename = f.path.clone();
        fill.size = Some(SizeSpec::Bytes(len));
        fill.time_based = false;
        fill.runtime = None;
        fill.ramp_time = std::time::Duration::ZERO;
        // Filling destroys the floor device's data: that needs consent for *it*, not the
        // consent given for the target.
        if cfg.floor_consent.covers(&f.path) {
            if let Point::Unavailable(why) = ex.run_point_with(
                Step::SoftwareFloor,
                "fill the RAM device",
                fill,
                Some(len),
                &cfg.floor_consent,
            )? {
                notes.push(format!("{} not filled ({why}): never-written pages read as zero-fill, a little faster than real reads", f.path.display()));
            }
        } else {
            notes.push(format!(
                "{} not filled (filling it needs {}): never-written pages read as zero-fill, a little faster than real reads",
                f.path.display(),
                cfg.floor_consent.flag()
            ));
        }
    }
    let mut t = Table::new([
        "engine",
        "harness",
        "kernel block path",
        "device + rest",
        "target QD1 read",
        "stacked (H harness, K kernel, D device)",
    ])
    .left(5);
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for kind in ENGINES {
        let engine = EngineConfig::new(kind);
        let label = engine.label();
        let target_ns = match findings.qd1_read.iter().find(|(e, _, _)| *e == label) {
            Some((_, _, mean)) => Ok(*mean),
            None => read_point(
                cfg,
                ex,
                &cfg.target.clone(),
                engine,
                cfg.size,
                format!("floor-target-{label}"),
                &mut notes,
            )?
            .map(|n| n.mean_ns),
        };
        let ram_ns = match (&ram, same) {
            (Some(_), true) => target_ns.clone(),
            (Some(f), false) => read_point(
                cfg,
                ex,
                &f.path.clone(),
                engine,
                region,
                format!("floor-ram-{label}"),
                &mut notes,
            )?
            .map(|n| n.mean_ns),
            (None, _) => Err("no RAM device".to_string()),
        };
        match (&target_ns, &ram_ns) {
            (Ok(tgt), Ok(ram_mean)) => {
                let harness = harness_pt.mean_ns;
                let kernel = ram_mean - harness;
                let device = tgt - ram_mean;
                lines.push((label.clone(), [harness, kernel, device], *tgt));
                rows.push(json!({"engine": label, "harness_ns": harness, "kernel_ns": kernel, "device_ns": device, "target_ns": tgt, "ram_ns": ram_mean}));
            }
            (t_res, r_res) => {
                let why = t_res
                    .clone()
                    .err()
                    .or(r_res.clone().err())
                    .unwrap_or_default();
                t.row([
                    label.clone(),
                    micros(harness_pt.mean_ns),
                    "n/a".into(),
                    "n/a".into(),
                    t_res.clone().map_or("n/a".into(), micros),
                    format!("n/a: {why}"),
                ]);
                rows.push(
                    json!({"engine": label, "harness_ns": harness_pt.mean_ns, "unavailable": why}),
                );
            }
        }
    }
    let scale = lines
        .iter()
        .map(|l| l.2.max(l.1[0] + l.1[1]))
        .fold(1.0, f64::max);
    for (label, parts, tgt) in &lines {
        t.row([
            label.clone(),
            micros(parts[0]),
            micros(parts[1]),
            micros(parts[2]),
            micros(*tgt),
            stacked_bar(*parts, scale, 40),
        ]);
        if parts[2] < 0.0 {
            notes.push(format!("{label}: the target was faster than the RAM device (page cache or a faster path?); its device share shows negative"));
        }
    }
    let mut text =
        format!(
        "QD1 4 KiB random read mean latency. harness = null engine (iolab's own cost per I/O); \
         kernel block path = RAM device ({}) − harness; device + rest = target − RAM device.\n\n{}",
        cfg.floor_device.as_ref().map_or("none".into(), |p| p.display().to_string()),
        t.render()
    );
    for n in &notes {
        text.push_str(&format!("- {n}\n"));
    }
    Ok(StepOutput::ok(
        json!({"null_ns": harness_pt.mean_ns, "ram_device": cfg.floor_device.as_ref().map(|p| p.display().to_string()), "engines": rows, "notes": notes}),
        text,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_stack_in_proportion() {
        assert_eq!(stacked_bar([1.0, 3.0, 6.0], 10.0, 10), "HKKKDDDDDD");
        assert_eq!(stacked_bar([1.0, 3.0, 6.0], 20.0, 10), "HKDDD");
        // A negative device share draws nothing for it.
        assert_eq!(stacked_bar([2.0, 8.0, -1.0], 10.0, 10), "HHKKKKKKKK");
    }
}
