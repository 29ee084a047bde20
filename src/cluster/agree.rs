//! The agreements: rank 0 collects every rank's answer and sends each the decision.
//!
//! Every wait is bounded. Rank 0 waits for the last answer at most `--peer-timeout` after the
//! latest one arrived (or after it was ready itself) and sends the ranks that answered a heartbeat
//! every quarter of that; a rank waits for the decision at most `--peer-timeout` after it last
//! heard from rank 0. Whoever runs out of time says which rank it waited for and ends the whole
//! job (`MPI_Abort`): a rank that hangs can be neither waited for nor told.
//!
//! Before each start rank 0 measures every rank's clock (see [`super::clocks`]), one rank after
//! the other, [`ROUNDS`] ping-pongs each; it places the start [`margin`] ahead and sends each rank
//! that instant on its own clock. After each timespan it measures them again: the drift.

use std::time::Duration;

use super::Cluster;
use super::claims::{Claim, conflict};
use super::clocks::{Exchange, Offset, estimate};
use super::link::Link;
use super::message::{Message, Verdict};
use crate::clock::monotonic_now;
use crate::report::analysis::cluster::RankClock;
use crate::run::{Alone, Peers, Refusal, Start};

/// Ping-pongs per rank and measurement.
pub const ROUNDS: usize = 16;

/// How often another rank sends rank 0 its live numbers (`--metrics`).
const LIVE_EVERY: Duration = Duration::from_secs(1);

/// How far ahead rank 0 places the start: enough for the decision to reach every rank (a few
/// microseconds each here, far less than this) with room for a busy machine, and twice the
/// longest any rank took to answer a ping just before (`slowest_answer_ns`): ranks that wait for a
/// CPU (more ranks than CPUs, a loaded node) also take that long to act on the start, so the
/// margin grows with them rather than the start leaving them behind.
pub fn margin(ranks: u32, slowest_answer_ns: u64) -> u64 {
    50_000_000 + ranks as u64 * 50_000 + 2 * slowest_answer_ns
}

impl Peers for Cluster {
    fn checked(&self, verdict: Result<(), Refusal>) -> Result<(), Refusal> {
        self.state.borrow_mut().agreed = true;
        let Some(link) = self.link.as_deref() else {
            return verdict;
        };
        let mine = Message::Checked {
            verdict,
            host: self.who.host.clone(),
            machine: self.machine.clone(),
            claims: self.state.borrow().claims.clone(),
        };
        if link.rank() != 0 {
            link.send(0, &mine.encode());
            return self.await_decision(link, "the checks").map(|_| ());
        }
        let answers = self.collect(link, mine, "finish its checks", |m| {
            matches!(m, Message::Checked { .. })
        });
        let mut verdicts = Vec::with_capacity(answers.len());
        let mut seen = Vec::with_capacity(answers.len());
        for message in answers {
            if let Message::Checked {
                verdict,
                host,
                machine,
                claims,
            } = message
            {
                verdicts.push(verdict);
                seen.push((host, machine, claims));
            }
        }
        self.state.borrow_mut().hosts = seen.iter().map(|(host, ..)| host.clone()).collect();
        let claims: Vec<Claim<'_>> = seen
            .iter()
            .enumerate()
            .map(|(rank, (_, machine, files))| Claim {
                rank: rank as u32,
                machine,
                files,
            })
            .collect();
        let decision = match conflict(&claims) {
            Some((first, second, path)) => Err(Refusal {
                code: crate::EXIT_BAD_INPUT,
                message: format!(
                    "ranks {first} and {second} both run on {} and would both write '{path}'; give each rank its own file with {{rank}} in the path (for example /mnt/t-{{rank}}.dat), or run one rank per host with more threads (-t)",
                    self.host_of(first).unwrap_or_default()
                ),
            }),
            None => self.combined(verdicts).map(|_| Verdict::Go),
        };
        self.decide(link, |_| decision.clone());
        decision.map(|_| ())
    }

