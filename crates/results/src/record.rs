//! Results as they are kept and exchanged: a run with its host, its review steps and its
//! jobs, each job with its figures by name (`iops`, `clat_p99_ns`, ...), its latency
//! histograms whole and its time series. The store writes and reads these; `show`,
//! `compare`, `export` and the report read them; `import` makes them from iolab's export or
//! from fio's own JSON. A measured job becomes one with [`JobRecord::from_report`], the one
//! place a figure's stored name and unit are decided.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ordered::{self, Metrics};
use crate::{DirResult, Direction, JobReport, LatencyHistogram, Timebase};

/// The version of this record shape; an import refuses a newer one.
pub const RECORD_VERSION: u32 = 1;

/// What `format` says in an iolab export, so an import can tell it from fio's JSON.
pub const RECORD_FORMAT: &str = "iolab-run";

/// Percentiles kept as figures for quick listing (the histograms hold every other).
pub const STORED_PERCENTILES: [f64; 6] = [50.0, 90.0, 99.0, 99.9, 99.99, 99.999];

/// fio's `bwavgtime`/`iopsavgtime` default: one bandwidth and IOPS sample per 500 ms.
pub const SAMPLE_INTERVAL_NS: u64 = 500_000_000;

/// `p99.999` for 99.999: how a percentile is named in figure names.
pub fn percentile_name(p: f64) -> String {
    format!("p{p}")
}

/// Options kept as a JSON object, as (name, value) pairs in order: strings as they are, any
/// other value as its JSON text (a db_bench argument list); anything but an object is none.
pub fn options_of(v: Value) -> Vec<(String, String)> {
    let Value::Object(m) = v else {
        return Vec::new();
    };
    m.into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect()
}

/// The machine a run ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HostRecord {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: u64,
    /// The machine's settings that move figures (`iolab doctor`'s machine checks) when the
    /// run began; empty in runs kept before iolab recorded them.
    pub machine: Vec<crate::MachineCheck>,
}

/// CPU a job used while measuring, in ns, and what that bought.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CpuRecord {
    pub user_ns: f64,
    pub sys_ns: f64,
    pub io_wq_ns: f64,
    pub sqpoll_ns: f64,
    pub ctx: f64,
    pub iops_per_cpu_sec: f64,
}

impl CpuRecord {
    pub fn total_ns(&self) -> f64 {
        self.user_ns + self.sys_ns + self.io_wq_ns + self.sqpoll_ns
    }
}

/// One latency histogram of a job, whole (`latency` is slat, clat or lat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramRecord {
    pub direction: String,
    pub latency: String,
    pub ticks_per_ns: f64,
    pub histogram: LatencyHistogram,
}

impl HistogramRecord {
    /// Percentiles (in ns) of the whole histogram: any percentile, not only the stored ones.
    pub fn percentiles_ns(&self, pcts: &[f64]) -> Vec<(f64, f64)> {
        let tb = Timebase::with_ticks_per_ns(self.ticks_per_ns);
        self.histogram.summarize(&tb, pcts).percentiles_ns
    }
}

/// One time series of a job: (ms since the measured window began, value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesRecord {
    pub direction: String,
    pub name: String,
    pub points: Vec<(i64, f64)>,
}

