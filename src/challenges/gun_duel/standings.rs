//! The standings of a stored gun-duel tournament: the stored duels replayed
//! through the crate's tournament (complete rounds only), then its tables.
//! Duels are read a round at a time (the replay) or one at a time (the
//! tallies), so the standings of a long tournament cost no more memory than
//! its play.

use super::{key_prefix, record_stored, resolve, scan_summaries, DuelSummary};
use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::{Format, Leaderboard, Row};
use crate::tournament::TournamentSpec;
use game_core::Fault;
use game_core::FaultCounts;
use game_gun_duel::{
    final_table, ranking, BotRecord, DuelId, Interface, Settings, Side, Tournament,
};
use serde_json::json;

/// The tournament as far as the stored duels take it: every complete
/// round is scored and eliminated; a partial round is left out (its
/// faults still count).
fn replay(
    store: &Store,
    spec: &TournamentSpec,
    settings: &Settings,
) -> Result<(Tournament, Vec<FaultCounts>)> {
    let prefix = key_prefix(spec);
    let mut t = Tournament::new(spec.bots.len(), settings.duels_per_pair, spec.seed);
    let mut faults = vec![FaultCounts::default(); spec.bots.len()];
    while let Some(mut round) = t.start_round() {
        record_stored(&mut round, store, &spec.challenge, &prefix, &mut faults)?;
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

/// What each bot did in the stored duels (instructions order).
#[derive(Debug, Clone, Default)]
pub(super) struct Tally {
    pub played: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub cpu_seconds: f64,
    /// Why an interface-2 bot is dead (its process gone for the rest of the
    /// tournament), with the duel it died in.
    pub dead: Option<String>,
}

/// The stored duels tallied per bot, read one at a time (a bot's death is
/// the first duel, in duel order, it crashed or timed out in).
pub(super) fn tally(
    store: &Store,
    spec: &TournamentSpec,
    interfaces: &[Interface],
) -> Result<Vec<Tally>> {
    let mut tallies = vec![Tally::default(); spec.bots.len()];
    // The earliest duel each bot died in, and how.
    let mut deaths: Vec<Option<(DuelId, Fault)>> = vec![None; spec.bots.len()];
    scan_summaries(store, spec, |d: DuelSummary| {
        let winner = d.outcome.winner();
        for (seat, side) in [(d.duel.a, Side::A), (d.duel.b, Side::B)] {
            let Some(t) = tallies.get_mut(seat) else {
                continue;
            };
            let k = side.index();
            t.played += 1;
            t.cpu_seconds += d.cpu_seconds[k];
            match winner {
                None => t.draws += 1,
                Some(w) if w == side => t.wins += 1,
                Some(_) => t.losses += 1,
            }
            let io = interfaces.get(seat) == Some(&Interface::Io);
            let Some(death) = deaths.get_mut(seat) else {
                continue;
            };
            let earlier = death.is_some_and(|(first, _)| first < d.duel);
            if io && !earlier {
                let f = &d.faults[k];
                let kind = [Fault::Timeout, Fault::Crash, Fault::Sandbox]
                    .into_iter()
                    .find(|k| f.0.get(k).copied().unwrap_or(0) > 0);
                if let Some(kind) = kind {
                    *death = Some((d.duel, kind));
                }
            }
        }
    })?;
    for (t, death) in tallies.iter_mut().zip(deaths) {
        if let Some((duel, kind)) = death {
            let how = match kind {
                Fault::Timeout => "its process timed out",
                Fault::Crash => "its process ended",
                _ => "the sandbox stopped its process",
            };
            t.dead = Some(format!(
                "dead from round {}: {how}; no move after that",
                duel.round
            ));
        }
    }
    Ok(tallies)
}

/// The shared leaderboard: `score` is the total, plus `language`,
/// `rounds_survived`, `round_points` (json: an array; csv: `round_1`, ...).
fn leaderboard(
    records: &[BotRecord],
    faults: &[FaultCounts],
    tallies: &[Tally],
    csv: bool,
) -> Leaderboard {
    let rounds = records.iter().map(|r| r.history.len()).max().unwrap_or(0);
    let mut columns: Vec<String> = ["language", "rounds_survived"].map(String::from).to_vec();
    if csv {
        columns.extend((1..=rounds).map(|r| format!("round_{r}")));
    } else {
        columns.push("round_points".into());
    }
    Leaderboard {
        columns,
        rows: ranking(records)
            .into_iter()
            .map(|(rank, i)| {
                let r = &records[i];
                let t = tallies.get(i).cloned().unwrap_or_default();
                let mut extra = vec![json!(r.language), json!(r.rounds_survived)];
                if csv {
                    extra.extend((0..rounds).map(|k| json!(r.history.get(k))));
                } else {
                    extra.push(json!(r.history));
                }
                Row {
                    rank,
                    name: r.name.clone(),
                    score: json!(r.total),
                    played: Some(t.played),
                    wins: Some(t.wins),
                    draws: Some(t.draws),
                    losses: Some(t.losses),
                    faults: faults
                        .get(i)
                        .map(|f| {
                            f.0.iter()
                                .map(|(k, v)| (k.name().to_string(), *v))
                                .collect()
                        })
                        .unwrap_or_default(),
                    out: t.dead,
                    cpu_seconds: Some(t.cpu_seconds),
                    extra,
                }
            })
            .collect(),
    }
}

/// A stored tournament as far as its duels take it.
pub(super) struct Stored {
    /// Every bot's record, in instructions order.
    pub records: Vec<BotRecord>,
    /// Faults of the complete rounds' duels.
    pub faults: Vec<FaultCounts>,
    pub tallies: Vec<Tally>,
}

/// The replayed tournament, its records and faults, and the tallies.
pub(super) fn stored_records(store: &Store, spec: &TournamentSpec) -> Result<Stored> {
    let (settings, interfaces) = resolve(spec).map_err(Error::machine)?;
    let (t, faults) = replay(store, spec, &settings)?;
    let (names, languages) = names_and_languages(spec);
    let records = t.records(&names, &languages);
    let tallies = tally(store, spec, &interfaces)?;
    Ok(Stored {
        records,
        faults,
        tallies,
    })
}

/// The leaderboard of a stored gun-duel tournament: the original final
/// table (text, md) with the winner named under it: the last bot standing,
/// ranked first even when a bot that left earlier has more points.
pub(super) fn standings(
    store: &Store,
    _row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let s = stored_records(store, spec)?;
    let board = leaderboard(&s.records, &s.faults, &s.tallies, format == Format::Csv);
    Ok(match format {
        Format::Text | Format::Md => board.with_notes(final_table(&s.records)),
        Format::Json => board.to_json(),
        Format::Csv => board.to_csv(),
    })
}
