//! The purge before each test, and whether it is one in the specification's sense: SNIA's PTS
//! returns the drive to its fresh-out-of-box state with a Security Erase, Sanitize, Format
//! Unit or NVMe Format with an erase (user data or cryptographic). What iolab can do beside
//! that (an NVMe Format without erase, BLKDISCARD, a file's hole punch) deallocates the
//! blocks but is no purge: the test runs, marked not comparable with a certified result. A
//! purge that fails altogether stops the test.

use iolab_suite::purge::{purge as clear, Deallocated};
use iolab_sysinfo::Consent;

use crate::config::Config;

/// What purging did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purge {
    /// What was done, in a line.
    pub text: String,
    /// Why it is no purge in the specification's sense (`None`: it is one).
    pub departs: Option<String>,
}

/// Purges the configured target (its whole namespace on NVMe; the active range otherwise).
/// `Err`: it may not or could not be purged, and the test does not run.
pub fn purge(c: &Config, consent: &mut Consent) -> Result<Purge, String> {
    let d = clear(&c.target, Some(c.region), consent)?;
    if let Some(e) = &d.error {
        return Err(format!(
            "could not purge ({e}); the test needs a purged drive"
        ));
    }
    Ok(Purge {
        text: d.text(),
        departs: departs(&d),
    })
}

/// Why a deallocation is no PTS purge, if it is not one.
fn departs(d: &Deallocated) -> Option<String> {
    match &d.nvme_format {
        Some(Ok(f)) if f.ses != 0 => None,
        Some(Ok(_)) => Some(
            "the drive took NVMe Format only without a secure erase, which is no purge in the \
             specification's sense"
                .into(),
        ),
        _ if !d.device => Some(
            "a file is hole-punched, which is no purge: the drive under it is never returned \
             to its fresh state"
                .into(),
        ),
        _ => Some(
            "BLKDISCARD (TRIM) is no purge in the specification's sense; iolab purges NVMe \
             namespaces by Format, and has no ATA Security Erase or SCSI Sanitize yet"
                .into(),
        ),
    }
}