/// One job of a run: what ran, where, and what it measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JobRecord {
    /// Its row in the database (0 before it is stored).
    pub id: i64,
    /// Its place in the run.
    pub idx: i64,
    pub name: String,
    #[serde(rename = "groupid")]
    pub group_id: i64,
    pub description: String,
    pub engine: String,
    pub iodepth: i64,
    pub rw: String,
    pub block_size: i64,
    /// Job copies (or an application's threads) it covers.
    pub clones: i64,
    pub target: String,
    /// `File`, `BlockDevice`, `Directory` (an application's database), or '' when unknown.
    pub target_kind: String,
    pub disk: Option<String>,
    pub disk_model: Option<String>,
    /// The disk's firmware revision, where it reports one (NVMe, SCSI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_firmware: Option<String>,
    /// The options as the user wrote them.
    #[serde(with = "ordered")]
    pub options: Vec<(String, String)>,
    pub runtime_ns: i64,
    pub cpu: CpuRecord,
    pub notes: Vec<String>,
    /// The review step that measured it ('' outside reviews).
    pub step: String,
    /// Why its I/O did not take the path asked for, when it did not (see `JobReport`).
    pub fallback: Option<String>,
    /// Interrupts the target's disk raised while the job ran, where it has its own (see
    /// `JobReport`): ~0 for I/O that polled, ~1 per I/O for I/O completed by interrupt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_interrupts: Option<i64>,
    /// How the engine was set up where it chose (see `JobReport`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_setup: Option<String>,
    /// Figures by direction (read, write, sync, app, disk) and name, in the order made.
    pub metrics: Metrics,
    /// The health logs of the drives its files were on, read around its run (empty in runs
    /// kept before iolab read them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub health: Vec<crate::DriveHealth>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub histograms: Vec<HistogramRecord>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<SeriesRecord>,
    /// Each repeat's figures, for a job run `--repeat N` times (the figures above pool them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<crate::RepeatFigures>,
}

impl JobRecord {
    /// CPU time of every kind as a percentage of one core over the job's runtime.
    pub fn cpu_percent(&self) -> Option<f64> {
        (self.runtime_ns > 0 && self.cpu.total_ns() > 0.0)
            .then(|| self.cpu.total_ns() * 100.0 / self.runtime_ns as f64)
    }

    pub fn metric(&self, dir: &str, name: &str) -> Option<f64> {
        self.metrics.get(dir, name)
    }

    /// The directions with results (read, write, sync), in order.
    pub fn directions(&self) -> Vec<&str> {
        self.metrics.directions()
    }

    /// The directions that moved data (read, write, trim): not `sync`, `app` or `disk`.
    pub fn io_directions(&self) -> Vec<&str> {
        let d = self.directions().into_iter();
        d.filter(|d| ["read", "write", "trim"].contains(d))
            .collect()
    }

    /// The stored histogram of `latency` (slat, clat, lat) in `dir`, if any.
    pub fn histogram(&self, dir: &str, latency: &str) -> Option<&HistogramRecord> {
        self.histograms
            .iter()
            .find(|h| h.direction == dir && h.latency == latency)
    }

    /// The 95 % interval of figure `name` in `dir` over the job's repeats; `None` for a job
    /// run once (`--repeat` gives repeats).
    pub fn interval(&self, dir: &str, name: &str) -> Option<crate::Interval> {
        crate::Interval::of(&crate::repeats::values_of(&self.repeats, dir, name))
    }

    /// The series `name` of `dir`, empty when the job has none.
    pub fn series(&self, dir: &str, name: &str) -> &[(i64, f64)] {
        self.series
            .iter()
            .find(|s| s.direction == dir && s.name == name)
            .map_or(&[], |s| &s.points)
    }

    /// The record of a measured job, as review step `step` (or '' outside a review) keeps
    /// it; `options` are the options it was written with.
    pub fn from_report(
        job: &JobReport,
        clock: &Timebase,
        step: &str,
        options: Vec<(String, String)>,
    ) -> JobRecord {
        let setup = &job.setup;
        let cpu = &job.cpu;
        let mut rec = JobRecord {
            name: setup.name.clone(),
            group_id: job.group_id as i64,
            description: setup.description.clone(),
            engine: setup.engine.clone(),
            iodepth: setup.iodepth as i64,
            rw: setup.rw.clone(),
            block_size: setup.block_size as i64,
            clones: job.clones as i64,
            target: setup.files_joined(),
            target_kind: format!("{:?}", job.target.kind),
            disk: job.target.disk_name.clone(),
            options,
            runtime_ns: job.runtime_ns as i64,
            cpu: CpuRecord {
                user_ns: cpu.user_ns as f64,
                sys_ns: cpu.sys_ns as f64,
                io_wq_ns: cpu.iowq_ns as f64,
                sqpoll_ns: cpu.sqpoll_ns as f64,
                ctx: cpu.ctx as f64,
                iops_per_cpu_sec: job.iops_per_cpu_sec(),
            },
            notes: job
                .notes
                .iter()
                .cloned()
                .chain(
                    job.error
                        .iter()
                        .map(|e| format!("error (err={}): {e}", e.errno)),
                )
                .collect(),
            step: step.to_string(),
            fallback: job.fallback.clone(),
            device_interrupts: job.device_interrupts.map(|n| n as i64),
            engine_setup: job.engine_setup.clone(),
            repeats: job.repeats.clone(),
            ..JobRecord::default()
        };
        let dirs = Direction::ALL
            .into_iter()
            .filter_map(|d| job.dir(d).map(|r| (d.name(), r)))
            .chain(job.sync.as_ref().map(|s| ("sync", s)));
        for (dir, r) in dirs {
            rec.add_direction(dir, r, job, clock);
        }
        rec
    }

