//! meta-ttt's part of the HTML report: the pairwise results matrix,
//! illegal moves and timeouts per bot, and each stored game as a board to
//! step through move by move.

use super::{plan_keys, settings, StoredGame};
use crate::error::{Error, Result};
use crate::report::charts::{self, Bar};
use crate::report::html::escape;
use crate::report::{choose_replays, Frame, Grid, Replay, ReportData, Section};
use crate::results::Store;
use crate::tournament::TournamentSpec;
use game_core::Fault;
use game_meta_ttt::{standings, Call, Game, Illegal, Mark, Move};
use std::fmt::Write;

/// The report of a stored meta-ttt tournament.
pub fn report(store: &Store, spec: &TournamentSpec) -> Result<ReportData> {
    let s = settings(spec).map_err(Error::machine)?;
    let keys = plan_keys(spec).map_err(Error::machine)?;
    let found = store.games(&spec.challenge, &keys)?;
    let pairs = standings::schedule(spec.bots.len());
    let games: Vec<Option<StoredGame>> = keys
        .iter()
        .map(|k| {
            found
                .get(k)
                .and_then(|g| serde_json::from_str(&g.record).ok())
        })
        .collect();
    let names: Vec<String> = spec.bots.iter().map(|b| b.name.clone()).collect();
    let n = names.len();

    // Row bot's points against the column bot, over both colours.
    let mut points = vec![vec![None::<(i64, i64, u32)>; n]; n];
    let mut illegal = vec![0u64; n];
    let mut timeouts = vec![0u64; n];
    for (&(x, o), g) in pairs.iter().zip(&games) {
        let Some(g) = g else { continue };
        let r = &g.record;
        for (me, them, k) in [(x, o, 0usize), (o, x, 1usize)] {
            let cell = points[me][them].get_or_insert((0, 0, 0));
            cell.0 += r.points[k];
            cell.1 += r.points[1 - k];
            if r.winner.map(Mark::index) == Some(k) {
                cell.2 += 1;
            }
            illegal[me] += u64::from(r.illegal[k]);
            timeouts[me] += r.faults[k].0.get(&Fault::Timeout).copied().unwrap_or(0);
        }
    }
    let cells: Vec<Vec<Option<(f64, String)>>> = points
        .iter()
        .map(|row| {
            row.iter()
                .map(|c| {
                    c.map(|(mine, theirs, wins)| {
                        // Even at 0.5; a 100-point margin is most of the way.
                        let share = 0.5 + 0.5 * ((mine - theirs) as f64 / 100.0).tanh();
                        (share, format!("{mine}:{theirs} ({wins}W)"))
                    })
                })
                .collect()
        })
        .collect();
    // By total points, as the standings.
    let total = |i: usize| -> i64 { points[i].iter().flatten().map(|c| c.0).sum() };
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&i| std::cmp::Reverse(total(i)));
    let mut sections = vec![Section {
        title: "Pairwise results".into(),
        html: charts::heat_map(
            &names,
            &cells,
            &ranked,
            "Each cell: the row bot's points against the column bot over both games (X and O), then its wins. Green: the row bot scored more.",
        ),
    }];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(illegal[i]));
    let bars = |counts: &[u64]| -> Vec<Bar> {
        order
            .iter()
            .map(|&i| Bar {
                label: names[i].clone(),
                value: counts[i] as f64,
                interval: None,
            })
            .collect()
    };
    sections.push(Section {
        title: "Illegal moves per bot".into(),
        html: charts::bars(
            "illegal calls (timeouts and crashes included)",
            &bars(&illegal),
        ),
    });
    sections.push(Section {
        title: "Timeouts per bot".into(),
        html: charts::bars("timeouts", &bars(&timeouts)),
    });

    let stored: Vec<usize> = (0..games.len()).filter(|&i| games[i].is_some()).collect();
    let chosen = choose_replays(stored.len(), n, |k| {
        let i = stored[k];
        let (x, o) = pairs[i];
        match games[i].as_ref().and_then(|g| g.record.winner) {
            Some(Mark::X) => vec![o],
            Some(Mark::O) => vec![x],
            None => Vec::new(),
        }
    });
    let replays = chosen
        .iter()
        .filter_map(|&k| {
            let i = stored[k];
            let g = games[i].as_ref()?;
            Some(replay(g, s.max_rounds, s.timeout_ms, spec, pairs[i]))
        })
        .collect::<Vec<_>>();
    let note = (replays.len() < stored.len()).then(|| {
        format!(
            "{} of {} games shown (a sample and each bot's last losses); `referee play meta-ttt 'CMD_X' 'CMD_O'` plays any pairing again.",
            replays.len(),
            stored.len()
        )
    });
    Ok(ReportData {
        planned: Some(keys.len() as u64),
        stored: stored.len() as u64,
        unit: "games",
        sections,
        replays,
        replay_note: note,
    })
}

