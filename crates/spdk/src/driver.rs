//! SPDK's user-space NVMe driver, as iolab's `spdk` engine uses it: the environment started
//! once per process, each controller attached once and kept for the process's life, and an
//! I/O queue pair per job copy, polled on that copy's own thread.
//!
//! Nothing here allocates or locks per I/O: a queue pair's completion callback writes into a
//! list sized for its depth, and each in-flight slot has its own callback argument, made
//! when the pair is.

use std::ffi::CString;
use std::sync::{Mutex, OnceLock};

use crate::ffi;
use crate::{PciAddr, TransportId};

/// Why SPDK could not serve a job.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SpdkError {
    #[error("SPDK could not start its environment (DPDK): {0}")]
    Env(String),
    #[error("SPDK could not attach the controller {addr}: {why}")]
    Attach { addr: PciAddr, why: String },
    #[error("the controller {addr} has no active namespace {ns}")]
    NoNamespace { addr: PciAddr, ns: u32 },
    #[error("SPDK could not allocate an I/O queue pair of {depth} entries on {addr} (the controller's queues are all taken?)")]
    QPair { addr: PciAddr, depth: u32 },
    #[error("SPDK could not allocate {0} bytes of DMA memory (hugepages: raise /proc/sys/vm/nr_hugepages)")]
    Dma(usize),
}

static ENV: OnceLock<Result<(), String>> = OnceLock::new();

extern "C" {
    /// DPDK's log stream (librte_eal, linked with SPDK's env): DPDK logs to stdout unless
    /// told otherwise, and stdout is where iolab's results go.
    fn rte_openlog_stream(f: *mut libc::FILE) -> libc::c_int;
}

/// Starts SPDK's environment once per process (later calls return the first one's answer);
/// DMA memory grows as DPDK needs it. DPDK probes only `allowed`: without an allow list it
/// would offer every PCI device to every driver it loads (Debian's DPDK loads them all,
/// network cards included).
pub fn start(allowed: PciAddr) -> Result<(), SpdkError> {
    ENV.get_or_init(|| init(allowed))
        .clone()
        .map_err(SpdkError::Env)
}

fn init(allowed: PciAddr) -> Result<(), String> {
    let total = hugepages_total();
    if total == Some(0) {
        return Err(
            "there are no hugepages (SPDK's DMA memory lives in them): echo 512 > \
                    /proc/sys/vm/nr_hugepages, and mount hugetlbfs on /dev/hugepages"
                .into(),
        );
    }
    // SAFETY: plain C calls on values that live through them. spdk_env_init makes the calling
    // thread DPDK's main lcore and pins it to core 0; its CPU set is given back afterwards.
    unsafe {
        let err = libc::fdopen(2, c"w".as_ptr());
        if !err.is_null() {
            rte_openlog_stream(err);
        }
        let mut opts: ffi::spdk_env_opts = std::mem::zeroed();
        opts.opts_size = std::mem::size_of::<ffi::spdk_env_opts>();
        ffi::spdk_env_opts_init(&mut opts);
        opts.name = c"iolab".as_ptr();
        let mut allow: ffi::spdk_pci_addr = std::mem::zeroed();
        allow.domain = allowed.domain as u32;
        allow.bus = allowed.bus;
        allow.dev = allowed.device;
        allow.func = allowed.function;
        opts.pci_allowed = &mut allow;
        opts.num_pci_addr = 1;
        let mut cpus: libc::cpu_set_t = std::mem::zeroed();
        let saved = libc::sched_getaffinity(0, std::mem::size_of_val(&cpus), &mut cpus) == 0;
        let rc = ffi::spdk_env_init(&opts);
        if saved {
            libc::sched_setaffinity(0, std::mem::size_of_val(&cpus), &cpus);
        }
        if rc != 0 {
            return Err(format!(
                "spdk_env_init: {} (root, hugepages and a bound controller are needed)",
                std::io::Error::from_raw_os_error(-rc)
            ));
        }
    }
    Ok(())
}

