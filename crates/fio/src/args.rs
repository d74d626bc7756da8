//! fio's command line: `--key=value` (or `--key value`, or a bare `--flag` for booleans).
//! As in fio, each `--name` starts a new job and options before the first `--name` apply to
//! every job. Output options (`--output-format`, `--output`) and iolab's own `--allow-destroy`
//! apply to the whole run.

use std::path::PathBuf;

use iolab_job::JobSpec;

use crate::options::{find, JobDraft, ValueKind};
use crate::FioError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Normal,
    Json,
}

/// A parsed command line: the jobs plus run-wide settings.
#[derive(Debug, Clone)]
pub struct CommandLine {
    pub jobs: Vec<JobSpec>,
    /// Per job, the options as written (fio's JSON "job options").
    pub job_options: Vec<Vec<(String, String)>>,
    /// Options given before the first `--name` (fio's JSON "global options").
    pub global_options: Vec<(String, String)>,
    pub formats: Vec<OutputFormat>,
    pub output: Option<PathBuf>,
    pub allow_destroy: bool,
}

/// Run-wide options that are not job options.
const RUN_OPTIONS: [&str; 3] = ["output-format", "output", "allow-destroy"];

fn parse_formats(v: &str) -> Result<Vec<OutputFormat>, FioError> {
    let mut out = Vec::new();
    for f in v.split(',') {
        let fmt = match f.trim() {
            "normal" => OutputFormat::Normal,
            "json" => OutputFormat::Json,
            other => {
                return Err(FioError::BadValue {
                    name: "output-format".into(),
                    value: other.into(),
                    reason: "iolab writes normal or json (a comma list such as normal,json \
                             gives both)"
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

/// Parses the arguments after `iolab run`.
pub fn parse_command_line(args: &[String]) -> Result<CommandLine, FioError> {
    let mut globals: Vec<(String, Option<String>)> = Vec::new();
    let mut jobs: Vec<Vec<(String, Option<String>)>> = Vec::new();
    let mut formats = vec![OutputFormat::Normal];
    let mut output = None;
    let mut allow_destroy = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(body) = arg.strip_prefix("--") else {
            return Err(FioError::Usage(format!(
                "unexpected argument '{arg}': options look like --name=value (fio job files \
                 are not supported by iolab yet)"
            )));
        };
        let (key, mut value) = match body.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (body.to_string(), None),
        };
        let takes_value = match key.as_str() {
            "allow-destroy" => false,
            "output-format" | "output" => true,
            k => find(k).is_some_and(|d| d.kind != ValueKind::Bool),
        };
        if value.is_none() && takes_value && i < args.len() && !args[i].starts_with("--") {
            value = Some(args[i].clone());
            i += 1;
        }
        match key.as_str() {
            "output-format" => {
                let v = value.ok_or_else(|| FioError::MissingValue(key.clone()))?;
                formats = parse_formats(&v)?;
            }
            "output" => {
                output = Some(PathBuf::from(
                    value.ok_or_else(|| FioError::MissingValue(key.clone()))?,
                ));
            }
            "allow-destroy" => allow_destroy = true,
            "name" => jobs.push(vec![(key, value)]),
            _ => match jobs.last_mut() {
                Some(job) => job.push((key, value)),
                None => globals.push((key, value)),
            },
        }
    }
    debug_assert!(RUN_OPTIONS.iter().all(|o| find(o).is_none()));
    if jobs.is_empty() {
        jobs.push(vec![("name".into(), Some("iolab".into()))]);
    }
    let mut specs = Vec::new();
    let mut job_options = Vec::new();
    let mut global_options = Vec::new();
    for (n, job) in jobs.iter().enumerate() {
        let mut draft = JobDraft::new("");
        for (k, v) in globals.iter().chain(job) {
            draft.apply(k, v.as_deref())?;
        }
        if n == 0 {
            global_options =
                draft.set_options[..globals.len().min(draft.set_options.len())].to_vec();
        }
        job_options.push(draft.set_options.clone());
        specs.push(draft.finish()?);
    }
    Ok(CommandLine {
        jobs: specs,
        job_options,
        global_options,
        formats,
        output,
        allow_destroy,
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
        assert_eq!(c.formats, vec![OutputFormat::Normal]);
        assert!(!c.allow_destroy);
    }

    #[test]
    fn globals_apply_to_every_job_and_name_starts_a_job() {
        let c = parse_command_line(&args(
            "--filename=/tmp/f --bs=8k --name=a --rw=randread --name=b --rw=randwrite --bs=16k",
        ))
        .unwrap();
        assert_eq!(c.jobs.len(), 2);
        assert_eq!(c.jobs[0].block_size, [8192, 8192]);
        assert_eq!(c.jobs[1].block_size, [16384, 16384]);
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
        assert_eq!(c.formats, vec![OutputFormat::Json]);
        assert_eq!(c.output, Some(PathBuf::from("/tmp/o")));
        assert!(c.allow_destroy);
    }

    #[test]
    fn bad_input_is_named() {
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --bogus=1")).unwrap_err();
        assert!(e.to_string().starts_with("unknown option 'bogus'"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --bs=4x")).unwrap_err();
        assert!(e.to_string().contains("unknown unit"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --iodepth=0")).unwrap_err();
        assert!(e.to_string().contains("iodepth"), "{e}");
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --ioengine=posixaio"))
            .unwrap_err();
        assert!(e.to_string().contains("unknown ioengine 'posixaio'"), "{e}");
        let e = parse_command_line(&args("job.fio")).unwrap_err();
        assert!(
            e.to_string().contains("unexpected argument 'job.fio'"),
            "{e}"
        );
        let e = parse_command_line(&args("--name=j --filename=/tmp/f --output-format=terse"))
            .unwrap_err();
        assert!(e.to_string().contains("output-format"), "{e}");
        let e = parse_command_line(&args("--name=j")).unwrap_err();
        assert!(e.to_string().contains("filename"), "{e}");
    }
}
