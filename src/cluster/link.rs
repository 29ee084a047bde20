//! How the processes of a run across hosts reach each other. Rank 0 leads: every other rank talks
//! only to it, in small messages, and hands it its results once at the end. The MPI link
//! ([`super::mpi`]) is the real one; an in-process link of threads tests the protocol.

/// Messages between the ranks, and the one collective operation the results need.
pub trait Link {
    /// This process's rank, 0 to `ranks() - 1`.
    fn rank(&self) -> u32;
    /// How many processes the run has.
    fn ranks(&self) -> u32;
    /// Sends `message` to rank `to`; returns once `message` may be dropped.
    fn send(&self, to: u32, message: &[u8]);
    /// The first message that has arrived from anyone, if one has.
    fn try_receive(&self) -> Option<(u32, Vec<u8>)>;
    /// The first message that has arrived from rank `from`, if one has.
    fn try_receive_from(&self, from: u32) -> Option<Vec<u8>>;
    /// Every rank calls it once with its part: rank 0 gets all the parts in rank order, the others
    /// `None`.
    fn gather(&self, part: &[u8]) -> Option<Gathered>;
    /// Ends every process of the run at once, with exit status `code`: the way out when a rank has
    /// stopped answering and can be neither waited for nor told.
    fn abort(&self, code: u8) -> !;
}

/// Every rank's part, one after the other in one buffer (no copy per part).
#[derive(Debug, Default)]
pub struct Gathered {
    /// The parts, in rank order.
    pub bytes: Vec<u8>,
    /// Each one's length.
    pub lengths: Vec<usize>,
}

impl Gathered {
    /// Each rank's part, in rank order.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.lengths.iter().scan(0, |at, &n| {
            let part = &self.bytes[*at..*at + n];
            *at += n;
            Some(part)
        })
    }
}

#[cfg(test)]
pub mod local {
    //! Ranks as threads of one process, joined by channels.

    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::sync::mpsc::{Receiver, Sender, channel};

    use super::Link;

    /// What crosses a channel: a message, or a part of a gather.
    enum Parcel {
        Message(Vec<u8>),
        Part(Vec<u8>),
    }

    /// One rank's end of the in-process link.
    pub struct LocalLink {
        rank: u32,
        to: Vec<Sender<(u32, Parcel)>>,
        from: Receiver<(u32, Parcel)>,
        /// Messages received while looking for another rank's, or parts while looking for
        /// messages.
        held: RefCell<VecDeque<(u32, Vec<u8>)>>,
        parts: RefCell<Vec<(u32, Vec<u8>)>>,
    }

    /// `ranks` joined ends, one per rank.
    pub fn links(ranks: u32) -> Vec<LocalLink> {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..ranks).map(|_| channel()).unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(rank, from)| LocalLink {
                rank: rank as u32,
                to: senders.clone(),
                from,
                held: RefCell::default(),
                parts: RefCell::default(),
            })
            .collect()
    }

    impl LocalLink {
        fn pull(&self) {
            while let Ok((from, parcel)) = self.from.try_recv() {
                match parcel {
                    Parcel::Message(m) => self.held.borrow_mut().push_back((from, m)),
                    Parcel::Part(p) => self.parts.borrow_mut().push((from, p)),
                }
            }
        }
    }

    impl Link for LocalLink {
        fn rank(&self) -> u32 {
            self.rank
        }

        fn ranks(&self) -> u32 {
            self.to.len() as u32
        }

        fn send(&self, to: u32, message: &[u8]) {
            // A rank that has finished has dropped its receiver; what it would get is moot.
            let _ = self.to[to as usize].send((self.rank, Parcel::Message(message.to_vec())));
        }

        fn try_receive(&self) -> Option<(u32, Vec<u8>)> {
            self.pull();
            self.held.borrow_mut().pop_front()
        }

        fn try_receive_from(&self, from: u32) -> Option<Vec<u8>> {
            self.pull();
            let mut held = self.held.borrow_mut();
            let at = held.iter().position(|(f, _)| *f == from)?;
            held.remove(at).map(|(_, m)| m)
        }

        fn gather(&self, part: &[u8]) -> Option<super::Gathered> {
            let _ = self.to[0].send((self.rank, Parcel::Part(part.to_vec())));
            if self.rank != 0 {
                return None;
            }
            loop {
                self.pull();
                if self.parts.borrow().len() == self.to.len() {
                    let mut parts = std::mem::take(&mut *self.parts.borrow_mut());
                    parts.sort_by_key(|(rank, _)| *rank);
                    return Some(super::Gathered {
                        lengths: parts.iter().map(|(_, p)| p.len()).collect(),
                        bytes: parts.into_iter().flat_map(|(_, p)| p).collect(),
                    });
                }
                std::thread::yield_now();
            }
        }

        fn abort(&self, code: u8) -> ! {
            panic!("rank {} aborted the run with status {code}", self.rank)
        }
    }
}
