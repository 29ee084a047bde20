//! `--dedupe`: which of a target's units hold unique data and which repeat one of a few shared
//! contents, so that the target deduplicates by exactly the ratio planned; and, while a run
//! writes, which units it wrote and (with flip-flop) which of its set's two contents each holds,
//! from which the exact ratio of what the run left is counted.
//!
//! Of `n` units, `d = round(n / ratio)` contents are distinct: `sets` of them shared by the
//! duplicate units, `d − sets` unique units. A unit's class is its image under [`Scatter`]:
//! images below `d − sets` are unique, the rest belong to set `(image − unique) mod sets`, so every
//! class has an exact count (each set at least two units) and every region of the target mixes
//! them. A unique unit gets fresh content on every write; a duplicate unit gets its set's content,
//! or with flip-flop the other of its set's two contents on each rewrite.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::profile::{Dedupe, DedupeSets};
use crate::scatter::Scatter;

/// Bytes of state per unit are `1 / UNITS_PER_STATE_BYTE`: two bits (written, version).
pub const UNITS_PER_STATE_BYTE: u64 = 4;

/// The most state a run keeps for `--dedupe`: 1 GiB, 4 Gi units (16 TiB at 4 KiB).
pub const MAX_STATE_BYTES: u64 = 1 << 30;

/// What a unit holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Content found nowhere else.
    Unique,
    /// One of the shared contents.
    Set(u64),
}

/// How `--dedupe` divides `units` units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Units in the target's range.
    pub units: u64,
    /// Units with content of their own.
    pub unique: u64,
    /// Shared contents.
    pub sets: u64,
    scatter: Scatter,
}

impl Plan {
    /// The plan of `dedupe` over `units` units; an error names what does not fit.
    pub fn new(dedupe: &Dedupe, units: u64) -> Result<Plan, String> {
        if units == 0 {
            return Err("the range holds no whole dedupe unit".into());
        }
        let state = units.div_ceil(UNITS_PER_STATE_BYTE);
        if state > MAX_STATE_BYTES {
            return Err(format!(
                "{units} units need {} of state (two bits per unit), more than the {} allowed; use a larger unit or a smaller range (-f)",
                crate::units::format_size(state),
                crate::units::format_size(MAX_STATE_BYTES)
            ));
        }
        let distinct = ((units as f64 / dedupe.ratio).round() as u64).clamp(1, units);
        let repeats = units - distinct;
        let sets = match dedupe.sets {
            _ if repeats == 0 => 0,
            DedupeSets::Percent(p) => {
                ((distinct as f64 * p / 100.0).round() as u64).clamp(1, repeats)
            }
            DedupeSets::Count(n) if n > repeats => {
                return Err(format!(
                    "{n} sets need {n} units beyond the distinct contents (each set is held at least twice), and {units} units at {}:1 leave {repeats}; use fewer sets, a lower ratio or a larger range",
                    dedupe.ratio
                ));
            }
            DedupeSets::Count(n) => n,
        };
        Ok(Plan {
            units,
            unique: distinct - sets,
            sets,
            scatter: Scatter::new(units),
        })
    }

    /// Distinct contents when every unit holds its plan's first content.
    pub fn distinct(&self) -> u64 {
        self.unique + self.sets
    }

    /// `units / distinct`, exactly as planned.
    pub fn ratio(&self) -> f64 {
        self.units as f64 / self.distinct() as f64
    }

    /// The class of unit `unit` < `units`.
    #[inline]
    pub fn class(&self, unit: u64) -> Class {
        let image = self.scatter.forward(unit);
        if image < self.unique {
            Class::Unique
        } else {
            Class::Set((image - self.unique) % self.sets)
        }
    }
}

/// The run's record of its units: written, and the version each duplicate holds.
#[derive(Debug)]
pub struct Tracker {
    /// The plan.
    pub plan: Plan,
    flipflop: bool,
    /// `-c` wrote every unit (its first content) before the run.
    pub filled: bool,
    /// Two bits per unit: bit 0 written, bit 1 the version (flip-flop).
    bits: Vec<AtomicU64>,
}

/// What the units a run wrote (and, after `-c`, all of them) hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Units written.
    pub written: u64,
    /// Distinct contents among them.
    pub distinct: u64,
}

impl Tally {
    /// `written / distinct`, exactly (1 when nothing was written).
    pub fn ratio(&self) -> f64 {
        match self.distinct {
            0 => 1.0,
            d => self.written as f64 / d as f64,
        }
    }
}

impl Tracker {
    /// Nothing written yet; with `filled`, every unit holds its first content (a `-c` fill).
    pub fn new(plan: Plan, flipflop: bool, filled: bool) -> Tracker {
        let words = plan.units.div_ceil(32) as usize;
        let fill = if filled { 0x5555_5555_5555_5555 } else { 0 };
        Tracker {
            plan,
            flipflop,
            filled,
            bits: (0..words).map(|_| AtomicU64::new(fill)).collect(),
        }
    }

    /// Records a write of `unit` and returns the version it writes: 0, or with flip-flop the
    /// other one than the unit holds.
    #[inline]
    pub fn write(&self, unit: u64) -> u64 {
        let word = &self.bits[(unit / 32) as usize];
        let shift = (unit % 32) * 2;
        if self.flipflop {
            // Only the first write of a unit that `-c` did not fill has no version to flip.
            let old = word.fetch_xor(2 << shift, Ordering::Relaxed);
            if old & (1 << shift) == 0 {
                word.fetch_or(1 << shift, Ordering::Relaxed);
            }
            (old >> shift >> 1 & 1) ^ 1
        } else {
            word.fetch_or(1 << shift, Ordering::Relaxed);
            0
        }
    }

