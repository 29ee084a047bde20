//! The two programs of the device clock, in BPF instructions: at `block_rq_issue`, a request of a
//! watched device and direction is stamped, and nothing more (it runs on the submitting CPU,
//! usually the busiest); at `block_rq_complete`, its time on the device, and the time it waited
//! before issue since the block layer made it (the I/O scheduler's queue), are counted in
//! log-linear histograms kept in the kernel, and the request is written last in its CPU's ring of
//! recent completions (where a thread finds the request behind one of its slowest I/Os).
//!
//! The histograms are one array of u64 (see [`Layout`]); a value's bucket is exact below 256 ns
//! and 1/128 of its power of two above, so a percentile read from it is within 0.4 %.

use super::bpf::Insn;

/// Devices one clock watches.
pub const SLOTS: u32 = 8;
/// Buckets below 256 ns: one per ns.
const LINEAR: u32 = 256;
/// Buckets per power of two from 256 ns up.
const SUB: u32 = 128;
/// Powers of two from 2^8 ns to 2^40 ns (18 minutes); longer times count in the last bucket.
const OCTAVES: u32 = 33;
/// Buckets per histogram.
pub const BUCKETS: u32 = LINEAR + SUB * OCTAVES;
/// Sums kept per series: the device's time, the queue's time, the longest device time, the
/// requests timed.
pub const SUMS: u32 = 4;
/// u64s in a cache line: each sum has one of its own, so the CPU that issues (adding queue time)
/// and the one that completes (adding device time) do not pass one line between them.
const LINE: u32 = 8;

/// Where each count lies in the array. A series is a device's slot times two plus its direction
/// (0 read, 1 write).
pub struct Layout;

impl Layout {
    /// Values in the array.
    pub const ENTRIES: u32 = 2 * SLOTS * 2 * BUCKETS + SLOTS * 2 * SUMS * LINE;
    const QUEUE: u32 = SLOTS * 2 * BUCKETS;
    const SUM: u32 = 2 * SLOTS * 2 * BUCKETS;

    /// The device-time bucket `b` of `series`.
    pub fn device(series: u32, b: u32) -> usize {
        (series * BUCKETS + b) as usize
    }

    /// The queue-time bucket `b` of `series`.
    pub fn queue(series: u32, b: u32) -> usize {
        (Self::QUEUE + series * BUCKETS + b) as usize
    }

    /// Sum `k` of `series`.
    pub fn sum(series: u32, k: u32) -> usize {
        (Self::SUM + (series * SUMS + k) * LINE) as usize
    }
}

/// The bucket of `ns` (what the programs compute).
#[cfg(test)]
pub fn bucket(ns: u64) -> u32 {
    if ns < LINEAR as u64 {
        return ns as u32;
    }
    let e = 63 - ns.leading_zeros();
    let b = LINEAR + (e - 8) * SUB + ((ns >> (e - 7)) as u32 & (SUB - 1));
    b.min(BUCKETS - 1)
}

/// The smallest and largest ns a bucket holds.
pub fn bounds(b: u32) -> (u64, u64) {
    if b < LINEAR {
        return (b as u64, b as u64);
    }
    let (octave, sub) = ((b - LINEAR) / SUB, (b - LINEAR) % SUB);
    let e = octave + 8;
    let low = (1u64 << e) + ((sub as u64) << (e - 7));
    (low, low + (1u64 << (e - 7)) - 1)
}

/// Field offsets the programs read, from the kernel's BTF: of a request (request-based devices,
/// `block_rq_issue` to `block_rq_complete`) or of a bio (bio-based ones, which make no requests:
/// `block_bio_queue` to `block_bio_complete`).
#[derive(Debug, Clone, Copy)]
pub struct Offsets {
    /// `request.part` or `bio.bi_bdev`: the block device (partition) it is for.
    pub part: i32,
    /// `request.cmd_flags` or `bio.bi_opf`: its operation in the low 8 bits.
    pub cmd_flags: i32,
    /// `block_device.bd_dev`.
    pub bd_dev: i32,
    /// `request.__sector` or `bio.bi_iter.bi_sector`: its first sector on the whole disk.
    pub sector: i32,
    /// `request.__data_len` or `bio.bi_iter.bi_size`: its bytes.
    pub data_len: i32,
    /// A request's own fields; `None` for a bio.
    pub request: Option<RequestOffsets>,
}

