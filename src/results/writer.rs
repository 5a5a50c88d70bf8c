//! The single results writer: a thread that owns the database connection.
//! Games send finished records to it; it commits each one before
//! acknowledging, so nothing is reported that is not durable.

use super::store::{Checkpoint, GameRow, Store};
use crate::error::{Error, Result};
use tokio::sync::{mpsc, oneshot};

struct Commit {
    games: Vec<GameRow>,
    checkpoint: Option<Checkpoint>,
    play_seconds: f64,
    done: oneshot::Sender<Result<()>>,
}

/// A handle to the writer thread. Cheap to clone.
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::UnboundedSender<Commit>,
}

impl Writer {
    /// Moves `store` to a new thread that commits for tournament `tournament_id`.
    pub fn start(
        store: Store,
        tournament_id: i64,
        challenge: String,
    ) -> Result<(Writer, std::thread::JoinHandle<()>)> {
        let (tx, mut rx) = mpsc::unbounded_channel::<Commit>();
        let handle = std::thread::Builder::new()
            .name("results-writer".into())
            .spawn(move || {
                let mut store = store;
                while let Some(c) = rx.blocking_recv() {
                    let r = store.commit_with(
                        tournament_id,
                        &challenge,
                        &c.games,
                        c.checkpoint.as_ref(),
                        c.play_seconds,
                    );
                    let _ = c.done.send(r);
                }
            })
            .map_err(|e| Error::machine(format!("cannot start the results writer thread: {e}")))?;
        Ok((Writer { tx }, handle))
    }

    /// Commits games (and play time) and waits until they are durable.
    pub async fn commit(&self, games: Vec<GameRow>, play_seconds: f64) -> Result<()> {
        self.commit_with(games, None, play_seconds).await
    }

    /// Commits games together with the checkpoint that follows them, in one
    /// transaction, and waits until both are durable.
    pub async fn commit_with(
        &self,
        games: Vec<GameRow>,
        checkpoint: Option<Checkpoint>,
        play_seconds: f64,
    ) -> Result<()> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Commit {
                games,
                checkpoint,
                play_seconds,
                done,
            })
            .map_err(|_| Error::machine("the results writer has stopped"))?;
        wait.await
            .map_err(|_| Error::machine("the results writer has stopped"))?
    }
}
