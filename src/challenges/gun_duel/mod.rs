//! gun-duel joined to both transports and to its last-player-standing
//! tournament.
//!
//! - Interface 1 (`exit-code`) bots run once per turn through
//!   [`run_once_with`](crate::bot::run_once_with); stdout is only logged.
//! - Interface 2 (`io`) bots are one [`LineProcess`](crate::bot::LineProcess)
//!   each for the whole tournament, framed by the crate's
//!   [`frame_move`](game_gun_duel::frame_move); a bot that times out or
//!   closes stdout is dead for good.
//! - Rounds depend on eliminations, so this module drives its own round
//!   loop over the crate's [`Round`] dispatcher
//!   instead of the generic planner: each duel is handed to the results
//!   writer under a key naming the tournament and the duel, a resume records
//!   what is stored and plays the rest, and nothing is reported before its
//!   commit is durable.
//!
//! A run, and where each step lives:
//!
//! ```text
//! run: resolve(spec), load(store)      settings, interfaces, stored duels
//!   rounds::tournament                 round after round until one is left:
//!     record_stored                    stored duels count as played (resume)
//!     rounds::play_round               the missing duels, --jobs at once:
//!       bot::play_duel                 turns, both bots asked at once
//!       StoredDuel under duel_key      to the recorder; counted once durable
//!     finish_round, round_board        eliminations; the board on stdout
//!   Bot::shutdown                      every live process: EOF, grace, kill
//! standings: load, replay, tables      the same records, read back
//! ```
//!
//! Here: the challenge, settings, keys and the stored duel record (shared by
//! the rounds and the standings), and `run`. `bot` is one bot's transport
//! (both interfaces) and one duel between two bots; `rounds` the round loop;
//! `standings` the tables from stored duels; `play` and `check` the two
//! subcommands.

mod bot;
pub mod check;
pub mod play;
mod report;
mod rounds;
mod standings;

pub use check::CheckArgs;
pub use play::{play, InterfaceArg, PlayArgs};

use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, FirstCall, RunContext, SeedDefault,
    Sharding,
};
use crate::error::{Error, Result};
use crate::first_call::Verdict;
use crate::results::{Store, TournamentRow};
use crate::session::Session;
use crate::standings::Format;
use crate::tournament::{RunReport, TournamentSpec};
use bot::Bot;
use game_core::FaultCounts;
use game_gun_duel::{DuelId, DuelResult, Interface, Round, Settings, Tournament};
use rounds::Field;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tokio::task::JoinSet;

/// The gun-duel challenge.
pub struct GunDuel;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::GunDuel,
    name: "gun-duel",
    bot_kind: BotKind::Process,
    // A duel asks both bots at once.
    bots_thinking_per_game: 2,
    seed: SeedDefault::Zero,
    settings: game_gun_duel::SETTINGS,
    sharding: Sharding::Refused(
        "gun-duel's elimination rounds each depend on the results of the one before, \
         so its tournament is one chain that cannot be parted",
    ),
};

