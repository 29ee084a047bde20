//! The command-line parser and the profile it resolves to: any argument list, including bytes
//! that are not UTF-8, gives a profile or an error, never a panic. An accepted profile must print
//! in every format, and its XML form must read back naming the same paths.
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use iospd::cli::{self, Command};
use iospd::profile::{self, ResultFormat, xml};
use iospd::report;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Arguments are separated by NUL bytes, which no real argument can contain.
    let args: Vec<OsString> = data
        .split(|&b| b == 0)
        .map(|arg| OsString::from_vec(arg.to_vec()))
        .collect();
    // A profile path would make the parser read files; the XML target covers profiles.
    if args.iter().any(|a| a.as_encoded_bytes().starts_with(b"-X")) {
        return;
    }
    let Ok(Command::Run(raw)) = cli::parse(&args) else {
        return;
    };
    let Ok(resolved) = profile::resolve(&raw, "iospd".to_string()) else {
        return;
    };
    for format in [ResultFormat::Text, ResultFormat::Json] {
        let _ = report::profile_document(&resolved.profile, format);
    }
    let text = report::profile_document(&resolved.profile, ResultFormat::Xml);
    let back = match xml::parse_profile(&text) {
        Ok(back) => back,
        Err(error) => panic!("an accepted profile's XML does not read back: {error}\n{text}"),
    };
    // Every path an accepted profile holds is named exactly by its XML.
    let paths = |p: &profile::Profile| -> Vec<std::path::PathBuf> {
        p.timespans.iter().flat_map(|t| &t.targets).map(|t| t.path.clone()).collect()
    };
    assert_eq!(paths(&resolved.profile), paths(&back), "{text}");
});
