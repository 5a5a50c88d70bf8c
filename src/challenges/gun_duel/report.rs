//! gun-duel's part of the HTML report: the elimination rounds (who went
//! out when, with points), the pairwise win matrix, and stored duels turn
//! by turn with both guns' ammo.

use super::standings::stored_records;
use super::{load, resolve, StoredDuel};
use crate::error::{Error, Result};
use crate::report::charts::{self, Line};
use crate::report::html::escape;
use crate::report::{choose_replays, Replay, ReportData, Section};
use crate::results::Store;
use crate::tournament::TournamentSpec;
use game_gun_duel::{parse_history, ranking, Action, BotRecord, Duel, Side};
use std::fmt::Write;

/// The report of a stored gun-duel tournament.
pub fn report(store: &Store, spec: &TournamentSpec) -> Result<ReportData> {
    let (settings, interfaces) = resolve(spec).map_err(Error::machine)?;
    let records = stored_records(store, spec)?.records;
    let names: Vec<String> = spec.bots.iter().map(|b| b.name.clone()).collect();
    let n = names.len();
    let mut sections = vec![Section {
        title: "Elimination rounds".into(),
        html: format!("{}{}", rounds_table(&records), rounds_chart(&records)),
    }];

    // The replays need whole records (histories), so the report reads
    // every duel at once; the standings never do.
    let stored = load(store, spec)?;
    let duels: Vec<&StoredDuel> = stored.iter().collect();
    // wins[row][col]: duels the row bot won against the column bot; draws.
    let mut wins = vec![vec![0u32; n]; n];
    let mut draws = vec![vec![0u32; n]; n];
    for d in &duels {
        let (a, b) = (d.duel.a, d.duel.b);
        if a >= n || b >= n {
            continue;
        }
        match d.result.outcome.winner() {
            Some(Side::A) => wins[a][b] += 1,
            Some(Side::B) => wins[b][a] += 1,
            None => {
                draws[a][b] += 1;
                draws[b][a] += 1;
            }
        }
    }
    let cells: Vec<Vec<Option<(f64, String)>>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let (w, l, d) = (wins[i][j], wins[j][i], draws[i][j]);
                    (i != j && w + l + d > 0).then(|| {
                        let share = (f64::from(w) + 0.5 * f64::from(d)) / f64::from(w + l + d);
                        (share, format!("{w}-{l}-{d}"))
                    })
                })
                .collect()
        })
        .collect();
    sections.push(Section {
        title: "Pairwise wins".into(),
        html: charts::heat_map(
            &names,
            &cells,
            &ranking(&records).into_iter().map(|(_, i)| i).collect::<Vec<_>>(),
            "Each cell: the row bot's duels against the column bot, won-lost-drawn, over every round they met. Green: the row bot won more.",
        ),
    });

    let chosen = choose_replays(duels.len(), n, |k| {
        let d = duels[k];
        match d.result.outcome.winner() {
            Some(Side::A) => vec![d.duel.b],
            Some(Side::B) => vec![d.duel.a],
            None => Vec::new(),
        }
    });
    let replays: Vec<Replay> = chosen
        .iter()
        .map(|&k| {
            let d = duels[k];
            let kind = |i: usize| interfaces.get(i).map_or("io", |f| f.name());
            let command = spec.bots.get(d.duel.a).zip(spec.bots.get(d.duel.b)).map(|(a, b)| {
                format!(
                    "referee play gun-duel '{}' '{}' --interface-a {} --interface-b {} --turns {} --timeout-ms {}",
                    a.command.replace('\'', "'\\''"),
                    b.command.replace('\'', "'\\''"),
                    kind(d.duel.a),
                    kind(d.duel.b),
                    settings.turns,
                    settings.timeout_ms
                )
            });
            replay(d, settings.turns, command)
        })
        .collect();
    let note = (replays.len() < duels.len()).then(|| {
        format!(
            "{} of {} duels shown (a sample and each bot's last losses); the command under a duel plays that pairing again.",
            replays.len(),
            duels.len()
        )
    });
    Ok(ReportData {
        planned: None,
        stored: duels.len() as u64,
        unit: "duels",
        sections,
        replays,
        replay_note: note,
    })
}

