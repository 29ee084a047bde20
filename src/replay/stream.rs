//! The replay's I/O while it runs: a reader thread reads the traces again, maps each kept event
//! onto its target (time scaled, offset placed) and hands them to the worker in fixed batches
//! through a bounded channel, getting the emptied batches back — so memory holds a few batches,
//! whatever the trace's length. It stops at the replay's cut (`-d`), so the trace's own I/O per
//! second of run time, counted for the fidelity report, holds at most the cut's seconds.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use super::open_all;
use crate::engine::Op;
use crate::profile::replay::Replay;

/// I/Os per batch.
pub const BATCH: usize = 4096;
/// Batches read ahead.
pub const AHEAD: usize = 4;

/// One I/O as the worker issues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    /// When, from the replay's start, ns (0 for every I/O as fast as possible).
    pub at_ns: u64,
    /// Index of the target.
    pub target: u16,
    /// What.
    pub op: Op,
    /// Where on the target.
    pub offset: u64,
    /// Bytes.
    pub len: u32,
}

/// What the reader saw, per second of run time: I/Os and bytes the trace asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceSide {
    /// Per second: (I/Os, bytes).
    pub per_second: Vec<(u64, u64)>,
    /// I/Os handed to the worker.
    pub events: u64,
    /// The trace could not be read again (changed since it was checked).
    pub error: Option<String>,
    /// The trace goes on past the replay's cut (`-d`): its later I/O was not read.
    pub cut: bool,
}

/// The worker's end of the stream.
pub struct Feed {
    batches: Receiver<Vec<Due>>,
    spares: SyncSender<Vec<Due>>,
    current: Vec<Due>,
    at: usize,
    reader: Option<JoinHandle<TraceSide>>,
}

impl Feed {
    /// Starts the reader of `replay`'s traces. The first batches are read before this returns
    /// its first I/O, so starting it before the start barrier leaves no gap at the start.
    pub fn start(replay: &Replay) -> Feed {
        let (to_worker, batches) = sync_channel::<Vec<Due>>(AHEAD);
        let (spares, from_worker) = sync_channel::<Vec<Due>>(AHEAD + 2);
        let replay = replay.clone();
        let reader = std::thread::Builder::new()
            .name("iospd-replay".into())
            .spawn(move || read(&replay, to_worker, from_worker))
            .expect("the replay reader thread starts");
        Feed {
            batches,
            spares,
            current: Vec::new(),
            at: 0,
            reader: Some(reader),
        }
    }

    /// The next I/O, without taking it; `None` once the trace is over.
    #[inline]
    pub fn peek(&mut self) -> Option<&Due> {
        if self.at == self.current.len() {
            let mut spent = std::mem::take(&mut self.current);
            spent.clear();
            let _ = self.spares.try_send(spent);
            self.current = self.batches.recv().ok()?;
            self.at = 0;
        }
        self.current.get(self.at)
    }

    /// Takes the I/O [`Feed::peek`] showed.
    #[inline]
    pub fn advance(&mut self) {
        self.at += 1;
    }

    /// Stops the reader and returns what it counted.
    pub fn finish(mut self) -> TraceSide {
        drop(std::mem::replace(&mut self.batches, sync_channel(1).1));
        self.reader
            .take()
            .map(|r| r.join().unwrap_or_default())
            .unwrap_or_default()
    }
}

/// The reader thread: every kept event, mapped, in batches.
fn read(replay: &Replay, out: SyncSender<Vec<Due>>, spares: Receiver<Vec<Due>>) -> TraceSide {
    let mut side = TraceSide::default();
    let targets: HashMap<_, _> = replay
        .mappings
        .iter()
        .enumerate()
        .map(|(i, m)| (m.device, i))
        .collect();
    let mut merged = match open_all(&replay.traces, replay.stage) {
        Ok(m) => m,
        Err(e) => {
            side.error = Some(e.to_string());
            return side;
        }
    };
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        let event = match merged.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                side.error = Some(e.to_string());
                break;
            }
        };
        if !replay.kinds.keeps(event.op) {
            continue;
        }
        let Some(&target) = targets.get(&event.device) else {
            continue;
        };
        let at_ns = replay.due(event.at_ns);
        if at_ns >= replay.cut_ns {
            side.cut = true;
            break;
        }
        let mapping = &replay.mappings[target];
        let offset = match event.op.has_range() {
            true => replay.place(mapping, event.offset, event.len),
            false => 0,
        };
        // The summary checked every I/O against its target; a trace changed since cannot reach
        // past it.
        if offset.saturating_add(event.len as u64) > mapping.target_size {
            side.error = Some(format!(
                "the trace changed since it was checked: an I/O at byte {offset} of {} bytes ends past the {} bytes of the target {} goes to; the replay stopped there",
                event.len, mapping.target_size, mapping.name
            ));
            break;
        }
        let second = (at_ns / 1_000_000_000) as usize;
        if side.per_second.len() <= second {
            side.per_second.resize(second + 1, (0, 0));
        }
        side.per_second[second].0 += 1;
        side.per_second[second].1 += event.len as u64;
        side.events += 1;
        batch.push(Due {
            at_ns,
            target: target as u16,
            op: event.op,
            offset,
            len: event.len,
        });
        if batch.len() == BATCH {
            let next = spares
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH));
            if out.send(std::mem::replace(&mut batch, next)).is_err() {
                return side;
            }
        }
    }
    if !batch.is_empty() {
        let _ = out.send(batch);
    }
    side
}
