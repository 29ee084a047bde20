//! `--flow=<weight>:<file>` and `--flow-sleep`: the run's share of the I/O of every run on the
//! same flow file (fio's `flow`, `flow_id`, `flow_sleep`); the sharing itself is `worker::flow`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The most weight a thread may have (fio's `FLOW_MAX_WEIGHT`).
pub const MAX_WEIGHT: u32 = 1000;

/// A run's place in a flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    /// Each thread's weight, 1 to [`MAX_WEIGHT`].
    pub weight: u32,
    /// The weights of every thread of the flow added: its threads wait for all of them to join
    /// before their first I/O, so runs started apart start their flow together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u32>,
    /// The file the runs of the flow share.
    pub file: PathBuf,
    /// `--flow-sleep`: how long a thread over its share waits before it looks again, µs (0: it
    /// looks again at once).
    #[serde(default)]
    pub sleep_us: u64,
}

impl Flow {
    /// Reads `<weight>[/<total>]:<file>`.
    pub fn parse(text: &str) -> Result<Flow, String> {
        let hint = "give a weight and the file the runs of the flow share, for example --flow=8:/dev/shm/flow (and --flow=1:/dev/shm/flow in the other run), or with the weights of all the flow's threads added, --flow=8/9:/dev/shm/flow, to start together";
        let (weights, file) = text
            .split_once(':')
            .ok_or_else(|| format!("'{text}' is not <weight>[/<total>]:<file>; {hint}"))?;
        let (weight, total) = match weights.split_once('/') {
            Some((w, t)) => (w, Some(t)),
            None => (weights, None),
        };
        let weight = weight
            .parse::<u32>()
            .ok()
            .filter(|w| (1..=MAX_WEIGHT).contains(w))
            .ok_or_else(|| format!("'{weight}' is not a weight from 1 to {MAX_WEIGHT}; {hint}"))?;
        let total =
            match total {
                None => None,
                Some(t) => Some(t.parse::<u32>().ok().filter(|&t| t >= weight).ok_or_else(
                    || {
                        format!(
                            "'{t}' is not a total of the flow's weights (at least {weight}); {hint}"
                        )
                    },
                )?),
            };
        if file.is_empty() {
            return Err(format!("'{text}' names no file; {hint}"));
        }
        Ok(Flow {
            weight,
            total,
            file: PathBuf::from(file),
            sleep_us: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weight_and_a_file() {
        let f = Flow::parse("8:/dev/shm/f").unwrap();
        assert_eq!((f.weight, f.file.to_str()), (8, Some("/dev/shm/f")));
        let f = Flow::parse("8/9:f").unwrap();
        assert_eq!((f.weight, f.total), (8, Some(9)));
        for bad in ["8", "0:/f", "1001:/f", "x:/f", "3:", "8/7:f", "8/x:f"] {
            assert!(Flow::parse(bad).is_err(), "{bad}");
        }
    }
}
