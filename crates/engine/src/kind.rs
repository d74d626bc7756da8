//! Which engine to use and its options, as plain data the job model can carry.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EngineKind {
    Sync,
    Psync,
    Vsync,
    Pvsync,
    Pvsync2,
    Mmap,
    Libaio,
    Posixaio,
    IoUring,
    IoUringCmd,
    Null,
    Falloc,
    Ftruncate,
    Filecreate,
    Filestat,
    Filedelete,
    Dircreate,
    Dirstat,
    Dirdelete,
    Splice,
    Cpuio,
    Exec,
    E4defrag,
    Spdk,
}

impl EngineKind {
    pub const ALL: [EngineKind; 24] = [
        EngineKind::Sync,
        EngineKind::Psync,
        EngineKind::Vsync,
        EngineKind::Pvsync,
        EngineKind::Pvsync2,
        EngineKind::Mmap,
        EngineKind::Libaio,
        EngineKind::Posixaio,
        EngineKind::IoUring,
        EngineKind::IoUringCmd,
        EngineKind::Null,
        EngineKind::Falloc,
        EngineKind::Ftruncate,
        EngineKind::Filecreate,
        EngineKind::Filestat,
        EngineKind::Filedelete,
        EngineKind::Dircreate,
        EngineKind::Dirstat,
        EngineKind::Dirdelete,
        EngineKind::Splice,
        EngineKind::Cpuio,
        EngineKind::Exec,
        EngineKind::E4defrag,
        EngineKind::Spdk,
    ];

    /// The name fio uses for this engine.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// Engines whose every call blocks until the I/O is done: queue depth above 1 means
    /// nothing to them (fio caps them the same way).
    pub fn is_synchronous(self) -> bool {
        self.def().synchronous
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name did not match any engine iolab has. One of fio's own engines is "not supported
/// yet", not unknown: the user's job file is right for fio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEngine(pub String);

impl std::error::Error for UnknownEngine {}

impl fmt::Display for UnknownEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.0;
        if NETWORK_ENGINES.contains(&name.as_str()) {
            // A deliberate refusal: these move bytes over sockets, not to storage.
            return write!(
                f,
                "ioengine '{name}' measures a network path (sockets over TCP or UDP), not \
                 storage, and iolab measures storage only: run this job with fio"
            );
        }
        if FIO_ENGINES.contains(&name.as_str()) {
            write!(f, "ioengine '{name}' is not supported by iolab yet")?;
        } else {
            write!(f, "unknown ioengine '{name}'")?;
        }
        write!(f, " (iolab has: {})", engine_names())
    }
}

/// fio's engines that drive sockets rather than storage (`engines/net.c`): refused by
/// design, with that reason, not "not yet".
const NETWORK_ENGINES: &[&str] = &["net", "netsplice"];

/// fio 3.33's engines (its `engines/` and their aliases), for telling "not yet" from "unknown".
const FIO_ENGINES: &[&str] = &[
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "libaio",
    "io_uring",
    "io_uring_cmd",
    "posixaio",
    "mmap",
    "splice",
    "sg",
    "null",
    "net",
    "netsplice",
    "cpuio",
    "rdma",
    "e4defrag",
    "falloc",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
    "exec",
    "http",
    "rados",
    "rbd",
    "gfapi",
    "gfapi_async",
    "libhdfs",
    "libiscsi",
    "nbd",
    "nfs",
    "ime_psync",
    "ime_psyncv",
    "ime_aio",
    "mtd",
    "dev-dax",
    "libpmem",
    "pmemblk",
    "libcufile",
    "dfs",
    "xnvme",
    "libzbc",
    "librpma_apm_client",
    "librpma_apm_server",
    "librpma_gpspm_client",
    "librpma_gpspm_server",
    "windowsaio",
    "solarisaio",
    "cpp_null",
    // SPDK's plugin, an external engine fio loads (`ioengine=spdk` with LD_PRELOAD).
    "spdk",
];

fn engine_names() -> String {
    let names: Vec<&str> = crate::ENGINES.iter().map(|d| d.name).collect();
    names.join(", ")
}

