//! A latency histogram in clock ticks: HDR buckets (3 significant digits) for percentiles,
//! plus exact count, min, max, sum and sum of squares for fio's min/max/mean/stddev.
//!
//! `record` is O(1), allocates nothing and takes no lock: each worker owns its histograms and
//! they are merged after the workers have joined.

use hdrhistogram::Histogram;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::summary::LatencySummary;
use crate::timebase::TickRate;

/// Highest value tracked, in ticks: 2^42 ticks is over 20 minutes at 3 GHz and over an hour
/// with the nanosecond clock, well past the ≥10 s the reports need. Larger values saturate.
const HIGHEST_TICKS: u64 = 1 << 42;
const SIGNIFICANT_DIGITS: u8 = 3;

/// Serialized as the base64 of [`LatencyHistogram::to_bytes`]: exact, compact, mergeable
/// on the other side (the wire format of a multi-host run, the JSON export).
#[derive(Clone)]
pub struct LatencyHistogram {
    hdr: Histogram<u64>,
    count: u64,
    min: u64,
    max: u64,
    sum: u64,
    sum_sq: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatencyHistogram")
            .field("count", &self.count)
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        let mut hdr = Histogram::new_with_bounds(1, HIGHEST_TICKS, SIGNIFICANT_DIGITS)
            .expect("constant histogram bounds are valid");
        hdr.auto(false);
        LatencyHistogram {
            hdr,
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_sq: 0,
        }
    }

    /// Records one latency in ticks.
    #[inline]
    pub fn record(&mut self, ticks: u64) {
        self.hdr.saturating_record(ticks);
        self.count += 1;
        self.min = self.min.min(ticks);
        self.max = self.max.max(ticks);
        self.sum = self.sum.wrapping_add(ticks);
        self.sum_sq += (ticks as u128) * (ticks as u128);
    }

    /// Records `n` latencies of `ticks` each (an imported histogram's bucket).
    pub fn record_n(&mut self, ticks: u64, n: u64) {
        if n == 0 {
            return;
        }
        let ticks = ticks.min(HIGHEST_TICKS);
        // In range by the line above: cannot fail.
        let _ = self.hdr.record_n(ticks.max(1), n);
        self.count += n;
        self.min = self.min.min(ticks);
        self.max = self.max.max(ticks);
        self.sum = self.sum.wrapping_add(ticks.wrapping_mul(n));
        self.sum_sq += (ticks as u128) * (ticks as u128) * n as u128;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Every sample's ticks added up.
    pub fn sum_ticks(&self) -> u64 {
        self.sum
    }

    /// Forgets every sample (used when the ramp ends). Keeps the allocation.
    pub fn reset(&mut self) {
        self.hdr.reset();
        self.count = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
        self.sum_sq = 0;
    }

    /// Adds another histogram's samples to this one.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        self.hdr
            .add(&other.hdr)
            .expect("histograms share bounds, so addition cannot fail");
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum = self.sum.wrapping_add(other.sum);
        self.sum_sq += other.sum_sq;
    }

    /// The value (in ticks) below which `pct` percent of samples fall; 0 when empty.
    pub fn percentile_ticks(&self, pct: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        if pct >= 100.0 {
            return self.max;
        }
        // HDR reports the highest value equivalent to the bucket; never above the true max.
        self.hdr.value_at_quantile(pct / 100.0).min(self.max)
    }

    /// How many samples were below `ticks` (to the histogram's 3-digit resolution).
    pub fn count_below(&self, ticks: u64) -> u64 {
        if ticks == 0 || self.count == 0 {
            return 0;
        }
        self.hdr
            .iter_recorded()
            .take_while(|v| v.value_iterated_to() < ticks)
            .map(|v| v.count_at_value())
            .sum()
    }

    /// The recorded buckets as (value in ns, count), lowest first: fio's `json+` "bins".
    pub fn bins_ns(&self, clock: &impl TickRate) -> Vec<(u64, u64)> {
        self.hdr
            .iter_recorded()
            .map(|v| {
                (
                    clock.ticks_to_ns(v.value_iterated_to()).round() as u64,
                    v.count_at_value(),
                )
            })
            .collect()
    }

    /// A compact, mergeable byte form for storing: a version byte, the exact count, min, max,
    /// sum and sum of squares, then each recorded bucket as (value, count) varints. Reading
    /// it back with [`LatencyHistogram::from_bytes`] gives the same percentiles and summary.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![1u8];
        for v in [self.count, self.min, self.max, self.sum] {
            put_varint(&mut out, v);
        }
        out.extend_from_slice(&self.sum_sq.to_le_bytes());
        for v in self.hdr.iter_recorded() {
            put_varint(&mut out, v.value_iterated_to());
            put_varint(&mut out, v.count_at_value());
        }
        out
    }

    /// The inverse of [`LatencyHistogram::to_bytes`]; `None` for bytes it did not write.
    pub fn from_bytes(bytes: &[u8]) -> Option<LatencyHistogram> {
        let (&version, mut rest) = bytes.split_first()?;
        if version != 1 {
            return None;
        }
        let mut h = LatencyHistogram::new();
        let mut head = [0u64; 4];
        for v in &mut head {
            *v = get_varint(&mut rest)?;
        }
        [h.count, h.min, h.max, h.sum] = head;
        let (sq, tail) = rest.split_at_checked(16)?;
        h.sum_sq = u128::from_le_bytes(sq.try_into().ok()?);
        rest = tail;
        while !rest.is_empty() {
            let value = get_varint(&mut rest)?;
            let count = get_varint(&mut rest)?;
            h.hdr.record_n(value, count).ok()?;
        }
        Some(h)
    }

    /// Summarises in nanoseconds, with the requested percentiles (in percent, e.g. 99.9).
    pub fn summarize(&self, clock: &impl TickRate, percentiles: &[f64]) -> LatencySummary {
        if self.count == 0 {
            return LatencySummary::default();
        }
        let n = self.count as f64;
        let mean = self.sum as f64 / n;
        let var = (self.sum_sq as f64 / n - mean * mean).max(0.0);
        // fio reports the sample standard deviation (n - 1 in the denominator).
        let stddev = if self.count > 1 {
            (var * n / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        LatencySummary {
            count: self.count,
            min_ns: clock.ticks_to_ns(self.min),
            max_ns: clock.ticks_to_ns(self.max),
            mean_ns: clock.ticks_to_ns(1) * mean,
            stddev_ns: clock.ticks_to_ns(1) * stddev,
            percentiles_ns: percentiles
                .iter()
                .map(|&p| (p, clock.ticks_to_ns(self.percentile_ticks(p))))
                .collect(),
        }
    }
}

impl Serialize for LatencyHistogram {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine;
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(self.to_bytes()))
    }
}

