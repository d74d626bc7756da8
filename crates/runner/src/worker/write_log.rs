//! The completed writes a verifying job reads back, kept as fio keeps them (`log_io_piece()`,
//! iolog.c) where it matters: by file and offset with an older write dropped when a newer
//! one overlaps it (fio's tree), so a block written twice (a sequential job whose holes wrap
//! it back over its start, `rw=write:3M`) is read back once, for its newest contents, in
//! offset order. Where no block can be written twice, or a random map writes each once a
//! pass (fio's list), a plain list in write order holds the same pieces without a tree's
//! allocations (for a one-file sequential job, in fio's order too).

use std::collections::BTreeMap;

/// A completed write to read back, with the seed and number it was stamped with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Piece {
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub seed: u64,
    pub numberio: u16,
}

impl Piece {
    fn end(&self) -> u64 {
        self.offset + self.len as u64
    }
}

pub(super) enum WriteLog {
    /// Write order, and how many were read back.
    List { pieces: Vec<Piece>, read: usize },
    /// By (file, offset), each range held once, newest write.
    Tree(BTreeMap<(u32, u64), Piece>),
}

impl WriteLog {
    /// fio's list (`by_offset` false) or tree; `capacity`: writes expected (list only).
    pub fn new(by_offset: bool, capacity: usize) -> WriteLog {
        match by_offset {
            true => WriteLog::Tree(BTreeMap::new()),
            false => WriteLog::List {
                pieces: Vec::with_capacity(capacity),
                read: 0,
            },
        }
    }

    /// Whether each piece held is the newest write of its range (so its seed and number
    /// are what a read of it must find).
    pub fn holds_newest(&self) -> bool {
        matches!(self, WriteLog::Tree(_))
    }

    pub fn push(&mut self, p: Piece) {
        match self {
            WriteLog::List { pieces, .. } => pieces.push(p),
            WriteLog::Tree(t) => {
                // The write before it in the file, if it reaches into this one.
                let before = t
                    .range(..(p.file, p.offset))
                    .next_back()
                    .filter(|(_, q)| q.file == p.file && q.end() > p.offset)
                    .map(|(k, _)| *k);
                if let Some(k) = before {
                    t.remove(&k);
                }
                // Those starting inside it, one at a time (no list of them is built).
                while let Some(k) = t
                    .range((p.file, p.offset)..(p.file, p.end()))
                    .next()
                    .map(|(k, _)| *k)
                {
                    t.remove(&k);
                }
                t.insert((p.file, p.offset), p);
            }
        }
    }

    /// Pieces not yet read back.
    pub fn waiting(&self) -> usize {
        match self {
            WriteLog::List { pieces, read } => pieces.len() - read,
            WriteLog::Tree(t) => t.len(),
        }
    }

    /// The next piece to read back: the oldest write (list) or the lowest offset (tree).
    pub fn pop(&mut self) -> Option<Piece> {
        match self {
            WriteLog::List { pieces, read } => {
                let p = *pieces.get(*read)?;
                *read += 1;
                if *read == pieces.len() {
                    // All read back: start over, so a long run's log stays as short as its
                    // backlog.
                    pieces.clear();
                    *read = 0;
                }
                Some(p)
            }
            WriteLog::Tree(t) => t.pop_first().map(|(_, p)| p),
        }
    }

    pub fn clear(&mut self) {
        match self {
            WriteLog::List { pieces, read } => {
                pieces.clear();
                *read = 0;
            }
            WriteLog::Tree(t) => t.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(file: u32, offset: u64, len: u32, seed: u64) -> Piece {
        Piece {
            file,
            offset,
            len,
            seed,
            numberio: seed as u16,
        }
    }

    #[test]
    fn the_tree_keeps_the_newest_write_of_a_range_in_offset_order() {
        let mut t = WriteLog::new(true, 0);
        // rw=write:3M at 1 MiB over 16 MiB: 0, 4M, 8M, 12M, then 0 and 4M again.
        for (i, off) in [0u64, 4, 8, 12, 0, 4].into_iter().enumerate() {
            t.push(w(0, off << 20, 1 << 20, i as u64));
        }
        assert_eq!(t.waiting(), 4);
        let read: Vec<(u64, u64)> = std::iter::from_fn(|| t.pop())
            .map(|p| (p.offset >> 20, p.seed))
            .collect();
        assert_eq!(read, vec![(0, 4), (4, 5), (8, 2), (12, 3)]);
        // A newer write overlapping two older ones in part drops both; other files stay.
        t.push(w(0, 0, 8192, 1));
        t.push(w(0, 8192, 8192, 2));
        t.push(w(1, 4096, 4096, 3));
        t.push(w(0, 4096, 8192, 4));
        let left: Vec<(u32, u64, u64)> = std::iter::from_fn(|| t.pop())
            .map(|p| (p.file, p.offset, p.seed))
            .collect();
        assert_eq!(left, vec![(0, 4096, 4), (1, 4096, 3)]);
    }

    #[test]
    fn the_list_reads_back_in_write_order_and_starts_over() {
        let mut l = WriteLog::new(false, 4);
        l.push(w(0, 8192, 4096, 1));
        l.push(w(0, 0, 4096, 2));
        assert_eq!(l.waiting(), 2);
        assert_eq!(l.pop().map(|p| p.seed), Some(1));
        assert_eq!(l.pop().map(|p| p.seed), Some(2));
        assert_eq!((l.waiting(), l.pop()), (0, None));
    }
}
