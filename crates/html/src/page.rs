//! The page around the charts: one HTML document with its CSS, plotly.js and its own small
//! script inline (nothing is fetched when it is opened), readable on a laptop screen and
//! printable. Each chart has its "Save SVG" and "Save PNG" buttons and its numbers as a table
//! one click away (`<details>`); zoom, pan and hover are plotly's.

use std::fmt::Write as _;

use crate::chart::{esc, Bars, Chart};
use crate::plot;

/// One section of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub id: String,
    pub title: String,
    pub body: String,
}

impl Section {
    pub fn new(id: &str, title: &str, body: String) -> Section {
        Section {
            id: id.into(),
            title: title.into(),
            body,
        }
    }
}

/// A chart with its save buttons and its numbers one click away; a chart drawn reduced says
/// so under it.
pub fn chart_block(c: &Chart) -> String {
    let (figure, reduced) = plot::chart(c);
    let note = reduced
        .as_ref()
        .map(|r| format!("<p class=\"note reduced\">{}</p>", r.note(c)))
        .unwrap_or_default();
    block(
        &c.id,
        &plot::embed(&c.id, &c.title, c.drawable(), &figure),
        &note,
        &c.table(reduced.as_ref()),
    )
}

/// Bars with their save buttons and their numbers.
pub fn bars_block(b: &Bars) -> String {
    bars_block_with_table(b, &b.table())
}

/// Bars with a table of the section's own making (the ladder's cites its sources).
pub fn bars_block_with_table(b: &Bars, table: &str) -> String {
    block(
        &b.id,
        &plot::embed(&b.id, &b.title, b.drawable(), &plot::bars(b)),
        "",
        table,
    )
}

fn block(id: &str, chart: &str, note: &str, table: &str) -> String {
    format!(
        "<figure class=\"chart-block\" id=\"fig-{id}\"><div class=\"view\">{chart}</div>{note}\
         <figcaption><button type=\"button\" class=\"save\" data-format=\"svg\">Save SVG</button>\
         <button type=\"button\" class=\"save\" data-format=\"png\">Save PNG</button>\
         <details><summary>Table view</summary>{table}</details></figcaption></figure>",
        id = esc(id)
    )
}

