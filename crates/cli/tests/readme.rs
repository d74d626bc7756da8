//! The README's option table is generated from the option table in code; this keeps the two
//! equal. Run with `IOLAB_UPDATE_README=1` to rewrite the README's table from the code.

use iolab_fio::options::markdown_table;

const BEGIN: &str = "<!-- options:begin (generated from crates/fio/src/options.rs; \
                     IOLAB_UPDATE_README=1 cargo test --test readme rewrites it) -->";
const END: &str = "<!-- options:end -->";

#[test]
fn readme_option_table_is_the_generated_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md at the workspace root");
    let start = readme
        .find(BEGIN)
        .expect("README has the options:begin marker")
        + BEGIN.len();
    let end = readme.find(END).expect("README has the options:end marker");
    let current = readme[start..end].trim();
    let wanted = markdown_table();
    if std::env::var_os("IOLAB_UPDATE_README").is_some() {
        let updated = format!("{}\n{}{}", &readme[..start], wanted, &readme[end..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    assert_eq!(
        current,
        wanted.trim(),
        "README's option table differs from the code's; rerun with IOLAB_UPDATE_README=1"
    );
}
