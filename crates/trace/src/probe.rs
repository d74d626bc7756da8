//! The eBPF probe: loaded, attached, drained.

use std::path::Path;

use aya::maps::{MapData, PerCpuArray, RingBuf};
use aya::programs::{BtfTracePoint, RawTracePoint};
use aya::{Btf, Ebpf, EbpfLoader, Endianness};

use crate::{KernelRecord, Unavailable};

/// Where the running kernel describes its own types.
pub const DEFAULT_BTF: &str = "/sys/kernel/btf/vmlinux";

/// The BPF object `bpf/build.sh` builds from `bpf/lat_split.bpf.c` (the test command checks
/// that this is that source's build).
static OBJECT: &[u8] = aya::include_bytes_aligned!("../bpf/lat_split.bpf.o");

/// Disks one probe watches at most (`MAX_TARGETS` of the BPF program).
const MAX_TARGETS: usize = 8;

/// The two tracepoints, by the names of the programs that attach to them.
const TRACEPOINTS: [&str; 2] = ["block_rq_issue", "block_rq_complete"];

/// The probe, attached: every request on the watched disks becomes a [`KernelRecord`] in a
/// 16 MiB ring buffer until [`Probe::drain`] takes it. Detached when dropped.
pub struct Probe {
    // Holds the programs' links: dropping it detaches them.
    _bpf: Ebpf,
    ring: RingBuf<MapData>,
    lost: PerCpuArray<MapData, u64>,
}

impl Probe {
    /// Loads the probe against the kernel's BTF at `btf` (normally [`DEFAULT_BTF`]) and
    /// watches the disks `devs` (the kernel's `dev_t`, [`crate::kernel_dev`]).
    pub fn attach(devs: &[u32], btf: &Path) -> Result<Probe, Unavailable> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(Unavailable::NotRoot);
        }
        if devs.len() > MAX_TARGETS {
            return Err(Unavailable::NoBpf(format!(
                "{} disks to watch, the probe watches at most {MAX_TARGETS}",
                devs.len()
            )));
        }
        let btf = read_btf(btf)?;
        let mut watched = [0u32; MAX_TARGETS];
        watched[..devs.len()].copy_from_slice(devs);
        let n = devs.len() as u32;
        let mut bpf = EbpfLoader::new()
            .btf(Some(&btf))
            .override_global("target_devs", &watched, true)
            .override_global("n_targets", &n, true)
            .load(OBJECT)
            .map_err(|e| Unavailable::NoBpf(chain(&e)))?;
        for name in TRACEPOINTS {
            let prog: &mut BtfTracePoint = bpf
                .program_mut(name)
                .and_then(|p| p.try_into().ok())
                .ok_or_else(|| Unavailable::NoBpf(format!("the object has no {name} program")))?;
            prog.load(name, &btf)
                .map_err(|e| Unavailable::NoTracepoint(name, chain(&e)))?;
            prog.attach()
                .map_err(|e| Unavailable::NoTracepoint(name, chain(&e)))?;
        }
        attach_nvme(&mut bpf);
        let ring = RingBuf::try_from(
            bpf.take_map("events")
                .ok_or_else(|| missing_map("events"))?,
        )
        .map_err(|e| Unavailable::NoBpf(chain(&e)))?;
        let lost = PerCpuArray::try_from(bpf.take_map("lost").ok_or_else(|| missing_map("lost"))?)
            .map_err(|e| Unavailable::NoBpf(chain(&e)))?;
        Ok(Probe {
            _bpf: bpf,
            ring,
            lost,
        })
    }

    /// Hands every record waiting in the ring buffer to `each`; how many there were.
    pub fn drain(&mut self, mut each: impl FnMut(KernelRecord)) -> usize {
        let mut n = 0;
        while let Some(item) = self.ring.next() {
            if let Some(r) = KernelRecord::from_bytes(&item) {
                each(r);
                n += 1;
            }
        }
        n
    }

    /// Requests whose record was lost: no room in the ring buffer, or in the map of
    /// requests in flight.
    pub fn lost(&self) -> u64 {
        let sum = |i: u32| {
            self.lost
                .get(&i, 0)
                .map(|per_cpu| per_cpu.iter().sum::<u64>())
                .unwrap_or(0)
        };
        sum(0) + sum(1)
    }
}

/// Attaches the NVMe driver's completion stamp where the nvme module's tracepoint exists
/// (elsewhere the records carry no driver completion, and the split has no NVMe part).
fn attach_nvme(bpf: &mut Ebpf) {
    let prog = bpf
        .program_mut("nvme_complete_rq")
        .and_then(|p| <&mut RawTracePoint>::try_from(p).ok());
    if let Some(prog) = prog {
        let _ = prog
            .load()
            .and_then(|()| prog.attach("nvme_complete_rq").map(|_| ()));
    }
}

fn read_btf(path: &Path) -> Result<Btf, Unavailable> {
    if !path.exists() {
        return Err(Unavailable::NoBtf(path.to_path_buf()));
    }
    Btf::parse_file(path, Endianness::default()).map_err(|e| Unavailable::BadBtf {
        path: path.to_path_buf(),
        reason: chain(&e),
    })
}

fn missing_map(name: &str) -> Unavailable {
    Unavailable::NoBpf(format!("the object has no {name} map"))
}

/// An error and its sources on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}