/// Round by round: who was in it, who went out and with what points.
fn rounds_table(records: &[BotRecord]) -> String {
    let rounds = records.iter().map(|r| r.history.len()).max().unwrap_or(0);
    if rounds == 0 {
        return "<p class=\"note\">No round finished yet.</p>".into();
    }
    let mut out = String::from(
        "<table class=\"grid\"><tr><th>Round</th><th>Bots</th><th>Went out (points this round)</th><th>Went on (points this round)</th></tr>",
    );
    for r in 1..=rounds {
        let playing: Vec<&BotRecord> = records.iter().filter(|b| b.history.len() >= r).collect();
        let list = |out_now: bool| {
            let mut v: Vec<&&BotRecord> = playing
                .iter()
                .filter(|b| ((b.rounds_survived as usize) < r) == out_now)
                .collect();
            v.sort_by_key(|b| std::cmp::Reverse(b.history.get(r - 1).copied().unwrap_or(0)));
            v.iter()
                .map(|b| {
                    format!(
                        "{} ({})",
                        escape(&b.name),
                        b.history.get(r - 1).copied().unwrap_or(0)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = write!(
            out,
            "<tr><td class=\"num\">{r}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            playing.len(),
            list(true),
            list(false)
        );
    }
    out.push_str("</table>");
    out
}

/// Each bot's running total after each round it played.
fn rounds_chart(records: &[BotRecord]) -> String {
    let lines: Vec<Line> = records
        .iter()
        .filter(|r| !r.history.is_empty())
        .map(|r| {
            let mut total = 0u64;
            let mut points = vec![(0.0, 0.0)];
            for (k, p) in r.history.iter().enumerate() {
                total += p;
                points.push(((k + 1) as f64, total as f64));
            }
            Line {
                name: r.name.clone(),
                points,
            }
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    charts::lines("round", "total points", &lines)
}

fn action_name(a: Option<Action>) -> &'static str {
    match a {
        Some(Action::Load) => "load",
        Some(Action::Bullet) => "bullet",
        Some(Action::Plasma) => "plasma",
        Some(Action::Metal) => "metal shield",
        Some(Action::Thermal) => "thermal shield",
        None => "no action",
    }
}

/// One duel replayed on the rules: a row per turn, both sides' moves and
/// ammo after it.
fn replay(d: &StoredDuel, turns: u32, command: Option<String>) -> Replay {
    let [a, b] = &d.names;
    let result = match d.result.outcome.winner() {
        Some(Side::A) => format!("{a} wins"),
        Some(Side::B) => format!("{b} wins"),
        None => "draw".into(),
    };
    let mut html = format!(
        "<table class=\"grid\"><tr><th>Turn</th><th>{} (A)</th><th>ammo</th><th>{} (B)</th><th>ammo</th><th></th></tr>",
        escape(a),
        escape(b)
    );
    let histories = [
        parse_history(&d.result.histories[0]),
        parse_history(&d.result.histories[1]),
    ];
    if let [Some(ha), Some(hb)] = histories {
        let mut duel = Duel::new(turns.max(ha.len() as u32));
        for (ma, mb) in ha.iter().zip(&hb) {
            let Some(turn) = duel.play([*ma, *mb]) else {
                break;
            };
            let side = |i: usize, m: Option<Action>| {
                format!(
                    "<td>{}{}</td><td class=\"num\">{}</td>",
                    action_name(m),
                    if turn.exploded[i] {
                        " <b>(explodes)</b>"
                    } else {
                        ""
                    },
                    turn.ammo[i]
                )
            };
            let end = match turn.outcome {
                Some(o) => match o.winner() {
                    Some(Side::A) => format!("{} wins", escape(a)),
                    Some(Side::B) => format!("{} wins", escape(b)),
                    None => "draw".into(),
                },
                None => String::new(),
            };
            let _ = write!(
                html,
                "<tr><td class=\"num\">{}</td>{}{}<td>{end}</td></tr>",
                turn.index + 1,
                side(0, *ma),
                side(1, *mb)
            );
        }
    }
    html.push_str("</table>");
    let faults: Vec<String> = (0..2)
        .filter(|&i| !d.result.faults[i].0.is_empty())
        .map(|i| {
            let kinds: Vec<String> = d.result.faults[i]
                .0
                .iter()
                .map(|(k, v)| format!("{}={v}", k.name()))
                .collect();
            format!("{}: {}", escape(&d.names[i]), kinds.join(" "))
        })
        .collect();
    if !faults.is_empty() {
        let _ = write!(html, "<p>Faults: {}</p>", faults.join("; "));
    }
    Replay {
        title: format!(
            "Round {}, pass {}: {a} vs {b}: {result} after {} turns",
            d.duel.round, d.duel.pass, d.result.turns
        ),
        html,
        frames: Vec::new(),
        command,
    }
}
