//! Signatures, found by libblkid: the library behind `blkid -p` and `wipefs`, which knows every
//! file system, RAID member, volume manager, encryption and partition-table format util-linux
//! knows (ZFS, bcache, VDO, Intel RST, DDF, BlueStore, DRBD, ASM, GFS2, OCFS2, LUKS2 with a
//! damaged primary header, a GPT with only its backup header …).
//!
//! iospd loads `libblkid.so.1` when it first needs it rather than linking it: util-linux installs
//! that library on every Linux system, but its development files (and, for a generated binding,
//! libclang) are not, and the default build must not need them. The probe runs on the descriptor
//! iospd already opened (`blkid_probe_set_device`), so what is probed is what will be written —
//! the command-line tools would open the path again. When the library cannot be loaded, writing
//! to a device is refused with the reason.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;

/// `BLKID_SUBLKS_TYPE | USAGE | MAGIC | BADCSUM`: what wipefs asks of the superblock chain; a
/// superblock whose checksum fails is still reported (a damaged header still marks data).
const SUPERBLOCK_FLAGS: c_int = (1 << 5) | (1 << 7) | (1 << 9) | (1 << 10);
/// `BLKID_PARTS_FORCE_GPT | MAGIC`: a GPT is found even without a protective MBR, and from its
/// backup header alone.
const PARTITION_FLAGS: c_int = (1 << 1) | (1 << 3);

/// One signature on a device or in a range of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// libblkid's name for it: `ext4`, `zfs_member`, `crypto_LUKS`, `gpt` …
    pub kind: String,
    /// libblkid's class: `filesystem`, `raid`, `crypto`, `other`, or `partition table`.
    pub usage: String,
    /// Byte offset of its magic from the start of what was probed.
    pub offset: u64,
}

impl Signature {
    /// In words, for a refusal: "an ext4 file system", "a gpt partition table".
    pub fn describe(&self) -> String {
        let kind = self.kind.as_str();
        let named = match kind {
            "crypto_LUKS" => Some("a LUKS encrypted volume"),
            "LVM2_member" | "LVM1_member" => Some("an LVM physical volume"),
            "linux_raid_member" => Some("an MD RAID member"),
            "zfs_member" => Some("a ZFS pool member"),
            "swap" => Some("swap space"),
            "bcache" => Some("a bcache device"),
            "ceph_bluestore" => Some("a Ceph BlueStore device"),
            "isw_raid_member" => Some("an Intel RST (isw) RAID member"),
            "ddf_raid_member" => Some("a DDF RAID member"),
            "drbd" => Some("DRBD metadata"),
            "oracleasm" => Some("an Oracle ASM disk"),
            "vdo" => Some("a VDO volume"),
            _ => None,
        };
        if let Some(named) = named {
            return named.to_string();
        }
        let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u', 'x', 'A', 'E', 'I', 'O', 'U']) {
            "an"
        } else {
            "a"
        };
        match self.usage.as_str() {
            "filesystem" => format!("{article} {kind} file system"),
            "raid" => format!("{article} {kind} RAID member"),
            "crypto" => format!("{article} {kind} encrypted volume"),
            "partition table" => format!("{article} {kind} partition table"),
            usage => format!("{article} {kind} signature ({usage})"),
        }
    }
}

type Probe = *mut c_void;

type NewProbe = unsafe extern "C" fn() -> Probe;
type FreeProbe = unsafe extern "C" fn(Probe);
type SetDevice = unsafe extern "C" fn(Probe, c_int, i64, i64) -> c_int;
type SetInt = unsafe extern "C" fn(Probe, c_int) -> c_int;
type DoProbe = unsafe extern "C" fn(Probe) -> c_int;
type LookupValue =
    unsafe extern "C" fn(Probe, *const c_char, *mut *const c_char, *mut usize) -> c_int;

