//! Shared helpers for the integration tests: a fake machine, a whole run on the null engine with a
//! fake clock, and the binary under test.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, SystemTime};

use iospd::cli::{self, Command as CliCommand};
use iospd::clock::FakeClock;
use iospd::engine::EngineKind;
use iospd::profile::ResultFormat;
use iospd::report::Report;
use iospd::stats::CpuTimes;
use iospd::system::{CacheInfo, CacheKind, CpuTopology, Host, SystemInfo};
use iospd::{profile, run};

pub mod machine;
pub mod tools;

/// A machine with two CPUs whose counters advance by a fixed step at every reading.
pub struct FakeHost {
    readings: Mutex<u64>,
}

impl FakeHost {
    pub fn new() -> Self {
        FakeHost {
            readings: Mutex::new(0),
        }
    }
}

impl Host for FakeHost {
    fn system_info(&self) -> SystemInfo {
        SystemInfo {
            computer_name: "golden".into(),
            processor_name: "Fake CPU @ 3.00GHz".into(),
            kernel: "Linux 6.1.0".into(),
            power_scheme: "performance".into(),
            page_size: 4096,
            cpus: (0..2)
                .map(|cpu| CpuTopology {
                    cpu,
                    socket: 0,
                    node: 0,
                    core: cpu,
                    efficiency_class: 0,
                })
                .collect(),
            caches: vec![CacheInfo {
                level: 3,
                kind: CacheKind::Unified,
                size: 8 << 20,
                line: 64,
                ways: 16,
                cpus: "0-1".into(),
            }],
            clock: Default::default(),
        }
    }

    fn cpu_times(&self) -> Vec<CpuTimes> {
        let mut n = self.readings.lock().unwrap();
        *n += 1;
        let k = *n;
        vec![
            CpuTimes {
                cpu: 0,
                user: 30 * k,
                kernel: 25 * k,
                idle: 45 * k,
                steal: 0,
            },
            CpuTimes {
                cpu: 1,
                user: 10 * k,
                kernel: 10 * k,
                idle: 80 * k,
                steal: 0,
            },
        ]
    }

    fn allowed_cpus(&self) -> Vec<u32> {
        vec![0]
    }

    fn wall_clock(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_718_282_096)
    }

    fn memory_available(&self) -> Option<iospd::system::Available> {
        Some(iospd::system::Available {
            bytes: 16 << 30,
            source: "MemAvailable".into(),
            caveat: None,
        })
    }

    fn memlock_limit(&self) -> Option<u64> {
        None
    }

    fn counters(&self) -> Vec<iospd::counters::Counter> {
        let n = *self.readings.lock().unwrap();
        [
            "disk.reads",
            "disk.writes",
            "memory.page_faults",
            "memory.major_faults",
            "net.tcp_sent",
            "net.tcp_received",
            "net.tcp_retransmitted",
            "net.udp_sent",
            "net.udp_received",
            "tasks.created",
        ]
        .iter()
        .enumerate()
        .map(|(i, key)| iospd::counters::Counter {
            key: key.to_string(),
            value: n * 100 * (i as u64 + 1),
        })
        .collect()
    }
}

/// A directory removed when dropped.
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    pub fn new() -> Self {
        TempDir(
            tempfile::Builder::new()
                .prefix("iospd-test")
                .tempdir()
                .unwrap(),
        )
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    pub fn arg(&self, name: &str) -> String {
        self.join(name).display().to_string()
    }
}

