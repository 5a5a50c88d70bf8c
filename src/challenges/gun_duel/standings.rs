//! The standings of a stored gun-duel tournament: the stored duels replayed
//! through the crate's tournament (complete rounds only), then its tables.

use super::{key_prefix, load, record_stored, resolve, StoredDuel};
use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::{Format, Leaderboard, Row};
use crate::tournament::TournamentSpec;
use game_core::FaultCounts;
use game_gun_duel::{final_table, ranking, standings_csv, BotRecord, Settings, Tournament};
use serde_json::json;
use std::collections::HashMap;

/// The tournament as far as the stored duels take it: every complete
/// round is scored and eliminated; a partial round is left out (its
/// faults still count).
fn replay(
    spec: &TournamentSpec,
    settings: &Settings,
    stored: &HashMap<String, StoredDuel>,
) -> Result<(Tournament, Vec<FaultCounts>)> {
    let prefix = key_prefix(spec);
    let mut t = Tournament::new(spec.bots.len(), settings.duels_per_pair, spec.seed);
    let mut faults = vec![FaultCounts::default(); spec.bots.len()];
    while let Some(mut round) = t.start_round() {
        record_stored(&mut round, stored, &prefix, &mut faults)?;
        if !round.is_complete() {
            break;
        }
        t.finish_round(round).map_err(Error::machine)?;
    }
    Ok((t, faults))
}

pub(super) fn names_and_languages(spec: &TournamentSpec) -> (Vec<&str>, Vec<&str>) {
    (
        spec.bots.iter().map(|b| b.name.as_str()).collect(),
        spec.bots
            .iter()
            .map(|b| b.language.as_deref().unwrap_or("-"))
            .collect(),
    )
}

/// The shared leaderboard (json): `score` is the total, plus `language`,
/// `rounds_survived` and `round_points`.
fn leaderboard(records: &[BotRecord], faults: &[FaultCounts]) -> Leaderboard {
    Leaderboard {
        columns: ["language", "rounds_survived", "round_points"]
            .map(String::from)
            .to_vec(),
        rows: ranking(records)
            .into_iter()
            .map(|(rank, i)| {
                let r = &records[i];
                Row {
                    rank,
                    name: r.name.clone(),
                    score: json!(r.total),
                    faults: faults
                        .get(i)
                        .map(|f| {
                            f.0.iter()
                                .map(|(k, v)| (k.name().to_string(), *v))
                                .collect()
                        })
                        .unwrap_or_default(),
                    extra: vec![
                        json!(r.language),
                        json!(r.rounds_survived),
                        json!(r.history),
                    ],
                }
            })
            .collect(),
    }
}

/// The leaderboard of a stored gun-duel tournament.
pub(super) fn standings(
    store: &Store,
    _row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let (settings, _) = resolve(spec).map_err(Error::machine)?;
    let stored = load(store, spec)?;
    let (t, faults) = replay(spec, &settings, &stored)?;
    let (names, languages) = names_and_languages(spec);
    let records = t.records(&names, &languages);
    Ok(match format {
        Format::Text | Format::Md => final_table(&records),
        Format::Json => leaderboard(&records, &faults).to_json(),
        Format::Csv => standings_csv(&records),
    })
}
