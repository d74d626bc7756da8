//! `iolab spdk list|bind|unbind`: NVMe controllers handed from the kernel to SPDK's user-space
//! driver and back. The `spdk` engine drives only a controller no kernel driver holds, and
//! handing one over takes every namespace on it away from the kernel: so it is this explicit
//! step, refused for a controller whose namespaces are mounted, in use, partitioned or signed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use iolab_spdk::bind::{BindError, Sysfs, UserDriver};
use iolab_spdk::{PciAddr, TransportId};

use crate::exit::CliError;

#[derive(Args, Debug, Clone)]
#[command(after_help = "\
Example (the SPDK column of the QD1 tables):\n  \
iolab spdk list\n  \
iolab spdk bind 0000:01:00.0          # the kernel lets go of it (refused if in use)\n  \
echo 512 > /proc/sys/vm/nr_hugepages  # SPDK's DMA memory\n  \
iolab run --ioengine=spdk --filename='trtype=PCIe traddr=0000.01.00.0 ns=1' \\\n      \
--rw=randread --bs=4k --size=64m --name=qd1\n  \
iolab spdk unbind 0000:01:00.0        # back to the kernel's nvme driver")]
pub struct SpdkArgs {
    #[command(subcommand)]
    pub action: SpdkAction,
}

#[derive(Subcommand, Debug, Clone)]
pub enum SpdkAction {
    /// The NVMe controllers on the PCI bus: address, driver, namespaces, and the filename the
    /// spdk engine takes for each
    List,
    /// Hand a controller to a user-space driver (uio_pci_generic, or vfio-pci): refused while a
    /// namespace of it is mounted, in use, partitioned or signed
    Bind {
        /// The controller's PCI address (0000:01:00.0, or fio's plugin spelling 0000.01.00.0)
        addr: String,
        /// The user-space driver: uio_pci_generic (no IOMMU needed) or vfio-pci
        #[arg(long, default_value = "uio_pci_generic")]
        driver: String,
    },
    /// Give a controller back to the kernel's nvme driver
    Unbind {
        /// The controller's PCI address
        addr: String,
    },
}

pub fn run(a: &SpdkArgs) -> Result<ExitCode, CliError> {
    let sys = Sysfs::default();
    match &a.action {
        SpdkAction::List => list(&sys),
        SpdkAction::Bind { addr, driver } => {
            let addr = parse_addr(addr)?;
            let to = match driver.as_str() {
                "uio_pci_generic" => UserDriver::UioPciGeneric,
                "vfio-pci" | "vfio_pci" => UserDriver::VfioPci,
                other => {
                    return Err(CliError::bad_input(anyhow!(
                        "--driver={other}: iolab binds uio_pci_generic or vfio-pci"
                    )))
                }
            };
            let was = sys.bind(addr, to).map_err(bind_error)?;
            outln!(
                "{addr}: bound to {} (was {}); the spdk engine's filename: '{}'",
                to.name(),
                was.as_deref().unwrap_or("unbound"),
                TransportId {
                    traddr: addr,
                    ns: 1
                }
            );
            Ok(ExitCode::SUCCESS)
        }
        SpdkAction::Unbind { addr } => {
            let addr = parse_addr(addr)?;
            let was = sys.unbind(addr).map_err(bind_error)?;
            outln!(
                "{addr}: given back to nvme (was {})",
                was.as_deref().unwrap_or("unbound")
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `--spdk`'s value: a namespace in SPDK's fio plugin syntax, checked now (a build without
/// the feature refuses it with how to build one), kept in the plugin's spelling.
pub fn parse_namespace(s: &str) -> Result<PathBuf, String> {
    if !iolab_engine::spdk::BUILT {
        return Err(iolab_engine::spdk::HOW_TO_BUILD.into());
    }
    let t: TransportId = s.parse()?;
    Ok(PathBuf::from(t.to_string()))
}

fn parse_addr(s: &str) -> Result<PciAddr, CliError> {
    s.parse::<PciAddr>()
        .map_err(|e| CliError::bad_input(anyhow!(e)))
}

/// A refusal is bad input (exit 2, nothing changed); a sysfs write that failed is a failure.
fn bind_error(e: BindError) -> CliError {
    match e {
        BindError::Sysfs { .. } | BindError::NotTaken { .. } => CliError::failed(anyhow!(e)),
        _ => CliError::bad_input(anyhow!(e)),
    }
}

fn list(sys: &Sysfs) -> Result<ExitCode, CliError> {
    let all = sys.list();
    if all.is_empty() {
        outln!("no NVMe controller on the PCI bus");
        return Ok(ExitCode::SUCCESS);
    }
    outln!("| controller | driver | namespaces | spdk filename |");
    outln!("|---|---|---|---|");
    for c in all {
        let driver = c.driver.clone().unwrap_or_else(|| "none".into());
        let name = match c.driver.as_deref() {
            Some(d) if UserDriver::is_user_space(d) => TransportId {
                traddr: c.addr,
                ns: 1,
            }
            .to_string(),
            _ => format!("(bind it first: iolab spdk bind {})", c.addr),
        };
        outln!(
            "| {} | {driver} | {} | {name} |",
            c.addr,
            if c.namespaces.is_empty() {
                "-".to_string()
            } else {
                c.namespaces.join(", ")
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
