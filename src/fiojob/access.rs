//! What a job does and how it reaches the device: the engine, `rw` and its mix, the order of
//! offsets (sequential with its skips, random with fio's random map), the page cache, the depth
//! and the random seeds.

use super::blocks::Blocks;
use super::files::Files;
use super::reader::{Reader, Refusal};
use super::translate::Draft;
use super::value::{bytes, integer};

/// The engine a job runs on.
pub(super) struct Engine {
    /// fio's name for it.
    pub(super) name: String,
    /// iospd's option for it, if any (`-Sm` is a caching mode).
    arg: Option<&'static str>,
    /// One I/O at a time.
    synchronous: bool,
}

impl Engine {
    /// filecreate: the run itself creates each file (`create_on_open` is its way).
    pub(super) fn creates_files(&self) -> bool {
        self.name == "filecreate"
    }

    /// An engine that moves data through the page cache or around it (io_uring, libaio, the
    /// sync family, mmap), on whose files fio's `fadvise_hint` advises the kernel.
    fn moves_data(&self) -> bool {
        matches!(self.arg, None | Some("--engine=psync" | "-Sm"))
    }

    /// fio's engines that open, stat or remove each file once per pass, timing that call
    /// (filecreate, filestat, filedelete), and whether a second call on a file fails.
    fn per_file(&self) -> Option<bool> {
        match self.name.as_str() {
            "filestat" => Some(false),
            "filecreate" | "filedelete" => Some(true),
            _ => None,
        }
    }
}

/// `ioengine`: the engine, or a refusal naming it.
pub(super) fn engine(r: &mut Reader, t: &mut Draft) -> Result<Engine, Box<Refusal>> {
    let name = r.value("ioengine").unwrap_or("psync");
    let stat_type = match name {
        "filestat" => r.value("stat_type"),
        _ => None,
    };
    let (arg, synchronous, note) = engine_of(name, stat_type).map_err(|why| {
        let s = match r.last.get("stat_type") {
            Some(&s) if stat_type.is_some() => s,
            _ => r.last["ioengine"],
        };
        r.refuse(s, why, Some("--engine=io_uring or --engine=psync"))
    })?;
    t.notes.extend(note.map(str::to_string));
    Ok(Engine {
        name: name.to_string(),
        arg,
        synchronous,
    })
}

/// fio's engines iospd runs, in the order `iospd fio --enghelp` lists them.
pub const ENGINES: [&str; 16] = [
    "io_uring",
    "libaio",
    "aio",
    "posixaio",
    "psync",
    "pvsync",
    "pvsync2",
    "sync",
    "vsync",
    "mmap",
    "null",
    "filestat",
    "filecreate",
    "filedelete",
    "falloc",
    "ftruncate",
];

/// What iospd fio does with fio's engine `name` (`fio --enghelp=<engine>` here): the iospd
/// option it becomes, or why it is refused.
pub fn describe_engine(name: &str) -> String {
    match engine_of(name, None) {
        Ok((arg, synchronous, note)) => {
            let mut text = format!(
                "{name}: {}{}",
                arg.unwrap_or("--engine=io_uring (iospd's default)"),
                if synchronous {
                    ", one I/O at a time per thread (iodepth 1), as fio runs it"
                } else {
                    ""
                }
            );
            if let Some(note) = note {
                text.push_str(&format!("; {note}"));
            }
            text
        }
        Err(why) => format!("{name}: refused: {why}"),
    }
}

