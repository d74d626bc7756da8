//! fio's `merge_blktrace_file`: several blktraces given to `read_iolog` (`a:b`) merged into
//! one by time, which is then replayed, so that colocated workloads interleave the same way
//! on every run (fio's HOWTO, "I/O Replay - Merging Traces"). Each trace keeps its queued
//! reads, writes and discards only (what a replay issues); `merge_blktrace_scalars` scales a
//! trace's times by a percentage (50: twice as fast) and `merge_blktrace_iters` repeats it,
//! each repetition after the last one's final event. The merged records are written in this
//! machine's byte order with no payload, as fio writes them.
//!
//! fio (3.33 to 3.42) documents this but cannot do it: its `read_trace()` reads each record
//! into the pointer to it (`fread(&t, 1, sizeof(t), …)`, 8 bytes), so every merge ends in
//! "fio: iolog short read" with nothing merged. iolab does what the HOWTO says; the merged
//! file is a plain blktrace that fio's own `read_iolog` replays.

use crate::blktrace::{self, RECORD};

/// One trace's queued I/Os (raw records, made little-endian) and how to repeat them.
struct Cursor {
    records: Vec<[u8; RECORD]>,
    /// Percent of the recorded time (fio casts its float to an integer).
    scalar: u64,
    iters: u64,
    /// The last queued event's time: a repetition starts that much later.
    length: u64,
}

impl Cursor {
    /// The time (ns) of record `i` of repetition `iter`.
    fn time_of(&self, iter: u64, i: usize) -> u64 {
        let raw = u64::from_le_bytes(self.records[i][8..16].try_into().unwrap());
        raw.saturating_add(iter.saturating_mul(self.length))
            .saturating_mul(self.scalar)
            / 100
    }
}

/// A record as little-endian bytes (every field swapped for a trace of the other order),
/// with no payload.
fn normalized(b: &[u8], swap: bool) -> [u8; RECORD] {
    let mut out = [0u8; RECORD];
    out.copy_from_slice(&b[..RECORD]);
    if swap {
        // magic, sequence, time, sector, bytes, action, pid, device, cpu, error (u16).
        for (at, width) in [
            (0, 4),
            (4, 4),
            (8, 8),
            (16, 8),
            (24, 4),
            (28, 4),
            (32, 4),
            (36, 4),
            (40, 4),
            (44, 2),
        ] {
            out[at..at + width].reverse();
        }
    }
    out[46..48].copy_from_slice(&0u16.to_le_bytes());
    out
}

/// The queued I/O records of one trace, as fio's merge reads them.
fn queued(name: &str, bytes: &[u8]) -> Result<Vec<[u8; RECORD]>, String> {
    let swap = blktrace::detect(bytes).ok_or_else(|| format!("{name} is not a blktrace"))?;
    let mut out = Vec::new();
    let mut pos = 0;
    while bytes.len().saturating_sub(pos) >= RECORD {
        let rec = normalized(&bytes[pos..], swap);
        let pdu = u16::from_le_bytes(bytes[pos + 46..pos + 48].try_into().unwrap());
        let pdu = if swap { pdu.swap_bytes() } else { pdu };
        pos += RECORD + pdu as usize;
        let action = u32::from_le_bytes(rec[28..32].try_into().unwrap());
        if action & 0xffff == blktrace::TA_QUEUE && blktrace::category_dir(action).is_some() {
            out.push(rec);
        }
    }
    Ok(out)
}

/// One value per trace, or none given (every trace `default`); another count is fio's error.
fn per_trace(
    option: &str,
    values: &[f64],
    traces: usize,
    default: u64,
) -> Result<Vec<u64>, String> {
    match values.len() {
        0 => Ok(vec![default; traces]),
        n if n == traces => Ok(values.iter().map(|v| *v as u64).collect()),
        n => Err(format!(
            "{option} has {n} value(s) for {traces} trace(s) in read_iolog"
        )),
    }
}

