//! fio's value grammars: sizes (`4k`, `1GiB`, `0x1000`, `100%`, read in the job's `kb_base`), times (`runtime=30`, `500ms`, `2m`, `1h`; seconds by default), integers, booleans,
//! and the arithmetic fio evaluates in parentheses (`(4*1024)`; time in µs there). A value fio
//! would read only in part — arithmetic without parentheses, `iodepth=128*4`, of which fio takes
//! 128 — is refused, never guessed.

/// A size as fio gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// A percentage of the file or device.
    Percent(u64),
}

/// The longest expression read: each character may open a level of the recursive reading below,
/// so this bounds its depth (real job files write a few dozen characters).
const MAX_EXPRESSION: usize = 1024;

/// The refusal of a parenthesised value that does not come to a whole number from 0 up.
fn not_arithmetic(v: &str) -> String {
    format!(
        "'{v}' is not arithmetic that comes to a whole number from 0 to 2^63 (a negative result, an overflow or a division by 0 does not)"
    )
}

/// Integer arithmetic as bc does it with scale 0: `+ - * / % ^` and parentheses.
pub fn integer_expression(text: &str) -> Option<i64> {
    let tokens: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if tokens.len() > MAX_EXPRESSION {
        return None;
    }
    let mut at = 0;
    let value = sum(&tokens, &mut at)?;
    (at == tokens.len()).then_some(value)
}

fn sum(t: &[char], at: &mut usize) -> Option<i64> {
    let mut value = product(t, at)?;
    while let Some(&op) = t.get(*at).filter(|c| matches!(c, '+' | '-')) {
        *at += 1;
        let rhs = product(t, at)?;
        value = if op == '+' {
            value.checked_add(rhs)?
        } else {
            value.checked_sub(rhs)?
        };
    }
    Some(value)
}

fn product(t: &[char], at: &mut usize) -> Option<i64> {
    let mut value = power(t, at)?;
    while let Some(&op) = t.get(*at).filter(|c| matches!(c, '*' | '/' | '%')) {
        *at += 1;
        let rhs = power(t, at)?;
        value = match op {
            '*' => value.checked_mul(rhs)?,
            '/' => value.checked_div(rhs)?,
            _ => value.checked_rem(rhs)?,
        };
    }
    Some(value)
}

fn power(t: &[char], at: &mut usize) -> Option<i64> {
    let base = atom(t, at)?;
    if t.get(*at) == Some(&'^') {
        *at += 1;
        let exp = power(t, at)?;
        return base.checked_pow(u32::try_from(exp).ok()?);
    }
    Some(base)
}

fn atom(t: &[char], at: &mut usize) -> Option<i64> {
    match t.get(*at)? {
        '(' => {
            *at += 1;
            let v = sum(t, at)?;
            (t.get(*at) == Some(&')')).then(|| *at += 1)?;
            Some(v)
        }
        '-' => {
            *at += 1;
            atom(t, at)?.checked_neg()
        }
        c if c.is_ascii_digit() => {
            let start = *at;
            while t.get(*at).is_some_and(|c| c.is_ascii_digit()) {
                *at += 1;
            }
            t[start..*at].iter().collect::<String>().parse().ok()
        }
        _ => None,
    }
}

/// The refusal for arithmetic outside parentheses.
fn partial(value: &str) -> String {
    format!(
        "'{value}' is arithmetic without parentheses, of which fio reads only the leading number; write it in parentheses, ({value}), or as one number"
    )
}

/// Whether `value` has an operator after its first character (a leading sign aside).
fn has_operator(value: &str) -> bool {
    value
        .char_indices()
        .skip(1)
        .any(|(_, c)| matches!(c, '+' | '*' | '/' | '^'))
        || value[1.min(value.len())..].contains('-')
}

