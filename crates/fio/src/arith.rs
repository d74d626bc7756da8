//! fio's arithmetic in option values.
//!
//! Two kinds, as fio has them:
//! - A value that starts with `(` is an expression of fio's own grammar
//!   (`exp/expression-parser.y` and `.l`, fio 3.42; Debian's fio 3.33 is built without it):
//!   `+ - * / % ^`, parentheses, unary minus, decimals, hex, and unit suffixes *inside* the
//!   expression: `k`/`kb` (1024), `kib` (1000), `mb`, `mib`, `m` (minutes in a time, else
//!   MiB), `g`/`gb`, `gib`, `t`/`tb`, `p`/`pb`, `pib`, and for times `us`, `ms`, `s`, `h`, `d`,
//!   counted in microseconds. Without a unit the option's own unit applies (`implied`).
//! - A value in which a keyword (`$pagesize`, `$ncpus`, `$mb_memory`) was replaced and that
//!   has `+ - * /` is given to `bc` by fio: integer arithmetic, no units (`64*$pagesize`).
//!
//! fio's grammar is followed to the letter, precedence included: a unit binds looser than
//! `*` and `/` (`(1.5*1k)` is `(1.5*1)k`), `%` binds tighter than `^`. Each value is worked
//! out twice: as fio's parser does (its integer side, with its casts: `(1.5*1)k` is 1024,
//! `(1/0)` is 1) and exactly; [`Evaluated`] carries both, so a caller takes the value only
//! where the two agree and otherwise refuses it, naming what fio would have read.

/// A value worked out as fio's parser does (`ival`, `dval`, `has_dval`, as its
/// `PARSER_VALUE_TYPE`) beside the exact value the expression means (`x`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Val {
    i: i64,
    d: f64,
    hd: bool,
    x: f64,
}

impl Val {
    fn int(i: i64) -> Val {
        Val {
            i,
            d: i as f64,
            hd: false,
            x: i as f64,
        }
    }
    fn float(d: f64) -> Val {
        Val {
            i: c_ll(d),
            d,
            hd: true,
            x: d,
        }
    }
}

/// C's `(long long)` of a double as x86-64 does it: out of range (or NaN) is the
/// "integer indefinite" value, `i64::MIN`.
fn c_ll(d: f64) -> i64 {
    if d.is_finite() && d > -9.223_372_036_854_776e18 && d < 9.223_372_036_854_776e18 {
        d as i64
    } else {
        i64::MIN
    }
}

/// C's `(int)` of a double, likewise (`i32::MIN` when out of range).
fn c_int(d: f64) -> i32 {
    if d.is_finite() && d > -2_147_483_649.0 && d < 2_147_483_648.0 {
        d as i32
    } else {
        i32::MIN
    }
}

/// The result of an expression: fio's integer reading, the exact value, and whether it
/// named a unit (and whether that was a size unit, which fio's arithmetic reads with
/// kb_base=1024 whatever the job's `kb_base`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluated {
    /// What fio 3.42 takes: its `ival`, with the implied unit applied as fio applies it.
    pub fio: i64,
    /// What the expression means, in the same unit.
    pub exact: f64,
    pub units: bool,
    pub size_units: bool,
}

impl Evaluated {
    /// The value, when fio reads what the expression means (its fraction cut, as integer
    /// arithmetic does); `None` when fio's parser reads something else.
    pub fn agreed(&self) -> Option<i64> {
        (self.exact.is_finite() && self.fio == c_ll(self.exact.trunc())).then_some(self.fio)
    }
}

/// Evaluates fio's `( ... )` expression; `time` makes `m` minutes (else mebibytes). With no
/// unit in it, the result is multiplied by `implied` (fio: 1e6 for an option in seconds),
/// fio's reading through a C `int`, as fio does (`expression-parser.y`).
pub fn evaluate(text: &str, time: bool, implied: f64) -> Result<Evaluated, String> {
    // fio's lexer ignores everything after a ':' or ',' (and '#').
    let end = text.find([':', ',', '#']).unwrap_or(text.len());
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        at: 0,
        depth: 0,
        time,
        units: false,
        size_units: false,
        bc: false,
    };
    let v = p.expr(0)?;
    p.skip_space();
    if p.at != p.s.len() {
        return Err(format!("cannot read '{}'", &text[p.at..end]));
    }
    let (fio, exact) = match p.units {
        true => (v.i, v.x),
        false => (c_int(v.i as f64 * implied) as i64, v.x * implied),
    };
    Ok(Evaluated {
        fio,
        exact,
        units: p.units,
        size_units: p.size_units,
    })
}

