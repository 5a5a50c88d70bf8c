//! bf-joust's part of the HTML report: the pairwise win matrix as a heat
//! map, each pairing's result on every tape length (the community's `<>X`
//! strings), and how each match ended (flag, tape exit, cycle limit) and at
//! which cycle. The final tape is not stored: when a bot's program file is
//! still the one that played (same token hash), the match is played again
//! (it is pure) for its last tape; otherwise the command under a match
//! shows it with `--trace`.
//!
//! Stored matches are read through [`pairings`] alone, so a change of how
//! bf-joust stores them touches that one function.

use super::{entries, settings};
use crate::error::{Error, Result};
use crate::report::charts;
use crate::report::html::escape;
use crate::report::{choose_replays, Replay, ReportData, Section};
use crate::results::Store;
use crate::tournament::TournamentSpec;
use game_bf_joust as bf;
use std::fmt::Write;

/// One match of a pairing, as stored.
#[derive(Debug, Clone)]
pub struct MatchResult {
    pub tape_len: usize,
    pub polarity: bf::Polarity,
    pub outcome: bf::Outcome,
    pub cycles: u64,
    pub end: bf::EndReason,
}

/// A pairing's stored matches, by tape length (then match index).
#[derive(Debug, Clone)]
pub struct Pairing {
    /// Indices into the tournament's bots; left was listed first.
    pub left: usize,
    pub right: usize,
    pub matches: Vec<MatchResult>,
    /// Matches the plan has for this pairing (stored or not).
    pub planned: usize,
}

impl Pairing {
    /// `<` where left won, `>` where right won, `X` for a draw, one per
    /// match by tape length; a string per polarity (normal first),
    /// separated by a space, as the hill prints them.
    pub fn result_string(&self) -> String {
        let mut out = String::new();
        let mut last = None;
        for m in &self.matches {
            if last.is_some_and(|p| p != m.polarity) {
                out.push(' ');
            }
            last = Some(m.polarity);
            out.push(m.outcome.symbol());
        }
        out
    }

    fn wins(&self) -> (u32, u32, u32) {
        let mut w = (0, 0, 0);
        for m in &self.matches {
            match m.outcome {
                bf::Outcome::LeftWins => w.0 += 1,
                bf::Outcome::RightWins => w.1 += 1,
                bf::Outcome::Draw => w.2 += 1,
            }
        }
        w
    }
}

/// Every pairing of the plan with its stored matches: per pairing, the
/// result on each tape length, in each polarity played.
pub fn pairings(store: &Store, spec: &TournamentSpec) -> Result<Vec<Pairing>> {
    let settings = settings(spec).map_err(Error::machine)?;
    let polarities = settings.polarity.list().len();
    let plan = bf::plan_pairings(&settings, &entries(spec), spec.seed);
    let mut stored: std::collections::HashMap<(usize, usize), Vec<MatchResult>> =
        super::pairing_results(store, spec)?
            .into_iter()
            .map(|p| {
                let matches = p
                    .matches
                    .iter()
                    .map(|m| MatchResult {
                        tape_len: m.tape_len,
                        polarity: m.polarity,
                        outcome: m.result.outcome,
                        cycles: m.result.cycles,
                        end: m.result.end,
                    })
                    .collect();
                ((p.left, p.right), by_length(matches))
            })
            .collect();
    Ok(plan
        .iter()
        .map(|p| Pairing {
            left: p.left,
            right: p.right,
            matches: stored.remove(&(p.left, p.right)).unwrap_or_default(),
            planned: p.lengths.len() * polarities,
        })
        .collect())
}

/// Matches in the order the strings read them: each polarity (normal
/// first), the shortest tape first (random lengths are stored in the
/// order they were drawn).
fn by_length(mut matches: Vec<MatchResult>) -> Vec<MatchResult> {
    matches.sort_by_key(|m| (m.polarity == bf::Polarity::Inverted, m.tape_len));
    matches
}

