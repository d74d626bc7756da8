//! `mpirun -n N iolab run JOB...`: the same jobs on every rank (one per host, or several on
//! one host), started together, merged exactly on rank 0 and printed as fio's client/server
//! output does (`client_stats` with each host, then "All clients").
//!
//! MPI is a cargo feature (`--features mpi`), off by default: the default build needs no MPI
//! and, started by an MPI launcher, says how to get one that does instead of running N
//! unaware copies that would each print their own results.

#[cfg(feature = "mpi")]
mod driver;
#[cfg(feature = "mpi")]
mod peers;

use std::process::ExitCode;

use crate::exit::CliError;

/// This process's place in an MPI job, as its launcher's environment says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub rank: u32,
    pub size: u32,
}

/// The rank and size an MPI launcher gave this process (Open MPI's `mpirun`, MPICH's
/// Hydra, Slurm's `srun`), when one started it with more than one rank.
pub fn launched() -> Option<Launch> {
    launched_from(|k| std::env::var(k).ok())
}

fn launched_from(var: impl Fn(&str) -> Option<String>) -> Option<Launch> {
    const PAIRS: [(&str, &str); 3] = [
        ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
        ("PMI_RANK", "PMI_SIZE"),
        ("SLURM_PROCID", "SLURM_NTASKS"),
    ];
    PAIRS.iter().find_map(|(r, s)| {
        let rank = var(r)?.parse().ok()?;
        let size: u32 = var(s)?.parse().ok()?;
        (size > 1).then_some(Launch { rank, size })
    })
}

/// `{rank}` in any argument becomes this process's rank (`--filename=/data/f.{rank}`); job
/// files can use `${IOLAB_RANK}`.
#[cfg(any(feature = "mpi", test))]
pub fn with_rank(args: &[String], rank: u32) -> Vec<String> {
    args.iter()
        .map(|a| a.replace("{rank}", &rank.to_string()))
        .collect()
}

/// Runs `iolab run` as one rank of an MPI job.
pub fn run(args: &[String], launch: Launch) -> Result<ExitCode, CliError> {
    #[cfg(feature = "mpi")]
    {
        let _ = launch;
        driver::run(args)
    }
    #[cfg(not(feature = "mpi"))]
    {
        let _ = args;
        if launch.rank != 0 {
            // Rank 0 says why; the others only fail, after giving it time to: mpirun ends the
            // whole job at the first non-zero exit, possibly before rank 0 has written.
            std::thread::sleep(std::time::Duration::from_secs(5));
            return Ok(ExitCode::from(crate::exit::BAD_INPUT));
        }
        Err(CliError::bad_input(anyhow::anyhow!(
            "started by an MPI launcher with {} ranks, but this iolab was built without MPI: \
             build it with `cargo build --release --features mpi` (needs libopenmpi-dev or \
             MPICH, and libclang-dev); see docs/multihost.md",
            launch.size
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launchers_are_recognised_by_their_environment() {
        fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        }
        let ompi = [("OMPI_COMM_WORLD_RANK", "2"), ("OMPI_COMM_WORLD_SIZE", "4")];
        assert_eq!(launched_from(env(&ompi)), Some(Launch { rank: 2, size: 4 }));
        let slurm = [("SLURM_PROCID", "0"), ("SLURM_NTASKS", "8")];
        assert_eq!(
            launched_from(env(&slurm)),
            Some(Launch { rank: 0, size: 8 })
        );
        // One rank is a plain run.
        let one = [("PMI_RANK", "0"), ("PMI_SIZE", "1")];
        assert_eq!(launched_from(env(&one)), None);
        assert_eq!(launched_from(env(&[])), None);
    }

    #[test]
    fn rank_is_put_into_arguments() {
        let args = vec!["--filename=/d/f.{rank}".to_string(), "--bs=4k".to_string()];
        assert_eq!(with_rank(&args, 3), ["--filename=/d/f.3", "--bs=4k"]);
    }
}
