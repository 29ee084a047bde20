//! The value grammars of iospd's own workload options, read the same way from the command line
//! (`--compress=2:16K`) and from an XML profile's target (`<Compress>2:16K</Compress>`); each
//! type's `Display` writes what its `FromStr` reads. Errors name the fix with an example.

use std::str::FromStr;

use super::{Compress, DEFAULT_DEDUPE_SETS, Dedupe, DedupeSets, FlushEvery, Skew};
use crate::units::{Size, parse_size};

/// A size field (`4K`), within `low..=high` and a power of two when `power`.
fn size_field(text: &str, low: u64, high: u64, power: bool) -> Option<u64> {
    match parse_size(text) {
        Ok(Size::Bytes(b)) if (low..=high).contains(&b) && (!power || b.is_power_of_two()) => {
            Some(b)
        }
        _ => None,
    }
}

/// A finite ratio from 1 to `high`.
fn ratio_field(text: &str, high: f64, meaning: &str, example: &str) -> Result<f64, String> {
    let ratio: f64 = text
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite())
        .ok_or_else(|| format!("'{text}' is not a ratio; {example}"))?;
    if !(1.0..=high).contains(&ratio) {
        return Err(format!(
            "the ratio {ratio} is outside 1 to {high} ({meaning}); {example}"
        ));
    }
    Ok(ratio)
}

/// `<ratio>[:<chunk>]`: a ratio from 1 to 100 and a chunk from 512 bytes to 1 MiB.
impl FromStr for Compress {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        const EXAMPLE: &str = "for example --compress=2 or --compress=3:16K";
        if spec.is_empty() {
            return Err(format!("expects a ratio; {EXAMPLE}"));
        }
        let (ratio, chunk) = spec.split_once(':').unwrap_or((spec, "4K"));
        let ratio = ratio_field(
            ratio,
            100.0,
            "1 = incompressible, 2 = half the size",
            EXAMPLE,
        )?;
        let chunk = size_field(chunk, 512, 1 << 20, false).ok_or_else(|| {
            format!(
                "the chunk '{chunk}' must be 512 bytes to 1M (a compressor's unit: 4K for zram, 128K for btrfs); {EXAMPLE}"
            )
        })?;
        Ok(Compress { ratio, chunk })
    }
}

/// `<ratio>[:<unit>[:<sets>]][:flipflop]`: a ratio from 1 to 1000, a unit that is a power of two
/// from 512 bytes to 1 MiB, sets as a count or a percent of the distinct contents.
impl FromStr for Dedupe {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        const EXAMPLE: &str =
            "for example --dedupe=2, --dedupe=3:16K:64 or --dedupe=2:4K:5%:flipflop";
        if spec.is_empty() {
            return Err(format!("expects a ratio; {EXAMPLE}"));
        }
        let mut fields: Vec<&str> = spec.split(':').collect();
        let flipflop = fields.last() == Some(&"flipflop");
        if flipflop {
            fields.pop();
        }
        let (ratio, unit, sets) = match fields.as_slice() {
            [r] => (*r, "4K", None),
            [r, u] => (*r, *u, None),
            [r, u, s] => (*r, *u, Some(*s)),
            _ => return Err(format!("'{spec}' has too many fields; {EXAMPLE}")),
        };
        let ratio = ratio_field(
            ratio,
            1000.0,
            "1 = every unit distinct, 2 = half of them repeats",
            EXAMPLE,
        )?;
        let unit = size_field(unit, 512, 1 << 20, true).ok_or_else(|| {
            format!(
                "the unit '{unit}' must be a power of two from 512 bytes to 1M (the unit the device fingerprints: 4K for most arrays and VDO); {EXAMPLE}"
            )
        })?;
        let sets = match sets {
            None => DEFAULT_DEDUPE_SETS,
            Some(text) => match text.strip_suffix('%') {
                Some(p) => DedupeSets::Percent(
                    p.parse()
                        .ok()
                        .filter(|p: &f64| *p > 0.0 && *p <= 100.0)
                        .ok_or_else(|| {
                            format!(
                                "the sets '{text}' must be a percent above 0 and at most 100; {EXAMPLE}"
                            )
                        })?,
                ),
                None => DedupeSets::Count(text.parse().ok().filter(|&n: &u64| n >= 1).ok_or_else(
                    || {
                        format!(
                            "the sets '{text}' must be a count of at least 1 or a percent; {EXAMPLE}"
                        )
                    },
                )?),
            },
        };
        Ok(Dedupe {
            ratio,
            unit,
            sets,
            flipflop,
        })
    }
}

