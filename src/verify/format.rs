//! The self-describing block (`doc/verify-format.md`): a 64-byte header at the start of the
//! block, a 16-byte stamp at the start of every further 512-byte sector, and a payload taken from
//! a pattern that (run id, offset, generation) select, so a reader regenerates what it expects
//! without stored per-block data.
//!
//! Header, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `IOSPDBLK` |
//! | 8..10 | format version (1) |
//! | 10..12 | sector size (512) |
//! | 12..16 | block length |
//! | 16..24 | run id |
//! | 24..32 | byte offset of the block in its target |
//! | 32..40 | generation (1 for the first write of this run; 0 for `-c` creation) |
//! | 40..44 | target index |
//! | 44..48 | writing thread |
//! | 48..52 | CRC-32C of bytes 64..length (payload and sector stamps) |
//! | 52..56 | flags (bit 0: written by `-c` creation) |
//! | 56..60 | reserved, 0 |
//! | 60..64 | CRC-32C of bytes 0..60 |
//!
//! Sector stamp (every 512-byte sector after the first): the block's offset (8 bytes) and its
//! generation (8 bytes), each XORed with a mask drawn from (offset, sector index), so the stamps
//! of a block do not repeat (a compressing device would find them). A sector left from another
//! write shows another generation: a torn write.

use serde::{Deserialize, Serialize};

use crate::rng::splitmix64 as splitmix;

/// The first bytes of every block.
pub const MAGIC: [u8; 8] = *b"IOSPDBLK";
/// The layout's version.
pub const VERSION: u16 = 1;
/// Sectors of a block each carry a stamp; blocks are whole sectors.
pub const SECTOR: usize = 512;
/// Header bytes.
pub const HEADER: usize = 64;
/// Sector stamp bytes.
pub const STAMP: usize = 16;
/// `flags` bit: the block was written by `-c` creation.
pub const CREATED: u32 = 1;
/// Pattern bytes the payload windows are taken from (plus one block, so a window never wraps).
const PATTERN: usize = 1 << 20;

/// What a block's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Block length, bytes.
    pub len: u32,
    /// The run that wrote it.
    pub run_id: u64,
    /// Where it was meant to go.
    pub offset: u64,
    /// Which write of that block it is.
    pub generation: u64,
    /// The target's index in its timespan.
    pub target: u32,
    /// The thread that wrote it.
    pub thread: u32,
    /// `CREATED`, or 0.
    pub flags: u32,
}

/// The payload source of one run: a megabyte of pseudo-random bytes from the run id, and a window
/// into it per (offset, generation).
pub struct Pattern {
    bytes: Vec<u8>,
    max_block: usize,
}

impl Pattern {
    /// The pattern of `run_id`, for blocks of up to `max_block` bytes.
    pub fn new(run_id: u64, max_block: usize) -> Self {
        let mut state = run_id ^ 0x6A09_E667_F3BC_C908;
        let mut bytes = Vec::with_capacity(PATTERN + max_block + 8);
        while bytes.len() < PATTERN + max_block {
            bytes.extend_from_slice(&splitmix(&mut state).to_le_bytes());
        }
        Pattern { bytes, max_block }
    }

    /// The `len` bytes a block at `offset`, generation `generation` is filled from.
    #[inline]
    pub fn window(&self, offset: u64, generation: u64, len: usize) -> &[u8] {
        debug_assert!(len <= self.max_block);
        let mut seed = offset.rotate_left(17) ^ generation.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let start = (splitmix(&mut seed) % PATTERN as u64) as usize;
        &self.bytes[start..start + len]
    }
}

