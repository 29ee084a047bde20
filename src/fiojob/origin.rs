//! Which of a job's fio settings gave the iospd option a check names, so that a job refused by
//! the checks its run makes is told in the user's own words: "numjobs=100000 (iospd -t100000):
//! 100000 is out of range", not "-t100000" alone, which the job file never says.

use super::{Job, Setting};

/// iospd's options and the fio settings that translate to them, longest option first where
/// one starts another.
const ORIGINS: &[(&str, &[&str])] = &[
    ("--bytes", &["size", "io_size", "loops", "filesize"]),
    ("--ios", &["number_ios"]),
    ("--bssplit", &["bssplit", "bsrange", "bs", "blocksize"]),
    ("--random-map", &["norandommap", "rw"]),
    ("--engine", &["ioengine"]),
    ("--file-service", &["file_service_type"]),
    ("--cpu-set", &["cpus_allowed", "cpumask"]),
    ("--pattern", &["buffer_pattern"]),
    ("--trace", &["write_iolog"]),
    ("--verify", &["verify"]),
    ("--fsync", &["fsync"]),
    ("--trim", &["rw"]),
    ("-c", &["filesize", "size"]),
    ("-f", &["size"]),
    ("-a", &["cpus_allowed", "cpumask"]),
    ("-t", &["numjobs"]),
    ("-o", &["iodepth"]),
    ("-F", &["numjobs"]),
    ("-O", &["iodepth"]),
    ("-b", &["bs", "blocksize"]),
    ("-B", &["offset"]),
    ("-T", &["offset_increment"]),
    ("-d", &["runtime"]),
    ("-W", &["ramp_time"]),
    ("-g", &["rate_iops", "rate"]),
    ("-w", &["rwmixwrite", "rwmixread", "rw"]),
    ("-r", &["rw"]),
    ("-s", &["rw"]),
    ("-S", &["direct", "buffered"]),
    ("-z", &["randseed"]),
    (
        "-Z",
        &[
            "buffer_compress_percentage",
            "refill_buffers",
            "zero_buffers",
        ],
    ),
];

/// `said` (a check's message about `job`'s command line) with the job's own settings named
/// before the iospd option it starts with (`'-t100000': …` or `-c: …`); as it is when it names
/// no option, or none the job set.
pub fn in_job_terms(job: &Job, said: &str) -> String {
    let Some(token) = leading_option(said) else {
        return said.to_string();
    };
    let Some((_, keys)) = ORIGINS.iter().find(|(option, _)| names(token, option)) else {
        return said.to_string();
    };
    let settings: Vec<String> = keys
        .iter()
        .filter_map(|k| job.get(k))
        .map(written)
        .collect();
    match settings.is_empty() {
        true => said.to_string(),
        false => format!("{} (iospd {token}): {said}", settings.join(", ")),
    }
}

/// The option a message starts with: `'-t100000'` or `-c:`.
fn leading_option(said: &str) -> Option<&str> {
    let rest = said.strip_prefix('\'').unwrap_or(said);
    if !rest.starts_with('-') {
        return None;
    }
    let end = rest.find(['\'', ':', ' ']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Whether `token` (`-t100000`, `--bytes=1M`, `-Sh`) is iospd's `option`: a long option whole,
/// a short one by its letter.
fn names(token: &str, option: &str) -> bool {
    match option.starts_with("--") {
        true => token == option || token.starts_with(&format!("{option}=")),
        false => token.starts_with(option),
    }
}

/// A setting as the job wrote it, with where.
fn written(s: &Setting) -> String {
    match &s.value {
        Some(value) => format!("{}={value} at {}", s.written, s.place),
        None => format!("{} at {}", s.written, s.place),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiojob::Place;

    fn job(settings: &[(&str, &str)]) -> Job {
        Job {
            name: "j".into(),
            number: 0,
            place: Place {
                file: "j.fio".into(),
                line: 1,
            },
            settings: settings
                .iter()
                .enumerate()
                .map(|(i, (k, v))| Setting {
                    key: k.to_string(),
                    written: k.to_string(),
                    value: Some(v.to_string()),
                    place: Place {
                        file: "j.fio".into(),
                        line: i + 2,
                    },
                })
                .collect(),
        }
    }

    #[test]
    fn a_check_on_an_iospd_option_names_the_settings_that_gave_it() {
        let j = job(&[("numjobs", "100000"), ("size", "100P"), ("rw", "randread")]);
        assert_eq!(
            in_job_terms(
                &j,
                "'-t100000': 100000 is out of range 1..=4096; for example -t4"
            ),
            "numjobs=100000 at j.fio:2 (iospd -t100000): '-t100000': 100000 is out of range 1..=4096; for example -t4"
        );
        assert!(
            in_job_terms(&j, "-c: cannot create 'f' of 100PiB")
                .starts_with("size=100P at j.fio:3 (iospd -c):")
        );
        // Not an option, or an option the job did not set: as it was.
        assert_eq!(
            in_job_terms(&j, "'t.dat' is too small"),
            "'t.dat' is too small"
        );
        assert_eq!(
            in_job_terms(&j, "'-o40000': out of range"),
            "'-o40000': out of range"
        );
        assert!(!names("--bytes-x", "--bytes") && names("--bytes=5", "--bytes"));
    }
}
