//! Step 9: where the target's QD1 read latency goes. The same QD1 4 KiB read through the
//! null engine (iolab's own cost per I/O: the harness), on a RAM-backed block device (zram:
//! the kernel's block path with a device that costs almost nothing), and on the target. The
//! differences split the target's latency into harness, kernel block path, and device plus
//! the rest, one stacked line per engine.

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::{Pattern, SizeSpec};
use iolab_report::format::micros;
use iolab_results::review::{FloorRow, FloorStep};
use iolab_sysinfo::{probe, TargetKind};

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
    let floor = RamFloor::find(cfg, &mut notes);
    let ram = floor.facts.clone();
    let same = floor.is_target;
    let region = ram.as_ref().map(|f| f.size_bytes.min(FLOOR_REGION_MAX));
    if let (Some(f), Some(len), false) = (&ram, region, same) {
        let consent = floor.consent.as_ref().unwrap_or(&cfg.floor_consent);
        fill_ram(cfg, ex, &f.path, len, consent, &mut notes)?;
    }
    let mut split = Split {
        harness_ns: harness_pt.mean_ns,
        table: Table::new([
            "engine",
            "harness",
            "kernel block path",
            "device + rest",
            "target QD1 read",
            "stacked (H harness, K kernel, D device)",
        ])
        .left(5),
        rows: Vec::new(),
        lines: Vec::new(),
    };
    for kind in ENGINES {
        let label = EngineConfig::new(kind).label();
        let target_ns = match findings.qd1_read.iter().find(|(e, _, _)| *e == label) {
            Some((_, _, mean)) => Ok(*mean),
            None => {
                let name = format!("floor-target-{label}");
                let t = cfg.target.clone();
                read_point(
                    cfg,
                    ex,
                    &t,
                    EngineConfig::new(kind),
                    cfg.size,
                    name,
                    &mut notes,
                )?
                .map(|n| n.mean_ns)
            }
        };
        let ram_ns = match (&ram, same) {
            (Some(_), true) => target_ns.clone(),
            (Some(f), false) => {
                let name = format!("floor-ram-{label}");
                let p = f.path.clone();
                read_point(
                    cfg,
                    ex,
                    &p,
                    EngineConfig::new(kind),
                    region,
                    name,
                    &mut notes,
                )?
                .map(|n| n.mean_ns)
            }
            (None, _) => Err("no RAM device".to_string()),
        };
        split.add(label, target_ns, ram_ns);
    }
    Ok(split.finish(&floor.shown, notes))
}

/// Where the floor is read: the device the user named (`--floor-device`), the target when it
/// is a RAM device itself, or a zram device iolab adds for the step and removes after; never
/// a device nobody named.
struct RamFloor {
    facts: Option<iolab_sysinfo::TargetFacts>,
    /// The floor is the target itself.
    is_target: bool,
    /// The consent to fill a device of iolab's own (it holds nobody's data).
    consent: Option<iolab_sysinfo::Consent>,
    /// How the page names it.
    shown: Option<String>,
    /// Kept until the step ends, then removed.
    _own: Option<crate::ram_device::OwnZram>,
}

impl RamFloor {
    fn find(cfg: &ReviewConfig, notes: &mut Vec<String>) -> RamFloor {
        let mut floor = RamFloor {
            facts: None,
            is_target: false,
            consent: None,
            shown: None,
            _own: None,
        };
        if cfg.floor_device.is_some() {
            floor.facts = ram_device(cfg, notes);
            floor.shown = cfg.floor_device.as_ref().map(|p| p.display().to_string());
            floor.is_target = floor.facts.as_ref().is_some_and(|f| {
                std::fs::canonicalize(&f.path).ok() == std::fs::canonicalize(&cfg.target).ok()
            });
            return floor;
        }
        if crate::ram_device::is_zram(&cfg.target) {
            floor.facts = probe(&cfg.target).ok();
            floor.is_target = floor.facts.is_some();
            floor.shown = Some(format!("{}, the target itself", cfg.target.display()));
            return floor;
        }
        let own = match crate::ram_device::OwnZram::add(FLOOR_REGION_MAX) {
            Ok(z) => z,
            Err(why) => {
                notes.push(format!(
                    "no RAM device: {why}; name one with --floor-device (and \
                     --allow-destroy-floor to fill it)"
                ));
                return floor;
            }
        };
        match probe(own.path()) {
            Ok(f) => floor.facts = Some(f),
            Err(e) => notes.push(format!("no RAM device: {}: {e}", own.path().display())),
        }
        floor.consent = Some(iolab_sysinfo::Consent::granting(
            "--allow-destroy-floor",
            true,
            [own.path()],
        ));
        floor.shown = Some(format!(
            "{}, a zram device iolab added for this step and removed after",
            own.path().display()
        ));
        floor._own = Some(own);
        floor
    }
}

/// The RAM device: usable when it exists with a size; the target itself when it is one.
fn ram_device(cfg: &ReviewConfig, notes: &mut Vec<String>) -> Option<iolab_sysinfo::TargetFacts> {
    let p = cfg.floor_device.as_ref()?;
    match probe(p) {
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
    }
}

