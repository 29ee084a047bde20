//! Help in every form, from the two tables that define the command line (DiskSpd's letters and the
//! long options, in [`crate::cli::flags`]) and the subcommands ([`SUBCOMMANDS`]), so none can
//! drift from what is parsed: `-?`/`--help`, `iospd help [command]`, `<command> --help`, the man
//! page (`doc/iospd.1`, checked current by a test) and shell completions
//! (`iospd --completions=bash|zsh|fish`).

use std::fmt::Write as _;

use crate::cli::flags::{FLAGS, Group, LONG_FLAGS};

/// A subcommand: its name, what it does, its usage, and what a shell completes after it.
pub struct Subcommand {
    /// As typed after `iospd`.
    pub name: &'static str,
    /// One line.
    pub about: &'static str,
    /// Its synopsis.
    pub usage: &'static str,
    /// Its own long options, without the dashes (`=`: takes a value).
    pub options: &'static [&'static str],
    /// Whether it also takes a run's options (DiskSpd's letters and the long options).
    pub run_options: bool,
    /// The words its first argument may be (preset names), when they are known.
    pub first: fn() -> Vec<&'static str>,
}

fn no_words() -> Vec<&'static str> {
    Vec::new()
}

fn command_names() -> Vec<&'static str> {
    SUBCOMMANDS.iter().map(|c| c.name).collect()
}

/// Every subcommand, in the order `-?` lists them.
pub const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "sweep",
        about: "run a command line over lists of -o/-t/-b/-w values; --slo finds the best rate under a latency target",
        usage: "iospd sweep [--slo=pXX:<n>us|ms] [--repeat=N] [--pause=S] <options with lists> <target>",
        options: &["slo="],
        run_options: true,
        first: no_words,
    },
    Subcommand {
        name: "replay",
        about: "replay a recorded trace (blktrace, blkparse, tracefs or perf block events, fio iolog, iospd --trace) on its schedule",
        usage: crate::replay::command::USAGE,
        options: &crate::replay::command::OPTIONS,
        run_options: true,
        first: no_words,
    },
    Subcommand {
        name: "fio",
        about: "run fio job files with iospd's engine (-Rp: print each job's iospd command line)",
        usage: super::fio::USAGE,
        options: &[],
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "preset",
        about: "run a named suite (cdm, cdm-nvme, iops, latency, oltp, olap, hci)",
        usage: super::preset::USAGE,
        options: super::preset::OPTIONS,
        run_options: false,
        first: super::preset::names,
    },
    Subcommand {
        name: "verify",
        about: "re-read and check every block a --verify run wrote",
        usage: super::verify::USAGE,
        options: super::verify::OPTIONS,
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "report",
        about: "render a JSON result again, as text, XML, JSON, HTML or CSV",
        usage: super::report::USAGE,
        options: super::report::OPTIONS,
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "merge",
        about: "one result from many runs",
        usage: super::merge::USAGE,
        options: super::merge::OPTIONS,
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "compare",
        about: "the change between two results, and whether it is noise",
        usage: super::compare::USAGE,
        options: super::compare::OPTIONS,
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "trace-dump",
        about: "print a --trace file as CSV",
        usage: super::trace_dump::USAGE,
        options: super::trace_dump::OPTIONS,
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "data-check",
        about: "what lz4, zstd, zlib and deduplication make of a file's or device's data",
        usage: super::data_check::USAGE,
        options: super::data_check::OPTIONS,
        run_options: false,
        first: no_words,
    },
    Subcommand {
        name: "help",
        about: "this text, or one command's usage",
        usage: "iospd help [command]",
        options: &[],
        run_options: false,
        first: command_names,
    },
];

/// The text of `-?`, `--help` and `iospd help`: the options, then the subcommands.
pub fn usage() -> String {
    let mut text = crate::cli::help::usage();
    text.push_str("Commands (iospd <command> --help for one):\n");
    for c in SUBCOMMANDS {
        crate::cli::help::push_line(&mut text, c.name, c.about);
    }
    text.push_str("\nMore: man iospd (doc/iospd.1), iospd --completions=bash|zsh|fish.\n");
    text
}

/// Whether `name` is one of iospd's own commands.
pub fn is_command(name: &str) -> bool {
    SUBCOMMANDS.iter().any(|c| c.name == name)
}

/// `iospd help <name>` and `iospd <name> --help`: a command's description and usage line.
pub fn command_usage(name: &str) -> Option<String> {
    let c = SUBCOMMANDS.iter().find(|c| c.name == name)?;
    Some(format!("{}\n\nusage: {}\n", c.about, c.usage))
}

/// `--version`.
pub fn version() -> String {
    format!("iospd {}\n", env!("CARGO_PKG_VERSION"))
}

