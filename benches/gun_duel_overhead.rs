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
//! G3 (issue 19): the referee against the original contest's design, run
//! on the same players, with the bare cost of pipes in between. 12 C++
//! players (the project's examples and test players, plus
//! benches/gun_duel/'s, among them a Monte-Carlo thinker that dominates the
//! thinking time, as MontePlayer did in the original field) play a default
//! tournament three ways: through the referee, each player its own process
//! via the adapter; over bare pipes, `benches/gun_duel/inprocess.cpp
//! --pipes` driving the same adapter binaries with the referee's messages
//! (one write per bot per turn, both asked before either is read) and
//! nothing else (no timeouts, sandbox, logs or database: the isolated
//! design at its minimum); and in process, `inprocess.cpp` calling the same
//! `<Name>.hpp` objects virtually. Each is timed from outside, wall time
//! and CPU time (user + sys of the process and every descendant it waited
//! for, from `getrusage(RUSAGE_CHILDREN)` around the wait), in rounds whose
//! order rotates (referee, pipes, in-process; then pipes first; ...),
//! `GUN_DUEL_G3_ROUNDS` times (default 3). Printed per round and as
//! medians: referee / in-process (the goal: wall <= 1.3x and CPU <= 1.5x
//! with the same number of duels), pipes / in-process (the floor of any
//! design that isolates each player in a process, on this machine),
//! referee / pipes (the referee's own share), and the us per turn of the
//! referee and of bare pipes over in-process, wall and CPU. The players'
//! randomness is clock-seeded, so a tie that removes two bots at once can
//! change the duel count; the first round of the bench with unequal counts
//! is run again, and any other is compared per turn instead, flagged.
//! Builds are not timed. `GUN_DUEL_G3_PASSES` sets `duels-per-pair` for all
//! three (default 50, half the original's 100: G3 then takes about 4
//! minutes on 2 cores, builds included, and the whole bench 4 min 20 s;
//! at 100, G3 alone took 6 min 16 s); `GUN_DUEL_ONLY=G3` runs G3 alone
//! (or `G1`, `G2`). First, a check: on 7 players without randomness all
//! three sides must play the very same tournament (duels, turns, every
//! bot's points).
//!
//! Run: `cargo bench --bench gun_duel_overhead`
//! (G3 alone: `GUN_DUEL_ONLY=G3 cargo bench --bench gun_duel_overhead`)

use nix::sys::resource::{getrusage, UsageWho};
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

/// A fresh tournament folder in `dir` for `bots` (name, command) with
/// `headers`, and the referee command that plays it (games only: no
/// preflight calls before them).
fn tournament(dir: &Path, headers: &str, bots: &[(String, String)]) -> (PathBuf, Command) {
    let t = dir.join(format!("t{}", suffix()));
    std::fs::create_dir_all(&t).unwrap();
    let mut ins = format!("challenge: gun-duel\n{headers}");
    for (name, cmd) in bots {
        ins.push_str(&format!("{name} {cmd}\n"));
    }
    std::fs::write(t.join("instructions.txt"), ins).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    cmd.args(["--quiet", "--preflight", "off", "--instructions"])
        .arg(t.join("instructions.txt"));
    (t, cmd)
}

/// Runs a tournament of `bots` (name, command) with `headers`; returns its
/// wall time and the database.
fn referee(
    dir: &Path,
    headers: &str,
    bots: &[(String, String)],
    jobs: Option<usize>,
) -> (Duration, PathBuf) {
    let (t, mut cmd) = tournament(dir, headers, bots);
    cmd.stdout(Stdio::null());
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
    println!("gun-duel benchmarks ({cores} cores)");
    let only = std::env::var("GUN_DUEL_ONLY").unwrap_or_default();
    let selected = |name: &str| only.is_empty() || only.split(',').any(|o| o.trim() == name);
    if selected("G1") {
        g1_both(dir.path(), &players, full, rounds);
    }
    if selected("G2") {
        g2(dir.path(), &players, full);
    }
    if selected("G3") {
        g3(dir.path(), full);
    }
}

