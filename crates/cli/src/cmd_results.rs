//! `iolab history`, `show`, `compare` and `export`: runs kept in the results database,
//! listed, shown again, set side by side or exported, for people (tables) or scripts
//! (`--json`, CSV).

use crate::local_time::when;
use iolab_results::pts::PtsDocument;
use iolab_results::review::{ProfilesStep, Qd1Step, SweepStep};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use iolab_report::export::{self, markdown::latency_kind, Exporter};
use iolab_report::format::{compact, micros};
use iolab_report::verdict::Word;
use iolab_results::{JobRecord, RunRecord, Verdict};
use iolab_store::{Store, StoreError};

use crate::exit::CliError;

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub format: crate::output::TableFormatArg,
    /// How many of the newest runs to list (after the filters).
    #[arg(short = 'n', long, default_value_t = 20)]
    pub limit: usize,
    /// Only runs whose target, disk or disk model contains this text (/dev/nvme0n1, P4800X)
    #[arg(long, value_name = "TEXT")]
    pub device: Option<String>,
    /// Only runs of this kind (run, qd1, review, pts, kv, fio import)
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Only runs with a job on this engine (psync, io_uring, libaio, ...)
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<String>,
    /// Only runs started since a date (2026-11-01, local time) or within a span back from
    /// now (12h, 7d, 2w)
    #[arg(long, value_name = "WHEN", value_parser = parse_since)]
    pub since: Option<i64>,
}

/// `--since`: a local date (`2026-11-01`) or a span back from now (`30m`, `12h`, `7d`, `2w`),
/// as Unix ms.
fn parse_since(s: &str) -> Result<i64, String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let bad = || format!("'{s}' is neither a date (2026-11-01) nor a span (12h, 7d, 2w)");
    let t = s.trim();
    if let Some((n, unit)) = t
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&i| i > 0 && i == t.len() - 1)
        .map(|i| (&t[..i], &t[i..]))
    {
        let n: i64 = n.parse().map_err(|_| bad())?;
        let ms = match unit {
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            "w" => 7 * 86_400_000,
            _ => return Err(bad()),
        };
        return Ok(now - n.saturating_mul(ms));
    }
    let parts: Vec<i32> = t
        .split('-')
        .map(|p| p.parse::<i32>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    // SAFETY: mktime reads and normalises only the tm it is given.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = y - 1900;
    tm.tm_mon = m - 1;
    tm.tm_mday = d;
    tm.tm_isdst = -1;
    let t = unsafe { libc::mktime(&mut tm) };
    match t {
        -1 => Err(bad()),
        t => Ok(t * 1000),
    }
}

impl HistoryArgs {
    fn filtered(&self) -> bool {
        self.device.is_some()
            || self.kind.is_some()
            || self.engine.is_some()
            || self.since.is_some()
    }

    /// Whether a run passes every filter given.
    fn keeps(&self, r: &RunRecord) -> bool {
        let device = self.device.as_deref().is_none_or(|d| {
            r.jobs.iter().any(|j| {
                j.target.contains(d)
                    || j.disk.as_deref().is_some_and(|x| x.contains(d))
                    || j.disk_model.as_deref().is_some_and(|x| x.contains(d))
            })
        });
        let kind = self.kind.as_deref().is_none_or(|k| r.kind == k);
        let engine = self
            .engine
            .as_deref()
            .is_none_or(|e| r.jobs.iter().any(|j| j.engine == e));
        let since = self.since.is_none_or(|t| r.started_ms >= t);
        device && kind && engine && since
    }
}

/// The engines of a run's jobs, each once, in order.
fn engines_of(r: &RunRecord) -> String {
    let mut e: Vec<&str> = Vec::new();
    for j in &r.jobs {
        if !j.engine.is_empty() && !e.contains(&j.engine.as_str()) {
            e.push(&j.engine);
        }
    }
    match e.len() {
        0 => "-".into(),
        1..=3 => e.join(","),
        n => format!("{} +{}", e[..2].join(","), n - 2),
    }
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The run's id, as `iolab history` lists it.
    pub run: i64,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub format: crate::output::FormatArg,
    /// For a review: the table of every measured point as well as the steps' tables.
    #[arg(long)]
    pub jobs: bool,
    /// Print a job file that reruns the run's jobs: every option in force, from any
    /// section or the command line, file names absolute (`iolab run` of it does the same
    /// I/O).
    #[arg(long)]
    pub job_file: bool,
}

/// Opens the database for reading: nothing is created, a missing database is bad input.
fn open(db: &Option<PathBuf>) -> Result<Store, CliError> {
    let path = db.clone().unwrap_or_else(Store::default_path);
    crate::store_open::open_existing(&path).map_err(|e| match e {
        e if e.is_bad_input() => CliError::bad_input(e),
        e => CliError::failed(e),
    })
}

/// `?` for a fact a run did not record (an import from fio has no CPU model).
fn or_unknown(s: &str) -> &str {
    if s.is_empty() {
        "?"
    } else {
        s
    }
}

