//! fio's job-file dialect, read into sections of raw `key[=value]` entries, each remembering
//! the file and line it came from so later errors can say `FILE:LINE:`.
//!
//! What fio accepts, and so what this accepts: `[global]` and `[job]` section headers; one
//! option per line, `key=value` or a bare `key` (a boolean set to 1); a `#` or `;` anywhere
//! starts a comment that runs to the end of the line (`runtime=3600  # one hour`), as fio's
//! `strip_blank_end()` cuts it; `include FILE` anywhere (relative to the including file's
//! directory); `${VAR}` replaced from the environment (an unset one by nothing, as fio's
//! `fio_option_dup_subs()` does); fio's keywords `$ncpus`, `$pagesize`, `$mb_memory`.
//! A `[global]` section applies to the jobs that follow it, so several may appear. Values are
//! kept exactly as written (quotes included), as fio keeps them for its JSON "job options".
//!
//! Interpreting keys is not done here: that is the option table's job (`options.rs`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::FioError;

/// Where an entry was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Shared by every entry of the file (one allocation a file, not a line).
    pub file: Arc<Path>,
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// One `key[=value]` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    /// `None` for a bare key.
    pub value: Option<String>,
    pub at: Location,
}

/// A job section with the global entries in force where it starts, in order (globals first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawJob {
    pub name: String,
    pub at: Location,
    /// Entries from `[global]` sections before this job.
    pub globals: Globals,
    /// The job section's own entries.
    pub entries: Vec<Entry>,
    /// The first job of the second or a later job file: fio runs each job file after the
    /// previous one has finished (an implicit `stonewall`).
    pub waits_for_previous_file: bool,
}

/// The global entries in force where a job starts: a prefix of its file's global entries,
/// shared by every job of the file (copying them into each job made a file of many jobs
/// under many globals quadratic in memory).
#[derive(Debug, Clone, Default)]
pub struct Globals {
    all: Arc<Vec<Entry>>,
    len: usize,
}

impl std::ops::Deref for Globals {
    type Target = [Entry];
    fn deref(&self) -> &[Entry] {
        &self.all[..self.len]
    }
}

impl PartialEq for Globals {
    fn eq(&self, o: &Globals) -> bool {
        **self == **o
    }
}

impl Eq for Globals {}

/// Most job sections a set of job files may hold: fio's own limit (`max_jobs`, 4096), which
/// it reaches with "maximum number of jobs (4096) reached". Counted as sections are read, so
/// a file of a million empty sections is refused before it is built.
pub const MAX_JOBS: usize = 4096;

/// Most option entries the jobs may apply, each job counting its own and the globals in
/// force for it: what reading and building take grows with this, so a 64 MiB file of
/// options stays within a few hundred MB and a few seconds.
pub const MAX_APPLIED_ENTRIES: usize = 2_000_000;

/// What a set of job files holds: the jobs, and every `[global]` entry (fio's JSON
/// "global options").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobFiles {
    pub jobs: Vec<RawJob>,
    pub globals: Vec<Entry>,
}

/// Includes nested deeper than this are taken to be a loop.
const MAX_INCLUDE_DEPTH: usize = 16;

/// Something the environment supplies: variables and fio's keywords. A trait so tests can
/// give fixed values.
pub trait Env {
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment and this machine's facts.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        match name {
            // fio's built-in keywords.
            "$ncpus" => Some(
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .to_string(),
            ),
            // SAFETY: sysconf is thread-safe and takes no pointers.
            "$pagesize" => Some(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.to_string()),
            "$mb_memory" => {
                // SAFETY: as above.
                let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) } as u64;
                let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
                Some((pages * size / (1 << 20)).to_string())
            }
            _ => std::env::var(name).ok(),
        }
    }
}

/// Reads job files in order, as one sequence of sections (fio reads several the same way,
/// except that each file starts without the previous file's globals).
pub fn read_job_files(paths: &[PathBuf], env: &dyn Env) -> Result<JobFiles, FioError> {
    let mut out = JobFiles::default();
    for (i, p) in paths.iter().enumerate() {
        let before = out.jobs.len();
        let mut reader = Reader {
            env,
            globals: Vec::new(),
            out: &mut out,
            current: None,
            applied: 0,
        };
        if p.as_os_str() == "-" {
            // As fio: `-` is a job file read from standard input.
            let text = read_limited(std::io::stdin().lock())
                .map_err(|e| FioError::Usage(format!("cannot read a job file from stdin: {e}")))?;
            reader.text(&text, Path::new("<stdin>"), 0)?;
        } else {
            reader.file(p, 0, None)?;
        }
        reader.close_section();
        reader.share_globals(before);
        if i > 0 && before > 0 {
            if let Some(first) = out.jobs.get_mut(before) {
                first.waits_for_previous_file = true;
            }
        }
    }
    Ok(out)
}

