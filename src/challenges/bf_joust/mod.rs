//! bf-joust joined to the results store. The referee interprets the `.bf`
//! programs itself (the pure `game_bf_joust` crate): no bot process, no
//! build, no sandbox, no bot folder.
//!
//! A run loads and compiles every program once ([`load`]), plans every
//! match, skips the ones already stored under an unchanged key, plays the
//! rest on `--jobs` engine threads outside the async runtime, and commits
//! the results in batches: each batch is durable before its pairings are
//! reported.

pub mod check;
pub mod play;
pub mod report;

pub use check::CheckArgs;
pub use play::{play, PlayArgs};

use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, FirstCall, Loaded, RunContext,
    SeedDefault, Sharding,
};
use crate::error::{Error, Result};
use crate::first_call::Verdict;
use crate::results::{GameRow, Store, TournamentRow};
use crate::session::Session;
use crate::standings::{Format, Leaderboard, Row};
use crate::tournament::{RunReport, TournamentSpec};
use game_bf_joust as bf;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// Most matches committed in one transaction. Batches form by themselves:
/// while one commits, the engine's next results queue up.
const MAX_BATCH: usize = 4096;

/// The bf-joust challenge.
pub struct BfJoust;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::BfJoust,
    name: "bf-joust",
    bot_kind: BotKind::ProgramFile { extension: "bf" },
    bots_thinking_per_game: 1,
    seed: SeedDefault::Zero,
    settings: bf::SETTINGS,
    sharding: Sharding::By("pairing"),
};

impl Challenge for BfJoust {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        bf::Settings::default().set(key, value)
    }

    fn load(&self, spec: &mut TournamentSpec) -> Result<Loaded> {
        Ok(Some(Box::new(load(spec)?)))
    }

    /// The referee interprets the programs itself: `load` already
    /// reported every one that does not parse.
    fn first_call<'a>(&'a self, _call: FirstCall<'a>) -> BoxFuture<'a, Result<Option<Verdict>>> {
        Box::pin(async { Ok(None) })
    }

    fn run<'a>(&'a self, session: Session, ctx: RunContext) -> BoxFuture<'a, Result<RunReport>> {
        Box::pin(run(session, ctx))
    }

    fn standings(
        &self,
        store: &Store,
        _row: &TournamentRow,
        spec: &TournamentSpec,
        format: Format,
    ) -> Result<String> {
        standings(store, spec, format)
    }

    fn report(
        &self,
        store: &Store,
        _row: &TournamentRow,
        spec: &TournamentSpec,
    ) -> Result<crate::report::ReportData> {
        report::report(store, spec)
    }
}

/// Every bot's program, compiled once; `None` for an invalid one.
pub struct Field {
    pub programs: Vec<Option<bf::Program>>,
}

/// What is stored per match (spec §5 "Records").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredMatch {
    pub left: String,
    pub right: String,
    pub k: u32,
    pub tape_len: usize,
    /// The cycle limit T the match was played with.
    pub limit: u64,
    pub result: bf::Outcome,
    pub cycles: u64,
    pub end: bf::EndReason,
}

/// The settings from the resolved key/value map.
pub fn settings(spec: &TournamentSpec) -> std::result::Result<bf::Settings, String> {
    let pairs: Vec<(&String, &String)> = spec.settings.iter().collect();
    bf::Settings::from_pairs(&pairs)
}

/// The tournament's entries, in listing order.
pub fn entries(spec: &TournamentSpec) -> Vec<bf::Entry> {
    spec.bots
        .iter()
        .map(|b| bf::Entry {
            name: b.name.clone(),
            owner: b.owner.clone().unwrap_or_else(|| bf::DEFAULT_OWNER.into()),
            invalid: b.invalid.clone(),
        })
        .collect()
}

/// A match's results key: its identity (left, right, k), L, T and both
/// programs' token hashes (the valid bots' fingerprints). Names cannot hold
/// `/`, so the key is unambiguous.
fn match_key(spec: &TournamentSpec, cycles: u64, m: &bf::PlannedMatch) -> String {
    let (left, right) = (&spec.bots[m.left], &spec.bots[m.right]);
    format!(
        "{}/L={}/T={cycles}/{}/{}",
        bf::match_identity(&left.name, &right.name, m.k),
        m.tape_len,
        left.fingerprint,
        right.fingerprint
    )
}