impl<'de> Deserialize<'de> for LatencyHistogram {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use base64::Engine;
        let text = String::deserialize(d)?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)?;
        LatencyHistogram::from_bytes(&bytes)
            .ok_or_else(|| serde::de::Error::custom("not an iolab latency histogram"))
    }
}

impl PartialEq for LatencyHistogram {
    /// Equal when they hold the same samples (same bytes).
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Timebase;

    #[test]
    fn bytes_round_trip_keeps_summary_and_percentiles() {
        let mut h = LatencyHistogram::new();
        for v in 1..=5000u64 {
            h.record(v * 37 % 100_003 + 1);
        }
        let back = LatencyHistogram::from_bytes(&h.to_bytes()).unwrap();
        let c = Timebase::NANOSECONDS;
        let pcts = [50.0, 99.0, 99.999];
        assert_eq!(h.summarize(&c, &pcts), back.summarize(&c, &pcts));
        assert_eq!(back.count(), 5000);
        let empty = LatencyHistogram::from_bytes(&LatencyHistogram::new().to_bytes()).unwrap();
        assert_eq!(empty.count(), 0);
        assert!(LatencyHistogram::from_bytes(&[9, 1, 2]).is_none());
        assert!(LatencyHistogram::from_bytes(&h.to_bytes()[..10]).is_none());
    }

