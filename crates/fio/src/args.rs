//! fio's command line: `--key=value` (or `--key value`, or a bare `--flag` for booleans), and
//! job files named as plain arguments. As in fio, each `--name` starts a new job, options
//! before the first `--name` apply to every job (job files' jobs too, whose own `[global]`
//! and section options override them), command-line jobs come before job-file jobs, and each
//! job file after the first waits for the one before (an implicit `stonewall`). Output
//! options (`--output-format`, `--output`), `--parse-only` and iolab's own `--allow-destroy`
//! apply to the whole run.

use std::path::PathBuf;

use iolab_job::JobSpec;

use crate::jobfile::{read_job_files, Entry, Env, ProcessEnv};
use crate::options::{find, JobDraft, ValueKind};
use crate::FioError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Normal,
    Json,
    /// fio's `json+`: JSON plus the latency histograms' bins.
    JsonPlus,
    /// fio's terse (`--minimal`): one semicolon-separated line per job, version 3.
    Terse,
}

/// A parsed command line: the jobs plus run-wide settings.
#[derive(Debug, Clone)]
pub struct CommandLine {
    pub jobs: Vec<JobSpec>,
    /// Per job, the options as written (fio's JSON "job options").
    pub job_options: Vec<Vec<(String, String)>>,
    /// Options given before the first `--name` and in job files' `[global]` sections (fio's
    /// JSON "global options").
    pub global_options: Vec<(String, String)>,
    pub job_files: Vec<PathBuf>,
    /// iolab's own options of the run (not fio's): outputs, consent, the database, ...
    pub run: RunOpts,
    /// Each job as written (a command-line job or a job file section, before `numjobs`
    /// makes copies of it), with every option in force: what `iolab show --job-file` turns
    /// back into a job file that reruns the same I/O.
    pub sections: Vec<Section>,
}

/// One job with every option in force.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Section {
    pub name: String,
    /// (option, value), `None` for a bare flag; `name` left out.
    pub options: Vec<(String, Option<String>)>,
}

impl Section {
    fn of(draft: &JobDraft) -> Section {
        Section {
            name: draft.spec.name.clone(),
            options: draft
                .applied
                .iter()
                .filter(|(k, _)| k != "name")
                .cloned()
                .collect(),
        }
    }
}

use crate::options::base::fio_order;
pub use crate::options::run::RunOpts;
pub use crate::options::run::{RunOptionDef, RunSetter, RUN_OPTIONS};

pub(crate) fn parse_formats(v: &str) -> Result<Vec<OutputFormat>, FioError> {
    let mut out = Vec::new();
    for f in v.split(',') {
        let fmt = match f.trim() {
            "normal" => OutputFormat::Normal,
            "json" => OutputFormat::Json,
            "json+" => OutputFormat::JsonPlus,
            "terse" => OutputFormat::Terse,
            other => {
                return Err(FioError::BadValue {
                    name: "output-format".into(),
                    value: other.into(),
                    reason: "iolab writes normal, json, json+ or terse (a comma list such \
                             as normal,json gives both)"
                        .into(),
                })
            }
        };
        if !out.contains(&fmt) {
            out.push(fmt);
        }
    }
    Ok(out)
}

type Pair = (String, Option<String>);

/// Parses the arguments after `iolab run`, reading job files from the process environment.
pub fn parse_command_line(args: &[String]) -> Result<CommandLine, FioError> {
    parse_command_line_with(args, &ProcessEnv)
}

