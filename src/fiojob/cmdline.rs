//! fio's own command line, read as fio's `parse_cmd_line` reads it: `--key=value` or `--key value`
//! (a value is taken from the next argument unless the option is one of fio's flags, which take
//! none); job options before the first `--name` are defaults for every job, the command line's
//! and the job files' alike (fio's `def_thread`); `--name=<job>` starts a job and the options after
//! it are that job's, up to the next `--name`; other arguments are job files, read after the
//! command line's jobs with its defaults under their own settings; `--section=<name>` keeps only
//! the jobs of that name. fio's output options are kept apart for the command that runs the jobs.

use super::read::{Context, setting_of};
use super::{Job, JobError, Place, Setting};

/// Where a command line's setting was given: `Place::file` is this, `Place::line` the argument's
/// number from 1.
pub const COMMAND_LINE: &str = "<command line>";

/// fio's job options that take no value (`FIO_OPT_STR_SET`, fio's own and its Linux engines'):
/// `--time_based`, never `--time_based <value>`.
const FLAGS: [&str; 20] = [
    "bs_unaligned",
    "exitall",
    "exitall_on_error",
    "group_reporting",
    "new_group",
    "norandommap",
    "refill_buffers",
    "stonewall",
    "thread",
    "time_based",
    "verify_only",
    "zero_buffers",
    "wait_for_previous",
    "hipri",
    "fixedbufs",
    "registerfiles",
    "sqthread_poll",
    "userspace_reap",
    "listen",
    "pingpong",
];

/// How one of fio's own options takes its value (fio's `l_opts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// `--key=value` or `--key value`.
    Value,
    /// `--key` alone.
    Nothing,
    /// `--key` or `--key=value`, never `--key value`.
    Optional,
}

/// fio 3.33's options that are not job options (output, running, its tools), each as fio's
/// `l_opts` takes its value; `commands::fio` decides what each does here.
const RUN_OPTIONS: [(&str, Takes); 40] = [
    ("output", Takes::Value),
    ("latency-log", Takes::Value),
    ("bandwidth-log", Takes::Nothing),
    ("minimal", Takes::Nothing),
    ("output-format", Takes::Value),
    ("append-terse", Takes::Optional),
    ("version", Takes::Nothing),
    ("help", Takes::Nothing),
    ("cmdhelp", Takes::Optional),
    ("enghelp", Takes::Optional),
    ("showcmd", Takes::Nothing),
    ("readonly", Takes::Nothing),
    ("eta", Takes::Value),
    ("eta-interval", Takes::Value),
    ("eta-newline", Takes::Value),
    ("debug", Takes::Value),
    ("parse-only", Takes::Nothing),
    ("section", Takes::Value),
    ("inflate-log", Takes::Value),
    ("alloc-size", Takes::Value),
    ("profile", Takes::Value),
    ("warnings-fatal", Takes::Nothing),
    ("max-jobs", Takes::Value),
    ("terse-version", Takes::Value),
    ("server", Takes::Optional),
    ("server-internal", Takes::Value),
    ("daemonize", Takes::Value),
    ("client", Takes::Value),
    ("remote-config", Takes::Value),
    ("cpuclock-test", Takes::Nothing),
    ("crctest", Takes::Optional),
    ("memcpytest", Takes::Optional),
    ("idle-prof", Takes::Value),
    ("status-interval", Takes::Value),
    ("trigger-file", Takes::Value),
    ("trigger-timeout", Takes::Value),
    ("trigger", Takes::Value),
    ("trigger-remote", Takes::Value),
    ("aux-path", Takes::Value),
    ("merge-blktrace-only", Takes::Nothing),
];

/// A fio command line: its defaults and jobs, the job files it names, and its other options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandLine {
    /// Job options given before any `--name`: every job's defaults.
    pub defaults: Vec<Setting>,
    /// The jobs `--name` started, in order.
    pub jobs: Vec<Job>,
    /// Job files, in order.
    pub files: Vec<String>,
    /// `--section=<name>`, each time given.
    pub sections: Vec<String>,
    /// fio's other options (`output-format`, `output`, `eta`, …) with their values, in order.
    pub run: Vec<(String, Option<String>)>,
}

