//! Markdown tables with padded columns: readable in a terminal, pasteable into a review.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table: headers, then rows of cells (shorter rows are padded with blanks).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub align: Vec<Align>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table whose first column is left-aligned and the rest right-aligned (labels, then
    /// numbers).
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Table {
        let headers: Vec<String> = headers.into_iter().map(Into::into).collect();
        let align = (0..headers.len())
            .map(|i| if i == 0 { Align::Left } else { Align::Right })
            .collect();
        Table {
            headers,
            align,
            rows: Vec::new(),
        }
    }

    /// Every column left-aligned (text tables such as facts).
    pub fn all_left(mut self) -> Table {
        self.align.iter_mut().for_each(|a| *a = Align::Left);
        self
    }

    /// Column `i` left-aligned.
    pub fn left(mut self, i: usize) -> Table {
        if let Some(a) = self.align.get_mut(i) {
            *a = Align::Left;
        }
        self
    }

    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    pub fn render(&self) -> String {
        let n = self.headers.len();
        let width = |i: usize| {
            self.rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain([self.headers[i].chars().count(), 3])
                .max()
                .unwrap_or(3)
        };
        let widths: Vec<usize> = (0..n).map(width).collect();
        let line = |cells: &dyn Fn(usize) -> String| {
            let mut s = String::from("|");
            for (i, w) in widths.iter().enumerate() {
                let c = cells(i);
                let pad = w.saturating_sub(c.chars().count());
                match self.align[i] {
                    Align::Left => s.push_str(&format!(" {c}{} |", " ".repeat(pad))),
                    Align::Right => s.push_str(&format!(" {}{c} |", " ".repeat(pad))),
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&|i| self.headers[i].clone());
        out.push_str(&line(&|i| match self.align[i] {
            Align::Left => "-".repeat(widths[i]),
            Align::Right => format!("{}:", "-".repeat(widths[i] - 1)),
        }));
        for r in &self.rows {
            out.push_str(&line(&|i| r.get(i).cloned().unwrap_or_default()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_aligns() {
        let mut t = Table::new(["QD", "IOPS"]);
        t.row(["1", "12.3k"]);
        t.row(["16"]);
        assert_eq!(
            t.render(),
            "| QD  |  IOPS |\n| --- | ----: |\n| 1   | 12.3k |\n| 16  |       |\n"
        );
    }
}
