//! The integration suite, one binary: the command line as a user meets it (`cli`, `hostile`),
//! whole runs on a fake clock compared byte for byte (`golden`, `formats`, `profiles`), the text
//! report against DiskSpd's layout written a second time from its format strings (`diskspd_text`),
//! real I/O
//! (`engines`, `options`, `observe`), the safety gate on real devices and files (`devices`,
//! `signatures`, `races`, `faults`), the subcommands (`tools`), the HTML report in a browser
//! (`html`), repeated runs and their statistics (`characterise`) and runs across processes (`cluster`: `--start-at`, and `mpirun` with
//! `--features mpi`). A test that cannot run here says why; the reasons are listed once, at the
//! end.

mod util;

mod access;
mod block_sizes;
mod characterise;
mod children;
mod cli;
mod cluster;
mod data;
mod dedupe;
mod device_clock;
mod devices;
mod diskspd_text;
mod engines;
mod faults;
mod file_engines;
mod fio_cmdline;
mod fio_defaults;
mod fio_jobs;
mod fio_json;
mod fio_latency;
mod fio_regions;
mod fio_terse;
mod flow;
mod formats;
mod golden;
mod hostile;
mod hostile_jobs;
mod hostile_traces;
mod html;
mod hygiene;
mod inputs;
mod layers;
mod metrics;
mod observe;
mod options;
mod page_cache;
mod parity;
mod priorities;
mod process;
mod profiles;
mod races;
mod reality;
mod replay;
mod shared_machine;
mod signatures;
#[cfg(feature = "mpi")]
mod slurm;
mod steady;
mod tools;
mod trim_flush;
mod verdicts;
mod verify;
mod verify_state;
mod work;
mod zones;
