//! A "no" is no: every spelling of a false `--allow-destroy` (and of every other flag) is
//! taken as false, the last one given wins, and a value that is no boolean is refused, never
//! read as consent.

use crate::support::{device_lock, loop_device};
use crate::{iolab_db, refused, sums, user_file};

const NO: [&str; 4] = ["0", "false", "no", "off"];

#[test]
fn allow_destroy_set_false_writes_neither_a_file_nor_a_loop_device() {
    let _g = device_lock();
    let (dir, file) = user_file(1 << 20);
    let db = dir.path().join("r.db");
    let Some(dev) = loop_device(8 << 20, false) else {
        return;
    };
    let before = sums(&[&file, &dev.path]);
    for target in [file.as_path(), dev.path.as_path()] {
        let f = format!("--filename={}", target.display());
        let job = ["run", "--name=j", &f, "--rw=write", "--size=64k", "--bs=4k"];
        for no in NO {
            for given in [
                vec![format!("--allow-destroy={no}")],
                vec![
                    "--allow-destroy=1".to_string(),
                    format!("--allow-destroy={no}"),
                ],
                vec![
                    "--allow-destroy".to_string(),
                    format!("--allow-destroy={no}"),
                ],
            ] {
                let mut args: Vec<&str> = job.to_vec();
                args.extend(given.iter().map(String::as_str));
                let out = iolab_db(&db, &args);
                refused(&out, "--allow-destroy");
            }
        }
        // The main job: without consent its write row is n/a; the reads still run.
        let t = target.to_str().unwrap();
        let out = iolab_db(
            &db,
            &[
                "--target",
                t,
                "--allow-destroy=no",
                "--runtime=200ms",
                "--ramp_time=0",
                "--engines=psync",
            ],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(sums(&[&file, &dev.path]), before, "{t}: no byte changed");
    }
    assert_eq!(sums(&[&file, &dev.path]), before, "no byte changed");
}

#[test]
fn a_flag_value_that_is_no_boolean_is_refused_not_taken_for_yes() {
    let (dir, file) = user_file(64 << 10);
    let (_other_dir, other) = user_file(4 << 10);
    let db = dir.path().join("r.db");
    let before = sums(&[&file, &other]);
    let f = format!("--filename={}", file.display());
    let consent = format!("--allow-destroy={}", other.display());
    for args in [
        vec![
            "run",
            "--name=j",
            &f,
            "--ioengine=filedelete",
            "--nrfiles=1",
            &consent,
        ],
        vec!["run", "--name=j", &f, "--rw=write", "--allow-destroy=maybe"],
        vec!["run", "--name=j", &f, "--rw=read", "--quiet=2"],
        vec!["run", "--name=j", &f, "--rw=read", "--parse-only=perhaps"],
    ] {
        let out = iolab_db(&db, &args);
        refused(&out, "a flag takes 1 or 0");
    }
    for args in [
        vec!["review", file.to_str().unwrap(), "--allow-destroy=maybe"],
        vec!["--target", file.to_str().unwrap(), "--allow-destroy=/tmp"],
    ] {
        let out = iolab_db(&db, &args);
        assert_eq!(out.code, 2, "{:?}: {}", args, out.stderr);
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    }
    assert!(file.exists() && other.exists(), "no file deleted");
    assert_eq!(sums(&[&file, &other]), before, "no byte changed");
}