    fn ready(&self, verdict: Result<(), Refusal>) -> Result<Start, Refusal> {
        let Some(link) = self.link.as_deref() else {
            let start_at = self.state.borrow_mut().start_at.take();
            return Alone { start_at }.ready(verdict);
        };
        let timespan = self.state.borrow().slack.len() + 1;
        if link.rank() != 0 {
            link.send(0, &Message::Ready(verdict).encode());
            let decision = self.await_decision(link, "the start");
            return match decision? {
                Verdict::Start {
                    at,
                    wall_unix_ns,
                    margin_ns,
                } => {
                    self.state
                        .borrow_mut()
                        .slack
                        .push((at as i64 - monotonic_now() as i64, margin_ns));
                    Ok(Start {
                        at: Some(at),
                        wall: Some(crate::wall::from_unix_ns(wall_unix_ns)),
                    })
                }
                other => unreachable!("rank 0 answers a ready rank with a start, not {other:?}"),
            };
        }
        let phase = format!("get ready for timespan {timespan}");
        let answers = self.collect(link, Message::Ready(verdict), &phase, |m| {
            matches!(m, Message::Ready(_))
        });
        let verdicts = answers
            .into_iter()
            .map(|m| match m {
                Message::Ready(v) => v,
                _ => unreachable!("only ready messages were collected"),
            })
            .collect();
        if let Err(refusal) = self.combined(verdicts) {
            self.decide(link, |_| Err(refusal.clone()));
            return Err(refusal);
        }
        let (offsets, slowest) = self.measure_offsets(link);
        let margin_ns = margin(link.ranks(), slowest);
        let now = monotonic_now();
        let at = now + margin_ns;
        let wall_unix_ns = crate::wall::unix_ns(std::time::SystemTime::now()) + margin_ns;
        self.decide(link, |rank| {
            Ok(Verdict::Start {
                at: offsets[rank as usize].to_remote(at),
                wall_unix_ns,
                margin_ns,
            })
        });
        let mut state = self.state.borrow_mut();
        state
            .slack
            .push((at as i64 - monotonic_now() as i64, margin_ns));
        state.offsets = offsets;
        Ok(Start {
            at: Some(at),
            wall: Some(crate::wall::from_unix_ns(wall_unix_ns)),
        })
    }

    fn poll(&self, stopped: bool) -> bool {
        let Some(link) = self.link.as_deref() else {
            return false;
        };
        if link.rank() == 0 {
            while let Some((from, message)) = link
                .try_receive()
                .and_then(|(from, bytes)| Some((from, Message::decode(&bytes)?)))
            {
                match message {
                    Message::Stop => self.spread_stop(link, Some(from)),
                    other => self.hold(from, other),
                }
            }
            if stopped {
                self.spread_stop(link, None);
            }
        } else {
            while let Some(message) = link.try_receive_from(0).and_then(|b| Message::decode(&b)) {
                if message == Message::Stop {
                    self.heard_stop(stopped);
                }
            }
            let mut state = self.state.borrow_mut();
            if stopped && !state.stop_heard && !state.stop_spread {
                state.stop_spread = true;
                link.send(0, &Message::Stop.encode());
            }
        }
        self.state.borrow().stop_heard
    }

    fn keep(&self, so_far: &dyn Fn() -> crate::stats::RunResults) {
        if self.last_words.borrow().is_none() {
            return;
        }
        let so_far = so_far();
        let stopped = so_far
            .timespans
            .last()
            .is_some_and(|t| t.interrupted || t.window.is_none());
        *self.so_far.borrow_mut() = Some(so_far);
        // Stopped by a signal: the launcher may be ending every rank (as mpirun does when one
        // dies), so rank 0 saves what it has before it waits for the others.
        if stopped && crate::run::STOP.load(std::sync::atomic::Ordering::SeqCst) != 0 {
            self.say_last_words(
                "rank 0 was stopped by a signal (a launcher stops every rank when one of them dies); this report holds rank 0's own results only, saved before the ranks agreed on the end",
                false,
            );
        }
    }

    fn share(&self, metrics: &crate::live::metrics::Metrics, last: bool) {
        let Some(link) = self.link.as_deref() else {
            return;
        };
        if link.rank() == 0 {
            let live = std::mem::take(&mut self.state.borrow_mut().live);
            metrics.set_peers(live);
            return;
        }
        // At most one message a second (and the last numbers always), so 1,000 ranks at -D100
        // do not flood rank 0.
        let now = (metrics.generation(), std::time::Instant::now());
        let mut state = self.state.borrow_mut();
        let due = match state.live_sent {
            None => true,
            Some((generation, at)) => generation != now.0 && (last || at.elapsed() >= LIVE_EVERY),
        };
        if due {
            state.live_sent = Some(now);
            link.send(0, &Message::Live(metrics.own()).encode());
        }
    }

