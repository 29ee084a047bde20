//! The text report against DiskSpd 2.3's own layout, written here a second time from DiskSpd's
//! format strings (`ResultParser.cpp`; `TimeSpan`, `Target`, `Distribution` and
//! `ProcessorTopology::GetText` in `Common.cpp`) rather than from iospd's renderer: each run writes
//! its text to standard output and its JSON to a file, this module lays the JSON's values out as
//! DiskSpd would, and everything before `Beyond DiskSpd:` must be the same, byte for byte.
//!
//! Where DiskSpd prints what is true only on Windows, the layout here follows iospd's documented
//! choice (README, "Where iospd differs"): no `using I/O Completion Ports`, no ETW session table,
//! no `active power scheme:` line without a cpufreq governor.

use serde_json::Value;

use crate::util::*;

const STARS: &str =
    "*******************************************************************************";

/// `Util::GetSizeKMGT`: the largest binary unit that fits, whole or with up to two decimals.
fn size(bytes: u64) -> String {
    for (shift, unit) in [
        (50, "PiB"),
        (40, "TiB"),
        (30, "GiB"),
        (20, "MiB"),
        (10, "KiB"),
    ] {
        let scale = 1u64 << shift;
        if bytes >= scale {
            if bytes & (scale - 1) == 0 {
                return format!("{}{unit}", bytes >> shift);
            }
            let text = format!("{:.2}", bytes as f64 / scale as f64);
            let text = text.trim_end_matches('0').trim_end_matches('.');
            return format!("{text}{unit}");
        }
    }
    format!("{bytes}B")
}

