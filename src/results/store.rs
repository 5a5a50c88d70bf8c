//! The SQLite schema and its queries.

use crate::error::{Error, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::{HashMap, HashSet};
use std::path::Path;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tournaments (
    id            INTEGER PRIMARY KEY,
    challenge     TEXT NOT NULL,
    identity      TEXT NOT NULL UNIQUE,  -- challenge, seed, settings and field
    description   TEXT NOT NULL,         -- JSON: what `standings` needs to re-plan it
    play_seconds  REAL NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE IF NOT EXISTS games (
    challenge     TEXT NOT NULL,
    game_key      TEXT NOT NULL,
    seed          INTEGER NOT NULL,
    record        TEXT NOT NULL,         -- JSON, the challenge's own record
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    finished_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (challenge, game_key)
);
CREATE TABLE IF NOT EXISTS preflights (
    challenge     TEXT NOT NULL,
    bot_key       TEXT NOT NULL,         -- the bot's fingerprint, interface and the settings
    started_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (challenge, bot_key)
);
CREATE TABLE IF NOT EXISTS checkpoints (
    challenge      TEXT NOT NULL,
    checkpoint_key TEXT NOT NULL,
    state          TEXT NOT NULL,         -- JSON, what a challenge needs to continue
    tournament_id  INTEGER NOT NULL REFERENCES tournaments(id),
    updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (challenge, checkpoint_key)
);
CREATE TABLE IF NOT EXISTS shards (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    shard         INTEGER NOT NULL,      -- part `shard` of `count` (`--shard I/N`)
    count         INTEGER NOT NULL,
    complete      INTEGER NOT NULL DEFAULT 0,
    play_seconds  REAL NOT NULL DEFAULT 0, -- merged: the part's play time counted
    PRIMARY KEY (tournament_id, count, shard)
);
";

/// From this many keys on, [`Store::games`] reads all of the challenge's
/// rows once instead of looking each key up.
const SCAN_FROM_KEYS: usize = 2048;

/// A stored tournament.
#[derive(Debug, Clone)]
pub struct TournamentRow {
    pub id: i64,
    pub challenge: String,
    pub identity: String,
    pub description: String,
    pub play_seconds: f64,
}

/// When a tournament was recorded and played, and how many games it has.
#[derive(Debug, Clone, Default)]
pub struct TournamentTimes {
    /// The first run's start (UTC, ISO 8601).
    pub created_at: String,
    /// The latest run's start.
    pub updated_at: String,
    /// The first and last stored games' commits, if any.
    pub first_game: Option<String>,
    pub last_game: Option<String>,
    /// Stored game rows (a bf-joust match, a forty block).
    pub games: u64,
}

/// A stored game.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub game_key: String,
    pub seed: i64,
    pub record: String,
}

/// The state a challenge needs to continue a sequence of games (heist: a
/// tournament's players between two games). Stored under a key, replaced
/// in the same transaction as the game that produced it, so the state and
/// the stored games never disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub key: String,
    pub state: String,
}

/// An open results database.
pub struct Store {
    pub(super) conn: Connection,
}