    fn add_direction(&mut self, dir: &str, r: &DirResult, job: &JobReport, clock: &Timebase) {
        let per_sec = |n: u64| match job.runtime_ns {
            0 => 0.0,
            ns => n as f64 * 1e9 / ns as f64,
        };
        let m = &mut self.metrics;
        m.push(dir, "ios", r.ios as f64);
        m.push(dir, "bytes", r.bytes as f64);
        m.push(dir, "iops", per_sec(r.ios));
        m.push(dir, "bw_bytes", per_sec(r.bytes));
        let open = r.open_loop.as_ref();
        if let Some(ol) = open {
            // iolab's open loop: what was offered, and whether it was carried.
            m.push(dir, "offered_iops", ol.offered_iops);
            m.push(dir, "late_for_slot", ol.late_for_slot as f64);
            let judged = ol.judge(per_sec(r.ios), clock);
            m.push(dir, "sustained", if judged.carried() { 1.0 } else { 0.0 });
            if judged.behind == Some(crate::Behind::Generator) {
                // Not carried, and the generator's doing: the point measured the machine.
                m.push(dir, "generator_behind", 1.0);
            }
            if let Some(w) = ol.cpu_wait_ns {
                m.push(dir, "generator_cpu_wait_ns", w as f64);
            }
        }
        let split = r.lat_split.as_ref();
        if let Some(s) = split {
            add_split_figures(m, dir, s);
        }
        let hists = [
            ("slat", r.slat.as_ref()),
            ("clat", Some(&r.clat)),
            ("lat", Some(&r.lat)),
            ("response", open.map(|o| &o.response)),
            ("lateness", open.map(|o| &o.lateness)),
            ("split_submit", split.map(|s| &s.submit)),
            ("split_device", split.map(|s| &s.device)),
            ("split_completion", split.map(|s| &s.completion)),
            (
                "split_nvme_device",
                split.and_then(|s| s.nvme_device.as_ref()),
            ),
        ];
        for (name, h) in hists {
            let Some(h) = h.filter(|h| h.count() > 0) else {
                continue;
            };
            let s = h.summarize(clock, &STORED_PERCENTILES);
            m.push(dir, &format!("{name}_mean_ns"), s.mean_ns);
            m.push(dir, &format!("{name}_min_ns"), s.min_ns);
            m.push(dir, &format!("{name}_max_ns"), s.max_ns);
            m.push(dir, &format!("{name}_stddev_ns"), s.stddev_ns);
            for (p, v) in &s.percentiles_ns {
                m.push(dir, &format!("{name}_{}_ns", percentile_name(*p)), *v);
            }
            self.histograms.push(HistogramRecord {
                direction: dir.to_string(),
                latency: name.to_string(),
                ticks_per_ns: clock.ticks_per_ns(),
                histogram: h.clone(),
            });
        }
        self.add_rate_series(dir, r);
        if let Some(ms) = job.setup.latency_window_ms {
            self.add_window_series(dir, r, ms as i64, clock);
            if let Some(s) = split {
                self.add_split_series(dir, &s.windows, ms as i64, clock);
            }
        }
    }

