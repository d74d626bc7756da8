//! fio's verify state file (`verify_state_save` / `verify_state_load`): what a write job had
//! written when it ended, so a later verify job checks only that much.
//!
//! fio writes `local-<job>-<index>-verify.state` (`/` in the job's name turned into `.`)
//! in the current directory or `--aux-path`: a header (version, size, crc32c of the rest) and
//! the job's `thread_io_list`, all little-endian. Two versions are in use:
//! - **3** (fio 3.33, Debian's): the writes issued and, per file, the offsets of the last
//!   `iodepth` completed writes. A verify job stops at the first read, within `iodepth` of
//!   the end, whose offset is not among them.
//! - **5** (fio 3.42): the writes issued and the sequence numbers still in flight. A verify
//!   job stops at the read whose sequence number reaches the writes issued or was in flight.
//!
//! iolab writes version 3, which the fio installed beside it reads, and reads both. The
//! random generator's state fio stores is not used by either fio when loading; iolab, whose
//! offset generator is not fio's, stores it as zeros (what fio stores for a sequential job).

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::checksum::fio_crc32c;

/// fio 3.33's header version.
pub const VERSION_3: u64 = 3;
/// fio 3.42's header version.
pub const VERSION_5: u64 = 5;

const HEADER: usize = 24;
/// `sizeof(struct thread_io_list)` in version 3 and version 5.
const LIST_3: usize = 152;
const LIST_5: usize = 144;
const NAME_LEN: usize = 64;

/// Why a state file cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum StateError {
    #[error("it is {0} bytes, shorter than fio's verify state header and list")]
    Short(usize),
    #[error("its version is {0}; fio 3.33 writes 3 and fio 3.42 writes 5")]
    Version(u64),
    #[error("its checksum does not match its contents (the file is corrupt)")]
    Corrupt,
}

/// One job's saved write state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedState {
    /// 3 or 5: which fio's layout and stopping rule.
    pub version: u64,
    /// The saving job's `iodepth`.
    pub depth: u32,
    /// Files of the saving job (version 3).
    pub files: u32,
    /// Writes the job issued.
    pub numberio: u64,
    /// The job's index in its run (fio's thread number less one).
    pub index: u64,
    /// The job's name, as fio cuts it (63 bytes).
    pub name: String,
    /// Version 3: (file index, offset) of the last completed writes, newest first per file.
    pub completions: Vec<(u64, u64)>,
    /// Version 5: sequence numbers of writes in flight (`u64::MAX`: an empty slot).
    pub inflight: Vec<u64>,
}

/// The state file's name for job `name` at `index`, in `dir` (fio's `--aux-path`) or the
/// current directory.
pub fn file_path(dir: Option<&Path>, name: &str, index: u32) -> PathBuf {
    let file = format!("local-{}-{index}-verify.state", name.replace('/', "."));
    match dir {
        Some(d) => d.join(file),
        None => PathBuf::from(file),
    }
}

impl SavedState {
    /// The file's bytes, in fio 3.33's layout (version 3).
    pub fn encode(&self) -> Vec<u8> {
        let slots = self.depth as usize * self.files as usize;
        let mut list = Vec::with_capacity(LIST_3 + 16 * slots);
        list.extend((self.completions.len() as u64).to_le_bytes());
        list.extend(self.depth.to_le_bytes());
        list.extend(self.files.to_le_bytes());
        list.extend(self.numberio.to_le_bytes());
        list.extend(self.index.to_le_bytes());
        // The random state: use64 and six words, zero (see the module's doc).
        list.extend([0u8; 56]);
        list.extend(name_field(&self.name));
        for &(file, offset) in &self.completions {
            list.extend(file.to_le_bytes());
            list.extend(offset.to_le_bytes());
        }
        // fio allocates depth × files completions and fills the first no_comps.
        list.resize(LIST_3 + 16 * slots.max(self.completions.len()), 0);
        let mut out = Vec::with_capacity(HEADER + list.len());
        out.extend(VERSION_3.to_le_bytes());
        out.extend((list.len() as u64).to_le_bytes());
        out.extend((fio_crc32c(&list) as u64).to_le_bytes());
        out.extend(list);
        out
    }

    /// Reads a state file of either version, its checksum checked as fio checks it.
    pub fn decode(bytes: &[u8]) -> Result<SavedState, StateError> {
        if bytes.len() < HEADER {
            return Err(StateError::Short(bytes.len()));
        }
        let version = le64(bytes, 0);
        let size = le64(bytes, 8) as usize;
        let crc = le64(bytes, 16);
        let min = match version {
            VERSION_3 => LIST_3,
            VERSION_5 => LIST_5,
            v => return Err(StateError::Version(v)),
        };
        let list = bytes
            .get(HEADER..HEADER.saturating_add(size))
            .filter(|l| l.len() >= min)
            .ok_or(StateError::Short(bytes.len()))?;
        if fio_crc32c(list) as u64 != crc {
            return Err(StateError::Corrupt);
        }
        Ok(match version {
            VERSION_3 => decode_3(list)?,
            _ => decode_5(list)?,
        })
    }

