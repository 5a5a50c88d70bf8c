//! A forty tournament's stored blocks (section 3.3).
//!
//! A tournament is played in blocks of 1000 consecutive games, and a
//! block's aggregate (plus the failure events and the process crashes,
//! disqualifications and CPU time that came while it was the next to
//! commit) is one row of the results store, a [`BlockRecord`]. Its key is
//! the tournament's [`block_prefix`] (everything its outcome depends on)
//! and the block's range, so a resume plays the missing blocks again from
//! scratch with the same dice and seatings, and a tournament extended to
//! more games keeps the blocks it has.
//!
//! The runner's side: [`load_blocks`] what earlier runs committed, fill an
//! [`OpenBlock`] per block in flight, and [`spawn_commit`] each one once
//! its last game has ended; standings merge every stored block
//! ([`stored_total`]).

use crate::error::{Error, Result};
use crate::results::{GameRow, Store};
use crate::session::Recorder;
use crate::tournament::TournamentSpec;
use game_forty::tournament::{block_games, BLOCK_GAMES};
use game_forty::{Aggregate, FailureEvent, Settings, DICE_ALGORITHM};
use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

/// Version of the stored block record.
const RECORD_VERSION: u32 = 1;

/// One committed block: the aggregate of games `games[0]..games[1]`, plus
/// what happened to the processes while it was the next to commit.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BlockRecord {
    pub version: u32,
    pub games: [u64; 2],
    pub aggregate: Aggregate,
    /// Failure events (bot index, event), the first 100 per bot overall.
    pub events: Vec<(usize, FailureEvent)>,
}

/// A block with games still in flight.
pub struct OpenBlock {
    pub record: BlockRecord,
    /// Its games not ended yet.
    pub remaining: u64,
}

impl OpenBlock {
    /// Block `block` of a tournament of `games` games among `bots` bots,
    /// before its first game.
    pub fn new(block: u64, games: u64, bots: usize) -> OpenBlock {
        let range = block_games(block, games);
        OpenBlock {
            remaining: range.end - range.start,
            record: BlockRecord {
                version: RECORD_VERSION,
                games: [range.start, range.end],
                aggregate: Aggregate::new(bots),
                events: Vec::new(),
            },
        }
    }
}

/// The key prefix of a tournament's blocks: everything a block's outcome
/// depends on (the dice algorithm, seed, outcome-relevant settings and the
/// bots in order). `games` and `concurrency` are not part of it, so a
/// tournament extended to more games keeps the blocks it has.
pub fn block_prefix(spec: &TournamentSpec, s: &Settings) -> String {
    let mut h = blake3::Hasher::new();
    let mut field = |text: &str| {
        h.update(&(text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    };
    field(DICE_ALGORITHM);
    field(&spec.seed.to_string());
    for (key, value) in s.pairs() {
        if key != "games" && key != "concurrency" {
            field(key);
            field(&value);
        }
    }
    for bot in &spec.bots {
        field(&bot.name);
        field(&bot.fingerprint);
    }
    format!("forty-1/{}/", &h.finalize().to_hex()[..24])
}

/// The key of block `block` of a tournament of `games` games.
pub fn block_key(prefix: &str, block: u64, games: u64) -> String {
    let range = block_games(block, games);
    format!("{prefix}{:015}-{:015}", range.start, range.end)
}

/// The key of block `block` of this tournament.
pub fn block_key_for(spec: &TournamentSpec, s: &Settings, block: u64) -> String {
    block_key(&block_prefix(spec, s), block, s.games)
}

/// The key of a row holding only what happened to the processes (crashes,
/// disqualifications, CPU time) during a run that stopped with no block
/// left to carry it.
pub fn extras_key(prefix: &str) -> String {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}~{stamp:039}")
}

/// A record of what happened to the processes only (crashes,
/// disqualifications, CPU time), for [`extras_key`].
pub fn extras_record(aggregate: Aggregate) -> BlockRecord {
    BlockRecord {
        version: RECORD_VERSION,
        games: [0, 0],
        aggregate,
        events: Vec::new(),
    }
}

/// The stored rows of a tournament that belong to its plan, in key order:
/// `Some(block)` for a block, `None` for a row of process events only.
pub fn load_blocks(
    store: &Store,
    spec: &TournamentSpec,
    s: &Settings,
    mut each: impl FnMut(Option<u64>, BlockRecord),
) -> Result<()> {
    let prefix = block_prefix(spec, s);
    let extras = format!("{prefix}~");
    store.scan_prefix(&spec.challenge, &prefix, |row| {
        let Ok(record) = serde_json::from_str::<BlockRecord>(&row.record) else {
            return Ok(());
        };
        if record.version != RECORD_VERSION {
            return Ok(());
        }
        if row.game_key.starts_with(&extras) && record.games[0] == record.games[1] {
            each(None, record);
            return Ok(());
        }
        let block = record.games[0] / BLOCK_GAMES;
        if record.games[0] % BLOCK_GAMES == 0 && row.game_key == block_key(&prefix, block, s.games)
        {
            each(Some(block), record);
        }
        Ok(())
    })
}

/// Every stored block of the tournament merged.
pub fn stored_total(store: &Store, spec: &TournamentSpec, s: &Settings) -> Result<Aggregate> {
    let mut total = Aggregate::new(spec.bots.len());
    load_blocks(store, spec, s, |_, record| total.merge(&record.aggregate))?;
    Ok(total)
}

/// Hands a block to the writer now (its play time is the lap up to now)
/// and waits for it to be durable in a task of `commits`.
pub fn spawn_commit(
    commits: &mut JoinSet<Result<u64>>,
    recorder: &Recorder,
    key: &str,
    record: BlockRecord,
) {
    let games = record.games[1] - record.games[0];
    let sent = serde_json::to_string(&record)
        .map_err(|e| Error::machine(format!("cannot encode a block: {e}")))
        .and_then(|json| {
            recorder.send(
                vec![GameRow {
                    game_key: key.to_string(),
                    seed: i64::try_from(record.games[0]).unwrap_or(i64::MAX),
                    record: json,
                }],
                None,
            )
        });
    commits.spawn(async move {
        sent?.wait().await?;
        Ok(games)
    });
}