/// Escapes text for roff.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// The man page, `doc/iospd.1`.
pub fn man_page() -> String {
    let mut m = String::new();
    let _ = writeln!(
        m,
        ".TH IOSPD 1 \"\" \"iospd {}\" \"User Commands\"",
        env!("CARGO_PKG_VERSION")
    );
    m.push_str(".SH NAME\niospd \\- storage load generator and latency meter, DiskSpd's command line on Linux\n");
    m.push_str(".SH SYNOPSIS\n.B iospd\n[\\fIoptions\\fR] \\fItarget\\fR ...\n.br\n");
    for c in SUBCOMMANDS {
        let _ = writeln!(m, ".B {}\n.br", roff(c.usage));
    }
    m.push_str(
        ".SH DESCRIPTION\n\
         iospd keeps a chosen number of reads and writes in flight against files or block devices \
         from many threads and reports IOPS, throughput, CPU use and latency percentiles, in \
         DiskSpd's text, XML, JSON or HTML. DiskSpd's options are single letters with their values \
         glued on (\\-b4K, \\-o32) and come before the targets; long options may come anywhere.\n",
    );
    for group in Group::ALL {
        let _ = writeln!(m, ".SH {}", roff(&group.heading().to_uppercase()));
        for flag in FLAGS.iter().filter(|f| f.group == group) {
            for (syntax, doc) in flag.usage {
                let _ = writeln!(m, ".TP\n.B {}\n{}", roff(syntax), roff(doc));
            }
        }
    }
    m.push_str(".SH LINUX OPTIONS\n");
    for flag in LONG_FLAGS {
        let _ = writeln!(m, ".TP\n.B {}\n{}", roff(flag.usage.0), roff(flag.usage.1));
    }
    m.push_str(".SH COMMANDS\n");
    for c in SUBCOMMANDS {
        let _ = writeln!(m, ".TP\n.B {}\n{}", roff(c.usage), roff(c.about));
    }
    m.push_str(
        ".SH EXIT STATUS\n\
         0 on success, 1 when the run failed (an I/O error, a lost target, a bad block under \
         \\-\\-verify), 3 for input iospd refused (nothing is written then), 128 + the signal's \
         number when a signal cut the measured window short (130 for Ctrl\\-C).\n\
         .SH SEE ALSO\nfio(1), the README and doc/ of the iospd source.\n",
    );
    m
}

/// Every option as a shell sees it: DiskSpd letters (`-b`), long options (`--output=`).
fn words() -> (Vec<String>, Vec<String>) {
    let letters = FLAGS.iter().map(|f| format!("-{}", f.letter)).collect();
    let long = LONG_FLAGS
        .iter()
        .map(|f| {
            let syntax = f.usage.0;
            match syntax.split_once('=') {
                Some((name, _)) => format!("{}=", name.trim_end_matches('[')),
                None => syntax.split('[').next().unwrap_or(syntax).to_string(),
            }
        })
        .collect();
    (letters, long)
}

/// The words a shell offers after `-` for `c` (or for a run, when `None`).
fn option_words(c: Option<&Subcommand>, letters: &[String], long: &[String]) -> Vec<String> {
    let mut words: Vec<String> = c.map_or(Vec::new(), |c| {
        c.options.iter().map(|o| format!("--{o}")).collect()
    });
    if c.is_none_or(|c| c.run_options) {
        words.extend(letters.iter().cloned());
        words.extend(long.iter().cloned());
    }
    words
}

