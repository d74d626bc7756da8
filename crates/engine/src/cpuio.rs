//! `cpuio`: no I/O at all; each "I/O" burns the CPU for a chunk of time, as fio's
//! `engines/cpu.c`, and the job pauses after it so that the burn takes `cpuload` percent of a
//! CPU. Storage engineers run it beside I/O jobs to see what a busy CPU does to latency (the
//! seeds' polling-versus-interrupts question on a loaded machine), or alone to load cores.
//!
//! Two ways to burn: `noop` spins on the clock for `cpuchunks` microseconds; `qsort` sorts a
//! 256 Ki-entry array of 32-bit numbers four times (ascending, descending, by byte, descending
//! again), times that, and sets the pause after it to keep the load (fio adjusts its
//! `thinktime` the same way). The job's figures count the chunks; the bytes are zero, as
//! fio's (`FIO_NOIO`): its CPU line is what it measures.

use std::time::{Duration, Instant};

use crate::{Capabilities, Direction, EngineError, IoEngine, IoUnit, QueueStatus};

/// What `cpuio` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Cpuio,
    name: "cpuio",
    synchronous: true,
    accepts: crate::Accepts::NOTHING,
    options: &["cpuload", "cpumode", "cpuchunks", "exit_on_io_done"],
    moves_data: false,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: None,
};

/// fio's `qsort_size`: 32-bit numbers to sort (1 MiB of them).
const QSORT_LEN: usize = 256 * 1024;

/// How a chunk burns the CPU (fio's `cpumode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CpuMode {
    /// Spin on the clock (fio's default).
    #[default]
    Noop,
    /// Sort an array: memory traffic and branches, more power drawn.
    Qsort,
}

/// fio's cpuio options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuBurn {
    /// The share of a CPU to burn, 1 to 100 (`cpuload`; 0: not given).
    pub load: u32,
    /// One chunk's burn in microseconds (`cpuchunks`), noop's; qsort measures its own.
    pub chunk_us: u32,
    pub mode: CpuMode,
    /// Stop once the run's I/O jobs are done (`exit_on_io_done`).
    pub exit_on_io_done: bool,
}

impl Default for CpuBurn {
    fn default() -> Self {
        CpuBurn {
            load: 0,
            chunk_us: 50_000,
            mode: CpuMode::Noop,
            exit_on_io_done: false,
        }
    }
}

impl CpuBurn {
    /// The pause after a chunk of `burn` that makes the burn `load` percent of the time (fio's
    /// `cpucycle * (100 - cpuload) / cpuload`, in whole microseconds).
    pub fn pause_after(&self, burn: Duration) -> Duration {
        let load = self.load.clamp(1, 100) as u128;
        Duration::from_micros((burn.as_micros() * (100 - load) / load) as u64)
    }
}

pub struct Cpuio {
    burn: CpuBurn,
    /// qsort's numbers (fio's `mwc32` sequence from its fixed seed); empty for noop.
    data: Vec<i32>,
    /// The pause qsort asks for after its last chunk.
    think: Option<Duration>,
}

impl Cpuio {
    pub fn open(burn: CpuBurn) -> Result<Cpuio, EngineError> {
        let data = match burn.mode {
            CpuMode::Noop => Vec::new(),
            CpuMode::Qsort => mwc_numbers(QSORT_LEN),
        };
        Ok(Cpuio {
            burn,
            data,
            think: None,
        })
    }

    fn spin(&self) {
        let chunk = Duration::from_micros(self.burn.chunk_us as u64);
        let start = Instant::now();
        while start.elapsed() < chunk {
            std::hint::spin_loop();
        }
    }

    fn sort(&mut self) {
        let start = Instant::now();
        let d = &mut self.data;
        d.sort_unstable();
        d.sort_unstable_by(|a, b| b.cmp(a));
        // Re-ordered by byte, compared as signed bytes (fio's stress_qsort_cmp_3).
        // SAFETY: the i32s' memory seen as bytes, for the length of this borrow only.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(d.as_mut_ptr().cast::<i8>(), d.len() * 4) };
        bytes.sort_unstable();
        d.sort_unstable_by(|a, b| b.cmp(a));
        self.think = Some(self.burn.pause_after(start.elapsed()));
    }
}

/// Marsaglia's multiply-with-carry numbers from fio's seed, so both tools sort the same data.
fn mwc_numbers(n: usize) -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..n)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

impl IoEngine for Cpuio {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        match self.burn.mode {
            CpuMode::Noop => self.spin(),
            CpuMode::Qsort => self.sort(),
        }
        Ok(QueueStatus::Completed(io.len as i64))
    }

    fn transfers(&self) -> bool {
        false
    }

    fn think(&self) -> Option<Duration> {
        self.think
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_keeps_the_load() {
        let b = |load| CpuBurn {
            load,
            ..CpuBurn::default()
        };
        let chunk = Duration::from_micros(50_000);
        assert_eq!(b(50).pause_after(chunk), chunk);
        assert_eq!(b(25).pause_after(chunk), chunk * 3);
        assert_eq!(b(100).pause_after(chunk), Duration::ZERO);
    }

    #[test]
    fn qsort_sorts_fios_numbers_and_asks_a_pause() {
        assert_eq!(&mwc_numbers(2), &[820_856_226, -1_963_778_298]);
        let mut e = Cpuio::open(CpuBurn {
            load: 50,
            mode: CpuMode::Qsort,
            ..CpuBurn::default()
        })
        .unwrap();
        e.sort();
        assert!(e.data.windows(2).all(|w| w[0] >= w[1]), "descending last");
        assert!(e.think.unwrap() > Duration::ZERO);
    }
}