impl Store {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        let conn = Connection::open(path).map_err(|e| {
            Error::machine(format!(
                "{}: cannot open results database: {e}",
                path.display()
            ))
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        // WAL: readers (`referee standings`) never block the writer; NORMAL
        // sync is durable against a crash or kill of the referee.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.execute_batch(SCHEMA).map_err(|e| {
            Error::machine(format!(
                "{}: not a referee results database: {e}",
                path.display()
            ))
        })?;
        Ok(Store { conn })
    }

    /// Opens an existing database for reading only (reports, the live
    /// page): nothing is created or written, and the writer is never
    /// blocked (WAL).
    pub fn open_read_only(path: &Path) -> Result<Store> {
        use rusqlite::OpenFlags;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| {
            Error::machine(format!(
                "{}: cannot open results database: {e}",
                path.display()
            ))
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(Store { conn })
    }

    /// When tournament `id` was recorded and played.
    pub fn tournament_times(&self, id: i64) -> Result<TournamentTimes> {
        let (created_at, updated_at) = self.conn.query_row(
            "SELECT created_at, updated_at FROM tournaments WHERE id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (first_game, last_game, games) = self.conn.query_row(
            "SELECT MIN(finished_at), MAX(finished_at), COUNT(*) FROM games WHERE tournament_id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?)),
        )?;
        Ok(TournamentTimes {
            created_at,
            updated_at,
            first_game,
            last_game,
            games: u64::try_from(games).unwrap_or(0),
        })
    }

    /// Caps SQLite's page cache of this connection at `kib` KiB. The single
    /// writer only appends rows, which needs few pages; a small cache keeps
    /// the referee's memory flat however large the database grows (the
    /// default, 2 MiB, fills up as a long tournament's rows accumulate).
    pub fn limit_cache(&self, kib: u32) -> Result<()> {
        self.conn
            .pragma_update(None, "cache_size", -i64::from(kib.max(1)))?;
        Ok(())
    }

    /// The page cache limit of this connection, in KiB.
    pub fn cache_limit_kib(&self) -> Result<i64> {
        let size: i64 = self.conn.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
        let page: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        Ok(if size < 0 { -size } else { size * page / 1024 })
    }

    /// The tournament with this identity, created if new. Touches `updated_at`
    /// so the most recent run is the default for `standings`.
    pub fn tournament(
        &mut self,
        challenge: &str,
        identity: &str,
        description: &str,
    ) -> Result<TournamentRow> {
        self.conn.execute(
            "INSERT INTO tournaments (challenge, identity, description) VALUES (?1, ?2, ?3)
             ON CONFLICT(identity) DO UPDATE SET description = excluded.description,
                 updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
            params![challenge, identity, description],
        )?;
        self.conn
            .query_row(
                "SELECT id, challenge, identity, description, play_seconds FROM tournaments WHERE identity = ?1",
                params![identity],
                row_to_tournament,
            )
            .map_err(Error::from)
    }

    /// The most recently run tournament, or the one with this id.
    pub fn find_tournament(&self, id: Option<i64>) -> Result<Option<TournamentRow>> {
        let sql = "SELECT id, challenge, identity, description, play_seconds FROM tournaments";
        let row = match id {
            Some(id) => self.conn.query_row(
                &format!("{sql} WHERE id = ?1"),
                params![id],
                row_to_tournament,
            ),
            None => self.conn.query_row(
                &format!("{sql} ORDER BY updated_at DESC, id DESC LIMIT 1"),
                [],
                row_to_tournament,
            ),
        };
        row.optional().map_err(Error::from)
    }

    /// Every tournament, oldest first.
    pub fn tournaments(&self) -> Result<Vec<TournamentRow>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, challenge, identity, description, play_seconds FROM tournaments ORDER BY id")?;
        let rows = stmt.query_map([], row_to_tournament)?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(Error::from)
    }

    /// The stored games of `challenge` among `keys`.
    pub fn games(&self, challenge: &str, keys: &[String]) -> Result<HashMap<String, GameRow>> {
        // One read transaction: one snapshot, and one lock instead of one
        // per key.
        let tx = self.conn.unchecked_transaction()?;
        let mut found = HashMap::with_capacity(keys.len());
        let to_row = |r: &rusqlite::Row<'_>| {
            Ok(GameRow {
                game_key: r.get(0)?,
                seed: r.get(1)?,
                record: r.get(2)?,
            })
        };
        if keys.len() >= SCAN_FROM_KEYS {
            // Many keys (a bf-joust field has tens of thousands): one pass
            // over the challenge's rows beats an index lookup per key.
            let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
            let mut stmt =
                tx.prepare_cached("SELECT game_key, seed, record FROM games WHERE challenge = ?1")?;
            for row in stmt.query_map(params![challenge], to_row)? {
                let row = row?;
                if wanted.contains(row.game_key.as_str()) {
                    found.insert(row.game_key.clone(), row);
                }
            }
        } else {
            let mut stmt = tx.prepare_cached(
                "SELECT game_key, seed, record FROM games WHERE challenge = ?1 AND game_key = ?2",
            )?;
            for key in keys {
                if let Some(row) = stmt.query_row(params![challenge, key], to_row).optional()? {
                    found.insert(key.clone(), row);
                }
            }
        }
        tx.commit()?;
        Ok(found)
    }

    /// Every stored game of `challenge` whose key starts with `prefix`, for
    /// challenges whose plan grows as results come in (a resume loads them
    /// all before replaying). Uses the primary key's order: no table scan.
    pub fn games_with_prefix(&self, challenge: &str, prefix: &str) -> Result<Vec<GameRow>> {
        let mut rows = Vec::new();
        self.scan_prefix(challenge, prefix, |g| {
            rows.push(g);
            Ok(())
        })?;
        Ok(rows)
    }

    /// The stored checkpoint of `challenge` under `key`.
    pub fn checkpoint(&self, challenge: &str, key: &str) -> Result<Option<String>> {
        self.conn
            .prepare_cached(
                "SELECT state FROM checkpoints WHERE challenge = ?1 AND checkpoint_key = ?2",
            )?
            .query_row(params![challenge, key], |r| r.get(0))
            .optional()
            .map_err(Error::from)
    }

    /// Calls `each` with every stored game of `challenge` whose key starts
    /// with `prefix`, in key order, one row at a time (nothing is collected,
    /// so a plan of any size is read in constant memory). Stops at the first
    /// error `each` returns.
    pub fn scan_prefix(
        &self,
        challenge: &str,
        prefix: &str,
        mut each: impl FnMut(GameRow) -> Result<()>,
    ) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT game_key, seed, record FROM games
             WHERE challenge = ?1 AND game_key >= ?2 AND (?3 IS NULL OR game_key < ?3)
             ORDER BY game_key",
        )?;
        let mut rows = stmt.query(params![challenge, prefix, prefix_end(prefix)])?;
        while let Some(r) = rows.next()? {
            each(GameRow {
                game_key: r.get(0)?,
                seed: r.get(1)?,
                record: r.get(2)?,
            })?;
        }
        Ok(())
    }

    /// Stores finished games and adds play time to a tournament, in one transaction.
    pub fn commit(
        &mut self,
        tournament_id: i64,
        challenge: &str,
        games: &[GameRow],
        play_seconds: f64,
    ) -> Result<()> {
        self.commit_with(tournament_id, challenge, games, &[], play_seconds)
    }

    /// [`Store::commit`] plus a checkpoint, all in one transaction: either the
    /// games and the state after them are stored, or neither is.
    pub fn commit_with(
        &mut self,
        tournament_id: i64,
        challenge: &str,
        games: &[GameRow],
        checkpoints: &[Checkpoint],
        play_seconds: f64,
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO games (challenge, game_key, seed, record, tournament_id) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for g in games {
                insert.execute(params![
                    challenge,
                    g.game_key,
                    g.seed,
                    g.record,
                    tournament_id
                ])?;
            }
            // In order: a later checkpoint under the same key replaces an earlier one.
            for c in checkpoints {
                tx.prepare_cached(
                    "INSERT INTO checkpoints (challenge, checkpoint_key, state, tournament_id) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(challenge, checkpoint_key) DO UPDATE SET state = excluded.state,
                         tournament_id = excluded.tournament_id,
                         updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                )?
                .execute(params![challenge, c.key, c.state, tournament_id])?;
            }
            if play_seconds > 0.0 {
                tx.prepare_cached(
                    "UPDATE tournaments SET play_seconds = play_seconds + ?1 WHERE id = ?2",
                )?
                .execute(params![play_seconds, tournament_id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

impl Store {
    /// Whether a bot under `bot_key` started in an earlier preflight.
    pub fn started(&self, challenge: &str, bot_key: &str) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM preflights WHERE challenge = ?1 AND bot_key = ?2",
                params![challenge, bot_key],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(Error::from)
    }

    /// Records that the bot under `bot_key` started in a preflight.
    pub fn set_started(&mut self, challenge: &str, bot_key: &str) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO preflights (challenge, bot_key) VALUES (?1, ?2)",
            params![challenge, bot_key],
        )?;
        Ok(())
    }
}

/// The smallest string above every string that starts with `prefix` (in
/// SQLite's byte order), or `None` when there is none (empty prefix, or
/// only U+10FFFF characters).
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        // The next scalar value, skipping the surrogate gap.
        let next = (u32::from(last) + 1..=0x10FFFF).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

pub(super) fn row_to_tournament(r: &rusqlite::Row<'_>) -> rusqlite::Result<TournamentRow> {
    Ok(TournamentRow {
        id: r.get(0)?,
        challenge: r.get(1)?,
        identity: r.get(2)?,
        description: r.get(3)?,
        play_seconds: r.get(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_survive_reopening_and_play_time_adds_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.db");
        {
            let mut s = Store::open(&path).unwrap();
            let t = s.tournament("meta-ttt", "id-1", "{}").unwrap();
            let g = GameRow {
                game_key: "k1".into(),
                seed: 7,
                record: "{\"a\":1}".into(),
            };
            s.commit(t.id, "meta-ttt", &[g], 1.5).unwrap();
            s.commit(t.id, "meta-ttt", &[], 2.0).unwrap();
        }
        let mut s = Store::open(&path).unwrap();
        let t = s.tournament("meta-ttt", "id-1", "{}").unwrap();
        assert_eq!(t.play_seconds, 3.5);
        let mut read = Store::open_read_only(&path).unwrap();
        let times = read.tournament_times(t.id).unwrap();
        assert_eq!(times.games, 1);
        assert!(times.first_game.is_some() && times.first_game == times.last_game);
        assert!(times.created_at <= times.updated_at);
        assert!(
            read.commit(t.id, "meta-ttt", &[], 1.0).is_err(),
            "read only"
        );
        let found = s
            .games("meta-ttt", &["k1".to_string(), "k2".to_string()])
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found["k1"].seed, 7);
        assert!(s.games("forty", &["k1".to_string()]).unwrap().is_empty());
        assert_eq!(s.find_tournament(None).unwrap().map(|t| t.id), Some(t.id));
    }

    #[test]
    fn games_with_a_prefix_are_exactly_those_of_the_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("results.db")).unwrap();
        let t = s.tournament("gun-duel", "id-1", "{}").unwrap();
        let rows: Vec<GameRow> = ["ab/1", "ab/2", "ab/\u{e9}", "ab", "ab0", "aa/9", "ac/1"]
            .iter()
            .map(|k| GameRow {
                game_key: (*k).to_string(),
                seed: 0,
                record: "{}".into(),
            })
            .collect();
        s.commit(t.id, "gun-duel", &rows, 0.0).unwrap();
        s.commit(t.id, "forty", &rows[..1], 0.0).unwrap();
        let keys: Vec<String> = s
            .games_with_prefix("gun-duel", "ab/")
            .unwrap()
            .into_iter()
            .map(|g| g.game_key)
            .collect();
        assert_eq!(keys, ["ab/1", "ab/2", "ab/\u{e9}"]);
        assert_eq!(s.games_with_prefix("forty", "ab/").unwrap().len(), 1);
        assert!(s.games_with_prefix("gun-duel", "zz/").unwrap().is_empty());
    }

    #[test]
    fn a_checkpoint_is_replaced_with_its_game_and_kept_per_challenge() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.db");
        let game = |k: &str| GameRow {
            game_key: k.into(),
            seed: 1,
            record: "{}".into(),
        };
        let state = |s: &str| Checkpoint {
            key: "t1".into(),
            state: s.into(),
        };
        {
            let mut s = Store::open(&path).unwrap();
            let t = s.tournament("heist", "id-1", "{}").unwrap();
            assert_eq!(s.checkpoint("heist", "t1").unwrap(), None);
            s.commit_with(t.id, "heist", &[game("g0")], &[state("after 0")], 0.0)
                .unwrap();
            s.commit_with(t.id, "heist", &[game("g1")], &[state("after 1")], 0.0)
                .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(
            s.checkpoint("heist", "t1").unwrap().as_deref(),
            Some("after 1")
        );
        assert_eq!(s.checkpoint("forty", "t1").unwrap(), None);
        let keys = ["g0".to_string(), "g1".to_string()];
        assert_eq!(s.games("heist", &keys).unwrap().len(), 2);
    }

    #[test]
    fn a_failed_transaction_stores_neither_game_nor_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("results.db")).unwrap();
        let row = GameRow {
            game_key: "g0".into(),
            seed: 1,
            record: "{}".into(),
        };
        let c = Checkpoint {
            key: "t1".into(),
            state: "after 0".into(),
        };
        // No tournament 99: the foreign key fails the whole transaction.
        assert!(s.commit_with(99, "heist", &[row], &[c], 0.0).is_err());
        assert_eq!(s.checkpoint("heist", "t1").unwrap(), None);
        assert!(s.games("heist", &["g0".to_string()]).unwrap().is_empty());
    }

    #[test]
    fn a_batch_commits_together_and_a_prefix_scan_finds_exactly_its_keys() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("results.db")).unwrap();
        let t = s.tournament("forty", "id-2", "{}").unwrap();
        let row = |key: &str, seed: i64| GameRow {
            game_key: key.into(),
            seed,
            record: format!("{{\"k\":\"{key}\"}}"),
        };
        let batch = vec![
            row("t1/000002", 2),
            row("t1/000000", 0),
            row("t1/000001", 1),
            row("t1", 9),
            row("t10/000000", 10),
            row("t0/000000", 11),
            row("t1\u{10FFFF}", 12),
        ];
        s.commit(t.id, "forty", &batch, 0.25).unwrap();
        s.commit(t.id, "other", &[row("t1/000003", 3)], 0.0)
            .unwrap();
        let scan = |prefix: &str| {
            let mut keys = Vec::new();
            s.scan_prefix("forty", prefix, |g| {
                keys.push((g.game_key, g.seed));
                Ok(())
            })
            .unwrap();
            keys
        };
        assert_eq!(
            scan("t1/"),
            vec![
                ("t1/000000".to_string(), 0),
                ("t1/000001".to_string(), 1),
                ("t1/000002".to_string(), 2)
            ]
        );
        assert_eq!(scan("t1").len(), 6, "t1, t1/ (3), t10/, t1 + U+10FFFF");
        assert_eq!(scan("").len(), 7);
        assert!(scan("t2").is_empty());
        // An error from the callback stops the scan and is returned.
        let mut seen = 0;
        let err = s.scan_prefix("forty", "t1/", |_| {
            seen += 1;
            Err(Error::machine("stop"))
        });
        assert!(err.is_err());
        assert_eq!(seen, 1);
        s.limit_cache(256).unwrap();
        assert_eq!(s.cache_limit_kib().unwrap(), 256);
        assert_eq!(scan("t1/").len(), 3, "still readable with a small cache");
        assert_eq!(prefix_end("ab"), Some("ac".to_string()));
        assert_eq!(prefix_end("a\u{D7FF}"), Some("a\u{E000}".to_string()));
        assert_eq!(prefix_end("\u{10FFFF}"), None);
        assert_eq!(prefix_end(""), None);
    }

    #[test]
    fn many_keys_find_the_same_games_as_few() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("results.db")).unwrap();
        let t = s.tournament("bf-joust", "id", "{}").unwrap();
        let row = |i: usize| GameRow {
            game_key: format!("k{i}"),
            seed: i as i64,
            record: format!("{{\"i\":{i}}}"),
        };
        // Even keys stored for bf-joust, multiples of 3 for another challenge.
        let even: Vec<GameRow> = (0..3 * SCAN_FROM_KEYS).step_by(2).map(row).collect();
        let threes: Vec<GameRow> = (0..3 * SCAN_FROM_KEYS).step_by(3).map(row).collect();
        s.commit(t.id, "bf-joust", &even, 0.0).unwrap();
        s.commit(t.id, "forty", &threes, 0.0).unwrap();
        let keys: Vec<String> = (1..=SCAN_FROM_KEYS + 1).map(|i| format!("k{i}")).collect();
        let many = s.games("bf-joust", &keys).unwrap();
        assert_eq!(many.len(), SCAN_FROM_KEYS / 2);
        for chunk in keys.chunks(100) {
            let few = s.games("bf-joust", chunk).unwrap();
            for key in chunk {
                assert_eq!(
                    few.get(key).map(|g| (&g.record, g.seed)),
                    many.get(key).map(|g| (&g.record, g.seed)),
                    "{key}"
                );
            }
        }
        assert!(many.contains_key("k2") && !many.contains_key("k3"));
    }
}
