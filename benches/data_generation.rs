//! How fast `--compress` and `--dedupe` make write data: one thread filling 1 MiB of 4 KiB chunks
//! (or units) per iteration, at several ratios, against `-Zr`'s fresh random bytes. Criterion
//! reports bytes per second (one core). `--dedupe` includes the unit's plan lookup and the
//! tracker's atomic update, as the workers do it.
//!
//! `cargo bench --bench data_generation`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iospd::data::dedupe::{Plan, Tracker};
use iospd::data::fill::WriteFill;
use iospd::data::pattern::Compressible;
use iospd::profile::{Compress, Dedupe, DedupeSets};
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
    // A 1 GiB range of 4 KiB units, written 4 KiB at a time across it.
    for (name, compress) in [
        ("--dedupe=2", None),
        (
            "--dedupe=2 --compress=2",
            Some(Compress {
                ratio: 2.0,
                chunk: 4096,
            }),
        ),
    ] {
        let dedupe = Dedupe {
            ratio: 2.0,
            unit: 4096,
            sets: DedupeSets::Percent(5.0),
            flipflop: false,
        };
        let generator = match compress {
            Some(c) => Compressible::new(c, 1),
            None => Compressible::with_random_len(4096, 4096, 1),
        };
        let tracker = Tracker::new(Plan::new(&dedupe, 1 << 18).unwrap(), false, false);
        let fill = WriteFill::Deduped {
            data: &generator,
            tracker: &tracker,
            base: 0,
            unit: 4096,
        };
        let mut offset = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                for block in buf.chunks_mut(4096) {
                    fill.prepare(block, &mut rng, offset);
                    offset = (offset + 4096 * 7919) % (1 << 30);
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
