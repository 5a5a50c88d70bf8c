//! Property tests: the state machine against a direct, loop-shaped reading
//! of section 2; invariants of scores and results; termination; determinism
//! given the seed; and the wire codec on arbitrary input.

use game_core::{rng, LineReply};
use game_forty::dice::Dice;
use game_forty::wire::{self, OutOfStep, ProcessFate};
use game_forty::{
    plan_game, Decision, Failure, Game, Next, Observer, Outcome, Phase, TurnRecord, END_SCORE,
    ROUND_LIMIT,
};
use proptest::prelude::*;

/// A deterministic strategy for one seat, with optional periodic failures.
#[derive(Debug, Clone, Copy)]
struct Policy {
    /// Throw while the turn's sum is below this (outside a chase).
    threshold: u32,
    /// In the last round, throw until ahead of the snapshot's best score.
    chase: bool,
    /// Every n-th decision of the seat fails with this kind.
    fail_every: Option<(u32, Failure)>,
}

impl Policy {
    fn decide(
        &self,
        seat: usize,
        throws: &[u8],
        snapshot: &[u32],
        flag: bool,
        asked: u32,
    ) -> Decision {
        if let Some((n, failure)) = self.fail_every {
            if asked % n == n - 1 {
                return Decision::Failed(failure);
            }
        }
        let sum: u32 = throws.iter().map(|&d| u32::from(d)).sum();
        let target = if self.chase && flag {
            let best = snapshot.iter().copied().max().unwrap_or(0);
            (best + 1).saturating_sub(snapshot[seat])
        } else {
            self.threshold
        };
        if sum < target {
            Decision::Throw
        } else {
            Decision::Stop
        }
    }
}

fn failure() -> impl Strategy<Value = Failure> {
    prop_oneof![
        Just(Failure::Timeout),
        Just(Failure::Error),
        Just(Failure::Malformed),
        Just(Failure::Crash),
        Just(Failure::Lost),
    ]
}

fn policy() -> impl Strategy<Value = Policy> {
    (
        // 1000: never stops by choice, so such seats never bank.
        prop_oneof![0u32..30, Just(1000)],
        any::<bool>(),
        proptest::option::weighted(0.3, (1u32..6, failure())),
    )
        .prop_map(|(threshold, chase, fail_every)| Policy {
            threshold,
            chase,
            fail_every,
        })
}

fn policies() -> impl Strategy<Value = Vec<Policy>> {
    proptest::collection::vec(policy(), 1..=8)
}

/// One turn, in a form both models produce.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Turn {
    phase: Phase,
    seat: usize,
    flag: bool,
    dice: Vec<u8>,
    decisions: Vec<Decision>,
    outcome: Outcome,
    before: u32,
    score: u32,
}

#[derive(Default)]
struct Recorder {
    turns: Vec<Turn>,
}

impl Observer for Recorder {
    fn turn(&mut self, t: &TurnRecord<'_>) {
        self.turns.push(Turn {
            phase: t.phase,
            seat: t.seat,
            flag: t.last_round,
            dice: t.dice.to_vec(),
            decisions: t.decisions.to_vec(),
            outcome: t.outcome,
            before: t.score_before,
            score: t.score,
        });
    }
}

struct Run {
    turns: Vec<Turn>,
    game: Game,
    asks: u64,
}

/// Plays the state machine, checking every ask line on the way.
fn run_machine(seed: u64, policies: &[Policy]) -> Run {
    let mut game = Game::new(policies.len(), Dice::seeded(rng(seed))).unwrap();
    let mut rec = Recorder::default();
    let mut asked = vec![0u32; policies.len()];
    let mut buf = Vec::new();
    let mut asks = 0u64;
    while let Next::Ask { seat } = game.advance(&mut rec) {
        asks += 1;
        assert!(asks < 5_000_000, "the game does not end");
        // The line a bot would get shows the turn's throws (no 6, exactly
        // one on a first decision) and the snapshot.
        buf.clear();
        game.write_ask(7, &mut buf);
        let line = String::from_utf8(buf.clone()).unwrap();
        let fields: Vec<&str> = line.trim_end().split(' ').collect();
        assert_eq!(fields[..2], ["ask", "7"]);
        assert_eq!(fields[2], if game.last_round() { "1" } else { "0" });
        let throws: Vec<u8> = fields[3].split(',').map(|d| d.parse().unwrap()).collect();
        assert_eq!(throws, game.current_throws());
        assert!(throws.iter().all(|&d| (1..=5).contains(&d)));
        assert_eq!(game.first_decision(), throws.len() == 1);
        let scores: Vec<u32> = fields[4].split(',').map(|s| s.parse().unwrap()).collect();
        assert_eq!(scores, game.snapshot());

        let d = policies[seat].decide(seat, &throws, &scores, game.last_round(), asked[seat]);
        asked[seat] += 1;
        game.answer(d).unwrap();
        assert!(game.answer(d).is_err(), "a second answer must be refused");
    }
    Run {
        turns: rec.turns,
        game,
        asks,
    }
}

