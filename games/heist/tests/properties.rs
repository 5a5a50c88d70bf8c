//! Property tests: invariants the rules promise over arbitrary bots and seeds.

use game_core::{Ending, GameRng, Reply};
use game_heist::bank::{bank, THRESHOLDS};
use game_heist::decimal::format_decimal;
use game_heist::dice::Dice;
use game_heist::sharing::{share, Member};
use game_heist::wire::{read_action, read_bet};
use game_heist::{game_dice, Action, GameReport, Request, Round, Seat, Tournament};
use proptest::prelude::*;

/// What a generated bot prints, chosen per game from its list.
#[derive(Debug, Clone)]
enum Out {
    Number(i128),
    Fraction(u8),
    Text(String),
    Bytes(Vec<u8>),
    Fail(Ending),
}

fn out_strategy() -> impl Strategy<Value = Out> {
    let words = prop::sample::select(vec![
        "back out",
        "all in",
        "change jobs",
        "acquire intel",
        "buy guard",
        "deposit",
        "withdraw",
        "double cross",
        "finger",
        "guncheck",
        "",
    ]);
    prop_oneof![
        any::<i128>().prop_map(Out::Number),
        (0i128..500).prop_map(Out::Number),
        (0u8..=10).prop_map(Out::Fraction),
        words.prop_map(|w| Out::Text(w.to_string())),
        prop::collection::vec(any::<u8>(), 0..12).prop_map(Out::Bytes),
        prop::sample::select(vec![
            Ending::Exited(1),
            Ending::Signalled(9),
            Ending::TimedOut,
            Ending::TooLong,
            Ending::SpawnFailed,
            Ending::Sandbox,
        ])
        .prop_map(Out::Fail),
    ]
}

#[derive(Debug, Clone)]
struct BotPlan {
    round1: Vec<Out>,
    round2: Vec<Out>,
}

fn plan_strategy() -> impl Strategy<Value = BotPlan> {
    (
        prop::collection::vec(out_strategy(), 1..5),
        prop::collection::vec(out_strategy(), 1..5),
    )
        .prop_map(|(round1, round2)| BotPlan { round1, round2 })
}

fn reply_for(plans: &[BotPlan], request: &Request) -> Reply {
    let plan = &plans[request.bot];
    let list = match request.round {
        Round::Stakes => &plan.round1,
        Round::Decisions => &plan.round2,
    };
    match &list[request.args.game as usize % list.len()] {
        Out::Number(n) => Reply::exited(n.to_string(), 0),
        Out::Fraction(k) => {
            Reply::exited((request.args.credits / 10 * i64::from(*k)).to_string(), 0)
        }
        Out::Text(t) => Reply::exited(t.clone(), 0),
        Out::Bytes(b) => Reply::exited(b.clone(), 0),
        Out::Fail(ending) => Reply::ended(b"1".to_vec(), *ending),
    }
}

fn new_tournament(bots: usize, rabble: usize, games: u32) -> Tournament {
    let names = (0..bots).map(|i| format!("bot{i}")).collect();
    Tournament::new(names, rabble, games).expect("valid names")
}

fn run(t: &mut Tournament, plans: &[BotPlan], seed: u64) -> Vec<GameReport> {
    let mut reports = Vec::new();
    while !t.is_finished() {
        let dice = game_dice(seed, 1, t.next_game());
        reports.push(t.play_game(dice, |r| reply_for(plans, r)));
    }
    reports
}

/// Forwards every draw but makes every heist fail.
struct NoLuck(GameRng);