    /// The exact count of units written and distinct contents among them.
    pub fn tally(&self) -> Tally {
        let plan = &self.plan;
        let mut seen = vec![0u64; (plan.sets * 2).div_ceil(64) as usize];
        let mut tally = Tally::default();
        for unit in 0..plan.units {
            let bits = self.bits[(unit / 32) as usize].load(Ordering::Relaxed) >> ((unit % 32) * 2);
            if bits & 1 == 0 {
                continue;
            }
            tally.written += 1;
            match plan.class(unit) {
                Class::Unique => tally.distinct += 1,
                Class::Set(s) => {
                    let key = s * 2 + (bits >> 1 & 1);
                    let (word, bit) = ((key / 64) as usize, key % 64);
                    tally.distinct += (seen[word] >> bit & 1 == 0) as u64;
                    seen[word] |= 1 << bit;
                }
            }
        }
        tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dedupe(ratio: f64, sets: DedupeSets, flipflop: bool) -> Dedupe {
        Dedupe {
            ratio,
            unit: 4096,
            sets,
            flipflop,
        }
    }

    fn counts(plan: &Plan) -> (u64, Vec<u64>) {
        let mut unique = 0;
        let mut sets = vec![0u64; plan.sets as usize];
        for u in 0..plan.units {
            match plan.class(u) {
                Class::Unique => unique += 1,
                Class::Set(s) => sets[s as usize] += 1,
            }
        }
        (unique, sets)
    }

    #[test]
    fn classes_have_exact_counts_and_every_set_repeats() {
        for (units, ratio, sets) in [
            (4096, 2.0, DedupeSets::Percent(5.0)),
            (10_000, 3.0, DedupeSets::Count(7)),
            (1000, 1.0, DedupeSets::Percent(5.0)),
            (999, 1.5, DedupeSets::Count(1)),
            (65_536, 10.0, DedupeSets::Percent(100.0)),
        ] {
            let plan = Plan::new(&dedupe(ratio, sets, false), units).unwrap();
            let (unique, members) = counts(&plan);
            assert_eq!(unique, plan.unique);
            assert_eq!(members.iter().sum::<u64>() + unique, units);
            assert!(members.iter().all(|&m| m >= 2), "{members:?}");
            let want = (units as f64 / ratio).round() as u64;
            assert_eq!(plan.distinct(), want, "{units} at {ratio}");
            assert!((plan.ratio() - ratio).abs() / ratio < 0.01 || units < 100);
        }
        let plan = Plan::new(&dedupe(2.0, DedupeSets::Percent(5.0), false), 4096).unwrap();
        assert_eq!((plan.unique, plan.sets), (1946, 102));
    }

    #[test]
    fn impossible_plans_are_refused_with_the_fix() {
        let e = Plan::new(&dedupe(1.01, DedupeSets::Count(50), false), 1000).unwrap_err();
        assert!(e.contains("use fewer sets"), "{e}");
        let e = Plan::new(&dedupe(2.0, DedupeSets::Count(1), false), 0).unwrap_err();
        assert!(e.contains("no whole dedupe unit"), "{e}");
        let e = Plan::new(&dedupe(2.0, DedupeSets::Count(1), false), 5 << 30).unwrap_err();
        assert!(e.contains("larger unit"), "{e}");
    }

    #[test]
    fn a_full_write_tallies_the_plan_and_flip_flop_counts_versions() {
        let plan = Plan::new(&dedupe(4.0, DedupeSets::Count(10), true), 1000).unwrap();
        let tracker = Tracker::new(plan, false, false);
        assert_eq!(tracker.tally(), Tally::default());
        for u in 0..500 {
            assert_eq!(tracker.write(u), 0);
        }
        let half = tracker.tally();
        assert_eq!(half.written, 500);
        for u in 0..1000 {
            tracker.write(u);
        }
        let full = tracker.tally();
        assert_eq!((full.written, full.distinct), (1000, 250));
        assert_eq!(full.ratio(), 4.0);

        // Flip-flop after a fill: one rewrite of every unit of set 0 moves the whole set to its
        // other content; rewriting one unit of set 1 gives set 1 two contents.
        let flip = Tracker::new(plan, true, true);
        assert_eq!(flip.tally(), full);
        let members = |s| (0..1000).filter(move |&u| plan.class(u) == Class::Set(s));
        for u in members(0) {
            assert_eq!(flip.write(u), 1);
        }
        assert_eq!(flip.tally(), full);
        let one = members(1).next().unwrap();
        assert_eq!(flip.write(one), 1);
        assert_eq!(flip.tally().distinct, 251);
        assert_eq!(flip.write(one), 0, "a second rewrite flips back");
        assert_eq!(flip.tally().distinct, 250);
        // Without a fill, a first write holds version 1 as well.
        let fresh = Tracker::new(plan, true, false);
        assert_eq!(fresh.write(one), 1);
        assert_eq!(
            fresh.tally(),
            Tally {
                written: 1,
                distinct: 1
            }
        );
    }
}
