//! fio's steady-state options (`steadystate`/`ss`, `ss_dur`, `ss_ramp`, fio 3.42's
//! `ss_interval`), parsed as fio 3.42's `str_steadystate_cb()` does: a criterion, a colon, and
//! a limit that is a percentage of the mean when it ends in `%`, else IOPS, a bandwidth with
//! fio's size units, or for `lat` a time.

use iolab_job::{SteadyMetric, SteadyState};

use crate::options::{JobDraft, OptionDef, ValueKind};
use crate::units::{parse_size, parse_time, parse_time_us};

/// `iops:10%`, `bw_slope:1%`, `iops:50`, `bw:10m` into the criterion of `ss`.
fn parse_criterion(ss: &mut SteadyState, v: &str) -> Result<(), String> {
    let (name, limit) = match v.trim().split_once(':') {
        Some((n, l)) => (n.trim(), l.trim()),
        None => (v.trim(), ""),
    };
    (ss.metric, ss.slope) = match name {
        "iops" => (SteadyMetric::Iops, false),
        "iops_slope" => (SteadyMetric::Iops, true),
        "bw" => (SteadyMetric::Bw, false),
        "bw_slope" => (SteadyMetric::Bw, true),
        "lat" => (SteadyMetric::Lat, false),
        "lat_slope" => (SteadyMetric::Lat, true),
        _ => {
            return Err(format!(
                "'{name}' is not iops, iops_slope, bw, bw_slope, lat or lat_slope"
            ))
        }
    };
    if limit.is_empty() {
        return Err("a threshold must follow the criterion, as in iops:10%".into());
    }
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .map_err(|_| format!("'{s}' is not a number"))
    };
    (ss.limit, ss.percent) = match limit.strip_suffix('%') {
        Some(p) => (number(p)?, true),
        None if ss.metric == SteadyMetric::Iops => (number(limit)?, false),
        // fio 3.42 reads the limit as a time in µs (`check_str_time`) and compares that
        // number with nanoseconds: `lat:20` and `lat:20us` allow 20 ns. Taken as fio does.
        None if ss.metric == SteadyMetric::Lat => (parse_time_us(limit)?.as_micros() as f64, false),
        None => (parse_size(limit)? as f64, false),
    };
    Ok(())
}

pub static STEADY_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "steadystate",
        alias: Some("ss"),
        kind: ValueKind::Str,
        help: "End the job (its reporting group, with group_reporting) at steady state: `iops`, `bw` or `lat` (mean completion latency; fio 3.42) by the largest deviation from the window's mean, or `iops_slope`/`bw_slope`/`lat_slope` by the least-squares slope per sample, a colon, and the limit: a % of the mean, or IOPS, bytes/s, or for lat a number fio 3.42 reads as µs and compares with ns (`lat:20` allows 20 ns), e.g. `iops:10%`. Needs `ss_dur`.",
        apply: |d: &mut JobDraft, v| parse_criterion(&mut d.spec.steady, v),
    },
    OptionDef {
        name: "steadystate_duration",
        alias: Some("ss_dur"),
        kind: ValueKind::Time,
        help: "Seconds of once-a-second samples the steady-state criterion must hold over (seconds unless a unit is given; 0: no steady-state check).",
        apply: |d, v| {
            d.spec.steady.duration_s = u32::try_from(parse_time(v)?.as_secs())
                .map_err(|_| format!("'{v}' is too long"))?;
            Ok(())
        },
    },
    OptionDef {
        name: "steadystate_check_interval",
        alias: Some("ss_interval"),
        kind: ValueKind::Time,
        help: "Time between steady-state samples (fio 3.42; seconds unless a unit is given, at least 1 s, default 1): the window holds ss_dur / ss_interval samples, so ss_dur must be a larger multiple of it. The slope is per sample.",
        apply: |d, v| {
            let t = parse_time(v)?;
            if t.subsec_nanos() != 0 || t.is_zero() {
                return Err("must be whole seconds, at least 1s".into());
            }
            d.spec.steady.interval_s =
                u32::try_from(t.as_secs()).map_err(|_| format!("'{v}' is too long"))?;
            Ok(())
        },
    },
    OptionDef {
        name: "steadystate_ramp_time",
        alias: Some("ss_ramp"),
        kind: ValueKind::Time,
        help: "Time from the job's start before steady-state samples are kept (seconds unless a unit is given).",
        apply: |d, v| {
            d.spec.steady.ramp = parse_time(v)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(v: &str) -> Result<SteadyState, String> {
        let mut ss = SteadyState::default();
        parse_criterion(&mut ss, v).map(|()| ss)
    }

    #[test]
    fn criteria_as_fio_reads_them() {
        let ss = parsed("iops:10%").unwrap();
        assert_eq!(
            (ss.metric, ss.slope, ss.limit, ss.percent),
            (SteadyMetric::Iops, false, 10.0, true)
        );
        let ss = parsed("bw_slope:1%").unwrap();
        assert_eq!(
            (ss.metric, ss.slope, ss.limit, ss.percent),
            (SteadyMetric::Bw, true, 1.0, true)
        );
        let ss = parsed("iops_slope:0.5").unwrap();
        assert_eq!((ss.limit, ss.percent), (0.5, false));
        assert_eq!(parsed("bw:10m").unwrap().limit, 10.0 * 1024.0 * 1024.0);
    }

    #[test]
    fn lat_criteria_take_fio_342s_time_number() {
        let ss = parsed("lat_slope:2%").unwrap();
        assert_eq!(
            (ss.metric, ss.slope, ss.limit, ss.percent),
            (SteadyMetric::Lat, true, 2.0, true)
        );
        // fio 3.42 reads a time in µs and compares that number with ns.
        assert_eq!(parsed("lat:20").unwrap().limit, 20.0);
        assert_eq!(parsed("lat:1ms").unwrap().limit, 1000.0);
        assert!(parsed("lat_mean:1%").is_err());
        assert_eq!(parsed("lat:5%").unwrap().describe(), "lat:5.000000%");
    }

    #[test]
    fn a_criterion_needs_a_known_name_and_a_limit() {
        assert!(parsed("iops").unwrap_err().contains("threshold"));
        assert!(parsed("clat:5%").unwrap_err().contains("lat_slope"));
        assert!(parsed("iops:x%").is_err());
    }
}
