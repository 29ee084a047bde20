//! The option table: one entry per DiskSpd letter and per Linux-only long option.
//!
//! Each entry carries its usage lines, grouped as DiskSpd's help groups them (the help text is
//! generated from this table), and the function that reads its value into [`RawArgs`]. Errors are
//! the reason and the fix; the caller prefixes the offending token.

mod letters;
mod long;
mod values;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use crate::profile::raw::RawArgs;
use crate::units::{Size, UnitError, parse_in_range, parse_size};

pub use letters::FLAGS;
pub use long::LONG_FLAGS;
pub use values::{
    apply_affinity, apply_buffer_separation, apply_cache, apply_compress, apply_counters,
    apply_dedupe, apply_distribution, apply_event, apply_flush, apply_io_ring, apply_metrics,
    apply_result_format, apply_skew, apply_trim, apply_work_bytes, apply_work_ios, parse_cpu_set,
};

/// Reads the value after the letter into the raw arguments, or says what is wrong and how to fix it.
pub type Apply = fn(&str, &mut RawArgs) -> Result<(), String>;

/// The help section an option is listed in (DiskSpd's grouping, plus Linux options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// "Available options".
    General,
    /// "Write buffers".
    WriteBuffers,
    /// "Synchronization".
    Synchronization,
    /// "Event Tracing" (Linux counters here).
    Counters,
}

impl Group {
    /// The heading of the group in the usage text.
    pub fn heading(self) -> &'static str {
        match self {
            Group::General => "Available options",
            Group::WriteBuffers => "Write buffers",
            Group::Synchronization => "Synchronization (named events are files in /dev/shm)",
            Group::Counters => "Event counters (DiskSpd's ETW groups, read from /proc)",
        }
    }

    /// Every group in usage order.
    pub const ALL: [Group; 4] = [
        Group::General,
        Group::WriteBuffers,
        Group::Synchronization,
        Group::Counters,
    ];
}

/// A DiskSpd option: `-<letter><value>`.
pub struct Flag {
    /// The character after `-`.
    pub letter: char,
    /// Where the usage lists it.
    pub group: Group,
    /// Starts of the value that make another option of the same letter (`-oc8` is the completion
    /// batch, not `-o`): a command line replaces one without touching the other.
    pub forms: &'static [&'static str],
    /// Usage lines: the syntax and what it does.
    pub usage: &'static [(&'static str, &'static str)],
    /// Reads the value.
    pub apply: Apply,
}

/// A Linux-only option: `--<name>[=value]`.
pub struct LongFlag {
    /// The name after `--`.
    pub name: &'static str,
    /// The syntax and what it does.
    pub usage: (&'static str, &'static str),
    /// Reads the value (`None` when no `=` was typed).
    pub apply: fn(Option<&str>, &mut RawArgs) -> Result<(), String>,
}

pub use crate::profile::{MAX_CPU, MAX_OUTSTANDING, MAX_THREADS};

/// Finds the entry for a letter.
pub fn find(letter: char) -> Option<&'static Flag> {
    FLAGS.iter().find(|flag| flag.letter == letter)
}

/// Finds the entry for a long name.
pub fn find_long(name: &str) -> Option<&'static LongFlag> {
    LONG_FLAGS.iter().find(|flag| flag.name == name)
}

fn unit(error: UnitError, example: &str) -> String {
    format!("{error}; for example {example}")
}

fn once<T>(slot: &mut Option<T>, value: T) -> Result<(), String> {
    if slot.is_some() {
        return Err("this option was already given; give each option once".into());
    }
    *slot = Some(value);
    Ok(())
}

/// A file name given as `--name=<file>`.
fn file_value(value: Option<&str>, example: &str) -> Result<PathBuf, String> {
    value
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| format!("expects a file name; for example {example}"))
}

fn flag_once(slot: &mut bool) -> Result<(), String> {
    if *slot {
        return Err("this option was already given; give each option once".into());
    }
    *slot = true;
    Ok(())
}

/// A long option that takes no value: `--name`, not `--name=…`.
fn no_long_value(value: Option<&str>, name: &str) -> Result<(), String> {
    match value {
        None => Ok(()),
        Some(_) => Err(format!("takes no value; give --{name}")),
    }
}

fn no_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "this option takes no value, but '{value}' follows it"
        ))
    }
}

/// A size that must not be zero.
fn positive_size(value: &str, example: &str, what: &str) -> Result<Size, String> {
    let size = parse_size(value).map_err(|e| unit(e, example))?;
    if size == Size::Bytes(0) || size == Size::Blocks(0) {
        return Err(format!(
            "{what} must be greater than 0; for example {example}"
        ));
    }
    Ok(size)
}

/// DiskSpd reads `-W` and `-C` with `atoi`, so a bare `-W` means 0 seconds.
fn seconds_or_zero(value: &str, example: &str) -> Result<u32, String> {
    if value.is_empty() {
        return Ok(0);
    }
    parse_in_range(value, 0, u32::MAX as u64)
        .map(|s| s as u32)
        .map_err(|e| unit(e, example))
}
