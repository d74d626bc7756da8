//! Step 1: what a reviewer writes down before measuring — the disk behind the target (from
//! sysfs) and the host. Saved in the step and in the run's facts.

use iolab_results::review::{InfoDisk, InfoHost, InfoStep};
use iolab_sysinfo::device::{cpu_governor, filesystem_of, kernel_clocksource, DiskFacts};
use iolab_sysinfo::host::host_facts;
use iolab_sysinfo::{probe, probe_new_file, TargetKind};

use super::StepOutput;
use crate::exec::Executor;
use crate::table::Table;
use crate::{Findings, ReviewConfig, Step, SuiteError};

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

fn bytes(v: Option<u64>) -> String {
    v.map_or("unknown".into(), |b| {
        format!(
            "{} ({b} bytes)",
            iolab_report::format::bytes_binary(b as f64)
        )
    })
}

/// The step as the review (and, for QD1, the main job) runs it.
pub struct Info;

impl super::ReviewStep for Info {
    fn step(&self) -> Step {
        Step::Info
    }

    fn points(&self, _cfg: &ReviewConfig, _polled: bool) -> usize {
        0
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
    let facts = if cfg.target.exists() {
        probe(&cfg.target)
    } else {
        probe_new_file(&cfg.target)
    }
    .map_err(|e| SuiteError::Other(e.to_string()))?;
    let disk = facts.disk_name.as_deref().map(DiskFacts::read);
    let fs = (facts.kind == TargetKind::File)
        .then(|| filesystem_of(cfg.target.parent().unwrap_or(&cfg.target)))
        .flatten();
    let mut t = Table::new(["fact", "value"]).all_left();
    let kind = match facts.kind {
        TargetKind::File => format!(
            "file on {}",
            fs.as_deref().unwrap_or("an unknown filesystem")
        ),
        TargetKind::BlockDevice => "block device".into(),
        TargetKind::NvmeGeneric => "NVMe generic char device (passthrough)".into(),
        TargetKind::SpdkNvme => "NVMe namespace on SPDK's user-space driver".into(),
    };
    t.row([
        "target".to_string(),
        format!("{} ({kind})", cfg.target.display()),
    ]);
    let region = cfg.size.or(Some(facts.size_bytes));
    t.row(["region measured".to_string(), bytes(region)]);
    match &disk {
        Some(d) => disk_rows(&mut t, d),
        None => t.row([
            "disk".to_string(),
            "none in /sys/block (virtual filesystem?)".to_string(),
        ]),
    }
    let host = host_rows(&mut t, &ex.clock);
    let data = InfoStep {
        target: Some(cfg.target.display().to_string()),
        target_kind: Some(format!("{:?}", facts.kind)),
        filesystem: fs,
        target_bytes: Some(facts.size_bytes),
        logical_block_size: Some(facts.logical_block_size.into()),
        disk: disk.as_ref().map(stored_disk),
        host: Some(host),
    };
    Ok(StepOutput::ok(
        serde_json::to_value(data).unwrap_or_default(),
        t.render(),
    ))
}

fn disk_rows(t: &mut Table, d: &DiskFacts) {
    let yes_no = |v: Option<bool>, yes: &str| match v {
        Some(true) => yes.to_string(),
        Some(false) => "no".into(),
        None => "unknown".into(),
    };
    t.row(["disk".to_string(), d.name.clone()]);
    t.row(["model".to_string(), opt(&d.model)]);
    t.row(["capacity".to_string(), bytes(d.capacity_bytes)]);
    let blocks = format!(
        "{} / {} bytes",
        opt(&d.logical_block_size),
        opt(&d.physical_block_size)
    );
    t.row(["logical / physical block".to_string(), blocks]);
    t.row(["rotational".to_string(), yes_no(d.rotational, "yes")]);
    t.row(["scheduler".to_string(), opt(&d.scheduler)]);
    t.row(["nr_requests".to_string(), opt(&d.nr_requests)]);
    let poll = yes_no(d.io_poll, "yes (poll queues present)");
    t.row(["polled I/O (io_poll)".to_string(), poll]);
    if let Some(q) = d.nvme_poll_queues {
        t.row(["nvme poll_queues".to_string(), q.to_string()]);
    }
    if let Some(z) = iolab_sysinfo::target::disk_zoned(&d.name) {
        t.row([
            "zoned".to_string(),
            format!("{z} (writes need fio's zonemode=zbd)"),
        ]);
    }
    t.row(["write cache".to_string(), opt(&d.write_cache)]);
    let discard = match d.discard_max_bytes {
        Some(0) => "not supported".into(),
        Some(b) => format!(
            "supported (up to {} per request)",
            iolab_report::format::bytes_binary(b as f64)
        ),
        None => "unknown".into(),
    };
    t.row(["discard".to_string(), discard]);
}

fn stored_disk(d: &DiskFacts) -> InfoDisk {
    InfoDisk {
        name: Some(d.name.clone()),
        model: d.model.clone(),
        capacity_bytes: d.capacity_bytes,
        logical_block_size: d.logical_block_size,
        physical_block_size: d.physical_block_size,
        rotational: d.rotational,
        scheduler: d.scheduler.clone(),
        nr_requests: d.nr_requests,
        io_poll: d.io_poll,
        nvme_poll_queues: d.nvme_poll_queues,
        write_cache: d.write_cache.clone(),
        discard_max_bytes: d.discard_max_bytes,
    }
}

/// The host's rows, and its facts as the step keeps them.
fn host_rows(t: &mut Table, clock: &iolab_stats::Clock) -> InfoHost {
    let host = host_facts();
    let governor = cpu_governor();
    let clocksource = kernel_clocksource();
    t.row(["host".to_string(), host.hostname.clone()]);
    t.row([
        "CPU".to_string(),
        format!("{} ({} CPUs)", host.cpu_model, host.cpus),
    ]);
    let gov = governor
        .clone()
        .unwrap_or_else(|| "none (no cpufreq)".into());
    t.row(["frequency governor".to_string(), gov]);
    t.row(["kernel".to_string(), host.kernel.clone()]);
    t.row(["iolab".to_string(), env!("CARGO_PKG_VERSION").to_string()]);
    t.row([
        "clock".to_string(),
        format!(
            "iolab {} ({:.3} ticks/ns); kernel {}",
            clock.source(),
            clock.ticks_per_ns(),
            opt(&clocksource)
        ),
    ]);
    InfoHost {
        hostname: Some(host.hostname),
        cpu_model: Some(host.cpu_model),
        cpus: Some(host.cpus as u64),
        governor,
        kernel: Some(host.kernel),
        iolab_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        clock_source: Some(clock.source().to_string()),
        kernel_clocksource: clocksource,
    }
}
