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

/// What a figure counts, for [`num2str`]: the suffix after the unit prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    None,
    Byte,
    BytePerSec,
    /// Bits per second (the number is given in bytes and multiplied by 8).
    BitPerSec,
}

/// The current rates as fio's ETA line shows them (`eta.c`'s `gen_eta_str`): the bandwidth
/// then the IOPS of each direction that moved, `[r=1530MiB/s,w=12.0MiB/s][r=392k,w=3072 IOPS]`,
/// at fio's 4 significant figures; empty when none did.
pub fn eta_figures(iops: &[f64; 3], bytes_per_sec: &[f64; 3]) -> String {
    let has: Vec<usize> = (0..3)
        .filter(|&d| iops[d] >= 0.5 || bytes_per_sec[d] >= 0.5)
        .collect();
    if has.is_empty() {
        return String::new();
    }
    let each = |f: &dyn Fn(usize) -> String| {
        has.iter()
            .map(|&d| format!("{}={}", ['r', 'w', 't'][d], f(d)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let bw = each(&|d| {
        num2str(
            bytes_per_sec[d].round() as u64,
            4,
            1,
            true,
            Unit::BytePerSec,
        )
    });
    let io = each(&|d| num2str(iops[d].round() as u64, 4, 1, false, Unit::None));
    format!("[{bw}][{io} IOPS]")
}

/// fio's `num2str()`: `num` (counted in units of `base`) divided by 1000 or 1024 (`pow2`)
/// until its integer part has at most `maxlen` digits, then as many decimals as still fit in
/// `maxlen` characters (the point counted), with fio's carry rounding. "27.7k", "1024KiB",
/// "427MB/s" at fio's 4 significant figures.
pub fn num2str(num: u64, maxlen: u8, base: u64, pow2: bool, unit: Unit) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if pow2 { IEC } else { SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let suffix = match unit {
        Unit::None => "",
        Unit::Byte => "B",
        Unit::BytePerSec => "B/s",
        Unit::BitPerSec => "bit/s",
    };
    let maxlen = maxlen as usize;
    let digits = |n: u64| n.to_string().len();
    let (mut post, mut base) = (0, base);
    while base > 1 {
        base /= thousand;
        post += 1;
    }
    let mut num = if unit == Unit::BitPerSec {
        num.saturating_mul(8)
    } else {
        num
    };
    let (mut modulo, mut carry) = (None, false);
    while post < SI.len() && digits(num) > maxlen {
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    if post >= SI.len() {
        post = 0;
    }
    let Some(m) = modulo else {
        return format!("{num}{}{suffix}", prefixes[post]);
    };
    let len = digits(num);
    if maxlen <= len + 1 {
        return format!("{}{}{suffix}", num + carry as u64, prefixes[post]);
    }
    let fraction = format!("{:.*}", maxlen - len - 1, m as f64 / thousand as f64);
    if fraction.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{suffix}", &fraction[2..], prefixes[post])
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

/// A latency to three significant figures, for tables that must paste into a page:
/// "8.05 µs", "81.2 µs", "812 µs", "1.20 ms" (the JSON keeps every digit).
pub fn micros3(ns: f64) -> String {
    let sig3 = |x: f64| match x {
        x if x >= 99.95 => format!("{x:.0}"),
        x if x >= 9.995 => format!("{x:.1}"),
        x => format!("{x:.2}"),
    };
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns >= 999_500.0 {
        format!("{} ms", sig3(ns / 1e6))
    } else {
        format!("{} µs", sig3(ns / 1e3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_to_three_figures() {
        let got: Vec<String> = [950.0, 8_049.0, 81_234.0, 812_340.0, 999_700.0, 1_204_000.0]
            .into_iter()
            .map(micros3)
            .collect();
        assert_eq!(
            got,
            ["950 ns", "8.05 µs", "81.2 µs", "812 µs", "1.00 ms", "1.20 ms"]
        );
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(950.0), "950");
        assert_eq!(compact(27_740.0), "27.7k");
        assert_eq!(compact(277_400.0), "277k");
        assert_eq!(compact(1_234_000.0), "1.23M");
    }

    #[test]
    fn eta_figures_as_fios_eta_line() {
        assert_eq!(
            eta_figures(&[392_000.0, 0.0, 0.0], &[1530.0 * 1048576.0, 0.0, 0.0]),
            "[r=1530MiB/s][r=392k IOPS]"
        );
        assert_eq!(
            eta_figures(&[3072.0, 3072.0, 0.0], &[12582912.0, 12582912.0, 0.0]),
            "[r=12.0MiB/s,w=12.0MiB/s][r=3072,w=3072 IOPS]"
        );
        assert_eq!(eta_figures(&[0.0; 3], &[0.0; 3]), "");
    }

    #[test]
    fn num2str_as_fio_prints_it() {
        // Worked through fio's lib/num2str.c by hand.
        assert_eq!(num2str(27_740, 4, 1, false, Unit::None), "27.7k");
        assert_eq!(num2str(1_234_000, 4, 1, false, Unit::None), "1234k");
        assert_eq!(num2str(950, 4, 1, false, Unit::None), "950");
        assert_eq!(num2str(1 << 20, 4, 1, true, Unit::Byte), "1024KiB");
        assert_eq!(num2str(1_048_576, 4, 1, false, Unit::Byte), "1049kB");
        assert_eq!(
            num2str(426_789_000, 4, 1, false, Unit::BytePerSec),
            "427MB/s"
        );
        assert_eq!(
            num2str(426_789_000, 4, 1, true, Unit::BytePerSec),
            "407MiB/s"
        );
        assert_eq!(num2str(12_345_678, 6, 1, false, Unit::None), "12346k");
        assert_eq!(num2str(12_345_678, 7, 1, false, Unit::None), "12345.7k");
        assert_eq!(
            num2str(99_960, 3, 1, false, Unit::None),
            "100k",
            "carry rounds up"
        );
        assert_eq!(
            num2str(1_000_000, 4, 1, false, Unit::BitPerSec),
            "8000kbit/s"
        );
        assert_eq!(num2str(5, 4, 1024, true, Unit::BytePerSec), "5KiB/s");
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

/// A tracked variable's name as every output shows it: without a unit, since each output
/// gives its values in its own (MB/s, µs). Runs stored before carry the stored value's unit
/// ("(bytes/s)", "(ns)") in the name, which no output shows its values in.
pub fn unitless(label: &str) -> String {
    label
        .trim_end_matches(" (bytes/s)")
        .trim_end_matches(" (ns)")
        .to_string()
}

#[cfg(test)]
mod unit_tests {
    #[test]
    fn a_tracked_name_carries_no_unit_its_values_are_not_shown_in() {
        use super::unitless;
        assert_eq!(
            unitless("128 KiB sequential write throughput (bytes/s)"),
            "128 KiB sequential write throughput"
        );
        assert_eq!(
            unitless("4 KiB random 100 % write average response time (ns)"),
            "4 KiB random 100 % write average response time"
        );
        assert_eq!(
            unitless("4 KiB random write IOPS"),
            "4 KiB random write IOPS"
        );
    }
}
