//! The agreements between ranks, with ranks as threads of this process joined by channels: what
//! every rank hears at each point, whose refusal is named, how a stop spreads and how a rank that
//! stops answering ends the run instead of hanging it.

use std::time::{Duration, Instant};

use super::Cluster;
use super::link::local::links;
use crate::run::{Peers, Refusal};

/// Runs `body` on `ranks` ranks, each on its own thread with its own `Cluster`, and returns what
/// each returned (a panic, such as the local link's abort, as `Err` with its message).
fn on_ranks<T: Send + 'static>(
    ranks: u32,
    timeout: Duration,
    body: impl Fn(&Cluster) -> T + Send + Sync + Clone + 'static,
) -> Vec<Result<T, String>> {
    let threads: Vec<_> = links(ranks)
        .into_iter()
        .enumerate()
        .map(|(rank, link)| {
            let body = body.clone();
            std::thread::spawn(move || {
                let cluster = Cluster::with(Some(Box::new(link)), rank as u32, ranks);
                cluster.state.borrow_mut().timeout = timeout;
                body(&cluster)
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|t| {
            t.join().map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            })
        })
        .collect()
}

const PATIENT: Duration = Duration::from_secs(30);

fn refusal(message: &str) -> Refusal {
    Refusal {
        code: crate::EXIT_BAD_INPUT,
        message: message.into(),
    }
}

#[test]
fn every_rank_agrees_on_one_start_and_rank_0_learns_every_clock() {
    let answers = on_ranks(3, PATIENT, |cluster| {
        cluster.checked(Ok(())).unwrap();
        let start = cluster.ready(Ok(())).unwrap();
        let stopped = cluster.done(Ok(false)).unwrap();
        let clocks = cluster.state.borrow().clocks.clone();
        (start, stopped, clocks)
    });
    let wall: Vec<_> = answers
        .iter()
        .map(|a| a.as_ref().unwrap().0.wall.unwrap())
        .collect();
    assert!(wall.windows(2).all(|w| w[0] == w[1]), "{wall:?}");
    for answer in &answers {
        let (start, stopped, _) = answer.as_ref().unwrap();
        assert!(start.at.is_some());
        assert!(!stopped);
    }
    // Rank 0 measured every rank before and after; the ranks share one clock here.
    let clocks = &answers[0].as_ref().unwrap().2;
    assert_eq!(clocks.len(), 1);
    assert_eq!(clocks[0].len(), 3);
    for clock in &clocks[0][1..] {
        assert!(
            clock.offset_ns.unsigned_abs() <= clock.uncertainty_ns.max(1),
            "{clock:?}"
        );
    }
}

#[test]
fn a_refusal_on_one_rank_refuses_every_rank_and_names_it() {
    let answers = on_ranks(3, PATIENT, |cluster| {
        let mine = if cluster.whoami().rank == 2 {
            Err(refusal("cannot create /mnt/x/t-2.dat"))
        } else {
            Ok(())
        };
        cluster.checked(mine)
    });
    for answer in answers {
        let refused = answer.unwrap().unwrap_err();
        assert_eq!(refused.code, crate::EXIT_BAD_INPUT);
        assert!(
            refused.message.starts_with("rank 2 ("),
            "{}",
            refused.message
        );
        assert!(refused.message.contains("cannot create /mnt/x/t-2.dat"));
    }
}

#[test]
fn the_same_refusal_everywhere_is_said_once() {
    let answers = on_ranks(2, PATIENT, |cluster| {
        cluster.checked(Err(refusal("-b0 is not a block size")))
    });
    for answer in answers {
        assert_eq!(
            answer.unwrap().unwrap_err().message,
            "-b0 is not a block size"
        );
    }
}

#[test]
fn two_ranks_of_one_machine_may_not_write_one_path() {
    let answers = on_ranks(3, PATIENT, |cluster| {
        let rank = cluster.whoami().rank;
        // Ranks 1 and 2 name one file by two paths.
        let (path, file) = match rank {
            0 => ("/mnt/own.dat", "inode 1:2"),
            1 => ("/mnt/shared.dat", "inode 1:3"),
            _ => ("/mnt/d2/../shared.dat", "inode 1:3"),
        };
        cluster.state.borrow_mut().claims = vec![super::claims::FileClaim {
            path: path.into(),
            file: file.into(),
        }];
        cluster.checked(Ok(()))
    });
    for answer in answers {
        let refused = answer.unwrap().unwrap_err();
        assert!(
            refused.message.starts_with("ranks 1 and 2 both run on"),
            "{}",
            refused.message
        );
        assert!(refused.message.contains("{rank}"));
    }
}

#[test]
fn a_stop_on_one_rank_reaches_every_rank() {
    let answers = on_ranks(3, PATIENT, |cluster| {
        cluster.checked(Ok(())).unwrap();
        cluster.ready(Ok(())).unwrap();
        let me = cluster.whoami().rank;
        let stopped_here = me == 1;
        let deadline = Instant::now() + PATIENT;
        let mut heard = false;
        while Instant::now() < deadline {
            heard = cluster.poll(stopped_here);
            if heard || stopped_here {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        // The stopping rank waits a little, so the others can hear before the end.
        let ended = cluster.done(Ok(stopped_here || heard)).unwrap();
        (heard, ended, cluster.state.borrow().stopped_by_peer)
    });
    for (rank, answer) in answers.into_iter().enumerate() {
        let (heard, ended, by_peer) = answer.unwrap();
        assert!(
            ended,
            "rank {rank} did not learn the timespan was cut short"
        );
        if rank != 1 {
            assert!(heard, "rank {rank} did not hear the stop");
            assert!(by_peer || rank == 0, "rank {rank}");
        }
    }
}

#[test]
fn a_rank_that_never_answers_ends_the_run_within_the_timeout() {
    let began = Instant::now();
    let answers = on_ranks(3, Duration::from_millis(300), |cluster| {
        if cluster.whoami().rank == 2 {
            // Stuck before its checks; it keeps its end of the link open past the others'.
            std::thread::sleep(Duration::from_secs(2));
            return Ok(());
        }
        cluster.checked(Ok(()))
    });
    assert!(began.elapsed() < Duration::from_secs(20));
    let aborted = answers[0].as_ref().unwrap_err();
    assert!(
        aborted.contains("aborted the run with status 1"),
        "{aborted}"
    );
}

#[test]
fn rank_0_saves_its_own_results_before_it_gives_up_on_a_rank() {
    let answers = on_ranks(3, Duration::from_millis(300), |cluster| {
        let said = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let heard = said.clone();
        cluster.last_words(Box::new(move |so_far, why, giving_up| {
            heard
                .borrow_mut()
                .push((so_far.timespans.len(), why.to_string(), giving_up));
        }));
        cluster.checked(Ok(())).unwrap();
        cluster.ready(Ok(())).unwrap();
        if cluster.whoami().rank == 2 {
            // Dies mid-run: never says it finished.
            std::thread::sleep(Duration::from_secs(2));
            return Vec::new();
        }
        cluster.keep(&|| crate::stats::RunResults {
            timespans: Vec::new(),
            aborted: None,
            unsaved: None,
        });
        // The local link's abort unwinds: what was said is read in the unwind's stead.
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cluster.done(Ok(false))));
        assert!(outcome.is_err() || cluster.whoami().rank != 0);
        said.borrow().clone()
    });
    let said = answers[0].as_ref().unwrap();
    assert_eq!(said.len(), 1, "{said:?}");
    let (_, why, giving_up) = &said[0];
    assert!(giving_up);
    assert!(why.contains("did not finish timespan"), "{why}");
    assert!(why.contains("rank 2"), "{why}");
    assert!(why.contains("rank 0's own results only"), "{why}");
    // The other ranks have no last words to say.
    assert!(answers[1].as_ref().map_or(true, |s| s.is_empty()));
}