impl Dice for NoLuck {
    fn seating(&mut self, bots: usize, pool: usize) -> Vec<Seat> {
        self.0.seating(bots, pool)
    }
    fn decision_order(&mut self, heisters: &[Seat]) -> Vec<usize> {
        self.0.decision_order(heisters)
    }
    fn rabble_bet(&mut self, seat: Seat) -> f64 {
        self.0.rabble_bet(seat)
    }
    fn rabble_back_out(&mut self, seat: Seat) -> f64 {
        self.0.rabble_back_out(seat)
    }
    fn heist(&mut self, _seat: Seat) -> f64 {
        1.0 - f64::EPSILON / 2.0
    }
    fn finger(&mut self, fingerer: Seat, candidates: &[Seat]) -> usize {
        self.0.finger(fingerer, candidates)
    }
    fn rehire(&mut self, seat: Seat) -> f64 {
        self.0.rehire(seat)
    }
    fn lost_guards(&mut self, seat: Seat, guards: usize, lost: usize) -> Vec<usize> {
        self.0.lost_guards(seat, guards, lost)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn balances_never_go_negative_and_rabble_persist(
        plans in prop::collection::vec(plan_strategy(), 1..6),
        rabble in 0usize..60,
        games in 1u32..8,
        seed in any::<u64>(),
    ) {
        let mut t = new_tournament(plans.len(), rabble, games);
        while !t.is_finished() {
            let before = t.clone();
            let dice = game_dice(seed, 1, t.next_game());
            let mut asked = Vec::new();
            let report = t.play_game(dice, |r| {
                asked.push(r.clone());
                reply_for(&plans, r)
            });
            for r in asked.iter().filter(|r| r.round == Round::Decisions) {
                prop_assert_eq!(r.args.bank, report.bank);
                prop_assert_eq!(r.args.heisters, report.heisters);
                prop_assert_eq!(r.args.invested, report.invested);
                prop_assert!(r.args.bet > 0 && r.args.bet <= r.args.credits);
            }
            prop_assert_eq!(asked.len(), plans.len() + report.bots.iter().filter(|b| b.bet > 0).count());
            for p in t.players() {
                prop_assert!(p.credits >= 0);
                prop_assert!(p.paycheck >= 0);
                prop_assert!(p.accounts.iter().all(|&a| a >= 0));
            }
            prop_assert!(t.rabble().iter().all(|&c| c >= 0));
            for (i, (&now, &then)) in t.rabble().iter().zip(before.rabble()).enumerate() {
                if !report.rabble.contains(&i) {
                    prop_assert_eq!(now, then, "rabble {} sat out but changed", i);
                }
            }
            prop_assert_eq!(report.players, plans.len() + report.rabble.len());
            // The leaderboard lists every bot once, richest first.
            let credits = t.credits();
            prop_assert!(t.leaderboard().windows(2).all(|w| credits[w[0]] >= credits[w[1]]));
            let mut sorted = t.leaderboard().to_vec();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..plans.len()).collect::<Vec<_>>());
            // Only real players appear in the log, each once in round 1.
            prop_assert_eq!(report.log.round1.len(), plans.len());
            prop_assert_eq!(report.log.standings.len(), plans.len());
            // The bank is fixed by round 1's totals, and round 2 is told so.
            prop_assert_eq!(report.bank, bank(report.heisters, report.invested));
            let bot_heisters = report.bots.iter().filter(|b| b.bet > 0).count();
            prop_assert!(report.heisters >= bot_heisters);
            prop_assert!(report.invested >= report.bots.iter().map(|b| i128::from(b.bet)).sum::<i128>());
        }
    }

    #[test]
    fn same_seed_same_tournament_even_after_a_resume(
        plans in prop::collection::vec(plan_strategy(), 1..5),
        rabble in 0usize..40,
        games in 2u32..7,
        stop in 1u32..6,
        seed in any::<u64>(),
    ) {
        let mut straight = new_tournament(plans.len(), rabble, games);
        let straight_reports = run(&mut straight, &plans, seed);

        let mut again = new_tournament(plans.len(), rabble, games);
        prop_assert_eq!(run(&mut again, &plans, seed), straight_reports.clone());
        prop_assert_eq!(&again, &straight);

        // Interrupted after `stop` games, saved, restored and continued.
        let mut first = new_tournament(plans.len(), rabble, games);
        let mut reports = Vec::new();
        while first.next_game() < stop.min(games) {
            let dice = game_dice(seed, 1, first.next_game());
            reports.push(first.play_game(dice, |r| reply_for(&plans, r)));
        }
        // A game abandoned halfway changes nothing.
        if !first.is_finished() {
            let mut game = first.start_game(game_dice(seed, 1, first.next_game()));
            if let Some(request) = game.request().cloned() {
                let _ = game.answer(&reply_for(&plans, &request));
            }
        }
        let saved = serde_json::to_string(&first).expect("serialisable");
        let mut resumed: Tournament = serde_json::from_str(&saved).expect("restorable");
        prop_assert_eq!(&resumed, &first);
        reports.extend(run(&mut resumed, &plans, seed));
        prop_assert_eq!(reports, straight_reports);
        prop_assert_eq!(&resumed, &straight);
    }

    #[test]
    fn without_a_successful_heist_only_paychecks_add_money(
        plans in prop::collection::vec(plan_strategy(), 1..6),
        rabble in 0usize..40,
        seed in any::<u64>(),
        guards in prop::collection::vec(0usize..4, 6),
    ) {
        let mut t = new_tournament(plans.len(), rabble, 1);
        for (i, &g) in guards.iter().enumerate().take(plans.len()) {
            let p = t.player_mut(i).expect("bot");
            for _ in 0..g {
                p.buy_guard(g % 5);
            }
            p.credits = 3 * i as i64;
        }
        let before = t.clone();
        let report = t.play_game(NoLuck(game_dice(seed, 1, 0)), |r| reply_for(&plans, r));
        for (i, result) in report.bots.iter().enumerate() {
            let (old, new) = (&before.players()[i], &t.players()[i]);
            let action = result.action.unwrap_or(Action::GoAlong);
            let stayed = result.bet > 0 && action != Action::BackOut;
            prop_assert_eq!(result.success, if stayed { Some(false) } else { None });
            let forgoes_pay = result.bet > 0 && matches!(action, Action::BackOut | Action::AllIn);
            let mut expected = i128::from(old.credits);
            if stayed && action == Action::AllIn {
                expected = 0;
            } else if stayed {
                expected -= i128::from(result.bet);
            }
            if new.employed && !forgoes_pay {
                expected += i128::from(new.paycheck);
            }
            // Guards are charged in the game they are bought (§11).
            let bought = usize::from(stayed && action == Action::BuyGuard);
            expected = (expected - (old.guards.len() + bought) as i128).max(0);
            prop_assert_eq!(i128::from(new.credits), expected, "bot {}", i);
            prop_assert_eq!(new.accounts, old.accounts);
        }
        for (i, (&now, &then)) in t.rabble().iter().zip(before.rabble()).enumerate() {
            if report.rabble.contains(&i) {
                // Rabble bet at most 80085 and earn 240 unless they back out.
                prop_assert!(now <= then + 240);
                prop_assert!(now >= then - 80085);
            }
        }
    }

    #[test]
    fn sharing_conserves_money_up_to_division_remainders(
        along in prop::collection::vec((0i64..1_000_000, any::<bool>()), 0..12),
        crossers in prop::collection::vec((0i64..1_000_000, any::<bool>()), 0..5),
        succeeds in any::<bool>(),
    ) {
        prop_assume!(!succeeds || !crossers.is_empty());
        let mut members: Vec<Member> = along
            .iter()
            .map(|&(winnings, missed_finger)| Member::Along { winnings, missed_finger })
            .collect();
        members.extend(crossers.iter().map(|&(winnings, identified)| Member::DoubleCrosser { winnings, identified }));
        let paid = share(&members, succeeds);
        prop_assert_eq!(paid.len(), members.len());
        prop_assert!(paid.iter().all(|&p| p >= 0));
        let total: i128 = along.iter().chain(&crossers).map(|&(w, _)| i128::from(w)).sum();
        let handed_out: i128 = paid.iter().sum();
        prop_assert!(handed_out <= total);
        let (g, d) = (along.len() as i128, crossers.len() as i128);
        let lost = total - handed_out;
        if succeeds {
            // floor(P / d) loses < d; each proportional return loses < 1.
            prop_assert!(lost < d + g);
            for (m, &p) in members.iter().zip(&paid) {
                if let Member::DoubleCrosser { winnings, identified: true } = m {
                    prop_assert_eq!(p, i128::from(*winnings));
                }
            }
        } else if g == 0 {
            prop_assert_eq!(handed_out, 0);
        } else {
            // Only floor(pool / |G|) loses anything, less than |G|.
            prop_assert!(lost < g);
            for (m, &p) in members.iter().zip(&paid) {
                if matches!(m, Member::DoubleCrosser { .. }) {
                    prop_assert_eq!(p, 0);
                }
            }
        }
    }

    #[test]
    fn bank_is_the_highest_threshold_reached(heisters in 0usize..500, invested in 0i128..20_000_000) {
        let selector = heisters as i128 + invested / 100_000;
        let expected = THRESHOLDS.iter().rposition(|&t| t <= selector).unwrap_or(0);
        prop_assert_eq!(bank(heisters, invested), expected);
    }

    #[test]
    fn decimal_text_is_the_12_digit_rounding(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let text = format_decimal(x);
        let back: f64 = text.parse().expect("parses as a number");
        let rounded: f64 = format!("{x:.11e}").parse().expect("parses");
        prop_assert_eq!(back, rounded, "{} -> {}", x, text);
        let (mantissa, exponent) = match text.split_once('e') {
            Some((m, e)) => (m, Some(e)),
            None => (text.as_str(), None),
        };
        let (_, fraction) = mantissa.split_once('.').expect("a point");
        prop_assert!(!fraction.is_empty());
        prop_assert!(fraction == "0" || !fraction.ends_with('0'), "{}", text);
        let digits = mantissa.chars().filter(char::is_ascii_digit).collect::<String>();
        prop_assert!(digits.trim_matches('0').len() <= 12, "{}", text);
        if let Some(e) = exponent {
            prop_assert!(e.starts_with('+') || e.starts_with('-'));
            let e: i32 = e.parse().expect("exponent");
            prop_assert!(!(-5..=14).contains(&e));
            prop_assert_eq!(mantissa.trim_start_matches('-').find('.'), Some(1));
        }
    }

    #[test]
    fn any_written_integer_is_clamped(n in any::<i128>(), credits in 0i64..=i64::MAX, pad in "[ \t\r\n]{0,3}") {
        let text = format!("{pad}{n}{pad}");
        let reading = read_bet(&Reply::exited(text, 0), credits);
        let expected = n.clamp(0, i128::from(credits)) as i64;
        prop_assert_eq!((reading.bet, reading.fault), (expected, None));
    }

    #[test]
    fn any_output_gives_a_bet_within_credits(bytes in prop::collection::vec(any::<u8>(), 0..64), credits in 0i64..1_000_000) {
        let reading = read_bet(&Reply::exited(bytes, 0), credits);
        prop_assert!((0..=credits).contains(&reading.bet));
    }

    #[test]
    fn any_output_gives_a_printable_round2_line(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let reading = read_action(&Reply::exited(bytes.clone(), 0));
        prop_assert!(!reading.shown.chars().any(char::is_control));
        prop_assert!(reading.shown.len() <= 200);
        if let Some(word) = reading.action.word() {
            prop_assert_eq!(bytes.trim_ascii(), word.as_bytes());
        }
    }
}
