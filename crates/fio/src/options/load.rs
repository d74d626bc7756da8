//! iolab's own options for latency under load (not fio's): an open-loop schedule, whose
//! response time counts from when each I/O was due.

use crate::options::{OptionDef, ValueKind};
use crate::units::parse_bool;

pub static LOAD_OPTIONS: &[OptionDef] = &[OptionDef {
    name: "rate_open_loop",
    alias: None,
    kind: ValueKind::Bool,
    help: "(iolab) Issue each rate-limited I/O at its due time (rate_process spaces them) \
           whether or not earlier ones completed, up to iodepth in flight, and report its \
           response time from when it was due (iolab.response_ns) beside fio's lat, with how \
           late the schedule issued I/Os. Off (default): fio's closed loop, where a stall \
           delays the I/Os behind it and never shows in lat (coordinated omission).",
    apply: |d, v| {
        d.spec.rate.open_loop = parse_bool(v)?;
        Ok(())
    },
}];
