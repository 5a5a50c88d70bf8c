//! Whole tournaments driven through the pure API: rounds, elimination,
//! joint winners, resumes and the boards.

mod common;

use common::run_tournament;
use game_gun_duel::{final_table, round_board, Outcome, Round, Tournament};

/// Records every duel of `round` with `decide(a, b)`, in dispatch order.
fn play_round(round: &mut Round, decide: impl Fn(usize, usize) -> Outcome) {
    while let Some(k) = round.next_ready() {
        let id = round.duels()[k];
        round.record(k, decide(id.a, id.b)).expect("first record");
    }
    assert!(round.is_complete());
}

#[test]
fn a_lone_bot_wins_without_a_round_and_no_bots_means_no_winner() {
    let mut t = Tournament::new(1, 100, 5);
    assert!(t.is_over());
    assert_eq!(t.winners(), [0]);
    assert!(t.start_round().is_none());
    assert_eq!(t.standings()[0].rounds_survived, 0);

    let t = Tournament::new(0, 100, 5);
    assert!(t.is_over());
    assert!(t.winners().is_empty());
}

#[test]
fn all_draws_make_joint_winners_after_one_round() {
    let mut t = Tournament::new(3, 4, 11);
    let mut round = t.start_round().expect("first round");
    assert_eq!(round.duels().len(), 4 * 3);
    play_round(&mut round, |_, _| Outcome::Draw);
    let elimination = t.finish_round(round).expect("complete");
    assert!(elimination.joint_winners && elimination.over);
    assert!(elimination.leavers.is_empty());
    assert_eq!(t.winners(), [0, 1, 2]);
    assert!(t
        .standings()
        .iter()
        .all(|s| s.alive && s.rounds_survived == 1 && s.history == [0]));
    assert!(t.start_round().is_none());
}

#[test]
fn bots_tied_on_both_numbers_leave_together() {
    // Bot 0 beats everyone; bots 1 and 2 draw each other: 1 and 2 tie on
    // round points and totals and leave at once, so bot 0 wins.
    let mut t = Tournament::new(3, 5, 1);
    let mut round = t.start_round().expect("first round");
    play_round(&mut round, |a, _| {
        if a == 0 {
            Outcome::AWins
        } else {
            Outcome::Draw
        }
    });
    let elimination = t.finish_round(round).expect("complete");
    assert_eq!(elimination.leavers, [1, 2]);
    assert!(elimination.over && !elimination.joint_winners);
    assert_eq!(t.winners(), [0]);
    let names = ["Zero", "One", "Two"];
    let board = round_board(&t.records(&names, &["-"; 3]));
    assert_eq!(
        board,
        " :: ScoreBoard\n     0 ALIVE     10/    10 1 Zero\n     1 -----      0/     0 0 One\n     2 -----      0/     0 0 Two\n"
    );
}

#[test]
fn a_three_round_tournament_builds_the_boards_and_final_table() {
    // Lower positions always beat higher ones: bot 3 leaves first, then 2, then 1.
    let mut t = Tournament::new(4, 2, 99);
    let names = ["W", "X", "Y", "Z"];
    let languages = ["Rust", "C++", "-", "Python"];
    let mut boards = Vec::new();
    while let Some(mut round) = t.start_round() {
        play_round(&mut round, |_, _| Outcome::AWins);
        let elimination = t.finish_round(round).expect("complete");
        assert_eq!(elimination.leavers.len(), 1);
        boards.push(round_board(&t.records(&names, &languages)));
    }
    assert_eq!(t.rounds_played(), 3);
    assert_eq!(t.winners(), [0]);
    // Round 2: W beats X and Y twice each (4); X beats Y twice (2); Y 0.
    assert_eq!(
        boards[1],
        " :: ScoreBoard\n     0 ALIVE      4/    10 2 W\n     1 ALIVE      2/     6 2 X\n     2 -----      0/     2 1 Y\n     3 -----      0/     0 0 Z\n"
    );
    let expected = "\
| Player                                   | Language   | Points |     1 |     2 |     3 |
|:---------------------------------------- |:---------- | ------:| -----:| -----:| -----:|
| W                                        | Rust       |     12 |     6 |     4 |     2 |
| X                                        | C++        |      6 |     4 |     2 |     0 |
| Y                                        | -          |      2 |     2 |     0 |
| Z                                        | Python     |      0 |     0 |
";
    assert_eq!(final_table(&t.records(&names, &languages)), expected);
}

