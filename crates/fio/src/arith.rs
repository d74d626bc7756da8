//! fio's arithmetic in option values.
//!
//! Two kinds, as fio has them:
//! - A value that starts with `(` is an expression of fio's own grammar
//!   (`exp/expression-parser.y`): `+ - * / % ^`, parentheses, unary minus, decimals, hex,
//!   and unit suffixes *inside* the expression: `k`/`kb` (1024), `kib` (1000), `m`, `g`,
//!   `t`, `p` likewise, and for times `us`, `ms`, `s`, `m` (minutes), `h`, `d`, counted in
//!   microseconds. Without a unit the option's own unit applies (`implied`).
//! - A value in which a keyword (`$pagesize`, `$ncpus`, `$mb_memory`) was replaced and that
//!   has `+ - * /` is given to `bc` by fio: integer arithmetic, no units (`64*$pagesize`).

/// A value worked out: fio keeps an integer and a float side by side, and uses the float
/// once any operand had a fraction.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Val {
    i: i64,
    f: f64,
    frac: bool,
}

impl Val {
    fn int(i: i64) -> Val {
        Val {
            i,
            f: i as f64,
            frac: false,
        }
    }
    fn float(f: f64) -> Val {
        Val {
            i: f as i64,
            f,
            frac: true,
        }
    }
}

/// The result of an expression: its integer value, and whether it named a unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluated {
    pub value: i64,
    pub units: bool,
}

/// Evaluates fio's `( ... )` expression; `time` makes `m` minutes (else mebibytes). With no
/// unit in it, the result is multiplied by `implied` (fio: 1e6 for an option in seconds).
pub fn evaluate(text: &str, time: bool, implied: f64) -> Result<i64, String> {
    let e = evaluate_units(text, time)?;
    Ok(match e.units {
        true => e.value,
        false => (e.value as f64 * implied) as i64,
    })
}

/// Evaluates without applying an implied unit.
pub fn evaluate_units(text: &str, time: bool) -> Result<Evaluated, String> {
    // fio's lexer ignores everything after a ':' or ',' (and '#').
    let end = text.find([':', ',', '#']).unwrap_or(text.len());
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        at: 0,
        depth: 0,
        time,
        units: false,
        bc: false,
    };
    let v = p.expr(0)?;
    p.skip_space();
    if p.at != p.s.len() {
        return Err(format!("cannot read '{}'", &text[p.at..end]));
    }
    Ok(Evaluated {
        value: if v.frac { v.f as i64 } else { v.i },
        units: p.units,
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
    /// bc: integers only, no unit suffixes.
    bc: bool,
}

/// Binding power of the binary operators (fio's grammar: `+ -` < `* / %` < `^`).
fn binding(op: u8) -> Option<(u8, bool)> {
    match op {
        b'+' | b'-' => Some((1, false)),
        b'*' | b'/' | b'%' => Some((2, false)),
        b'^' => Some((3, true)),
        _ => None,
    }
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
            let Some((power, right_assoc)) = binding(op) else {
                break;
            };
            if power < min.max(1) {
                break;
            }
            self.at += 1;
            let right = self.expr(if right_assoc { power } else { power + 1 })?;
            left = apply(op, left, right)?;
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
                    i: -v.i,
                    f: -v.f,
                    frac: v.frac,
                })
            }
            Some(b'(') => {
                self.at += 1;
                let v = self.expr(0)?;
                if self.peek() != Some(b')') {
                    return Err("a '(' without its ')'".into());
                }
                self.at += 1;
                self.suffixed(v)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let v = self.number()?;
                self.suffixed(v)
            }
            Some(c) => Err(format!("unexpected '{}'", c as char)),
            None => Err("an expression ends too early".into()),
        }
    }

    fn number(&mut self) -> Result<Val, String> {
        let rest = &self.s[self.at..];
        if !self.bc && rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
            let n = rest[2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            let digits = std::str::from_utf8(&rest[2..2 + n]).unwrap_or("");
            self.at += 2 + n;
            return i64::from_str_radix(digits, 16)
                .map(Val::int)
                .map_err(|e| format!("bad number: {e}"));
        }
        let n = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || (!self.bc && **b == b'.'))
            .count();
        let mut len = n;
        // A float's exponent: 1e6, 2.5E-3.
        if !self.bc && rest.get(n).is_some_and(|b| (b | 0x20) == b'e') {
            let sign = usize::from(rest.get(n + 1).is_some_and(|b| *b == b'+' || *b == b'-'));
            let digits = rest[n + 1 + sign..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 0 {
                len = n + 1 + sign + digits;
            }
        }
        let text = std::str::from_utf8(&rest[..len]).unwrap_or("");
        self.at += len;
        if text.contains(['.', 'e', 'E']) {
            text.parse::<f64>()
                .map(Val::float)
                .map_err(|_| format!("bad number '{text}'"))
        } else {
            text.parse::<i64>()
                .map(Val::int)
                .map_err(|_| format!("bad number '{text}'"))
        }
    }

    /// A unit after a number or a parenthesis multiplies it (fio's `expression SUFFIX`).
    fn suffixed(&mut self, v: Val) -> Result<Val, String> {
        if self.bc {
            return Ok(v);
        }
        let rest = &self.s[self.at..];
        let word: Vec<u8> = rest
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .map(|b| b.to_ascii_lowercase())
            .collect();
        if word.is_empty() {
            return Ok(v);
        }
        let mult: i64 = match word.as_slice() {
            b"k" | b"kb" => 1 << 10,
            b"mb" => 1 << 20,
            b"m" if self.time => 60_000_000,
            b"m" => 1 << 20,
            b"g" | b"gb" => 1 << 30,
            b"t" | b"tb" => 1 << 40,
            b"p" | b"pb" => 1 << 50,
            b"kib" => 1_000,
            b"mib" => 1_000_000,
            b"gib" => 1_000_000_000,
            b"pib" => 1_000_000_000_000,
            b"us" => 1,
            b"ms" => 1_000,
            b"s" => 1_000_000,
            b"h" => 3_600_000_000,
            b"d" => 86_400_000_000,
            _ => return Err(format!("unknown unit '{}'", String::from_utf8_lossy(&word))),
        };
        self.at += word.len();
        self.units = true;
        Ok(match v.frac {
            false => Val::int(v.i.checked_mul(mult).ok_or("the value is too large")?),
            true => Val::float(v.f * mult as f64),
        })
    }
}