/// The engines fio has that iospd's map onto, and those it refuses by name.
fn engine_of(
    name: &str,
    stat_type: Option<&str>,
) -> Result<(Option<&'static str>, bool, Option<&'static str>), String> {
    // (iospd engine option, synchronous (depth 1), note)
    Ok(match name {
        "filestat" => match stat_type.unwrap_or("stat") {
            "stat" => (Some("--engine=stat"), true, None),
            "lstat" => (Some("--engine=lstat"), true, None),
            "statx" => (Some("--engine=statx"), true, None),
            other => {
                return Err(format!(
                    "stat_type={other} is not one of fio's (stat, lstat, statx)"
                ));
            }
        },
        "filedelete" => (Some("--engine=unlink"), true, None),
        "filecreate" => (Some("--engine=create"), true, None),
        "falloc" => (
            Some("--engine=fallocate"),
            true,
            Some(
                "falloc: each write allocates its range, each read allocates it keeping the length, each trim punches it out",
            ),
        ),
        "ftruncate" => (
            Some("--engine=ftruncate"),
            true,
            Some(
                "ftruncate: each write sets the file's length to its offset; bs only sets the offsets",
            ),
        ),
        "io_uring" => (None, false, None),
        "libaio" | "aio" | "posixaio" => (
            None,
            false,
            Some("libaio and posixaio run on io_uring (the same I/O, submitted through io_uring)"),
        ),
        "psync" | "pvsync" | "pvsync2" | "sync" | "vsync" => (Some("--engine=psync"), true, None),
        "mmap" => (Some("-Sm"), true, None),
        "null" => (Some("--engine=null"), false, None),
        other => {
            let what = match other {
                "exec" => "runs a program (a command fio would start), which iospd never does",
                "cpuio" => "burns CPU and does no I/O",
                "net" | "netsplice" => "moves data over the network, not to storage",
                "e4defrag" => "moves file extents with ext4's EXT4_IOC_MOVE_EXT",
                "splice" | "vmsplice" => "moves data through a pipe with splice(2)",
                "windowsaio" => "is Windows' own (fio on Linux has none; libaio or io_uring here)",
                "solarisaio" => "is Solaris' own (fio on Linux has none; libaio or io_uring here)",
                "sg" | "io_uring_cmd" | "xnvme" | "libzbc" | "mtd" | "dev-dax" | "libpmem"
                | "pmemblk" | "rdma" | "libcufile" => "drives hardware iospd does not",
                "rados" | "rbd" | "http" | "gfapi" | "gfapi_async" | "libhdfs" | "nfs" | "dfs"
                | "nbd" | "libiscsi" | "ime_psync" | "ime_psyncv" | "ime_aio" => {
                    "talks to a storage service through its own library"
                }
                n if n.starts_with("librpma") => "talks to remote persistent memory",
                n if n.starts_with("external") || n.contains('/') || n == "cpp_null" => {
                    "is a plugin fio loads"
                }
                _ => "is not one fio ships",
            };
            return Err(format!(
                "the {other} engine {what}: it has no counterpart in iospd (io_uring, psync, mmap, null and the file engines filestat, filecreate, filedelete, ftruncate, falloc)"
            ));
        }
    })
}

/// The engines that make one call per file (filestat, filecreate, filedelete): a job bounded by
/// its work makes one call on each file per loop, `--ios=<loops>`, whatever its size (fio counts
/// filesize/bs I/Os per file but times only the call). Removing or creating a file is done once:
/// a time-based job or loops would call again on a file already gone or already there.
pub(super) fn per_file_calls(
    r: &mut Reader,
    engine: &Engine,
    time_based: bool,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    let Some(once) = engine.per_file() else {
        return Ok(());
    };
    let loops = r.parsed("loops", integer)?.unwrap_or(1).max(1);
    let verb = match engine.name.as_str() {
        "filedelete" => "removes",
        _ => "creates",
    };
    if once && time_based {
        return Err(r.refuse(
            r.last["time_based"],
            format!("time_based with the {} engine, which {verb} each file once (a second pass would fail on every file)", engine.name),
            Some("time_based=0: one call per file"),
        ));
    }
    if once && loops > 1 {
        return Err(r.refuse(
            r.last["loops"],
            format!("loops with the {} engine, which {verb} each file once (a second pass would fail on every file)", engine.name),
            Some("loops=1"),
        ));
    }
    if time_based {
        return Ok(());
    }
    t.args
        .retain(|a| !a.starts_with("--bytes=") && !a.starts_with("--ios="));
    t.args.push(format!("--ios={loops}"));
    t.notes.push(format!(
        "the {} engine: each call on a file is one I/O, {loops} per file (fio also counts filesize/bs I/Os per file, and times only the call)",
        engine.name
    ));
    Ok(())
}

