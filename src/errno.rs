//! Error numbers by name, as storage tools write them (`EIO`, `ENOSPC`): the ones an I/O can end
//! with, for options that name which failures to pass (`--continue-on-error`, fio's
//! `ignore_error`).

/// Name and number of each error an I/O may end with.
const NAMES: &[(&str, i32)] = &[
    ("EPERM", libc::EPERM),
    ("ENOENT", libc::ENOENT),
    ("EINTR", libc::EINTR),
    ("EIO", libc::EIO),
    ("ENXIO", libc::ENXIO),
    ("EBADF", libc::EBADF),
    ("EAGAIN", libc::EAGAIN),
    ("ENOMEM", libc::ENOMEM),
    ("EACCES", libc::EACCES),
    ("EFAULT", libc::EFAULT),
    ("EBUSY", libc::EBUSY),
    ("ENODEV", libc::ENODEV),
    ("EINVAL", libc::EINVAL),
    ("EFBIG", libc::EFBIG),
    ("ENOSPC", libc::ENOSPC),
    ("EROFS", libc::EROFS),
    ("ENODATA", libc::ENODATA),
    ("ETIME", libc::ETIME),
    ("EBADMSG", libc::EBADMSG),
    ("EOVERFLOW", libc::EOVERFLOW),
    ("EILSEQ", libc::EILSEQ),
    ("EOPNOTSUPP", libc::EOPNOTSUPP),
    ("ETIMEDOUT", libc::ETIMEDOUT),
    ("ESTALE", libc::ESTALE),
    ("EREMOTEIO", libc::EREMOTEIO),
    ("EDQUOT", libc::EDQUOT),
    ("ECANCELED", libc::ECANCELED),
    ("EBADE", libc::EBADE),
    ("ENOLINK", libc::ENOLINK),
    ("ENOTSUP", libc::ENOTSUP),
];

/// The number of `text`: a name from the list (any case) or a positive number.
pub fn parse(text: &str) -> Option<i32> {
    let text = text.trim();
    if let Ok(n) = text.parse::<i32>() {
        return (n > 0).then_some(n);
    }
    NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(text))
        .map(|&(_, n)| n)
}

/// The name of `n`, or the number itself when it has none in the list.
pub fn name(n: i32) -> String {
    NAMES
        .iter()
        .find(|&&(_, number)| number == n)
        .map_or_else(|| n.to_string(), |(name, _)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_read_both_ways() {
        assert_eq!(parse("EIO"), Some(5));
        assert_eq!(parse("enospc"), Some(28));
        assert_eq!(parse("122"), Some(122));
        assert_eq!(parse("0"), None);
        assert_eq!(parse("-5"), None);
        assert_eq!(parse("ENOPE"), None);
        assert_eq!(name(28), "ENOSPC");
        assert_eq!(name(9999), "9999");
        for &(n, number) in NAMES {
            assert_eq!(parse(n), Some(number));
        }
    }
}
