//! Reading job files as fio does (its `parse_jobs_ini`): a line is cut at its first `;` or `#`
//! and trimmed; `[name]` begins a section, and a section whose name begins with `global` holds
//! settings for the jobs that follow it; `include <file>` reads another file in place (relative
//! to the including file; it may include further, but holds no sections); `key=value` or a bare
//! `key`. In values, `${VAR}` is the environment variable (unset is refused: fio would put
//! nothing there), and fio's keywords `$pagesize`, `$mb_memory` and `$ncpus` are the machine's,
//! with the arithmetic fio then applies (`size=8*$mb_memory`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::value::integer_expression;
use super::{Job, JobError, Place, Setting};

/// How deep includes may nest.
const MAX_INCLUDE_DEPTH: usize = 16;

/// The most bytes the job files and every include read (an include may be read many times)
/// hold together.
const MAX_TOTAL_BYTES: u64 = 4 * crate::input::JOB_FILE_MAX;

/// fio's aliases: the name as written → the option's own name.
pub const ALIASES: [(&str, &str); 21] = [
    ("readwrite", "rw"),
    ("blocksize", "bs"),
    ("blocksize_range", "bsrange"),
    ("blocksize_unaligned", "bs_unaligned"),
    ("blockalign", "ba"),
    ("timeout", "runtime"),
    ("nr_files", "nrfiles"),
    ("io_limit", "io_size"),
    ("wait_for_previous", "stonewall"),
    ("fileoffset", "offset"),
    ("iomem", "mem"),
    ("iodepth_batch", "iodepth_batch_submit"),
    ("iodepth_batch_complete", "iodepth_batch_complete_min"),
    ("fill_fs", "fill_device"),
    ("mem_align", "iomem_align"),
    ("ratemin", "rate_min"),
    ("ratecycle", "rate_cycle"),
    ("disable_bw", "disable_bw_measurement"),
    ("steadystate", "ss"),
    ("steadystate_duration", "ss_dur"),
    ("steadystate_ramp_time", "ss_ramp"),
];

/// The machine's values of fio's keywords.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keywords {
    /// `$pagesize`.
    pub pagesize: u64,
    /// `$mb_memory`: total memory in MiB.
    pub mb_memory: u64,
    /// `$ncpus`: online CPUs.
    pub ncpus: u64,
}

impl Keywords {
    /// This machine's.
    pub fn here() -> Self {
        // SAFETY: sysconf has no preconditions.
        let pagesize = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
        // SAFETY: as above.
        let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) }.max(0) as u64;
        // SAFETY: as above.
        let ncpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as u64;
        Keywords {
            pagesize,
            mb_memory: pages * pagesize / (1024 * 1024),
            ncpus,
        }
    }
}

/// What the reader needs from outside: the environment and the machine.
pub struct Context<'a> {
    /// `${VAR}` lookups.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// fio's keywords.
    pub keywords: Keywords,
}

/// Reads `paths` (one or more job files, in order, as `fio a.fio b.fio` does) into jobs, each
/// file's globals starting from `defaults` (fio's command-line options before any `--name`).
pub fn read_files(
    paths: &[PathBuf],
    defaults: &[Setting],
    context: &Context,
) -> Result<Vec<Job>, JobError> {
    let mut reader = Reader {
        context,
        globals: Vec::new(),
        jobs: Vec::new(),
        current: None,
        stack: Vec::new(),
        read: 0,
    };
    for path in paths {
        // Each file starts its own globals, as fio reads each job file in turn.
        reader.globals = defaults.to_vec();
        reader.current = None;
        reader.file(path, None)?;
        reader.close_section();
    }
    Ok(reader.jobs)
}

struct Reader<'a> {
    context: &'a Context<'a>,
    globals: Vec<Setting>,
    jobs: Vec<Job>,
    /// The open section: `None` for a global one, `Some(job)` for a job.
    current: Option<Option<Job>>,
    /// Files being read (for include cycles), canonical.
    stack: Vec<PathBuf>,
    /// Bytes read so far, every file and include counted each time it is read.
    read: u64,
}