/// One stored game replayed on the rules, a board per call.
fn replay(
    g: &StoredGame,
    max_rounds: u32,
    timeout_ms: u64,
    spec: &TournamentSpec,
    (x, o): (usize, usize),
) -> Replay {
    let mut game = Game::new(max_rounds);
    let mut frames = vec![Frame {
        caption: "Start: X moves first, anywhere.".into(),
        html: String::new(),
        grid: Some(board(&game)),
    }];
    for (k, mv) in g.record.moves.iter().enumerate() {
        let mark = game.to_move();
        let parsed = mv
            .as_bytes()
            .get(..2)
            .and_then(|d| Move::new(d[0].wrapping_sub(b'0'), d[1].wrapping_sub(b'0')));
        let caption = match parsed {
            Some(m) => {
                let _ = game.apply(Call::Move(m));
                format!("Round {}: {} plays {m}", k + 1, mark.letter())
            }
            None => {
                let _ = game.apply(Call::Failed(Illegal::Garbage, Fault::IllegalMove));
                format!(
                    "Round {}: {} made an illegal call (no move)",
                    k + 1,
                    mark.letter()
                )
            }
        };
        frames.push(Frame {
            caption,
            html: String::new(),
            grid: Some(board(&game)),
        });
    }
    let result = match (g.record.winner, g.record.end) {
        (Some(m), _) => format!("{} wins", if m == Mark::X { &g.x } else { &g.o }),
        (None, Some(game_meta_ttt::End::RoundLimit)) => "no winner at the round limit".into(),
        _ => "draw".into(),
    };
    let mut html = String::new();
    let _ = write!(
        html,
        "<p>X: <b>{}</b> ({} points, {} illegal) · O: <b>{}</b> ({} points, {} illegal) · {} calls</p>",
        escape(&g.x),
        g.record.points[0],
        g.record.illegal[0],
        escape(&g.o),
        g.record.points[1],
        g.record.illegal[1],
        g.record.calls
    );
    Replay {
        title: format!("{} (X) vs {} (O): {result}", g.x, g.o),
        html,
        frames,
        command: Some(format!(
            "referee play meta-ttt --timeout-ms {timeout_ms} --max-rounds {max_rounds} '{}' '{}'",
            spec.bots[x].command.replace('\'', "'\\''"),
            spec.bots[o].command.replace('\'', "'\\''")
        )),
    }
}

/// The 9×9 board, row by row, with the small boards' owners and the last
/// move, for the page's script to draw.
fn board(game: &Game) -> Grid {
    let mut cells = String::with_capacity(81);
    let mut last = None;
    for r in 0..9u8 {
        for c in 0..9u8 {
            let (b, t) = ((r / 3) * 3 + c / 3, (r % 3) * 3 + c % 3);
            cells.push(game.cell(b, t).map_or('.', Mark::letter));
            if game.last_move() == Some(Move { board: b, tile: t }) {
                last = Some(usize::from(r) * 9 + usize::from(c));
            }
        }
    }
    let blocks = (0..9u8)
        .map(|b| game.board_owner(b).map_or('.', Mark::letter))
        .collect();
    Grid {
        side: 9,
        block: 3,
        cells,
        blocks,
        last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_is_read_row_by_row_with_the_last_move() {
        let mut game = Game::new(100);
        // Board 4 (the centre), tile 0 (its top left): row 3, column 3.
        let _ = game.apply(Call::Move(Move { board: 4, tile: 0 }));
        let g = board(&game);
        assert_eq!(g.cells.len(), 81);
        assert_eq!(g.cells.chars().nth(3 * 9 + 3), Some('X'));
        assert_eq!(g.cells.matches('X').count(), 1);
        assert_eq!(g.last, Some(30));
        assert_eq!(g.blocks, ".........");
    }
}
