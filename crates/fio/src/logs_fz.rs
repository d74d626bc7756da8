//! fio 3.42's `log_store_compressed`: a log file kept as `PREFIX_KIND.N.log.fz`, zlib streams
//! of fio's binary samples (`struct io_sample`), which `fio --inflate-log` prints back as the
//! text log. fio compresses samples, never text, so iolab renders its lines once (the same
//! lines its text logs have) and packs each line's fields into fio's sample layout; inflated,
//! they print the same lines.
//!
//! `struct io_sample` on x86-64 and the other 64-bit Linux targets: time (u64), value and
//! second value (u64 each), direction with flag bits (u32), priority (u16), 2 bytes of
//! padding, block size (u64), then the offset and the issue time (u64 each) where the log has
//! them. The flag bits say which columns the text has.

use std::io::Write;

/// fio's `LOG_OFFSET_SAMPLE_BIT`, `LOG_PRIO_SAMPLE_BIT`, `LOG_AVG_MAX_SAMPLE_BIT` and
/// `LOG_ISSUE_TIME_SAMPLE_BIT`.
const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
const AVG_MAX_BIT: u32 = 0x2000_0000;
const ISSUE_TIME_BIT: u32 = 0x1000_0000;
/// An I/O priority value of the realtime class: what a `1` in the last column came from.
const RT_CLASS: u16 = 1 << 13;

/// Which columns a log's lines have.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Columns {
    /// A second value after the first (`log_window_value=both`).
    pub max: bool,
    /// The offset after the block size (`log_offset`).
    pub offset: bool,
    /// The priority column is the whole value in hex (`log_prio`), not 0 or 1.
    pub prio: bool,
    /// The issue time last (`log_issue_time`).
    pub issue_time: bool,
}

/// The text log's lines as fio's samples, one after another.
pub fn samples(text: &str, c: Columns) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.lines() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let want = 5 + c.max as usize + c.offset as usize + c.issue_time as usize;
        if f.len() != want {
            return Err(format!(
                "log line '{line}' has {} columns, not {want}",
                f.len()
            ));
        }
        let num = |s: &str| -> Result<u64, String> {
            s.parse::<u64>()
                .or_else(|_| s.parse::<i64>().map(|v| v as u64))
                .map_err(|_| format!("'{s}' in log line '{line}' is not a number"))
        };
        let mut k = 0;
        let mut next = || {
            k += 1;
            f[k - 1]
        };
        let time = num(next())?;
        let val0 = num(next())?;
        let val1 = if c.max { num(next())? } else { 0 };
        let ddir = num(next())? as u32;
        let bs = num(next())?;
        let offset = if c.offset { Some(num(next())?) } else { None };
        let p = next();
        let priority = match c.prio {
            true => u16::from_str_radix(p.trim_start_matches("0x"), 16)
                .map_err(|_| format!("'{p}' in log line '{line}' is not a priority"))?,
            false if p == "1" => RT_CLASS,
            false => 0,
        };
        let issue = if c.issue_time {
            Some(num(next())?)
        } else {
            None
        };
        let bits = [
            (c.offset, OFFSET_BIT),
            (c.prio, PRIO_BIT),
            (c.max, AVG_MAX_BIT),
            (c.issue_time, ISSUE_TIME_BIT),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |b, (_, bit)| b | bit);
        out.extend(time.to_ne_bytes());
        out.extend(val0.to_ne_bytes());
        out.extend(val1.to_ne_bytes());
        out.extend((ddir | bits).to_ne_bytes());
        out.extend(priority.to_ne_bytes());
        out.extend([0u8; 2]);
        out.extend(bs.to_ne_bytes());
        // fio keeps the issue time in the second aux slot, after the offset's (which
        // log_issue_time requires).
        out.extend(offset.into_iter().chain(issue).flat_map(u64::to_ne_bytes));
    }
    Ok(out)
}

/// Writes `text`'s samples to `out` as one zlib stream; nothing for an empty log (fio's
/// empty logs are empty files).
pub fn write(text: &str, c: Columns, out: &mut impl Write) -> std::io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    let bytes = samples(text, c).map_err(std::io::Error::other)?;
    let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::default());
    z.write_all(&bytes)?;
    z.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_becomes_fios_40_byte_sample_and_its_columns_its_bits() {
        let s = samples("2, 10000, 1, 4096, 1\n", Columns::default()).unwrap();
        assert_eq!(s.len(), 40);
        assert_eq!(u64::from_ne_bytes(s[0..8].try_into().unwrap()), 2);
        assert_eq!(u64::from_ne_bytes(s[8..16].try_into().unwrap()), 10000);
        assert_eq!(u32::from_ne_bytes(s[24..28].try_into().unwrap()), 1);
        assert_eq!(u16::from_ne_bytes(s[28..30].try_into().unwrap()), RT_CLASS);
        assert_eq!(u64::from_ne_bytes(s[32..40].try_into().unwrap()), 4096);
        let c = Columns {
            offset: true,
            prio: true,
            issue_time: true,
            ..Columns::default()
        };
        let s = samples("2, 10000, 0, 4096, 8192, 0x2004, 77\n", c).unwrap();
        assert_eq!(s.len(), 56);
        let ddir = u32::from_ne_bytes(s[24..28].try_into().unwrap());
        assert_eq!(ddir, OFFSET_BIT | PRIO_BIT | ISSUE_TIME_BIT);
        assert_eq!(u16::from_ne_bytes(s[28..30].try_into().unwrap()), 0x2004);
        assert_eq!(u64::from_ne_bytes(s[40..48].try_into().unwrap()), 8192);
        assert_eq!(u64::from_ne_bytes(s[48..56].try_into().unwrap()), 77);
    }

    #[test]
    fn a_line_of_other_columns_is_an_error() {
        assert!(samples("2, 10000, 1, 4096\n", Columns::default()).is_err());
    }
}
