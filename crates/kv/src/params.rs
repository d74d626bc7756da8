//! The hosting review's db_bench command lines, one per workload, with the values it printed
//! for each (block size, compression, levels and triggers differ between them). Only the key
//! count (and the read count) is scaled; `--key_size=10` states the review's 10-byte keys and
//! `--stats_interval_seconds=1` makes db_bench report progress every second.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The review's four tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Workload {
    /// Bulk load in key order into an empty database.
    FillSeq,
    /// Bulk load in random order into an empty database (auto compactions off).
    FillRandom,
    /// Rewrite every key of the database fillseq made.
    Overwrite,
    /// Random point reads of the database fillseq made, 32 threads.
    ReadRandom,
}

impl Workload {
    pub const ALL: [Workload; 4] = [
        Workload::FillSeq,
        Workload::FillRandom,
        Workload::Overwrite,
        Workload::ReadRandom,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Workload::FillSeq => "fillseq",
            Workload::FillRandom => "fillrandom",
            Workload::Overwrite => "overwrite",
            Workload::ReadRandom => "readrandom",
        }
    }

    /// Whether it runs on the database fillseq made (rather than making its own).
    pub fn needs_filled_db(self) -> bool {
        matches!(self, Workload::Overwrite | Workload::ReadRandom)
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Workload {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| {
                format!("unknown workload '{s}' (workloads: fillseq, fillrandom, overwrite, readrandom)")
            })
    }
}

pub const KEY_BYTES: u64 = 10;
pub const VALUE_BYTES: u64 = 800;

/// Keys for a data size (10-byte keys, 800-byte values).
pub fn keys_for_bytes(bytes: u64) -> u64 {
    (bytes / (KEY_BYTES + VALUE_BYTES)).max(1)
}

/// The settings the review's command lines set differently per workload.
struct Settings {
    block_size: u32,
    cache_numshardbits: u32,
    compression: &'static str,
    num_levels: u32,
    l0_compaction_trigger: u64,
    l0_slowdown_trigger: u64,
    l0_stop_trigger: u64,
    max_write_buffer_number: u32,
    target_file_size_base: u64,
    write_buffer_size: u64,
}

fn settings(w: Workload) -> Settings {
    // The review's shell variables: bs, cache_numshardbits, compression_type, levels, ctrig,
    // delay, stop, wbn, mb, wbs.
    let leveled = Settings {
        block_size: 4096,
        cache_numshardbits: 6,
        compression: "none",
        num_levels: 6,
        l0_compaction_trigger: 4,
        l0_slowdown_trigger: 8,
        l0_stop_trigger: 12,
        max_write_buffer_number: 3,
        target_file_size_base: 64 << 20,
        write_buffer_size: 128 << 20,
    };
    match w {
        Workload::FillSeq | Workload::ReadRandom => leveled,
        Workload::Overwrite => Settings {
            block_size: 65536,
            cache_numshardbits: 4,
            compression: "zlib",
            ..leveled
        },
        // Bulk load: compactions off, two levels, triggers out of reach, big buffers.
        Workload::FillRandom => Settings {
            block_size: 65536,
            cache_numshardbits: 4,
            compression: "zlib",
            num_levels: 2,
            l0_compaction_trigger: 10_000_000,
            l0_slowdown_trigger: 10_000_000,
            l0_stop_trigger: 10_000_000,
            max_write_buffer_number: 30,
            target_file_size_base: 1 << 30,
            write_buffer_size: 256 << 20,
        },
    }
}