    /// IOPS and bandwidth per sampling interval.
    fn add_rate_series(&mut self, dir: &str, r: &DirResult) {
        if r.samples.is_empty() {
            return;
        }
        let every = r.sampling.every_ms as u64;
        let secs = every as f64 / 1e3;
        let t = |i: usize| ((i as u64 + 1) * every) as i64;
        let iops = r.samples.iter().enumerate();
        let iops = iops.map(|(i, s)| (t(i), s.ios as f64 / secs)).collect();
        let bw = r.samples.iter().enumerate();
        let bw = bw.map(|(i, s)| (t(i), s.bytes as f64 / secs)).collect();
        self.push_series(dir, "iops", iops);
        self.push_series(dir, "bw_bytes", bw);
    }

    /// Latency percentiles per `latency_window` (the reviews' latency over hours).
    fn add_window_series(&mut self, dir: &str, r: &DirResult, ms: i64, clock: &Timebase) {
        if r.windows.is_empty() {
            return;
        }
        let t = |i: usize| (i as i64 + 1) * ms;
        let of = |f: fn(&crate::LatencyWindow) -> u64| -> Vec<(i64, f64)> {
            let w = r.windows.iter().enumerate();
            w.map(|(i, w)| (t(i), clock.ticks_to_ns(f(w)))).collect()
        };
        self.push_series(dir, "lat_p50_ns", of(|w| w.p50));
        self.push_series(dir, "lat_p99_ns", of(|w| w.p99));
        self.push_series(dir, "lat_p99.99_ns", of(|w| w.p9999));
        self.push_series(dir, "lat_max_ns", of(|w| w.max));
        let ios = r.windows.iter().enumerate();
        let ios = ios.map(|(i, w)| (t(i), w.ios as f64)).collect();
        self.push_series(dir, "lat_window_ios", ios);
    }

    /// The split's device and host parts per latency window (the hosting review's biosnoop
    /// beside its benchmark, from one tool).
    fn add_split_series(
        &mut self,
        dir: &str,
        windows: &[crate::SplitWindow],
        ms: i64,
        clock: &Timebase,
    ) {
        if windows.is_empty() {
            return;
        }
        let of = |f: fn(&crate::SplitWindow) -> u64| -> Vec<(i64, f64)> {
            let w = windows.iter().enumerate().filter(|(_, w)| w.ios > 0);
            w.map(|(i, w)| ((i as i64 + 1) * ms, clock.ticks_to_ns(f(w))))
                .collect()
        };
        self.push_series(dir, "split_device_p50_ns", of(|w| w.device_p50));
        self.push_series(dir, "split_device_p99_ns", of(|w| w.device_p99));
        self.push_series(dir, "split_host_p50_ns", of(|w| w.host_p50));
        self.push_series(dir, "split_host_p99_ns", of(|w| w.host_p99));
    }

    fn push_series(&mut self, dir: &str, name: &str, points: Vec<(i64, f64)>) {
        self.series.push(SeriesRecord {
            direction: dir.to_string(),
            name: name.to_string(),
            points,
        });
    }
}

/// The latency split's counts and the tail's account, by name (its parts' figures are
/// stored as histograms, `split_submit`, `split_device`, `split_completion`).
fn add_split_figures(m: &mut Metrics, dir: &str, s: &crate::LatSplit) {
    m.push(dir, "split_issued_ios", s.issued as f64);
    m.push(dir, "split_joined_ios", s.joined as f64);
    m.push(dir, "split_or_merged_ios", s.split_or_merged as f64);
    for (pct, name) in [(99.0, "p99"), (99.9, "p99.9")] {
        let Some(t) = s.tail.share(pct) else { continue };
        m.push(dir, &format!("split_tail_{name}_ios"), t.ios as f64);
        m.push(dir, &format!("split_tail_{name}_submit_share"), t.submit);
        m.push(dir, &format!("split_tail_{name}_device_share"), t.device);
        m.push(
            dir,
            &format!("split_tail_{name}_completion_share"),
            t.completion,
        );
    }
}

/// One step of a review as stored: its name, how it ended (`ok`, `skipped`, `failed`,
/// `interrupted`), why when not ok, and its own figures and rendered tables as JSON (each
/// step's own shape, read back by the report section that draws it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepRecord {
    pub name: String,
    pub status: String,
    pub reason: String,
    pub data: Value,
    pub started_ms: i64,
    pub finished_ms: i64,
}