/// `qd1 read 129k IOPS, lat mean 7.72 µs` for a job's first direction: the latency kind
/// named, the same `compare` and the report take.
fn headline(j: &JobRecord) -> String {
    let Some(dir) = j.directions().into_iter().find(|d| *d != "sync") else {
        return format!("{} (no results)", j.name);
    };
    let iops = j.metric(dir, "iops").unwrap_or(0.0);
    let kind = latency_kind(j, dir);
    let lat = j.metric(dir, &format!("{kind}_mean_ns")).unwrap_or(0.0);
    format!(
        "{} {dir} {} IOPS, {kind} mean {}",
        j.name,
        compact(iops),
        micros(lat)
    )
}

/// A review's headline: the QD1 4 KiB random read its table marked best, and how many points
/// it measured. A best is named only where the step's table marked one (beyond the rounds'
/// intervals); a run whose rows marked nothing (one round, ties, or stored before steps kept
/// their marks) gets the top figure said as the highest, never as the best.
fn review_headline(r: &RunRecord) -> String {
    let points = format!("{} points", r.jobs.len());
    let step = r.steps.iter().find(|s| s.name == "qd1-engines");
    let marks: iolab_results::Marks = step
        .and_then(|s| s.typed::<Qd1Step>().marks)
        .unwrap_or_default();
    let cell = |engine: &str| {
        r.jobs
            .iter()
            .find(|j| j.step == "qd1-engines" && j.rw == "randread" && j.engine == engine)
    };
    let figures = |j: &JobRecord| {
        format!(
            "{} IOPS, lat mean {}",
            compact(j.metric("read", "iops").unwrap_or(0.0)),
            micros(j.metric("read", "lat_mean_ns").unwrap_or(0.0))
        )
    };
    let marked = marks
        .0
        .iter()
        .find(|m| m.metric == "IOPS" && m.workload.contains("Random Read"));
    if let Some(j) = marked.and_then(|m| cell(m.best.as_deref()?)) {
        return format!("QD1 4k read best {} {}; {points}", j.engine, figures(j));
    }
    let top = r
        .jobs
        .iter()
        .filter(|j| j.step == "qd1-engines" && j.rw == "randread")
        // The null engine does no I/O, and a path that fell back measured another one.
        .filter(|j| j.engine != "null" && j.fallback.is_none())
        .filter_map(|j| Some((j, j.metric("read", "iops")?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let why = match marked {
        Some(m) if !m.ties.is_empty() => format!("{} tie", m.ties.join(" and ")),
        Some(m) => m.unjudged.clone().unwrap_or_else(|| "none marked".into()),
        None => "no marks kept".into(),
    };
    match top {
        Some((j, _)) => format!(
            "QD1 4k read highest {} {} (no best: {why}); {points}",
            j.engine,
            figures(j)
        ),
        None => points,
    }
}

/// A kv run's headline: each workload's ops/s.
fn kv_headline(r: &RunRecord) -> String {
    let parts: Vec<String> = r
        .jobs
        .iter()
        .map(|j| {
            format!(
                "{} {} ops/s",
                j.name,
                compact(j.metric("app", "ops_per_sec").unwrap_or(0.0))
            )
        })
        .collect();
    if parts.is_empty() {
        "no workload finished".into()
    } else {
        parts.join(", ")
    }
}

/// Longest a target path is shown in `history`; longer ones keep their end (`…/db`).
const TARGET_WIDTH: usize = 36;

/// `text` cut to its last `width` characters, marked with `…` when cut.
fn tail(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    let kept: String = text.chars().skip(n - (width - 1)).collect();
    format!("…{kept}")
}

/// One run's cells in `history`: id, started, kind, status, target, device, headline.
fn history_cells(r: &RunRecord) -> [String; 8] {
    let first = r.jobs.first();
    let target = first.map_or("-".to_string(), |j| tail(&j.target, TARGET_WIDTH));
    let model = first
        .and_then(|j| j.disk_model.clone().or_else(|| j.disk.clone()))
        .unwrap_or_else(|| "-".into());
    let head = if r.kind == "review" || r.kind == "qd1" {
        review_headline(r)
    } else if r.kind == "kv" {
        kv_headline(r)
    } else {
        first.map_or(String::new(), headline)
    };
    let more = if r.kind == "run" && r.jobs.len() > 1 {
        format!(" (+{} jobs)", r.jobs.len() - 1)
    } else {
        String::new()
    };
    [
        r.id.to_string(),
        when(r.started_ms),
        r.kind.clone(),
        r.status.clone(),
        target,
        model,
        engines_of(r),
        format!("{head}{more}"),
    ]
}

/// Rows in columns as wide as their widest cell (the id right-aligned, the last left ragged).
fn aligned(rows: &[[String; 8]]) -> Vec<String> {
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let last = rows.first().map_or(0, |r| r.len() - 1);
    let w: Vec<usize> = (0..last).map(width).collect();
    rows.iter()
        .map(|r| {
            let mut line = format!("{:>w0$}", r[0], w0 = w[0]);
            for i in 1..last {
                line.push_str(&format!("  {:<wi$}", r[i], wi = w[i]));
            }
            line.push_str("  ");
            line.push_str(&r[last]);
            line.trim_end().to_string()
        })
        .collect()
}

pub fn history(a: &HistoryArgs) -> Result<ExitCode, CliError> {
    let path = a.db.clone().unwrap_or_else(Store::default_path);
    let runs = match crate::store_open::open_existing(&path) {
        Ok(store) => {
            let loaded = match a.filtered() {
                true => usize::MAX,
                false => a.limit,
            };
            let mut runs = store.history(loaded).map_err(CliError::failed)?;
            runs.retain(|r| a.keeps(r));
            runs.truncate(a.limit);
            runs
        }
        Err(StoreError::Missing(_)) => Vec::new(),
        Err(e) if e.is_bad_input() => return Err(CliError::bad_input(e)),
        Err(e) => return Err(CliError::failed(e)),
    };
    if a.format.json() {
        let v: Vec<_> = runs.iter().map(RunRecord::to_json).collect();
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    if a.format.csv() {
        out!("{}", crate::results_csv::history(&runs));
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() && a.filtered() {
        say!("iolab: no run in {} matches the filters", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() {
        say!("iolab: no runs yet in {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let header = [
        "id", "started", "kind", "status", "target", "device", "engines", "headline",
    ];
    let mut rows = vec![header.map(String::from)];
    rows.extend(runs.iter().map(history_cells));
    for line in aligned(&rows) {
        outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn show(a: &ShowArgs) -> Result<ExitCode, CliError> {
    let store = open(&a.db)?;
    let d = load(&store, a.run)?;
    if a.job_file {
        return print_job_file(&d);
    }
    if a.format.json() {
        outln!(
            "{}",
            serde_json::to_string_pretty(&d.to_json())
                .context("writing JSON")
                .map_err(CliError::failed)?
        );
        return Ok(ExitCode::SUCCESS);
    }
    print_head(&d);
    if d.kind == "kv" {
        print_kv(&d);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(doc) = (d.kind == "pts")
        .then(|| PtsDocument::from_meta(&d.meta))
        .flatten()
    {
        outln!();
        out!("{}", iolab_pts::text::summary(&doc));
        if !a.jobs {
            return Ok(ExitCode::SUCCESS);
        }
    }
    if !d.steps.is_empty() {
        print_review(&d);
        if !a.jobs {
            return Ok(ExitCode::SUCCESS);
        }
    }
    print_jobs(&d);
    Ok(ExitCode::SUCCESS)
}

/// `show --job-file`: the run's jobs as a job file, from what the run kept.
fn print_job_file(d: &RunRecord) -> Result<ExitCode, CliError> {
    let sections: Option<Vec<iolab_fio::args::Section>> = d
        .facts()
        .sections
        .and_then(|s| serde_json::from_value(s.clone()).ok());
    let Some(sections) = sections.filter(|s| !s.is_empty()) else {
        return Err(CliError::bad_input(anyhow::anyhow!(
            "run {} kept no job options to rerun (a {} run, or one saved before iolab kept \
             them); its command was: {}",
            d.id,
            d.kind,
            d.command
        )));
    };
    let cwd = d.facts().cwd.unwrap_or("/");
    let body = iolab_fio::args::job_file_of(&sections, std::path::Path::new(cwd))
        .map_err(|e| CliError::bad_input(anyhow::anyhow!("run {}: {e}", d.id)))?;
    // The comment lines are stored text too: each kept on its line.
    let comment = iolab_fio::args::controls_escaped;
    outln!(
        "; iolab run {} ({}), started {} on {}\n; {}\n; every option in force per job; \
         rerun with: iolab run FILE (and --allow-destroy where it writes)\n",
        d.id,
        comment(&d.status),
        when(d.started_ms),
        comment(or_unknown(&d.host.hostname)),
        comment(&d.command)
    );
    out!("{body}");
    Ok(ExitCode::SUCCESS)
}

/// What ran, when, where, and with what.
fn print_head(d: &RunRecord) {
    outln!(
        "run {} ({}, {}), started {}",
        d.id,
        d.kind,
        d.status,
        when(d.started_ms)
    );
    outln!("  command: {}", d.command);
    if d.kind == "fio" {
        outln!(
            "  measured by {} (imported from its JSON, which names no host)",
            d.iolab_version
        );
        return;
    }
    outln!(
        "  host: {} ({}, {} CPUs, kernel {}); iolab {}{}",
        or_unknown(&d.host.hostname),
        or_unknown(&d.host.cpu_model),
        d.host.cpus,
        or_unknown(&d.host.kernel),
        d.iolab_version,
        // Runs iolab did not time itself (kv) have no clock.
        d.clock_source
            .as_deref()
            .map_or(String::new(), |c| format!("; clock {c}"))
    );
    // The machine's settings as the run began, where they were not as a benchmark wants.
    let off: Vec<String> = d
        .host
        .machine
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Distorts | Verdict::Note))
        .map(|c| format!("{} {} ({})", c.name, c.value, c.verdict.word()))
        .collect();
    if !off.is_empty() {
        outln!("  machine: {}", off.join("; "));
    }
    for line in iolab_results::record_lines(&d.jobs) {
        outln!("  {line}");
    }
}

/// An application load: its setting, its workloads table and their notes, each once.
fn print_kv(d: &RunRecord) {
    let f = d.facts();
    let number = |v: Option<u64>| v.map_or("?".into(), |n| n.to_string());
    outln!(
        "  db_bench {} in {} ({}, device {}): {} keys, readrandom with {} threads",
        f.db_bench_version.unwrap_or("?"),
        f.dir.unwrap_or("?"),
        f.filesystem.unwrap_or("?"),
        crate::kv_table::device(d),
        number(f.num),
        number(f.threads)
    );
    outln!();
    out!("{}", crate::kv_table::workloads_table(&d.jobs));
    let mut seen: Vec<&String> = Vec::new();
    for n in d.jobs.iter().flat_map(|j| &j.notes) {
        if !seen.contains(&n) {
            outln!("- {n}");
            seen.push(n);
        }
    }
}

/// One row per job and direction, then the jobs' notes; for a run on many hosts (whose jobs
/// are the hosts merged), a row per host after.
fn print_jobs(d: &RunRecord) {
    outln!();
    let _ = export::markdown::jobs_table(&d.jobs, &mut crate::escape::stdout());
    print_hosts(d);
}

/// The per-host table of a run on many hosts; nothing for a run on one.
fn print_hosts(d: &RunRecord) {
    if let Some((head, rows)) = iolab_report::hosts::from_meta(&d.meta) {
        let _ = iolab_report::hosts::write_hosts(&head, &rows, &mut crate::escape::stdout());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_names_first_direction() {
        let j = JobRecord {
            id: 1,
            idx: 0,
            name: "qd1".into(),
            group_id: 0,
            description: String::new(),
            engine: "psync".into(),
            iodepth: 1,
            rw: "randread".into(),
            block_size: 4096,
            target: "/dev/zram0".into(),
            disk: Some("zram0".into()),
            disk_model: None,
            runtime_ns: 1,
            notes: vec![],
            step: String::new(),
            metrics: iolab_results::Metrics(vec![
                ("read".into(), "iops".into(), 129_000.0),
                ("read".into(), "lat_mean_ns".into(), 7720.0),
            ]),
            ..JobRecord::default()
        };
        assert_eq!(headline(&j), "qd1 read 129k IOPS, lat mean 7.72 µs");
    }
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Two or more run ids.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<i64>,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// A CI gate on FIGURE (iops, mean or a percentile such as p99; iops when not named):
    /// 10 or p99=10. Each later run's ratio to the first, with its 95 % interval from the
    /// runs' repeats (iolab run --repeat N), against the ratio a PERCENT loss is. Exit 1:
    /// worse shown (the whole interval beyond that loss). Exit 0: not worse shown (the whole
    /// interval short of it). Exit 3: cannot tell (the interval holds it, or a run was
    /// measured once; it says how many repeats would decide). Exit 2: bad input (a figure
    /// the runs lack, or no run with repeats). Each row's outcome is said on stderr.
    #[arg(long, value_name = "[FIGURE=]PERCENT")]
    pub fail_if_worse: Option<crate::verdicts::FailIfWorse>,
    /// "no difference" only where the ratio's whole 95 % interval lies within ±PERCENT;
    /// "faster"/"slower" where it excludes 1; "inconclusive" otherwise.
    #[arg(long, value_name = "PERCENT", default_value_t = 3.0,
          value_parser = crate::verdicts::parse_noise)]
    pub noise_threshold: f64,
    #[command(flatten)]
    pub format: crate::output::TableFormatArg,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// The run record whole (histograms, series, steps): `iolab import` reads it back
    Json,
    /// One row per job, direction and figure
    Csv,
    /// The jobs table, as `iolab show` prints it
    Markdown,
    /// The charts, as `iolab report` draws them
    Html,
}

impl ExportFormat {
    fn exporter(self) -> Box<dyn Exporter> {
        match self {
            ExportFormat::Json => Box::new(export::Json),
            ExportFormat::Csv => Box::new(export::Csv),
            ExportFormat::Markdown => Box::new(export::Markdown),
            ExportFormat::Html => Box::new(iolab_html::Html),
        }
    }
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Runs to export (several: one document; JSON makes an array, which import reads too)
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<i64>,
    /// What to write (--output-format is another name for it)
    #[arg(long, alias = "output-format", value_enum, default_value = "json")]
    pub format: ExportFormat,
    /// With --format csv: one row per job and direction, figures as columns (the wide
    /// form a spreadsheet charts), instead of one row per figure
    #[arg(long)]
    pub wide: bool,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

/// A review's steps as they were printed, with how each ended.
fn print_review(d: &RunRecord) {
    let facts = d.facts();
    if let Some(p) = &facts.profile {
        outln!("  review: {p} profile on {}", facts.target.unwrap_or("?"));
    }
    for (i, st) in d.steps.iter().enumerate() {
        outln!();
        let status = if st.status == "ok" {
            String::new()
        } else {
            format!(" [{}]", st.status)
        };
        outln!("## {}. {}{status}\n", i + 1, st.name);
        out!("{}", st.text());
    }
}

/// The figures of one profile point of a review (`4k QD16`, `randread`): IOPS, mean ns.
fn profile_cell(d: &RunRecord, profile: &str, rw: &str) -> Option<(f64, f64)> {
    let step: ProfilesStep = d.step("profiles")?.typed();
    let p = step
        .points
        .iter()
        .find(|p| p.profile == profile && p.rw == rw)?;
    let f = p.figures?;
    Some((f.iops?, f.mean_ns?))
}

/// Reviews side by side: the profiles (runs as rows, the hosting review's table), the
/// saturation points, then each run's QD1 engine tables.
fn compare_reviews(runs: &[RunRecord], json: bool) {
    let mut columns: Vec<(String, String)> = Vec::new();
    for r in runs {
        let step: ProfilesStep = r.step("profiles").map(|s| s.typed()).unwrap_or_default();
        for p in step.points {
            let c = (p.profile, p.rw);
            if !columns.contains(&c) {
                columns.push(c);
            }
        }
    }
    let device = |r: &RunRecord| {
        r.jobs
            .iter()
            .find_map(|j| j.disk_model.clone())
            .unwrap_or_else(|| r.facts().target.unwrap_or("?").to_string())
    };
    let saturation = |r: &RunRecord, rw: &str| {
        let sweep: SweepStep = r.step("qd-sweep")?.typed();
        sweep.saturation.get(rw)?.qd
    };
    if json {
        let v: Vec<_> = runs
            .iter()
            .map(|r| {
                let cells: serde_json::Map<String, serde_json::Value> = columns
                    .iter()
                    .filter_map(|(p, rw)| {
                        profile_cell(r, p, rw).map(|(iops, mean)| {
                            (
                                format!("{p} {rw}"),
                                serde_json::json!({"iops": iops, "mean_ns": mean}),
                            )
                        })
                    })
                    .collect();
                serde_json::json!({
                    "run": r.id,
                    "target": r.facts().target,
                    "device": device(r),
                    "profile": r.facts().profile,
                    "profiles": cells,
                    "saturation_qd": {
                        "randread": saturation(r, "randread"),
                        "randwrite": saturation(r, "randwrite"),
                    },
                    "qd1_engines": r.step("qd1-engines").map(|s| s.typed::<Qd1Step>().cells),
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return;
    }
    let head: Vec<String> = columns.iter().map(|(p, rw)| format!("{p} {rw}")).collect();
    outln!(
        "| run | device | {} | saturation QD read/write |",
        head.join(" | ")
    );
    outln!("|---|---|{}---:|", "---:|".repeat(columns.len()));
    for r in runs {
        let cells: Vec<String> = columns
            .iter()
            .map(|(p, rw)| match profile_cell(r, p, rw) {
                Some((iops, mean)) => format!("{} IOPS, {}", compact(iops), micros(mean)),
                None => "n/a".into(),
            })
            .collect();
        let sat = |rw| saturation(r, rw).map_or("-".to_string(), |q| q.to_string());
        outln!(
            "| {} | {} | {} | {} / {} |",
            r.id,
            device(r),
            cells.join(" | "),
            sat("randread"),
            sat("randwrite")
        );
    }
    for r in runs {
        if let Some(s) = r.step("qd1-engines") {
            outln!("\n## run {}: QD1 engines on {}\n", r.id, device(r));
            out!("{}", s.text());
        }
    }
}

fn load(store: &Store, id: i64) -> Result<RunRecord, CliError> {
    store.run(id).map_err(|e| match e {
        StoreError::NoRun(_) => CliError::bad_input(e),
        e => CliError::failed(e),
    })
}

pub fn compare(a: &CompareArgs) -> Result<ExitCode, CliError> {
    let store = open(&a.db)?;
    let runs = a
        .runs
        .iter()
        .map(|&id| load(&store, id))
        .collect::<Result<Vec<_>, _>>()?;
    let mut kinds: Vec<&str> = runs.iter().map(|r| r.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    if kinds.len() > 1 {
        say!(
            "iolab: note: these runs are of different kinds ({}): each column is one job, so \
             runs without that job show n/a; compare runs of one kind for a table that lines up",
            kinds.join(", ")
        );
    }
    if runs.iter().all(|r| r.kind == "pts") && !a.format.csv() && a.fail_if_worse.is_none() {
        compare_pts(&runs, a);
        return Ok(ExitCode::SUCCESS);
    }
    let jobs_kind = !runs.iter().all(|r| r.kind == "review" || r.kind == "kv");
    if a.fail_if_worse.is_some() && !jobs_kind {
        return Err(CliError::bad_input(anyhow::anyhow!(
            "--fail-if-worse compares runs' jobs (iolab run); reviews and kv runs have no \
             verdicts yet"
        )));
    }
    if jobs_kind || a.format.csv() {
        // Said once the rule is known to apply: bad input stays one line.
        return compare_jobs(&runs, a);
    }
    say_differences(&runs);
    if runs.iter().all(|r| r.kind == "review") {
        compare_reviews(&runs, a.format.json());
        return Ok(ExitCode::SUCCESS);
    }
    if runs.iter().all(|r| r.kind == "kv") {
        if a.format.json() {
            let v = crate::kv_table::compare_json(&runs);
            outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        } else {
            out!("{}", crate::kv_table::compare_table(&runs));
        }
        return Ok(ExitCode::SUCCESS);
    }
    compare_jobs(&runs, a)
}

/// What differs between the first run and each later one, then each run that started on a
/// busy machine, on stderr.
fn say_differences(runs: &[RunRecord]) {
    for r in runs.iter().skip(1) {
        for line in iolab_report::differences::machine(&runs[0], r) {
            say!("{line}");
        }
    }
    for line in runs.iter().filter_map(iolab_report::differences::moment) {
        say!("{line}");
    }
    for line in runs.iter().filter_map(iolab_report::differences::drive) {
        say!("{line}");
    }
}

/// `compare` of runs' jobs: one column per job and direction, then each later run's
/// verdicts against the first; `--fail-if-worse`'s exit status.
fn compare_jobs(runs: &[RunRecord], a: &CompareArgs) -> Result<ExitCode, CliError> {
    let rule = a.fail_if_worse.as_ref();
    let noise = a.noise_threshold / 100.0;
    let verdicts: Vec<Vec<crate::verdicts::Row>> = runs
        .iter()
        .skip(1)
        .map(|r| crate::verdicts::rows(&runs[0], r, rule.map(|f| &f.figure), noise))
        .collect();
    if let Some(rule) = rule {
        check_judged(runs, &verdicts, rule)?;
        check_intervals(runs, &verdicts, rule)?;
    }
    say_differences(runs);
    let mut columns: Vec<(String, String)> = Vec::new();
    for r in runs {
        for j in &r.jobs {
            for d in j.directions() {
                let c = (j.name.clone(), d.to_string());
                if !columns.contains(&c) {
                    columns.push(c);
                }
            }
        }
    }
    if a.format.csv() {
        out!("{}", crate::results_csv::compare(runs, &columns, &verdicts));
        return fail_if_worse(runs, &verdicts, rule);
    }
    if a.format.json() {
        let mut v = jobs_json(runs, &columns);
        for (o, rows) in v.iter_mut().skip(1).zip(&verdicts) {
            o.verdicts = Some(crate::verdicts::json(rows));
            o.verdicts_against = Some(runs[0].id);
        }
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return fail_if_worse(runs, &verdicts, rule);
    }
    print_jobs_table(runs, &columns);
    for r in runs.iter().filter(|r| r.facts().per_host.is_some()) {
        outln!("\nRun {}, each host:", r.id);
        print_hosts(r);
    }
    for (r, rows) in runs.iter().skip(1).zip(&verdicts) {
        let judged = rows.iter().any(|r| r.verdict.verdict != Word::Unknown);
        if judged || rule.is_some() {
            out!("{}", crate::verdicts::table(&runs[0], r, rows, noise));
        } else {
            // No verdicts to put it above: the settings that differ, said on their own.
            for line in crate::verdicts::setting_differences(&runs[0], r) {
                outln!("\n{line}");
            }
        }
    }
    fail_if_worse(runs, &verdicts, rule)
}

/// One job and direction of a run as `compare` shows it.
struct CompareCell {
    iops: f64,
    /// `lat` or `clat`: the latency `show` shows for the job ([`latency_kind`]).
    kind: &'static str,
    mean: f64,
    p99: f64,
    /// An open-loop job's response time (from due time), beside fio's figures.
    resp: Option<f64>,
    /// A split job's device part (its mean), beside the total it is part of.
    device: Option<f64>,
}

fn compare_cell(r: &RunRecord, (name, dir): &(String, String)) -> Option<CompareCell> {
    let j = r.jobs.iter().find(|j| &j.name == name)?;
    let kind = latency_kind(j, dir);
    let lat = |n: &str| j.metric(dir, &format!("{kind}_{n}"));
    Some(CompareCell {
        iops: j.metric(dir, "iops")?,
        kind,
        mean: lat("mean_ns")?,
        p99: lat("p99_ns").unwrap_or(0.0),
        resp: j.metric(dir, "response_p99_ns"),
        device: j.metric(dir, "split_device_mean_ns"),
    })
}

/// One job and direction in `compare --output-format=json`.
#[derive(serde::Serialize)]
struct CellJson {
    iops: f64,
    mean_ns: f64,
    p99_ns: f64,
    latency: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_p99_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    split_device_mean_ns: Option<f64>,
}

/// One run in `compare --output-format=json`: its jobs keyed "job/dir", whether its drive
/// changed under the test, and its verdicts against the first.
#[derive(serde::Serialize)]
struct RunJson {
    run: i64,
    target: Option<String>,
    /// In column order.
    jobs: serde_json::Map<String, serde_json::Value>,
    hosts: serde_json::Value,
    drive_changed: bool,
    drive_health: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdicts: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdicts_against: Option<i64>,
}

/// `compare --output-format=json`: one object per run.
fn jobs_json(runs: &[RunRecord], columns: &[(String, String)]) -> Vec<RunJson> {
    runs.iter()
        .map(|r| RunJson {
            run: r.id,
            target: r.jobs.first().map(|j| j.target.clone()),
            jobs: columns
                .iter()
                .filter_map(|c| {
                    let cell = compare_cell(r, c)?;
                    let v = CellJson {
                        iops: cell.iops,
                        mean_ns: cell.mean,
                        p99_ns: cell.p99,
                        latency: cell.kind,
                        response_p99_ns: cell.resp,
                        split_device_mean_ns: cell.device,
                    };
                    Some((format!("{}/{}", c.0, c.1), serde_json::to_value(v).ok()?))
                })
                .collect(),
            hosts: r.facts().per_host.cloned().unwrap_or_default(),
            drive_changed: iolab_results::record_changed(&r.jobs),
            drive_health: iolab_results::record_lines(&r.jobs),
            verdicts: None,
            verdicts_against: None,
        })
        .collect()
}

/// `compare`'s table: runs as rows, each job and direction a column.
fn print_jobs_table(runs: &[RunRecord], columns: &[(String, String)]) {
    let head: Vec<String> = columns.iter().map(|(n, d)| format!("{n} {d}")).collect();
    outln!("| run | target | {} |", head.join(" | "));
    outln!("|---|---|{}", "---:|".repeat(columns.len()));
    for r in runs {
        let target = r
            .jobs
            .first()
            .map(|j| j.disk_model.clone().unwrap_or_else(|| j.target.clone()))
            .unwrap_or_default();
        let cells: Vec<String> = columns
            .iter()
            .map(|c| match compare_cell(r, c) {
                Some(cell) => {
                    let mut t = format!(
                        "{} IOPS, {} mean {}",
                        compact(cell.iops),
                        cell.kind,
                        micros(cell.mean)
                    );
                    if let Some(device) = cell.device {
                        t.push_str(&format!(" (device {})", micros(device)));
                    }
                    if let Some(resp) = cell.resp {
                        t.push_str(&format!(", resp p99 {}", micros(resp)));
                    }
                    t
                }
                None => "n/a".into(),
            })
            .collect();
        outln!("| {} | {target} | {} |", r.id, cells.join(" | "));
    }
    outln!(
        "\nEach cell: IOPS and mean latency over all of the run's I/Os (its repeats pooled); \
         the verdicts judge the mean of the repeats' own figures."
    );
}

/// Bad input, not "worse": the figure `--fail-if-worse` names is one these runs lack.
fn check_judged(
    runs: &[RunRecord],
    verdicts: &[Vec<crate::verdicts::Row>],
    rule: &crate::verdicts::FailIfWorse,
) -> Result<(), CliError> {
    if verdicts.iter().flatten().any(|r| r.figure == rule.figure) {
        return Ok(());
    }
    Err(CliError::bad_input(anyhow::anyhow!(
        "--fail-if-worse: no job of runs {} has {} in both runs to compare",
        runs.iter()
            .map(|r| r.id.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        rule.figure.label
    )))
}

/// Bad input, not "worse": every row of the figure lacks an interval (runs measured once),
/// so no verdict could tell a change from noise; rows without one beside rows with one are
/// said and left unjudged.
fn check_intervals(
    runs: &[RunRecord],
    verdicts: &[Vec<crate::verdicts::Row>],
    rule: &crate::verdicts::FailIfWorse,
) -> Result<(), CliError> {
    let all = verdicts
        .iter()
        .flatten()
        .filter(|r| r.figure == rule.figure)
        .count();
    let none: usize = verdicts
        .iter()
        .map(|rows| crate::verdicts::unjudged(rows, rule).len())
        .sum();
    if none < all {
        for (r, rows) in runs.iter().skip(1).zip(verdicts) {
            for row in crate::verdicts::unjudged(rows, rule) {
                say!(
                    "iolab: not judged: run {} {} {} {} against run {} (ratio {:.2}): a run \
                     measured once has no interval",
                    r.id,
                    row.job,
                    row.dir,
                    row.figure.label,
                    runs[0].id,
                    row.verdict.ratio
                );
            }
        }
        return Ok(());
    }
    Err(CliError::bad_input(anyhow::anyhow!(
        "--fail-if-worse: runs {} have no interval on {} (measured once): run each with \
         --repeat 3 or more to judge a change against noise",
        runs.iter()
            .map(|r| r.id.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        rule.figure.label
    )))
}

/// `--fail-if-worse`'s three outcomes, each row said on standard error: exit 1 where a later
/// run is shown worse (its whole interval beyond the loss), 3 where some row cannot tell
/// (its interval holds the loss; with how many repeats would decide), 0 where every row is
/// shown not worse.
fn fail_if_worse(
    runs: &[RunRecord],
    verdicts: &[Vec<crate::verdicts::Row>],
    rule: Option<&crate::verdicts::FailIfWorse>,
) -> Result<ExitCode, CliError> {
    use crate::verdicts::{exit_code, Judgement};
    let Some(rule) = rule else {
        return Ok(ExitCode::SUCCESS);
    };
    let (mut worse, mut unsure) = (false, false);
    for (r, rows) in runs.iter().skip(1).zip(verdicts) {
        for (row, j) in rule.judged(rows) {
            let what = format!("run {} {} {} {}", r.id, row.job, row.dir, row.figure.label);
            let against = format!("run {} (ratio {})", runs[0].id, row.verdict.ratio_text());
            match j {
                Judgement::Worse => {
                    worse = true;
                    say!(
                        "iolab: worse: {what} is {:.1}% worse than {against}: its whole \
                         interval lies beyond a {}% loss",
                        row.worse_percent(),
                        rule.percent
                    );
                }
                Judgement::NotWorse => say!(
                    "iolab: not worse: {what} against {against}: its whole interval lies \
                     short of a {}% loss",
                    rule.percent
                ),
                Judgement::CannotTell => {
                    unsure = true;
                    let more = match row.verdict.repeats_to_exclude(rule.bound()) {
                        _ if row.verdict.verdict == Word::Unknown => {
                            "a run measured once has no interval (--repeat 3 or more)".to_string()
                        }
                        Some(n) => format!("about {n} repeats each would decide at this noise"),
                        None => {
                            "more than 1000 repeats each would be needed at this noise".to_string()
                        }
                    };
                    say!(
                        "iolab: cannot tell: {what} against {against}: its interval holds a \
                         {}% loss; {more}",
                        rule.percent
                    );
                }
            }
        }
    }
    Ok(ExitCode::from(match (worse, unsure) {
        (true, _) => exit_code::WORSE,
        (false, true) => exit_code::CANNOT_TELL,
        (false, false) => exit_code::NOT_WORSE,
    }))
}

/// Stored runs in one of the export formats, on standard output.
pub fn export(a: &ExportArgs) -> Result<ExitCode, CliError> {
    if a.wide && a.format != ExportFormat::Csv {
        return Err(CliError::bad_input(anyhow::anyhow!(
            "--wide is a form of CSV: give it with --format csv"
        )));
    }
    let store = open(&a.db)?;
    let runs = a
        .runs
        .iter()
        .map(|&id| load(&store, id))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = crate::escape::stdout();
    let exporter = match a.wide {
        true => Box::new(export::CsvWide),
        false => a.format.exporter(),
    };
    match exporter
        .export(&runs, &mut out)
        .and_then(|_| std::io::Write::flush(&mut out))
    {
        // A reader that went away (`| head`) ends the output quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r
            .context("writing the export")
            .map_err(CliError::failed)
            .map(|_| ExitCode::SUCCESS),
    }
}

/// PTS runs against the first, test by test and element by element: each figure's values
/// over the measurement window's rounds judged with `compare`'s verdict rules.
fn compare_pts(runs: &[RunRecord], a: &CompareArgs) {
    let noise = a.noise_threshold / 100.0;
    let base = &runs[0];
    let doc = |r: &RunRecord| PtsDocument::from_meta(&r.meta).unwrap_or_default();
    let base_doc = doc(base);
    let all: Vec<(i64, Vec<iolab_pts::compare::TestVerdict>)> = runs[1..]
        .iter()
        .map(|r| (r.id, iolab_pts::compare::compare(&base_doc, &doc(r), noise)))
        .collect();
    if a.format.json() {
        let v = serde_json::json!({
            "base": base.id,
            "disclaimer": iolab_pts::DISCLAIMER,
            "runs": all.iter().map(|(id, tests)| serde_json::json!({"run": id, "tests": tests})).collect::<Vec<_>>(),
        });
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return;
    }
    outln!(
        "PTS runs against run {} ({})",
        base.id,
        iolab_pts::DISCLAIMER
    );
    for (id, tests) in &all {
        for t in tests {
            let steady = |b: bool| if b { "steady" } else { "NOT steady" };
            outln!(
                "run {id} {}: {} {} ({} vs {}): ratio {}",
                t.name,
                t.tracked,
                t.steady.verdict.word_text(),
                steady(t.base_steady),
                steady(t.new_steady),
                t.steady.verdict.ratio_text(),
            );
            let mut counts: Vec<(&str, usize)> = Vec::new();
            for e in &t.elements {
                let w = e.verdict.verdict.as_str();
                match counts.iter_mut().find(|(x, _)| *x == w) {
                    Some(c) => c.1 += 1,
                    None => counts.push((w, 1)),
                }
            }
            let counts: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
            outln!("  elements: {}", counts.join(", "));
            for e in t.elements.iter().filter(|e| {
                matches!(
                    e.verdict.verdict,
                    iolab_report::verdict::Word::Faster | iolab_report::verdict::Word::Slower
                )
            }) {
                outln!(
                    "    {} {}: {} ({})",
                    e.element,
                    e.figure,
                    e.verdict.word_text(),
                    e.verdict.ratio_text()
                );
            }
        }
    }
}
