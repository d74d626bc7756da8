//! What differs between stored runs beyond their figures: the machine (kernel, host, device,
//! firmware, the machine's checks), the tool, the moment (other work, steal time) and the
//! drive (changed under the test). `compare` says them on stderr and the page above its
//! verdicts, from this one place, so neither says less than the other.

use iolab_results::{JobRecord, RunRecord};

/// What differs between two runs' recorded machines (kernel, iolab, the machine checks that
/// both recorded) and the tools that measured them, a line each; none when nothing recorded
/// differs. A difference here may be the difference in the figures.
pub fn machine(a: &RunRecord, b: &RunRecord) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut differ = |what: &str, x: &str, y: &str| {
        if x != y && !x.is_empty() && !y.is_empty() {
            diffs.push(format!("{what} {x} vs {y}"));
        }
    };
    differ("kernel", &a.host.kernel, &b.host.kernel);
    differ("host", &a.host.hostname, &b.host.hostname);
    let disk = |r: &RunRecord, f: fn(&JobRecord) -> &Option<String>| {
        r.jobs.iter().find_map(|j| f(j).clone()).unwrap_or_default()
    };
    differ(
        "device",
        &disk(a, |j| &j.disk_model),
        &disk(b, |j| &j.disk_model),
    );
    differ(
        "device firmware",
        &disk(a, |j| &j.disk_firmware),
        &disk(b, |j| &j.disk_firmware),
    );
    for c in &a.host.machine {
        // The moment's checks (other work, steal) are the moment's, not the machine's: they
        // are said per run, by `moment_notes`.
        if MOMENT_CHECKS.contains(&c.name.as_str()) {
            continue;
        }
        if let Some(d) = b.host.machine.iter().find(|d| d.name == c.name) {
            differ(&c.name, &c.value, &d.value);
        }
    }
    let mut lines = Vec::new();
    if !diffs.is_empty() {
        lines.push(format!(
            "iolab: warning: runs {} and {} were measured on differing machines: {}",
            a.id,
            b.id,
            diffs.join("; ")
        ));
    }
    // The tool is not the machine: an imported fio run on this host differs only in it.
    let (ta, tb) = (&a.iolab_version, &b.iolab_version);
    if ta != tb && !ta.is_empty() && !tb.is_empty() {
        lines.push(format!(
            "iolab: note: runs {} and {} were measured by different tools: {} vs {}",
            a.id,
            b.id,
            tool_name(ta),
            tool_name(tb)
        ));
    }
    lines
}

/// Machine checks that describe the moment a run started, not the machine.
const MOMENT_CHECKS: [&str; 2] = ["load from others", "steal time"];

/// A version as a tool's name: iolab's own versions are bare numbers.
fn tool_name(v: &str) -> String {
    match v.starts_with(|c: char| c.is_ascii_digit()) {
        true => format!("iolab {v}"),
        false => v.to_string(),
    }
}

/// What distorted a run when it started (other work, steal time), as one line.
pub fn moment(r: &RunRecord) -> Option<String> {
    let bad: Vec<String> = r
        .host
        .machine
        .iter()
        .filter(|c| MOMENT_CHECKS.contains(&c.name.as_str()))
        .filter(|c| c.verdict == iolab_results::Verdict::Distorts)
        .map(|c| format!("{} {}", c.name, c.value))
        .collect();
    (!bad.is_empty()).then(|| {
        format!(
            "iolab: note: run {} started on a busy machine: {}",
            r.id,
            bad.join("; ")
        )
    })
}

/// A run whose drive changed under the test (throttled, crossed its warning temperature,
/// raised a critical warning): its figures are not a steady drive's, whatever the verdicts.
pub fn drive(r: &RunRecord) -> Option<String> {
    iolab_results::record_changed(&r.jobs).then(|| {
        let lines = iolab_results::record_lines(&r.jobs);
        format!(
            "iolab: warning: run {}'s drive changed under the test, so its figures are not a \
             steady drive's: {}",
            r.id,
            lines.join("; ")
        )
    })
}
