//! fio's I/O trace format (`write_iolog`, `read_iolog`): versions 2 and 3 of its text
//! iolog. Version 2 lines are `FILE ACTION [OFFSET LENGTH]` with `wait` lines for delays;
//! version 3 puts the time in µs first. File actions are `add`, `open` and `close`; I/O
//! actions `read`, `write`, `trim`, `sync`, `datasync`.
//!
//! Reading gives the job model's [`iolab_job::Replay`] stream; writing turns what the runner
//! traced ([`iolab_results::IoTrace`]) into version 3, as fio writes it.

use std::sync::Arc;

use iolab_engine::Direction;
use iolab_job::ReplayIo;
use iolab_results::IoTrace;

const V2: &str = "fio version 2 iolog";
const V3: &str = "fio version 3 iolog";

/// How a log is read (fio's `replay_*` options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Every I/O goes to this file, whatever the log names (`replay_redirect`).
    pub redirect: Option<String>,
    /// Offsets are divided by this (`replay_scale`, 1 or 0: as logged).
    pub scale: u64,
    /// Offsets are rounded down to this (`replay_align`, 0: as logged); a blktrace's sizes
    /// are rounded up to it too.
    pub align: u64,
    /// I/O kinds a blktrace's replay leaves out (`replay_skip`; bits: read, write, trim,
    /// sync). fio reads text iologs whole, whatever it says.
    pub skip: u8,
}

impl ReplayOptions {
    /// Where a logged offset is replayed: divided by `replay_scale`, then rounded down to
    /// `replay_align` (fio's order, for text logs and blktraces alike).
    pub(crate) fn offset(&self, logged: u64) -> u64 {
        let mut offset = logged;
        if self.scale > 1 {
            offset /= self.scale;
        }
        if self.align > 1 {
            offset &= !(self.align - 1);
        }
        offset
    }
}

/// A log read: the files it names, in order, and its I/Os.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadLog {
    pub files: Vec<String>,
    pub ios: Arc<[ReplayIo]>,
    /// Syncs the log asked for, which iolab does not replay.
    pub syncs_skipped: u64,
    /// The queue depth a blktrace reached, the replay's unless the job sets `iodepth`.
    pub depth: Option<u32>,
}

/// Reads a version 2 or 3 log. Lines fio would skip with a message (an unknown action, a
/// line it cannot read) are an error here, naming the line: a replay that silently
/// dropped I/O would measure something else.
pub fn parse(text: &str, opts: &ReplayOptions) -> Result<ReadLog, String> {
    let mut lines = text.lines().enumerate();
    let version = match lines.next().map(|(_, l)| l.trim_end()) {
        Some(l) if l.starts_with(V2) => 2,
        Some(l) if l.starts_with(V3) => 3,
        _ => return Err("not a fio iolog: its first line is not 'fio version 2 iolog' or 'fio version 3 iolog' (version 1 is no longer read, as in fio)".into()),
    };
    let mut files: Vec<String> = Vec::new();
    let mut ios = Vec::new();
    let (mut waited_us, mut syncs) = (0u64, 0u64);
    for (n, line) in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}: '{line}'", n + 1);
        let (at_us, rest) = match version {
            3 => {
                let t = words[0].parse::<u64>().map_err(|_| bad("no time first"))?;
                (Some(t), &words[1..])
            }
            _ => (None, &words[..]),
        };
        let [name, action, args @ ..] = rest else {
            return Err(bad("expected FILE ACTION"));
        };
        let name = opts.redirect.as_deref().unwrap_or(name);
        let file = |files: &mut Vec<String>| -> u32 {
            match files.iter().position(|f| f == name) {
                Some(i) => i as u32,
                None => {
                    files.push(name.to_string());
                    files.len() as u32 - 1
                }
            }
        };
        let dir = match *action {
            "add" | "open" | "close" => {
                file(&mut files);
                continue;
            }
            "wait" if version == 2 => {
                let us = args.first().and_then(|a| a.parse::<u64>().ok());
                waited_us += us.ok_or_else(|| bad("wait without µs"))?;
                continue;
            }
            "wait" => continue, // fio ignores waits in version 3, where times are given
            "sync" | "datasync" => {
                syncs += 1;
                continue;
            }
            "read" => Direction::Read,
            "write" => Direction::Write,
            "trim" => Direction::Trim,
            other => return Err(bad(&format!("unknown action '{other}'"))),
        };
        let [offset, len, ..] = args else {
            return Err(bad("expected OFFSET LENGTH"));
        };
        let offset = opts.offset(offset.parse().map_err(|_| bad("bad offset"))?);
        let len: u32 = len.parse().map_err(|_| bad("bad length"))?;
        // Files and devices end before 2^63 bytes (off_t): an offset past that is no place
        // to replay an I/O at, said as such rather than as a size the sum wrapped to.
        if offset
            .checked_add(len as u64)
            .is_none_or(|end| end > i64::MAX as u64)
        {
            return Err(bad(&format!(
                "offset {offset} + length {len} is past the end of any file or device"
            )));
        }
        ios.push(ReplayIo {
            file: file(&mut files),
            dir,
            offset,
            len,
            at_us: at_us.unwrap_or(waited_us),
        });
    }
    if ios.is_empty() {
        return Err("the iolog holds no read, write or trim".into());
    }
    Ok(ReadLog {
        files,
        ios: ios.into(),
        syncs_skipped: syncs,
        depth: None,
    })
}

