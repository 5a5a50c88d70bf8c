//! The standings of a stored heist run: totals over its finished
//! tournaments, read from their checkpoints.

use super::series::load_state;
use super::{settings, tournament_key};
use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::{Format, Leaderboard, Row};
use crate::tournament::TournamentSpec;
use game_core::FaultCounts;
use game_heist::Totals;
use serde_json::json;

/// Totals over the finished tournaments of a stored run, with faults.
fn stored_totals(
    store: &Store,
    spec: &TournamentSpec,
) -> Result<(Totals, Vec<FaultCounts>, Vec<String>)> {
    let settings = settings(spec).map_err(Error::machine)?;
    let names: Vec<String> = spec.bots.iter().map(|b| b.name.clone()).collect();
    let mut totals = Totals::new(names.clone());
    let mut faults = vec![FaultCounts::default(); names.len()];
    for t in 1..=settings.tournaments {
        let key = tournament_key(spec, &settings, t);
        let Some(state) = load_state(store, &key, t)? else {
            continue;
        };
        if state.tournament.is_finished() {
            totals.add_tournament(&state.tournament.credits());
            for (sum, f) in faults.iter_mut().zip(&state.faults) {
                sum.merge(f);
            }
        }
    }
    Ok((totals, faults, names))
}

/// The shared leaderboard: total credits, ties by name; `played` the
/// finished tournaments and `wins` the first places in them (shared ones
/// included).
pub fn leaderboard(totals: &Totals, faults: &[FaultCounts], names: &[String]) -> Leaderboard {
    Leaderboard {
        columns: Vec::new(),
        rows: totals
            .standings()
            .into_iter()
            .map(|s| {
                let f = names
                    .iter()
                    .position(|n| *n == s.name)
                    .and_then(|i| faults.get(i))
                    .map(|f| {
                        f.0.iter()
                            .map(|(k, v)| (k.name().to_string(), *v))
                            .collect()
                    })
                    .unwrap_or_default();
                Row {
                    rank: s.rank,
                    name: s.name,
                    score: json!(s.score),
                    played: Some(u64::from(s.tournaments)),
                    wins: Some(u64::from(s.wins)),
                    faults: f,
                    ..Row::default()
                }
            })
            .collect(),
    }
}

/// The leaderboard of a stored heist run.
pub(super) fn standings(
    store: &Store,
    _row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let (totals, faults, names) = stored_totals(store, spec)?;
    let board = leaderboard(&totals, &faults, &names);
    Ok(match format {
        Format::Text => board.with_notes(totals.table()),
        Format::Md => board.with_notes(board.to_markdown()),
        Format::Json => board.to_json(),
        Format::Csv => board.to_csv(),
    })
}