/// The most bytes a merged trace may hold: it is built in memory, then replayed from
/// memory (as large as the largest trace iolab reads), and written out.
pub const MAX_MERGED_BYTES: u64 = 512 << 20;

/// Refuses, before anything is built, a merge whose repetitions would hold more than
/// [`MAX_MERGED_BYTES`] (`merge_blktrace_iters=4294967295` is terabytes).
fn check_size(cursors: &[Cursor]) -> Result<(), String> {
    let records = cursors.iter().fold(0u64, |n, c| {
        n.saturating_add((c.records.len() as u64).saturating_mul(c.iters))
    });
    let bytes = records.saturating_mul(RECORD as u64);
    if bytes > MAX_MERGED_BYTES {
        return Err(format!(
            "the merged trace would hold {records} records ({} MiB), more than the {} MiB \
             iolab builds and replays; lower merge_blktrace_iters",
            bytes >> 20,
            MAX_MERGED_BYTES >> 20
        ));
    }
    Ok(())
}

/// Merges the traces (`(name, bytes)`, in `read_iolog`'s order) into one blktrace.
pub fn merge(
    traces: &[(String, Vec<u8>)],
    scalars: &[f64],
    iters: &[f64],
) -> Result<Vec<u8>, String> {
    let scalars = per_trace("merge_blktrace_scalars", scalars, traces.len(), 100)?;
    let iters = per_trace("merge_blktrace_iters", iters, traces.len(), 1)?;
    if scalars.contains(&0) || iters.contains(&0) {
        return Err("merge_blktrace_scalars and merge_blktrace_iters must be above 0".into());
    }
    let mut cursors = Vec::with_capacity(traces.len());
    for (((name, bytes), scalar), iters) in traces.iter().zip(scalars).zip(iters) {
        let records = queued(name, bytes)?;
        let length = records
            .last()
            .map_or(0, |r| u64::from_le_bytes(r[8..16].try_into().unwrap()));
        cursors.push(Cursor {
            records,
            scalar,
            iters,
            length,
        });
    }
    check_size(&cursors)?;
    // (repetition, record) each trace is at; the earliest next event goes out first, the
    // first trace's on a tie, as fio's find_earliest_io.
    let mut at: Vec<(u64, usize)> = vec![(0, 0); cursors.len()];
    let mut out = Vec::new();
    loop {
        let next = cursors
            .iter()
            .zip(&at)
            .enumerate()
            .filter(|(_, (c, (iter, _)))| *iter < c.iters && !c.records.is_empty())
            .map(|(k, (c, &(iter, i)))| (c.time_of(iter, i), k))
            .min();
        let Some((time, k)) = next else { break };
        let mut rec = cursors[k].records[at[k].1];
        rec[8..16].copy_from_slice(&time.to_le_bytes());
        out.extend_from_slice(&rec);
        at[k].1 += 1;
        if at[k].1 == cursors[k].records.len() {
            at[k] = (at[k].0 + 1, 0);
        }
    }
    if out.is_empty() {
        return Err("found no ios in the blktraces to merge".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ: u32 = 1 << 16;
    const WRITE: u32 = 1 << 17;

    /// A trace of `(time ns, sector, action)` records, 4 KiB each, in either byte order;
    /// every second record carries a 4-byte payload.
    fn trace(events: &[(u64, u64, u32)], big_endian: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, &(time, sector, action)) in events.iter().enumerate() {
            let pdu: u16 = if i % 2 == 0 { 4 } else { 0 };
            let mut r = Vec::new();
            let mut put = |b: &[u8]| {
                let mut b = b.to_vec();
                if big_endian {
                    b.reverse();
                }
                r.extend(b);
            };
            put(&0x6561_7407u32.to_le_bytes());
            put(&(i as u32).to_le_bytes());
            put(&time.to_le_bytes());
            put(&sector.to_le_bytes());
            put(&4096u32.to_le_bytes());
            put(&action.to_le_bytes());
            put(&1u32.to_le_bytes());
            put(&(8u32 << 20).to_le_bytes());
            put(&0u32.to_le_bytes());
            put(&0u16.to_le_bytes());
            put(&pdu.to_le_bytes());
            out.extend(r);
            out.extend(vec![0u8; pdu as usize]);
        }
        out
    }

    /// (time, sector) of each merged record.
    fn events(merged: &[u8]) -> Vec<(u64, u64)> {
        merged
            .chunks(RECORD)
            .map(|r| {
                assert_eq!(u16::from_le_bytes(r[46..48].try_into().unwrap()), 0);
                (
                    u64::from_le_bytes(r[8..16].try_into().unwrap()),
                    u64::from_le_bytes(r[16..24].try_into().unwrap()),
                )
            })
            .collect()
    }

    #[test]
    fn traces_interleave_by_time_and_only_queued_ios_are_kept() {
        let complete = 8 | READ;
        let a = trace(
            &[(100, 1, 1 | READ), (150, 1, complete), (300, 2, 1 | WRITE)],
            false,
        );
        let b = trace(
            &[(100, 10, 1 | READ), (200, 20, 1 | READ), (250, 0, 1)],
            true,
        );
        let m = merge(&[("a".into(), a), ("b".into(), b)], &[], &[]).unwrap();
        // The tie at 100 goes to the first trace; the completion and the event with no
        // direction are left out; b's big-endian records come out little-endian.
        assert_eq!(events(&m), [(100, 1), (100, 10), (200, 20), (300, 2)]);
        assert_eq!(blktrace::detect(&m), Some(false));
    }

    /// Four billion repetitions of a two-record trace are refused before anything is built.
    #[test]
    fn a_merge_past_the_bound_is_refused_up_front() {
        let a = trace(&[(0, 0, 1 | READ), (10, 8, 1 | WRITE)], false);
        let traces = vec![("a".to_string(), a)];
        let t = std::time::Instant::now();
        let e = merge(&traces, &[], &[4294967295.0]).unwrap_err();
        assert!(e.contains("lower merge_blktrace_iters"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        assert!(merge(&traces, &[], &[1000.0]).is_ok());
    }

    #[test]
    fn scalars_speed_a_trace_up_and_iters_repeat_it_after_its_last_event() {
        // As the HOWTO's example: A twice as fast, twice; B once.
        let a = trace(&[(0, 1, 1 | READ), (1000, 2, 1 | READ)], false);
        let b = trace(
            &[
                (0, 10, 1 | WRITE),
                (1500, 20, 1 | WRITE),
                (3000, 30, 1 | WRITE),
            ],
            false,
        );
        let m = merge(
            &[("a".into(), a), ("b".into(), b)],
            &[50.0, 100.0],
            &[2.0, 1.0],
        )
        .unwrap();
        // A's repetition starts at its last event (1000 ns), then both are halved.
        assert_eq!(
            events(&m),
            [
                (0, 1),
                (0, 10),
                (500, 2),
                (500, 1),
                (1000, 2),
                (1500, 20),
                (3000, 30)
            ]
        );
    }

    #[test]
    fn a_value_count_other_than_the_traces_or_a_text_log_is_refused() {
        let a = trace(&[(0, 1, 1 | READ)], false);
        let two = [("a".to_string(), a.clone()), ("b".to_string(), a.clone())];
        let e = merge(&two, &[50.0], &[]).unwrap_err();
        assert_eq!(
            e,
            "merge_blktrace_scalars has 1 value(s) for 2 trace(s) in read_iolog"
        );
        let text = ("log".to_string(), b"fio version 2 iolog\n".to_vec());
        assert_eq!(
            merge(&[text], &[], &[]).unwrap_err(),
            "log is not a blktrace"
        );
    }
}