/// Reads a program file, at most one byte over the size limit (the parser
/// rejects an oversized file with its own message).
pub(crate) fn read_program(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(bf::MAX_PROGRAM_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Loads and compiles every bot's program (`command` holds its path,
/// relative to the tournament folder). An invalid program is reported on
/// stderr and marked in `spec`; a valid one's fingerprint becomes its
/// token hash, so editing comments replays nothing and editing code replays
/// exactly that bot's matches.
pub fn load(spec: &mut TournamentSpec) -> Result<Field> {
    let mut programs = Vec::with_capacity(spec.bots.len());
    for bot in &mut spec.bots {
        let path = spec.dir.join(&bot.command);
        let bytes = read_program(&path).map_err(|e| {
            Error::input(format!(
                "bot `{}`: cannot read the program file `{}`: {e}",
                bot.name, bot.command
            ))
        })?;
        match bf::Program::parse(&bytes) {
            Ok(program) => {
                bot.fingerprint = format!("{:016x}", program.token_hash());
                bot.invalid = None;
                programs.push(Some(program));
            }
            Err(e) => {
                let message = e.with_file(&bot.command);
                // Not progress: shown even with --quiet.
                eprintln!(
                    "referee: bot `{}` is invalid and plays no match: {message}",
                    bot.name
                );
                bot.invalid = Some(message);
                programs.push(None);
            }
        }
    }
    Ok(Field { programs })
}

/// A pairing's progress in this run.
#[derive(Default)]
struct Pairing {
    /// Matches not yet committed.
    remaining: usize,
    /// Wins of [left, right] so far, stored ones included.
    wins: [u64; 2],
}

impl Pairing {
    fn add(&mut self, outcome: bf::Outcome) {
        match outcome {
            bf::Outcome::LeftWins => self.wins[0] += 1,
            bf::Outcome::RightWins => self.wins[1] += 1,
            bf::Outcome::Draw => {}
        }
    }
}

/// Runs (or resumes) a bf-joust tournament.
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let Some(field) = ctx.loaded.and_then(|l| l.downcast::<Field>().ok()) else {
        return Err(Error::machine("bf-joust: the programs were not loaded"));
    };
    let spec = &ctx.spec;
    let settings = settings(spec).map_err(Error::input)?;
    let mut plan = bf::plan_matches(&settings, &entries(spec), spec.seed);
    // A shard plays every match of each of its pairings.
    plan.retain(|m| {
        ctx.shard
            .owns_pairing(&spec.bots[m.left].name, &spec.bots[m.right].name)
    });
    let keys: Vec<String> = plan
        .iter()
        .map(|m| match_key(spec, settings.cycles, m))
        .collect();
    let stored = session.stored(&keys)?;

    let mut pairings: HashMap<(usize, usize), Pairing> = HashMap::new();
    let mut pending: Vec<usize> = Vec::new();
    for (i, (m, key)) in plan.iter().zip(&keys).enumerate() {
        let pairing = pairings.entry((m.left, m.right)).or_default();
        // An unreadable record is played again (and replaced).
        match stored
            .get(key)
            .and_then(|g| serde_json::from_str::<StoredMatch>(&g.record).ok())
        {
            Some(record) => pairing.add(record.result),
            None => {
                pairing.remaining += 1;
                pending.push(i);
            }
        }
    }
    let mut report = RunReport {
        total: plan.len(),
        already_done: plan.len() - pending.len(),
        max_concurrent: ctx.jobs,
        ..RunReport::default()
    };
    session.start_progress(report.total, report.already_done);

    // The engine: its own threads, outside the runtime; it stops claiming
    // matches once cancelled, and every result it sends is a whole match.
    let stop = session.cancel.child_token();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, bf::MatchResult)>();
    let engine = {
        let to_play: Vec<bf::PlannedMatch> = pending.iter().map(|&i| plan[i]).collect();
        let stop = stop.clone();
        let (cycles, jobs) = (settings.cycles, ctx.jobs);
        tokio::task::spawn_blocking(move || {
            let programs: Vec<Option<&bf::Program>> =
                field.programs.iter().map(Option::as_ref).collect();
            bf::run_plan_until(
                &programs,
                &to_play,
                cycles,
                jobs,
                || stop.is_cancelled(),
                |j, result| {
                    if tx.send((j, result)).is_err() {
                        stop.cancel();
                    }
                },
            );
        })
    };

    let recorder = session.recorder();
    let mut failure = None;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let rows = batch
            .iter()
            .map(|&(j, result)| {
                row(
                    spec,
                    &settings,
                    &plan[pending[j]],
                    &keys[pending[j]],
                    result,
                )
            })
            .collect::<Result<Vec<GameRow>>>();
        let committed = match rows {
            Ok(rows) => recorder.commit(rows, None).await,
            Err(e) => Err(e),
        };
        if let Err(e) = committed {
            failure = Some(e);
            stop.cancel();
            break;
        }
        report.played += batch.len();
        // Committed: now the finished pairings may be reported.
        for (j, result) in batch {
            let m = &plan[pending[j]];
            let Some(pairing) = pairings.get_mut(&(m.left, m.right)) else {
                continue;
            };
            pairing.add(result.outcome);
            pairing.remaining -= 1;
            if pairing.remaining == 0 {
                session.progress.say(&bf::pairing_line(
                    &spec.bots[m.left].name,
                    &spec.bots[m.right].name,
                    pairing.wins[0],
                    pairing.wins[1],
                ));
            }
        }
    }
    // On failure the engine stops within a few matches; let it finish.
    drop(rx);
    let engine = engine.await;
    drop(recorder);
    if let Some(e) = failure {
        return Err(e);
    }
    engine.map_err(|e| Error::machine(format!("the bf-joust engine failed: {e}")))?;
    report.interrupted = report.played < pending.len();
    let progress = std::sync::Arc::clone(&session.progress);
    session
        .finish(report.played > 0, report.interrupted)
        .await?;
    progress.finish();
    Ok(report)
}