impl Reader<'_> {
    fn close_section(&mut self) {
        if let Some(Some(job)) = self.current.take() {
            self.jobs.push(job);
        }
    }

    fn file(&mut self, path: &Path, included_at: Option<&Place>) -> Result<(), JobError> {
        let at_file = |why: String| match included_at {
            Some(place) => JobError {
                place: place.clone(),
                why,
            },
            None => JobError {
                place: Place {
                    file: path.to_path_buf(),
                    line: 0,
                },
                why,
            },
        };
        let canonical = std::fs::canonicalize(path)
            .map_err(|e| at_file(format!("cannot read '{}': {e}", path.display())))?;
        if self.stack.contains(&canonical) {
            return Err(at_file(format!(
                "'{}' includes itself (through {}); remove the include that closes the cycle",
                path.display(),
                self.stack
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" → ")
            )));
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(at_file(format!(
                "includes nest deeper than {MAX_INCLUDE_DEPTH} files"
            )));
        }
        let text = crate::input::read_text(path, crate::input::JOB_FILE_MAX, "job file")
            .map_err(|e| at_file(format!("cannot read '{}': {e}", path.display())))?;
        self.read += text.len() as u64;
        if self.read > MAX_TOTAL_BYTES {
            return Err(at_file(format!(
                "the job files and their includes hold more than {} together (an include read again and again counts each time); no real job file is that large",
                crate::units::format_size(MAX_TOTAL_BYTES)
            )));
        }
        self.stack.push(canonical);
        let included = included_at.is_some();
        for (i, raw) in text.lines().enumerate() {
            let place = Place {
                file: path.to_path_buf(),
                line: i + 1,
            };
            let line = raw.trim_start();
            let line = match line.find([';', '#']) {
                Some(cut) => &line[..cut],
                None => line,
            }
            .trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                if included {
                    return Err(JobError {
                        place,
                        why: "an included file holds a [section]; fio allows only options in included files: move the section to the including file".into(),
                    });
                }
                let Some(name) = rest.strip_suffix(']') else {
                    return Err(JobError {
                        place,
                        why: format!("'{line}' opens a section without closing it; write [name]"),
                    });
                };
                let name = name.trim();
                if name.is_empty() {
                    return Err(JobError {
                        place,
                        why: "a section without a name; write [name]".into(),
                    });
                }
                self.close_section();
                self.current = Some(if name.starts_with("global") {
                    None
                } else {
                    let number = self.jobs.len();
                    Some(Job {
                        name: name.to_string(),
                        number,
                        place,
                        settings: self.globals.clone(),
                    })
                });
                continue;
            }
            if let Some(target) = line
                .strip_prefix("include")
                .filter(|r| r.starts_with(char::is_whitespace))
            {
                let target = Path::new(target.trim());
                let target = match (target.is_relative(), path.parent()) {
                    (true, Some(dir)) => dir.join(target),
                    _ => target.to_path_buf(),
                };
                self.file(&target, Some(&place))?;
                continue;
            }
            let setting = self.setting(line, place)?;
            match &mut self.current {
                Some(Some(job)) => job.settings.push(setting),
                Some(None) => self.globals.push(setting),
                None => {
                    return Err(JobError {
                        place: setting.place,
                        why: format!(
                            "'{line}' comes before any [section]; put options under [global] or a job's [name]"
                        ),
                    });
                }
            }
        }
        self.stack.pop();
        Ok(())
    }

    /// `key=value` or `key`, expanded.
    fn setting(&self, line: &str, place: Place) -> Result<Setting, JobError> {
        setting_of(line, place, self.context)
    }
}

/// `key=value` or `key` (written at `place`) as fio takes it: the alias resolved, the value
/// expanded.
pub fn setting_of(line: &str, place: Place, context: &Context) -> Result<Setting, JobError> {
    let (written, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (line, None),
    };
    if written.is_empty() || written.contains(char::is_whitespace) {
        return Err(JobError {
            place,
            why: format!("'{line}' is not an option; write key=value"),
        });
    }
    let key = ALIASES
        .iter()
        .find(|(alias, _)| *alias == written)
        .map_or(written, |(_, name)| name)
        .to_string();
    let value = match value {
        Some(v) => Some(expand(v, &place, context)?),
        None => None,
    };
    Ok(Setting {
        key,
        written: written.to_string(),
        value,
        place,
    })
}