/// The masks of sector `sector`'s stamp in the block at `offset` (they do not depend on the
/// generation, so a sector of any write decodes).
#[inline]
fn stamp_mask(offset: u64, sector: usize) -> (u64, u64) {
    let mut seed = offset ^ (sector as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (splitmix(&mut seed), splitmix(&mut seed))
}

/// Sector `sector`'s stamp: the offset and generation it names.
#[inline]
fn stamp_at(buf: &[u8], offset: u64, sector: usize) -> (u64, u64) {
    let (a, b) = stamp_mask(offset, sector / SECTOR);
    (u64_at(buf, sector) ^ a, u64_at(buf, sector + 8) ^ b)
}

/// Fills `buf` (a whole block, a multiple of [`SECTOR`]) as `header` describes it.
pub fn write(buf: &mut [u8], header: &Header, pattern: &Pattern) {
    let len = buf.len();
    buf.copy_from_slice(pattern.window(header.offset, header.generation, len));
    for sector in (SECTOR..len).step_by(SECTOR) {
        let (a, b) = stamp_mask(header.offset, sector / SECTOR);
        buf[sector..sector + 8].copy_from_slice(&(header.offset ^ a).to_le_bytes());
        buf[sector + 8..sector + 16].copy_from_slice(&(header.generation ^ b).to_le_bytes());
    }
    let payload_crc = crc32c::crc32c(&buf[HEADER..]);
    let h = &mut buf[..HEADER];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..10].copy_from_slice(&VERSION.to_le_bytes());
    h[10..12].copy_from_slice(&(SECTOR as u16).to_le_bytes());
    h[12..16].copy_from_slice(&(len as u32).to_le_bytes());
    h[16..24].copy_from_slice(&header.run_id.to_le_bytes());
    h[24..32].copy_from_slice(&header.offset.to_le_bytes());
    h[32..40].copy_from_slice(&header.generation.to_le_bytes());
    h[40..44].copy_from_slice(&header.target.to_le_bytes());
    h[44..48].copy_from_slice(&header.thread.to_le_bytes());
    h[48..52].copy_from_slice(&payload_crc.to_le_bytes());
    h[52..56].copy_from_slice(&header.flags.to_le_bytes());
    h[56..60].fill(0);
    let header_crc = crc32c::crc32c(&h[..60]);
    h[60..64].copy_from_slice(&header_crc.to_le_bytes());
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"))
}

/// The header of `buf`, when it has the magic, this version and a valid header checksum.
pub fn decode(buf: &[u8]) -> Option<Header> {
    if buf.len() < HEADER
        || buf[0..8] != MAGIC
        || u16::from_le_bytes([buf[8], buf[9]]) != VERSION
        || crc32c::crc32c(&buf[..60]) != u32_at(buf, 60)
    {
        return None;
    }
    Some(Header {
        len: u32_at(buf, 12),
        run_id: u64_at(buf, 16),
        offset: u64_at(buf, 24),
        generation: u64_at(buf, 32),
        target: u32_at(buf, 40),
        thread: u32_at(buf, 44),
        flags: u32_at(buf, 52),
    })
}

/// What a read should find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    /// This run.
    pub run_id: u64,
    /// Where the block was read.
    pub offset: u64,
    /// The generation of the last write to it that completed (0: its `-c` creation).
    pub generation: u64,
}

/// How a block failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// No valid header: not a block iospd wrote (overwritten, garbage, or the header damaged).
    Garbage,
    /// A valid block meant for another offset.
    Misdirected,
    /// Its sectors come from different writes of it.
    Torn,
    /// A block of an earlier run where this run wrote.
    Stale,
    /// An older generation than the last write that completed: that write was lost.
    Lost,
    /// A newer generation than any write that completed (a write reported as failed landed).
    Newer,
    /// The header is right, the payload is not.
    Corrupt,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 7] = [
        Kind::Garbage,
        Kind::Misdirected,
        Kind::Torn,
        Kind::Stale,
        Kind::Lost,
        Kind::Newer,
        Kind::Corrupt,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Garbage => "garbage",
            Kind::Misdirected => "misdirected",
            Kind::Torn => "torn",
            Kind::Stale => "stale",
            Kind::Lost => "lost",
            Kind::Newer => "newer",
            Kind::Corrupt => "corrupt",
        }
    }
}

