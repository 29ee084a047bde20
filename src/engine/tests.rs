//! Every engine against real descriptors: an I/O is checked against its slot where it is pushed,
//! data lands in the slot's buffer, and I/O that never completes is cancelled.

use std::io::Write;
use std::os::fd::AsRawFd;

use super::slots::tests::{Heap, io};
use super::*;

/// A file whose first 8 KiB are 0, 1, …, 255, 0, …
fn patterned_file() -> std::fs::File {
    let mut file = tempfile::tempfile().unwrap();
    let bytes: Vec<u8> = (0..8192u32).map(|i| i as u8).collect();
    file.write_all(&bytes).unwrap();
    file
}

fn slots() -> Slots {
    Slots::new(Heap(vec![0xee; 12288]))
}

/// Pushes what no slot can take, then a good read of slot 0; only the read completes, with the
/// file's bytes in the slot's buffer.
fn refuses_what_its_slots_cannot_take<E: Engine>(engine: &mut E) {
    for bad in [
        io(0, Op::Read, 4097),
        io(1, Op::Write, 512),
        io(2, Op::Read, 512),
    ] {
        assert!(engine.push(bad).is_err(), "{bad:?} must be refused");
    }
    engine.push(io(0, Op::Read, 4096)).unwrap();
    assert!(
        engine.push(io(0, Op::Read, 512)).is_err(),
        "slot 0 is in flight"
    );
    let mut done = Vec::new();
    while done.is_empty() {
        engine.submit(1, Some(100_000_000)).unwrap();
        engine.reap(&mut done, usize::MAX);
    }
    assert_eq!(
        done,
        [Completion {
            slot: 0,
            result: 4096
        }]
    );
    let data = engine.slots().read_buffer(0, 4096);
    assert!(data.iter().enumerate().all(|(i, &b)| b == i as u8));
    assert_eq!(engine.slots().in_flight(), 0);
}

#[test]
fn io_uring_checks_every_io_against_its_slot() {
    let file = patterned_file();
    let (mut engine, _) = Uring::new(
        &[file.as_raw_fd()],
        &[Issue::default()],
        slots(),
        true,
        FastPaths::default(),
    )
    .unwrap();
    refuses_what_its_slots_cannot_take(&mut engine);
}

#[test]
fn psync_checks_every_io_against_its_slot() {
    let file = patterned_file();
    let mut engine = Psync::create(&[file.as_raw_fd()], slots(), &[Issue::default()]).unwrap();
    refuses_what_its_slots_cannot_take(&mut engine);
}

#[test]
fn mapped_checks_every_io_against_its_slot() {
    let file = patterned_file();
    let spec = MapSpec {
        fd: file.as_raw_fd(),
        len: 8192,
        writable: false,
        flush: None,
        write_through: false,
    };
    let mut engine = Mapped::create(&[spec], slots()).unwrap();
    refuses_what_its_slots_cannot_take(&mut engine);
}

/// A trim of slot 1 (which has no write buffer: a trim needs none) punches a hole in a file of
/// 0xaa bytes, and a flush and a data-only flush of slot 0 complete; each with result 0.
fn trims_and_flushes<E: Engine>(engine: &mut E, file: &std::fs::File) {
    use std::os::unix::fs::FileExt;
    for (slot, op, offset, len) in [
        (1, Op::Trim, 8192, 8192),
        (0, Op::Fsync, 0, 0),
        (0, Op::Fdatasync, 0, 0),
    ] {
        engine
            .push(Io {
                slot,
                target: 0,
                op,
                offset,
                len,
                priority: 0,
            })
            .unwrap();
        let mut done = Vec::new();
        while done.is_empty() {
            engine.submit(1, Some(100_000_000)).unwrap();
            engine.reap(&mut done, usize::MAX);
        }
        assert_eq!(done, [Completion { slot, result: 0 }], "{op:?}");
        assert_eq!(op.success(len), 0);
    }
    let mut bytes = vec![0u8; 32768];
    file.read_exact_at(&mut bytes, 0).unwrap();
    for (i, &b) in bytes.iter().enumerate() {
        let trimmed = (8192..16384).contains(&i);
        assert_eq!(b, if trimmed { 0 } else { 0xaa }, "byte {i}");
    }
}

fn file_of_aa() -> std::fs::File {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(&[0xaa; 32768]).unwrap();
    file
}

#[test]
fn io_uring_trims_and_flushes() {
    let file = file_of_aa();
    let mut engine = plain_ring(&file);
    trims_and_flushes(&mut engine, &file);
}

#[test]
fn psync_trims_and_flushes() {
    let file = file_of_aa();
    let mut engine = Psync::create(&[file.as_raw_fd()], slots(), &[Issue::default()]).unwrap();
    trims_and_flushes(&mut engine, &file);
}

#[test]
fn null_checks_every_io_against_its_slot() {
    let mut engine = Null::new(slots());
    assert!(engine.push(io(0, Op::Read, 4097)).is_err());
    engine.push(io(1, Op::Read, 4096)).unwrap();
    let mut done = Vec::new();
    engine.reap(&mut done, usize::MAX);
    assert_eq!(done.len(), 1);
    assert_eq!(engine.slots().in_flight(), 0);
}

