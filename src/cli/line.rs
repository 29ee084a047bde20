//! A DiskSpd command line as the lexer's tokens, changed by option: iospd's own commands (a sweep's
//! points, a latency search's steps) make the command lines of the runs they start by setting and
//! removing options, never by editing text.
//!
//! An option is known by its letter and, where the flag table names one, its form (`-oc8` is the
//! completion batch, not `-o`), or by its long name; its value does not take part. What a line means
//! is read by [`super::parse`], the one grammar.

use std::ffi::OsString;
use std::path::PathBuf;

use super::lex::{Token, lex};
use super::{CliError, Command, RawArgs, flags};

/// A command line's tokens: options in the order given, then the targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    tokens: Vec<Token>,
}

/// What an option is, whatever its value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Short(char, &'static str),
    Long(String),
}

fn key(token: &Token) -> Option<Key> {
    match token {
        Token::Short { letter, value } => {
            let form = flags::find(*letter)
                .and_then(|flag| flag.forms.iter().find(|f| value.starts_with(**f)))
                .copied()
                .unwrap_or("");
            Some(Key::Short(*letter, form))
        }
        Token::Long { name, .. } => Some(Key::Long(name.clone())),
        Token::Target(_) => None,
    }
}

/// The one option in `text` (`-d20`, `--percentiles=99`).
fn option(text: &str) -> Token {
    match lex(&[OsString::from(text)]).ok().as_deref() {
        Some([token @ (Token::Short { .. } | Token::Long { .. })]) => token.clone(),
        _ => panic!("'{text}' is not one option"),
    }
}

impl Line {
    /// Splits `args` by DiskSpd's rules (an option after a target, a lone dash, … are refused).
    pub fn lex(args: &[String]) -> Result<Line, CliError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        Ok(Line {
            tokens: lex(&args)?,
        })
    }

    /// The arguments, options first.
    pub fn args(&self) -> Vec<String> {
        let text = |t: &Token| match t {
            Token::Short { letter, value } => format!("-{letter}{value}"),
            Token::Long { name, value: None } => format!("--{name}"),
            Token::Long {
                name,
                value: Some(value),
            } => format!("--{name}={value}"),
            Token::Target(path) => path.to_string_lossy().into_owned(),
        };
        let (targets, options): (Vec<&Token>, Vec<&Token>) = self
            .tokens
            .iter()
            .partition(|t| matches!(t, Token::Target(_)));
        options.into_iter().chain(targets).map(text).collect()
    }

    /// What the line asks a run to do, read by the one grammar.
    pub fn raw(&self) -> Result<Box<RawArgs>, CliError> {
        let args: Vec<OsString> = self.args().into_iter().map(OsString::from).collect();
        match super::parse(&args)? {
            Command::Run(raw) => Ok(raw),
            _ => Err(CliError::NoTarget),
        }
    }

    /// The targets.
    pub fn targets(&self) -> Vec<PathBuf> {
        self.tokens
            .iter()
            .filter_map(|t| match t {
                Token::Target(path) => Some(path.clone()),
                _ => None,
            })
            .collect()
    }

    /// Removes every target.
    pub fn clear_targets(&mut self) {
        self.tokens.retain(|t| !matches!(t, Token::Target(_)));
    }

    /// Adds a target after the others.
    pub fn add_target(&mut self, path: PathBuf) {
        self.tokens.push(Token::Target(path));
    }

    /// The values the option of `text` is given (`"-o"` finds `-o32` but not `-oc8`; a long option
    /// given without `=` has the value "").
    pub fn values(&self, text: &str) -> Vec<String> {
        let wanted = key(&option(text));
        self.tokens
            .iter()
            .filter(|t| key(t) == wanted)
            .map(|t| match t {
                Token::Short { value, .. } => {
                    let form = match &wanted {
                        Some(Key::Short(_, form)) => form.len(),
                        _ => 0,
                    };
                    value[form..].to_string()
                }
                Token::Long { value, .. } => value.clone().unwrap_or_default(),
                Token::Target(_) => unreachable!("targets have no key"),
            })
            .collect()
    }

    /// Whether the option of `text` is given.
    pub fn has(&self, text: &str) -> bool {
        let wanted = key(&option(text));
        self.tokens.iter().any(|t| key(t) == wanted)
    }

    /// Removes the option of `text`, whatever its values; whether it was there.
    pub fn remove(&mut self, text: &str) -> bool {
        let wanted = key(&option(text));
        let before = self.tokens.len();
        self.tokens.retain(|t| key(t) != wanted);
        self.tokens.len() != before
    }

    /// Sets the option `text` (`-d20`): it takes the place of the same option given before, or
    /// comes after the other options.
    pub fn set(&mut self, text: &str) {
        let token = option(text);
        let wanted = key(&token);
        match self.tokens.iter().position(|t| key(t) == wanted) {
            Some(at) => {
                self.tokens[at] = token;
                let mut seen = 0;
                self.tokens.retain(|t| {
                    let same = key(t) == wanted;
                    seen += same as usize;
                    !same || seen == 1
                });
            }
            None => {
                let at = self
                    .tokens
                    .iter()
                    .position(|t| matches!(t, Token::Target(_)))
                    .unwrap_or(self.tokens.len());
                self.tokens.insert(at, token);
            }
        }
    }
}

/// A command line as a shell reads it: each argument quoted where it needs to be, so the printed
/// line runs the same test when pasted.
pub fn shell_line(args: &[String]) -> String {
    let mut words = vec!["iospd".to_string()];
    words.extend(args.iter().map(|a| quote(a)));
    words.join(" ")
}

/// `word` as a POSIX shell reads it back: as it is when every character is one a shell leaves
/// alone, else in single quotes (a quote inside becomes `'\''`).
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line {
        Line::lex(&text.split(' ').map(str::to_string).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn an_option_is_known_by_its_letter_and_form_not_its_spelling() {
        let mut l = line("-oc8 -o4 -b4K -bsp -r -rs50 t.dat");
        assert_eq!(l.values("-o"), ["4"]);
        assert_eq!(l.values("-oc"), ["8"]);
        assert_eq!(l.values("-r"), [""]);
        assert_eq!(l.values("-rs"), ["50"]);
        l.set("-o32");
        l.set("-b64K");
        assert_eq!(l.args().join(" "), "-oc8 -o32 -b64K -bsp -r -rs50 t.dat");
        assert!(l.remove("-r"));
        assert!(!l.remove("-d"));
        assert_eq!(l.args().join(" "), "-oc8 -o32 -b64K -bsp -rs50 t.dat");
    }

    #[test]
    fn a_new_option_comes_before_the_targets_and_replaces_every_earlier_one() {
        let mut l = line("-d3 -b4K -d5 a.dat b.dat --repeat=2");
        l.set("-d20");
        l.set("-Rjson");
        l.set("--percentiles=99");
        assert_eq!(
            l.args().join(" "),
            "-d20 -b4K -Rjson --percentiles=99 --repeat=2 a.dat b.dat"
        );
        assert_eq!(l.values("--repeat"), ["2"]);
        assert_eq!(l.targets().len(), 2);
        let raw = l.raw().unwrap();
        assert_eq!(raw.duration, Some(20));
    }

    #[test]
    fn what_the_grammar_refuses_is_refused() {
        let args: Vec<String> = ["t.dat", "-b4K"].map(String::from).to_vec();
        assert!(Line::lex(&args).is_err());
        assert!(line("-b4Q t.dat").raw().is_err());
    }
}
