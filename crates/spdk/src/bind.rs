//! Handing an NVMe controller from the kernel to a user-space driver and back: `iolab spdk
//! bind|unbind|list`. SPDK drives a controller only when no kernel driver does; binding it to
//! `uio_pci_generic` (or `vfio-pci`) takes every namespace away from the kernel at once, with
//! whatever was mounted on it. So binding is its own explicit step, never a side effect of a
//! job, and it is refused for a controller whose namespaces are mounted, in use, partitioned
//! or signed (`iolab_sysinfo::check_handover`), decided while iolab holds each namespace open
//! exclusively, so nothing can mount one between the check and the unbind.

use std::fs;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::PciAddr;

/// The PCI class of an NVMe controller (mass storage, non-volatile memory, NVMe).
const NVME_CLASS: &str = "0x010802";

/// The user-space drivers a controller can be given to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserDriver {
    /// `uio_pci_generic`: no IOMMU needed; DMA by physical address (hugepages).
    UioPciGeneric,
    /// `vfio-pci`: with an IOMMU (or its no-IOMMU mode).
    VfioPci,
}

impl UserDriver {
    pub fn name(self) -> &'static str {
        match self {
            UserDriver::UioPciGeneric => "uio_pci_generic",
            UserDriver::VfioPci => "vfio-pci",
        }
    }

    /// Whether a bound driver of this name is one SPDK can use.
    pub fn is_user_space(driver: &str) -> bool {
        matches!(driver, "uio_pci_generic" | "vfio-pci" | "igb_uio")
    }
}

/// Why a controller cannot be bound or given back.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("{addr}: no such PCI device (see `iolab spdk list`)")]
    NoDevice { addr: PciAddr },
    #[error("{addr} is not an NVMe controller (its PCI class is {class})")]
    NotNvme { addr: PciAddr, class: String },
    #[error("{addr}: refusing to hand it to {driver}: {}: {}", why.path.display(), why.reason)]
    Refused {
        addr: PciAddr,
        driver: &'static str,
        why: iolab_sysinfo::SafetyError,
    },
    #[error("{addr}: refusing to hand it to {driver}: /dev/{ns} is in use (open exclusively by someone, or mounted); release it first")]
    InUse {
        addr: PciAddr,
        driver: &'static str,
        ns: String,
    },
    #[error("{addr}: {what}: {source}")]
    Sysfs {
        addr: PciAddr,
        what: String,
        source: std::io::Error,
    },
    #[error("{addr}: after {what} its driver is {now}, not {wanted}")]
    NotTaken {
        addr: PciAddr,
        what: &'static str,
        now: String,
        wanted: String,
    },
}

/// One NVMe controller as sysfs shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    pub addr: PciAddr,
    /// The driver bound now (`nvme`, `uio_pci_generic`, ...), if any.
    pub driver: Option<String>,
    /// Its namespaces' block devices (`nvme0n1`), while the kernel drives it.
    pub namespaces: Vec<String>,
}

/// Where sysfs is: `/sys`, or a tree a test made.
#[derive(Debug, Clone)]
pub struct Sysfs {
    root: PathBuf,
}

impl Default for Sysfs {
    fn default() -> Sysfs {
        Sysfs {
            root: PathBuf::from("/sys"),
        }
    }
}

impl Sysfs {
    pub fn at(root: &Path) -> Sysfs {
        Sysfs {
            root: root.to_path_buf(),
        }
    }

    fn device(&self, addr: PciAddr) -> PathBuf {
        self.root.join(format!("bus/pci/devices/{addr}"))
    }

