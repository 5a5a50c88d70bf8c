//! The async tournament loop: starts games as the scheduler allows, sends
//! each finished record to the results writer, reports only what is
//! committed, and stops starting games once cancelled.

use super::schedule::Scheduler;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::{GameRow, Store, Writer};
use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;
use tokio::task::JoinSet;
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

/// What the runner needs of a challenge.
pub trait Challenge: Send + Sync + 'static {
    fn id(&self) -> &'static str;
    /// Every game of the tournament, in schedule order.
    fn plan(&self) -> &[PlannedGame];
    /// Plays game `index` of the plan. `None` when cancelled: nothing is stored.
    fn play(
        self: Arc<Self>,
        index: usize,
        cancel: CancellationToken,
    ) -> impl Future<Output = Option<Played>> + Send;
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

/// Plays every game of the plan whose key is not in `done`, at most `jobs` at once.
pub async fn run<C: Challenge>(
    challenge: Arc<C>,
    writer: &Writer,
    done: &HashSet<String>,
    jobs: usize,
    cancel: &CancellationToken,
    progress: &Progress,
) -> Result<RunReport> {
    let plan = challenge.plan();
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
    let mut games = JoinSet::new();
    let mut mark = Instant::now();
    progress.start(report.total, report.already_done);

    loop {
        if cancel.is_cancelled() {
            sched.drop_pending();
        }
        while let Some(i) = sched.start_next() {
            let c = Arc::clone(&challenge);
            let token = cancel.child_token();
            games.spawn(async move { (i, c.play(i, token).await) });
        }
        report.max_concurrent = report.max_concurrent.max(sched.running());
        let Some(joined) = games.join_next().await else {
            break;
        };
        let (i, played) = joined.map_err(|e| Error::machine(format!("a game task failed: {e}")))?;
        sched.finish(i);
        let Some(played) = played else {
            continue;
        };
        let now = Instant::now();
        let row = GameRow {
            game_key: plan[i].key.clone(),
            seed: plan[i].seed as i64,
            record: played.record,
        };
        if let Err(e) = writer.commit(vec![row], (now - mark).as_secs_f64()).await {
            cancel.cancel();
            while games.join_next().await.is_some() {}
            return Err(e);
        }
        mark = now;
        report.played += 1;
        progress.game_done(&played.summary);
    }
    report.interrupted = cancel.is_cancelled();
    if !report.interrupted && report.played > 0 {
        // Time after the last commit (nothing here yet) is still playing time.
        writer
            .commit(Vec::new(), mark.elapsed().as_secs_f64())
            .await?;
    }
    progress.finish();
    Ok(report)
}

/// [`run`] with the writer thread set up and torn down around it: the
/// common case of a challenge whose whole plan is known up front.
pub async fn run_with_store<C: Challenge>(
    challenge: Arc<C>,
    store: Store,
    tournament_id: i64,
    done: &HashSet<String>,
    jobs: usize,
    cancel: &CancellationToken,
    progress: &Progress,
) -> Result<RunReport> {
    let (writer, thread) = Writer::start(store, tournament_id, challenge.id().to_string())?;
    let report = run(challenge, &writer, done, jobs, cancel, progress).await;
    drop(writer);
    let _ = thread.join();
    report
}
