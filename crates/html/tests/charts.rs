//! Snapshot tests of the generated SVG (regenerate with `IOLAB_UPDATE_SNAPSHOTS=1`), and the
//! chart geometry a reader relies on: every point drawn inside the plot, hover text, axis
//! titles, legends; empty, single-point and log-axis edge cases.

use iolab_html::scale::ScaleKind;
use iolab_html::svg::{ladder, Axis, Chart, Format, Mark, Rung, Series};

fn snapshot(name: &str, got: &str) {
    let path = format!("{}/tests/snapshots/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("IOLAB_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{path} missing: run with IOLAB_UPDATE_SNAPSHOTS=1"));
    assert!(want == got, "{name} differs from the snapshot; rerun with IOLAB_UPDATE_SNAPSHOTS=1 if intended\n--- got:\n{got}");
}

fn sweep() -> Chart {
    Chart {
        id: "sweep-iops".into(),
        title: "4 KiB random IOPS vs queue depth".into(),
        x: Axis {
            title: "Queue depth".into(),
            scale: ScaleKind::Log2,
            format: Format::Plain,
        },
        y: Axis {
            title: "IOPS".into(),
            scale: ScaleKind::Linear,
            format: Format::Count,
        },
        series: vec![
            Series {
                name: "run 1 (Optane) · randread".into(),
                points: vec![
                    (1.0, 95_000.0),
                    (2.0, 180_000.0),
                    (4.0, 330_000.0),
                    (8.0, 540_000.0),
                    (16.0, 550_000.0),
                ],
                dashed: false,
            },
            Series {
                name: "run 2 (P3700) · randread".into(),
                points: vec![(1.0, 11_000.0), (4.0, 42_000.0), (16.0, 160_000.0)],
                dashed: true,
            },
        ],
        marks: vec![Mark {
            x: 8.0,
            label: "read saturates at QD8 (run 1)".into(),
        }],
        lines: true,
    }
}

/// Attribute values of every `<circle class="pt">`: (cx, cy).
fn circles(svg: &str) -> Vec<(f64, f64)> {
    svg.split("<circle class=\"pt\"")
        .skip(1)
        .map(|c| {
            let attr = |a: &str| -> f64 {
                let i = c.find(&format!("{a}=\"")).unwrap() + a.len() + 2;
                c[i..c[i..].find('"').unwrap() + i].parse().unwrap()
            };
            (attr("cx"), attr("cy"))
        })
        .collect()
}

#[test]
fn an_overlaid_sweep_matches_its_snapshot() {
    let svg = sweep().render();
    snapshot("sweep.svg", &svg);
    assert!(svg.contains("data-points=\"8\""));
    let pts = circles(&svg);
    assert_eq!(pts.len(), 8);
    // Inside the plot area: x in [96, 912], y in [36, 356].
    assert!(
        pts.iter()
            .all(|(x, y)| (96.0..=912.0).contains(x) && (36.0..=356.0).contains(y)),
        "{pts:?}"
    );
    // QD1 at the left edge, QD16 at the right; higher IOPS higher up.
    assert_eq!(pts[0].0, 96.0);
    assert_eq!(pts[4].0, 912.0);
    assert!(pts[4].1 < pts[0].1);
    assert!(svg.contains("<title>run 1 (Optane) · randread: Queue depth 8, IOPS 540k</title>"));
    assert!(
        svg.contains("stroke-dasharray=\"6 4\""),
        "the second run is dashed"
    );
    assert_eq!(svg.matches("class=\"legend\"").count(), 2);
    assert!(svg.contains(">Queue depth</text>") && svg.contains(">IOPS</text>"));
    assert!(svg.contains("read saturates at QD8 (run 1)"));
}

#[test]
fn a_nines_distribution_matches_its_snapshot() {
    let c = Chart {
        id: "distribution-randread".into(),
        title: "QD1 4 KiB random read latency distribution per engine".into(),
        x: Axis {
            title: "Percentile".into(),
            scale: ScaleKind::Nines,
            format: Format::Percentile,
        },
        y: Axis {
            title: "Latency".into(),
            scale: ScaleKind::Log10,
            format: Format::Nanos,
        },
        series: vec![Series {
            name: "io_uring".into(),
            points: vec![
                (50.0, 9_800.0),
                (90.0, 10_400.0),
                (99.0, 11_900.0),
                (99.9, 25_000.0),
                (99.99, 80_000.0),
                (99.999, 210_000.0),
            ],
            dashed: false,
        }],
        marks: vec![],
        lines: true,
    };
    let svg = c.render();
    snapshot("distribution.svg", &svg);
    for label in [
        ">50<",
        ">90<",
        ">99<",
        ">99.9<",
        ">99.99<",
        ">99.999<",
        ">10 µs<",
        ">100 µs<",
    ] {
        assert!(svg.contains(label), "tick {label}");
    }
    let pts = circles(&svg);
    // Evenly spaced nines: 90→99 as wide as 99→99.9.
    assert!(
        ((pts[2].0 - pts[1].0) - (pts[3].0 - pts[2].0)).abs() < 0.2,
        "{pts:?}"
    );
    assert!(c.table().contains("<td>99.999</td><td>210.00 µs</td>"));
}

#[test]
fn empty_single_point_and_unshowable_values() {
    let mut c = sweep();
    c.series.clear();
    c.marks.clear();
    let svg = c.render();
    assert!(svg.contains("data-points=\"0\"") && svg.contains(">no data<"));
    assert!(circles(&svg).is_empty());
    c.series.push(Series {
        name: "one".into(),
        points: vec![(4.0, 1000.0)],
        dashed: false,
    });
    let svg = c.render();
    let pts = circles(&svg);
    assert_eq!(pts.len(), 1);
    assert!(pts[0].0.is_finite() && pts[0].1.is_finite());
    assert!(!svg.contains("<polyline"), "one point has no line");
    // Zero and negative values cannot sit on a log axis: left out, and not counted.
    c.y.scale = ScaleKind::Log10;
    c.series[0].points = vec![(1.0, 0.0), (2.0, -5.0), (4.0, 300.0)];
    let svg = c.render();
    assert!(svg.contains("data-points=\"1\""));
    assert_eq!(circles(&svg).len(), 1);
}

#[test]
fn the_ladder_matches_its_snapshot() {
    let rungs = vec![
        Rung {
            label: "CPU cycle (3 GHz)".into(),
            ns: 0.333,
            measured: false,
        },
        Rung {
            label: "DRAM".into(),
            ns: 100.0,
            measured: false,
        },
        Rung {
            label: "run 1 (zram0) QD1 4k read (psync)".into(),
            ns: 3_840.0,
            measured: true,
        },
        Rung {
            label: "HDD seek".into(),
            ns: 10_000_000.0,
            measured: false,
        },
    ];
    let svg = ladder("latency-ladder", "The latency ladder", &rungs);
    snapshot("ladder.svg", &svg);
    assert!(svg.contains(">0.333 ns<") && svg.contains(">3.84 µs<") && svg.contains(">10 ms<"));
    let pts = circles(&svg);
    assert_eq!(pts.len(), 4);
    assert!(
        pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1),
        "{pts:?}"
    );
}
