//! fio's random map (its `axmap`): one bit per aligned unit of the region, set when an I/O
//! covers it. A random I/O starts at a free unit (the next free one after a random pick,
//! [`RunMap::take_uncounted`] for one block) and, with mixed block sizes, is cut short where it would
//! reach a unit already done, as fio's `mark_random_map()` trims it: an I/O never covers a
//! unit twice in a pass, so a size-based job's I/Os are fio's in number and size.

/// One bit per unit; allocated once when the job starts.
#[derive(Debug, Clone)]
pub struct RunMap {
    words: Vec<u64>,
    units: u64,
    set: u64,
}

impl RunMap {
    pub fn new(units: u64) -> RunMap {
        let mut map = RunMap {
            words: vec![0; units.div_ceil(64) as usize],
            units,
            set: 0,
        };
        map.pad();
        map
    }

    /// The last word's bits past the last unit read as done, so a free bit found in a word
    /// is always a unit.
    fn pad(&mut self) {
        if let (Some(last), r @ 1..) = (self.words.last_mut(), self.units % 64) {
            *last |= !0u64 << r;
        }
    }

    pub fn units(&self) -> u64 {
        self.units
    }

    fn is_set(&self, u: u64) -> bool {
        self.words[(u / 64) as usize] & (1 << (u % 64)) != 0
    }

    /// Every unit is done: the pass is over.
    pub fn full(&self) -> bool {
        self.set >= self.units
    }

    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
        self.pad();
        self.set = 0;
    }

    /// The first free unit at or after `u`, wrapping to the start; `None` when full.
    pub fn next_free(&self, u: u64) -> Option<u64> {
        match self.full() {
            true => None,
            false => self.search(u),
        }
    }

    /// Takes the first free unit at or after `u` (wrapping), as fio's `axmap_next_free()`
    /// finds it for one block, and marks it; `None` when full. Most picks find their unit
    /// in their own word: one load, one store, no search. Units taken so are not counted:
    /// the walk learns the map is full from `None` (one search of the whole map a pass),
    /// and [`Self::full`] no longer tells.
    #[inline(always)]
    pub fn take_uncounted(&mut self, u: u64) -> Option<u64> {
        let w = (u / 64) as usize;
        let Some(&word) = self.words.get(w) else {
            return self.take_searched(u);
        };
        let free = !word & (!0u64 << (u % 64));
        if free == 0 {
            return self.take_searched(u);
        }
        self.words[w] = word | (free & free.wrapping_neg());
        Some(w as u64 * 64 + free.trailing_zeros() as u64)
    }

    #[cold]
    #[inline(never)]
    fn take_searched(&mut self, u: u64) -> Option<u64> {
        let found = self.search(u)?;
        self.words[(found / 64) as usize] |= 1 << (found % 64);
        Some(found)
    }

    /// The first free unit at or after `u`, wrapping; `None` when there is none.
    #[cold]
    fn search(&self, u: u64) -> Option<u64> {
        let from = |start: u64, end: u64| -> Option<u64> {
            let mut w = start / 64;
            let mut mask = !0u64 << (start % 64);
            while w * 64 < end {
                let free = !self.words[w as usize] & mask;
                if free != 0 {
                    let bit = w * 64 + free.trailing_zeros() as u64;
                    return (bit < end).then_some(bit);
                }
                w += 1;
                mask = !0;
            }
            None
        };
        from(u.min(self.units), self.units).or_else(|| from(0, u.min(self.units)))
    }

    /// Marks up to `n` units from `u` (which is free), stopping before the first unit
    /// already done or the end; how many it marked (at least 1).
    pub fn claim(&mut self, u: u64, n: u64) -> u64 {
        let mut k = 0;
        while k < n && u + k < self.units && !self.is_set(u + k) {
            let b = u + k;
            self.words[(b / 64) as usize] |= 1 << (b % 64);
            k += 1;
        }
        self.set += k;
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_stop_at_done_units_and_the_end() {
        let mut m = RunMap::new(130);
        assert_eq!(m.claim(10, 4), 4);
        assert_eq!(m.claim(5, 20), 5, "stops before unit 10");
        assert_eq!(m.claim(128, 8), 2, "stops at the end");
        assert_eq!(m.next_free(10), Some(14));
        assert_eq!(m.next_free(129), Some(0), "wraps to the start");
    }

    #[test]
    fn take_uncounted_marks_the_unit_next_free_finds() {
        let mut m = RunMap::new(130);
        m.claim(10, 4);
        m.claim(127, 3);
        for (pick, want) in [(10, 14), (12, 15), (3, 3), (127, 0), (64, 64), (126, 126)] {
            assert_eq!(m.next_free(pick), Some(want), "pick {pick}");
            assert_eq!(m.take_uncounted(pick), Some(want), "pick {pick}");
            assert!(m.is_set(want));
        }
        while m.take_uncounted(0).is_some() {}
        assert_eq!(m.take_uncounted(5), None, "every unit taken");
    }

    #[test]
    fn next_free_finds_the_last_one_and_none_when_full() {
        let mut m = RunMap::new(200);
        m.claim(0, 150);
        m.claim(151, 49);
        assert_eq!(m.next_free(0), Some(150));
        assert_eq!(m.next_free(199), Some(150));
        m.claim(150, 1);
        assert!(m.full());
        assert_eq!(m.next_free(3), None);
        m.clear();
        assert_eq!(m.next_free(3), Some(3));
    }
}
