//! DiskSpd parity, case by case: command lines and XML profiles from DiskSpd's own parser tests
//! (UnitTests/CmdLineParser and UnitTests/XmlProfileParser in microsoft/diskspd), each accepted or
//! refused as DiskSpd does and resolved to the same values. Windows-only mechanisms (processor
//! groups other than 0, `-Sr`, `-x`) are refused with a hint instead; the README lists those.

use crate::profiles::resolve;
use crate::util::TempDir;
use iospd::profile::{Access, DistributionKind, Target};

fn accepted(line: &str) -> Target {
    match resolve(line) {
        Ok(r) => r.profile.timespans[0].targets[0].clone(),
        Err(e) => panic!("DiskSpd accepts `{line}`; iospd said: {e}"),
    }
}

fn refused(line: &str) -> String {
    match resolve(line) {
        Ok(_) => panic!("DiskSpd refuses `{line}`; iospd accepted it"),
        Err(e) => e,
    }
}

const T: &str = "testfile.dat";

#[test]
fn affinity_base_and_cache_cases() {
    for ok in [
        "-a",
        "-ag",
        "-a1,4,6",
        "-ag0,1,4,6",
        "-n",
        "-S",
        "-Sh",
        "-h",
        "-Sbw",
    ] {
        accepted(&format!("{ok} {T}"));
    }
    for no in [
        "-ag0",
        "-agg",
        "-ag,0,1,2",
        "-a1,",
        "-ag1,0,",
        "-ag1,0,g",
        "-ag1,0,g2",
        "-ax",
        "-ag70000,1",
        "-n -a1,2",
        "-Sub",
        "-Sbu",
        "-Smu",
        "-Sx",
        "-Sb -h",
        "-h -Sb",
        "-Sm -h",
        "-Suw -h",
        "-h -Suw",
        "-S -Su",
        "-Sb -Sb",
        "-Sm -Sm",
    ] {
        refused(&format!("{no} {T}"));
    }
    assert!(refused(&format!("-ag0 {T}")).contains("no CPU"));
    let t = accepted(&format!("-B5m:1m {T}"));
    assert_eq!((t.base_offset, t.max_size), (5 << 20, Some(6 << 20)));
    let t = accepted(&format!("-B5m -f6m {T}"));
    assert_eq!((t.base_offset, t.max_size), (5 << 20, Some(6 << 20)));
    for no in [
        "-B5m:1m -f6m",
        "-B5m:1m -B5m:1m",
        "-B5m:1m -B5m",
        "-B5m -B5m",
        "-f5m -f6m",
        "-B5mx",
        "-B5m:",
        "-B5m:j",
        "-B5m:1x",
        "-B5m:1mx",
    ] {
        refused(&format!("{no} {T}"));
    }
    // -f0 is DiskSpd's "no limit".
    assert_eq!(accepted(&format!("-f0 {T}")).max_size, None);
}

