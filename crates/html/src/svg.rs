//! Charts as SVG: titled axes with units, a legend, one `<circle class="pt">` per data point
//! with its values in a `<title>` (shown on hover), optional connecting lines and vertical
//! marks (the saturation point). The SVG stands alone, so "save as SVG" keeps everything.

use std::fmt::Write as _;

use iolab_report::format::{compact, micros};

use crate::scale::{Scale, ScaleKind};

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
        }
    }
}

fn plain(v: f64) -> String {
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

#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Unique in the page; also the file name when saved.
    pub id: String,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub marks: Vec<Mark>,
    /// Join each series' points with a line (in x order).
    pub lines: bool,
}

/// Ten colours that stay apart for the colour-blind (Tableau 10).
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

pub const WIDTH: f64 = 960.0;
const PLOT_H: f64 = 320.0;
const LEFT: f64 = 96.0;
const RIGHT: f64 = 48.0;
const TOP: f64 = 36.0;
const LEGEND_ROW: f64 = 18.0;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Legend items laid out in rows across the width: (x, row) for each.
fn legend_layout(names: &[&str], width: f64) -> (Vec<(f64, usize)>, usize) {
    let mut out = Vec::new();
    let (mut x, mut row) = (LEFT, 0usize);
    for n in names {
        let w = 26.0 + n.chars().count() as f64 * 6.6 + 14.0;
        if x + w > width - RIGHT && x > LEFT {
            x = LEFT;
            row += 1;
        }
        out.push((x, row));
        x += w;
    }
    (out, if names.is_empty() { 0 } else { row + 1 })
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
        }
    }

    /// Points the chart can draw (those its axes can show).
    pub fn drawable(&self) -> usize {
        self.series
            .iter()
            .flat_map(|s| &s.points)
            .filter(|(x, y)| {
                self.x.scale.transform(*x).is_some() && self.y.scale.transform(*y).is_some()
            })
            .count()
    }

    pub fn render(&self) -> String {
        let names: Vec<&str> = self.series.iter().map(|s| s.name.as_str()).collect();
        let (legend, rows) = legend_layout(&names, WIDTH);
        let bottom = TOP + PLOT_H;
        let height = bottom + 46.0 + rows as f64 * LEGEND_ROW + 8.0;
        let xs = Scale::fit(
            self.x.scale,
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .chain(self.marks.iter().map(|m| m.x)),
            LEFT,
            WIDTH - RIGHT,
        );
        let ys = Scale::fit(
            self.y.scale,
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1)),
            bottom,
            TOP,
        );
        let mut s = String::new();
        self.head(&mut s, height);
        self.grid(&mut s, &xs, &ys, bottom);
        self.marks(&mut s, &xs, bottom);
        for (i, ser) in self.series.iter().enumerate() {
            self.series_svg(&mut s, ser, PALETTE[i % PALETTE.len()], &xs, &ys);
        }
        self.legend(&mut s, &legend, bottom);
        s.push_str("</svg>");
        s
    }

    /// The `<svg>` element, background and title.
    fn head(&self, s: &mut String, height: f64) {
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{id}" data-points="{n}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" aria-label="{title}" font-family="system-ui, sans-serif" font-size="12">"#,
            id = esc(&self.id),
            n = self.drawable(),
            title = esc(&self.title),
        );
        let _ = write!(
            s,
            r##"<rect width="100%" height="100%" fill="#fff"/><text x="{}" y="20" font-size="15" font-weight="600" text-anchor="middle">{}</text>"##,
            WIDTH / 2.0,
            esc(&self.title)
        );
    }

    /// Grid lines and tick labels, the axes and their titles, and "no data" on an empty chart.
    fn grid(&self, s: &mut String, xs: &Scale, ys: &Scale, bottom: f64) {
        for t in ys.ticks(|v| self.y.format.tick(v)) {
            let Some(y) = ys.map(t.value) else { continue };
            let _ = write!(
                s,
                r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{}" y="{:.1}" text-anchor="end" fill="#444">{}</text>"##,
                WIDTH - RIGHT,
                LEFT - 6.0,
                y + 4.0,
                esc(&t.label)
            );
        }
        for t in xs.ticks(|v| self.x.format.tick(v)) {
            let Some(x) = xs.map(t.value) else { continue };
            let _ = write!(
                s,
                r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{bottom}" stroke="#f0f0f0"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
                bottom + 16.0,
                esc(&t.label)
            );
        }
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{bottom}" y2="{bottom}" stroke="#333"/><line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}" stroke="#333"/>"##,
            WIDTH - RIGHT
        );
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="600">{}</text><text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle" font-weight="600">{}</text>"##,
            (LEFT + WIDTH - RIGHT) / 2.0,
            bottom + 36.0,
            esc(&self.x.title),
            (TOP + bottom) / 2.0,
            esc(&self.y.title)
        );
        if self.drawable() == 0 {
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#888">no data</text>"##,
                (LEFT + WIDTH - RIGHT) / 2.0,
                (TOP + bottom) / 2.0
            );
        }
    }

    /// Vertical marks (saturation points); labels stack downward, and in the right half
    /// sit left of their line.
    fn marks(&self, s: &mut String, xs: &Scale, bottom: f64) {
        for (i, m) in self.marks.iter().enumerate() {
            let Some(x) = xs.map(m.x) else { continue };
            let right_half = x > (LEFT + WIDTH - RIGHT) / 2.0;
            let _ = write!(
                s,
                r##"<g class="mark"><line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{bottom}" stroke="#d62728" stroke-dasharray="5 3"/><text x="{:.1}" y="{:.1}" fill="#d62728" text-anchor="{}">{}</text></g>"##,
                if right_half { x - 4.0 } else { x + 4.0 },
                TOP + 14.0 + i as f64 * 15.0,
                if right_half { "end" } else { "start" },
                esc(&m.label)
            );
        }
    }

    /// One series: its line (when the chart draws lines) and a point with hover text per value.
    fn series_svg(&self, s: &mut String, ser: &Series, color: &str, xs: &Scale, ys: &Scale) {
        let mut pts: Vec<(f64, f64, f64, f64)> = ser
            .points
            .iter()
            .filter_map(|&(x, y)| Some((xs.map(x)?, ys.map(y)?, x, y)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let _ = write!(s, r#"<g class="series" data-name="{}">"#, esc(&ser.name));
        if self.lines && pts.len() > 1 {
            let poly: Vec<String> = pts
                .iter()
                .map(|p| format!("{:.1},{:.1}", p.0, p.1))
                .collect();
            let _ = write!(
                s,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2"{} points="{}"/>"#,
                dash(ser.dashed),
                poly.join(" ")
            );
        }
        for (px, py, x, y) in &pts {
            let _ = write!(
                s,
                r#"<circle class="pt" cx="{px:.1}" cy="{py:.1}" r="3.5" fill="{color}"><title>{}: {} {}, {} {}</title></circle>"#,
                esc(&ser.name),
                esc(&self.x.title),
                esc(&self.x.format.apply(*x)),
                esc(&self.y.title),
                esc(&self.y.format.apply(*y)),
            );
        }
        s.push_str("</g>");
    }

    fn legend(&self, s: &mut String, places: &[(f64, usize)], bottom: f64) {
        for (i, (ser, (x, row))) in self.series.iter().zip(places).enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let y = bottom + 52.0 + *row as f64 * LEGEND_ROW;
            let _ = write!(
                s,
                r#"<g class="legend"><line x1="{x:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="{color}" stroke-width="3"{}/><text x="{:.1}" y="{:.1}">{}</text></g>"#,
                x + 20.0,
                y - 4.0,
                y - 4.0,
                dash(ser.dashed),
                x + 26.0,
                y,
                esc(&ser.name)
            );
        }
    }

    /// The chart's numbers as an HTML table: x, then one column per series.
    pub fn table(&self) -> String {
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
        for x in xs {
            let _ = write!(t, "<tr><td>{}</td>", esc(&self.x.format.apply(x)));
            for s in &self.series {
                let v = s
                    .points
                    .iter()
                    .find(|p| p.0 == x)
                    .map(|p| self.y.format.apply(p.1));
                let _ = write!(t, "<td>{}</td>", esc(&v.unwrap_or_default()));
            }
            t.push_str("</tr>");
        }
        t.push_str("</tbody></table>");
        t
    }
}

/// One rung of the latency ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    pub label: String,
    pub ns: f64,
    /// Measured by iolab (drawn in colour) rather than a reference.
    pub measured: bool,
}

