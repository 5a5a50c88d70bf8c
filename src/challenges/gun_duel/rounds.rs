//! The round loop of a gun-duel tournament: rounds until one bot is left
//! (or joint winners), each round's missing duels played at most `--jobs`
//! at once, every bot in one duel at a time.
//!
//! ```text
//! while let Some(round) = t.start_round() {
//!     record_stored(round, store)          // a resume: stored duels count
//!     play_round(round, field, recorder)   // the rest; returns once durable
//!     t.finish_round(round)                // eliminations, then the board
//! }
//! ```

use super::bot::{play_duel, Bot};
use super::standings::names_and_languages;
use super::{add_faults, duel_key, record_stored, StoredDuel};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::GameRow;
use crate::session::{Recorder, Session};
use crate::tournament::{Pool, RunReport, TournamentSpec};
use game_core::{game_seed, FaultCounts};
use game_gun_duel::{
    round_board, DuelId, DuelResult, Interface, Round, Seat, Settings, Tournament,
};
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// At most one progress line per this interval while a round is played.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// Finished duels are committed together: those of the last
/// `COMMIT_EVERY`, at most `COMMIT_ROWS` at once. A duel takes about a
/// millisecond; a transaction each cost the writer more than a turn costs.
const COMMIT_EVERY: Duration = Duration::from_millis(20);
const COMMIT_ROWS: usize = 64;

/// Finished duels not yet handed to the writer.
#[derive(Default)]
struct Unsent {
    rows: Vec<GameRow>,
    /// When the oldest of them finished.
    since: Option<Instant>,
}

impl Unsent {
    fn push(&mut self, row: GameRow) {
        self.since.get_or_insert_with(Instant::now);
        self.rows.push(row);
    }

    /// When the rows must go, if there are any.
    fn due(&self) -> Option<tokio::time::Instant> {
        self.since
            .map(|t| tokio::time::Instant::from_std(t + COMMIT_EVERY))
    }

    /// Hands the rows to the writer; the task's value is how many.
    fn send(&mut self, recorder: &Recorder, commits: &mut JoinSet<Result<usize>>) -> Result<()> {
        self.since = None;
        if self.rows.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.rows);
        let count = rows.len();
        let pending = recorder.send(rows, None)?;
        commits.spawn(async move { pending.wait().await.map(|()| count) });
        Ok(())
    }
}

/// Progress lines while a round is played, at most one per interval.
struct RoundProgress<'a> {
    progress: &'a Progress,
    round: u32,
    total: usize,
    done: usize,
    last: Instant,
}

impl RoundProgress<'_> {
    fn committed(&mut self, duels: usize) {
        self.done += duels;
        if self.done == self.total || self.last.elapsed() >= PROGRESS_EVERY {
            self.last = Instant::now();
            self.progress.say(&format!(
                "[round {}: {}/{} duels]",
                self.round, self.done, self.total
            ));
        }
    }
}

/// Everything the round loop shares.
pub(super) struct Field {
    pub(super) spec: TournamentSpec,
    pub(super) settings: Settings,
    pub(super) interfaces: Vec<Interface>,
    pub(super) prefix: String,
    pub(super) ids: Vec<u32>,
    /// `None` while the bot is lent to a running duel.
    pub(super) bots: Vec<Option<Bot>>,
    pub(super) faults: Vec<FaultCounts>,
}

impl Field {
    fn seats(&self, id: &DuelId) -> [Seat; 2] {
        [
            Seat {
                interface: self.interfaces[id.a],
                opponent_id: self.ids[id.b],
            },
            Seat {
                interface: self.interfaces[id.b],
                opponent_id: self.ids[id.a],
            },
        ]
    }

    fn take(&mut self, i: usize) -> Result<Bot> {
        self.bots
            .get_mut(i)
            .and_then(Option::take)
            .ok_or_else(|| Error::machine(format!("bot {i} is already in a duel")))
    }
}

