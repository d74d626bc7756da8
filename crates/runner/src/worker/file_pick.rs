//! Which of a job's files the next I/O goes to (fio's `file_service_type`, its
//! `__get_next_file()`): in turn N I/Os each, one file's whole share after another, or a file
//! drawn at random for N I/Os; with `openfiles` below the files, among a window of that many,
//! the next file joining when one has had its share (fio's `-EBUSY` until one is closed).

use iolab_job::{FileService, Rng};

pub(super) struct FilePicker {
    service: FileService,
    /// Each file's share in bytes (a pass over its region), and what this pass has used of
    /// it: as in fio, a file whose share is done takes no more I/O until every file's is.
    shares: Vec<u64>,
    used: Vec<u64>,
    current: usize,
    /// I/Os left on the current file (round robin, random).
    left: u32,
    rng: Rng,
    /// The files in the window (fio's open ones), how many, and how many it holds.
    open: Vec<bool>,
    n_open: usize,
    window: usize,
}

impl FilePicker {
    /// `window`: fio's `openfiles` (`None`: every file at once).
    pub fn new(
        service: FileService,
        shares: Vec<u64>,
        window: Option<u32>,
        seed: u64,
    ) -> FilePicker {
        let left = match service {
            FileService::RoundRobin(n) | FileService::Random(n) => n,
            FileService::Sequential => u32::MAX,
        };
        let n = shares.len();
        let mut open = vec![false; n];
        open[0] = true;
        FilePicker {
            service,
            used: vec![0; n],
            shares,
            current: 0,
            left,
            rng: Rng::new(seed ^ 0xF11E),
            open,
            n_open: 1,
            window: window.map_or(n, |w| (w as usize).clamp(1, n)),
        }
    }

    /// The file of the next I/O, of `len` bytes.
    #[inline(always)]
    pub fn next(&mut self, len: u64) -> usize {
        if self.shares.len() == 1 {
            return 0;
        }
        if self.left == 0 || !self.fits(self.current, len) {
            self.switch(len);
        }
        self.left = self.left.saturating_sub(1);
        self.used[self.current] += len;
        self.current
    }

    fn fits(&self, file: usize, len: u64) -> bool {
        self.used[file] + len <= self.shares[file]
    }

    /// Whether `file` can take the next I/O: it has room, and it is in the window or the
    /// window has room for it.
    fn can_take(&self, file: usize, len: u64) -> bool {
        self.fits(file, len) && (self.open[file] || self.n_open < self.window)
    }

    fn set_open(&mut self, file: usize, open: bool) {
        if self.open[file] != open {
            self.open[file] = open;
            match open {
                true => self.n_open += 1,
                false => self.n_open -= 1,
            }
        }
    }

    /// Moves to the next file with room (in turn, or at random); when none has, a new pass.
    /// Allocates nothing: round robin comes here on every I/O.
    #[inline]
    fn switch(&mut self, len: u64) {
        let n = self.shares.len();
        if !(0..n).any(|f| self.fits(f, len)) {
            self.used.iter_mut().for_each(|u| *u = 0);
            self.open.iter_mut().for_each(|o| *o = false);
            self.n_open = 0;
        }
        let current = self.current;
        let next = match self.service {
            FileService::Random(_) => {
                // fio finds a file done when it draws it; closing the done ones first
                // leaves the same files to draw from.
                for f in 0..n {
                    if !self.fits(f, len) {
                        self.set_open(f, false);
                    }
                }
                let open = (0..n).filter(|&f| self.can_take(f, len)).count() as u64;
                let k = self.rng.below(open.max(1)) as usize;
                (0..n).filter(|&f| self.can_take(f, len)).nth(k)
            }
            _ => (1..=n).map(|d| (current + d) % n).find(|&f| {
                // fio finds a file done (and closes it, making room) only when its turn
                // comes; a closed file's turn with the window full passes (`-EBUSY`).
                if !self.fits(f, len) {
                    self.set_open(f, false);
                }
                self.can_take(f, len)
            }),
        };
        // None: a block larger than any file's share; the files are then taken in turn.
        self.current = next.unwrap_or((self.current + 1) % n);
        self.set_open(self.current, true);
        self.left = match self.service {
            FileService::RoundRobin(k) | FileService::Random(k) => k,
            FileService::Sequential => u32::MAX,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picks(service: FileService, shares: Vec<u64>, n: usize) -> Vec<usize> {
        windowed(service, shares, None, n)
    }

    fn windowed(
        service: FileService,
        shares: Vec<u64>,
        window: Option<u32>,
        n: usize,
    ) -> Vec<usize> {
        let mut p = FilePicker::new(service, shares, window, 1);
        (0..n).map(|_| p.next(4)).collect()
    }

    #[test]
    fn a_window_takes_its_files_in_turn_and_the_next_when_one_is_done() {
        // Four files (12, 8, 8, 8 KiB), two at a time, as fio 3.33 takes them (`fio
        // --filename=f0:f1:f2:f3 --openfiles=2 --rw=write --bs=4k --debug=io`): 0 and 1 in
        // turn; file 1 is found done at its next turn, and 2 joins; file 0 is found done
        // at its, and 2 goes on alone (3's turn passed while the window was full) until 3's
        // turn comes again.
        let p = windowed(FileService::RoundRobin(1), vec![12, 8, 8, 8], Some(2), 9);
        assert_eq!(p, [0, 1, 0, 1, 0, 2, 2, 3, 3]);
        // Without the window, the same files in turn all at once.
        let p = windowed(FileService::RoundRobin(1), vec![12, 8, 8, 8], None, 9);
        assert_eq!(p, [0, 1, 2, 3, 0, 1, 2, 3, 0]);
        // Random service draws only among the window's files.
        let p = windowed(FileService::Random(1), vec![400; 6], Some(2), 100);
        let mut seen: Vec<usize> = p.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 2, "{p:?}");
    }

    #[test]
    fn round_robin_takes_n_each_in_turn() {
        assert_eq!(
            picks(FileService::RoundRobin(1), vec![8; 3], 5),
            [0, 1, 2, 0, 1]
        );
        assert_eq!(
            picks(FileService::RoundRobin(2), vec![8; 2], 6),
            [0, 0, 1, 1, 0, 0]
        );
    }

    #[test]
    fn sequential_finishes_a_files_share_first() {
        assert_eq!(
            picks(FileService::Sequential, vec![8, 12], 6),
            [0, 0, 1, 1, 1, 0]
        );
    }

    #[test]
    fn random_stays_n_ios_and_gives_each_file_its_share_per_pass() {
        let p = picks(FileService::Random(2), vec![8; 4], 400);
        assert!(p.chunks(2).all(|c| c[0] == c[1]));
        for pass in p.chunks(8) {
            assert!((0..4).all(|f| pass.iter().filter(|&&x| x == f).count() == 2));
        }
    }
}
