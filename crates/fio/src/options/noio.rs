//! The options of fio's engines that do no I/O: `cpuio` (burn a share of a CPU) and `exec`
//! (run a program for the job's runtime). Each is refused for any other engine, as fio
//! refuses an engine's option elsewhere.

use iolab_engine::cpuio::CpuMode;
use iolab_engine::exec::ExecProgram;

use crate::options::{OptionDef, ValueKind};
use crate::units::{parse_bool, parse_u32};

/// cpuio's and exec's options.
pub static NOIO_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "cpuload",
        alias: None,
        kind: ValueKind::Int,
        help: "cpuio: the share of a CPU to burn, in percent (required; above 100 is 100). Each chunk burns, then the job pauses so that burning takes this share of its time.",
        apply: |d, v| {
            d.spec.engine.options.cpu.load = parse_u32(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "cpumode",
        alias: None,
        kind: ValueKind::Str,
        help: "cpuio: how a chunk burns: noop (spin on the clock, the default) or qsort (sort a 1 MiB array four times, which draws more power; the pause follows the sort's own time).",
        apply: |d, v| {
            d.spec.engine.options.cpu.mode = match v.trim() {
                "noop" => CpuMode::Noop,
                "qsort" => CpuMode::Qsort,
                _ => return Err("must be noop or qsort".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "cpuchunks",
        alias: None,
        kind: ValueKind::Int,
        help: "cpuio: microseconds one chunk burns (default 50000) and, before qsort has timed itself, the base of the pause.",
        apply: |d, v| {
            let us = parse_u32(v)?;
            if us == 0 {
                return Err("must be at least 1 microsecond".into());
            }
            d.spec.engine.options.cpu.chunk_us = us;
            Ok(())
        },
    },
    OptionDef {
        name: "exit_on_io_done",
        alias: None,
        kind: ValueKind::Bool,
        help: "cpuio: stop once the run's I/O jobs are done, none running or waiting to start (without it the job burns until its runtime, as fio's does).",
        apply: |d, v| {
            d.spec.engine.options.cpu.exit_on_io_done = parse_bool(v)?;
            Ok(())
        },
    },
    OptionDef {
        name: "program",
        alias: None,
        kind: ValueKind::Str,
        help: "exec: the program the job runs (required; looked up in PATH). It starts with the job; once the runtime is over it gets SIGTERM, and SIGKILL when the job ends.",
        apply: |d, v| {
            d.spec.engine.options.exec.program = v.trim().to_string();
            Ok(())
        },
    },
    OptionDef {
        name: "arguments",
        alias: None,
        kind: ValueKind::Str,
        help: "exec: the program's arguments, split at spaces (no quoting, as fio); %r becomes the job's runtime in seconds, %n its name.",
        apply: |d, v| {
            d.spec.engine.options.exec.arguments = Some(v.trim().to_string());
            Ok(())
        },
    },
    OptionDef {
        name: "grace_time",
        alias: None,
        kind: ValueKind::Int,
        help: "exec: seconds to wait after SIGTERM before the next check (default 1).",
        apply: |d, v| {
            d.spec.engine.options.exec.grace =
                std::time::Duration::from_secs(parse_u32(v)? as u64);
            Ok(())
        },
    },
    OptionDef {
        name: "std_redirect",
        alias: None,
        kind: ValueKind::Bool,
        help: "exec: save the program's stdout and stderr in JOBNAME.stdout and JOBNAME.stderr (default 1; opened as iolab's other outputs, never over a device or a target); 0 leaves them on iolab's.",
        apply: |d, v| {
            d.spec.engine.options.exec.redirect = parse_bool(v)?.then(Default::default);
            Ok(())
        },
    },
];

/// The span a job of an engine without I/O walks: none of it is read or written, so it
/// only has to be long enough never to end the job before its runtime (fio's `FIO_NOIO` jobs
/// are bounded by time alone).
const NOIO_SPAN: u64 = 1 << 50;

impl crate::options::JobDraft {
    /// The engines without I/O: their own checks and pauses, and a span that never ends the
    /// job before its runtime.
    pub(crate) fn apply_noio(&mut self) -> Result<(), crate::FioError> {
        match self.spec.engine.kind {
            iolab_engine::EngineKind::Cpuio => self.apply_cpuio()?,
            iolab_engine::EngineKind::Exec => self.apply_exec()?,
            _ => return Ok(()),
        }
        self.spec.size = Some(iolab_job::SizeSpec::Bytes(NOIO_SPAN));
        self.spec.io_size = None;
        Ok(())
    }

    /// fio's cpuio `init()`: `cpuload` is required and at most 100, and the job's pauses
    /// become the engine's (one after every chunk, long enough to keep the load), whatever
    /// `thinktime` said.
    fn apply_cpuio(&mut self) -> Result<(), crate::FioError> {
        let cpu = &mut self.spec.engine.options.cpu;
        if cpu.load == 0 {
            return Err(crate::FioError::Usage(
                "ioengine=cpuio needs cpuload= (the percent of a CPU to burn, 1 to 100)".into(),
            ));
        }
        cpu.load = cpu.load.min(100);
        let chunk = std::time::Duration::from_micros(cpu.chunk_us as u64);
        self.spec.think = iolab_job::Think {
            time: cpu.pause_after(chunk),
            blocks: Some(1),
            ..Default::default()
        };
        Ok(())
    }

    /// fio's exec `init()` and `expand_variables()`: `program` is required; `%r` in the
    /// arguments becomes the runtime in whole seconds (0 without one) and `%n` the job's name;
    /// the job pauses 50 ms after every check, whatever `thinktime` said; output goes to
    /// `NAME.stdout` and `NAME.stderr` unless `std_redirect=0`.
    fn apply_exec(&mut self) -> Result<(), crate::FioError> {
        let name = self.spec.name.clone();
        let runtime = self.spec.runtime.unwrap_or_default();
        let exec = &mut self.spec.engine.options.exec;
        if exec.program.is_empty() {
            return Err(crate::FioError::Usage(
                "ioengine=exec needs program= (the program the job runs)".into(),
            ));
        }
        if !ExecProgram::runnable(&exec.program) {
            return Err(crate::FioError::Usage(format!(
                "program={}: no such executable (ioengine=exec runs it)",
                exec.program
            )));
        }
        let expanded = exec.arguments.as_ref().map(|a| {
            a.replace("%r", &runtime.as_secs().to_string())
                .replace("%n", &name)
        });
        exec.argv = ExecProgram::words(&exec.program, expanded.as_deref());
        exec.job = name.clone();
        exec.stop_after = runtime;
        if exec.redirect.is_some() {
            exec.redirect = Some(ExecProgram::outputs(&name));
        }
        self.spec.think = iolab_job::Think {
            time: iolab_engine::exec::CHECK_EVERY,
            blocks: Some(1),
            ..Default::default()
        };
        Ok(())
    }
}
