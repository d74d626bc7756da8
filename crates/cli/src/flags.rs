//! iolab's command line as clap sees it, with every on/off flag taking fio's boolean values.
//!
//! clap's derive makes a `bool` field a bare switch: `--allow-destroy=0` would be refused
//! with a message about values, and a switch that silently ignored its value would be worse
//! (a script spelling out its default, `--allow-destroy=${DESTROY:-0}`, must not destroy).
//! Rather than annotate each flag (and rely on the next one added being annotated too), the
//! derived command is rewritten once here: every switch of every subcommand takes `1/0`,
//! `true/false`, `yes/no`, `on/off` after an `=`, bare means on, the last one given wins (as
//! in fio), and anything else is bad input. `--help`, the man page and completions are made
//! from the same rewritten command.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Command, CommandFactory};

/// The words fio takes for a boolean, on first.
pub const TRUE_WORDS: [&str; 4] = ["1", "true", "yes", "on"];
/// The words fio takes for a boolean, off.
pub const FALSE_WORDS: [&str; 4] = ["0", "false", "no", "off"];

/// iolab's whole command line: the derived definitions with fio's booleans.
pub fn command() -> Command {
    fio_booleans(crate::Cli::command())
}

/// `cmd` and all its subcommands with every switch made a fio boolean.
fn fio_booleans(cmd: Command) -> Command {
    let mut cmd = cmd.args_override_self(true).mut_args(|a| {
        if !matches!(a.get_action(), ArgAction::SetTrue) {
            return a;
        }
        let words: Vec<&str> = TRUE_WORDS.iter().chain(&FALSE_WORDS).copied().collect();
        let parser = PossibleValuesParser::new(words)
            .map(|w: String| TRUE_WORDS.contains(&w.to_ascii_lowercase().as_str()));
        a.action(ArgAction::Set)
            .value_parser(parser)
            .ignore_case(true)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("1")
            .default_value("0")
            .hide_default_value(true)
            .hide_possible_values(true)
            .value_name("BOOL")
    });
    let subs: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subs {
        cmd = cmd.mut_subcommand(name, fio_booleans);
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    /// Every boolean flag of every subcommand, as (the words before it, its long name, its
    /// id). Found in the definitions themselves, so a flag added later is tested too.
    fn every_flag() -> Vec<(Vec<String>, String, String)> {
        fn walk(c: &Command, path: Vec<String>, out: &mut Vec<(Vec<String>, String, String)>) {
            for a in c.get_arguments() {
                let is_bool = a.get_value_names().is_some_and(|v| v == ["BOOL"]);
                if let (true, Some(long)) = (is_bool, a.get_long()) {
                    out.push((path.clone(), long.to_string(), a.get_id().to_string()));
                }
            }
            for s in c.get_subcommands() {
                let mut p = path.clone();
                p.push(s.get_name().to_string());
                walk(s, p, out);
            }
        }
        let mut out = Vec::new();
        walk(&command(), vec!["iolab".into()], &mut out);
        out
    }

    /// What the flag `id` of subcommand `path` parsed to, or the parse's error.
    fn parsed(path: &[String], args: &[String], id: &str) -> Result<bool, clap::Error> {
        let mut argv = path.to_vec();
        argv.extend(args.iter().cloned());
        // Positional arguments some subcommands require.
        match path.get(1).map(String::as_str) {
            Some("show") | Some("export") => argv.push("1".into()),
            Some("compare") | Some("report") => argv.extend(["1".into(), "2".into()]),
            Some("import") => argv.push("f.json".into()),
            Some("completions") => argv.push("bash".into()),
            Some("pts") => argv.push("/dev/null".into()),
            _ => {}
        }
        let m = command().try_get_matches_from(argv)?;
        let mut sub = &m;
        for name in &path[1..] {
            sub = sub.subcommand_matches(name).expect("the subcommand");
        }
        // The whole derive must still read what the rewritten command produced.
        crate::Cli::from_arg_matches(&m)?;
        Ok(*sub
            .get_one::<bool>(id)
            .expect("a value, given or the default"))
    }

    #[test]
    fn every_switch_is_a_fio_boolean_and_the_last_one_wins() {
        let flags = every_flag();
        assert!(flags.len() >= 15, "found {} flags: {flags:?}", flags.len());
        for (path, long, id) in &flags {
            let one = |v: &[&str]| {
                let args: Vec<String> = v.iter().map(|s| s.to_string()).collect();
                parsed(path, &args, id)
            };
            let at = format!("{} --{long}", path.join(" "));
            assert!(!one(&[]).unwrap(), "{at}: off unless given");
            assert!(one(&[&format!("--{long}")]).unwrap(), "{at}: bare is on");
            for w in TRUE_WORDS.iter().chain(["TRUE", "Yes", "ON"].iter()) {
                assert!(one(&[&format!("--{long}={w}")]).unwrap(), "{at}={w}");
            }
            for w in FALSE_WORDS.iter().chain(["FALSE", "No", "OFF"].iter()) {
                assert!(!one(&[&format!("--{long}={w}")]).unwrap(), "{at}={w}");
            }
            let (on, off) = (format!("--{long}=1"), format!("--{long}=0"));
            assert!(!one(&[&on, &off]).unwrap(), "{at}: the last wins");
            assert!(one(&[&off, &on]).unwrap(), "{at}: the last wins");
            assert!(
                one(&[&off, &format!("--{long}")]).unwrap(),
                "{at}: bare last"
            );
            for bad in ["maybe", "/tmp/x", "2", ""] {
                let e = one(&[&format!("--{long}={bad}")]).unwrap_err();
                assert_eq!(e.exit_code(), 2, "{at}={bad}");
            }
        }
    }

    #[test]
    fn a_bare_flag_does_not_swallow_the_next_argument() {
        let m = command()
            .try_get_matches_from(["iolab", "review", "--allow-destroy", "/dev/x"])
            .unwrap();
        let r = m.subcommand_matches("review").unwrap();
        assert!(*r.get_one::<bool>("allow_destroy").unwrap());
        assert_eq!(
            r.get_one::<std::path::PathBuf>("target").unwrap(),
            std::path::Path::new("/dev/x")
        );
    }
}
