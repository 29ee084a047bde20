//! One measurement across many processes. `--start-at` starts independent instances together and
//! `iospd merge` lines their time series up; under `mpirun` (a build with `--features mpi`) the
//! ranks agree on their start, stop together and rank 0 writes one exact report.

use std::fs;
use std::process::{Output, Stdio};
use std::time::{Duration, SystemTime};

use crate::util::{TempDir, iospd, stderr, stdout};
use iospd::report::Report;

fn measured(report: &Report) -> &iospd::report::Measured {
    report.timespans[0].measured.as_ref().unwrap()
}

fn json(output: &Output) -> Report {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    serde_json::from_str(&stdout(output)).expect("the result is JSON")
}

#[test]
fn start_at_starts_the_run_at_that_wall_clock_time() {
    let dir = TempDir::new();
    let at = SystemTime::now() + Duration::from_secs(3);
    let at_text = iospd::wall::rfc3339(at);
    let output = iospd()
        .args(["-c8M", "-d1", "-W0", "-b4K", "-o2", "-r", "-Rjson"])
        .arg(format!("--start-at={at_text}"))
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    let report = json(&output);
    let start = report.timespans[0]
        .start
        .as_ref()
        .expect("the start is reported");
    assert_eq!(start.at_unix_ns, iospd::wall::unix_ns(at));
    // The threads began at the time, not before it (the report's start is the agreed instant).
    assert!(report.timespans[0].start_unix_s * 1e9 >= iospd::wall::unix_ns(at) as f64 - 1e6);
    assert!(report.timespans[0].cluster.is_none());
    assert!(
        !report.system.clock.source.is_empty(),
        "the clock source is recorded"
    );

    let text = iospd()
        .args(["-d1", "-W0", "-b4K", "-o2", "-r"])
        .arg(format!(
            "--start-at={}",
            iospd::wall::rfc3339(SystemTime::now() + Duration::from_secs(2))
        ))
        .arg(dir.arg("t.dat"))
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    assert!(stdout(&text).contains("agreed start:"), "{}", stdout(&text));
    assert!(stdout(&text).contains("wall clock:"));
}

