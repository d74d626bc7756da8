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
