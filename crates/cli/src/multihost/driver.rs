//! One rank's `iolab run` under MPI: parse and check on every rank (agreeing before going
//! on, so one rank's bad input stops all with one message), run with [`MpiPeers`] lining the
//! phases up, send the typed result to rank 0, which merges, stores and prints it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, Context};
use iolab_fio::client_json::to_client_json;
use iolab_fio::logs::planned_log_paths;
use iolab_fio::normal::job_line;
use iolab_fio::{parse_command_line, CommandLine};
use iolab_report::hosts::{write_hosts, HostsHead};
use iolab_results::{HostOutcome, MultiHostOutcome};
use iolab_runner::plan::group_ids;
use iolab_runner::{run_jobs, signal, PreparedJob, RunOptions};
use iolab_stats::Clock;
use iolab_store::Store;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::peers::{first_failing, MpiPeers};
use crate::exit::{interrupted, CliError, BAD_INPUT};
use crate::output;
use crate::run_output::write_formats;
use crate::targets::{check_all, consent_for_jobs, lay_out, protected_paths, run_outputs};

/// Who this process is in the MPI job.
struct Me {
    world: SimpleCommunicator,
    rank: u32,
    hostname: String,
}

impl Me {
    /// Every rank learns whether all got `res` right. The lowest failing rank says why, once
    /// (naming itself when it is not rank 0); then all end together, each with an error
    /// already said, so mpirun does not end the job before the reason is out.
    fn agree<T>(&self, res: Result<T, CliError>) -> Result<T, CliError> {
        let Some(first) = first_failing(&self.world, res.is_ok()) else {
            return res;
        };
        let mut code = BAD_INPUT;
        if let (Err(e), true) = (&res, first == self.rank as i32) {
            let why = crate::exit::one_line(&e.error);
            match first {
                0 => say!("iolab: error: {why}"),
                r => say!("iolab: error: rank {r} ({}): {why}", self.hostname),
            }
            code = e.code;
        }
        self.world.barrier();
        Err(CliError {
            code,
            error: anyhow!(""),
        })
    }

    /// A failure after the ranks started together: the others are waiting in a collective
    /// call this rank will never make, so say why and end the whole MPI job.
    fn fail(&self, e: CliError) -> ! {
        let why = crate::exit::one_line(&e.error);
        say!("iolab: rank {} ({}): {why}", self.rank, self.hostname);
        self.world.abort(i32::from(e.code))
    }
}

