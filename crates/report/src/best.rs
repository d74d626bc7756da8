//! Which cell of a row is marked best: a mark is a claim, so it is made only where it holds.
//! A figure whose "better" has no direction (CPU %, which is low both for an efficient path
//! and for one that did little work) is never marked; a best value is marked only when it
//! beats the runner-up beyond noise where the cells carry a measure of noise (the 95 %
//! intervals of their rounds); otherwise the cells within noise of the best are a tie.
//! The terminal's tables and the report's use this one rule.

/// Which way a figure is better, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    /// No direction that means "better" (CPU %): never marked.
    Neither,
}

/// One candidate cell: its figure and, when it was measured in rounds, the half-width of
/// its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub value: f64,
    pub half_width: Option<f64>,
}

/// What a row's cells earn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marked {
    /// Nothing: no direction, or no candidate.
    Nothing,
    /// This cell (an index into the candidates given) is best.
    Best(usize),
    /// These cells are within noise of each other at the top: none is marked, each is
    /// said to tie.
    Tie(Vec<usize>),
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
    let better_than = |a: f64, b: f64| match better {
        Better::Higher => a > b,
        Better::Lower => a < b,
        Better::Neither => false,
    };
    if better == Better::Neither {
        return Marked::Nothing;
    }
    let mut best: Option<usize> = None;
    for (i, c) in cells.iter().enumerate() {
        let Some(c) = c.filter(|c| c.value.is_finite() && c.value > 0.0) else {
            continue;
        };
        if best.is_none_or(|b| better_than(c.value, cells[b].map_or(0.0, |x| x.value))) {
            best = Some(i);
        }
    }
    let Some(b) = best else {
        return Marked::Nothing;
    };
    let top = cells[b].expect("the best is a candidate");
    // Every other candidate whose interval reaches the best's: within noise of it.
    let tied: Vec<usize> = cells
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != b)
        .filter_map(|(i, c)| Some((i, (*c)?)))
        .filter(|(_, c)| c.value.is_finite() && c.value > 0.0)
        .filter(|(_, c)| {
            let noise = top.half_width.unwrap_or(0.0) + c.half_width.unwrap_or(0.0);
            noise > 0.0 && (top.value - c.value).abs() <= noise
        })
        .map(|(i, _)| i)
        .collect();
    match tied.is_empty() {
        true => Marked::Best(b),
        false => {
            let mut all = vec![b];
            all.extend(tied);
            all.sort_unstable();
            Marked::Tie(all)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(value: f64, half: Option<f64>) -> Option<Candidate> {
        Some(Candidate {
            value,
            half_width: half,
        })
    }

    #[test]
    fn the_best_is_marked_when_nothing_measures_noise() {
        let row = [c(100.0, None), c(120.0, None), None];
        assert_eq!(mark(&row, Better::Higher), Marked::Best(1));
        assert_eq!(mark(&row, Better::Lower), Marked::Best(0));
    }

    #[test]
    fn a_figure_without_a_direction_is_never_marked() {
        let row = [c(57.0, None), c(100.0, None)];
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
    }

    #[test]
    fn cells_that_may_not_be_marked_are_skipped() {
        let row = [None, c(0.0, None), c(5.0, None)];
        assert_eq!(mark(&row, Better::Higher), Marked::Best(2));
        assert_eq!(mark(&[None, None], Better::Higher), Marked::Nothing);
    }
}
