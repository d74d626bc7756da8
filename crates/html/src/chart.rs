//! What a chart shows, free of how it is drawn: the sections build these typed charts from
//! stored runs and hand them to [`crate::plot`], which draws them with plotly.js. A chart
//! also knows its numbers as a table (the "Table view" under every chart).

use std::fmt::Write as _;

use iolab_report::format::{compact, micros};

use crate::reduce::Reduced;

/// How values map onto an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleKind {
    /// Linear from zero: a rate or a latency, never exaggerated by a cut axis.
    Linear,
    /// Linear over the data alone: an index (the rounds of a measurement window) whose
    /// zero means nothing.
    LinearFit,
    Log10,
    /// A logarithmic axis whose ticks are powers of two (queue depths, transfer sizes).
    Log2,
    /// Percentiles 0 < p < 100, spaced by their nines: p maps to −log₁₀(1 − p/100), so 90, 99,
    /// 99.9 … are evenly spaced as in the PC Perspective charts.
    Nines,
}

impl ScaleKind {
    /// The value where the axis is drawn (the nines axis' transform; others as they are);
    /// `None` where the axis cannot show it (zero or negative on a log axis, p outside
    /// (0, 100) on the nines axis).
    pub fn transform(self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self {
            ScaleKind::Linear | ScaleKind::LinearFit => Some(v),
            ScaleKind::Log10 | ScaleKind::Log2 => (v > 0.0).then_some(v),
            ScaleKind::Nines => (v > 0.0 && v < 100.0).then(|| -(1.0 - v / 100.0).log10()),
        }
    }
}

/// How an axis' values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// 277k, 1.2M
    Count,
    /// A latency given in ns: 850 ns, 10.17 µs, 1.20 ms
    Nanos,
    /// A size in bytes: 512 B, 4 KiB, 1 MiB
    Bytes,
    /// A plain number with up to 3 significant digits
    Plain,
    /// A percentile, every digit kept: 99.999
    Percentile,
    /// A share of a whole, given as a fraction: 42.0%
    Share,
}

/// A latency for an axis tick: as few digits as the value needs (`100 µs`, `2.5 ms`).
fn short_ns(ns: f64) -> String {
    let (v, u) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!("{} {u}", plain(v))
}

impl Format {
    /// An axis tick's label: short.
    pub fn tick(self, v: f64) -> String {
        match self {
            Format::Nanos => short_ns(v),
            f => f.apply(v),
        }
    }

    /// A value as the hover text and table view give it: full precision.
    pub fn apply(self, v: f64) -> String {
        match self {
            Format::Count => compact(v),
            Format::Nanos => micros(v),
            Format::Bytes => size_label(v),
            Format::Plain => plain(v),
            Format::Percentile => {
                let s = format!("{v:.6}");
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            }
            Format::Share => format!("{:.1}%", v * 100.0),
        }
    }
}

/// A number with as many digits as it needs, up to three significant ones.
pub fn plain(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1000.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{:.3}", v)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// 512 B, 4 KiB, 1 MiB.
pub fn size_label(b: f64) -> String {
    let (v, u) = if b >= (1 << 30) as f64 {
        (b / (1u64 << 30) as f64, "GiB")
    } else if b >= (1 << 20) as f64 {
        (b / (1 << 20) as f64, "MiB")
    } else if b >= 1024.0 {
        (b / 1024.0, "KiB")
    } else {
        (b, "B")
    };
    format!("{} {u}", plain(v))
}

/// Text for HTML: `&`, `<`, `>` and `"` escaped.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Ten colours that stay apart for the colour-blind (Tableau 10).
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// With the unit: "Queue depth", "Latency (µs)"...
    pub title: String,
    pub scale: ScaleKind,
    pub format: Format,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Dashed: a second (third...) run overlaid on the first.
    pub dashed: bool,
}

/// A vertical mark at `x` with a label (the saturation point).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub label: String,
}

/// Lines (or points) of several series over two axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Unique in the page; also the file name when saved.
    pub id: String,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub marks: Vec<Mark>,
    /// Join each series' points with a line (in x order), without a marker per point.
    pub lines: bool,
    /// Offer a linear/logarithmic switch on the y axis (starting as `y.scale` says).
    pub y_switch: bool,
    /// A label beside each point, per series in `series`' order (empty: none). A series with
    /// labels is joined in its own order, not in x order (a demand-intensity curve walks its
    /// queue depths, whatever IOPS each gave).
    pub labels: Vec<Vec<String>>,
}

impl Chart {
    /// A chart of connected points, without marks.
    pub fn lines(id: &str, title: &str, x: Axis, y: Axis, series: Vec<Series>) -> Chart {
        Chart {
            id: id.into(),
            title: title.into(),
            x,
            y,
            series,
            marks: Vec::new(),
            lines: true,
            y_switch: false,
            labels: Vec::new(),
        }
    }

    /// Points the chart can draw (those its axes can show), before any reduction.
    pub fn drawable(&self) -> usize {
        self.series
            .iter()
            .flat_map(|s| &s.points)
            .filter(|(x, y)| {
                self.x.scale.transform(*x).is_some() && self.y.scale.transform(*y).is_some()
            })
            .count()
    }