/// Reads job-file text that did not come from a file (tests, stdin); `label` names it in errors.
pub fn read_job_text(text: &str, label: &Path, env: &dyn Env) -> Result<JobFiles, FioError> {
    let mut out = JobFiles::default();
    let mut reader = Reader {
        env,
        globals: Vec::new(),
        out: &mut out,
        current: None,
        applied: 0,
    };
    reader.text(text, label, 0)?;
    reader.close_section();
    reader.share_globals(0);
    Ok(out)
}

enum Section {
    Global,
    Job(RawJob),
}

struct Reader<'a> {
    env: &'a dyn Env,
    /// Global entries in force (from this file's `[global]` sections so far).
    globals: Vec<Entry>,
    out: &'a mut JobFiles,
    current: Option<Section>,
    /// Entries the jobs read so far apply (see [`MAX_APPLIED_ENTRIES`]).
    applied: usize,
}

/// Largest job file read. fio has no cap, and generated job files of 100,000 jobs run to
/// several MB; this one only keeps `/dev/zero`-like input from eating memory (parsing takes
/// a few times the text).
pub const MAX_JOB_FILE_BYTES: u64 = 64 << 20;

/// A job file's text: only a regular file (a FIFO would block, `/dev/zero` never ends), not
/// on a pseudo filesystem (`/sys/kernel/tracing/trace_pipe` is a "regular file" that blocks
/// for ever), of at most [`MAX_JOB_FILE_BYTES`]. Bytes that are not UTF-8 (a Latin-1 `é` in a
/// comment or description) are read as fio reads them, not refused.
fn read_job_file(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(
            "not a regular file (job files are read from files, not devices, FIFOs \
                    or directories)"
                .into(),
        );
    }
    if let Some(fs) = iolab_sysinfo::guard::pseudo_filesystem(path) {
        return Err(format!(
            "it is on {fs}, which holds kernel settings and streams, not job files"
        ));
    }
    if meta.len() > MAX_JOB_FILE_BYTES {
        return Err(format!(
            "{} bytes is too large for a job file (at most {MAX_JOB_FILE_BYTES})",
            meta.len()
        ));
    }
    std::fs::File::open(path)
        .and_then(read_limited)
        .map_err(|e| e.to_string())
}

