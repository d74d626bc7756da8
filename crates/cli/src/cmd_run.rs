//! `iolab run`: jobs from fio-style options and fio job files, run as fio schedules them,
//! reported as fio does.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use iolab_fio::args::RUN_OPTIONS;
use iolab_fio::json::to_json;
use iolab_fio::logs::planned_log_paths;
use iolab_fio::normal::job_line;
use iolab_fio::parse_command_line;
use iolab_runner::plan::{group_ids, planned_time};
use iolab_runner::progress::{clock_time, ProgressLine};
use iolab_runner::{run_jobs, signal, RunOptions};
use iolab_store::{RunStatus, Store};

use crate::exit::{interrupted, CliError};
use crate::output;
use crate::run_output::{command_line, say_saved, status_of, write_formats, write_logs};
use crate::targets::{check_all, consent_for_jobs, lay_out, protected_paths, run_outputs};

/// The options `-h` shows: what most jobs set, by topic.
const COMMON: [(&str, &[&str]); 4] = [
    (
        "The job",
        &[
            "name", "filename", "rw", "bs", "size", "ioengine", "iodepth", "direct",
        ],
    ),
    (
        "How long",
        &[
            "runtime",
            "time_based",
            "ramp_time",
            "numjobs",
            "group_reporting",
        ],
    ),
    (
        "The run",
        &[
            "output-format",
            "output",
            "allow-destroy",
            "repeat",
            "readonly",
        ],
    ),
    (
        "Finding more",
        &["cmdhelp", "enghelp", "showcmd", "parse-only"],
    ),
];

const ABOUT: &str = "Run jobs described with fio's options or fio job files.\n\n\
    Usage: iolab run [--GLOBAL=VALUE ...] --name=JOB --filename=PATH [--OPTION=VALUE ...] \
    [--name=JOB2 ...]\n       iolab run [--GLOBAL=VALUE ...] JOBFILE...\n\n\
    Options take fio's names, meanings and units, read as fio reads them (bs=4k and 4ki are \
    4096 bytes, 4kib 4000; runtime=10 is seconds, 500ms, 20m, 1h; docs/values.md). Boolean \
    options may be given bare (--direct is --direct=1). Each --name starts a new job; options \
    before the first --name apply to all jobs; jobs run side by side unless one sets \
    stonewall. Job files are read as fio reads them; options on the command line apply to \
    every job unless the file sets them too.\n\n\
    Example (the SPDK blog's QD1 test on a RAM disk):\n  \
    iolab run --ioengine=io_uring --filename=/dev/zram0 --allow-destroy spdk.fio\n";

const EXIT: &str = "\nExit status: 0 ok, 1 run failed (a job's error, or the results could \
    not be saved: they are printed first), 2 bad input (nothing written), 129/130/131/143 \
    stopped by SIGHUP/SIGINT/SIGQUIT/SIGTERM (partial results printed and saved). SIGUSR1 \
    prints the current figures.\n";

/// One option for help: `  --name=VALUE (or alias)` and its text indented below.
fn help_entry(name: &str, value: &str, alias: Option<&str>, help: &str) -> String {
    let alias = alias.map(|a| format!(" (or {a})")).unwrap_or_default();
    let value = match value {
        "" => "[=1|0]".to_string(),
        v if v.starts_with('[') => v.to_string(),
        v => format!("={v}"),
    };
    format!("  --{name}{value}{alias}\n      {help}\n")
}

fn entry_of(name: &str) -> Option<String> {
    if let Some(o) = iolab_fio::options::find(name) {
        let kind = o.kind.label().to_uppercase();
        let value = if o.kind == iolab_fio::options::ValueKind::Bool {
            ""
        } else {
            &kind
        };
        return Some(help_entry(o.name, value, o.alias, o.help));
    }
    RUN_OPTIONS
        .iter()
        .find(|o| o.name == name)
        .map(|o| help_entry(o.name, o.value, None, o.help))
}