/// A trace as fio's version 3 iolog: the version line, each file added and opened at 0,
/// every I/O, and each file closed at the end.
pub fn render(trace: &IoTrace, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(out, "{V3}")?;
    for f in &trace.files {
        writeln!(out, "0 {f} add")?;
    }
    for f in &trace.files {
        writeln!(out, "0 {f} open")?;
    }
    for io in &trace.ios {
        let name = trace.files.get(io.file as usize).map_or("", String::as_str);
        let dir = match io.dir {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Trim => "trim",
        };
        writeln!(out, "{} {name} {dir} {} {}", io.at_us, io.offset, io.len)?;
    }
    for f in &trace.files {
        writeln!(out, "{} {f} close", trace.end_us)?;
    }
    Ok(())
}

/// Writes every trace the run's jobs kept, one file per `write_iolog` path (copies naming
/// the same path share it, one after another); the paths written.
pub fn write_traces(
    out: &iolab_results::RunOutcome,
    create: impl Fn(&std::path::Path) -> std::io::Result<std::fs::File>,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut written: Vec<(std::path::PathBuf, std::io::BufWriter<std::fs::File>)> = Vec::new();
    for trace in out.jobs.iter().flat_map(|j| &j.traces) {
        let path = std::path::PathBuf::from(&trace.path);
        let at = written.iter().position(|(p, _)| *p == path);
        let w = match at {
            Some(i) => &mut written[i].1,
            None => {
                let f = create(&path).map_err(|e| {
                    std::io::Error::new(e.kind(), format!("write_iolog {}: {e}", path.display()))
                })?;
                written.push((path.clone(), std::io::BufWriter::new(f)));
                &mut written.last_mut().expect("just pushed").1
            }
        };
        render(trace, w)?;
    }
    let mut paths = Vec::new();
    for (p, mut w) in written {
        std::io::Write::flush(&mut w)?;
        paths.push(p);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_results::TraceEntry;

    #[test]
    fn version_2_with_waits_and_version_3_with_times() {
        let v2 = "fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n/f wait 100\n/f write 8192 512\n/f sync 0 0\n/f close\n";
        let log = parse(v2, &ReplayOptions::default()).unwrap();
        assert_eq!(log.files, ["/f"]);
        let got: Vec<_> = log
            .ios
            .iter()
            .map(|i| (i.dir, i.offset, i.len, i.at_us))
            .collect();
        assert_eq!(
            got,
            [
                (Direction::Read, 0, 4096, 0),
                (Direction::Write, 8192, 512, 100)
            ]
        );
        assert_eq!(log.syncs_skipped, 1);
        let v3 = "fio version 3 iolog\n0 /a add\n0 /b add\n5 /a open\n10 /b trim 4096 4096\n20 /a read 12288 4096\n";
        let log = parse(v3, &ReplayOptions::default()).unwrap();
        assert_eq!(log.files, ["/a", "/b"]);
        assert_eq!((log.ios[0].file, log.ios[0].at_us), (1, 10));
        assert_eq!((log.ios[1].file, log.ios[1].dir), (0, Direction::Read));
    }

    #[test]
    fn replay_options_redirect_scale_and_align() {
        let v2 = "fio version 2 iolog\n/a read 12345 4096\n/b read 8192 4096\n";
        let opts = ReplayOptions {
            redirect: Some("/z".into()),
            scale: 2,
            align: 4096,
            skip: 0,
        };
        let log = parse(v2, &opts).unwrap();
        assert_eq!(log.files, ["/z"]);
        assert_eq!(log.ios[0].offset, 4096, "12345 / 2 = 6172, aligned down");
        assert_eq!(log.ios[1].offset, 4096);
    }

    #[test]
    fn bad_logs_are_refused_naming_the_line() {
        assert!(parse("hello\n", &ReplayOptions::default()).is_err());
        let e = parse(
            "fio version 2 iolog\n/f fly 0 1\n",
            &ReplayOptions::default(),
        );
        assert!(e.unwrap_err().contains("line 2"));
    }

    #[test]
    fn a_trace_renders_as_version_3_and_reads_back() {
        let trace = IoTrace {
            path: "t".into(),
            files: vec!["/f".into()],
            ios: vec![TraceEntry {
                at_us: 7,
                file: 0,
                dir: Direction::Write,
                offset: 4096,
                len: 4096,
            }],
            end_us: 9,
            dropped: 0,
        };
        let mut out = Vec::new();
        render(&trace, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("fio version 3 iolog\n0 /f add\n"));
        let log = parse(&text, &ReplayOptions::default()).unwrap();
        assert_eq!((log.ios[0].offset, log.ios[0].at_us), (4096, 7));
    }
}
