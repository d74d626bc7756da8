//! fio's `--cmdhelp[=OPTION]` and `--enghelp[=ENGINE[,OPTION]]`, in fio's layouts, from the
//! option table and the engine registry.

use iolab_fio::options::{all, find, OptionDef, ValueKind};

/// The help the arguments ask for, if they ask for one: `Ok(text)` to print, or the reason
/// an option or engine is unknown.
pub fn asked(args: &[String]) -> Option<Result<String, String>> {
    args.iter().find_map(|a| {
        let (key, value) = match a.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (a.as_str(), None),
        };
        match key {
            "--cmdhelp" => Some(cmdhelp(value)),
            "--enghelp" => Some(enghelp(value)),
            _ => None,
        }
    })
}

/// An option's first sentence, for one-line lists.
fn short(help: &str) -> &str {
    let end = help
        .match_indices(". ")
        .map(|(i, _)| i)
        .next()
        .unwrap_or(help.len());
    help[..end].trim_end_matches('.')
}

/// fio's `typehelp` for iolab's value kinds.
fn type_help(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Str => "string (opt=bla)",
        ValueKind::Size => "integer value with fio's units (opt=4k; see docs/values.md)",
        ValueKind::Time => "integer value with a time unit (opt=10s, 500ms)",
        ValueKind::Bool => "boolean value (opt=1)",
        ValueKind::Int => "integer value (opt=100)",
        ValueKind::List => "list of values (opt=a,b)",
    }
}

/// One option in fio's `--cmdhelp=OPTION` layout (`show_option_help`).
fn option_help(o: &OptionDef) -> String {
    let mut s = format!("{:>20}: {}\n", o.name, o.help);
    if let Some(a) = o.alias {
        s.push_str(&format!("{:>20}: {a}\n", "alias"));
    }
    s.push_str(&format!("{:>20}: {}\n", "type", type_help(o.kind)));
    s
}

fn cmdhelp(value: Option<&str>) -> Result<String, String> {
    match value.map(str::trim) {
        None | Some("") | Some("all") => Ok(all()
            .map(|o| format!("{:<24}: {}\n", o.name, short(o.help)))
            .collect()),
        Some(name) => match find(name) {
            Some(o) => Ok(option_help(o)),
            None => Err(iolab_fio::options::known::unknown_or_unsupported(
                name,
                iolab_fio::options::names(),
            )
            .to_string()),
        },
    }
}

fn enghelp(value: Option<&str>) -> Result<String, String> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        let mut s = String::from("Available IO engines:\n");
        for e in iolab_engine::ENGINES {
            s.push_str(&format!("\t{}\n", e.name));
        }
        return Ok(s);
    };
    let (name, option) = match v.split_once(',') {
        Some((n, o)) => (n, Some(o.trim())),
        None => (v, None),
    };
    let Some(engine) = iolab_engine::ENGINES.iter().find(|e| e.name == name) else {
        let have: Vec<&str> = iolab_engine::ENGINES.iter().map(|e| e.name).collect();
        return Err(format!(
            "--enghelp={name}: iolab has no such engine (it has: {})",
            have.join(", ")
        ));
    };
    let opts = engine.options.iter().filter_map(|n| find(n));
    match option {
        Some(o) => opts
            .clone()
            .find(|d| d.name == o || d.alias == Some(o))
            .map(option_help)
            .ok_or_else(|| format!("--enghelp={v}: {name} has no option '{o}'")),
        None if engine.options.is_empty() => Ok(format!("{name} has no options of its own\n")),
        None => Ok(opts
            .map(|o| format!("{:<24}: {}\n", o.name, short(o.help)))
            .collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(a: &str) -> Result<String, String> {
        asked(&[a.to_string()]).expect("a help was asked")
    }

    #[test]
    fn cmdhelp_in_fios_layouts() {
        let all = ask("--cmdhelp").unwrap();
        assert!(
            all.lines()
                .any(|l| l.starts_with("bs                      : ")),
            "{all}"
        );
        assert_eq!(all.lines().count(), super::all().count());
        let bs = ask("--cmdhelp=blocksize").unwrap();
        assert!(bs.starts_with("                  bs: "), "{bs}");
        assert!(bs.contains("               alias: blocksize\n"), "{bs}");
        assert!(bs.contains("                type: "), "{bs}");
        assert!(ask("--cmdhelp=bogus")
            .unwrap_err()
            .contains("unknown option 'bogus'"));
        assert!(asked(&["--name=x".to_string()]).is_none());
    }

    #[test]
    fn enghelp_lists_engines_and_their_options() {
        let list = ask("--enghelp").unwrap();
        assert!(list.starts_with("Available IO engines:\n") && list.contains("\tio_uring\n"));
        let uring = ask("--enghelp=io_uring").unwrap();
        assert!(uring.lines().any(|l| l.starts_with("hipri ")), "{uring}");
        assert!(
            uring.lines().any(|l| l.starts_with("fixedbufs ")),
            "{uring}"
        );
        let one = ask("--enghelp=io_uring,hipri").unwrap();
        assert!(one.starts_with("               hipri: "), "{one}");
        assert!(ask("--enghelp=rbd").unwrap_err().contains("no such engine"));
    }
}
