//! One job's settings as the translation reads them: each option looked up by its key, every
//! key the translation asks for remembered (so what is left can be judged), and refusals that
//! name the option, the job and the place.

use std::collections::BTreeMap;

use super::value::{KbBase, Size, boolean, bytes, size};
use super::{Job, Place, Setting};

/// A job iospd does not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: job '{job}': {option}: {why}{}", closest.as_ref().map(|c| format!("; closest in iospd: {c}")).unwrap_or_default())]
pub struct Refusal {
    /// The fio option, as written (`rw=randrw:8`).
    pub option: String,
    /// The job.
    pub job: String,
    /// Where the option was written (the section, for what the job lacks).
    pub place: Place,
    /// Why.
    pub why: String,
    /// iospd's closest option, when there is one.
    pub closest: Option<String>,
}

/// Options whose 0 is fio's "not set" (its default): a job that sets one to 0 reads as one that
/// does not set it (`size=0` is the file's own size, `runtime=0` no limit).
const ZERO_IS_UNSET: &[&str] = &[
    "size",
    "filesize",
    "io_size",
    "number_ios",
    "runtime",
    "ramp_time",
    "startdelay",
    "openfiles",
    "offset",
    "offset_increment",
    "thinktime",
    "zonesize",
    "verify_interval",
];

/// Reads one job's settings, keeping track of what was used.
pub(super) struct Reader<'a> {
    pub(super) job: &'a Job,
    pub(super) last: BTreeMap<&'a str, &'a Setting>,
    /// Settings of fio's "not set" (`size=0`), left out of `last`.
    pub(super) unset: Vec<&'a Setting>,
    pub(super) used: Vec<&'a str>,
    /// How the job's sizes read (`kb_base`).
    pub(super) kb_base: KbBase,
}

impl<'a> Reader<'a> {
    pub(super) fn new(job: &'a Job) -> Self {
        let mut last = BTreeMap::new();
        for s in &job.settings {
            last.insert(s.key.as_str(), s);
        }
        let mut unset = Vec::new();
        for key in ZERO_IS_UNSET {
            if let Some(s) = last
                .get(key)
                .filter(|s| s.value.as_deref().map(str::trim) == Some("0"))
            {
                unset.push(*s);
                last.remove(key);
            }
        }
        Reader {
            job,
            last,
            unset,
            used: Vec::new(),
            kb_base: KbBase::default(),
        }
    }

    pub(super) fn get(&mut self, key: &'a str) -> Option<&'a Setting> {
        self.used.push(key);
        self.last.get(key).copied()
    }

    pub(super) fn value(&mut self, key: &'a str) -> Option<&'a str> {
        self.get(key).map(|s| s.value.as_deref().unwrap_or(""))
    }

    /// Every setting of `key`, in order (fio adds each `filename=` to the job).
    pub(super) fn all(&mut self, key: &'a str) -> Vec<&'a Setting> {
        self.used.push(key);
        self.job.settings.iter().filter(|s| s.key == key).collect()
    }

    /// The last setting of `key`, which must be there.
    pub(super) fn last_of(&self, key: &str) -> &'a Setting {
        self.last[key]
    }

    /// The job's name.
    pub(super) fn job_name(&self) -> &'a str {
        &self.job.name
    }

    pub(super) fn refuse(
        &self,
        s: &Setting,
        why: impl Into<String>,
        closest: Option<&str>,
    ) -> Box<Refusal> {
        Box::new(Refusal {
            option: match &s.value {
                Some(v) => format!("{}={v}", s.written),
                None => s.written.clone(),
            },
            job: self.job.name.clone(),
            place: s.place.clone(),
            why: why.into(),
            closest: closest.map(str::to_string),
        })
    }

    /// A refusal for what the job lacks, at its section.
    pub(super) fn lacks(
        &self,
        option: &str,
        why: impl Into<String>,
        closest: Option<&str>,
    ) -> Box<Refusal> {
        Box::new(Refusal {
            option: option.to_string(),
            job: self.job.name.clone(),
            place: self.job.place.clone(),
            why: why.into(),
            closest: closest.map(str::to_string),
        })
    }

    /// The parsed value of `key`, or a refusal at it.
    pub(super) fn parsed<T>(
        &mut self,
        key: &'a str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, Box<Refusal>> {
        let Some(s) = self.get(key) else {
            return Ok(None);
        };
        parse(s.value.as_deref().unwrap_or(""))
            .map(Some)
            .map_err(|why| self.refuse(s, why, None))
    }

    /// The size `key` gives (bytes or a percentage), read in the job's `kb_base`.
    pub(super) fn size(&mut self, key: &'a str) -> Result<Option<Size>, Box<Refusal>> {
        let base = self.kb_base;
        self.parsed(key, |v| size(v, base))
    }

    /// The bytes `key` gives, read in the job's `kb_base`.
    pub(super) fn bytes(&mut self, key: &'a str) -> Result<Option<u64>, Box<Refusal>> {
        let base = self.kb_base;
        self.parsed(key, |v| bytes(v, base))
    }

    /// Reads `kb_base` (1024, fio's default, or 1000), which every size of the job is read in.
    pub(super) fn units(&mut self) -> Result<(), Box<Refusal>> {
        match self.parsed("kb_base", |v| {
            super::value::integer(v).and_then(|n| match n {
                1000 | 1024 => Ok(n),
                _ => Err(format!("'{v}': fio's kb_base is 1000 or 1024")),
            })
        })? {
            Some(n) => self.kb_base = KbBase(n),
            None => self.kb_base = KbBase::default(),
        }
        Ok(())
    }

    pub(super) fn flag(&mut self, key: &'a str) -> Result<Option<bool>, Box<Refusal>> {
        let Some(s) = self.get(key) else {
            return Ok(None);
        };
        boolean(s.value.as_deref())
            .map(Some)
            .map_err(|why| self.refuse(s, why, None))
    }
}

/// Whole seconds of a fio time, or a refusal.
pub(super) fn whole_seconds(
    r: &Reader,
    s: &Setting,
    ns: u64,
    what: &str,
) -> Result<u64, Box<Refusal>> {
    if ns % 1_000_000_000 != 0 {
        return Err(r.refuse(
            s,
            format!("iospd's {what} is whole seconds"),
            Some("a whole number of seconds"),
        ));
    }
    Ok(ns / 1_000_000_000)
}
