//! fio's `write_iolog`: every issued I/O, with when (µs since the job copy started), which
//! file, which direction, where and how much, kept for the fio crate to write out as an
//! iolog. Off the hot path unless asked for; capped like the latency logs.

use iolab_engine::IoUnit;
use iolab_results::{IoTrace, TraceEntry};

use crate::PreparedJob;

pub(super) struct Tracer {
    start_ns: u64,
    trace: IoTrace,
    cap: usize,
}

impl Tracer {
    /// A trace to `path` of `job`'s I/Os from `start_ns` on, keeping at most `cap`.
    pub fn new(job: &PreparedJob, path: &str, start_ns: u64, cap: usize) -> Tracer {
        Tracer {
            start_ns,
            trace: IoTrace {
                path: path.to_string(),
                files: job.spec.files().map(|f| f.display().to_string()).collect(),
                ..IoTrace::default()
            },
            cap,
        }
    }

    #[inline]
    pub fn issued(&mut self, now_ns: u64, io: &IoUnit) {
        if self.trace.ios.len() >= self.cap {
            self.trace.dropped += 1;
            return;
        }
        self.trace.ios.push(TraceEntry {
            at_us: now_ns.saturating_sub(self.start_ns) / 1000,
            file: io.file,
            dir: io.dir,
            offset: io.offset,
            len: io.len,
        });
    }

    pub fn finish(mut self, end_ns: u64) -> IoTrace {
        self.trace.end_us = end_ns.saturating_sub(self.start_ns) / 1000;
        self.trace
    }
}
