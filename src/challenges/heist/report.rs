//! heist's part of the HTML report: each bot's credits over the games of
//! each tournament, and stored games' log blocks.

use super::series::{tournament_key, StoredGame};
use super::settings;
use crate::error::{Error, Result};
use crate::report::charts::{self, Line};
use crate::report::html::escape;
use crate::report::{choose_replays, Replay, ReportData, Section};
use crate::results::Store;
use crate::tournament::TournamentSpec;

/// Tournaments charted one by one; the rest are summed up in a note.
const CHARTED: u32 = 4;

/// The report of a stored heist run.
pub fn report(store: &Store, spec: &TournamentSpec) -> Result<ReportData> {
    let s = settings(spec).map_err(Error::machine)?;
    let mut games: Vec<StoredGame> = Vec::new();
    let mut sections = Vec::new();
    for t in 1..=s.tournaments {
        let key = tournament_key(spec, &s, t);
        let mut these: Vec<StoredGame> = store
            .games_with_prefix(&spec.challenge, &format!("{key}/g"))?
            .into_iter()
            .filter_map(|row| serde_json::from_str(&row.record).ok())
            .collect();
        these.sort_by_key(|g| g.game);
        if t <= CHARTED && !these.is_empty() {
            let lines: Vec<Line> = spec
                .bots
                .iter()
                .enumerate()
                .map(|(i, bot)| Line {
                    name: bot.name.clone(),
                    points: these
                        .iter()
                        .filter_map(|g| Some((f64::from(g.game), g.bots.get(i)?.credits as f64)))
                        .collect(),
                })
                .collect();
            sections.push(Section {
                title: format!("Credits over the games, tournament {t}"),
                html: charts::lines("game", "credits after the game", &lines),
            });
        }
        games.extend(these);
    }
    if s.tournaments > CHARTED {
        sections.push(Section {
            title: "More tournaments".into(),
            html: format!(
                "<p class=\"note\">The first {CHARTED} of {} tournaments are charted; the standings add up all of them.</p>",
                s.tournaments
            ),
        });
    }
    let chosen = choose_replays(games.len(), spec.bots.len(), |k| {
        games[k]
            .bots
            .iter()
            .enumerate()
            .filter(|(_, b)| b.success == Some(false))
            .map(|(i, _)| i)
            .collect()
    });
    let replays: Vec<Replay> = chosen
        .iter()
        .filter_map(|&k| games.get(k))
        .map(|g| {
            let best = g
                .bots
                .iter()
                .filter(|b| b.winnings > 0)
                .max_by_key(|b| b.winnings)
                .map(|b| format!(", best: {} ({:+})", b.name, b.winnings))
                .unwrap_or_default();
            Replay {
                title: format!(
                    "Tournament {}, game {}: {} players, {} heisters{best}",
                    g.tournament, g.game, g.players, g.heisters
                ),
                html: format!("<pre>{}</pre>", escape(&g.log)),
                frames: Vec::new(),
                command: None,
            }
        })
        .collect();
    let note = Some(format!(
        "{}Games depend on the ones before them: `referee play heist BOT... --games N --seed N` plays a series from the start with its log.",
        if replays.len() < games.len() {
            format!(
                "{} of {} games shown (a sample and each bot's last failed heists). ",
                replays.len(),
                games.len()
            )
        } else {
            String::new()
        }
    ));
    Ok(ReportData {
        planned: s.games.map(|g| u64::from(g) * u64::from(s.tournaments)),
        stored: games.len() as u64,
        unit: "games",
        sections,
        replays,
        replay_note: note,
    })
}
