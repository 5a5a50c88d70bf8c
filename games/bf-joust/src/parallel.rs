//! Plays many independent matches on worker threads (plain `std::thread`).
//!
//! Results come back to the calling thread, in completion order, tagged
//! with the match's index, so the caller can record each one as it arrives.
//! Each result is a pure function of its match, so neither the number of
//! threads nor the order of completion changes any result.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::arena::{self, MatchResult, MatchSpec, NoObserver, Polarity, Scratch};
use crate::program::Program;
use crate::tournament::{PlannedMatch, PlannedPairing};

/// Matches a worker claims at once: enough to make the shared counter and
/// the channel negligible (a match is microseconds), few enough to balance.
const CHUNK: usize = 16;

/// Plays every match of `plan` on `threads` threads in all (0 means one),
/// calling `on_result(index_in_plan, result)` on this thread as matches
/// finish. `programs[i]` is the program of entry `i`; it must be `Some` for
/// every entry the plan uses.
///
/// The calling thread is one of the workers: between two chunks of its own
/// it hands on the results the others sent, so no thread sits waiting on a
/// channel while there is work left.
///
/// # Panics
/// If the plan refers to an entry without a program, or to a tape length
/// outside 10..=30; both are the caller's mistakes, never a bot's.
pub fn run_plan(
    programs: &[Option<&Program>],
    plan: &[PlannedMatch],
    cycles: u64,
    threads: usize,
    on_result: impl FnMut(usize, MatchResult),
) {
    run_plan_until(programs, plan, cycles, threads, || false, on_result);
}

