//! fio's `exec_prerun` and `exec_postrun`: a shell command before and after the job, its
//! output in `JOBNAME.prerun.txt` / `JOBNAME.postrun.txt` (opened through the output guard,
//! never onto one of the job's targets); and `uid`/`gid`, taken by the job's thread alone.

use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{PreparedJob, RunError};

/// Runs `command` as fio's `exec_string()` does: `sh -c "COMMAND > JOBNAME.MODE.txt 2>&1"`,
/// so the redirection binds to the command's last part, as in fio (`echo a; echo b` saves
/// only `b`). The file is opened here, through the guard, and handed to the shell as
/// descriptor 3; what is not redirected goes to iolab's stderr (fio's stdout), so that
/// iolab's stdout stays pure JSON when asked for. A prerun that fails or exits non-zero
/// fails the job before its I/O; a postrun's status is only reported.
pub(super) fn run(job: &PreparedJob, command: &str, mode: &str) -> Result<(), RunError> {
    let spec = &job.spec;
    let failed = |reason: String| RunError::Unusable {
        job: spec.name.clone(),
        reason: format!("exec_{mode} '{command}': {reason}"),
    };
    let path = PathBuf::from(format!("{}.{mode}.txt", spec.name));
    let protected: Vec<&Path> = job.pins.iter().map(|p| p.resolved.as_path()).collect();
    let out = iolab_sysinfo::guard::open_output(&path, &format!("exec_{mode}"), &protected)
        .map_err(|e| failed(e.to_string()))?;
    eprintln!(
        "{} : Saving output of {mode} in {}",
        spec.name,
        path.display()
    );
    let fd = out.as_raw_fd();
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(format!("{command} >&3 2>&1 3>&-"))
        .stdin(Stdio::null())
        .stdout(std::io::stderr());
    // SAFETY: dup2 is async-signal-safe; `out` stays open in the parent until the child
    // has been spawned.
    unsafe {
        sh.pre_exec(move || match libc::dup2(fd, 3) {
            -1 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        });
    }
    let status = sh.status().map_err(|e| failed(e.to_string()))?;
    drop(out);
    match status.success() {
        true => Ok(()),
        false => Err(failed(format!("it ended with {status}"))),
    }
}

/// Takes the job's `gid` and `uid` for the calling thread only (the raw syscalls: glibc's
/// wrappers would change every thread of the process), group first while still allowed.
pub(super) fn take_ids(job: &PreparedJob) -> Result<(), RunError> {
    let control = &job.spec.control;
    let failed = |what: &str, e: std::io::Error| RunError::Unusable {
        job: job.spec.name.clone(),
        reason: format!("{what}: {e}"),
    };
    if let Some(gid) = control.gid {
        // SAFETY: setresgid takes three integers.
        if unsafe { libc::syscall(libc::SYS_setresgid, gid, gid, gid) } != 0 {
            return Err(failed(
                &format!("gid={gid}"),
                std::io::Error::last_os_error(),
            ));
        }
    }
    if let Some(uid) = control.uid {
        // SAFETY: setresuid takes three integers.
        if unsafe { libc::syscall(libc::SYS_setresuid, uid, uid, uid) } != 0 {
            return Err(failed(
                &format!("uid={uid}"),
                std::io::Error::last_os_error(),
            ));
        }
    }
    Ok(())
}
