//! A job's block sizes: `bs` (one per direction), `bssplit` (weights per direction) and `bsrange`
//! (the multiples of its low end, weighted as fio draws them) → `-b<size>`
//! when every I/O of the job has one size, else `--bssplit` with a list for reads and one for
//! writes and trims.

use super::access::Mode;
use super::reader::{Reader, Refusal};
use super::value::{KbBase, bytes};

/// The most multiples a `bsrange` may stand for: with its high end, a list of at most
/// `--bssplit`'s [`MAX_SIZES`](crate::profile::MAX_SIZES).
const MAX_RANGE_SIZES: u64 = crate::profile::MAX_SIZES as u64 - 1;

/// What the job's block sizes translate to.
pub struct Blocks {
    /// `-b<size>` or `--bssplit=…`.
    pub arg: String,
    /// The largest size (the one when there is one).
    pub largest: u64,
    /// Whether the sizes vary.
    pub mixed: bool,
    /// The smallest size of any direction, used or not (fio's minimum block size, which
    /// aligns the regions it takes as percentages).
    pub smallest: u64,
}

/// One direction's sizes and weights, in iospd's syntax (bytes; an empty weight shares the rest
/// of 100, as in fio).
type List = Vec<(u64, String)>;

/// The lists for reads, writes and trims (a missing one is the first).
fn per_direction(
    value: &str,
    base: KbBase,
    one: impl Fn(&str, KbBase) -> Result<List, String>,
) -> Result<[List; 3], String> {
    let parts: Vec<&str> = value.split(',').collect();
    if parts.len() > 3 {
        return Err("at most three lists: reads, writes, trims".into());
    }
    let first = one(parts[0], base)?;
    let at = |i: usize| match parts.get(i).filter(|p| !p.is_empty()) {
        Some(p) => one(p, base),
        None => Ok(first.clone()),
    };
    Ok([first.clone(), at(1)?, at(2)?])
}

fn single(text: &str, base: KbBase) -> Result<List, String> {
    Ok(vec![(bytes(text, base)?, "100".into())])
}

/// fio's `bssplit` list: percentages that add up to 100, the ones left empty sharing what the
/// others leave (fio's integer division, the last empty one taking what that leaves over); a
/// 0 % size is never drawn.
fn split(text: &str, base: KbBase) -> Result<List, String> {
    let mut items: Vec<(u64, Option<u64>)> = Vec::new();
    for item in text.split(':').filter(|item| !item.is_empty()) {
        let (size, percent) = item.split_once('/').unwrap_or((item, ""));
        let percent = match percent {
            "" => None,
            p => Some(
                p.parse::<u64>()
                    .map_err(|_| format!("'{p}' is not a percentage"))?,
            ),
        };
        items.push((bytes(size, base)?, percent));
    }
    let stated: u64 = items.iter().filter_map(|i| i.1).sum();
    let missing = items.iter().filter(|i| i.1.is_none()).count() as u64;
    if stated > 100 || (missing == 0 && stated != 100) {
        return Err(format!("percentages that add up to {stated}, not 100"));
    }
    let each = (100 - stated).checked_div(missing).unwrap_or(0);
    let mut left = 100 - stated - each * missing;
    let mut list = List::new();
    for (size, percent) in items.iter().rev() {
        let weight = match percent {
            Some(p) => *p,
            // Walking back, the last size without one is the first met: it takes the rest.
            None => each + std::mem::take(&mut left),
        };
        if weight > 0 {
            list.push((*size, weight.to_string()));
        }
    }
    list.reverse();
    if list.is_empty() {
        return Err("no size with a percentage above 0".into());
    }
    Ok(list)
}

/// fio's `bsrange=low-high` as fio draws it: `low + high × U` (U uniform in [0, 1)) rounded down
/// to a multiple of `low` and capped at `high`. Each multiple of `low` up to `high` is as likely
/// as the next; when `high` is not a multiple, `high` itself takes what rounds past it.
fn range(text: &str, base: KbBase) -> Result<List, String> {
    let (low, high) = text
        .split_once('-')
        .ok_or_else(|| format!("'{text}' is not a range low-high"))?;
    let (low, high) = (bytes(low, base)?, bytes(high, base)?);
    if low == 0 || high < low {
        return Err(format!("'{text}' is not a range of sizes from low to high"));
    }
    let multiples = high / low;
    if multiples > MAX_RANGE_SIZES {
        return Err(format!(
            "'{text}' stands for more than {MAX_RANGE_SIZES} sizes (the multiples of its low end)"
        ));
    }
    // Weights in proportion: `low` for each multiple, `high mod low` for `high`.
    let rest = high % low;
    let g = gcd(low, rest);
    let mut list: List = (1..=multiples)
        .map(|k| (low * k, (low / g).to_string()))
        .collect();
    if rest > 0 {
        list.push((high, (rest / g).to_string()));
    }
    Ok(list)
}