/// Never-written zram pages read as zero-fill (no decompression): fills `len` bytes of the
/// RAM device so the floor is a real read — only when the user allowed destroying its data
/// (its own consent, not the one given for the target).
fn fill_ram(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    path: &std::path::Path,
    len: u64,
    consent: &iolab_sysinfo::Consent,
    notes: &mut Vec<String>,
) -> Result<(), SuiteError> {
    let zero_fill = "never-written pages read as zero-fill, a little faster than real reads";
    if !consent.covers(path) {
        let flag = consent.flag();
        notes.push(format!(
            "{} not filled (filling it needs {flag}): {zero_fill}",
            path.display()
        ));
        return Ok(());
    }
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
    fill.filename = path.to_path_buf();
    fill.size = Some(SizeSpec::Bytes(len));
    fill.time_based = false;
    fill.runtime = None;
    fill.ramp_time = std::time::Duration::ZERO;
    let label = "fill the RAM device";
    let point = ex.run_point_with(Step::SoftwareFloor, label, fill, Some(len), consent)?;
    if let Point::Unavailable(why) = point {
        notes.push(format!(
            "{} not filled ({why}): {zero_fill}",
            path.display()
        ));
    }
    Ok(())
}

/// The split table as it is built: one row per engine, measured or with why not.
struct Split {
    harness_ns: f64,
    table: Table,
    rows: Vec<FloorRow>,
    /// (engine, [harness, kernel, device] ns, target ns) of the engines with all figures.
    lines: Vec<(String, [f64; 3], f64)>,
}

impl Split {
    fn add(&mut self, label: String, target_ns: Result<f64, String>, ram_ns: Result<f64, String>) {
        let harness = self.harness_ns;
        match (&target_ns, &ram_ns) {
            (Ok(tgt), Ok(ram_mean)) => {
                let (kernel, device) = (ram_mean - harness, tgt - ram_mean);
                self.lines
                    .push((label.clone(), [harness, kernel, device], *tgt));
                // A share below zero is a difference smaller than the noise, not a time.
                let share = |v: f64| (v >= 0.0).then_some(v);
                let within_noise = [("kernel", kernel), ("device", device)]
                    .into_iter()
                    .filter(|(_, v)| *v < 0.0)
                    .map(|(n, _)| n.to_string())
                    .collect();
                self.rows.push(FloorRow {
                    engine: label.clone(),
                    harness_ns: Some(harness),
                    kernel_ns: share(kernel),
                    device_ns: share(device),
                    within_noise,
                    target_ns: Some(*tgt),
                    ram_ns: Some(*ram_mean),
                    unavailable: None,
                });
            }
            (t_res, r_res) => {
                let why = t_res
                    .clone()
                    .err()
                    .or(r_res.clone().err())
                    .unwrap_or_default();
                self.table.row([
                    label.clone(),
                    micros(harness),
                    "n/a".into(),
                    "n/a".into(),
                    t_res.clone().map_or("n/a".into(), micros),
                    format!("n/a: {why}"),
                ]);
                self.rows.push(FloorRow {
                    engine: label.clone(),
                    harness_ns: Some(harness),
                    unavailable: Some(why),
                    ..FloorRow::default()
                });
            }
        }
    }

    fn finish(mut self, ram: &Option<String>, mut notes: Vec<String>) -> StepOutput {
        let scale = self
            .lines
            .iter()
            .map(|l| l.2.max(l.1[0] + l.1[1]))
            .fold(1.0, f64::max);
        for (label, parts, tgt) in &self.lines {
            self.table.row([
                label.clone(),
                micros(parts[0]),
                share(parts[1]),
                share(parts[2]),
                micros(*tgt),
                stacked_bar(*parts, scale, 40),
            ]);
            if parts[1] < 0.0 || parts[2] < 0.0 {
                notes.push(format!("{label}: a share came out below zero (the RAM device was no slower than the harness, or the target no slower than the RAM device: page cache, or noise); it is shown as within noise"));
            }
        }
        let mut text = format!(
            "QD1 4 KiB random read mean latency. harness = null engine (iolab's own cost per I/O); \
             kernel block path = RAM device ({}) − harness; device + rest = target − RAM device.\n\n{}",
            ram.as_deref().unwrap_or("none"),
            self.table.render()
        );
        for n in &notes {
            text.push_str(&format!("- {n}\n"));
        }
        StepOutput::ok(
            serde_json::to_value(FloorStep {
                null_ns: Some(self.harness_ns),
                ram_device: ram.clone(),
                engines: self.rows,
                notes,
            })
            .unwrap_or_default(),
            text,
        )
    }
}

/// A share of the split: its time, or "within noise" where the difference came out below
/// zero.
fn share(ns: f64) -> String {
    match ns < 0.0 {
        true => "within noise".into(),
        false => micros(ns),
    }
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

    #[test]
    fn a_share_below_zero_is_within_noise_never_a_negative_time() {
        let mut split = Split {
            harness_ns: 100.0,
            table: Table::new(["engine", "h", "k", "d", "t", "bar"]),
            rows: Vec::new(),
            lines: Vec::new(),
        };
        split.add("psync".into(), Ok(900.0), Ok(1000.0));
        let out = split.finish(&Some("/dev/zramX".into()), Vec::new());
        let step: FloorStep = iolab_results::review::read(&out.data);
        let row = &step.engines[0];
        assert_eq!(row.device_ns, None, "{row:?}");
        assert_eq!(row.kernel_ns, Some(900.0));
        assert_eq!(row.within_noise, vec!["device".to_string()]);
        assert!(out.text.contains("within noise"), "{}", out.text);
        assert!(!out.text.contains("-100"), "{}", out.text);
    }
}
