//! `--distribution`: skewed random offsets tested statistically on what a run really issued — a
//! million offsets from `--trace` — against the distribution asked, written here a second time
//! from its definition (doc: `src/worker/skew.rs`): χ² over every block, and the hot sets (the
//! 1 % and 10 % of blocks with the most hits) against the closed form and the report's own figure.

use std::fs;

use crate::util::{TempDir, assert_refused_untouched, iospd, stderr, stdout};

/// 4 MiB of 4 KiB blocks.
const BLOCKS: u64 = 1024;

/// A run on the null engine (offsets are generated and recorded as for any engine), two threads
/// of 550,000 I/Os each (`--ios`: 1.1 million offsets however long that takes), paced to 700,000
/// I/Os a second in all so the trace keeps every one: the hits per block and the JSON report.
fn skewed_run(dir: &TempDir, distribution: &str) -> (Vec<u64>, serde_json::Value) {
    let target = dir.arg("t.dat");
    let trace = dir.arg("run.trace");
    let mut command = iospd();
    command.args([
        "-c4M",
        "-b4K",
        "-r",
        "-t2",
        "-o16",
        "-g350000i",
        "--ios=550000",
        "-W0",
        "-z7",
        "--engine=null",
        "-Rjson",
        &format!("--distribution={distribution}"),
        &format!("--trace={trace}"),
        &target,
    ]);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let mut hits = vec![0u64; BLOCKS as usize];
    // After the 12-byte header, 40-byte records with the offset at bytes 16..24.
    let bytes = fs::read(&trace).unwrap();
    for record in bytes[12..].chunks_exact(40) {
        let offset = u64::from_le_bytes(record[16..24].try_into().unwrap());
        assert_eq!(offset % 4096, 0, "{offset}");
        hits[(offset / 4096) as usize] += 1;
    }
    fs::remove_file(&trace).unwrap();
    (hits, report)
}

/// The upper 0.1 % point of χ² (Wilson–Hilferty).
fn chi_square_limit(dof: f64) -> f64 {
    let c = 2.0 / (9.0 * dof);
    dof * (1.0 - c + 3.090_232 * c.sqrt()).powi(3)
}

/// Zipf and pareto ranks are scattered by rank × stride mod n, stride the first number coprime
/// with n from ⌊0.618…·n⌋; the rank of a block is its position times stride⁻¹.
fn rank_of(n: u64) -> impl Fn(u64) -> u64 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut stride = ((n as f64 * 0.618_033_988_75) as u64).max(1);
    while gcd(stride, n) != 1 {
        stride += 1;
    }
    let inverse = (1..n).find(|i| i * stride % n == 1).unwrap();
    move |block| block * inverse % n
}

fn check(distribution: &str, probability: impl Fn(u64) -> f64, closed_form: impl Fn(u64) -> f64) {
    let dir = TempDir::new();
    let (hits, report) = skewed_run(&dir, distribution);
    let draws: u64 = hits.iter().sum();
    // Every offset is in the trace, or counted as dropped: on a busy machine the trace writer
    // may fall behind and drop whole batches, which take offsets regardless of where they fell,
    // so what is kept is drawn from the same distribution.
    let trace = &report["timespans"][0]["trace"];
    assert_eq!(trace["records"], draws, "{distribution}: {trace}");
    assert_eq!(
        draws + trace["dropped"].as_u64().unwrap(),
        1_100_000,
        "{distribution}: offsets traced or dropped: {trace}"
    );
    assert!(
        draws >= 900_000,
        "{distribution}: {draws} offsets traced: {trace}"
    );
    let (mut chi, mut bins, mut pooled, mut pooled_hits) = (0.0, 0u64, 0.0, 0u64);
    for (block, &h) in hits.iter().enumerate() {
        let expected = probability(block as u64) * draws as f64;
        if expected < 5.0 {
            pooled += expected;
            pooled_hits += h;
            continue;
        }
        chi += (h as f64 - expected).powi(2) / expected;
        bins += 1;
    }
    if pooled >= 5.0 {
        chi += (pooled_hits as f64 - pooled).powi(2) / pooled;
        bins += 1;
    }
    let limit = chi_square_limit((bins - 1) as f64);
    assert!(
        chi < limit,
        "{distribution}: χ² {chi:.0} over the 0.1 % limit {limit:.0} ({bins} bins, {draws} offsets)"
    );
    let mut sorted = hits.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let skews = &report["timespans"][0]["measured"]["skews"][0];
    assert_eq!(skews["positions"], BLOCKS, "{skews}");
    for (i, (percent, k)) in [(1, 10u64), (10, 102)].into_iter().enumerate() {
        let traced = sorted[..k as usize].iter().sum::<u64>() as f64 / draws as f64 * 100.0;
        let expected = closed_form(k) * 100.0;
        let hot = &skews["hot_sets"][i];
        assert_eq!(hot["positions"], k, "{hot}");
        let reported = hot["measured_percent"].as_f64().unwrap();
        let stated = hot["expected_percent"].as_f64().unwrap();
        assert!(
            (traced - expected).abs() < 0.5,
            "{distribution}: the {percent} % most-hit blocks took {traced:.2} % of the traced I/O, closed form {expected:.2} %"
        );
        assert!(
            (stated - expected).abs() < 1e-6,
            "{distribution}: report's closed form {stated}, {expected}"
        );
        assert!(
            (reported - expected).abs() < 0.5,
            "{distribution}: report measured {reported:.2} %, closed form {expected:.2} %"
        );
    }
}