const CSS: &str = r#"
:root { --fg: #1d232a; --muted: #5b6670; --line: #d8dde2; --accent: #4e79a7; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; background: #f6f7f8; }
main { max-width: 1240px; margin: 0 auto; padding: 16px 24px 48px; background: #fff; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 32px 0 8px; padding-top: 8px; border-top: 2px solid var(--line); }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.note, .muted { color: var(--muted); font-size: 13px; }
li.warn { color: #b3261e; font-weight: 600; }
nav { font-size: 13px; margin: 4px 0 12px; }
nav a { margin-right: 12px; color: var(--accent); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #eef1f4; }
td.best { background: #e7f3e7; }
td.na { color: var(--muted); }
td.fallback { color: var(--muted); font-style: italic; }
.facts td, .facts th, .pts-header td { text-align: left; }
table.verdicts td { white-space: nowrap; }
table.verdicts td:last-child { text-align: left; white-space: normal; }
tr.faster td:nth-child(7) { color: #1e7b34; } tr.slower td:nth-child(7) { color: #b3261e; }
.floor-harness { background: #7f7f7f; } .floor-kernel { background: #1f77b4; } .floor-device { background: #ff7f0e; }
.caveat { border-left: 3px solid #d62728; padding-left: 6px; }
.summary .src { display: block; color: var(--muted); font-size: 11px; }
.summary { border: 2px solid var(--accent); border-radius: 6px; padding: 6px 14px 10px; margin: 12px 0; }
.summary h2 { border: none; margin: 6px 0; padding: 0; font-size: 17px; }
.chart-block { margin: 12px 0 20px; }
.chart-block div.chart { width: 100%; min-height: 200px; border: 1px solid var(--line); }
p.reduced { margin: 2px 0; }
figcaption { display: flex; gap: 12px; align-items: flex-start; margin-top: 4px; font-size: 13px; }
figcaption details { flex: 1; }
button.save { font-size: 12px; }
ol.sources { font-size: 12px; color: var(--muted); }
figure.pts-3d svg { width: 100%; max-width: 820px; height: auto; display: block; }
figure.pts-3d text.axis-title { font-size: 13px; }
figure.pts-3d figcaption { display: block; }
.pts-terms dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; font-size: 13px; margin: 4px 0; }
.pts-terms dt { font-weight: 600; }
.pts-terms dd { margin: 0; }
@media print {
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  nav, button.save { display: none; }
  h2 { break-before: auto; }
  .chart-block { break-inside: avoid; }
  /* A4 and Letter leave at least 700 px between their default margins. */
  .chart-block .svg-container { zoom: min(1, calc(680 / var(--w, 680))); }
  table { font-size: 10px; }
  th, td { padding: 1px 4px; }
  figure.pts-3d, .pts-terms { break-inside: avoid; }
}
"#;

/// Draws every chart from the JSON beside its `<div>`, and saves one as SVG or PNG (plotly's
/// own image export of what is shown, the zoom included).
const SCRIPT: &str = r#"
(function () {
  var main = document.querySelector('main');
  var caption = main.dataset.caption || '', stem = main.dataset.file || '';
  // plotly's text is its own small HTML: the caption goes in as text, entities escaped.
  var said = caption.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  var specs = document.querySelectorAll('script.figure');
  for (var i = 0; i < specs.length; i++) {
    var s = specs[i];
    var f = JSON.parse(s.textContent);
    var id = s.dataset.for;
    if (said) {
      var t = f.layout.title || {};
      if (typeof t === 'string') t = { text: t };
      t.text = (t.text || '') + '<br><span style="font-size:11px;color:#5b6670">' + said + '</span>';
      f.layout.title = t;
      f.layout.margin = f.layout.margin || {};
      f.layout.margin.t = Math.max(f.layout.margin.t || 0, 84);
    }
    f.config = f.config || {};
    f.config.toImageButtonOptions = Object.assign({}, f.config.toImageButtonOptions,
      { filename: stem ? id + '_' + stem : id });
    var gd = document.getElementById(id);
    Plotly.newPlot(gd, f.data, f.layout, f.config);
    // Drawn at the screen's width: printed, the chart is scaled to the paper's (the print
    // style's zoom reads this), never cut at the page's edge.
    gd.style.setProperty('--w', String(gd.offsetWidth || 680));
  }
  document.addEventListener('click', function (e) {
    var b = e.target.closest('button.save');
    if (!b) return;
    var gd = b.closest('figure').querySelector('div.chart');
    Plotly.downloadImage(gd, { format: b.dataset.format, filename: stem ? gd.id + '_' + stem : gd.id,
      width: gd._fullLayout.width, height: gd._fullLayout.height });
  });
})();
"#;

/// What the page shows, said everywhere it can be seen out of context: the page's title,
/// a caption under every chart's title (device, host, date) and the stem of every saved
/// image's file name (`vda_2026-11-28`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Naming {
    pub title: String,
    pub subtitle: String,
    pub caption: String,
    pub file_stem: String,
}

/// The whole document.
pub fn document(n: &Naming, sections: &[Section]) -> String {
    let mut html = String::with_capacity(2 << 20);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><main data-caption=\"{}\" data-file=\"{}\"><h1>{}</h1><p class=\"muted\">{}</p><nav>",
        esc(&n.title),
        esc(&n.caption),
        esc(&n.file_stem),
        esc(&n.title),
        esc(&n.subtitle)
    );
    for s in sections {
        let _ = write!(html, "<a href=\"#{}\">{}</a>", esc(&s.id), esc(&s.title));
    }
    html.push_str("</nav>");
    for s in sections {
        let _ = write!(
            html,
            "<section id=\"{}\"><h2>{}</h2>{}</section>",
            esc(&s.id),
            esc(&s.title),
            s.body
        );
    }
    let _ = writeln!(
        html,
        "</main>{}<script>{SCRIPT}</script></body></html>",
        plot::library()
    );
    html
}
