//! bf-joust joined to the results store. The referee interprets the `.bf`
//! programs itself (the pure `game_bf_joust` crate): no bot process, no
//! build, no sandbox, no bot folder.
//!
//! A run loads and compiles every program once ([`load`]) under the
//! tournament's rules (2014 or hill), plans every pairing, skips the ones
//! already stored under an unchanged key, plays the rest on `--jobs`
//! engine threads outside the async runtime (a pairing at a time per
//! thread: every length, each polarity), and commits one row per pairing
//! in batches: each batch is durable before its pairings are reported.
//! [`pairing_results`] is the one reader of those rows.

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
use std::io::Read;
use std::path::Path;

/// Most pairings committed in one transaction (each is one row). Batches form by themselves:
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

/// What is stored per pairing: one row holds every match of the pairing,
/// on each of its tape lengths and in each polarity (spec §5 "Records").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPairing {
    pub left: String,
    pub right: String,
    /// `2014` or `hill`.
    pub rules: String,
    /// The cycle limit T the matches were played with.
    pub limit: u64,
    /// The tape length of match k.
    pub lengths: Vec<u8>,
    /// The polarities played, in order.
    pub polarities: Vec<bf::Polarity>,
    /// Per polarity, one character per match k: `<` left won, `>` right
    /// won, `X` a draw (the community's result strings).
    pub results: Vec<String>,
    /// Per polarity, the cycle count of match k.
    pub cycles: Vec<Vec<u64>>,
    /// Per polarity, one character per match k for how it ended: `f` a
    /// flag, `o` off the tape, `b` both lost, `l` the cycle limit.
    pub ends: Vec<String>,
}

/// One match of a stored pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayedMatch {
    pub k: u32,
    pub tape_len: usize,
    pub polarity: bf::Polarity,
    pub result: bf::MatchResult,
}

/// A stored pairing's results, by entry index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingResults {
    pub left: usize,
    pub right: usize,
    /// Polarity-major, k ascending within a polarity.
    pub matches: Vec<PlayedMatch>,
}

impl PairingResults {
    /// The community's result string of each polarity (one character per k).
    pub fn strings(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut last = None;
        for m in &self.matches {
            if last != Some(m.polarity) {
                out.push(String::new());
                last = Some(m.polarity);
            }
            if let Some(s) = out.last_mut() {
                s.push(m.result.outcome.symbol());
            }
        }
        out
    }
}

fn end_symbol(end: bf::EndReason) -> char {
    match end {
        bf::EndReason::Flag => 'f',
        bf::EndReason::OffTape => 'o',
        bf::EndReason::BothLost => 'b',
        bf::EndReason::Limit => 'l',
    }
}

impl StoredPairing {
    /// The record of a pairing played as `results` (polarity-major).
    fn new(
        left: &str,
        right: &str,
        settings: &bf::Settings,
        lengths: &[u8],
        results: &[bf::MatchResult],
    ) -> StoredPairing {
        let polarities = settings.polarity.list().to_vec();
        let per = lengths.len().max(1);
        let chunks = || results.chunks(per);
        StoredPairing {
            left: left.to_string(),
            right: right.to_string(),
            rules: settings.rules.as_str().to_string(),
            limit: settings.cycles,
            lengths: lengths.to_vec(),
            polarities,
            results: chunks()
                .map(|c| c.iter().map(|r| r.outcome.symbol()).collect())
                .collect(),
            cycles: chunks()
                .map(|c| c.iter().map(|r| r.cycles).collect())
                .collect(),
            ends: chunks()
                .map(|c| c.iter().map(|r| end_symbol(r.end)).collect())
                .collect(),
        }
    }

