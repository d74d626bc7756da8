//! Long series drawn within bounds: a day of per-second percentiles is 86,400 points a line,
//! more than a screen has columns and more than a page should carry. Such a chart is drawn
//! as each bucket's min–max band (about as many buckets as a wide screen has columns), so a
//! one-second spike still reaches the band's edge when zoomed out. The store keeps every
//! point; only what is drawn is reduced, and the page says so.

use std::fmt::Write as _;

use crate::chart::{esc, Chart, ScaleKind};

/// A series longer than this is drawn reduced.
pub const MAX_DRAWN: usize = 3_000;
/// At most about this many buckets across the x axis.
const BUCKETS: f64 = 1_500.0;

/// Bucket widths a reader takes in at once (seconds, when x is time); past the list, 1-2-5
/// steps.
const WIDTHS: [f64; 16] = [
    1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0,
    21600.0, 86400.0,
];

/// One series drawn as bands: each bucket's start, smallest and largest value.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub x: Vec<f64>,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
}

/// A chart's series as bands of a common bucket width.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduced {
    pub width: f64,
    /// The longest series' stored points.
    pub stored: usize,
    /// One per series, in the chart's order.
    pub bands: Vec<Band>,
}

fn width_for(span: f64) -> f64 {
    let raw = span / BUCKETS;
    if let Some(w) = WIDTHS.iter().find(|w| **w >= raw) {
        return *w;
    }
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|w| *w >= raw)
        .unwrap_or(10.0 * mag)
}

/// The chart reduced, when it is a line chart on a linear x axis with a series longer than
/// [`MAX_DRAWN`]; `None` otherwise (drawn whole).
pub fn reduce(c: &Chart) -> Option<Reduced> {
    let longest = c.series.iter().map(|s| s.points.len()).max()?;
    if !c.lines || c.x.scale != ScaleKind::Linear || longest <= MAX_DRAWN {
        return None;
    }
    let xs = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
        (l.min(x), h.max(x))
    });
    let width = width_for((hi - lo).max(1.0));
    let origin = (lo / width).floor() * width;
    let bands = c
        .series
        .iter()
        .map(|s| {
            let mut b = Band {
                x: Vec::new(),
                min: Vec::new(),
                max: Vec::new(),
            };
            let mut pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && c.y.scale.transform(*y).is_some())
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            for (x, y) in pts {
                let start = origin + ((x - origin) / width).floor() * width;
                if b.x.last() != Some(&start) {
                    b.x.push(start);
                    b.min.push(y);
                    b.max.push(y);
                } else if let (Some(mn), Some(mx)) = (b.min.last_mut(), b.max.last_mut()) {
                    *mn = mn.min(y);
                    *mx = mx.max(y);
                }
            }
            b
        })
        .collect();
    Some(Reduced {
        width,
        stored: longest,
        bands,
    })
}

impl Reduced {
    /// What the page says under the chart.
    pub fn note(&self, c: &Chart) -> String {
        let drawn = self.bands.iter().map(|b| b.x.len()).max().unwrap_or(0);
        format!(
            "Reduced to draw: each band is the smallest to the largest value of {} ({} points a \
             series stored, {} bands drawn), so a spike of one point still shows; the store keeps \
             every point (<code>iolab export</code>).",
            esc(&bucket_words(self.width, &c.x.title)),
            iolab_report::format::compact(self.stored as f64),
            drawn
        )
    }

    /// The bands as a table: the bucket's start, then each series' min – max.
    pub fn table(&self, c: &Chart) -> String {
        let mut xs: Vec<f64> = self.bands.iter().flat_map(|b| b.x.clone()).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let mut t = String::from("<table class=\"data\"><thead><tr>");
        let _ = write!(
            t,
            "<th>{} (from; {})</th>",
            esc(&c.x.title),
            esc(&bucket_words(self.width, &c.x.title))
        );
        for s in &c.series {
            let _ = write!(t, "<th>{} (min – max)</th>", esc(&s.name));
        }
        t.push_str("</tr></thead><tbody>");
        let mut at = vec![0usize; self.bands.len()];
        for x in xs {
            let _ = write!(t, "<tr><td>{}</td>", esc(&c.x.format.apply(x)));
            for (b, i) in self.bands.iter().zip(at.iter_mut()) {
                if b.x.get(*i) == Some(&x) {
                    let _ = write!(
                        t,
                        "<td>{} – {}</td>",
                        esc(&c.y.format.apply(b.min[*i])),
                        esc(&c.y.format.apply(b.max[*i]))
                    );
                    *i += 1;
                } else {
                    t.push_str("<td></td>");
                }
            }
            t.push_str("</tr>");
        }
        t.push_str("</tbody></table>");
        t
    }
}

/// "each 60 s" for a time axis (its title says seconds), "each 60" otherwise.
fn bucket_words(width: f64, x_title: &str) -> String {
    let w = crate::chart::plain(width);
    match x_title.contains("(s)") {
        true => format!("each {w} s"),
        false => format!("each {w}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{Axis, Format, Series};

    fn day(spike_at: usize) -> Chart {
        let axis = |t: &str, s| Axis {
            title: t.into(),
            scale: s,
            format: Format::Nanos,
        };
        let points = (0..86_400)
            .map(|t| {
                let v = if t == spike_at { 2_000_000.0 } else { 20_000.0 };
                (t as f64, v + (t % 7) as f64)
            })
            .collect();
        Chart::lines(
            "c",
            "c",
            axis("Time (s)", ScaleKind::Linear),
            axis("Latency", ScaleKind::Log10),
            vec![Series {
                name: "p99".into(),
                points,
                dashed: false,
            }],
        )
    }

    #[test]
    fn a_day_is_drawn_per_minute_and_keeps_its_one_second_spike() {
        let c = day(43_210);
        let r = reduce(&c).expect("a day is reduced");
        assert_eq!(r.width, 60.0);
        assert_eq!(r.stored, 86_400);
        let b = &r.bands[0];
        assert_eq!(b.x.len(), 1440);
        let i = b.x.iter().position(|x| *x == 43_200.0).unwrap();
        assert_eq!(b.max[i], 2_000_000.0 + (43_210 % 7) as f64);
        assert_eq!(b.min[i], 20_000.0);
        assert!(b.max.iter().filter(|m| **m > 1e6).count() == 1);
        assert!(r.note(&c).contains("each 60 s"), "{}", r.note(&c));
        let t = r.table(&c);
        assert_eq!(t.matches("<tr><td>").count(), 1440);
    }

    #[test]
    fn short_series_and_other_axes_are_drawn_whole() {
        let mut c = day(0);
        c.series[0].points.truncate(MAX_DRAWN);
        assert_eq!(reduce(&c), None);
        let mut c = day(0);
        c.x.scale = ScaleKind::Log10;
        assert_eq!(reduce(&c), None);
    }

    #[test]
    fn widths_are_round() {
        assert_eq!(width_for(1_200.0), 1.0);
        assert_eq!(width_for(86_400.0 * 7.0), 600.0);
        assert_eq!(width_for(1e9), 1e6);
    }
}
