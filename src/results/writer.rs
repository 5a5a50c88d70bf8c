//! The single results writer: a thread that owns the database connection.
//! Games send finished records to it; it commits each one before
//! acknowledging, so nothing is reported that is not durable.

use super::store::{GameRow, Store};
use crate::error::{Error, Result};
use tokio::sync::{mpsc, oneshot};

struct Commit {
    games: Vec<GameRow>,
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

impl Writer {
    /// Moves `store` to a new thread that commits for tournament `tournament_id`.
    pub fn start(
        store: Store,
        tournament_id: i64,
        challenge: String,
    ) -> Result<(Writer, std::thread::JoinHandle<()>)> {
        // Appending needs few pages; keep memory flat over long runs.
        store.limit_cache(WRITER_CACHE_KIB)?;
        let (tx, mut rx) = mpsc::unbounded_channel::<Commit>();
        let handle = std::thread::Builder::new()
            .name("results-writer".into())
            .spawn(move || {
                let mut store = store;
                while let Some(c) = rx.blocking_recv() {
                    let r = store.commit(tournament_id, &challenge, &c.games, c.play_seconds);
                    let _ = c.done.send(r);
                }
            })
            .map_err(|e| Error::machine(format!("cannot start the results writer thread: {e}")))?;
        Ok((Writer { tx }, handle))
    }

    /// Commits games (and play time) and waits until they are durable.
    pub async fn commit(&self, games: Vec<GameRow>, play_seconds: f64) -> Result<()> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Commit {
                games,
                play_seconds,
                done,
            })
            .map_err(|_| Error::machine("the results writer has stopped"))?;
        wait.await
            .map_err(|_| Error::machine("the results writer has stopped"))?
    }
}