    /// Every match, polarity-major; `None` if the record does not hold
    /// `lengths` in each of `polarities` (it is then played again).
    fn matches(&self, lengths: &[u8], polarities: &[bf::Polarity]) -> Option<Vec<PlayedMatch>> {
        if self.lengths != lengths || self.polarities != polarities {
            return None;
        }
        let mut out = Vec::with_capacity(lengths.len() * polarities.len());
        for (p, &polarity) in polarities.iter().enumerate() {
            let results = self.results.get(p)?.as_bytes();
            let cycles = self.cycles.get(p)?;
            let ends = self.ends.get(p)?.as_bytes();
            if results.len() != lengths.len()
                || cycles.len() != lengths.len()
                || ends.len() != lengths.len()
            {
                return None;
            }
            for (k, &len) in lengths.iter().enumerate() {
                let outcome = match results[k] {
                    b'<' => bf::Outcome::LeftWins,
                    b'>' => bf::Outcome::RightWins,
                    b'X' => bf::Outcome::Draw,
                    _ => return None,
                };
                let end = match ends[k] {
                    b'f' => bf::EndReason::Flag,
                    b'o' => bf::EndReason::OffTape,
                    b'b' => bf::EndReason::BothLost,
                    b'l' => bf::EndReason::Limit,
                    _ => return None,
                };
                out.push(PlayedMatch {
                    k: k as u32,
                    tape_len: usize::from(len),
                    polarity,
                    result: bf::MatchResult {
                        outcome,
                        cycles: cycles[k],
                        end,
                    },
                });
            }
        }
        Some(out)
    }
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

/// A pairing's results key: its identity (left, right), the rules, the
/// polarities, the tape lengths (`all`, or a hash of the drawn ones), T and
/// both programs' token hashes (the valid bots' fingerprints). Names
/// cannot hold `/`, so the key is unambiguous.
fn pairing_key(spec: &TournamentSpec, settings: &bf::Settings, p: &bf::PlannedPairing) -> String {
    let (left, right) = (&spec.bots[p.left], &spec.bots[p.right]);
    let lengths = match settings.tape_lengths {
        bf::TapeLengths::All => "all".to_string(),
        bf::TapeLengths::Random => format!("{:016x}", game_core::seed::stable_hash(&p.lengths)),
    };
    let polarity = match settings.polarity {
        bf::Polarities::Normal => "normal",
        bf::Polarities::Both => "both",
    };
    format!(
        "bf-joust/{}/{}/rules={}/pol={polarity}/L={lengths}/T={}/{}/{}",
        left.name,
        right.name,
        settings.rules.as_str(),
        settings.cycles,
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
    let rules = settings(spec).map_err(Error::input)?.rules;
    let mut programs = Vec::with_capacity(spec.bots.len());
    for bot in &mut spec.bots {
        let path = spec.dir.join(&bot.command);
        let bytes = read_program(&path).map_err(|e| {
            Error::input(format!(
                "bot `{}`: cannot read the program file `{}`: {e}",
                bot.name, bot.command
            ))
        })?;
        match bf::Program::parse_rules(&bytes, rules) {
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

/// Wins of [left, right] among `results`.
fn wins<'a>(results: impl IntoIterator<Item = &'a bf::MatchResult>) -> [u64; 2] {
    let mut wins = [0; 2];
    for r in results {
        match r.outcome {
            bf::Outcome::LeftWins => wins[0] += 1,
            bf::Outcome::RightWins => wins[1] += 1,
            bf::Outcome::Draw => {}
        }
    }
    wins
}

/// The name a progress line gives a bot: its program's file name, as the
/// original printed it (`Rusher.bf`).
fn file_name(bot: &crate::tournament::BotSpec) -> &str {
    bot.command.rsplit('/').next().unwrap_or(&bot.command)
}

/// Runs (or resumes) a bf-joust tournament: one pairing is the unit of
/// play, storage and resume.
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let Some(field) = ctx.loaded.and_then(|l| l.downcast::<Field>().ok()) else {
        return Err(Error::machine("bf-joust: the programs were not loaded"));
    };
    let spec = &ctx.spec;
    let settings = settings(spec).map_err(Error::input)?;
    let polarities = settings.polarity.list();
    let mut plan = bf::plan_pairings(&settings, &entries(spec), spec.seed);
    // A shard plays each of its pairings whole.
    plan.retain(|p| {
        ctx.shard
            .owns_pairing(&spec.bots[p.left].name, &spec.bots[p.right].name)
    });
    let keys: Vec<String> = plan
        .iter()
        .map(|p| pairing_key(spec, &settings, p))
        .collect();
    let stored = session.stored(&keys)?;
    let per_pairing = settings.matches_per_pairing() as usize * polarities.len();

    // An unreadable or mismatched record is played again (and replaced).
    let pending: Vec<usize> = (0..plan.len())
        .filter(|&i| {
            stored
                .get(&keys[i])
                .and_then(|g| serde_json::from_str::<StoredPairing>(&g.record).ok())
                .and_then(|r| r.matches(&plan[i].lengths, polarities))
                .is_none()
        })
        .collect();
    drop(stored);
    let mut report = RunReport {
        total: plan.len() * per_pairing,
        already_done: (plan.len() - pending.len()) * per_pairing,
        max_concurrent: ctx.jobs,
        ..RunReport::default()
    };
    if pending.is_empty() {
        session.progress.say(&format!(
            "nothing to play: all {} matches are in the results database",
            report.total
        ));
    } else {
        session.start_progress(report.total, report.already_done);
    }

    // The engine: its own threads, outside the runtime; it stops claiming
    // pairings once cancelled, and every pairing it sends is complete.
    let stop = session.cancel.child_token();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, Vec<bf::MatchResult>)>();
    let engine = {
        let to_play: Vec<bf::PlannedPairing> = pending.iter().map(|&i| plan[i].clone()).collect();
        let stop = stop.clone();
        let (cycles, jobs) = (settings.cycles, ctx.jobs);
        tokio::task::spawn_blocking(move || {
            let programs: Vec<Option<&bf::Program>> =
                field.programs.iter().map(Option::as_ref).collect();
            bf::run_pairings_until(
                &programs,
                &to_play,
                cycles,
                polarities,
                jobs,
                || stop.is_cancelled(),
                |j, results| {
                    if tx.send((j, results)).is_err() {
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
            .map(|(j, results)| {
                let i = pending[*j];
                row(spec, &settings, &plan[i], &keys[i], results)
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
        // Committed: now the finished pairings may be reported.
        for (j, results) in batch {
            report.played += results.len();
            let p = &plan[pending[j]];
            let w = wins(&results);
            let (left, right) = (&spec.bots[p.left], &spec.bots[p.right]);
            session.progress.say(&bf::pairing_line(
                file_name(left),
                file_name(right),
                w[0],
                w[1],
            ));
        }
    }
    // On failure the engine stops within a pairing; let it finish.
    drop(rx);
    let engine = engine.await;
    drop(recorder);
    if let Some(e) = failure {
        return Err(e);
    }
    engine.map_err(|e| Error::machine(format!("the bf-joust engine failed: {e}")))?;
    report.interrupted = report.played < pending.len() * per_pairing;
    let progress = std::sync::Arc::clone(&session.progress);
    session
        .finish(report.played > 0, report.interrupted)
        .await?;
    if report.played > 0 {
        progress.finish();
    }
    Ok(report)
}

/// The stored row of a played pairing.
fn row(
    spec: &TournamentSpec,
    settings: &bf::Settings,
    p: &bf::PlannedPairing,
    key: &str,
    results: &[bf::MatchResult],
) -> Result<GameRow> {
    let (left, right) = (&spec.bots[p.left].name, &spec.bots[p.right].name);
    let record = StoredPairing::new(left, right, settings, &p.lengths, results);
    let seed = game_core::game_seed(spec.seed, &format!("bf-joust/{left}/{right}"));
    Ok(GameRow {
        game_key: key.to_string(),
        // The pairing seed's bits (SQLite integers are signed).
        seed: seed as i64,
        record: serde_json::to_string(&record)
            .map_err(|e| Error::machine(format!("cannot encode a pairing record: {e}")))?,
    })
}

/// Every stored pairing of the tournament, with the result of each of its
/// matches by tape length and polarity: the one place that reads the
/// stored rows (the standings and any other report build on it). Pairings
/// not stored (yet) are left out.
pub fn pairing_results(store: &Store, spec: &TournamentSpec) -> Result<Vec<PairingResults>> {
    let settings = settings(spec).map_err(Error::machine)?;
    let plan = bf::plan_pairings(&settings, &entries(spec), spec.seed);
    let keys: Vec<String> = plan
        .iter()
        .map(|p| pairing_key(spec, &settings, p))
        .collect();
    let found = store.games(&spec.challenge, &keys)?;
    let polarities = settings.polarity.list();
    Ok(plan
        .iter()
        .zip(&keys)
        .filter_map(|(p, key)| {
            let record: StoredPairing = serde_json::from_str(&found.get(key)?.record).ok()?;
            Some(PairingResults {
                left: p.left,
                right: p.right,
                matches: record.matches(&p.lengths, polarities)?,
            })
        })
        .collect())
}

/// The leaderboard rows of a stored tournament.
pub fn rows(store: &Store, spec: &TournamentSpec) -> Result<Vec<bf::Standing>> {
    let settings = settings(spec).map_err(Error::machine)?;
    let pairings = pairing_results(store, spec)?;
    let results = pairings.iter().flat_map(|p| {
        p.matches
            .iter()
            .map(|m| (p.left, p.right, m.result.outcome))
    });
    Ok(bf::standings_under(settings.rules, &entries(spec), results))
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
    let hill = settings(spec).map_err(Error::machine)?.rules == bf::Rules::Hill;
    let board = leaderboard(&rows);
    Ok(match format {
        // The scoreboard lists invalid bots with why itself.
        Format::Text | Format::Md if hill => {
            let pairings: Vec<bf::PairingSummary> = pairing_results(store, spec)?
                .iter()
                .map(|p| bf::PairingSummary {
                    left: spec.bots[p.left].name.clone(),
                    right: spec.bots[p.right].name.clone(),
                    strings: p.strings(),
                    points: bf::hill::points(p.matches.iter().map(|m| m.result.outcome)),
                })
                .collect();
            format!(
                "{}{}{}",
                bf::format_scoreboard(&rows),
                bf::format_pairings(&pairings),
                board.winner_note()
            )
        }
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
    fn a_key_names_the_pairing_its_settings_and_both_programs() {
        let s = spec(&["a", "b"]);
        let p = bf::PlannedPairing {
            left: 0,
            right: 1,
            lengths: (10..=30).collect(),
        };
        let all = bf::Settings::from_pairs(&[("tape-lengths", "all"), ("cycles", "500")]).unwrap();
        let key = pairing_key(&s, &all, &p);
        assert_eq!(
            key,
            "bf-joust/a/b/rules=2014/pol=normal/L=all/T=500/fp-a/fp-b"
        );
        let mut changed = s.clone();
        changed.bots[1].fingerprint = "fp-b2".into();
        assert_ne!(pairing_key(&changed, &all, &p), key);
        let hill = bf::Settings::from_pairs(&[("rules", "hill")]).unwrap();
        assert_eq!(
            pairing_key(&s, &hill, &p),
            "bf-joust/a/b/rules=hill/pol=both/L=all/T=100000/fp-a/fp-b"
        );
        let random = bf::Settings::default();
        let mut other = p.clone();
        other.lengths[0] = 11;
        assert_ne!(
            pairing_key(&s, &random, &p),
            pairing_key(&s, &random, &other)
        );
    }

    #[test]
    fn a_stored_pairing_gives_back_every_match() {
        let settings = bf::Settings::from_pairs(&[("polarity", "both")]).unwrap();
        let results: Vec<bf::MatchResult> = [
            (bf::Outcome::LeftWins, 12, bf::EndReason::Flag),
            (bf::Outcome::Draw, 10_000, bf::EndReason::Limit),
            (bf::Outcome::RightWins, 3, bf::EndReason::OffTape),
            (bf::Outcome::Draw, 40, bf::EndReason::BothLost),
        ]
        .iter()
        .map(|&(outcome, cycles, end)| bf::MatchResult {
            outcome,
            cycles,
            end,
        })
        .collect();
        let record = StoredPairing::new("a", "b", &settings, &[17, 23], &results);
        assert_eq!(record.results, vec!["<X", ">X"]);
        assert_eq!(record.ends, vec!["fl", "ob"]);
        let json = serde_json::to_string(&record).unwrap();
        let back: StoredPairing = serde_json::from_str(&json).unwrap();
        let both = [bf::Polarity::Normal, bf::Polarity::Inverted];
        let matches = back.matches(&[17, 23], &both).expect("the same plan");
        let got: Vec<bf::MatchResult> = matches.iter().map(|m| m.result).collect();
        assert_eq!(got, results);
        assert_eq!(
            matches
                .iter()
                .map(|m| (m.k, m.tape_len, m.polarity))
                .collect::<Vec<_>>(),
            vec![
                (0, 17, both[0]),
                (1, 23, both[0]),
                (0, 17, both[1]),
                (1, 23, both[1])
            ]
        );
        assert!(back.matches(&[17, 24], &both).is_none(), "other lengths");
        assert!(
            back.matches(&[17, 23], &both[..1]).is_none(),
            "other polarities"
        );
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
