//! Profiles: `-Rp` for many command lines (every seed command line among them), the XML round trip
//! (`-Rpxml` → `-X` gives the same profile), XML profile errors, and XML profiles that run several
//! timespans.

use crate::util;
use std::ffi::OsString;

use crate::util::{TempDir, assert_golden, golden_render, golden_report, validate_xml};
use iospd::cli::{self, Command};
use iospd::profile::{self, Action, Profile, ResultFormat, xml};
use iospd::report::profile_document;

/// Command lines whose resolved profile is compared with tests/golden/profiles.txt. The seed
/// articles' DiskSpd command lines come first, exactly as published (Windows paths are ordinary
/// file names on Linux; `#5`, the en dash and `-LE:io` are refused with the reason).
const LINES: &[&str] = &[
    "-t2 -o32 -b4k -r4k -w0 -d120 -Sh -D -L -c5G /mnt/ClusterStorage/test01/targetfile/IO.dat",
    "-b256K -d3600 -o32 -h -L -t1 -W -g31457 -w0 /mnt/f/data2.dat",
    "-c50G -d300 \u{2013}t16 -o32 -b4k -r -w30 -Sh -LE:io",
    "-t4 -o32 -b4k -r4k -w0 -Sh -D -L C:\\ClusterStorage\\test01\\targetfile\\IO.dat",
    "-w0 -r -b8k  -d10 -o32 #5",
    "-w0 -r -b8k -Su -d10 -o32 #5",
    "-w0 -r -b8k -Su -d10 -o32 /mnt/f/testfile4.dat",
    "-w0 -r -b8k -d10 -o32 /mnt/f/testfile4.dat",
    "-w100 -Zr #5",
    "-w100 -r -b8k -Su -Zr -d10 -o32 #5",
    "-w100 -r -b8k -Su -Zr -d10 -o32 /mnt/f/testfile4.dat",
    "-w100 -r -b8k -Zr -d10 -o32 #5",
    "-c50G -d300 -t16 -o32 -b4k -r -w30 -Sh -L E:io",
    "t.dat",
    "-b4K -o32 -t2 -r -w30 -Sh -L -c5G /mnt/t.dat",
    "-c8192K -d1 testfile.dat",
    "-b4K -t2 -r -o32 -d10 -Sh testfile.dat",
    "-c1G -b4K -t2 -d10 -a0,1 testfile1.dat testfile2.dat",
    "-b8K -d20 -h -L -o2 -t4 -r -w30 -c50M io.dat",
    "-d5 -c2000M -b1M -Sw -Su -t1 -w0 -s1b io-perf.tmp",
    "-d5 -c2000M -b16K -Sw -Su -t8 -w100 -r1b io-perf.tmp",
    "-b64K -si -t4 -o8 seq.dat",
    "-b64K -s128K -T1G -t4 seq.dat",
    "-b4K -p -o8 par.dat",
    "-F4 -o2 a.dat b.dat c.dat",
    "-F4 -O16 a.dat b.dat",
    "-b4K -rs30 -r8K mixed.dat",
    "-b4K -r -rdpct90/10:0/10 hot.dat",
    "-b4K -r -rdabs50/1G:25/1G:0/10G hot.dat",
    "-b4K -r -w20 -g5000i -L paced.dat",
    "-b4K -r -g4096 paced.dat",
    "-b4K -r -i50 -j10 burst.dat",
    "-b4K -r -i4 -j250us short-think.dat",
    "-b4K -r -w50 --continue-on-error=write:EIO,ENOSPC keep-going.dat",
    "-b4K -s --backwards down.dat",
    "-b4K -r -I1 idle.dat",
    "-b4K -r --ioprio=rt:2 realtime.dat",
    "-b4K -s --zones=8K:16K:240K zoned.dat",
    "-b4K -r -d60 --steady-state=iops_slope:0.5%:20s:5s steady.dat",
    "-b4K -r -frs hinted.dat",
    "-b4K -r -ft temp.dat",
    "-b2M -l large.dat",
    "-b4K -r -Sm -w50 -Nv mapped.dat",
    "-b4K -r -Smw -w100 mapped.dat",
    "-b4K -r -u -o64 ring.dat",
    "-b4K -r -un16 -o64 ring.dat",
    "-b4K -r -oc4 -o32 depth.dat",
    "-b4K -r -ac -t4 cores.dat",
    "-b4K -r -aP -a0,1 classes.dat",
    "-b4K -r -n noaffinity.dat",
    "-b4K -r -eDISK_IO -eMEMORY_PAGE_FAULTS -eNETWORK counters.dat",
    "-b4K -r -ysStart -yfDone -ypStop events.dat",
    "-b4K -r -vs -v -P1000 verbose.dat",
    "-b4K -r -:1 experiment.dat",
    "-b4K -r -bsn separation.dat",
    "-b4K -r -z -z1 twice.dat",
    "-b4K -r -Z -w50 zeros.dat",
    "-b4K -r -Z1M -w50 source.dat",
    "-b4K -r -Z1M,entropy.bin -w50 source.dat",
    "-b4K -r -B1G:10G base.dat",
    "-b4K -r -B512M -f2G bounded.dat",
    "-b4K -r -D500 -L intervals.dat",
    "-b4K -r -C10 -W30 -d60 phases.dat",
    "--engine=psync --spin=0 -b4K -r linux.dat",
    "-b8K -r -w50 --compress=2:8K --dedupe=2:8K:4 --distribution=zipf:1.1 --fdatasync=8 data.dat",
    "-b4K -r -w30 --trim=10 --fsync=16 --distribution=normal:10 trim.dat",
    "-b4K -r -w50 --compress=3 --dedupe=3:4K:5%:flipflop --distribution=pareto:0.2 flip.dat",
];

