//! Number formatting shared by the reports: fio's compact counts (277k, 1.2M), binary and
//! decimal bandwidth, and latencies in the unit that keeps them readable.

/// fio-style compact number with 3 significant digits: 950, 27.7k, 277k, 1.23M.
pub fn compact(v: f64) -> String {
    let (x, suffix) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if suffix.is_empty() {
        format!("{}", x.round() as u64)
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    format!("{s}{suffix}")
}

/// Bytes in binary units: 4096 → "4096B", 10.6 GiB → "10.6GiB".
pub fn bytes_binary(b: f64) -> String {
    scaled(b, 1024.0, ["B", "KiB", "MiB", "GiB", "TiB"])
}

/// Bytes in decimal units: "1135MB".
pub fn bytes_decimal(b: f64) -> String {
    scaled(b, 1000.0, ["B", "kB", "MB", "GB", "TB"])
}

/// Steps up a unit while the number stays at least 10 of the next one, as fio does.
fn scaled(b: f64, base: f64, units: [&str; 5]) -> String {
    let mut x = b;
    let mut i = 0;
    while x >= base * 10.0 && i < units.len() - 1 {
        x /= base;
        i += 1;
    }
    if x >= 100.0 || i == 0 {
        format!("{:.0}{}", x, units[i])
    } else {
        format!("{:.1}{}", x, units[i])
    }
}

/// The unit fio would print a latency block in, given its smallest value in ns.
pub fn latency_unit(min_ns: f64) -> (&'static str, f64) {
    if min_ns >= 10_000_000.0 {
        ("msec", 1e6)
    } else if min_ns >= 10_000.0 {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
}

/// A latency in microseconds with two decimals, as the reviews quote them: "10.17 µs".
pub fn micros(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} µs", ns / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(950.0), "950");
        assert_eq!(compact(27_740.0), "27.7k");
        assert_eq!(compact(277_400.0), "277k");
        assert_eq!(compact(1_234_000.0), "1.23M");
    }

    #[test]
    fn byte_units() {
        assert_eq!(bytes_binary(4096.0), "4096B");
        assert_eq!(bytes_binary(1082.0 * 1024.0 * 1024.0), "1082MiB");
        assert_eq!(bytes_decimal(1_135_000_000.0), "1135MB");
        assert_eq!(bytes_binary(10.6 * 1024.0 * 1024.0 * 1024.0), "10.6GiB");
    }

    #[test]
    fn latency_units_and_micros() {
        assert_eq!(latency_unit(2_500.0).0, "nsec");
        assert_eq!(latency_unit(25_000.0).0, "usec");
        assert_eq!(latency_unit(25_000_000.0).0, "msec");
        assert_eq!(micros(10_170.0), "10.17 µs");
        assert_eq!(micros(2_500_000.0), "2.50 ms");
        assert_eq!(micros(35.4), "35 ns");
    }
}
