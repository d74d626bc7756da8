//! One result, every output: what the terminal says of a run (its notes, its marks, the
//! settings two runs differ in) is what the page, `show`, `export` and `history` say, since
//! all of them render the result the run stored.

use std::path::{Path, PathBuf};

use crate::support::iolab;

/// A zram device of the test's own, never written (hot-added, sized, removed on drop).
struct FreshZram(u32);

impl FreshZram {
    fn add() -> Result<FreshZram, String> {
        let id = std::fs::read_to_string("/sys/class/zram-control/hot_add")
            .map_err(|e| format!("no zram-control ({e})"))?;
        let id: u32 = id
            .trim()
            .parse()
            .map_err(|e| format!("hot_add said {id:?}: {e}"))?;
        let z = FreshZram(id);
        std::fs::write(format!("/sys/block/zram{id}/disksize"), "256M")
            .map_err(|e| format!("could not size zram{id}: {e}"))?;
        Ok(z)
    }

    fn path(&self) -> PathBuf {
        PathBuf::from(format!("/dev/zram{}", self.0))
    }
}

impl Drop for FreshZram {
    fn drop(&mut self) {
        let _ = std::fs::write("/sys/class/zram-control/hot_remove", self.0.to_string());
    }
}

/// The page's text with the few entities the page writes turned back into characters.
fn page_text(page: &Path) -> String {
    std::fs::read_to_string(page)
        .unwrap()
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The run id in "saved as run N".
fn saved(stderr: &str) -> String {
    let at = stderr.find("saved as run ").expect(stderr) + "saved as run ".len();
    stderr[at..].split_whitespace().next().unwrap().to_string()
}

/// The main job on a never-written zram with psync, mmap and io_uring: every note the
/// terminal printed is on the page, in `show` and in the Markdown export; `history` names a
/// best only for the run whose tables marked one.
#[test]
fn the_main_jobs_notes_are_in_every_output_and_history_claims_no_unmarked_best() {
    let _dev = crate::support::device_lock();
    let z = match FreshZram::add() {
        Ok(z) => z,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let (target, db) = (z.path(), db.to_str().unwrap().to_string());
    let main = |extra: &[&str]| {
        let mut a = vec![
            "--target",
            target.to_str().unwrap(),
            "--engines=psync,mmap,io_uring",
        ];
        a.extend(extra);
        a.extend(["--db", &db]);
        let out = iolab(&a);
        assert_eq!(out.code, 0, "{}", out.stderr);
        (out.stdout, saved(&out.stderr))
    };
    let (stdout, run) = main(&[]);
    let notes: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("- note: "))
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("held written data")),
        "a never-written zram's note: {stdout}"
    );
    assert!(notes.len() >= 2, "{stdout}");
    let page = dir.path().join("page.html");
    let out = iolab(&["report", &run, "--db", &db, "-o", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = page_text(&page);
    let shown = iolab(&["show", &run, "--db", &db]).stdout;
    let exported = iolab(&["export", &run, "--db", &db, "--format", "markdown"]).stdout;
    for n in &notes {
        // The page says a path not served as asked with its † line: the kernel's reason.
        let reason = n.split_once(": ").map_or(*n, |(_, r)| r);
        assert!(page.contains(n) || page.contains(reason), "page lacks: {n}");
        assert!(shown.contains(n), "show lacks: {n}");
        assert!(exported.contains(reason), "export lacks: {n}\n{exported}");
    }
    // The history line names a best only where the tables bolded one.
    let (_, once) = main(&["--repeat", "1"]);
    let h = iolab(&["history", "--db", &db]).stdout;
    let line = |id: &str| {
        h.lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("{id} in {h}"))
            .to_string()
    };
    assert!(!line(&once).contains(" best "), "{h}");
    assert!(line(&once).contains("no best: a cell measured once"), "{h}");
    let iops_marked = stdout
        .split("| IOPS ")
        .nth(1)
        .is_some_and(|t| t.lines().nth(2).is_some_and(|l| l.contains("**")));
    assert_eq!(line(&run).contains(" best "), iops_marked, "{h}\n{stdout}");
}

/// A report of two runs of one job, one on libaio and one on io_uring, says so above its
/// verdicts, as `compare` does.
#[test]
fn a_report_of_runs_on_two_engines_names_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let run = |engine: &str| {
        let out = iolab(&[
            "run",
            "--name=one",
            &format!("--filename={}", dir.path().join("f").display()),
            "--size=8m",
            "--rw=randread",
            "--bs=4k",
            &format!("--ioengine={engine}"),
            "--runtime=200ms",
            "--time_based",
            "--db",
            db,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        saved(&out.stderr)
    };
    let (a, b) = (run("libaio"), run("io_uring"));
    let said = iolab(&["compare", &a, &b, "--db", db]).stdout;
    assert!(said.contains("engine libaio vs io_uring"), "{said}");
    let page = dir.path().join("p.html");
    let out = iolab(&["report", &a, &b, "--db", db, "-o", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = page_text(&page);
    let at = text
        .find("engine libaio vs io_uring")
        .expect("the page names the engines");
    let verdicts = text
        .find("<table class=\"verdicts\"")
        .expect("a verdict table");
    assert!(at < verdicts, "said above the verdicts");
}
