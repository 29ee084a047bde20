//! Recognisable on-disk signatures: file systems, swap, volume managers, RAID, encryption and
//! partition tables, found from the first and last bytes of a device (what `wipefs` looks at).

/// Bytes read from the start of a device: enough for every offset below (btrfs sits at 64 KiB).
pub const HEAD_BYTES: usize = 72 * 1024;
/// Bytes read from the end of a device, for MD RAID 0.90/1.0 superblocks.
pub const TAIL_BYTES: usize = 128 * 1024;

/// A signature found on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// What it marks, e.g. "an ext4 file system".
    pub what: &'static str,
    /// Byte offset of the magic on the device.
    pub offset: u64,
}

fn at(bytes: &[u8], offset: usize, magic: &[u8]) -> bool {
    bytes.get(offset..offset + magic.len()) == Some(magic)
}

fn le32(bytes: &[u8], offset: usize) -> Option<u32> {
    bytes
        .get(offset..offset + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

const MD_MAGIC: u32 = 0xa92b_4efc;

/// The first signature in `head` (the device's first bytes) or `tail` (its last bytes, starting at
/// `tail_offset`), checked in the order `wipefs` would report them.
pub fn detect(head: &[u8], tail: &[u8], tail_offset: u64) -> Option<Signature> {
    let found = |what, offset: usize| {
        Some(Signature {
            what,
            offset: offset as u64,
        })
    };
    if at(head, 0, b"LUKS\xba\xbe") {
        return found("a LUKS encrypted volume", 0);
    }
    for offset in [0, 4096] {
        if le32(head, offset) == Some(MD_MAGIC) {
            return found("an MD RAID member (metadata 1.1/1.2)", offset);
        }
    }
    for sector in 0..4 {
        let offset = sector * 512;
        if at(head, offset, b"LABELONE") && at(head, offset + 24, b"LVM2 001") {
            return found("an LVM2 physical volume", offset);
        }
    }
    if at(head, 0, b"XFSB") {
        return found("an XFS file system", 0);
    }
    if at(head, 65600, b"_BHRfS_M") {
        return found("a btrfs file system", 65600);
    }
    if head.get(1080..1082) == Some(&[0x53, 0xef]) {
        let compat = le32(head, 1024 + 92).unwrap_or(0);
        let incompat = le32(head, 1024 + 96).unwrap_or(0);
        let what = if incompat & 0x40 != 0 || incompat & 0x200 != 0 {
            "an ext4 file system"
        } else if compat & 0x4 != 0 {
            "an ext3 file system"
        } else {
            "an ext2 file system"
        };
        return found(what, 1080);
    }
    if le32(head, 1024) == Some(0xf2f5_2010) {
        return found("an f2fs file system", 1024);
    }
    if at(head, 0, b"hsqs") {
        return found("a squashfs file system", 0);
    }
    for page in [4096usize, 8192, 16384, 65536] {
        let offset = page - 10;
        if at(head, offset, b"SWAPSPACE2") || at(head, offset, b"SWAP-SPACE") {
            return found("a swap area", offset);
        }
    }
    for offset in [32769, 34817, 36865] {
        if at(head, offset, b"CD001") {
            return found("an ISO9660 file system", offset);
        }
    }
    if at(head, 3, b"NTFS    ") {
        return found("an NTFS file system", 3);
    }
    if at(head, 3, b"EXFAT   ") {
        return found("an exFAT file system", 3);
    }
    let boot_signature = head.get(510..512) == Some(&[0x55, 0xaa]);
    if boot_signature
        && (at(head, 82, b"FAT32   ")
            || at(head, 54, b"FAT12   ")
            || at(head, 54, b"FAT16   ")
            || at(head, 54, b"FAT     "))
    {
        let offset = if at(head, 82, b"FAT32   ") { 82 } else { 54 };
        return found("a FAT file system", offset);
    }
    for offset in [512, 4096] {
        if at(head, offset, b"EFI PART") {
            return found("a GPT partition table", offset);
        }
    }
    if boot_signature && (0..4).any(|i| head.get(446 + i * 16 + 4).is_some_and(|&kind| kind != 0)) {
        return found("an MBR partition table", 510);
    }
    // MD 0.90 and 1.0 keep their superblock near the end of the device.
    let mut offset = 0;
    while offset + 4 <= tail.len() {
        if le32(tail, offset) == Some(MD_MAGIC) {
            return Some(Signature {
                what: "an MD RAID member (metadata 0.90/1.0)",
                offset: tail_offset + offset as u64,
            });
        }
        offset += 4096;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(writes: &[(usize, &[u8])]) -> Vec<u8> {
        let mut head = vec![0u8; HEAD_BYTES];
        for (offset, bytes) in writes {
            head[*offset..*offset + bytes.len()].copy_from_slice(bytes);
        }
        head
    }

    /// Bytes to place in a zeroed image: (offset, bytes).
    type Writes<'a> = Vec<(usize, &'a [u8])>;

    fn what(writes: &[(usize, &[u8])]) -> Option<&'static str> {
        detect(&image(writes), &[], 0).map(|s| s.what)
    }

    #[test]
    fn every_format() {
        let md = MD_MAGIC.to_le_bytes();
        let f2fs = 0xf2f5_2010u32.to_le_bytes();
        let cases: Vec<(Writes, &str)> = vec![
            (
                vec![(1080, &[0x53, 0xef]), (1024 + 96, &[0x40, 0, 0, 0])],
                "an ext4 file system",
            ),
            (
                vec![(1080, &[0x53, 0xef]), (1024 + 92, &[0x04, 0, 0, 0])],
                "an ext3 file system",
            ),
            (vec![(1080, &[0x53, 0xef])], "an ext2 file system"),
            (vec![(0, b"XFSB")], "an XFS file system"),
            (vec![(65600, b"_BHRfS_M")], "a btrfs file system"),
            (vec![(1024, &f2fs)], "an f2fs file system"),
            (
                vec![(3, b"NTFS    "), (510, &[0x55, 0xaa])],
                "an NTFS file system",
            ),
            (
                vec![(3, b"EXFAT   "), (510, &[0x55, 0xaa])],
                "an exFAT file system",
            ),
            (
                vec![(82, b"FAT32   "), (510, &[0x55, 0xaa])],
                "a FAT file system",
            ),
            (
                vec![(54, b"FAT16   "), (510, &[0x55, 0xaa])],
                "a FAT file system",
            ),
            (vec![(32769, b"CD001")], "an ISO9660 file system"),
            (vec![(0, b"hsqs")], "a squashfs file system"),
            (vec![(4086, b"SWAPSPACE2")], "a swap area"),
            (
                vec![(512, b"LABELONE"), (536, b"LVM2 001")],
                "an LVM2 physical volume",
            ),
            (vec![(4096, &md)], "an MD RAID member (metadata 1.1/1.2)"),
            (vec![(0, b"LUKS\xba\xbe")], "a LUKS encrypted volume"),
            (vec![(512, b"EFI PART")], "a GPT partition table"),
            (
                vec![(446 + 4, &[0x83]), (510, &[0x55, 0xaa])],
                "an MBR partition table",
            ),
        ];
        for (writes, expected) in cases {
            assert_eq!(what(&writes), Some(expected));
        }
        let ext = detect(&image(&[(1080, &[0x53, 0xef])]), &[], 0).unwrap();
        assert_eq!(ext.offset, 1080);
    }

    #[test]
    fn md_superblock_at_the_end() {
        let mut tail = vec![0u8; TAIL_BYTES];
        tail[65536..65540].copy_from_slice(&MD_MAGIC.to_le_bytes());
        let found = detect(&vec![0u8; HEAD_BYTES], &tail, 1 << 30).unwrap();
        assert_eq!(found.what, "an MD RAID member (metadata 0.90/1.0)");
        assert_eq!(found.offset, (1 << 30) + 65536);
    }

    #[test]
    fn blank_devices_and_data_have_no_signature() {
        assert_eq!(
            detect(&vec![0u8; HEAD_BYTES], &vec![0u8; TAIL_BYTES], 0),
            None
        );
        let pattern: Vec<u8> = (0..HEAD_BYTES).map(|i| i as u8).collect();
        assert_eq!(
            detect(&pattern, &[], 0),
            None,
            "iospd's own 0..255 pattern is not a signature"
        );
        assert_eq!(
            what(&[(510, &[0x55, 0xaa])]),
            None,
            "a boot signature without partitions"
        );
        assert_eq!(detect(&[0u8; 100], &[], 0), None, "short devices");
    }
}