    /// Every NVMe controller on the PCI bus, in address order.
    pub fn list(&self) -> Vec<Controller> {
        let mut found: Vec<Controller> = fs::read_dir(self.root.join("bus/pci/devices"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<PciAddr>().ok())
            .filter_map(|a| self.controller(a).ok())
            .collect();
        found.sort_by_key(|c| c.addr.to_string());
        found
    }

    /// The controller at `addr`, which must be an NVMe controller.
    pub fn controller(&self, addr: PciAddr) -> Result<Controller, BindError> {
        let dev = self.device(addr);
        let class =
            fs::read_to_string(dev.join("class")).map_err(|_| BindError::NoDevice { addr })?;
        let class = class.trim().to_string();
        if class != NVME_CLASS {
            return Err(BindError::NotNvme { addr, class });
        }
        Ok(Controller {
            addr,
            driver: self.driver(addr),
            namespaces: self.namespaces(addr),
        })
    }

    fn driver(&self, addr: PciAddr) -> Option<String> {
        let link = fs::read_link(self.device(addr).join("driver")).ok()?;
        Some(link.file_name()?.to_string_lossy().into_owned())
    }

    /// The block devices of the controller's namespaces: those whose sysfs node lies under
    /// the controller, directly or (native NVMe multipath) through one of its paths.
    fn namespaces(&self, addr: PciAddr) -> Vec<String> {
        let ours = |p: &Path| {
            fs::canonicalize(p)
                .map(|r| r.to_string_lossy().contains(&format!("/{addr}/")))
                .unwrap_or(false)
        };
        let block = self.root.join("block");
        let mut names: Vec<String> = fs::read_dir(&block)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.starts_with("nvme"))
            .filter(|n| {
                let node = block.join(n);
                ours(&node)
                    || fs::read_dir(node.join("multipath"))
                        .into_iter()
                        .flatten()
                        .flatten()
                        .any(|p| ours(&p.path()))
            })
            .collect();
        names.sort();
        names
    }

    /// Gives the controller at `addr` to `to`, after checking each of its namespaces while
    /// holding it open exclusively. Binding one already bound to a user-space driver does
    /// nothing. Returns the driver it had.
    pub fn bind(&self, addr: PciAddr, to: UserDriver) -> Result<Option<String>, BindError> {
        let c = self.controller(addr)?;
        if c.driver.as_deref() == Some(to.name()) {
            return Ok(c.driver);
        }
        let held = self.hold_and_check(&c, to)?;
        self.load_module(addr, to.name())?;
        self.write(addr, "driver_override", to.name())?;
        if c.driver.is_some() {
            self.write(addr, "driver/unbind", &addr.to_string())?;
        }
        drop(held);
        self.write_root(addr, "bus/pci/drivers_probe", &addr.to_string())?;
        match self.driver(addr) {
            Some(d) if d == to.name() => Ok(c.driver),
            now => Err(BindError::NotTaken {
                addr,
                what: "binding",
                now: now.unwrap_or_else(|| "none".into()),
                wanted: to.name().into(),
            }),
        }
    }

    /// Gives the controller back to the kernel's `nvme` driver.
    pub fn unbind(&self, addr: PciAddr) -> Result<Option<String>, BindError> {
        let c = self.controller(addr)?;
        if c.driver.as_deref() == Some("nvme") {
            return Ok(c.driver);
        }
        self.write(addr, "driver_override", "\n")?;
        if c.driver.is_some() {
            self.write(addr, "driver/unbind", &addr.to_string())?;
        }
        self.load_module(addr, "nvme")?;
        self.write_root(addr, "bus/pci/drivers_probe", &addr.to_string())?;
        match self.driver(addr) {
            Some(d) if d == "nvme" => Ok(c.driver),
            now => Err(BindError::NotTaken {
                addr,
                what: "unbinding",
                now: now.unwrap_or_else(|| "none".into()),
                wanted: "nvme".into(),
            }),
        }
    }

