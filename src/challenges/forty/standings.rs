//! The standings of a stored forty tournament: every stored block merged,
//! as forty's own report (text) or the shared leaderboard (md, json, csv).

use super::blocks::stored_total;
use super::{names, settings};
use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::{rounded, Format, Leaderboard, Row};
use crate::tournament::TournamentSpec;
use game_forty::report::{self, ReportInput};
use serde_json::json;

/// The leaderboard of a stored forty tournament.
pub fn standings(
    store: &Store,
    row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let s = settings(spec).map_err(Error::machine)?;
    let total = stored_total(store, spec, &s)?;
    let names = names(spec);
    let input = ReportInput {
        names: &names,
        aggregate: &total,
        wall_seconds: row.play_seconds,
    };
    let board = leaderboard(&input, s.max_crashes);
    Ok(match format {
        Format::Text => board.with_notes(report::report(&input, None)),
        Format::Md => board.with_notes(board.to_markdown()),
        Format::Json => board.to_json(),
        Format::Csv => board.to_csv(),
    })
}

/// The shared leaderboard: Win% as the score, the bot table's columns,
/// rounded as the bot table shows them; `max_crashes` names why a bot was
/// disqualified.
pub fn leaderboard(input: &ReportInput<'_>, max_crashes: u32) -> Leaderboard {
    let rows = report::standing_rows(input);
    Leaderboard {
        columns: [
            "max",
            "avg",
            "avg_win",
            "throws",
            "success",
            "ci_low",
            "ci_high",
            "time",
            "charged_time",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .into_iter()
            .map(|r| Row {
                rank: r.rank,
                name: r.name,
                score: rounded(r.score, 1),
                played: Some(r.played),
                wins: Some(r.wins),
                draws: None,
                losses: None,
                faults: r
                    .faults
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), *v))
                    .collect(),
                out: r
                    .disqualified
                    .then(|| format!("disqualified after {max_crashes} crashes")),
                cpu_seconds: Some(r.cpu_time),
                extra: vec![
                    json!(r.max),
                    rounded(r.avg, 2),
                    rounded(r.avg_win, 2),
                    rounded(r.throws, 2),
                    rounded(r.success, 2),
                    json!(r.ci_low.map(|x| (x * 10.0).round() / 10.0)),
                    json!(r.ci_high.map(|x| (x * 10.0).round() / 10.0)),
                    rounded(r.time, 2),
                    rounded(r.charged_time, 2),
                ],
            })
            .collect(),
    }
}
