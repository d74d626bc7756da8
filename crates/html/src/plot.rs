//! Charts drawn by plotly.js (through plotly.rs's typed traces and layout): zoom and pan,
//! hover with each point's values, SVG and PNG download. Each chart goes into the page as an
//! empty `<div>` and its figure as JSON beside it; the page's script draws them all with the
//! plotly.js the page embeds (see [`crate::page`]).
//!
//! Latencies are drawn in seconds so plotly's SI tick format writes them as a reader does
//! (`10µs`, `1.5ms`) at any zoom; the hover text gives the report's own figure (`10.17 µs`).

use plotly::common::{
    Anchor, DashType, ErrorData, ErrorType, Fill, Font, HoverInfo, Line, Marker, Mode, Orientation,
    Position, Title,
};
use plotly::configuration::{ImageButtonFormats, ToImageButtonOptions};
use plotly::layout::update_menu::{Button, ButtonMethod, UpdateMenu, UpdateMenuType};
use plotly::layout::{
    Annotation, Axis as PAxis, AxisType, BarMode, HoverMode, Legend, Margin, RangeMode, Shape,
    ShapeLine, ShapeType,
};
use plotly::{Bar, Configuration, Layout, Plot, Scatter};

use crate::chart::{esc, Axis, BarSet, Bars, Chart, Format, ScaleKind, Series, PALETTE};
use crate::reduce::{Band, Reduced};

/// A chart with a series longer than this (a time series) draws lines without a marker per
/// point, every series of it alike.
const MARKERS_UP_TO: usize = 50;

/// Where a value is drawn on `a`: the nines axis' transform, latencies in seconds; `None`
/// where the axis cannot show it.
fn coord(a: &Axis, v: f64) -> Option<f64> {
    let t = a.scale.transform(v)?;
    Some(match a.format {
        Format::Nanos => t * 1e-9,
        _ => t,
    })
}

/// Ticks at powers of two over `lo..=hi` (every other power past a dozen).
fn pow2_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log2().floor() as i32, hi.log2().ceil() as i32);
    let step = ((b - a) / 12 + 1).max(1) as usize;
    (a..=b).step_by(step).map(|e| 2f64.powi(e)).collect()
}

/// Ticks on the nines axis: 50, 90, 99, 99.9 … up to the whole nine above the data.
fn nines_ticks(hi: f64) -> (Vec<f64>, Vec<String>) {
    let top = hi.ceil().max(1.0) as i32;
    let mut vals = vec![-(0.5f64).log10()];
    let mut text = vec!["50".to_string()];
    for n in 1..=top {
        vals.push(n as f64);
        text.push(Format::Percentile.apply(100.0 - 100.0 * 10f64.powi(-n)));
    }
    (vals, text)
}

/// Ticks on a log₁₀ axis over `lo..=hi`: 1, 2 and 5 of each decade over a short range,
/// decades over a long one. Plotly's own labels every minor tick of a short range in full
/// (`90m 80m 70m`), unreadable beside each other.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let steps: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let every = ((b - a) / 8 + 1).max(1) as usize;
    let mut out = Vec::new();
    for e in (a..=b).step_by(every) {
        for m in steps {
            // Divided rather than multiplied below 1, so 5e-6 is the double nearest 5e-6.
            let v = match e < 0 {
                true => m / 10f64.powi(-e),
                false => m * 10f64.powi(e),
            };
            if v >= lo / 2.5 && v <= hi * 2.5 {
                out.push(v);
            }
        }
    }
    // A range narrower than 1-2-5's steps (four IOPS lines within 20 % of each other) shows
    // none of them: then evenly spaced ticks inside it, as a linear axis would have.
    if out.iter().filter(|&&v| v >= lo && v <= hi).count() < 2 {
        return even_ticks(lo, hi);
    }
    out
}

/// About four ticks at round steps (1, 2 or 5 times a power of ten) inside `lo..=hi`; the
/// range widened by a fifth each way where it is a single value.
fn even_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo / 1.2, hi * 1.2)
    };
    let raw = (hi - lo) / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// The plotly axis for `a` over the values drawn on it (already [`coord`]-ed).