/// `iolab run -h`: the options most jobs set, by topic, and where the others are.
pub fn short_help() -> String {
    let mut s = String::from(ABOUT);
    for (topic, names) in COMMON {
        s.push_str(&format!("\n{topic}:\n"));
        for n in names {
            s.push_str(&entry_of(n).unwrap_or_default());
        }
    }
    let total = iolab_fio::options::all().count() + RUN_OPTIONS.len();
    s.push_str(&format!(
        "\nThat is {} of {total} options: iolab run --help lists them all by topic, \
         iolab run --cmdhelp=OPTION explains one, docs/options.md has the reference.\n",
        COMMON.iter().map(|(_, n)| n.len()).sum::<usize>()
    ));
    s.push_str(EXIT);
    s
}

/// `iolab run --help`: every option, by topic.
pub fn help() -> String {
    let mut s = String::from(ABOUT);
    for (topic, table) in iolab_fio::options::topics() {
        s.push_str(&format!("\n{topic}:\n"));
        for o in table {
            s.push_str(&entry_of(o.name).unwrap_or_default());
        }
    }
    s.push_str("\nThe run (iolab's own options, and fio's command line):\n");
    for o in RUN_OPTIONS {
        match &o.set {
            iolab_fio::args::RunSetter::Refused(why) => {
                s.push_str(&format!("  --{} (refused)\n      {why}\n", o.name))
            }
            _ => s.push_str(&help_entry(o.name, o.value, None, o.help)),
        }
    }
    s.push_str(EXIT);
    s
}

/// The command with its job files named absolutely, and where it ran (`cd DIR && ...` when
/// a job names a file relative to the working directory).
pub(crate) fn absolute_command(args: &[String], cl: &iolab_fio::CommandLine) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let args: Vec<String> = args
        .iter()
        .map(
            |a| match cl.job_files.iter().any(|f| f.as_os_str() == a.as_str()) {
                true if a != "-" => cwd.join(a).display().to_string(),
                _ => a.clone(),
            },
        )
        .collect();
    command_line(&args)
}

/// What reruns the run: the working directory, the job files' text, and every job with
/// every option in force (`iolab show RUN --job-file` prints them as a job file).
fn rerun_meta(cl: &iolab_fio::CommandLine) -> serde_json::Value {
    let cwd = std::env::current_dir().unwrap_or_default();
    let files: Vec<serde_json::Value> = cl
        .job_files
        .iter()
        .map(|f| {
            let text = match f.as_os_str() == "-" {
                true => None,
                false => std::fs::read_to_string(f).ok(),
            };
            serde_json::json!({"path": cwd.join(f), "text": text})
        })
        .collect();
    serde_json::json!({
        "cwd": cwd,
        "job_files": files,
        "sections": cl.sections,
    })
}

