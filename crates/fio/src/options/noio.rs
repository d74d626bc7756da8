//! The options of fio's engines that do no I/O: `cpuio` (burn a share of a CPU) and `exec`
//! (run a program for the job's runtime). Each is refused for any other engine, as fio
//! refuses an engine's option elsewhere.

use iolab_engine::cpuio::CpuMode;

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
];

/// The span a job of an engine without I/O walks: none of it is read or written, so it
/// only has to be long enough never to end the job before its runtime (fio's `FIO_NOIO` jobs
/// are bounded by time alone).
const NOIO_SPAN: u64 = 1 << 50;

impl crate::options::JobDraft {
    /// fio's cpuio `init()`: `cpuload` is required and at most 100, and the job's pauses
    /// become the engine's (one after every chunk, long enough to keep the load), whatever
    /// `thinktime` said.
    pub(crate) fn apply_noio(&mut self) -> Result<(), crate::FioError> {
        if self.spec.engine.kind != iolab_engine::EngineKind::Cpuio {
            return Ok(());
        }
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
        self.spec.size = Some(iolab_job::SizeSpec::Bytes(NOIO_SPAN));
        self.spec.io_size = None;
        Ok(())
    }
}
