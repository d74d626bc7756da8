//! The option reference, docs/options.md, is generated from the option table in code; this
//! keeps the two equal. Run with `IOLAB_UPDATE_README=1` to rewrite it from the code.

use iolab_fio::options::markdown_table;

#[test]
fn the_option_reference_is_the_generated_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/options.md");
    let wanted = markdown_table();
    if std::env::var_os("IOLAB_UPDATE_README").is_some() {
        std::fs::write(path, &wanted).expect("writing docs/options.md");
        return;
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == wanted,
        "docs/options.md differs from the code's option table; rerun with IOLAB_UPDATE_README=1"
    );
}

#[test]
fn the_readme_stays_short_and_links_the_reference() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md at the workspace root");
    assert!(
        readme.contains("docs/options.md"),
        "the README links the option reference"
    );
    assert!(
        readme.len() < 40_000,
        "the README is {} bytes: the reference belongs in docs/",
        readme.len()
    );
}
