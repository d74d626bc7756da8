//! With the feature `spdk`: the binary finds SPDK's shared libraries (and the ISA-L they
//! need) where scripts/spdk-build.sh left them, without LD_LIBRARY_PATH. The paths come from
//! iolab-spdk's build script (its `links = "spdk"` metadata).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_SPDK").is_none() {
        return;
    }
    let rpath = std::env::var("DEP_SPDK_RPATH").expect("iolab-spdk (feature link) gives its rpath");
    let isal =
        std::env::var("DEP_SPDK_ISAL").expect("iolab-spdk (feature link) gives ISA-L's path");
    // DT_RPATH, not DT_RUNPATH: it also serves the SPDK libraries' own dependencies on each
    // other, which carry no path of their own.
    println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{rpath}");
    println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-link-arg={isal}");
    // What SPDK's libraries call and do not name themselves (each other, DPDK's, OpenSSL for
    // NVMe in-band authentication, libuuid, libnuma), kept though the binary calls little of it.
    let libs =
        std::env::var("DEP_SPDK_LIBS").expect("iolab-spdk (feature link) gives its libraries");
    for l in libs.split(',').chain(["ssl", "crypto", "uuid", "numa"]) {
        println!("cargo:rustc-link-arg=-l{l}");
    }
}