/// A whole number (`iodepth`, `numjobs`, …).
pub fn integer(value: &str) -> Result<u64, String> {
    let v = value.trim();
    if v.starts_with('(') {
        return integer_expression(v)
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| not_arithmetic(v));
    }
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        // fio's str_to_decimal reads a 0x number in hex (randseed's default is 0x89).
        return u64::from_str_radix(hex, 16).map_err(|_| format!("'{v}' is not a whole number"));
    }
    if has_operator(v) {
        return Err(partial(v));
    }
    v.parse()
        .map_err(|_| format!("'{v}' is not a whole number"))
}

/// How fio reads a size's unit: `kb_base`, 1024 (its default) or 1000. `k`, `kb`, `ki` (any
/// case) are `kb_base`; `kib` is the other one — so by default `4KiB` is 4000 bytes and `4k`
/// 4096, and with `kb_base=1000` the reverse, as fio's own parser reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KbBase(pub u64);

impl Default for KbBase {
    fn default() -> Self {
        KbBase(1024)
    }
}

/// A size: a number with an optional unit (k, m, g, t, p; with or without `i`/`b`/`ib`; any
/// case; read in `base`), hex, a percentage, or parenthesised arithmetic.
pub fn size(value: &str, base: KbBase) -> Result<Size, String> {
    let v = value.trim();
    if v.starts_with('(') {
        return integer_expression(v)
            .and_then(|n| u64::try_from(n).ok())
            .map(Size::Bytes)
            .ok_or_else(|| not_arithmetic(v));
    }
    if let Some(p) = v.strip_suffix('%') {
        let n: u64 = p
            .trim()
            .parse()
            .map_err(|_| format!("'{v}' is not a percentage"))?;
        if n == 0 || n > 100 {
            return Err(format!("'{v}': a percentage from 1 to 100"));
        }
        return Ok(Size::Percent(n));
    }
    if has_operator(v) {
        return Err(partial(v));
    }
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16)
            .map(Size::Bytes)
            .map_err(|_| format!("'{v}' is not a hexadecimal size"));
    }
    let digits = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (number, unit) = v.split_at(digits);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{v}' is not a size (a number and k, m, g, t: 4k, 1g)"))?;
    let other = if base.0 == 1000 { 1024 } else { 1000 };
    let unit = unit.to_ascii_lowercase();
    let (power, mult) = match unit.as_str() {
        "" | "b" => (Some(0), 1),
        u if u.len() == 3 && u.ends_with("ib") => (power_of(&u[..1]), other),
        u if matches!(u.len(), 1 | 2) && (u.len() == 1 || u.ends_with(['b', 'i'])) => {
            (power_of(&u[..1]), base.0)
        }
        _ => (None, 1),
    };
    let Some(power) = power else {
        return Err(format!(
            "'{v}': '{unit}' is not a size unit (k, m, g, t, p, with or without i/b/ib)"
        ));
    };
    (0..power)
        .try_fold(1u64, |m, _| m.checked_mul(mult))
        .and_then(|mult| n.checked_mul(mult))
        .map(Size::Bytes)
        .ok_or_else(|| format!("'{v}' is too large"))
}

/// The power of a unit's letter (`k` 1 … `p` 5).
fn power_of(letter: &str) -> Option<u32> {
    Some(match letter {
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return None,
    })
}

/// A size that must be bytes, not a percentage.
pub fn bytes(value: &str, base: KbBase) -> Result<u64, String> {
    match size(value, base)? {
        Size::Bytes(b) => Ok(b),
        Size::Percent(_) => Err(format!("'{value}': give a size here, not a percentage")),
    }
}

