//! Human-readable output: per-job summaries in the shape of fio's normal report, and the QD1
//! engine tables of the SPDK blog (engines as columns, the best marked), written as Markdown
//! so they paste into a review as they are; and stored runs exported as JSON, CSV or
//! Markdown ([`export`]).

pub mod best;
pub mod compare;
pub mod differences;
pub mod export;
pub mod format;
pub mod hosts;
pub mod qd1;
pub mod repeats;
pub mod split;
pub mod verdict;
pub mod width;

pub use qd1::{Qd1Cell, Qd1Table};