/// `bc`'s integer arithmetic on a value whose keywords were replaced (`64*4096`); `None`
/// when the value is not arithmetic at all (fio hands only those to bc).
pub fn bc(text: &str) -> Option<Result<i64, String>> {
    let t = text.trim();
    let ok = |b: u8| b.is_ascii_digit() || b" +-*/%^()\t".contains(&b);
    if t.is_empty() || !t.bytes().all(ok) || !t.bytes().any(|b| b"+-*/".contains(&b)) {
        return None;
    }
    let mut p = Parser {
        s: t.as_bytes(),
        at: 0,
        depth: 0,
        time: false,
        units: false,
        size_units: false,
        bc: true,
    };
    Some(p.expr(0).and_then(|v| {
        p.skip_space();
        match p.at == p.s.len() {
            true => Ok(v.i),
            false => Err(format!("'{t}' is not arithmetic bc can do")),
        }
    }))
}

/// How deep parentheses and unary minus may nest: far past any real job (fio's own parser
/// gives up long before its stack), near enough that a hostile value is a one-line error
/// rather than a stack overflow.
const MAX_DEPTH: u32 = 256;

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    /// How deep [`Parser::unary`] is nested (every recursion passes through it).
    depth: u32,
    time: bool,
    units: bool,
    size_units: bool,
    /// bc: integers only, no unit suffixes, the usual precedence.
    bc: bool,
}

/// Where a unit binds (fio's `%right SUFFIX`, between `+ -` and `* /`).
const SUFFIX_POWER: u8 = 2;

/// Binding power of the binary operators and whether they associate to the right. fio's
/// grammar: `+ -` < unit < `* /` < `^` < `%`; bc's: `+ -` < `* / %` < `^`.
fn binding(op: u8, bc: bool) -> Option<(u8, bool)> {
    match op {
        b'+' | b'-' => Some((1, false)),
        b'*' | b'/' => Some((3, false)),
        b'%' if bc => Some((3, false)),
        b'^' => Some((4, true)),
        b'%' => Some((5, false)),
        _ => None,
    }
}

/// A unit as fio's lexer reads it: its value as fio's parser carries it (`ival`, `dval`,
/// `has_dval`), its exact value, and whether it is a size (not a time).
struct Unit {
    len: usize,
    i: i64,
    d: f64,
    hd: bool,
    x: f64,
    size: bool,
}