impl Challenge for GunDuel {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        Settings::default().apply(key, value)
    }

    fn check_interface(&self, value: &str) -> std::result::Result<(), String> {
        Interface::parse(value).map(|_| ())
    }

    fn first_call<'a>(&'a self, call: FirstCall<'a>) -> BoxFuture<'a, Result<Option<Verdict>>> {
        Box::pin(first_call(call))
    }

    fn run<'a>(&'a self, session: Session, ctx: RunContext) -> BoxFuture<'a, Result<RunReport>> {
        Box::pin(run(session, ctx))
    }

    fn standings(
        &self,
        store: &Store,
        row: &TournamentRow,
        spec: &TournamentSpec,
        format: Format,
    ) -> Result<String> {
        standings::standings(store, row, spec, format)
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

/// The settings and each bot's interface (bot.toml beats the header,
/// which beats the default).
pub fn resolve(spec: &TournamentSpec) -> std::result::Result<(Settings, Vec<Interface>), String> {
    let settings =
        Settings::from_pairs(spec.settings.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let interfaces = spec
        .bots
        .iter()
        .map(|b| match &b.interface {
            Some(i) => Interface::parse(i).map_err(|m| format!("bot {}: {m}", b.name)),
            None => Ok(settings.interface),
        })
        .collect::<std::result::Result<Vec<_>, String>>()?;
    Ok((settings, interfaces))
}

/// The preflight's call: turn 0 of the bot's first duel of round 1, as
/// the tournament schedules it for this field (its opponent's id, its
/// side).
async fn first_call(call: FirstCall<'_>) -> Result<Option<Verdict>> {
    let (settings, interfaces) = resolve(call.spec).map_err(Error::input)?;
    let n = call.spec.bots.len();
    let ids = game_gun_duel::assign_ids(n, call.spec.seed);
    let live: Vec<usize> = (0..n).collect();
    let first = game_gun_duel::round_schedule(call.spec.seed, 1, settings.duels_per_pair, &live)
        .into_iter()
        .find(|d| d.a == call.bot || d.b == call.bot);
    let Some(first) = first else {
        return Ok(None);
    };
    let (opponent, side) = match first.a == call.bot {
        true => (first.b, game_gun_duel::Side::A),
        false => (first.a, game_gun_duel::Side::B),
    };
    let opponent_id = ids.get(opponent).copied().unwrap_or(0);
    let interface = interfaces
        .get(call.bot)
        .copied()
        .unwrap_or(settings.interface);
    let timeout = std::time::Duration::from_millis(settings.timeout_ms);
    bot::first_call(&call, interface, opponent_id, side, settings.turns, timeout).await
}

/// Every duel key of a tournament starts with this: the tournament's
/// identity (challenge, seed, settings, the field with its interfaces), on
/// which ids, schedule and eliminations all depend.
pub fn key_prefix(spec: &TournamentSpec) -> String {
    format!("{}/", spec.identity())
}

/// A duel's key: the tournament, then the duel's identity (round, pass, A, B).
pub fn duel_key(prefix: &str, id: &DuelId) -> String {
    format!("{prefix}r{}/p{}/{}-{}", id.round, id.pass, id.a, id.b)
}

/// What is stored per duel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredDuel {
    pub duel: DuelId,
    /// Names of A and B.
    pub names: [String; 2],
    #[serde(flatten)]
    pub result: DuelResult,
    /// CPU seconds of A's and B's interface-1 runs in this duel (an
    /// interface-2 process's CPU time is in its log at the end).
    #[serde(default)]
    pub cpu_seconds: [f64; 2],
}

/// A stored duel as the tournament and the standings need it: the
/// record without names, histories and ammo. Tournaments of 10^5 duels
/// are read this way, a round or a duel at a time, never whole.
#[derive(Debug, Clone, Deserialize)]
pub struct DuelSummary {
    pub duel: DuelId,
    pub outcome: game_gun_duel::Outcome,
    pub faults: [FaultCounts; 2],
    #[serde(default)]
    pub cpu_seconds: [f64; 2],
}

/// Calls `each` with every readable stored duel under `prefix` (the
/// tournament's, or one round's: `round_prefix`), in key order. A record
/// that cannot be read, or whose duel is not the one its key names, is
/// played again rather than trusted.
fn scan_duels<T: serde::de::DeserializeOwned>(
    store: &Store,
    challenge: &str,
    tournament: &str,
    prefix: &str,
    mut each: impl FnMut(T),
    duel_of: impl Fn(&T) -> DuelId,
) -> Result<()> {
    store.scan_prefix(challenge, prefix, |row| {
        match serde_json::from_str::<T>(&row.record) {
            Ok(d) if duel_key(tournament, &duel_of(&d)) == row.game_key => each(d),
            Ok(_) => tracing::warn!(
                "ignoring duel record {}: it names another duel",
                row.game_key
            ),
            Err(e) => tracing::warn!("ignoring unreadable duel record {}: {e}", row.game_key),
        }
        Ok(())
    })
}

/// Every stored duel of a tournament, whole (the report's replays).
fn load(store: &Store, spec: &TournamentSpec) -> Result<Vec<StoredDuel>> {
    let prefix = key_prefix(spec);
    let mut found = Vec::new();
    scan_duels(
        store,
        &spec.challenge,
        &prefix,
        &prefix,
        |d| found.push(d),
        |d: &StoredDuel| d.duel,
    )?;
    found.sort_by_key(|d| d.duel);
    Ok(found)
}

/// Calls `each` with the summary of every stored duel of a tournament.
fn scan_summaries(
    store: &Store,
    spec: &TournamentSpec,
    each: impl FnMut(DuelSummary),
) -> Result<()> {
    let prefix = key_prefix(spec);
    scan_duels(
        store,
        &spec.challenge,
        &prefix,
        &prefix,
        each,
        |d: &DuelSummary| d.duel,
    )
}

/// The key prefix of a round's duels (`…/r2/`: the slash keeps round 2
/// apart from round 20).
fn round_prefix(prefix: &str, round: u32) -> String {
    format!("{prefix}r{round}/")
}

/// Records the stored duels of `round` (read from `store`); returns how
/// many there were and adds their faults.
fn record_stored(
    round: &mut Round,
    store: &Store,
    challenge: &str,
    prefix: &str,
    faults: &mut [FaultCounts],
) -> Result<usize> {
    let mut stored = HashMap::new();
    scan_duels(
        store,
        challenge,
        prefix,
        &round_prefix(prefix, round.number()),
        |d: DuelSummary| {
            stored.insert(d.duel, d);
        },
        |d| d.duel,
    )?;
    let mut recorded = 0;
    for k in 0..round.duels().len() {
        let id = round.duels()[k];
        if let Some(s) = stored.get(&id) {
            round.record(k, s.outcome).map_err(Error::machine)?;
            add_faults(faults, &id, &s.faults);
            recorded += 1;
        }
    }
    Ok(recorded)
}

/// How many duels of the tournament are stored.
fn count_stored(store: &Store, spec: &TournamentSpec) -> Result<usize> {
    let mut count = 0;
    scan_summaries(store, spec, |_| count += 1)?;
    Ok(count)
}

fn add_faults(faults: &mut [FaultCounts], id: &DuelId, of_duel: &[FaultCounts; 2]) {
    if let Some(f) = faults.get_mut(id.a) {
        f.merge(&of_duel[0]);
    }
    if let Some(f) = faults.get_mut(id.b) {
        f.merge(&of_duel[1]);
    }
}

/// Runs (or resumes) a gun-duel tournament.
///
/// With interface-2 bots in the field the tournament runs on its own
/// thread with a single-threaded runtime: a turn is a few microseconds of
/// referee work between two bots' answers, and keeping all of it on one
/// thread saves the cross-thread wake-ups that otherwise cost more than the
/// work (about 40% of a turn's wall time on a busy 2-core machine). The
/// bots still run in parallel: they are processes. The thread lives until
/// every bot is shut down, so their parent-death signal fires only if the
/// referee dies. A field of interface-1 bots only stays on the shared
/// runtime, where the two runs of a turn can be started by two threads at
/// once (starting a process blocks its thread for a while).
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let (_, interfaces) = resolve(&ctx.spec).map_err(Error::input)?;
    if !interfaces.contains(&Interface::Io) {
        return run_here(session, ctx).await;
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("gun-duel".into())
        .spawn(move || {
            let r = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Error::machine(format!("cannot start the async runtime: {e}")))
                .and_then(|rt| rt.block_on(run_here(session, ctx)));
            let _ = tx.send(r);
        })
        .map_err(|e| Error::machine(format!("cannot start a thread: {e}")))?;
    rx.await
        .map_err(|_| Error::machine("the tournament thread stopped"))?
}