/// At most [`MAX_JOB_FILE_BYTES`] of `r`, as text (invalid UTF-8 replaced, not refused).
fn read_limited(r: impl std::io::Read) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    r.take(MAX_JOB_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_JOB_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "too large for a job file (at most {MAX_JOB_FILE_BYTES} bytes)"
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn at_err(at: &Location, e: FioError) -> FioError {
    FioError::At {
        at: at.to_string(),
        source: Box::new(e),
    }
}

impl Reader<'_> {
    fn file(&mut self, path: &Path, depth: usize, from: Option<&Location>) -> Result<(), FioError> {
        let text = read_job_file(path).map_err(|why| {
            let e = FioError::Usage(format!("cannot read job file {}: {why}", path.display()));
            match from {
                Some(at) => at_err(at, e),
                None => e,
            }
        })?;
        self.text(&text, path, depth)
    }

    fn text(&mut self, text: &str, file: &Path, depth: usize) -> Result<(), FioError> {
        let shared: Arc<Path> = Arc::from(file);
        for (i, raw) in text.lines().enumerate() {
            let at = Location {
                file: shared.clone(),
                line: i + 1,
            };
            let line = strip_comment(raw);
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = include_target(line) {
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(at_err(
                        &at,
                        FioError::Usage(format!(
                            "include nested more than {MAX_INCLUDE_DEPTH} deep (does a file \
                             include itself?)"
                        )),
                    ));
                }
                let target = expand(rest, self.env).map_err(|e| at_err(&at, e))?;
                let target = Path::new(&target);
                let path = if target.is_absolute() {
                    target.to_path_buf()
                } else {
                    file.parent().unwrap_or(Path::new(".")).join(target)
                };
                self.file(&path, depth + 1, Some(&at))?;
                continue;
            }
            if let Some(header) = line.strip_prefix('[') {
                let name = match header.strip_suffix(']') {
                    Some(name) => name,
                    None => {
                        // fio reads `[%255[^\n]]` and drops the last character, whatever
                        // it is: `[bs=64K` is the job `bs=64`. Read as fio reads it, said.
                        let mut chars = header.chars();
                        chars.next_back();
                        let name = chars.as_str();
                        eprintln!(
                            "iolab: {at}: section header '{line}' has no closing ']': read as \
                             fio reads it, the job '{}' (its last character dropped)",
                            name.trim()
                        );
                        name
                    }
                };
                let name = name.trim();
                if name.is_empty() {
                    return Err(at_err(
                        &at,
                        FioError::Usage("a section needs a name: [global] or [JOB]".into()),
                    ));
                }
                self.close_section();
                if name != "global" && self.out.jobs.len() >= MAX_JOBS {
                    return Err(at_err(
                        &at,
                        FioError::Usage(format!(
                            "more than {MAX_JOBS} jobs: fio's limit (maximum number of jobs \
                             ({MAX_JOBS}) reached); use numjobs= or split the file"
                        )),
                    ));
                }
                self.current = Some(if name == "global" {
                    Section::Global
                } else {
                    self.count(self.globals.len(), &at)?;
                    Section::Job(RawJob {
                        name: name.to_string(),
                        at: at.clone(),
                        // The prefix in force; shared once the file is read.
                        globals: Globals {
                            all: Arc::default(),
                            len: self.globals.len(),
                        },
                        entries: Vec::new(),
                        waits_for_previous_file: false,
                    })
                });
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (line, None),
            };
            if key.is_empty() {
                return Err(at_err(
                    &at,
                    FioError::Usage(format!("'{line}' has no option name before '='")),
                ));
            }
            let value = value
                .map(|v| expand(v, self.env))
                .transpose()
                .map_err(|e| at_err(&at, e))?;
            if value.as_deref() == Some("") {
                let written = line.split_once('=').map_or("", |(_, v)| v.trim());
                return Err(at_err(&at, empty_value(key, written, self.env)));
            }
            self.count(1, &at)?;
            let entry = Entry {
                key: key.to_string(),
                value,
                at: at.clone(),
            };
            match &mut self.current {
                Some(Section::Global) => {
                    self.out.globals.push(entry.clone());
                    self.globals.push(entry);
                }
                Some(Section::Job(job)) => job.entries.push(entry),
                None => {
                    return Err(at_err(
                        &at,
                        FioError::Usage(format!(
                            "option '{key}' is outside any section: start with [global] or \
                             [JOBNAME]"
                        )),
                    ))
                }
            }
        }
        Ok(())
    }

    fn close_section(&mut self) {
        if let Some(Section::Job(job)) = self.current.take() {
            self.out.jobs.push(job);
        }
    }

    /// Counts `n` more applied entries; refused past [`MAX_APPLIED_ENTRIES`].
    fn count(&mut self, n: usize, at: &Location) -> Result<(), FioError> {
        self.applied = self.applied.saturating_add(n);
        if self.applied > MAX_APPLIED_ENTRIES {
            return Err(at_err(
                at,
                FioError::Usage(format!(
                    "the jobs apply more than {MAX_APPLIED_ENTRIES} options (each job's own \
                     and the globals in force for it): too large a job file"
                )),
            ));
        }
        Ok(())
    }

    /// Gives the jobs read since `first` the file's global entries, shared.
    fn share_globals(&mut self, first: usize) {
        let all = Arc::new(std::mem::take(&mut self.globals));
        for job in self.out.jobs.iter_mut().skip(first) {
            job.globals.all = all.clone();
        }
    }
}

/// The line up to its first `;` or `#`, trimmed: fio cuts every job-file line there, value
/// or not (`strip_blank_end()`, parse.c).
fn strip_comment(raw: &str) -> &str {
    let cut = raw.find([';', '#']).unwrap_or(raw.len());
    raw[..cut].trim()
}

/// `include FILE` → `FILE`.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim();
    (!rest.is_empty() && !rest.contains('=')).then_some(rest)
}