#[test]
fn zipf_offsets_follow_zipf() {
    let theta: f64 = 1.2;
    let total: f64 = (1..=BLOCKS).map(|k| (k as f64).powf(-theta)).sum();
    let rank = rank_of(BLOCKS);
    let head = |k: u64| (1..=k).map(|i| (i as f64).powf(-theta)).sum::<f64>() / total;
    check(
        "zipf:1.2",
        |block| ((rank(block) + 1) as f64).powf(-theta) / total,
        head,
    );
}

#[test]
fn pareto_offsets_follow_the_80_20_rule() {
    let h: f64 = 0.2;
    let cdf = |r: u64| (r as f64 / BLOCKS as f64).powf((1.0 - h).ln() / h.ln());
    let rank = rank_of(BLOCKS);
    check(
        "pareto:0.2",
        |block| cdf(rank(block) + 1) - cdf(rank(block)),
        cdf,
    );
}

#[test]
fn normal_offsets_form_a_bell_in_the_middle() {
    let n = BLOCKS as f64;
    let sigma = 0.1 * n;
    let cdf = |x: f64| 0.5 * (1.0 + libm::erf((x - n / 2.0) / (sigma * 2f64.sqrt())));
    let inside = cdf(n) - cdf(0.0);
    check(
        "normal:10",
        |block| (cdf(block as f64 + 1.0) - cdf(block as f64)) / inside,
        |k| {
            let from = ((BLOCKS - k) / 2) as f64;
            (cdf(from + k as f64) - cdf(from)) / inside
        },
    );
}

#[test]
fn bad_distributions_are_refused_before_anything_is_written() {
    assert_refused_untouched(&[
        (vec!["-r", "--distribution=zipf:0"], "must be above 0"),
        (vec!["-r", "--distribution=zipf:x"], "is not a number"),
        (vec!["-r", "--distribution=pareto:1"], "below 1"),
        (vec!["-r", "--distribution=normal:101"], "at most 100"),
        (
            vec!["-r", "--distribution=gauss:3"],
            "is not a distribution",
        ),
        (vec!["--distribution=zipf:1.2"], "add -r"),
        (
            vec!["-r", "--distribution=zipf:1.2", "-rdpct90/10"],
            "use one",
        ),
        (
            vec!["-r", "-rdpct90/10", "--distribution=zipf:1.2"],
            "give one",
        ),
    ]);
}

#[test]
fn zoned_is_diskspd_s_percent_distribution() {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    let zoned = iospd()
        .args([
            "-c1M",
            "-r",
            "-Rp",
            "--distribution=zoned:90/10:10/90",
            &target,
        ])
        .output()
        .unwrap();
    let rd = iospd()
        .args(["-c1M", "-r", "-Rp", "-rdpct90/10:10/90", &target])
        .output()
        .unwrap();
    assert_eq!(zoned.status.code(), Some(0), "{}", stderr(&zoned));
    let (zoned, rd) = (stdout(&zoned), stdout(&rd));
    assert!(rd.contains("90/10"), "{rd}");
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("Command Line:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&zoned), strip(&rd));
}