/// Plays the tournament from its first round: stored duels (`stored` of
/// them in all) are read a round at a time and recorded, the rest played; each round's board is printed once the round is
/// durable. Stops early when cancelled (`interrupted` in the report).
pub(super) async fn tournament(
    mut t: Tournament,
    field: &mut Field,
    stored: usize,
    recorder: &Recorder,
    jobs: usize,
    session: &Session,
) -> Result<RunReport> {
    let (cancel, progress) = (&session.cancel, &*session.progress);
    let mut report = RunReport {
        already_done: stored,
        ..RunReport::default()
    };
    // Rounds depend on eliminations: the total is not known yet.
    session.resuming(stored, None, "duels");
    let started = Instant::now();
    let mut processes_started = false;
    let (names, languages) = names_and_languages(&field.spec);
    let names: Vec<String> = names.into_iter().map(String::from).collect();
    let languages: Vec<String> = languages.into_iter().map(String::from).collect();
    while let Some(mut round) = t.start_round() {
        report.total += round.duels().len();
        let recorded = record_stored(
            &mut round,
            &session.store(),
            &field.spec.challenge,
            &field.prefix,
            &mut field.faults,
        )?;
        if !round.is_complete() {
            if cancel.is_cancelled() {
                report.interrupted = true;
                break;
            }
            if !processes_started {
                // Interface-2 bots start once, when play begins, and run
                // until the end of the tournament.
                for &i in &t.live() {
                    if let Some(bot) = field.bots.get_mut(i).and_then(Option::as_mut) {
                        bot.start()?;
                    }
                }
                processes_started = true;
            }
            progress.say(&format!(
                "round {}: {} bots alive, {} duels{}",
                round.number(),
                t.live().len(),
                round.duels().len(),
                if recorded > 0 {
                    format!(" ({recorded} already played)")
                } else {
                    String::new()
                }
            ));
            let mut shown = RoundProgress {
                progress,
                round: round.number(),
                total: round.duels().len() - recorded,
                done: 0,
                last: Instant::now(),
            };
            play_round(
                &mut round,
                field,
                recorder,
                jobs,
                cancel,
                &mut report,
                &mut shown,
            )
            .await?;
            if !round.is_complete() {
                report.interrupted = true;
                break;
            }
        }
        let elimination = t.finish_round(round).map_err(Error::machine)?;
        for bot in field.bots.iter_mut().flatten() {
            bot.flush();
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let language_refs: Vec<&str> = languages.iter().map(String::as_str).collect();
        crate::output::print_stdout(&round_board(&t.records(&name_refs, &language_refs)))?;
        let leavers: Vec<&str> = elimination
            .leavers
            .iter()
            .filter_map(|&i| names.get(i).map(String::as_str))
            .collect();
        if elimination.joint_winners {
            let winners: Vec<&str> = t
                .winners()
                .iter()
                .filter_map(|&i| names.get(i).map(String::as_str))
                .collect();
            progress.say(&format!(
                "round {}: nobody leaves; joint winners: {}",
                elimination.round,
                winners.join(", ")
            ));
        } else if !leavers.is_empty() {
            progress.say(&format!(
                "round {}: {} {}",
                elimination.round,
                leavers.join(", "),
                if leavers.len() == 1 {
                    "leaves"
                } else {
                    "leave"
                }
            ));
        }
    }
    progress.say(&format!(
        "{} duels played, {} from the results database, in {:.1} s",
        report.played,
        report.already_done,
        started.elapsed().as_secs_f64()
    ));
    Ok(report)
}

/// A duel task's end: its position, its result and CPU seconds (`None` if
/// cancelled, `Err` if the referee could not start a process), and the two
/// bots handed back.
type Finished = (usize, Result<Option<(DuelResult, [f64; 2])>>, Bot, Bot);

/// Plays what is missing of `round`, at most `jobs` duels at once, each
/// bot's duels in schedule order. Returns when the round is complete, or
/// once cancelled with every running duel stopped.
#[allow(clippy::too_many_arguments)]
async fn play_round(
    round: &mut Round,
    field: &mut Field,
    recorder: &Recorder,
    jobs: usize,
    cancel: &CancellationToken,
    report: &mut RunReport,
    shown: &mut RoundProgress<'_>,
) -> Result<()> {
    let timeout = Duration::from_millis(field.settings.timeout_ms);
    let turns = field.settings.turns;
    let mut duels: Pool<Finished> = Pool::new(jobs);
    let mut commits: JoinSet<Result<usize>> = JoinSet::new();
    let mut unsent = Unsent::default();
    let outcome = loop {
        if !cancel.is_cancelled() {
            while duels.has_room() {
                let Some(k) = round.next_ready() else { break };
                let id = round.duels()[k];
                let seats = field.seats(&id);
                let mut a = field.take(id.a)?;
                let mut b = field.take(id.b)?;
                let labels = [
                    format!(
                        "round {} pass {} vs {}",
                        id.round, id.pass, field.spec.bots[id.b].name
                    ),
                    format!(
                        "round {} pass {} vs {}",
                        id.round, id.pass, field.spec.bots[id.a].name
                    ),
                ];
                let token = cancel.clone();
                duels.spawn(async move {
                    let result = play_duel(
                        turns,
                        seats,
                        [&mut a, &mut b],
                        timeout,
                        [&labels[0], &labels[1]],
                        &token,
                        |_| {},
                    )
                    .await
                    .map(|r| r.map(|r| (r, [a.cpu_seconds(), b.cpu_seconds()])));
                    (k, result, a, b)
                });
                report.max_concurrent = report.max_concurrent.max(duels.len());
            }
        }
        if duels.is_empty() {
            if round.is_complete() || cancel.is_cancelled() {
                break Ok(());
            }
            break Err(Error::machine(format!(
                "round {}: no duel can start although the round is incomplete",
                round.number()
            )));
        }
        tokio::select! {
            joined = duels.join_next() => {
                let Some(joined) = joined else { continue };
                let (k, result, a, b) = joined?;
                let id = round.duels()[k];
                field.bots[id.a] = Some(a);
                field.bots[id.b] = Some(b);
                let (result, cpu_seconds) = match result {
                    Ok(Some(played)) => played,
                    Ok(None) => continue,
                    // The referee could not start a process: nothing of
                    // this duel is recorded, and the run stops.
                    Err(e) => break Err(e),
                };
                let stored = StoredDuel {
                    duel: id,
                    names: [
                        field.spec.bots[id.a].name.clone(),
                        field.spec.bots[id.b].name.clone(),
                    ],
                    result,
                    cpu_seconds,
                };
                let record = serde_json::to_string(&stored)
                    .map_err(|e| Error::machine(format!("cannot encode a duel record: {e}")))?;
                let key = duel_key(&field.prefix, &id);
                let seed = game_seed(field.spec.seed, &key) as i64;
                unsent.push(GameRow { game_key: key, seed, record });
                if unsent.rows.len() >= COMMIT_ROWS {
                    if let Err(e) = unsent.send(recorder, &mut commits) {
                        break Err(e);
                    }
                }
                add_faults(&mut field.faults, &id, &stored.result.faults);
                // Later duels of these bots may start now; the result is
                // reported (and the round scored) only once committed.
                round.record(k, stored.result.outcome).map_err(Error::machine)?;
                report.played += 1;
            }
            Some(done) = commits.join_next() => {
                match done.map_err(|e| Error::machine(format!("a commit task failed: {e}"))) {
                    Ok(Ok(count)) => shown.committed(count),
                    Ok(Err(e)) | Err(e) => break Err(e),
                }
            }
            () = tokio::time::sleep_until(unsent.due().unwrap_or_else(far_future)),
                if unsent.since.is_some() => {
                if let Err(e) = unsent.send(recorder, &mut commits) {
                    break Err(e);
                }
            }
        }
    };
    // Every finished duel is handed to the writer, whatever ended the
    // loop (a cancel included).
    let sent = unsent.send(recorder, &mut commits);
    if outcome.is_err() {
        // Stop what is running; put the bots back so they are shut down.
        cancel.cancel();
        while let Some(joined) = duels.join_next().await {
            if let Ok((k, _, a, b)) = joined {
                let id = round.duels()[k];
                field.bots[id.a] = Some(a);
                field.bots[id.b] = Some(b);
            }
        }
    }
    outcome?;
    sent?;
    // Nothing of the round is reported before it is durable.
    while let Some(done) = commits.join_next().await {
        let count = done.map_err(|e| Error::machine(format!("a commit task failed: {e}")))??;
        shown.committed(count);
    }
    Ok(())
}

/// A deadline that never comes (for a `select!` branch that is off).
fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86_400)
}