/// The fields only a request has.
#[derive(Debug, Clone, Copy)]
pub struct RequestOffsets {
    /// `request.start_time_ns`: when the block layer made it.
    pub start_time_ns: i32,
    /// `request.tag`: its tag on its hardware queue while it is in the driver.
    pub tag: i32,
    /// `request.mq_hctx`: that hardware queue.
    pub mq_hctx: i32,
    /// `blk_mq_hw_ctx.queue_num`: the queue's number.
    pub queue_num: i32,
}

// Registers.
const R0: u8 = 0;
const R1: u8 = 1;
const R2: u8 = 2;
const R3: u8 = 3;
const R4: u8 = 4;
const R5: u8 = 5;
const R6: u8 = 6;
const R7: u8 = 7;
const R8: u8 = 8;
const R9: u8 = 9;
const FP: u8 = 10;

// Helpers.
const MAP_LOOKUP: i32 = 1;
const KTIME_GET_NS: i32 = 5;
const GET_PRANDOM_U32: i32 = 7;
const PROBE_READ_KERNEL: i32 = 113;
const GET_SMP_PROCESSOR_ID: i32 = 8;

/// A program being written, with forward jumps to named places.
struct Asm {
    insns: Vec<Insn>,
    /// (instruction, label) of each jump to patch.
    jumps: Vec<(usize, &'static str)>,
    labels: Vec<(&'static str, usize)>,
}

fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn {
        code,
        regs: dst | (src << 4),
        off,
        imm,
    }
}

impl Asm {
    fn new() -> Asm {
        Asm {
            insns: Vec::new(),
            jumps: Vec::new(),
            labels: Vec::new(),
        }
    }

    fn op(&mut self, i: Insn) -> &mut Asm {
        self.insns.push(i);
        self
    }

    // ALU64 with an immediate (`k`) or a register (`x`).
    fn k(&mut self, op: u8, dst: u8, imm: i32) -> &mut Asm {
        self.op(insn(0x07 | op, dst, 0, 0, imm))
    }
    fn x(&mut self, op: u8, dst: u8, src: u8) -> &mut Asm {
        self.op(insn(0x0f | op, dst, src, 0, 0))
    }
    fn mov(&mut self, dst: u8, src: u8) -> &mut Asm {
        self.x(0xb0, dst, src)
    }
    fn movk(&mut self, dst: u8, imm: i32) -> &mut Asm {
        self.k(0xb0, dst, imm)
    }
    fn add(&mut self, dst: u8, imm: i32) -> &mut Asm {
        self.k(0x00, dst, imm)
    }
    /// `dst = fp + off`: a pointer to the stack.
    fn stack(&mut self, dst: u8, off: i16) -> &mut Asm {
        self.mov(dst, FP).add(dst, off as i32)
    }
    fn load64(&mut self, dst: u8, src: u8, off: i16) -> &mut Asm {
        self.op(insn(0x79, dst, src, off, 0))
    }
    fn load32(&mut self, dst: u8, src: u8, off: i16) -> &mut Asm {
        self.op(insn(0x61, dst, src, off, 0))
    }
    fn store64(&mut self, dst: u8, off: i16, src: u8) -> &mut Asm {
        self.op(insn(0x7b, dst, src, off, 0))
    }
    fn store32(&mut self, dst: u8, off: i16, src: u8) -> &mut Asm {
        self.op(insn(0x63, dst, src, off, 0))
    }
    fn zero64(&mut self, dst: u8, off: i16) -> &mut Asm {
        self.op(insn(0x7a, dst, 0, off, 0))
    }
    /// `lock *(u64 *)(dst + 0) += src`.
    fn atomic_add(&mut self, dst: u8, src: u8) -> &mut Asm {
        self.op(insn(0xdb, dst, src, 0, 0))
    }
    /// Loads a map's address (its descriptor, resolved by the kernel).
    fn map(&mut self, dst: u8, fd: i32) -> &mut Asm {
        self.op(insn(0x18, dst, 1, 0, fd)).op(insn(0, 0, 0, 0, 0))
    }
    fn call(&mut self, helper: i32) -> &mut Asm {
        self.op(insn(0x85, 0, 0, 0, helper))
    }
    fn exit(&mut self) -> &mut Asm {
        self.op(insn(0x95, 0, 0, 0, 0))
    }
    /// Jumps to `label` when `dst <op> imm` (op: 0x10 ==, 0x50 !=, 0x20 >, 0x30 >=).
    fn jk(&mut self, op: u8, dst: u8, imm: i32, label: &'static str) -> &mut Asm {
        self.jumps.push((self.insns.len(), label));
        self.op(insn(0x05 | op, dst, 0, 0, imm))
    }
    /// Jumps to `label` when `dst <op> src`.
    fn jx(&mut self, op: u8, dst: u8, src: u8, label: &'static str) -> &mut Asm {
        self.jumps.push((self.insns.len(), label));
        self.op(insn(0x0d | op, dst, src, 0, 0))
    }
    /// Jumps to `label`.
    fn ja(&mut self, label: &'static str) -> &mut Asm {
        self.jumps.push((self.insns.len(), label));
        self.op(insn(0x05, 0, 0, 0, 0))
    }
    fn label(&mut self, name: &'static str) -> &mut Asm {
        self.labels.push((name, self.insns.len()));
        self
    }

