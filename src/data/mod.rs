//! Write data that looks like production data: it compresses at a chosen ratio (`--compress`: a
//! pool of random bytes made once, and per chunk a window of the pool followed by zeros, stamped
//! so that no two chunks are alike) and deduplicates at a chosen ratio (`--dedupe`: units that
//! repeat one of a few shared contents, in exact counts).

pub mod dedupe;
pub mod fill;
pub mod pattern;
pub mod reduce;
