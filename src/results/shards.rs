//! The parts a database holds of sharded tournaments (`--shard I/N`,
//! [`crate::shard`]), and the row-level copy `referee merge` makes of one.
//!
//! A shard's database has one `shards` row per tournament it played a part
//! of: which part, and whether it is complete (set when a run of the part
//! ends with nothing left to play). A merged database has one row per part
//! merged into it, with the play time counted from it, so a merge repeated
//! adds nothing.

use super::store::{row_to_tournament, Store, TournamentRow};
use crate::error::{Error, Result};
use crate::shard::Shard;
use rusqlite::{params, OptionalExtension};
use std::path::Path;

/// One part of a tournament held in a database.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardRow {
    pub tournament_id: i64,
    pub shard: Shard,
    pub complete: bool,
    /// In a merged database: the part's play time already added to the
    /// tournament's.
    pub play_seconds: f64,
}

/// What merging one part changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merged {
    /// Games (blocks, matches) new or changed in the merged database.
    pub games: usize,
    /// Checkpoints (heist's series) new or changed.
    pub checkpoints: usize,
}

fn to_shard_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShardRow> {
    let (shard, count): (u32, u32) = (r.get(1)?, r.get(2)?);
    Ok(ShardRow {
        tournament_id: r.get(0)?,
        shard: Shard::new(shard, count).unwrap_or(Shard::WHOLE),
        complete: r.get(3)?,
        play_seconds: r.get(4)?,
    })
}

impl Store {
    /// Records that a run of part `shard` of tournament `tournament_id`
    /// begins (or resumes): the part is not complete until
    /// [`Store::set_shard_complete`].
    pub fn begin_shard(&mut self, tournament_id: i64, shard: Shard) -> Result<()> {
        self.conn.execute(
            "INSERT INTO shards (tournament_id, shard, count, complete) VALUES (?1, ?2, ?3, 0)
             ON CONFLICT(tournament_id, count, shard) DO UPDATE SET complete = 0",
            params![tournament_id, shard.index, shard.count],
        )?;
        Ok(())
    }

    /// Records that part `shard` of tournament `tournament_id` is complete:
    /// every game of it is stored.
    pub fn set_shard_complete(&mut self, tournament_id: i64, shard: Shard) -> Result<()> {
        self.conn.execute(
            "UPDATE shards SET complete = 1 WHERE tournament_id = ?1 AND shard = ?2 AND count = ?3",
            params![tournament_id, shard.index, shard.count],
        )?;
        Ok(())
    }

