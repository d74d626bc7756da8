//! Which of a job's files the next I/O goes to (fio's `file_service_type`, its
//! `__get_next_file()`): in turn N I/Os each, one file's whole share after another, or a file
//! drawn at random for N I/Os.

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
}

impl FilePicker {
    pub fn new(service: FileService, shares: Vec<u64>, seed: u64) -> FilePicker {
        let left = match service {
            FileService::RoundRobin(n) | FileService::Random(n) => n,
            FileService::Sequential => u32::MAX,
        };
        FilePicker {
            service,
            used: vec![0; shares.len()],
            shares,
            current: 0,
            left,
            rng: Rng::new(seed ^ 0xF11E),
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

    /// Moves to the next file with room (in turn, or at random); when none has, a new pass.
    /// Allocates nothing: round robin comes here on every I/O.
    #[inline]
    fn switch(&mut self, len: u64) {
        let n = self.shares.len();
        if !(0..n).any(|f| self.fits(f, len)) {
            self.used.iter_mut().for_each(|u| *u = 0);
        }
        let next = match self.service {
            FileService::Random(_) => {
                let open = (0..n).filter(|&f| self.fits(f, len)).count() as u64;
                let k = self.rng.below(open.max(1)) as usize;
                (0..n).filter(|&f| self.fits(f, len)).nth(k)
            }
            _ => (1..=n)
                .map(|d| (self.current + d) % n)
                .find(|&f| self.fits(f, len)),
        };
        // None: a block larger than any file's share; the files are then taken in turn.
        self.current = next.unwrap_or((self.current + 1) % n);
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
        let mut p = FilePicker::new(service, shares, 1);
        (0..n).map(|_| p.next(4)).collect()
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
