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

/// A stored game.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub game_key: String,
    pub seed: i64,
    pub record: String,
}

/// An open results database.
pub struct Store {
    conn: Connection,
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

    /// Stores finished games and adds play time to a tournament, in one transaction.
    pub fn commit(
        &mut self,
        tournament_id: i64,
        challenge: &str,
        games: &[GameRow],
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
            if play_seconds > 0.0 {
                tx.execute(
                    "UPDATE tournaments SET play_seconds = play_seconds + ?1 WHERE id = ?2",
                    params![play_seconds, tournament_id],
                )?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

fn row_to_tournament(r: &rusqlite::Row<'_>) -> rusqlite::Result<TournamentRow> {
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
        let found = s
            .games("meta-ttt", &["k1".to_string(), "k2".to_string()])
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found["k1"].seed, 7);
        assert!(s.games("forty", &["k1".to_string()]).unwrap().is_empty());
        assert_eq!(s.find_tournament(None).unwrap().map(|t| t.id), Some(t.id));
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