/// The unit at the start of `w` (lowercase letters), longest first, as flex matches.
fn unit(w: &[u8], time: bool) -> Option<Unit> {
    let size = |len, v: i64| Unit {
        len,
        i: v,
        d: v as f64,
        hd: false,
        x: v as f64,
        size: true,
    };
    let t = |len, v: i64, hd| Unit {
        len,
        i: v,
        d: v as f64,
        hd,
        x: v as f64,
        size: false,
    };
    let three = w.get(..3).unwrap_or(&[]);
    let two = w.get(..2).unwrap_or(&[]);
    Some(match (three, two, w.first()?) {
        (b"kib", _, _) => size(3, 1_000),
        (b"mib", _, _) => size(3, 1_000_000),
        (b"gib", _, _) => size(3, 1_000_000_000),
        (b"pib", _, _) => size(3, 1_000_000_000_000),
        (_, b"kb", _) => size(2, 1 << 10),
        (_, b"mb", _) => size(2, 1 << 20),
        (_, b"ms", _) => t(2, 1_000, true),
        (_, b"us", _) => t(2, 1, true),
        (_, b"gb", _) => size(2, 1 << 30),
        (_, b"tb", _) | (_, _, b't') => Unit {
            len: if two == b"tb" { 2 } else { 1 },
            // fio's lexer gives t's double one 1024 too many (1024.0^5).
            d: 1024f64.powi(5),
            ..size(1, 1 << 40)
        },
        (_, b"pb", _) => size(2, 1 << 50),
        (_, _, b'k') => size(1, 1 << 10),
        (_, _, b'g') => size(1, 1 << 30),
        (_, _, b'p') => size(1, 1 << 50),
        (_, _, b's') => t(1, 1_000_000, false),
        (_, _, b'm') if time => t(1, 60_000_000, false),
        (_, _, b'm') => size(1, 1 << 20),
        (_, _, b'd') => t(1, 86_400_000_000, false),
        (_, _, b'h') => t(1, 3_600_000_000, false),
        _ => return None,
    })
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.at < self.s.len() && (self.s[self.at] == b' ' || self.s[self.at] == b'\t') {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.s.get(self.at).copied()
    }

    fn expr(&mut self, min: u8) -> Result<Val, String> {
        let mut left = self.unary()?;
        while let Some(op) = self.peek() {
            if !self.bc && op.is_ascii_alphabetic() {
                if SUFFIX_POWER < min {
                    break;
                }
                left = self.suffixed(left)?;
                continue;
            }
            let Some((power, right_assoc)) = binding(op, self.bc) else {
                break;
            };
            if power < min.max(1) {
                break;
            }
            self.at += 1;
            let right = self.expr(if right_assoc { power } else { power + 1 })?;
            left = match self.bc {
                true => apply_bc(op, left, right)?,
                false => apply(op, left, right),
            };
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Val, String> {
        if self.depth >= MAX_DEPTH {
            return Err(format!(
                "nested more than {MAX_DEPTH} deep (parentheses or signs)"
            ));
        }
        self.depth += 1;
        let v = self.unary_here();
        self.depth -= 1;
        v
    }

    fn unary_here(&mut self) -> Result<Val, String> {
        match self.peek() {
            Some(b'-') => {
                self.at += 1;
                let v = self.unary()?;
                Ok(Val {
                    i: v.i.wrapping_neg(),
                    d: -v.d,
                    hd: v.hd,
                    x: -v.x,
                })
            }
            Some(b'(') => {
                self.at += 1;
                let v = self.expr(0)?;
                if self.peek() != Some(b')') {
                    return Err("a '(' without its ')'".into());
                }
                self.at += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(c) => Err(format!("unexpected '{}'", c as char)),
            None => Err("an expression ends too early".into()),
        }
    }

    /// A number as fio's lexer reads it: `0x` hex and whole numbers into a C `int`,
    /// decimals (`1.5`, `.5`, `1e6`, `2.5E-3`) into a double.
    fn number(&mut self) -> Result<Val, String> {
        let rest = &self.s[self.at..];
        let digits = |from: usize| {
            rest[from.min(rest.len())..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        if !self.bc && rest.len() > 2 && rest[0] == b'0' && rest[1] == b'x' {
            let n = rest[2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            if n > 0 {
                let text = std::str::from_utf8(&rest[2..2 + n]).unwrap_or("");
                self.at += 2 + n;
                return int_number(i64::from_str_radix(text, 16).ok(), text);
            }
        }
        let whole = digits(0);
        let frac = match rest.get(whole) {
            Some(b'.') if !self.bc => digits(whole + 1),
            _ => 0,
        };
        let mut len = if frac > 0 { whole + 1 + frac } else { whole };
        // An exponent (fio: `[eE][-+]*[0-9]+`), which makes the number a double.
        let mut float = frac > 0;
        if !self.bc && len > 0 && rest.get(len).is_some_and(|b| (b | 0x20) == b'e') {
            let signs = rest[len + 1..]
                .iter()
                .take_while(|b| **b == b'+' || **b == b'-')
                .count();
            let exp = digits(len + 1 + signs);
            if exp > 0 {
                len += 1 + signs + exp;
                float = true;
            }
        }
        if len == 0 {
            return Err("a '.' without digits after it".into());
        }
        let text = std::str::from_utf8(&rest[..len]).unwrap_or("");
        self.at += len;
        if float {
            // Several signs in an exponent read as their product.
            let minus = text.bytes().filter(|b| *b == b'-').count() % 2 == 1;
            let clean: String = text.chars().filter(|c| *c != '+' && *c != '-').collect();
            let (m, e) = clean.split_once(['e', 'E']).unwrap_or((&clean, "0"));
            let e = if minus {
                format!("-{e}")
            } else {
                e.to_string()
            };
            return format!("{m}e{e}")
                .parse::<f64>()
                .map(Val::float)
                .map_err(|_| format!("bad number '{text}'"));
        }
        int_number(text.parse::<i64>().ok(), text)
    }

    /// A unit after an expression multiplies it (fio's `expression SUFFIX`).
    fn suffixed(&mut self, a: Val) -> Result<Val, String> {
        let word: Vec<u8> = self.s[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .map(|b| b.to_ascii_lowercase())
            .collect();
        let u = unit(&word, self.time)
            .ok_or_else(|| format!("unknown unit '{}'", String::from_utf8_lossy(&word)))?;
        self.at += u.len;
        self.units = true;
        self.size_units |= u.size;
        Ok(Val {
            i: match !a.hd && !u.hd {
                true => a.i.wrapping_mul(u.i),
                false => c_ll(c_ll(a.d) as f64 * u.d),
            },
            d: match a.hd || u.hd {
                true => a.d * u.d,
                false => a.i.wrapping_mul(u.i) as f64,
            },
            hd: a.hd,
            x: a.x * u.x,
        })
    }
}

/// A whole number of fio's lexer, which reads it into a C `int`.
fn int_number(v: Option<i64>, text: &str) -> Result<Val, String> {
    match v {
        Some(v) if v <= i32::MAX as i64 => Ok(Val::int(v)),
        _ => Err(format!(
            "fio's arithmetic reads whole numbers only up to 2147483647, not {text} \
             (write it with a unit: 4g, 1t)"
        )),
    }
}

/// One operator as fio's parser works it (its integer and double sides, with its casts and
/// its silent divide by zero), beside the exact value.
fn apply(op: u8, a: Val, b: Val) -> Val {
    let ints = !a.hd && !b.hd;
    let arith = |i: fn(i64, i64) -> i64, d: fn(f64, f64) -> f64| Val {
        i: if ints { i(a.i, b.i) } else { c_ll(d(a.d, b.d)) },
        d: d(a.d, b.d),
        hd: a.hd,
        x: d(a.x, b.x),
    };
    match op {
        b'+' => arith(i64::wrapping_add, |x, y| x + y),
        b'-' => arith(i64::wrapping_sub, |x, y| x - y),
        b'*' => arith(i64::wrapping_mul, |x, y| x * y),
        b'/' => {
            let d = if b.d.abs() < 1e-20 { a.d } else { a.d / b.d };
            let i = match (ints, b.i) {
                (false, _) => c_ll(d),
                (true, 0) => a.i,
                (true, _) => a.i.wrapping_div(b.i),
            };
            let x = match ints {
                true => (a.x / b.x).trunc(),
                false => a.x / b.x,
            };
            Val { i, d, hd: a.hd, x }
        }
        b'%' => {
            let i = if b.i == 0 { a.i } else { a.i.wrapping_rem(b.i) };
            let d = if b.i == 0 { a.d } else { i as f64 };
            let x = match ints && b.i != 0 {
                true => (a.x as i64).wrapping_rem(b.x as i64) as f64,
                false => f64::NAN,
            };
            Val { i, d, hd: a.hd, x }
        }
        _ => {
            let d = a.d.powf(b.d);
            let i = match (ints, b.i) {
                (true, 0) => 1,
                (true, e) if e > 0 => (0..e.min(64)).fold(1i64, |p, _| p.wrapping_mul(a.i)),
                _ => c_ll(d),
            };
            Val {
                i,
                d,
                hd: a.hd,
                x: a.x.powf(b.x),
            }
        }
    }
}

/// bc's integer arithmetic, with its errors.
fn apply_bc(op: u8, a: Val, b: Val) -> Result<Val, String> {
    let too_large = || "the value is too large".to_string();
    Ok(Val::int(match op {
        b'+' => a.i.checked_add(b.i).ok_or_else(too_large)?,
        b'-' => a.i.checked_sub(b.i).ok_or_else(too_large)?,
        b'*' => a.i.checked_mul(b.i).ok_or_else(too_large)?,
        b'/' | b'%' if b.i == 0 => return Err("divide by zero".into()),
        b'/' => a.i / b.i,
        b'%' => a.i % b.i,
        _ => {
            let exp = u32::try_from(b.i).map_err(|_| too_large())?;
            a.i.checked_pow(exp).ok_or_else(too_large)?
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's reading of a size expression, asserting it is what the expression means.
    fn size(t: &str) -> i64 {
        let e = evaluate(t, false, 1.0).unwrap();
        assert_eq!(e.agreed(), Some(e.fio), "{t}: {e:?}");
        e.fio
    }

    fn fio_only(t: &str, time: bool, implied: f64) -> i64 {
        let e = evaluate(t, time, implied).unwrap();
        assert_eq!(e.agreed(), None, "{t}: {e:?}");
        e.fio
    }

    #[test]
    fn fios_grammar_with_units() {
        assert_eq!(size("(64*4096)"), 262144);
        assert_eq!(size("(4k*2)"), 8192);
        assert_eq!(size("(1m+512)"), (1 << 20) + 512);
        assert_eq!(size("(4k+512)"), 4608);
        assert_eq!(size("(1+2k)"), 2049);
        assert_eq!(size("(2*3k)"), 6144);
        assert_eq!(size("(2^10)"), 1024);
        assert_eq!(size("(10 % 4)"), 2);
        assert_eq!(size("(-2+5)"), 3);
        assert_eq!(size("(4kib)"), 4000);
        assert_eq!(size("(7/2)"), 3);
        assert_eq!(size("(2+3*4)"), 14);
        assert_eq!(size("(0x10*2)"), 32);
        assert!(evaluate("(1+)", false, 1.0).is_err());
        assert!(evaluate("(4q)", false, 1.0).is_err());
        assert!(evaluate("(4ki)", false, 1.0).is_err());
        assert!(evaluate("(3000000000)", false, 1.0).is_err());
    }

    #[test]
    fn fios_accidents_are_read_as_fio_and_flagged() {
        // A unit binds looser than '*': (1.5*1)k, whose integer side is (long long)1.5 * 1024.
        assert_eq!(fio_only("(1.5*1k)", false, 1.0), 1024);
        // fio's divide by zero leaves the left side.
        assert_eq!(fio_only("(1/0)", false, 1.0), 1);
        // Without a unit, the implied one goes through a C int.
        assert_eq!(fio_only("(3600)", true, 1e6), i32::MIN as i64);
    }

    #[test]
    fn times_are_microseconds_and_implied_units_apply_without_one() {
        let t = |s: &str, implied| evaluate(s, true, implied).unwrap().agreed().unwrap();
        assert_eq!(t("(2*5)", 1e6), 10_000_000);
        assert_eq!(t("(1m+30s)", 1e6), 90_000_000);
        assert_eq!(t("(250ms*2)", 1e6), 500_000);
        assert_eq!(t("(100us)", 1.0), 100);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = |n: usize| format!("{}4k{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(size(&deep(200)), 4096);
        for text in [deep(200_000), format!("{}1", "-".repeat(200_000))] {
            let e = evaluate(&text, false, 1.0).unwrap_err();
            assert!(e.contains("nested more than"), "{e}");
        }
        let e = bc(&format!(
            "{}1{}+1",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ));
        assert!(e.unwrap().unwrap_err().contains("nested more than"));
    }

    #[test]
    fn bc_takes_only_integer_arithmetic() {
        assert_eq!(bc("64*4096"), Some(Ok(262144)));
        assert_eq!(bc("(64*4096)"), Some(Ok(262144)));
        assert_eq!(bc("4096"), None);
        assert_eq!(bc("/dev/x-1"), None);
        assert_eq!(bc("7/2"), Some(Ok(3)));
        assert_eq!(bc("10%4*2"), Some(Ok(4)));
        assert!(bc("1/0").unwrap().is_err());
    }
}