fn axis(a: &Axis, drawn: &[f64]) -> PAxis {
    let lo = drawn.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = drawn.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut p = PAxis::new()
        .title(Title::with_text(a.title.as_str()))
        .zero_line(false)
        .grid_color("#e8e8e8")
        .line_color("#333")
        .show_line(true);
    p = match a.scale {
        // From zero: a rate or a latency on a linear axis cut at 100k exaggerates every
        // difference on it (a log axis has no zero and shows ratios as they are).
        ScaleKind::Linear => p.type_(AxisType::Linear).range_mode(RangeMode::ToZero),
        ScaleKind::LinearFit => p.type_(AxisType::Linear).range_mode(RangeMode::Normal),
        ScaleKind::Log10 if lo.is_finite() && lo > 0.0 => {
            let ticks = log_ticks(lo, hi);
            // Labels in the axis' own units (latencies are drawn in seconds).
            let unit = if a.format == Format::Nanos { 1e9 } else { 1.0 };
            let text = ticks.iter().map(|t| a.format.tick(t * unit)).collect();
            p.type_(AxisType::Log).tick_values(ticks).tick_text(text)
        }
        ScaleKind::Log10 => p.type_(AxisType::Log),
        ScaleKind::Log2 => {
            let ticks = if lo.is_finite() {
                pow2_ticks(lo, hi)
            } else {
                vec![1.0]
            };
            let text = ticks.iter().map(|t| a.format.apply(*t)).collect();
            p.type_(AxisType::Log).tick_values(ticks).tick_text(text)
        }
        ScaleKind::Nines => {
            let (vals, text) = nines_ticks(if hi.is_finite() { hi } else { 2.0 });
            p.type_(AxisType::Linear).tick_values(vals).tick_text(text)
        }
    };
    // Counted things (rounds, threads) over a short span: a tick at each whole number, never
    // at round 6.5.
    let whole = drawn.iter().all(|v| v.fract() == 0.0);
    if matches!(a.scale, ScaleKind::Linear | ScaleKind::LinearFit)
        && a.format == Format::Plain
        && whole
        && lo.is_finite()
        && hi - lo <= 20.0
    {
        p = p.dtick(1.0);
    }
    match (a.scale, a.format) {
        (ScaleKind::Log2 | ScaleKind::Nines, _) => p,
        (ScaleKind::Log10, _) if lo.is_finite() && lo > 0.0 => p,
        (_, Format::Nanos) => p.tick_format("~s").tick_suffix("s"),
        (_, Format::Count) => p.tick_format("~s"),
        (_, Format::Share) => p.tick_format(".0%"),
        _ => p,
    }
}

/// A colour with some transparency, for a band's fill.
fn faded(hex: &str) -> String {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0x888888);
    format!("rgba({},{},{},0.35)", v >> 16, (v >> 8) & 0xff, v & 0xff)
}

fn line(color: &str, dashed: bool, width: f64) -> Line {
    let l = Line::new().color(color.to_string()).width(width);
    match dashed {
        true => l.dash(DashType::Dash),
        false => l,
    }
}

fn is_long(c: &Chart) -> bool {
    c.series.iter().any(|s| s.points.len() > MARKERS_UP_TO)
}

/// One series drawn whole, each point with its hover text (and its label, where the chart
/// gives the series labels: then in the series' own order).
fn whole(c: &Chart, i: usize, s: &Series, color: &str) -> Box<Scatter<f64, f64>> {
    let labels = c.labels.get(i).filter(|l| l.len() == s.points.len());
    let mut pts: Vec<(f64, f64, f64, f64, String)> = s
        .points
        .iter()
        .enumerate()
        .filter_map(|(k, &(x, y))| {
            let label = labels.map_or(String::new(), |l| l[k].clone());
            Some((coord(&c.x, x)?, coord(&c.y, y)?, x, y, label))
        })
        .collect();
    if labels.is_none() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let text: Vec<String> = pts
        .iter()
        .map(|p| {
            format!(
                "{}<br>{}: {}<br>{}: {}",
                esc(&s.name),
                esc(&c.x.title),
                esc(&c.x.format.apply(p.2)),
                esc(&c.y.title),
                esc(&c.y.format.apply(p.3))
            )
        })
        .collect();
    let mode = match (c.lines && pts.len() > 1, !is_long(c), labels.is_some()) {
        (true, _, true) => Mode::LinesMarkersText,
        (false, _, true) => Mode::MarkersText,
        (true, true, false) => Mode::LinesMarkers,
        (true, false, false) => Mode::Lines,
        (false, _, false) => Mode::Markers,
    };
    let trace = Scatter::new(
        pts.iter().map(|p| p.0).collect(),
        pts.iter().map(|p| p.1).collect(),
    )
    .name(s.name.as_str())
    .mode(mode)
    .line(line(color, s.dashed, 2.0))
    .marker(Marker::new().color(color.to_string()).size(7));
    match labels {
        Some(_) => trace
            .text_array(pts.iter().map(|p| esc(&p.4)).collect())
            .text_position(Position::TopCenter)
            .hover_text_array(text)
            .hover_template("%{hovertext}<extra></extra>"),
        None => trace
            .text_array(text)
            .hover_template("%{text}<extra></extra>"),
    }
}