    fn done(&self, verdict: Result<bool, Refusal>) -> Result<bool, Refusal> {
        let Some(link) = self.link.as_deref() else {
            return verdict;
        };
        let timespan = self.state.borrow().slack.len();
        if link.rank() != 0 {
            link.send(0, &Message::Done(verdict).encode());
            let decision = self.await_decision(link, "the end of the timespan");
            self.end_timespan();
            return match decision? {
                Verdict::Ended { stopped } => Ok(stopped),
                other => unreachable!("rank 0 answers a finished rank with the end, not {other:?}"),
            };
        }
        let phase = format!("finish timespan {timespan}");
        let answers = self.collect(link, Message::Done(verdict), &phase, |m| {
            matches!(m, Message::Done(_))
        });
        let mut stopped = false;
        let verdicts = answers
            .into_iter()
            .map(|m| match m {
                Message::Done(v) => v.map(|s| stopped |= s),
                _ => unreachable!("only done messages were collected"),
            })
            .collect();
        let decision = self.combined(verdicts).map(|_| Verdict::Ended { stopped });
        if decision.is_ok() {
            let (after, _) = self.measure_offsets(link);
            let state = &mut *self.state.borrow_mut();
            let clocks = state
                .offsets
                .iter()
                .zip(&after)
                .map(|(before, after)| RankClock {
                    offset_ns: before.offset_ns,
                    uncertainty_ns: before.uncertainty_ns,
                    drift_ns: after.offset_ns - before.offset_ns,
                    slack_ns: 0,
                    margin_ns: 0,
                })
                .collect();
            state.clocks.push(clocks);
        }
        self.decide(link, |_| decision.clone());
        self.end_timespan();
        decision.map(|_| stopped)
    }
}

impl Cluster {
    /// The next message for rank 0: one held back, else one that has arrived (live numbers are
    /// kept aside as they come).
    fn next_message(&self, link: &dyn Link) -> Option<(u32, Message)> {
        if let Some(held) = self.state.borrow_mut().held.pop_front() {
            return Some(held);
        }
        loop {
            let (from, bytes) = link.try_receive()?;
            match Message::decode(&bytes)? {
                Message::Live(own) => {
                    self.state.borrow_mut().live.insert(from, own);
                }
                message => return Some((from, message)),
            }
        }
    }

    /// Rank 0: keeps a message that came before its agreement (live numbers: as the latest of
    /// their rank).
    fn hold(&self, from: u32, message: Message) {
        let mut state = self.state.borrow_mut();
        match message {
            Message::Live(own) => {
                state.live.insert(from, own);
            }
            other => state.held.push_back((from, other)),
        }
    }