    /// The parts of tournament `tournament_id` this database holds.
    pub fn shards(&self, tournament_id: i64) -> Result<Vec<ShardRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT tournament_id, shard, count, complete, play_seconds FROM shards
             WHERE tournament_id = ?1 ORDER BY count, shard",
        )?;
        let rows = stmt.query_map(params![tournament_id], to_shard_row)?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(Error::from)
    }

    /// The most recently run tournament of which this database holds a
    /// part, with the part: what a shard's database is the shard of.
    pub fn sharded_tournament(&self) -> Result<Option<(TournamentRow, ShardRow)>> {
        let tournament = self
            .conn
            .query_row(
                "SELECT t.id, t.challenge, t.identity, t.description, t.play_seconds
                 FROM tournaments t WHERE EXISTS (SELECT 1 FROM shards s WHERE s.tournament_id = t.id)
                 ORDER BY t.updated_at DESC, t.id DESC LIMIT 1",
                [],
                row_to_tournament,
            )
            .optional()?;
        let Some(tournament) = tournament else {
            return Ok(None);
        };
        let shard = self.conn.query_row(
            "SELECT tournament_id, shard, count, complete, play_seconds FROM shards
             WHERE tournament_id = ?1 ORDER BY rowid DESC LIMIT 1",
            params![tournament.id],
            to_shard_row,
        )?;
        Ok(Some((tournament, shard)))
    }

    /// The tournament with this identity, created if new; unlike
    /// [`Store::tournament`], an existing row is left as it is.
    pub fn tournament_for_merge(
        &mut self,
        challenge: &str,
        identity: &str,
        description: &str,
    ) -> Result<TournamentRow> {
        self.conn.execute(
            "INSERT INTO tournaments (challenge, identity, description) VALUES (?1, ?2, ?3)
             ON CONFLICT(identity) DO NOTHING",
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

    /// Copies part `shard` of a tournament from the database at `from`
    /// (where it is tournament `from_row`) into tournament `into`, in one
    /// transaction: every game and checkpoint of its challenge (a game's
    /// key names what its outcome depends on, so the rows of other runs of
    /// the part are harmless), the bots that started, the part as merged,
    /// and its play time once. A row already there with the same content
    /// is left untouched, so a repeated merge changes nothing.
    pub fn merge_shard(
        &mut self,
        from: &Path,
        from_row: &TournamentRow,
        shard: Shard,
        into: &TournamentRow,
    ) -> Result<Merged> {
        let path = from
            .to_str()
            .ok_or_else(|| Error::input(format!("{}: the path is not UTF-8", from.display())))?;
        self.conn
            .execute("ATTACH DATABASE ?1 AS part", params![path])?;
        let result = self.copy_part(from_row, shard, into);
        let detached = self.conn.execute("DETACH DATABASE part", []);
        let merged = result?;
        detached?;
        Ok(merged)
    }

    fn copy_part(
        &mut self,
        from_row: &TournamentRow,
        shard: Shard,
        into: &TournamentRow,
    ) -> Result<Merged> {
        let tx = self.conn.transaction()?;
        let games = tx.execute(
            "INSERT INTO main.games (challenge, game_key, seed, record, tournament_id, finished_at)
             SELECT challenge, game_key, seed, record, ?1, finished_at FROM part.games
             WHERE challenge = ?2
             ON CONFLICT(challenge, game_key) DO UPDATE SET seed = excluded.seed,
                 record = excluded.record, tournament_id = excluded.tournament_id,
                 finished_at = excluded.finished_at
             WHERE games.seed IS NOT excluded.seed OR games.record IS NOT excluded.record",
            params![into.id, into.challenge],
        )?;
        let checkpoints = tx.execute(
            "INSERT INTO main.checkpoints (challenge, checkpoint_key, state, tournament_id, updated_at)
             SELECT challenge, checkpoint_key, state, ?1, updated_at FROM part.checkpoints
             WHERE challenge = ?2
             ON CONFLICT(challenge, checkpoint_key) DO UPDATE SET state = excluded.state,
                 tournament_id = excluded.tournament_id, updated_at = excluded.updated_at
             WHERE checkpoints.state IS NOT excluded.state",
            params![into.id, into.challenge],
        )?;
        tx.execute(
            "INSERT OR IGNORE INTO main.preflights (challenge, bot_key, started_at)
             SELECT challenge, bot_key, started_at FROM part.preflights WHERE challenge = ?1",
            params![into.challenge],
        )?;
        // The part's play time, counted once: what was counted before is
        // replaced by what the part has now.
        let counted: f64 = tx
            .query_row(
                "SELECT play_seconds FROM main.shards WHERE tournament_id = ?1 AND shard = ?2 AND count = ?3",
                params![into.id, shard.index, shard.count],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0.0);
        tx.execute(
            "INSERT INTO main.shards (tournament_id, shard, count, complete, play_seconds)
             VALUES (?1, ?2, ?3, 1, ?4)
             ON CONFLICT(tournament_id, count, shard) DO UPDATE SET complete = 1,
                 play_seconds = excluded.play_seconds
             WHERE shards.complete IS NOT 1 OR shards.play_seconds IS NOT excluded.play_seconds",
            params![into.id, shard.index, shard.count, from_row.play_seconds],
        )?;
        let added = from_row.play_seconds - counted;
        if added != 0.0 {
            tx.execute(
                "UPDATE main.tournaments SET play_seconds = max(0, play_seconds + ?1) WHERE id = ?2",
                params![added, into.id],
            )?;
        }
        tx.commit()?;
        Ok(Merged { games, checkpoints })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Checkpoint, GameRow};

    fn game(key: &str, record: &str) -> GameRow {
        GameRow {
            game_key: key.into(),
            seed: 3,
            record: record.into(),
        }
    }

    /// A shard's database at `path` holding part `i` of 2 with these games.
    fn shard(path: &Path, i: u32, games: &[GameRow], seconds: f64) -> TournamentRow {
        let mut s = Store::open(path).unwrap();
        // Another tournament first: ids differ between the databases.
        s.tournament("heist", &format!("other-{i}"), "{}").unwrap();
        let t = s.tournament("heist", "id", "{}").unwrap();
        let part = Shard::new(i, 2).unwrap();
        s.begin_shard(t.id, part).unwrap();
        let c = Checkpoint {
            key: format!("series-{i}"),
            state: "after".into(),
        };
        s.commit_with(t.id, "heist", games, &[c], seconds).unwrap();
        s.set_shard_complete(t.id, part).unwrap();
        let (row, found) = s.sharded_tournament().unwrap().unwrap();
        assert_eq!((found.shard, found.complete), (part, true));
        row
    }

    #[test]
    fn parts_are_copied_once_with_their_play_time() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
        let row_a = shard(&a, 0, &[game("g0", "{\"x\":0}"), game("g2", "{}")], 1.5);
        let row_b = shard(&b, 1, &[game("g1", "{\"x\":1}")], 2.0);
        let mut merged = Store::open(&dir.path().join("results.db")).unwrap();
        let into = merged.tournament_for_merge("heist", "id", "{}").unwrap();
        let first = merged
            .merge_shard(&a, &row_a, Shard::new(0, 2).unwrap(), &into)
            .unwrap();
        assert_eq!(
            first,
            Merged {
                games: 2,
                checkpoints: 1
            }
        );
        merged
            .merge_shard(&b, &row_b, Shard::new(1, 2).unwrap(), &into)
            .unwrap();
        let keys: Vec<String> = ["g0", "g1", "g2"].map(String::from).to_vec();
        assert_eq!(merged.games("heist", &keys).unwrap().len(), 3);
        assert_eq!(
            merged.checkpoint("heist", "series-1").unwrap().as_deref(),
            Some("after")
        );
        let seconds = |s: &Store| {
            s.find_tournament(Some(into.id))
                .unwrap()
                .unwrap()
                .play_seconds
        };
        assert_eq!(seconds(&merged), 3.5);

        // Again: nothing changes, the play time is not added twice.
        let again = merged
            .merge_shard(&a, &row_a, Shard::new(0, 2).unwrap(), &into)
            .unwrap();
        assert_eq!(again, Merged::default());
        assert_eq!(seconds(&merged), 3.5);
        assert_eq!(merged.shards(into.id).unwrap().len(), 2);
        assert!(merged.shards(into.id).unwrap().iter().all(|p| p.complete));

        // A part that played on since: its new rows and its added time only.
        let mut s = Store::open(&a).unwrap();
        s.commit(row_a.id, "heist", &[game("g4", "{}")], 0.5)
            .unwrap();
        let row_a = s.find_tournament(Some(row_a.id)).unwrap().unwrap();
        let later = merged
            .merge_shard(&a, &row_a, Shard::new(0, 2).unwrap(), &into)
            .unwrap();
        assert_eq!(later.games, 1);
        assert_eq!(seconds(&merged), 4.0);
        // The shard's database itself is unchanged by the merges.
        assert!(Store::open(&a).unwrap().shards(row_a.id).unwrap()[0].complete);
    }
}
