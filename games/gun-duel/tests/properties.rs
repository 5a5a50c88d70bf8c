//! Properties: duels end within the turn limit, the rules are symmetric,
//! and tournaments are determined by the seed, whatever the parallelism.

mod common;

use common::run_tournament;
use game_gun_duel::{clash, eliminate, Action, Clash, Dispatcher, Duel, Outcome, Standing};
use proptest::prelude::*;

fn a_move() -> impl Strategy<Value = Option<Action>> {
    prop_oneof![
        6 => prop::sample::select(Action::ALL.to_vec()).prop_map(Some),
        1 => Just(None),
    ]
}

/// Plays scripts (repeated as needed) until the duel ends.
fn play(limit: u32, a: &[Option<Action>], b: &[Option<Action>]) -> Duel {
    let mut duel = Duel::new(limit);
    let mut k = 0;
    while !duel.is_over() {
        let moves = [a[k % a.len()], b[k % b.len()]];
        duel.play(moves).expect("duel not over");
        k += 1;
    }
    duel
}

proptest! {
    #[test]
    fn every_duel_ends_within_the_turn_limit(
        limit in 1u32..150,
        a in prop::collection::vec(a_move(), 1..40),
        b in prop::collection::vec(a_move(), 1..40),
    ) {
        let duel = play(limit, &a, &b);
        prop_assert!(duel.turns_played() >= 1 && duel.turns_played() <= limit);
        // Ending before the limit takes a kill or an explosion.
        if duel.outcome() == Some(Outcome::Draw) && duel.turns_played() < limit {
            prop_assert!(duel.ammo().iter().any(|&x| x < 0) || duel.history(game_gun_duel::Side::A).last() == Some(&None));
        }
        // Ammo is the sum of the changes of the moves made.
        for side in game_gun_duel::Side::BOTH {
            let sum: i32 = duel.history(side).iter().flatten().map(|a| a.ammo_change()).sum();
            prop_assert_eq!(duel.ammo()[side.index()], sum);
        }
    }

    #[test]
    fn swapping_the_bots_mirrors_the_duel(
        limit in 1u32..120,
        a in prop::collection::vec(a_move(), 1..30),
        b in prop::collection::vec(a_move(), 1..30),
    ) {
        let straight = play(limit, &a, &b);
        let swapped = play(limit, &b, &a);
        prop_assert_eq!(swapped.outcome().map(Outcome::mirrored), straight.outcome());
        prop_assert_eq!(swapped.turns_played(), straight.turns_played());
        let [x, y] = straight.ammo();
        prop_assert_eq!(swapped.ammo(), [y, x]);
    }

    #[test]
    fn the_outcome_table_is_symmetric(
        a in prop::sample::select(Action::ALL.to_vec()),
        b in prop::sample::select(Action::ALL.to_vec()),
    ) {
        let mirrored = match clash(b, a) {
            Clash::AWins => Clash::BWins,
            Clash::BWins => Clash::AWins,
            Clash::BothSurvive => Clash::BothSurvive,
        };
        prop_assert_eq!(clash(a, b), mirrored);
    }

    #[test]
    fn dispatch_keeps_each_bots_schedule_order(
        duels in prop::collection::vec((0usize..6, 0usize..6), 1..60),
        picks in prop::collection::vec(any::<usize>(), 0..200),
        jobs in 1usize..5,
    ) {
        let duels: Vec<(usize, usize)> = duels.into_iter().filter(|(a, b)| a != b).collect();
        let mut d = Dispatcher::new(&duels);
        let mut running: Vec<usize> = Vec::new();
        let mut started = Vec::new();
        let mut picks = picks.into_iter();
        while !d.is_complete() {
            while running.len() < jobs {
                let Some(k) = d.next_ready() else { break };
                for &r in &running {
                    let (a, b) = duels[r];
                    prop_assert!(![a, b].contains(&duels[k].0) && ![a, b].contains(&duels[k].1));
                }
                running.push(k);
                started.push(k);
            }
            prop_assert!(!running.is_empty(), "stalled");
            let i = picks.next().unwrap_or(0) % running.len();
            prop_assert!(d.finish(running.swap_remove(i)));
        }
        for bot in 0..6 {
            let order: Vec<usize> = started.iter().copied().filter(|&k| duels[k].0 == bot || duels[k].1 == bot).collect();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            prop_assert_eq!(order, sorted);
        }
    }

    #[test]
    fn elimination_removes_exactly_the_worst_or_declares_joint_winners(
        scores in prop::collection::vec((0u64..4, 0u64..4), 1..8),
    ) {
        let mut bots: Vec<Standing> = scores
            .iter()
            .map(|&(round_points, extra)| Standing {
                alive: true,
                round_points,
                total: round_points + extra,
                history: Vec::new(),
                rounds_survived: 0,
            })
            .collect();
        let (leavers, joint) = eliminate(&mut bots);
        prop_assert!(bots.iter().any(|b| b.alive));
        prop_assert_eq!(joint, leavers.is_empty());
        let key = |i: usize| (scores[i].0, scores[i].0 + scores[i].1);
        let worst = (0..scores.len()).map(key).min().expect("non-empty");
        for i in 0..scores.len() {
            prop_assert_eq!(leavers.contains(&i), !joint && key(i) == worst);
            prop_assert_eq!(bots[i].rounds_survived, u32::from(bots[i].alive));
            prop_assert_eq!(&bots[i].history, &vec![scores[i].0]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_tournament_is_determined_by_its_seed_whatever_the_parallelism(
        seed in any::<u64>(),
        bots in 2usize..6,
        passes in 1u32..4,
        turns in 1u32..25,
        jobs in 2usize..5,
        picks in prop::collection::vec(any::<usize>(), 1..64),
    ) {
        let sequential = run_tournament(bots, passes, turns, seed, 1, |_| 0);
        let again = run_tournament(bots, passes, turns, seed, 1, |_| 0);
        prop_assert_eq!(&sequential, &again);
        let mut i = 0;
        let parallel = run_tournament(bots, passes, turns, seed, jobs, |n| {
            i += 1;
            picks[i % picks.len()] % n
        });
        prop_assert_eq!(&parallel, &sequential);
    }
}