/// G1 for a C++ and a Python bot that always shield.
fn g1_both(dir: &Path, players: &Path, full: bool, rounds: usize) {
    let wall = build_player(players, "WallPlayer", dir);

    let duels = if full { 300 } else { 20 };
    g1(
        dir,
        "C++ WallPlayer via the adapter",
        &[wall.to_string_lossy().into_owned()],
        duels,
        rounds,
    );
    g1(
        dir,
        "Python wall.py",
        &[
            python(),
            players.join("wall.py").to_string_lossy().into_owned(),
        ],
        duels / 3,
        rounds,
    );
}

/// G2: a field of C++ players.
fn g2(dir: &Path, players: &Path, full: bool) {
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
        (players.to_path_buf(), "WallPlayer"),
        (players.to_path_buf(), "SniperPlayer"),
        (players.to_path_buf(), "RandomPlayer"),
    ];
    let field: Vec<(String, String)> = sources
        .iter()
        .map(|(src, name)| {
            let bin = build_player(src, name, &dir.join("field"));
            (name.to_string(), bin.to_string_lossy().into_owned())
        })
        .collect();
    let headers = if full { "" } else { "duels-per-pair: 5\n" };
    for jobs in [None, Some(2)] {
        let (t, db) = referee(dir, headers, &field, jobs);
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

/// CPU seconds (user + sys) of every child this process has waited for,
/// with all the descendants they waited for in turn.
fn children_cpu() -> f64 {
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0.0, |u| {
        let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
        t(u.user_time()) + t(u.system_time())
    })
}

/// G3's field, in registration order: (folder of `<Name>.hpp`, name).
fn g3_field() -> Vec<(PathBuf, &'static str)> {
    let r = root();
    let bench = r.join("benches/gun_duel");
    let tests = r.join("tests/bots/gun-duel/cpp");
    vec![
        (
            r.join("protocols/gun-duel/examples/SteadyPlayer"),
            "SteadyPlayer",
        ),
        (bench.clone(), "PlayoutPlayer"),
        (r.join("examples/bots/gun-duel/Hunter"), "Hunter"),
        (tests.clone(), "CounterPlayer"),
        (bench.clone(), "ScholarPlayer"),
        (bench.clone(), "RandomPlayer"),
        (
            r.join("protocols/gun-duel/examples/DicePlayer"),
            "DicePlayer",
        ),
        (bench.clone(), "EchoPlayer"),
        (tests, "HoarderPlayer"),
        (bench.clone(), "SniperPlayer"),
        (bench.clone(), "CautiousPlayer"),
        (bench, "WallPlayer"),
    ]
}

