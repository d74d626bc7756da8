//! What a run concluded and noticed, as data: notes with what they qualify, and the marks a
//! table earned with what they rest on. A step keeps them in its stored result, and every
//! output (the terminal, `show`, `history`, `export`, the page) renders them from there, so
//! none of them says less than another or claims what the run did not conclude.

use serde::{Deserialize, Serialize};

/// What a note qualifies: where an output puts it (beside that figure, table or chart).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "snake_case")]
pub enum About {
    /// The whole run (what the target held when it began).
    Run,
    /// Every cell of one I/O path (an engine's label: `io_uring`, `pvsync2+hipri`).
    Path { path: String },
    /// One cell: a path on a workload (`4KiB Random Read`).
    Cell { path: String, workload: String },
}

/// What kind of thing a note says, so an output can style or group it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// What the target held when the reads began (reads of never-written blocks).
    Stored,
    /// The path did not run as asked (hipri served by interrupts).
    Fallback,
    /// Anything else the run noticed that qualifies its figures (io-wq, mmap's direct=1).
    Caveat,
}

/// One thing a run noticed, with what it qualifies and the sentence the terminal printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub about: About,
    pub kind: NoteKind,
    pub text: String,
}

impl Note {
    pub fn new(about: About, kind: NoteKind, text: impl Into<String>) -> Note {
        Note {
            about,
            kind,
            text: text.into(),
        }
    }

    /// Whether the note qualifies the figures of `workload` (run-wide and path-wide notes
    /// qualify every workload; a stored-data note only reads).
    pub fn qualifies(&self, workload: &str, reads: bool) -> bool {
        match &self.about {
            About::Run => self.kind != NoteKind::Stored || reads,
            About::Path { .. } => true,
            About::Cell { workload: w, .. } => w == workload,
        }
    }
}

/// The mark one row of a table earned (a metric on a workload), kept with what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowMark {
    /// The workload's title (`4KiB Random Read`).
    pub workload: String,
    /// The metric's title (`IOPS`, `Mean Latency`).
    pub metric: String,
    /// The path marked best, beyond the others' 95 % intervals; `None` when none was.
    pub best: Option<String>,
    /// The paths that tie (within each other's intervals), none marked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ties: Vec<String>,
    /// Why the row was not judged (one round, a thin tail, a figure without direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unjudged: Option<String>,
}

/// The row marks of a step's tables: which path (if any) each row marked best.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Marks(pub Vec<RowMark>);

impl Marks {
    /// The path `metric` marked best on `workload`, where it marked one.
    pub fn best(&self, workload: &str, metric: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|m| m.workload == workload && m.metric == metric)
            .and_then(|m| m.best.as_deref())
    }

    /// The row itself, judged or not.
    pub fn row(&self, workload: &str, metric: &str) -> Option<&RowMark> {
        self.0
            .iter()
            .find(|m| m.workload == workload && m.metric == metric)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_stored_tagged_and_read_back_whole() {
        let n = Note::new(
            About::Cell {
                path: "io_uring".into(),
                workload: "4KiB Random Read".into(),
            },
            NoteKind::Caveat,
            "io_uring handed requests to io-wq",
        );
        let v = serde_json::to_value(&n).unwrap();
        assert_eq!(v["about"]["on"], "cell");
        assert_eq!(v["kind"], "caveat");
        assert_eq!(serde_json::from_value::<Note>(v).unwrap(), n);
        assert!(n.qualifies("4KiB Random Read", true));
        assert!(!n.qualifies("4KiB Random Write", false));
        let stored = Note::new(About::Run, NoteKind::Stored, "reads of ...");
        assert!(stored.qualifies("4KiB Random Read", true));
        assert!(!stored.qualifies("4KiB Random Write", false));
    }

    #[test]
    fn marks_answer_only_for_a_row_that_marked_a_path() {
        let m = Marks(vec![
            RowMark {
                workload: "4KiB Random Read".into(),
                metric: "IOPS".into(),
                best: None,
                ties: vec![],
                unjudged: Some("one round".into()),
            },
            RowMark {
                workload: "4KiB Random Write".into(),
                metric: "IOPS".into(),
                best: Some("psync".into()),
                ties: vec![],
                unjudged: None,
            },
        ]);
        assert_eq!(m.best("4KiB Random Read", "IOPS"), None);
        assert_eq!(m.best("4KiB Random Write", "IOPS"), Some("psync"));
        let v = serde_json::to_value(&m).unwrap();
        assert!(v.is_array());
        assert_eq!(serde_json::from_value::<Marks>(v).unwrap(), m);
    }
}