/// The hover template of a band's edge: x, then the edge's value.
fn band_hover(c: &Chart, edge: &str) -> String {
    let y = match c.y.format {
        Format::Nanos => "%{y:.4~s}s",
        Format::Count => "%{y:.4~s}",
        _ => "%{y:.4~g}",
    };
    format!(
        "%{{fullData.legendgroup}}<br>{} from %{{x}}<br>{edge}: {y}<extra></extra>",
        esc(&c.x.title)
    )
}

/// One series drawn as its bands: the max edge, then the min edge filled up to it.
fn banded(c: &Chart, s: &Series, b: &Band, color: &str) -> [Box<Scatter<f64, f64>>; 2] {
    let xs: Vec<f64> = b.x.iter().filter_map(|x| coord(&c.x, *x)).collect();
    let ys = |v: &[f64]| -> Vec<f64> { v.iter().map(|y| coord(&c.y, *y).unwrap_or(0.0)).collect() };
    let edge = |vals: &[f64], which: &str| {
        Scatter::new(xs.clone(), ys(vals))
            .name(format!("{} ({which})", s.name))
            .legend_group(s.name.as_str())
            .mode(Mode::Lines)
            .line(line(color, s.dashed, 1.0))
            .hover_template(band_hover(c, which))
    };
    [
        edge(&b.max, "max").show_legend(false),
        edge(&b.min, "min")
            .name(s.name.as_str())
            .fill(Fill::ToNextY)
            .fill_color(faded(color)),
    ]
}

/// Where `x` (already [`coord`]-ed) sits along a log axis: its log₁₀, as plotly places
/// annotations there (shapes take the value itself).
fn along(scale: ScaleKind, x: f64) -> f64 {
    match scale {
        ScaleKind::Log10 | ScaleKind::Log2 => x.log10(),
        _ => x,
    }
}

/// Vertical marks as dashed lines across the plot, labelled at the top: beside the line,
/// on the side with room (left of it in the right half of `xs`, the drawn x values).
fn marks(c: &Chart, xs: &[f64]) -> (Vec<Shape>, Vec<Annotation>) {
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
            (l.min(*x), h.max(*x))
        });
    let mid = (along(c.x.scale, lo) + along(c.x.scale, hi)) / 2.0;
    let mut shapes = Vec::new();
    let mut notes = Vec::new();
    for (i, m) in c.marks.iter().enumerate() {
        let Some(x) = coord(&c.x, m.x) else { continue };
        shapes.push(
            Shape::new()
                .shape_type(ShapeType::Line)
                .x_ref("x")
                .y_ref("paper")
                .x0(x)
                .x1(x)
                .y0(0.0)
                .y1(1.0)
                .line(ShapeLine::new().color("#d62728").dash(DashType::Dash)),
        );
        let at = along(c.x.scale, x);
        notes.push(
            Annotation::new()
                .x_ref("x")
                .y_ref("paper")
                .x(at)
                .y(1.0 - i as f64 * 0.07)
                .y_anchor(Anchor::Top)
                .x_anchor(if at > mid {
                    Anchor::Right
                } else {
                    Anchor::Left
                })
                .show_arrow(false)
                .text(esc(&m.label))
                .font(Font::new().color("#d62728")),
        );
    }
    (shapes, notes)
}

fn switch(c: &Chart) -> UpdateMenu {
    let b = |label: &str, ty: &str| {
        Button::new()
            .label(label)
            .method(ButtonMethod::Relayout)
            .args(serde_json::json!([{ "yaxis.type": ty }]))
    };
    UpdateMenu::new()
        .ty(UpdateMenuType::Buttons)
        .direction(plotly::layout::update_menu::UpdateMenuDirection::Right)
        .active(i32::from(c.y.scale != ScaleKind::Linear))
        .x(0.0)
        .x_anchor(Anchor::Left)
        .y(1.16)
        .y_anchor(Anchor::Top)
        .buttons(vec![b("linear", "linear"), b("logarithmic", "log")])
}

