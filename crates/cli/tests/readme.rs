//! The README's option table and the option table in code must list the same options.

use iolab_fio::options::OPTIONS;

#[test]
fn readme_lists_every_option_in_the_table_and_no_other() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the workspace root");
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| option | meaning |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let documented: Vec<String> = table
        .iter()
        .flat_map(|row| row.split('|').nth(1).unwrap_or("").split('`'))
        .map(str::trim)
        .filter(|s| !s.is_empty() && !s.contains([',', '/', ' ']))
        .map(String::from)
        .collect();
    for o in OPTIONS {
        assert!(
            documented.iter().any(|d| d == o.name),
            "README lacks option '{}'",
            o.name
        );
        if let Some(a) = o.alias {
            assert!(
                documented.iter().any(|d| d == a),
                "README lacks alias '{a}'"
            );
        }
    }
    let run_options = ["output-format", "output", "allow-destroy"];
    for d in &documented {
        let known = OPTIONS.iter().any(|o| o.name == d || o.alias == Some(d))
            || run_options.contains(&d.as_str());
        assert!(known, "README documents '{d}', which iolab does not have");
    }
}