/// The stored row of a played match.
fn row(
    spec: &TournamentSpec,
    settings: &bf::Settings,
    m: &bf::PlannedMatch,
    key: &str,
    result: bf::MatchResult,
) -> Result<GameRow> {
    let (left, right) = (&spec.bots[m.left].name, &spec.bots[m.right].name);
    let record = StoredMatch {
        left: left.clone(),
        right: right.clone(),
        k: m.k,
        tape_len: m.tape_len,
        limit: settings.cycles,
        result: result.outcome,
        cycles: result.cycles,
        end: result.end,
    };
    let seed = game_core::game_seed(spec.seed, &bf::match_identity(left, right, m.k));
    Ok(GameRow {
        game_key: key.to_string(),
        // The match seed's bits (SQLite integers are signed).
        seed: seed as i64,
        record: serde_json::to_string(&record)
            .map_err(|e| Error::machine(format!("cannot encode a match record: {e}")))?,
    })
}

/// The leaderboard rows of a stored tournament.
pub fn rows(store: &Store, spec: &TournamentSpec) -> Result<Vec<bf::Standing>> {
    let settings = settings(spec).map_err(Error::machine)?;
    let entries = entries(spec);
    let plan = bf::plan_matches(&settings, &entries, spec.seed);
    let keys: Vec<String> = plan
        .iter()
        .map(|m| match_key(spec, settings.cycles, m))
        .collect();
    let found = store.games(&spec.challenge, &keys)?;
    let results = plan.iter().zip(&keys).filter_map(|(m, key)| {
        let record: StoredMatch = serde_json::from_str(&found.get(key)?.record).ok()?;
        Some((m.left, m.right, record.result))
    });
    Ok(bf::standings(&entries, results))
}

