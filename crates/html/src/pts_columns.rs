//! The IOPS test's 3D column plot, as SNIA's report pages draw it: one column per block size
//! and read/write mix, its height the measurement window's average IOPS on a linear axis.
//! Drawn as plain SVG in an isometric projection (plotly's bundle has no 3D bars, and the
//! page loads nothing else): every column a `<g class="column">` with its figure as hover
//! text, the far walls carrying the IOPS ticks, both floor edges their labels.

use std::fmt::Write as _;

use iolab_report::format::compact;

use crate::chart::{esc, size_label, PALETTE};

/// A floor cell's width, in SVG units; columns take `1 - 2·GAP` of it.
const CELL: f64 = 38.0;
const GAP: f64 = 0.14;
/// The tallest column's height.
const TALL: f64 = 250.0;

/// Ticks for a linear axis from 0 to at least `hi`: a step of 1, 2 or 5 × 10ⁿ, 4 to 8 of them.
pub fn linear_ticks(hi: f64) -> Vec<f64> {
    if !hi.is_finite() || hi <= 0.0 {
        return vec![0.0, 1.0];
    }
    let raw = hi / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| hi / s <= 8.0)
        .unwrap_or(10.0 * mag);
    let n = (hi / step).ceil() as usize;
    (0..=n).map(|k| k as f64 * step).collect()
}

/// The plot's geometry: where a floor point (mix index `i`, size index `j`) at height `h`
/// lands on the page.
struct Iso {
    ox: f64,
    oy: f64,
    /// IOPS per unit of height.
    scale: f64,
}

impl Iso {
    fn at(&self, i: f64, j: f64, h: f64) -> (f64, f64) {
        let (dx, dy) = (CELL * 0.866, CELL * 0.5);
        (
            self.ox + (i - j) * dx,
            self.oy + (i + j) * dy - h / self.scale,
        )
    }
}

fn poly(pts: &[(f64, f64)], fill: &str) -> String {
    let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    format!(
        "<polygon points=\"{}\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"0.5\"/>",
        p.join(" ")
    )
}

/// A colour darkened by `f` (0: as is, 1: black), for a column's shaded sides.
fn shade(hex: &str, f: f64) -> String {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0x888888);
    let c = |s: u32| ((s & 0xff) as f64 * (1.0 - f)).round() as u32;
    format!("rgb({},{},{})", c(v >> 16), c(v >> 8), c(v))
}

