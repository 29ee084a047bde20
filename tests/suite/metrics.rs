//! `--metrics`: a real Prometheus scrapes a run every second, and what it stores agrees with the
//! run's own report; clients that misbehave cannot stop or stall the run.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{TempDir, iospd, stderr};

/// A port free now on loopback.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET path` on loopback `port` with `accept`: the status line's code and the body.
pub fn get(port: u16, path: &str, accept: Option<&str>) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let accept = accept.map_or(String::new(), |a| format!("Accept: {a}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{accept}Connection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok((code, body.to_string()))
}

/// Percent-encodes a query parameter.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A Prometheus of the test's own, on loopback, scraping iospd's port every second; stopped and
/// its data removed when dropped.
struct Prometheus {
    child: Child,
    port: u16,
    _dir: TempDir,
}

impl Prometheus {
    /// A Prometheus scraping port `scraped` every second; with `native`, one that asks for the
    /// protobuf format and keeps native histograms.
    fn start(tools: &crate::util::tools::Tools, scraped: u16, native: bool) -> Prometheus {
        let dir = TempDir::new();
        let config = dir.join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: iospd\n    static_configs:\n      - targets: ['127.0.0.1:{scraped}']\n"
            ),
        )
        .unwrap();
        let port = free_port();
        let child = tools
            .command("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .args(native.then_some("--enable-feature=native-histograms"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let prometheus = Prometheus {
            child,
            port,
            _dir: dir,
        };
        let end = Instant::now() + Duration::from_secs(60);
        while !matches!(get(port, "/-/ready", None), Ok((200, _))) {
            assert!(Instant::now() < end, "Prometheus never became ready");
            std::thread::sleep(Duration::from_millis(200));
        }
        prometheus
    }

    /// The result of the instant query `query`.
    fn query(&self, query: &str) -> Vec<serde_json::Value> {
        self.query_at(query, None)
    }

    /// The result of the instant query `query` at `time` (Unix seconds; now without one).
    fn query_at(&self, query: &str, time: Option<f64>) -> Vec<serde_json::Value> {
        let time = time.map_or(String::new(), |t| format!("&time={t}"));
        let (code, body) = get(
            self.port,
            &format!("/api/v1/query?query={}{time}", encode(query)),
            None,
        )
        .unwrap();
        assert_eq!(code, 200, "{query}: {body}");
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        answer["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The one number `query` gives.
    fn number(&self, query: &str) -> f64 {
        self.number_at(query, None)
    }

    /// The one number `query` gives at `time`.
    fn number_at(&self, query: &str, time: Option<f64>) -> f64 {
        let result = self.query_at(query, time);
        assert_eq!(result.len(), 1, "{query}: {result:?}");
        result[0]["value"][1].as_str().unwrap().parse().unwrap()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn report(output: &Output) -> serde_json::Value {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The bounds of the classic bucket that holds `seconds`: (lower, upper].
fn bucket_of(seconds: f64) -> (f64, f64) {
    let mut lower = 0.0;
    for decade in -6..=1 {
        for step in [1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0] {
            let upper = step * 10f64.powi(decade);
            if seconds <= upper * (1.0 + 1e-9) {
                return (lower, upper);
            }
            lower = upper;
        }
    }
    (lower, f64::INFINITY)
}

#[test]
fn a_real_prometheus_scraping_every_second_stores_what_the_report_says() {
    let test = "a_real_prometheus_scraping_every_second_stores_what_the_report_says";
    let Some(tools) = crate::util::tools::need(test, &["prometheus"]) else {
        return;
    };
    let dir = TempDir::new();
    let port = free_port();
    let prometheus = Prometheus::start(&tools, port, false);
    // A second one, at the same time, reads the native histograms.
    let native = Prometheus::start(&tools, port, true);
    let output = iospd()
        .args([
            "-c64M", "-d30", "-W0", "-b4K", "-o8", "-r", "-w20", "-L", "-D1000",
        ])
        .args(["-Rjson", &format!("--metrics={port}")])
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    let report = report(&output);
    let measured = &report["timespans"][0]["measured"];
    let totals = &measured["totals"];
    let target = dir.arg("t.dat");
    for direction in ["read", "write"] {
        let selector = format!(r#"{{direction="{direction}",target="{target}"}}"#);
        // Counts: the last scrape has the report's totals, exactly.
        let last =
            |metric: &str| prometheus.number(&format!("max_over_time({metric}{selector}[5m])"));
        let ios = totals[direction]["ios"].as_u64().unwrap();
        assert!(ios > 0);
        assert_eq!(last("iospd_ios_total"), ios as f64, "{direction}");
        assert_eq!(
            last("iospd_bytes_total"),
            totals[direction]["bytes"].as_u64().unwrap() as f64
        );
        assert_eq!(last("iospd_latency_seconds_count"), ios as f64);
        // p99 of the whole run from the final buckets: Prometheus interpolates inside the bucket
        // the 99th percentile's rank falls in, so iospd's exact p99 is in that same bucket (whose
        // upper bound is at most 1.5 times its lower).
        let quantile = prometheus.number(&format!(
            "histogram_quantile(0.99, sum by (le) (max_over_time(iospd_latency_seconds_bucket{selector}[5m])))"
        ));
        let p99_ns = totals[direction]["latency"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["percentile"].as_f64() == Some(99.0))
            .unwrap()["value_ns"]
            .as_u64()
            .unwrap();
        let (lower, upper) = bucket_of(quantile);
        let p99 = p99_ns as f64 / 1e9;
        assert!(
            lower < p99 && p99 <= upper * (1.0 + 1e-9),
            "{direction}: Prometheus's p99 {quantile} s is in ({lower}, {upper}], iospd's is {p99} s"
        );
        // The native histogram at the last scrape: every I/O, and a p99 in the native bucket of
        // iospd's exact one (or the next: Prometheus interpolates), so within 2 × 2.2 %.
        let last_scrape = |p: &Prometheus| {
            let samples = p.query(&format!("iospd_ios_total{selector}[5m]"));
            let values = samples[0]["values"].as_array().unwrap().clone();
            values.last().unwrap()[0].as_f64().unwrap()
        };
        let at = Some(last_scrape(&native));
        let native_count = native.number_at(
            &format!("histogram_count(iospd_latency_seconds{selector})"),
            at,
        );
        assert_eq!(native_count, ios as f64, "{direction}");
        let native_p99 = native.number_at(
            &format!("histogram_quantile(0.99, iospd_latency_seconds{selector})"),
            at,
        );
        let ratio = native_p99 / p99;
        assert!(
            (2f64.powf(-2.0 / 32.0)..=2f64.powf(2.0 / 32.0)).contains(&ratio),
            "{direction}: the native p99 {native_p99} s against iospd's {p99} s"
        );
        eprintln!(
            "{direction}: p99 iospd {p99:.9} s, classic {quantile:.9} s in ({lower}, {upper}], native {native_p99:.9} s"
        );
        // The rate over the last 20 s Prometheus saw, against the report's own seconds.
        let at = last_scrape(&prometheus);
        let rate = prometheus.number_at(&format!("rate(iospd_ios_total{selector}[20s])"), Some(at));
        let rows = measured["timeline"].as_array().unwrap();
        let own: f64 = rows[rows.len() - 20..]
            .iter()
            .map(|r| r["targets"][0][direction]["ios"].as_f64().unwrap())
            .sum::<f64>()
            / 20.0;
        assert!(
            (rate / own - 1.0).abs() < 0.1,
            "{direction}: Prometheus's rate {rate}/s, the report's last 20 s {own}/s"
        );
    }
    // The device under the file, when the device clock timed its requests: the last scrape has
    // the window's requests, exactly (the intervals' edges are the window's and those between).
    let devices = measured["reality"]["devices"].as_array().cloned();
    let mut timed = 0;
    for device in devices.unwrap_or_default() {
        for time in device["time"].as_array().cloned().unwrap_or_default() {
            let Some(requests) = time["clock"]["requests"].as_u64() else {
                continue;
            };
            let selector = format!(
                r#"{{device="{}",direction="{}"}}"#,
                device["device"].as_str().unwrap(),
                time["direction"].as_str().unwrap()
            );
            let count = prometheus.number(&format!(
                "max_over_time(iospd_device_request_seconds_count{selector}[5m])"
            ));
            assert_eq!(count, requests as f64, "{selector}");
            timed += 1;
        }
    }
    eprintln!("{timed} device series checked against the report's device clock");
    // The final scrape saw the run done, and the run's identity.
    assert_eq!(
        prometheus.number(r#"max_over_time(iospd_phase{phase="done"}[5m])"#),
        1.0
    );
    let info = prometheus.query("last_over_time(iospd_run_info[5m])");
    assert_eq!(
        info[0]["metric"]["version"].as_str(),
        Some(env!("CARGO_PKG_VERSION"))
    );
}

/// Connects to loopback `port`, trying for up to 30 s while the run starts.
fn connect(port: u16) -> TcpStream {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => return stream,
            Err(e) => assert!(Instant::now() < end, "the endpoint never listened: {e}"),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn slow_huge_and_many_clients_cannot_stop_or_stall_the_run() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = TempDir::new();
    let port = free_port();
    let run = iospd()
        .args([
            "-c16M", "-d8", "-W0", "-b4K", "-o4", "-r", "-D1000", "-Rjson",
        ])
        .arg(format!("--metrics=127.0.0.1:{port}"))
        .arg(dir.arg("t.dat"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(connect(port));
    // Slowloris: 200 connections that send a byte of a request every 100 ms and never end it,
    // opened again whenever the endpoint drops one.
    let stop = Arc::new(AtomicBool::new(false));
    let slow = std::thread::spawn({
        let stop = stop.clone();
        move || {
            let mut open: Vec<TcpStream> = Vec::new();
            let mut reopened = 0;
            while !stop.load(Ordering::Relaxed) {
                while open.len() < 200 {
                    match TcpStream::connect(("127.0.0.1", port)) {
                        Ok(stream) => open.push(stream),
                        Err(_) => break,
                    }
                    reopened += 1;
                }
                open.retain_mut(|s| s.write_all(b"G").is_ok());
                std::thread::sleep(Duration::from_millis(100));
            }
            reopened
        }
    });
    // Many connections that say nothing at all.
    let idle: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok())
        .collect();
    // A request of 1 MiB of headers: refused once 8 KiB have come, and closed.
    let mut huge = connect(port);
    huge.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = huge.write_all(b"GET /metrics HTTP/1.1\r\n");
    let line = format!("X-Filler: {}\r\n", "x".repeat(1000));
    for _ in 0..1024 {
        if huge.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    let mut answer = Vec::new();
    let _ = huge.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "{answer}"
    );
    // Meanwhile a scraper that behaves is answered every time.
    let mut answered = 0;
    for _ in 0..10 {
        let (code, body) = get(
            port,
            "/metrics",
            Some("application/openmetrics-text; version=1.0.0"),
        )
        .expect("a scrape during the flood is answered");
        assert_eq!(code, 200);
        assert!(body.contains("iospd_ios_total{") && body.ends_with("# EOF\n"));
        answered += 1;
        std::thread::sleep(Duration::from_millis(300));
    }
    // A path the endpoint does not serve.
    assert_eq!(get(port, "/other", None).unwrap().0, 404);
    stop.store(true, Ordering::Relaxed);
    let reopened = slow.join().unwrap();
    drop(idle);
    let output = run.wait_with_output().unwrap();
    let report = report(&output);
    // The run went its whole length with I/O in every second.
    let measured = &report["timespans"][0]["measured"];
    let rows = measured["timeline"].as_array().unwrap();
    assert_eq!(rows.len(), 8, "{}", stderr(&output));
    for (i, row) in rows.iter().enumerate() {
        assert!(
            row["targets"][0]["read"]["ios"].as_u64().unwrap() > 0,
            "second {i} did no I/O"
        );
    }
    assert!(answered == 10 && reopened >= 200, "{reopened}");
}

#[test]
fn a_port_in_use_is_refused_before_anything_is_written() {
    let dir = TempDir::new();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let output = iospd()
        .args(["-c8M", "-d1", "-W0", "-w50"])
        .arg(format!("--metrics={port}"))
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("--metrics: cannot listen on 127.0.0.1:{port}"))
            && err.contains("name a free port"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!dir.join("t.dat").exists());
}
