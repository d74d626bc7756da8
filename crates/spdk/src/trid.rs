//! Which controller and namespace a job names, in the filename syntax of SPDK's fio plugin:
//! `trtype=PCIe traddr=0000.01.00.0 ns=1`. fio splits `filename` at every ':', so the plugin
//! writes the PCI address with dots; iolab takes the whole value as one name for this engine
//! and accepts either spelling.

use std::fmt;
use std::str::FromStr;

/// A PCI function's address, `domain:bus:device.function` (`0000:00:04.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PciAddr {
    pub domain: u16,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

impl PciAddr {
    /// The spelling SPDK's fio plugin uses in a filename (`0000.01.00.0`): no ':' for fio to
    /// split at.
    pub fn dotted(&self) -> String {
        format!(
            "{:04x}.{:02x}.{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

impl fmt::Display for PciAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

impl FromStr for PciAddr {
    type Err = String;

    /// `0000:00:04.0`, `0000.00.04.0` (fio's plugin), or without the domain (`00:04.0`).
    fn from_str(s: &str) -> Result<PciAddr, String> {
        let bad = |why: &str| format!("'{s}' is not a PCI address ({why}; e.g. 0000:01:00.0)");
        let parts: Vec<&str> = s.split([':', '.']).collect();
        let (domain, rest) = match parts.len() {
            4 => (parts[0], &parts[1..]),
            3 => ("0", &parts[..]),
            _ => return Err(bad("domain:bus:device.function")),
        };
        let hex = |p: &str, max: u32, what: &str| -> Result<u32, String> {
            match u32::from_str_radix(p, 16) {
                Ok(v) if v <= max && !p.is_empty() && p.len() <= 4 => Ok(v),
                _ => Err(bad(&format!("{what} '{p}'"))),
            }
        };
        Ok(PciAddr {
            domain: hex(domain, 0xffff, "domain")? as u16,
            bus: hex(rest[0], 0xff, "bus")? as u8,
            device: hex(rest[1], 0x1f, "device")? as u8,
            function: hex(rest[2], 7, "function")? as u8,
        })
    }
}

/// A namespace behind a local PCIe NVMe controller, as a job names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TransportId {
    pub traddr: PciAddr,
    /// The namespace id (fio's plugin: `ns=`, 1 when left out).
    pub ns: u32,
}

impl TransportId {
    /// The controller part as SPDK's `spdk_nvme_transport_id_parse` reads it.
    pub fn spdk_controller(&self) -> String {
        format!("trtype:PCIe traddr:{}", self.traddr)
    }
}

impl fmt::Display for TransportId {
    /// fio's plugin spelling, which fio's own `filename` splitting leaves whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trtype=PCIe traddr={} ns={}",
            self.traddr.dotted(),
            self.ns
        )
    }
}

impl FromStr for TransportId {
    type Err = String;

    fn from_str(s: &str) -> Result<TransportId, String> {
        let mut traddr = None;
        let mut ns = 1u32;
        let mut trtype_seen = false;
        for token in s.split_whitespace() {
            let Some((key, value)) = token.split_once('=') else {
                return Err(format!(
                    "'{token}' in '{s}' is not key=value (the spdk engine's filename is \
                     'trtype=PCIe traddr=0000.01.00.0 ns=1', as SPDK's fio plugin takes it)"
                ));
            };
            match key.to_ascii_lowercase().as_str() {
                "trtype" if value.eq_ignore_ascii_case("pcie") => trtype_seen = true,
                "trtype" => {
                    return Err(format!(
                        "trtype={value}: iolab's spdk engine drives local PCIe controllers only \
                         (trtype=PCIe); NVMe over fabrics is not built"
                    ))
                }
                "traddr" => traddr = Some(value.parse::<PciAddr>()?),
                "ns" => {
                    ns =
                        value.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                            format!("ns={value}: a namespace id is a number from 1")
                        })?
                }
                other => {
                    return Err(format!(
                        "'{other}=' is not a part of an spdk filename (it takes trtype, traddr \
                         and ns)"
                    ))
                }
            }
        }
        if !trtype_seen {
            return Err(format!(
                "'{s}' names no trtype= (the spdk engine takes trtype=PCIe)"
            ));
        }
        let traddr = traddr.ok_or_else(|| {
            format!("'{s}' names no traddr= (the controller's PCI address, e.g. 0000.01.00.0)")
        })?;
        Ok(TransportId { traddr, ns })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_plugin_spelling_and_colons_name_the_same_namespace() {
        let a: TransportId = "trtype=PCIe traddr=0000.01.00.0 ns=1".parse().unwrap();
        let b: TransportId = "trtype=pcie traddr=0000:01:00.0".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.traddr.to_string(), "0000:01:00.0");
        assert_eq!(a.spdk_controller(), "trtype:PCIe traddr:0000:01:00.0");
        assert_eq!(a.to_string(), "trtype=PCIe traddr=0000.01.00.0 ns=1");
        let c: TransportId = "trtype=PCIe traddr=00:04.0 ns=2".parse().unwrap();
        assert_eq!((c.traddr.to_string(), c.ns), ("0000:00:04.0".into(), 2));
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        let e = |s: &str| s.parse::<TransportId>().unwrap_err();
        assert!(e("trtype=RDMA traddr=1.2.3.4").contains("PCIe controllers only"));
        assert!(e("trtype=PCIe").contains("no traddr"));
        assert!(e("traddr=0000.01.00.0").contains("no trtype"));
        assert!(e("trtype=PCIe traddr=0000.01.00.9").contains("function '9'"));
        assert!(e("trtype=PCIe traddr=01.00.0 ns=0").contains("ns=0"));
        assert!(e("trtype=PCIe traddr=01.00.0 subnqn=x").contains("'subnqn='"));
        assert!(e("/dev/nvme0n1").contains("not key=value"));
    }
}