    #[test]
    fn counts_below_and_bins() {
        let mut h = LatencyHistogram::new();
        for v in [5u64, 5, 10, 100, 1000] {
            h.record(v);
        }
        assert_eq!(h.count_below(0), 0);
        assert_eq!(h.count_below(5), 0);
        assert_eq!(h.count_below(6), 2);
        assert_eq!(h.count_below(101), 4);
        assert_eq!(h.count_below(u64::MAX), 5);
        let bins = h.bins_ns(&Timebase::NANOSECONDS);
        assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), 5);
        assert_eq!(bins[0], (5, 2));
        assert_eq!(bins.last().unwrap().0, 1000);
    }

    /// The nearest-rank percentile of a sorted array: the reference HDR must match.
    fn reference(sorted: &[u64], pct: f64) -> u64 {
        let rank = ((pct / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
        sorted[rank - 1]
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn percentiles_match_sorted_array_within_precision() {
        let mut seed = 42;
        let mut h = LatencyHistogram::new();
        let mut values = Vec::new();
        for _ in 0..200_000 {
            // A long-tailed mix: mostly ~10 µs, a tail out to ~10 ms.
            let base = 10_000 + lcg(&mut seed) % 5_000;
            let v = if lcg(&mut seed).is_multiple_of(1000) {
                base * (1 + lcg(&mut seed) % 1000)
            } else {
                base
            };
            h.record(v);
            values.push(v);
        }
        values.sort_unstable();
        for p in [1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999] {
            let want = reference(&values, p) as f64;
            let got = h.percentile_ticks(p) as f64;
            assert!(
                (got - want).abs() / want <= 0.001,
                "p{p}: got {got}, sorted-array reference {want}"
            );
        }
        assert_eq!(h.percentile_ticks(100.0), *values.last().unwrap());
    }

    #[test]
    fn exact_moments_and_extremes() {
        let mut h = LatencyHistogram::new();
        for v in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            h.record(v);
        }
        let s = h.summarize(&Timebase::NANOSECONDS, &[50.0]);
        assert_eq!(s.count, 8);
        assert_eq!(s.min_ns, 2.0);
        assert_eq!(s.max_ns, 9.0);
        assert_eq!(s.mean_ns, 5.0);
        // Sample stddev of this classic set: sqrt(32/7).
        assert!((s.stddev_ns - (32.0f64 / 7.0).sqrt()).abs() < 1e-9);
        assert_eq!(s.percentiles_ns, vec![(50.0, 4.0)]);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let (mut a, mut b, mut all) = (
            LatencyHistogram::new(),
            LatencyHistogram::new(),
            LatencyHistogram::new(),
        );
        for v in 1..1000u64 {
            if v % 3 == 0 { &mut a } else { &mut b }.record(v * 7);
            all.record(v * 7);
        }
        a.merge(&b);
        let c = Timebase::NANOSECONDS;
        let p = [50.0, 99.0];
        assert_eq!(
            format!("{:?}", a.summarize(&c, &p)),
            format!("{:?}", all.summarize(&c, &p))
        );
    }

    #[test]
    fn reset_and_empty_and_saturation() {
        let mut h = LatencyHistogram::new();
        assert_eq!(h.summarize(&Timebase::NANOSECONDS, &[99.0]).count, 0);
        h.record(u64::MAX / 2);
        assert_eq!(h.count(), 1);
        h.reset();
        assert_eq!(h.count(), 0);
        assert_eq!(h.percentile_ticks(50.0), 0);
    }
}
