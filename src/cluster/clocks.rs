//! Clock offsets between ranks, from ping-pong exchanges on the monotonic clocks.
//!
//! Rank 0 reads its clock, sends a ping, the other rank reads its own clock as the ping arrives
//! and replies, and rank 0 reads its clock again. The other clock's reading happened somewhere in
//! that round trip, so the offset is its reading minus the round trip's middle, exact to within
//! half the round trip. Of many exchanges the one with the shortest round trip bounds the offset
//! tightest (the others waited in a queue or for a CPU).

/// One exchange, on rank 0's clock except `remote`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    /// Rank 0's clock when it sent the ping.
    pub sent: u64,
    /// The other rank's clock when the ping arrived.
    pub remote: u64,
    /// Rank 0's clock when the reply arrived.
    pub back: u64,
}

/// The other rank's clock minus rank 0's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offset {
    /// The offset, nanoseconds.
    pub offset_ns: i64,
    /// Half the round trip: the true offset is within this of `offset_ns`.
    pub uncertainty_ns: u64,
}

impl Offset {
    /// The instant on the other rank's clock that is `instant` on rank 0's.
    pub fn to_remote(&self, instant: u64) -> u64 {
        (instant as i128 + self.offset_ns as i128).clamp(0, u64::MAX as i128) as u64
    }
}

/// The offset from the exchange with the shortest round trip; `None` without exchanges.
pub fn estimate(exchanges: &[Exchange]) -> Option<Offset> {
    let best = exchanges
        .iter()
        .filter(|e| e.back >= e.sent)
        .min_by_key(|e| e.back - e.sent)?;
    let middle = (best.sent as i128 + best.back as i128) / 2;
    let offset = best.remote as i128 - middle;
    Some(Offset {
        offset_ns: offset.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        uncertainty_ns: (best.back - best.sent).div_ceil(2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An exchange with another clock `offset` ahead, a ping taking `out` and a reply `back`.
    fn exchange(at: u64, offset: i64, out: u64, back: u64) -> Exchange {
        Exchange {
            sent: at,
            remote: (at as i64 + out as i64 + offset) as u64,
            back: at + out + back,
        }
    }

    #[test]
    fn the_shortest_round_trip_bounds_the_offset() {
        let offset = 86_400_000_000_000i64; // another machine booted a day earlier
        let exchanges = [
            exchange(1_000_000, offset, 900_000, 20_000), // a queued ping: way off
            exchange(2_000_000, offset, 3_000, 1_000),    // asymmetric, but short
            exchange(3_000_000, offset, 5_000, 5_000),
        ];
        let estimated = estimate(&exchanges).unwrap();
        assert_eq!(estimated.uncertainty_ns, 2_000);
        // Asymmetry is the error, and it stays within the uncertainty.
        assert!((estimated.offset_ns - offset).unsigned_abs() <= estimated.uncertainty_ns);
        assert_eq!(estimated.offset_ns, offset + 1_000);
        assert_eq!(estimated.to_remote(10), (10 + offset + 1_000) as u64);
    }

    #[test]
    fn a_clock_behind_gives_a_negative_offset() {
        let estimated = estimate(&[exchange(5_000_000_000, -4_000_000_000, 700, 700)]).unwrap();
        assert_eq!(estimated.offset_ns, -4_000_000_000);
        assert_eq!(estimated.uncertainty_ns, 700);
        assert_eq!(estimated.to_remote(5_000_000_000), 1_000_000_000);
        assert_eq!(estimate(&[]), None);
    }
}
