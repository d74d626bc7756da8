//! fio's deduplicable writes (`dedupe_percentage`, `dedupe_mode`,
//! `dedupe_working_set_percentage`, `dedupe_global`): a share of write buffers repeat data
//! already written, so a deduplicating device or filesystem (zram's same-page merging, a
//! storage array) sees a known dedupe ratio.

/// Which earlier data a deduplicable write repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DedupeMode {
    /// The last unique buffer (fio's default, `repeat`).
    #[default]
    Repeat,
    /// A page picked at random from a working set of the first pages this job (or, with
    /// `dedupe_global`, every job) writes (`working_set`).
    WorkingSet,
}

/// fio's dedupe options; `percent` zero means every write is unique.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dedupe {
    /// Share of writes that repeat earlier data (`dedupe_percentage`).
    pub percent: u8,
    pub mode: DedupeMode,
    /// The working set, as a share of the job's size (`dedupe_working_set_percentage`,
    /// default 5).
    pub working_set_percent: u8,
    /// The working set is shared by the jobs that set it (`dedupe_global`).
    pub global: bool,
}

impl Default for Dedupe {
    fn default() -> Self {
        Dedupe {
            percent: 0,
            mode: DedupeMode::Repeat,
            working_set_percent: 5,
            global: false,
        }
    }
}

impl Dedupe {
    pub fn on(&self) -> bool {
        self.percent > 0
    }

    /// Why fio would refuse these options for a job with `files` files and `size_given`
    /// (fio's `fixup_options()`); `None` when it would not.
    pub fn unfit(&self, files: usize, size_given: bool) -> Option<String> {
        if !self.on() || self.mode != DedupeMode::WorkingSet {
            return None;
        }
        if !size_given {
            return Some("dedupe_mode=working_set needs size to be set".into());
        }
        if files != 1 {
            return Some(format!(
                "dedupe_mode=working_set works with one file per job, not {files}"
            ));
        }
        if self.percent as u32 + self.working_set_percent as u32 > 100 {
            return Some(format!(
                "dedupe_percentage={} cannot be reached with {}% of the size kept as the \
                 working set's unique pages",
                self.percent, self.working_set_percent
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn working_set_needs_a_size_one_file_and_room_for_unique_pages() {
        let ws = Dedupe {
            percent: 50,
            mode: DedupeMode::WorkingSet,
            working_set_percent: 50,
            global: false,
        };
        assert_eq!(ws.unfit(1, true), None);
        assert!(ws.unfit(1, false).unwrap().contains("size"));
        assert!(ws.unfit(2, true).unwrap().contains("one file"));
        let over = Dedupe {
            working_set_percent: 60,
            ..ws
        };
        assert!(over.unfit(1, true).unwrap().contains("cannot be reached"));
        let repeat = Dedupe {
            mode: DedupeMode::Repeat,
            ..over
        };
        assert_eq!(repeat.unfit(3, false), None);
    }
}
