//! forty's part of the HTML report: win % with its 95 % confidence
//! interval, best first, and each bot's own time per turn. forty stores
//! blocks of totals, not games, so it has no replays; `referee play forty`
//! plays games with a transcript.

use super::blocks::load_blocks;
use super::{names, settings};
use crate::error::{Error, Result};
use crate::report::charts::{self, Bar};
use crate::report::{ReportData, Section};
use crate::results::{Store, TournamentRow};
use crate::tournament::TournamentSpec;
use game_forty::report::{standing_rows, ReportInput};
use game_forty::Aggregate;

/// The report of a stored forty tournament.
pub fn report(store: &Store, row: &TournamentRow, spec: &TournamentSpec) -> Result<ReportData> {
    let s = settings(spec).map_err(Error::machine)?;
    let mut total = Aggregate::new(spec.bots.len());
    let mut stored = 0u64;
    load_blocks(store, spec, &s, |_, record| {
        stored += record.games[1].saturating_sub(record.games[0]);
        total.merge(&record.aggregate);
    })?;
    let names = names(spec);
    let input = ReportInput {
        names: &names,
        aggregate: &total,
        wall_seconds: row.play_seconds,
    };
    let rows = standing_rows(&input);
    let win: Vec<Bar> = rows
        .iter()
        .map(|r| Bar {
            label: if r.disqualified {
                format!("{} (DQ)", r.name)
            } else {
                r.name.clone()
            },
            value: r.score,
            interval: r.ci_low.zip(r.ci_high),
        })
        .collect();
    let mut by_time: Vec<&game_forty::report::StandingRow> = rows.iter().collect();
    by_time.sort_by(|a, b| per_turn(b).total_cmp(&per_turn(a)));
    let time: Vec<Bar> = by_time
        .iter()
        .map(|r| Bar {
            label: r.name.clone(),
            value: per_turn(r),
            interval: None,
        })
        .collect();
    Ok(ReportData {
        planned: Some(s.games),
        stored,
        unit: "games",
        sections: vec![
            Section {
                title: "Win % with 95 % confidence".into(),
                html: charts::bars("win % (bar: 95 % Wilson interval)", &win),
            },
            Section {
                title: "Time per turn".into(),
                html: charts::bars("the bot's own decision time per turn, ms", &time),
            },
        ],
        replays: Vec::new(),
        replay_note: Some(
            "forty stores each block's totals, not its games: `referee play forty BOT...` plays games with a transcript."
                .into(),
        ),
    })
}

/// A bot's own decision time per turn, in milliseconds.
fn per_turn(r: &game_forty::report::StandingRow) -> f64 {
    if r.turns == 0 {
        0.0
    } else {
        r.time * 1000.0 / r.turns as f64
    }
}