    /// Opens each namespace `O_EXCL` (a mounted or held device refuses it) and runs the
    /// handover check on it; the descriptors keep anyone else from claiming one until the
    /// controller has left the kernel.
    fn hold_and_check(&self, c: &Controller, to: UserDriver) -> Result<Vec<fs::File>, BindError> {
        let mut held = Vec::new();
        for ns in &c.namespaces {
            let path = PathBuf::from(format!("/dev/{ns}"));
            let f = fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_EXCL)
                .open(&path)
                .map_err(|e| match e.raw_os_error() {
                    Some(libc::EBUSY) => BindError::InUse {
                        addr: c.addr,
                        driver: to.name(),
                        ns: ns.clone(),
                    },
                    _ => BindError::Sysfs {
                        addr: c.addr,
                        what: format!("opening {}", path.display()),
                        source: e,
                    },
                })?;
            let facts = iolab_sysinfo::probe(&path).map_err(|e| BindError::Sysfs {
                addr: c.addr,
                what: format!("probing {}", path.display()),
                source: std::io::Error::other(e.to_string()),
            })?;
            iolab_sysinfo::check_handover(&facts, "iolab spdk bind").map_err(|why| {
                BindError::Refused {
                    addr: c.addr,
                    driver: to.name(),
                    why,
                }
            })?;
            held.push(f);
        }
        Ok(held)
    }

    fn load_module(&self, addr: PciAddr, driver: &str) -> Result<(), BindError> {
        if self.root.join("bus/pci/drivers").join(driver).exists() {
            return Ok(());
        }
        let module = driver.replace('-', "_");
        let out = std::process::Command::new("modprobe").arg(&module).output();
        match out {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(BindError::Sysfs {
                addr,
                what: format!("modprobe {module}"),
                source: std::io::Error::other(
                    String::from_utf8_lossy(&o.stderr).trim().to_string(),
                ),
            }),
            Err(e) => Err(BindError::Sysfs {
                addr,
                what: format!("modprobe {module}"),
                source: e,
            }),
        }
    }

    fn write(&self, addr: PciAddr, file: &str, value: &str) -> Result<(), BindError> {
        let path = self.device(addr).join(file);
        fs::write(&path, value).map_err(|source| BindError::Sysfs {
            addr,
            what: format!("writing {}", path.display()),
            source,
        })
    }

    fn write_root(&self, addr: PciAddr, file: &str, value: &str) -> Result<(), BindError> {
        let path = self.root.join(file);
        fs::write(&path, value).map_err(|source| BindError::Sysfs {
            addr,
            what: format!("writing {}", path.display()),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysfs tree with one NVMe controller driven by `nvme` (one namespace, seen through a
    /// multipath head) and one network card.
    fn fake() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let nvme = r.join("devices/pci0000:00/0000:00:04.0");
        let net = r.join("devices/pci0000:00/0000:00:03.0");
        fs::create_dir_all(nvme.join("nvme/nvme0/nvme0c0n1")).unwrap();
        fs::create_dir_all(&net).unwrap();
        fs::write(nvme.join("class"), "0x010802\n").unwrap();
        fs::write(net.join("class"), "0x020000\n").unwrap();
        fs::create_dir_all(r.join("bus/pci/devices")).unwrap();
        fs::create_dir_all(r.join("bus/pci/drivers/nvme")).unwrap();
        std::os::unix::fs::symlink(&nvme, r.join("bus/pci/devices/0000:00:04.0")).unwrap();
        std::os::unix::fs::symlink(&net, r.join("bus/pci/devices/0000:00:03.0")).unwrap();
        std::os::unix::fs::symlink(r.join("bus/pci/drivers/nvme"), nvme.join("driver")).unwrap();
        let head = r.join("devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1");
        fs::create_dir_all(head.join("multipath")).unwrap();
        std::os::unix::fs::symlink(
            nvme.join("nvme/nvme0/nvme0c0n1"),
            head.join("multipath/nvme0c0n1"),
        )
        .unwrap();
        fs::create_dir_all(r.join("block")).unwrap();
        std::os::unix::fs::symlink(&head, r.join("block/nvme0n1")).unwrap();
        t
    }

    #[test]
    fn lists_nvme_controllers_with_their_driver_and_namespaces() {
        let t = fake();
        let s = Sysfs::at(t.path());
        let all = s.list();
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!(all[0].addr.to_string(), "0000:00:04.0");
        assert_eq!(all[0].driver.as_deref(), Some("nvme"));
        assert_eq!(all[0].namespaces, vec!["nvme0n1".to_string()]);
    }

    #[test]
    fn a_device_that_is_not_nvme_or_not_there_is_named() {
        let t = fake();
        let s = Sysfs::at(t.path());
        let e = s.bind("0000:00:03.0".parse().unwrap(), UserDriver::UioPciGeneric);
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("not an NVMe controller (its PCI class is 0x020000)"));
        let e = s.bind("0000:00:09.0".parse().unwrap(), UserDriver::UioPciGeneric);
        assert!(e.unwrap_err().to_string().contains("no such PCI device"));
    }
}
