//! The page around the charts: one HTML document with its CSS and its one script inline (the
//! script only saves a chart as SVG; tooltips are SVG `<title>`s, the table views are
//! `<details>`, the linear/log switch is radio buttons and CSS), readable on a laptop screen
//! and printable.

use std::fmt::Write as _;

use crate::svg::{esc, Chart};

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

/// A chart with its "Save SVG" button and its numbers one click away.
pub fn chart_block(c: &Chart) -> String {
    chart_block_raw(&c.id, &c.render(), &c.table())
}

pub fn chart_block_raw(id: &str, svg: &str, table: &str) -> String {
    format!(
        "<figure class=\"chart-block\" id=\"fig-{id}\"><div class=\"view\">{svg}</div>{}</figure>",
        tools(table),
        id = esc(id)
    )
}

fn tools(table: &str) -> String {
    format!(
        "<figcaption><button type=\"button\" class=\"save\">Save SVG</button><details><summary>Table view</summary>{table}</details></figcaption>"
    )
}

/// Two renderings of one chart (linear and logarithmic axis) with a switch between them.
pub fn switch_block(id: &str, linear: &Chart, log: &Chart) -> String {
    let id = esc(id);
    format!(
        "<figure class=\"chart-block switch\" id=\"fig-{id}\">\
         <input type=\"radio\" class=\"lin\" name=\"sw-{id}\" id=\"sw-{id}-lin\" checked><label for=\"sw-{id}-lin\">linear</label>\
         <input type=\"radio\" class=\"log\" name=\"sw-{id}\" id=\"sw-{id}-log\"><label for=\"sw-{id}-log\">logarithmic</label>\
         <div class=\"view v-lin\">{}</div><div class=\"view v-log\">{}</div>{}</figure>",
        linear.render(),
        log.render(),
        tools(&linear.table())
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
nav { font-size: 13px; margin: 4px 0 12px; }
nav a { margin-right: 12px; color: var(--accent); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #eef1f4; }
td.best { background: #e7f3e7; }
td.na { color: var(--muted); }
td.fallback { color: var(--muted); font-style: italic; }
.facts td, .facts th { text-align: left; }
.chart-block { margin: 12px 0 20px; }
.chart-block svg { max-width: 100%; height: auto; display: block; border: 1px solid var(--line); }
circle.pt:hover { r: 6; stroke: #000; }
figcaption { display: flex; gap: 12px; align-items: flex-start; margin-top: 4px; font-size: 13px; }
figcaption details { flex: 1; }
button.save { font-size: 12px; }
.switch > input { margin-left: 0; }
.switch > label { margin-right: 12px; font-size: 13px; }
.switch .v-log { display: none; }
.switch input.log:checked ~ .v-log { display: block; }
.switch input.log:checked ~ .v-lin { display: none; }
ol.sources { font-size: 12px; color: var(--muted); }
@media print {
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  nav, button.save, .switch > input, .switch > label { display: none; }
  h2 { break-before: auto; }
  .chart-block { break-inside: avoid; }
}
"#;

const SCRIPT: &str = r#"
document.addEventListener('click', function (e) {
  var b = e.target.closest('button.save');
  if (!b) return;
  var fig = b.closest('figure');
  var svgs = Array.prototype.slice.call(fig.querySelectorAll('svg.chart'));
  var svg = svgs.filter(function (s) { return s.getClientRects().length > 0; })[0] || svgs[0];
  var blob = new Blob(['<?xml version="1.0" encoding="UTF-8"?>\n' + svg.outerHTML], { type: 'image/svg+xml' });
  var a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = svg.id + '.svg';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
});
"#;

/// The whole document.
pub fn document(title: &str, subtitle: &str, sections: &[Section]) -> String {
    let mut html = String::with_capacity(256 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><main><h1>{}</h1><p class=\"muted\">{}</p><nav>",
        esc(title),
        esc(title),
        esc(subtitle)
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
    let _ = writeln!(html, "</main><script>{SCRIPT}</script></body></html>");
    html
}
