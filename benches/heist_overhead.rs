//! heist benchmarks (spec §10), as ratios against baselines measured in the
//! same run.
//!
//! H2 (§10.2): the referee's time per call in a tournament of 11 minimal
//! Python 3 bots (`0` in round 1, so nobody heists and every call is a
//! round-1 call), 100 games, the default 500 rabble, `--jobs 1`, the whole
//! referee process (start-up, database, logs included), against a bare loop
//! that fork-execs the same command with the same 31 arguments sequentially,
//! reads its stdout from a pipe and waits. Goal: within 10 %.
//! The same with a tiny compiled bot, for information.
//!
//! The bare loop fork-execs as the spec says: it installs an empty
//! pre-exec hook, which makes std fork and exec instead of using
//! posix_spawn. A second baseline with std's default spawn (posix_spawn,
//! vfork semantics, no copy of the parent's page tables: what the referee
//! itself does) is shown too. Besides wall time, each side's CPU time (its own and its
//! children's, from getrusage) is compared: on a shared machine wall time
//! is mostly other people's load, CPU time much less so.
//!
//! H3: two tournaments of the compiled bot with `--jobs 2` against
//! `--jobs 1`, wall time (goal on 2+ cores: close to 0.5).
//!
//! The pure game logic (§10.1) has its own benchmark:
//! `cargo bench -p game-heist --bench pure_logic`.
//!
//! Run: `cargo bench --bench heist_overhead`

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const BOTS: usize = 11;
const GAMES: usize = 100;
const ROUNDS: usize = 3;

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

/// The minimal bots: a Python script and a C program with the same answers.
fn bots(dir: &Path) -> (Vec<String>, Vec<String>) {
    let py = dir.join("minimal.py");
    std::fs::write(&py, "import sys\nprint(0 if sys.argv[2] == '1' else 'x')\n").unwrap();
    let c = dir.join("minimal.c");
    std::fs::write(
        &c,
        "#include <stdio.h>\n#include <string.h>\nint main(int argc, char **argv) {\n  puts(argc > 2 && strcmp(argv[2], \"1\") == 0 ? \"0\" : \"x\");\n  return 0;\n}\n",
    )
    .unwrap();
    let bin = dir.join("minimal");
    let ok = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&bin)
        .arg(&c)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "cc must compile the minimal bot");
    (
        vec![python(), py.to_string_lossy().into_owned()],
        vec![bin.to_string_lossy().into_owned()],
    )
}

fn suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// A tournament folder of `BOTS` copies of `command`.
fn tournament(dir: &Path, command: &[String], games: usize, tournaments: usize) -> PathBuf {
    let t = dir.join(format!("t{}", suffix()));
    std::fs::create_dir_all(&t).unwrap();
    let mut ins =
        format!("challenge: heist\nseed: 1\ngames: {games}\ntournaments: {tournaments}\n");
    let quoted: Vec<String> = command
        .iter()
        .map(|w| shell_words::quote(w).into_owned())
        .collect();
    for i in 1..=BOTS {
        ins.push_str(&format!("copy{i} {}\n", quoted.join(" ")));
    }
    std::fs::write(t.join("instructions.txt"), ins).unwrap();
    t
}

/// Wall time and CPU time (self + children) of a piece of work.
#[derive(Debug, Clone, Copy, Default)]
struct Cost {
    wall: f64,
    cpu: f64,
}

fn cpu_now() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    let secs = |who| {
        getrusage(who).map_or(0.0, |u| {
            let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
            t(u.user_time()) + t(u.system_time())
        })
    };
    secs(UsageWho::RUSAGE_SELF) + secs(UsageWho::RUSAGE_CHILDREN)
}

fn measure(work: impl FnOnce()) -> Cost {
    let (cpu, start) = (cpu_now(), Instant::now());
    work();
    Cost {
        wall: start.elapsed().as_secs_f64(),
        cpu: cpu_now() - cpu,
    }
}

/// Runs a whole tournament.
fn referee(dir: &Path, command: &[String], games: usize, tournaments: usize, jobs: usize) -> Cost {
    let t = tournament(dir, command, games, tournaments);
    let cost = measure(|| {
        let status = Command::new(env!("CARGO_BIN_EXE_referee"))
            // Games only: no preflight calls before them.
            .args(["--quiet", "--preflight", "off", "--instructions"])
            .arg(t.join("instructions.txt"))
            .args(["--jobs", &jobs.to_string()])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    });
    // Every bot bets 0, so each game makes exactly one call per bot.
    let log = std::fs::read_to_string(t.join("heist-logs/tournament-1.log")).unwrap();
    assert_eq!(log.matches(" bet 0.\n").count(), BOTS * games);
    std::fs::remove_dir_all(&t).ok();
    cost
}

