//! `--mem-policy`: the NUMA memory policy of the run's threads (set_mempolicy(2) on the process
//! before its threads start, which they inherit), so their buffers come from the nodes it names
//! (fio's `numa_mem_policy`).

use serde::{Deserialize, Serialize};

/// How memory is placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemMode {
    /// From the node of the CPU that touches it first (MPOL_LOCAL).
    Local,
    /// Only from the nodes (MPOL_BIND).
    Bind,
    /// From the node, or from others when it has none free (MPOL_PREFERRED).
    Prefer,
    /// Page by page across the nodes in turn (MPOL_INTERLEAVE).
    Interleave,
}

/// A policy and its nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemPolicy {
    /// How.
    pub mode: MemMode,
    /// The nodes, ascending (none for `local`; one for `prefer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<u32>,
}

const HINT: &str = "give local, bind:<nodes>, prefer:<node> or interleave:<nodes>, for example --mem-policy=interleave:0-1";

impl MemPolicy {
    /// Reads `local`, `bind:<nodes>`, `prefer:<node>` or `interleave:<nodes>` (nodes as a CPU
    /// list: `0`, `0-1`, `0,2`).
    pub fn parse(text: &str) -> Result<MemPolicy, String> {
        let (mode, nodes) = text.split_once(':').unwrap_or((text, ""));
        let mode = match mode {
            "local" => MemMode::Local,
            "bind" => MemMode::Bind,
            "prefer" | "preferred" => MemMode::Prefer,
            "interleave" => MemMode::Interleave,
            _ => return Err(format!("'{mode}' is not a memory policy; {HINT}")),
        };
        let nodes = match (mode, nodes) {
            (MemMode::Local, "") => Vec::new(),
            (MemMode::Local, _) => return Err(format!("local takes no nodes; {HINT}")),
            (_, "") => return Err(format!("'{text}' names no nodes; {HINT}")),
            (_, list) => node_list(list)
                .ok_or_else(|| format!("'{list}' is not a list of NUMA nodes (0, 0-1, 0,2)"))?,
        };
        if mode == MemMode::Prefer && nodes.len() != 1 {
            return Err(format!("prefer takes one node; {HINT}"));
        }
        if nodes.iter().any(|&n| n >= 1024) {
            return Err(format!("'{text}': NUMA nodes are numbered below 1024"));
        }
        Ok(MemPolicy { mode, nodes })
    }

    /// The kernel's mode number (`MPOL_*`).
    pub fn mpol(&self) -> i32 {
        match self.mode {
            MemMode::Prefer => 1,
            MemMode::Bind => 2,
            MemMode::Interleave => 3,
            MemMode::Local => 4,
        }
    }
}

/// Nodes as `0`, `0-2`, `0,2` (ascending, once each), or `None`.
fn node_list(list: &str) -> Option<Vec<u32>> {
    let mut nodes = Vec::new();
    for part in list.split(',') {
        let (low, high) = part.split_once('-').unwrap_or((part, part));
        let (low, high): (u32, u32) = (low.parse().ok()?, high.parse().ok()?);
        if low > high || high - low >= 1024 {
            return None;
        }
        nodes.extend(low..=high);
    }
    nodes.sort_unstable();
    nodes.dedup();
    Some(nodes)
}

/// As `--mem-policy` reads it.
impl std::fmt::Display for MemPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            MemMode::Local => return f.write_str("local"),
            MemMode::Bind => "bind",
            MemMode::Prefer => "prefer",
            MemMode::Interleave => "interleave",
        };
        write!(f, "{mode}:{}", crate::units::cpu_list(&self.nodes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_read_as_numactl_and_fio_write_them_and_print_back() {
        for (text, mode, nodes, shown) in [
            (
                "interleave:0-2",
                MemMode::Interleave,
                vec![0, 1, 2],
                "interleave:0-2",
            ),
            ("bind:0,2", MemMode::Bind, vec![0, 2], "bind:0,2"),
            ("preferred:1", MemMode::Prefer, vec![1], "prefer:1"),
            ("local", MemMode::Local, vec![], "local"),
        ] {
            let p = MemPolicy::parse(text).unwrap();
            assert_eq!((p.mode, &p.nodes), (mode, &nodes), "{text}");
            assert_eq!(p.to_string(), shown);
            assert_eq!(MemPolicy::parse(shown).unwrap(), p);
        }
        for bad in [
            "spread:0",
            "bind",
            "prefer:0-1",
            "local:0",
            "bind:x",
            "bind:4096",
        ] {
            assert!(MemPolicy::parse(bad).is_err(), "{bad}");
        }
    }
}