    /// Rank 0: every rank's answer at one agreement, in rank order (`mine` is rank 0's); stops
    /// heard meanwhile are passed on. Ends the job when a rank does not answer in time.
    fn collect(
        &self,
        link: &dyn Link,
        mine: Message,
        phase: &str,
        wanted: impl Fn(&Message) -> bool,
    ) -> Vec<Message> {
        let timeout = self.state.borrow().timeout;
        let mut answers: Vec<Option<Message>> = vec![None; link.ranks() as usize];
        answers[0] = Some(mine);
        let mut deadline = monotonic_now() + nanos(timeout);
        let mut beat = monotonic_now();
        let mut unwanted = Vec::new();
        loop {
            while let Some((from, message)) = self.next_message(link) {
                if message == Message::Stop {
                    self.spread_stop(link, Some(from));
                } else if wanted(&message) {
                    answers[from as usize] = Some(message);
                    deadline = monotonic_now() + nanos(timeout);
                } else {
                    unwanted.push((from, message));
                }
            }
            if answers.iter().all(Option::is_some) {
                self.state.borrow_mut().held.extend(unwanted);
                return answers.into_iter().flatten().collect();
            }
            let now = monotonic_now();
            if now > deadline {
                let missing: Vec<String> = answers
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.is_none())
                    .map(|(rank, _)| self.name_of(rank as u32))
                    .collect();
                self.give_up(format!(
                    "{} did not {phase} within {} s of the others (--peer-timeout); every rank stops",
                    missing.join(", "),
                    timeout.as_secs_f64()
                ));
            }
            if now - beat >= nanos(timeout) / 4 {
                beat = now;
                for (rank, _) in answers
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.is_some())
                    .skip(1)
                {
                    link.send(rank as u32, &Message::Heartbeat.encode());
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Rank 0: sends every other rank its decision.
    fn decide(&self, link: &dyn Link, decision: impl Fn(u32) -> Result<Verdict, Refusal>) {
        for rank in 1..link.ranks() {
            link.send(rank, &Message::Decision(decision(rank)).encode());
        }
    }

    /// A rank other than 0: waits for rank 0's decision, answering pings and noting stops
    /// meanwhile. Ends the job when rank 0 falls silent.
    fn await_decision(&self, link: &dyn Link, what: &str) -> Result<Verdict, Refusal> {
        let timeout = nanos(self.state.borrow().timeout);
        let mut deadline = monotonic_now() + timeout;
        let mut syncing = false;
        loop {
            match link.try_receive_from(0) {
                Some(bytes) => {
                    let now = monotonic_now();
                    deadline = now + timeout;
                    match Message::decode(&bytes) {
                        Some(Message::Ping) => link.send(0, &Message::Pong(now).encode()),
                        Some(Message::Sync) => syncing = true,
                        Some(Message::Stop) => self.heard_stop(true),
                        Some(Message::Decision(decision)) => return decision,
                        _ => {}
                    }
                }
                None if monotonic_now() > deadline => self.give_up(format!(
                    "{} did not decide on {what} within {} s (--peer-timeout); every rank stops",
                    self.name_of(0),
                    timeout as f64 / 1e9
                )),
                // Pings come one after the other: answer each at once, but let other processes
                // on this CPU run.
                None if syncing => std::thread::yield_now(),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    }

    /// Rank 0: every rank's clock offset, one rank after the other, and the longest round trip
    /// of any exchange (how long the slowest rank took to answer).
    fn measure_offsets(&self, link: &dyn Link) -> (Vec<Offset>, u64) {
        let timeout = nanos(self.state.borrow().timeout);
        for rank in 1..link.ranks() {
            link.send(rank, &Message::Sync.encode());
        }
        let mut offsets = vec![Offset::default(); link.ranks() as usize];
        let mut slowest = 0;
        for rank in 1..link.ranks() {
            let mut exchanges = Vec::with_capacity(ROUNDS);
            while exchanges.len() < ROUNDS {
                let sent = monotonic_now();
                link.send(rank, &Message::Ping.encode());
                loop {
                    if let Some(bytes) = link.try_receive_from(rank) {
                        let back = monotonic_now();
                        match Message::decode(&bytes) {
                            Some(Message::Pong(remote)) => {
                                exchanges.push(Exchange { sent, remote, back });
                                break;
                            }
                            Some(Message::Stop) => self.spread_stop(link, Some(rank)),
                            Some(other) => self.hold(rank, other),
                            None => {}
                        }
                    } else if monotonic_now() - sent > timeout {
                        self.give_up(format!(
                            "{} did not answer the clock exchange within {} s (--peer-timeout); every rank stops",
                            self.name_of(rank),
                            timeout as f64 / 1e9
                        ));
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
            offsets[rank as usize] = estimate(&exchanges).unwrap_or_default();
            slowest = exchanges
                .iter()
                .map(|e| e.back.saturating_sub(e.sent))
                .fold(slowest, u64::max);
        }
        (offsets, slowest)
    }

    /// Rank 0: passes a stop on to every rank but the one it came from (`None`: rank 0's own),
    /// once per timespan.
    fn spread_stop(&self, link: &dyn Link, from: Option<u32>) {
        let mut state = self.state.borrow_mut();
        if from.is_some() {
            state.stop_heard = true;
        }
        if state.stop_spread {
            return;
        }
        state.stop_spread = true;
        for rank in (1..link.ranks()).filter(|&r| Some(r) != from) {
            link.send(rank, &Message::Stop.encode());
        }
    }

    /// A rank other than 0 heard that another stopped; `stopped` says whether it already had.
    fn heard_stop(&self, stopped: bool) {
        let mut state = self.state.borrow_mut();
        if !state.stop_heard && !stopped {
            state.stopped_by_peer = true;
        }
        state.stop_heard = true;
    }

    fn end_timespan(&self) {
        let mut state = self.state.borrow_mut();
        state.stop_heard = false;
        state.stop_spread = false;
    }

    /// Rank 0: the refusal every rank reports when any refused — as it is when every rank gave
    /// the same one, else each with its rank and host — or the answers.
    fn combined<T>(&self, verdicts: Vec<Result<T, Refusal>>) -> Result<Vec<T>, Refusal> {
        let all = verdicts.len();
        let mut refused: Vec<(u32, Refusal)> = Vec::new();
        let mut answers = Vec::with_capacity(all);
        for (rank, verdict) in verdicts.into_iter().enumerate() {
            match verdict {
                Ok(answer) => answers.push(answer),
                Err(refusal) => refused.push((rank as u32, refusal)),
            }
        }
        let Some(code) = refused.iter().map(|(_, r)| r.code).max() else {
            return Ok(answers);
        };
        let same = refused.windows(2).all(|w| w[0].1.message == w[1].1.message);
        let message = if refused.len() == all && same {
            refused[0].1.message.clone()
        } else {
            refused
                .iter()
                .map(|(rank, r)| format!("{}: {}", self.name_of(*rank), r.message))
                .collect::<Vec<_>>()
                .join("\niospd: ")
        };
        Err(Refusal { code, message })
    }
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}
