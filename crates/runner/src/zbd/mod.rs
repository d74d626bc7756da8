//! fio's `zonemode=zbd` at run time: the zones of one target, shared by every job copy that
//! writes it (as fio shares a file's `zbd_info` between jobs), and each copy's view of them.
//!
//! A write goes to its zone's write pointer, which moves past it at once (the copy's next
//! write, even in flight beside it, goes after it), and the zone stays one copy's from the
//! moment the offset is chosen until its writes there are done, so copies never race for one
//! write pointer (fio's `zone_lock()` .. `zbd_put_io()`). A copy with writes in flight that
//! needs a zone another copy holds, or must reset a zone, first reaps its own (fio's
//! `io_u_quiesce()`): `Adjusted::Busy`. The open-zone list and the count of bytes holding
//! data sit under one lock for the target. This is the one place a worker takes a lock per
//! I/O, and only a zbd job does: a zoned device allows nothing else.
//!
//! `prepare` reads the zones (or emulates them) before any I/O; `map` holds them; `cursor`
//! is a copy's side: `write` and `read` follow fio's `zbd_adjust_block()`.

mod cursor;
mod map;
mod prepare;
mod read;
mod write;

pub(crate) use cursor::ZbdCursor;
pub(crate) use map::ZoneMap;
pub(crate) use prepare::attach;

/// What zbd made of an I/O: where it goes now, or that the job's zones have nothing more
/// for it (fio's `io_u_eof`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Adjusted {
    At {
        offset: u64,
        len: u64,
    },
    Eof,
    /// Not now: the copy must reap its writes in flight first.
    Busy,
}

/// The copy must reap its writes in flight before this one can be placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Busy;
