//! NUMA placement of a worker (fio's `numa_cpu_nodes`, `numa_mem_policy`): the node's CPUs
//! from sysfs, the memory policy through Linux's `set_mempolicy`, both on the worker's own
//! thread before its buffers are allocated. Checked when the jobs are prepared, so a node the
//! machine lacks is refused before anything runs.

use std::path::Path;

use iolab_job::{CpuSet, JobSpec, MemPolicy};

use crate::RunError;

const NODES: &str = "/sys/devices/system/node";

/// The machine's online NUMA nodes; empty when the kernel has no NUMA support.
fn online_nodes() -> Vec<usize> {
    std::fs::read_to_string(Path::new(NODES).join("online"))
        .ok()
        .and_then(|s| s.trim().parse::<CpuSet>().ok())
        .map(|s| s.cpus().to_vec())
        .unwrap_or_default()
}

/// The CPUs of `node`, from sysfs.
fn node_cpus(node: usize) -> Vec<usize> {
    std::fs::read_to_string(Path::new(NODES).join(format!("node{node}/cpulist")))
        .ok()
        .and_then(|s| s.trim().parse::<CpuSet>().ok())
        .map(|s| s.cpus().to_vec())
        .unwrap_or_default()
}

/// The CPUs the job may run on given its nodes (and `cpus_allowed`, when both are set).
fn cpus_of(spec: &JobSpec, nodes: &CpuSet) -> Vec<usize> {
    let mut cpus: Vec<usize> = nodes.cpus().iter().flat_map(|&n| node_cpus(n)).collect();
    if let Some(allowed) = &spec.cpus_allowed {
        cpus.retain(|c| allowed.cpus().contains(c));
    }
    cpus
}

/// Refuses nodes this machine does not have, and a CPU choice that leaves no CPU.
pub fn check(spec: &JobSpec) -> Result<(), RunError> {
    let numa = &spec.numa;
    if numa.cpu_nodes.is_none() && numa.mem.is_none() {
        return Ok(());
    }
    let unusable = |reason: String| RunError::Unusable {
        job: spec.name.clone(),
        reason,
    };
    let online = online_nodes();
    if online.is_empty() {
        return Err(unusable(
            "numa options: this kernel has no NUMA support".into(),
        ));
    }
    let have = CpuSet::from_cpus(online.clone());
    let mut named: Vec<(&str, Vec<usize>)> = Vec::new();
    if let Some(n) = &numa.cpu_nodes {
        named.push(("numa_cpu_nodes", n.cpus().to_vec()));
    }
    if let Some(m) = &numa.mem {
        named.push(("numa_mem_policy", m.nodes()));
    }
    for (option, nodes) in named {
        if let Some(n) = nodes.iter().find(|n| !online.contains(n)) {
            return Err(unusable(format!(
                "{option}: this machine has no NUMA node {n} (it has {have})"
            )));
        }
    }
    if let Some(nodes) = &numa.cpu_nodes {
        if cpus_of(spec, nodes).is_empty() {
            return Err(unusable(format!(
                "numa_cpu_nodes={nodes}: no CPU of those nodes is in cpus_allowed"
            )));
        }
    }
    Ok(())
}

/// The CPUs to pin to for the job's nodes, if it names any.
pub fn pinned_cpus(spec: &JobSpec) -> Option<Vec<usize>> {
    spec.numa.cpu_nodes.as_ref().map(|n| cpus_of(spec, n))
}

/// Sets the calling thread's memory policy (`set_mempolicy(2)`).
pub fn set_mem_policy(policy: &MemPolicy) -> std::io::Result<()> {
    const MPOL_DEFAULT: i32 = 0;
    const MPOL_PREFERRED: i32 = 1;
    const MPOL_BIND: i32 = 2;
    const MPOL_INTERLEAVE: i32 = 3;
    const MPOL_LOCAL: i32 = 4;
    let (mode, nodes) = match policy {
        MemPolicy::Default => (MPOL_DEFAULT, Vec::new()),
        MemPolicy::Local => (MPOL_LOCAL, Vec::new()),
        MemPolicy::Prefer(n) => (MPOL_PREFERRED, vec![*n]),
        MemPolicy::Bind(s) => (MPOL_BIND, s.cpus().to_vec()),
        MemPolicy::Interleave(s) => (MPOL_INTERLEAVE, s.cpus().to_vec()),
    };
    let mut mask = [0u64; 16];
    for n in nodes {
        let slot = mask
            .get_mut(n / 64)
            .ok_or_else(|| std::io::Error::from_raw_os_error(libc::EINVAL))?;
        *slot |= 1 << (n % 64);
    }
    let (ptr, maxnode) = match policy {
        MemPolicy::Default | MemPolicy::Local => (std::ptr::null(), 0),
        _ => (mask.as_ptr(), mask.len() * 64 + 1),
    };
    // SAFETY: `mask` outlives the call and holds `maxnode - 1` bits, as set_mempolicy reads.
    let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, ptr, maxnode) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(nodes: &str, cpus: Option<&str>) -> JobSpec {
        let mut s = JobSpec::new("n", "/tmp/x");
        s.numa.cpu_nodes = Some(nodes.parse().unwrap());
        s.cpus_allowed = cpus.map(|c| c.parse().unwrap());
        s
    }

    #[test]
    fn nodes_pin_to_their_cpus_and_missing_nodes_are_refused() {
        if online_nodes().is_empty() {
            eprintln!("skipped: no NUMA support in this kernel");
            return;
        }
        let node0: CpuSet = std::fs::read_to_string(format!("{NODES}/node0/cpulist"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(pinned_cpus(&spec("0", None)).unwrap(), node0.cpus());
        let first = node0.cpus()[0].to_string();
        assert_eq!(
            pinned_cpus(&spec("0", Some(&first))).unwrap(),
            [node0.cpus()[0]]
        );
        let e = check(&spec("4095", None)).unwrap_err().to_string();
        assert!(e.contains("no NUMA node 4095"), "{e}");
    }

    #[test]
    fn the_memory_policy_is_the_threads() {
        if online_nodes().is_empty() {
            eprintln!("skipped: no NUMA support in this kernel");
            return;
        }
        // On a thread of its own, so the test runner's threads keep the default policy.
        let mode = std::thread::spawn(|| {
            set_mem_policy(&MemPolicy::Bind(CpuSet::from_cpus(vec![0]))).unwrap();
            let mut mode: i32 = -1;
            // SAFETY: get_mempolicy writes one int to `mode`; no node mask is asked for.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_get_mempolicy,
                    &mut mode as *mut i32,
                    std::ptr::null_mut::<u64>(),
                    0usize,
                    std::ptr::null_mut::<u8>(),
                    0usize,
                )
            };
            assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
            mode
        })
        .join()
        .unwrap();
        assert_eq!(mode, 2, "MPOL_BIND");
    }
}
