//! What the worker loop costs per I/O, on the null engine (no I/O at all, every submission
//! completes at once): a whole run through `run::measure` for each sample, its measured window
//! divided by the I/Os it completed. Criterion reports the time per I/O.
//!
//! `cargo bench --bench worker_loop`

use std::ffi::OsString;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use iospd::cli::{self, Command};
use iospd::clock::Monotonic;
use iospd::engine::EngineKind;
use iospd::system::LinuxHost;
use iospd::{profile, run};

/// Nanoseconds per completed I/O of a short null-engine run with `options`.
fn ns_per_io(target: &str, options: &[&str]) -> f64 {
    let mut args: Vec<OsString> = ["-d1", "-W0", "--engine=null", "--quiet"]
        .iter()
        .chain(options)
        .map(OsString::from)
        .collect();
    args.push(target.into());
    let Ok(Command::Run(raw)) = cli::parse(&args) else {
        panic!("the command line parses");
    };
    let resolved = profile::resolve(&raw, "bench".into()).expect("the profile resolves");
    let stop = AtomicU64::new(0);
    let mut cleared = iospd::safety::check(&resolved.profile, &iospd::safety::LinuxView)
        .expect("the safety gate clears the target");
    let results = run::measure(
        &resolved.profile,
        &mut cleared,
        run::Context {
            engine: EngineKind::Null,
            clock: &Monotonic,
            host: &LinuxHost,
            stop: &stop,
            messages: run::Messages::silent(),
            peers: &run::Alone::default(),
            metrics: None,
        },
    )
    .expect("the run succeeds");
    let timespan = &results.timespans[0];
    let ios: u64 = timespan
        .threads
        .iter()
        .flat_map(|t| &t.targets)
        .map(|s| s.read.ios + s.write.ios)
        .sum();
    timespan.window.expect("measured") as f64 / ios as f64
}

fn worker_loop(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let target = dir.path().join("bench.dat");
    std::fs::File::create(&target)
        .and_then(|f| f.set_len(64 << 20))
        .expect("a target file");
    // Written to by the mixed run: mark it as a test file, as -c would.
    iospd::safety::marker::mark(&std::fs::File::open(&target).expect("the target"))
        .expect("a user extended attribute");
    let target = target.to_str().expect("UTF-8 path").to_string();
    let mut group = c.benchmark_group("null engine, time per I/O");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(12));
    for (name, options) in [
        ("QD32 random 4K, -L", &["-o32", "-b4K", "-r", "-L"][..]),
        ("QD32 random 4K", &["-o32", "-b4K", "-r"][..]),
        ("QD1 random 4K, -L", &["-o1", "-b4K", "-r", "-L"][..]),
        (
            "QD32 random 70/30 4K, -L",
            &["-o32", "-b4K", "-r", "-w30", "-L"][..],
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let ns = ns_per_io(&target, options);
                Duration::from_secs_f64(ns * iters as f64 / 1e9)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, worker_loop);
criterion_main!(benches);
