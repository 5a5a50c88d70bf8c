//! The spec's test vectors (§9), run against the rules and codec as a pure
//! function of the bots' outputs: no processes.

use game_core::Reply;
use game_meta_ttt::{wire, End, Game, Illegal, Mark};

/// Plays outputs in call order (X first, then alternating) until they run
/// out or the game ends. Returns the game and each call's argv.
fn play(max_rounds: u32, outputs: &[&[u8]]) -> (Game, Vec<Vec<String>>) {
    let mut game = Game::new(max_rounds);
    let mut argvs = Vec::new();
    for out in outputs {
        if game.is_over() {
            break;
        }
        argvs.push(wire::argv(&game));
        let call = wire::read_reply(&Reply::exited(out.to_vec(), 0));
        let _ = game.apply(call);
    }
    (game, argvs)
}

fn words(s: &str) -> Vec<&[u8]> {
    s.split(' ').map(str::as_bytes).collect()
}

/// Plays a scripted game where each side has its own output function of its call number.
fn play_scripted(max_rounds: u32, x: impl Fn(u32) -> Vec<u8>, o: impl Fn(u32) -> Vec<u8>) -> Game {
    let mut game = Game::new(max_rounds);
    let (mut xi, mut oi) = (0, 0);
    while !game.is_over() {
        let out = match game.to_move() {
            Mark::X => {
                xi += 1;
                x(xi)
            }
            Mark::O => {
                oi += 1;
                o(oi)
            }
        };
        let _ = game.apply(wire::read_reply(&Reply::exited(out, 0)));
    }
    game
}

fn boards(game: &Game) -> Vec<String> {
    let argv = wire::argv(game);
    argv[1..10].to_vec()
}

fn master(game: &Game) -> String {
    wire::argv(game)[10].clone()
}

fn board(game: &Game, b: usize) -> String {
    boards(game)[b].clone()
}

#[test]
fn v1_post_example() {
    let (game, argvs) = play(250, &words("38 84 30 00"));
    let e = "---------";
    let expect = |who: &str, b3: &str, b8: &str, last: &str| {
        let mut v = vec![who.to_string()];
        for b in 0..9 {
            v.push(
                match b {
                    3 => b3,
                    8 => b8,
                    _ => e,
                }
                .to_string(),
            );
        }
        v.push(e.to_string());
        v.push(last.to_string());
        v
    };
    assert_eq!(argvs[0], expect("X", e, e, "xx"));
    assert_eq!(argvs[1], expect("O", "--------X", e, "38"));
    assert_eq!(argvs[2], expect("X", "--------X", "----O----", "84"));
    assert_eq!(argvs[3], expect("O", "--------X", "----O----", "xx"));
    assert_eq!(game.history()[2].illegal, Some(Illegal::MustPlay(4)));
    assert_eq!(
        game.history()[2].illegal.map(|i| i.to_string()).as_deref(),
        Some("must play board 4")
    );
    assert!(game.history()[3].mv.is_some());
    assert_eq!(board(&game, 0), "O--------");
    assert_eq!(board(&game, 3), "--------X");
    assert_eq!(board(&game, 8), "----O----");
    assert_eq!(master(&game), "---------");
    assert_eq!(game.points(), [-1, 0]);
}

#[test]
fn v2_after_each_illegal_item_the_next_call_gets_xx() {
    for out in [
        &b"3 8"[..],
        b"9",
        b"",
        b"\n\n",
        b"0",
        b"99",
        b"-1",
        b"x8",
        b"\xff38",
    ] {
        let (game, argvs) = play(250, &[out, b"38"]);
        assert_eq!(argvs[1][11], "xx", "{out:?}");
        assert_eq!(game.illegal_calls(Mark::X), 1);
        assert_eq!(
            game.history()[1].mv.map(|m| m.to_string()).as_deref(),
            Some("38")
        );
    }
}

