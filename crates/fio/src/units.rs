//! fio's value syntax: sizes with `kb_base=1024` prefixes (`4k` = 4096, `1m`, `1g`; `ki` =
//! 1000 — fio's default inverts SI/IEC for old scripts' sake), `0x` hex, percentages, and
//! times (`10` = 10 s, `500ms`, `20m`, `1h`, `100us`). Suffixes are case-insensitive.

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

/// A value in fio's `( ... )` arithmetic, as a non-negative count.
fn arithmetic(s: &str, time: bool, implied: f64) -> Result<u64, String> {
    // The value itself is quoted by the error that carries this reason.
    let v = crate::arith::evaluate(s, time, implied).map_err(|e| format!("arithmetic: {e}"))?;
    u64::try_from(v).map_err(|_| "it comes out negative".to_string())
}

/// Parses a byte count: `4096`, `4k`, `4KB`, `4kib` (= 4000), `0x1000`, `1g`, or fio's
/// arithmetic `(64*4k)`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    if t.starts_with('(') {
        return arithmetic(t, false, 1.0);
    }
    let (digits, rest, radix) =
        if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            let end = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
            (&h[..end], &h[end..], 16)
        } else {
            let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
            (&t[..end], &t[end..], 10)
        };
    if digits.is_empty() {
        return Err(format!("'{s}' does not start with a number"));
    }
    let n = u64::from_str_radix(digits, radix).map_err(|e| format!("'{s}': {e}"))?;
    let mult = size_multiplier(rest).ok_or_else(|| {
        format!("'{s}': unknown unit '{rest}' (use b, k, m, g, t, p, or ki, mi, ... for powers of 1000)")
    })?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("'{s}' is too large"))
}

fn size_multiplier(suffix: &str) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let s = s.strip_suffix('b').unwrap_or(&s);
    let (prefix, iec) = match s.strip_suffix('i') {
        Some(p) => (p, true),
        None => (s, false),
    };
    let exp = match prefix {
        "" if !iec => return Some(1),
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return None,
    };
    // kb_base=1024: bare prefixes are binary, the 'i' forms decimal; kb_base=1000 the
    // other way round.
    let binary = KB_BASE.with(|k| k.get()) == 1024;
    let base: u64 = if iec == binary { 1000 } else { 1024 };
    Some(base.pow(exp))
}

/// A size or, with a trailing `%`, a share of the target.
pub fn parse_size_or_percent(s: &str) -> Result<SizeOrPercent, String> {
    match s.trim().strip_suffix('%') {
        Some(p) => {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("'{s}' is not a percentage"))?;
            if !(0.0..=100.0).contains(&v) {
                return Err(format!("'{s}' is not between 0% and 100%"));
            }
            Ok(SizeOrPercent::Percent(v))
        }
        None => parse_size(s).map(SizeOrPercent::Bytes),
    }
}

/// A time, seconds by default: `10`, `10s`, `500ms`, `250us`, `20m`, `1h`, `1d`.
pub fn parse_time(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('(') {
        return arithmetic(t, true, 1e6).map(Duration::from_micros);
    }
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if end == 0 {
        return Err(format!("'{s}' does not start with a number"));
    }
    let n: u64 = t[..end].parse().map_err(|e| format!("'{s}': {e}"))?;
    let unit = t[end..].to_ascii_lowercase();
    let us_per: u64 = match unit.as_str() {
        "" | "s" | "sec" => 1_000_000,
        "ms" | "msec" => 1_000,
        "us" | "usec" => 1,
        "m" | "min" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(format!(
                "'{s}': unknown time unit '{unit}' (use us, ms, s, m, h or d)"
            ))
        }
    };
    n.checked_mul(us_per)
        .map(Duration::from_micros)
        .ok_or_else(|| format!("'{s}' is too long"))
}

/// A time given in microseconds unless a unit says otherwise (fio's `is_time` integer
/// options such as `thinktime`).
pub fn parse_time_us(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('(') {
        return arithmetic(t, true, 1.0).map(Duration::from_micros);
    }
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return t
            .parse()
            .map(Duration::from_micros)
            .map_err(|e| format!("'{s}': {e}"));
    }
    parse_time(s)
}

/// fio's booleans: `1`/`0`, and the words people type.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("'{s}' is not a boolean (use 1 or 0)")),
    }
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
            ("1mi", 1_000_000),
            ("1000ki", 1_000_000),
            ("1t", 1 << 40),
            ("1024g", 1 << 40),
            ("1ti", 1_000_000_000_000),
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
            assert_eq!(parse_size("1m"), Ok(1_000_000));
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
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("4q").unwrap_err().contains("unknown unit 'q'"));
        assert!(parse_size("k")
            .unwrap_err()
            .contains("does not start with a number"));
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
            .contains("unknown time unit"));
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
