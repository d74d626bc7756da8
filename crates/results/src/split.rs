//! iolab's latency split (`lat_split`): each I/O's total latency (fio's `lat`) cut at the
//! kernel's own events into the host's part before the device, the device's, and the host's
//! part after it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::LatencyHistogram;

/// One direction's split. The parts of every joined I/O add up to its `lat`; histograms are
/// in the run's ticks (a split run stamps with `CLOCK_MONOTONIC`: one tick, one ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LatSplit {
    /// I/Os completed in the measured window while the split was on.
    pub issued: u64,
    /// Of them, I/Os matched with exactly one block request of the same place and length.
    pub joined: u64,
    /// I/Os the block layer split into several requests or merged with another: counted,
    /// not joined.
    pub split_or_merged: u64,
    /// I/Os whose offset is not on the disk (a hole, an unwritten extent).
    #[serde(default)]
    pub unmapped: u64,
    /// I/Os no request was seen for (served without one, or merged into another I/O's).
    #[serde(default)]
    pub unseen: u64,
    /// I/Os whose stamps the worker had no room to pass on (the joiner fell behind).
    #[serde(default)]
    pub not_recorded: u64,
    /// iolab's clock before the submit call → the request issued to the driver
    /// (`block_rq_issue`): system call, io_uring or aio, block layer, scheduler.
    pub submit: LatencyHistogram,
    /// Issued to the driver → completed in the block layer (`block_rq_complete`).
    pub device: LatencyHistogram,
    /// Completed in the block layer → iolab holds the completion: interrupt, softirq, task
    /// work or wake-up, reap.
    pub completion: LatencyHistogram,
    /// Issued to the driver → the NVMe driver's own completion (`nvme_complete_rq`): the
    /// command's time in the drive, without the block layer's completion work; `None` where
    /// the device is not NVMe (or the nvme module has no tracepoint).
    #[serde(default)]
    pub nvme_device: Option<LatencyHistogram>,
    /// The parts summed per band of total latency, for the tail's account.
    pub tail: TailAccount,
    /// The device's part and the host's (submit + completion) per window of the measured
    /// time, where the job asks for latency windows (the review's consistency step: every
    /// second); empty otherwise.
    #[serde(default)]
    pub windows: Vec<SplitWindow>,
}

/// One window of a split job: its joined I/Os, and the device's and the host's part at the
/// median and p99 (ticks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SplitWindow {
    pub ios: u64,
    pub device_p50: u64,
    pub device_p99: u64,
    pub host_p50: u64,
    pub host_p99: u64,
}

impl SplitWindow {
    pub fn of(device: &LatencyHistogram, host: &LatencyHistogram) -> SplitWindow {
        if device.count() == 0 {
            return SplitWindow::default();
        }
        SplitWindow {
            ios: device.count(),
            device_p50: device.percentile_ticks(50.0),
            device_p99: device.percentile_ticks(99.0),
            host_p50: host.percentile_ticks(50.0),
            host_p99: host.percentile_ticks(99.0),
        }
    }
}

impl LatSplit {
    /// Records one joined I/O's parts (ticks).
    pub fn record(&mut self, submit: u64, device: u64, completion: u64) {
        self.joined += 1;
        self.submit.record(submit);
        self.device.record(device);
        self.completion.record(completion);
        self.tail.add([submit, device, completion]);
    }

    /// Records a joined I/O's NVMe part (ticks).
    pub fn record_nvme(&mut self, ticks: u64) {
        self.nvme_device
            .get_or_insert_with(LatencyHistogram::new)
            .record(ticks);
    }

    pub fn merge(&mut self, other: &LatSplit) {
        self.issued += other.issued;
        self.joined += other.joined;
        self.split_or_merged += other.split_or_merged;
        self.unmapped += other.unmapped;
        self.unseen += other.unseen;
        self.not_recorded += other.not_recorded;
        self.submit.merge(&other.submit);
        self.device.merge(&other.device);
        self.completion.merge(&other.completion);
        match (&mut self.nvme_device, &other.nvme_device) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.nvme_device = Some(b.clone()),
            _ => {}
        }
        self.tail.merge(&other.tail);
        // Window percentiles do not add up; a merged split keeps the worst of each window,
        // as merged latency windows do.
        if self.windows.len() < other.windows.len() {
            self.windows
                .resize(other.windows.len(), SplitWindow::default());
        }
        for (a, b) in self.windows.iter_mut().zip(&other.windows) {
            a.ios += b.ios;
            a.device_p50 = a.device_p50.max(b.device_p50);
            a.device_p99 = a.device_p99.max(b.device_p99);
            a.host_p50 = a.host_p50.max(b.host_p50);
            a.host_p99 = a.host_p99.max(b.host_p99);
        }
    }

    /// The share of I/Os joined (0 when none were issued).
    pub fn joined_share(&self) -> f64 {
        match self.issued {
            0 => 0.0,
            n => self.joined as f64 / n as f64,
        }
    }
}

