//! SPDK for iolab: the `spdk` engine's driver side.
//!
//! - [`TransportId`]: the controller and namespace a job names, in the filename syntax of
//!   SPDK's fio plugin (`trtype=PCIe traddr=0000.01.00.0 ns=1`).
//! - [`bind`]: handing a controller from the kernel to `uio_pci_generic` / `vfio-pci` and
//!   back, refused for a controller whose namespaces are mounted, in use, partitioned or
//!   signed. Needs no SPDK.
//! - with the feature `link` ([`driver`]): SPDK's environment (DPDK, hugepages), controllers
//!   attached once per process, namespaces, I/O queue pairs polled on the caller's thread,
//!   DMA-able memory. The bindings are generated from SPDK's headers by bindgen.

pub mod bind;
#[cfg(feature = "link")]
pub mod driver;
#[cfg(feature = "link")]
mod ffi;
mod trid;

pub use trid::{PciAddr, TransportId};

/// Whether this build carries SPDK (the feature `link`, which the cli's `spdk` enables).
pub const LINKED: bool = cfg!(feature = "link");

/// How to get a build with SPDK, for the refusals of builds without it.
pub const HOW_TO_BUILD: &str = "this iolab was built without SPDK; build it with \
    `bash scripts/spdk-build.sh && cargo build --release --features spdk`";
