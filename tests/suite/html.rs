//! The HTML report opened in a real browser: headless Chromium renders it offline, logs no console
//! message (the page's Content-Security-Policy turns any fetch or script into one), and a
//! screenshot is saved for people to look at.

use std::path::Path;

use crate::util::tools::{self, Tools};
use crate::util::{TempDir, iospd, stderr, stdout};

/// Opens `page` in headless Chromium, saves a screenshot to `shot`, and returns the console
/// messages it logged.
fn open_in_chromium(tools: &Tools, page: &Path, shot: &Path, profile: &Path) -> Vec<String> {
    let output = tools
        .command("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,4200",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_html_report_renders_offline_without_console_errors() {
    let test = "the_html_report_renders_offline_without_console_errors";
    let Some(tools) = tools::need(test, &["chromium"]) else {
        return;
    };
    let dir = TempDir::new();
    let page = dir.join("run.html");
    let json = dir.join("run.json");
    let output = iospd()
        .args([
            "-c32M", "-d4", "-W0", "-b4K", "-o4", "-t2", "-r", "-w30", "-L", "-D500",
        ])
        .arg(format!("--output={}", page.display()))
        .arg(format!("--output={}", json.display()))
        .arg(dir.join("t.dat"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let html = std::fs::read_to_string(&page).unwrap();
    // Five charts; one per device and direction the device clock timed, and one per device
    // whose intervals it timed.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let devices = report["timespans"][0]["measured"]["reality"]["devices"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let timed = devices
        .iter()
        .flat_map(|d| d["time"].as_array().into_iter().flatten())
        .filter(|t| t.get("clock").is_some())
        .count();
    let timed_intervals = devices
        .iter()
        .filter(|d| {
            d["intervals"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|i| i.get("time").is_some())
        })
        .count();
    assert_eq!(html.matches("<svg").count(), 5 + timed + timed_intervals);
    assert!(html.contains("Input parameters") && html.contains("Latency by percentile"));

    // The detector works: a page that breaks the policy is caught.
    let bad = dir.join("bad.html");
    std::fs::write(
        &bad,
        html.replacen("<body>", "<body><img src=\"https://example.com/x.png\">", 1),
    )
    .unwrap();
    let messages = open_in_chromium(
        &tools,
        &bad,
        &dir.join("bad.png"),
        &dir.join("chromium-bad"),
    );
    assert!(
        !messages.is_empty(),
        "a blocked fetch must show up as a console message"
    );

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("iospd-html-report.png");
    let messages = open_in_chromium(&tools, &page, &shot, &dir.join("chromium"));
    assert!(messages.is_empty(), "console messages: {messages:#?}");
    let size = std::fs::metadata(&shot).map_or(0, |m| m.len());
    assert!(
        size > 20_000,
        "screenshot of the page: {} ({size} bytes)",
        shot.display()
    );
    eprintln!("screenshot: {}", shot.display());

    // `iospd report` renders the same page from the JSON result.
    let again = dir.join("again.html");
    let report = iospd()
        .args(["report", json.to_str().unwrap()])
        .arg(format!("--output={}", again.display()))
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    assert!(stdout(&report).is_empty());
    assert_eq!(std::fs::read_to_string(&again).unwrap(), html);
}
