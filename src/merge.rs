//! `referee merge --db results.db SHARD.db...`: the parts of a sharded
//! tournament ([`crate::shard`]) combined into one results database, whose
//! standings are then those of an unsharded run.
//!
//! Every shard must hold the same tournament (same identity: challenge,
//! seed, settings, bots and their contents); one that does not is refused,
//! naming it and the difference. A part whose run has not completed is
//! left out and reported, as is every part of the N not given: nothing of
//! a missing part counts as played. Rows are copied as they are
//! ([`Store::merge_shard`]), and a repeated merge changes nothing.

use crate::error::{Error, Result};
use crate::results::{ShardRow, Store, TournamentRow};
use crate::shard::Shard;
use crate::status::Status;
use crate::tournament::TournamentSpec;
use clap::Args;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// `referee merge`'s arguments.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The merged results database (created if missing).
    #[arg(long, value_name = "FILE")]
    pub db: PathBuf,
    /// The shards' databases (`referee --shard I/N --db FILE`).
    #[arg(value_name = "SHARD.db", required = true)]
    pub shards: Vec<PathBuf>,
    /// When another referee is using the merged database, wait for it to
    /// end instead of refusing (exit 2).
    #[arg(long)]
    pub wait: bool,
}

/// One shard's database, read.
struct Part {
    path: PathBuf,
    row: TournamentRow,
    spec: TournamentSpec,
    shard: ShardRow,
}

