//! iolab's repeats in the JSON (`--repeat N`): each job's fio-shaped figures pool every
//! repeat; `iolab.repeats` keeps each repeat's figures and each figure's 95 % interval.

use serde_json::{json, Map, Value};

use iolab_results::repeats::intervals;
use iolab_results::JobReport;

/// `iolab.repeats` of one job, for a job run more than once.
pub fn repeats_object(job: &JobReport) -> Option<Value> {
    if job.repeats.len() < 2 {
        return None;
    }
    let runs: Vec<Value> = job
        .repeats
        .iter()
        .map(|r| {
            let mut o = json!({
                "repeat": r.repeat,
                "started_unix_ms": r.started_unix_ms,
                "runtime_ns": r.runtime_ns,
            });
            if let (Value::Object(o), Ok(Value::Object(m))) =
                (&mut o, serde_json::to_value(&r.metrics))
            {
                o.extend(m);
            }
            o
        })
        .collect();
    let mut by_dir: Map<String, Value> = Map::new();
    for (dir, name, i) in intervals(&job.repeats) {
        let d = by_dir
            .entry(dir)
            .or_insert_with(|| Value::Object(Map::new()));
        d[name.as_str()] = json!({
            "mean": i.mean,
            "ci95_low": i.ci95_low,
            "ci95_high": i.ci95_high,
            "stddev": i.stddev,
            "min": i.min,
            "max": i.max,
        });
    }
    Some(json!({
        "count": job.repeats.len(),
        "confidence": 0.95,
        "runs": runs,
        "intervals": by_dir,
    }))
}