#[test]
fn v3_occupied_tile() {
    let (game, argvs) = play(250, &words("44 44 40 04"));
    assert_eq!(
        game.history()[1].illegal.map(|i| i.to_string()).as_deref(),
        Some("tile 4 of board 4 is taken")
    );
    assert_eq!(argvs[2][11], "xx");
    assert!(game.history()[2].mv.is_some());
    assert_eq!(argvs[3][11], "40");
    assert_eq!(game.forced_board(), Some(4));
    assert_eq!(board(&game, 0), "----O----");
    assert_eq!(board(&game, 4), "X---X----");
    assert_eq!(game.points(), [0, -1]);
}

#[test]
fn v4_sent_to_a_won_board_is_free() {
    let (game, argvs) = play(250, &words("01 10 02 20 00 44"));
    assert_eq!(argvs[5][10], "X--------");
    assert_eq!(argvs[5][11], "00");
    assert!(game.history().iter().all(|p| p.mv.is_some()));
    assert_eq!(board(&game, 0), "XXX------");
    assert_eq!(board(&game, 1), "O--------");
    assert_eq!(board(&game, 2), "O--------");
    assert_eq!(board(&game, 4), "----O----");
}

#[test]
fn v5_a_won_board_is_never_playable() {
    let (game, argvs) = play(250, &words("01 10 02 20 00 03 08 44"));
    assert_eq!(game.history()[5].illegal, Some(Illegal::BoardWon(0)));
    assert_eq!(
        game.history()[5].illegal.map(|i| i.to_string()).as_deref(),
        Some("board 0 is won")
    );
    assert_eq!(argvs[6][11], "xx");
    assert_eq!(game.history()[6].illegal, Some(Illegal::BoardWon(0)));
    assert_eq!(argvs[7][11], "xx");
    assert!(game.history()[7].mv.is_some());
    assert_eq!(game.points(), [-1, -1]);
}

const V6: &str = "42 24 47 75 51 13 34 41 14 45 55 54 48 84 40 04 43 37 74 46 64 44";

#[test]
fn v6_drawn_board_then_sent_to_a_full_board() {
    let (game, argvs) = play(250, &words(V6));
    assert_eq!(game.calls(), 22);
    assert!(game.history().iter().all(|p| p.mv.is_some()));
    assert_eq!(
        boards(&game),
        [
            "----O----",
            "---OX----",
            "----O----",
            "----X--O-",
            "XOXXOOOXX",
            "-X--OX---",
            "----X----",
            "----XO---",
            "----O----"
        ]
    );
    assert_eq!(master(&game), "---------");
    let _ = argvs;
    let mut legal = game.clone();
    assert_eq!(wire::argv(&legal)[11], "44");
    assert!(legal
        .apply(wire::read_reply(&Reply::exited(b"22".to_vec(), 0)))
        .is_ok());
    let mut illegal = game.clone();
    let verdict = illegal.apply(wire::read_reply(&Reply::exited(b"45".to_vec(), 0)));
    assert_eq!(verdict.unwrap_err().to_string(), "board 4 is full");
}

#[test]
fn v7_master_win_by_legal_play() {
    let (game, argvs) = play(
        250,
        &words("15 52 26 61 12 20 06 60 03 32 27 71 18 81 00 62 28"),
    );
    assert_eq!(argvs[13][10], "-X-------", "master after call 13");
    assert_eq!(game.history().len(), 17);
    assert!(game.history().iter().all(|p| p.mv.is_some()));
    // Calls 15 and 16 are free moves: their last move points at a closed board.
    assert_eq!(argvs[16][10], "XX----O--", "master after call 16");
    assert_eq!(game.end(), Some(End::Win(Mark::X)));
    assert_eq!(master(&game), "XXX---O--");
    let b = boards(&game);
    assert_eq!(b[0], "X--X--X--");
    assert_eq!(b[1], "--X--X--X");
    assert_eq!(b[2], "O-----XXX");
    assert_eq!(b[3], "--O------");
    assert_eq!(b[4], "---------");
    assert_eq!(b[5], "--O------");
    assert_eq!(b[6], "OOO------");
    assert_eq!(b[7], "-O-------");
    assert_eq!(b[8], "-O-------");
    assert_eq!(game.open_spots(), 64);
    assert_eq!(game.points(), [164, 0]);
}