    /// `r2 = bucket(r1)`, as [`bucket`] computes it; uses r3 to r5.
    fn bucket(&mut self, tag: &'static [&'static str; 2]) -> &mut Asm {
        let [linear, done] = *tag;
        self.mov(R2, R1).jk(0xa0, R1, LINEAR as i32, done);
        // r4 = floor(log2(r1)), by halving the search.
        self.mov(R3, R1).movk(R4, 0);
        for shift in [32, 16, 8, 4, 2, 1] {
            self.mov(R5, R3).k(0x70, R5, shift);
            self.op(insn(0x15, R5, 0, 2, 0)); // if r5 == 0, skip the next two
            self.mov(R3, R5).add(R4, shift);
        }
        // r2 = LINEAR + (e - 8) * SUB + ((v >> (e - 7)) & (SUB - 1)), at most the last.
        self.mov(R5, R4).add(R5, -7).mov(R2, R1).x(0x70, R2, R5);
        self.k(0x50, R2, (SUB - 1) as i32);
        self.mov(R5, R4)
            .add(R5, -8)
            .k(0x20, R5, SUB as i32)
            .x(0x00, R2, R5);
        self.add(R2, LINEAR as i32);
        self.jk(0xb0, R2, (BUCKETS - 1) as i32, done)
            .movk(R2, (BUCKETS - 1) as i32)
            .label(linear)
            .label(done)
    }

    /// `dst = 1 << shift` (the shift at fp-32): what a request counts as.
    fn weight(&mut self, dst: u8) -> &mut Asm {
        self.movk(dst, 1).load64(R1, FP, -32).x(0x60, dst, R1)
    }

    /// `array[key] += r8` where key is `base + r7 * stride + r2`, stored at fp-64.
    fn add_at(
        &mut self,
        array: i32,
        base: u32,
        stride: u32,
        src: u8,
        skip: &'static str,
    ) -> &mut Asm {
        self.mov(R3, R7)
            .k(0x20, R3, stride as i32)
            .add(R3, base as i32)
            .x(0x00, R3, R2);
        self.store32(FP, -64, R3)
            .map(R1, array)
            .stack(R2, -64)
            .call(MAP_LOOKUP);
        self.jk(0x10, R0, 0, skip).atomic_add(R0, src).label(skip)
    }

    fn finish(mut self) -> Vec<Insn> {
        for (at, label) in &self.jumps {
            let target = self
                .labels
                .iter()
                .find(|(name, _)| name == label)
                .unwrap_or_else(|| panic!("no label {label}"))
                .1;
            self.insns[*at].off = (target as i64 - *at as i64 - 1) as i16;
        }
        self.insns
    }
}

/// The maps the programs use.
#[derive(Debug, Clone, Copy)]
pub struct Maps {
    /// The requests in flight, by a slot their address picks: (address, issue ns, series with
    /// its sampling shift above it).
    pub started: i32,
    /// Per device slot, its sampling shift `s`: a random 1 in 2^s of its requests is timed, and
    /// each counts as 2^s (set by the reader as the device's rate changes).
    pub sampling: i32,
    /// The histograms and sums.
    pub counts: i32,
    /// The requests completed last, a ring per CPU (see [`Recent`]).
    pub recent: i32,
}

