//! iolab's own options of `iolab run` (not fio's): where results go, consent to destroy,
//! parse-only, the runtime cap, the database. Listed for `--help` and the README; parsed by
//! `args`.

/// A run-wide option (not a job option): name, value placeholder (empty for a flag), help.
pub struct RunOptionDef {
    pub name: &'static str,
    pub value: &'static str,
    pub help: &'static str,
}

/// Run-wide options, for `--help` and the README.
pub static RUN_OPTIONS: &[RunOptionDef] = &[
    RunOptionDef {
        name: "output-format",
        value: "normal|json|json+[,..]",
        help: "normal: fio's report layout; json: fio's JSON schema (extras under \"iolab\"); \
               json+: JSON with the latency histograms' bins. A comma list prints each.",
    },
    RunOptionDef {
        name: "output",
        value: "FILE",
        help: "Write results to FILE instead of standard output.",
    },
    RunOptionDef {
        name: "parse-only",
        value: "",
        help: "Check the options and job files, print the jobs, and exit without touching any \
               target.",
    },
    RunOptionDef {
        name: "allow-destroy",
        value: "",
        help: "(iolab) Allow the jobs to overwrite their targets: block devices, and existing \
               files iolab did not create. Mounted devices, devices in use (held exclusively, \
               backing a loop device) and the disk holding / are refused regardless.",
    },
    RunOptionDef {
        name: "db",
        value: "PATH",
        help: "(iolab) Results database the run is recorded in (default: $IOLAB_DB, else \
               $XDG_DATA_HOME/iolab/results.db); see iolab history and iolab show.",
    },
    RunOptionDef {
        name: "runtime-cap",
        value: "TIME",
        help: "(iolab) Cut every job's ramp_time and runtime to at most TIME, to try a long job \
               file quickly.",
    },
    RunOptionDef {
        name: "keep-rseq",
        value: "",
        help: "(iolab) Keep glibc's restartable-sequence (rseq) registration on the I/O \
               threads. By default each drops it, as GLIBC_TUNABLES=glibc.pthread.rseq=0 \
               would: the kernel updates it after every sleep, which costs an I/O that waits \
               for its completion 100-200 ns. The setup line says \"rseq off\".",
    },
    RunOptionDef {
        name: "load-curve",
        value: "LOADS",
        help: "(iolab) Latency under load: run the jobs once at full speed (the peak), then \
               open loop (rate_open_loop) at each load, given as shares of the peak \
               (10%,50%,0.9) or as I/Os per second (20000,40000); prints offered against \
               achieved IOPS, lat and response-time percentiles, and whether each load was \
               carried. Every point is saved with the run.",
    },
    RunOptionDef {
        name: "fio-offsets",
        value: "",
        help: "(iolab) Random offsets in fio's own order: fio's random map, draw for draw, so \
               a random job issues the very offsets fio's would (write_iolog lines match). By \
               default each block is still done once a pass, in iolab's own order, about \
               3 ns an I/O cheaper; zonemode=zbd always takes fio's order, which decides the \
               zones' write pointers. norandommap jobs draw fio's offsets either way.",
    },
    RunOptionDef {
        name: "quiet",
        value: "",
        help: "(iolab) No progress line on stderr. The line (a start line with the plan, then \
               what runs and the time left) is drawn only on a terminal anyway; errors, \
               warnings and where the run was saved are always said.",
    },
    RunOptionDef {
        name: "repeat",
        value: "N",
        help: "(iolab) Run the jobs N times, one after another (a job file's jobs interleave: \
               A B A B ..., so drift hits all alike). Each job's figures pool every repeat \
               (histograms merged, so percentiles are exact) and each repeat is kept; normal \
               output adds each figure's mean with its 95 % confidence interval, JSON adds \
               iolab.repeats. iolab compare then says faster, slower or no difference.",
    },
    RunOptionDef {
        name: "stonewall-hosts",
        value: "",
        help: "(iolab, many hosts) Under mpirun: when the first host finishes a phase (a \
               size-based job), stop it on every host, so stragglers do not stretch the \
               aggregate's window (IOR's stonewalling). See docs/multihost.md.",
    },
];
