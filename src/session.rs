//! The services every challenge's runner uses while it plays a tournament:
//! reading what is stored, recording finished games through the single
//! writer (with the play clock inside), the one resume line, and a finish
//! that records the last stretch of play time and joins the writer.
//!
//! A runner's loop is its own (round robin, elimination rounds, an ordered
//! series, blocks over persistent processes); what it shares is here:
//!
//! ```text
//! let stored = session.stored(&keys)?;            // resume = plan - stored
//! session.start_progress(total, already_done);    // the resume line, the bar
//! let recorder = session.recorder();              // one clone per task
//! recorder.commit(rows, None).await?;             // durable before reported
//! session.finish(played_any, interrupted).await?; // last lap, writer joined
//! ```

use crate::error::Result;
use crate::progress::Progress;
use crate::results::{Checkpoint, GameRow, Pending, Store, Writer, WriterThread};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// One run of one stored tournament.
pub struct Session {
    // Field order is drop order: the recorder (a writer handle) goes before
    // the thread is joined, or the join would wait forever.
    recorder: Recorder,
    _writer_thread: WriterThread,
    // Behind a lock only so that a `&Session` may cross an await.
    store: Mutex<Store>,
    challenge: &'static str,
    tournament_id: i64,
    db: PathBuf,
    pub progress: Arc<Progress>,
    pub cancel: CancellationToken,
}

impl Session {
    /// Opens the session of tournament `tournament_id` in the database at
    /// `db`: `store` stays for reads, a second connection goes to the
    /// writer thread (WAL lets both work at once).
    pub fn open(
        store: Store,
        db: &Path,
        challenge: &'static str,
        tournament_id: i64,
        progress: Arc<Progress>,
        cancel: CancellationToken,
    ) -> Result<Session> {
        let (writer, thread) = Writer::start(Store::open(db)?, tournament_id, challenge)?;
        Ok(Session {
            recorder: Recorder {
                writer,
                clock: Arc::new(PlayClock::new()),
            },
            _writer_thread: thread,
            store: Mutex::new(store),
            challenge,
            tournament_id,
            db: db.to_path_buf(),
            progress,
            cancel,
        })
    }

    pub fn tournament_id(&self) -> i64 {
        self.tournament_id
    }

    /// The results database's path (heist keeps its logs beside it).
    pub fn db(&self) -> &Path {
        &self.db
    }

    /// The store, for reads (checkpoints, key prefixes). Not to be held
    /// across an await.
    pub fn store(&self) -> MutexGuard<'_, Store> {
        match self.store.lock() {
            Ok(store) => store,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The stored games of this challenge among `keys`, by key.
    pub fn stored(&self, keys: &[String]) -> Result<HashMap<String, GameRow>> {
        self.store().games(self.challenge, keys)
    }

    /// A handle that records games; cheap to clone into tasks.
    pub fn recorder(&self) -> Recorder {
        self.recorder.clone()
    }

    /// The one resume line: `resuming: N of M games already in the results
    /// database` (without `of M` when the total is not known yet).
    pub fn resuming(&self, already_done: usize, total: Option<usize>, unit: &str) {
        if already_done == 0 {
            return;
        }
        let of = total.map_or_else(String::new, |t| format!(" of {t}"));
        self.progress.say(&format!(
            "resuming: {already_done}{of} {unit} already in the results database"
        ));
    }

    /// The resume line, then the progress bar over `total` games.
    pub fn start_progress(&self, total: usize, already_done: usize) {
        self.resuming(already_done, Some(total), "games");
        self.progress.start(total, already_done);
    }

    /// Ends the session: unless the run was interrupted, the time since the
    /// last commit is recorded as play time too (a run that played nothing
    /// records none); then the writer is joined.
    pub async fn finish(self, played_any: bool, interrupted: bool) -> Result<()> {
        let recorder = self.recorder.clone();
        let result = if played_any && !interrupted {
            recorder.commit(Vec::new(), None).await
        } else {
            Ok(())
        };
        drop(recorder);
        drop(self);
        result
    }
}

/// Records games through the writer thread; every record carries the play
/// time since the previous one (the play clock's lap).
#[derive(Clone)]
pub struct Recorder {
    writer: Writer,
    clock: Arc<PlayClock>,
}

impl Recorder {
    /// Hands games (and the checkpoint that follows them) to the writer
    /// without waiting: the returned [`Pending`] says when they are durable.
    pub fn send(&self, games: Vec<GameRow>, checkpoint: Option<Checkpoint>) -> Result<Pending> {
        self.writer.send_with(games, checkpoint, self.clock.lap())
    }

    /// [`Recorder::send`], then waits until durable.
    pub async fn commit(&self, games: Vec<GameRow>, checkpoint: Option<Checkpoint>) -> Result<()> {
        self.send(games, checkpoint)?.wait().await
    }

    /// Restarts the play clock without recording (time spent waiting for
    /// something that is not play).
    pub fn restart_clock(&self) {
        self.clock.lap();
    }
}

/// Wall time of play, taken in laps: each lap is the time since the last.
struct PlayClock {
    mark: Mutex<Instant>,
}

impl PlayClock {
    fn new() -> PlayClock {
        PlayClock {
            mark: Mutex::new(Instant::now()),
        }
    }

    /// Seconds since the previous lap (or the start).
    fn lap(&self) -> f64 {
        let now = Instant::now();
        let mut mark = match self.mark.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        let seconds = (now - *mark).as_secs_f64();
        *mark = now;
        seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn laps_add_up_to_the_play_time_and_finish_joins_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("results.db");
        let mut store = Store::open(&db).unwrap();
        let t = store.tournament("meta-ttt", "id", "{}").unwrap();
        let progress = Arc::new(Progress::new(true));
        let session = Session::open(
            store,
            &db,
            "meta-ttt",
            t.id,
            progress,
            CancellationToken::new(),
        )
        .unwrap();
        let started = Instant::now();
        let recorder = session.recorder();
        let row = GameRow {
            game_key: "k".into(),
            seed: 0,
            record: "{}".into(),
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        recorder.commit(vec![row], None).await.unwrap();
        drop(recorder);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(session.stored(&["k".to_string()]).unwrap().len(), 1);
        session.finish(true, false).await.unwrap();
        let wall = started.elapsed().as_secs_f64();
        let stored = Store::open(&db)
            .unwrap()
            .find_tournament(Some(t.id))
            .unwrap()
            .unwrap()
            .play_seconds;
        // Both stretches are counted, and nothing beyond the session's life.
        assert!(stored >= 0.04, "{stored}");
        assert!(stored <= wall, "{stored} > {wall}");
    }

    #[tokio::test]
    async fn an_interrupted_session_records_no_trailing_time() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("results.db");
        let mut store = Store::open(&db).unwrap();
        let t = store.tournament("meta-ttt", "id", "{}").unwrap();
        let session = Session::open(
            store,
            &db,
            "meta-ttt",
            t.id,
            Arc::new(Progress::new(true)),
            CancellationToken::new(),
        )
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        session.finish(true, true).await.unwrap();
        let stored = Store::open(&db)
            .unwrap()
            .find_tournament(Some(t.id))
            .unwrap()
            .unwrap()
            .play_seconds;
        assert_eq!(stored, 0.0);
    }
}
