//! `exec`: no I/O; the job runs a program for its runtime, as fio's `engines/exec.c`. People
//! put it beside cpuio or I/O jobs to watch the machine while they run (fio's example runs
//! `turbostat`), so the program's output is what the job is for.
//!
//! fio's timing, kept: the first "I/O" starts the program; every later one waits 50 ms and,
//! once the job's runtime is over, sends the program SIGTERM and waits `grace_time` seconds.
//! The job itself ends by its runtime, not by the program (a program that exits early leaves
//! the job waiting out its time, as in fio). When the job ends the program gets SIGKILL, and
//! iolab also reaps it, where fio leaves a zombie until it exits.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Capabilities, Direction, EngineError, IoEngine, IoUnit, QueueStatus};

/// What `exec` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Exec,
    name: "exec",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &["program", "arguments", "grace_time", "std_redirect"],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: None,
};

/// fio's wait between checks on the program (its `usleep(thinktime)`, thinktime 50 ms).
pub const CHECK_EVERY: Duration = Duration::from_millis(50);

/// The program an `exec` job runs: as given, and as run (its arguments expanded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecProgram {
    /// `program` and `arguments` as the job gave them (fio's init line shows these).
    pub program: String,
    pub arguments: Option<String>,
    /// The job's name, for the lines saying what runs.
    pub job: String,
    /// `program` and the words of `arguments` with `%r` and `%n` expanded, split at spaces
    /// as fio splits them (no quoting).
    pub argv: Vec<String>,
    /// When the program is told to stop: the job's runtime (zero without one: fio then stops
    /// it at the first check).
    pub stop_after: Duration,
    /// Seconds between SIGTERM and the next check (`grace_time`, default 1).
    pub grace: Duration,
    /// Where its stdout and stderr go (`std_redirect=1`: `JOB.stdout` and `JOB.stderr`);
    /// None leaves them on iolab's.
    pub redirect: Option<(PathBuf, PathBuf)>,
}

impl Default for ExecProgram {
    fn default() -> Self {
        ExecProgram {
            program: String::new(),
            arguments: None,
            job: String::new(),
            argv: Vec::new(),
            stop_after: Duration::ZERO,
            grace: Duration::from_secs(1),
            redirect: Some(Default::default()),
        }
    }
}

impl ExecProgram {
    /// fio's names for the program's saved output: `JOB.stdout` and `JOB.stderr`, where
    /// iolab runs.
    pub fn outputs(job: &str) -> (PathBuf, PathBuf) {
        (
            PathBuf::from(format!("{job}.stdout")),
            PathBuf::from(format!("{job}.stderr")),
        )
    }

    /// Whether `program` can be run: a path (with a `/`) to an executable file, or a name
    /// found so in `PATH`, as `execvp` looks. Checked before the run, so that a job beside
    /// hours of I/O does not fail when its turn comes (fio's child, failing `execvp`, goes on
    /// as a second copy of fio).
    pub fn runnable(program: &str) -> bool {
        use std::os::unix::fs::PermissionsExt;
        let executable = |p: &std::path::Path| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        };
        if program.contains('/') {
            return executable(std::path::Path::new(program));
        }
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
        std::env::split_paths(&path).any(|d| executable(&d.join(program)))
    }

    /// `program` followed by `arguments`, split at spaces (fio's `exec_background`).
    pub fn words(program: &str, arguments: Option<&str>) -> Vec<String> {
        let line = match arguments {
            Some(a) => format!("{program} {a}"),
            None => program.to_string(),
        };
        line.split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }
}

pub struct Exec {
    program: ExecProgram,
    started: Instant,
    child: Option<Child>,
}

impl Exec {
    pub fn open(program: &ExecProgram) -> Result<Exec, EngineError> {
        if program.argv.is_empty() {
            return Err(EngineError::Unsupported {
                engine: "exec",
                reason: "no program is defined, it is mandatory to define one".into(),
            });
        }
        Ok(Exec {
            program: program.clone(),
            started: Instant::now(),
            child: None,
        })
    }

