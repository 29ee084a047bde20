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
        "\nDiskSpd's options come before the targets, each with its value glued on (-o32,\n\
         -b4K); --long options may come anywhere. Sizes take K, M, G, T (binary) or b\n\
         (multiples of the block size given with -b).\n\
         \nExamples:\n\n\
         Create a 1GiB file and run a 10 second 4KiB random read test, 32 I/Os in\n\
         flight, bypassing the page cache and measuring latency:\n\n\
         \x20 iospd -c1G -d10 -b4K -o32 -r -Sh -L testfile.dat\n\n\
         Mixed 70/30 random read/write on a block device, two threads (destroys its\n\
         data):\n\n\
         \x20 iospd -b8K -t2 -o16 -r -w30 -Sh -L /dev/sdb\n\n\
         Print the profile of a command line as XML, then run it:\n\n\
         \x20 iospd -Rpxml -b8K -r -w30 -L testfile.dat > profile.xml\n\
         \x20 iospd -Xprofile.xml -Rjson --output=run.xml\n\n",
    );
    text
}

/// The column the descriptions start in, and the width nothing passes.
const DOC_COLUMN: usize = 28;
const WIDTH: usize = 80;

/// One option (or command) and its description, wrapped to 80 columns.
pub fn push_line(text: &mut String, syntax: &str, doc: &str) {
    let mut line = format!("  {syntax}");
    if line.chars().count() >= DOC_COLUMN {
        text.push_str(&line);
        text.push('\n');
        line.clear();
    }
    for word in doc.split(' ') {
        let used = line.chars().count();
        let fits = used + 1 + word.chars().count() <= WIDTH;
        if used < DOC_COLUMN {
            line.push_str(&" ".repeat(DOC_COLUMN - used));
        } else if fits {
            line.push(' ');
        } else {
            text.push_str(&line);
            text.push('\n');
            line = " ".repeat(DOC_COLUMN);
        }
        line.push_str(word);
    }
    text.push_str(&line);
    text.push('\n');
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