/// Runs a command line through the whole pipeline on the null engine with a fake clock, in `dir`
/// (`<dir>` in the arguments stands for it), and returns the report model.
pub fn golden_report(args: &[&str], dir: &TempDir) -> Report {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("<dir>", &dir.path().display().to_string()))
        .collect();
    let os_args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let CliCommand::Run(raw) = cli::parse(&os_args).expect("command line parses") else {
        panic!("not a run");
    };
    let line = format!("iospd {}", args.join(" "));
    let resolved = profile::resolve(&raw, line).expect("profile resolves");
    let host = FakeHost::new();
    let stop = AtomicU64::new(0);
    let clock = FakeClock::new(1_000_000_000, 20_000);
    let mut cleared = iospd::safety::check(&resolved.profile, &iospd::safety::LinuxView)
        .expect("the safety gate clears the targets");
    let mut results = run::measure(
        &resolved.profile,
        &mut cleared,
        run::Context {
            engine: EngineKind::Null,
            clock: &clock,
            host: &host,
            stop: &stop,
            messages: run::Messages::silent(),
            peers: &run::Alone::default(),
            metrics: None,
        },
    )
    .expect("run succeeds");
    // The threads' CPU time and waits for a CPU come from the real kernel, not the fake clock:
    // leave them out.
    for thread in results.timespans.iter_mut().flat_map(|t| &mut t.threads) {
        thread.waits.cpu_user_ns = 0;
        thread.waits.cpu_system_ns = 0;
        thread.waits.run_delay_ns = None;
        thread.waits.context_switches = 0;
        thread.waits.minor_faults = 0;
        thread.waits.major_faults = 0;
    }
    // "Is this real" reads the real machine's devices and times the data generator: leave it out
    // (tests/suite/reality.rs checks it).
    for timespan in &mut results.timespans {
        timespan.reality = Default::default();
    }
    Report::new(&resolved.profile, &host.system_info(), &results)
}

/// The report of [`golden_report`] in `format`, with the directory replaced by `<dir>` (`DIR` in
/// XML, where `<dir>` would be a tag).
pub fn golden_render(report: &Report, format: ResultFormat, dir: &TempDir) -> String {
    let placeholder = if format == ResultFormat::Xml {
        "DIR"
    } else {
        "<dir>"
    };
    report
        .render(format)
        .replace(&dir.path().display().to_string(), placeholder)
}

/// [`golden_report`] rendered as text.
pub fn golden_run(args: &[&str], dir: &TempDir) -> String {
    golden_render(&golden_report(args, dir), ResultFormat::Text, dir)
}

/// What the suite could not do here: per test (in the order first met), why it was skipped, or what
/// it left unchecked; and the other build's tests.
#[derive(Default)]
struct Summary {
    skipped: Vec<(String, Vec<String>)>,
    checked_less: Vec<(String, Vec<String>)>,
    elsewhere: Vec<String>,
}

static SUMMARY: Mutex<Summary> = Mutex::new(Summary {
    skipped: Vec::new(),
    checked_less: Vec::new(),
    elsewhere: Vec::new(),
});

/// At the end of the suite, after the test harness's own summary: one visible list of what was
/// skipped or checked less and why (written straight to stderr, which the harness does not capture).
extern "C" fn print_skipped() {
    use std::io::Write as _;
    let Ok(summary) = SUMMARY.lock() else {
        return;
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut text = String::new();
    if summary.skipped.is_empty() && summary.checked_less.is_empty() {
        text.push_str("iospd suite: every test ran in full; none was skipped\n");
    }
    if !summary.skipped.is_empty() {
        let n = summary.skipped.len();
        text.push_str(&format!(
            "iospd suite: {n} test{} skipped (a skipped test is not a passed one; README, \"Running the tests\", lists what enables each):\n",
            plural(n)
        ));
        for (test, why) in &summary.skipped {
            text.push_str(&format!("  SKIPPED {test}: {}\n", why.join("; ")));
        }
    }
    if !summary.checked_less.is_empty() {
        let n = summary.checked_less.len();
        text.push_str(&format!(
            "iospd suite: {n} test{} ran but checked less than {}:\n",
            plural(n),
            if n == 1 { "it could" } else { "they could" }
        ));
        for (test, what) in &summary.checked_less {
            text.push_str(&format!("  CHECKED LESS {test}: {}\n", what.join("; ")));
        }
    }
    for line in &summary.elsewhere {
        text.push_str(&format!("  NOT IN THIS BUILD {line}\n"));
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Arranges for [`print_skipped`] to run when the suite ends.
fn summary_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: registering a plain function that only writes to stderr.
    ONCE.call_once(|| unsafe {
        libc::atexit(print_skipped);
    });
}

/// The running test's full name (the harness names its thread after it), else `test`.
fn test_name(test: &str) -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => test.to_string(),
    }
}

