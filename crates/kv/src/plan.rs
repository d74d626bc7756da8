//! The order the workloads run in, and on which database. The review ran fillseq, then
//! readrandom on a database fillseq had just made, and overwrite on its first fillseq's
//! database; fillrandom loaded a database of its own. iolab does the same with one fill:
//! fillseq → readrandom → overwrite on `db`, then `db` is removed and fillrandom loads
//! `db-random`. Asking for readrandom or overwrite alone still runs the fillseq they need.

use crate::Workload;

/// One db_bench run of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    pub workload: Workload,
    /// Directory name under the work directory (`db` or `db-random`).
    pub db: &'static str,
    /// Run only to make the database another workload needs (the user did not ask for it;
    /// it is still stored, marked so).
    pub fill_only: bool,
    /// Remove `db` after this run (nothing after it needs it).
    pub remove_after: bool,
}

/// The runs for the `requested` workloads (any order, duplicates ignored).
pub fn plan(requested: &[Workload]) -> Vec<Planned> {
    let asked = |w| requested.contains(&w);
    let mut out = Vec::new();
    let seq_chain = [Workload::FillSeq, Workload::ReadRandom, Workload::Overwrite];
    let needs_fill = asked(Workload::ReadRandom) || asked(Workload::Overwrite);
    for w in seq_chain {
        if asked(w) || (w == Workload::FillSeq && needs_fill) {
            out.push(Planned {
                workload: w,
                db: "db",
                fill_only: !asked(w),
                remove_after: false,
            });
        }
    }
    if let Some(last) = out.last_mut() {
        last.remove_after = true;
    }
    if asked(Workload::FillRandom) {
        out.push(Planned {
            workload: Workload::FillRandom,
            db: "db-random",
            fill_only: false,
            remove_after: true,
        });
    }
    out
}

/// Bytes the database of `num` keys takes at most (uncompressed keys and values, as
/// fillseq writes them) — the free space asked for is twice this, for compaction's copies.
pub fn data_bytes(num: u64) -> u64 {
    num.saturating_mul(crate::params::KEY_BYTES + crate::params::VALUE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Workload::*;

    fn names(p: &[Planned]) -> Vec<(&str, &str, bool, bool)> {
        p.iter()
            .map(|p| (p.workload.name(), p.db, p.fill_only, p.remove_after))
            .collect()
    }

    #[test]
    fn all_four_share_one_fill_then_fillrandom_has_its_own_database() {
        assert_eq!(
            names(&plan(&[FillRandom, Overwrite, ReadRandom, FillSeq])),
            vec![
                ("fillseq", "db", false, false),
                ("readrandom", "db", false, false),
                ("overwrite", "db", false, true),
                ("fillrandom", "db-random", false, true),
            ]
        );
    }

    #[test]
    fn a_read_alone_gets_the_fill_it_needs() {
        assert_eq!(
            names(&plan(&[ReadRandom])),
            vec![
                ("fillseq", "db", true, false),
                ("readrandom", "db", false, true)
            ]
        );
        assert_eq!(
            names(&plan(&[FillRandom, FillRandom])),
            vec![("fillrandom", "db-random", false, true)]
        );
        assert_eq!(
            names(&plan(&[FillSeq])),
            vec![("fillseq", "db", false, true)]
        );
        assert!(plan(&[]).is_empty());
        assert_eq!(data_bytes(1000), 810_000);
    }
}