/// `--completions=<shell>`: a completion script for bash, zsh or fish. After a subcommand it
/// offers that command's own options (and a run's, for `sweep`), and the preset names after
/// `preset`.
pub fn completions(shell: &str) -> Option<String> {
    let (letters, long) = words();
    let commands = command_names().join(" ");
    let run = option_words(None, &letters, &long).join(" ");
    let cases = |arm: &dyn Fn(&str, &str) -> String| -> String {
        SUBCOMMANDS
            .iter()
            .map(|c| arm(c.name, &option_words(Some(c), &letters, &long).join(" ")))
            .collect()
    };
    let firsts = |arm: &dyn Fn(&str, &str) -> String| -> String {
        SUBCOMMANDS
            .iter()
            .filter(|c| !(c.first)().is_empty())
            .map(|c| arm(c.name, &(c.first)().join(" ")))
            .collect()
    };
    Some(match shell {
        "bash" => format!(
            "# iospd completion for bash: source it, or put it in /usr/share/bash-completion/completions/iospd\n\
             _iospd() {{\n\
             \x20   local cur=${{COMP_WORDS[COMP_CWORD]}} options first\n\
             \x20   case ${{COMP_WORDS[1]}} in\n{}\
             \x20       *) options='{run}' ;;\n\
             \x20   esac\n\
             \x20   case ${{COMP_WORDS[1]}} in\n{}\
             \x20   esac\n\
             \x20   if [[ $cur == -* ]]; then\n\
             \x20       COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n\
             \x20       [[ ${{COMPREPLY[0]}} == *= ]] && compopt -o nospace\n\
             \x20   elif [[ $COMP_CWORD == 1 ]]; then\n\
             \x20       COMPREPLY=($(compgen -W '{commands}' -- \"$cur\") $(compgen -f -- \"$cur\"))\n\
             \x20   elif [[ $COMP_CWORD == 2 && -n $first ]]; then\n\
             \x20       COMPREPLY=($(compgen -W \"$first\" -- \"$cur\"))\n\
             \x20   else\n\
             \x20       COMPREPLY=($(compgen -f -- \"$cur\"))\n\
             \x20   fi\n\
             }}\n\
             complete -F _iospd iospd\n",
            cases(&|name, words| format!("        {name}) options='{words}' ;;\n")),
            firsts(&|name, words| format!("        {name}) first='{words}' ;;\n")),
        ),
        "zsh" => format!(
            "#compdef iospd\n\
             # iospd completion for zsh: put it on $fpath as _iospd\n\
             _iospd() {{\n\
             \x20   local -a options first\n\
             \x20   case ${{words[2]}} in\n{}\
             \x20       *) options=({run}) ;;\n\
             \x20   esac\n\
             \x20   case ${{words[2]}} in\n{}\
             \x20   esac\n\
             \x20   if [[ $PREFIX == -* ]]; then\n\
             \x20       compadd -S '' -- $options\n\
             \x20   elif (( CURRENT == 2 )); then\n\
             \x20       compadd -- {commands}\n\
             \x20       _files\n\
             \x20   elif (( CURRENT == 3 && ${{#first}} )); then\n\
             \x20       compadd -- $first\n\
             \x20   else\n\
             \x20       _files\n\
             \x20   fi\n\
             }}\n\
             _iospd \"$@\"\n",
            cases(&|name, words| format!("        {name}) options=({words}) ;;\n")),
            firsts(&|name, words| format!("        {name}) first=({words}) ;;\n")),
        ),
        "fish" => fish(&long),
        _ => return None,
    })
}

/// The fish script: fish describes each option and command itself, so it takes no case arms.
fn fish(long: &[String]) -> String {
    let mut s = String::from(
        "# iospd completion for fish: put it in ~/.config/fish/completions/iospd.fish\n",
    );
    for c in SUBCOMMANDS {
        let _ = writeln!(
            s,
            "complete -c iospd -n '__fish_use_subcommand' -a {} -d '{}'",
            c.name,
            c.about.replace('\'', "\\'")
        );
        for option in c.options {
            let _ = writeln!(
                s,
                "complete -c iospd -n '__fish_seen_subcommand_from {}' -l {}{}",
                c.name,
                option.trim_end_matches('='),
                if option.ends_with('=') { " -r" } else { "" }
            );
        }
        let first = (c.first)();
        if !first.is_empty() {
            let _ = writeln!(
                s,
                "complete -c iospd -n '__fish_seen_subcommand_from {}' -f -a '{}'",
                c.name,
                first.join(" ")
            );
        }
    }
    for (flag, word) in LONG_FLAGS.iter().zip(long) {
        let name = word.trim_start_matches("--").trim_end_matches('=');
        let _ = writeln!(
            s,
            "complete -c iospd -l {name}{} -d '{}'",
            if word.ends_with('=') { " -r" } else { "" },
            flag.usage.1.replace('\'', "\\'")
        );
    }
    for flag in FLAGS {
        if let Some((_, doc)) = flag.usage.first() {
            let _ = writeln!(
                s,
                "complete -c iospd -o '{}' -d '{}'",
                flag.letter,
                doc.replace('\'', "\\'")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_fits_80_columns_and_lists_every_command() {
        let text = usage();
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "too wide: {line}");
        }
        for c in SUBCOMMANDS {
            assert!(text.contains(c.name), "{}", c.name);
            assert!(command_usage(c.name).unwrap().contains(c.usage));
        }
    }

    #[test]
    fn the_man_page_in_doc_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/doc/iospd.1");
        let page = man_page();
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(path, &page).unwrap();
        }
        let saved = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            saved == page,
            "doc/iospd.1 is not the page the option tables make; run UPDATE_GOLDEN=1 cargo test the_man_page"
        );
        for flag in LONG_FLAGS {
            assert!(page.contains(&roff(flag.usage.0)), "{}", flag.usage.0);
        }
    }

    #[test]
    fn completions_name_every_option_and_command() {
        for shell in ["bash", "zsh", "fish"] {
            let script = completions(shell).unwrap();
            for c in SUBCOMMANDS {
                assert!(script.contains(c.name), "{shell}: {}", c.name);
            }
            assert!(script.contains("output"), "{shell}");
            assert!(script.contains("-b") || script.contains("'b'"), "{shell}");
            // Each command's own options, and the preset names after `preset`.
            assert!(script.contains("noise-from"), "{shell}");
            assert!(script.contains("verify-state"), "{shell}");
            assert!(script.contains("seconds"), "{shell}");
            assert!(script.contains("cdm-nvme"), "{shell}");
        }
        assert!(completions("tcsh").is_none());
    }
}