/// Builds the in-process tournament of `field` in `out`: the players'
/// headers side by side with a generated `field.hpp` that includes them
/// and lists a factory per player, in registration order.
fn build_inprocess(field: &[(PathBuf, &str)], out: &Path) -> PathBuf {
    std::fs::create_dir_all(out).unwrap();
    let mut header = String::from("// Generated by benches/gun_duel_overhead.rs (G3).\n");
    for (src, name) in field {
        std::fs::copy(
            src.join(format!("{name}.hpp")),
            out.join(format!("{name}.hpp")),
        )
        .unwrap();
        header.push_str(&format!("#include \"{name}.hpp\"\n"));
    }
    header.push_str("static const FieldEntry FIELD[] = {\n");
    for (_, name) in field {
        header.push_str(&format!(
            "    {{\"{name}\", [](size_t opponent) -> Player* {{ return new {name}(opponent); }}}},\n"
        ));
    }
    header.push_str("};\n");
    std::fs::write(out.join("field.hpp"), header).unwrap();
    let ok = Command::new("g++")
        .args(["-std=c++14", "-O2", "-I"])
        .arg(root().join("protocols/gun-duel"))
        .arg("-I")
        .arg(out)
        .arg(root().join("benches/gun_duel/inprocess.cpp"))
        .arg("-o")
        .arg(out.join("inprocess"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "g++ must build the in-process tournament");
    out.join("inprocess")
}

/// One timed tournament: wall and CPU seconds, duels, turns, the winner(s)
/// and the first bot(s) out.
#[derive(Debug, Clone, Default)]
struct Run {
    wall: f64,
    cpu: f64,
    duels: u64,
    turns: u64,
    faults: u64,
    winners: Vec<String>,
    first_out: Vec<String>,
    /// Every bot's total points.
    totals: std::collections::BTreeMap<String, u64>,
}

impl Run {
    fn us_per_turn(&self, secs: f64) -> f64 {
        secs * 1e6 / self.turns.max(1) as f64
    }
}

/// Waits for `cmd` (spawned here) and returns its output with the wall and
/// CPU time of it and its descendants.
fn timed(cmd: &mut Command) -> (std::process::Output, f64, f64) {
    let cpu0 = children_cpu();
    let start = Instant::now();
    let out = cmd.output().unwrap();
    let wall = start.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    assert!(out.status.success(), "{cmd:?} failed");
    (out, wall, cpu)
}

/// The referee's side of G3: default settings but `duels-per-pair`,
/// `--preflight off`, default `--jobs`.
fn g3_referee(dir: &Path, bots: &[(String, String)], passes: u64, seed: u64) -> Run {
    let headers = format!("seed: {seed}\nduels-per-pair: {passes}\n");
    let (t, mut cmd) = tournament(dir, &headers, bots);
    cmd.stdin(Stdio::null()).stderr(Stdio::inherit());
    let (_, wall, cpu) = timed(&mut cmd);
    let db = t.join("results.db");
    let (duels, turns, faults) = duels_and_turns(&db);
    // Who won and who left first, from the referee's own standings.
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["standings", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "referee standings failed");
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let survived = |r: &serde_json::Value| r["rounds_survived"].as_u64().unwrap_or(0);
    let most = rows.iter().map(survived).max().unwrap_or(0);
    let least = rows.iter().map(survived).min().unwrap_or(0);
    let names = |n: u64| {
        rows.iter()
            .filter(|r| survived(r) == n)
            .map(|r| r["name"].as_str().unwrap_or("?").to_string())
            .collect::<Vec<_>>()
    };
    Run {
        wall,
        cpu,
        duels: duels as u64,
        turns,
        faults,
        winners: names(most),
        first_out: names(least),
        totals: rows
            .iter()
            .map(|r| {
                let name = r["name"].as_str().unwrap_or("?").to_string();
                (name, r["score"].as_u64().unwrap_or(0))
            })
            .collect(),
    }
}

/// The in-process side of G3 (`pipes` empty), or its bare-pipes side: the
/// same program driving the players' adapter binaries `pipes` (name,
/// binary, in field order) over pipes. The players' own output goes to `log`.
fn g3_inprocess(
    program: &Path,
    pipes: &[(String, String)],
    log: &Path,
    passes: u64,
    seed: u64,
) -> Run {
    let mut cmd = Command::new(program);
    cmd.args(["--passes", &passes.to_string(), "--seed", &seed.to_string()])
        .stdin(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap());
    if !pipes.is_empty() {
        cmd.arg("--pipes").args(pipes.iter().map(|(_, bin)| bin));
    }
    let (out, wall, cpu) = timed(&mut cmd);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = |v: &serde_json::Value| {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s.as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    Run {
        wall,
        cpu,
        duels: v["duels"].as_u64().unwrap(),
        turns: v["turns"].as_u64().unwrap(),
        // Bots that closed a pipe (bare pipes only): none should.
        faults: v["dead"].as_u64().unwrap_or(0),
        winners: list(&v["winners"]),
        first_out: list(&v["left"][0]),
        totals: v["totals"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Builds `field` both ways in `built`: the bots (name, command) for the
/// referee and the in-process program.
fn g3_build(field: &[(PathBuf, &str)], built: &Path) -> (Vec<(String, String)>, PathBuf) {
    let bots = field
        .iter()
        .map(|(src, name)| {
            let bin = build_player(src, name, built);
            (name.to_string(), bin.to_string_lossy().into_owned())
        })
        .collect();
    (bots, build_inprocess(field, &built.join("inprocess")))
}

/// Before timing anything: on players without randomness all three sides
/// must play the very same tournament (duels, turns, every bot's points),
/// which shows the in-process program gives the players the referee's and
/// the driver's sequence of calls and the same rules, and that its pipes
/// mode sends the referee's messages.
fn g3_agreement(dir: &Path) {
    let r = root();
    let bench = r.join("benches/gun_duel");
    let tests = r.join("tests/bots/gun-duel/cpp");
    let field = vec![
        (
            r.join("protocols/gun-duel/examples/SteadyPlayer"),
            "SteadyPlayer",
        ),
        (tests.clone(), "CounterPlayer"),
        (bench.clone(), "SniperPlayer"),
        (tests, "HoarderPlayer"),
        (bench.clone(), "WallPlayer"),
        (bench.clone(), "ScholarPlayer"),
        (bench, "EchoPlayer"),
    ];
    let built = dir.join("g3-agreement");
    let (bots, program) = g3_build(&field, &built);
    let r = g3_referee(dir, &bots, 10, 1);
    let p = g3_inprocess(&program, &bots, &built.join("pipes.log"), 10, 1);
    let i = g3_inprocess(&program, &[], &built.join("inprocess.log"), 10, 1);
    assert_eq!(
        (r.duels, r.turns, &r.totals),
        (i.duels, i.turns, &i.totals),
        "the referee and the in-process tournament disagree on deterministic players"
    );
    assert_eq!(
        (p.duels, p.turns, &p.totals, p.faults),
        (i.duels, i.turns, &i.totals, 0),
        "the bare-pipes and the in-process tournament disagree on deterministic players"
    );
    println!(
        "  G3 check: {} deterministic players, 10 passes: the same {} duels, {} turns and points on all three sides",
        field.len(),
        r.duels,
        r.turns
    );
}

/// G3's three sides, in the order of the first round; each later round
/// starts one further.
const SIDES: [&str; 3] = ["referee", "pipes", "in-process"];

/// The medians of G3's rounds.
#[derive(Default)]
struct G3Figures {
    /// Wall and CPU ratios: referee / in-process, pipes / in-process,
    /// referee / pipes.
    ratios: [[Vec<f64>; 2]; 3],
    /// us per turn over in-process, wall and CPU: referee, pipes.
    over: [[Vec<f64>; 2]; 2],
    /// In-process CPU per turn (the players' thinking).
    thinking: Vec<f64>,
}

/// G3: the referee, bare pipes and the in-process tournament of the same
/// players.
fn g3(dir: &Path, full: bool) {
    g3_agreement(dir);
    let field = g3_field();
    let built = dir.join("g3");
    let (bots, program) = g3_build(&field, &built);
    let env_u64 = |key: &str, default: u64| {
        std::env::var(key)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(default)
    };
    let rounds = env_u64("GUN_DUEL_G3_ROUNDS", if full { 3 } else { 1 });
    let passes = env_u64("GUN_DUEL_G3_PASSES", if full { 50 } else { 2 });
    println!(
        "  G3 {} C++ players, duels-per-pair {passes}, 100 turns: referee (default --jobs, --preflight off), bare pipes (inprocess.cpp --pipes, the adapter binaries) and in-process (inprocess.cpp), {rounds} rounds, the order rotating",
        field.len()
    );
    let mut f = G3Figures::default();
    let (mut seed, mut reruns) = (0, 1);
    for round in 1..=rounds as usize {
        let order: Vec<usize> = (0..3).map(|k| (round - 1 + k) % 3).collect();
        let (runs, equal) = loop {
            seed += 1;
            let mut runs: [Run; 3] = Default::default();
            for &side in &order {
                runs[side] = match side {
                    0 => g3_referee(dir, &bots, passes, seed),
                    1 => g3_inprocess(
                        &program,
                        &bots,
                        &built.join(format!("pipes-{seed}.log")),
                        passes,
                        seed,
                    ),
                    _ => g3_inprocess(
                        &program,
                        &[],
                        &built.join(format!("inprocess-{seed}.log")),
                        passes,
                        seed,
                    ),
                };
            }
            let equal = runs.iter().all(|r| r.duels == runs[0].duels);
            if equal || reruns == 0 {
                break (runs, equal);
            }
            reruns -= 1;
            println!(
                "     round {round}: {} / {} / {} duels (a tie removed two bots at once); run again",
                runs[0].duels, runs[1].duels, runs[2].duels
            );
        };
        g3_round(round, &order, &runs, equal, &mut f);
    }
    let m = |v: &[f64]| median(v.to_vec());
    let [ri, pi, rp] = &f.ratios;
    println!(
        "  G3 medians of {rounds}: referee / in-process: wall {:.2} x, CPU {:.2} x (the goal's figure); pipes / in-process: wall {:.2} x, CPU {:.2} x (the floor of an isolated design); referee / pipes: wall {:.2} x, CPU {:.2} x (the referee's own share)",
        m(&ri[0]),
        m(&ri[1]),
        m(&pi[0]),
        m(&pi[1]),
        m(&rp[0]),
        m(&rp[1])
    );
    let [r, p] = &f.over;
    println!(
        "     over in-process per turn: referee {:+.1} us wall, {:+.1} us CPU; pipes {:+.1} us wall, {:+.1} us CPU; in-process {:.1} us CPU/turn",
        m(&r[0]),
        m(&r[1]),
        m(&p[0]),
        m(&p[1]),
        m(&f.thinking)
    );
}

/// Prints one G3 round (`runs` in `SIDES` order, run in `order`) and adds
/// its figures to `f`. With unequal duel counts the ratios are per turn.
fn g3_round(round: usize, order: &[usize], runs: &[Run; 3], equal: bool, f: &mut G3Figures) {
    let [r, p, i] = runs;
    // Wall and CPU of a side, as compared.
    let figures = |x: &Run| {
        if equal {
            [x.wall, x.cpu]
        } else {
            [x.us_per_turn(x.wall), x.us_per_turn(x.cpu)]
        }
    };
    let (fr, fp, fi) = (figures(r), figures(p), figures(i));
    for (k, (a, b)) in [(fr, fi), (fp, fi), (fr, fp)].into_iter().enumerate() {
        for (w, v) in f.ratios[k].iter_mut().enumerate() {
            v.push(a[w] / b[w]);
        }
    }
    for (k, x) in [r, p].into_iter().enumerate() {
        f.over[k][0].push(x.us_per_turn(x.wall) - i.us_per_turn(i.wall));
        f.over[k][1].push(x.us_per_turn(x.cpu) - i.us_per_turn(i.cpu));
    }
    f.thinking.push(i.us_per_turn(i.cpu));
    let last = |v: &Vec<f64>| v[v.len() - 1];
    println!(
        "     round {round} ({}): referee {:.1} s wall, {:.1} s CPU; pipes {:.1} s, {:.1} s; in-process {:.1} s, {:.1} s",
        order
            .iter()
            .map(|&s| SIDES[s])
            .collect::<Vec<_>>()
            .join(", "),
        r.wall,
        r.cpu,
        p.wall,
        p.cpu,
        i.wall,
        i.cpu
    );
    println!(
        "       wall / CPU ratios: referee / in-process {:.2} / {:.2}, pipes / in-process {:.2} / {:.2}, referee / pipes {:.2} / {:.2}{}",
        last(&f.ratios[0][0]),
        last(&f.ratios[0][1]),
        last(&f.ratios[1][0]),
        last(&f.ratios[1][1]),
        last(&f.ratios[2][0]),
        last(&f.ratios[2][1]),
        if equal { "" } else { " (per turn: duel counts differ)" }
    );
    println!(
        "       over in-process per turn (wall / CPU): referee {:+.1} / {:+.1} us, pipes {:+.1} / {:+.1} us (in-process {:.1} us CPU/turn); duels {} / {} / {}, turns {} / {} / {}, referee faults {}, pipes dead {}",
        last(&f.over[0][0]),
        last(&f.over[0][1]),
        last(&f.over[1][0]),
        last(&f.over[1][1]),
        i.us_per_turn(i.cpu),
        r.duels,
        p.duels,
        i.duels,
        r.turns,
        p.turns,
        i.turns,
        r.faults,
        p.faults
    );
    println!(
        "       winner {} / {} / {}; first out {} / {} / {}",
        r.winners.join("+"),
        p.winners.join("+"),
        i.winners.join("+"),
        r.first_out.join("+"),
        p.first_out.join("+"),
        i.first_out.join("+")
    );
}
