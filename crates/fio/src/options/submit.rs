//! `io_submit_mode`: who submits the job's I/O. fio's `offload` hands each I/O to a pool of
//! `iodepth` submitting threads, so the job's own thread issues at the rate's schedule
//! without waiting for completions ("a fixed rate of submission regardless of what the
//! device completion rate is", fio's example says). With a rate, that is iolab's open loop
//! (`rate_open_loop`): each I/O goes at its due time, up to iodepth in flight. Without one,
//! fio's pool keeps iodepth I/Os in flight, as the job's own loop does at that depth.

use iolab_engine::EngineKind;
use iolab_job::JobSpec;

use crate::options::{OptionDef, ValueKind};
use crate::FioError;

pub static SUBMIT_OPTIONS: &[OptionDef] = &[OptionDef {
    name: "io_submit_mode",
    alias: None,
    kind: ValueKind::Str,
    help: "`inline` (default): the job's thread submits its own I/O and, under a rate, waits \
           for completions before it issues again. `offload`: as fio's pool of submitting \
           threads, I/O goes at the rate's schedule whether or not earlier I/O completed, up \
           to iodepth in flight (iolab's open loop, with its response times beside fio's \
           figures); without a rate it changes nothing. Not with io_uring or io_uring_cmd \
           (fio refuses them), nor with a synchronous engine above iodepth=1.",
    apply: |d, v| {
        d.offload = match v.trim() {
            "inline" => false,
            "offload" => true,
            _ => return Err(format!("'{v}' is not inline or offload")),
        };
        Ok(())
    },
}];

/// What `io_submit_mode=offload` makes of a finished job: its open loop under a rate, its
/// own loop unchanged without one; or why iolab cannot run it as fio would.
pub fn resolve_offload(spec: &mut JobSpec) -> Result<(), FioError> {
    let engine = spec.engine.kind.def();
    let refuse = |reason: String| FioError::BadValue {
        name: "io_submit_mode".into(),
        value: "offload".into(),
        reason,
    };
    if matches!(
        spec.engine.kind,
        EngineKind::IoUring | EngineKind::IoUringCmd
    ) {
        // fio's td_ioengine_check(): the engine is flagged FIO_NO_OFFLOAD.
        return Err(refuse(format!(
            "{} can't be used with offloaded submit, as in fio; use libaio or a sync engine",
            engine.name
        )));
    }
    if engine.synchronous && spec.iodepth > 1 {
        return Err(refuse(format!(
            "fio runs the synchronous engine {} from {} submitting threads; iolab submits from \
             the job's own thread (use numjobs={}, or libaio at iodepth={})",
            engine.name, spec.iodepth, spec.iodepth, spec.iodepth
        )));
    }
    let capped =
        spec.rate.bytes.iter().any(Option::is_some) || spec.rate.iops.iter().any(Option::is_some);
    if !capped {
        return Ok(());
    }
    spec.rate.open_loop = true;
    if let Some(other) = spec.unfit_for_open_loop() {
        return Err(refuse(format!(
            "under a rate iolab issues on the schedule alone (its open loop), not with {other}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::options::JobDraft;
    use crate::FioError;
    use iolab_job::JobSpec;

    fn job(opts: &[(&str, &str)]) -> Result<JobSpec, FioError> {
        let mut d = JobDraft::new("t");
        d.apply("filename", Some("/tmp/x"))?;
        for (k, v) in opts {
            d.apply(k, Some(v))?;
        }
        Ok(d.finish_all()?.remove(0))
    }

    #[test]
    fn offload_under_a_rate_is_the_open_loop_wherever_the_rate_is_given() {
        let aio = [("ioengine", "libaio"), ("iodepth", "32")];
        let before = [
            &aio[..],
            &[("io_submit_mode", "offload"), ("rate_iops", "1000")],
        ];
        let after = [&aio[..], &[("rate", "4m"), ("io_submit_mode", "offload")]];
        for opts in [before.concat(), after.concat()] {
            assert!(job(&opts).unwrap().rate.open_loop, "{opts:?}");
        }
        // Without a rate, or inline: fio's pool keeps iodepth in flight, as the loop does.
        let unpaced = job(&[&aio[..], &[("io_submit_mode", "offload")]].concat()).unwrap();
        assert!(!unpaced.rate.open_loop);
        let inline = [
            &aio[..],
            &[("io_submit_mode", "inline"), ("rate_iops", "9")],
        ];
        assert!(!job(&inline.concat()).unwrap().rate.open_loop);
        // A synchronous engine at depth 1 is one submitter in fio too.
        let sync = [("io_submit_mode", "offload"), ("rate_iops", "50")];
        assert!(job(&sync).unwrap().rate.open_loop);
    }

    #[test]
    fn offload_is_refused_where_fio_refuses_it_or_iolab_would_run_it_otherwise() {
        let refused = |opts: &[(&str, &str)], says: &str| {
            let mut all = vec![("io_submit_mode", "offload")];
            all.extend_from_slice(opts);
            let e = job(&all).unwrap_err().to_string();
            assert!(e.contains("io_submit_mode") && e.contains(says), "{e}");
            assert!(!e.contains('\n'), "{e}");
        };
        refused(&[("ioengine", "io_uring")], "io_uring can't be used");
        refused(&[("ioengine", "psync"), ("iodepth", "4")], "numjobs=4");
        let verify = [("ioengine", "libaio"), ("rate_iops", "9"), ("rw", "write")];
        refused(
            &[&verify[..], &[("verify", "crc32c")]].concat(),
            "not with verify",
        );
        let unlinks = [("unlink_each_loop", "1"), ("loops", "2")];
        refused(
            &[&verify[..2], &unlinks[..]].concat(),
            "not with unlink_each_loop with loops",
        );
        let e = job(&[("io_submit_mode", "async")]).unwrap_err().to_string();
        assert!(e.contains("not inline or offload"), "{e}");
    }
}
