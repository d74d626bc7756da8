//! The direction of an I/O: every per-direction figure is indexed by it.

use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
    /// A discard: `BLKDISCARD` on a block device, a punched hole in a file (fio's trim).
    Trim,
}

impl Direction {
    /// How many there are: per-direction arrays are this long.
    pub const COUNT: usize = 3;

    /// Every direction, in index order.
    pub const ALL: [Direction; Direction::COUNT] =
        [Direction::Read, Direction::Write, Direction::Trim];

    /// Index into per-direction arrays: read 0, write 1, trim 2 (fio's DDIR_READ,
    /// DDIR_WRITE, DDIR_TRIM).
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// fio's name for it: `read`, `write`, `trim`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Trim => "trim",
        }
    }
}

/// Reads a per-direction array written before trims were kept (two entries: read, write)
/// or after (three), so stored results of either age load.
pub fn per_direction<'de, D, T>(d: D) -> Result<[Option<T>; Direction::COUNT], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let v: Vec<Option<T>> = Vec::deserialize(d)?;
    if v.len() > Direction::COUNT {
        return Err(serde::de::Error::invalid_length(
            v.len(),
            &"2 or 3 directions",
        ));
    }
    let mut it = v.into_iter();
    Ok(std::array::from_fn(|_| it.next().flatten()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Dirs {
        #[serde(deserialize_with = "per_direction")]
        d: [Option<u32>; Direction::COUNT],
    }

    #[test]
    fn older_two_direction_arrays_load() {
        let old: Dirs = serde_json::from_str(r#"{"d":[1,null]}"#).unwrap();
        assert_eq!(old.d, [Some(1), None, None]);
        let new: Dirs = serde_json::from_str(r#"{"d":[null,2,3]}"#).unwrap();
        assert_eq!(new.d, [None, Some(2), Some(3)]);
        assert!(serde_json::from_str::<Dirs>(r#"{"d":[1,2,3,4]}"#).is_err());
    }
}
