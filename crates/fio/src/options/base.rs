//! fio's `kb_base`, `unit_base` and `significant_figures`: what `k` means in values, and how
//! the normal report prints figures. fio applies the first two before a section's other
//! options (their `prio`), so `bs=4k` reads the same wherever `kb_base` stands in the
//! section; [`fio_order`] gives that order.

use crate::options::{OptionDef, ValueKind};

/// Options fio applies first in a section (`.prio = 1` in fio's `options.c`).
const FIRST: [&str; 2] = ["kb_base", "unit_base"];

/// A section's options in the order fio applies them: `kb_base` and `unit_base` first, the
/// rest as written.
pub fn fio_order<T>(items: &[T], name: impl Fn(&T) -> &str) -> Vec<&T> {
    let (first, rest): (Vec<&T>, Vec<&T>) = items.iter().partition(|i| FIRST.contains(&name(i)));
    first.into_iter().chain(rest).collect()
}

pub static BASE_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "kb_base",
        alias: None,
        kind: ValueKind::Int,
        help: "What unit prefixes mean in values: 1024 (default, as fio: 4k, 4kb and 4ki = 4096, and only the three-letter 4kib = 4000, for old scripts) or 1000 (4k, 4kb and 4ki = 4000, 4kib = 4096). fio's arithmetic, (4k), counts 1024 either way.",
        apply: |d, v| {
            d.kb_base = match v.trim() {
                "1024" => 1024,
                "1000" => 1000,
                _ => return Err("must be 1000 or 1024".into()),
            };
            // fio prints decimal prefixes first under kb_base=1000, as it reads them.
            d.spec.numbers.si_first = d.kb_base == 1000;
            Ok(())
        },
    },
    OptionDef {
        name: "unit_base",
        alias: None,
        kind: ValueKind::Int,
        help: "Unit of bandwidth in the normal report: 0 (auto) or 8, bytes per second; 1, bits per second (Mbit/s). JSON keeps bytes, as fio's.",
        apply: |d, v| {
            d.spec.numbers.bits = match v.trim() {
                "0" | "8" => false,
                "1" => true,
                _ => return Err("must be 0, 1 or 8".into()),
            };
            Ok(())
        },
    },
    OptionDef {
        name: "significant_figures",
        alias: None,
        kind: ValueKind::Int,
        help: "Digits the normal report keeps in sizes, rates and counts, the decimal point counted (1 to 10; default 4, as fio: IOPS=27.7k).",
        apply: |d, v| {
            let n = crate::units::parse_u32(v)?;
            if !(1..=10).contains(&n) {
                return Err("must be between 1 and 10".into());
            }
            d.spec.numbers.sig_figs = n as u8;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kb_base_goes_first_the_rest_keep_their_order() {
        let opts = ["bs", "kb_base", "size", "unit_base"];
        let ordered: Vec<&str> = fio_order(&opts, |s| s).into_iter().copied().collect();
        assert_eq!(ordered, ["kb_base", "unit_base", "bs", "size"]);
    }
}
