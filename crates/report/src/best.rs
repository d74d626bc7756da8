//! Which cell of a row is marked best: a mark is a claim, so it is made only where the row
//! carries the evidence that it holds.
//!
//! - A figure whose "better" has no direction (CPU %, low both for an efficient path and for
//!   one that did little work) is never marked.
//! - Every candidate needs a measure of its noise: the 95 % interval of its rounds. A row
//!   where a cell was measured once is not judged at all ([`Unjudged::NoInterval`]): one run
//!   of each cell says nothing of how far the next would be (on zram, the same kernel path
//!   under two names came out 91.1k against 77.1k in one run and 105k against 106k in the
//!   next).
//! - A tail percentile is judged only where every cell has at least [`MIN_BEYOND`] I/Os
//!   beyond it ([`Unjudged::ThinTail`]): the 99.999th percentile of a million I/Os is the
//!   tenth slowest, and one scheduler hiccup more or less moves it.
//! - The best is marked when it beats the runner-up beyond both intervals; the cells within
//!   them tie.
//!
//! The terminal's tables and the report's use this one rule, and [`legend`] says what the
//! marks of a table mean for the run it shows.

/// Which way a figure is better, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    /// No direction that means "better" (CPU %): never marked.
    Neither,
}

/// The fewest I/Os beyond a tail percentile for it to be judged: with k samples beyond it,
/// the percentile's own relative sampling error is about 1/√k (18 % at 30).
pub const MIN_BEYOND: f64 = 30.0;

/// One candidate cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub value: f64,
    /// Its 95 % interval over rounds (low, high); `None` for a cell measured once.
    pub interval: Option<(f64, f64)>,
    /// For a tail percentile, how many I/Os lay beyond it (the cell's I/Os × (1 − q));
    /// `None` for any other figure.
    pub beyond: Option<f64>,
}

impl Candidate {
    /// A cell with its interval (if it has one), not a tail percentile.
    pub fn new(value: f64, interval: Option<(f64, f64)>) -> Candidate {
        Candidate {
            value,
            interval,
            beyond: None,
        }
    }

    /// A cell of percentile `q` (99.999) measured over `ios` I/Os.
    pub fn tail(self, q: f64, ios: f64) -> Candidate {
        Candidate {
            beyond: Some(beyond(q, ios)),
            ..self
        }
    }
}

/// How many of `ios` I/Os lie beyond percentile `q`.
pub fn beyond(q: f64, ios: f64) -> f64 {
    ios * (100.0 - q) / 100.0
}

/// Why a row's cells were not judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unjudged {
    /// A candidate was measured once: no interval.
    NoInterval,
    /// A tail percentile with fewer than [`MIN_BEYOND`] I/Os beyond it in some cell (the
    /// fewest).
    ThinTail { fewest: f64 },
}

/// What a row's cells earn.
#[derive(Debug, Clone, PartialEq)]
pub enum Marked {
    /// Nothing: no direction, or fewer than two candidates.
    Nothing,
    /// This cell (an index into the candidates given) is best.
    Best(usize),
    /// These cells are within noise of each other at the top: none is marked, each is
    /// said to tie.
    Tie(Vec<usize>),
    /// The row lacks the evidence a mark needs.
    Unjudged(Unjudged),
}

impl Marked {
    pub fn is_best(&self, i: usize) -> bool {
        *self == Marked::Best(i)
    }

    pub fn ties(&self, i: usize) -> bool {
        matches!(self, Marked::Tie(v) if v.contains(&i))
    }
}

/// The mark of a row of cells (`None`: a cell that may not be marked: n/a, fell back to
/// another path, does no I/O, or has no figure).
pub fn mark(cells: &[Option<Candidate>], better: Better) -> Marked {
    if better == Better::Neither {
        return Marked::Nothing;
    }
    let live: Vec<(usize, Candidate)> = cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((i, (*c)?)))
        .filter(|(_, c)| c.value.is_finite() && c.value > 0.0)
        .collect();
    if live.len() < 2 {
        return Marked::Nothing;
    }
    let fewest = live
        .iter()
        .filter_map(|(_, c)| c.beyond)
        .fold(f64::INFINITY, f64::min);
    if fewest < MIN_BEYOND {
        return Marked::Unjudged(Unjudged::ThinTail { fewest });
    }
    if live.iter().any(|(_, c)| c.interval.is_none()) {
        return Marked::Unjudged(Unjudged::NoInterval);
    }
    let better_than = |a: f64, b: f64| match better {
        Better::Higher => a > b,
        _ => a < b,
    };
    let (b, top) = live
        .iter()
        .copied()
        .reduce(|best, c| match better_than(c.1.value, best.1.value) {
            true => c,
            false => best,
        })
        .expect("two candidates");
    let span = |c: &Candidate| c.interval.unwrap_or((c.value, c.value));
    // Every other candidate whose interval reaches the best's: within noise of it.
    let overlap = |a: &Candidate, c: &Candidate| {
        let ((al, ah), (cl, ch)) = (span(a), span(c));
        cl <= ah && al <= ch
    };
    let mut tied: Vec<usize> = live
        .iter()
        .filter(|(i, c)| *i != b && overlap(&top, c))
        .map(|(i, _)| *i)
        .collect();
    match tied.is_empty() {
        true => Marked::Best(b),
        false => {
            tied.push(b);
            tied.sort_unstable();
            Marked::Tie(tied)
        }
    }
}

