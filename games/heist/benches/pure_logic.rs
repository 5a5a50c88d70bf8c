//! §10.1: 1000 games with 500 rabble and 11 in-process stub bots, on one
//! core. The goal is under 50 ms in total (release build).
//!
//! Run: `cargo bench -p game-heist --bench pure_logic`

use std::time::Instant;

use game_core::Reply;
use game_heist::{game_dice, Request, Round, Tournament};

/// In-process stand-ins for bots: (round-1 bet, round-2 answer).
fn stub(request: &Request) -> Reply {
    let credits = request.args.credits;
    let (bet, answer): (i64, &[u8]) = match request.bot {
        0 => (1, b"guncheck"),
        1 => (credits / 10, b"double cross"),
        2 => (0, b""),
        3 => (69, b"finger"),
        4 => (credits / 4, b"deposit"),
        5 => (credits / 20, b"withdraw"),
        6 => (10, b"buy guard"),
        7 => (credits / 2, b"all in"),
        8 => (25, b"acquire intel"),
        9 => (credits / 3, b"back out"),
        _ => (5, b"change jobs"),
    };
    match request.round {
        Round::Stakes => Reply::exited(bet.to_string(), 0),
        Round::Decisions => Reply::exited(answer.to_vec(), 0),
    }
}

fn main() {
    let names: Vec<String> = (0..11).map(|i| format!("stub{i}")).collect();
    // `cargo bench` passes `--bench`; a number among the arguments sets the runs.
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5u64);
    let mut best = f64::INFINITY;
    let mut checksum = 0i64;
    for run in 0..runs {
        let mut tournament = Tournament::new(names.clone(), 500, 1000).expect("valid names");
        let started = Instant::now();
        while !tournament.is_finished() {
            let dice = game_dice(42 + run, 1, tournament.next_game());
            let report = tournament.play_game(dice, stub);
            // The runner writes every block to the tournament log.
            let block = report.log_block(tournament.names());
            checksum = checksum.wrapping_add((report.players + block.len()) as i64);
        }
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        best = best.min(elapsed);
        println!("run {run}: 1000 games, 500 rabble, 11 stubs: {elapsed:.1} ms");
    }
    println!("best: {best:.1} ms (goal: under 50 ms); checksum {checksum}");
}