/// What `rw` asks for.
pub(super) struct Mode {
    pub(super) random: bool,
    pub(super) reads: bool,
    pub(super) writes: bool,
    pub(super) trims: bool,
    /// `:N` after the mode.
    skip: Option<String>,
    /// The share of I/O that writes (from `rwmixread`/`rwmixwrite` in a mixed job).
    pub(super) write_pct: u64,
}

fn parse_mode(value: &str) -> Result<Mode, String> {
    let (name, skip) = match value.split_once(':') {
        Some((n, s)) => (n, Some(s.to_string())),
        None => (value, None),
    };
    let m = |random, reads, writes, trims| Mode {
        random,
        reads,
        writes,
        trims,
        skip: skip.clone(),
        write_pct: 0,
    };
    Ok(match name {
        "read" => m(false, true, false, false),
        "write" => m(false, false, true, false),
        "randread" => m(true, true, false, false),
        "randwrite" => m(true, false, true, false),
        "rw" | "readwrite" => m(false, true, true, false),
        "randrw" => m(true, true, true, false),
        "trim" => m(false, false, false, true),
        "randtrim" => m(true, false, false, true),
        "trimwrite" | "randtrimwrite" => {
            return Err(format!(
                "{name} (each trim followed by a write of its block) has no counterpart"
            ));
        }
        other => return Err(format!("'{other}' is not one of fio's rw modes")),
    })
}

/// `rw` with `rwmixread`/`rwmixwrite`: the directions, and the share of writes.
pub(super) fn mode(r: &mut Reader) -> Result<Mode, Box<Refusal>> {
    let rw = r.value("rw").unwrap_or("read");
    let mut m = parse_mode(rw).map_err(|why| r.refuse(r.last["rw"], why, None))?;
    let mix = match (r.get("rwmixread"), r.get("rwmixwrite")) {
        (_, Some(w))
            if r.last
                .get("rwmixread")
                .is_none_or(|rd| rd.place.line < w.place.line) =>
        {
            let pct =
                integer(w.value.as_deref().unwrap_or("")).map_err(|why| r.refuse(w, why, None))?;
            100u64.saturating_sub(pct)
        }
        (Some(rd), _) => {
            integer(rd.value.as_deref().unwrap_or("")).map_err(|why| r.refuse(rd, why, None))?
        }
        _ => 50,
    };
    if mix > 100 {
        return Err(r.refuse(
            r.last
                .get("rwmixread")
                .or(r.last.get("rwmixwrite"))
                .copied()
                .expect("given"),
            "a percentage from 0 to 100",
            None,
        ));
    }
    m.write_pct = match (m.reads, m.writes) {
        (true, true) => 100 - mix,
        (false, true) => 100,
        _ => 0,
    };
    Ok(m)
}

