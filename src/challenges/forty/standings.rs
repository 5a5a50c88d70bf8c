//! The standings of a stored forty tournament: every stored block merged,
//! as forty's own report (text) or the shared leaderboard (md, json, csv).

use super::blocks::stored_total;
use super::{names, settings};
use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::{Format, Leaderboard, Row};
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
    Ok(match format {
        Format::Text => report::report(&input, None),
        Format::Md => leaderboard(&input).to_markdown(),
        Format::Json => leaderboard(&input).to_json(),
        Format::Csv => leaderboard(&input).to_csv(),
    })
}

/// The shared leaderboard: Win% as the score, the bot table's columns.
pub fn leaderboard(input: &ReportInput<'_>) -> Leaderboard {
    let rows = report::standing_rows(input);
    Leaderboard {
        columns: [
            "wins",
            "played",
            "max",
            "avg",
            "avg_win",
            "throws",
            "success",
            "ci_low",
            "ci_high",
            "time",
            "charged_time",
            "cpu_time",
            "disqualified",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .into_iter()
            .map(|r| Row {
                rank: r.rank,
                name: r.name,
                score: json!(r.score),
                faults: r
                    .faults
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), *v))
                    .collect(),
                extra: vec![
                    json!(r.wins),
                    json!(r.played),
                    json!(r.max),
                    json!(r.avg),
                    json!(r.avg_win),
                    json!(r.throws),
                    json!(r.success),
                    json!(r.ci_low),
                    json!(r.ci_high),
                    json!(r.time),
                    json!(r.charged_time),
                    json!(r.cpu_time),
                    json!(r.disqualified),
                ],
            })
            .collect(),
    }
}
