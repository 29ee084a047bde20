//! The ranks' `-D` series added up a binomial tree on the way to rank 0: rank r receives from
//! r + 1, r + 2, r + 4 … (while that bit of r is clear) and adds each to its own, then sends the
//! sum to r − (its lowest set bit). Every rank holds its own series and at most one child's at a
//! time, and rank 0 ends with one series however many ranks there are; log2(ranks) steps.

use std::time::{Duration, Instant};

use base64::Engine as _;

use super::Cluster;
use super::link::Link;
use super::message::Message;
use crate::stats::series::Series;

/// Per timespan, a series (or none).
pub type PerTimespan = Vec<Option<Series>>;

impl Cluster {
    /// Adds every rank's `mine` up the tree: rank 0 gets the sum, the others `None` once they have
    /// passed theirs on.
    pub(super) fn reduce(
        &self,
        link: &dyn Link,
        mine: PerTimespan,
    ) -> Result<Option<PerTimespan>, String> {
        let (rank, ranks) = (link.rank(), link.ranks());
        let mut sum = mine;
        let mut mask = 1u32;
        while mask < ranks {
            if rank & mask != 0 {
                link.send(rank - mask, &Message::Series(encode(&sum)).encode());
                return Ok(None);
            }
            if let Some(child) = rank.checked_add(mask).filter(|&c| c < ranks) {
                let theirs = self.series_from(link, child)?;
                if theirs.len() != sum.len() {
                    return Err(format!(
                        "rank {child} sent the series of {} timespans, this rank has {}",
                        theirs.len(),
                        sum.len()
                    ));
                }
                for (mine, theirs) in sum.iter_mut().zip(theirs) {
                    match (mine.as_mut(), theirs) {
                        (Some(mine), Some(theirs)) => mine.add(theirs),
                        (None, Some(theirs)) => *mine = Some(theirs),
                        (_, None) => {}
                    }
                }
            }
            mask <<= 1;
        }
        Ok(Some(sum))
    }

    /// The series `child` sends (its subtree's), waiting up to `--peer-timeout`.
    fn series_from(&self, link: &dyn Link, child: u32) -> Result<PerTimespan, String> {
        let timeout = self.state.borrow().timeout;
        let deadline = Instant::now() + timeout;
        loop {
            match link.try_receive_from(child).map(|b| Message::decode(&b)) {
                Some(Some(Message::Series(parts))) => {
                    return decode(&parts)
                        .ok_or_else(|| format!("the series rank {child} sent cannot be read"));
                }
                // Anything else a rank may still say on its way out has no use now.
                Some(_) => {}
                None if Instant::now() > deadline => self.give_up(format!(
                    "{} did not send its results within {} s (--peer-timeout); every rank stops",
                    self.name_of(child),
                    timeout.as_secs_f64()
                )),
                None => std::thread::sleep(Duration::from_micros(200)),
            }
        }
    }
}

fn encode(series: &PerTimespan) -> Vec<Option<String>> {
    series
        .iter()
        .map(|s| {
            s.as_ref()
                .map(|s| base64::engine::general_purpose::STANDARD.encode(s.encode()))
        })
        .collect()
}

fn decode(parts: &[Option<String>]) -> Option<PerTimespan> {
    parts
        .iter()
        .map(|part| match part {
            None => Some(None),
            Some(text) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .ok()?;
                Some(Some(Series::decode(&bytes)?))
            }
        })
        .collect()
}