impl FromStr for EngineKind {
    type Err = UnknownEngine;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // fio's own aliases of libaio: every name beginning `aio` or `linuxaio`
        // (`get_ioengine()` compares only those first letters).
        if s.starts_with("aio") || s.starts_with("linuxaio") {
            return Ok(EngineKind::Libaio);
        }
        crate::ENGINES
            .iter()
            .map(|d| d.kind)
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownEngine(s.to_string()))
    }
}

/// Engine options, each owned by the engines that read it (fio's per-engine options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// pvsync2: RWF_HIPRI on each call; io_uring: IORING_SETUP_IOPOLL. Polled completion.
    pub hipri: bool,
    /// pvsync2, io_uring: RWF_DONTCACHE on buffered I/O (fio 3.42's `uncached`, Linux
    /// 6.14): the pages go once the data is copied or written back.
    pub uncached: bool,
    /// pvsync2, libaio, io_uring: RWF_ATOMIC on every write (fio 3.42's `atomic`, Linux
    /// 6.11): torn-write protection, within the target's atomic write unit.
    pub atomic: bool,
    /// io_uring: IORING_SETUP_SQPOLL, a kernel thread submits for us.
    pub sqthread_poll: bool,
    /// io_uring: register the I/O buffers once and use READ_FIXED/WRITE_FIXED.
    pub fixedbufs: bool,
    /// io_uring: register the file and address it by index.
    pub registerfiles: bool,
    /// io_uring: pin the SQPOLL thread to this CPU (fio's `sqthread_poll_cpu`).
    pub sqthread_poll_cpu: Option<u32>,
    /// io_uring: READ/WRITE (true, and the default where unset, as fio picks when the kernel
    /// has them) or READV/WRITEV with one iovec (false). Fixed buffers ignore it, as in fio.
    pub nonvectored: Option<bool>,
    /// io_uring: every Nth request gets IOSQE_ASYNC, straight to io-wq (0: none).
    pub force_async: u32,
    /// mmap: map privately with `MADV_HUGEPAGE` (fio's `thp`; writes stay in memory).
    pub thp: bool,
    /// filestat: which call looks the file up (fio's `stat_type`).
    pub stat_type: StatType,
    /// cpuio: how much of a CPU to burn, and how.
    pub cpu: crate::cpuio::CpuBurn,
    /// exec: the program the job runs.
    pub exec: crate::exec::ExecProgram,
    /// e4defrag: the donor file and how its space is reserved.
    pub defrag: crate::e4defrag::Defrag,
    /// io_uring_cmd: where writes ask the drive to put their data (FDP or streams).
    pub placement: crate::placement::Placement,
    /// io_uring_cmd: end-to-end protection information (fio 3.42's `pi_act`, `pi_chk`,
    /// `apptag`, `apptag_mask`, `md_per_io_size`).
    pub protection: crate::protection::Protection,
}

/// The system call filestat times (fio's `stat_type`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StatType {
    /// stat(2), following a final symlink (fio's default).
    #[default]
    Stat,
    /// lstat(2).
    Lstat,
    /// statx(2) with `STATX_ALL`.
    Statx,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    pub kind: EngineKind,
    pub options: EngineOptions,
}

impl EngineConfig {
    pub fn new(kind: EngineKind) -> Self {
        EngineConfig {
            kind,
            options: EngineOptions::default(),
        }
    }

    /// Every I/O path iolab can measure, in the order the QD1 tables show them: each engine,
    /// plus the option variants that take a different kernel path (polled completion,
    /// kernel-side submission). The null engine comes last: it does no I/O.
    pub fn paths() -> Vec<EngineConfig> {
        let with = |kind, f: fn(&mut EngineOptions)| {
            let mut c = EngineConfig::new(kind);
            f(&mut c.options);
            c
        };
        vec![
            EngineConfig::new(EngineKind::Psync),
            EngineConfig::new(EngineKind::Pvsync2),
            with(EngineKind::Pvsync2, |o| o.hipri = true),
            EngineConfig::new(EngineKind::Mmap),
            EngineConfig::new(EngineKind::Libaio),
            EngineConfig::new(EngineKind::IoUring),
            with(EngineKind::IoUring, |o| o.hipri = true),
            with(EngineKind::IoUring, |o| o.sqthread_poll = true),
            EngineConfig::new(EngineKind::IoUringCmd),
            with(EngineKind::IoUringCmd, |o| o.hipri = true),
            EngineConfig::new(EngineKind::Null),
        ]
    }

