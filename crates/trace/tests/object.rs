//! The committed BPF object is its C source's build: `bpf/build.sh` (clang's BPF target, DWARF
//! stripped) makes the same bytes again. Skipped, with the reason, where clang is missing;
//! the test command installs it.

use std::path::Path;
use std::process::Command;

#[test]
fn the_committed_object_is_the_sources_build() {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if !have("clang") || !have("llvm-strip") {
        eprintln!("skipped: no clang or llvm-strip (apt-get install clang llvm)");
        return;
    }
    if !Path::new("/usr/include/bpf/bpf_helpers.h").exists() {
        eprintln!("skipped: no libbpf headers (apt-get install libbpf-dev)");
        return;
    }
    let bpf = Path::new(env!("CARGO_MANIFEST_DIR")).join("bpf");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lat_split.bpf.o");
    let st = Command::new("sh")
        .arg(bpf.join("build.sh"))
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "bpf/build.sh failed");
    let built = std::fs::read(&out).unwrap();
    let committed = std::fs::read(bpf.join("lat_split.bpf.o")).unwrap();
    assert!(
        built == committed,
        "bpf/lat_split.bpf.o is not bpf/lat_split.bpf.c's build: run crates/trace/bpf/build.sh \
         and commit the object"
    );
}