/// `zipf:<θ>`, `pareto:<h>`, `normal:<σ%>`.
impl FromStr for Skew {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        let (kind, value) = spec.split_once(':').unwrap_or((spec, ""));
        let number = |name: &str, low: f64, high: f64, inclusive_high: bool, example: &str| {
            let x: f64 = value.parse().ok().filter(|x: &f64| x.is_finite()).ok_or_else(|| {
                format!("'{value}' is not a number; {kind} takes {name}, for example --distribution={example}")
            })?;
            let fits = x > low && (x < high || (inclusive_high && x == high));
            let upper = if inclusive_high { "at most" } else { "below" };
            match fits {
                true => Ok(x),
                false => Err(format!(
                    "{kind}'s {name} must be above {low} and {upper} {high}, not {value}; for example --distribution={example}"
                )),
            }
        };
        Ok(match kind {
            "zipf" => Skew::Zipf {
                theta: number("θ", 0.0, 10.0, true, "zipf:1.2")?,
            },
            "pareto" => Skew::Pareto {
                h: number("h", 0.0, 1.0, false, "pareto:0.2")?,
            },
            "normal" => Skew::Normal {
                sigma_percent: number("σ (percent of the range)", 0.0, 100.0, true, "normal:10")?,
            },
            other => {
                return Err(format!(
                    "'{other}' is not a distribution; for example zipf:1.2, pareto:0.2 or normal:10"
                ));
            }
        })
    }
}

/// `--trim`'s percent: 1 to 100.
pub fn trim_percent(text: &str) -> Result<u8, String> {
    text.trim_end_matches('%')
        .parse::<u8>()
        .ok()
        .filter(|p| (1..=100).contains(p))
        .ok_or_else(|| format!("'{text}' is not a percent from 1 to 100; for example --trim=10"))
}

impl FlushEvery {
    /// `--fsync`'s or `--fdatasync`'s count of writes: at least 1.
    pub fn parse(text: &str, data_only: bool) -> Result<FlushEvery, String> {
        let name = if data_only { "fdatasync" } else { "fsync" };
        let writes = text
            .parse::<u32>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| {
                format!("'{text}' is not a count of writes of at least 1; for example --{name}=32")
            })?;
        Ok(FlushEvery { writes, data_only })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_value_reads_back_what_it_writes() {
        for text in ["2:4K", "3.5:128K", "1:512"] {
            let c: Compress = text.parse().unwrap();
            assert_eq!(c.to_string().parse::<Compress>().unwrap(), c, "{text}");
        }
        for text in ["2:4K:5%", "3:16K:64:flipflop", "1.5:512:100%"] {
            let d: Dedupe = text.parse().unwrap();
            assert_eq!(d.to_string(), text);
        }
        for text in ["zipf:1.2", "pareto:0.2", "normal:10"] {
            let s: Skew = text.parse().unwrap();
            assert_eq!(s.to_string(), text);
        }
        assert_eq!("2".parse::<Dedupe>().unwrap().to_string(), "2:4K:5%");
        assert!(
            "2:3K"
                .parse::<Dedupe>()
                .unwrap_err()
                .contains("power of two")
        );
        assert!(
            "0.5"
                .parse::<Compress>()
                .unwrap_err()
                .contains("outside 1 to 100")
        );
        assert!("zipf:0".parse::<Skew>().unwrap_err().contains("above 0"));
        assert_eq!(trim_percent("10%"), Ok(10));
        assert!(trim_percent("0").is_err());
        assert!(
            FlushEvery::parse("0", true)
                .unwrap_err()
                .contains("--fdatasync=32")
        );
    }
}
