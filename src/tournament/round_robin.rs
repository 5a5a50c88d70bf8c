//! The round-robin loop, for a challenge whose whole plan is known up
//! front: starts games as the scheduler allows, records each finished one
//! through the session, reports only what is committed, and stops starting
//! games once cancelled.

use super::pool::Pool;
use super::schedule::Scheduler;
use crate::error::Result;
use crate::results::GameRow;
use crate::session::Session;
use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One game of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedGame {
    /// Names everything the game's outcome depends on; the results key.
    pub key: String,
    /// The game's own seed, derived from the tournament seed and its identity.
    pub seed: u64,
    /// Bots (indices) the game occupies while it runs.
    pub resources: Vec<usize>,
}

/// A finished game, ready to store.
#[derive(Debug, Clone)]
pub struct Played {
    /// The challenge's record, as JSON.
    pub record: String,
    /// One line for progress output.
    pub summary: String,
}

/// A challenge whose whole plan is known up front (meta-ttt).
pub trait GamePlan: Send + Sync + 'static {
    /// Every game of the tournament, in schedule order.
    fn plan(&self) -> &[PlannedGame];
    /// Plays game `index` of the plan. `None` when cancelled: nothing is
    /// stored. `Err` when the machine prevented the game (the referee could
    /// not start a bot's process): nothing is stored and the run stops.
    fn play(
        self: Arc<Self>,
        index: usize,
        cancel: CancellationToken,
    ) -> impl Future<Output = Result<Option<Played>>> + Send;
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    pub total: usize,
    pub already_done: usize,
    pub played: usize,
    pub interrupted: bool,
    pub max_concurrent: usize,
    /// Why the run stopped before completing, when bots (not the organiser
    /// or the machine) made it impossible to go on: shown after the
    /// standings, with a non-zero exit.
    pub stopped: Option<String>,
}

/// Plays every game of the plan not stored yet, at most `jobs` at once,
/// and finishes the session.
pub async fn run<G: GamePlan>(games: Arc<G>, session: Session, jobs: usize) -> Result<RunReport> {
    let keys: Vec<String> = games.plan().iter().map(|g| g.key.clone()).collect();
    let done: HashSet<String> = session.stored(&keys)?.into_keys().collect();
    let report = play_pending(games, &session, &done, jobs).await;
    let finished = match &report {
        Ok(r) => session.finish(r.played > 0, r.interrupted).await,
        Err(_) => Ok(()),
    };
    let report = report?;
    finished?;
    Ok(report)
}

async fn play_pending<G: GamePlan>(
    games: Arc<G>,
    session: &Session,
    done: &HashSet<String>,
    jobs: usize,
) -> Result<RunReport> {
    let plan = games.plan();
    let pending: Vec<usize> = (0..plan.len())
        .filter(|&i| !done.contains(&plan[i].key))
        .collect();
    let mut report = RunReport {
        total: plan.len(),
        already_done: plan.len() - pending.len(),
        ..RunReport::default()
    };
    let resources = plan.iter().map(|g| g.resources.clone()).collect();
    let mut sched = Scheduler::new(resources, pending, jobs);
    let mut pool = Pool::new(jobs);
    let recorder = session.recorder();
    let cancel = &session.cancel;
    let progress = &session.progress;
    session.start_progress(report.total, report.already_done);

    loop {
        if cancel.is_cancelled() {
            sched.drop_pending();
        }
        while let Some(i) = sched.start_next() {
            let g = Arc::clone(&games);
            let token = cancel.child_token();
            pool.spawn(async move { (i, g.play(i, token).await) });
        }
        report.max_concurrent = report.max_concurrent.max(sched.running());
        let Some(joined) = pool.join_next().await else {
            break;
        };
        let (i, played) = joined?;
        sched.finish(i);
        let played = match played {
            Ok(Some(played)) => played,
            Ok(None) => continue,
            Err(e) => {
                // The games in flight are stopped and dropped, not stored.
                cancel.cancel();
                pool.drain().await;
                return Err(e);
            }
        };
        let row = GameRow {
            game_key: plan[i].key.clone(),
            seed: plan[i].seed as i64,
            record: played.record,
        };
        if let Err(e) = recorder.commit(vec![row], None).await {
            cancel.cancel();
            pool.drain().await;
            return Err(e);
        }
        report.played += 1;
        progress.game_done(&played.summary);
    }
    report.interrupted = cancel.is_cancelled();
    progress.finish();
    Ok(report)
}
