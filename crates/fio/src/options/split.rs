//! iolab's own option for where each microsecond goes (not fio's): the latency split.

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_bool;

pub static SPLIT_OPTIONS: &[OptionDef] = &[OptionDef {
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
}];