fn base_layout(title: &str, height: usize) -> Layout {
    Layout::new()
        .title(Title::with_text(title))
        .height(height)
        .margin(Margin::new().left(90).right(30).top(64).bottom(60))
        .font(Font::new().family("system-ui, sans-serif").size(12))
        .legend(
            Legend::new()
                .orientation(Orientation::Horizontal)
                .x(0.0)
                .y(-0.18)
                .y_anchor(Anchor::Top),
        )
        .paper_background_color("#fff")
        .plot_background_color("#fff")
}

/// Not `responsive`: a chart that redraws on every resize redrew mid-capture in headless
/// Chromium's full-page screenshots and painted over its neighbours; the width is fitted to
/// the page once, when drawn.
fn config(id: &str) -> Configuration {
    Configuration::new()
        .display_logo(false)
        .to_image_button_options(
            ToImageButtonOptions::new()
                .format(ImageButtonFormats::Svg)
                .filename(id),
        )
}

/// The chart's figure, and its reduction when it was drawn reduced.
pub fn chart(c: &Chart) -> (Plot, Option<Reduced>) {
    let reduced = crate::reduce::reduce(c);
    let mut plot = Plot::new();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (i, s) in c.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        match &reduced {
            Some(r) => {
                let b = &r.bands[i];
                xs.extend(b.x.iter().filter_map(|x| coord(&c.x, *x)));
                ys.extend(b.max.iter().chain(&b.min).filter_map(|y| coord(&c.y, *y)));
                let [hi, lo] = banded(c, s, b, color);
                plot.add_trace(hi);
                plot.add_trace(lo);
            }
            None => {
                xs.extend(s.points.iter().filter_map(|p| coord(&c.x, p.0)));
                ys.extend(s.points.iter().filter_map(|p| coord(&c.y, p.1)));
                plot.add_trace(whole(c, i, s, color));
            }
        }
    }
    xs.extend(c.marks.iter().filter_map(|m| coord(&c.x, m.x)));
    let (shapes, notes) = marks(c, &xs);
    let long = is_long(c);
    // A long series is a time series: drag zooms and pans its time axis alone.
    let y = axis(&c.y, &ys).fixed_range(long && c.x.scale == ScaleKind::Linear);
    let mut layout = base_layout(&c.title, 460)
        .x_axis(axis(&c.x, &xs))
        .y_axis(y)
        .hover_mode(HoverMode::Closest)
        .shapes(shapes)
        .annotations(notes);
    if c.y_switch {
        layout = layout.update_menus(vec![switch(c)]);
    }
    plot.set_layout(layout);
    plot.set_configuration(config(&c.id));
    (plot, reduced)
}

/// One set of bars as a trace, each bar with its hover text.
fn bar_trace(b: &Bars, set: &BarSet, i: usize) -> Box<Bar<f64, String>> {
    let (mut xs, mut cats, mut text) = (Vec::new(), Vec::new(), Vec::new());
    let (mut plus, mut minus) = (Vec::new(), Vec::new());
    for (k, (cat, v)) in b.categories.iter().zip(&set.values).enumerate() {
        let Some(x) = coord(&b.value, *v) else {
            continue;
        };
        xs.push(x);
        cats.push(cat.clone());
        let f = b.value.format;
        let ci = set.intervals.get(k).copied().flatten();
        let ci_text = ci.map_or(String::new(), |(lo, hi)| {
            format!(" (95% interval {} – {})", f.apply(lo), f.apply(hi))
        });
        text.push(format!(
            "{}<br>{}: {}{}",
            esc(cat),
            esc(&set.name),
            esc(&f.apply(*v)),
            esc(&ci_text)
        ));
        let (lo, hi) = ci.unwrap_or((*v, *v));
        plus.push((coord(&b.value, hi).unwrap_or(x) - x).max(0.0));
        minus.push((x - coord(&b.value, lo).unwrap_or(x)).max(0.0));
    }
    let errors = set.intervals.iter().any(Option::is_some).then(|| {
        ErrorData::new(ErrorType::Data)
            .symmetric(false)
            .array(plus)
            .array_minus(minus)
            .color("#333")
    });
    let marker = match set.colors.len() {
        0 => Marker::new().color(PALETTE[i % PALETTE.len()].to_string()),
        1 => Marker::new().color(set.colors[0].clone()),
        _ => Marker::new().color_array(set.colors.clone()),
    };
    let bar = Bar::new(xs, cats)
        .name(set.name.as_str())
        .orientation(Orientation::Horizontal)
        .marker(marker)
        .hover_text_array(text)
        .hover_info(HoverInfo::Text);
    match errors {
        Some(e) => bar.error_x(e),
        None => bar,
    }
}

