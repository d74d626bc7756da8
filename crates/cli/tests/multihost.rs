//! Many hosts in one run: `mpirun -n 4 iolab run` on this machine (four ranks on one host,
//! `--oversubscribe`), real I/O on temp files. With the `mpi` feature: the merged JSON, the
//! stonewall, one rank's bad input, the stored run. Without it: the refusal a user gets.
//! Skipped with a printed reason where `mpirun` is missing.

mod support;

use std::path::Path;
use std::process::Command;

/// `mpirun` as root may run ranks only when told so; four ranks on two cores need
/// `--oversubscribe`.
fn mpirun(n: u32, db: &Path, args: &[&str]) -> Option<support::Out> {
    if Command::new("mpirun").arg("--version").output().is_err() {
        println!("skipped: mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev)");
        return None;
    }
    let o = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            &n.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_iolab"))
        .arg("run")
        .arg(format!("--db={}", db.display()))
        .args(args)
        .output()
        .unwrap();
    Some(support::Out::of(&o))
}

/// The iolab error lines of stderr (mpirun adds its own banner around them).
fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("iolab: error"))
        .collect()
}

#[cfg(not(feature = "mpi"))]
#[test]
fn without_the_feature_mpirun_gets_one_line_saying_how_to_build() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.{rank}");
    let f = f.to_str().unwrap();
    let args = ["--name=x", "--filename", f, "--size=1m", "--rw=read"];
    let Some(out) = mpirun(2, &dir.path().join("db"), &args) else {
        return;
    };
    assert_eq!(out.code, 2, "{}", out.stderr);
    let errors = error_lines(&out.stderr);
    assert_eq!(errors.len(), 1, "{}", out.stderr);
    assert!(errors[0].contains("--features mpi"), "{}", errors[0]);
    assert!(!dir.path().join("f.0").exists(), "nothing laid out");
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use serde_json::Value;

    fn client_stats(doc: &Value) -> (Vec<&Value>, &Value) {
        let stats: Vec<&Value> = doc["client_stats"].as_array().unwrap().iter().collect();
        let (all, hosts) = stats.split_last().unwrap();
        assert_eq!(all["jobname"], "All clients");
        (hosts.to_vec(), all)
    }

    fn p99(job: &Value) -> u64 {
        job["read"]["clat_ns"]["percentile"]["99.000000"]
            .as_u64()
            .unwrap()
    }

    #[test]
    fn four_ranks_merge_exactly_and_start_together() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.{rank}");
        let args = [
            "--name=rr",
            "--filename",
            f.to_str().unwrap(),
            "--size=4m",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=psync",
            "--output-format=json",
        ];
        let Some(out) = mpirun(4, &dir.path().join("db"), &args) else {
            return;
        };
        assert_eq!(out.code, 0, "{}", out.stderr);
        let doc: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("one JSON document: {e}\n{}", out.stdout));
        let (hosts, all) = client_stats(&doc);
        assert_eq!(hosts.len(), 4);
        let ranks: Vec<u64> = hosts
            .iter()
            .map(|h| h["iolab"]["rank"].as_u64().unwrap())
            .collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
        for h in &hosts {
            assert!(h["hostname"].as_str().is_some_and(|s| !s.is_empty()));
            assert_eq!(h["read"]["total_ios"], 1024, "4 MiB in 4 KiB reads");
        }
        let sum: u64 = hosts
            .iter()
            .map(|h| h["read"]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(all["read"]["total_ios"].as_u64().unwrap(), sum);
        let p99s: Vec<u64> = hosts.iter().map(|h| p99(h)).collect();
        let merged = p99(all);
        let (lo, hi) = (*p99s.iter().min().unwrap(), *p99s.iter().max().unwrap());
        assert!(
            (lo..=hi).contains(&merged),
            "merged p99 {merged} outside the hosts' {p99s:?}"
        );
        let skew = doc["iolab"]["start_skew_ns"].as_u64().unwrap();
        assert!(skew < 1_000_000, "start skew {skew} ns");
        assert_eq!(doc["iolab"]["hosts"], 4);
        assert_eq!(doc["iolab"]["stonewall"], false);
        assert_eq!(doc["iolab"]["stonewalled"], false);
    }

    #[test]
    fn stonewall_stops_every_rank_when_the_first_finishes() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.{rank}");
        // Rank 0 reads 1 MiB, the others 11, 21, 31 MiB, all at 1000 IOPS: rank 0 is done
        // after about 0.26 s, the last would need 8 s.
        let args = [
            "--name=rr",
            "--filename",
            f.to_str().unwrap(),
            "--size={rank}1m",
            "--bs=4k",
            "--rw=randread",
            "--rate_iops=1000",
            "--stonewall-hosts",
            "--output-format=json",
        ];
        let start = std::time::Instant::now();
        let Some(out) = mpirun(4, &dir.path().join("db"), &args) else {
            return;
        };
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(start.elapsed().as_secs() < 6, "took {:?}", start.elapsed());
        let doc: Value = serde_json::from_str(&out.stdout).unwrap();
        let (hosts, _) = client_stats(&doc);
        assert_eq!(hosts[0]["read"]["total_ios"], 256);
        assert_eq!(hosts[0]["iolab"]["notes"], serde_json::json!([]));
        assert_eq!(hosts[0]["iolab"]["stonewalled"], false);
        for h in &hosts[1..] {
            let ios = h["read"]["total_ios"].as_u64().unwrap();
            assert!(ios < 2816, "rank {}: {ios} I/Os", h["iolab"]["rank"]);
            assert!(h["iolab"]["notes"][0]
                .as_str()
                .unwrap()
                .starts_with("stonewalled"));
            assert_eq!(h["iolab"]["interrupted"], false);
            assert_eq!(h["iolab"]["stonewalled"], true);
        }
        assert_eq!(doc["iolab"]["stonewall"], true);
        assert_eq!(doc["iolab"]["stonewalled"], true);
    }

    #[test]
    fn one_ranks_bad_target_stops_all_with_one_line_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("f.2")).unwrap();
        let f = dir.path().join("f.{rank}");
        let args = ["--name=r", "--filename", f.to_str().unwrap(), "--size=1m"];
        let Some(out) = mpirun(4, &dir.path().join("db"), &args) else {
            return;
        };
        assert_eq!(out.code, 2, "{}", out.stderr);
        let errors = error_lines(&out.stderr);
        assert_eq!(errors.len(), 1, "{}", out.stderr);
        assert!(errors[0].contains("rank 2"), "{}", errors[0]);
        assert!(!dir.path().join("f.0").exists(), "nothing laid out");
    }

    #[test]
    fn the_stored_run_shows_each_host_and_the_report_charts_them() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let args = [
            "--name=n",
            "--ioengine=null",
            "--size=64m",
            "--rw=randread",
            "--output-format=normal",
        ];
        let Some(out) = mpirun(4, &db, &args) else {
            return;
        };
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains("All clients (4 hosts"),
            "{}",
            out.stdout
        );
        assert!(
            out.stdout.contains("| 3 |"),
            "a row per rank: {}",
            out.stdout
        );
        let db_arg = format!("--db={}", db.display());
        let show = support::iolab(&["show", &db_arg, "1"]);
        assert_eq!(show.code, 0, "{}", show.stderr);
        assert!(show.stdout.contains("Per host: 4 hosts"), "{}", show.stdout);
        // The aggregate is the run's one job: 4 × 16384 I/Os.
        let json = support::iolab(&["show", &db_arg, "1", "--output-format=json"]);
        let rec: Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(rec["jobs"].as_array().unwrap().len(), 1);
        assert_eq!(rec["meta"]["per_host"].as_array().unwrap().len(), 4);
        let html = dir.path().join("r.html");
        let rep = support::iolab(&["report", &db_arg, "1", "-o", html.to_str().unwrap()]);
        assert_eq!(rep.code, 0, "{}", rep.stderr);
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(
            page.contains("id=\"fig-hosts-1-iops\""),
            "per-host IOPS chart"
        );
        assert!(
            page.contains("id=\"fig-hosts-1-p99\""),
            "per-host p99 chart"
        );
        assert!(page.contains("rank 3"));
    }
}
