//! Every test vector of §9, with scripted draws and scripted bots.

mod common;

use common::{bot, credits, play, tournament, Bots, Script};
use game_heist::decimal::format_decimal;
use game_heist::{Action, Round, Seat, Tournament};

fn draws(pairs: &[(Seat, f64)]) -> std::collections::HashMap<Seat, f64> {
    pairs.iter().copied().collect()
}

#[test]
fn t1_plain_success_and_failure() {
    let mut t = tournament(&["A", "B", "C"]);
    let (a, b) = (bot(&t, "A"), bot(&t, "B"));
    let mut script = Script {
        round2: vec![b, a],
        heist: draws(&[(a, 0.10), (b, 0.90)]),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 100, "guncheck")
        .plays("B", 50, "guncheck")
        .plays("C", 0, "guncheck");
    let report = play(&mut t, &mut script, &mut bots);

    assert_eq!(credits(&t, "A"), 560);
    assert_eq!(credits(&t, "B"), 430);
    assert_eq!(credits(&t, "C"), 480);
    assert_eq!(report.bots[0].winnings, 180);
    let expected = "\
#####GAME 0: 3 players######
Round 1:
A bet 100.
B bet 50.
C bet 0.
Round 2
B decided to guncheck.
A decided to guncheck.
Results
A was successful, and may gain \u{a5}180
B failed. :(
Results:
0. A: 560
1. C: 480
2. B: 430

";
    assert_eq!(report.log_block(t.names()), expected);
    // C did not bet, so it is never asked in round 2.
    assert!(!bots.of("C").iter().any(|r| r.round == Round::Decisions));

    // Game 1: B moves first in round 1.
    let next = Script {
        round1: vec![b, a, bot(&t, "C")],
        ..Script::default()
    };
    let game = t.start_game(next);
    let request = game.request().expect("B is asked first");
    assert_eq!(request.bot, 1);
    assert_eq!(
        request.args.to_line(),
        "1 1 3 0 0 0 0 0 430 0 240 1 3 490.0 46.6666666667 560 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
    );
    assert_eq!(request.argv().len(), 31);
}

#[test]
fn t2_a_back_out_lowers_the_others_chance() {
    let mut t = tournament(&["A", "B", "C", "D"]);
    let [a, b, c, d] = ["A", "B", "C", "D"].map(|n| bot(&t, n));
    let mut script = Script {
        round2: vec![c, a, b, d],
        heist: draws(&[(a, 0.40), (b, 0.45), (d, 0.99)]),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 100, "guncheck")
        .plays("B", 100, "guncheck")
        .plays("C", 100, "back out")
        .plays("D", 100, "guncheck");
    play(&mut t, &mut script, &mut bots);

    assert_eq!(credits(&t, "A"), 560);
    assert_eq!(credits(&t, "B"), 380);
    assert_eq!(credits(&t, "C"), 240);
    assert_eq!(credits(&t, "D"), 380);
    // C backed out, so it draws nothing.
    assert!(!script.heist_calls.contains(&c));
    let a_round2 = bots
        .of("A")
        .into_iter()
        .find(|r| r.round == Round::Decisions)
        .expect("A is asked in round 2");
    assert_eq!(
        a_round2.args.to_line(),
        "0 2 4 1 4 400 0 0 240 100 240 1 1 240.0 0.0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
    );
}

#[test]
fn t3_all_in() {
    let mut t = tournament(&["A", "B", "C"]);
    t.player_mut(0).expect("A").credits = 1000;
    let [a, b, c] = ["A", "B", "C"].map(|n| bot(&t, n));
    let mut script = Script {
        round2: vec![c, a, b],
        heist: draws(&[(a, 0.50), (b, 0.60)]),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 10, "all in")
        .plays("B", 20, "all in")
        .plays("C", 30, "back out");
    let report = play(&mut t, &mut script, &mut bots);

    assert_eq!(credits(&t, "A"), 2232);
    assert_eq!(credits(&t, "B"), 0);
    assert_eq!(credits(&t, "C"), 240);
    let block = report.log_block(t.names());
    assert!(
        block.contains(
            "\nResults\nA was successful, and may gain \u{a5}0\nB failed. :(\nResults:\n"
        ),
        "{block}"
    );
}

#[test]
fn t4_double_cross_succeeds() {
    let mut t = tournament(&["A", "B", "C", "D"]);
    let [a, b, c] = ["A", "B", "C"].map(|n| bot(&t, n));
    let mut script = Script {
        heist: draws(&[(a, 0.1), (b, 0.2), (c, 0.9)]),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 100, "guncheck")
        .plays("B", 50, "guncheck")
        .plays("C", 20, "double cross")
        .plays("D", 0, "guncheck");
    let report = play(&mut t, &mut script, &mut bots);

    assert_eq!(report.bots[0].winnings, 180);
    assert_eq!(report.bots[1].winnings, 90);
    assert_eq!(credits(&t, "A"), 380);
    assert_eq!(credits(&t, "B"), 430);
    assert_eq!(credits(&t, "C"), 730);
    assert_eq!(credits(&t, "D"), 480);
    assert!(
        t.players()[2].employed,
        "a successful double-crosser keeps its job"
    );
}

#[test]
fn t5_double_cross_fails() {
    let mut t = tournament(&["A", "B", "C", "D", "E"]);
    let [a, b, c, d] = ["A", "B", "C", "D"].map(|n| bot(&t, n));
    let mut script = Script {
        heist: draws(&[(a, 0.1), (b, 0.2), (c, 0.3), (d, 0.95)]),
        rehire: draws(&[(a, 0.5), (b, 0.01)]),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 100, "double cross")
        .plays("B", 100, "double cross")
        .plays("C", 100, "guncheck")
        .plays("D", 10, "guncheck")
        .plays("E", 0, "guncheck");
    play(&mut t, &mut script, &mut bots);

    assert_eq!(credits(&t, "A"), 140);
    assert_eq!(credits(&t, "B"), 266);
    assert_eq!(credits(&t, "C"), 740);
    assert_eq!(credits(&t, "D"), 650);
    assert_eq!(credits(&t, "E"), 480);
    let (pa, pb) = (&t.players()[0], &t.players()[1]);
    assert_eq!((pa.paycheck, pa.employed), (120, false));
    assert_eq!((pb.paycheck, pb.employed), (126, true));
}

#[test]
fn t6_finger_hit() {
    let mut t = tournament(&["A", "B", "C"]);
    t.player_mut(1).expect("B").credits = 1000;
    let [a, b, c] = ["A", "B", "C"].map(|n| bot(&t, n));
    let mut script = Script {
        heist: draws(&[(a, 0.1), (b, 0.1), (c, 0.1)]),
        fingers: [(a, vec![c, a, b, b, c, a, a, c].into())]
            .into_iter()
            .collect(),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 100, "finger")
        .plays("B", 40, "double cross")
        .plays("C", 60, "guncheck");
    let report = play(&mut t, &mut script, &mut bots);

    assert_eq!(
        report.bots.iter().map(|r| r.winnings).collect::<Vec<_>>(),
        vec![180, 72, 108]
    );
    let pb = &t.players()[1];
    assert!(!pb.employed);
    assert_eq!(pb.paycheck, 120);
    assert_eq!(format_decimal(pb.prob[0]), "0.49");
    assert_eq!(credits(&t, "A"), 800);
    assert_eq!(credits(&t, "B"), 792);
    assert_eq!(credits(&t, "C"), 528);
    // All eight draws are made even after the hit.
    assert!(script.fingers[&a].is_empty());
}

#[test]
fn t7_finger_miss() {
    let mut t = tournament(&["A", "B", "C"]);
    let [a, b, c] = ["A", "B", "C"].map(|n| bot(&t, n));
    let mut script = Script {
        heist: draws(&[(a, 0.1), (b, 0.2), (c, 0.9)]),
        fingers: [(a, vec![b, c, a, b, c, a, b, c].into())]
            .into_iter()
            .collect(),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 100, "finger")
        .plays("B", 100, "guncheck")
        .plays("C", 50, "guncheck");
    play(&mut t, &mut script, &mut bots);

    let pa = &t.players()[0];
    assert_eq!(pa.paycheck, 228);
    assert_eq!(format_decimal(pa.odds[0]), "0.75");
    assert_eq!(credits(&t, "A"), 488);
    assert_eq!(credits(&t, "B"), 590);
    assert_eq!(credits(&t, "C"), 460);
}

#[test]
fn t8_deposit_interest_withdraw() {
    let mut t = tournament(&["A"]);
    t.player_mut(0).expect("A").credits = 2000;
    let a = bot(&t, "A");
    let lucky = || Script {
        heist: draws(&[(a, 0.1)]),
        ..Script::default()
    };

    let mut bots = Bots::new().plays("A", 1000, "deposit");
    let report = play(&mut t, &mut lucky(), &mut bots);
    assert!(report
        .log_block(t.names())
        .contains("A was successful, and may gain \u{a5}0\n"));
    assert_eq!(t.players()[0].accounts[0], 1802);
    assert_eq!(credits(&t, "A"), 1240);

    let mut bots = Bots::new().plays("A", 0, "guncheck");
    play(&mut t, &mut Script::default(), &mut bots);
    assert_eq!(t.players()[0].accounts[0], 1804);
    assert_eq!(credits(&t, "A"), 1480);

    let mut bots = Bots::new().plays("A", 100, "withdraw");
    let report = play(&mut t, &mut lucky(), &mut bots);
    assert!(report
        .log_block(t.names())
        .contains("A was successful, and may gain \u{a5}1984\n"));
    assert_eq!(t.players()[0].accounts[0], 0);
    assert_eq!(credits(&t, "A"), 3604);
    assert!(report
        .log_block(t.names())
        .starts_with("#####GAME 2: 1 players######\n"));
}

#[test]
fn t9_intel() {
    let mut t = tournament(&["A"]);
    t.player_mut(0).expect("A").credits = 2000;
    let a = bot(&t, "A");
    let lucky = || Script {
        heist: draws(&[(a, 0.1)]),
        ..Script::default()
    };

    play(
        &mut t,
        &mut lucky(),
        &mut Bots::new().plays("A", 1000, "acquire intel"),
    );
    assert_eq!(format_decimal(t.players()[0].odds[0]), "0.818");
    assert_eq!(t.players()[0].odds[0], 0.8180000000000001);
    assert_eq!(credits(&t, "A"), 1240);

    let report = play(
        &mut t,
        &mut lucky(),
        &mut Bots::new().plays("A", 1000, "guncheck"),
    );
    assert_eq!(report.bots[0].winnings, 1818);
    assert_eq!(credits(&t, "A"), 2298);
}

#[test]
fn t10_guards() {
    let mut t = tournament(&["A", "B"]);
    {
        let pb = t.player_mut(1).expect("B");
        pb.credits = 1;
        pb.employed = false;
        pb.buy_guard(0);
        pb.buy_guard(0);
        pb.buy_guard(4);
        assert_eq!(pb.guards, vec![0, 0, 4]);
        assert_eq!(format_decimal(pb.prob[0]), "0.549154");
        assert_eq!(format_decimal(pb.prob[4]), "0.33076");
    }
    let [a, b] = ["A", "B"].map(|n| bot(&t, n));
    let mut script = Script {
        heist: draws(&[(a, 0.9)]),
        // Indexes into B's guard list [0, 0, 4]: the bank-4 guard and a bank-0 guard.
        lost_guards: [(b, vec![2, 0])].into_iter().collect(),
        ..Script::default()
    };
    let mut bots = Bots::new()
        .plays("A", 10, "buy guard")
        .plays("B", 0, "guncheck");
    play(&mut t, &mut script, &mut bots);

    let pa = &t.players()[0];
    assert_eq!(format_decimal(pa.prob[0]), "0.5446");
    assert_eq!(pa.guards, vec![0]);
    assert_eq!(credits(&t, "A"), 469);
    let pb = &t.players()[1];
    assert_eq!(format_decimal(pb.prob[4]), "0.324");
    assert_eq!(format_decimal(pb.prob[0]), "0.5446");
    assert_eq!(pb.guards, vec![0]);
    assert_eq!(credits(&t, "B"), 0);
}

#[test]
fn t11_change_jobs_rehire() {
    let mut t = tournament(&["A"]);
    let a = bot(&t, "A");
    let mut script = Script {
        heist: draws(&[(a, 0.1)]),
        ..Script::default()
    };
    let report = play(
        &mut t,
        &mut script,
        &mut Bots::new().plays("A", 10, "change jobs"),
    );
    assert_eq!(report.bots[0].winnings, 18);
    assert_eq!(credits(&t, "A"), 248);
    assert!(!t.players()[0].employed);

    let mut script = Script {
        rehire: draws(&[(a, 0.01)]),
        ..Script::default()
    };
    let mut bots = Bots::new().plays("A", 0, "guncheck");
    play(&mut t, &mut script, &mut bots);
    assert_eq!(
        bots.requests[0].args.to_line(),
        "1 1 1 0 0 0 0 0 248 0 240 0 1 248.0 0.0 248 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
    );
    assert_eq!(t.players()[0].paycheck, 252);
    assert!(t.players()[0].employed);
    assert_eq!(credits(&t, "A"), 500);
}

#[test]
fn t12_two_double_crossers_one_identified() {
    let mut list: Vec<String> = (1..=17).map(|i| format!("N{i}")).collect();
    list.extend(["F", "X", "Y"].map(String::from));
    let refs: Vec<&str> = list.iter().map(String::as_str).collect();
    let mut t = tournament(&refs);
    let seat = |n: &str| bot(&t, n);

    let mut bots = Bots::new();
    let mut heist = Vec::new();
    for (i, name) in list.iter().enumerate() {
        let answer = match name.as_str() {
            "F" => "finger",
            "X" | "Y" => "double cross",
            _ => "guncheck",
        };
        bots = bots.plays(name, 10, answer);
        // N1–N10, F and X succeed; N11–N17 and Y fail (q = 0.488).
        let succeeds = i < 10 || name == "F" || name == "X";
        heist.push((seat(name), if succeeds { 0.1 } else { 0.9 }));
    }
    let f_draws = ["N3", "X", "X", "N7", "N5", "F", "N1", "N3"].map(seat);
    let mut script = Script {
        heist: draws(&heist),
        fingers: [(seat("F"), f_draws.to_vec().into())].into_iter().collect(),
        ..Script::default()
    };
    let report = play(&mut t, &mut script, &mut bots);

    assert_eq!(report.bank, 1);
    assert_eq!(report.bots[0].winnings, 21);
    let x = &t.players()[18];
    assert_eq!((x.paycheck, x.employed), (120, false));
    assert_eq!(format_decimal(x.prob[1]), "0.438");
    for i in 1..=10 {
        assert_eq!(credits(&t, &format!("N{i}")), 480, "N{i}");
    }
    for i in 11..=17 {
        assert_eq!(credits(&t, &format!("N{i}")), 470, "N{i}");
    }
    assert_eq!(credits(&t, "F"), 537);
    assert_eq!(credits(&t, "X"), 194);
    assert_eq!(credits(&t, "Y"), 585);
}

#[test]
fn t13_rabble() {
    let mut t = Tournament::new(vec!["A".into()], 3, 1000).expect("valid");
    for (index, amount) in [500, 60, 80085].into_iter().enumerate() {
        *t.rabble_mut(index).expect("pool") = amount;
    }
    let a = bot(&t, "A");
    let [r1, r2, r3] = [0, 1, 2].map(Seat::Rabble);
    let mut script = Script {
        rabble: vec![0, 1, 2],
        round1: vec![r1, a, r2, r3],
        round2: vec![r3, r1, a],
        rabble_bet: draws(&[(r1, 0.3), (r2, 0.1), (r3, 0.5)]),
        rabble_back_out: draws(&[(r3, 0.5), (r1, 0.03)]),
        heist: draws(&[(a, 0.35), (r3, 0.7)]),
        ..Script::default()
    };
    let mut bots = Bots::new().plays("A", 100, "guncheck");
    let report = play(&mut t, &mut script, &mut bots);

    assert_eq!(credits(&t, "A"), 560);
    assert_eq!(t.rabble(), &[500, 300, 240]);
    assert_eq!(report.players, 4);
    assert_eq!(report.bank, 0);
    // A moved second in round 1 (after R1's 420) and last in round 2
    // (after R3 stayed and R1 backed out).
    let args: Vec<String> = bots.requests.iter().map(|r| r.args.to_line()).collect();
    assert!(
        args[0].starts_with("0 1 4 1 1 420 0 0 240 0 "),
        "{}",
        args[0]
    );
    assert!(
        args[1].starts_with("0 2 4 2 3 80605 1 0 240 100 "),
        "{}",
        args[1]
    );
    assert_eq!(bots.requests[1].args.round, Round::Decisions);
    assert_eq!(report.bots[0].action, Some(Action::GoAlong));
    let expected = "\
#####GAME 0: 4 players######
Round 1:
A bet 100.
Round 2
A decided to guncheck.
Results
A was successful, and may gain \u{a5}180
Results:
0. A: 560

";
    assert_eq!(report.log_block(t.names()), expected);
}