#[test]
fn v7_calls_15_and_16_are_free() {
    let outs = words("15 52 26 61 12 20 06 60 03 32 27 71 18 81 00 62 28");
    let (before15, _) = play(250, &outs[..14]);
    assert_eq!(before15.forced_board(), None);
    let (before16, _) = play(250, &outs[..15]);
    assert_eq!(before16.forced_board(), None);
}

fn v8_x(i: u32) -> Vec<u8> {
    let moves = ["00", "01", "02", "10", "11", "12", "20", "21", "22"];
    moves
        .get(i as usize - 1)
        .map_or(Vec::new(), |m| m.as_bytes().to_vec())
}

#[test]
fn v8_silent_opponent() {
    let game = play_scripted(250, v8_x, |_| Vec::new());
    assert_eq!(game.calls(), 17);
    assert_eq!(game.end(), Some(End::Win(Mark::X)));
    assert_eq!(master(&game), "XXX------");
    assert_eq!(game.open_spots(), 72);
    assert_eq!(game.points(), [172, -8]);
    for (i, p) in game.history().iter().enumerate() {
        if p.mark == Mark::X {
            assert!(p.mv.is_some(), "call {}", i + 1);
        }
    }
    let limited = play_scripted(17, v8_x, |_| Vec::new());
    assert_eq!(limited.end(), Some(End::Win(Mark::X)));
    assert_eq!(limited.points(), [172, -8]);
    let cut = play_scripted(16, v8_x, |_| Vec::new());
    assert_eq!(cut.end(), Some(End::RoundLimit));
    assert_eq!(cut.points(), [-10, -18]);
}

#[test]
fn v8_every_x_call_gets_xx() {
    let (_, argvs) = play(250, &words("00  01  02  10  11  12  20  21  22"));
    for (i, argv) in argvs.iter().enumerate() {
        if i % 2 == 0 {
            assert_eq!(argv[11], "xx", "call {}", i + 1);
        }
    }
}

#[test]
fn v9_round_limit() {
    let once44 = |i: u32| if i == 1 { b"44".to_vec() } else { Vec::new() };
    let game = play_scripted(250, once44, |_| Vec::new());
    assert_eq!(game.calls(), 250);
    assert_eq!(game.end(), Some(End::RoundLimit));
    assert_eq!(
        [game.illegal_calls(Mark::X), game.illegal_calls(Mark::O)],
        [124, 125]
    );
    assert_eq!(game.points(), [-134, -135]);
    let short = play_scripted(10, once44, |_| Vec::new());
    assert_eq!(
        [short.illegal_calls(Mark::X), short.illegal_calls(Mark::O)],
        [4, 5]
    );
    assert_eq!(short.points(), [-14, -15]);
}

#[test]
fn v10_no_legal_move_left_is_a_draw() {
    let outs = "68 83 38 84 46 64 42 25 58 85 52 22 23 34 44 28 71 14 76 67 77 78 55 61 12 32 74 36 03 10 06 18 00";
    let (game, _) = play(250, &words(outs));
    assert_eq!(game.calls(), 33);
    assert!(game.history().iter().all(|p| p.mv.is_some()));
    assert_eq!(master(&game), "XOOOXXOXO");
    assert_eq!(game.end(), Some(End::Draw));
    assert_eq!(game.open_spots(), 48);
    assert_eq!(game.points(), [0, 0]);
}

#[test]
fn v11_first_legal_against_itself() {
    let mut game = Game::new(250);
    let mut played = Vec::new();
    while !game.is_over() {
        let mv = game.legal_moves()[0];
        played.push(mv.to_string());
        game.apply(game_meta_ttt::Call::Move(mv)).unwrap();
    }
    let expected = "00 01 10 02 20 03 30 04 40 05 50 11 12 21 13 31 14 41 15 51 22 23 32 24 42 25 52 33 34 43 35 53 36 60 44 45 54 46 61 47 70 48 80 55 56 62 63 64 65 66";
    assert_eq!(played.join(" "), expected);
    assert_eq!(master(&game), "OXOXOXO--");
    assert_eq!(game.end(), Some(End::Win(Mark::O)));
    assert_eq!(game.open_spots(), 31);
    assert_eq!(game.points(), [0, 131]);
}