/// A block that failed its check, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// How it failed.
    pub kind: Kind,
    /// The header found, when there was a valid one.
    pub found: Option<Header>,
    /// The generation expected.
    pub expected_generation: u64,
    /// The first byte (from the block's start) that differs from what was expected, with the byte
    /// expected and the byte found, for torn and corrupt blocks.
    pub first_difference: Option<(u32, u8, u8)>,
    /// For a torn block: the first sector from another write, and that write's generation.
    pub torn_sector: Option<(u32, u64)>,
}

/// Checks a block read at `expect.offset`.
pub fn check(buf: &[u8], expect: &Expect, pattern: &Pattern) -> Result<(), Mismatch> {
    let fail = |kind, found| Mismatch {
        kind,
        found,
        expected_generation: expect.generation,
        first_difference: None,
        torn_sector: None,
    };
    let Some(h) = decode(buf) else {
        return Err(fail(Kind::Garbage, None));
    };
    if h.offset != expect.offset || h.len as usize != buf.len() {
        return Err(fail(Kind::Misdirected, Some(h)));
    }
    for sector in (SECTOR..buf.len()).step_by(SECTOR) {
        let (offset, generation) = stamp_at(buf, h.offset, sector);
        if (offset, generation) == (h.offset, h.generation) {
            continue;
        }
        // Another write of this block left this sector, if its bytes are that write's.
        let other = pattern.window(offset, generation, buf.len());
        let rest = sector + STAMP..sector + SECTOR;
        if offset == h.offset && buf[rest.clone()] == other[rest] {
            let mut m = fail(Kind::Torn, Some(h));
            m.torn_sector = Some(((sector / SECTOR) as u32, generation));
            m.first_difference = first_difference(buf, &h, pattern);
            return Err(m);
        }
        let mut m = fail(Kind::Corrupt, Some(h));
        m.first_difference = first_difference(buf, &h, pattern);
        return Err(m);
    }
    if h.run_id != expect.run_id {
        return Err(fail(Kind::Stale, Some(h)));
    }
    if h.generation < expect.generation {
        return Err(fail(Kind::Lost, Some(h)));
    }
    if h.generation > expect.generation {
        return Err(fail(Kind::Newer, Some(h)));
    }
    // The payload against the pattern it came from, sector by sector past the stamps: a plain
    // comparison costs about half of its CRC-32C. The stored CRC matches whenever this does (the
    // writer computed it over these very bytes); it is there for readers without the pattern.
    let window = pattern.window(h.offset, h.generation, buf.len());
    let payload_ok = (0..buf.len()).step_by(SECTOR).all(|sector| {
        let from = sector + if sector == 0 { HEADER } else { STAMP };
        let to = (sector + SECTOR).min(buf.len());
        buf[from..to] == window[from..to]
    });
    if !payload_ok {
        let mut m = fail(Kind::Corrupt, Some(h));
        m.first_difference = first_difference(buf, &h, pattern);
        return Err(m);
    }
    Ok(())
}