/// The plot of `cells` (`((read %, block size), IOPS)`) over `mixes` (read %, 100 % write
/// first, as SNIA's table) and `sizes` (small first); `id` names the figure.
pub fn columns(id: &str, cells: &[((u64, u64), f64)], mixes: &[u64], sizes: &[u64]) -> String {
    let hi = cells.iter().map(|c| c.1).fold(0.0, f64::max);
    let ticks = linear_ticks(hi);
    let top = *ticks.last().unwrap_or(&1.0);
    let (ni, nj) = (mixes.len() as f64, sizes.len() as f64);
    let iso = Iso {
        ox: 110.0 + nj * CELL * 0.866,
        oy: TALL + 40.0,
        scale: top / TALL,
    };
    let width = iso.ox + ni * CELL * 0.866 + 130.0;
    let height = iso.oy + (ni + nj) * CELL * 0.5 + 80.0;
    let mut s = format!(
        "<figure class=\"pts-3d\" id=\"{id}\"><svg xmlns=\"http://www.w3.org/2000/svg\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" font-size=\"11\" font-family=\"sans-serif\">"
    );
    // The far walls: IOPS ticks as lines along both, their labels left of the left wall.
    for t in &ticks {
        let (a, b, c) = (
            iso.at(0.0, nj, *t),
            iso.at(0.0, 0.0, *t),
            iso.at(ni, 0.0, *t),
        );
        let _ = write!(
            s,
            "<polyline class=\"wall\" points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"none\" stroke=\"#ccc\"/>\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            a.0, a.1, b.0, b.1, c.0, c.1, a.0 - 6.0, a.1 + 4.0, esc(&compact(*t))
        );
    }
    let (axis_top, axis_foot) = (iso.at(0.0, nj, top), iso.at(0.0, nj, 0.0));
    let _ = write!(
        s,
        "<text class=\"axis-title\" transform=\"translate({:.1},{:.1}) rotate(-90)\" text-anchor=\"middle\">IOPS</text>",
        axis_top.0 - 58.0,
        (axis_top.1 + axis_foot.1) / 2.0
    );
    // Far to near, so nearer columns are drawn over farther ones.
    let mut order: Vec<(usize, usize)> = (0..mixes.len())
        .flat_map(|i| (0..sizes.len()).map(move |j| (i, j)))
        .collect();
    order.sort_by_key(|&(i, j)| (i + j, i));
    for (i, j) in order {
        let Some(&(_, v)) = cells.iter().find(|c| c.0 == (mixes[i], sizes[j])) else {
            continue;
        };
        let color = PALETTE[i % PALETTE.len()];
        let (i0, i1, j0, j1) = (
            i as f64 + GAP,
            i as f64 + 1.0 - GAP,
            j as f64 + GAP,
            j as f64 + 1.0 - GAP,
        );
        let top_face = [
            iso.at(i0, j0, v),
            iso.at(i1, j0, v),
            iso.at(i1, j1, v),
            iso.at(i0, j1, v),
        ];
        let right = [
            iso.at(i1, j0, 0.0),
            iso.at(i1, j1, 0.0),
            iso.at(i1, j1, v),
            iso.at(i1, j0, v),
        ];
        let left = [
            iso.at(i0, j1, 0.0),
            iso.at(i1, j1, 0.0),
            iso.at(i1, j1, v),
            iso.at(i0, j1, v),
        ];
        let _ = write!(
            s,
            "<g class=\"column\"><title>{} {}/{}: {} IOPS</title>{}{}{}</g>",
            esc(&size_label(sizes[j] as f64)),
            mixes[i],
            100 - mixes[i],
            esc(&compact(v)),
            poly(&right, &shade(color, 0.35)),
            poly(&left, &shade(color, 0.2)),
            poly(&top_face, color)
        );
    }
    // The near floor edges, labels outside them: read/write mixes along the left one, block
    // sizes along the right one.
    for (i, m) in mixes.iter().enumerate() {
        let (x, y) = iso.at(i as f64 + 0.5, nj, 0.0);
        let _ = write!(
            s,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{m}/{}</text>",
            x - 8.0,
            y + 14.0,
            100 - m
        );
    }
    for (j, b) in sizes.iter().enumerate() {
        let (x, y) = iso.at(ni, j as f64 + 0.5, 0.0);
        let _ = write!(
            s,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x + 8.0,
            y + 14.0,
            esc(&size_label(*b as f64))
        );
    }
    let (mx, my) = iso.at(ni * 0.5, nj, 0.0);
    let (bx, by) = iso.at(ni, nj * 0.5, 0.0);
    let _ = write!(
        s,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">Read/write mix (% read/% write)</text>\
         <text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\">Block size</text></svg>\
         <figcaption>The IOPS test's 3D column plot: the measurement window's average IOPS \
         (linear axis) per block size and read/write mix; the table above gives each \
         column's figure, and pointing at a column says it.</figcaption></figure>",
        mx - 60.0,
        my + 60.0,
        bx + 50.0,
        by + 50.0
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_steps_covering_the_top() {
        assert_eq!(
            linear_ticks(950.0),
            [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
        );
        assert_eq!(linear_ticks(123_000.0).last(), Some(&140_000.0));
        assert!(linear_ticks(123_000.0).len() <= 9);
        assert_eq!(linear_ticks(0.0), [0.0, 1.0]);
    }

    #[test]
    fn a_column_per_cell_each_with_its_figure() {
        let cells = vec![
            ((0, 4096), 1000.0),
            ((100, 4096), 4000.0),
            ((0, 1 << 20), 10.0),
        ];
        let svg = columns("x-3d", &cells, &[0, 100], &[4096, 1 << 20]);
        assert_eq!(svg.matches("<g class=\"column\">").count(), 3);
        let title = format!("<title>4 KiB 100/0: {} IOPS</title>", compact(4000.0));
        assert!(svg.contains(&title), "{svg}");
        assert!(svg.contains("0/100</text>") && svg.contains("1 MiB</text>"));
        // The tallest column reaches the top tick's height, no further.
        assert!(
            svg.contains(&format!(">{}</text>", compact(4000.0))),
            "{svg}"
        );
    }
}
