//! fio's value syntax, as fio 3.33 and 3.42 read it (`parse.c`: `str_to_decimal`,
//! `get_mult_bytes`, `get_mult_time`): sizes with kb_base's units (`4k`, `4kb` and `4ki` are
//! 4096 under fio's default kb_base=1024; only the three-letter `kib` is the other base,
//! 4000), `0x` hex, whole percentages, and times (`10` = 10 s, `500ms`, `20m`, `1h`,
//! `100us`). Units are case-insensitive.
//!
//! fio reads some values as other than they say, silently: `1.5k` is 1 (it stops at the
//! '.'), `0.5` seconds is 0, `4k+512` is 4096, `4q` is 4, `10sec` is 10 µs, `0x10k` is 16.
//! iolab refuses each of them with one line naming fio's reading ([`fio_reads_size`] and
//! [`fio_reads_time`] work it out as fio does), so a job never means one thing to fio and
//! another to iolab; a differential test holds both against the installed fio.

use std::time::Duration;

/// A size in bytes, or a percentage (for `size=` and `offset=`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeOrPercent {
    Bytes(u64),
    Percent(f64),
}

thread_local! {
    /// fio's `kb_base` of the option being applied: 1024 (fio's default, `k` binary and
    /// `ki` decimal) or 1000 (`k` decimal and `ki` binary). Set by [`with_kb_base`] around
    /// one option, so the many parsers need no extra argument.
    static KB_BASE: std::cell::Cell<u64> = const { std::cell::Cell::new(1024) };
}

/// Runs `f` with sizes read under `kb_base` (1000 or 1024).
pub fn with_kb_base<T>(kb_base: u64, f: impl FnOnce() -> T) -> T {
    let before = KB_BASE.with(|k| k.replace(kb_base));
    let out = f();
    KB_BASE.with(|k| k.set(before));
    out
}

/// The `kb_base` sizes are read under now.
fn kb_base() -> u64 {
    KB_BASE.with(|k| k.get())
}

/// Parses a byte count as fio reads it: `4096`, `4k` (kb_base: 4096), `4kb`, `4ki`, `4kib`
/// (the other base: 4000), `0x1000`, `1g`, or fio's arithmetic `(64*4k)`. A value fio reads
/// as something other than it says (`1.5k` is 1 to fio, `4k+512` is 4096, `4q` is 4) is
/// refused, naming fio's reading.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    let kb = kb_base();
    if t.starts_with('(') {
        return size_arithmetic(t, kb);
    }
    clean_size(t, kb)?.ok_or_else(|| size_accident(t, kb))
}

/// A size in fio's arithmetic, where fio reads what it says.
fn size_arithmetic(t: &str, kb: u64) -> Result<u64, String> {
    let e = crate::arith::evaluate(t, false, 1.0).map_err(|e| format!("arithmetic: {e}"))?;
    if kb == 1000 && e.size_units {
        return Err(format!(
            "fio's arithmetic reads its units as kb_base=1024 whatever kb_base says: it \
             takes '{t}' as {}; write the value without parentheses",
            e.fio
        ));
    }
    match e.agreed() {
        Some(v) => u64::try_from(v).map_err(|_| "it comes out negative".to_string()),
        None => Err(arithmetic_accident(t, e.fio.to_string(), e.exact)),
    }
}

fn arithmetic_accident(t: &str, fio: String, exact: f64) -> String {
    format!(
        "fio's arithmetic reads '{t}' as {fio}, not {exact}: a unit binds looser than * and / \
         ((1.5*1k) is (1.5*1)k), the fraction before a unit is cut, x/0 is x, and a number \
         without a unit goes through a 32-bit int; write it so that both agree"
    )
}

/// The value when `t` is in the grammar fio reads as written: an optional `+`, decimal
/// digits and a unit, or `0x` and hex digits alone. `Ok(None)`: not in it.
fn clean_size(t: &str, kb: u64) -> Result<Option<u64>, String> {
    let body = t.strip_prefix('+').unwrap_or(t);
    let too_large = || format!("'{t}' is too large");
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        return u64::from_str_radix(h, 16)
            .map(Some)
            .map_err(|_| too_large());
    }
    let end = body
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(body.len());
    if end == 0 {
        return Ok(None);
    }
    let Some(mult) = size_multiplier(&body[end..], kb) else {
        return Ok(None);
    };
    let n: u64 = body[..end].parse().map_err(|_| too_large())?;
    n.checked_mul(mult).map(Some).ok_or_else(too_large)
}