/// The report of a stored bf-joust tournament.
pub fn report(store: &Store, spec: &TournamentSpec) -> Result<ReportData> {
    let settings = settings(spec).map_err(Error::machine)?;
    let pairings = pairings(store, spec)?;
    let names: Vec<String> = spec.bots.iter().map(|b| b.name.clone()).collect();
    let n = names.len();
    let mut cells = vec![vec![None; n]; n];
    let mut score = vec![0u32; n];
    for p in pairings.iter().filter(|p| !p.matches.is_empty()) {
        let (l, r, d) = p.wins();
        if p.left < n && p.right < n {
            score[p.left] += l;
            score[p.right] += r;
        }
        let total = f64::from(l + r + d);
        let share = (f64::from(l) + 0.5 * f64::from(d)) / total;
        if p.left < n && p.right < n {
            cells[p.left][p.right] = Some((share, format!("{l}-{r}-{d}")));
            cells[p.right][p.left] = Some((1.0 - share, format!("{r}-{l}-{d}")));
        }
    }
    // By score, as the standings (ties in listing order).
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&i| std::cmp::Reverse(score[i]));
    let mut sections = vec![Section {
        title: "Pairwise wins".into(),
        html: charts::heat_map(
            &names,
            &cells,
            &ranked,
            "Each cell: the row bot's matches against the column bot, won-lost-drawn. Green: the row bot won more.",
        ),
    }];
    let mut table = String::from(
        "<table class=\"grid\"><tr><th>Left</th><th>Right</th><th>Tape lengths</th><th>Result by tape length</th><th>Score</th></tr>",
    );
    for p in &pairings {
        let (l, r, _) = p.wins();
        let shortest = p.matches.iter().map(|m| m.tape_len).min();
        let longest = p.matches.iter().map(|m| m.tape_len).max();
        let lengths = match (shortest, longest) {
            (Some(a), Some(b)) if a != b => format!("{a}..{b}"),
            (Some(a), _) => a.to_string(),
            _ => "-".into(),
        };
        let _ = write!(
            table,
            "<tr><td>{}</td><td>{}</td><td>{lengths}</td><td><code>{}</code>{}</td><td class=\"num\">{l}:{r}</td></tr>",
            escape(&names[p.left]),
            escape(&names[p.right]),
            escape(&p.result_string()),
            if p.matches.len() < p.planned {
                format!(" ({} of {} played)", p.matches.len(), p.planned)
            } else {
                String::new()
            }
        );
    }
    table.push_str("</table><p class=\"note\">&lt;: left won, &gt;: right won, X: draw; one character per match, shortest tape first; with both polarities, the inverted string follows the normal one.</p>");
    sections.push(Section {
        title: "Pairings by tape length".into(),
        html: table,
    });
    let invalid: Vec<String> = spec
        .bots
        .iter()
        .filter_map(|b| {
            b.invalid
                .as_ref()
                .map(|e| format!("<li>{}: {}</li>", escape(&b.name), escape(e)))
        })
        .collect();
    if !invalid.is_empty() {
        sections.push(Section {
            title: "Invalid programs".into(),
            html: format!("<ul>{}</ul>", invalid.join("")),
        });
    }

    // Matches, pairing by pairing.
    let all: Vec<(&Pairing, &MatchResult)> = pairings
        .iter()
        .flat_map(|p| p.matches.iter().map(move |m| (p, m)))
        .collect();
    let chosen = choose_replays(all.len(), n, |k| {
        let (p, m) = all[k];
        match m.outcome {
            bf::Outcome::LeftWins => vec![p.right],
            bf::Outcome::RightWins => vec![p.left],
            bf::Outcome::Draw => Vec::new(),
        }
    });
    let programs = programs_that_played(spec, settings.rules);
    let replays: Vec<Replay> = chosen
        .iter()
        .map(|&k| {
            let (p, m) = all[k];
            let tape = match (&programs[p.left], &programs[p.right]) {
                (Some(l), Some(r)) => final_tape(l, r, m, settings.cycles),
                _ => None,
            };
            let inverted = m.polarity == bf::Polarity::Inverted;
            let (left, right) = (&names[p.left], &names[p.right]);
            let how = match (m.outcome, m.end) {
                (bf::Outcome::Draw, bf::EndReason::BothLost) => {
                    "both lost at the same check".to_string()
                }
                (bf::Outcome::Draw, _) => "the cycle limit, flags equal".to_string(),
                (_, bf::EndReason::Flag) => {
                    "the loser's flag stayed at 0 for two checks".to_string()
                }
                (_, bf::EndReason::OffTape) => "the loser's pointer left the tape".to_string(),
                (_, bf::EndReason::Limit) => {
                    "the cycle limit: the flag further from 0 won".to_string()
                }
                (_, bf::EndReason::BothLost) => "both lost".to_string(),
            };
            let winner = match m.outcome {
                bf::Outcome::LeftWins => format!("{left} won"),
                bf::Outcome::RightWins => format!("{right} won"),
                bf::Outcome::Draw => "draw".into(),
            };
            let file = |i: usize| spec.bots[i].argv.first().cloned().unwrap_or_default();
            Replay {
                title: format!(
                    "{left} vs {right}, tape {}{}: {winner} after {} cycles",
                    m.tape_len,
                    if inverted { ", inverted" } else { "" },
                    m.cycles
                ),
                html: format!(
                    "<p>Ended by {} at cycle {} of {}.</p>{}",
                    escape(&how),
                    m.cycles,
                    settings.cycles,
                    tape.map_or(String::new(), |t| format!(
                        "<p>The tape at the end (&gt; left's cell, &lt; right's):</p><pre class=\"tape\">{}</pre>",
                        escape(&t)
                    ))
                ),
                frames: Vec::new(),
                command: Some(format!(
                    "referee play bf-joust '{}' '{}' --tape-len {} --cycles {}{}{} --trace",
                    file(p.left).replace('\'', "'\\''"),
                    file(p.right).replace('\'', "'\\''"),
                    m.tape_len,
                    settings.cycles,
                    if settings.rules == bf::Rules::Hill { " --rules hill" } else { "" },
                    if inverted { " --polarity inverted" } else { "" },
                )),
            }
        })
        .collect();
    let stored = all.len() as u64;
    let note = Some(format!(
        "{}The final tape is played again from the bots' program files when they are still the ones that played; the command under a match shows the whole match cycle by cycle (run it in the tournament folder).",
        if replays.len() < all.len() {
            format!(
                "{} of {} matches shown (a sample and each bot's last losses). ",
                replays.len(),
                all.len()
            )
        } else {
            String::new()
        }
    ));
    Ok(ReportData {
        planned: Some(pairings.iter().map(|p| p.planned as u64).sum()),
        stored,
        unit: "matches",
        sections,
        replays,
        replay_note: note,
    })
}

