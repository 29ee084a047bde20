//! `System information`: the machine as DiskSpd prints it.

use std::fmt::Write as _;

use crate::system::{CacheKind, SystemInfo};
use crate::units::format_size;

/// The `System information` block.
pub fn system_text(system: &SystemInfo, start: &str) -> String {
    let mut out = String::from("System information:\n\n");
    let mut field = |label: &str, value: &str| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    field("computer name", &system.computer_name);
    field("processor name", &system.processor_name);
    field("start time", start);
    // DiskSpd leaves the line out when it cannot tell.
    if !system.power_scheme.is_empty() {
        field("active power scheme", &system.power_scheme);
    }
    field("page size", &format_size(system.page_size));
    out.push('\n');
    let mut field = |label: &str, value: String| {
        let _ = writeln!(out, "  {:<22}{value}", format!("{label}:"));
    };
    field("cpu count", system.cpus.len().to_string());
    field("core count", system.core_count().to_string());
    field("group count", "1".into());
    field("node count", system.node_count().to_string());
    field("socket count", system.socket_count().to_string());
    field(
        "heterogeneous cores",
        if system.heterogeneous() { "y" } else { "n" }.into(),
    );
    if !system.caches.is_empty() {
        out.push_str("\n  cache information:\n\n");
        out.push_str("    Cache |   Size   | Line  | Assoc  | CPU\n");
        out.push_str("    -------------------------------------------------------\n");
        for cache in &system.caches {
            let name = match cache.kind {
                CacheKind::Data => format!("L{}d", cache.level),
                CacheKind::Instruction => format!("L{}i", cache.level),
                CacheKind::Unified => format!("L{}", cache.level),
            };
            let _ = writeln!(
                out,
                "    {name:<6}| {:>8} | {:>5} | {:>6} | {}",
                format_size(cache.size),
                format_size(cache.line as u64),
                format!("{}-way", cache.ways),
                cache.cpus
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_power_scheme_line_is_left_out_when_linux_has_none() {
        let mut system = SystemInfo {
            power_scheme: "powersave (balance_performance)".into(),
            page_size: 4096,
            ..SystemInfo::default()
        };
        let text = system_text(&system, "2026/11/25 12:00:00 UTC");
        assert!(
            text.contains("  active power scheme:  powersave (balance_performance)\n"),
            "{text}"
        );
        system.power_scheme.clear();
        let text = system_text(&system, "2026/11/25 12:00:00 UTC");
        assert!(!text.contains("power scheme"), "{text}");
    }
}