/// As [`parse_command_line`], with `${VAR}` in job files taken from `env`.
pub fn parse_command_line_with(args: &[String], env: &dyn Env) -> Result<CommandLine, FioError> {
    let mut sc = scan(args)?;
    debug_assert!(RUN_OPTIONS.iter().all(|o| find(o.name).is_none()));
    let mut files = read_job_files(&sc.job_files, env)?;
    keep_sections(&mut files.jobs, &sc.run.sections)?;
    if sc.run.minimal {
        sc.run.formats = vec![OutputFormat::Terse];
    }
    let _flags = crate::options::ParseFlags {
        debug_parse: sc.run.debug.iter().any(|d| d == "parse"),
        warnings_fatal: sc.run.warnings_fatal,
    }
    .set();
    if sc.cl_jobs.is_empty() && sc.job_files.is_empty() {
        let name = vec![("name".into(), Some("iolab".into()))];
        sc.cl_jobs.push((sc.globals.len(), name));
    }
    if sc.cl_jobs.is_empty() && files.jobs.is_empty() {
        return Err(FioError::Usage(
            "the job files define no job: add a [JOBNAME] section".into(),
        ));
    }
    // The global options as fio's JSON shows them (canonical names, bare flags left out);
    // applying them here also rejects a bad one even when no job uses it.
    // Command-line options apply in the order given, as fio parses them one by one (only a
    // job file's section is applied in fio's `prio` order: `kb_base` first).
    let mut global_draft = JobDraft::new("");
    for (k, v) in &sc.globals {
        global_draft.apply(k, v.as_deref())?;
    }
    for e in fio_order(&files.globals, |e| &e.key) {
        apply_entry(&mut global_draft, e)?;
    }
    let mut specs = Vec::new();
    let mut job_options = Vec::new();
    let mut sections = Vec::new();
    for (seen, job) in &sc.cl_jobs {
        let mut draft = JobDraft::new("");
        for (k, v) in sc.globals[..*seen].iter().chain(job) {
            draft.apply(k, v.as_deref())?;
        }
        sections.push(Section::of(&draft));
        let opts = draft.set_options.clone();
        for spec in draft.finish_all()? {
            job_options.push(opts.clone());
            specs.push(spec);
        }
    }
    for raw in &files.jobs {
        let (opts, expanded, section) = file_job(raw, &sc.globals)?;
        sections.push(section);
        for spec in expanded {
            job_options.push(opts.clone());
            specs.push(spec);
        }
    }
    let o = sc.run;
    if let Some(cap) = o.runtime_cap {
        for s in &mut specs {
            s.ramp_time = s.ramp_time.min(cap);
            s.runtime = s.runtime.map(|r| r.min(cap));
            // exec's program is told to stop when the (capped) runtime is over.
            let exec = &mut s.engine.options.exec;
            exec.stop_after = exec.stop_after.min(cap);
        }
    }
    for s in &mut specs {
        s.fio_order |= o.fio_offsets;
        if o.latency_windows.is_some() {
            s.latency_window = o.latency_windows;
        }
        if let Some(v) = s.verify.as_mut() {
            v.state_dir.clone_from(&o.aux_path);
        }
    }
    let copies: u64 = specs.iter().map(|s| s.numjobs as u64).sum();
    if let Some(max) = o.max_jobs.filter(|m| copies > *m as u64) {
        return Err(FioError::Usage(format!(
            "the jobs make {copies} job copies (numjobs counted), more than --max-jobs={max}"
        )));
    }
    Ok(CommandLine {
        jobs: specs,
        job_options,
        global_options: global_draft.set_options,
        job_files: sc.job_files,
        run: o,
        sections,
    })
}

/// fio's `--section`: only the named job file sections stay (none named: all). A kept job
/// takes over the wait of a dropped one before it (each job file waits for the one before).
fn keep_sections(
    jobs: &mut Vec<crate::jobfile::RawJob>,
    sections: &[String],
) -> Result<(), FioError> {
    if sections.is_empty() {
        return Ok(());
    }
    if let Some(missing) = sections
        .iter()
        .find(|s| !jobs.iter().any(|j| &j.name == *s))
    {
        let have: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        return Err(FioError::Usage(format!(
            "--section={missing}: the job files have no such section (they have: {})",
            have.join(", ")
        )));
    }
    let mut waits = false;
    jobs.retain_mut(|j| {
        waits |= j.waits_for_previous_file;
        let keep = sections.contains(&j.name);
        if keep {
            j.waits_for_previous_file = std::mem::take(&mut waits);
        }
        keep
    });
    Ok(())
}