/// Section 2 read as the original controller's loop: passes while the flag
/// is false, the round counter after each pass, then the final turns.
struct Reference {
    turns: Vec<Turn>,
    scores: Vec<u32>,
    rounds: u32,
    round_limit: bool,
}

fn run_reference(seed: u64, policies: &[Policy]) -> Reference {
    let k = policies.len();
    let mut dice = Dice::seeded(rng(seed));
    let mut scores = vec![0u32; k];
    let mut asked = vec![0u32; k];
    let mut turns = Vec::new();
    let mut last_round = false;
    let mut initiator = k;
    let mut rounds = 0;
    let mut round_limit = false;

    let mut play_turn = |seat: usize, flag: bool, phase: Phase, scores: &mut Vec<u32>| {
        let snapshot = scores.clone();
        let mut thrown = vec![dice.roll()];
        let mut decisions = Vec::new();
        let mut outcome = None;
        if thrown[0] != 6 {
            loop {
                let d = policies[seat].decide(seat, &thrown, &snapshot, flag, asked[seat]);
                asked[seat] += 1;
                if d != Decision::Failed(Failure::Lost) {
                    decisions.push(d);
                }
                match d {
                    Decision::Throw => {
                        thrown.push(dice.roll());
                        if thrown.last() == Some(&6) {
                            break;
                        }
                    }
                    Decision::Stop => {
                        outcome = Some(Outcome::Bank);
                        break;
                    }
                    Decision::Failed(f) => {
                        outcome = Some(Outcome::Failed(f));
                        break;
                    }
                }
            }
        }
        let before = scores[seat];
        let total: u32 = thrown.iter().map(|&d| u32::from(d)).sum();
        let outcome = outcome.unwrap_or_else(|| {
            if before + total - 6 >= END_SCORE {
                Outcome::Bust
            } else {
                Outcome::Six
            }
        });
        scores[seat] = match outcome {
            Outcome::Bank => before + total,
            Outcome::Bust => 0,
            _ => before,
        };
        turns.push(Turn {
            phase,
            seat,
            flag,
            dice: thrown,
            decisions,
            outcome,
            before,
            score: scores[seat],
        });
    };

    while !last_round {
        for seat in 0..k {
            play_turn(seat, last_round, Phase::Pass(rounds + 1), &mut scores);
            if !last_round && scores[seat] >= END_SCORE {
                last_round = true;
                initiator = seat;
            }
        }
        rounds += 1;
        if rounds == ROUND_LIMIT {
            last_round = true;
            initiator = k;
            round_limit = true;
        }
    }
    for seat in 0..initiator {
        play_turn(seat, true, Phase::Final, &mut scores);
    }
    Reference {
        turns,
        scores,
        rounds,
        round_limit,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_machine_matches_the_reference_loop(seed in any::<u64>(), policies in policies()) {
        let run = run_machine(seed, &policies);
        let reference = run_reference(seed, &policies);
        prop_assert_eq!(&run.turns, &reference.turns);
        let result = run.game.result().unwrap();
        prop_assert_eq!(&result.scores, &reference.scores);
        prop_assert_eq!(result.rounds, reference.rounds);
        prop_assert_eq!(result.round_limit, reference.round_limit);
    }

    #[test]
    fn scores_and_results_obey_the_rules(seed in any::<u64>(), policies in policies()) {
        let run = run_machine(seed, &policies);
        let k = policies.len();
        let mut scores = vec![0u32; k];
        for t in &run.turns {
            prop_assert_eq!(t.before, scores[t.seat]);
            let sum: u32 = t.dice.iter().map(|&d| u32::from(d)).sum();
            let sixes = t.dice.iter().filter(|&&d| d == 6).count();
            match t.outcome {
                Outcome::Bank => {
                    prop_assert_eq!(sixes, 0);
                    prop_assert_eq!(t.score, t.before + sum);
                    prop_assert_eq!(t.decisions.last(), Some(&Decision::Stop));
                }
                Outcome::Six | Outcome::Bust => {
                    prop_assert_eq!(sixes, 1);
                    prop_assert_eq!(t.dice.last(), Some(&6));
                    let busted = t.before + sum - 6 >= END_SCORE;
                    prop_assert_eq!(t.outcome == Outcome::Bust, busted);
                    prop_assert_eq!(t.score, if busted { 0 } else { t.before });
                }
                Outcome::Failed(_) => {
                    prop_assert_eq!(sixes, 0);
                    prop_assert_eq!(t.score, t.before);
                }
            }
            // One decision per die after the first, plus the closing one.
            let closing = usize::from(match t.outcome {
                Outcome::Bank => true,
                Outcome::Failed(f) => f != Failure::Lost,
                Outcome::Six | Outcome::Bust => false,
            });
            let first_six = t.dice == [6];
            prop_assert_eq!(t.decisions.len(), if first_six { 0 } else { t.dice.len() - 1 + closing });
            scores[t.seat] = t.score;
        }
        let result = run.game.result().unwrap();
        prop_assert_eq!(&result.scores, &scores);
        let best = *scores.iter().max().unwrap();
        prop_assert_eq!(result.best, best);
        let winners: Vec<usize> = (0..k).filter(|&s| scores[s] == best).collect();
        prop_assert_eq!(&result.winners, &winners);
        prop_assert_eq!(result.tied, winners.len() > 1);
        prop_assert!(result.rounds >= 1 && result.rounds <= ROUND_LIMIT);
        prop_assert_eq!(result.round_limit, result.rounds == ROUND_LIMIT);

        // Every seat plays once per pass; final turns go to the seats
        // before the initiator (all of them at the round limit).
        let passes = result.rounds as usize;
        let finals = run.turns.len() - passes * k;
        prop_assert!(finals <= k);
        if result.round_limit {
            prop_assert_eq!(finals, k);
        }
        for (seat, tally) in run.game.tallies().iter().enumerate() {
            let mine: Vec<&Turn> = run.turns.iter().filter(|t| t.seat == seat).collect();
            prop_assert_eq!(tally.turns, mine.len() as u64);
            prop_assert_eq!(tally.throws, mine.iter().map(|t| t.dice.len() as u64).sum::<u64>());
            prop_assert_eq!(tally.successes, mine.iter().filter(|t| t.outcome == Outcome::Bank).count() as u64);
            let failed = tally.timeouts + tally.errors + tally.malformed + tally.crash_turns + tally.lost_turns;
            prop_assert_eq!(failed, mine.iter().filter(|t| matches!(t.outcome, Outcome::Failed(_))).count() as u64);
        }
        prop_assert!(run.asks <= run.turns.iter().map(|t| t.dice.len() as u64).sum::<u64>());
    }

    #[test]
    fn same_seed_same_game(seed in any::<u64>(), policies in policies()) {
        let a = run_machine(seed, &policies);
        let b = run_machine(seed, &policies);
        prop_assert_eq!(a.turns, b.turns);
        prop_assert_eq!(a.game.result(), b.game.result());
    }

    #[test]
    fn tournament_games_are_determined_by_seed_index_and_list(
        seed in any::<u64>(),
        index in 0u64..1_000_000_000,
        bots in 2usize..60,
        per_game in 2usize..10,
    ) {
        let eligible: Vec<usize> = (0..bots).map(|b| b * 3 + 1).collect();
        let mut a = plan_game(seed, index, &eligible, per_game).unwrap();
        let mut b = plan_game(seed, index, &eligible, per_game).unwrap();
        prop_assert_eq!(&a.seating, &b.seating);
        let mut sorted = a.seating.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), a.seating.len());
        prop_assert!(a.seating.iter().all(|s| eligible.contains(s)));
        // Stopping bots: the dice alone decide the game.
        let mut ra = Recorder::default();
        let mut rb = Recorder::default();
        while let Next::Ask { .. } = a.game.advance(&mut ra) {
            a.game.answer(Decision::Stop).unwrap();
        }
        while let Next::Ask { .. } = b.game.advance(&mut rb) {
            b.game.answer(Decision::Stop).unwrap();
        }
        prop_assert_eq!(ra.turns, rb.turns);
    }

    #[test]
    fn any_reply_bytes_are_judged_without_panicking(line in proptest::collection::vec(any::<u8>(), 0..64), game in any::<u64>()) {
        let verdict = wire::judge(&LineReply::Message(line.clone()), game);
        match verdict.fate {
            ProcessFate::Healthy => {
                // Only a line whose first field is the game's id is accepted.
                let text = line.strip_suffix(b"\r").unwrap_or(&line);
                let id = text.split(|&b| b == b' ').next().unwrap_or_default();
                prop_assert!(!id.is_empty() && id.iter().all(u8::is_ascii_digit));
                let id = std::str::from_utf8(id).ok().and_then(|s| s.parse::<u64>().ok());
                prop_assert_eq!(id, Some(game));
            }
            ProcessFate::Kill(reason) => {
                prop_assert_eq!(reason, OutOfStep::UnexpectedId);
                prop_assert_eq!(verdict.decision, Decision::Failed(Failure::Crash));
            }
            ProcessFate::Dead => prop_assert!(false, "a message cannot mean the process is dead"),
        }
        let _ = wire::judge_late(&LineReply::Message(line.clone()), game);
        let _ = wire::judge_handshake(&LineReply::Message(line));
    }

    #[test]
    fn well_formed_replies_round_trip(game in any::<u64>(), token in 0usize..3, cr in any::<bool>()) {
        let (text, decision) = [("1", Decision::Throw), ("0", Decision::Stop), ("e", Decision::Failed(Failure::Error))][token];
        let line = format!("{game} {text}{}", if cr { "\r" } else { "" });
        prop_assert_eq!(wire::parse_reply(line.as_bytes(), game), Ok(decision));
        prop_assert_eq!(wire::parse_reply(line.as_bytes(), game.wrapping_add(1)), Err(OutOfStep::UnexpectedId));
    }
}