fn apply(op: u8, a: Val, b: Val) -> Result<Val, String> {
    let frac = a.frac || b.frac;
    let too_large = || "the value is too large".to_string();
    Ok(match op {
        b'+' if !frac => Val::int(a.i.checked_add(b.i).ok_or_else(too_large)?),
        b'-' if !frac => Val::int(a.i.checked_sub(b.i).ok_or_else(too_large)?),
        b'*' if !frac => Val::int(a.i.checked_mul(b.i).ok_or_else(too_large)?),
        b'+' => Val::float(a.f + b.f),
        b'-' => Val::float(a.f - b.f),
        b'*' => Val::float(a.f * b.f),
        b'/' if b.f.abs() < 1e-20 => return Err("divide by zero".into()),
        b'/' if !frac => Val::int(a.i / b.i),
        b'/' => Val::float(a.f / b.f),
        b'%' if frac => return Err("modulo on floats".into()),
        b'%' if b.i == 0 => return Err("divide by zero".into()),
        b'%' => Val::int(a.i % b.i),
        b'^' if !frac && b.i >= 0 => {
            let exp = u32::try_from(b.i).map_err(|_| too_large())?;
            Val::int(a.i.checked_pow(exp).ok_or_else(too_large)?)
        }
        b'^' => Val::float(a.f.powf(b.f)),
        _ => unreachable!("binding() admits only these operators"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(t: &str) -> i64 {
        evaluate(t, false, 1.0).unwrap()
    }

    #[test]
    fn fios_grammar_with_units() {
        assert_eq!(size("(64*4096)"), 262144);
        assert_eq!(size("(4k*2)"), 8192);
        assert_eq!(size("(1m+512)"), (1 << 20) + 512);
        assert_eq!(size("(2^10)"), 1024);
        assert_eq!(size("(10 % 4)"), 2);
        assert_eq!(size("(-2+5)"), 3);
        assert_eq!(size("(1.5*1k)"), 1536);
        assert_eq!(size("(4kib)"), 4000);
        assert_eq!(size("(7/2)"), 3);
        assert_eq!(size("(2+3*4)"), 14);
        assert_eq!(size("(0x10*2)"), 32);
        assert!(evaluate("(1/0)", false, 1.0).is_err());
        assert!(evaluate("(1+)", false, 1.0).is_err());
        assert!(evaluate("(4q)", false, 1.0).is_err());
    }

    #[test]
    fn times_are_microseconds_and_implied_units_apply_without_one() {
        // runtime=(2*5): seconds implied.
        assert_eq!(evaluate("(2*5)", true, 1e6).unwrap(), 10_000_000);
        assert_eq!(evaluate("(1m+30s)", true, 1e6).unwrap(), 90_000_000);
        assert_eq!(evaluate("(250ms*2)", true, 1e6).unwrap(), 500_000);
        assert_eq!(evaluate("(100us)", true, 1.0).unwrap(), 100);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = |n: usize| format!("{}4k{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(evaluate(&deep(200), false, 1.0), Ok(4096));
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
        assert!(bc("1/0").unwrap().is_err());
    }
}