/// The rings of the requests each CPU completed last: per ring, a head (the count written so
/// far, in the first u64 of its first value), then [`Recent::RING`] records of four u64: the
/// request's first sector, its bytes above its series (`bytes << 32 | series`), its issue ns
/// and its completion ns. CPUs beyond the rings share them (a record may then be lost).
pub struct Recent;

impl Recent {
    /// Records a ring.
    pub const RING: u32 = 512;
    /// u64s in a value: a record.
    pub const WORDS: u32 = 4;

    /// Rings for `cpus` CPUs: a power of two, at most 64.
    pub fn rings(cpus: u32) -> u32 {
        cpus.clamp(1, 64).next_power_of_two()
    }

    /// Values in the map for `rings`.
    pub fn entries(rings: u32) -> u32 {
        rings * (Self::RING + 1)
    }
}

/// Slots for requests in flight (a power of two). A request's slot is picked by its hardware
/// queue and its tag there, which no other request in flight has; two share a slot only when a
/// device has more than 1,031 tags a queue or more than 15 queues (then the later goes untimed).
pub const IN_FLIGHT: u32 = 1 << 14;
/// Bytes of one in-flight slot: the request's address, its issue ns, its series, its first sector
/// and its bytes, in a cache line of its own (neighbouring tags are issued and completed on
/// different CPUs).
pub const STARTED: u32 = 64;
/// Slots between two hardware queues' first tags (a prime, so many queues spread over them).
const QUEUE_STRIDE: i32 = 1031;

/// The slot of the request or bio in r6, looked up: its value in r0 (exits when the lookup
/// fails). A request's is picked by its queue and tag; a bio's, which has no tag, by its address
/// (two bios in flight may then share one: the later goes untimed).
fn slot_of_r6(a: &mut Asm, o: Offsets, started: i32) {
    match o.request {
        Some(r) => {
            a.load64(R2, R6, r.mq_hctx as i16).jk(0x10, R2, 0, "out");
            a.load32(R2, R2, r.queue_num as i16)
                .k(0x20, R2, QUEUE_STRIDE);
            a.load32(R1, R6, r.tag as i16).x(0x00, R1, R2);
        }
        None => {
            // Bios are slab objects of 100-odd bytes: the address from the 7th bit on, folded
            // (the address as a number at fp-56: see `bio_address`).
            a.load64(R1, FP, -56);
            a.mov(R2, R1).k(0x70, R1, 7).k(0x70, R2, 21).x(0xa0, R1, R2);
        }
    }
    a.k(0x50, R1, (IN_FLIGHT - 1) as i32);
    a.store32(FP, -64, R1)
        .map(R1, started)
        .stack(R2, -64)
        .call(MAP_LOOKUP);
    a.jk(0x10, R0, 0, "out");
}

/// The bio in the tracepoint's argument `arg` (bytes into the context in r1), as a number at
/// fp-56: the verifier lets a program compare a pointer but not hash it, so the arguments are
/// copied to the stack by a helper, which leaves plain numbers there.
fn bio_address(a: &mut Asm, arg: i16) {
    a.mov(R3, R1)
        .stack(R1, -88)
        .movk(R2, 16)
        .call(PROBE_READ_KERNEL);
    a.load64(R1, FP, -88 + arg).store64(FP, -56, R1);
}