#[test]
fn start_at_in_the_past_or_malformed_is_refused_before_anything_is_written() {
    let dir = TempDir::new();
    for (value, says) in [
        ("2020-01-01T00:00:00Z", "in the past"),
        ("tomorrow", "RFC 3339"),
    ] {
        let output = iospd()
            .args(["-c8M", "-d1"])
            .arg(format!("--start-at={value}"))
            .arg(dir.arg("t.dat"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{value}");
        assert!(
            stderr(&output).contains(says),
            "{value}: {}",
            stderr(&output)
        );
        assert!(!dir.join("t.dat").exists());
    }
}

#[test]
fn runs_started_together_merge_on_one_timeline() {
    let dir = TempDir::new();
    let at = iospd::wall::rfc3339(SystemTime::now() + Duration::from_secs(4));
    let children: Vec<_> = ["a", "b"]
        .iter()
        .map(|name| {
            iospd()
                .args([
                    "-c16M", "-d2", "-W0", "-b4K", "-o2", "-r", "-D500", "-Rjson",
                ])
                .arg(format!("--start-at={at}"))
                .arg(dir.arg(&format!("{name}.dat")))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut paths = Vec::new();
    let mut runs = Vec::new();
    for (name, child) in ["a", "b"].iter().zip(children) {
        let output = child.wait_with_output().unwrap();
        let report = json(&output);
        let path = dir.join(&format!("{name}.json"));
        fs::write(&path, &output.stdout).unwrap();
        paths.push(path.display().to_string());
        runs.push(report);
    }
    let merged = json(&iospd().arg("merge").args(&paths).output().unwrap());
    let rows = &measured(&merged).timeline;
    let (a, b) = (&measured(&runs[0]).timeline, &measured(&runs[1]).timeline);
    // The same start: interval k of the merge is interval k of each run, added.
    assert_eq!(rows.len(), a.len().max(b.len()));
    for (k, row) in rows.iter().enumerate() {
        let sum = a.get(k).map_or(0, |r| r.all.total.ios) + b.get(k).map_or(0, |r| r.all.total.ios);
        assert_eq!(row.all.total.ios, sum, "interval {k}");
    }
}

#[cfg(not(feature = "mpi"))]
#[test]
fn runs_across_hosts_are_tested_by_the_mpi_build() {
    crate::util::elsewhere(
        "cluster::mpi",
        "this build has no MPI; `cargo test --features mpi` runs those tests (CI does)",
    );
}

#[cfg(feature = "mpi")]
mod mpi {
    //! Under `mpirun`, ranks as processes of this machine.

    use super::*;
    use iospd::stats::histogram::LatencyHistogram;
    use std::path::Path;
    use std::process::Command;

    /// `mpirun -np ranks iospd args…`, or `None` (the test skipped) without a launcher.
    fn mpirun(test: &str, ranks: u32) -> Option<Command> {
        let tools = crate::util::tools::need(test, &["mpirun"])?;
        let version = tools.command("mpirun").arg("--version").output().ok()?;
        let mut command = tools.command("mpirun");
        if stdout(&version).contains("Open MPI") {
            // Root may run it here, and more ranks than CPUs share them.
            command
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .arg("--oversubscribe");
        }
        command.args(["-np", &ranks.to_string(), env!("CARGO_BIN_EXE_iospd")]);
        Some(command)
    }

    /// N copies that MPI sees as N worlds of one (Open MPI 5 under a plain `srun`): here one rank
    /// under `mpirun -np 1` whose Slurm step says 4 tasks. Refused before any I/O, with the fix;
    /// one process of a batch script runs.
    #[test]
    fn copies_mpi_sees_alone_are_refused_with_the_launch_that_works() {
        let test = "copies_mpi_sees_alone_are_refused_with_the_launch_that_works";
        let dir = TempDir::new();
        let Some(mut command) = mpirun(test, 1) else {
            return;
        };
        let output = command
            .env("SLURM_STEP_NUM_TASKS", "4")
            .env("SLURM_PROCID", "0")
            .args(["-c8M", "-d1", "-w50"])
            .arg(dir.arg("t.dat"))
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_ne!(output.status.code(), Some(0), "{err}");
        assert!(
            err.contains("4 copies (SLURM_STEP_NUM_TASKS=4) but MPI sees this one alone"),
            "{err}"
        );
        assert!(err.contains("use srun --mpi=pmix or mpirun"), "{err}");
        assert!(!dir.join("t.dat").exists());
        // Started directly (no MPI launcher's variables) with a step of 4: the same.
        let direct = iospd()
            .env("SLURM_STEP_NUM_TASKS", "4")
            .env("SLURM_PROCID", "1")
            .args(["-c8M", "-d1", "-w50"])
            .arg(dir.arg("t.dat"))
            .output()
            .unwrap();
        assert_eq!(direct.status.code(), Some(3), "{}", stderr(&direct));
        assert!(stderr(&direct).contains("use srun --mpi=pmix or mpirun"));
        assert!(!dir.join("t.dat").exists());
        super::one_process_of_a_batch_script_runs(&dir);
    }

    fn latency(d: &iospd::report::Direction) -> LatencyHistogram {
        d.latency.as_ref().unwrap().histogram().unwrap()
    }

    /// The README's one-machine `mpirun` line, continuation lines joined.
    fn readme_line() -> String {
        let readme = include_str!("../../README.md");
        let start = readme
            .find("mpirun --allow-run-as-root")
            .expect("the README's one-machine mpirun line");
        let block = &readme[start..readme[start..].find("\n```").unwrap() + start];
        block.replace("\\\n", " ")
    }

    #[test]
    fn the_readmes_one_machine_line_runs_as_printed_as_root() {
        let test = "the_readmes_one_machine_line_runs_as_printed_as_root";
        let Some(tools) = crate::util::tools::need(test, &["mpirun"]) else {
            return;
        };
        let version = tools.command("mpirun").arg("--version").output().unwrap();
        if !stdout(&version).contains("Open MPI") {
            crate::util::skip(test, "the README's line is for Open MPI's mpirun");
            return;
        }
        let dir = TempDir::new();
        let line = readme_line();
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some("mpirun"));
        // As printed: only the binary's and the files' places are this build's and this test's.
        let args: Vec<String> = words
            .map(|w| match w {
                "target/release/iospd" => env!("CARGO_BIN_EXE_iospd").to_string(),
                w if w.starts_with("/tmp/") => dir.arg(w.trim_start_matches("/tmp/")),
                w => w.to_string(),
            })
            .collect();
        let output = tools
            .command("mpirun")
            .args(&args)
            // What the line says must be enough: not the variables CI sets.
            .env_remove("OMPI_ALLOW_RUN_AS_ROOT")
            .env_remove("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{line}: {}", stderr(&output));
        let text = stdout(&output);
        assert!(text.contains("\nRanks (4 on 1 host)"), "{text}");
    }

    /// `--metrics` under `mpirun -np 3`: rank 0 serves every rank's numbers added up, under the
    /// target as typed; at the end they are the merged report's totals.
    #[test]
    fn rank_0_serves_the_whole_runs_metrics() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::{Arc, Mutex};
        let Some(mut command) = mpirun("rank_0_serves_the_whole_runs_metrics", 3) else {
            return;
        };
        let dir = TempDir::new();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let run = command
            .args(["-c16M", "-d3", "-W0", "-b4K", "-o4", "-r", "-w25", "-Rjson"])
            .arg(format!("--metrics={port}"))
            .arg(dir.arg("t-{rank}.dat"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A scraper every 200 ms; the last answer it had.
        let (stop, last) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(Mutex::new(String::new())),
        );
        let scraper = std::thread::spawn({
            let (stop, last) = (stop.clone(), last.clone());
            move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((200, body)) = crate::metrics::get(port, "/metrics", None) {
                        *last.lock().unwrap() = body;
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        });
        let output = run.wait_with_output().unwrap();
        stop.store(true, Ordering::Relaxed);
        scraper.join().unwrap();
        let report = json(&output);
        let totals = &measured(&report).totals;
        let body = last.lock().unwrap().clone();
        let value = |name: &str| -> f64 {
            body.lines()
                .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
                .unwrap_or_else(|| panic!("{name} in\n{body}"))
        };
        let target = dir.arg("t-{rank}.dat");
        let series = |metric: &str, direction: &str| {
            value(&format!(
                r#"{metric}{{target="{target}",direction="{direction}"}}"#
            ))
        };
        assert_eq!(value(r#"iospd_phase{phase="done"}"#), 1.0, "{body}");
        assert_eq!(value("iospd_ranks"), 3.0);
        assert_eq!(value("iospd_ranks_reporting"), 3.0);
        assert_eq!(series("iospd_ios_total", "read"), totals.read.ios as f64);
        assert_eq!(series("iospd_ios_total", "write"), totals.write.ios as f64);
        assert_eq!(
            series("iospd_bytes_total", "read"),
            totals.read.bytes as f64
        );
        assert!(totals.read.ios > 0 && totals.write.ios > 0);
    }

    /// The `-D` series is added up a tree of ranks, not gathered: 5 ranks (not a power of two)
    /// with 200 intervals each gather no more than with 2, and the run's buckets and rows add up
    /// to its totals.
    #[test]
    fn the_series_is_added_up_the_ranks_not_gathered() {
        let test = "the_series_is_added_up_the_ranks_not_gathered";
        let dir = TempDir::new();
        let mut gathered = Vec::new();
        for interval in ["-D1000", "-D10"] {
            let Some(mut command) = mpirun(test, 5) else {
                return;
            };
            let output = command
                .args([
                    "-c8M", "-d2", "-W0", "-b4K", "-o2", "-r", "-w30", "-L", interval, "-Rjson",
                ])
                .arg(dir.arg("t-{rank}.dat"))
                .output()
                .unwrap();
            let report = json(&output);
            let m = measured(&report);
            let cluster = report.timespans[0].cluster.as_ref().unwrap();
            gathered.push(cluster.gathered_bytes);
            let rows: u64 = m.timeline.iter().map(|r| r.all.total.ios).sum();
            assert_eq!(rows, m.totals.total.ios, "{interval}");
            for (d, total) in [
                (&m.totals.read, m.totals.read.ios),
                (&m.totals.write, m.totals.write.ios),
            ] {
                let buckets: u64 = d.intervals.iter().map(|b| b.ios).sum();
                assert_eq!(buckets, total, "{interval}");
            }
            if interval == "-D10" {
                // Every rank counts its rows from the agreed start however late it began, so
                // the rows are the common window's 200 intervals, each once, in order.
                let starts: Vec<f64> = m.timeline.iter().map(|r| r.start_ms).collect();
                let expected: Vec<f64> = (0..200).map(|i| i as f64 * 10.0).collect();
                let lateness = cluster.ranks.iter().map(|r| r.lateness_ns).max();
                assert_eq!(starts, expected, "ranks up to {lateness:?} ns late");
                // DiskSpd's buckets end with the last that holds a read (on a busy machine every
                // rank may be off its CPU for the last few): as many as the series' rows up to
                // its last read.
                let last_read = m.timeline.iter().rposition(|r| r.all.read.ios > 0);
                assert_eq!(
                    m.totals.read.intervals.len(),
                    last_read.map_or(0, |i| i + 1),
                    "{}",
                    m.timeline.len()
                );
                assert!(m.totals.read.intervals.len() > 100);
                // Each rank's own targets and threads keep no series, but each thread keeps the
                // IOPS deviation its rank measured.
                assert!(
                    m.threads
                        .iter()
                        .all(|t| t.targets[0].directions.read.ios_per_s_stddev > Some(0.0))
                );
                assert!(
                    m.threads
                        .iter()
                        .all(|t| t.targets[0].directions.read.intervals.is_empty())
                );
                assert!(
                    m.targets
                        .iter()
                        .all(|t| t.directions.read.intervals.is_empty())
                );
            }
        }
        assert!(
            gathered[1] < gathered[0] + gathered[0] / 5,
            "gathered {} bytes with 2 intervals and {} with 200",
            gathered[0],
            gathered[1]
        );
    }

    /// Past 16 ranks the text report shows the aggregate, the spread across ranks and the slowest
    /// ranks by name, not a row per rank's thread and target; the JSON keeps every rank.
    #[test]
    fn many_ranks_are_summed_up_in_the_text_and_kept_whole_in_the_json() {
        let test = "many_ranks_are_summed_up_in_the_text_and_kept_whole_in_the_json";
        let dir = TempDir::new();
        let json_path = dir.arg("r.json");
        let Some(mut command) = mpirun(test, 18) else {
            return;
        };
        let output = command
            .args(["--engine=null", "-c1M", "-d1", "-W0", "-b4K", "-o1", "-L"])
            .arg(format!("--output={json_path}"))
            .arg(dir.arg("t-{rank}.dat"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(text.contains("Ranks (18 on 1 host)"), "{text}");
        assert!(text.contains("\nSlowest ranks\n"), "{text}");
        assert!(
            text.contains("(the 18 threads' rows are in the JSON and XML results"),
            "{text}"
        );
        assert!(!text.contains("Latency distribution: "), "{text}");
        assert!(text.contains("Total latency distribution:"));
        let spread = text.lines().find(|l| l.starts_with("I/O per s ")).unwrap();
        assert_eq!(spread.split('|').count(), 5, "{spread}");
        let report: Report = serde_json::from_slice(&fs::read(&json_path).unwrap()).unwrap();
        let cluster = report.timespans[0].cluster.as_ref().unwrap();
        assert_eq!(cluster.ranks.len(), 18);
        assert!(cluster.ranks.iter().all(|r| r.p99_ns.is_some()));
        assert_eq!(measured(&report).threads.len(), 18);
    }

    #[test]
    fn four_ranks_give_one_exact_report() {
        let Some(mut command) = mpirun("four_ranks_give_one_exact_report", 4) else {
            return;
        };
        let dir = TempDir::new();
        let output = command
            .args([
                "-c16M", "-d2", "-W1", "-b4K", "-o4", "-r", "-L", "-D500", "-Rjson",
            ])
            .arg(format!("--output={}", dir.arg("r.xml")))
            .arg(dir.arg("t-{rank}.dat"))
            .output()
            .unwrap();
        let report = json(&output);
        let m = measured(&report);
        let cluster = report.timespans[0]
            .cluster
            .as_ref()
            .expect("a cluster section");
        assert_eq!(cluster.ranks.len(), 4);
        assert_eq!(m.threads.len(), 4);
        assert_eq!(m.targets.len(), 4, "one file per rank");
        for rank in 0..4 {
            assert!(dir.join(&format!("t-{rank}.dat")).exists());
        }
        // Counts add up: per rank, per thread, in total.
        let by_rank: u64 = cluster.ranks.iter().map(|r| r.ios).sum();
        let by_thread: u64 = m
            .threads
            .iter()
            .map(|t| t.targets[0].directions.total.ios)
            .sum();
        assert_eq!(by_rank, m.totals.total.ios);
        assert_eq!(by_thread, m.totals.total.ios);
        assert_eq!(cluster.common_window.ios, m.totals.total.ios);
        assert!(cluster.ranks.iter().all(|r| r.ios > 0));
        // Every thread says which rank ran it.
        let mut ranks: Vec<u32> = m
            .threads
            .iter()
            .map(|t| t.host.as_ref().unwrap().rank)
            .collect();
        ranks.sort_unstable();
        assert_eq!(ranks, [0, 1, 2, 3]);
        // Percentiles of the merge are those of the union of the ranks' histograms.
        let mut union = latency(&m.targets[0].directions.total);
        for target in &m.targets[1..] {
            union.merge(&latency(&target.directions.total));
        }
        let total = m.totals.total.latency.as_ref().unwrap();
        let ps: Vec<f64> = total
            .percentiles
            .iter()
            .map(|p| p.percentile / 100.0)
            .collect();
        let expected = union.percentiles(&ps);
        let got: Vec<u64> = total.percentiles.iter().map(|p| p.value_ns).collect();
        assert_eq!(got, expected);
        assert_eq!(total.count, union.count());
        // One machine, one clock: each offset is within its uncertainty (the true offset is 0, and
        // an exchange bounds its estimate by half its round trip however slow the machine is).
        for r in &cluster.ranks {
            assert!(
                r.clock_offset_ns.unsigned_abs() <= r.clock_uncertainty_ns + 1_000,
                "{r:?}"
            );
        }
        // Skew, margin and slack are reported consistently (their sizes depend on how busy the
        // machine is, so they are not asserted).
        let late: Vec<u64> = cluster.ranks.iter().map(|r| r.lateness_ns).collect();
        let skew = late.iter().max().unwrap() - late.iter().min().unwrap();
        assert_eq!(cluster.start_skew_ns, skew, "{cluster:?}");
        // 50 ms + 50 µs per rank + twice the slowest answer to a ping just before.
        assert!(
            cluster.start_margin_ns >= 50_000_000 + 4 * 50_000,
            "{cluster:?}"
        );
        assert!(cluster.start_slack_ns <= cluster.start_margin_ns as i64);
        // The time series adds up interval by interval.
        let rows: u64 = m.timeline.iter().map(|r| r.all.total.ios).sum();
        assert_eq!(rows, m.totals.total.ios);
        // Only rank 0 wrote the output file, and it is the same run.
        let xml = fs::read_to_string(dir.join("r.xml")).unwrap();
        assert!(xml.contains("<Cluster>"));
        assert_eq!(xml.matches("<Rank>\n").count(), 4, "one element per rank");
    }

    #[test]
    fn throttling_paces_each_rank() {
        let Some(mut command) = mpirun("throttling_paces_each_rank", 4) else {
            return;
        };
        let dir = TempDir::new();
        // 4 KiB per ms per thread: 1000 I/Os per second on each rank.
        let output = command
            .args([
                "-c8M", "-d3", "-W1", "-b4K", "-g4096", "-o2", "-r", "-Rjson",
            ])
            .arg(dir.arg("t-{rank}.dat"))
            .output()
            .unwrap();
        let report = json(&output);
        let m = measured(&report);
        // A rank kept off its CPU in warm-up does not make the time up inside the window.
        let ranks = &report.timespans[0].cluster.as_ref().unwrap().ranks;
        for r in ranks {
            assert!(r.ios_per_s <= 1000.0 * 1.02, "{r:?}");
        }
        let expected = 4.0 * 1000.0;
        let rate = m.totals.total.ios_per_s;
        let each: Vec<f64> = ranks.iter().map(|r| r.ios_per_s).collect();
        assert!(
            rate <= expected * 1.02 && rate >= expected * 0.85,
            "{rate} I/O per s across 4 ranks paced at 1000 each ({each:?})"
        );
    }

    #[test]
    fn a_file_lost_on_one_rank_stops_every_rank_and_names_it() {
        let Some(mut command) = mpirun("a_file_lost_on_one_rank_stops_every_rank_and_names_it", 3)
        else {
            return;
        };
        let dir = TempDir::new();
        let child = command
            .args(["-c16M", "-d30", "-W0", "-b4K", "-o2", "-r", "-Sb", "-Rjson"])
            .arg(dir.arg("t-{rank}.dat"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let victim = dir.join("t-2.dat");
        wait_for(|| fs::metadata(&victim).is_ok_and(|m| m.len() == 16 << 20));
        std::thread::sleep(Duration::from_secs(3));
        fs::File::options()
            .write(true)
            .open(&victim)
            .unwrap()
            .set_len(0)
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let said = stderr(&output);
        assert!(said.contains("rank 2 ("), "{said}");
        assert!(said.contains("t-2.dat"), "{said}");
        let report: Report = serde_json::from_str(&stdout(&output)).expect("the results so far");
        let m = measured(&report);
        assert!(
            m.duration_s < 25.0,
            "every rank stopped early: {}",
            m.duration_s
        );
        assert_eq!(report.timespans[0].cluster.as_ref().unwrap().ranks.len(), 3);
    }

    #[test]
    fn a_path_one_rank_cannot_create_refuses_the_run_on_every_rank() {
        let Some(mut command) = mpirun(
            "a_path_one_rank_cannot_create_refuses_the_run_on_every_rank",
            4,
        ) else {
            return;
        };
        let dir = TempDir::new();
        for rank in [0, 1, 3] {
            fs::create_dir(dir.join(&format!("d{rank}"))).unwrap();
        }
        let output = command
            .args(["-c8M", "-d1", "-b4K", "-w50"])
            .arg(format!("--output={}", dir.arg("r.json")))
            .arg(dir.arg("d{rank}/t.dat"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        let said = stderr(&output);
        assert!(said.contains("rank 2 ("), "{said}");
        assert_eq!(
            said.lines().filter(|l| l.contains("rank ")).count(),
            1,
            "{said}"
        );
        for rank in [0, 1, 3] {
            assert!(
                !dir.join(&format!("d{rank}/t.dat")).exists(),
                "rank {rank} wrote"
            );
        }
        assert!(!dir.join("r.json").exists());
        assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    }

    #[test]
    fn two_ranks_writing_one_path_are_refused() {
        let Some(mut command) = mpirun("two_ranks_writing_one_path_are_refused", 2) else {
            return;
        };
        let dir = TempDir::new();
        let output = command
            .args(["-c8M", "-d1", "-b4K", "-w50"])
            .arg(dir.arg("shared.dat"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert!(stderr(&output).contains("{rank}"), "{}", stderr(&output));
        assert!(!dir.join("shared.dat").exists());
        // Paths that differ by {rank} but reach one file are one file.
        for rank in 0..2 {
            fs::create_dir(dir.join(&format!("d{rank}"))).unwrap();
        }
        let Some(mut command) = mpirun("two_ranks_writing_one_path_are_refused", 2) else {
            return;
        };
        let output = command
            .args(["-c8M", "-d1", "-b4K", "-w50"])
            .arg(dir.arg("d{rank}/../shared.dat"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("both run on"),
            "{}",
            stderr(&output)
        );
        assert!(!dir.join("shared.dat").exists());
    }

    /// Starts a 60-second run on 3 ranks writing `--output=r.json` (with `extra` options), and
    /// returns the launcher once every rank is running.
    fn running(test: &str, dir: &TempDir, extra: &str) -> Option<std::process::Child> {
        let mut command = mpirun(test, 3)?;
        // Open MPI answers a Ctrl-C by signalling the ranks and killing them `sigkill_timeout`
        // seconds later; the default, one second, is too short for a loaded machine to report in.
        command.env("OMPI_MCA_odls_base_sigkill_timeout", "5");
        let child = command
            .args(["-c8M", "-d60", "-W0", "-b4K", "-o2", "-r", extra])
            .arg(format!("--output={}", dir.arg("r.json")))
            .arg(dir.arg("t-{rank}.dat"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        for rank in 0..3 {
            let path = dir.join(&format!("t-{rank}.dat"));
            wait_for(|| fs::metadata(&path).is_ok_and(|m| m.len() == 8 << 20));
        }
        Some(child)
    }

    /// A 60-second run on 3 ranks whose launcher gets `signal` once every rank is running.
    fn interrupted(test: &str, signal: libc::c_int, dir: &TempDir) -> Option<Output> {
        let child = running(test, dir, "-Rjson")?;
        std::thread::sleep(Duration::from_secs(3));
        // SAFETY: kill only sends a signal to the child it names.
        unsafe { libc::kill(child.id() as i32, signal) };
        Some(ended(child))
    }

    /// The pid of the process that runs `rank` of the job launched by `launcher` (other tests'
    /// jobs run alongside).
    fn rank_pid(launcher: u32, rank: u32) -> Option<i32> {
        let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
        fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            if pid as u32 == launcher {
                return None;
            }
            let environ = fs::read(entry.path().join("environ")).ok()?;
            let exe = fs::read_link(entry.path().join("exe")).ok()?;
            (exe == Path::new(env!("CARGO_BIN_EXE_iospd"))
                && environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes())
                && descends(pid, launcher))
            .then_some(pid)
        })
    }

    /// Whether `pid` is a child of `ancestor`, or a grandchild (a launcher's daemon between).
    fn descends(pid: i32, ancestor: u32) -> bool {
        let parent = |pid: i32| -> Option<i32> {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            stat[stat.rfind(')')? + 2..].split(' ').nth(1)?.parse().ok()
        };
        let mut at = pid;
        for _ in 0..3 {
            match parent(at) {
                Some(p) if p as u32 == ancestor => return true,
                Some(p) if p > 1 => at = p,
                _ => return false,
            }
        }
        false
    }

    /// A rank killed mid-run (the launcher then ends the others): rank 0 has saved its own
    /// results, marked partial, saying why.
    #[test]
    fn a_rank_killed_mid_run_leaves_rank_0_s_partial_report() {
        let test = "a_rank_killed_mid_run_leaves_rank_0_s_partial_report";
        let dir = TempDir::new();
        let Some(child) = running(test, &dir, "--peer-timeout=5") else {
            return;
        };
        std::thread::sleep(Duration::from_secs(2));
        let victim = rank_pid(child.id(), 2).expect("rank 2 runs");
        // SAFETY: kill only sends a signal to the process it names, a rank of our job.
        unsafe { libc::kill(victim, libc::SIGKILL) };
        let output = ended(child);
        assert_ne!(output.status.code(), Some(0));
        let text = fs::read_to_string(dir.join("r.json"))
            .unwrap_or_else(|e| panic!("no report ({e}): {}", stderr(&output)));
        let report: Report = serde_json::from_str(&text).unwrap();
        assert!(report.partial, "{text}");
        let why = report.partial_why.as_deref().unwrap_or_default();
        assert!(why.contains("rank 0's own results only"), "{why}");
        assert!(measured(&report).totals.total.ios > 0);
    }

    /// The launcher's output once it ends. Open MPI's `mpirun` has been seen to hang after a
    /// Ctrl-C with every rank already gone (it no longer reaps them); the ranks' work is done then,
    /// so a launcher still there a minute later is killed and the test judges what the ranks left.
    fn ended(mut child: std::process::Child) -> Output {
        use std::io::Read as _;
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = out.read_to_end(&mut text);
            text
        });
        let errors = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = err.read_to_end(&mut text);
            text
        });
        let mut status = None;
        for _ in 0..600 {
            status = child.try_wait().unwrap();
            if status.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let status = status.unwrap_or_else(|| {
            let _ = child.kill();
            child.wait().unwrap()
        });
        Output {
            status,
            stdout: reader.join().unwrap(),
            stderr: errors.join().unwrap(),
        }
    }

    fn shortened(report: &Report) {
        let ts = &report.timespans[0];
        assert!(ts.interrupted);
        let m = measured(report);
        assert!(
            m.duration_s < 50.0 && m.totals.total.ios > 0,
            "{}",
            m.duration_s
        );
        assert_eq!(ts.cluster.as_ref().unwrap().ranks.len(), 3);
    }

    #[test]
    fn ctrl_c_to_the_launcher_gives_the_shortened_window() {
        let test = "ctrl_c_to_the_launcher_gives_the_shortened_window";
        let dir = TempDir::new();
        let Some(output) = interrupted(test, libc::SIGINT, &dir) else {
            return;
        };
        // The launcher ends the job and may cut what it forwards to stdout; the file is whole.
        let written = fs::read_to_string(dir.join("r.json"))
            .unwrap_or_else(|e| panic!("{e}: {}", stderr(&output)));
        shortened(&serde_json::from_str(&written).unwrap());
    }

    #[test]
    fn sigusr1_to_the_launcher_stops_every_rank_and_reports_in_full() {
        let test = "sigusr1_to_the_launcher_stops_every_rank_and_reports_in_full";
        let dir = TempDir::new();
        let Some(output) = interrupted(test, libc::SIGUSR1, &dir) else {
            return;
        };
        // Every rank was stopped by the signal: the status says so (128 + SIGUSR1).
        assert_eq!(
            output.status.code(),
            Some(128 + libc::SIGUSR1),
            "{}",
            stderr(&output)
        );
        let report: Report = serde_json::from_str(&stdout(&output)).expect("the result is JSON");
        assert_eq!(report.timespans[0].stopped_by.as_deref(), Some("SIGUSR1"));
        shortened(&report);
        let written: Report =
            serde_json::from_str(&fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
        assert_eq!(written, report);
    }

    fn wait_for(ready: impl Fn() -> bool) {
        for _ in 0..600 {
            if ready() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the run never got there");
    }
}

#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_started_by_a_launcher_refuses_to_run_copies() {
    let dir = TempDir::new();
    for variables in [
        &[("OMPI_COMM_WORLD_SIZE", "4")][..],
        &[("PMI_SIZE", "2")],
        &[("PMIX_SIZE", "3")],
        &[("SLURM_STEP_NUM_TASKS", "4"), ("SLURM_PROCID", "2")],
    ] {
        let output = iospd()
            .envs(variables.iter().copied())
            .args(["-c8M", "-d1", "-w50"])
            .arg(dir.arg("t.dat"))
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(3), "{variables:?}: {err}");
        let (name, n) = variables[0];
        assert!(err.contains("--features mpi"), "{err}");
        assert!(err.contains(&format!("{n} copies ({name}={n})")), "{err}");
        assert!(!dir.join("t.dat").exists());
    }
    one_process_of_a_batch_script_runs(&dir);
}

/// One copy is a plain run, and so is one process of a batch script (an allocation of 4 tasks,
/// no step of 4).
fn one_process_of_a_batch_script_runs(dir: &TempDir) {
    for variables in [
        &[("OMPI_COMM_WORLD_SIZE", "1")][..],
        &[("SLURM_NTASKS", "4"), ("SLURM_PROCID", "0")],
        &[("SLURM_STEP_NUM_TASKS", "4")],
    ] {
        let one = iospd()
            .envs(variables.iter().copied())
            .args(["-c8M", "-d1", "-W0"])
            .arg(dir.arg("t.dat"))
            .output()
            .unwrap();
        assert_eq!(
            one.status.code(),
            Some(0),
            "{variables:?}: {}",
            stderr(&one)
        );
    }
}
