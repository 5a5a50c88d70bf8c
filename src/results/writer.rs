//! The single results writer: a thread that owns the database connection.
//! Games send finished records to it; it commits each one before
//! acknowledging, so nothing is reported that is not durable.
//!
//! Commits that queue up while the thread is busy go into one transaction
//! (each is still acknowledged only once that transaction is committed), so
//! a fast stream of short games is not limited by one transaction per game.

use super::store::{Checkpoint, GameRow, Store};
use crate::error::{Error, Result};
use tokio::sync::{mpsc, oneshot};

/// Commits the writer folds into one transaction at most.
const BATCH: usize = 256;

struct Commit {
    games: Vec<GameRow>,
    checkpoint: Option<Checkpoint>,
    play_seconds: f64,
    done: oneshot::Sender<Result<()>>,
}

/// Page cache of the writer's connection, in KiB.
const WRITER_CACHE_KIB: u32 = 256;

/// A handle to the writer thread. Cheap to clone.
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::UnboundedSender<Commit>,
}

/// The writer thread; joined when dropped, which returns once every
/// [`Writer`] handle is gone and every queued commit is done.
#[must_use = "dropping it at once waits for the writer to stop"]
pub struct WriterThread(Option<std::thread::JoinHandle<()>>);

impl WriterThread {
    /// Waits for the thread to end (every `Writer` handle must be dropped first).
    pub fn join(mut self) {
        self.join_now();
    }

    fn join_now(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for WriterThread {
    fn drop(&mut self) {
        self.join_now();
    }
}

/// A commit handed to the writer; [`Pending::wait`] returns once it is durable.
#[must_use = "a commit is durable only once `wait` returns Ok"]
pub struct Pending {
    wait: oneshot::Receiver<Result<()>>,
}

impl Pending {
    /// Waits until the commit is durable (or failed).
    pub async fn wait(self) -> Result<()> {
        self.wait
            .await
            .map_err(|_| Error::machine("the results writer has stopped"))?
    }
}

impl Writer {
    /// Moves `store` to a new thread that commits for tournament `tournament_id`.
    pub fn start(
        store: Store,
        tournament_id: i64,
        challenge: &str,
    ) -> Result<(Writer, WriterThread)> {
        let challenge = challenge.to_string();
        // Appending needs few pages; keep memory flat over long runs.
        store.limit_cache(WRITER_CACHE_KIB)?;
        let (tx, mut rx) = mpsc::unbounded_channel::<Commit>();
        let handle = std::thread::Builder::new()
            .name("results-writer".into())
            .spawn(move || {
                let mut store = store;
                while let Some(first) = rx.blocking_recv() {
                    let mut batch = vec![first];
                    while batch.len() < BATCH {
                        match rx.try_recv() {
                            Ok(c) => batch.push(c),
                            Err(_) => break,
                        }
                    }
                    let games: Vec<GameRow> =
                        batch.iter().flat_map(|c| c.games.iter().cloned()).collect();
                    let checkpoints: Vec<Checkpoint> =
                        batch.iter().filter_map(|c| c.checkpoint.clone()).collect();
                    let seconds: f64 = batch.iter().map(|c| c.play_seconds).sum();
                    let r =
                        store.commit_with(tournament_id, &challenge, &games, &checkpoints, seconds);
                    for c in batch {
                        let each = match &r {
                            Ok(()) => Ok(()),
                            Err(e) => Err(Error::machine(e.to_string())),
                        };
                        let _ = c.done.send(each);
                    }
                }
            })
            .map_err(|e| Error::machine(format!("cannot start the results writer thread: {e}")))?;
        Ok((Writer { tx }, WriterThread(Some(handle))))
    }

    /// Hands games (and play time) to the writer without waiting; the
    /// returned `Pending` says when they are durable. Commits are applied
    /// in the order they are sent.
    pub fn send(&self, games: Vec<GameRow>, play_seconds: f64) -> Result<Pending> {
        self.send_with(games, None, play_seconds)
    }

    /// [`Writer::send`] with the checkpoint that follows the games: both are
    /// stored in one transaction, or neither.
    pub fn send_with(
        &self,
        games: Vec<GameRow>,
        checkpoint: Option<Checkpoint>,
        play_seconds: f64,
    ) -> Result<Pending> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Commit {
                games,
                checkpoint,
                play_seconds,
                done,
            })
            .map_err(|_| Error::machine("the results writer has stopped"))?;
        Ok(Pending { wait })
    }

    /// Commits games (and play time) and waits until they are durable.
    pub async fn commit(&self, games: Vec<GameRow>, play_seconds: f64) -> Result<()> {
        self.send(games, play_seconds)?.wait().await
    }

    /// Commits games with the checkpoint that follows them and waits until
    /// both are durable.
    pub async fn commit_with(
        &self,
        games: Vec<GameRow>,
        checkpoint: Option<Checkpoint>,
        play_seconds: f64,
    ) -> Result<()> {
        self.send_with(games, checkpoint, play_seconds)?
            .wait()
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn queued_commits_are_all_durable_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.db");
        let mut store = Store::open(&path).unwrap();
        let t = store.tournament("gun-duel", "id", "{}").unwrap();
        let (writer, thread) = Writer::start(store, t.id, "gun-duel").unwrap();
        let row = |k: &str, r: &str| GameRow {
            game_key: k.into(),
            seed: 1,
            record: r.into(),
        };
        // Sent without waiting: they may share a transaction.
        let mut pending = Vec::new();
        for i in 0..50 {
            pending.push(
                writer
                    .send(vec![row(&format!("k{i}"), "first")], 0.5)
                    .unwrap(),
            );
        }
        // The same key again, later: the later record wins.
        pending.push(writer.send(vec![row("k0", "second")], 0.0).unwrap());
        for p in pending {
            p.wait().await.unwrap();
        }
        drop(writer);
        thread.join();
        let mut store = Store::open(&path).unwrap();
        let keys: Vec<String> = (0..50).map(|i| format!("k{i}")).collect();
        let found = store.games("gun-duel", &keys).unwrap();
        assert_eq!(found.len(), 50);
        assert_eq!(found["k0"].record, "second");
        assert_eq!(
            store
                .tournament("gun-duel", "id", "{}")
                .unwrap()
                .play_seconds,
            25.0
        );
    }
}