fn gcd(a: u64, b: u64) -> u64 {
    match b {
        0 => a,
        b => gcd(b, a % b),
    }
}

/// `bs`, `bssplit` or `bsrange` of the job (fio: `bssplit` over `bsrange` over `bs`).
pub fn blocks(r: &mut Reader, m: &Mode) -> Result<Blocks, Box<Refusal>> {
    let bs = r.get("bs");
    let bsrange = r.get("bsrange");
    let bssplit = r.get("bssplit");
    let (setting, lists) = match (bssplit, bsrange, bs) {
        (Some(s), _, _) => (
            Some(s),
            per_direction(s.value.as_deref().unwrap_or(""), r.kb_base, split),
        ),
        (None, Some(s), _) => (
            Some(s),
            per_direction(s.value.as_deref().unwrap_or(""), r.kb_base, range),
        ),
        (None, None, Some(s)) => (
            Some(s),
            per_direction(s.value.as_deref().unwrap_or(""), r.kb_base, single),
        ),
        (None, None, None) => (
            None,
            Ok([
                single("4096", r.kb_base).expect("a size"),
                Vec::new(),
                Vec::new(),
            ]),
        ),
    };
    let refuse = |r: &Reader, why: String| match setting {
        Some(s) => r.refuse(s, why, None),
        None => r.lacks("bs", why, None),
    };
    let [read, write, trim] = lists.map_err(|why| refuse(r, why))?;
    let (write, trim) = if setting.is_none() {
        (read.clone(), read.clone())
    } else {
        (write, trim)
    };
    if m.writes && m.trims && write != trim {
        return Err(refuse(
            r,
            "writes and trims of different sizes; iospd's trims take the writes' sizes".into(),
        ));
    }
    let smallest = [&read, &write, &trim]
        .into_iter()
        .flatten()
        .map(|(size, _)| *size)
        .min()
        .unwrap_or(4096);
    let writes = if m.writes || !m.trims { write } else { trim };
    let reads = if m.reads { read } else { writes.clone() };
    let writes = if m.writes || m.trims {
        writes
    } else {
        reads.clone()
    };
    let sizes: Vec<u64> = reads.iter().chain(&writes).map(|(size, _)| *size).collect();
    if let Some(bad) = sizes
        .iter()
        .chain(&[smallest])
        .find(|&&s| s == 0 || s > u32::MAX as u64)
    {
        return Err(refuse(r, format!("{bad} is not a block size")));
    }
    let largest = sizes.iter().copied().max().unwrap_or(4096);
    if sizes.iter().all(|&s| s == largest) {
        return Ok(Blocks {
            arg: format!("-b{largest}"),
            largest,
            mixed: false,
            smallest,
        });
    }
    let list = |l: &List| {
        l.iter()
            .map(|(size, weight)| format!("{size}/{weight}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    let mut arg = format!("--bssplit={}", list(&reads));
    if writes != reads {
        arg.push(',');
        arg.push_str(&list(&writes));
    }
    Ok(Blocks {
        arg,
        largest,
        mixed: true,
        smallest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_fio_reads_them() {
        let weights = |text: &str| -> Vec<String> {
            split(text, KbBase::default())
                .unwrap()
                .into_iter()
                .map(|(s, w)| format!("{s}/{w}"))
                .collect()
        };
        assert_eq!(weights("4k/50:64k/50"), ["4096/50", "65536/50"]);
        assert_eq!(weights("4k/:8k/:16k/"), ["4096/33", "8192/33", "16384/34"]);
        assert_eq!(weights("4k/10:8k/:16k/0"), ["4096/10", "8192/90"]);
        assert_eq!(weights("4k/100:8k/:16k/"), ["4096/100"]);
        for bad in ["4k/50:64k/60", "4k/50:64k/40", "4k/x", "4k/0"] {
            assert!(split(bad, KbBase::default()).is_err(), "{bad}");
        }
        let sizes: Vec<String> = range("4k-16k", KbBase::default())
            .unwrap()
            .into_iter()
            .map(|(s, w)| format!("{s}/{w}"))
            .collect();
        assert_eq!(sizes, ["4096/1", "8192/1", "12288/1", "16384/1"]);
        // 4k + 10k × U in [4k, 14k): 4k and 8k take 4k of it each, 12k and up (capped) 2k.
        let sizes: Vec<String> = range("4k-10k", KbBase::default())
            .unwrap()
            .into_iter()
            .map(|(s, w)| format!("{s}/{w}"))
            .collect();
        assert_eq!(sizes, ["4096/2", "8192/2", "10240/1"]);
        assert!(
            range("16k-4k", KbBase::default()).is_err()
                && range("512-64m", KbBase::default()).is_err()
        );
    }
}