/// A run, whole: what ran, on what machine, how it ended, its steps and its jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRecord {
    /// [`RECORD_FORMAT`].
    pub format: String,
    /// [`RECORD_VERSION`] of the iolab that wrote it.
    pub version: u32,
    /// Its row in the database (0 before it is stored).
    pub id: i64,
    /// `run`, `review`, `kv`, or `fio` for a run imported from fio's JSON.
    pub kind: String,
    /// `running`, `ok`, `failed`, `interrupted`, `crashed`.
    pub status: String,
    /// Unix time in ms.
    pub started_ms: i64,
    pub finished_ms: Option<i64>,
    pub command: String,
    /// The version of the tool that measured it (`fio-3.33` for an import from fio).
    pub iolab_version: String,
    pub host: HostRecord,
    pub clock_source: Option<String>,
    /// Run-level facts (a review's effort profile, target, device facts); `{}` for plain runs.
    pub meta: Value,
    pub steps: Vec<StepRecord>,
    pub jobs: Vec<JobRecord>,
}

impl Default for RunRecord {
    fn default() -> Self {
        RunRecord {
            format: RECORD_FORMAT.to_string(),
            version: RECORD_VERSION,
            id: 0,
            kind: "run".into(),
            status: "ok".into(),
            started_ms: 0,
            finished_ms: None,
            command: String::new(),
            iolab_version: String::new(),
            host: HostRecord::default(),
            clock_source: None,
            meta: Value::Object(Default::default()),
            steps: Vec::new(),
            jobs: Vec::new(),
        }
    }
}

impl StepRecord {
    /// The step's output as the terminal printed it (kept with its data).
    pub fn text(&self) -> &str {
        self.data.get("text").and_then(Value::as_str).unwrap_or("")
    }

    /// The step's data as `T` (see [`crate::review`]); nothing for another shape.
    pub fn typed<T: serde::de::DeserializeOwned + Default>(&self) -> T {
        crate::review::read(&self.data)
    }
}

/// What a run's meta says of its target and settings, across kinds: a review's profile and
/// target, a key-value run's directory, filesystem, key count and threads. Each `None`
/// where the kind does not keep it.
/// Borrowed from the meta: nothing is copied, however often a reader asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetaFacts<'a> {
    pub profile: Option<&'a str>,
    pub target: Option<&'a str>,
    pub dir: Option<&'a str>,
    pub filesystem: Option<&'a str>,
    pub db_bench_version: Option<&'a str>,
    pub num: Option<u64>,
    pub threads: Option<u64>,
    /// The disk under the target, where the run's meta names it.
    pub disk_model: Option<&'a str>,
    pub disk: Option<&'a str>,
    /// The directory a job file's relative names were read against.
    pub cwd: Option<&'a str>,
    /// A job file run's sections, as written (`show --job-file` prints them back).
    pub sections: Option<&'a Value>,
    /// A run over many hosts: each host's figures.
    pub per_host: Option<&'a Value>,
}

impl RunRecord {
    /// [`MetaFacts`] of the run's meta.
    pub fn facts(&self) -> MetaFacts<'_> {
        // Each field alone: one of another type (a PTS document's `target`) leaves the rest.
        let get = |k: &str| self.meta.get(k);
        let text = |k: &str| get(k).and_then(Value::as_str);
        let int = |k: &str| get(k).and_then(Value::as_u64);
        MetaFacts {
            profile: text("profile"),
            target: text("target"),
            dir: text("dir"),
            filesystem: text("filesystem"),
            db_bench_version: text("db_bench_version"),
            num: int("num"),
            threads: int("threads"),
            disk_model: text("disk_model"),
            disk: text("disk"),
            cwd: text("cwd"),
            sections: get("sections"),
            per_host: get("per_host"),
        }
    }

    /// The step named `name`, if the run has it.
    pub fn step(&self, name: &str) -> Option<&StepRecord> {
        self.steps.iter().find(|s| s.name == name)
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
