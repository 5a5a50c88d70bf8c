//! `referee report`: one self-contained HTML page about a stored
//! tournament, built from the results database alone (like `standings`):
//! its settings, seed, dates and play time, the standings in the
//! challenge's own format, each bot's faults by kind and why it stopped,
//! the challenge's pictures ([`Challenge::report`](crate::challenge::Challenge::report))
//! and replays of stored games. Everything is inline: the page opens from
//! a USB stick. The live page (`--serve`, [`serve`]) serves the same page.

pub mod charts;
pub mod html;
pub mod serve;

use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::Format;
use crate::tournament::TournamentSpec;

/// Every stored game of a tournament up to this many is embedded as a
/// replay; past it, a sample and each bot's latest losses.
pub const EMBED_ALL_UP_TO: usize = 200;
/// Games in the sample of a big tournament.
pub const SAMPLE: usize = 30;
/// Losses embedded per bot in a big tournament.
pub const LOSSES_PER_BOT: usize = 2;

/// What a challenge adds to its report.
#[derive(Debug, Default)]
pub struct ReportData {
    /// Games (matches, duels, blocks) the whole tournament plans, when
    /// known: with the stored count, the progress and ETA.
    pub planned: Option<u64>,
    /// Games stored so far, in the same unit as `planned`.
    pub stored: u64,
    /// What a game is called in the progress line ("games", "duels").
    pub unit: &'static str,
    /// Pictures and tables, in order.
    pub sections: Vec<Section>,
    /// Replays of stored games.
    pub replays: Vec<Replay>,
    /// What was left out of the replays and how to see any other game
    /// (`referee play ...`).
    pub replay_note: Option<String>,
}

/// A titled part of the page: `html` is trusted markup the challenge built
/// with [`html::escape`] around everything a bot or organiser named.
#[derive(Debug, Clone)]
pub struct Section {
    pub title: String,
    pub html: String,
}

/// One stored game shown again.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    /// The game in one line: who played whom, and the result.
    pub title: String,
    /// Shown above the frames (trusted markup).
    pub html: String,
    /// Positions to step through, each a caption and trusted markup; none
    /// for a game shown whole.
    pub frames: Vec<Frame>,
    /// The command that plays the game again with a transcript.
    pub command: Option<String>,
}

/// One position of a replay.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub caption: String,
    /// Trusted markup shown with the caption.
    pub html: String,
    /// A board drawn by the page's script (a few bytes a position instead
    /// of a table each).
    pub grid: Option<Grid>,
}

/// A square board of `side`×`side` cells in blocks of `block`×`block`
/// (meta-ttt: 9 and 3), drawn by the page's script.
#[derive(Debug, Clone)]
pub struct Grid {
    pub side: usize,
    pub block: usize,
    /// One character a cell, row by row: a mark, or `.` for empty.
    pub cells: String,
    /// The blocks' owners, block by block (`.` for none): tinted.
    pub blocks: String,
    /// The cell played last (row-major index), highlighted.
    pub last: Option<usize>,
}

/// Which of `n` games (in a fixed order) a report embeds: all of a small
/// tournament; else an even sample plus, for each bot, its last
/// [`LOSSES_PER_BOT`] losses (`loser_of(i)` names game i's losers).
pub fn choose_replays(n: usize, bots: usize, loser_of: impl Fn(usize) -> Vec<usize>) -> Vec<usize> {
    if n <= EMBED_ALL_UP_TO {
        return (0..n).collect();
    }
    let mut chosen: std::collections::BTreeSet<usize> =
        (0..SAMPLE).map(|k| k * n / SAMPLE).collect();
    let mut losses = vec![0usize; bots];
    for i in (0..n).rev() {
        for b in loser_of(i) {
            if let Some(count) = losses.get_mut(b) {
                if *count < LOSSES_PER_BOT {
                    *count += 1;
                    chosen.insert(i);
                }
            }
        }
        if losses.iter().all(|&c| c >= LOSSES_PER_BOT) {
            break;
        }
    }
    chosen.into_iter().collect()
}

/// Everything the page shows, read from the database.
#[derive(Debug)]
pub struct Content {
    pub spec: TournamentSpec,
    pub row: TournamentRow,
    pub times: crate::results::TournamentTimes,
    pub standings_text: String,
    /// The json standings: the shared columns of every bot.
    pub rows: Vec<serde_json::Value>,
    pub data: ReportData,
}

/// Reads what the page of tournament `row` shows.
pub fn content(store: &Store, row: &TournamentRow) -> Result<Content> {
    let (spec, challenge) = crate::challenge::stored(row)?;
    let standings_text = crate::app::render_standings(store, row.id, Format::Text)?;
    let json = crate::app::render_standings(store, row.id, Format::Json)?;
    let rows = match serde_json::from_str::<serde_json::Value>(&json) {
        Ok(serde_json::Value::Array(rows)) => rows,
        _ => Vec::new(),
    };
    let data = challenge.get().report(store, row, &spec)?;
    let times = store.tournament_times(row.id)?;
    Ok(Content {
        spec,
        row: row.clone(),
        times,
        standings_text,
        rows,
        data,
    })
}

/// The page of tournament `row`; `live` adds the script that follows a
/// running tournament (`--serve`).
pub fn page(store: &Store, row: &TournamentRow, live: bool) -> Result<String> {
    Ok(html::page(&content(store, row)?, live))
}

/// `referee report`: writes the page of the database's latest tournament
/// (or `tournament`) to `out`.
pub fn write(db: &std::path::Path, tournament: Option<i64>, out: &std::path::Path) -> Result<()> {
    if !db.exists() {
        return Err(Error::input(format!(
            "{}: no results database here",
            db.display()
        )));
    }
    let store = Store::open_read_only(db)?;
    let row = store
        .find_tournament(tournament)?
        .ok_or_else(|| Error::input(format!("{}: no tournament recorded", db.display())))?;
    let page = page(&store, &row, false)?;
    std::fs::write(out, page)
        .map_err(|e| Error::machine(format!("{}: cannot write the report: {e}", out.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tournaments_embed_every_game_big_ones_a_sample_and_losses() {
        assert_eq!(choose_replays(3, 2, |_| vec![0]), vec![0, 1, 2]);
        let n = 10 * EMBED_ALL_UP_TO;
        // Bot 2 loses only game 7; bot 1 loses every game.
        let chosen = choose_replays(n, 3, |i| if i == 7 { vec![1, 2] } else { vec![1] });
        assert!(chosen.contains(&7), "bot 2's loss");
        assert!(
            chosen.contains(&(n - 1)) && chosen.contains(&(n - 2)),
            "bot 1's last losses"
        );
        assert!(chosen.len() <= SAMPLE + 3 * LOSSES_PER_BOT);
        assert!(chosen.windows(2).all(|w| w[0] < w[1]));
    }
}