/// Adds `why` to `test`'s entry in `list`: one entry per test, each reason once.
fn note(list: &mut Vec<(String, Vec<String>)>, test: String, why: &str) {
    match list.iter_mut().find(|(t, _)| *t == test) {
        Some((_, reasons)) if reasons.iter().any(|r| r == why) => {}
        Some((_, reasons)) => reasons.push(why.to_string()),
        None => list.push((test, vec![why.to_string()])),
    }
}

/// Fails under IOSPD_REQUIRE=1 (as CI runs): there, everything must be tested.
fn require(test: &str, why: &str) {
    assert!(
        std::env::var_os("IOSPD_REQUIRE").is_none(),
        "{test} cannot run in full here ({why}), and IOSPD_REQUIRE is set: the suite must test everything"
    );
}

/// Records that `test` cannot run here and why: said at once (outside the captured output) and in
/// the summary at the end. With IOSPD_REQUIRE=1 (as CI runs) a test that cannot run fails instead.
pub fn skip(test: &str, why: &str) {
    summary_at_exit();
    let name = test_name(test);
    require(&name, why);
    eprintln!("SKIPPED {name}: {why}");
    note(&mut SUMMARY.lock().unwrap().skipped, name, why);
}

/// Records that `test` goes on but leaves `what` unchecked here (said at once and in the summary);
/// under IOSPD_REQUIRE=1 it fails instead.
pub fn checked_less(test: &str, what: &str) {
    summary_at_exit();
    let name = test_name(test);
    require(&name, what);
    eprintln!("CHECKED LESS {name}: {what}");
    note(&mut SUMMARY.lock().unwrap().checked_less, name, what);
}

/// Records that `tests` belong to another build of the suite (a cargo feature), which runs them:
/// listed with the skipped ones, but not an error under IOSPD_REQUIRE, since CI runs that build too.
#[cfg_attr(feature = "mpi", allow(dead_code))]
pub fn elsewhere(tests: &str, why: &str) {
    summary_at_exit();
    let line = format!("{tests}: {why}");
    eprintln!("NOT IN THIS BUILD {line}");
    SUMMARY.lock().unwrap().elsewhere.push(line);
}

/// Every `.rs` file under `dir`, recursively.
pub fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// Validates XML documents against doc/iospd.xsd with xmllint; panics with its message if one fails.
pub fn validate_xml(documents: &[(&str, &str)], test: &str) {
    let Some(tools) = tools::optional(test, "xmllint", "the XML against doc/iospd.xsd") else {
        return;
    };
    let dir = TempDir::new();
    let mut args = vec![
        "--noout".to_string(),
        "--schema".to_string(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/doc/iospd.xsd").to_string(),
    ];
    for (name, text) in documents {
        let path = dir.join(&format!("{name}.xml"));
        std::fs::write(&path, text).unwrap();
        args.push(path.display().to_string());
    }
    let output = tools.command("xmllint").args(&args).output().unwrap();
    assert!(
        output.status.success(),
        "XSD validation failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Validates a JSON document against doc/iospd-results.schema.json.
pub fn validate_json(text: &str) {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../doc/iospd-results.schema.json")).unwrap();
    let instance: serde_json::Value = serde_json::from_str(text).expect("well-formed JSON");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("iospd-results.schema.json", schema)
        .unwrap();
    let index = compiler
        .compile("iospd-results.schema.json", &mut schemas)
        .expect("the schema compiles");
    if let Err(error) = schemas.validate(&instance, index) {
        panic!("JSON schema validation failed: {error:#}");
    }
}

/// Compares `actual` with `tests/golden/<name>`; with UPDATE_GOLDEN=1 rewrites the file instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} is missing; run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from the golden file at line {}:\n  expected: {:?}\n  actual:   {:?}\n(UPDATE_GOLDEN=1 rewrites it)",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

/// The iospd binary.
pub fn iospd() -> Command {
    summary_at_exit();
    Command::new(env!("CARGO_BIN_EXE_iospd"))
}

/// The iospd binary, unable to map more than `bytes` of memory: a run that would grow past it
/// fails its allocation and aborts, so a test sees memory that grows with its input.
pub fn iospd_within(bytes: u64) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = iospd();
    // SAFETY: setrlimit is async-signal-safe; the child has not started yet.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// Runs `command` (an iospd run with a `-d` longer than it needs) until `enough` holds, looked at
/// every 20 ms, then stops it with SIGINT as Ctrl-C would: its results cover the measured window
/// up to then. A test that needs a run to do a number of I/Os waits for them this way instead of
/// racing a clock. Panics when the run ends first.
pub fn run_until(mut command: Command, enough: impl Fn() -> bool) -> Output {
    use std::process::Stdio;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("iospd runs");
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            panic!(
                "the run ended ({status}) before it did what the test needs: {}",
                stderr(&output)
            );
        }
        if enough() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the child's pid, which it still is: it has not been waited for.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(128 + libc::SIGINT),
        "{}",
        stderr(&output)
    );
    output
}

/// For [`run_until`]: whether the binary trace (`--trace=<trace>`) holds `ios` records, so the run
/// has completed at least that many I/Os.
pub fn traced(trace: &str, ios: u64) -> impl Fn() -> bool + '_ {
    // A 12-byte header, then 40 bytes an I/O.
    move || std::fs::metadata(trace).is_ok_and(|m| m.len() >= 12 + 40 * ios)
}