/// The program at `block_rq_issue(struct request *rq)` (or `block_bio_queue(struct bio *bio)`,
/// with a bio's offsets), for the devices `devices` (their slot and dev_t). It reads the request
/// where it lies (a BTF-typed context).
pub fn issue(o: Offsets, m: Maps, devices: &[(u32, u32)]) -> Vec<Insn> {
    let mut a = Asm::new();
    a.load64(R6, R1, 0);
    if o.request.is_none() {
        bio_address(&mut a, 0);
    }
    // The device: rq->part->bd_dev, and its slot.
    a.load64(R3, R6, o.part as i16).jk(0x10, R3, 0, "out");
    a.load32(R1, R3, o.bd_dev as i16);
    for (i, &(_, dev)) in devices.iter().enumerate() {
        // 32-bit compare: a dev_t fills all 32 bits.
        a.jumps.push((a.insns.len(), SLOT_LABELS[i]));
        a.op(insn(0x16, R1, 0, 0, dev as i32));
    }
    a.ja("out");
    for (&(slot, _), label) in devices.iter().zip(SLOT_LABELS) {
        a.label(label).movk(R7, slot as i32).ja("device");
    }
    a.label("device");
    // Reads (0) and writes (1) only: the operation is the low byte of cmd_flags.
    a.load32(R1, R6, o.cmd_flags as i16)
        .k(0x50, R1, 0xff)
        .jk(0x20, R1, 1, "out")
        .store64(FP, -8, R1);
    // The device's sampling shift (r9): with one, a random 1 in 2^r9 requests goes on.
    a.store32(FP, -64, R7)
        .map(R1, m.sampling)
        .stack(R2, -64)
        .call(MAP_LOOKUP);
    a.jk(0x10, R0, 0, "out").load64(R9, R0, 0);
    a.jk(0x10, R9, 0, "every");
    a.call(GET_PRANDOM_U32)
        .movk(R1, 1)
        .x(0x60, R1, R9)
        .add(R1, -1);
    a.x(0x50, R0, R1).jk(0x50, R0, 0, "out");
    a.label("every").load64(R1, FP, -8);
    a.k(0x60, R7, 1).x(0x40, R7, R1);
    a.call(KTIME_GET_NS).mov(R8, R0);
    slot_of_r6(&mut a, o, m.started);
    a.k(0x60, R9, 32).x(0x40, R9, R7);
    a.store64(R0, 0, R6).store64(R0, 8, R8).store64(R0, 16, R9);
    // Its place and size now: a driver may advance a bio's own as it serves it.
    a.load64(R1, R6, o.sector as i16).store64(R0, 24, R1);
    a.load32(R1, R6, o.data_len as i16).store64(R0, 32, R1);
    a.label("out").movk(R0, 0).exit();
    a.finish()
}

/// Jump targets of the device compares, one per slot.
const SLOT_LABELS: [&str; SLOTS as usize] = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"];

