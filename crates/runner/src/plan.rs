//! How a list of jobs is scheduled and grouped, after fio: a job with `stonewall` waits for
//! every job before it, so the list splits into phases that run one after another (jobs in a
//! phase run side by side); reporting groups start at each `stonewall` or `new_group`.

use std::ops::Range;

use iolab_job::JobSpec;

/// The phases: consecutive ranges of job indices, each started once the previous one ended.
/// How long the jobs are planned to run, phase after phase (start delays, ramps and
/// runtimes); `None` when a phase has no planned end (a size-based job). The progress line's
/// time left counts down from it.
pub fn planned_time(jobs: &[JobSpec]) -> Option<std::time::Duration> {
    phases(jobs)
        .into_iter()
        .map(|p| crate::watchdog::planned_end(jobs[p].iter()))
        .sum()
}

pub fn phases(jobs: &[JobSpec]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        match out.last_mut() {
            Some(last) if !j.stonewall => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// For each job, the earlier job its `wait_for` names (the nearest before it), or why the name
/// does not resolve: fio only waits for a job defined before the waiting one.
pub fn wait_targets<'a>(
    jobs: impl IntoIterator<Item = &'a JobSpec>,
) -> Result<Vec<Option<usize>>, (usize, String)> {
    let jobs: Vec<&JobSpec> = jobs.into_iter().collect();
    jobs.iter()
        .enumerate()
        .map(|(i, j)| match &j.wait_for {
            None => Ok(None),
            Some(name) => jobs[..i]
                .iter()
                .rposition(|e| &e.name == name)
                .map(Some)
                .ok_or_else(|| {
                    (
                        i,
                        format!("wait_for={name}: no job of that name before this one"),
                    )
                }),
        })
        .collect()
}

/// fio's group ids: 0 for the first job, one more at each job that sets `stonewall` or
/// `new_group`.
pub fn group_ids(jobs: &[JobSpec]) -> Vec<u32> {
    let mut id = 0;
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            if i > 0 && (j.stonewall || j.new_group) {
                id += 1;
            }
            id
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(flags: &[(bool, bool)]) -> Vec<JobSpec> {
        flags
            .iter()
            .enumerate()
            .map(|(i, &(stonewall, new_group))| {
                let mut j = JobSpec::new(format!("j{i}"), "/tmp/x");
                j.stonewall = stonewall;
                j.new_group = new_group;
                j
            })
            .collect()
    }

    #[test]
    fn stonewall_splits_phases_and_groups() {
        // The SPDK blog's file: every job stonewalled.
        let j = jobs(&[(true, false), (true, false), (true, false)]);
        assert_eq!(phases(&j), vec![0..1, 1..2, 2..3]);
        assert_eq!(group_ids(&j), vec![0, 1, 2]);
        // The hosting review's file: two jobs side by side, one group.
        let j = jobs(&[(false, false), (false, false)]);
        assert_eq!(phases(&j), vec![0..2]);
        assert_eq!(group_ids(&j), vec![0, 0]);
    }

    #[test]
    fn new_group_groups_without_waiting() {
        let j = jobs(&[(false, false), (false, true), (true, false), (false, false)]);
        assert_eq!(phases(&j), vec![0..2, 2..4]);
        assert_eq!(group_ids(&j), vec![0, 1, 2, 2]);
    }

    #[test]
    fn nothing_to_plan() {
        assert!(phases(&[]).is_empty());
        assert!(group_ids(&[]).is_empty());
    }
}
