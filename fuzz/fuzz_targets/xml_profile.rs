//! The XML profile reader: any document gives a profile or an error with a line number, never a
//! panic, a hang or a blow-up in memory. An accepted profile must write out and read back the
//! same.
#![no_main]

use iospd::profile::xml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(profile) = xml::parse_profile(text) else {
        return;
    };
    let written = xml::write_profile(&profile);
    match xml::parse_profile(&written) {
        Ok(again) => assert_eq!(
            xml::write_profile(&again),
            written,
            "the written profile changes when read back"
        ),
        Err(error) => panic!("a written profile does not read back: {error}\n{written}"),
    }
});
