//! fio's value grammars: sizes (`4k`, `1GiB`, `0x1000`, `100%`, with 1024 as fio's default
//! `kb_base`), times (`runtime=30`, `500ms`, `2m`, `1h`; seconds by default), integers, booleans,
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
    if has_operator(v) {
        return Err(partial(v));
    }
    v.parse()
        .map_err(|_| format!("'{v}' is not a whole number"))
}

/// A size: a number with an optional unit (k, m, g, t, p; with or without `i`/`b`; any case; all
/// powers of 1024 as fio's default `kb_base`), hex, a percentage, or parenthesised arithmetic.
pub fn size(value: &str) -> Result<Size, String> {
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
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "ki" | "kib" => 1 << 10,
        "m" | "mb" | "mi" | "mib" => 1 << 20,
        "g" | "gb" | "gi" | "gib" => 1 << 30,
        "t" | "tb" | "ti" | "tib" => 1 << 40,
        "p" | "pb" | "pi" | "pib" => 1 << 50,
        _ => {
            return Err(format!(
                "'{v}': '{unit}' is not a size unit (k, m, g, t, p, with or without i/b)"
            ));
        }
    };
    n.checked_mul(mult)
        .map(Size::Bytes)
        .ok_or_else(|| format!("'{v}' is too large"))
}

/// A size that must be bytes, not a percentage.
pub fn bytes(value: &str) -> Result<u64, String> {
    match size(value)? {
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
        assert_eq!(size("4k"), Ok(Size::Bytes(4096)));
        assert_eq!(size("1GiB"), Ok(Size::Bytes(1 << 30)));
        assert_eq!(size("64KB"), Ok(Size::Bytes(64 << 10)));
        assert_eq!(size("0x1000"), Ok(Size::Bytes(4096)));
        assert_eq!(size("100%"), Ok(Size::Percent(100)));
        assert_eq!(size("(4*1024)"), Ok(Size::Bytes(4096)));
        assert!(size("4q").is_err());
        assert_eq!(time_ns("30", 1_000_000_000), Ok(30_000_000_000));
        assert_eq!(time_ns("2m", 1_000_000_000), Ok(120_000_000_000));
        assert_eq!(time_ns("500ms", 1_000_000_000), Ok(500_000_000));
        assert_eq!(time_ns("(40+5)", 1_000_000_000), Ok(45_000_000_000));
        assert_eq!(time_ns("(40+5)", 1_000), Ok(45_000));
        assert_eq!(integer("(128*4)"), Ok(512));
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