    /// The chart's numbers as an HTML table: x, then one column per series. A chart drawn
    /// reduced tables what it draws (each bucket's min–max): the page stays bounded, and the
    /// store keeps every point.
    pub fn table(&self, reduced: Option<&Reduced>) -> String {
        if let Some(r) = reduced {
            return r.table(self);
        }
        let mut xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let mut t = String::from("<table class=\"data\"><thead><tr>");
        let _ = write!(t, "<th>{}</th>", esc(&self.x.title));
        for s in &self.series {
            let _ = write!(t, "<th>{}</th>", esc(&s.name));
        }
        t.push_str("</tr></thead><tbody>");
        // Each series' values by x, looked up once per cell without a scan.
        let by_x: Vec<std::collections::HashMap<u64, f64>> = self
            .series
            .iter()
            .map(|s| s.points.iter().map(|p| (p.0.to_bits(), p.1)).collect())
            .collect();
        for x in xs {
            let _ = write!(t, "<tr><td>{}</td>", esc(&self.x.format.apply(x)));
            for m in &by_x {
                let v = m.get(&x.to_bits()).map(|v| self.y.format.apply(*v));
                let _ = write!(t, "<td>{}</td>", esc(&v.unwrap_or_default()));
            }
            t.push_str("</tr>");
        }
        t.push_str("</tbody></table>");
        t
    }
}

/// One set of bars: a value per category, in one colour or one per bar.
#[derive(Debug, Clone, PartialEq)]
pub struct BarSet {
    pub name: String,
    pub values: Vec<f64>,
    /// None: the palette's next colour; one: the set's colour; one per bar: each bar's (the
    /// ladder: measured in colour, references in grey).
    pub colors: Vec<String>,
    /// Each bar's 95 % interval (low, high) where its figure has repeats; empty: none.
    pub intervals: Vec<Option<(f64, f64)>>,
}

/// Horizontal bars, one row per category (top to bottom in order), their sets stacked.
#[derive(Debug, Clone, PartialEq)]
pub struct Bars {
    pub id: String,
    pub title: String,
    /// The row axis' title ("Job").
    pub category_title: String,
    pub categories: Vec<String>,
    /// The value axis.
    pub value: Axis,
    pub sets: Vec<BarSet>,
    /// Write each row's total at its bar's end.
    pub totals: bool,
    /// Sets side by side in each row (runs, figures) rather than stacked (parts of a whole).
    pub grouped: bool,
}

impl Bars {
    /// Bars the chart can draw.
    pub fn drawable(&self) -> usize {
        self.sets
            .iter()
            .flat_map(|s| &s.values)
            .filter(|v| self.value.scale.transform(**v).is_some())
            .count()
    }

    /// The bars' numbers: one row per category, a column per set.
    pub fn table(&self) -> String {
        let mut t = String::from("<table class=\"data\"><thead><tr>");
        let _ = write!(t, "<th>{}</th>", esc(&self.category_title));
        for s in &self.sets {
            let _ = write!(t, "<th>{}</th>", esc(&s.name));
        }
        t.push_str("</tr></thead><tbody>");
        for (i, c) in self.categories.iter().enumerate() {
            let _ = write!(t, "<tr><td>{}</td>", esc(c));
            for s in &self.sets {
                let mut v = s.values.get(i).map(|v| self.value.format.apply(*v));
                if let (Some(v), Some(Some((lo, hi)))) = (v.as_mut(), s.intervals.get(i)) {
                    let f = self.value.format;
                    *v = format!("{v} [{} – {}]", f.apply(*lo), f.apply(*hi));
                }
                let _ = write!(t, "<td>{}</td>", esc(&v.unwrap_or_default()));
            }
            t.push_str("</tr>");
        }
        t.push_str("</tbody></table>");
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_as_a_review_writes_them() {
        assert_eq!(Format::Bytes.apply(4096.0), "4 KiB");
        assert_eq!(Format::Bytes.apply(512.0), "512 B");
        assert_eq!(Format::Percentile.apply(99.999), "99.999");
        assert_eq!(Format::Share.apply(0.4204), "42.0%");
        assert_eq!(plain(2.5), "2.5");
    }

    #[test]
    fn axes_refuse_what_they_cannot_show() {
        assert_eq!(ScaleKind::Log10.transform(0.0), None);
        assert_eq!(ScaleKind::Nines.transform(100.0), None);
        assert!((ScaleKind::Nines.transform(99.0).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(ScaleKind::Linear.transform(f64::NAN), None);
    }

    #[test]
    fn a_table_has_a_row_per_x_and_a_blank_where_a_series_has_none() {
        let axis = |s: &str| Axis {
            title: s.into(),
            scale: ScaleKind::Linear,
            format: Format::Plain,
        };
        let c = Chart::lines(
            "t",
            "t",
            axis("x"),
            axis("y"),
            vec![
                Series {
                    name: "a".into(),
                    points: vec![(1.0, 10.0), (2.0, 20.0)],
                    dashed: false,
                },
                Series {
                    name: "b".into(),
                    points: vec![(2.0, 5.0)],
                    dashed: false,
                },
            ],
        );
        let t = c.table(None);
        assert_eq!(t.matches("<tr><td>").count(), 2, "{t}");
        assert!(t.contains("<tr><td>1</td><td>10</td><td></td></tr>"), "{t}");
    }
}
