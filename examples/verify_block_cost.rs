//! What `--verify` costs the CPU per block: stamping a write buffer and checking a read one, for
//! 4 KiB blocks, one million of each (`cargo run --release --example verify_block_cost`). A
//! benchmark to run by hand; the suite never times anything.

use std::hint::black_box;
use std::time::Instant;

use iospd::verify::format::{Expect, Header, Pattern, check, write};

fn main() {
    const BLOCK: usize = 4096;
    const N: u64 = 1_000_000;
    let pattern = Pattern::new(1, BLOCK);
    let mut buf = vec![0u8; BLOCK];
    let started = Instant::now();
    for i in 0..N {
        let header = Header {
            len: BLOCK as u32,
            run_id: 1,
            offset: i * BLOCK as u64,
            generation: 1,
            target: 0,
            thread: 0,
            flags: 0,
        };
        write(black_box(&mut buf), &header, &pattern);
    }
    let stamp = started.elapsed() / N as u32;
    let expect = Expect {
        run_id: 1,
        offset: (N - 1) * BLOCK as u64,
        generation: 1,
    };
    let started = Instant::now();
    for _ in 0..N {
        assert!(black_box(check(black_box(&buf), &expect, &pattern)).is_ok());
    }
    let checked = started.elapsed() / N as u32;
    let started = Instant::now();
    let mut crc = 0;
    for _ in 0..N {
        crc ^= crc32c::crc32c(black_box(&buf[64..]));
    }
    let crc_time = started.elapsed() / N as u32;
    println!(
        "per 4 KiB block: stamp {stamp:?}, check {checked:?}, CRC-32C of the payload {crc_time:?} ({crc:x})"
    );
}
