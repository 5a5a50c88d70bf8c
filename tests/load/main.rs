//! Verdicts measure the bot, not the machine: small tournaments played on an
//! idle machine and again under a deliberate background load give the same
//! results. A test binary of its own, so that its load never overlaps the
//! rest of the suite (cargo runs test binaries one after another); within
//! it, one tournament runs at a time.

#[path = "../it/common.rs"]
#[allow(dead_code)]
mod common;

mod background;
mod forty;
mod gun_duel;
mod heist;
mod meta_ttt;

use std::path::Path;
use std::sync::Mutex;

/// Held by each test for its whole length: an "idle" run must not overlap
/// another test's loaded run.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Drops the figures that measure the machine (CPU, wall and charged
/// seconds) from a stored record, leaving what the rules decided.
fn without_times(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.retain(|k, _| k != "cpu_seconds" && k != "times");
            map.values_mut().for_each(without_times);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(without_times),
        _ => {}
    }
}

/// Every stored game's record, by key, without its timing figures.
fn games(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let conn = rusqlite::Connection::open(dir.join("results.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT game_key, record FROM games ORDER BY game_key")
        .unwrap();
    stmt.query_map([], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
    })
    .unwrap()
    .map(|r| {
        let (key, record) = r.unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&record).unwrap();
        without_times(&mut v);
        (key, v)
    })
    .collect()
}

/// Every `times` object stored anywhere in the games' records.
fn stored_times(dir: &Path) -> Vec<serde_json::Value> {
    fn collect(v: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, x) in map {
                    match (k.as_str(), x) {
                        ("times", serde_json::Value::Array(items)) => out.extend(items.clone()),
                        ("times", t @ serde_json::Value::Object(_)) => out.push(t.clone()),
                        _ => collect(x, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let conn = rusqlite::Connection::open(dir.join("results.db")).unwrap();
    let mut stmt = conn.prepare("SELECT record FROM games").unwrap();
    let mut out = Vec::new();
    for record in stmt.query_map([], |row| row.get::<_, String>(0)).unwrap() {
        let v: serde_json::Value = serde_json::from_str(&record.unwrap()).unwrap();
        collect(&v, &mut out);
    }
    out
}

/// Seconds the bots' calls waited for a CPU without being charged, summed
/// over every stored game.
fn uncharged_wait(dir: &Path) -> f64 {
    stored_times(dir)
        .iter()
        .map(|t| {
            let f = |k: &str| t.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
            f("wall_s") - f("charged_s")
        })
        .sum()
}

/// Copies a tournament folder (instructions and bot folders) to a fresh
/// place, so that the idle and the loaded run start alike.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The referee's notes on timed-out calls in the bots' logs, for a failure
/// message.
fn timeout_notes(dir: &Path) -> String {
    let mut notes = String::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("logs")) {
        for e in entries.flatten() {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            for line in text.lines().filter(|l| l.starts_with("referee: timed out")) {
                notes.push_str(&format!("{}: {line}\n", e.file_name().to_string_lossy()));
            }
        }
    }
    notes
}

/// Asserts that two runs stored the same games, showing where they differ.
fn assert_same_games(idle: &Path, loaded: &Path) {
    let (a, b) = (games(idle), games(loaded));
    assert_eq!(a.len(), b.len(), "games stored");
    for ((ka, va), (kb, vb)) in a.iter().zip(&b) {
        assert_eq!(ka, kb);
        assert!(
            va == vb,
            "game {ka} differs under load\nidle:   {va}\nloaded: {vb}\n{}",
            timeout_notes(loaded)
        );
    }
}

/// The same tournament played twice, in `base/idle` and then in
/// `base/loaded` under [`background::Background`]: `setup` fills each
/// folder, then the referee runs there with `args`. Returns both folders.
fn idle_then_loaded(
    base: &Path,
    setup: impl Fn(&Path),
    args: &[&str],
) -> (std::path::PathBuf, std::path::PathBuf) {
    let play = |name: &str| {
        let dir = base.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        setup(&dir);
        let out = common::referee(&dir, args);
        assert!(out.status.success(), "{name}: {}", common::stderr(&out));
        dir
    };
    let idle = play("idle");
    let _load = background::Background::start(base);
    (idle, play("loaded"))
}
