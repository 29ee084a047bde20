//! Splits argv into option and target tokens by DiskSpd's rules, adapted to Linux.
//!
//! Only `-` starts an option: `/` begins absolute paths on Linux. Every option is one token with its
//! value glued on, DiskSpd's letters come before targets, and `--name[=value]` (before or after the
//! targets) is reserved for Linux-only settings so they can never collide with a DiskSpd letter.

use std::ffi::OsString;
use std::path::PathBuf;

use super::CliError;

/// One word of the command line, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A DiskSpd option: `-o32` is letter `o` with value `32`.
    Short {
        /// The character after the dash.
        letter: char,
        /// Everything after the letter.
        value: String,
    },
    /// A Linux-only long option: `--engine=psync`.
    Long {
        /// The name without dashes.
        name: String,
        /// The text after `=`, if any.
        value: Option<String>,
    },
    /// A target path.
    Target(PathBuf),
}

/// Dashes that look like `-` but are not; pasted command lines from documents carry them.
const LOOKALIKE_DASHES: [(char, &str); 7] = [
    ('\u{2010}', "a Unicode hyphen (U+2010)"),
    ('\u{2011}', "a non-breaking hyphen (U+2011)"),
    ('\u{2012}', "a figure dash (U+2012)"),
    ('\u{2013}', "an en dash (U+2013)"),
    ('\u{2014}', "an em dash (U+2014)"),
    ('\u{2212}', "a minus sign (U+2212)"),
    ('\u{FF0D}', "a fullwidth hyphen (U+FF0D)"),
];

/// Classifies every argument after the program name.
pub fn lex(args: &[OsString]) -> Result<Vec<Token>, CliError> {
    let mut tokens = Vec::with_capacity(args.len());
    let mut first_target: Option<String> = None;
    for arg in args {
        let text = arg.to_str();
        let starts_option = arg.as_encoded_bytes().first() == Some(&b'-');
        if starts_option {
            let Some(text) = text else {
                return Err(CliError::NotUtf8(arg.to_string_lossy().into_owned()));
            };
            // DiskSpd's letters come before the targets, as DiskSpd wants; long options never
            // existed there, and Linux users put them anywhere.
            if let Some(target) = &first_target
                && !text.starts_with("--")
            {
                return Err(CliError::OptionAfterTarget {
                    option: text.to_string(),
                    target: target.clone(),
                });
            }
            tokens.push(option_token(text)?);
            continue;
        }
        if let Some(text) = text
            && let Some(first) = text.chars().next()
            && let Some((_, name)) = LOOKALIKE_DASHES.iter().find(|(c, _)| *c == first)
        {
            return Err(CliError::LookalikeDash {
                token: text.to_string(),
                dash: name,
                fixed: format!("-{}", &text[first.len_utf8()..]),
            });
        }
        if arg.is_empty() {
            return Err(CliError::EmptyArgument);
        }
        if arg.to_str().is_some_and(|t| t.trim().is_empty()) {
            return Err(CliError::BlankTarget(format!("{arg:?}")));
        }
        first_target.get_or_insert_with(|| arg.to_string_lossy().into_owned());
        tokens.push(Token::Target(PathBuf::from(arg)));
    }
    Ok(tokens)
}

fn option_token(text: &str) -> Result<Token, CliError> {
    if let Some(long) = text.strip_prefix("--") {
        if long.is_empty() {
            return Err(CliError::UnknownOption(text.to_string()));
        }
        let (name, value) = match long.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (long.to_string(), None),
        };
        return Ok(Token::Long { name, value });
    }
    let mut chars = text[1..].chars();
    let Some(letter) = chars.next() else {
        return Err(CliError::LoneDash);
    };
    Ok(Token::Short {
        letter,
        value: chars.as_str().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex_strs(args: &[&str]) -> Result<Vec<Token>, CliError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        lex(&args)
    }

    fn short(letter: char, value: &str) -> Token {
        Token::Short {
            letter,
            value: value.to_string(),
        }
    }

    #[test]
    fn options_then_targets() {
        let tokens = lex_strs(&["-o32", "-b4K", "-Sh", "/mnt/t.dat", "b.dat"]).unwrap();
        assert_eq!(
            tokens,
            vec![
                short('o', "32"),
                short('b', "4K"),
                short('S', "h"),
                Token::Target(PathBuf::from("/mnt/t.dat")),
                Token::Target(PathBuf::from("b.dat")),
            ]
        );
    }

    #[test]
    fn slash_is_a_path_not_an_option() {
        let tokens = lex_strs(&["/dev/sdb"]).unwrap();
        assert_eq!(tokens, vec![Token::Target(PathBuf::from("/dev/sdb"))]);
    }

    #[test]
    fn long_options() {
        let tokens = lex_strs(&["--engine=psync", "--force"]).unwrap();
        assert_eq!(
            tokens,
            vec![
                Token::Long {
                    name: "engine".into(),
                    value: Some("psync".into())
                },
                Token::Long {
                    name: "force".into(),
                    value: None
                },
            ]
        );
    }

    #[test]
    fn option_after_target_is_an_error() {
        let err = lex_strs(&["a.dat", "-o4"]).unwrap_err();
        assert_eq!(
            err,
            CliError::OptionAfterTarget {
                option: "-o4".into(),
                target: "a.dat".into()
            }
        );
    }

    #[test]
    fn en_dash_is_explained() {
        let err = lex_strs(&["-d300", "\u{2013}t16", "x.dat"]).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("en dash"), "{message}");
        assert!(message.contains("'-t16'"), "{message}");
    }

    #[test]
    fn lone_dash_and_empty_argument() {
        assert_eq!(lex_strs(&["-"]).unwrap_err(), CliError::LoneDash);
        assert_eq!(lex_strs(&[""]).unwrap_err(), CliError::EmptyArgument);
        assert_eq!(
            lex_strs(&[" \t"]).unwrap_err(),
            CliError::BlankTarget("\" \\t\"".into())
        );
        assert!(matches!(
            lex_strs(&["--"]).unwrap_err(),
            CliError::UnknownOption(_)
        ));
    }
}