fn hugepages_total() -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    m.lines()
        .find_map(|l| l.strip_prefix("HugePages_Total:"))
        .and_then(|v| v.trim().parse().ok())
}

/// An attached controller (a raw pointer SPDK owns; shared by every job that names it).
#[derive(Clone, Copy)]
struct Ctrlr(*mut ffi::spdk_nvme_ctrlr);
// SAFETY: SPDK's controller functions used here (namespaces, queue pair allocation) are
// thread-safe: it takes the controller's own lock for them.
unsafe impl Send for Ctrlr {}

static CONTROLLERS: Mutex<Vec<(PciAddr, Ctrlr)>> = Mutex::new(Vec::new());

fn controller(addr: PciAddr) -> Result<Ctrlr, SpdkError> {
    let mut all = CONTROLLERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = all.iter().find(|(a, _)| *a == addr) {
        return Ok(*c);
    }
    let attach = |why: String| SpdkError::Attach { addr, why };
    let name = CString::new(format!("trtype:PCIe traddr:{addr}")).expect("no NUL in an address");
    // SAFETY: the transport id is plain data SPDK fills from the string; connect reads it.
    let ctrlr = unsafe {
        let mut trid: ffi::spdk_nvme_transport_id = std::mem::zeroed();
        if ffi::spdk_nvme_transport_id_parse(&mut trid, name.as_ptr()) != 0 {
            return Err(attach("SPDK did not take its transport id".into()));
        }
        ffi::spdk_nvme_connect(&trid, std::ptr::null(), 0)
    };
    if ctrlr.is_null() {
        let driver = match crate::bind::Sysfs::default().controller(addr) {
            Ok(c) => c.driver,
            Err(e) => return Err(attach(e.to_string())),
        };
        return Err(attach(match driver.as_deref() {
            Some(d) if crate::bind::UserDriver::is_user_space(d) => {
                format!("it is bound to {d}, yet SPDK's probe failed (see SPDK's messages above)")
            }
            Some(d) => format!(
                "the kernel's {d} driver holds it; hand it over first with `iolab spdk bind {addr}`"
            ),
            None => format!(
                "no driver holds it; bind it to uio_pci_generic first with `iolab spdk bind {addr}`"
            ),
        }));
    }
    all.push((addr, Ctrlr(ctrlr)));
    Ok(Ctrlr(ctrlr))
}

/// A namespace of an attached controller.
#[derive(Clone, Copy)]
pub struct Namespace {
    ctrlr: Ctrlr,
    ns: *mut ffi::spdk_nvme_ns,
    pub addr: PciAddr,
    pub id: u32,
    /// Bytes per logical block (the data part of an extended LBA).
    pub sector_size: u32,
    pub size_bytes: u64,
    /// The largest transfer one command may carry, in bytes.
    pub max_transfer: u32,
}

// SAFETY: a namespace's getters read data SPDK set up when it attached the controller.
unsafe impl Send for Namespace {}
unsafe impl Sync for Namespace {}

/// The namespace `trid` names: starts the environment and attaches the controller first if
/// this process has not yet.
pub fn namespace(trid: &TransportId) -> Result<Namespace, SpdkError> {
    start(trid.traddr)?;
    let ctrlr = controller(trid.traddr)?;
    // SAFETY: the controller stays attached for the process's life.
    unsafe {
        let ns = ffi::spdk_nvme_ctrlr_get_ns(ctrlr.0, trid.ns);
        if ns.is_null() || !ffi::spdk_nvme_ns_is_active(ns) {
            return Err(SpdkError::NoNamespace {
                addr: trid.traddr,
                ns: trid.ns,
            });
        }
        let sector_size = ffi::spdk_nvme_ns_get_sector_size(ns);
        Ok(Namespace {
            ctrlr,
            ns,
            addr: trid.traddr,
            id: trid.ns,
            sector_size,
            size_bytes: ffi::spdk_nvme_ns_get_num_sectors(ns) * sector_size as u64,
            max_transfer: ffi::spdk_nvme_ns_get_max_io_xfer_size(ns),
        })
    }
}

