//! Property tests: random playouts, legal or not, keep the rules' invariants.

use game_core::{Fault, Reply};
use game_meta_ttt::{wire, Call, End, Game, Illegal, Mark, Move};
use proptest::prelude::*;

/// A scripted call: either a pick among the legal moves, an arbitrary move
/// (often illegal), or a failure.
#[derive(Debug, Clone)]
enum Script {
    Legal(usize),
    Any(u8, u8),
    Garbage,
}

fn script() -> impl Strategy<Value = Script> {
    prop_oneof![
        6 => any::<usize>().prop_map(Script::Legal),
        2 => (0u8..9, 0u8..9).prop_map(|(b, t)| Script::Any(b, t)),
        1 => Just(Script::Garbage),
    ]
}

fn marks(game: &Game) -> usize {
    (0..9u8)
        .flat_map(|b| (0..9u8).map(move |t| (b, t)))
        .filter(|&(b, t)| game.cell(b, t).is_some())
        .count()
}

proptest! {
    #[test]
    fn random_playouts_keep_the_invariants(calls in prop::collection::vec(script(), 1..300), max_rounds in 1u32..260) {
        let mut game = Game::new(max_rounds);
        for s in calls {
            if game.is_over() { break; }
            let before = game.clone();
            let call = match s {
                Script::Legal(i) => {
                    let legal = game.legal_moves();
                    prop_assert!(!legal.is_empty(), "an unfinished game always has a legal move");
                    Call::Move(legal[i % legal.len()])
                }
                Script::Any(b, t) => Call::Move(Move { board: b, tile: t }),
                Script::Garbage => Call::Failed(Illegal::Garbage, Fault::BadOutput),
            };
            let forced = before.forced_board();
            match game.apply(call) {
                Ok(mv) => {
                    // Never into a closed board, always the forced one, and exactly one new mark.
                    prop_assert!(before.is_open(mv.board));
                    if let Some(f) = forced { prop_assert_eq!(f, mv.board); }
                    prop_assert_eq!(before.cell(mv.board, mv.tile), None);
                    prop_assert_eq!(marks(&game), marks(&before) + 1);
                }
                Err(_) => {
                    prop_assert_eq!(marks(&game), marks(&before));
                    let argv = wire::argv(&game);
                    prop_assert_eq!(argv[11].as_str(), "xx");
                }
            }
            // No mark is ever lost or changed, and a won board stays won.
            for b in 0..9u8 {
                if before.board_owner(b).is_some() {
                    prop_assert_eq!(game.board_owner(b), before.board_owner(b));
                }
                for t in 0..9u8 {
                    if let Some(m) = before.cell(b, t) { prop_assert_eq!(game.cell(b, t), Some(m)); }
                }
            }
            prop_assert_eq!(game.open_spots() as usize, 81 - marks(&game));
        }
        // Scores add up from the illegal counts and the ending.
        let r = game.record();
        let base = [-(r.illegal[0] as i64), -(r.illegal[1] as i64)];
        let expected = match r.end {
            Some(End::Win(Mark::X)) => [base[0] + 100 + i64::from(r.open_spots), base[1]],
            Some(End::Win(Mark::O)) => [base[0], base[1] + 100 + i64::from(r.open_spots)],
            Some(End::RoundLimit) => [base[0] - 10, base[1] - 10],
            Some(End::Draw) | None => base,
        };
        prop_assert_eq!(r.points, expected);
        prop_assert_eq!(r.moves.len() as u32, r.calls);
        prop_assert!(r.calls <= max_rounds);
        prop_assert_eq!(u64::from(r.illegal[0]), r.faults[0].total());
        prop_assert_eq!(u64::from(r.illegal[1]), r.faults[1].total());
    }

    #[test]
    fn legal_play_alone_ends_within_81_calls(picks in prop::collection::vec(any::<usize>(), 81)) {
        let mut game = Game::new(250);
        for p in picks {
            if game.is_over() { break; }
            let legal = game.legal_moves();
            game.apply(Call::Move(legal[p % legal.len()])).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert!(game.is_over());
        prop_assert!(game.calls() <= 81);
        prop_assert!(matches!(game.end(), Some(End::Win(_)) | Some(End::Draw)));
    }

    #[test]
    fn any_stdout_is_either_a_move_or_garbage(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let call = wire::read_reply(&Reply::exited(bytes.clone(), 0));
        match call {
            Call::Move(m) => { prop_assert!(m.board < 9 && m.tile < 9); }
            Call::Failed(reason, _) => { prop_assert_eq!(reason, Illegal::Garbage); }
        }
    }
}