/// The order of offsets: `-r` (aligned to `ba`, with fio's random map unless `norandommap`) or
/// `-s` (strided by `rw`'s skip); then the direction: `-w` or `--trim=100`.
pub(super) fn offsets(
    r: &mut Reader,
    m: &Mode,
    blocks: &Blocks,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    let random_percent = random_percent(r, m)?;
    if m.random && random_percent == 0 {
        // fio's random workload with none of it random: each I/O follows the last.
        t.notes
            .push("percentage_random=0: every I/O follows the last, as -s".into());
    }
    if m.random && (random_percent > 0 || m.skip.is_some()) {
        if let Some(skip) = &m.skip {
            return Err(r.refuse(
                r.last["rw"],
                format!("random I/O with ':{skip}' (a new random offset every {skip} I/Os) has no counterpart"),
                Some("-r (every offset random)"),
            ));
        }
        match r.bytes("ba")? {
            Some(align) => t.args.push(format!("-r{align}")),
            None => t.args.push("-r".into()),
        }
        if random_percent < 100 {
            // DiskSpd's -rs: a random offset for that share of the I/Os, else the next after
            // the last, as fio's percentage_random does.
            t.args.push(format!("-rs{random_percent}"));
        }
        // fio's random map is on unless norandommap; a distribution draws its own offsets.
        let no_map = r.flag("norandommap")?.unwrap_or(false);
        if random_percent < 100 && !no_map {
            t.notes.push(format!("percentage_random={random_percent}: iospd draws the random offsets among sequential runs with replacement (fio's random map marks them)"));
        } else if !no_map && !r.last.contains_key("random_distribution") {
            if blocks.mixed {
                t.notes.push("fio's random map marks the blocks each I/O of mixed sizes covers; iospd draws offsets for mixed sizes with replacement (norandommap)".into());
            } else {
                t.args.push("--random-map".into());
            }
        }
    } else {
        r.get("ba");
        if r.flag("norandommap")?.unwrap_or(false) {
            t.notes
                .push("norandommap: the job draws no random offsets (as in fio)".into());
        }
        match &m.skip {
            Some(skip) if blocks.mixed => {
                return Err(r.refuse(
                    r.last["rw"],
                    format!("a gap of {skip} after each I/O of mixed sizes has no counterpart (iospd's sequential I/O of mixed sizes follows the last)"),
                    Some("-s (no gap)"),
                ));
            }
            Some(skip) if skip.starts_with('-') => {
                // Each I/O starts |skip| before the end of the last: down by |skip| − bs.
                let back = bytes(&skip[1..], r.kb_base)
                    .map_err(|why| r.refuse(r.last["rw"], why, None))?;
                match back.cmp(&blocks.largest) {
                    std::cmp::Ordering::Greater => {
                        t.args.push(format!("-s{}", back - blocks.largest));
                        t.args.push("--backwards".into());
                        t.notes.push(format!("rw=...:{skip}: iospd goes down from the top block by {} bytes; fio reads the region's first block before it turns to the top, and not the top block (the same bytes)", back - blocks.largest));
                    }
                    std::cmp::Ordering::Equal => {
                        return Err(r.refuse(
                            r.last["rw"],
                            format!("a skip of {skip} after each {}-byte I/O reads one block over and over", blocks.largest),
                            None,
                        ));
                    }
                    std::cmp::Ordering::Less => {
                        t.args.push(format!("-s{}", blocks.largest - back));
                    }
                }
            }
            Some(skip) => {
                let gap =
                    bytes(skip, r.kb_base).map_err(|why| r.refuse(r.last["rw"], why, None))?;
                t.args.push(format!("-s{}", blocks.largest + gap));
            }
            None => t.args.push("-s".into()),
        }
    }
    if m.trims {
        t.args.push("--trim=100".into());
    } else {
        t.args.push(format!("-w{}", m.write_pct));
    }
    Ok(())
}

/// `fadvise_hint`: fio's default (1) advises the kernel of the job's pattern on every file it
/// opens, `POSIX_FADV_RANDOM` for a random job and `POSIX_FADV_SEQUENTIAL` otherwise, which
/// for buffered I/O turns readahead off or up: iospd's `-fr`/`-fs` make the same call. 0 makes
/// none; `random` and `sequential` name the advice.
pub(super) fn advice(
    r: &mut Reader,
    m: &Mode,
    engine: &Engine,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    let value = r.value("fadvise_hint").unwrap_or("1");
    let random = match value {
        "0" | "false" => return Ok(()),
        "1" | "true" => m.random,
        "random" => true,
        "sequential" => false,
        _ => {
            return Err(r.refuse(
                r.last_of("fadvise_hint"),
                "not one of fio's 0, 1, random, sequential",
                None,
            ));
        }
    };
    if engine.moves_data() {
        t.args.push(if random { "-fr" } else { "-fs" }.into());
    }
    Ok(())
}

