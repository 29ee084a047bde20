//! Hostile input: malformed command lines and XML profiles. Every one exits 3 with a single line
//! that names the problem, prints nothing on stdout, and leaves the working directory exactly as
//! it was: no target created, none modified.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::util::{TempDir, iospd, stderr, stdout};

/// Command lines that must be refused (after `-c1M -d1 -W0`, so that a line wrongly accepted
/// would create `t.dat`), and a fragment the message must contain. The working directory holds
/// `exists.dat`, an iospd test file, and `foreign.dat`, a file iospd did not create.
const COMMAND_LINES: &[(&[&str], &str)] = &[
    (&["-o0", "t.dat"], "'-o0'"),
    (&["-o32x", "t.dat"], "not a whole number"),
    (&["-o32769", "t.dat"], "out of range"),
    (&["-b0", "t.dat"], "'-b0'"),
    (&["-b4Q", "t.dat"], "unknown size suffix"),
    (&["-b4G", "t.dat"], "below 4GiB"),
    (&["-b8b", "t.dat"], "blocks"),
    (&["-c0", "t.dat"], "greater than 0"),
    (&["-c99999999999999999999", "t.dat"], "too large"),
    (&["-c17179869184G", "t.dat"], "too large"),
    (&["-d0", "t.dat"], "'-d0'"),
    (&["-d", "t.dat"], "'-d'"),
    (&["-w", "t.dat"], "-w0"),
    (&["-w101", "t.dat"], "out of range"),
    (&["-t0", "t.dat"], "'-t0'"),
    (&["-t100000", "t.dat"], "out of range"),
    (&["-F0", "t.dat"], "'-F0'"),
    (&["-T0", "-t2", "t.dat"], "greater than 0"),
    (&["-r0", "t.dat"], "greater than 0"),
    (&["-g0", "t.dat"], "'-g0'"),
    (&["-gx", "t.dat"], "'-gx'"),
    (&["-D0", "t.dat"], "'-D0'"),
    (&["-P0", "t.dat"], "'-P0'"),
    (&["-z-1", "t.dat"], "'-z-1'"),
    (&["-Z0", "t.dat"], "greater than 0"),
    // A write source sized past any memory: refused with the memory check, never allocated.
    (
        &["-w50", "-Z18446744073709551615", "t.dat"],
        "of -Z write source buffers",
    ),
    (&["-w50", "-Z16000000T,exists.dat", "t.dat"], "the -Z size"),
    (&["-Sq", "t.dat"], "not a cache flag"),
    (&["-Sbu", "t.dat"], "conflicts"),
    (&["-Su", "-h", "t.dat"], "conflicts"),
    (&["-Sr", "t.dat"], "no Linux equivalent"),
    (&["-Sy", "t.dat"], "BypassIO"),
    (&["-L", "-L", "t.dat"], "already given"),
    (&["-o4", "-o8", "t.dat"], "already given"),
    (&["-q", "t.dat"], "unknown option '-q'"),
    (&["--bogus", "t.dat"], "unknown option '--bogus'"),
    (&["--engine=libaio", "t.dat"], "io_uring, psync, null"),
    (
        &["--engine=null", "--verify", "t.dat"],
        "--engine=null moves no data",
    ),
    (&["-X", "t.dat"], "profile's path"),
    (&["-Rxml", "-Rjson", "t.dat"], "already given"),
    (&["-Rcsv", "t.dat"], "'-Rcsv'"),
    (&["-rs0", "t.dat"], "out of range"),
    (&["-x", "t.dat"], "Windows mechanism"),
    (&["#1"], "/dev/sdb"),
    (&["E:"], "partition"),
    (&["-F2", "-t2", "t.dat"], "-F and -t cannot be combined"),
    (&["-r", "-s", "t.dat"], "-r and -s cannot be combined"),
    (
        &["-r", "-T4K", "-t2", "t.dat"],
        "-r and -T cannot be combined",
    ),
    (
        &["-si", "-T4K", "-t2", "t.dat"],
        "-si and -T cannot be combined",
    ),
    (&["-n", "-a0", "t.dat"], "-n and -a cannot be combined"),
    (&["-B0:1G", "-f2G", "t.dat"], "cannot be combined"),
    (&["-T4K", "t.dat"], "one thread"),
    (&["--offset-increment=1M", "t.dat"], "has one thread"),
    (
        &["-Sm", "--o-sync", "t.dat"],
        "use -Sw (an msync after each write)",
    ),
    (&["--o-sync=1", "t.dat"], "takes no value"),
    (
        &["-t2", "-T4K", "--offset-increment=1M", "t.dat"],
        "-T staggers",
    ),
    (
        &["-t2", "-si", "--offset-increment=1M", "t.dat"],
        "-si makes the threads share",
    ),
    (&["-t2", "--offset-increment=0", "t.dat"], "greater than 0"),
    (
        &["-t3", "-f3M", "--offset-increment=1M", "t.dat"],
        "2 threads × --offset-increment=1048576 plus one block",
    ),
    (
        &["-b8K", "-Z4K", "-w50", "t.dat"],
        "smaller than the block size",
    ),
    (&["-B1M", "-f1M", "t.dat"], "-f"),
    (&["-a99", "t.dat"], "CPU 99 is not available"),
    (&["-ag1,0", "t.dat"], "processor groups"),
    (&["-a3-1", "t.dat"], "backwards"),
    (&["t.dat", "-o4"], "comes after the target"),
    // Offsets that would leave the range.
    (
        &["-t2", "-si9223372036871553024", "t.dat"],
        "is larger than",
    ),
    (&["-s2M", "t.dat"], "the stride -s2097152 is larger than"),
    (&["-r4M", "t.dat"], "the random alignment"),
    (&["-t2", "-T18446744073709551615", "t.dat"], "is too small"),
    (&["-B2M", "t.dat"], "is too small"),
    // Outputs that would destroy a target, an input, another output or a device.
    (&["--trace=t.dat", "t.dat"], "is the target"),
    (
        &["--timeseries=s.csv", "--trace=s.csv", "t.dat"],
        "also the --timeseries file",
    ),
    (&["--histlog=/dev/null", "t.dat"], "is a character device"),
    // A refused run leaves existing outputs untouched (the directory is compared afterwards).
    (
        &["--trace=foreign.dat", "-r4M", "t.dat"],
        "the random alignment",
    ),
    (
        &["--timeseries=exists.dat", "missing/t.dat"],
        "does not exist",
    ),
    (
        &[
            "--output=exists.json",
            "--histlog=foreign.dat",
            "-B2M",
            "t.dat",
        ],
        "is too small",
    ),
    (&["-d10", "\u{2013}t16", "t.dat"], "en dash"),
    (&["-o4"], "no target"),
    (&["-"], "'-' alone"),
    (&[""], "empty argument"),
    (&["-Lx", "t.dat"], "takes no value"),
    // Sizes and numbers: malformed, negative, fractional, overflowing, empty.
    (&["-b", "t.dat"], "a value is missing"),
    (&["-b-4K", "t.dat"], "not a whole number"),
    (&["-b4KK", "t.dat"], "unknown size suffix"),
    (&["-b4.5K", "t.dat"], "unknown size suffix"),
    (&["-b0x1000", "t.dat"], "unknown size suffix"),
    (&["-b1e3", "t.dat"], "unknown size suffix"),
    (&["-bK", "t.dat"], "'K' is not a whole number"),
    (&["-b18446744073709551616", "t.dat"], "too large"),
    (&["-b\u{FF14}K", "t.dat"], "not a whole number"),
    (&["-o", "t.dat"], "a value is missing"),
    (&["-o-1", "t.dat"], "not a whole number"),
    (&["-o4294967296", "t.dat"], "out of range 1..=32768"),
    (&["-o99999999999999999999999", "t.dat"], "too large"),
    (&["-t", "t.dat"], "a value is missing"),
    (&["-t-1", "t.dat"], "not a whole number"),
    (&["-t4294967297", "t.dat"], "out of range 1..=4096"),
    (&["-T", "-t2", "t.dat"], "a value is missing"),
    (&["-T-1", "-t2", "t.dat"], "not a whole number"),
    (&["-C-1", "t.dat"], "not a whole number"),
    (&["-Cx", "t.dat"], "not a whole number"),
    (&["-d-5", "t.dat"], "not a whole number"),
    (&["-d1.5", "t.dat"], "not a whole number"),
    (&["-d4294967296000", "t.dat"], "out of range"),
    (&["-d99999999999999999999999", "t.dat"], "too large"),
    (&["-sx", "t.dat"], "not a whole number"),
    (&["-r1.5", "t.dat"], "unknown size suffix"),
    (&["-rx", "t.dat"], "not a whole number"),
    (&["-w-1", "t.dat"], "not a whole number"),
    (&["-w50.5", "t.dat"], "not a whole number"),
    (&["-wx", "t.dat"], "not a whole number"),
    (&["-c", "t.dat"], "a value is missing"),
    (&["-c-1", "t.dat"], "not a whole number"),
    (&["-cx", "t.dat"], "not a whole number"),
    (&["-B", "t.dat"], "a value is missing"),
    (&["-B-1", "t.dat"], "not a whole number"),
    (&["-Bx", "t.dat"], "not a whole number"),
    (&["-B1M:0", "t.dat"], "greater than 0"),
    (&["-B18446744073709551615", "t.dat"], "is too small"),
    (&["-f", "t.dat"], "expects a size"),
    (&["-fx", "t.dat"], "hint letters"),
    (&["-frx", "t.dat"], "hint letters"),
    (&["-Dx", "t.dat"], "not a whole number"),
    (&["-Px", "t.dat"], "not a whole number"),
    (&["-i", "t.dat"], "a value is missing"),
    (&["-i0", "-j10", "t.dat"], "out of range"),
    (&["-i4", "-j0", "t.dat"], "out of range"),
    (&["-i4", "-j5s", "t.dat"], "not a whole number"),
    (
        &["-r", "--backwards", "t.dat"],
        "--backwards needs sequential I/O",
    ),
    (&["--backwards=1", "t.dat"], "backwards"),
    (
        &["--continue-on-error=both", "t.dat"],
        "is not io, read or write",
    ),
    (
        &["--continue-on-error=io:ENOPE", "t.dat"],
        "is not an error name",
    ),
    (&["-zx", "t.dat"], "not a whole number"),
    (&["-z99999999999999999999999", "t.dat"], "too large"),
    (&["-Zx", "t.dat"], "not a whole number"),
    (&["-Z1Q", "t.dat"], "unknown size suffix"),
    (&["-u0", "t.dat"], "out of range"),
    (&["-ux", "t.dat"], "not a whole number"),
    (&["-oc", "t.dat"], "a value is missing"),
    (&["-oc0", "t.dat"], "out of range 1..=16"),
    (&["-ocx", "t.dat"], "not a whole number"),
    (&["-rs", "t.dat"], "a value is missing"),
    (&["-rs101", "t.dat"], "out of range 1..=100"),
    (&["-rsx", "t.dat"], "not a whole number"),
    (&["-F", "t.dat"], "a value is missing"),
    (&["-Fx", "t.dat"], "not a whole number"),
    (&["-F100000", "t.dat"], "out of range"),
    (&["-O", "t.dat"], "a value is missing"),
    (&["-O0", "t.dat"], "out of range"),
    (&["-Ox", "t.dat"], "not a whole number"),
    (&["--spin=-1", "t.dat"], "not a whole number"),
    (&["--spin=x", "t.dat"], "not a whole number"),
    (&["--percentiles=", "t.dat"], "comma-separated list"),
    (&["--percentiles=101", "t.dat"], "not between 0 and 100"),
    (&["--percentiles=x", "t.dat"], "not a number"),
    (&["--percentiles=NaN", "t.dat"], "--percentiles=NaN"),
    (&["--peer-timeout=", "t.dat"], "expects seconds"),
    (&["--peer-timeout=0", "t.dat"], "--peer-timeout=300"),
    (&["--peer-timeout=x", "t.dat"], "not a whole number"),
    (&["--peer-timeout=100000", "t.dat"], "--peer-timeout=300"),
    (&["--start-at=", "t.dat"], "expects an RFC 3339 time"),
    (&["--start-at=12:00", "t.dat"], "RFC 3339"),
    (&["--start-at=2026-13-01T00:00:00Z", "t.dat"], "RFC 3339"),
    // Letters and words that are not what the option takes.
    (&["-I", "t.dat"], "expects 1 (very low)"),
    (&["-I0", "t.dat"], "expects 1 (very low)"),
    (&["-I4", "t.dat"], "expects 1 (very low)"),
    (&["-ax", "t.dat"], "not an affinity letter"),
    (&["-a-1", "t.dat"], "a value is missing"),
    (&["-e", "t.dat"], "DISK_IO"),
    (&["-ex", "t.dat"], "DISK_IO"),
    (&["-y", "t.dat"], "event name"),
    (&["-ys", "t.dat"], "event name"),
    (&["-ys../../etc/x", "t.dat"], "event name"),
    (&["-R", "t.dat"], "expects text, xml or json"),
    (&["-Rfoo", "t.dat"], "expects text, xml or json"),
    (&["-v1", "t.dat"], "expects -v or -vs"),
    (&["-N", "t.dat"], "expects v, n or i"),
    (&["-Nx", "t.dat"], "expects v, n or i"),
    (&["-rd", "t.dat"], "expects -rdpct"),
    (&["-rdfoo", "t.dat"], "expects -rdpct"),
    (&["-rdpct", "-r", "t.dat"], "no ranges given"),
    (&["-rdpct101/100", "-r", "t.dat"], "out of range 0..=100"),
    (&["-rdpct10/10", "t.dat"], "add -r"),
    (&["-rdabs", "-r", "t.dat"], "no ranges given"),
    (&["-rdabs10/1Q", "-r", "t.dat"], "unknown size suffix"),
    (&["-Sx", "t.dat"], "not a cache flag"),
    (&["--engine", "t.dat"], "expects one of io_uring"),
    (&["--engine=", "t.dat"], "expects one of io_uring"),
    (&["--force=yes", "t.dat"], "takes no value"),
    (&["--output", "t.dat"], "expects a file name"),
    (&["--output=", "t.dat"], "expects a file name"),
    (
        &["--output=report.pdf", "t.dat"],
        "the extension picks the format",
    ),
    (&["--help=foo"], "'--help=foo': takes no value; give --help"),
    (&["-L1", "t.dat"], "takes no value"),
    (&["-l1", "t.dat"], "takes no value"),
    (&["-px", "t.dat"], "takes no value"),
    // Duplicated and conflicting options.
    (&["-c2M", "t.dat"], "already given"),
    (&["-n", "-n", "t.dat"], "already given"),
    (&["-b4K", "-b8K", "t.dat"], "already given"),
    (&["--force", "--force", "t.dat"], "already given"),
    (&["-i4", "t.dat"], "give both"),
    (&["-j10", "t.dat"], "give both"),
    (&["-O4", "-o4", "t.dat"], "-O and -t cannot be combined"),
    (&["-s", "-r", "t.dat"], "-r and -s cannot be combined"),
    (&["-X", "/nonexistent.xml"], "glued on"),
    // Look-alike dashes and non-ASCII option letters.
    (&["\u{2014}b4K", "t.dat"], "an em dash (U+2014)"),
    (&["\u{2212}b4K", "t.dat"], "a minus sign (U+2212)"),
    (&["\u{FF0D}b4K", "t.dat"], "a fullwidth hyphen (U+FF0D)"),
    (&["\u{2010}b4K", "t.dat"], "a Unicode hyphen"),
    (&["-\u{FF42}4K", "t.dat"], "unknown option"),
    (&["-\u{2014}", "t.dat"], "unknown option"),
    // Huge depths, threads and buffers: refused before anything is allocated or created.
    (&["-o32768", "-t4096", "t.dat"], "lower -t, -o or -b"),
    (
        &["-F2", "-o20000", "t.dat", "t.dat"],
        "more than the 32768 one io_uring ring holds",
    ),
    (&["-b2G", "-o64", "-t64", "t.dat"], "lower -t, -o or -b"),
    (&["-o4", "-t100000", "t.dat"], "out of range 1..=4096"),
    // Targets: directories, devices that are not block devices, missing directories, files iospd
    // did not create.
    (&["/"], "'/' is a directory"),
    (&[" "], "is only white space"),
    (&["\u{b}"], "is only white space"),
    (&["."], "'.' is a directory"),
    (
        &["-w100", "/dev/zero"],
        "neither a regular file nor a block device",
    ),
    (&["-w100", "/sys"], "is a directory"),
    (
        &["/nonexistent/dir/t.dat"],
        "the directory '/nonexistent/dir' does not exist",
    ),
    (&["exists.dat/t.dat"], "a part of the path is a file"),
    (&["foreign.dat"], "refusing to recreate 'foreign.dat'"),
    (
        &["--output=/nonexistent/dir/r.json", "t.dat"],
        "--output: cannot write",
    ),
    (
        &["--output=.", "t.dat"],
        "does not end in .txt, .xml, .json, .html or .csv",
    ),
    (
        &["--output=reports.json", "t.dat"],
        "'reports.json' is a directory",
    ),
    (&["--timeseries=", "t.dat"], "expects a file name"),
    (
        &["--timeseries=/nonexistent/ts.csv", "t.dat"],
        "does not exist",
    ),
    (&["--histlog=reports.json", "t.dat"], "is a directory"),
    (&["--trace=/nonexistent/t.trace", "t.dat"], "does not exist"),
    (&["--checkpoint=0", "t.dat"], "out of range"),
    (
        &["--checkpoint=60", "t.dat"],
        "add one, for example --output=run.json",
    ),
    (&["--checkpoint=x", "t.dat"], "not a whole number"),
    (&["--checkpoint", "t.dat"], "expects a period in seconds"),
    (&["--quiet=1", "t.dat"], "takes no value"),
    (&["--iopoll=1", "t.dat"], "takes no value"),
    (&["--sqpoll=x", "t.dat"], "not a whole number"),
    (&["--sqpoll=0", "t.dat"], "out of range"),
    (
        &["--iopoll", "--engine=psync", "t.dat"],
        "io_uring fast paths",
    ),
    (&["--iopoll", "t.dat"], "add -Su or -Sh"),
    (
        &["-Z1M,/nonexistent/source", "-w50", "t.dat"],
        "cannot read the write source",
    ),
];

