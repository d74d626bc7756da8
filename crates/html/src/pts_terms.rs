//! The terms a PTS page uses, defined on the page itself: a page printed and read alone
//! (a vendor's data sheet, a review's appendix) leaves none of its words to another page.
//! The definitions follow the specification's terms (and say where iolab departs).

/// Terms every test's page uses.
const COMMON: &[(&str, &str)] = &[
    (
        "Element",
        "one measurement of one stimulus (block size, read/write mix, outstanding I/O) for \
         the element time given in the header",
    ),
    (
        "Round",
        "one pass over the test's elements, in the specification's order",
    ),
    (
        "Steady state",
        "reached in the first window of 5 consecutive rounds in which the tracked variable's \
         data excursion (largest minus smallest) is within 20 % of the window's average and \
         the excursion of its least-squares line across the window is within 10 % of it",
    ),
    (
        "Measurement window",
        "the rounds steady state was judged on; every table figure is their average",
    ),
    (
        "Purge",
        "the command that returns the drive to the fresh-out-of-box state before each test \
         (the header says which was used, and whether it is a purge in the specification's \
         sense)",
    ),
    (
        "Preconditioning",
        "workload independent (WIPC): the active range written twice in 128 KiB (or the \
         test's block size) sequential writes; workload dependent (WDPC): the test's own \
         stimulus, run until steady state",
    ),
    (
        "Active range (AR)",
        "the span of logical blocks the test addresses, from LBA 0",
    ),
    (
        "TxQy",
        "outstanding I/O: x threads (thread count, TC) each keeping y I/Os in flight (queue \
         depth, QD); total outstanding I/O (OIO) is x × y",
    ),
    (
        "Units",
        "MB/s and GB are decimal (10⁶ and 10⁹ bytes); block sizes binary (KiB, MiB); response \
         times in µs in tables, in the unit each axis tick gives on charts",
    ),
];

/// Terms of one test's page, after [`COMMON`].
fn own(test: &str) -> &'static [(&'static str, &'static str)] {
    match test {
        "iops" => &[
            (
                "Read/write mix",
                "the share of reads/writes among the I/Os, as R/W in percent",
            ),
            (
                "3D column plot",
                "the IOPS table drawn as columns, one per block size and mix, heights on a \
                 linear IOPS axis",
            ),
        ],
        "lat" => &[
            (
                "Average response time (ART)",
                "the mean completion latency of the element's I/Os",
            ),
            (
                "Five nines (99.999 %)",
                "the response time 99.999 % of the I/Os finished within",
            ),
            (
                "Maximum response time (MRT)",
                "the slowest I/O of the element",
            ),
        ],
        "wsat" => &[
            (
                "Write saturation",
                "one workload (4 KiB random writes unless another of PTS 2.0's optional \
                 workloads was chosen: the tracked variable names it) from the purged drive, \
                 one element a round, with no steady-state criterion: a series, plotted \
                 against time and against the data written (total GB written, TGBW)",
            ),
            (
                "Drive fills",
                "the data written so far divided by the active range: 1 is the active range \
                 written once over",
            ),
            (
                "Response times",
                "each element's average (ART), 99.999th percentile (the maximum in an \
                 element of fewer than 100,000 I/Os) and maximum (MRT)",
            ),
        ],
        "hir" => &[(
            "Wait state",
            "idle time inserted between write bursts; each wait state is followed by \
                 bursts without idle (the return to baseline)",
        )],
        "xsr" => &[(
            "Access group",
            "one stimulus of the series (1024 KiB sequential, 8 KiB random, 1024 KiB \
             sequential writes), run back to back without a purge between",
        )],
        "cbw" | "ecw" | "dirth" => &[
            (
                "Pre-write",
                "100 % writes at the highest outstanding I/O before each round (and before \
                 each operating point), to keep the drive in its written state",
            ),
            (
                "Demand intensity",
                "the response to outstanding I/O: IOPS and average response time for every \
                 TC × QD cell",
            ),
            (
                "Ceiling",
                "the response time the maximum-IOPS operating point must stay under",
            ),
            (
                "Maximum IOPS",
                "the operating point with the most IOPS whose average response time is under \
                 the ceiling",
            ),
            (
                "Midpoint IOPS",
                "the operating point under the ceiling whose IOPS is nearest halfway between \
                 the most and the least IOPS under it",
            ),
            ("Minimum IOPS", "the T1Q1 operating point"),
            (
                "CPUs busy",
                "CPU time of the test's threads (user, system and the kernel's I/O helper \
                 threads working for them) per second of the element: 1.0 is one CPU fully \
                 busy",
            ),
        ],
        _ => &[],
    }
}

/// The terms list of the page of `test` (`iops`, `tp-128k`, ...), `id` its section.
pub fn terms(id: &str, test: &str) -> String {
    let mut h = format!(
        "<details class=\"pts-terms\" id=\"{}-terms\" open><summary>Terms on this page</summary><dl>",
        crate::chart::esc(id)
    );
    let tp: &[(&str, &str)] = &[(
        "Throughput",
        "bytes moved per second in the element's direction, in MB/s (decimal)",
    )];
    let mine = match test.starts_with("tp") {
        true => tp,
        false => own(test),
    };
    for (term, what) in COMMON.iter().chain(mine) {
        h.push_str(&format!("<dt>{term}</dt><dd>{what}</dd>"));
    }
    h.push_str("</dl></details>");
    h
}

#[cfg(test)]
mod tests {
    use super::terms;

    #[test]
    fn each_page_defines_its_own_words() {
        let d = terms("pts-dirth", "dirth");
        assert!(d.contains("<dt>Midpoint IOPS</dt>"), "{d}");
        assert!(d.contains("<dt>TxQy</dt>") && d.contains("<dt>Measurement window</dt>"));
        assert!(terms("pts-tp-128k", "tp-128k").contains("<dt>Throughput</dt>"));
        assert!(!terms("pts-iops", "iops").contains("Midpoint"));
    }
}