/// The program at `block_rq_complete(struct request *rq, …)` (or `block_bio_complete(struct
/// request_queue *q, struct bio *bio)`, with a bio's offsets).
pub fn complete(o: Offsets, m: Maps, rings: u32) -> Vec<Insn> {
    let mut a = Asm::new();
    let arg = match o.request {
        Some(_) => 0,
        None => 8,
    };
    a.load64(R6, R1, arg);
    if o.request.is_none() {
        bio_address(&mut a, arg);
    }
    slot_of_r6(&mut a, o, m.started);
    // Its own slot (another request's after a collision: untimed).
    a.load64(R1, R0, 0).jx(0x50, R1, R6, "out");
    a.load64(R8, R0, 8).load64(R7, R0, 16).zero64(R0, 0);
    a.load64(R1, R0, 24).store64(FP, -40, R1);
    a.load64(R1, R0, 32).store64(FP, -48, R1);
    // The series (r7) and the sampling shift (fp-32): the request counts as 2^shift.
    a.mov(R1, R7).k(0x70, R1, 32).store64(FP, -32, R1);
    a.k(0x60, R7, 32).k(0x70, R7, 32);
    a.call(KTIME_GET_NS).x(0x10, R0, R8).store64(FP, -8, R0);
    a.store64(FP, -16, R8);
    // A request's time in the queue, from when the block layer made it to its issue (none when
    // the block layer keeps no start).
    if let Some(r) = o.request {
        a.load64(R1, R6, r.start_time_ns as i16)
            .jk(0x10, R1, 0, "device")
            .jx(0x20, R1, R8, "device");
        a.mov(R9, R8).x(0x10, R9, R1).mov(R1, R9);
        a.bucket(&["q-linear", "q-done"]);
        a.weight(R8)
            .add_at(m.counts, Layout::QUEUE, BUCKETS, R8, "q-hist");
        a.load64(R1, FP, -32).x(0x60, R9, R1);
        a.movk(R2, LINE as i32)
            .add_at(m.counts, Layout::SUM, SUMS * LINE, R9, "q-sum");
    }
    // Its time on the device.
    a.label("device").load64(R9, FP, -8).mov(R1, R9);
    a.bucket(&["d-linear", "d-done"]);
    a.weight(R8).add_at(m.counts, 0, BUCKETS, R8, "d-hist");
    a.mov(R8, R9).load64(R1, FP, -32).x(0x60, R8, R1);
    a.movk(R2, 0)
        .add_at(m.counts, Layout::SUM, SUMS * LINE, R8, "d-sum");
    a.movk(R8, 1).movk(R2, (3 * LINE) as i32);
    a.add_at(m.counts, Layout::SUM, SUMS * LINE, R8, "timed");
    // The request, last in its CPU's ring: the head moves first, so a reader racing this sees
    // an old record at the new place, never a new record it then misses. The same program
    // never runs twice at once on a CPU, so a plain add suffices.
    a.call(GET_SMP_PROCESSOR_ID)
        .k(0x50, R0, (rings - 1) as i32)
        .k(0x20, R0, (Recent::RING + 1) as i32)
        .store64(FP, -24, R0);
    a.store32(FP, -64, R0)
        .map(R1, m.recent)
        .stack(R2, -64)
        .call(MAP_LOOKUP);
    a.jk(0x10, R0, 0, "ring-done");
    a.load64(R1, R0, 0)
        .mov(R2, R1)
        .add(R2, 1)
        .store64(R0, 0, R2);
    a.k(0x50, R1, (Recent::RING - 1) as i32).add(R1, 1);
    a.load64(R3, FP, -24).x(0x00, R1, R3);
    a.store32(FP, -64, R1)
        .map(R1, m.recent)
        .stack(R2, -64)
        .call(MAP_LOOKUP);
    a.jk(0x10, R0, 0, "ring-done");
    a.load64(R1, FP, -40).store64(R0, 0, R1);
    a.load64(R1, FP, -48)
        .k(0x60, R1, 32)
        .x(0x40, R1, R7)
        .store64(R0, 8, R1);
    a.load64(R1, FP, -16).store64(R0, 16, R1);
    a.load64(R2, FP, -8).x(0x00, R2, R1).store64(R0, 24, R2);
    a.label("ring-done");
    // The longest: a plain store (two CPUs racing to raise it may keep the smaller of two
    // longest times; the histogram's top bucket bounds it either way).
    a.mov(R3, R7)
        .k(0x20, R3, (SUMS * LINE) as i32)
        .add(R3, (Layout::SUM + 2 * LINE) as i32);
    a.store32(FP, -64, R3)
        .map(R1, m.counts)
        .stack(R2, -64)
        .call(MAP_LOOKUP);
    a.jk(0x10, R0, 0, "out")
        .load64(R1, R0, 0)
        .jx(0x30, R1, R9, "out");
    a.store64(R0, 0, R9);
    a.label("out").movk(R0, 0).exit();
    a.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_below_256_ns_and_within_1_128_above() {
        for ns in [0u64, 1, 255, 256, 257, 1000, 55_900, 1 << 30, (1 << 41) - 1] {
            let (low, high) = bounds(bucket(ns));
            assert!(low <= ns && ns <= high, "{ns}: {low}..{high}");
            assert!(
                (high - low) as f64 <= ns as f64 / 128.0,
                "{ns}: {low}..{high}"
            );
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
        let mut last = 0;
        for b in 0..BUCKETS {
            let (low, high) = bounds(b);
            assert!(low <= high && (b == 0 || low == last + 1), "{b}");
            last = high;
        }
    }

    #[test]
    fn every_jump_lands_inside_the_program() {
        let maps = Maps {
            started: 4,
            counts: 5,
            recent: 6,
            sampling: 7,
        };
        let request = Offsets {
            part: 8,
            cmd_flags: 16,
            bd_dev: 32,
            sector: 64,
            data_len: 72,
            request: Some(RequestOffsets {
                start_time_ns: 24,
                tag: 40,
                mq_hctx: 48,
                queue_num: 56,
            }),
        };
        let bio = Offsets {
            request: None,
            ..request
        };
        for program in [
            issue(request, maps, &[(0, 0x0fe0_0000), (1, 7 << 20)]),
            complete(request, maps, 2),
            issue(bio, maps, &[(1, 7 << 20)]),
            complete(bio, maps, 2),
        ] {
            assert_eq!(program.last().unwrap().code, 0x95);
            for (i, insn) in program.iter().enumerate() {
                if insn.code & 0x07 == 0x05 && insn.code != 0x85 && insn.code != 0x95 {
                    let to = i as i64 + 1 + insn.off as i64;
                    assert!(
                        to > i as i64 && (to as usize) < program.len(),
                        "{i}: {insn:?}"
                    );
                }
            }
        }
    }
}
