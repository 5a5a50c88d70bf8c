//! gun-duel benchmarks (spec §10), as figures measured in the same run.
//!
//! G1: the cost of a turn over interface 2. Two copies of a bot that
//! always shields play 100-turn draws (`duels-per-pair: D`, so `100 D`
//! turns); the referee's wall time per turn, with the fixed cost of a
//! one-duel tournament (start-up, database, shutdown) subtracted, against
//! a bare loop that drives the same two binaries over pipes with the same
//! messages (`I`/`P` plus `F` in one write to each, then one move byte from
//! each). Done for a C++ player through the adapter and for a Python bot.
//!
//! G2: a whole tournament of 8 C++ players through the adapter with the
//! default settings (100 duels per pair, 100 turns), builds excluded:
//! wall time, duels, turns and wall time per turn.
//!
//! Run: `cargo bench --bench gun_duel_overhead`

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 5;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real Python interpreter: `python3` on PATH may be a slow shim.
fn python() -> String {
    Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "python3".to_string())
}

/// Builds `<name>.hpp` (found in `src`) with the adapter's documented command.
fn build_player(src: &Path, name: &str, out_dir: &Path) -> PathBuf {
    let folder = out_dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        src.join(format!("{name}.hpp")),
        folder.join(format!("{name}.hpp")),
    )
    .unwrap();
    let p = root().join("protocols/gun-duel");
    let ok = Command::new("g++")
        .args(["-std=c++14", "-O2", "-I"])
        .arg(&p)
        .args(["-include", &format!("{name}.hpp")])
        .arg(format!("-DGUNDUEL_PLAYER={name}"))
        .arg(p.join("driver.cpp"))
        .args(["-o", name])
        .current_dir(&folder)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "g++ must build {name}");
    folder.join(name)
}

/// Runs a tournament of `bots` (name, command) with `headers`; returns its
/// wall time and the database.
fn referee(
    dir: &Path,
    headers: &str,
    bots: &[(String, String)],
    jobs: Option<usize>,
) -> (Duration, PathBuf) {
    let t = dir.join(format!("t{}", suffix()));
    std::fs::create_dir_all(&t).unwrap();
    let mut ins = format!("challenge: gun-duel\n{headers}");
    for (name, cmd) in bots {
        ins.push_str(&format!("{name} {cmd}\n"));
    }
    std::fs::write(t.join("instructions.txt"), ins).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    // Games only: no preflight calls before them.
    cmd.args(["--quiet", "--preflight", "off", "--instructions"])
        .arg(t.join("instructions.txt"))
        .stdout(Stdio::null());
    if let Some(j) = jobs {
        cmd.args(["--jobs", &j.to_string()]);
    }
    let start = Instant::now();
    let status = cmd.status().unwrap();
    let took = start.elapsed();
    assert!(status.success());
    (took, t.join("results.db"))
}

fn suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Duels, turns and faults stored in a results database.
fn duels_and_turns(db: &Path) -> (usize, u64, u64) {
    let store = referee::results::Store::open(db).unwrap();
    let rows = store.games_with_prefix("gun-duel", "").unwrap();
    let (mut turns, mut faults) = (0, 0);
    for r in &rows {
        let v: serde_json::Value = serde_json::from_str(&r.record).unwrap();
        turns += v["turns"].as_u64().unwrap();
        for side in v["faults"].as_array().unwrap() {
            faults += side
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum::<u64>();
        }
    }
    (rows.len(), turns, faults)
}

/// One bot process driven by hand over pipes.
struct Bare {
    child: Child,
    buf: [u8; 64],
    pos: usize,
    len: usize,
}

