//! What the ranks say to each other, as JSON (small, and readable when debugging a launch).

use serde::{Deserialize, Serialize};

use crate::run::Refusal;

/// One message between rank 0 and another rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Message {
    /// To rank 0: every check before the first write passed here, or one refused; the host and the
    /// paths this rank would create or write, so that two ranks of one host cannot share one.
    Checked {
        /// The verdict.
        verdict: Result<(), Refusal>,
        /// The host name.
        host: String,
        /// What tells one machine from another with the same name (the boot id).
        machine: String,
        /// The files this rank creates or writes.
        claims: Vec<crate::cluster::claims::FileClaim>,
    },
    /// To rank 0: the threads of the next timespan are set up, or could not be.
    Ready(Result<(), Refusal>),
    /// To rank 0: the timespan ended here, cut short (`true`) or not, or failed.
    Done(Result<bool, Refusal>),
    /// To a rank: rank 0 is still there, waiting for the others.
    Heartbeat,
    /// To a rank: answer pings at once until the decision comes.
    Sync,
    /// To a rank: reply with your clock.
    Ping,
    /// To rank 0: my monotonic clock when the ping arrived.
    Pong(u64),
    /// Either way: a rank stopped (a signal, a failed I/O, a lost target); every rank stops.
    Stop,
    /// To a rank: what every rank does next.
    Decision(Result<Verdict, Refusal>),
    /// Up the tree at the end: the `-D` series of a rank and the ranks below it, per timespan
    /// (base64 of [`crate::stats::series::Series::encode`]).
    Series(Vec<Option<String>>),
    /// To rank 0: this rank's live numbers so far (`--metrics`), for the endpoint rank 0 serves.
    Live(crate::live::metrics::Own),
}

/// Rank 0's decision at one of the points where the ranks agree.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Verdict {
    /// Every check passed on every rank: go on.
    Go,
    /// Start the timespan at this instant of your monotonic clock, which is `wall_unix_ns` on rank
    /// 0's wall clock; rank 0 chose it `margin_ns` ahead.
    Start {
        /// The instant, on the receiving rank's clock.
        at: u64,
        /// The same instant on rank 0's wall clock.
        wall_unix_ns: u64,
        /// How far ahead rank 0 placed it.
        margin_ns: u64,
    },
    /// The timespan is over everywhere; `stopped` when any rank cut it short.
    Ended {
        /// Whether any rank stopped.
        stopped: bool,
    },
}

impl Message {
    /// The message as bytes.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("messages always serialise")
    }

    /// A message from bytes; `None` for bytes no rank of this version sends.
    pub fn decode(bytes: &[u8]) -> Option<Message> {
        serde_json::from_slice(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_survive_the_trip() {
        let messages = [
            Message::Checked {
                verdict: Err(Refusal {
                    code: 3,
                    message: "no".into(),
                }),
                host: "a".into(),
                machine: "a/1".into(),
                claims: vec![crate::cluster::claims::FileClaim {
                    path: "/t".into(),
                    file: "inode 1:2".into(),
                }],
            },
            Message::Pong(u64::MAX),
            Message::Decision(Ok(Verdict::Start {
                at: 1,
                wall_unix_ns: 2,
                margin_ns: 3,
            })),
            Message::Done(Ok(true)),
        ];
        for message in messages {
            assert_eq!(Message::decode(&message.encode()), Some(message));
        }
        assert_eq!(Message::decode(b"{nonsense"), None);
    }
}