/// What a table's marks mean for this run, and why a row went unmarked: one sentence per
/// kind of row, from the marks the table's rows earned (`rows`: each row's title and mark;
/// `rounds`: how many rounds its cells were measured in).
pub fn legend(rows: &[(&str, &Marked)], rounds: usize) -> Vec<String> {
    let mut out = Vec::new();
    if rows
        .iter()
        .any(|(_, m)| matches!(m, Marked::Best(_) | Marked::Tie(_)))
    {
        out.push(format!(
            "Marks: bold is best beyond the 95 % intervals of the cells' {rounds} rounds; \
             italic ties with it (the intervals overlap)."
        ));
    }
    let titles = |want: &dyn Fn(&Marked) -> bool| {
        let mut t: Vec<&str> = Vec::new();
        for (title, _) in rows.iter().filter(|(_, m)| want(m)) {
            if !t.contains(title) {
                t.push(title);
            }
        }
        t
    };
    let unmeasured = titles(&|m| *m == Marked::Unjudged(Unjudged::NoInterval));
    match (unmeasured.is_empty(), rounds) {
        (true, _) => {}
        (false, 0 | 1) => out.push(
            "Nothing marked: each cell was measured once, which gives no interval \
             (--repeat 2 or more, or leave --repeat out for three rounds)."
                .to_string(),
        ),
        (false, _) => out.push(format!(
            "{} not marked: the rounds keep no interval of it.",
            unmeasured.join(", ")
        )),
    }
    for title in titles(&|m| matches!(m, Marked::Unjudged(Unjudged::ThinTail { .. }))) {
        let fewest = rows
            .iter()
            .filter(|(t, _)| *t == title)
            .filter_map(|(_, m)| match m {
                Marked::Unjudged(Unjudged::ThinTail { fewest }) => Some(*fewest),
                _ => None,
            })
            .fold(f64::INFINITY, f64::min);
        out.push(format!(
            "{title} not marked: a cell had only {} I/Os beyond it (a mark needs {MIN_BEYOND}).",
            (fewest + 1e-6).floor(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell with a symmetric interval of half-width `half`.
    fn c(value: f64, half: Option<f64>) -> Option<Candidate> {
        Some(Candidate::new(value, half.map(|h| (value - h, value + h))))
    }

    #[test]
    fn nothing_is_marked_without_intervals() {
        let row = [c(100.0, None), c(120.0, None), None];
        assert_eq!(
            mark(&row, Better::Higher),
            Marked::Unjudged(Unjudged::NoInterval)
        );
        // One cell with rounds does not make the other's single run evidence.
        let row = [c(100.0, Some(1.0)), c(120.0, None)];
        assert_eq!(
            mark(&row, Better::Lower),
            Marked::Unjudged(Unjudged::NoInterval)
        );
    }

    #[test]
    fn a_figure_without_a_direction_is_never_marked() {
        let row = [c(57.0, Some(1.0)), c(100.0, Some(1.0))];
        assert_eq!(mark(&row, Better::Neither), Marked::Nothing);
    }

    #[test]
    fn cells_within_each_others_intervals_tie() {
        // 120 ± 15 against 110 ± 2: the gap (10) is inside the noise (17).
        let row = [
            c(110.0, Some(2.0)),
            c(120.0, Some(15.0)),
            c(50.0, Some(1.0)),
        ];
        assert_eq!(mark(&row, Better::Higher), Marked::Tie(vec![0, 1]));
        // 120 ± 5 against 110 ± 2: beyond the noise, marked.
        let row = [c(110.0, Some(2.0)), c(120.0, Some(5.0))];
        assert_eq!(mark(&row, Better::Higher), Marked::Best(1));
        // Rounds that agreed exactly still are an interval (of zero width).
        let row = [c(110.0, Some(0.0)), c(120.0, Some(0.0))];
        assert_eq!(mark(&row, Better::Lower), Marked::Best(0));
        // Intervals from the log scale are wider above than below: 120 [100, 144] against
        // 95 [80, 113] overlap above the lower cell's mean, so they tie.
        let row = [
            Some(Candidate::new(95.0, Some((80.0, 113.0)))),
            Some(Candidate::new(120.0, Some((100.0, 144.0)))),
        ];
        assert_eq!(mark(&row, Better::Higher), Marked::Tie(vec![0, 1]));
    }

    #[test]
    fn cells_that_may_not_be_marked_are_skipped() {
        let row = [None, c(0.0, None), c(5.0, Some(1.0)), c(9.0, Some(1.0))];
        assert_eq!(mark(&row, Better::Higher), Marked::Best(3));
        assert_eq!(mark(&[None, None], Better::Higher), Marked::Nothing);
        // One candidate is best of nothing.
        assert_eq!(
            mark(&[None, c(5.0, Some(1.0))], Better::Higher),
            Marked::Nothing
        );
    }

    #[test]
    fn a_tail_needs_tens_of_ios_beyond_it() {
        // A second at 400k IOPS: 4 I/Os beyond the 99.999th percentile.
        let t =
            |v: f64, ios: f64| Some(Candidate::new(v, Some((v - 0.1, v + 0.1))).tail(99.999, ios));
        let row = [t(70.0, 400_000.0), t(90.0, 3_000_000.0)];
        assert!(matches!(
            mark(&row, Better::Lower),
            Marked::Unjudged(Unjudged::ThinTail { fewest }) if (fewest - 4.0).abs() < 1e-6
        ));
        let row = [t(70.0, 3_000_000.0), t(90.0, 3_100_000.0)];
        assert_eq!(mark(&row, Better::Lower), Marked::Best(0));
        let legend = legend(
            &[(
                "p99.999",
                &Marked::Unjudged(Unjudged::ThinTail { fewest: 4.0 }),
            )],
            3,
        );
        assert_eq!(
            legend,
            ["p99.999 not marked: a cell had only 4 I/Os beyond it (a mark needs 30)."]
        );
    }
}