pub fn run(args: &[String]) -> Result<ExitCode, CliError> {
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .ok_or_else(|| CliError::failed(anyhow!("MPI could not be initialised")))?;
    let world = universe.world();
    let me = Me {
        rank: world.rank() as u32,
        hostname: mpi::environment::processor_name().unwrap_or_default(),
        world,
    };
    // Single-threaded here, before any worker exists: job files may say ${IOLAB_RANK}.
    std::env::set_var("IOLAB_RANK", me.rank.to_string());
    let args = super::with_rank(args, me.rank);
    let cl = me.agree(parse_command_line(&args).map_err(CliError::bad_input))?;
    if cl.run.repeat > 1 {
        return Err(CliError::bad_input(anyhow!(
            "--repeat is not supported under mpirun yet: run the whole mpirun command again"
        )));
    }
    for (given, option) in [
        (cl.run.status_interval.is_some(), "--status-interval"),
        (cl.run.bandwidth_log, "--bandwidth-log"),
        (cl.run.showcmd, "--showcmd"),
    ] {
        if given {
            return Err(CliError::bad_input(anyhow!(
                "{option} is not supported under mpirun yet: run it on one host with iolab run"
            )));
        }
    }
    if cl.run.readonly {
        me.agree(crate::targets::refuse_writers(&cl.jobs).map_err(CliError::bad_input))?;
    }
    let groups = group_ids(&cl.jobs);
    if cl.run.parse_only {
        if me.rank == 0 {
            for (spec, g) in cl.jobs.iter().zip(&groups) {
                outln!("{}", job_line(spec, *g));
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (mut jobs, store) = me.agree(set_up(&cl, me.rank == 0))?;
    me.agree(lay_out(&mut jobs))?;
    let peers = MpiPeers::new(me.world.duplicate(), cl.run.stonewall_hosts);
    // Rank 0 records the run from its first I/O on, as `iolab run` does.
    let record = match store {
        Some(s) => {
            let id = s
                .begin_run("run", &crate::run_output::command_line(&args))
                .map_err(CliError::failed)?;
            Some((s, id))
        }
        None => None,
    };
    // Every rank in nanoseconds, so histograms from different hosts add up exactly (TSC
    // rates differ from host to host).
    let clock = Clock::monotonic();
    let line = iolab_runner::progress::ProgressLine::new(me.rank == 0 && !cl.run.quiet);
    line.set_plan(iolab_runner::plan::planned_time(&cl.jobs));
    let opts = RunOptions {
        clock,
        progress: Some(&line),
        live: None,
        live_text: None,
        status: None,
        watchdog: iolab_runner::run::watchdog_grace(),
        peers: Some(&peers),
        keep_rseq: cl.run.keep_rseq,
        lean_loop: true,
        health_every: cl.run.health_interval,
    };
    let outcome = run_jobs(&jobs, &opts);
    line.clear();
    let mut outcome = outcome.unwrap_or_else(|e| me.fail(e.into()));
    let db_path = cl.run.db.clone().unwrap_or_else(Store::default_path);
    let protected = protected_paths(&jobs, Some(&db_path));
    let protected: Vec<&std::path::Path> = protected.iter().map(|p| p.as_path()).collect();
    if let Err(e) = crate::run_output::write_logs(&outcome, &protected) {
        me.fail(e);
    }
    // Each host has written its own logs; they do not travel.
    outcome.jobs.iter_mut().for_each(|j| j.logs.clear());
    let host = HostOutcome {
        rank: me.rank,
        hostname: me.hostname.clone(),
        phase_starts_ns: peers.starts(),
        outcome,
    };
    let gathered = gather(&me, &host)?;
    if peers.clocks_disagree.get() {
        say!(
            "iolab: rank {} ({}): its clock is more than a second from rank 0's: it started \
             at once instead of at the common start time",
            me.rank,
            me.hostname
        );
    }
    // Rank 0 has both the hosts' results and the record; the others are done.
    let (Some(hosts), Some((mut store, run_id))) = (gathered, record) else {
        return Ok(exit_status(host.outcome.interrupted, false));
    };
    let mut m = MultiHostOutcome::merge(hosts).map_err(CliError::failed)?;
    m.stonewall = cl.run.stonewall_hosts;
    // Results first: printed before anything can fail to keep them.
    let mut out = output::open(cl.run.output.as_deref(), &protected)?;
    write_results(&mut out, &cl, &groups, &m)?;
    out.flush()
        .context("writing results")
        .map_err(CliError::failed)?;
    save(&mut store, run_id, &cl, &m)?;
    Ok(exit_status(m.all.interrupted, true))
}

/// 0, or the signal's status when interrupted (rank 0 says so, for all).
fn exit_status(interrupted_run: bool, say_it: bool) -> ExitCode {
    if interrupted_run {
        if say_it {
            say!("iolab: interrupted: the results above are partial");
        }
        return ExitCode::from(interrupted());
    }
    ExitCode::SUCCESS
}

/// Checks the jobs against this rank's targets; rank 0 also checks its outputs and opens the
/// results database (the others write neither).
fn set_up(cl: &CommandLine, first: bool) -> Result<(Vec<PreparedJob>, Option<Store>), CliError> {
    let db_path = cl.run.db.clone().unwrap_or_else(Store::default_path);
    let consent = consent_for_jobs(&cl.jobs, cl.run.allow_destroy);
    let logs = planned_log_paths(&cl.jobs);
    let output = if first {
        cl.run.output.as_deref()
    } else {
        None
    };
    let outputs = run_outputs(output, &logs);
    let db = first.then_some(db_path.as_path());
    let jobs = check_all(&cl.jobs, &consent, &outputs, db)?;
    let store = match first {
        true => Some(crate::store_open::open(&db_path).map_err(CliError::bad_input)?),
        false => None,
    };
    signal::install();
    Ok((jobs, store))
}

/// Every rank's result, on rank 0 (`None` on the others): serde JSON bytes, lengths first.
fn gather(me: &Me, host: &HostOutcome) -> Result<Option<Vec<HostOutcome>>, CliError> {
    let bytes = serde_json::to_vec(host)
        .context("encoding this host's results")
        .map_err(CliError::failed)?;
    let len = bytes.len() as i32;
    let root = me.world.process_at_rank(0);
    if me.rank != 0 {
        root.gather_into(&len);
        root.gather_varcount_into(&bytes[..]);
        return Ok(None);
    }
    let mut lens = vec![0i32; me.world.size() as usize];
    root.gather_into_root(&len, &mut lens[..]);
    let displs: Vec<i32> = lens
        .iter()
        .scan(0, |at, &l| {
            let d = *at;
            *at += l;
            Some(d)
        })
        .collect();
    let mut all = vec![0u8; lens.iter().map(|&l| l as usize).sum()];
    {
        let mut part = mpi::datatype::PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
        root.gather_varcount_into_root(&bytes[..], &mut part);
    }
    lens.iter()
        .zip(&displs)
        .map(|(&l, &d)| {
            serde_json::from_slice(&all[d as usize..(d + l) as usize])
                .context("decoding a host's results")
                .map_err(CliError::failed)
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The merged jobs as the run's jobs; each host's figures, the hosts' count and start skew
/// in the run's meta (what `show` and the report's per-host chart read).
fn save(
    store: &mut Store,
    run_id: i64,
    cl: &CommandLine,
    m: &MultiHostOutcome,
) -> Result<(), CliError> {
    let meta = serde_json::json!({
        "hosts": m.hosts.len(),
        "start_skew_ns": m.start_skew_ns,
        "stonewall": m.stonewall,
        "stonewalled": m.stonewalled(),
        "per_host": m.host_rows(),
    });
    let status = crate::run_output::status_of(&m.all);
    store
        .add_outcome(run_id, &m.all, &cl.job_options)
        .and_then(|_| store.set_run_meta(run_id, &meta))
        .and_then(|_| store.finish_run(run_id, status))
        .map_err(CliError::failed)?;
    say!(
        "iolab: saved as run {run_id} ({} hosts) in {}",
        m.hosts.len(),
        store.path().display()
    );
    Ok(())
}

/// The results in every format asked for: normal (the aggregate as one run, then a row per
/// host), json/json+ (fio's client/server JSON).
fn write_results(
    out: &mut dyn Write,
    cl: &CommandLine,
    groups: &[u32],
    m: &MultiHostOutcome,
) -> Result<(), CliError> {
    let head = HostsHead {
        hosts: m.hosts.len(),
        start_skew_ns: m.start_skew_ns,
        stonewall: m.stonewall,
        stonewalled: m.stonewalled(),
    };
    let normal = |out: &mut dyn Write| {
        writeln!(out, "All clients ({}):", head.line())?;
        iolab_fio::normal::write_normal(&m.all, &mut &mut *out)?;
        write_hosts(&head, &m.host_rows(), out)
    };
    write_formats(out, cl, groups, true, normal, |ctx| to_client_json(m, ctx))
}