/// fio's `percentage_random` of a random job (one value, or one per direction: those of the
/// directions the job does must agree, as iospd's `-rs` is one share); 100 when not given. A
/// sequential job ignores it, as fio does.
fn random_percent(r: &mut Reader, m: &Mode) -> Result<u64, Box<Refusal>> {
    let Some(s) = r.get("percentage_random") else {
        return Ok(100);
    };
    let value = s.value.as_deref().unwrap_or("");
    let parts: Vec<&str> = value.split(',').collect();
    let percent = |i: usize| -> Result<u64, Box<Refusal>> {
        let part = parts.get(i).filter(|p| !p.is_empty()).unwrap_or(&parts[0]);
        match integer(part) {
            Ok(p) if p <= 100 => Ok(p),
            _ => Err(r.refuse(s, format!("'{part}' is not a percentage 0..100"), None)),
        }
    };
    let done = [m.reads, m.writes, m.trims];
    let mut shares = Vec::new();
    for (i, _) in done.iter().enumerate().filter(|(_, d)| **d) {
        shares.push(percent(i)?);
    }
    shares.dedup();
    match shares.as_slice() {
        _ if !m.random => Ok(100),
        [one] => Ok(*one),
        _ => Err(r.refuse(
            s,
            "a different share of random I/O per direction: iospd's -rs is one share for the target",
            Some("one percentage_random for every direction"),
        )),
    }
}

/// The engine's option and the page cache: `direct`/`buffered`, `sync`, the mmap engine's `-Sm`.
pub(super) fn caching(r: &mut Reader, engine: &Engine, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let direct_flag = r.flag("direct")?;
    let buffered_flag = r.flag("buffered")?;
    let direct = direct_flag.unwrap_or(false) || buffered_flag.is_some_and(|b| !b);
    let mut cache = if direct {
        "-Su".to_string()
    } else {
        String::new()
    };
    let mut o_sync = false;
    if let Some(s) = r.get("sync") {
        match s.value.as_deref().unwrap_or("1") {
            "0" | "none" => {}
            "dsync" => {
                cache = if direct { "-Suw".into() } else { "-Sbw".into() };
            }
            "1" | "sync" => o_sync = true,
            _ => {
                return Err(r.refuse(
                    s,
                    "not one of fio's sync modes (none, 0; sync, 1; dsync)",
                    None,
                ));
            }
        }
    }
    if engine.arg == Some("-Sm") {
        if direct {
            return Err(r.refuse(
                r.last
                    .get("direct")
                    .or(r.last.get("buffered"))
                    .copied()
                    .expect("given"),
                "the mmap engine with O_DIRECT",
                None,
            ));
        }
        cache = "-Sm".into();
    } else if let Some(e) = engine.arg {
        t.args.push(e.into());
    }
    if !cache.is_empty() {
        t.args.push(cache);
    }
    if o_sync {
        if engine.arg == Some("-Sm") {
            return Err(r.refuse(
                r.last["sync"],
                "the mmap engine with O_SYNC (fio's mapped writes do not go through it)",
                None,
            ));
        }
        t.args.push("--o-sync".into());
    }
    // nowait: an option of the engines that pass RWF_NOWAIT (fio's io_uring, libaio, pvsync2).
    if r.flag("nowait")?.unwrap_or(false) {
        if !matches!(engine.name.as_str(), "io_uring" | "libaio" | "pvsync2") {
            return Err(r.refuse(
                r.last["nowait"],
                format!(
                    "an option of fio's io_uring, libaio and pvsync2 engines, not of {}",
                    engine.name
                ),
                Some("ioengine=io_uring"),
            ));
        }
        t.args.push("--nowait".into());
    }
    // pre_read: the job's range read once before it starts, through its own descriptor.
    let pre_read = r.flag("pre_read")?.unwrap_or(false);
    if pre_read && !engine.moves_data() {
        return Err(r.refuse(
            r.last["pre_read"],
            format!("the {} engine moves no data to read ahead", engine.name),
            Some("pre_read=0"),
        ));
    }
    // invalidate (1 by default): fio drops the files' pages from the page cache when it opens
    // them, so a buffered job starts cold; pre_read turns it off (it would drop what it read).
    let invalidate = r.flag("invalidate")?.unwrap_or(true);
    if invalidate && !direct && !pre_read && engine.moves_data() {
        t.args.push("--invalidate".into());
    }
    if pre_read {
        t.args.push("--pre-read".into());
    }
    Ok(())
}