/// fio's units (`__get_mult_bytes`): `b` or none; `k`, `kb` and `ki` are kb_base's
/// (1024 by default), `kib` the other base's; likewise m, g, t and p.
fn size_multiplier(suffix: &str, kb: u64) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let mut chars = s.chars();
    let exp = match chars.next() {
        None => return Some(1),
        Some('b') if s.len() == 1 => return Some(1),
        Some(c) => 1 + "kmgtp".find(c)? as u32,
    };
    let base = match chars.as_str() {
        "" | "b" | "i" => kb,
        "ib" => 2024 - kb,
        _ => return None,
    };
    base.checked_pow(exp)
}

/// Why a size is refused: fio's reading of it and the reason, in one line.
fn size_accident(t: &str, kb: u64) -> String {
    let Some((v, percent)) = fio_reads_size(t, kb) else {
        return format!(
            "'{t}' is not a size: a whole number with an optional unit (b; k, kb, ki, kib; \
             m, g, t, p likewise), 0x hex, or arithmetic in parentheses"
        );
    };
    let reading = match percent {
        true => format!("{}%", u64::MAX - v),
        false => v.to_string(),
    };
    format!("fio reads '{t}' as {reading}: {}", accident_cause(t, true))
}

/// The first thing in `t` that fio's reading stops at or skips, said plainly.
fn accident_cause(t: &str, size: bool) -> String {
    let body = t.trim_start_matches(['+', '-']);
    let hex = body.starts_with("0x") || body.starts_with("0X") || t.contains("0x");
    let start = body
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(body.len());
    let rest = &body[start..];
    match rest.chars().next() {
        _ if hex => "a unit after a hex number is ignored (and a time cannot be hex)".into(),
        Some('.') => match size {
            true => "it stops at the '.' (write whole bytes, as 1536, or arithmetic, as \
                     (3*512))"
                .into(),
            false => "it stops at the '.' (write 500ms rather than 0.5)".into(),
        },
        _ if rest.contains(|c| "+-*/^%".contains(c)) => {
            format!("arithmetic needs parentheses: ({t})")
        }
        _ if rest.contains(char::is_whitespace) => "it stops at the space".into(),
        _ if t.starts_with('-') => "a size or a time cannot be negative".into(),
        _ => match size {
            true => {
                format!("'{rest}' is no unit of fio's (b; k, kb, ki, kib; m, g, t, p likewise)")
            }
            false => format!("'{rest}' is no unit of fio's (us, ms, s, m, h, d)"),
        },
    }
}

/// What fio 3.33 and 3.42 take a size option's value for (`str_to_decimal` with its
/// `get_mult_bytes`), accidents included: `Some((value, percent))` with the value as fio's
/// `--debug=parse` prints it (a percentage is `u64::MAX - N`), `None` where fio refuses it.
pub fn fio_reads_size(s: &str, kb: u64) -> Option<(u64, bool)> {
    let s = s.split(',').next().unwrap_or("");
    let mut val = match s.starts_with('(') {
        true => crate::arith::evaluate(s, false, 1.0).ok()?.fio,
        false => c_strtoll(s, s.contains("0x") || s.contains("0X"))?,
    };
    let (mult, percent) = fio_mult_bytes(s.as_bytes(), kb);
    if percent {
        return Some((u64::MAX - val as u64, true));
    }
    val = val.wrapping_mul(mult as i64);
    Some((val as u64, false))
}

/// C's `strtoll` as fio calls it: `None` where it converts nothing (or overflows upward,
/// which fio refuses).
fn c_strtoll(s: &str, hex: bool) -> Option<i64> {
    let b = s.trim_start().as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let b = match hex
        && b.len() > 2
        && b[0] == b'0'
        && (b[1] | 0x20) == b'x'
        && b[2].is_ascii_hexdigit()
    {
        true => &b[2..],
        false => b,
    };
    let radix = if hex { 16 } else { 10 };
    let n = b
        .iter()
        .take_while(|c| (**c as char).is_digit(radix))
        .count();
    if n == 0 {
        return None;
    }
    let digits = std::str::from_utf8(&b[..n]).ok()?;
    match i64::from_str_radix(digits, radix) {
        Ok(v) if neg => Some(-v),
        Ok(v) => Some(v),
        Err(_) if neg => Some(i64::MIN),
        Err(_) => None,
    }
}

