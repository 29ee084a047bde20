//! Write data that compresses at a chosen ratio (`--compress`): a pool of random bytes made once,
//! and for each write, per chunk (the compressor's unit), a window of the pool followed by zeros,
//! stamped so that no two chunks are alike.

pub mod pattern;
pub mod reduce;