/// `${VAR}` from the environment, then fio's keywords and their arithmetic.
fn expand(value: &str, place: &Place, context: &Context) -> Result<String, JobError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            rest = "";
            break;
        };
        let name = &after[..end];
        match (context.env)(name) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(JobError {
                    place: place.clone(),
                    why: format!(
                        "${{{name}}} is not set (fio would put nothing there); export {name} before running"
                    ),
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    let k = &context.keywords;
    let mut replaced = false;
    for (word, v) in [
        ("$pagesize", k.pagesize),
        ("$mb_memory", k.mb_memory),
        ("$ncpus", k.ncpus),
    ] {
        if out.contains(word) {
            out = out.replace(word, &v.to_string());
            replaced = true;
        }
    }
    // fio hands a value with a keyword and an operator to bc (integer arithmetic).
    if replaced && out.contains(['+', '-', '*', '/']) {
        let n = integer_expression(&out).ok_or_else(|| JobError {
            place: place.clone(),
            why: format!(
                "'{value}' is '{out}' with fio's keywords, which is not arithmetic on whole numbers; write the value out"
            ),
        })?;
        out = n.to_string();
    }
    Ok(out)
}

/// The environment of this process.
pub fn environment(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// A job file's environment for tests: a fixed map.
pub fn fixed_env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(env: &dyn Fn(&str) -> Option<String>) -> Context<'_> {
        Context {
            env,
            keywords: Keywords {
                pagesize: 4096,
                mb_memory: 1024,
                ncpus: 2,
            },
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn values(job: &Job) -> Vec<(String, Option<String>)> {
        job.settings
            .iter()
            .map(|s| (s.key.clone(), s.value.clone()))
            .collect()
    }

    #[test]
    fn sections_globals_comments_aliases_and_variables_read_as_fio_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "common.inc",
            "ioengine=libaio ; the engine\ninclude deeper.inc\n",
        );
        write(dir.path(), "deeper.inc", "iodepth=${DEPTH}\n");
        let job = write(
            dir.path(),
            "job.fio",
            "# a comment\n[global]\ninclude common.inc\nreadwrite=randread # after the value\n\n[first]\nblocksize=4k\nsize=8*$mb_memory\n[global-2]\ndirect=1\n[second]\ntime_based\n[first]\nbs=8k\n",
        );
        let env = fixed_env(&[("DEPTH", "32")]);
        let jobs = read_files(&[job], &[], &context(&env)).unwrap();
        assert_eq!(jobs.len(), 3);
        let own = |v: &str| Some(v.to_string());
        assert_eq!(
            values(&jobs[0]),
            [
                ("ioengine".into(), own("libaio")),
                ("iodepth".into(), own("32")),
                ("rw".into(), own("randread")),
                ("bs".into(), own("4k")),
                ("size".into(), own("8192")),
            ]
        );
        assert_eq!(jobs[1].get("direct").unwrap().value, own("1"));
        assert_eq!(jobs[1].get("time_based").unwrap().value, None);
        assert!(
            jobs[0].get("direct").is_none(),
            "a later global is not the earlier job's"
        );
        assert_eq!((jobs[2].name.as_str(), jobs[2].number), ("first", 2));
        assert_eq!(jobs[0].get("iodepth").unwrap().place.line, 1);
    }

    #[test]
    fn unset_variables_cycles_and_stray_lines_are_refused_with_the_place() {
        let dir = tempfile::tempdir().unwrap();
        let env = fixed_env(&[]);
        let job = write(dir.path(), "a.fio", "[j]\nrw=${MODE}\n");
        let e = read_files(&[job], &[], &context(&env)).unwrap_err();
        assert_eq!(e.place.line, 2);
        assert!(e.why.contains("${MODE} is not set"), "{e}");
        write(dir.path(), "x.inc", "include y.inc\n");
        write(dir.path(), "y.inc", "include x.inc\n");
        let job = write(dir.path(), "b.fio", "[global]\ninclude x.inc\n[j]\n");
        let e = read_files(&[job], &[], &context(&env)).unwrap_err();
        assert!(e.why.contains("includes itself"), "{e}");
        let job = write(dir.path(), "c.fio", "rw=read\n[j]\n");
        let e = read_files(&[job], &[], &context(&env)).unwrap_err();
        assert!(e.why.contains("before any [section]"), "{e}");
        let job = write(dir.path(), "d.fio", "[j\n");
        assert!(read_files(&[job], &[], &context(&env)).is_err());
    }
}
