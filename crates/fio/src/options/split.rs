//! iolab's own option for where each microsecond goes (not fio's): the latency split.

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_bool;

pub static SPLIT_OPTIONS: &[OptionDef] = &[
    OptionDef {
    name: "lat_split",
    alias: None,
    kind: ValueKind::Bool,
    help: "(iolab) Split every I/O's lat at the kernel's block request events (an eBPF probe \
           on block_rq_issue and block_rq_complete; root, BTF and a request-based device) \
           into submit (iolab's submit call → issued to the driver), device (issued → \
           completed in the block layer) and completion (→ iolab holds it), and account for \
           the tail (the I/Os above p99 and p99.9) by part. Reported as iolab.lat_split in \
           the JSON and split lines in the normal output; where the kernel cannot say, a \
           one-line note says why and the run goes on without it.",
    apply: |d, v| {
        d.spec.lat_split = parse_bool(v)?;
        Ok(())
    },
    },
    OptionDef {
        name: "write_split_log",
        alias: None,
        kind: ValueKind::Str,
        help: "(iolab) Write one line per split I/O to PREFIX_split.N.log (N: the job's number), \
               streamed while the job runs in the order I/Os are joined: time (ms, when \
               reaped), direction (0 read, 1 write, 2 trim), bytes, offset, then submit, device \
               and completion in ns (and the NVMe driver's part where there is one). Turns lat_split on; at most the per-I/O log \
               cap of lines per job copy (IOLAB_LOG_CAP), as fio's per-I/O logs are held.",
        apply: |d, v| {
            d.spec.split_log = Some(v.to_string());
            d.spec.lat_split = true;
            Ok(())
        },
    },
];