/// `serialize_overlap`: `--serialize-overlap` where fio keeps it (a job that writes or trims at a
/// depth above 1); elsewhere fio turns it off, and so it is said.
pub(super) fn overlap(
    r: &mut Reader,
    m: &Mode,
    depth: u64,
    t: &mut Draft,
) -> Result<(), Box<Refusal>> {
    if !r.flag("serialize_overlap")?.unwrap_or(false) {
        return Ok(());
    }
    if !(m.writes || m.trims) || depth == 1 {
        t.notes.push("serialize_overlap: fio turns it off for a job that only reads, or at iodepth=1: nothing can overlap a write in flight".into());
        return Ok(());
    }
    t.args.push("--serialize-overlap".into());
    Ok(())
}

/// `iodepth`: the depth, 1 on a synchronous engine (as fio runs it).
pub(super) fn depth(r: &mut Reader, engine: &Engine, t: &mut Draft) -> Result<u64, Box<Refusal>> {
    let depth = r.parsed("iodepth", integer)?.unwrap_or(1);
    if depth == 0 {
        return Err(r.refuse(r.last["iodepth"], "a depth of at least 1", None));
    }
    if !engine.synchronous {
        return Ok(depth);
    }
    if depth > 1 {
        t.notes.push(format!(
            "the {} engine does one I/O at a time (fio ignores iodepth={depth})",
            engine.name
        ));
    }
    Ok(1)
}

/// `randseed`, `randrepeat=0`: `-z<seed>`, `-z`.
pub(super) fn seeds(r: &mut Reader, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let repeat = r.flag("randrepeat")?;
    if let Some(seed) = r.parsed("randseed", integer)? {
        t.args.push(format!("-z{seed}"));
    } else if repeat == Some(false) {
        t.args.push("-z".into());
    }
    Ok(())
}

/// `sqthread_poll`, `hipri`: `--sqpoll`, `--iopoll`.
pub(super) fn polling(r: &mut Reader, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let cpu = r.parsed("sqthread_poll_cpu", integer)?;
    if r.flag("sqthread_poll")?.unwrap_or(false) {
        t.args.push("--sqpoll".into());
        if let Some(cpu) = cpu {
            t.args.push(format!("--sqpoll-cpu={cpu}"));
        }
    } else if let Some(cpu) = cpu {
        t.notes.push(format!(
            "sqthread_poll_cpu={cpu}: fio binds a polling thread only with sqthread_poll"
        ));
    }
    if r.flag("hipri")?.unwrap_or(false) {
        t.args.push("--iopoll".into());
    }
    Ok(())
}