/// fio's `get_mult_bytes`: skip signs and digits, then read a unit by its first letters.
fn fio_mult_bytes(s: &[u8], kb: u64) -> (u64, bool) {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let from = if s.len() < 2 {
        0
    } else {
        let (mut i, mut digit_seen) = (0, false);
        while i <= s.len() {
            let c = at(i);
            if !c.is_ascii_digit() && ((c != b'+' && c != b'-') || digit_seen) {
                break;
            }
            digit_seen |= c.is_ascii_digit();
            i += 1;
        }
        if !at(i).is_ascii_alphabetic() && at(i) != b'%' {
            return (1, false);
        }
        i
    };
    let word: Vec<u8> = s[from.min(s.len())..]
        .iter()
        .take_while(|c| !b":-,/".contains(c))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let inverted = 2024 - kb;
    let (pow, base) = match word.as_slice() {
        [b'p', b'i', b'b', ..] => (5, inverted),
        [b't', b'i', b'b', ..] => (4, inverted),
        [b'g', b'i', b'b', ..] => (3, inverted),
        [b'm', b'i', b'b', ..] => (2, inverted),
        [b'k', b'i', b'b', ..] => (1, inverted),
        [b'p', ..] => (5, kb),
        [b't', ..] => (4, kb),
        [b'g', ..] => (3, kb),
        [b'm', ..] => (2, kb),
        [b'k', ..] => (1, kb),
        [b'%', ..] => return (1, true),
        _ => (0, kb),
    };
    (base.wrapping_pow(pow), false)
}

/// What fio takes a time option's value for (`str_to_decimal` with `get_mult_time`), in
/// microseconds as `--debug=parse` prints it; `None` where fio refuses it. `seconds`: the
/// option counts in seconds without a unit (fio's `is_seconds`).
pub fn fio_reads_time(s: &str, seconds: bool) -> Option<u64> {
    let s = s.split(',').next().unwrap_or("");
    let implied = if seconds { 1e6 } else { 1.0 };
    let val = match s.starts_with('(') {
        true => {
            let e = crate::arith::evaluate(s, true, implied).ok()?.fio;
            if seconds {
                e / 1_000_000
            } else {
                e
            }
        }
        false => c_strtoll(s, s.contains("0x") || s.contains("0X"))?,
    };
    Some(val.wrapping_mul(fio_mult_time(s.as_bytes(), seconds) as i64) as u64)
}

/// fio's `get_mult_time`: skip digits and signs, then a unit (`us`/`ms` by their first two
/// letters, `s`, `m`, `h`, `d` exactly; anything else counts 1 µs).
fn fio_mult_time(s: &[u8], seconds: bool) -> u64 {
    let i = s
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'+' || **c == b'-')
        .count();
    if !s.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
        return if seconds { 1_000_000 } else { 1 };
    }
    let word = String::from_utf8_lossy(&s[i..]).to_ascii_lowercase();
    match word.as_str() {
        w if w.starts_with("us") => 1,
        w if w.starts_with("ms") => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => 1,
    }
}

/// A size or, with a trailing `%`, a share of the target (a whole percent, as fio reads it).
pub fn parse_size_or_percent(s: &str) -> Result<SizeOrPercent, String> {
    let t = s.trim();
    match t.strip_suffix('%') {
        Some(p) => {
            let digits = p.strip_prefix('+').unwrap_or(p);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(size_accident(t, kb_base()));
            }
            match digits.parse::<u32>() {
                Ok(v @ 0..=100) => Ok(SizeOrPercent::Percent(v as f64)),
                _ => Err(format!("'{s}' is not between 0% and 100%")),
            }
        }
        None => parse_size(s).map(SizeOrPercent::Bytes),
    }
}

/// A time, seconds by default: `10`, `10s`, `500ms`, `250us`, `20m`, `1h`, `1d`.
pub fn parse_time(s: &str) -> Result<Duration, String> {
    time_value(s, true)
}

/// A time given in microseconds unless a unit says otherwise (fio's `is_time` integer
/// options such as `thinktime`).
pub fn parse_time_us(s: &str) -> Result<Duration, String> {
    time_value(s, false)
}