/// The part of libblkid's C API the probe uses (declarations from `blkid.h`).
struct Api {
    new_probe: NewProbe,
    free_probe: FreeProbe,
    set_device: SetDevice,
    enable_superblocks: SetInt,
    set_superblocks_flags: SetInt,
    enable_partitions: SetInt,
    set_partitions_flags: SetInt,
    do_probe: DoProbe,
    lookup_value: LookupValue,
}

fn load() -> Result<Api, String> {
    // SAFETY: a NUL-terminated library name; the handle is kept for the life of the process.
    let handle =
        unsafe { libc::dlopen(c"libblkid.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err("libblkid.so.1 cannot be loaded (install util-linux's libblkid1)".into());
    }
    let symbol = |name: &CStr| {
        // SAFETY: a valid handle and a NUL-terminated symbol name.
        let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
        if address.is_null() {
            Err(format!(
                "libblkid.so.1 has no {} (util-linux too old)",
                name.to_string_lossy()
            ))
        } else {
            Ok(address)
        }
    };
    macro_rules! function {
        ($name:literal, $type:ty) => {
            // SAFETY: the symbol is the libblkid function of that name, whose C signature (from
            // blkid.h) is `$type`.
            unsafe { std::mem::transmute::<*mut c_void, $type>(symbol($name)?) }
        };
    }
    Ok(Api {
        new_probe: function!(c"blkid_new_probe", NewProbe),
        free_probe: function!(c"blkid_free_probe", FreeProbe),
        set_device: function!(c"blkid_probe_set_device", SetDevice),
        enable_superblocks: function!(c"blkid_probe_enable_superblocks", SetInt),
        set_superblocks_flags: function!(c"blkid_probe_set_superblocks_flags", SetInt),
        enable_partitions: function!(c"blkid_probe_enable_partitions", SetInt),
        set_partitions_flags: function!(c"blkid_probe_set_partitions_flags", SetInt),
        do_probe: function!(c"blkid_do_probe", DoProbe),
        lookup_value: function!(c"blkid_probe_lookup_value", LookupValue),
    })
}

fn api() -> io::Result<&'static Api> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load)
        .as_ref()
        .map_err(|why| io::Error::new(io::ErrorKind::Unsupported, why.clone()))
}

/// A probe that frees itself.
struct Owned<'a> {
    api: &'a Api,
    probe: Probe,
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        // SAFETY: the probe came from blkid_new_probe and is freed once.
        unsafe { (self.api.free_probe)(self.probe) }
    }
}

impl Owned<'_> {
    fn value(&self, name: &CStr) -> Option<String> {
        let mut data: *const c_char = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: a live probe, a NUL-terminated name and two out-pointers to our locals.
        let rc = unsafe { (self.api.lookup_value)(self.probe, name.as_ptr(), &mut data, &mut len) };
        if rc != 0 || data.is_null() {
            return None;
        }
        // SAFETY: libblkid returns a NUL-terminated string owned by the probe, valid until the
        // next probing call; it is copied at once.
        Some(
            unsafe { CStr::from_ptr(data) }
                .to_string_lossy()
                .into_owned(),
        )
    }
}