/// A one-target profile that would create `t.dat` if it were accepted, with extra elements in the
/// timespan, the target and the profile.
fn profile(timespan: &str, target: &str, top: &str) -> String {
    format!(
        "<Profile>{top}<TimeSpans><TimeSpan><Duration>1</Duration><Warmup>0</Warmup>{timespan}<Targets><Target><Path>t.dat</Path><FileSize>1048576</FileSize>{target}</Target></Targets></TimeSpan></TimeSpans></Profile>"
    )
}

/// XML profiles that must be refused, and a fragment the message must contain.
fn xml_profiles() -> Vec<(String, &'static str)> {
    let target = |extra: &str| profile("", extra, "");
    let timespan = |extra: &str| profile(extra, "", "");
    let top = |extra: &str| profile("", "", extra);
    let raw = |text: &str| text.to_string();
    vec![
        (
            target("<BlockSize>0</BlockSize>"),
            "<BlockSize>: 0 is out of range",
        ),
        (
            target("<BlockSize>-1</BlockSize>"),
            "'-1' is not a whole number",
        ),
        (
            target("<BlockSize>99999999999999999999999</BlockSize>"),
            "too large",
        ),
        (
            target("<BlockSize>4K</BlockSize>"),
            "'4K' is not a whole number",
        ),
        (
            target("<BlockSize></BlockSize>"),
            "'' is not a whole number",
        ),
        (target("<BlockSize>  </BlockSize>"), "is not a whole number"),
        (target("<BlockSize a=\"1\">0</BlockSize>"), "out of range"),
        (target("<!-- c --><BlockSize>0</BlockSize>"), "out of range"),
        (
            target("<RequestCount>0</RequestCount>"),
            "<RequestCount>: 0 is out of range",
        ),
        (
            target("<RequestCount>100000000</RequestCount>"),
            "out of range 1..=32768",
        ),
        (
            target("<ThreadsPerFile>0</ThreadsPerFile>"),
            "<ThreadsPerFile>: 0 is out of range",
        ),
        (
            target("<ThreadsPerFile>999999</ThreadsPerFile>"),
            "out of range 1..=4096",
        ),
        (
            target("<WriteRatio>-5</WriteRatio>"),
            "'-5' is not a whole number",
        ),
        (
            target("<WriteRatio>1e2</WriteRatio>"),
            "'1e2' is not a whole number",
        ),
        (
            target("<WriteRatio>101</WriteRatio>"),
            "out of range 0..=100",
        ),
        (target("<IOPriority>7</IOPriority>"), "out of range 1..=3"),
        (
            target("<FileSize>0</FileSize>"),
            "<FileSize>: appears twice",
        ),
        (target("<Path>u.dat</Path>"), "<Path>: appears twice"),
        (
            target("<BaseFileOffset>2048576</BaseFileOffset>"),
            "is too small",
        ),
        (
            target("<RandomAccess>maybe</RandomAccess>"),
            "'maybe' is not true or false",
        ),
        (
            target("<Random>65536</Random><InterlockedSequential>true</InterlockedSequential>"),
            "cannot be combined",
        ),
        (
            target("<WriteBufferContent><Pattern>bogus</Pattern></WriteBufferContent>"),
            "'bogus' is not sequential, zero, random or repeat",
        ),
        (
            target("<Distribution><Percent><Range IO=\"101\">100</Range></Percent></Distribution>"),
            "needs an IO attribute",
        ),
        (
            target("<Distribution><Percent></Percent></Distribution>"),
            "needs at least one <Range>",
        ),
        (
            target("<ThroughputIOPS>5</ThroughputIOPS>"),
            "is not a DiskSpd element",
        ),
        (
            target("<DisableLocalCache>true</DisableLocalCache>"),
            "no Linux equivalent",
        ),
        (
            timespan("<Duration>0</Duration>"),
            "<Duration>: appears twice",
        ),
        (
            timespan("<ThreadCount>-1</ThreadCount>"),
            "'-1' is not a whole number",
        ),
        (
            timespan("<ThreadCount>100000</ThreadCount>"),
            "more than the 4096",
        ),
        (
            timespan("<RandSeed>x</RandSeed>"),
            "'x' is not a whole number",
        ),
        (
            timespan("<Affinity><AffinityAssignment>999</AffinityAssignment></Affinity>"),
            "CPU 999 is not available",
        ),
        (
            timespan("<CompletionRoutines>true</CompletionRoutines>"),
            "Windows mechanism",
        ),
        (top("<Progress>-1</Progress>"), "'-1' is not a whole number"),
        (top("<Verbose>yes</Verbose>"), "'yes' is not true or false"),
        (
            top("<ResultFormat>html</ResultFormat>"),
            "not text, xml or json",
        ),
        (
            top("<Profile/>"),
            "is not a DiskSpd element inside <Profile>",
        ),
        (profile("", "", "").replace("t.dat", ""), "path is empty"),
        (
            profile("", "", "").replace("t.dat", "/nonexistent/dir/t.dat"),
            "does not exist",
        ),
        (
            profile("", "", "").replace("t.dat", "/tmp"),
            "is a directory",
        ),
        (
            profile("", "<WriteRatio>100</WriteRatio>", "").replace("t.dat", "/dev/null"),
            "neither a regular file nor a block device",
        ),
        (
            profile("", "<WriteRatio>100</WriteRatio>", "").replace("t.dat", "foreign.dat"),
            "refusing to recreate 'foreign.dat'",
        ),
        (
            profile("", "", "").replace("t.dat", "t.dat&#0;"),
            "entities are not allowed",
        ),
        (
            profile("", "", "").replace("t.dat", "&xxe;"),
            "unknown entity &xxe;",
        ),
        (raw(""), "no root element"),
        (raw("   "), "no root element"),
        (raw("not xml at all"), "text outside the root element"),
        (raw("<Profile>"), "<Profile> is not closed"),
        (raw("<Profile></Profile>"), "needs a <TimeSpans> element"),
        (raw("<profile><TimeSpans/></profile>"), "must be <Profile>"),
        (
            raw("<Profile><TimeSpans/></Profile>"),
            "needs at least one <TimeSpan>",
        ),
        (
            raw("<Profile><TimeSpans><TimeSpan></TimeSpan></TimeSpans></Profile>"),
            "needs a <Targets> element",
        ),
        (
            raw("<Profile><TimeSpans><TimeSpan><Targets/></TimeSpan></TimeSpans></Profile>"),
            "has no target",
        ),
        (
            raw(
                "<Profile><TimeSpans><TimeSpan><Targets><Target/></Targets></TimeSpan></TimeSpans></Profile>",
            ),
            "needs a <Path> element",
        ),
        (
            profile("", "", "") + "<Extra/>",
            "content after the root element",
        ),
        (
            profile("", "", "").replace("</Target></Targets>", "</Targets></Target>"),
            "ill-formed document",
        ),
        (
            format!("<Profile>{}", "<TimeSpans>".repeat(5000)),
            "nested deeper than",
        ),
        (
            raw(concat!(
                "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">",
                "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">",
                "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>",
                "<Profile>&lol3;</Profile>"
            )),
            "document type declarations",
        ),
        (
            raw(concat!(
                "<?xml version=\"1.0\"?><!DOCTYPE p [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>",
                "<Profile><TimeSpans><TimeSpan><Targets><Target><Path>&xxe;</Path>",
                "</Target></Targets></TimeSpan></TimeSpans></Profile>"
            )),
            "document type declarations",
        ),
        (
            raw(
                "\u{feff}<Profile><TimeSpans><TimeSpan><Duration>0</Duration><Targets><Target><Path>t.dat</Path></Target></Targets></TimeSpan></TimeSpans></Profile>",
            ),
            "the measured duration is 0 seconds",
        ),
    ]
}