/// Runs the binary with `args` to completion.
pub fn run_iospd(args: &[&str]) -> Output {
    iospd().args(args).output().expect("iospd runs")
}

/// stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Whether io_uring can be used here; prints why a test is skipped when it cannot.
pub fn io_uring_available(test: &str) -> bool {
    match iospd::engine::probe_io_uring() {
        Ok(()) => true,
        Err(e) => {
            skip(
                test,
                &format!("io_uring is unavailable on this machine ({e})"),
            );
            false
        }
    }
}

/// The numbers of the `total:` line of a section of a text report.
pub struct Totals {
    pub bytes: u64,
    pub ios: u64,
    pub iops: f64,
    pub avg_latency_ms: Option<f64>,
}

/// Reads the `total:` row of the "Total IO", "Read IO" or "Write IO" table.
pub fn totals(report: &str, section: &str) -> Totals {
    let start = report
        .find(&format!("\n{section}\n"))
        .unwrap_or_else(|| panic!("no {section} in:\n{report}"));
    let line = report[start..]
        .lines()
        .find(|l| l.starts_with("total:"))
        .expect("total line");
    let cells: Vec<&str> = line
        .trim_start_matches("total:")
        .split('|')
        .map(str::trim)
        .collect();
    let header = report[start..].lines().nth(2).unwrap();
    Totals {
        bytes: cells[0].parse().unwrap(),
        ios: cells[1].parse().unwrap(),
        iops: cells[3].parse().unwrap(),
        avg_latency_ms: header.contains("AvgLat").then(|| cells[4].parse().unwrap()),
    }
}

/// The `actual test time` of the first timespan, in seconds.
pub fn test_time(report: &str) -> f64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("actual test time:"))
        .expect("actual test time");
    line.trim_start_matches("actual test time:")
        .trim()
        .trim_end_matches('s')
        .parse()
        .unwrap()
}

/// Each case's options, run as `iospd -c1M -d1 <options> <new file>`, exit 3 with one line that
/// contains its phrase, and create nothing.
pub fn assert_refused_untouched(cases: &[(Vec<&str>, &str)]) {
    let dir = TempDir::new();
    let target = dir.arg("t.dat");
    for (args, says) in cases {
        let mut all = vec!["-c1M", "-d1"];
        all.extend(args);
        all.push(&target);
        let output = iospd().args(&all).output().unwrap();
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        let err = stderr(&output);
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(!target_exists(&target), "{args:?} wrote the target");
    }
}

fn target_exists(path: &str) -> bool {
    std::path::Path::new(path).exists()
}