/// The latency ladder: one row per rung, a bar on a logarithmic nanosecond axis.
pub fn ladder(id: &str, title: &str, rungs: &[Rung]) -> String {
    let row = 24.0;
    let left = 300.0;
    let top = 36.0;
    let bottom = top + rungs.len().max(1) as f64 * row;
    let height = bottom + 48.0;
    let xs = Scale::fit(
        ScaleKind::Log10,
        rungs.iter().map(|r| r.ns),
        left,
        WIDTH - RIGHT - 60.0,
    );
    let n = rungs.iter().filter(|r| xs.map(r.ns).is_some()).count();
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{}" data-points="{n}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" aria-label="{}" font-family="system-ui, sans-serif" font-size="12"><rect width="100%" height="100%" fill="#fff"/><text x="{}" y="20" font-size="15" font-weight="600" text-anchor="middle">{}</text>"##,
        esc(id),
        esc(title),
        WIDTH / 2.0,
        esc(title)
    );
    for t in xs.ticks(short_ns) {
        if let Some(x) = xs.map(t.value) {
            let _ = write!(
                s,
                r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{bottom}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#444" font-size="10">{}</text>"##,
                bottom + 14.0,
                esc(&t.label)
            );
        }
    }
    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="600">Latency (log scale)</text>"##,
        (left + WIDTH - RIGHT) / 2.0,
        bottom + 36.0
    );
    for (i, r) in rungs.iter().enumerate() {
        let y = top + i as f64 * row + row / 2.0;
        let Some(x) = xs.map(r.ns) else { continue };
        let color = if r.measured { "#e15759" } else { "#9aa5b1" };
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end"{}>{}</text><rect x="{left}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}"/><circle class="pt" cx="{x:.1}" cy="{y:.1}" r="4" fill="{color}"><title>{}: {}</title></circle><text x="{:.1}" y="{:.1}" fill="#333">{}</text>"##,
            left - 8.0,
            y + 4.0,
            if r.measured {
                r#" font-weight="600""#
            } else {
                ""
            },
            esc(&r.label),
            y - 6.0,
            (x - left).max(1.0),
            12.0,
            esc(&r.label),
            esc(&short_ns(r.ns)),
            x + 8.0,
            y + 4.0,
            esc(&short_ns(r.ns))
        );
    }
    s.push_str("</svg>");
    s
}

/// The dash attribute of a dashed series (later runs overlaid), or nothing.
fn dash(dashed: bool) -> &'static str {
    if dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    }
}