/// db_bench's arguments for `w` over `num` keys in `db`, readrandom with `threads` threads
/// reading `num` keys in all (the review let each of its 32 threads read `num` keys: 32
/// times the fill's work, hours at its scale; iolab splits `num` reads among them).
pub fn args(w: Workload, num: u64, threads: u32, db: &Path) -> Vec<String> {
    let s = settings(w);
    let threads = if w == Workload::ReadRandom {
        threads.max(1)
    } else {
        1
    };
    let mut a: Vec<String> = vec![
        format!("--benchmarks={}", w.name()),
        "--disable_seek_compaction=1".into(),
        "--mmap_read=0".into(),
        "--statistics=1".into(),
        "--histogram=1".into(),
        format!("--num={num}"),
        format!("--threads={threads}"),
        format!("--key_size={KEY_BYTES}"),
        format!("--value_size={VALUE_BYTES}"),
        format!("--block_size={}", s.block_size),
        "--cache_size=1048576".into(),
        "--bloom_bits=10".into(),
        format!("--cache_numshardbits={}", s.cache_numshardbits),
        "--open_files=500000".into(),
        "--verify_checksum=1".into(),
        "--sync=0".into(),
        "--disable_wal=1".into(),
        format!("--compression_type={}", s.compression),
        "--stats_interval=1000000".into(),
        "--stats_interval_seconds=1".into(),
        "--compression_ratio=0.5".into(),
        format!("--write_buffer_size={}", s.write_buffer_size),
        format!("--target_file_size_base={}", s.target_file_size_base),
        format!("--max_write_buffer_number={}", s.max_write_buffer_number),
        "--max_background_compactions=20".into(),
        format!(
            "--level0_file_num_compaction_trigger={}",
            s.l0_compaction_trigger
        ),
        format!("--level0_slowdown_writes_trigger={}", s.l0_slowdown_trigger),
        format!("--level0_stop_writes_trigger={}", s.l0_stop_trigger),
        format!("--num_levels={}", s.num_levels),
        "--delete_obsolete_files_period_micros=300000000".into(),
        "--min_level_to_compress=2".into(),
        "--stats_per_interval=1".into(),
        "--max_bytes_for_level_base=10485760".into(),
        format!("--use_existing_db={}", u8::from(w.needs_filled_db())),
        format!("--db={}", db.display()),
    ];
    match w {
        Workload::FillRandom => a.extend([
            "--memtablerep=vector".to_string(),
            "--disable_auto_compactions=1".into(),
            "--allow_concurrent_memtable_write=false".into(),
        ]),
        Workload::ReadRandom => a.push(format!("--reads={}", (num / threads as u64).max(1))),
        _ => {}
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reviews_settings_per_workload() {
        let db = Path::new("/d/db");
        let fr = args(Workload::FillRandom, 1000, 32, db);
        assert!(fr.contains(&"--compression_type=zlib".to_string()));
        assert!(fr.contains(&"--memtablerep=vector".to_string()));
        assert!(fr.contains(&"--threads=1".to_string()));
        assert!(fr.contains(&"--use_existing_db=0".to_string()));
        assert!(fr.contains(&"--num_levels=2".to_string()));
        assert!(fr.contains(&"--write_buffer_size=268435456".to_string()));
        let fs = args(Workload::FillSeq, 1000, 32, db);
        assert!(fs.contains(&"--block_size=4096".to_string()));
        assert!(fs.contains(&"--compression_type=none".to_string()));
        assert!(fs.contains(&"--level0_stop_writes_trigger=12".to_string()));
        let ow = args(Workload::Overwrite, 1000, 32, db);
        assert!(ow.contains(&"--block_size=65536".to_string()));
        assert!(ow.contains(&"--threads=1".to_string()));
        let rr = args(Workload::ReadRandom, 1000, 32, db);
        assert!(rr.contains(&"--threads=32".to_string()));
        assert!(rr.contains(&"--reads=31".to_string()));
        assert!(rr.contains(&"--use_existing_db=1".to_string()));
        assert!(rr.contains(&"--db=/d/db".to_string()));
        assert_eq!(keys_for_bytes(810 * 1000), 1000);
        assert_eq!("overwrite".parse::<Workload>(), Ok(Workload::Overwrite));
        assert!("scan"
            .parse::<Workload>()
            .unwrap_err()
            .contains("unknown workload 'scan'"));
    }
}