/// `Util::MaskRanges`: `0-3,7,10-12`.
fn ranges(values: &[u64]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// `ResultParser::_PrintProfile` with `TimeSpan::GetText(4)`.
fn profile(out: &mut String, p: &Value, system: &Value) {
    out.push_str(&format!(
        "\nCommand Line: {}\n\n",
        p["command_line"].as_str().unwrap()
    ));
    let flags = u(&p["experiment_flags"]);
    if flags != 0 {
        out.push_str(&format!("Experiment Flags: 0x{flags:x} ({flags})\n\n"));
    }
    out.push_str("Input parameters:\n\n");
    if p["verbose"] == true {
        out.push_str("  using verbose mode\n");
    }
    for (i, ts) in p["timespans"].as_array().unwrap().iter().enumerate() {
        out.push_str(&format!("  timespan: {:3}\n  -------------\n", i + 1));
        timespan(out, ts, system);
        out.push('\n');
    }
}

fn timespan(out: &mut String, ts: &Value, system: &Value) {
    let mut line = |text: String| out.push_str(&format!("    {text}\n"));
    line(format!("duration: {}s", u(&ts["duration_s"])));
    line(format!("warm up time: {}s", u(&ts["warmup_s"])));
    line(format!("cool down time: {}s", u(&ts["cooldown_s"])));
    if ts["measure_latency"] == true {
        line("measuring latency".into());
    }
    if !ts["iops_interval_ms"].is_null() {
        line(format!(
            "gathering IOPS at intervals of {}ms",
            u(&ts["iops_interval_ms"])
        ));
    }
    line(format!("random seed: {}", u(&ts["seed"])));
    if !ts["thread_count"].is_null() {
        line(format!(
            "thread pool with {} threads",
            u(&ts["thread_count"])
        ));
        line(format!(
            "number of outstanding I/O operations per thread: {}",
            u(&ts["request_count"])
        ));
    }
    let ring = &ts["io_ring"];
    if !ring.is_null() {
        let batch = match ring["batch"].get("percent") {
            Some(p) => format!("{}%", u(p)),
            None => u(&ring["batch"]["count"]).to_string(),
        };
        let registered = if ring["registered_buffers"] == true {
            " with registered buffers"
        } else {
            ""
        };
        line(format!("using IoRing (batch size: {batch}){registered}"));
    }
    let affinity = &ts["affinity"];
    if affinity["mode"] == "disabled" {
        line("affinity disabled".into());
    } else {
        let order = &affinity["order"];
        let efficiency = match order["efficiency"].as_str().unwrap() {
            "p_first" => "P-cores first",
            "unordered" => "no P/E order",
            "e_first" => "E-cores first",
            "fill_p_first" => "fill P-cores first",
            _ => "fill E-cores first",
        };
        line(format!(
            "affinity assignment: {}, {}, {efficiency}",
            if order["core_aware"] == true {
                "core-aware"
            } else {
                "cpu order"
            },
            if order["span_groups"] == true {
                "span groups"
            } else {
                "fill groups"
            }
        ));
        let cpus: Vec<u64> = affinity["cpus"].as_array().unwrap().iter().map(u).collect();
        if !cpus.is_empty() {
            // DiskSpd keeps the CPUs as a mask: listed in CPU order, as ranges.
            line(format!("affinity (cpu): {}", ranges(&cpus)));
        }
    }
    if ts["buffer_separation"] == "system_default" {
        line("buffer separation: system default".into());
    } else {
        // Util::GetBufferAlignmentSize: (line / 8) page-directory entries of (page / 8) pages.
        let page = u(&system["page_size_bytes"]);
        let cache_line = system["caches"]
            .as_array()
            .and_then(|c| c.first())
            .map_or(64, |c| u(&c["line_bytes"]));
        line(format!(
            "buffer separation: thread optimized ({})",
            size(cache_line / 8 * (page / 8) * page)
        ));
    }
    if !ts["completion_depth"].is_null() {
        line(format!("completion depth: {}", u(&ts["completion_depth"])));
    }
    if ts["random_write_data"] == true {
        line("generating random data for each write IO".into());
        line("  WARNING: this increases the CPU cost of issuing writes and should only".into());
        line("           be compared to other results using the -Zr flag".into());
    }
    let per_file = ts["thread_count"].is_null();
    let per_thread_requests = per_file || ts["request_count"].is_null();
    for t in ts["targets"].as_array().unwrap() {
        target(out, t, per_file, per_thread_requests);
    }
}

/// `Target::GetText(4, …)`.
fn target(out: &mut String, t: &Value, per_file: bool, per_thread_requests: bool) {
    let path = t["path"].as_str().unwrap();
    match path.strip_prefix('*') {
        Some(n) => out.push_str(&format!("    path: template target '{n}'\n")),
        None => out.push_str(&format!("    path: '{path}'\n")),
    }
    let mut line = |text: &str| out.push_str(&format!("      {text}\n"));
    let (think, burst) = match &t["burst"] {
        Value::Null => (0, 0),
        b => (u(&b["think_ms"]), u(&b["size"])),
    };
    line(&format!("think time: {think}ms"));
    line(&format!("burst size: {burst}"));
    let cached = t["cache"] == "cached";
    line(if cached {
        "using software cache"
    } else {
        "software cache disabled"
    });
    line(match (t["write_through"] == true, cached) {
        (false, _) => "using hardware write cache, writethrough off",
        (true, true) => "hardware and software write caches disabled, writethrough on",
        (true, false) => "hardware write cache disabled, writethrough on",
    });
    if t["memory_mapped"] == true {
        let flush = match t["flush"].as_str() {
            Some("view_of_file") => ", flush mode: FlushViewOfFile",
            Some("non_volatile_memory") => ", flush mode: FlushNonVolatileMemory",
            Some("non_volatile_memory_no_drain") => {
                ", flush mode: FlushNonVolatileMemory with no drain"
            }
            _ => "",
        };
        line(&format!("memory mapped I/O enabled{flush}"));
    }
    let buffer = &t["write_buffer"];
    if buffer["kind"] == "zero" {
        line("zeroing write buffers");
    }
    if buffer["kind"] == "source" {
        line(&format!(
            "write buffer size: {}",
            size(u(&buffer["size_bytes"]))
        ));
        match buffer["file"].as_str() {
            Some(file) => line(&format!("write buffer source: '{file}'")),
            None => line("write buffer source: random fill"),
        }
    }
    let access = &t["access"];
    if access["parallel"] == true {
        line("using parallel async I/O");
    }
    match u(&t["write_ratio"]) {
        0 => line("performing read test"),
        100 => line("performing write test"),
        w => line(&format!(
            "performing mix test (read/write ratio: {}/{w})",
            100 - w
        )),
    }
    line(&format!("block size: {}", size(u(&t["block_size_bytes"]))));
    if access["kind"] == "random" {
        let align = size(u(&access["align_bytes"]));
        match u(&access["random_percent"]) {
            100 => line(&format!("using random I/O (alignment: {align})")),
            r => line(&format!(
                "using mixed random/sequential I/O ({r}% random) (alignment/stride: {align})"
            )),
        }
    } else {
        line(&format!(
            "using{} sequential I/O (stride: {})",
            if access["interlocked"] == true {
                " interlocked"
            } else {
                ""
            },
            size(u(&access["stride_bytes"]))
        ));
    }
    if per_thread_requests {
        line(&format!(
            "number of outstanding I/O operations per thread: {}",
            u(&t["requests"])
        ));
    } else {
        line(&format!(
            "relative IO weight in thread pool: {}",
            u(&t["weight"])
        ));
    }
    for (key, name) in [
        ("base_offset_bytes", "base file offset"),
        ("max_size_bytes", "max file size"),
        ("thread_stride_bytes", "thread stride size"),
    ] {
        if u(&t[key]) != 0 {
            line(&format!("{name}: {}", size(u(&t[key]))));
        }
    }
    for (key, name) in [
        ("sequential_scan", "FILE_FLAG_SEQUENTIAL_SCAN"),
        ("random_access", "FILE_FLAG_RANDOM_ACCESS"),
        ("temporary", "FILE_ATTRIBUTE_TEMPORARY"),
    ] {
        if t["hints"][key] == true {
            line(&format!("using {name} hint"));
        }
    }
    if per_file {
        line(&format!(
            "threads per file: {}",
            u(&t["threads_per_target"])
        ));
    }
    line(match t["io_priority"].as_str().unwrap() {
        "very_low" => "IO priority: very low",
        "low" => "IO priority: low",
        _ => "IO priority: normal",
    });
    match &t["throughput"] {
        Value::Null => {}
        rate if rate.get("ios_per_s").is_some() => line(&format!(
            "throughput rate-limited to {} IOPS",
            u(&rate["ios_per_s"])
        )),
        rate => line(&format!(
            "throughput rate-limited to {} B/ms",
            u(&rate["bytes_per_ms"])
        )),
    }
    let d = &t["distribution"];
    if !d.is_null() {
        line("IO Distribution:");
        let mut start = 0;
        let given = d["ranges"].as_array().unwrap();
        for (i, r) in given.iter().enumerate() {
            let (io, span) = (u(&r["io_percent"]), u(&r["span"]));
            if d["kind"] == "percent" {
                out.push_str(&format!(
                    "         {io:3}% of IO => [{start:2}% - {:3}%) of target\n",
                    start + span
                ));
            } else {
                let from = if start == 0 {
                    "     0   ".to_string()
                } else {
                    format!("{:>9}", size(start))
                };
                let to = if span == 0 && i + 1 == given.len() {
                    "      end".to_string()
                } else {
                    format!("{:>9}", size(start + span))
                };
                out.push_str(&format!("         {io:3}% of IO => [{from} - {to})\n"));
            }
            start += span;
        }
    }
}

/// `SystemInformation::GetText` and `ProcessorTopology::GetText`.
fn system(out: &mut String, s: &Value, start: &str) {
    out.push_str("System information:\n\n");
    let mut field = |label: &str, value: String| {
        out.push_str(&format!("  {:<22}{value}\n", format!("{label}:")))
    };
    field("computer name", s["computer_name"].as_str().unwrap().into());
    field(
        "processor name",
        s["processor_name"].as_str().unwrap().into(),
    );
    field("start time", start.into());
    let power = s["power_scheme"].as_str().unwrap();
    if !power.is_empty() {
        field("active power scheme", power.into());
    }
    field("page size", size(u(&s["page_size_bytes"])));
    out.push('\n');
    let cpus = s["cpus"].as_array().unwrap();
    let distinct = |key: &dyn Fn(&Value) -> (u64, u64)| {
        let mut keys: Vec<_> = cpus.iter().map(key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    };
    let cores = distinct(&|c| (u(&c["socket"]), u(&c["core"])));
    let nodes = distinct(&|c| (u(&c["node"]), 0));
    let sockets = distinct(&|c| (u(&c["socket"]), 0));
    let classes = distinct(&|c| (u(&c["efficiency_class"]), 0));
    let mut field = |label: &str, value: String| {
        out.push_str(&format!("  {:<22}{value}\n", format!("{label}:")))
    };
    field("cpu count", cpus.len().to_string());
    field("core count", cores.to_string());
    field("group count", "1".into());
    field("node count", nodes.to_string());
    field("socket count", sockets.to_string());
    field(
        "heterogeneous cores",
        if classes > 1 { "y" } else { "n" }.into(),
    );
    let caches = s["caches"].as_array().unwrap();
    if caches.is_empty() {
        return;
    }
    out.push_str("\n  cache information:\n\n");
    out.push_str("    Cache |   Size   | Line  | Assoc  | CPU\n");
    out.push_str("    -------------------------------------------------------\n");
    // Classify: one CPU, exactly one core's CPUs, or other; merge forward by geometry and class.
    let list = |c: &Value| -> Vec<u64> {
        let mut v: Vec<u64> = c["cpus"]
            .as_str()
            .unwrap()
            .split(',')
            .filter(|p| !p.is_empty())
            .flat_map(|p| {
                let (a, b) = p.split_once('-').unwrap_or((p, p));
                a.parse::<u64>().unwrap()..=b.parse::<u64>().unwrap()
            })
            .collect();
        v.sort_unstable();
        v
    };
    let class = |c: &Value| -> u8 {
        let mine = list(c);
        if mine.len() == 1 {
            return 1;
        }
        let first = cpus.iter().find(|x| u(&x["cpu"]) == mine[0]);
        let core: Option<Vec<u64>> = first.map(|f| {
            let mut v: Vec<u64> = cpus
                .iter()
                .filter(|x| x["socket"] == f["socket"] && x["core"] == f["core"])
                .map(|x| u(&x["cpu"]))
                .collect();
            v.sort_unstable();
            v
        });
        if core == Some(mine) { 2 } else { 0 }
    };
    let geometry = |c: &Value| {
        (
            u(&c["level"]),
            c["kind"].as_str().unwrap().to_string(),
            u(&c["size_bytes"]),
            u(&c["line_bytes"]),
            u(&c["ways"]),
        )
    };
    let mut emitted = vec![false; caches.len()];
    for (i, c) in caches.iter().enumerate() {
        if emitted[i] {
            continue;
        }
        emitted[i] = true;
        let mut cpus_text = c["cpus"].as_str().unwrap().to_string();
        let mut suffix = "";
        if class(c) != 0 {
            let mut all = list(c);
            let mut merged = false;
            for j in i + 1..caches.len() {
                if !emitted[j]
                    && class(&caches[j]) == class(c)
                    && geometry(&caches[j]) == geometry(c)
                {
                    all.extend(list(&caches[j]));
                    emitted[j] = true;
                    merged = true;
                }
            }
            if merged {
                cpus_text = ranges(&all);
                suffix = if class(c) == 2 {
                    " (per core)"
                } else {
                    " (per cpu)"
                };
            }
        }
        let kind = match c["kind"].as_str().unwrap() {
            "data" => "d",
            "instruction" => "i",
            _ => "",
        };
        out.push_str(&format!(
            "    {:<5} | {:>8} | {:>5} | {:>6} | {cpus_text}{suffix}\n",
            format!("L{}{kind}", u(&c["level"])),
            size(u(&c["size_bytes"])),
            size(u(&c["line_bytes"])),
            format!("{}-way", u(&c["ways"]))
        ));
    }
}

/// `ResultParser::ParseResults` for one measured timespan.
fn results(out: &mut String, p: &Value, ts: &Value, m: &Value, system: &Value) {
    let latency = ts["measure_latency"] == true;
    let stddev = !ts["iops_interval_ms"].is_null();
    out.push_str(&format!(
        "\nactual test time:\t{:.2}s\nthread count:\t\t{}\n",
        f(&m["duration_s"]),
        u(&m["thread_count"])
    ));
    if !ts["thread_count"].is_null() && !ts["request_count"].is_null() {
        out.push_str(&format!("request count:\t\t{}\n", u(&ts["request_count"])));
    }
    let effective: Vec<u64> = m["effective_affinity"]
        .as_array()
        .unwrap()
        .iter()
        .map(u)
        .collect();
    if ts["affinity"]["mode"] != "disabled" && !effective.is_empty() {
        out.push_str(&format!(
            "\neffective affinity (cpu): {}\n",
            ranges(&effective)
        ));
    }
    cpu_table(out, m, system);
    distributions(out, ts, m);
    for (title, dir) in [
        ("Total IO", "total"),
        ("Read IO", "read"),
        ("Write IO", "write"),
    ] {
        out.push_str(&format!("\n{title}\n"));
        section(out, m, dir, latency, stddev);
    }
    if !ts["io_ring"].is_null() {
        out.push_str("\n\nIoRing Statistics\nthread |  Submits/s \n--------------------\n");
        for t in m["threads"].as_array().unwrap() {
            out.push_str(&format!(
                "{:6} | {:11.2}\n",
                u(&t["thread"]),
                f(&t["submits_per_s"])
            ));
        }
        out.push_str(&format!(
            "--------------------\ntotal: | {:11.2}\n",
            f(&m["submits_per_s"])
        ));
    }
    if latency {
        let targets = m["targets"].as_array().unwrap();
        if targets.len() > 1 {
            for t in targets {
                out.push_str(&format!(
                    "\nLatency distribution: {}\n",
                    t["path"].as_str().unwrap()
                ));
                chart(out, t);
            }
        }
        out.push_str("\nTotal latency distribution:\n");
        chart(out, &m["totals"]);
    }
    if p["verbose_stats"] == true {
        out.push('\n');
        waits(out, m, latency || stddev);
    }
}

fn cpu_table(out: &mut String, m: &Value, system: &Value) {
    let cpus = system["cpus"].as_array().unwrap();
    let count = |key: &str| {
        let mut v: Vec<_> = cpus.iter().map(|c| u(&c[key])).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let mut cores: Vec<_> = cpus
        .iter()
        .map(|c| (u(&c["socket"]), u(&c["core"])))
        .collect();
    cores.sort_unstable();
    cores.dedup();
    let columns = [
        (count("socket") > 1, "Socket | ", "---------"),
        (count("node") > 1, "Node | ", "-------"),
        (cores.len() < cpus.len(), "Core | ", "-------"),
        (count("efficiency_class") > 1, "Class | ", "--------"),
    ];
    let mut header = String::from("\n");
    let mut rule = String::new();
    for (shown, name, dashes) in columns {
        if shown {
            header.push_str(name);
            rule.push_str(dashes);
        }
    }
    rule.push_str("----------------------------------------\n");
    out.push_str(&header);
    out.push_str("CPU |  Usage |  User  | Kernel |  Idle\n");
    out.push_str(&rule);
    let top = cpus
        .iter()
        .map(|c| u(&c["efficiency_class"]))
        .max()
        .unwrap_or(0);
    let percents = |c: &Value| {
        format!(
            "| {:6.2}%| {:6.2}%| {:6.2}%| {:6.2}%\n",
            f(&c["usage_percent"]),
            f(&c["user_percent"]),
            f(&c["kernel_percent"]),
            f(&c["idle_percent"])
        )
    };
    for c in m["cpu"].as_array().unwrap() {
        let topo = cpus.iter().find(|t| t["cpu"] == c["cpu"]).unwrap();
        let values = [
            format!("{:7}| ", u(&topo["socket"])),
            format!("{:5}| ", u(&topo["node"])),
            format!("{:5}| ", u(&topo["core"])),
            format!(
                "{:5}{}| ",
                u(&topo["efficiency_class"]),
                if u(&topo["efficiency_class"]) == top {
                    'P'
                } else {
                    ' '
                }
            ),
        ];
        for (i, (shown, _, _)) in columns.iter().enumerate() {
            if *shown {
                out.push_str(&values[i]);
            }
        }
        out.push_str(&format!("{:4}{}", u(&c["cpu"]), percents(c)));
    }
    out.push_str(&rule);
    for (shown, _, dashes) in columns {
        if shown {
            out.push_str(&" ".repeat(dashes.len()));
        }
    }
    out.push_str(&format!("avg.{}", percents(&m["cpu_average"])));
}

/// `_PrintEffectiveDistributions`, the thread list without DiskSpd's repeated thread before a gap.
fn distributions(out: &mut String, ts: &Value, m: &Value) {
    let list = m["distributions"].as_array().unwrap();
    if list.is_empty() {
        return;
    }
    out.push_str("\nEffective IO Distributions\n--------------------------\n");
    let mut groups: Vec<(&Value, Vec<&Value>)> = Vec::new();
    for d in list {
        match groups.iter_mut().find(|(r, _)| **r == d["ranges"]) {
            Some((_, members)) => members.push(d),
            None => groups.push((&d["ranges"], vec![d])),
        }
    }
    let key = |r: &Value| -> Vec<(f64, f64, u64, u64)> {
        let mut before = 0.0;
        r.as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let k = (before, f(&x["io_percent"]), u(&x["start"]), u(&x["length"]));
                before += f(&x["io_percent"]);
                k
            })
            .collect()
    };
    groups.sort_by(|a, b| key(a.0).partial_cmp(&key(b.0)).unwrap());
    for (r, members) in groups {
        // `map<string, set<UINT32>>`: one line per path, its threads in order.
        let mut paths: std::collections::BTreeMap<&str, std::collections::BTreeSet<u64>> =
            Default::default();
        for d in &members {
            paths
                .entry(d["path"].as_str().unwrap())
                .or_default()
                .extend(d["threads"].as_array().unwrap().iter().map(u));
        }
        for (path, threads) in &paths {
            // The run-writing loop of `_PrintEffectiveDistributions`, step for step.
            let mut text = String::new();
            let (mut last, mut run) = (u64::MAX, 0);
            for &th in threads {
                if last != u64::MAX {
                    if last + 1 == th {
                        last = th;
                        run += 1;
                        continue;
                    }
                    if run > 1 {
                        text += " -";
                    }
                    text += &format!(" {last}");
                }
                text += &format!(" {th}");
                last = th;
                run = 0;
            }
            if run > 1 {
                text += " -";
            }
            if run > 0 {
                text += &format!(" {last}");
            }
            out.push_str(&format!("target: {path} [thread:{text}]\n"));
        }
        let spec = ts["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["path"] == members[0]["path"])
            .unwrap();
        let base = u(&spec["base_offset_bytes"]);
        let kept: Vec<&Value> = r
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| f(&x["io_percent"]) > 0.0)
            .collect();
        let given = spec["distribution"]["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| u(&x["io_percent"]) > 0)
            .count();
        let trimmed = spec["distribution"]["kind"] == "absolute" && kept.len() < given;
        for x in kept {
            let io = f(&x["io_percent"]);
            let share = if trimmed {
                format!("    {io:.1}%")
            } else {
                format!("   {:3}%", io.round() as u64)
            };
            let start = base + u(&x["start"]);
            let from = if start == 0 {
                "     0   ".to_string()
            } else {
                format!("{:>9}", size(start))
            };
            out.push_str(&format!(
                "{share} of IO => [{from} - {:>9})\n",
                size(start + u(&x["length"]))
            ));
        }
    }
}

/// `_PrintSection`.
fn section(out: &mut String, m: &Value, dir: &str, latency: bool, stddev: bool) {
    out.push_str(&format!(
        "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s {}{}{}|  file\n",
        if latency { "|  AvgLat  " } else { "" },
        if stddev { "| IopsStdDev " } else { "" },
        if latency { "| LatStdDev " } else { "" }
    ));
    let rule = format!(
        "------------------------------------------------------------------{}{}{}------------\n",
        if latency { "-----------" } else { "" },
        if stddev { "-------------" } else { "" },
        if latency { "------------" } else { "" }
    );
    let columns = |d: &Value| {
        let mut s = format!(
            "{:15} | {:12} | {:10.2} | {:10.2}",
            u(&d["bytes"]),
            u(&d["ios"]),
            f(&d["bytes_per_s"]) / 1024.0 / 1024.0,
            f(&d["ios_per_s"])
        );
        if latency {
            s += &format!(" | {:8.3}", f(&d["latency"]["mean_ns"]) / 1e6);
        }
        if stddev {
            s += &format!(" | {:10.2}", f(&d["ios_per_s_stddev"]));
        }
        if latency {
            s += &if d["latency"].is_null() {
                " |       N/A".to_string()
            } else {
                format!(" |  {:8.3}", f(&d["latency"]["stddev_ns"]) / 1e6)
            };
        }
        s
    };
    out.push_str(&rule);
    for t in m["threads"].as_array().unwrap() {
        for target in t["targets"].as_array().unwrap() {
            out.push_str(&format!(
                "{:6} | {} | {} ({})\n",
                u(&t["thread"]),
                columns(&target[dir]),
                target["path"].as_str().unwrap(),
                size(u(&target["size_bytes"]))
            ));
        }
    }
    out.push_str(&rule);
    out.push_str(&format!("total:   {}\n", columns(&m["totals"][dir])));
}

/// `_PrintLatencyChart`.
fn chart(out: &mut String, d: &Value) {
    out.push_str("  %-ile |  Read (ms) | Write (ms) | Total (ms)\n");
    out.push_str("----------------------------------------------\n");
    let at = |l: &Value, p: Option<f64>| -> f64 {
        let ns = match p {
            None => 0.0,
            Some(p) => l["percentiles"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| (f(&x["percentile"]) - p).abs() < 1e-9)
                .map_or(f64::NAN, |x| f(&x["value_ns"])),
        };
        ns / 1e6
    };
    let rows: [(&str, Option<f64>); 15] = [
        ("min", None),
        ("25th", Some(25.0)),
        ("50th", Some(50.0)),
        ("75th", Some(75.0)),
        ("90th", Some(90.0)),
        ("95th", Some(95.0)),
        ("99th", Some(99.0)),
        ("3-nines", Some(99.9)),
        ("4-nines", Some(99.99)),
        ("5-nines", Some(99.999)),
        ("6-nines", Some(99.9999)),
        ("7-nines", Some(99.99999)),
        ("8-nines", Some(99.999999)),
        ("9-nines", Some(99.9999999)),
        ("max", None),
    ];
    for (label, p) in rows {
        let value = |l: &Value| -> f64 {
            match (label, p) {
                ("min", _) => f(&l["min_ns"]) / 1e6,
                ("max", _) => f(&l["max_ns"]) / 1e6,
                _ => at(l, p),
            }
        };
        let cell = |l: &Value| {
            if l.is_null() {
                "N/A".to_string()
            } else {
                format!("{:.3}", value(l))
            }
        };
        let total = &d["total"]["latency"];
        out.push_str(&format!(
            "{label:>7} | {:>10} | {:>10} | {:10.3}\n",
            cell(&d["read"]["latency"]),
            cell(&d["write"]["latency"]),
            if total.is_null() { 0.0 } else { value(total) }
        ));
    }
}

/// `_PrintWaitStats`.
fn waits(out: &mut String, m: &Value, lookaside: bool) {
    let threads = m["threads"].as_array().unwrap();
    let cells = |h: &Value| {
        h.as_array()
            .unwrap()
            .iter()
            .map(|x| u(x).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let throttled =
        |t: &Value| u(&t["waits"]["throttle_waits"]) + u(&t["waits"]["throttle_sleeps"]) > 0;
    let any = threads.iter().any(throttled);
    out.push_str("Wait Statistics - Completion Wait\n");
    if any {
        out.push_str(
            "thread |         wait | throttle wait  -  sleep | 0 - 7+ complete per wait\n",
        );
        out.push_str(&format!("{}\n", "-".repeat(74)));
    } else {
        out.push_str("thread |         wait | 0 - 7+ complete per wait\n");
        out.push_str(&format!("{}\n", "-".repeat(48)));
    }
    for t in threads {
        let w = &t["waits"];
        let (n, waits, c) = (
            u(&t["thread"]),
            u(&w["waits"]),
            cells(&w["completions_per_wait"]),
        );
        out.push_str(&if !any {
            format!("{n:6} | {waits:12} | {c}\n")
        } else if throttled(t) {
            format!(
                "{n:6} | {waits:12} | {:13}  - {:6} | {c}\n",
                u(&w["throttle_waits"]),
                u(&w["throttle_sleeps"])
            )
        } else {
            format!("{n:6} | {waits:12} |               ---       | {c}\n")
        });
    }
    if lookaside {
        out.push_str("\nWait Statistics - Lookaside\n");
        out.push_str("thread |    lookaside | 0 - 7+ complete per lookaside\n");
        out.push_str(&format!("{}\n", "-".repeat(53)));
        for t in threads {
            out.push_str(&format!(
                "{:6} | {:12} | {}\n",
                u(&t["thread"]),
                u(&t["waits"]["lookasides"]),
                cells(&t["waits"]["completions_per_lookaside"])
            ));
        }
    }
}

/// The whole of DiskSpd's report for `report` (iospd's JSON).
fn diskspd_text(report: &Value) -> String {
    let p = &report["profile"];
    let system_info = &report["system"];
    let timespans = report["timespans"].as_array().unwrap();
    let mut out = String::new();
    profile(&mut out, p, system_info);
    let start = timespans[0]["start_time_utc"].as_str().unwrap_or("");
    system(&mut out, system_info, start);
    for (i, ts) in timespans.iter().enumerate() {
        out.push_str(&format!("\nResults for timespan {}:\n{STARS}\n", i + 1));
        let spec = &p["timespans"][i];
        match &ts["measured"] {
            Value::Null => out.push_str(
                "The test was interrupted before the measurements began. No results are displayed.\n",
            ),
            m => results(&mut out, p, spec, m, system_info),
        }
    }
    if timespans.len() > 1 {
        let t = &report["totals"];
        out.push_str(&format!("\n\nTotals:\n{STARS}\n\n"));
        out.push_str("type   |       bytes     |     I/Os     |    MiB/s   |  I/O per s\n");
        let rule = "-".repeat(79);
        let row = |name: &str, d: &Value| {
            format!(
                "{name:<6} | {:15} | {:12} | {:10.2} | {:10.2}\n",
                u(&d["bytes"]),
                u(&d["ios"]),
                f(&d["bytes_per_s"]) / 1024.0 / 1024.0,
                f(&d["ios_per_s"])
            )
        };
        out.push_str(&format!("{rule}\n"));
        out.push_str(&row("write", &t["write"]));
        out.push_str(&row("read", &t["read"]));
        out.push_str(&format!("{rule}\n"));
        out.push_str(&row("total", &t["total"]));
        out.push_str(&format!(
            "\ntotal test time:\t{:.2}s\n",
            f(&t["duration_s"])
        ));
    }
    out
}

/// Runs `args` (with `<dir>` for the temporary directory), and compares standard output before
/// `Beyond DiskSpd:` with DiskSpd's layout of the same run's JSON.
fn same_as_diskspd(args: &[&str]) {
    let dir = TempDir::new();
    let json = dir.arg("report.json");
    let mut argv: Vec<String> = args
        .iter()
        .map(|a| a.replace("<dir>", &dir.path().display().to_string()))
        .collect();
    argv.push(format!("--output={json}"));
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let output = run_iospd(&argv);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));

    let text = stdout(&output);
    // -v progress lines come first, as DiskSpd prints them while it runs.
    let text = &text[text.find("\nCommand Line: ").expect("the report")..];
    let ours = &text[..text
        .find("\nBeyond DiskSpd:\n")
        .unwrap_or_else(|| panic!("{args:?}: no 'Beyond DiskSpd:' heading in\n{text}"))];
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let theirs = diskspd_text(&report);
    if ours != theirs {
        let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        panic!(
            "{args:?}: line {} differs from DiskSpd's layout\n  iospd:   {:?}\n  DiskSpd: {:?}\n\n{ours}",
            at + 1,
            a.get(at),
            b.get(at)
        );
    }
}

#[test]
fn the_text_before_iospds_own_section_is_diskspds() {
    let lines: &[&[&str]] = &[
        &["-c2M", "-d1", "-W0", "-b4K", "-o2", "-r", "<dir>/a.dat"],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-b4K",
            "-t2",
            "-o4",
            "-r",
            "-w30",
            "-L",
            "-D200",
            "<dir>/a.dat",
            "<dir>/b.dat",
        ],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-F2",
            "-O3",
            "-b8K",
            "-si",
            "-w100",
            "-Sh",
            "-n",
            "<dir>/a.dat",
            "<dir>/b.dat",
        ],
        &["-c2M", "-d1", "-W0", "-F2", "-b8K", "-s", "<dir>/a.dat"],
        // One path given twice: its threads (0 and 2) on one line of the distributions.
        &[
            "-c1M",
            "-d1",
            "-W0",
            "-b4K",
            "-r",
            "-rdpct10/10:90/90",
            "<dir>/a.dat",
            "<dir>/b.dat",
            "<dir>/a.dat",
        ],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-b4K",
            "-r",
            "-rdpct10/10:0/10:90/80",
            "-Z64K",
            "-v",
            "-u",
            "-L",
            "-t3",
            "<dir>/a.dat",
        ],
        &[
            "-c1M",
            "-d1",
            "-W0",
            "-b4K",
            "-r",
            "-rdabs10/512K:20/256K:30/1G",
            "-Zr",
            "-z5",
            "-vs",
            "-L",
            "<dir>/a.dat",
        ],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-b4K",
            "-T8K",
            "-B4K",
            "-f1M",
            "-g500i",
            "-i4",
            "-j10",
            "-ac",
            "-t2",
            "<dir>/a.dat",
        ],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-b4K",
            "-r",
            "-Sm",
            "-Nv",
            "-w50",
            "-Z",
            "<dir>/a.dat",
        ],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-b4K",
            "-a0,1",
            "-t2",
            "-o2",
            "-Su",
            "-I1",
            "-rs30",
            "-bsn",
            "-fr",
            "-g2000",
            "<dir>/a.dat",
        ],
        &[
            "-c2M",
            "-d1",
            "-W0",
            "-C1",
            "-b64K",
            "-w100",
            "-Sw",
            "-fs",
            "<dir>/a.dat",
        ],
    ];
    for line in lines {
        same_as_diskspd(line);
    }
}

/// Two timespans from an XML profile: DiskSpd's Totals block after the last one.
#[test]
fn several_timespans_end_with_diskspds_totals() {
    let dir = TempDir::new();
    let output = run_iospd(&[
        "-Rpxml",
        "-c1M",
        "-d1",
        "-W0",
        "-b4K",
        "-r",
        &dir.arg("a.dat"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let xml = stdout(&output);
    let (open, close) = (
        xml.find("<TimeSpan>").unwrap(),
        xml.find("</TimeSpan>").unwrap() + "</TimeSpan>".len(),
    );
    let twice = format!("{}{}{}", &xml[..close], &xml[open..close], &xml[close..]);
    let profile = dir.arg("two.xml");
    std::fs::write(&profile, twice).unwrap();
    same_as_diskspd(&[&format!("-X{profile}"), "-Rtext"]);
}