/// The profile a command line resolves to, or the error iospd prints for it.
pub(crate) fn resolve(line: &str) -> Result<profile::Resolved, String> {
    let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
    let raw = match cli::parse(&args).map_err(|e| e.to_string())? {
        Command::Run(raw) => raw,
        _ => return Err("not a run".into()),
    };
    profile::resolve(&raw, format!("iospd {line}")).map_err(|e| e.to_string())
}

#[test]
fn profile_echo_for_many_command_lines() {
    assert!(LINES.len() >= 40);
    let mut golden = String::new();
    // A fixed machine: 4KiB pages and no cache facts (64-byte lines assumed), for a stable file.
    let system = iospd::system::SystemInfo {
        page_size: 4096,
        ..Default::default()
    };
    for line in LINES {
        golden.push_str(&format!("=== iospd -Rp {line}\n"));
        match resolve(line) {
            Ok(resolved) => golden.push_str(&profile_document(
                &resolved.profile,
                &system,
                ResultFormat::Text,
            )),
            Err(message) => golden.push_str(&format!("error: {message}\n")),
        }
    }
    assert_golden("profiles.txt", &golden);
}

/// Fields an XML profile does not carry (they come from the command line).
fn normalized(mut profile: Profile) -> Profile {
    profile.command_line.clear();
    profile.action = Action::Run;
    profile.engine = iospd::engine::EngineKind::IoUring;
    profile.spin = profile::Spin::Auto;
    profile.outputs.clear();
    profile.percentiles.clear();
    profile.events = Default::default();
    profile
}

#[test]
fn xml_profiles_round_trip_and_validate() {
    let mut documents = Vec::new();
    let mut names = Vec::new();
    for (i, line) in LINES.iter().enumerate() {
        let Ok(resolved) = resolve(line) else {
            continue;
        };
        let written = xml::write_profile(&resolved.profile);
        let read =
            xml::parse_profile(&written).unwrap_or_else(|e| panic!("{line}: {e}\n{written}"));
        assert_eq!(
            normalized(read.clone()),
            normalized(resolved.profile.clone()),
            "{line}"
        );
        assert_eq!(
            xml::write_profile(&read),
            written,
            "{line}: writing again gives the same document"
        );
        names.push(format!("profile{i}"));
        documents.push(written);
    }
    assert!(documents.len() >= 40);
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(documents.iter().map(String::as_str))
        .collect();
    validate_xml(&pairs, "xml_profiles_round_trip_and_validate");
}

