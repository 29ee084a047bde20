//! Where a byte of a file lies on its block device (the `FS_IOC_FIEMAP` ioctl), so a request the
//! block layer saw can be matched to the file I/O it served.

use std::os::fd::RawFd;

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
/// Extent flags that leave the physical place unknown: unknown, delayed allocation, encoded,
/// not aligned, inline data.
const UNPLACED: u32 = 0x2 | 0x4 | 0x8 | 0x100 | 0x200;

#[repr(C)]
#[derive(Default)]
struct Extent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
#[derive(Default)]
struct Fiemap {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [Extent; 1],
}

/// The byte of the file system's device that holds byte `offset` of the open file `fd`; `None`
/// when the file system does not say (no FIEMAP, a hole, data not placed yet).
pub fn physical(fd: RawFd, offset: u64) -> Option<u64> {
    let mut map = Fiemap {
        start: offset,
        length: 1,
        flags: 0,
        extent_count: 1,
        ..Default::default()
    };
    // SAFETY: `map` is a struct fiemap with room for the one extent it asks for.
    let r = unsafe { libc::ioctl(fd, FS_IOC_FIEMAP as _, &mut map as *mut Fiemap) };
    let extent = &map.extents[0];
    let placed = r == 0
        && map.mapped_extents == 1
        && extent.flags & UNPLACED == 0
        && (extent.logical..extent.logical + extent.length).contains(&offset);
    placed.then(|| extent.physical + (offset - extent.logical))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_written_byte_has_a_place_and_a_hole_has_none() {
        let dir = std::env::temp_dir().join(format!("iospd-fiemap-{}", std::process::id()));
        let mut file = std::fs::File::create(&dir).unwrap();
        file.write_all(&vec![7u8; 1 << 16]).unwrap();
        file.sync_all().unwrap();
        file.set_len(1 << 20).unwrap();
        let fd = file.as_raw_fd();
        let first = physical(fd, 0);
        // tmpfs has no FIEMAP: nothing to check there.
        if let Some(first) = first {
            assert_eq!(physical(fd, 4096), Some(first + 4096));
            assert_eq!(physical(fd, 1 << 19), None, "a hole has no place");
        }
        std::fs::remove_file(&dir).unwrap();
    }
}