/// Each row's total written at its bar's end.
fn totals(b: &Bars) -> Vec<Annotation> {
    b.categories
        .iter()
        .enumerate()
        .filter_map(|(i, cat)| {
            let sum: f64 = b.sets.iter().filter_map(|s| s.values.get(i)).sum();
            let x = coord(&b.value, sum)?;
            let x = along(b.value.scale, x);
            Some(
                Annotation::new()
                    .x(x)
                    .y(cat.as_str())
                    .x_anchor(Anchor::Left)
                    .show_arrow(false)
                    .text(esc(&b.value.format.tick(sum))),
            )
        })
        .collect()
}

/// The bars' figure: horizontal, stacked, the first category on top.
pub fn bars(b: &Bars) -> Plot {
    let mut plot = Plot::new();
    let mut drawn = Vec::new();
    for (i, s) in b.sets.iter().enumerate() {
        drawn.extend(s.values.iter().filter_map(|v| coord(&b.value, *v)));
        plot.add_trace(bar_trace(b, s, i));
    }
    let rows = b.categories.len().max(1);
    let categories = PAxis::new()
        .title(Title::with_text(b.category_title.as_str()))
        .type_(AxisType::Category)
        .auto_range(false)
        .range(vec![rows as f64 - 0.5, -0.5])
        .auto_margin(true);
    let per_row = if b.grouped {
        10 + 18 * b.sets.len()
    } else {
        28
    };
    let mut layout = base_layout(&b.title, 150 + per_row * rows)
        .x_axis(axis(&b.value, &drawn))
        .y_axis(categories)
        .bar_mode(if b.grouped {
            BarMode::Group
        } else {
            BarMode::Stack
        })
        .hover_mode(HoverMode::Closest);
    if b.totals {
        layout = layout.annotations(totals(b));
    }
    if b.sets.len() > 1 {
        layout = layout.legend(
            Legend::new()
                .orientation(Orientation::Horizontal)
                .trace_order(plotly::layout::TraceOrder::Normal)
                .x(0.0)
                .y(1.0)
                .y_anchor(Anchor::Bottom),
        );
    } else {
        layout = layout.show_legend(false);
    }
    plot.set_layout(layout);
    plot.set_configuration(config(&b.id));
    plot
}

/// A figure as it goes into the page: an empty `<div class="chart">` carrying its id, title
/// and how many points it declares, and the figure's JSON beside it for the page's script.
pub fn embed(id: &str, title: &str, points: usize, plot: &Plot) -> String {
    let json = script_safe(&plot.to_json());
    format!(
        "<div class=\"chart\" id=\"{id}\" data-points=\"{points}\" role=\"img\" aria-label=\"{title}\"></div>\
         <script type=\"application/json\" class=\"figure\" data-for=\"{id}\">{json}</script>",
        id = esc(id),
        title = esc(title)
    )
}

/// JSON that stays inert inside a `<script>` element whatever its strings hold: `<`, `>`
/// and `&` as `\u003c`, `\u003e`, `\u0026` (so neither `</script>` nor `<!--<script>`,
/// which would make the parser swallow the page's own closing tag, can appear), and U+2028
/// and U+2029 escaped as JavaScript before ES2019 wants. They can only occur inside JSON
/// strings, where the escapes read back as the same characters.
pub fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The plotly.js bundle the page embeds: plotly's own basic partial bundle (scatter, bar and
/// pie with zoom, hover, update menus and SVG/PNG export: every chart the report draws) from
/// the npm package `plotly.js-basic-dist-min`, vendored beside its licence in
/// `crates/html/vendor/`. Its version is plotly.rs's plotly.js version, so the figures'
/// JSON is the schema this bundle reads; a test holds the two together. About 1.0 MB
/// against the full bundle's 4.65 MB, which the report's pages carried before.
pub const PLOTLY_JS_VERSION: &str = "3.0.1";

const PLOTLY_BASIC_JS: &str =
    include_str!("../vendor/plotly.js-basic-dist-min/plotly-basic.min.js");