/// Sub-bands per doubling of total latency: bands 9 % wide.
const BANDS_PER_OCTAVE: u32 = 8;

/// Joined I/Os by band of total latency, each band with its I/O count and the sum of each
/// part over them: what the slowest I/Os spent their time on, whatever the threshold asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TailAccount {
    /// band → [I/Os, submit sum, device sum, completion sum] (ticks).
    bands: BTreeMap<u16, [u64; 4]>,
}

/// The slowest I/Os' time, by part: each part's share of their summed latency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TailShare {
    /// I/Os counted: those at or above the band holding the percentile.
    pub ios: u64,
    /// The lowest total latency counted (the band's floor, ticks).
    pub from_ticks: u64,
    pub submit: f64,
    pub device: f64,
    pub completion: f64,
}

impl TailAccount {
    fn band(total: u64) -> u16 {
        let msb = 63 - (total | 1).leading_zeros();
        if msb < 3 {
            return total as u16;
        }
        ((msb - 2) * BANDS_PER_OCTAVE + ((total >> (msb - 3)) & 7) as u32) as u16
    }

    /// The lowest total latency in `band`.
    fn floor(band: u16) -> u64 {
        let b = band as u32;
        if b < BANDS_PER_OCTAVE {
            return b as u64;
        }
        let msb = b / BANDS_PER_OCTAVE + 2;
        (8 + (b % BANDS_PER_OCTAVE) as u64) << (msb - 3)
    }

    pub fn add(&mut self, parts: [u64; 3]) {
        let e = self
            .bands
            .entry(Self::band(parts.iter().sum()))
            .or_default();
        e[0] += 1;
        for i in 0..3 {
            e[i + 1] += parts[i];
        }
    }

    pub fn merge(&mut self, other: &TailAccount) {
        for (b, v) in &other.bands {
            let e = self.bands.entry(*b).or_default();
            for i in 0..4 {
                e[i] += v[i];
            }
        }
    }

    /// The account of the I/Os slower than percentile `pct` (99.0 for p99): the bands from
    /// the top down until they hold at least the slowest (100 − pct) %, so the band holding
    /// the percentile is counted whole. `None` when no I/O was joined.
    pub fn share(&self, pct: f64) -> Option<TailShare> {
        let total: u64 = self.bands.values().map(|v| v[0]).sum();
        if total == 0 {
            return None;
        }
        let want = ((total as f64) * (100.0 - pct) / 100.0).ceil().max(1.0) as u64;
        let mut acc = [0u64; 4];
        let mut from = 0;
        for (b, v) in self.bands.iter().rev() {
            for i in 0..4 {
                acc[i] += v[i];
            }
            from = Self::floor(*b);
            if acc[0] >= want {
                break;
            }
        }
        let sum = (acc[1] + acc[2] + acc[3]).max(1) as f64;
        Some(TailShare {
            ios: acc[0],
            from_ticks: from,
            submit: acc[1] as f64 / sum,
            device: acc[2] as f64 / sum,
            completion: acc[3] as f64 / sum,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_ordered_and_their_floors_hold_them() {
        let mut last = 0;
        for t in [
            0u64,
            1,
            7,
            8,
            9,
            15,
            16,
            17,
            100,
            1000,
            10_000,
            1 << 30,
            u64::MAX >> 2,
        ] {
            let b = TailAccount::band(t);
            assert!(b >= last, "band of {t}");
            last = b;
            let f = TailAccount::floor(b);
            assert!(f <= t && t < f + f / 8 + 2, "{t}: floor {f}");
        }
    }

    #[test]
    fn the_tail_share_is_the_slow_ios_own() {
        let mut s = LatSplit::default();
        // 990 fast I/Os, mostly device; 10 slow ones, mostly completion.
        for _ in 0..990 {
            s.record(1_000, 8_000, 1_000);
        }
        for _ in 0..10 {
            s.record(1_000, 9_000, 90_000);
        }
        s.issued = 1000;
        let t = s.tail.share(99.0).unwrap();
        assert_eq!(t.ios, 10);
        assert!((t.completion - 0.9).abs() < 1e-9, "{t:?}");
        assert!((t.device - 0.09).abs() < 1e-9);
        let all = s.tail.share(0.0).unwrap();
        assert_eq!(all.ios, 1000);
        assert_eq!(s.joined_share(), 1.0);
        let mut m = s.clone();
        m.merge(&s);
        assert_eq!(m.tail.share(99.0).unwrap().ios, 20);
        assert_eq!(m.device.count(), 2000);
    }
}