pub fn run(args: &[String]) -> Result<ExitCode, CliError> {
    if args.iter().any(|a| a == "--help") {
        out!("{}", help());
        return Ok(ExitCode::SUCCESS);
    }
    if args.iter().any(|a| a == "-h") || args.is_empty() {
        out!("{}", short_help());
        return Ok(ExitCode::SUCCESS);
    }
    match crate::fio_help::asked(args) {
        Some(Ok(text)) => {
            out!("{text}");
            return Ok(ExitCode::SUCCESS);
        }
        Some(Err(why)) => return Err(CliError::bad_input(anyhow::anyhow!(why))),
        None => {}
    }
    if let Some(launch) = crate::multihost::launched() {
        return crate::multihost::run(args, launch);
    }
    let cl = parse_command_line(args).map_err(CliError::bad_input)?;
    if cl.run.showcmd {
        let line = iolab_fio::args::show_command(args, &iolab_fio::jobfile::ProcessEnv)
            .map_err(CliError::bad_input)?;
        outln!("{line}");
        return Ok(ExitCode::SUCCESS);
    }
    if cl.run.readonly {
        crate::targets::refuse_writers(&cl.jobs).map_err(CliError::bad_input)?;
    }
    if cl.run.bandwidth_log {
        bandwidth_log_fits(&cl.jobs).map_err(CliError::bad_input)?;
    }
    let groups = group_ids(&cl.jobs);
    if cl.run.parse_only {
        for (spec, g) in cl.jobs.iter().zip(&groups) {
            outln!("{}", job_line(spec, *g));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(cap) = cl.run.runtime_cap {
        say!(
            "iolab: --runtime-cap: ramp_time and runtime cut to at most {} ms per job",
            cap.as_millis()
        );
    }
    if cl.run.repeat > 1 && cl.run.load_curve.is_some() {
        return Err(CliError::bad_input(anyhow::anyhow!(
            "--repeat and --load-curve do not go together: a load curve's points are its own \
             repeats; run the curve again for a second one"
        )));
    }
    if let Some(curve) = &cl.run.load_curve {
        return crate::load_curve::run(&cl, curve, &command_line(args));
    }
    let db_path = cl.run.db.clone().unwrap_or_else(Store::default_path);
    let consent = consent_for_jobs(&cl.jobs, cl.run.allow_destroy);
    let logs = planned_log_paths(&cl.jobs);
    let outputs = run_outputs(cl.run.output.as_deref(), &logs);
    let mut jobs = check_all(&cl.jobs, &consent, &outputs, Some(&db_path))?;
    if cl.run.readonly {
        crate::targets::refuse_layouts(&jobs).map_err(CliError::bad_input)?;
    }
    if cl.run.merge_blktrace_only {
        return merge_only(&cl.jobs, &jobs, &db_path);
    }
    let mut store = crate::store_open::open(&db_path).map_err(CliError::bad_input)?;
    let protected = protected_paths(&jobs, Some(&db_path));
    let protected: Vec<&Path> = protected.iter().map(PathBuf::as_path).collect();
    // Opened before anything is laid out: an output that cannot be had (a FIFO nobody
    // reads) is bad input with nothing written.
    let mut out = output::open_and_protect(cl.run.output.as_deref(), &protected)?;
    write_merged_traces(&cl.jobs, &protected)?;
    signal::install();
    lay_out(&mut jobs)?;
    // Recorded from the first I/O on, so a failed or interrupted run is on record too.
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store
        .begin_run("run", &absolute_command(args, &cl))
        .map_err(CliError::failed)?;
    // fio's --status-interval: the whole results so far, every so often, where the final
    // results go.
    let board = cl
        .run
        .status_interval
        .map(iolab_runner::status::StatusBoard::new);
    let sink = std::cell::RefCell::new(&mut out);
    // fio prints the job lines once, as the jobs start; every status after them is results.
    let headed = std::cell::Cell::new(false);
    let print = |o: &iolab_runner::RunOutcome| {
        let mut w = sink.borrow_mut();
        let head = !headed.replace(true);
        let _ = write_results(&mut **w, &cl, &groups, o, head).map(|_| w.flush());
    };
    let status = board
        .as_ref()
        .map(|b| (b, iolab_runner::status::StatusPrint(&print)));
    let measured = measure(&jobs, &cl, status);
    let out = sink.into_inner();
    let outcome = match measured {
        Ok(o) => o,
        Err(e) => {
            let _ = store.finish_run(run_id, RunStatus::Failed);
            return Err(e.into());
        }
    };
    // Results first: what was measured reaches the user and the store before a side file
    // (a log, an iolog) can fail; such a failure is one line and the exit status.
    let shown = write_results(&mut *out, &cl, &groups, &outcome, !headed.get()).and_then(|_| {
        out.flush()
            .context("writing results")
            .map_err(CliError::failed)
    });
    // With the figures, after they are printed: a database that cannot take them (a full
    // disk, a file size limit) costs the record, never the results.
    let saved = store
        .set_run_meta(run_id, &rerun_meta(&cl))
        .map_err(anyhow::Error::from)
        .and_then(|_| save(&mut store, run_id, &outcome, &cl.job_options));
    let logged = write_logs(&outcome, &protected).and_then(|_| match cl.run.bandwidth_log {
        true => write_bandwidth_logs(&outcome, &cl.jobs, &protected),
        false => Ok(()),
    });
    say_saved(&saved, run_id, &db_path);
    shown?;
    if let Err(e) = &logged {
        say!("iolab: error: {}", crate::exit::one_line(&e.error));
    }
    if let Some(e) = outcome.first_error() {
        return Err(CliError::failed(anyhow::anyhow!("{e}")));
    }
    if outcome.interrupted {
        say!("iolab: interrupted: the results above are partial");
        return Ok(ExitCode::from(interrupted()));
    }
    // A failed save, or a side file not written, was said above, once.
    Ok(match (saved, logged) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        _ => ExitCode::from(crate::exit::RUN_FAILED),
    })
}

/// Runs the jobs `--repeat` times, one whole pass after another (so a job file's jobs
/// interleave across repeats), and pools the passes; a pass that failed or was interrupted
/// is the last.
fn measure(
    jobs: &[iolab_runner::PreparedJob],
    cl: &iolab_fio::CommandLine,
    status: Option<(
        &iolab_runner::status::StatusBoard,
        iolab_runner::status::StatusPrint,
    )>,
) -> Result<iolab_runner::RunOutcome, iolab_runner::RunError> {
    let clock = iolab_runner::run::run_clock(jobs.iter().any(|j| j.spec.lat_split));
    let planned = planned_time(&cl.jobs).map(|p| p * cl.run.repeat);
    let line = progress_line(&cl.run);
    // Said where the line is drawn: a log (or a script reading stderr) keeps its one-line
    // errors and gets the results and the end line.
    if !line.is_hidden() {
        say!("{}", start_line(cl, planned));
    }
    line.set_plan(planned);
    let live = iolab_runner::LiveCounters::default();
    let opts = RunOptions {
        health_every: cl.run.health_interval,
        live: Some(&live),
        live_text: Some(live_figures),
        status,
        ..RunOptions::on_this_host(clock, &line, cl.run.keep_rseq)
    };
    let mut passes = Vec::new();
    for k in 1..=cl.run.repeat {
        if cl.run.repeat > 1 {
            line.set_prefix(format!("[repeat {k}/{}]", cl.run.repeat));
        }
        let o = run_jobs(jobs, &opts);
        line.clear();
        let o = o?;
        let last = o.interrupted || o.first_error().is_some();
        passes.push(o);
        if last {
            break;
        }
    }
    Ok(iolab_results::repeats::pool(passes).expect("at least one pass ran"))
}

/// The progress line as `--quiet` and fio's `--eta`, `--eta-newline` and `--eta-interval`
/// ask.
pub(crate) fn progress_line(o: &iolab_fio::args::RunOpts) -> ProgressLine {
    use iolab_fio::options::run::Eta;
    let style = iolab_runner::progress::LineStyle {
        always: o.eta == Eta::Always,
        newline_every: o.eta_newline,
        every: o.eta_interval,
    };
    ProgressLine::styled(!o.quiet && o.eta != Eta::Never, style)
}

/// The current rates as fio's ETA line says them (the progress line and SIGUSR1's status).
pub(crate) fn live_figures(r: &iolab_runner::LiveRates) -> String {
    iolab_report::format::eta_figures(&r.iops, &r.bytes_per_sec)
}

/// The run's first line on stderr: what runs, and for how long by the plan.
fn start_line(cl: &iolab_fio::CommandLine, planned: Option<std::time::Duration>) -> String {
    let repeats = match cl.run.repeat {
        1 => String::new(),
        n => format!(", {n} repeats"),
    };
    let time = planned.map_or("no planned end (size-based jobs)".to_string(), |p| {
        format!("planned {}", clock_time(p))
    });
    format!("iolab: {} job(s){repeats}, {time}", cl.jobs.len())
}

/// Keeps the run's figures and how it ended.
fn save(
    store: &mut Store,
    run_id: i64,
    outcome: &iolab_runner::RunOutcome,
    job_options: &[Vec<(String, String)>],
) -> anyhow::Result<()> {
    store.add_outcome(run_id, outcome, job_options)?;
    store.finish_run(run_id, status_of(outcome))?;
    Ok(())
}

/// fio's `--bandwidth-log` sums the jobs' samples interval by interval: the jobs must run
/// side by side (one phase) and sample alike.
fn bandwidth_log_fits(jobs: &[iolab_job::JobSpec]) -> anyhow::Result<()> {
    let phases = iolab_runner::plan::phases(jobs).len();
    if phases > 1 {
        anyhow::bail!(
            "--bandwidth-log: the jobs run in {phases} phases (stonewall, or several job \
             files); iolab sums jobs that run side by side, so run each phase on its own"
        );
    }
    let mut every = jobs.iter().map(|j| j.sampling().every_ms);
    let first = every.next();
    if every.any(|e| Some(e) != first) {
        anyhow::bail!("--bandwidth-log: the jobs sample at different log_avg_msec; give them one");
    }
    Ok(())
}

/// fio's `--bandwidth-log`: `agg-read_bw.log`, `agg-write_bw.log` and `agg-trim_bw.log` in
/// the working directory, through the guard as every log.
fn write_bandwidth_logs(
    outcome: &iolab_runner::RunOutcome,
    jobs: &[iolab_job::JobSpec],
    protected: &[&Path],
) -> Result<(), CliError> {
    let every = jobs.first().map_or(500, |j| j.sampling().every_ms);
    for (name, text) in iolab_fio::logs::aggregate_bw(outcome, every) {
        let path = Path::new(&name);
        output::open_log(path, protected)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .with_context(|| format!("writing {name}"))
            .map_err(CliError::failed)?;
    }
    say!("iolab: wrote agg-read_bw.log, agg-write_bw.log and agg-trim_bw.log");
    Ok(())
}

/// The results in every format asked for, one after another, as fio prints them.
fn write_results(
    out: &mut dyn Write,
    cl: &iolab_fio::CommandLine,
    groups: &[u32],
    outcome: &iolab_runner::RunOutcome,
    head: bool,
) -> Result<(), CliError> {
    write_formats(
        out,
        cl,
        groups,
        head,
        |out| iolab_fio::normal::write_normal(outcome, &mut &mut *out),
        |ctx| to_json(outcome, ctx),
    )
}

/// fio 3.42's `--merge-blktrace-only`: the merged traces written through the guard, nothing
/// laid out, run or recorded; bad input when no job merges anything.
fn merge_only(
    specs: &[iolab_job::JobSpec],
    jobs: &[iolab_runner::PreparedJob],
    db: &Path,
) -> Result<ExitCode, CliError> {
    let merged: Vec<&Path> = specs
        .iter()
        .filter_map(|s| Some(s.replay.as_ref()?.merged.as_ref()?.path.as_path()))
        .collect();
    if merged.is_empty() {
        return Err(CliError::bad_input(anyhow::anyhow!(
            "--merge-blktrace-only: no job names merge_blktrace_file with its read_iolog traces"
        )));
    }
    let protected = protected_paths(jobs, Some(db));
    let protected: Vec<&Path> = protected.iter().map(PathBuf::as_path).collect();
    write_merged_traces(specs, &protected)?;
    for p in merged {
        say!("iolab: merged blktrace written to {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Keeps each merged blktrace (`merge_blktrace_file`) where the job asks, through the
/// output guard, before anything is laid out: never over a target, the store or one of the
/// traces it was merged from.
fn write_merged_traces(specs: &[iolab_job::JobSpec], protected: &[&Path]) -> Result<(), CliError> {
    let mut done: Vec<&Path> = Vec::new();
    for m in specs
        .iter()
        .filter_map(|s| s.replay.as_ref()?.merged.as_ref())
    {
        if done.contains(&m.path.as_path()) {
            continue;
        }
        let mut keep: Vec<&Path> = protected.to_vec();
        keep.extend(m.sources.iter().map(PathBuf::as_path));
        let mut f = iolab_sysinfo::open_output(&m.path, "merge_blktrace_file", &keep)
            .map_err(CliError::bad_input)?;
        f.write_all(&m.bytes)
            .with_context(|| format!("writing {}", m.path.display()))
            .map_err(CliError::failed)?;
        done.push(&m.path);
    }
    Ok(())
}