/// The shared leaderboard (`json`, `csv`) with the spec's fields.
pub fn leaderboard(rows: &[bf::Standing]) -> Leaderboard {
    Leaderboard {
        columns: ["owner", "matches", "invalid", "error"]
            .map(String::from)
            .to_vec(),
        rows: rows
            .iter()
            .map(|r| Row {
                rank: r.rank,
                name: r.name.clone(),
                score: json!(r.score),
                played: Some(r.matches),
                wins: Some(r.wins),
                draws: Some(r.draws),
                losses: Some(r.losses),
                faults: r
                    .faults()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
                out: r.error.as_ref().map(|e| format!("invalid: {e}")),
                cpu_seconds: None,
                extra: vec![
                    json!(r.owner),
                    json!(r.matches),
                    json!(r.invalid),
                    json!(r.error),
                ],
            })
            .collect(),
    }
}

/// The leaderboard of a stored bf-joust tournament: `text` and `md` are
/// the original's SCOREBOARD.md table.
fn standings(store: &Store, spec: &TournamentSpec, format: Format) -> Result<String> {
    let rows = rows(store, spec)?;
    let board = leaderboard(&rows);
    Ok(match format {
        // The scoreboard lists invalid bots with why itself.
        Format::Text | Format::Md => {
            format!("{}{}", bf::format_scoreboard(&rows), board.winner_note())
        }
        Format::Json => board.to_json(),
        Format::Csv => board.to_csv(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::BotSpec;

    fn spec(names: &[&str]) -> TournamentSpec {
        TournamentSpec {
            challenge: "bf-joust".into(),
            seed: 7,
            settings: Default::default(),
            bots: names
                .iter()
                .map(|n| BotSpec {
                    name: n.to_string(),
                    command: format!("{n}/{n}.bf"),
                    argv: vec![format!("{n}/{n}.bf")],
                    folder: n.into(),
                    fingerprint: format!("fp-{n}"),
                    language: None,
                    owner: None,
                    interface: None,
                    invalid: None,
                })
                .collect(),
            dir: "/t".into(),
            absent: Vec::new(),
        }
    }

    #[test]
    fn a_key_names_identity_length_limit_and_both_programs() {
        let s = spec(&["a", "b"]);
        let m = bf::PlannedMatch {
            left: 0,
            right: 1,
            k: 3,
            tape_len: 17,
        };
        let key = match_key(&s, 500, &m);
        assert_eq!(key, "bf-joust/a/b/3/L=17/T=500/fp-a/fp-b");
        let mut changed = s.clone();
        changed.bots[1].fingerprint = "fp-b2".into();
        assert_ne!(match_key(&changed, 500, &m), key);
        assert_ne!(match_key(&s, 501, &m), key);
    }

    #[test]
    fn json_and_csv_have_the_spec_fields() {
        let mut s = spec(&["a", "b", "c"]);
        s.bots[2].invalid = Some("c/c.bf:1:1: unmatched ']'".into());
        s.bots[0].owner = Some("alice".into());
        let rows = bf::standings(
            &entries(&s),
            [
                (0, 1, bf::Outcome::LeftWins),
                (0, 1, bf::Outcome::Draw),
                (0, 1, bf::Outcome::RightWins),
                (0, 1, bf::Outcome::LeftWins),
            ],
        );
        let board = leaderboard(&rows);
        let v: serde_json::Value = serde_json::from_str(&board.to_json()).unwrap();
        assert_eq!(v[0]["name"], "a");
        assert_eq!(v[0]["owner"], "alice");
        assert_eq!(v[0]["score"], 2);
        assert_eq!(
            (
                &v[0]["wins"],
                &v[0]["draws"],
                &v[0]["losses"],
                &v[0]["matches"]
            ),
            (&json!(2), &json!(1), &json!(1), &json!(4))
        );
        assert_eq!(v[0]["faults"], json!({}));
        assert_eq!(v[0]["error"], serde_json::Value::Null);
        assert_eq!(v[2]["name"], "c");
        assert_eq!(v[2]["invalid"], true);
        assert_eq!(v[2]["faults"], json!({"invalid": 1}));
        assert_eq!(v[2]["error"], "c/c.bf:1:1: unmatched ']'");
        assert_eq!(v[2]["owner"], "-");
        let csv = board.to_csv();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some(
                "rank,name,score,played,wins,draws,losses,faults,out,cpu_seconds,\
                 owner,matches,invalid,error"
            )
        );
        assert_eq!(lines.next(), Some("1,a,2,4,2,1,1,,,,alice,4,false,"));
    }
}