/// What a queue pair's callback writes: finished slots, in order.
struct Sink {
    done: Vec<(u32, bool)>,
}

/// One in-flight slot's callback argument.
struct Tag {
    sink: *mut Sink,
    slot: u32,
}

extern "C" fn on_complete(arg: *mut libc::c_void, cpl: *const ffi::spdk_nvme_cpl) {
    // SAFETY: `arg` is the slot's Tag, alive as long as the queue pair; SPDK calls this from
    // `spdk_nvme_qpair_process_completions` on the pair's own thread.
    unsafe {
        let tag = &*(arg as *const Tag);
        // Status field: phase (bit 0), SC (8 bits), SCT (3 bits); success is SC = SCT = 0.
        let status = (*cpl).__bindgen_anon_1.status_raw;
        let ok = (status >> 1) & 0x7ff == 0;
        (*tag.sink).done.push((tag.slot, ok));
    }
}

/// An I/O queue pair of one namespace, used by one thread.
pub struct QPair {
    q: *mut ffi::spdk_nvme_qpair,
    ns: Namespace,
    sink: Box<Sink>,
    tags: Box<[Tag]>,
    in_flight: u32,
    /// Entries in the queue SPDK gave (the controller may give fewer than asked).
    pub entries: u32,
}

// SAFETY: the pair is made on the thread that uses it, and moves with it as a whole.
unsafe impl Send for QPair {}

impl QPair {
    /// A queue pair with room for `depth` I/Os in flight.
    pub fn new(ns: &Namespace, depth: u32) -> Result<QPair, SpdkError> {
        let depth = depth.max(1);
        // SAFETY: the options are plain data SPDK fills with its defaults.
        let (q, entries) = unsafe {
            let mut opts: ffi::spdk_nvme_io_qpair_opts = std::mem::zeroed();
            let size = std::mem::size_of::<ffi::spdk_nvme_io_qpair_opts>();
            ffi::spdk_nvme_ctrlr_get_default_io_qpair_opts(ns.ctrlr.0, &mut opts, size);
            // A queue of N entries holds N - 1 commands.
            opts.io_queue_size = opts.io_queue_size.max(depth + 1);
            opts.io_queue_requests = opts.io_queue_requests.max(depth);
            // The submission doorbell is rung once a batch, by the next look for completions
            // (`QPair::ring`), not once a command: as SPDK's perf drives its queues.
            opts.__bindgen_anon_1.delay_cmd_submit = true;
            let q = ffi::spdk_nvme_ctrlr_alloc_io_qpair(ns.ctrlr.0, &opts, size);
            (q, opts.io_queue_size)
        };
        if q.is_null() {
            return Err(SpdkError::QPair {
                addr: ns.addr,
                depth,
            });
        }
        let mut sink = Box::new(Sink {
            done: Vec::with_capacity(depth as usize),
        });
        let sink_ptr: *mut Sink = &mut *sink;
        let tags = (0..depth)
            .map(|slot| Tag {
                sink: sink_ptr,
                slot,
            })
            .collect();
        Ok(QPair {
            q,
            ns: *ns,
            sink,
            tags,
            in_flight: 0,
            entries,
        })
    }