/// Why `key=` with nothing after it (as written, or once its `${VAR}`s are replaced) is
/// refused: fio cannot parse an empty value for any option, drops the job ("failed parsing
/// bs=") and runs nothing, exit 1. An unset variable is the usual cause, so it is named.
fn empty_value(key: &str, written: &str, env: &dyn Env) -> FioError {
    let unset: Vec<&str> = written
        .match_indices("${")
        .filter_map(|(at, _)| {
            let body = &written[at + 2..];
            body.find('}').map(|end| &body[..end])
        })
        .filter(|name| env.var(name).is_none_or(|v| v.is_empty()))
        .collect();
    let why = match unset.as_slice() {
        [] => format!("option '{key}' has no value after '='"),
        [one] => format!(
            "option '{key}' is empty: the environment variable {one} in '{written}' is not set"
        ),
        many => format!(
            "option '{key}' is empty: the environment variables {} in '{written}' are not set",
            many.join(", ")
        ),
    };
    FioError::Usage(format!(
        "{why} (fio drops the job over it: 'failed parsing {key}={written}', and runs nothing)"
    ))
}

/// Replaces `${VAR}` from the environment and fio's `$ncpus`, `$pagesize`, `$mb_memory`.
/// An unset variable becomes nothing, as in fio (`rw=${FIO_RW}` unset is `rw=`, which
/// [`empty_value`] refuses, as fio does every empty value).
fn expand(value: &str, env: &dyn Env) -> Result<String, FioError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut keyword_seen = false;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if let Some(body) = tail.strip_prefix("${") {
            let Some(end) = body.find('}') else {
                return Err(FioError::Usage(format!(
                    "'{value}': '${{' without a closing '}}'"
                )));
            };
            out.push_str(&env.var(&body[..end]).unwrap_or_default());
            rest = &body[end + 1..];
            continue;
        }
        let keyword = ["$ncpus", "$pagesize", "$mb_memory"]
            .into_iter()
            .find(|k| tail.starts_with(k));
        match keyword {
            Some(k) => {
                out.push_str(&env.var(k).unwrap_or_default());
                rest = &tail[k.len()..];
                keyword_seen = true;
            }
            None => {
                out.push('$');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    // fio hands a value with a keyword and arithmetic to bc (`size=64*$pagesize`).
    match keyword_seen.then(|| crate::arith::bc(&out)).flatten() {
        Some(Ok(n)) => Ok(n.to_string()),
        Some(Err(e)) => Err(FioError::Usage(format!("'{value}': {e}"))),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct FixedEnv(HashMap<&'static str, &'static str>);

    impl Env for FixedEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|s| s.to_string())
        }
    }

    fn env() -> FixedEnv {
        FixedEnv(HashMap::from([("DEV", "/dev/zram0"), ("$ncpus", "2")]))
    }

    fn read(text: &str) -> Result<JobFiles, FioError> {
        read_job_text(text, Path::new("t.fio"), &env())
    }

    fn kv(e: &Entry) -> (&str, Option<&str>) {
        (e.key.as_str(), e.value.as_deref())
    }

    #[test]
    fn sections_entries_comments_and_bare_keys() {
        let f = read(
            "# a comment\n; another\n[global]\nthread=1\ndirect = 1\n\n[first]\nstonewall\n\
             description=\"Sequentially write\"\nrw=write\n[second]\n  bs=4k  \n",
        )
        .unwrap();
        assert_eq!(f.jobs.len(), 2);
        assert_eq!(f.globals.len(), 2);
        let a = &f.jobs[0];
        assert_eq!(a.name, "first");
        assert_eq!(a.at.line, 7);
        assert_eq!(
            a.entries.iter().map(kv).collect::<Vec<_>>(),
            vec![
                ("stonewall", None),
                ("description", Some("\"Sequentially write\"")),
                ("rw", Some("write")),
            ]
        );
        assert_eq!(kv(&a.globals[1]), ("direct", Some("1")));
        assert_eq!(f.jobs[1].entries[0].at.line, 12);
        assert_eq!(kv(&f.jobs[1].entries[0]), ("bs", Some("4k")));
    }

    #[test]
    fn a_later_global_section_applies_to_later_jobs_only() {
        let f = read("[a]\nrw=read\n[global]\nbs=8k\n[b]\n").unwrap();
        assert!(f.jobs[0].globals.is_empty());
        assert_eq!(kv(&f.jobs[1].globals[0]), ("bs", Some("8k")));
    }

    #[test]
    fn variables_and_keywords_expand() {
        let f = read("[j]\nfilename=${DEV}\nnumjobs=$ncpus\nname=a$b\n").unwrap();
        let e = &f.jobs[0].entries;
        assert_eq!(e[0].value.as_deref(), Some("/dev/zram0"));
        assert_eq!(e[1].value.as_deref(), Some("2"));
        assert_eq!(e[2].value.as_deref(), Some("a$b"));
        let f = read("[j]\n\nfilename=/a/${NOPE}b\n").unwrap();
        assert_eq!(f.jobs[0].entries[0].value.as_deref(), Some("/a/b"));
    }

    #[test]
    fn a_comment_may_follow_a_value_and_cuts_the_line_as_in_fio() {
        let f = read(
            "[j] ; the job\nruntime=3600  # one hour\nioengine=psync ; default\n\
             filename=/tmp/a#b\n   # indented\n",
        )
        .unwrap();
        assert_eq!(f.jobs[0].name, "j");
        assert_eq!(
            f.jobs[0].entries.iter().map(kv).collect::<Vec<_>>(),
            vec![
                ("runtime", Some("3600")),
                ("ioengine", Some("psync")),
                ("filename", Some("/tmp/a")),
            ]
        );
    }

    #[test]
    fn structure_errors_name_file_and_line() {
        let e = read("bs=4k\n").unwrap_err().to_string();
        assert!(
            e.starts_with("t.fio:1: option 'bs' is outside any section"),
            "{e}"
        );
        let e = read("[j]\n=4k\n").unwrap_err().to_string();
        assert!(e.starts_with("t.fio:2:"), "{e}");
        // A header without its ']' is read as fio reads it: the last character dropped.
        let f = read("[j]\n[bs=64K\nrw=write\n").unwrap();
        assert_eq!(f.jobs[1].name, "bs=64");
        assert!(read("[x\n").is_err(), "nothing left of the name");
    }

    #[test]
    fn an_empty_value_is_refused_naming_the_unset_variable() {
        let e = read("[j]\nbs=${IOLAB_TEST_UNSET_VAR}\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "t.fio:2: option 'bs' is empty: the environment variable \
                           IOLAB_TEST_UNSET_VAR"
            ) && e.contains("fio drops the job"),
            "{e}"
        );
        let e = read("[j]\nrw=\n").unwrap_err().to_string();
        assert!(e.contains("option 'rw' has no value after '='"), "{e}");
        // Part of a value unset leaves the rest, as fio's substitution does.
        let f = read("[j]\nfilename=/a/${IOLAB_TEST_UNSET_VAR}b\n").unwrap();
        assert_eq!(f.jobs[0].entries[0].value.as_deref(), Some("/a/b"));
    }

    #[test]
    fn includes_resolve_relative_to_the_including_file() {
        let dir = std::env::temp_dir().join(format!("iolab-inc-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/common.fio"), "[global]\nbs=64k\n").unwrap();
        std::fs::write(
            dir.join("main.fio"),
            "include sub/common.fio\n[j]\nrw=read\n",
        )
        .unwrap();
        std::fs::write(dir.join("loop.fio"), "include loop.fio\n").unwrap();
        std::fs::write(dir.join("missing.fio"), "[j]\ninclude nothere.fio\n").unwrap();
        let f = read_job_files(&[dir.join("main.fio")], &env()).unwrap();
        assert_eq!(kv(&f.jobs[0].globals[0]), ("bs", Some("64k")));
        assert!(f.jobs[0].globals[0].at.file.ends_with("sub/common.fio"));
        let e = read_job_files(&[dir.join("loop.fio")], &env())
            .unwrap_err()
            .to_string();
        assert!(e.contains("include nested"), "{e}");
        let e = read_job_files(&[dir.join("missing.fio")], &env())
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.fio:2: cannot read job file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_file_starts_without_the_previous_files_globals() {
        let dir = std::env::temp_dir().join(format!("iolab-two-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.fio"), "[global]\nbs=64k\n[a]\n").unwrap();
        std::fs::write(dir.join("b.fio"), "[b]\n").unwrap();
        let f = read_job_files(&[dir.join("a.fio"), dir.join("b.fio")], &env()).unwrap();
        assert_eq!(f.jobs.len(), 2);
        assert!(f.jobs[1].globals.is_empty());
        assert!(!f.jobs[0].waits_for_previous_file && f.jobs[1].waits_for_previous_file);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