#[test]
fn rpxml_output_runs_again_with_x() {
    let dir = TempDir::new();
    let first = util::iospd()
        .args([
            "-Rpxml", "-b8K", "-r", "-w30", "-t2", "-o4", "-L", "-c1M", "t.dat",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(first.status.success());
    std::fs::write(dir.join("p.xml"), &first.stdout).unwrap();
    let second = util::iospd()
        .args(["-Xp.xml", "-Rpxml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(second.status.success(), "{}", util::stderr(&second));
    assert_eq!(util::stdout(&first), util::stdout(&second));
    assert!(!dir.join("t.dat").exists(), "-Rp creates nothing");
}

fn xml_error(text: &str) -> String {
    xml::parse_profile(text)
        .expect_err("should be refused")
        .to_string()
}

const MINIMAL: &str = "<Profile>\n  <TimeSpans>\n    <TimeSpan>\n      <Targets>\n        <Target>\n          <Path>t.dat</Path>\n        </Target>\n      </Targets>\n    </TimeSpan>\n  </TimeSpans>\n</Profile>\n";

#[test]
fn xml_profile_errors_name_the_element_and_line() {
    let minimal = xml::parse_profile(MINIMAL).unwrap();
    assert_eq!(
        minimal.timespans[0].targets[0].block_size, 65536,
        "DiskSpd defaults fill the gaps"
    );
    assert_eq!(minimal.timespans[0].duration_s, 10);
    let cases: &[(&str, &str)] = &[
        (
            &MINIMAL.replace(
                "<Path>t.dat</Path>",
                "<Path>t.dat</Path>\n          <Bogus>1</Bogus>",
            ),
            "line 7, <Bogus>",
        ),
        (
            &MINIMAL.replace(
                "<Path>t.dat</Path>",
                "<Path>t.dat</Path>\n          <BurstSize>4</BurstSize>\n          <ThinkTime unit=\"s\">1</ThinkTime>",
            ),
            "<ThinkTime>: unit=\"s\" is not ms or us",
        ),
        (
            &MINIMAL.replace(
                "<Path>t.dat</Path>",
                "<Path>t.dat</Path>\n          <BlockSize>x</BlockSize>",
            ),
            "<BlockSize>: 'x' is not a whole number",
        ),
        (
            &MINIMAL.replace(
                "<Path>t.dat</Path>",
                "<Path>t.dat</Path>\n          <WriteRatio>101</WriteRatio>",
            ),
            "out of range 0..=100",
        ),
        (
            &MINIMAL.replace(
                "<Path>t.dat</Path>",
                "<Path>t.dat</Path>\n          <Path>u.dat</Path>",
            ),
            "appears twice",
        ),
        (
            &MINIMAL.replace(
                "<Path>t.dat</Path>",
                "<Path>t.dat</Path>\n          <DisableLocalCache>true</DisableLocalCache>",
            ),
            "no Linux equivalent",
        ),
        (
            &MINIMAL.replace(
                "<Targets>",
                "<CompletionRoutines>true</CompletionRoutines>\n      <Targets>",
            ),
            "Windows mechanism",
        ),
        (
            &MINIMAL.replace("<Target>\n", "<Target>\n          <Random>0</Random>\n"),
            "greater than 0",
        ),
        (
            &MINIMAL.replace("<Profile>", "<Profile>\n  <ResultFormat>csv</ResultFormat>"),
            "not text, xml or json",
        ),
        (
            &MINIMAL
                .replace("<TimeSpans>", "<Timespans>")
                .replace("</TimeSpans>", "</Timespans>"),
            "<Timespans>",
        ),
        (
            "<Profile>\n  <TimeSpans/>\n</Profile>",
            "needs at least one <TimeSpan>",
        ),
        ("<Other/>", "must be <Profile>"),
        ("<Profile><TimeSpans>", "not closed"),
        (
            "<?xml version=\"1.0\"?>\n<!DOCTYPE Profile [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;\">]>\n<Profile>&b;</Profile>",
            "line 2: document type declarations",
        ),
        (&MINIMAL.replace("t.dat", "&xxe;"), "unknown entity &xxe;"),
    ];
    for (text, fragment) in cases {
        let message = xml_error(text);
        assert!(
            message.contains(fragment),
            "expected {fragment:?} in {message:?}"
        );
    }
}

#[test]
fn x_combines_only_with_diskspds_composable_options() {
    let dir = TempDir::new();
    std::fs::write(dir.join("p.xml"), MINIMAL.replace("t.dat", "*1")).unwrap();
    let run = |args: &[&str]| {
        util::iospd()
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let ok = run(&[
        "-Xp.xml", "-d3", "-W0", "-C1", "-z7", "-v", "-Rptext", "real.dat",
    ]);
    assert!(ok.status.success(), "{}", util::stderr(&ok));
    let text = util::stdout(&ok);
    for needle in [
        "duration: 3s",
        "warm up time: 0s",
        "cool down time: 1s",
        "random seed: 7",
        "path: 'real.dat'",
    ] {
        assert!(text.contains(needle), "missing {needle} in\n{text}");
    }
    let bad = run(&["-Xp.xml", "-o4", "real.dat"]);
    assert_eq!(bad.status.code(), Some(3));
    assert!(util::stderr(&bad).contains("'-o4' cannot be combined with -X"));
    let missing = run(&["-Xp.xml"]);
    assert_eq!(missing.status.code(), Some(3));
    assert!(util::stderr(&missing).contains("template target '*1' was not substituted"));
    let extra = run(&["-Xp.xml", "a.dat", "b.dat"]);
    assert_eq!(extra.status.code(), Some(3));
    assert!(util::stderr(&extra).contains("'b.dat' on the command line fills no template"));
    let absent = run(&["-Xnothere.xml"]);
    assert_eq!(absent.status.code(), Some(3));
    assert!(util::stderr(&absent).contains("cannot read the XML profile 'nothere.xml'"));
}

#[test]
fn several_timespans_run_in_order_with_totals() {
    let dir = TempDir::new();
    let profile = format!(
        "<Profile>\n  <PrecreateFiles>UseMaxSize</PrecreateFiles>\n  <TimeSpans>\n{}{}  </TimeSpans>\n</Profile>\n",
        timespan_xml(1, 4096, 0, "<Random>4096</Random>", "*1", 1 << 20),
        timespan_xml(
            1,
            65536,
            100,
            "<StrideSize>65536</StrideSize>",
            "*1",
            2 << 20
        ),
    );
    std::fs::write(dir.join("two.xml"), profile).unwrap();
    let args = [format!("-X{}", dir.arg("two.xml")), dir.arg("t.dat")];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = golden_report(&args, &dir);
    let text = golden_render(&report, ResultFormat::Text, &dir);
    assert!(
        text.contains("Results for timespan 2:")
            && text.contains("Totals:")
            && text.contains("total test time:\t2.00s")
    );
    assert_golden("two_timespans.txt", &text);
    assert_eq!(
        std::fs::metadata(dir.join("t.dat")).unwrap().len(),
        2 << 20,
        "precreated at the largest size"
    );
    let xml_results = golden_render(&report, ResultFormat::Xml, &dir);
    assert_eq!(xml_results.matches("<TestTimeSeconds>").count(), 2);
    validate_xml(
        &[("two", &xml_results)],
        "several_timespans_run_in_order_with_totals",
    );
    let json = golden_render(&report, ResultFormat::Json, &dir);
    util::validate_json(&json);
}

fn timespan_xml(
    duration: u32,
    block: u64,
    writes: u32,
    access: &str,
    path: &str,
    size: u64,
) -> String {
    format!(
        "    <TimeSpan>\n      <Duration>{duration}</Duration>\n      <Warmup>0</Warmup>\n      <Targets>\n        <Target>\n          <Path>{path}</Path>\n          <BlockSize>{block}</BlockSize>\n          <FileSize>{size}</FileSize>\n          {access}\n          <WriteRatio>{writes}</WriteRatio>\n        </Target>\n      </Targets>\n    </TimeSpan>\n"
    )
}

#[test]
fn a_profile_of_ten_thousand_targets_is_read_whole_with_its_lines() {
    let targets: String = (0..10_000)
        .map(|i| format!("<Target><Path>t{i}.dat</Path></Target>\n"))
        .collect();
    let text = format!(
        "<Profile><TimeSpans><TimeSpan><ThreadCount>4</ThreadCount><Targets>\n{targets}</Targets></TimeSpan></TimeSpans></Profile>"
    );
    let profile = xml::parse_profile(&text).unwrap();
    assert_eq!(profile.timespans[0].targets.len(), 10_000);
    // Line numbers are still right at the end of a long profile.
    let broken = text.replace("<Path>t9999.dat</Path>", "<Path>t9999.dat</Path><Bogus/>");
    let error = xml_error(&broken);
    assert!(error.contains("line 10001"), "{error}");
}
