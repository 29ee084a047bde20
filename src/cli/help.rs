//! The usage text, generated from the option table so it cannot drift from what is parsed, and
//! grouped as DiskSpd's own usage groups its options.

use super::flags::{FLAGS, Group, LONG_FLAGS};

/// The full usage text printed by `-?`.
pub fn usage() -> String {
    let mut text = String::new();
    text.push_str("\nUsage: iospd [options] target1 [ target2 [ target3 ...] ]\n");
    text.push_str(&format!("version {}\n\n", env!("CARGO_PKG_VERSION")));
    text.push_str("Available targets:\n");
    text.push_str("       file_path\n");
    text.push_str("       block device, e.g. /dev/nvme0n1 or /dev/sdb1\n");
    for group in Group::ALL {
        text.push_str(&format!("\n{}:\n", group.heading()));
        for flag in FLAGS.iter().filter(|f| f.group == group) {
            for (syntax, doc) in flag.usage {
                push_line(&mut text, syntax, doc);
            }
        }
    }
    text.push_str("\nLinux options:\n");
    for flag in LONG_FLAGS {
        push_line(&mut text, flag.usage.0, flag.usage.1);
    }
    text.push_str(
        "\nOptions come before targets, each with its value glued on (-o32, -b4K). Sizes take\n\
         K, M, G, T (binary) or b (multiples of the block size given with -b).\n\
         \nExamples:\n\n\
         Create a 1GiB file and run a 10 second 4KiB random read test, 32 I/Os in flight,\n\
         bypassing the page cache and measuring latency:\n\n\
         \x20 iospd -c1G -d10 -b4K -o32 -r -Sh -L testfile.dat\n\n\
         Mixed 70/30 random read/write on a block device with two threads (destroys its data):\n\n\
         \x20 iospd -b8K -t2 -o16 -r -w30 -Sh -L /dev/sdb\n\n\
         Print the profile of a command line as XML, then run it:\n\n\
         \x20 iospd -Rpxml -b8K -r -w30 -L testfile.dat > profile.xml\n\
         \x20 iospd -Xprofile.xml -Rjson --output=run.xml\n\n",
    );
    text
}

fn push_line(text: &mut String, syntax: &str, doc: &str) {
    if syntax.chars().count() < 26 {
        text.push_str(&format!("  {syntax:<26}{doc}\n"));
    } else {
        text.push_str(&format!("  {syntax}\n  {:<26}{doc}\n", ""));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_lists_every_option_under_its_group() {
        let text = usage();
        for flag in FLAGS {
            for (syntax, _) in flag.usage {
                assert!(text.contains(syntax), "usage lacks {syntax}");
            }
        }
        for flag in LONG_FLAGS {
            assert!(text.contains(flag.usage.0), "usage lacks {}", flag.usage.0);
        }
        let buffers = text.find("Write buffers:").unwrap();
        assert!(
            text[buffers..].find("-Zr").unwrap() < text[buffers..].find("Synchronization").unwrap()
        );
    }
}
