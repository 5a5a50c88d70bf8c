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

/// The shared leaderboard: total credits, ties by name; `tournaments`
/// (finished) and `wins` (first places, shared ones included).
pub fn leaderboard(totals: &Totals, faults: &[FaultCounts], names: &[String]) -> Leaderboard {
    Leaderboard {
        columns: vec!["tournaments".to_string(), "wins".to_string()],
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
                    faults: f,
                    extra: vec![json!(s.tournaments), json!(s.wins)],
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
    Ok(match format {
        Format::Text => totals.table(),
        Format::Md => leaderboard(&totals, &faults, &names).to_markdown(),
        Format::Json => leaderboard(&totals, &faults, &names).to_json(),
        Format::Csv => leaderboard(&totals, &faults, &names).to_csv(),
    })
}
