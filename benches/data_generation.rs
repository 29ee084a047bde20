//! How fast `--compress` makes write data: one thread filling 1 MiB of 4 KiB chunks per
//! iteration, at several ratios, against `-Zr`'s fresh random bytes. Criterion reports bytes per
//! second (one core).
//!
//! `cargo bench --bench data_generation`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iospd::data::pattern::Compressible;
use iospd::profile::Compress;
use iospd::rng::Rng;

const BYTES: usize = 1 << 20;

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("write data, one core");
    group.throughput(Throughput::Bytes(BYTES as u64));
    let mut buf = vec![0u8; BYTES];
    let mut rng = Rng::new(1);
    for ratio in [1.0, 2.0, 4.0] {
        let generator = Compressible::new(Compress { ratio, chunk: 4096 }, 1);
        group.bench_function(format!("--compress={ratio}:4K"), |b| {
            b.iter(|| {
                for block in buf.chunks_mut(4096) {
                    let stamp = rng.next_u64();
                    generator.fill(block, &mut rng, stamp);
                }
                std::hint::black_box(&buf);
            })
        });
    }
    group.bench_function("-Zr (fresh random bytes)", |b| {
        b.iter(|| {
            for word in buf.chunks_mut(8) {
                word.copy_from_slice(&rng.next_u64().to_ne_bytes());
            }
            std::hint::black_box(&buf);
        })
    });
    group.finish();
}

criterion_group!(benches, generation);
criterion_main!(benches);