#[test]
fn finishing_a_round_early_or_recording_twice_is_refused() {
    let mut t = Tournament::new(3, 1, 3);
    let mut round = t.start_round().expect("first round");
    assert!(t.start_round().is_none(), "one round at a time");
    let k = round.next_ready().expect("a duel is ready");
    round.record(k, Outcome::Draw).expect("first record");
    assert!(round.record(k, Outcome::AWins).is_err());
    assert!(round.record(99, Outcome::AWins).is_err());
    let incomplete = round.clone();
    assert!(t.finish_round(incomplete).is_err());
    play_round(&mut round, |_, _| Outcome::BWins);
    assert!(t.finish_round(round).is_ok());
}

#[test]
fn a_resume_replays_recorded_duels_and_ends_the_same() {
    let decide = |a: usize, b: usize| match (a + 2 * b) % 3 {
        0 => Outcome::AWins,
        1 => Outcome::BWins,
        _ => Outcome::Draw,
    };
    let finish = |t: &mut Tournament| {
        while let Some(mut round) = t.start_round() {
            play_round(&mut round, decide);
            t.finish_round(round).expect("complete");
        }
    };
    let mut whole = Tournament::new(5, 3, 77);
    finish(&mut whole);

    // Interrupted in round 1 after some duels; the new run records them
    // back (by identity, in any order) and plays the rest.
    let mut first = Tournament::new(5, 3, 77);
    let mut round = first.start_round().expect("round 1");
    let mut recorded = Vec::new();
    for _ in 0..4 {
        let k = round.next_ready().expect("ready");
        let id = round.duels()[k];
        round.record(k, decide(id.a, id.b)).expect("first record");
        recorded.push((id, decide(id.a, id.b)));
    }
    let mut resumed = Tournament::new(5, 3, 77);
    assert_eq!(resumed.ids(), whole.ids());
    let mut round = resumed.start_round().expect("round 1");
    for (id, outcome) in recorded.into_iter().rev() {
        let k = round.position(&id).expect("same schedule");
        round.record(k, outcome).expect("first record");
    }
    play_round(&mut round, decide);
    resumed.finish_round(round).expect("complete");
    finish(&mut resumed);
    assert_eq!(resumed.standings(), whole.standings());
    assert_eq!(resumed.winners(), whole.winners());
}

#[test]
fn fake_bots_play_a_whole_tournament_over_both_interfaces() {
    let run = run_tournament(5, 3, 40, 2024, 1, |_| 0);
    assert!(!run.winners.is_empty());
    // Each round plays every live pair once per pass.
    let rounds = run
        .results
        .iter()
        .map(|(id, _)| id.round)
        .max()
        .expect("a round");
    for r in 1..=rounds {
        let in_round = run.results.iter().filter(|(id, _)| id.round == r).count();
        let live = run
            .standings
            .iter()
            .filter(|s| s.history.len() >= r as usize)
            .count();
        assert_eq!(in_round, 3 * live * (live - 1) / 2, "round {r}");
    }
    // Points add up to the wins recorded.
    let wins = run
        .results
        .iter()
        .filter(|(_, r)| r.outcome.winner().is_some())
        .count() as u64;
    assert_eq!(run.standings.iter().map(|s| s.total).sum::<u64>(), wins);
    assert!(run
        .results
        .iter()
        .all(|(_, r)| r.turns >= 1 && r.turns <= 40));
}