/// Name → (size, modification time, contents) of every file in `dir`.
fn snapshot(dir: &Path) -> BTreeMap<String, (u64, i64, Vec<u8>)> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            let contents = if meta.is_file() {
                fs::read(entry.path()).unwrap()
            } else {
                Vec::new()
            };
            (
                entry.file_name().to_string_lossy().into_owned(),
                (
                    meta.len(),
                    meta.mtime_nsec() + meta.mtime() * 1_000_000_000,
                    contents,
                ),
            )
        })
        .collect()
}

/// A working directory with an iospd test file, a file iospd did not create, and a directory
/// named like a report.
fn working_directory() -> TempDir {
    let dir = TempDir::new();
    let made = iospd()
        .args(["-c1M", "-d1", "-W0", "exists.dat"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    fs::write(dir.join("foreign.dat"), vec![0x5au8; 1 << 20]).unwrap();
    fs::write(dir.join("exists.json"), b"{\"an\": \"earlier report\"}").unwrap();
    fs::create_dir(dir.join("reports.json")).unwrap();
    dir
}

/// Runs `args` in `dir` and asserts the refusal: exit 3, one line with `fragment`, nothing on
/// stdout, the directory unchanged.
fn assert_refused(dir: &TempDir, args: &[&str], what: &str, fragment: &str) {
    let before = snapshot(dir.path());
    let output = iospd().args(args).current_dir(dir.path()).output().unwrap();
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(3),
        "{what} should exit 3; stderr: {err}"
    );
    assert_eq!(
        err.lines().count(),
        1,
        "{what}: one line expected, got:\n{err}"
    );
    assert!(
        err.contains(fragment),
        "{what}: message lacks {fragment:?}: {err}"
    );
    assert!(stdout(&output).is_empty(), "{what}: nothing on stdout");
    assert!(
        snapshot(dir.path()) == before,
        "{what}: the directory changed"
    );
}

#[test]
fn malformed_command_lines_exit_3_with_one_line_and_touch_nothing() {
    let dir = working_directory();
    for (args, fragment) in COMMAND_LINES {
        let mut line = vec!["-c1M", "-d1", "-W0"];
        line.extend_from_slice(args);
        assert_refused(&dir, &line, &format!("{args:?}"), fragment);
    }
}

#[test]
fn malformed_and_hostile_xml_profiles_exit_3_and_touch_nothing() {
    let dir = working_directory();
    let profiles = TempDir::new();
    for (i, (text, fragment)) in xml_profiles().iter().enumerate() {
        let path = profiles.join(&format!("p{i}.xml"));
        fs::write(&path, text).unwrap();
        let what = format!(
            "profile {i}: {}",
            text.chars().take(200).collect::<String>()
        );
        assert_refused(&dir, &[&format!("-X{}", path.display())], &what, fragment);
    }
    let binary = profiles.join("binary.xml");
    fs::write(&binary, b"<Profile>\xff\xfe</Profile>").unwrap();
    assert_refused(
        &dir,
        &[&format!("-X{}", binary.display())],
        "not UTF-8",
        "valid UTF-8",
    );
    let missing = profiles.join("missing.xml");
    assert_refused(
        &dir,
        &[&format!("-X{}", missing.display())],
        "missing",
        "cannot read the XML profile",
    );
    let directory = format!("-X{}", profiles.path().display());
    assert_refused(
        &dir,
        &[&directory],
        "a directory",
        "cannot read the XML profile",
    );
}

#[test]
fn the_tables_are_large() {
    let (lines, profiles) = (COMMAND_LINES.len(), xml_profiles().len());
    eprintln!("{lines} command lines and {profiles} XML profiles");
    assert!(lines + profiles >= 150 && profiles >= 40);
}

/// A result whose measured window is stretched (`duration_s` 10^12) over another run's start
/// a billion seconds later: merging them once aligned the second run's `-D` series by that
/// distance, sizing a vector of 10^10 buckets (an abort). The times and the series disagree,
/// and merge says so in one line.
#[test]
fn a_result_whose_times_disagree_with_its_series_is_refused_never_sized() {
    let dir = TempDir::new();
    let run = iospd()
        .args(["-Rjson", "-c1M", "-d1", "-W0", "-D100", "--engine=null"])
        .arg(dir.join("t.dat"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    let mut first: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let mut second = first.clone();
    first["timespans"][0]["measured"]["duration_s"] = serde_json::json!(1e12);
    second["profile"]["command_line"] = serde_json::json!("iospd another run");
    let start = second["timespans"][0]["start_unix_s"].as_f64().unwrap();
    second["timespans"][0]["start_unix_s"] = serde_json::json!(start + 1e9);
    fs::write(dir.join("a.json"), first.to_string()).unwrap();
    fs::write(dir.join("b.json"), second.to_string()).unwrap();
    assert_refused(
        &dir,
        &["merge", "a.json", "b.json"],
        "merge",
        "the times and the -D series disagree",
    );
}
