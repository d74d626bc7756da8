//! `iolab completions` and `iolab man`: generated from the same clap definitions as `--help`,
//! so they name every command and option `--help` does.

use std::process::Command;

fn iolab(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn completions_name_every_command_and_parse_in_their_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, text) = iolab(&["completions", shell]);
        assert_eq!(code, 0, "{shell}");
        for cmd in ["review", "import", "export", "completions", "man"] {
            assert!(text.contains(cmd), "{shell} completions lack {cmd}");
        }
        assert!(text.contains("allow-destroy"), "{shell}");
    }
    let (_, bash) = iolab(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("iolab.bash");
    std::fs::write(&f, bash).unwrap();
    let check = Command::new("bash").arg("-n").arg(&f).status().unwrap();
    assert!(check.success(), "the bash completion script does not parse");
    let (code, _) = iolab(&["completions", "tcsh"]);
    assert_eq!(code, 2, "an unknown shell is bad input");
}

#[test]
fn the_man_page_has_every_command_and_its_options() {
    let (code, page) = iolab(&["man"]);
    assert_eq!(code, 0);
    assert!(
        page.starts_with(".ie") || page.contains(".TH iolab 1"),
        "{page}"
    );
    assert!(page.contains(".TH iolab 1"));
    for section in ["IOLAB REVIEW", "IOLAB EXPORT", "IOLAB IMPORT", "IOLAB KV"] {
        assert!(page.contains(&format!(".SH \"{section}\"")), "no {section}");
    }
    assert!(
        page.contains("\\-\\-allow\\-destroy\\-floor"),
        "review's own option"
    );
}

/// `iolab run --io<TAB>` in bash offers fio's options from the option table, and an option
/// with a fixed list of values completes them (`--rw=<TAB>`).
#[test]
fn bash_completes_every_run_option_and_its_values() {
    let (_, bash) = iolab(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("iolab.bash");
    std::fs::write(&f, bash).unwrap();
    let complete = |line: &str| -> Vec<String> {
        let words: Vec<&str> = line.split(' ').collect();
        let script = format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; \
             COMP_POINT=${{#COMP_LINE}}; _iolab iolab '{}' iolab; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            f.display(),
            words.join(" "),
            words.len() - 1,
            words.last().unwrap()
        );
        let o = Command::new("bash").arg("-c").arg(script).output().unwrap();
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(String::from)
            .collect()
    };
    let io = complete("iolab run --io");
    for want in ["--iodepth", "--ioengine", "--io_size"] {
        assert!(io.iter().any(|w| w.starts_with(want)), "{want} in {io:?}");
    }
    let all = complete("iolab run --");
    assert!(all.len() > 250, "every job and run option: {}", all.len());
    assert!(
        all.iter().any(|w| w.starts_with("--status-interval")),
        "{all:?}"
    );
    let (_, man) = iolab(&["man"]);
    assert!(man.contains(".SH \"IOLAB RUN\""));
    for o in ["iodepth", "ioengine", "readonly", "status\\-interval"] {
        assert!(
            man.contains(&format!("\\fB\\-\\-{o}\\fR")),
            "the man page lists --{o}"
        );
    }
}

/// `iolab run -h` is short (the common options by topic); `--help` has every option of the
/// option table, by topic.
#[test]
fn run_help_short_and_whole() {
    let (code, short) = iolab(&["run", "-h"]);
    assert_eq!(code, 0);
    assert!(
        short.lines().count() < 100,
        "{} lines",
        short.lines().count()
    );
    assert!(
        short.contains("\nThe job:\n") && short.contains("  --iodepth=INT\n"),
        "{short}"
    );
    assert!(short.contains("iolab run --help lists them all"), "{short}");
    let (code, whole) = iolab(&["run", "--help"]);
    assert_eq!(code, 0);
    for o in iolab_fio::options::all() {
        assert!(
            whole.contains(&format!("  --{}", o.name)),
            "--help lacks {}",
            o.name
        );
    }
    assert!(whole.contains("\nVerification:\n") && whole.contains("  --status-interval=TIME\n"));
}