#[test]
fn random_sequential_mixed_and_throughput_cases() {
    let ratio = |line: &str| match accepted(&format!("{line} {T}")).access {
        Access::Random { ratio, align } => (ratio, align),
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(ratio("-rs50"), (50, 64 << 10));
    assert_eq!(ratio("-rs50 -r8k"), (50, 8 << 10));
    assert_eq!(ratio("-r8k -rs50"), (50, 8 << 10));
    assert_eq!(ratio("-rs50 -r").0, 50);
    assert_eq!(ratio("-r -rs50").0, 50);
    for ok in ["-rs100 -r", "-rs100 -r8k", "-r -rs100", "-r8k -rs100"] {
        accepted(&format!("{ok} {T}"));
    }
    for no in [
        "-rs50 -s8k",
        "-s8k -rs50",
        "-rs50 -s",
        "-s -rs50",
        "-r -s",
        "-s -r",
        "-rs50 -s -r",
        "-s -rs50 -r",
        "-s -r -rs50",
        "-rs50 -s8k -r",
        "-s -rs50 -r8k",
        "-s -s8k",
        "-s8k -s",
        "-s -s",
        "-s8k -s8k",
        "-r -r8k",
        "-r8k -r",
        "-r -r",
        "-r8k -r8k",
        "-r8k -r4k",
        "-rs0 -r",
        "-rs0 -r8k",
        "-rs0 -s",
        "-rs0 -s8k",
    ] {
        refused(&format!("{no} {T}"));
    }
    assert_eq!(
        accepted(&format!("-b128K -g10i {T}")).throughput,
        Some(iospd::profile::Throughput::Iops(10))
    );
    for no in ["-gi100", "-g0", "-g0i", "-g", "-gi", "-g100x"] {
        refused(&format!("-b128K {no} {T}"));
    }
}

fn spans(t: &Target) -> (DistributionKind, Vec<(u32, u64)>) {
    let d = t.distribution.as_ref().expect("a distribution");
    (
        d.kind,
        d.ranges.iter().map(|r| (r.io_percent, r.span)).collect(),
    )
}

#[test]
fn target_distribution_cases() {
    const G: u64 = 1 << 30;
    assert_eq!(
        spans(&accepted(&format!("-rdpct10/10:10/10:0/10 -r {T}"))),
        (
            DistributionKind::Percent,
            vec![(10, 10), (10, 10), (0, 10), (80, 70)]
        )
    );
    assert_eq!(
        spans(&accepted(&format!("-rdabs10/1G:10/1G:0/100G -r {T}"))).1,
        vec![(10, G), (10, G), (0, 100 * G), (80, 0)]
    );
    accepted(&format!("-rdpct90/10 -rs50 -r8k {T}"));
    for no in [
        "-rdpct90/10 -s",
        "-rdpct90/10",
        "-rd -r",
        "-rdfoo -r",
        "-rdfoo10/1G:10/1G:0/100G -r",
        "-rdpctBAD -r",
        "-rdabsBAD -r",
        "-rdpct10 -r",
        "-rdabs10 -r",
        "-rdpct10[ -r",
        "-rdabs10[ -r",
        "-rdpct10/ -r",
        "-rdabs10/ -r",
        "-rdpct10/BAD -r",
        "-rdabs10/BAD -r",
        "-rdpct10/10[ -r",
        "-rdabs10/10g[ -r",
        "-rdpct10/10: -r",
        "-rdabs10/10g: -r",
        "-rdpct10/10:BAD -r",
        "-rdabs10/10g:BAD -r",
        "-rdpct101/10 -r",
        "-rdpct60/10:60/10 -r",
        "-rdabs101/10g -r",
        "-rdabs60/10g:60/10g -r",
        "-rdpct10/50:10/50 -r",
        "-rdpct10/50:10/60 -r",
        "-rdpct10/0 -r",
        "-rdpct60/10:10/0 -r",
        "-rdabs10/0 -r",
        "-rdabs60/10g:10/0 -r",
        "-rdabs10/10 -r",
    ] {
        refused(&format!("{no} {T}"));
    }
    // All the I/O in the first 10 %: DiskSpd refuses it; the message says how to write it.
    let why = refused(&format!("-rdpct100/10 -r {T}"));
    assert!(
        why.contains("must total 100%") && why.contains("end the distribution with :0/90"),
        "{why}"
    );
    assert_eq!(
        spans(&accepted(&format!("-rdpct100/10:0/90 -r {T}"))).1,
        vec![(100, 10), (0, 90)]
    );
}

#[test]
fn write_buffer_and_position_cases() {
    use iospd::profile::WriteBuffer;
    assert_eq!(
        accepted(&format!("-b128K -w84 -Z2M {T}")).write_buffer,
        WriteBuffer::Source {
            size: 2 << 20,
            file: None
        }
    );
    // `-Z<size>,` with nothing after the comma: no file, as in DiskSpd.
    assert_eq!(
        accepted(&format!("-Z1M, {T}")).write_buffer,
        WriteBuffer::Source {
            size: 1 << 20,
            file: None
        }
    );
    accepted(&format!("-r {T} testfile2.dat"));
    for no in [
        format!("{T} -r"),
        format!("{T} testfile2.dat -r"),
        format!("{T} -r t2.dat"),
    ] {
        refused(&no);
    }
}

const PROFILE: &str = "<Profile><TimeSpans><TimeSpan><Targets><Target>\
    <Path>PATH</Path><BlockSize>4096</BlockSize>ELEMENTS</Target></Targets></TimeSpan></TimeSpans></Profile>";

/// Resolves `-X<profile> <rest>` for a one-target profile with `elements` added to the target.
fn xml(path: &str, elements: &str, rest: &str) -> Result<Target, String> {
    let dir = TempDir::new();
    let file = dir.join("p.xml");
    std::fs::write(
        &file,
        PROFILE.replace("PATH", path).replace("ELEMENTS", elements),
    )
    .unwrap();
    resolve(&format!("-X{} {rest}", file.display()))
        .map(|r| r.profile.timespans[0].targets[0].clone())
}

#[test]
fn xml_profile_cases() {
    // <RandomRatio> without <Random>: mixed I/O aligned to the block size.
    let t = xml("a.dat", "<RandomRatio>30</RandomRatio>", "").unwrap();
    assert_eq!(
        t.access,
        Access::Random {
            align: 4096,
            ratio: 30
        }
    );
    // DiskSpd's parser takes 1..99: a mix, not all or nothing.
    for bad in ["0", "100", "255"] {
        let e = xml("a.dat", &format!("<RandomRatio>{bad}</RandomRatio>"), "").unwrap_err();
        assert!(e.contains("out of range 1..=99"), "{bad}: {e}");
    }
    let t = xml("a.dat", "<RandomRatio>99</RandomRatio>", "").unwrap();
    assert!(matches!(t.access, Access::Random { ratio: 99, .. }));
    // <StrideSize> makes the target sequential and conflicts with both random elements.
    for random in ["<Random>4096</Random>", "<RandomRatio>30</RandomRatio>"] {
        let e = xml(
            "a.dat",
            &format!("<StrideSize>8192</StrideSize>{random}"),
            "",
        )
        .unwrap_err();
        assert!(e.contains("conflicts with"), "{e}");
    }
    // The leftover I/O goes to the rest of the target, as on the command line.
    let percent = "<Random>4096</Random><Distribution><Percent><Range IO=\"90\">10</Range>\
                   </Percent></Distribution>";
    assert_eq!(
        spans(&xml("a.dat", percent, "").unwrap()).1,
        vec![(90, 10), (10, 90)]
    );
    let absolute = "<Random>4096</Random><Distribution><Absolute><Range IO=\"10\">1073741824\
                    </Range><Range IO=\"0\">1073741824</Range></Absolute></Distribution>";
    assert_eq!(
        spans(&xml("a.dat", absolute, "").unwrap()).1,
        vec![(10, 1 << 30), (0, 1 << 30), (90, 0)]
    );
    // An empty <Path> parses (-Rp shows it) and a run refuses it.
    assert_eq!(xml("", "", "-Rp").unwrap().path.as_os_str(), "");
    assert!(xml("", "", "").unwrap_err().contains("path is empty"));
    // Template targets: *<n> from 1; -Rp keeps them, a run needs them filled.
    assert!(xml("*1", "", "-Rp").unwrap().is_template());
    assert!(xml("*1", "", "").unwrap_err().contains("not substituted"));
    assert_eq!(
        xml("*1", "", "real.dat").unwrap().path.as_os_str(),
        "real.dat"
    );
    for bad in ["*0", "*x", "*+1", "*-1"] {
        assert!(
            xml(bad, "", "-Rp").unwrap_err().contains("a number from 1"),
            "{bad}"
        );
    }
    assert!(
        xml("*2", "", "one.dat")
            .unwrap_err()
            .contains("no target on the command line")
    );
}