/// Reads fio's command line `args` (what follows `fio`), or says which argument is wrong.
pub fn read(args: &[String], context: &Context) -> Result<CommandLine, JobError> {
    let mut line = CommandLine::default();
    let mut current: Option<Job> = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let place = Place {
            file: COMMAND_LINE.into(),
            line: i + 1,
        };
        i += 1;
        let Some(option) = arg.strip_prefix("--") else {
            line.files.push(arg.clone());
            continue;
        };
        let (name, inline) = match option.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (option, None),
        };
        let takes_value = match RUN_OPTIONS.iter().find(|(n, _)| *n == name) {
            Some((_, takes)) => *takes == Takes::Value,
            None => !FLAGS.contains(&name),
        };
        let value = match inline {
            Some(v) => Some(v),
            None if takes_value => match args.get(i) {
                Some(next) => {
                    i += 1;
                    Some(next.clone())
                }
                None => {
                    return Err(JobError {
                        place,
                        why: format!("--{name} needs a value: --{name}=<value>"),
                    });
                }
            },
            None => None,
        };
        if RUN_OPTIONS.iter().any(|(n, _)| *n == name) {
            if name == "section" {
                line.sections.extend(value.clone());
            }
            line.run.push((name.to_string(), value));
            continue;
        }
        let text = match &value {
            Some(v) => format!("{name}={v}"),
            None => name.to_string(),
        };
        let setting = setting_of(&text, place.clone(), context)?;
        if setting.key == "name" {
            let job_name = setting.value.clone().unwrap_or_default();
            line.jobs.extend(current.take());
            if job_name.starts_with("global") {
                continue;
            }
            // The name is the job's, as a section's header is: not one of its settings.
            current = Some(Job {
                name: job_name,
                number: 0,
                place,
                settings: line.defaults.clone(),
            });
            continue;
        }
        match &mut current {
            Some(job) => job.settings.push(setting),
            None => line.defaults.push(setting),
        }
    }
    line.jobs.extend(current);
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiojob::read::{Keywords, fixed_env};

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn options_before_a_name_are_defaults_and_values_follow_as_fio_takes_them() {
        let env = fixed_env(&[]);
        let context = Context {
            env: &env,
            keywords: Keywords {
                pagesize: 4096,
                mb_memory: 1024,
                ncpus: 2,
            },
        };
        let line = read(
            &args("--direct=1 --ioengine io_uring --name=a --rw randread --time_based --bs=4k job.fio --name b --section=x --output-format=json"),
            &context,
        )
        .unwrap();
        let keys = |s: &[Setting]| -> Vec<String> {
            s.iter()
                .map(|s| format!("{}={}", s.key, s.value.clone().unwrap_or_default()))
                .collect()
        };
        assert_eq!(keys(&line.defaults), ["direct=1", "ioengine=io_uring"]);
        assert_eq!(line.jobs.len(), 2);
        assert_eq!(
            keys(&line.jobs[0].settings),
            [
                "direct=1",
                "ioengine=io_uring",
                "rw=randread",
                "time_based=",
                "bs=4k"
            ]
        );
        assert_eq!(line.jobs[1].name, "b");
        assert_eq!(line.files, ["job.fio"]);
        assert_eq!(line.sections, ["x"]);
        assert_eq!(line.run[1], ("output-format".into(), Some("json".into())));
        assert_eq!(line.jobs[0].settings[2].place.line, 5, "--rw is argument 5");
        let missing = read(&args("--name=a --bs"), &context).unwrap_err();
        assert!(missing.why.contains("--bs=<value>"), "{missing}");
        assert_eq!(missing.place.to_string(), "command line argument 2");
        // fio's own flags take no value, and those with an optional one only after '='.
        let line = read(
            &args("--bandwidth-log job.fio --cmdhelp bs --debug io --name=a"),
            &context,
        )
        .unwrap();
        assert_eq!(line.files, ["job.fio", "bs"]);
        assert_eq!(
            line.run,
            [
                ("bandwidth-log".into(), None),
                ("cmdhelp".into(), None),
                ("debug".into(), Some("io".into()))
            ]
        );
    }
}
