//! NUMA placement (fio's `numa_cpu_nodes` and `numa_mem_policy`): which nodes' CPUs a job
//! runs on and where its buffers' memory comes from. Node lists are written as CPU lists
//! ("0-1,3"), so they reuse [`CpuSet`]'s syntax.

use crate::CpuSet;

/// The job's NUMA placement; all `None`: the kernel's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numa {
    /// Run on the CPUs of these nodes (`numa_cpu_nodes`).
    pub cpu_nodes: Option<CpuSet>,
    /// Where buffer memory is allocated (`numa_mem_policy`).
    pub mem: Option<MemPolicy>,
}

/// fio's `numa_mem_policy` modes (Linux's `set_mempolicy` modes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemPolicy {
    Default,
    /// Prefer one node, fall back to others.
    Prefer(usize),
    /// Only these nodes.
    Bind(CpuSet),
    /// Pages spread over these nodes in turn.
    Interleave(CpuSet),
    /// The node of the CPU that touches the page first.
    Local,
}

impl MemPolicy {
    /// Parses fio's `mode[:nodes]`: `default`, `prefer:N`, `bind:LIST`, `interleave:LIST`,
    /// `local`.
    pub fn parse(v: &str) -> Result<MemPolicy, String> {
        let (mode, nodes) = match v.trim().split_once(':') {
            Some((m, n)) => (m.trim(), Some(n.trim())),
            None => (v.trim(), None),
        };
        let list = |what: &str| -> Result<CpuSet, String> {
            let n = nodes.ok_or_else(|| format!("{what} needs nodes, e.g. {what}:0-1"))?;
            n.parse::<CpuSet>()
                .map_err(|_| format!("'{n}' is not a node list like 0-1,3"))
        };
        match (mode, nodes) {
            ("default", None) => Ok(MemPolicy::Default),
            ("local", None) => Ok(MemPolicy::Local),
            ("default" | "local", Some(_)) => Err(format!("{mode} takes no nodes")),
            ("prefer", _) => {
                let set = list("prefer")?;
                match set.cpus() {
                    [one] => Ok(MemPolicy::Prefer(*one)),
                    _ => Err("prefer takes one node".into()),
                }
            }
            ("bind", _) => Ok(MemPolicy::Bind(list("bind")?)),
            ("interleave", _) => Ok(MemPolicy::Interleave(list("interleave")?)),
            _ => Err(format!(
                "'{mode}' is not default, prefer, bind, interleave or local"
            )),
        }
    }

    /// The nodes the policy names.
    pub fn nodes(&self) -> Vec<usize> {
        match self {
            MemPolicy::Default | MemPolicy::Local => Vec::new(),
            MemPolicy::Prefer(n) => vec![*n],
            MemPolicy::Bind(s) | MemPolicy::Interleave(s) => s.cpus().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_policies_parse_and_bad_ones_say_why() {
        assert_eq!(MemPolicy::parse("local"), Ok(MemPolicy::Local));
        assert_eq!(MemPolicy::parse("prefer:1"), Ok(MemPolicy::Prefer(1)));
        assert_eq!(
            MemPolicy::parse("interleave:0-1").unwrap().nodes(),
            vec![0, 1]
        );
        assert!(MemPolicy::parse("bind")
            .unwrap_err()
            .contains("needs nodes"));
        assert!(MemPolicy::parse("prefer:0-1").is_err());
        assert!(MemPolicy::parse("spread:0").is_err());
    }
}
