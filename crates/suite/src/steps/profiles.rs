//! Step 6: the hosting review's table — 4 KiB random read and write at QD1, QD16 and QD128,
//! and 4 MiB random read and write at QD32.

use iolab_job::Pattern;
use iolab_report::format::{compact, micros};
use iolab_results::review::{ProfilePoint, ProfilesStep};

use super::{point_spec, size_label, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// (block size, queue depth)
pub const PROFILES: [(u32, u32); 4] = [(4096, 1), (4096, 16), (4096, 128), (4 << 20, 32)];

/// The step as the review (and, for QD1, the main job) runs it.
pub struct Profiles;

impl super::ReviewStep for Profiles {
    fn step(&self) -> Step {
        Step::Profiles
    }

    fn points(&self, _cfg: &ReviewConfig, _polled: bool) -> usize {
        PROFILES.len() * 2
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
    let mut t = Table::new([
        "profile",
        "read IOPS",
        "read MB/s",
        "read mean",
        "read p99",
        "write IOPS",
        "write MB/s",
        "write mean",
        "write p99",
    ]);
    let mut rows = Vec::new();
    for (bs, qd) in PROFILES {
        let name = format!("{} QD{qd}", size_label(bs));
        let mut row = vec![name.clone()];
        for (rw, read) in [("randread", 100), ("randwrite", 0)] {
            let spec = point_spec(
                cfg,
                Step::Profiles,
                format!("profile-{rw}-{}-qd{qd}", size_label(bs)),
                Workload {
                    engine: engine.clone(),
                    pattern: Pattern::Random,
                    read_percent: read,
                    bs,
                    iodepth: qd,
                },
            );
            match ex.run_point(Step::Profiles, &format!("{name} {rw}"), spec, None)? {
                Point::Done(r) => {
                    let n = Nums::of(&r, &ex.clock);
                    match n {
                        Some(n) => row.extend([
                            compact(n.iops),
                            format!("{:.0}", n.bytes_per_sec / 1e6),
                            micros(n.mean_ns),
                            micros(n.p99_ns),
                        ]),
                        None => row.extend(["-".to_string(), "-".into(), "-".into(), "-".into()]),
                    }
                    rows.push(ProfilePoint {
                        profile: name.to_string(),
                        bs,
                        qd,
                        rw: rw.to_string(),
                        figures: n.map(Nums::figures),
                        unavailable: None,
                    });
                }
                Point::Unavailable(why) => {
                    row.extend(["n/a".to_string(), "-".into(), "-".into(), "-".into()]);
                    rows.push(ProfilePoint {
                        profile: name.to_string(),
                        bs,
                        qd,
                        rw: rw.to_string(),
                        figures: None,
                        unavailable: Some(why),
                    });
                }
            }
        }
        t.row(row);
    }
    let reasons: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            Some(format!(
                "- n/a {} {}: {}\n",
                r.profile,
                r.rw,
                r.unavailable.as_deref()?
            ))
        })
        .collect();
    let text = format!(
        "Random I/O, one thread, {}.\n\n{}{}",
        engine.label(),
        t.render(),
        reasons.concat()
    );
    Ok(StepOutput::ok(
        serde_json::to_value(ProfilesStep {
            engine: engine.label(),
            points: rows,
        })
        .unwrap_or_default(),
        text,
    ))
}