impl Part {
    fn read(path: &Path, into: &Path) -> Result<Part> {
        if !path.is_file() {
            return Err(Error::input(format!(
                "{}: no such shard database",
                path.display()
            )));
        }
        if same_file(path, into) {
            return Err(Error::input(format!(
                "{}: is the merged database itself (--db)",
                path.display()
            )));
        }
        let store = Store::open(path)?;
        let (row, shard) = store.sharded_tournament()?.ok_or_else(|| {
            Error::input(format!(
                "{}: not a shard's database: no `referee --shard I/N` run is recorded in it",
                path.display()
            ))
        })?;
        let spec = serde_json::from_str(&row.description).map_err(|e| {
            Error::machine(format!(
                "{}: the tournament's description is unreadable: {e}",
                path.display()
            ))
        })?;
        Ok(Part {
            path: path.to_path_buf(),
            row,
            spec,
            shard,
        })
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Runs `referee merge`: exit 0 when every part is in the merged database,
/// [`Status::Incomplete`] when some are missing (said on stderr).
pub async fn merge(args: MergeArgs, cancel: &CancellationToken) -> Result<Status> {
    let parts = args
        .shards
        .iter()
        .map(|p| Part::read(p, &args.db))
        .collect::<Result<Vec<Part>>>()?;
    let Some(first) = parts.first() else {
        return Err(Error::input("merge what? name the shards' databases"));
    };
    for part in &parts[1..] {
        if part.row.identity != first.row.identity {
            return Err(Error::input(format!(
                "{}: not the tournament of {}: {}",
                part.path.display(),
                first.path.display(),
                difference((&first.spec, &first.path), (&part.spec, &part.path))
            )));
        }
        if part.shard.shard.count != first.shard.shard.count {
            return Err(Error::input(format!(
                "{}: shard {} of a tournament parted in {}, but {} is shard {}",
                part.path.display(),
                part.shard.shard,
                part.shard.shard.count,
                first.path.display(),
                first.shard.shard
            )));
        }
    }
    let count = first.shard.shard.count;
    let Some(_lock) =
        crate::lock::hold_database(&args.db, "referee merge", args.wait, cancel).await?
    else {
        return Ok(Status::Interrupted);
    };
    let mut store = Store::open(&args.db)?;
    let into = store.tournament_for_merge(
        &first.row.challenge,
        &first.row.identity,
        &first.row.description,
    )?;
    let (mut games, mut merged) = (0, Vec::new());
    for part in &parts {
        if !part.shard.complete {
            eprintln!(
                "referee: {}: shard {} is not finished: left out (run it again to finish it, \
                 then merge again)",
                part.path.display(),
                part.shard.shard
            );
            continue;
        }
        let done = store.merge_shard(&part.path, &part.row, part.shard.shard, &into)?;
        games += done.games + done.checkpoints;
        merged.push(part.shard.shard.to_string());
    }
    let present: BTreeSet<u32> = store
        .shards(into.id)?
        .into_iter()
        .filter(|s| s.complete && s.shard.count == count)
        .map(|s| s.shard.index)
        .collect();
    let missing: Vec<String> = (0..count)
        .filter(|i| !present.contains(i))
        .filter_map(|i| Shard::new(i, count))
        .map(|s| s.to_string())
        .collect();
    eprintln!(
        "referee: merged {} of {} ({}, {} bots) into {}: {games} rows new or changed; \
         {} of {count} parts are in it",
        plural(merged.len(), "shard"),
        first.row.challenge,
        first.row.identity,
        first.spec.bots.len(),
        args.db.display(),
        present.len(),
    );
    if missing.is_empty() {
        return Ok(Status::Done);
    }
    eprintln!(
        "referee: missing: {} {} (not counted as played; merge them once they are finished)",
        if missing.len() == 1 {
            "shard"
        } else {
            "shards"
        },
        missing.join(", ")
    );
    Ok(Status::Incomplete)
}

/// What `standings` says of a tournament whose database holds only some
/// of its parts (a shard's, or a merge with parts missing); `None` for an
/// unsharded tournament or one with every part.
pub fn parts_note(store: &Store, tournament_id: i64) -> Result<Option<String>> {
    let parts = store.shards(tournament_id)?;
    let Some(count) = parts.iter().map(|p| p.shard.count).max() else {
        return Ok(None);
    };
    let complete: BTreeSet<u32> = parts
        .iter()
        .filter(|p| p.complete && p.shard.count == count)
        .map(|p| p.shard.index)
        .collect();
    if complete.len() == count as usize {
        return Ok(None);
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !complete.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    Ok(Some(format!(
        "these standings are of part of the tournament only: {} missing \
         (`referee merge` the shards for the whole)",
        missing.join(", ")
    )))
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// What makes two tournaments different, for the organiser: the first
/// setting, bot or seed that differs, naming both databases.
fn difference(
    (a, a_path): (&TournamentSpec, &Path),
    (b, b_path): (&TournamentSpec, &Path),
) -> String {
    let (an, bn) = (a_path.display(), b_path.display());
    if a.challenge != b.challenge {
        return format!(
            "a {} tournament in {an}, a {} one in {bn}",
            a.challenge, b.challenge
        );
    }
    if a.seed != b.seed {
        return format!("seed {} in {an}, {} in {bn}", a.seed, b.seed);
    }
    let keys: BTreeSet<&String> = a.settings.keys().chain(b.settings.keys()).collect();
    for key in keys {
        let (x, y) = (a.settings.get(key), b.settings.get(key));
        if x != y {
            let shown = |v: Option<&String>| v.map_or("not set".to_string(), |v| format!("`{v}`"));
            return format!(
                "setting `{key}` is {} in {an}, {} in {bn}",
                shown(x),
                shown(y)
            );
        }
    }
    let names =
        |s: &TournamentSpec| -> Vec<String> { s.bots.iter().map(|b| b.name.clone()).collect() };
    let (a_names, b_names) = (names(a), names(b));
    // A bot left out of one shard's run (its preflight, a build) says why.
    let why = |s: &TournamentSpec, name: &str| {
        s.absent
            .iter()
            .find(|x| x.name == name)
            .map_or(String::new(), |x| {
                format!(" (left out there: {})", x.reason)
            })
    };
    if let Some(name) = a_names.iter().find(|n| !b_names.contains(n)) {
        return format!("bot `{name}` plays in {an}, not in {bn}{}", why(b, name));
    }
    if let Some(name) = b_names.iter().find(|n| !a_names.contains(n)) {
        return format!("bot `{name}` plays in {bn}, not in {an}{}", why(a, name));
    }
    if a_names != b_names {
        return format!("the bots are in another order in {bn} than in {an}");
    }
    for (x, y) in a.bots.iter().zip(&b.bots) {
        if x.fingerprint != y.fingerprint {
            return format!(
                "bot `{}` differs (its command, program or folder's content) between {an} and {bn}",
                x.name
            );
        }
        if x.interface != y.interface {
            return format!(
                "bot `{}` has another interface in {bn} than in {an}",
                x.name
            );
        }
    }
    "their identities differ".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::BotSpec;

    fn spec(bots: &[(&str, &str)], settings: &[(&str, &str)]) -> TournamentSpec {
        TournamentSpec {
            challenge: "meta-ttt".into(),
            seed: 1,
            settings: settings
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            bots: bots
                .iter()
                .map(|(n, fp)| BotSpec {
                    name: n.to_string(),
                    command: format!("./{n}"),
                    argv: vec![],
                    folder: n.into(),
                    fingerprint: fp.to_string(),
                    language: None,
                    owner: None,
                    interface: None,
                    invalid: None,
                })
                .collect(),
            dir: "/t".into(),
            absent: Vec::new(),
        }
    }

    #[test]
    fn the_difference_names_the_setting_or_the_bot() {
        let d = |a: &TournamentSpec, b: &TournamentSpec| {
            difference((a, Path::new("a.db")), (b, Path::new("b.db")))
        };
        let base = spec(&[("x", "1"), ("y", "2")], &[("timeout-ms", "100")]);
        let other = spec(&[("x", "1"), ("y", "2")], &[("timeout-ms", "200")]);
        assert_eq!(
            d(&base, &other),
            "setting `timeout-ms` is `100` in a.db, `200` in b.db"
        );
        let unset = spec(&[("x", "1"), ("y", "2")], &[]);
        assert_eq!(
            d(&base, &unset),
            "setting `timeout-ms` is `100` in a.db, not set in b.db"
        );
        let more = spec(
            &[("x", "1"), ("y", "2"), ("z", "3")],
            &[("timeout-ms", "100")],
        );
        assert_eq!(d(&base, &more), "bot `z` plays in b.db, not in a.db");
        let mut left_out = base.clone();
        left_out.bots.pop();
        left_out.absent.push(crate::tournament::Absent {
            name: "y".into(),
            reason: "cannot start".into(),
        });
        assert_eq!(
            d(&base, &left_out),
            "bot `y` plays in a.db, not in b.db (left out there: cannot start)"
        );
        let changed = spec(&[("x", "1"), ("y", "9")], &[("timeout-ms", "100")]);
        assert!(d(&base, &changed).starts_with("bot `y` differs"));
        let mut seeded = base.clone();
        seeded.seed = 2;
        assert_eq!(d(&base, &seeded), "seed 1 in a.db, 2 in b.db");
    }
}