/// fio's `--showcmd`: the jobs of the command line and the job files as one command line,
/// `iolab run --GLOBAL=V ... --name=JOB --OPTION=V ...` (a section's options in the order
/// fio applies them), which runs the same jobs.
pub fn show_command(args: &[String], env: &dyn Env) -> Result<String, FioError> {
    let sc = scan(args)?;
    let mut files = read_job_files(&sc.job_files, env)?;
    keep_sections(&mut files.jobs, &sc.run.sections)?;
    let mut out = String::from("iolab run");
    let mut push = |k: &str, v: Option<&str>| {
        out.push_str(" --");
        out.push_str(k);
        if let Some(v) = v {
            out.push('=');
            out.push_str(&shell_word(v));
        }
    };
    for (k, v) in &sc.globals {
        push(k, v.as_deref());
    }
    for e in fio_order(&files.globals, |e| &e.key) {
        push(&e.key, e.value.as_deref());
    }
    for (_, job) in &sc.cl_jobs {
        for (k, v) in job {
            push(k, v.as_deref());
        }
    }
    for j in &files.jobs {
        push("name", Some(&j.name));
        for e in fio_order(&j.entries, |e| &e.key) {
            push(&e.key, e.value.as_deref());
        }
    }
    Ok(out)
}

/// The jobs as a job file that reruns them: one section per job with every option in force
/// (fio's order), file names made absolute against `cwd` (where the run was started), so
/// it runs the same I/O from anywhere. Stored values are data: a value that would start a
/// line of its own (a section, a comment, another option) is refused, never written;
/// `description`, which is only words, keeps its line breaks as `\n`.
pub fn job_file_of(sections: &[Section], cwd: &std::path::Path) -> Result<String, String> {
    let abs = |v: &str| -> String {
        let one = |n: &str| match n.is_empty() || n.starts_with('/') {
            true => n.to_string(),
            false => cwd.join(n).display().to_string().replace(':', "\\:"),
        };
        v.replace("\\:", "\u{0}")
            .split(':')
            .map(|n| one(&n.replace('\u{0}', ":")).replace(':', "\\:"))
            .collect::<Vec<_>>()
            .join(":")
    };
    let mut out = String::new();
    for s in sections {
        let bad_name = s.name.is_empty()
            || s.name
                .contains(|c: char| c.is_control() || c == ']' || c == '[');
        if bad_name {
            return Err(format!(
                "a job's name ({:?}) cannot be a section header of a job file",
                s.name
            ));
        }
        out.push_str(&format!("[{}]\n", s.name));
        let has_dir = s.options.iter().any(|(k, _)| k == "directory");
        // fio's default names (`NAME.COPY.FILE`) live in the working directory.
        if !has_dir && !s.options.iter().any(|(k, _)| k == "filename") {
            out.push_str(&format!(
                "directory={}\n",
                one_line("directory", &s.name, &cwd.display().to_string())?
            ));
        }
        for (k, v) in fio_order(&s.options, |(k, _)| k) {
            if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "job <{}> has an option named {k:?}, which is no option",
                    s.name
                ));
            }
            let v = match (k.as_str(), v) {
                ("filename", Some(v)) if !has_dir => Some(abs(v)),
                ("directory", Some(v)) => Some(abs(v)),
                (_, v) => v.clone(),
            };
            match v {
                Some(v) => out.push_str(&format!("{k}={}\n", one_line(k, &s.name, &v)?)),
                None => out.push_str(&format!("{k}\n")),
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// `t` with its control characters (line breaks above all) written as escapes (`\n`,
/// `\u{1b}`), so that it stays on one line whatever it holds.
pub fn controls_escaped(t: &str) -> String {
    t.chars()
        .map(|c| match c.is_control() {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect()
}

/// A value as one line of a job file: `description`'s line breaks as `\n`; any other value
/// with a line break or control character is refused (it would start a line of its own).
fn one_line(key: &str, job: &str, v: &str) -> Result<String, String> {
    if !v.contains(|c: char| c.is_control()) {
        return Ok(v.to_string());
    }
    if key == "description" {
        return Ok(controls_escaped(v));
    }
    Err(format!(
        "job <{job}>'s {key} holds a line break or control character, which no line of a job \
         file can carry"
    ))
}

/// A value as a shell takes it back (quoted where it has blanks or shell characters).
fn shell_word(v: &str) -> String {
    match v.is_empty()
        || v.contains(|c: char| c.is_whitespace() || "'\"$\\`;&|<>()*?!#~".contains(c))
    {
        true => format!("'{}'", v.replace('\'', "'\\''")),
        false => v.to_string(),
    }
}

/// The command line split up: job options (global, and per `--name=` job), iolab's own run
/// options, and job files.
struct Scanned {
    globals: Vec<Pair>,
    /// Each command-line job with how many of `globals` were given before it.
    cl_jobs: Vec<(usize, Vec<Pair>)>,
    run: RunOpts,
    job_files: Vec<PathBuf>,
}

fn scan(args: &[String]) -> Result<Scanned, FioError> {
    let mut sc = Scanned {
        globals: Vec::new(),
        cl_jobs: Vec::new(),
        run: RunOpts::default(),
        job_files: Vec::new(),
    };
    let mut in_global = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(body) = arg.strip_prefix("--") else {
            if arg.starts_with('-') && arg.len() > 1 {
                return Err(FioError::Usage(format!(
                    "unexpected argument '{arg}': options look like --name=value"
                )));
            }
            sc.job_files.push(PathBuf::from(arg));
            continue;
        };
        let (key, mut value) = match body.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (body.to_string(), None),
        };
        if value.is_none() && takes_value(&key) && i < args.len() && !args[i].starts_with("--") {
            value = Some(args[i].clone());
            i += 1;
        }
        if crate::options::run::apply(&mut sc.run, &key, value.as_deref())? {
            continue;
        }
        match key.as_str() {
            // As in fio, `--name=global` starts global options again: they apply to the
            // jobs named after it.
            "name" if value.as_deref() == Some("global") => in_global = true,
            "name" => {
                in_global = false;
                sc.cl_jobs.push((sc.globals.len(), vec![(key, value)]));
            }
            _ => match sc.cl_jobs.last_mut() {
                Some((_, job)) if !in_global => job.push((key, value)),
                _ => sc.globals.push((key, value)),
            },
        }
    }
    Ok(sc)
}

/// Whether `--key` takes the next argument as its value when written without `=`.
fn takes_value(key: &str) -> bool {
    match RUN_OPTIONS.iter().find(|o| o.name == key) {
        Some(o) => o.takes_next(),
        None => find(key).is_some_and(|d| d.kind != ValueKind::Bool),
    }
}

/// Options as written, in order: (name, value).
type Options = Vec<(String, String)>;

/// One job of a job file: the options fio's JSON lists as its own, its specs (one per
/// `numjobs` copy expansion the draft makes), and the job with every option in force.
fn file_job(
    raw: &crate::jobfile::RawJob,
    globals: &[Pair],
) -> Result<(Options, Vec<iolab_job::JobSpec>, Section), FioError> {
    let mut draft = JobDraft::new(&raw.name);
    draft.section = Some(raw.name.clone());
    for (k, v) in fio_order(globals, |p| &p.0) {
        draft.apply(k, v.as_deref())?;
    }
    // fio's JSON lists only the section's own options as the job's.
    for e in fio_order(&raw.globals, |e| &e.key) {
        apply_entry(&mut draft, e)?;
    }
    // fio checks the engine options of the globals against the engine in force there; a job
    // that then picks another engine keeps them unread (e4defrag2.fio's libaio jobs under a
    // global donorname), so only the section's own are checked against the job's engine.
    draft.check_engine_options().map_err(|e| FioError::At {
        at: raw.at.to_string(),
        source: Box::new(e),
    })?;
    draft.engine_options.clear();
    // A `name=` in [global] does not rename the jobs: each keeps its section's name (a
    // `name=` inside the section still does), as in fio.
    draft.spec.name = raw.name.clone();
    draft.set_options.clear();
    for e in fio_order(&raw.entries, |e| &e.key) {
        apply_entry(&mut draft, e)?;
    }
    if raw.waits_for_previous_file {
        draft.spec.stonewall = true;
        draft.applied.retain(|(k, _)| k != "stonewall");
        draft.applied.push(("stonewall".into(), None));
    }
    let opts = draft.set_options.clone();
    let section = Section::of(&draft);
    let expanded = draft.finish_all().map_err(|e| FioError::At {
        at: raw.at.to_string(),
        source: Box::new(FioError::Usage(format!("job '{}': {e}", raw.name))),
    })?;
    Ok((opts, expanded, section))
}

fn apply_entry(draft: &mut JobDraft, e: &Entry) -> Result<(), FioError> {
    draft
        .apply(&e.key, e.value.as_deref())
        .map_err(|source| FioError::At {
            at: e.at.to_string(),
            source: Box::new(source),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_engine::EngineKind;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_issue_example_parses() {
        let c = parse_command_line(&args(
            "--name=qd1 --filename=/dev/zram0 --direct=1 --rw=randread --bs=4k --iodepth=1 \
             --ioengine=io_uring --time_based --runtime=10 --ramp_time=2",
        ))
        .unwrap();
        assert_eq!(c.jobs.len(), 1);
        let j = &c.jobs[0];
        assert_eq!(j.name, "qd1");
        assert_eq!(j.engine.kind, EngineKind::IoUring);
        assert!(j.direct && j.time_based);
        assert_eq!(j.runtime, Some(std::time::Duration::from_secs(10)));
        assert_eq!(c.run.formats, vec![OutputFormat::Normal]);
        assert!(!c.run.allow_destroy);
    }

    /// As fio: whichever of --minimal and --output-format comes last decides.
    #[test]
    fn the_last_of_minimal_and_output_format_wins() {
        let f = |s: &str| parse_command_line(&args(s)).unwrap().run.formats;
        let job = "--name=j --filename=/tmp/f";
        assert_eq!(
            f(&format!("{job} --minimal --output-format=json")),
            vec![OutputFormat::Json]
        );
        assert_eq!(
            f(&format!("{job} --output-format=json --minimal")),
            vec![OutputFormat::Terse]
        );
    }

    #[test]
    fn globals_apply_to_every_job_and_name_starts_a_job() {
        let c = parse_command_line(&args(
            "--filename=/tmp/f --bs=8k --name=a --rw=randread --name=b --rw=randwrite --bs=16k",
        ))
        .unwrap();
        assert_eq!(c.jobs.len(), 2);
        assert_eq!(c.jobs[0].block_size, [8192; 3]);
        assert_eq!(c.jobs[1].block_size, [16384; 3]);
        assert_eq!(c.jobs[1].read_percent, 0);
        assert_eq!(c.global_options.len(), 2);
        assert_eq!(
            c.job_options[1].last().unwrap(),
            &("bs".to_string(), "16k".to_string())
        );
    }

    #[test]
    fn values_may_follow_as_separate_arguments() {
        let c = parse_command_line(&args(
            "--name j --filename /tmp/f --time_based --runtime 5 --output-format json --output /tmp/o \
             --allow-destroy",
        ))
        .unwrap();
        assert!(c.jobs[0].time_based);
        assert_eq!(c.run.formats, vec![OutputFormat::Json]);
        assert_eq!(c.run.output, Some(PathBuf::from("/tmp/o")));
        assert!(c.run.allow_destroy);
    }

    #[test]
    fn fio_offsets_asks_every_job_for_fios_order() {
        let c = parse_command_line(&args(
            "--name=a --filename=/tmp/f --rw=randread --fio-offsets --name=b --filename=/tmp/g",
        ))
        .unwrap();
        assert!(c.run.fio_offsets);
        assert!(c.jobs.iter().all(|j| j.fio_order), "both jobs");
        let c = parse_command_line(&args("--name=a --filename=/tmp/f --rw=randread")).unwrap();
        assert!(!c.jobs[0].fio_order, "iolab's order by default");
    }

    #[test]
    fn keep_rseq_is_a_flag_of_the_run() {
        let c =
            parse_command_line(&args("--name=j --filename=/tmp/f --keep-rseq --bs=8k")).unwrap();
        assert!(c.run.keep_rseq);
        assert_eq!(c.jobs[0].block_size, [8192; 3], "the flag took no value");
        let c = parse_command_line(&args("--name=j --filename=/tmp/f")).unwrap();
        assert!(!c.run.keep_rseq);
    }

    #[test]
    fn the_runtime_cap_cuts_execs_stop_too() {
        let c = parse_command_line(&args(
            "--runtime-cap=1 --name=e --ioengine=exec --program=sh --runtime=60",
        ))
        .unwrap();
        let exec = &c.jobs[0].engine.options.exec;
        assert_eq!(exec.stop_after, std::time::Duration::from_secs(1));
        assert_eq!(exec.argv, ["sh"]);
    }

    #[test]
    fn bad_input_is_named() {
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --bogus=1")).unwrap_err();
        assert!(e.to_string().starts_with("unknown option 'bogus'"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --bs=4x")).unwrap_err();
        assert!(e.to_string().contains("'x' is no unit"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --iodepth=0")).unwrap_err();
        assert!(e.to_string().contains("iodepth"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --ioengine=sg")).unwrap_err();
        assert!(
            e.to_string()
                .contains("ioengine 'sg' is not supported by iolab yet"),
            "{e}"
        );
        let e = parse_command_line(&args("/nonexistent/job.fio")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot read job file /nonexistent/job.fio"),
            "{e}"
        );
        let e = parse_command_line(&args("-x")).unwrap_err();
        assert!(e.to_string().contains("unexpected argument '-x'"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --output-format=csv"))
            .unwrap_err();
        assert!(e.to_string().contains("output-format"), "{e}");
        // No filename: fio's default, NAME.COPY.0 (prepare then wants a size to create it).
        let c = parse_command_line(&args("--name=j")).unwrap();
        assert_eq!(c.jobs[0].filename, PathBuf::from("j.0.0"));
    }

    /// Every flag of the run-option table (so a flag added later too) takes fio's booleans,
    /// the last one given wins, and anything else is bad input: `--allow-destroy=0` must
    /// never mean yes.
    #[test]
    fn every_run_flag_takes_fios_booleans_and_the_last_wins() {
        let flags: Vec<_> = RUN_OPTIONS.iter().filter(|o| o.is_flag()).collect();
        assert!(flags.len() >= 6, "{}", flags.len());
        for def in flags {
            let RunSetter::Flag(field) = def.set else {
                unreachable!()
            };
            let value = |words: &[String]| -> Result<bool, FioError> {
                let mut a = args("--name=j --filename=/tmp/f");
                a.extend(words.iter().cloned());
                let mut sc = scan(&a)?;
                Ok(*field(&mut sc.run))
            };
            let n = def.name;
            assert!(!value(&[]).unwrap(), "{n}: off by default");
            assert!(value(&[format!("--{n}")]).unwrap(), "{n}: bare is on");
            for w in ["1", "true", "yes", "on", "TRUE", "On"] {
                assert!(value(&[format!("--{n}={w}")]).unwrap(), "{n}={w}");
            }
            for w in ["0", "false", "no", "off", "FALSE", "Off"] {
                assert!(!value(&[format!("--{n}={w}")]).unwrap(), "{n}={w}");
            }
            let (on, off) = (format!("--{n}=1"), format!("--{n}=0"));
            assert!(
                !value(&[on.clone(), off.clone()]).unwrap(),
                "{n}: last wins"
            );
            assert!(value(&[off, on]).unwrap(), "{n}: last wins");
            for bad in ["maybe", "/tmp/somefile", "2", ""] {
                let e = value(&[format!("--{n}={bad}")]).unwrap_err();
                assert!(matches!(e, FioError::BadValue { .. }), "{n}={bad}: {e}");
            }
            // A bare flag never takes the next argument as its value.
            let c = parse_command_line(&args(&format!("--{n} --name=j --filename=/tmp/f")));
            assert!(c.is_ok(), "{n}");
        }
    }

    #[test]
    fn a_name_in_global_keeps_the_section_names() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("j.fio");
        std::fs::write(&f, "[global]\nname=g\nsize=1m\n[a]\n[b]\nname=own\n").unwrap();
        let c = parse_command_line(&[f.display().to_string()]).unwrap();
        let names: Vec<&str> = c.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["a", "own"]);
    }
}