/// The plotly.js library as one inline `<script>` (one copy per page).
pub fn library() -> String {
    format!("<script type=\"text/javascript\">{PLOTLY_BASIC_JS}</script>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nines_ticks_name_their_percentiles() {
        let (v, t) = nines_ticks(3.2);
        assert_eq!(t, ["50", "90", "99", "99.9", "99.99"]);
        assert_eq!(v.len(), 5);
    }

    #[test]
    fn log_ticks_are_one_two_five_over_a_short_range_and_decades_over_a_long_one() {
        assert_eq!(
            log_ticks(3e-6, 9e-5),
            [1e-6 * 2.0, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4]
        );
        let long = log_ticks(0.3, 1e8);
        assert!(long
            .iter()
            .all(|t| (t.log10() - t.log10().round()).abs() < 1e-9));
        assert_eq!(Format::Nanos.tick(2e6), "2 ms");
    }

    #[test]
    fn a_narrow_log_range_gets_even_ticks_inside_it() {
        // 4.1k to 4.9k IOPS: no 1-2-5 tick falls inside, so plotly would draw none.
        let t = log_ticks(4100.0, 4900.0);
        assert_eq!(t, [4200.0, 4400.0, 4600.0, 4800.0]);
        // A single value: ticks around it.
        let t = log_ticks(1000.0, 1000.0);
        assert!(t.len() >= 2 && t.iter().any(|&v| v < 1000.0) && t.iter().any(|&v| v > 1000.0));
    }

    #[test]
    fn pow2_ticks_cover_the_range() {
        assert_eq!(pow2_ticks(1.0, 32.0), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
        assert_eq!(pow2_ticks(512.0, 1048576.0).len(), 12);
    }

    #[test]
    fn the_library_is_plotly_alone() {
        let js = library();
        assert!(js.starts_with("<script") && js.ends_with("</script>"));
        assert!(js.contains("plotly"));
        // The basic bundle is 1.03 MB; the full plotly.min.js was 4.65 MB.
        assert!((900_000..1_300_000).contains(&js.len()), "{}", js.len());
        assert_eq!(js.matches("<script").count(), 1);
        assert_eq!(
            js.matches("</script").count(),
            1,
            "the bundle cannot close its element"
        );
    }

    #[test]
    fn the_bundle_is_the_version_plotly_rs_writes_for_with_its_licence() {
        let head = &PLOTLY_BASIC_JS[..200];
        assert!(
            head.contains(&format!(
                "plotly.js (basic - minified) v{PLOTLY_JS_VERSION}"
            )),
            "{head}"
        );
        let pkg: serde_json::Value = serde_json::from_str(include_str!(
            "../vendor/plotly.js-basic-dist-min/package.json"
        ))
        .unwrap();
        // plotly's own package.json, read by key: a document iolab did not write.
        assert_eq!(pkg["version"], PLOTLY_JS_VERSION);
        assert_eq!(pkg["license"], "MIT");
        let licence = include_str!("../vendor/plotly.js-basic-dist-min/LICENSE");
        assert!(licence.contains("Plotly"), "{licence}");
        // plotly.rs's own copy of plotly.js (not embedded) names the version its JSON is for.
        let rs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
            .unwrap();
        assert!(
            rs.contains("name = \"plotly\"\nversion = \"0.14."),
            "plotly.rs moved: check PLOTLY_JS_VERSION"
        );
    }

    #[test]
    fn embedded_json_cannot_close_its_script() {
        let mut p = Plot::new();
        p.set_layout(Layout::new().title(Title::with_text("a </script> b")));
        let html = embed("x", "t", 0, &p);
        assert_eq!(html.matches("</script>").count(), 1, "{html}");
        assert!(html.contains("a \\u003c/script\\u003e b"));
        let nasty = "<!--<script> & \u{2028}\u{2029} </script>";
        let mut p = Plot::new();
        p.set_layout(Layout::new().title(Title::with_text(nasty)));
        let json = script_safe(&p.to_json());
        assert!(
            !json.contains(['<', '>', '&', '\u{2028}', '\u{2029}']),
            "{json}"
        );
        // plotly's figure schema (layout.title.text), read back as plotly reads it.
        #[derive(serde::Deserialize)]
        struct Stored {
            layout: StoredLayout,
        }
        #[derive(serde::Deserialize)]
        struct StoredLayout {
            title: StoredTitle,
        }
        #[derive(serde::Deserialize)]
        struct StoredTitle {
            text: String,
        }
        let back: Stored = serde_json::from_str(&json).unwrap();
        assert_eq!(back.layout.title.text, nasty, "the same text read back");
    }
}