/// Every signature in `len` bytes of `file` from `offset` (`len` 0: to the end), as wipefs lists
/// them: superblocks, including those with a bad checksum, and partition tables.
pub fn probe(file: &File, offset: u64, len: u64) -> io::Result<Vec<Signature>> {
    let api = api()?;
    // SAFETY: no arguments; a null return is checked.
    let probe = unsafe { (api.new_probe)() };
    if probe.is_null() {
        return Err(io::Error::other("libblkid could not allocate a probe"));
    }
    let owned = Owned { api, probe };
    let offset = i64::try_from(offset).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let len = i64::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: a live probe and a descriptor that stays open for the whole probe (`file` is
    // borrowed for this call); libblkid does not close it.
    let setup = unsafe {
        (api.set_device)(probe, file.as_raw_fd(), offset, len) == 0
            && (api.enable_superblocks)(probe, 1) == 0
            && (api.set_superblocks_flags)(probe, SUPERBLOCK_FLAGS) == 0
            && (api.enable_partitions)(probe, 1) == 0
            && (api.set_partitions_flags)(probe, PARTITION_FLAGS) == 0
    };
    if !setup {
        return Err(io::Error::other("libblkid could not set up a probe of it"));
    }
    let mut found = Vec::new();
    loop {
        // SAFETY: a live, set-up probe.
        match unsafe { (api.do_probe)(probe) } {
            0 => {}
            1 => return Ok(found),
            _ => return Err(io::Error::other("libblkid could not read it")),
        }
        let (kind, usage, at) = match owned.value(c"TYPE") {
            Some(kind) => (
                kind,
                owned.value(c"USAGE").unwrap_or_else(|| "other".into()),
                owned.value(c"SBMAGIC_OFFSET"),
            ),
            None => match owned.value(c"PTTYPE") {
                Some(kind) => (
                    kind,
                    "partition table".into(),
                    owned.value(c"PTMAGIC_OFFSET"),
                ),
                None => continue,
            },
        };
        let at = at.and_then(|s| s.trim().parse().ok()).unwrap_or(0);
        if !found
            .iter()
            .any(|s: &Signature| s.kind == kind && s.offset == at)
        {
            found.push(Signature {
                kind,
                usage,
                offset: at,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::FileExt;

    use super::*;

    fn image(len: u64, writes: &[(u64, &[u8])]) -> (tempfile::NamedTempFile, File) {
        let file = tempfile::NamedTempFile::new().unwrap();
        file.as_file().set_len(len).unwrap();
        for (offset, bytes) in writes {
            file.as_file().write_all_at(bytes, *offset).unwrap();
        }
        let opened = File::open(file.path()).unwrap();
        (file, opened)
    }

    /// An ext2 superblock (1 KiB, placed at byte 1024 of a file system): magic 0xEF53 at its byte
    /// 56, with the counts and sizes libblkid checks for plausibility.
    fn ext2_superblock() -> Vec<u8> {
        let mut sb = vec![0u8; 1024];
        let mut put = |at: usize, bytes: &[u8]| sb[at..at + bytes.len()].copy_from_slice(bytes);
        put(0, &128u32.to_le_bytes()); // inodes
        put(4, &1024u32.to_le_bytes()); // blocks
        put(32, &8192u32.to_le_bytes()); // blocks per group
        put(40, &128u32.to_le_bytes()); // inodes per group
        put(56, &0xEF53u16.to_le_bytes());
        put(76, &1u32.to_le_bytes()); // dynamic revision
        put(88, &128u16.to_le_bytes()); // inode size
        sb
    }

    #[test]
    fn finds_a_superblock_at_its_magic() {
        let (_keep, file) = image(1 << 20, &[(1024, &ext2_superblock())]);
        let found = probe(&file, 0, 0).unwrap();
        assert!(
            found
                .iter()
                .any(|s| s.kind.starts_with("ext") && s.offset == 1080),
            "{found:?}"
        );
        assert!(found[0].describe().ends_with("file system"), "{found:?}");
    }

    #[test]
    fn a_range_is_probed_from_its_own_start() {
        let (_keep, file) = image(4 << 20, &[((1 << 20) + 1024, &ext2_superblock())]);
        assert!(probe(&file, 0, 1 << 20).unwrap().is_empty());
        let found = probe(&file, 1 << 20, 1 << 20).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].offset, 1080, "{found:?}");
    }

    #[test]
    fn blank_and_patterned_data_hold_nothing() {
        let pattern: Vec<u8> = (0..1 << 20).map(|i| i as u8).collect();
        let (_keep, file) = image(4 << 20, &[(0, &pattern)]);
        assert_eq!(probe(&file, 0, 0).unwrap(), vec![]);
    }
}
