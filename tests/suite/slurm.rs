//! Launched as HPC sites launch: a single-node Slurm (Debian's `slurm-wlm` with its own `munged`,
//! all on loopback with the test's own ports, sockets and state) runs the MPI build under
//! `srun --mpi=pmix` (the PMI both Debian's Slurm and Open MPI speak; Open MPI 4.1 here cannot
//! initialise under Slurm's PMI-2), refuses the N singletons of a plain `srun`, and lets one
//! process of a batch script run on its own.

use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::tools::Tools;
use crate::util::{TempDir, stderr, stdout};
use iospd::report::Report;

/// munged, slurmctld and slurmd of the test's own; stopped when dropped.
struct Slurm {
    tools: Tools,
    daemons: Vec<Child>,
    munged_pid: std::path::PathBuf,
    config: std::path::PathBuf,
    dir: TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Slurm {
    fn start(tools: Tools) -> Slurm {
        let dir = TempDir::new();
        let key = dir.join("munge.key");
        std::fs::write(
            &key,
            std::array::from_fn::<u8, 1024, _>(|i| (i * 7 + 13) as u8),
        )
        .unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        let socket = dir.join("munge.sock");
        let munged_pid = dir.join("munged.pid");
        let started = tools
            .command("munged")
            .arg("--force")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", munged_pid.display()))
            .arg(format!("--log-file={}", dir.join("munged.log").display()))
            .arg(format!("--seed-file={}", dir.join("munged.seed").display()))
            .output()
            .unwrap();
        assert!(started.status.success(), "munged: {}", stderr(&started));
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
            .to_string();
        for sub in ["state", "spool"] {
            std::fs::create_dir(dir.join(sub)).unwrap();
        }
        let d = dir.path().display();
        let config = dir.join("slurm.conf");
        std::fs::write(
            &config,
            format!(
                "ClusterName=iospdtest\nSlurmctldHost={host}(127.0.0.1)\nSlurmctldPort={}\nSlurmdPort={}\n\
                 AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={}\nSlurmUser=root\nSlurmdUser=root\n\
                 StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
                 SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
                 SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
                 MpiDefault=none\nReturnToService=2\nSwitchType=switch/none\nSlurmdParameters=config_overrides\n\
                 NodeName={host} NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN\n\
                 PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n",
                free_port(),
                free_port(),
                socket.display()
            ),
        )
        .unwrap();
        let mut slurm = Slurm {
            tools,
            daemons: Vec::new(),
            munged_pid,
            config,
            dir,
        };
        for daemon in [&["slurmctld", "-D", "-i"][..], &["slurmd", "-D"]] {
            let child = slurm
                .tools
                .command(daemon[0])
                .args(&daemon[1..])
                .arg("-f")
                .arg(&slurm.config)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            slurm.daemons.push(child);
        }
        // The node is up once sinfo calls it idle.
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let sinfo = slurm.command("sinfo").args(["-h", "-o", "%t"]).output();
            if sinfo.is_ok_and(|o| stdout(&o).trim() == "idle") {
                break;
            }
            assert!(
                Instant::now() < end,
                "the Slurm node never came up: {}",
                std::fs::read_to_string(slurm.dir.join("slurmctld.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        slurm
    }

    /// A Slurm client command against this cluster.
    fn command(&self, name: &'static str) -> Command {
        let mut command = self.tools.command(name);
        command.env("SLURM_CONF", &self.config);
        command
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        for daemon in &mut self.daemons {
            let _ = daemon.kill();
            let _ = daemon.wait();
        }
        if let Some(pid) = std::fs::read_to_string(&self.munged_pid)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok())
        {
            // SAFETY: a signal to the munged this test started.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
}

fn report(output: &Output) -> Report {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn srun_with_pmix_runs_the_ranks_as_mpirun_does_and_a_plain_srun_is_refused() {
    let test = "srun_with_pmix_runs_the_ranks_as_mpirun_does_and_a_plain_srun_is_refused";
    let Some(tools) = crate::util::tools::need(
        test,
        &[
            "munged",
            "slurmctld",
            "slurmd",
            "sinfo",
            "srun",
            "sbatch",
            "mpirun",
        ],
    ) else {
        return;
    };
    let slurm = Slurm::start(tools.clone());
    let dir = TempDir::new();
    let iospd = env!("CARGO_BIN_EXE_iospd");
    let args = ["-c8M", "-d2", "-W0", "-b4K", "-o2", "-r", "-w20", "-Rjson"];
    // srun -n4 --mpi=pmix, and mpirun -np 4: the same structure.
    let srun = report(
        &slurm
            .command("srun")
            .args(["-n4", "--mpi=pmix", iospd])
            .args(args)
            .arg(dir.arg("s-{rank}.dat"))
            .output()
            .unwrap(),
    );
    let mpirun = report(
        &tools
            .command("mpirun")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["--oversubscribe", "-np", "4", iospd])
            .args(args)
            .arg(dir.arg("m-{rank}.dat"))
            .output()
            .unwrap(),
    );
    for report in [&srun, &mpirun] {
        let timespan = &report.timespans[0];
        let cluster = timespan.cluster.as_ref().expect("a cluster section");
        assert_eq!(cluster.ranks.len(), 4);
        let measured = timespan.measured.as_ref().unwrap();
        assert_eq!(measured.threads.len(), 4);
        assert_eq!(measured.targets.len(), 4);
        let mut ranks: Vec<u32> = measured
            .threads
            .iter()
            .map(|t| t.host.as_ref().unwrap().rank)
            .collect();
        ranks.sort_unstable();
        assert_eq!(ranks, [0, 1, 2, 3]);
        assert!(cluster.ranks.iter().all(|r| r.ios > 0));
    }
    for rank in 0..4 {
        assert!(dir.join(&format!("s-{rank}.dat")).exists());
    }
    // A plain srun starts 2 singletons: each refuses before any I/O.
    let plain = slurm
        .command("srun")
        .args(["-n2", "--mpi=none", iospd])
        .args(args)
        .arg(dir.arg("p-{rank}.dat"))
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(3), "{}", stderr(&plain));
    assert!(
        stderr(&plain).contains("use srun --mpi=pmix or mpirun"),
        "{}",
        stderr(&plain)
    );
    assert!(!dir.join("p-0.dat").exists() && !dir.join("p-{rank}.dat").exists());
    // One process of a batch script of 4 tasks runs on its own.
    let out = dir.join("batch.json");
    let batch = slurm
        .command("sbatch")
        .args(["--wait", "-n4", "-o"])
        .arg(&out)
        .arg("-e")
        .arg(dir.join("batch.err"))
        .arg(format!(
            "--wrap={iospd} {} {}",
            args.join(" "),
            dir.arg("b.dat")
        ))
        .output()
        .unwrap();
    assert_eq!(batch.status.code(), Some(0), "{}", stderr(&batch));
    let alone: Report = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(alone.timespans[0].cluster.is_none());
    assert!(
        alone.timespans[0]
            .measured
            .as_ref()
            .unwrap()
            .totals
            .total
            .ios
            > 0
    );
}