async fn run_here(session: Session, ctx: RunContext) -> Result<RunReport> {
    let RunContext {
        spec,
        programs,
        logs,
        jobs,
        ..
    } = ctx;
    let (settings, interfaces) = resolve(&spec).map_err(Error::input)?;
    let stored = count_stored(&session.store(), &spec)?;
    let t = Tournament::new(spec.bots.len(), settings.duels_per_pair, spec.seed);
    let bots = programs
        .into_iter()
        .zip(logs)
        .zip(&interfaces)
        .map(|((p, l), &i)| Some(Bot::new(p, l, i)))
        .collect();
    let mut field = Field {
        prefix: key_prefix(&spec),
        ids: t.ids().to_vec(),
        faults: vec![FaultCounts::default(); spec.bots.len()],
        spec,
        settings,
        interfaces,
        bots,
    };
    let recorder = session.recorder();
    let report = rounds::tournament(t, &mut field, stored, &recorder, jobs, &session).await;
    drop(recorder);
    // The last stretch of play time ends before the bots are shut down.
    let finished = match &report {
        Ok(r) => session.finish(r.played > 0, r.interrupted).await,
        Err(_) => Ok(()),
    };
    // Every live bot: EOF, the grace, then its group is killed.
    let mut ends = JoinSet::new();
    for bot in field.bots.drain(..).flatten() {
        ends.spawn(bot.shutdown());
    }
    while ends.join_next().await.is_some() {}
    let report = report?;
    finished?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_gun_duel::Outcome;

    #[test]
    fn duel_keys_name_the_tournament_and_the_duel() {
        let id = DuelId {
            round: 2,
            pass: 7,
            a: 0,
            b: 3,
        };
        assert_eq!(duel_key("abc/", &id), "abc/r2/p7/0-3");
    }

    #[test]
    fn a_round_prefix_holds_that_round_alone() {
        let key = |round| {
            duel_key(
                "abc/",
                &DuelId {
                    round,
                    pass: 1,
                    a: 0,
                    b: 1,
                },
            )
        };
        assert!(key(1).starts_with(&round_prefix("abc/", 1)));
        assert!(!key(10).starts_with(&round_prefix("abc/", 1)));
        assert!(!key(1).starts_with(&round_prefix("abc/", 10)));
    }

    #[test]
    fn outcome_is_stored_with_the_duel() {
        let stored = StoredDuel {
            duel: DuelId {
                round: 1,
                pass: 1,
                a: 0,
                b: 1,
            },
            names: ["x".into(), "y".into()],
            result: DuelResult {
                outcome: Outcome::BWins,
                turns: 1,
                ammo: [-1, 1],
                histories: ["1".into(), "0".into()],
                faults: [FaultCounts::default(), FaultCounts::default()],
            },
            cpu_seconds: [0.25, 0.0],
        };
        let text = serde_json::to_string(&stored).unwrap();
        let back: StoredDuel = serde_json::from_str(&text).unwrap();
        assert_eq!(back.result, stored.result);
        assert_eq!(back.duel, stored.duel);
        assert_eq!(back.cpu_seconds, [0.25, 0.0]);
    }
}