impl Bare {
    fn start(argv: &[String]) -> Bare {
        let child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Bare {
            child,
            buf: [0; 64],
            pos: 0,
            len: 0,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.child.stdin.as_mut().unwrap().write_all(bytes).unwrap();
    }

    /// The next non-whitespace byte (reads what is there, as the referee does).
    fn read_move(&mut self) -> u8 {
        loop {
            while self.pos < self.len {
                let b = self.buf[self.pos];
                self.pos += 1;
                if !b.is_ascii_whitespace() {
                    return b;
                }
            }
            let n = self
                .child
                .stdout
                .as_mut()
                .unwrap()
                .read(&mut self.buf)
                .unwrap();
            assert!(n > 0, "the bot closed its stdout");
            (self.pos, self.len) = (0, n);
        }
    }

    fn end(mut self) {
        drop(self.child.stdin.take());
        self.child.wait().unwrap();
    }
}

/// The bare loop: `duels` duels of 100 turns between two copies of `argv`,
/// the same bytes the referee sends, both bots asked at once.
fn bare(argv: &[String], duels: usize) -> Duration {
    let mut bots = [Bare::start(argv), Bare::start(argv)];
    // Warm up (start-up is not a turn).
    for (i, b) in bots.iter_mut().enumerate() {
        b.send(format!("I{}\nF\n", 1 - i).as_bytes());
        b.read_move();
    }
    let start = Instant::now();
    for _ in 0..duels {
        for turn in 0..100 {
            for (i, b) in bots.iter_mut().enumerate() {
                let msg = if turn == 0 {
                    format!("P-\nI{}\nF\n", 1 - i)
                } else {
                    "P-\nF\n".to_string()
                };
                b.send(msg.as_bytes());
            }
            for b in &mut bots {
                assert_eq!(b.read_move(), b'-');
            }
        }
    }
    let took = start.elapsed();
    for b in bots {
        b.end();
    }
    took
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// G1 for one bot: (referee us/turn, bare us/turn, ratio) per round.
fn g1(dir: &Path, label: &str, argv: &[String], duels: usize, rounds: usize) {
    let cmd = argv
        .iter()
        .map(|a| shell_words::quote(a).into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let bots = vec![("a".to_string(), cmd.clone()), ("b".to_string(), cmd)];
    let (mut r, mut b, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        // A generous limit: this measures throughput, and a loaded machine
        // can stall a bot past the default 1 s.
        let headers = "timeout-ms: 10000\n";
        let (fixed, _) = referee(
            dir,
            &format!("{headers}duels-per-pair: 1\n"),
            &bots,
            Some(1),
        );
        let (t, db) = referee(
            dir,
            &format!("{headers}duels-per-pair: {duels}\n"),
            &bots,
            Some(1),
        );
        let (count, turns, faults) = duels_and_turns(&db);
        assert_eq!(
            (count, turns, faults),
            (duels, 100 * duels as u64, 0),
            "every duel a 100-turn draw, no fault"
        );
        let per_turn = (t.saturating_sub(fixed)).as_secs_f64() / (100.0 * (duels - 1) as f64);
        let bare_turn = bare(argv, duels).as_secs_f64() / (100.0 * duels as f64);
        r.push(per_turn * 1e6);
        b.push(bare_turn * 1e6);
        ratio.push(per_turn / bare_turn);
    }
    println!(
        "  G1 {label}: referee {:.1} us/turn ({:.0} turns/s), bare pipes {:.1} us/turn ({:.0} turns/s), ratio (median) {:.2}",
        median(r.clone()),
        1e6 / median(r.clone()),
        median(b.clone()),
        1e6 / median(b.clone()),
        median(ratio.clone())
    );
    println!(
        "     ratios per round: {}; best of each: {:.1} / {:.1} us/turn = {:.2}",
        ratio
            .iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(" "),
        least(&r),
        least(&b),
        least(&r) / least(&b)
    );
}

/// The best (lowest) figure: the least disturbed by other load.
fn least(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too:
    // one quick round there.
    let full = std::env::args().any(|a| a == "--bench");
    let rounds = if full { ROUNDS } else { 1 };
    // Under target/, not the shared /tmp: a bot's Landlock rules grow with
    // the entries beside each folder along the tournament's path.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let players = root().join("benches/gun_duel");
    let wall = build_player(&players, "WallPlayer", dir.path());
    println!("gun-duel benchmarks ({cores} cores)");

    let duels = if full { 300 } else { 20 };
    g1(
        dir.path(),
        "C++ WallPlayer via the adapter",
        &[wall.to_string_lossy().into_owned()],
        duels,
        rounds,
    );
    g1(
        dir.path(),
        "Python wall.py",
        &[
            python(),
            players.join("wall.py").to_string_lossy().into_owned(),
        ],
        duels / 3,
        rounds,
    );

    // G2: a field of C++ players.
    let sources = [
        (
            root().join("protocols/gun-duel/examples/SteadyPlayer"),
            "SteadyPlayer",
        ),
        (
            root().join("protocols/gun-duel/examples/DicePlayer"),
            "DicePlayer",
        ),
        (root().join("examples/bots/gun-duel/Hunter"), "Hunter"),
        (root().join("tests/bots/gun-duel/cpp"), "HoarderPlayer"),
        (root().join("tests/bots/gun-duel/cpp"), "CounterPlayer"),
        (players.clone(), "WallPlayer"),
        (players.clone(), "SniperPlayer"),
        (players.clone(), "RandomPlayer"),
    ];
    let field: Vec<(String, String)> = sources
        .iter()
        .map(|(src, name)| {
            let bin = build_player(src, name, &dir.path().join("field"));
            (name.to_string(), bin.to_string_lossy().into_owned())
        })
        .collect();
    let headers = if full { "" } else { "duels-per-pair: 5\n" };
    for jobs in [None, Some(2)] {
        let (t, db) = referee(dir.path(), headers, &field, jobs);
        let (count, turns, faults) = duels_and_turns(&db);
        println!(
            "  G2 {} C++ players, {}: {:.2} s, {count} duels, {turns} turns, {faults} faults, {:.1} us/turn",
            field.len(),
            jobs.map_or_else(|| "default --jobs".to_string(), |j| format!("--jobs {j}")),
            t.as_secs_f64(),
            t.as_secs_f64() * 1e6 / turns as f64
        );
    }
}