    /// Submits a read or write of `len` bytes at byte `offset` into/from `buf` for `slot`;
    /// `Err(-errno)` when SPDK refuses it (`-ENOMEM`: no request free now).
    ///
    /// # Safety
    /// `buf` must be DMA-able memory (SPDK's allocator or registered) of at least `len`
    /// bytes, untouched until the slot completes.
    #[inline(always)]
    pub unsafe fn submit(
        &mut self,
        write: bool,
        slot: u32,
        buf: *mut u8,
        offset: u64,
        len: u32,
    ) -> Result<(), i32> {
        let ss = self.ns.sector_size;
        if !offset.is_multiple_of(ss as u64) || !len.is_multiple_of(ss) || len == 0 {
            return Err(-libc::EINVAL);
        }
        let Some(tag) = self.tags.get(slot as usize) else {
            return Err(-libc::EINVAL);
        };
        let arg = tag as *const Tag as *mut libc::c_void;
        let (lba, count) = (offset / ss as u64, len / ss);
        let f = if write {
            ffi::spdk_nvme_ns_cmd_write
        } else {
            ffi::spdk_nvme_ns_cmd_read
        };
        let rc = f(
            self.ns.ns,
            self.q,
            buf.cast(),
            lba,
            count,
            Some(on_complete),
            arg,
            0,
        );
        if rc != 0 {
            return Err(rc);
        }
        self.in_flight += 1;
        Ok(())
    }

    /// Looks for completions once, taking at most `max` (0: all there are); then
    /// [`QPair::drain`] gives them. `Err(-errno)` when the pair failed at the transport.
    #[inline(always)]
    pub fn poll(&mut self, max: u32) -> Result<(), i32> {
        // SAFETY: the pair is this thread's; callbacks write into `sink`, which has room for
        // every I/O in flight.
        let n = unsafe { ffi::spdk_nvme_qpair_process_completions(self.q, max) };
        if n < 0 {
            return Err(n);
        }
        Ok(())
    }

    /// Rings the submission doorbell for what was submitted since the last look (the pair
    /// delays it, see [`QPair::new`]); completions found meanwhile wait for the next drain.
    #[inline(always)]
    pub fn ring(&mut self) -> Result<(), i32> {
        self.poll(0)
    }

    /// Up to `max` of the slots that completed since the last drain, oldest first, with
    /// whether each succeeded; the rest wait for the next drain.
    #[inline(always)]
    pub fn drain(&mut self, max: usize, mut f: impl FnMut(u32, bool)) -> usize {
        let n = self.sink.done.len().min(max);
        for (slot, ok) in self.sink.done.drain(..n) {
            f(slot, ok);
        }
        self.in_flight -= n as u32;
        n
    }

    /// Completions found and not yet drained.
    #[inline(always)]
    pub fn found(&self) -> usize {
        self.sink.done.len()
    }

    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }
}

impl Drop for QPair {
    fn drop(&mut self) {
        // The buffers of I/Os still in flight belong to the worker: wait for them, then free.
        let mut spins = 0u64;
        while self.in_flight > 0 && spins < 100_000_000 {
            if self.poll(0).is_err() {
                break;
            }
            self.drain(usize::MAX, |_, _| {});
            spins += 1;
        }
        // SAFETY: the pair is ours and idle.
        unsafe { ffi::spdk_nvme_ctrlr_free_io_qpair(self.q) };
    }
}

/// `len` bytes of zeroed DMA-able memory (hugepages), aligned to `align`.
pub fn dma_alloc(len: usize, align: usize) -> Result<*mut u8, SpdkError> {
    // SAFETY: a plain allocation; null is checked.
    let p = unsafe { ffi::spdk_dma_zmalloc(len, align, std::ptr::null_mut()) };
    if p.is_null() {
        return Err(SpdkError::Dma(len));
    }
    Ok(p.cast())
}

/// Frees what [`dma_alloc`] gave.
///
/// # Safety
/// `p` came from [`dma_alloc`] and is no longer used.
pub unsafe fn dma_free(p: *mut u8) {
    ffi::spdk_dma_free(p.cast());
}

/// The SPDK build linked (its directory's name: `spdk-v25.09`), for the results' setup line.
pub const VERSION: &str = env!("IOLAB_SPDK_VERSION");
