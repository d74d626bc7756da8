//! One block request as the probe saw it.

/// One completed block request on a watched disk: `struct split_event` of the BPF program.
/// Times are `CLOCK_MONOTONIC` nanoseconds (`bpf_ktime_get_ns`), the clock iolab stamps its
/// I/Os with when it splits them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelRecord {
    /// Issued to the driver (`block_rq_issue`).
    pub issue_ns: u64,
    /// Completed in the block layer (`block_rq_complete`).
    pub complete_ns: u64,
    /// Completed by the NVMe driver (`nvme_complete_rq`, before the block layer's); 0 where
    /// the nvme module's tracepoint is not there.
    pub driver_done_ns: u64,
    /// First sector (512 bytes) on the whole disk.
    pub sector: u64,
    /// The disk, in the kernel's `dev_t` encoding ([`crate::kernel_dev`]).
    pub dev: u32,
    /// The request's length when issued.
    pub bytes: u32,
    /// Bytes the completion covered (less than `bytes`: completed in parts).
    pub done_bytes: u32,
    /// `REQ_OP_*`: 0 read, 1 write, 3 discard, 9 write zeroes.
    pub op: u32,
}

impl KernelRecord {
    /// The size of `struct split_event`.
    pub const SIZE: usize = 48;

    /// Decodes one ring buffer item; `None` for an item of another size.
    pub fn from_bytes(b: &[u8]) -> Option<KernelRecord> {
        if b.len() < Self::SIZE {
            return None;
        }
        let u64_at = |i: usize| u64::from_ne_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_ne_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Some(KernelRecord {
            issue_ns: u64_at(0),
            complete_ns: u64_at(8),
            driver_done_ns: u64_at(16),
            sector: u64_at(24),
            dev: u32_at(32),
            bytes: u32_at(36),
            done_bytes: u32_at(40),
            op: u32_at(44),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_bpf_layout() {
        let mut b = Vec::new();
        b.extend_from_slice(&100u64.to_ne_bytes());
        b.extend_from_slice(&250u64.to_ne_bytes());
        b.extend_from_slice(&240u64.to_ne_bytes());
        b.extend_from_slice(&4096u64.to_ne_bytes());
        b.extend_from_slice(&crate::kernel_dev(254, 0).to_ne_bytes());
        b.extend_from_slice(&4096u32.to_ne_bytes());
        b.extend_from_slice(&4096u32.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        let r = KernelRecord::from_bytes(&b).unwrap();
        assert_eq!(r.issue_ns, 100);
        assert_eq!(r.complete_ns, 250);
        assert_eq!(r.driver_done_ns, 240);
        assert_eq!(r.sector, 4096);
        assert_eq!(r.dev, 254 << 20);
        assert_eq!((r.bytes, r.done_bytes, r.op), (4096, 4096, 0));
        assert!(KernelRecord::from_bytes(&b[..47]).is_none());
    }
}
