//! How a runner drives a game: requests, replies, faults, cancellation.

mod common;

use common::{bot, credits, play, tournament, Bots, Script};
use game_core::{Ending, Fault, Reply};
use game_heist::{AnswerError, Round, Tournament};

#[test]
fn failed_calls_cost_what_the_contract_says() {
    let mut t = tournament(&["A", "B", "C"]);
    let [a, b, c] = ["A", "B", "C"].map(|n| bot(&t, n));
    let mut script = Script {
        heist: [(a, 0.9), (b, 0.9)].into_iter().collect(),
        ..Script::default()
    };
    let mut bots = Bots::new()
        // A bets, then crashes while answering "back out": it goes along and
        // its bet stays at stake.
        .reply("A", 1, Reply::exited(b"50\n".to_vec(), 0))
        .reply("A", 2, Reply::exited(b"back out\n".to_vec(), 1))
        // B bets, then times out.
        .reply("B", 1, Reply::exited(b"30".to_vec(), 0))
        .reply("B", 2, Reply::ended(Vec::new(), Ending::TimedOut))
        // C prints garbage in round 1: a zero bet, never asked again.
        .reply("C", 1, Reply::exited(b"lots".to_vec(), 0));
    let report = play(&mut t, &mut script, &mut bots);
    let _ = c;

    assert_eq!(credits(&t, "A"), 240 - 50 + 240);
    assert_eq!(credits(&t, "B"), 240 - 30 + 240);
    assert_eq!(credits(&t, "C"), 480);
    assert_eq!(report.bots[0].faults.get(Fault::Crash), 1);
    assert_eq!(report.bots[1].faults.get(Fault::Timeout), 1);
    assert_eq!(report.bots[2].faults.get(Fault::BadOutput), 1);
    assert_eq!(report.bots[2].faults.total(), 1);
    let block = report.log_block(t.names());
    assert!(
        block.contains("\nA decided to (crash).\nB decided to (timeout).\n"),
        "{block}"
    );
    assert!(block.contains("\nC bet 0.\n"), "{block}");
    assert!(
        block.contains("\nA failed. :(\nB failed. :(\nResults:\n"),
        "{block}"
    );
}

#[test]
fn cancelled_reply_is_refused_and_abandoning_changes_nothing() {
    let mut t = tournament(&["A", "B"]);
    let before = t.clone();
    {
        let mut game = t.start_game(Script::default());
        let first = game.request().cloned().expect("A is asked");
        assert_eq!(first.round, Round::Stakes);
        assert_eq!(
            game.answer(&Reply::ended(Vec::new(), Ending::Cancelled)),
            Err(AnswerError::Cancelled)
        );
        // Still waiting for the same decision.
        assert_eq!(game.request(), Some(&first));
        game.answer(&Reply::exited(b"10".to_vec(), 0))
            .expect("accepted");
        assert_eq!(game.request().map(|r| r.bot), Some(1));
        // Dropped here, mid-game.
    }
    assert_eq!(t, before);
}

#[test]
fn finish_and_answer_out_of_turn_are_refused() {
    let mut t = tournament(&["A"]);
    let game = t.start_game(Script::default());
    assert!(game.finish().is_err());

    let mut game = t.start_game(Script::default());
    game.answer(&Reply::exited(b"0".to_vec(), 0))
        .expect("round 1");
    assert!(
        game.request().is_none(),
        "a non-heister is not asked in round 2"
    );
    assert_eq!(
        game.answer(&Reply::exited(b"0".to_vec(), 0)),
        Err(AnswerError::NotWaiting)
    );
    let report = game.finish().expect("ready");
    assert_eq!(report.bots[0].credits, 480);
    assert_eq!(t.next_game(), 1);
}

#[test]
fn requests_carry_the_running_totals() {
    let mut t = tournament(&["A", "B", "C"]);
    let [a, b, c] = ["A", "B", "C"].map(|n| bot(&t, n));
    let mut script = Script {
        round2: vec![b, c, a],
        heist: [(a, 0.9), (c, 0.9)].into_iter().collect(),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 150_000, "guncheck")
        .plays("B", 7, "back out")
        .plays("C", 500, "all in");
    t.player_mut(0).expect("A").credits = 200_000;
    play(&mut t, &mut script, &mut bots);
    let lines: Vec<String> = bots
        .requests
        .iter()
        .map(|r| r.args.to_argv()[..10].join(" "))
        .collect();
    assert_eq!(
        lines,
        vec![
            "0 1 3 0 0 0 0 0 200000 0",
            // One heister with 150000 invested: bank(1, 150000) = 0.
            "0 1 3 1 1 150000 0 0 240 0",
            "0 1 3 2 2 150007 0 0 240 0",
            // The bet of 500 is clamped to C's 240 credits.
            "0 2 3 0 3 150247 0 0 240 7",
            "0 2 3 1 3 150247 0 0 240 240",
            "0 2 3 2 3 150247 1 0 200000 150000",
        ]
    );
}

#[test]
fn names_are_checked() {
    assert!(Tournament::new(vec![], 0, 1).is_err());
    assert!(Tournament::new(vec!["a b".into()], 0, 1).is_err());
    assert!(Tournament::new(vec!["a".into(), "a".into()], 0, 1).is_err());
    assert!(Tournament::new(vec!["".into()], 0, 1).is_err());
    assert!(Tournament::new(vec!["line\nbreak".into()], 0, 1).is_err());
    assert!(Tournament::new(vec!["OC'sRandomTpyos".into()], 0, 1).is_ok());
}