/// The bare loop: spawn with the 31 arguments, read stdout from a pipe,
/// wait. With `fork`, the child is forked and exec'd as the referee's are.
/// The bot gets the environment the referee gives it, in `home`.
fn bare(home: &Path, command: &[String], calls: usize, fork: bool) -> Cost {
    let args: Vec<&str> = "1 1 3 0 0 0 0 0 430 0 240 1 3 490.0 46.6666666667 560 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
        .split(' ')
        .collect();
    measure(|| {
        for _ in 0..calls {
            // The environment the referee gives a bot (see BotProgram::command).
            let mut cmd = Command::new(&command[0]);
            cmd.args(&command[1..])
                .args(&args)
                .current_dir(home)
                .env_clear()
                .env("HOME", home)
                .env("TMPDIR", home)
                .stdin(Stdio::null())
                .stdout(Stdio::piped());
            if let Some(path) = std::env::var_os("PATH") {
                cmd.env("PATH", path);
            }
            if fork {
                use std::os::unix::process::CommandExt;
                // SAFETY: an empty hook; its only effect is that std forks.
                unsafe { cmd.pre_exec(|| Ok(())) };
            }
            let mut child = cmd.spawn().unwrap();
            let mut out = Vec::new();
            child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
            child.wait().unwrap();
            assert_eq!(out, b"0\n");
        }
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn list(v: &[f64]) -> String {
    v.iter()
        .map(|r| format!("{r:.3}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Interleaved rounds of the referee and both bare loops; prints per-call
/// times (medians) and the ratios.
fn overhead(dir: &Path, label: &str, goal: &str, command: &[String], games: usize, rounds: usize) {
    let calls = (BOTS * games) as f64;
    let (mut r, mut f, mut p) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        r.push(referee(dir, command, games, 1, 1));
        f.push(bare(dir, command, BOTS * games, true));
        p.push(bare(dir, command, BOTS * games, false));
    }
    let us = |v: &[Cost], cpu: bool| {
        median(
            v.iter()
                .map(|c| if cpu { c.cpu } else { c.wall } * 1e6 / calls)
                .collect(),
        )
    };
    let ratios = |a: &[Cost], b: &[Cost], cpu: bool| -> Vec<f64> {
        a.iter()
            .zip(b)
            .map(|(a, b)| if cpu { a.cpu / b.cpu } else { a.wall / b.wall })
            .collect()
    };
    let wall = ratios(&r, &f, false);
    let cpu = ratios(&r, &f, true);
    let spawn = ratios(&r, &p, false);
    println!(
        "  {label}: referee {:.0} us/call (cpu {:.0}); bare fork+exec {:.0} (cpu {:.0}); bare posix_spawn {:.0} (cpu {:.0})",
        us(&r, false),
        us(&r, true),
        us(&f, false),
        us(&f, true),
        us(&p, false),
        us(&p, true),
    );
    println!(
        "     referee / bare fork+exec: wall {:.3}, cpu {:.3} (medians)  [{goal}]",
        median(wall.clone()),
        median(cpu.clone())
    );
    println!(
        "       wall per round: {}; cpu per round: {}",
        list(&wall),
        list(&cpu)
    );
    println!(
        "     referee / bare posix_spawn: wall {:.3} (median; for information)",
        median(spawn.clone())
    );
    println!("       wall per round: {}", list(&spawn));
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too:
    // do one short round there.
    let full = std::env::args().any(|a| a == "--bench");
    let (games, rounds) = if full { (GAMES, ROUNDS) } else { (5, 1) };
    // Under target/, not the shared /tmp: a bot's Landlock rules grow with
    // the entries beside each folder along the tournament's path.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (py, c) = bots(dir.path());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    println!(
        "heist per-call overhead: {BOTS} bots, {games} games, 500 rabble, --jobs 1, {rounds} rounds, {cores} cores"
    );
    overhead(dir.path(), "H2 python3", "goal <= 1.10", &py, games, rounds);
    overhead(
        dir.path(),
        "H2 compiled",
        "for information",
        &c,
        games,
        rounds,
    );

    let mut scaling = Vec::new();
    for _ in 0..rounds {
        let one = referee(dir.path(), &c, games, 2, 1);
        let two = referee(dir.path(), &c, games, 2, 2);
        scaling.push(two.wall / one.wall);
    }
    println!(
        "  H3 compiled, 2 tournaments: wall --jobs 2 / --jobs 1: ratio (median) {:.3}  [close to 0.5 on 2+ cores]",
        median(scaling.clone())
    );
    println!("     ratios per round: {}", list(&scaling));
}
