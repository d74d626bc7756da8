//! Names of fio options iolab does not implement, so that an option fio has is reported as
//! "not supported by iolab" and a typo as "unknown" with a suggestion.

use crate::FioError;

/// fio 3.x options (from fio's HOWTO) that iolab does not support yet.
pub static FIO_ONLY: &[&str] = &[
    "runtime_based",
    "bs_is_seq_rand",
    "priority",
    "verify_async_cpus",
    "trim_backlog",
    "block_error_percentiles",
    "userspace_reap",
    "hipri_percentage",
    "nowait",
    // fio 3.42's, not built yet (issue: fio's newest language).
    "num_range",
    "recover_zbd_write_error",
    "sprandom",
    "write_zone_remainder",
    // Aliases and the options of engines iolab
    // does not have, as fio 3.33's option tables name them: fio knows every one, so a job file
    // using one is refused as "not supported", never as "unknown".
    "bindname",
    "brick",
    "busy_poll",
    "busy_wait_polling",
    "chunck_size",
    "chunk_size",
    "clientname",
    "clustername",
    "conf",
    "cont",
    "cuda_io",
    "direct_write_to_pmem",
    "dummy",
    "flow_watermark",
    "gpu_dev_id",
    "gpu_dev_ids",
    "hdfs_use_direct",
    "hdfsdirectory",
    "hostname",
    "http_host",
    "http_mode",
    "http_pass",
    "http_s3_key",
    "http_s3_keyid",
    "http_s3_region",
    "http_s3_sse_customer_algorithm",
    "http_s3_sse_customer_key",
    "http_s3_storage_class",
    "http_swift_auth_token",
    "http_user",
    "http_verbose",
    "https",
    "initiator",
    "interface",
    "listen",
    "mss",
    "namenode",
    "nfs_url",
    "no_completion_thread",
    "nodelay",
    "object_class",
    "percentage_sequential",
    "pingpong",
    "pool",
    "port",
    "proto",
    "protocol",
    "rbdname",
    "readfua",
    "rwmixcycle",
    "serverip",
    "sg_write_mode",
    "single-instance",
    "single_instance",
    "skip_bad",
    "softrandommap",
    "stream_id",
    "svcl",
    "touch_objects",
    "ttl",
    "uri",
    "verb",
    "verifysort",
    "verifysort_nr",
    "volume",
    "window_size",
    "writefua",
    "xnvme_admin",
    "xnvme_async",
    "xnvme_be",
    "xnvme_dev_nsid",
    "xnvme_iovec",
    "xnvme_sync",
];

/// The options of fio's engines iolab does not have, and fio's aliases of them: fio
/// accepts them only with their engine.
fn other_engine_option(name: &str) -> bool {
    FIO_ONLY
        .iter()
        .skip_while(|n| **n != FIRST_ENGINE_OPTION)
        .any(|n| *n == name)
}

/// Where [`FIO_ONLY`]'s list of other engines' options begins.
const FIRST_ENGINE_OPTION: &str = "bindname";

/// How iolab answers one of fio's option names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Census {
    /// In iolab's table, meaning what it means in fio.
    Implemented,
    /// In iolab's table, accepted and ignored where fio ignores it too (its help says why).
    IgnoredAsFio,
    /// Refused with a one-line reason naming the option.
    Refused(String),
    /// Neither iolab's nor fio's.
    Unknown,
}

/// iolab's answer to the fio option `name`.
pub fn census(name: &str) -> Census {
    match crate::options::find(name) {
        Some(def) if def.help.starts_with(IGNORED_PREFIX) => Census::IgnoredAsFio,
        Some(_) => Census::Implemented,
        None => match unknown_or_unsupported(name, std::iter::empty()) {
            FioError::Unknown { .. } => Census::Unknown,
            e if other_engine_option(name) => Census::Refused(format!(
                "{e}: it belongs to an ioengine iolab does not have"
            )),
            e => Census::Refused(e.to_string()),
        },
    }
}

/// The README's list of fio's options iolab does not take, after its option table: those
/// refused for a reason, those not built yet, and a word on other engines' options.
pub fn refused_markdown() -> String {
    let mut s =
        String::from("\nfio options iolab refuses, each with a one-line error naming it:\n\n");
    s.push_str("| option | why |\n|---|---|\n");
    for (name, reason) in REFUSED {
        s.push_str(&format!("| `{name}` | {reason} |\n"));
    }
    let not_yet: Vec<String> = FIO_ONLY
        .iter()
        .take_while(|n| **n != FIRST_ENGINE_OPTION)
        .map(|n| format!("`{n}`"))
        .collect();
    s.push_str(&format!(
        "| {} | not supported by iolab yet |\n",
        not_yet.join(", ")
    ));
    s.push_str(
        "\nThe options of fio's engines iolab does not have (network, RBD, HTTP, xNVMe, ...) \
         are refused as belonging to an engine iolab lacks.\n",
    );
    s
}

/// How the help of an option that iolab accepts and ignores, as fio does, begins.
pub const IGNORED_PREFIX: &str = "Accepted and ignored";

/// fio options iolab refuses for a reason of its own, not for want of time.
pub static REFUSED: &[(&str, &str)] = &[(
    "profile",
    "fio's built-in profiles (tiobench, act) are fio programs of their own; write their jobs out",
)];

/// The error for a name not in iolab's table: fio has it, or nobody does.
/// `supported` are the names (and aliases) iolab has, the suggestions for a typo.
pub fn unknown_or_unsupported(
    name: &str,
    supported: impl Iterator<Item = &'static str>,
) -> FioError {
    if let Some((_, reason)) = REFUSED.iter().find(|(n, _)| *n == name) {
        return FioError::Refused {
            name: name.to_string(),
            reason,
        };
    }
    if FIO_ONLY.contains(&name) {
        return FioError::Unsupported(name.to_string());
    }
    FioError::Unknown {
        name: name.to_string(),
        suggestion: suggest(name, supported),
    }
}

/// The closest known option name (of `supported` and fio's others), if it is close enough
/// to be a typo.
pub fn suggest(name: &str, supported: impl Iterator<Item = &'static str>) -> Option<&'static str> {
    // No option name is near this long: a typo of one is not either (and the distance to
    // every name would cost seconds for a megabyte of junk).
    if name.len() > 64 {
        return None;
    }
    let candidates = supported
        .chain(FIO_ONLY.iter().copied())
        .chain(REFUSED.iter().map(|(n, _)| *n));
    candidates
        .map(|c| (levenshtein(name, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos_only() {
        let have = ["runtime", "ioengine"].into_iter();
        assert_eq!(suggest("runtme", have.clone()), Some("runtime"));
        assert_eq!(suggest("ioengin", have.clone()), Some("ioengine"));
        assert_eq!(suggest("zzzzzzzz", have), None);
        assert!(matches!(
            unknown_or_unsupported("trim_backlog", std::iter::empty()),
            FioError::Unsupported(_)
        ));
    }

    #[test]
    fn fios_aliases_profile_and_engine_options_are_known() {
        // Seen refused as "unknown" in fio's own example job files.
        for name in ["busy_poll", "hostname", "profile"] {
            assert!(
                matches!(
                    unknown_or_unsupported(name, std::iter::empty()),
                    FioError::Unsupported(_) | FioError::Refused { .. }
                ),
                "{name}"
            );
        }
    }
}