/// `zonemode=strided` with `zonesize`, `zonerange` (the size unless given) and `zoneskip`:
/// `--zones` (a `zonesize` without it is refused, as fio 3.33 refuses it). fio ignores the zones of a
/// job with several files open (its rule), rejects `zonemode=none` with a `zonesize`, and runs
/// the zones on to the target's end whatever the job's `size`: a region that ends before the
/// target does is refused. `zonemode=zbd` needs a zoned block device.
pub(super) fn zones(r: &mut Reader, files: &Files, t: &mut Draft) -> Result<(), Box<Refusal>> {
    let mode = r.get("zonemode");
    let size = r.bytes("zonesize")?;
    let range = r.bytes("zonerange")?;
    let skip = r.bytes("zoneskip")?;
    let written = mode
        .and_then(|m| m.value.as_deref())
        .map(str::to_ascii_lowercase);
    match (written.as_deref(), size) {
        (Some("zbd"), _) => {
            return Err(r.refuse(
                mode.expect("written"),
                "zoned block devices (host-managed SMR, ZNS), hardware iospd does not drive",
                None,
            ));
        }
        (Some("none") | None, Some(_)) => {
            return Err(r.refuse(
                r.last_of("zonesize"),
                "a zone size with zonemode=none (fio's default), which fio rejects",
                Some("zonemode=strided"),
            ));
        }
        (Some("strided"), None) => {
            return Err(r.lacks(
                "zonesize",
                "zonemode=strided without a zonesize, which fio rejects",
                Some("zonesize=<bytes>"),
            ));
        }
        (Some(other), _) if other != "none" && other != "strided" => {
            return Err(r.refuse(
                mode.expect("written"),
                "not one of fio's none, strided, zbd",
                None,
            ));
        }
        (_, None) => {
            for key in ["zonerange", "zoneskip"] {
                if r.last.contains_key(key) {
                    t.notes
                        .push(format!("{key}: fio uses it only with a zonesize"));
                }
            }
            return Ok(());
        }
        _ => {}
    }
    let size = size.expect("matched");
    if files.per_thread > 1 {
        t.notes.push(
            "zonesize: fio works zones only on a job with one file open at a time, and ignores them here".into(),
        );
        return Ok(());
    }
    let zones = crate::profile::zones::Zones {
        size,
        range: range.filter(|&r| r > 0).unwrap_or(size),
        skip: skip.unwrap_or(0),
    };
    if size == 0 {
        return Err(r.refuse(r.last_of("zonesize"), "a zone of 0 bytes", None));
    }
    // fio moves the zones on to the target's end, past the job's region if it ends sooner.
    let offset = r
        .last
        .get("offset")
        .and_then(|o| super::value::bytes(o.value.as_deref().unwrap_or(""), r.kb_base).ok())
        .unwrap_or(0);
    if let Some(s) = r.last.get("size") {
        let region = super::value::size(s.value.as_deref().unwrap_or(""), r.kb_base);
        let short = |target: &String| match (
            region.clone(),
            crate::input::size_of(std::path::Path::new(target)),
        ) {
            (Ok(super::value::Size::Bytes(b)), Some(real)) => offset.saturating_add(b) < real,
            (Ok(super::value::Size::Percent(p)), Some(real)) => p < 100 && real > 0,
            _ => false,
        };
        if let Some(target) = files.names.iter().find(|n| short(n)) {
            return Err(r.refuse(
                s,
                format!(
                    "a region that ends before '{target}' does, where fio's zones run on to its end"
                ),
                Some("no size (the zones over the whole target)"),
            ));
        }
    }
    // A last zone that begins before the region's end and ends past it: fio moves part of its
    // size there and wraps in a way of its own; iospd uses whole windows only.
    let region = match r
        .last
        .get("size")
        .map(|s| super::value::size(s.value.as_deref().unwrap_or(""), r.kb_base))
    {
        Some(Ok(super::value::Size::Bytes(b))) => Some(b),
        _ => files
            .names
            .first()
            .and_then(|n| crate::input::size_of(std::path::Path::new(n)))
            .map(|real| real.saturating_sub(offset)),
    };
    if let Some(usable) = region.filter(|&u| u > 0)
        && zones.count(usable).saturating_mul(zones.stride()) < usable
    {
        let setting = r.last_of("zonesize");
        return Err(r.refuse(
            setting,
            format!(
                "zones every {} bytes over {usable} bytes leave a last window that does not fit whole, where fio moves part of the zone and wraps in its own way",
                zones.stride()
            ),
            Some("a zoneskip (or region) whose windows fit the region whole"),
        ));
    }
    t.args.push(format!("--zones={zones}"));
    t.notes.push(format!(
        "zonesize: each thread moves {size} bytes in a {}-byte window, then {} bytes on, back to the first window after the last",
        zones.range,
        zones.stride()
    ));
    Ok(())
}