    /// Whether a verifying read stops here, by the rule of the fio that wrote the state:
    /// the read of `offset` in file `file`, issued after `reads_issued` reads of which
    /// `reads_done` have completed.
    pub fn stops(&self, reads_done: u64, reads_issued: u64, file: u64, offset: u64) -> bool {
        match self.version {
            // fio 3.33's verify_state_should_stop(), its unsigned arithmetic kept.
            VERSION_3 => {
                let depth = self.depth as u64;
                let outside = reads_done < depth || self.numberio.wrapping_sub(reads_done) > depth;
                if outside && self.numberio > depth {
                    return false;
                }
                !self.completions.contains(&(file, offset))
            }
            // fio 3.42's: the read's sequence number against the writes issued and those
            // in flight.
            _ => reads_issued >= self.numberio || self.inflight.contains(&reads_issued),
        }
    }
}

fn decode_3(list: &[u8]) -> Result<SavedState, StateError> {
    let comps = le64(list, 0) as usize;
    let end = LIST_3.saturating_add(comps.saturating_mul(16));
    if list.len() < end {
        return Err(StateError::Short(list.len() + HEADER));
    }
    Ok(SavedState {
        version: VERSION_3,
        depth: le32(list, 8),
        files: le32(list, 12),
        numberio: le64(list, 16),
        index: le64(list, 24),
        name: name_of(&list[88..88 + NAME_LEN]),
        completions: (0..comps)
            .map(|i| (le64(list, LIST_3 + 16 * i), le64(list, LIST_3 + 16 * i + 8)))
            .collect(),
        inflight: Vec::new(),
    })
}

fn decode_5(list: &[u8]) -> Result<SavedState, StateError> {
    let depth = le32(list, 0);
    let end = LIST_5.saturating_add(depth as usize * 8);
    if list.len() < end {
        return Err(StateError::Short(list.len() + HEADER));
    }
    Ok(SavedState {
        version: VERSION_5,
        depth,
        files: 0,
        numberio: le64(list, 8),
        index: le64(list, 16),
        name: name_of(&list[80..80 + NAME_LEN]),
        completions: Vec::new(),
        inflight: (0..depth as usize)
            .map(|i| le64(list, LIST_5 + 8 * i))
            .collect(),
    })
}

/// fio's `snprintf(name, 64, "%s", ...)`: at most 63 bytes and a NUL.
fn name_field(name: &str) -> [u8; NAME_LEN] {
    let mut field = [0u8; NAME_LEN];
    let bytes = name.as_bytes();
    let n = bytes.len().min(NAME_LEN - 1);
    field[..n].copy_from_slice(&bytes[..n]);
    field
}

fn name_of(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(numberio: u64, comps: Vec<(u64, u64)>) -> SavedState {
        SavedState {
            version: VERSION_3,
            depth: 1,
            files: 1,
            numberio,
            index: 0,
            name: "job".into(),
            completions: comps,
            inflight: Vec::new(),
        }
    }

    #[test]
    fn a_saved_state_reads_back_and_a_changed_byte_is_corrupt() {
        let s = state(64, vec![(0, 252 * 1024)]);
        let bytes = s.encode();
        assert_eq!(bytes.len(), HEADER + LIST_3 + 16);
        assert_eq!(SavedState::decode(&bytes).unwrap(), s);
        let mut bad = bytes.clone();
        bad[HEADER + 16] ^= 1;
        assert_eq!(SavedState::decode(&bad), Err(StateError::Corrupt));
        let mut other = bytes;
        other[0] = 4;
        assert_eq!(SavedState::decode(&other), Err(StateError::Version(4)));
        assert_eq!(SavedState::decode(&[0; 10]), Err(StateError::Short(10)));
    }

    #[test]
    fn fio_333s_rule_stops_at_the_first_read_past_the_last_completed_write() {
        // 64 writes of 4 KiB at depth 1: the last completed at 252 KiB.
        let s = state(64, vec![(0, 252 * 1024)]);
        let stops_at = (0..128u64)
            .find(|&i| s.stops(i, i, 0, i * 4096))
            .expect("stops");
        assert_eq!(stops_at, 64);
        // A clean full pass is verified to its end; a second pass stops at its start.
        let full = state(128, vec![(0, 508 * 1024)]);
        assert!((0..128u64).all(|i| !full.stops(i, i, 0, i * 4096)));
        assert!(full.stops(128, 128, 0, 0));
    }

    #[test]
    fn fio_342s_rule_stops_at_the_writes_issued_or_one_in_flight() {
        let s = SavedState {
            version: VERSION_5,
            inflight: vec![u64::MAX, 40],
            ..state(64, Vec::new())
        };
        assert_eq!((0..128).find(|&i| s.stops(i, i, 0, 0)), Some(40));
        let clean = SavedState {
            inflight: vec![u64::MAX; 2],
            ..s
        };
        assert_eq!((0..128).find(|&i| clean.stops(i, i, 0, 0)), Some(64));
    }

    #[test]
    fn names_as_fio_makes_them() {
        assert_eq!(
            file_path(None, "a/b", 3),
            PathBuf::from("local-a.b-3-verify.state")
        );
        assert_eq!(
            file_path(Some(Path::new("/x")), "j", 0),
            PathBuf::from("/x/local-j-0-verify.state")
        );
        let long = "n".repeat(80);
        assert_eq!(name_of(&name_field(&long)).len(), 63);
    }
}
