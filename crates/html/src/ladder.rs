//! The latency ladder of the PC Perspective article: from one CPU cycle to a floppy drive on
//! a logarithmic axis, with the measured device placed among them. Every reference value is
//! cited on the page.

use std::fmt::Write as _;

use crate::chart::{esc, Axis, BarSet, Bars, Format, ScaleKind};
use crate::page::{bars_block_with_table, Section};

/// One rung of the latency ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    pub label: String,
    pub ns: f64,
    /// Measured by iolab (drawn in colour) rather than a reference.
    pub measured: bool,
}

/// The ladder as bars on a logarithmic latency axis, one row per rung, the measured ones in
/// colour, each bar's latency at its end.
pub fn bars(rungs: &[Rung]) -> Bars {
    Bars {
        id: "latency-ladder".into(),
        title: "The latency ladder: this device among reference latencies".into(),
        category_title: "Rung".into(),
        categories: rungs.iter().map(|r| r.label.clone()).collect(),
        value: Axis {
            title: "Latency (log scale)".into(),
            scale: ScaleKind::Log10,
            format: Format::Nanos,
        },
        sets: vec![BarSet {
            name: "latency".into(),
            values: rungs.iter().map(|r| r.ns).collect(),
            colors: rungs
                .iter()
                .map(|r| if r.measured { "#e15759" } else { "#9aa5b1" }.to_string())
                .collect(),
            intervals: Vec::new(),
        }],
        totals: true,
        grouped: false,
    }
}

/// A reference latency and where it comes from.
pub struct Reference {
    pub label: &'static str,
    pub ns: f64,
    /// Index into [`SOURCES`].
    pub source: usize,
}

/// Where the references come from.
pub const SOURCES: [(&str, &str); 5] = [
    (
        "One cycle of a 3 GHz clock: 1 / 3 GHz.",
        "",
    ),
    (
        "Jeff Dean, \"Latency numbers every programmer should know\" (as collected by Jonas Bonér)",
        "https://gist.github.com/jboner/2841832",
    ),
    (
        "Intel SSD DC P3700 Series product specification (330566): sequential latency, typical, 20 µs read",
        "https://www.intel.com/content/www/us/en/products/sku/79624/intel-ssd-dc-p3700-series-400gb-2-5in-pcie-3-0-20nm-mlc/specifications.html",
    ),
    (
        "Intel Optane SSD DC P4800X: about 10 µs reads (the SPDK blog and AnandTech reviews this project's seeds quote)",
        "https://www.anandtech.com/show/11209/intel-optane-ssd-dc-p4800x-review-a-deep-dive-into-3d-xpoint-enterprise-performance",
    ),
    (
        "A 3.5-inch floppy drive turns at 300 rpm: half a turn, the mean rotational wait, is 100 ms (before any seek)",
        "",
    ),
];

pub const REFERENCES: [Reference; 9] = [
    Reference {
        label: "CPU cycle (3 GHz)",
        ns: 0.333,
        source: 0,
    },
    Reference {
        label: "L1 cache reference",
        ns: 0.5,
        source: 1,
    },
    Reference {
        label: "L2 cache reference",
        ns: 7.0,
        source: 1,
    },
    Reference {
        label: "DRAM (main memory reference)",
        ns: 100.0,
        source: 1,
    },
    Reference {
        label: "Optane SSD DC P4800X read",
        ns: 10_000.0,
        source: 3,
    },
    Reference {
        label: "NAND NVMe SSD read (DC P3700)",
        ns: 20_000.0,
        source: 2,
    },
    Reference {
        label: "SATA-era SSD, 4 KiB random read",
        ns: 150_000.0,
        source: 1,
    },
    Reference {
        label: "HDD seek",
        ns: 10_000_000.0,
        source: 1,
    },
    Reference {
        label: "Floppy disk (rotational wait)",
        ns: 100_000_000.0,
        source: 4,
    },
];

/// The ladder with `measured` (label, mean ns) placed by value among the references.
pub fn section(measured: &[(String, f64)]) -> Section {
    let mut rungs: Vec<(Rung, Option<usize>)> = REFERENCES
        .iter()
        .map(|r| {
            (
                Rung {
                    label: r.label.to_string(),
                    ns: r.ns,
                    measured: false,
                },
                Some(r.source),
            )
        })
        .collect();
    for (label, ns) in measured {
        rungs.push((
            Rung {
                label: label.clone(),
                ns: *ns,
                measured: true,
            },
            None,
        ));
    }
    rungs.sort_by(|a, b| a.0.ns.total_cmp(&b.0.ns));
    let only: Vec<Rung> = rungs.iter().map(|r| r.0.clone()).collect();
    let mut table = String::from("<table class=\"data\"><thead><tr><th>rung</th><th>latency (ns)</th><th>source</th></tr></thead><tbody>");
    for (r, src) in &rungs {
        let _ = write!(
            table,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.label),
            r.ns,
            src.map_or("measured by iolab".to_string(), |i| format!("[{}]", i + 1))
        );
    }
    table.push_str("</tbody></table>");
    let mut cites = String::from("<ol class=\"sources\">");
    for (text, url) in SOURCES {
        if url.is_empty() {
            let _ = write!(cites, "<li>{}</li>", esc(text));
        } else {
            let _ = write!(
                cites,
                "<li>{} — <a href=\"{}\">{}</a></li>",
                esc(text),
                esc(url),
                esc(url)
            );
        }
    }
    cites.push_str("</ol>");
    Section::new(
        "ladder",
        "The latency ladder",
        format!(
            "<p>The measured QD1 4 KiB random read latency (mean, best path) on a logarithmic axis among reference latencies, from a CPU cycle to a floppy drive (the PC Perspective chart).</p>{}<p>References:</p>{cites}",
            bars_block_with_table(&bars(&only), &table)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_climb_and_the_device_lands_between_them() {
        assert!(REFERENCES.windows(2).all(|w| w[0].ns <= w[1].ns));
        let s = section(&[("run 1 (vda) QD1 4k read (psync)".into(), 60_000.0)]);
        let pos = |needle: &str| s.body.find(needle).unwrap();
        assert!(pos("NAND NVMe SSD read") < pos("run 1 (vda)"));
        assert!(pos("run 1 (vda)") < pos("SATA-era SSD"));
        assert!(s.body.contains("data-points=\"10\""));
        assert!(s.body.contains("https://gist.github.com/jboner/2841832"));
    }
}
