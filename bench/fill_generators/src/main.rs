//! GB/s of fresh random bytes one core makes into a 4 KiB and a 128 KiB buffer (a write's
//! contents), best of three passes of 2 GiB each. Run pinned and alone:
//! `taskset -c 1 cargo run --release --manifest-path bench/fill_generators/Cargo.toml`.

use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

/// The generator iolab used before (one xorshift64* chain).
fn xorshift_star(buf: &mut [u8], state: &mut u64) {
    let mut x = *state | 1;
    for w in buf.chunks_mut(8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
        w.copy_from_slice(&v[..w.len()]);
    }
    *state = x;
}

fn main() {
    let total: usize = 2 << 30;
    println!("| generator | 4 KiB GB/s | 128 KiB GB/s |");
    println!("|---|---:|---:|");
    for name in ["xorshift64* (iolab before)", "fastrand fill (wyrand)", "rand_xoshiro Xoshiro256++ fill_bytes", "iolab fill_random (4 wyrand lanes)"] {
        let mut row = format!("| {name} |");
        for bs in [4096usize, 131072] {
            let mut buf = vec![0u8; bs];
            let mut best = f64::MAX;
            for _ in 0..3 {
                let mut st = 12345u64;
                let mut fr = fastrand::Rng::with_seed(7);
                let mut xo = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
                let t = Instant::now();
                for _ in 0..total / bs {
                    match name.as_bytes()[0] {
                        b'x' => xorshift_star(&mut buf, &mut st),
                        b'f' => fr.fill(&mut buf),
                        b'r' => xo.fill_bytes(&mut buf),
                        _ => iolab_engine::buffer::fill_random(&mut buf, &mut st),
                    }
                    black_box(&mut buf);
                }
                best = best.min(t.elapsed().as_secs_f64());
            }
            row += &format!(" {:.2} |", total as f64 / best / 1e9);
        }
        println!("{row}");
    }
}