/// A time as fio reads it, in the grammar it reads as written: whole numbers with `us`
/// (`usec`), `ms` (`msec`), `s`, `m`, `h` or `d`, any case, or arithmetic; what fio reads as
/// something else (`0.5` is 0 to fio, `10sec` 10 µs, `(1500ms)` in seconds 1 s) is refused.
fn time_value(s: &str, seconds: bool) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('(') {
        let implied = if seconds { 1e6 } else { 1.0 };
        let e = crate::arith::evaluate(t, true, implied).map_err(|e| format!("arithmetic: {e}"))?;
        let fio = fio_reads_time(t, seconds)
            .map(|v| v as i64)
            .unwrap_or(e.fio);
        return match e.agreed().filter(|v| *v == fio) {
            Some(v) => u64::try_from(v)
                .map(Duration::from_micros)
                .map_err(|_| "it comes out negative".to_string()),
            None => Err(arithmetic_accident(t, show_time(fio, seconds), e.exact)),
        };
    }
    let body = t.strip_prefix('+').unwrap_or(t);
    let end = body
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(body.len());
    let us_per: Option<u64> = match body[end..].to_ascii_lowercase().as_str() {
        "" if seconds => Some(1_000_000),
        "" | "us" | "usec" => Some(1),
        "ms" | "msec" => Some(1_000),
        "s" => Some(1_000_000),
        "m" => Some(60_000_000),
        "h" => Some(3_600_000_000),
        "d" => Some(86_400_000_000),
        _ => None,
    };
    match (end, us_per) {
        (1.., Some(per)) => {
            let n: u64 = body[..end]
                .parse()
                .map_err(|_| format!("'{t}' is too long"))?;
            n.checked_mul(per)
                .map(Duration::from_micros)
                .ok_or_else(|| format!("'{t}' is too long"))
        }
        _ => Err(match fio_reads_time(t, seconds) {
            Some(v) => format!(
                "fio reads '{t}' as {}: {}",
                show_time(v as i64, seconds),
                accident_cause(t, false)
            ),
            None => format!(
                "'{t}' is not a time: a whole number with us, ms, s, m, h or d \
                 ({} without one), or arithmetic in parentheses",
                if seconds { "seconds" } else { "microseconds" }
            ),
        }),
    }
}

/// fio's reading of a time, for an error line: whole seconds as `N s`, else `N µs`.
fn show_time(us: i64, seconds: bool) -> String {
    match seconds && us % 1_000_000 == 0 {
        true => format!("{} s", us / 1_000_000),
        false => format!("{us} µs"),
    }
}

/// fio's booleans: `1`/`0`, and the words people type.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        t => Err(match bool_accident(t) {
            // fio's check_int() reads a boolean with sscanf("%u"): the digits before
            // anything else, the rest dropped.
            Some((v, rest)) => format!(
                "fio reads '{s}' as {v}: it stops at the '{}' (write 1 or 0)",
                rest.chars().next().unwrap_or(' ')
            ),
            None => format!("'{s}' is not a boolean (use 1 or 0)"),
        }),
    }
}

/// A boolean fio reads by its leading digits (`0/1` is 0 to fio): the value and the rest it
/// drops; `None` when fio would refuse it too or the value is a plain 0 or 1.
fn bool_accident(t: &str) -> Option<(u32, &str)> {
    let end = t.find(|c: char| !c.is_ascii_digit())?;
    let v: u32 = t[..end].parse().ok()?;
    (v <= 1).then_some((v, &t[end..]))
}

