//! `--ioprio-split`: a share of a target's reads and writes, of every size or of one size, issued
//! with an I/O priority of their own; the rest keep the target's (`-I`/`--ioprio`). fio's
//! `cmdprio_percentage` and `cmdprio_bssplit`; the report gives each priority's latency apart.

use serde::{Deserialize, Serialize};

use super::{IoClass, IoPriority};

/// One rule: `percent` % of the I/Os (of `size` bytes, or of every size) at `priority`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityRule {
    /// The I/O size it applies to; `None`: every size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The share of those I/Os, 1–100.
    pub percent: u8,
    /// Their class and level.
    pub class: IoClass,
    /// 0 (highest) to 7.
    pub level: u8,
}

impl PriorityRule {
    /// The value io_uring takes for the I/O.
    pub fn linux_ioprio(&self) -> u16 {
        IoPriority::Class {
            class: self.class,
            level: self.level,
        }
        .linux_ioprio()
    }
}

/// The rules of reads and of writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoprioSplit {
    /// For reads.
    pub read: Vec<PriorityRule>,
    /// For writes.
    pub write: Vec<PriorityRule>,
}

const HINT: &str = "for example --ioprio-split=20/rt/0 (a fifth of the I/Os real time, level 0) or --ioprio-split=64K/25/rt/1:64K/75/idle/0,";

impl IoprioSplit {
    /// Reads `<rules>[,<write rules>]`: rules `[<size>/]<percent>/<class>/<level>` joined by `:`
    /// (class `rt`, `be`, `idle` or 1–3; level 0–7); one list is both directions', an empty one
    /// none. The shares of one size (or of every size) add up to at most 100.
    pub fn parse(text: &str) -> Result<IoprioSplit, String> {
        let lists: Vec<&str> = text.split(',').collect();
        if lists.len() > 2 {
            return Err(format!(
                "'{text}' has more than two lists (reads, writes); {HINT}"
            ));
        }
        let read = rules(lists[0])?;
        let write = match lists.get(1) {
            Some(list) => rules(list)?,
            None => read.clone(),
        };
        if read.is_empty() && write.is_empty() {
            return Err(format!("'{text}' gives no rule; {HINT}"));
        }
        Ok(IoprioSplit { read, write })
    }

    /// The rules of `op` (reads, writes; none for the others).
    pub fn rules(&self, op: crate::engine::Op) -> &[PriorityRule] {
        match op {
            crate::engine::Op::Read => &self.read,
            crate::engine::Op::Write => &self.write,
            _ => &[],
        }
    }

    /// The distinct priorities the rules give, in order of first appearance.
    pub fn priorities(&self) -> Vec<u16> {
        let mut seen = Vec::new();
        for rule in self.read.iter().chain(&self.write) {
            let p = rule.linux_ioprio();
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
        seen
    }
}

fn rules(list: &str) -> Result<Vec<PriorityRule>, String> {
    let mut out: Vec<PriorityRule> = Vec::new();
    for text in list.split(':').filter(|r| !r.is_empty()) {
        let parts: Vec<&str> = text.split('/').collect();
        let (size, rest) = match parts.len() {
            3 => (None, &parts[..]),
            4 => {
                let size = match crate::units::parse_size(parts[0]) {
                    Ok(crate::units::Size::Bytes(bytes)) if bytes > 0 => Some(bytes),
                    _ => None,
                }
                .ok_or_else(|| format!("'{}' in '{text}' is not a size; {HINT}", parts[0]))?;
                (Some(size), &parts[1..])
            }
            _ => {
                return Err(format!(
                    "'{text}' is not [<size>/]<percent>/<class>/<level>; {HINT}"
                ));
            }
        };
        let percent: u8 = rest[0]
            .parse()
            .ok()
            .filter(|p| (0..=100).contains(p))
            .ok_or_else(|| format!("'{}' in '{text}' is not a percentage (0-100)", rest[0]))?;
        let class = match IoPriority::parse_class(rest[1]) {
            Ok(IoPriority::Class { class, .. }) => class,
            _ => {
                return Err(format!(
                    "'{}' in '{text}' is not an I/O priority class (rt, be, idle or 1-3)",
                    rest[1]
                ));
            }
        };
        let level: u8 = rest[2]
            .parse()
            .ok()
            .filter(|l| *l <= 7)
            .ok_or_else(|| format!("'{}' in '{text}' is not a level (0-7)", rest[2]))?;
        // A share of 0 gives nothing its priority (fio's way of naming a size it leaves alone).
        if percent == 0 {
            continue;
        }
        let total: u32 = out
            .iter()
            .filter(|r| r.size == size)
            .map(|r| u32::from(r.percent))
            .sum::<u32>()
            + u32::from(percent);
        if total > 100 {
            return Err(format!(
                "the shares of {} add up to {total}%, more than all of them",
                size.map_or("every size".into(), crate::units::format_size)
            ));
        }
        out.push(PriorityRule {
            size,
            percent,
            class,
            level,
        });
    }
    Ok(out)
}

/// As `--ioprio-split` reads it.
impl std::fmt::Display for IoprioSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |rules: &[PriorityRule]| -> String {
            rules
                .iter()
                .map(|r| {
                    let size = r.size.map(|s| format!("{s}/")).unwrap_or_default();
                    format!("{size}{}/{}/{}", r.percent, r.class.name(), r.level)
                })
                .collect::<Vec<_>>()
                .join(":")
        };
        match self.read == self.write {
            true => f.write_str(&list(&self.read)),
            false => write!(f, "{},{}", list(&self.read), list(&self.write)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_as_fio_writes_cmdprio_bssplit_and_print_back() {
        let split = IoprioSplit::parse("20/rt/0").unwrap();
        assert_eq!(split.read, split.write);
        assert_eq!(
            split.read,
            [PriorityRule {
                size: None,
                percent: 20,
                class: IoClass::Rt,
                level: 0
            }]
        );
        assert_eq!(split.to_string(), "20/rt/0");
        let split = IoprioSplit::parse("64K/25/1/1:64K/75/3/2:1M/0/1/0,").unwrap();
        assert_eq!(split.read.len(), 2);
        assert!(split.write.is_empty());
        assert_eq!(split.read[1].linux_ioprio(), 3 << 13 | 2);
        assert_eq!(split.to_string(), "65536/25/rt/1:65536/75/idle/2,");
        assert_eq!(IoprioSplit::parse(&split.to_string()).unwrap(), split);
        assert_eq!(split.priorities(), [1 << 13 | 1, 3 << 13 | 2]);
    }

    #[test]
    fn bad_rules_are_named() {
        for (text, says) in [
            ("20/rt", "is not [<size>/]<percent>"),
            ("120/rt/0", "not a percentage"),
            ("20/xx/0", "not an I/O priority class"),
            ("20/be/8", "not a level"),
            ("4Q/20/be/1", "not a size"),
            ("60/rt/0:50/be/0", "add up to 110%"),
            ("1,2,3", "more than two lists"),
            ("0/rt/0", "gives no rule"),
        ] {
            let error = IoprioSplit::parse(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