/// A time in ns: a number in `default_unit_ns` units, or with a unit (us, ms, s, m, h, d);
/// parenthesised arithmetic is in the option's own unit too (fio scales an expression for an
/// option in seconds, `runtime=(40+20)`, as seconds).
pub fn time_ns(value: &str, default_unit_ns: u64) -> Result<u64, String> {
    let v = value.trim();
    if v.starts_with('(') {
        return integer_expression(v)
            .and_then(|n| u64::try_from(n).ok())
            .and_then(|n| n.checked_mul(default_unit_ns))
            .ok_or_else(|| not_arithmetic(v));
    }
    if has_operator(v) {
        return Err(partial(v));
    }
    let digits = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (number, unit) = v.split_at(digits);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{v}' is not a time (a number and us, ms, s, m, h or d)"))?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => {
            return Err(format!(
                "'{v}': '{unit}' is not a time unit (us, ms, s, m, h, d)"
            ));
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("'{v}' is too long"))
}

/// A boolean: bare, or 1/0, true/false, yes/no, on/off.
pub fn boolean(value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Ok(false),
        Some(other) => Err(format!("'{other}' is not 0 or 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_times_and_numbers_read_as_fio_reads_them() {
        let base = KbBase::default();
        // fio's kb_base=1024: k, kb, ki (any case) are 1024; kib is 1000 (its parser's rule,
        // checked against fio 3.33's I/O log: bs=4KiB issues 4000-byte reads).
        let fio_1024 = [
            ("4k", 4096),
            ("4K", 4096),
            ("64KB", 64 << 10),
            ("4ki", 4096),
            ("1Gi", 1 << 30),
            ("4KiB", 4000),
            ("1MiB", 1_000_000),
            ("1gib", 1_000_000_000),
            ("2t", 2 << 40),
            ("1p", 1 << 50),
            ("512b", 512),
            ("512", 512),
        ];
        for (text, bytes) in fio_1024 {
            assert_eq!(size(text, base), Ok(Size::Bytes(bytes)), "{text}");
        }
        // kb_base=1000: the reverse.
        let fio_1000 = [
            ("4k", 4000),
            ("4kB", 4000),
            ("4KiB", 4096),
            ("1MiB", 1 << 20),
        ];
        for (text, bytes) in fio_1000 {
            assert_eq!(size(text, KbBase(1000)), Ok(Size::Bytes(bytes)), "{text}");
        }
        assert_eq!(size("0x1000", base), Ok(Size::Bytes(4096)));
        assert_eq!(size("100%", base), Ok(Size::Percent(100)));
        assert_eq!(size("(4*1024)", base), Ok(Size::Bytes(4096)));
        for bad in ["4q", "4kq", "4kibb", "4bib", "4ib"] {
            assert!(size(bad, base).is_err(), "{bad}");
        }
        assert!(size("16384p", base).is_err(), "past 2^64");
        assert_eq!(time_ns("30", 1_000_000_000), Ok(30_000_000_000));
        assert_eq!(time_ns("2m", 1_000_000_000), Ok(120_000_000_000));
        assert_eq!(time_ns("500ms", 1_000_000_000), Ok(500_000_000));
        assert_eq!(time_ns("(40+5)", 1_000_000_000), Ok(45_000_000_000));
        assert_eq!(time_ns("(40+5)", 1_000), Ok(45_000));
        assert_eq!(integer("(128*4)"), Ok(512));
        assert_eq!(integer("0x89"), Ok(137));
        assert!(integer("0xg").is_err());
        assert_eq!(integer_expression("2^10-24/5"), Some(1020));
        // Nesting as deep as the input is long is refused, not recursed into.
        for deep in [
            format!("{}1{}", "(".repeat(200_000), ")".repeat(200_000)),
            format!("{}1", "-".repeat(200_000)),
            format!("1{}", "^1".repeat(200_000)),
        ] {
            assert_eq!(integer_expression(&deep), None);
        }
        let nested = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert_eq!(integer_expression(&nested), Some(1));
        assert!(
            integer("128*4")
                .unwrap_err()
                .contains("fio reads only the leading number")
        );
        assert!(time_ns("40+5", 1).is_err());
        assert_eq!(boolean(None), Ok(true));
        assert_eq!(boolean(Some("0")), Ok(false));
    }
}