    /// The line fio prints for a job of an engine without I/O in place of its job line (the
    /// `init()` of cpuio and exec: the load, or the program and its unexpanded arguments);
    /// None for the rest.
    pub fn banner(&self, job: &str) -> Option<String> {
        match self.kind {
            EngineKind::Cpuio => {
                let cpu = self.options.cpu;
                let mode = match cpu.mode {
                    crate::cpuio::CpuMode::Noop => "noop",
                    crate::cpuio::CpuMode::Qsort => "qsort",
                };
                Some(format!(
                    "{job} ({mode}): ioengine=cpuio, cpuload={}, cpucycle={}",
                    cpu.load, cpu.chunk_us
                ))
            }
            EngineKind::Exec => {
                let e = &self.options.exec;
                Some(format!(
                    "{job} : program={}, arguments={}",
                    e.program,
                    e.arguments.as_deref().unwrap_or("(null)")
                ))
            }
            _ => None,
        }
    }

    /// Whether the job asks for polled completion (`hipri` on an engine that reads it): the
    /// runner then checks the disk's interrupts to see whether it really polled.
    pub fn asks_polling(&self) -> bool {
        self.options.hipri && self.kind.def().options.contains(&"hipri")
    }

    /// The path a label names (`io_uring+iopoll`), among [`EngineConfig::paths`].
    pub fn from_label(label: &str) -> Option<EngineConfig> {
        Self::paths().into_iter().find(|c| c.label() == label)
    }

    /// A short label: the engine name plus the options that change its path, e.g.
    /// `pvsync2+hipri` or `io_uring+sqpoll`.
    pub fn label(&self) -> String {
        let mut s = self.kind.name().to_string();
        let o = &self.options;
        match self.kind {
            EngineKind::Pvsync2 if o.hipri => s.push_str("+hipri"),
            EngineKind::IoUring | EngineKind::IoUringCmd => {
                if o.hipri {
                    s.push_str("+iopoll");
                }
                if o.sqthread_poll {
                    s.push_str("+sqpoll");
                }
                if o.fixedbufs {
                    s.push_str("+fixedbufs");
                }
                if o.registerfiles {
                    s.push_str("+regfiles");
                }
            }
            _ => {}
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_named() {
        for k in EngineKind::ALL {
            assert_eq!(k.name().parse::<EngineKind>().unwrap(), k);
        }
        let e = "spdk_bdev".parse::<EngineKind>().unwrap_err();
        assert!(e.to_string().contains("unknown ioengine 'spdk_bdev'"));
    }

    #[test]
    fn fios_libaio_aliases_are_libaio_and_net_is_refused_by_design() {
        for alias in ["aio", "linuxaio", "aiox"] {
            assert_eq!(alias.parse::<EngineKind>().unwrap(), EngineKind::Libaio);
        }
        for net in ["net", "netsplice"] {
            let e = net.parse::<EngineKind>().unwrap_err().to_string();
            assert!(
                e.contains("measures a network path") && e.contains("fio"),
                "{e}"
            );
        }
    }

    #[test]
    fn labels_show_path_options() {
        let mut c = EngineConfig::new(EngineKind::IoUring);
        c.options.hipri = true;
        c.options.sqthread_poll = true;
        assert_eq!(c.label(), "io_uring+iopoll+sqpoll");
        let mut p = EngineConfig::new(EngineKind::Pvsync2);
        p.options.hipri = true;
        assert_eq!(p.label(), "pvsync2+hipri");
        assert_eq!(EngineConfig::new(EngineKind::Psync).label(), "psync");
    }
}
