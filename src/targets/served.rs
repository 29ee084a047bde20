//! How much of a slow I/O was the device: the thread that has just seen one of its slowest I/Os
//! complete finds the request that served it among those the device clock saw complete last
//! (same device and direction, covering the I/O's first byte, issued after the I/O was
//! submitted and completed before it was seen), and keeps that request's time on the device.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;

use super::{PreparedTarget, TargetKind};
use crate::clock::Nanos;
use crate::engine::Op;
use crate::system::devclock::RecentRequests;

/// Where a target's bytes lie on the clock's devices.
struct Place {
    /// The device's slot in the clock.
    slot: u32,
    /// The partition's first byte on its disk (requests count sectors from the disk's start).
    start: u64,
    /// A file's descriptor, to ask its file system where a byte lies; `None` for a device.
    file: Option<RawFd>,
}

/// The lookup the threads share while the clock runs.
pub struct ServedLookup {
    recent: Arc<RecentRequests>,
    /// Per target of the timespan.
    places: Vec<Option<Place>>,
}

impl ServedLookup {
    /// For `targets`, whose devices the clock watches in [`super::devices`]' order.
    pub fn new(recent: Arc<RecentRequests>, targets: &[PreparedTarget]) -> ServedLookup {
        let devices = super::devices(targets);
        let places = (0..targets.len())
            .map(|i| {
                let slot = devices.iter().position(|(_, on)| on.contains(&i))?;
                let start = std::fs::read_to_string(devices[slot].0.sysfs.join("start"))
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .unwrap_or(0)
                    * 512;
                let file = matches!(targets[i].kind, TargetKind::File)
                    .then(|| targets[i].file.as_raw_fd());
                Some(Place {
                    slot: slot as u32,
                    start,
                    file,
                })
            })
            .collect();
        ServedLookup { recent, places }
    }

    /// The time on the device of the request that served a read or write of `target` at
    /// `offset`, submitted at `from` and seen complete at `to`; `None` when it is not found (the
    /// page cache served it, the request was merged with another, or it is no longer among the
    /// last ones).
    pub fn device_ns(
        &self,
        target: usize,
        op: Op,
        offset: u64,
        from: Nanos,
        to: Nanos,
    ) -> Option<Nanos> {
        let place = self.places.get(target)?.as_ref()?;
        let write = match op {
            Op::Read => false,
            Op::Write => true,
            _ => return None,
        };
        let on_disk = match place.file {
            Some(fd) => crate::system::fiemap::physical(fd, offset)?,
            None => offset,
        };
        let served = self
            .recent
            .find(place.slot, write, place.start + on_disk, from, to)?;
        Some(served.completed_ns - served.issued_ns)
    }
}