/// [`run_plan`] that stops early: every worker asks `stop()` before it
/// claims the next few matches, and claims nothing more once it answers
/// true. Matches already claimed are finished and reported, so every
/// reported result is complete; the unreported ones were never started.
///
/// # Panics
/// As [`run_plan`].
pub fn run_plan_until(
    programs: &[Option<&Program>],
    plan: &[PlannedMatch],
    cycles: u64,
    threads: usize,
    stop: impl Fn() -> bool + Sync,
    mut on_result: impl FnMut(usize, MatchResult),
) {
    let threads = threads.clamp(1, plan.len().div_ceil(CHUNK).max(1));
    let next = AtomicUsize::new(0);
    // Plays the next unclaimed chunk; `None` once the plan is exhausted or
    // `stop` says so.
    let play_chunk = |scratch: &mut Scratch| -> Option<Vec<(usize, MatchResult)>> {
        if stop() {
            return None;
        }
        let start = next.fetch_add(CHUNK, Ordering::Relaxed);
        if start >= plan.len() {
            return None;
        }
        let end = (start + CHUNK).min(plan.len());
        let program = |i: usize| programs[i].expect("the plan only uses valid entries");
        Some(
            (start..end)
                .map(|i| {
                    let m = &plan[i];
                    let result = arena::run_match_with(
                        program(m.left),
                        program(m.right),
                        m.tape_len,
                        cycles,
                        scratch,
                        &mut NoObserver,
                    );
                    (i, result)
                })
                .collect(),
        )
    };
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Vec<(usize, MatchResult)>>();
        for _ in 1..threads {
            let tx = tx.clone();
            let play_chunk = &play_chunk;
            scope.spawn(move || {
                let mut scratch = Scratch::default();
                while let Some(batch) = play_chunk(&mut scratch) {
                    if tx.send(batch).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut scratch = Scratch::default();
        while let Some(batch) = play_chunk(&mut scratch) {
            for (i, result) in batch.into_iter().chain(rx.try_iter().flatten()) {
                on_result(i, result);
            }
        }
        for (i, result) in rx.into_iter().flatten() {
            on_result(i, result);
        }
    });
}

/// Plays every match of each pairing of `plan`, in each of `polarities`,
/// on `threads` threads in all (0 means one), and calls
/// `on_pairing(index_in_plan, results)` on this thread as pairings finish.
/// `results` is polarity-major: the match of polarity `p` and index `k` is
/// at `p * lengths.len() + k`. A worker claims one pairing at a time and
/// stops claiming once `stop()` answers true; every reported pairing is
/// complete.
///
/// # Panics
/// As [`run_plan`].
pub fn run_pairings_until(
    programs: &[Option<&Program>],
    plan: &[PlannedPairing],
    cycles: u64,
    polarities: &[Polarity],
    threads: usize,
    stop: impl Fn() -> bool + Sync,
    mut on_pairing: impl FnMut(usize, Vec<MatchResult>),
) {
    let threads = threads.clamp(1, plan.len().max(1));
    let next = AtomicUsize::new(0);
    let play_pairing = |scratch: &mut Scratch| -> Option<(usize, Vec<MatchResult>)> {
        if stop() {
            return None;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        let pairing = plan.get(i)?;
        let program = |i: usize| programs[i].expect("the plan only uses valid entries");
        let (left, right) = (program(pairing.left), program(pairing.right));
        let mut results = Vec::with_capacity(pairing.lengths.len() * polarities.len());
        for &polarity in polarities {
            for &len in &pairing.lengths {
                let spec = MatchSpec {
                    tape_len: usize::from(len),
                    cycles,
                    polarity,
                };
                results.push(arena::run_match_spec_with(
                    left,
                    right,
                    spec,
                    scratch,
                    &mut NoObserver,
                ));
            }
        }
        Some((i, results))
    };
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Vec<MatchResult>)>();
        for _ in 1..threads {
            let tx = tx.clone();
            let play_pairing = &play_pairing;
            scope.spawn(move || {
                let mut scratch = Scratch::default();
                while let Some(done) = play_pairing(&mut scratch) {
                    if tx.send(done).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut scratch = Scratch::default();
        while let Some((i, results)) = play_pairing(&mut scratch) {
            on_pairing(i, results);
            for (i, results) in rx.try_iter() {
                on_pairing(i, results);
            }
        }
        for (i, results) in rx {
            on_pairing(i, results);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{plan_matches, Entry};
    use crate::Settings;

    #[test]
    fn every_match_is_reported_once_with_the_same_result_for_any_thread_count() {
        let sources = [
            "(>)*9([-]>)*21",
            ">(+)*20(>)*8([+]>)*21",
            "(-+)*300",
            "",
            "<",
        ];
        let programs: Vec<Program> = sources
            .iter()
            .map(|s| Program::parse(s.as_bytes()).expect("valid"))
            .collect();
        let refs: Vec<Option<&Program>> = programs.iter().map(Some).collect();
        let entries: Vec<Entry> = (0..sources.len())
            .map(|i| Entry {
                name: format!("b{i}"),
                owner: "-".into(),
                invalid: None,
            })
            .collect();
        let settings = Settings::from_pairs(&[("tape-lengths", "all")]).expect("valid");
        let plan = plan_matches(&settings, &entries, 3);
        let run = |threads: usize| {
            let mut results = vec![None; plan.len()];
            run_plan(&refs, &plan, 10_000, threads, |i, r| {
                assert!(results[i].replace(r).is_none(), "match {i} reported twice");
            });
            results
        };
        let one = run(1);
        assert!(one.iter().all(Option::is_some));
        assert_eq!(one, run(2));
        assert_eq!(one, run(7));
        for (m, r) in plan.iter().zip(&one) {
            let direct =
                arena::run_match(&programs[m.left], &programs[m.right], m.tape_len, 10_000);
            assert_eq!(Some(direct), *r);
        }
    }

    #[test]
    fn a_stop_request_ends_the_run_with_only_whole_matches_reported() {
        let programs: Vec<Program> = ["(>)*9([-]>)*21", "(-+)*300", ""]
            .iter()
            .map(|s| Program::parse(s.as_bytes()).expect("valid"))
            .collect();
        let refs: Vec<Option<&Program>> = programs.iter().map(Some).collect();
        let entries: Vec<Entry> = (0..programs.len())
            .map(|i| Entry {
                name: format!("b{i}"),
                owner: "-".into(),
                invalid: None,
            })
            .collect();
        let settings = Settings::from_pairs(&[("matches-per-pairing", "1000")]).expect("valid");
        let plan = plan_matches(&settings, &entries, 1);
        for threads in [1, 2] {
            let stop = std::sync::atomic::AtomicBool::new(false);
            let mut reported = Vec::new();
            run_plan_until(
                &refs,
                &plan,
                10_000,
                threads,
                || stop.load(Ordering::Relaxed),
                |i, r| {
                    let m = &plan[i];
                    let direct =
                        arena::run_match(&programs[m.left], &programs[m.right], m.tape_len, 10_000);
                    assert_eq!(r, direct);
                    reported.push(i);
                    if reported.len() == 20 {
                        stop.store(true, Ordering::Relaxed);
                    }
                },
            );
            assert!(reported.len() >= 20, "{threads} threads");
            assert!(
                reported.len() < plan.len(),
                "{threads} threads: stopped early ({} of {})",
                reported.len(),
                plan.len()
            );
            let count = reported.len();
            reported.sort_unstable();
            reported.dedup();
            assert_eq!(reported.len(), count, "a match reported twice");
        }
    }

    #[test]
    fn pairings_report_every_match_in_each_polarity_for_any_thread_count() {
        let sources = [
            "(>)*9([-]>)*21",
            ">(+)*20(>)*8([+]>)*21",
            "(-+)*300",
            "",
            "<",
        ];
        let programs: Vec<Program> = sources
            .iter()
            .map(|s| Program::parse(s.as_bytes()).expect("valid"))
            .collect();
        let refs: Vec<Option<&Program>> = programs.iter().map(Some).collect();
        let entries: Vec<Entry> = (0..sources.len())
            .map(|i| Entry {
                name: format!("b{i}"),
                owner: "-".into(),
                invalid: None,
            })
            .collect();
        let settings = Settings::from_pairs(&[("matches-per-pairing", "3")]).expect("valid");
        let plan = crate::tournament::plan_pairings(&settings, &entries, 3);
        let both = [Polarity::Normal, Polarity::Inverted];
        let run = |threads: usize| {
            let mut results = vec![None; plan.len()];
            run_pairings_until(
                &refs,
                &plan,
                10_000,
                &both,
                threads,
                || false,
                |i, r| {
                    assert!(
                        results[i].replace(r).is_none(),
                        "pairing {i} reported twice"
                    );
                },
            );
            results
        };
        let one = run(1);
        assert_eq!(one, run(3));
        for (p, r) in plan.iter().zip(&one) {
            let r = r.as_ref().expect("reported");
            assert_eq!(r.len(), 6);
            for (i, &polarity) in both.iter().enumerate() {
                for (k, &len) in p.lengths.iter().enumerate() {
                    let spec = MatchSpec {
                        tape_len: usize::from(len),
                        cycles: 10_000,
                        polarity,
                    };
                    let direct = arena::run_match_spec(&programs[p.left], &programs[p.right], spec);
                    assert_eq!(r[i * 3 + k], direct);
                }
            }
        }
    }
}
