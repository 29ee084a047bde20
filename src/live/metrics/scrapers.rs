//! Who scrapes the endpoint: each scraper (its address, `User-Agent` and `Accept`, so the two
//! Prometheus servers of a high-availability pair, or two on one host asking for different
//! formats, are two) with its period and the latest state it was shown, so the end of a run can
//! wait until every regular scraper has read the final numbers, not just the first one to come.

use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Scrapers remembered; more are not waited for (a flood of clients is no scraper).
const MAX_SCRAPERS: usize = 16;

/// One scraper.
#[derive(Debug, Clone)]
struct Scraper {
    key: String,
    first: Instant,
    last: Instant,
    scrapes: u32,
    /// The latest generation of the state a scrape showed it.
    shown: u64,
}

impl Scraper {
    /// Its mean time between scrapes, once it scraped twice.
    fn period(&self) -> Option<Duration> {
        let between = self.scrapes.checked_sub(1).filter(|&n| n > 0)?;
        Some((self.last - self.first) / between)
    }

    /// Its period, while it still scrapes: its last scrape is no older than two of its periods
    /// and a second.
    fn active(&self, now: Instant) -> Option<Duration> {
        let period = self.period()?;
        (now.duration_since(self.last) <= period * 2 + Duration::from_secs(1)).then_some(period)
    }
}

/// The scrapers seen so far.
#[derive(Debug, Default)]
pub struct Scrapers {
    seen: Mutex<Vec<Scraper>>,
}

/// Who asked: the peer's address and the request's `User-Agent` and `Accept`.
pub fn key(peer: Option<IpAddr>, agent: Option<&str>, accept: Option<&str>) -> String {
    let peer = peer.map_or_else(|| "?".to_string(), |p| p.to_string());
    format!("{peer} {} {}", agent.unwrap_or(""), accept.unwrap_or(""))
}

impl Scrapers {
    fn seen(&self) -> std::sync::MutexGuard<'_, Vec<Scraper>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The scraper `key` was shown generation `generation` now.
    pub fn saw(&self, key: String, generation: u64) {
        let now = Instant::now();
        let mut seen = self.seen();
        if let Some(s) = seen.iter_mut().find(|s| s.key == key) {
            s.last = now;
            s.scrapes += 1;
            s.shown = s.shown.max(generation);
        } else if seen.len() < MAX_SCRAPERS {
            seen.push(Scraper {
                key,
                first: now,
                last: now,
                scrapes: 1,
                shown: generation,
            });
        }
    }

    /// How long to wait at most for every active scraper's next scrape: two of the longest
    /// period among them; `None` when no scraper scrapes regularly.
    pub fn patience(&self) -> Option<Duration> {
        let now = Instant::now();
        self.seen()
            .iter()
            .filter_map(|s| s.active(now))
            .max()
            .map(|p| p * 2)
    }

    /// Whether every scraper that scrapes regularly has been shown generation `generation`.
    pub fn all_shown(&self, generation: u64) -> bool {
        let now = Instant::now();
        self.seen()
            .iter()
            .filter(|s| s.active(now).is_some())
            .all(|s| s.shown >= generation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_regular_scraper_must_see_the_final_state_not_only_the_first() {
        let scrapers = Scrapers::default();
        let (a, b) = (
            key(None, Some("Prometheus/2"), Some("text/plain")),
            key(
                None,
                Some("Prometheus/2"),
                Some("application/vnd.google.protobuf"),
            ),
        );
        assert_eq!(scrapers.patience(), None, "nobody scrapes yet");
        for generation in [1, 2] {
            scrapers.saw(a.clone(), generation);
            scrapers.saw(b.clone(), generation);
        }
        assert!(scrapers.patience().is_some());
        assert!(scrapers.all_shown(2));
        scrapers.saw(a, 3);
        assert!(!scrapers.all_shown(3), "b has not seen the final state");
        scrapers.saw(b, 3);
        assert!(scrapers.all_shown(3));
    }

    #[test]
    fn a_one_off_client_is_not_waited_for() {
        let scrapers = Scrapers::default();
        scrapers.saw(key(None, Some("curl/8"), None), 1);
        assert_eq!(scrapers.patience(), None);
        assert!(scrapers.all_shown(5));
    }
}