#[test]
fn io_uring_cancels_a_read_that_would_never_complete() {
    // A read from a pipe nobody writes to stays in flight until it is cancelled.
    let (reader, writer) = std::io::pipe().unwrap();
    let (mut engine, _) = Uring::new(
        &[reader.as_raw_fd()],
        &[Issue::default()],
        slots(),
        false,
        FastPaths::default(),
    )
    .unwrap();
    engine.push(io(1, Op::Read, 4096)).unwrap();
    engine.submit(0, None).unwrap();
    let mut done = Vec::new();
    engine.submit(1, Some(20_000_000)).unwrap();
    engine.reap(&mut done, usize::MAX);
    assert!(done.is_empty(), "nothing was written to the pipe");
    assert_eq!(engine.slots().in_flight(), 1);
    assert_eq!(
        settle(&mut engine, 1_000_000_000),
        0,
        "the read was cancelled"
    );
    // The slot is free again: its buffer can be read, and it was never written.
    assert!(
        engine
            .slots()
            .read_buffer(1, 4096)
            .iter()
            .all(|&b| b == 0xee)
    );
    drop(writer);
}

#[test]
fn mapped_reads_of_a_truncated_file_fail_in_every_thread_faulting_at_once() {
    const PAGES: usize = 256;
    const THREADS: usize = 4;
    let file = tempfile::tempfile().unwrap();
    file.set_len((PAGES * 4096) as u64).unwrap();
    let mapped = std::sync::Barrier::new(THREADS + 1);
    let truncated = std::sync::Barrier::new(THREADS + 1);
    let results: Vec<Vec<i32>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                let (file, mapped, truncated) = (&file, &mapped, &truncated);
                scope.spawn(move || {
                    let spec = MapSpec {
                        fd: file.as_raw_fd(),
                        len: (PAGES * 4096) as u64,
                        writable: false,
                        flush: None,
                        write_through: false,
                    };
                    let mut engine = Mapped::create(&[spec], slots()).unwrap();
                    mapped.wait();
                    truncated.wait();
                    let mut results = Vec::with_capacity(PAGES);
                    let mut done = Vec::new();
                    for page in 0..PAGES {
                        let mut read = io(0, Op::Read, 4096);
                        read.offset = (page * 4096) as u64;
                        engine.push(read).unwrap();
                        engine.submit(1, None).unwrap();
                        engine.reap(&mut done, 1);
                        results.push(done.pop().unwrap().result);
                    }
                    results
                })
            })
            .collect();
        mapped.wait();
        file.set_len(0).unwrap();
        truncated.wait();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (thread, results) in results.iter().enumerate() {
        let succeeded = results.iter().filter(|&&r| r != -libc::EFAULT).count();
        assert_eq!(
            succeeded, 0,
            "thread {thread}: {succeeded} reads of a page past the end completed as if it held data"
        );
    }
}

/// A ring over `file` with one slot set and nothing registered.
fn plain_ring(file: &std::fs::File) -> Uring {
    let (ring, _) = Uring::new(
        &[file.as_raw_fd()],
        &[Issue::default()],
        slots(),
        false,
        FastPaths::default(),
    )
    .unwrap();
    ring
}

/// The CPUs allowed for a kernel thread named `iou-wrk-<tid>` of this process, one per worker.
fn worker_masks(tid: i32) -> Vec<usize> {
    let mut masks = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() != format!("iou-wrk-{tid}") {
            continue;
        }
        let status = std::fs::read_to_string(task.path().join("status")).unwrap();
        let list = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap();
        masks.push(crate::system::parse_cpu_list(list).len());
    }
    masks
}

#[test]
fn a_pinned_threads_io_uring_workers_may_run_on_every_allowed_cpu() {
    use crate::system::{Host, LinuxHost, allow_current_thread, pin_current_thread};
    let allowed = LinuxHost.allowed_cpus();
    assert!(
        allowed.len() >= 2,
        "this test needs two CPUs the process may use; it has {allowed:?}"
    );
    let file = patterned_file();
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                // Pinned first: the worker the kernel starts copies the one CPU...
                pin_current_thread(allowed[0]).unwrap();
                let mut pinned = plain_ring(&file);
                pinned.start_worker().unwrap();
                assert_eq!(worker_masks(tid), [1]);
                // ...until it is widened.
                assert_eq!(crate::system::widen_io_workers(&allowed), 1);
                assert_eq!(worker_masks(tid), [allowed.len()]);
                drop(pinned);
            })
            .join()
            .unwrap();
        scope
            .spawn(|| {
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                // Started while the thread may run anywhere, the worker keeps that after the pin.
                allow_current_thread(&allowed).unwrap();
                let mut engine = plain_ring(&file);
                engine.start_worker().unwrap();
                pin_current_thread(allowed[0]).unwrap();
                assert_eq!(worker_masks(tid), [allowed.len()]);
            })
            .join()
            .unwrap();
    });
}