/// Each bot's program, read from its file, if it is still the one that
/// played (its token hash is the stored fingerprint).
fn programs_that_played(spec: &TournamentSpec, rules: bf::Rules) -> Vec<Option<bf::Program>> {
    spec.bots
        .iter()
        .map(|bot| {
            let bytes = super::read_program(&spec.dir.join(&bot.command)).ok()?;
            let program = bf::Program::parse_rules(&bytes, rules).ok()?;
            (format!("{:016x}", program.token_hash()) == bot.fingerprint).then_some(program)
        })
        .collect()
}

/// The match played again (it is pure): its last tape as `play --trace`
/// prints it, if it ended as stored.
fn final_tape(
    left: &bf::Program,
    right: &bf::Program,
    m: &MatchResult,
    cycles: u64,
) -> Option<String> {
    if !(bf::MIN_TAPE_LEN..=bf::MAX_TAPE_LEN).contains(&m.tape_len) {
        return None;
    }
    let mut last = (Vec::new(), 0isize, 0isize);
    let mut observe = |view: &bf::CycleView<'_>| {
        last.0.clear();
        last.0.extend_from_slice(view.tape);
        last.1 = view.left_ptr;
        last.2 = view.right_ptr;
    };
    let spec = bf::MatchSpec {
        tape_len: m.tape_len,
        cycles,
        polarity: m.polarity,
    };
    let result = bf::run_match_spec_observed(left, right, spec, &mut observe);
    (result.outcome == m.outcome && result.cycles == m.cycles)
        .then(|| bf::tape_line(&last.0, last.1, last.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_string_reads_left_right_draw() {
        let m = |outcome| MatchResult {
            tape_len: 10,
            polarity: bf::Polarity::Normal,
            outcome,
            cycles: 5,
            end: bf::EndReason::Flag,
        };
        let p = Pairing {
            left: 0,
            right: 1,
            matches: vec![
                m(bf::Outcome::LeftWins),
                m(bf::Outcome::Draw),
                m(bf::Outcome::RightWins),
            ],
            planned: 3,
        };
        assert_eq!(p.result_string(), "<X>");
        assert_eq!(p.wins(), (1, 1, 1));
    }
}
