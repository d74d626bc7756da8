//! With the feature `link`: finds SPDK's build (target/spdk/<version>/, scripts/spdk-build.sh's
//! link to its machine-wide cache, or SPDK_DIR), generates bindings for the parts of
//! `spdk/env.h` and `spdk/nvme.h` the driver uses, and links SPDK's shared libraries with an
//! rpath to them, so the binary runs without LD_LIBRARY_PATH.

fn main() {
    println!("cargo:rerun-if-env-changed=SPDK_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "link")]
    link::main();
}

#[cfg(feature = "link")]
mod link {
    use std::path::{Path, PathBuf};

    fn spdk_dir() -> PathBuf {
        if let Ok(d) = std::env::var("SPDK_DIR") {
            return PathBuf::from(d);
        }
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
        let cache = manifest.join("../../target/spdk");
        let mut built: Vec<PathBuf> = std::fs::read_dir(&cache)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("built").exists())
            .collect();
        built.sort();
        built.pop().unwrap_or_else(|| {
            panic!(
                "the feature `spdk` needs SPDK built first: run `bash scripts/spdk-build.sh` \
                 (no finished build in {}), or set SPDK_DIR",
                cache.display()
            )
        })
    }

    pub fn main() {
        let dir = spdk_dir();
        let dir = dir.canonicalize().unwrap_or(dir);
        let lib = dir.join("build/lib");
        println!("cargo:rerun-if-changed={}", dir.join("built").display());
        let pc = lib.join("pkgconfig");
        let path = match std::env::var("PKG_CONFIG_PATH") {
            Ok(p) => format!("{}:{p}", pc.display()),
            Err(_) => pc.display().to_string(),
        };
        std::env::set_var("PKG_CONFIG_PATH", path);
        let mut libs: Vec<String> = Vec::new();
        for name in ["spdk_nvme", "spdk_env_dpdk"] {
            let found = pkg_config::Config::new()
                .cargo_metadata(true)
                .probe(name)
                .unwrap_or_else(|e| panic!("pkg-config {name} in {}: {e}", pc.display()));
            libs.extend(
                found
                    .libs
                    .into_iter()
                    .filter(|l| !libs.contains(l))
                    .collect::<Vec<_>>(),
            );
        }
        // SPDK's shared libraries do not name the libraries they call (each other, DPDK's):
        // the binary must keep every one, though it calls few of them itself.
        println!("cargo:libs={}", libs.join(","));
        // Link arguments reach only this package's own targets: the binary's build script
        // (crates/cli/build.rs) reads these and passes the rpath and ISA-L on. ISA-L (CRCs,
        // XOR) is named by its path, since Debian's older libisal beside DPDK lacks functions
        // libspdk_util calls, and kept though the binary calls none of it itself.
        let isal = dir.join("isa-l/.libs");
        println!("cargo:rpath={}:{}", lib.display(), isal.display());
        println!("cargo:isal={}", isal.join("libisal.so").display());
        bindings(&dir.join("include"));
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        println!(
            "cargo:rustc-env=IOLAB_SPDK_VERSION={}",
            name.unwrap_or_default()
        );
    }

    fn bindings(include: &Path) {
        let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("spdk.rs");
        bindgen::Builder::default()
            .header_contents("wrapper.h", "#include <spdk/env.h>\n#include <spdk/nvme.h>\n")
            .clang_arg(format!("-I{}", include.display()))
            .allowlist_function("spdk_env_opts_init|spdk_env_init")
            .allowlist_function("spdk_dma_zmalloc|spdk_dma_free")
            .allowlist_function("spdk_nvme_transport_id_parse|spdk_nvme_connect|spdk_nvme_detach")
            .allowlist_function("spdk_nvme_ctrlr_(get_ns|get_default_io_qpair_opts|alloc_io_qpair|free_io_qpair|get_default_ctrlr_opts)")
            .allowlist_function("spdk_nvme_ns_(is_active|get_sector_size|get_num_sectors|get_max_io_xfer_size|cmd_read|cmd_write)")
            .allowlist_function("spdk_nvme_qpair_process_completions")
            .allowlist_function("spdk_log_set_print_level|spdk_log_set_level")
            .derive_default(true)
            .layout_tests(false)
            .generate()
            .expect("bindgen over spdk/env.h and spdk/nvme.h")
            .write_to_file(&out)
            .expect("writing the SPDK bindings");
    }
}
