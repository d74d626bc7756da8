//! The charts' figures as plotly draws them: every point placed on its axis (latencies in
//! seconds for plotly's SI ticks, percentiles on the nines axis), hover text with the report's
//! own figures, overlaid runs dashed, marks, bars in order; empty, single-point and log-axis
//! edge cases; a day of seconds drawn as bands.

use iolab_html::chart::{Axis, Chart, Format, Mark, ScaleKind, Series};
use iolab_html::ladder::{bars, Rung};
use iolab_html::plot;
use serde_json::Value;

/// The chart's figure as the page carries it.
fn figure(c: &Chart) -> Value {
    serde_json::from_str(&plot::chart(c).0.to_json()).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
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
        y_switch: false,
        labels: Vec::new(),
    }
}

#[test]
fn an_overlaid_sweep_places_every_point_and_dashes_the_second_run() {
    let c = sweep();
    assert_eq!(c.drawable(), 8);
    let f = figure(&c);
    let data = f["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert_eq!(data[0]["name"], "run 1 (Optane) · randread");
    assert_eq!(floats(&data[0]["x"]), [1.0, 2.0, 4.0, 8.0, 16.0]);
    assert_eq!(floats(&data[1]["y"]), [11_000.0, 42_000.0, 160_000.0]);
    assert_eq!(
        data[0]["mode"], "lines+markers",
        "a short series keeps its markers"
    );
    assert!(data[0]["line"].get("dash").is_none());
    assert_eq!(data[1]["line"]["dash"], "dash", "the second run is dashed");
    assert_eq!(
        data[0]["text"][3],
        "run 1 (Optane) · randread<br>Queue depth: 8<br>IOPS: 540k"
    );
    let l = &f["layout"];
    assert_eq!(l["xaxis"]["type"], "log");
    assert_eq!(floats(&l["xaxis"]["tickvals"]), [1.0, 2.0, 4.0, 8.0, 16.0]);
    assert_eq!(l["xaxis"]["title"]["text"], "Queue depth");
    assert_eq!(l["yaxis"]["title"]["text"], "IOPS");
    assert_eq!(l["yaxis"]["tickformat"], "~s");
    // The mark's line sits at QD8; its label too, in log₁₀ units as plotly places annotations
    // on a log axis, left of the line in the right half.
    assert_eq!(l["shapes"][0]["x0"].as_f64(), Some(8.0));
    assert!((l["annotations"][0]["x"].as_f64().unwrap() - 8f64.log10()).abs() < 1e-12);
    assert_eq!(l["annotations"][0]["xanchor"], "right");
    assert_eq!(l["annotations"][0]["text"], "read saturates at QD8 (run 1)");
    assert_eq!(f["config"]["toImageButtonOptions"]["format"], "svg");
}

#[test]
fn a_nines_distribution_spaces_the_nines_evenly_and_draws_latency_in_seconds() {
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
        y_switch: false,
        labels: Vec::new(),
    };
    let f = figure(&c);
    let x = floats(&f["data"][0]["x"]);
    // Evenly spaced nines: 90→99 as wide as 99→99.9.
    assert!(((x[2] - x[1]) - (x[3] - x[2])).abs() < 1e-9, "{x:?}");
    assert!((x[2] - 2.0).abs() < 1e-9);
    let y = floats(&f["data"][0]["y"]);
    assert!((y[0] - 9.8e-6).abs() < 1e-15, "{y:?}");
    let l = &f["layout"];
    let ticks: Vec<&str> = l["xaxis"]["ticktext"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(ticks, ["50", "90", "99", "99.9", "99.99", "99.999"]);
    assert_eq!(l["yaxis"]["type"], "log");
    let yticks: Vec<&str> = l["yaxis"]["ticktext"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        yticks.contains(&"10 µs") && yticks.contains(&"200 µs"),
        "{yticks:?}"
    );
    assert_eq!(
        f["data"][0]["text"][5],
        "io_uring<br>Percentile: 99.999<br>Latency: 210.00 µs"
    );
    assert!(c.table(None).contains("<td>99.999</td><td>210.00 µs</td>"));
}

#[test]
fn empty_single_point_and_unshowable_values() {
    let mut c = sweep();
    c.series.clear();
    c.marks.clear();
    assert_eq!(c.drawable(), 0);
    assert!(figure(&c)["data"].as_array().unwrap().is_empty());
    c.series.push(Series {
        name: "one".into(),
        points: vec![(4.0, 1000.0)],
        dashed: false,
    });
    let f = figure(&c);
    assert_eq!(f["data"][0]["mode"], "markers", "one point has no line");
    // Zero and negative values cannot sit on a log axis: left out, and not counted.
    c.y.scale = ScaleKind::Log10;
    c.series[0].points = vec![(1.0, 0.0), (2.0, -5.0), (4.0, 300.0)];
    assert_eq!(c.drawable(), 1);
    assert_eq!(floats(&figure(&c)["data"][0]["x"]), [4.0]);
}

#[test]
fn the_ladder_climbs_with_the_measured_rung_in_colour() {
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
    let b = bars(&rungs);
    assert_eq!(b.drawable(), 4);
    let f: Value = serde_json::from_str(&plot::bars(&b).to_json()).unwrap();
    let d = &f["data"][0];
    assert_eq!(d["orientation"], "h");
    assert_eq!(d["y"][2], "run 1 (zram0) QD1 4k read (psync)");
    assert_eq!(d["marker"]["color"][2], "#e15759");
    assert_eq!(d["marker"]["color"][1], "#9aa5b1");
    assert_eq!(f["layout"]["xaxis"]["type"], "log");
    // The first rung on top, each bar's latency written at its end.
    assert_eq!(floats(&f["layout"]["yaxis"]["range"]), [3.5, -0.5]);
    let ends: Vec<&str> = f["layout"]["annotations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap())
        .collect();
    assert!(
        ends.contains(&"3.84 µs") && ends.contains(&"10 ms") && ends.contains(&"0.333 ns"),
        "{ends:?}"
    );
}

#[test]
fn a_time_series_has_no_markers_even_on_its_short_lines() {
    let axis = |t: &str, s| Axis {
        title: t.into(),
        scale: s,
        format: Format::Nanos,
    };
    let line = |name: &str, n: usize| Series {
        name: name.into(),
        points: (0..n).map(|t| (t as f64, 1e4 + t as f64)).collect(),
        dashed: false,
    };
    let c = Chart::lines(
        "c",
        "c",
        axis("Time (s)", ScaleKind::Linear),
        axis("Latency", ScaleKind::Log10),
        vec![line("p99", 1200), line("device p99", 30)],
    );
    let f = figure(&c);
    for t in f["data"].as_array().unwrap() {
        assert_eq!(t["mode"], "lines", "{}", t["name"]);
    }
}

#[test]
fn a_day_of_seconds_is_drawn_as_bands_without_markers() {
    let axis = |t: &str, s, f| Axis {
        title: t.into(),
        scale: s,
        format: f,
    };
    let series = |name: &str, base: f64| Series {
        name: name.into(),
        points: (0..86_400)
            .map(|t| (t as f64, if t == 50_000 { 5e6 } else { base }))
            .collect(),
        dashed: false,
    };
    let c = Chart::lines(
        "consistency-randread",
        "day",
        axis("Time (s)", ScaleKind::Linear, Format::Plain),
        axis("Latency", ScaleKind::Log10, Format::Nanos),
        vec![series("p50", 10_000.0), series("p99", 30_000.0)],
    );
    let (p, reduced) = plot::chart(&c);
    let r = reduced.expect("reduced");
    assert_eq!(r.width, 60.0);
    let f: Value = serde_json::from_str(&p.to_json()).unwrap();
    let data = f["data"].as_array().unwrap();
    assert_eq!(data.len(), 4, "two edges per series");
    for t in data {
        assert_eq!(t["mode"], "lines");
        assert_eq!(t["x"].as_array().unwrap().len(), 1440);
    }
    assert_eq!(data[1]["fill"], "tonexty");
    assert_eq!(data[1]["name"], "p50");
    // The one-second spike is the band's top at its minute.
    assert!(floats(&data[0]["y"])
        .iter()
        .any(|y| (*y - 5e-3).abs() < 1e-12));
    // Drag zooms time alone.
    assert_eq!(f["layout"]["yaxis"]["fixedrange"], true);
    assert!(p.to_json().len() < 300_000, "{}", p.to_json().len());
}