/// A plain unsigned integer, also accepting size suffixes as fio does for int options.
pub fn parse_u32(s: &str) -> Result<u32, String> {
    let v = parse_size(s)?;
    u32::try_from(v).map_err(|_| format!("'{s}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boolean_fio_reads_by_its_digits_is_refused_with_fios_reading() {
        let e = parse_bool("0/1").unwrap_err();
        assert_eq!(
            e,
            "fio reads '0/1' as 0: it stops at the '/' (write 1 or 0)"
        );
        let e = parse_bool("1x").unwrap_err();
        assert!(e.starts_with("fio reads '1x' as 1"), "{e}");
        assert_eq!(
            parse_bool("maybe").unwrap_err(),
            "'maybe' is not a boolean (use 1 or 0)"
        );
        assert_eq!(parse_bool("1"), Ok(true));
    }

    #[test]
    fn sizes_follow_fio_kb_base_1024() {
        for (s, v) in [
            ("4096", 4096),
            ("4096b", 4096),
            ("4096B", 4096),
            ("4k", 4096),
            ("4kb", 4096),
            ("4kB", 4096),
            ("4K", 4096),
            ("4KB", 4096),
            ("1m", 1 << 20),
            ("1024k", 1 << 20),
            ("1mi", 1 << 20),
            ("1Mi", 1 << 20),
            ("4ki", 4096),
            ("4Ki", 4096),
            ("4kib", 4000),
            ("4KiB", 4000),
            ("1MiB", 1_000_000),
            ("1000kib", 1_000_000),
            ("1t", 1 << 40),
            ("1024g", 1 << 40),
            ("1ti", 1 << 40),
            ("1tib", 1_000_000_000_000),
            ("+4k", 4096),
            ("0X10", 16),
            ("0x1000", 4096),
            ("1g", 1 << 30),
        ] {
            assert_eq!(parse_size(s), Ok(v), "{s}");
        }
    }

    #[test]
    fn kb_base_1000_swaps_the_prefixes_as_fio() {
        with_kb_base(1000, || {
            assert_eq!(parse_size("4k"), Ok(4000));
            assert_eq!(parse_size("4KiB"), Ok(4096));
            assert_eq!(parse_size("4ki"), Ok(4000));
            assert_eq!(parse_size("1m"), Ok(1_000_000));
            assert!(parse_size("(4k)").unwrap_err().contains("kb_base=1024"));
        });
        assert_eq!(parse_size("4k"), Ok(4096));
    }

    #[test]
    fn arithmetic_in_values() {
        assert_eq!(parse_size("(64*4096)"), Ok(262144));
        assert_eq!(parse_u32("(2*8)"), Ok(16));
        assert_eq!(parse_time("(1m+30s)"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_time("(2*5)"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_time_us("(2*50)"), Ok(Duration::from_micros(100)));
        assert!(parse_size("(1-2)").unwrap_err().contains("negative"));
        assert_eq!(parse_size("(4k+512)"), Ok(4608));
        assert!(parse_size("(1.5*1k)")
            .unwrap_err()
            .contains("as 1024, not 1536"));
        assert!(parse_time("(0.5)").unwrap_err().contains("as 0 s"));
        assert!(parse_time("(1500ms)").unwrap_err().contains("as 1 s"));
        assert_eq!(
            parse_time_us("(1500ms)"),
            Ok(Duration::from_micros(1_500_000))
        );
    }

    #[test]
    fn fios_accidents_are_refused_with_fios_reading() {
        for (v, says) in [
            ("1.5k", "fio reads '1.5k' as 1: it stops at the '.'"),
            (
                "4k+512",
                "fio reads '4k+512' as 4096: arithmetic needs parentheses",
            ),
            ("4q", "fio reads '4q' as 4: 'q' is no unit"),
            ("4 k", "fio reads '4 k' as 4: it stops at the space"),
            (
                "0x10k",
                "fio reads '0x10k' as 16: a unit after a hex number",
            ),
            ("4kbytes", "fio reads '4kbytes' as 4096"),
            ("1e3", "fio reads '1e3' as 1"),
        ] {
            let e = parse_size(v).unwrap_err();
            assert!(e.starts_with(says), "{v}: {e}");
        }
        let e = parse_size_or_percent("12.5%").unwrap_err();
        assert!(e.starts_with("fio reads '12.5%' as 12:"), "{e}");
        for (v, says) in [
            ("0.5", "fio reads '0.5' as 0 s: it stops at the '.'"),
            ("1.5s", "fio reads '1.5s' as 1 s"),
            ("10sec", "fio reads '10sec' as 10 µs: 'sec' is no unit"),
            ("10min", "fio reads '10min' as 10 µs"),
            ("0x10", "fio reads '0x10' as 16 µs"),
        ] {
            let e = parse_time(v).unwrap_err();
            assert!(e.starts_with(says), "{v}: {e}");
        }
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("q4").unwrap_err().contains("is not a size"));
        assert!(parse_size("k").unwrap_err().contains("is not a size"));
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999999p")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn percentages() {
        assert_eq!(
            parse_size_or_percent("50%"),
            Ok(SizeOrPercent::Percent(50.0))
        );
        assert_eq!(
            parse_size_or_percent("1m"),
            Ok(SizeOrPercent::Bytes(1 << 20))
        );
        assert!(parse_size_or_percent("150%").is_err());
    }

    #[test]
    fn times_default_to_seconds() {
        assert_eq!(parse_time("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_time("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_time("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_time("500MSEC"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_time("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_time("20m"), Ok(Duration::from_secs(1200)));
        assert_eq!(parse_time("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_time("1d"), Ok(Duration::from_secs(86400)));
        assert!(parse_time("5parsecs")
            .unwrap_err()
            .contains("'parsecs' is no unit"));
        assert!(parse_time("soon").is_err());
    }

    #[test]
    fn booleans() {
        assert_eq!(parse_bool("1"), Ok(true));
        assert_eq!(parse_bool("0"), Ok(false));
        assert_eq!(parse_bool("true"), Ok(true));
        assert!(parse_bool("2").is_err());
    }
}