    /// Starts the program, its output where the job says (opened through the output guard:
    /// never a device, never through a symlink swapped in since the run was checked).
    fn spawn(&mut self) -> Result<(), EngineError> {
        let p = &self.program;
        let shown = p.argv.join(" ");
        let mut cmd = Command::new(&p.argv[0]);
        cmd.args(&p.argv[1..]);
        match &p.redirect {
            Some((out, err)) => {
                eprintln!(
                    "{} : Saving output of {shown} : stdout={} stderr={}",
                    p.job,
                    out.display(),
                    err.display()
                );
                let open = |path: &PathBuf| {
                    iolab_sysinfo::open_output(path, "std_redirect", &[]).map_err(|e| {
                        EngineError::Unsupported {
                            engine: "exec",
                            reason: e.to_string(),
                        }
                    })
                };
                cmd.stdout(Stdio::from(open(out)?))
                    .stderr(Stdio::from(open(err)?));
            }
            None => eprintln!("{} : Running {shown}", p.job),
        }
        let child = cmd.spawn().map_err(|e| EngineError::Unsupported {
            engine: "exec",
            reason: format!("cannot run {}: {e}", p.argv[0]),
        })?;
        self.child = Some(child);
        Ok(())
    }

    fn signal(&self, sig: libc::c_int) {
        if let Some(c) = &self.child {
            // SAFETY: kill takes a pid and a signal; the child is ours and not yet reaped,
            // so its pid cannot name another process.
            unsafe { libc::kill(c.id() as libc::pid_t, sig) };
        }
    }
}

impl IoEngine for Exec {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        if self.child.is_none() {
            self.spawn()?;
        } else {
            std::thread::sleep(CHECK_EVERY);
            if self.started.elapsed() > self.program.stop_after {
                self.signal(libc::SIGTERM);
                std::thread::sleep(self.program.grace);
            }
        }
        Ok(QueueStatus::Completed(io.len as i64))
    }

    fn transfers(&self) -> bool {
        false
    }
}

impl Drop for Exec {
    /// fio's cleanup: SIGKILL, whatever the program is doing; then reaped.
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            if matches!(c.try_wait(), Ok(None)) {
                let _ = c.kill();
            }
            let _ = c.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_at_spaces_as_fio() {
        assert_eq!(
            ExecProgram::words("/bin/sleep", Some(" 3  x")),
            ["/bin/sleep", "3", "x"]
        );
        assert_eq!(ExecProgram::words("true", None), ["true"]);
    }

    #[test]
    fn a_program_is_looked_up_as_execvp_does() {
        assert!(ExecProgram::runnable("sh") && ExecProgram::runnable("/bin/sh"));
        assert!(!ExecProgram::runnable("/etc/passwd"), "not executable");
        assert!(!ExecProgram::runnable("/bin") && !ExecProgram::runnable("no-such-program"));
    }

    #[test]
    fn the_program_runs_and_is_killed_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = (dir.path().join("j.stdout"), dir.path().join("j.stderr"));
        let program = ExecProgram {
            job: "j".into(),
            program: "/bin/sh".into(),
            arguments: None,
            argv: ExecProgram::words("/bin/sh", Some("-c echo\tout;echo\terr>&2;exec\tsleep\t60")),
            stop_after: Duration::from_secs(60),
            grace: Duration::ZERO,
            redirect: Some((out.clone(), err.clone())),
        };
        let mut e = Exec::open(&program).unwrap();
        let io = IoUnit {
            slot: 0,
            file: 0,
            dir: Direction::Read,
            offset: 0,
            len: 0,
            buf: std::ptr::null_mut(),
            ioprio: 0,
            prio_index: 0,
        };
        // SAFETY: exec touches no buffer.
        unsafe { e.queue(&io).unwrap() };
        let pid = e.child.as_ref().unwrap().id();
        // SAFETY: as above; this one waits 50 ms.
        unsafe { e.queue(&io).unwrap() };
        let written = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len()) > 0;
        let t = Instant::now();
        while !(written(&out) && written(&err)) && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            e.child.as_mut().unwrap().try_wait().unwrap().is_none(),
            "still running"
        );
        drop(e);
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "killed and reaped"
        );
        assert_eq!(std::fs::read_to_string(out).unwrap(), "out\n");
        assert_eq!(std::fs::read_to_string(err).unwrap(), "err\n");
    }
}