/// The first byte of `buf` that differs from the block `h` describes, with both values.
fn first_difference(buf: &[u8], h: &Header, pattern: &Pattern) -> Option<(u32, u8, u8)> {
    let mut expected = vec![0u8; buf.len()];
    write(&mut expected, h, pattern);
    // The header's payload checksum is of what was written, so compare past the header.
    buf.iter()
        .zip(&expected)
        .enumerate()
        .skip(HEADER)
        .find(|(_, (a, b))| a != b)
        .map(|(i, (found, want))| (i as u32, *want, *found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(offset: u64, generation: u64) -> Header {
        Header {
            len: 4096,
            run_id: 42,
            offset,
            generation,
            target: 1,
            thread: 3,
            flags: 0,
        }
    }

    fn block(pattern: &Pattern, offset: u64, generation: u64) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        write(&mut buf, &header(offset, generation), pattern);
        buf
    }

    fn expect(offset: u64, generation: u64) -> Expect {
        Expect {
            run_id: 42,
            offset,
            generation,
        }
    }

    #[test]
    fn a_block_round_trips_and_its_layout_is_the_documented_one() {
        let pattern = Pattern::new(42, 4096);
        let buf = block(&pattern, 8192, 5);
        assert_eq!(decode(&buf), Some(header(8192, 5)));
        assert_eq!(check(&buf, &expect(8192, 5), &pattern), Ok(()));
        assert_eq!(&buf[0..8], b"IOSPDBLK");
        assert_eq!(u64_at(&buf, 24), 8192);
        assert_eq!(u64_at(&buf, 32), 5);
        assert_eq!(stamp_at(&buf, 8192, 512), (8192, 5));
        assert_eq!(stamp_at(&buf, 8192, 3584), (8192, 5));
        // Masked: the stamps of one block do not repeat.
        assert_ne!(buf[512..528], buf[1024..1040]);
        assert_eq!(u32_at(&buf, 48), crc32c::crc32c(&buf[64..]));
        // Another offset or generation gives another payload: blocks do not repeat.
        assert_ne!(buf[64..512], block(&pattern, 8192, 6)[64..512]);
        assert_ne!(buf[64..512], block(&pattern, 12288, 5)[64..512]);
    }

    #[test]
    fn each_kind_of_damage_is_told_apart() {
        let pattern = Pattern::new(42, 4096);
        let kind = |buf: &[u8], e: Expect| check(buf, &e, &pattern).unwrap_err().kind;
        // One payload byte flipped: corrupt, at that byte.
        let mut flipped = block(&pattern, 0, 2);
        flipped[1000] ^= 0x40;
        let m = check(&flipped, &expect(0, 2), &pattern).unwrap_err();
        assert_eq!(m.kind, Kind::Corrupt);
        assert_eq!(m.first_difference.map(|d| d.0), Some(1000));
        // A header byte flipped: the header checksum fails.
        let mut header_hit = block(&pattern, 0, 2);
        header_hit[30] ^= 1;
        assert_eq!(kind(&header_hit, expect(0, 2)), Kind::Garbage);
        assert_eq!(kind(&[0u8; 4096], expect(0, 2)), Kind::Garbage);
        // Block A where B should be.
        assert_eq!(
            kind(&block(&pattern, 4096, 2), expect(0, 2)),
            Kind::Misdirected
        );
        // An older generation: the last write was lost; a newer one landed unannounced.
        assert_eq!(kind(&block(&pattern, 0, 1), expect(0, 2)), Kind::Lost);
        assert_eq!(kind(&block(&pattern, 0, 3), expect(0, 2)), Kind::Newer);
        // Another run's block.
        let other = Pattern::new(7, 4096);
        let mut stale = vec![0u8; 4096];
        write(
            &mut stale,
            &Header {
                run_id: 7,
                ..header(0, 2)
            },
            &other,
        );
        assert_eq!(kind(&stale, expect(0, 2)), Kind::Stale);
        // Half the sectors from generation 1, half from 2: torn, at sector 4.
        let mut torn = block(&pattern, 0, 2);
        torn[2048..].copy_from_slice(&block(&pattern, 0, 1)[2048..]);
        let m = check(&torn, &expect(0, 2), &pattern).unwrap_err();
        assert_eq!(m.kind, Kind::Torn);
        assert_eq!(m.torn_sector, Some((4, 1)));
        // The stamp's offset is the same in both writes; its generation is not.
        assert_eq!(m.first_difference.map(|d| d.0), Some(2048 + 8));
        // A flipped stamp byte is corruption, not a tear.
        let mut stamp_hit = block(&pattern, 0, 2);
        stamp_hit[1536 + 9] ^= 1;
        assert_eq!(kind(&stamp_hit, expect(0, 2)), Kind::Corrupt);
    }
}
