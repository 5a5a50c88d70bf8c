//! Overnight operation: drop-in bots, edited bots, cached builds and a
//! graceful stop, through the referee binary.

use crate::common::{first_legal, referee, root, stderr, stdout, tournament};
use std::path::Path;
use std::process::{Command, Stdio};

/// Games played in a run: the progress lines `[n/total] ...`.
fn played(out: &std::process::Output) -> usize {
    stderr(out).lines().filter(|l| l.starts_with('[')).count()
}

/// `dir/name/` holding a copy of the firstLegal binary, and the command
/// that runs it from the tournament folder (a bot may run programs only
/// from its own folder or system locations).
fn own_first_legal(dir: &Path, name: &str) -> String {
    let f = dir.join(name);
    std::fs::create_dir_all(&f).unwrap();
    std::fs::copy(first_legal(), f.join("firstLegal")).unwrap();
    format!("{name}/firstLegal")
}

/// A bot folder whose `run.sh` plays firstLegal.
fn bot_folder(dir: &Path, name: &str) {
    let program = own_first_legal(dir, name);
    std::fs::write(
        dir.join(name).join("run.sh"),
        format!("#!/bin/sh\n# {name}\nexec {program} \"$@\"\n"),
    )
    .unwrap();
}

fn run(dir: &Path) -> std::process::Output {
    let out = referee(
        dir,
        &[
            "--instructions",
            "instructions.txt",
            "--set",
            "max-rounds=30",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

#[test]
fn a_dropped_in_bot_plays_only_its_own_games() {
    let dir = tournament("challenge: meta-ttt\na sh a/run.sh\nb sh b/run.sh\n");
    bot_folder(dir.path(), "a");
    bot_folder(dir.path(), "b");
    let first = stdout(&run(dir.path()));

    bot_folder(dir.path(), "late");
    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\"\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    let out = run(dir.path());
    assert_eq!(
        played(&out),
        4,
        "late plays a and b twice each: {}",
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("Bot 3, late, has "), "{text}");
    assert!(first.contains("Bot 2, b, has "));
    // A third run plays nothing.
    assert_eq!(played(&run(dir.path())), 0);
}

#[test]
fn an_edited_bot_replays_only_its_games_and_data_txt_does_not_count() {
    let dir = tournament("challenge: meta-ttt\na sh a/run.sh\nb sh b/run.sh\nc sh c/run.sh\n");
    for n in ["a", "b", "c"] {
        bot_folder(dir.path(), n);
    }
    assert_eq!(played(&run(dir.path())), 6);
    // A bot writing its data.txt is not a change of the bot.
    std::fs::write(dir.path().join("b/data.txt"), "learned something").unwrap();
    assert_eq!(played(&run(dir.path())), 0);
    // Nor is what Python caches beside a module the bot imports.
    std::fs::create_dir(dir.path().join("c/__pycache__")).unwrap();
    std::fs::write(dir.path().join("c/__pycache__/lib.cpython.pyc"), "x").unwrap();
    assert_eq!(played(&run(dir.path())), 0);
    // Editing a's program replays a's four games, nothing else.
    let script = dir.path().join("a/run.sh");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(&script, text.replace("# a", "# a, version 2")).unwrap();
    assert_eq!(played(&run(dir.path())), 4);
}

#[test]
fn a_build_is_redone_only_when_the_folder_changed() {
    let dir = tournament("challenge: meta-ttt\nfl ./fl/fl\nb sh b/run.sh\n");
    bot_folder(dir.path(), "b");
    let fl = dir.path().join("fl");
    std::fs::create_dir_all(&fl).unwrap();
    std::fs::copy(
        root().join("examples/bots/meta-ttt/firstLegal/firstLegal.c"),
        fl.join("fl.c"),
    )
    .unwrap();
    std::fs::write(fl.join("bot.toml"), "build = \"cc -O2 -o fl fl.c\"\n").unwrap();
    let first = run(dir.path());
    assert!(
        stderr(&first).contains("building fl: cc -O2 -o fl fl.c"),
        "{}",
        stderr(&first)
    );
    let second = run(dir.path());
    assert!(
        stderr(&second).contains("fl: build is up to date"),
        "{}",
        stderr(&second)
    );
    assert!(!stderr(&second).contains("building fl"));
    assert_eq!(played(&second), 0);
    let src = std::fs::read_to_string(fl.join("fl.c")).unwrap();
    std::fs::write(fl.join("fl.c"), src + "\n/* edited */\n").unwrap();
    let third = run(dir.path());
    assert!(stderr(&third).contains("building fl"), "{}", stderr(&third));
}

#[test]
fn ctrl_c_stops_cleanly_and_a_rerun_gives_the_uninterrupted_standings() {
    let names = ["a", "b", "c", "d"];
    let mut ins = String::from("challenge: meta-ttt\n");
    for n in names {
        ins.push_str(&format!("{n} sh {n}/run.sh\n"));
    }
    let setup = |dir: &Path| {
        for n in names {
            bot_folder(dir, n);
        }
    };
    let whole = tournament(&ins);
    setup(whole.path());
    let full = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--jobs", "1"],
    );
    assert!(full.status.success());

    let cut = tournament(&ins);
    setup(cut.path());
    let child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--instructions", "instructions.txt", "--jobs", "1"])
        .current_dir(cut.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the first game is committed.
    let db = cut.path().join("results.db");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let games = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["standings", "--format", "json"])
            .current_dir(cut.path())
            .output()
            .ok()
            .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
            .map(|v| {
                v.as_array().map_or(0, |a| {
                    a.iter()
                        .map(|r| r["played"].as_u64().unwrap_or(0))
                        .sum::<u64>()
                })
            })
            .unwrap_or(0);
        if db.exists() && games > 0 {
            break;
        }
        assert!(std::time::Instant::now() < until, "no game finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
    assert_eq!(
        stdout(&out)
            .lines()
            .filter(|l| !l.starts_with("Winner"))
            .count(),
        5,
        "the standings so far: {}",
        stdout(&out)
    );

    let again = referee(
        cut.path(),
        &["--instructions", "instructions.txt", "--jobs", "1"],
    );
    assert!(again.status.success());
    let strip = |s: String| {
        s.lines()
            .filter(|l| !l.starts_with("With "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(stdout(&again)), strip(stdout(&full)));
}

#[test]
fn watch_mode_picks_up_a_new_bot_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    use std::time::Duration;
    let dir = tournament("challenge: meta-ttt\na sh a/run.sh\nb sh b/run.sh\n");
    bot_folder(dir.path(), "a");
    bot_folder(dir.path(), "b");
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["watch", "--instructions", "instructions.txt", "--quiet"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // Waits (bounded) for a line starting with `prefix`.
    let wait_for = |prefix: &str| {
        let until = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return,
                Ok(_) => {}
                Err(_) => panic!("no `{prefix}` line from watch mode"),
            }
        }
    };
    wait_for("With 2 bots");
    bot_folder(dir.path(), "late");
    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\"\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    wait_for("With 3 bots");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_bot_that_breaks_its_own_bot_toml_is_left_out_and_its_games_come_back() {
    let dir = tournament("challenge: meta-ttt\na sh a/run.sh\nb sh b/run.sh\nh sh h/run.sh\n");
    bot_folder(dir.path(), "a");
    bot_folder(dir.path(), "b");
    // `h` plays firstLegal, but first turns its own bot.toml into garbage.
    let h = dir.path().join("h");
    let program = own_first_legal(dir.path(), "h");
    std::fs::write(
        h.join("run.sh"),
        format!("#!/bin/sh\nprintf 'rnu = 1\\n' > h/bot.toml\nexec {program} \"$@\"\n"),
    )
    .unwrap();
    let toml = "language = \"shell\"\n";
    std::fs::write(h.join("bot.toml"), toml).unwrap();
    let first = run(dir.path());
    assert_eq!(played(&first), 6, "{}", stderr(&first));
    assert_eq!(
        std::fs::read_to_string(h.join("bot.toml")).unwrap(),
        "rnu = 1\n"
    );

    // The next run leaves `h` out, in one line, and replays nothing.
    let second = run(dir.path());
    let err = stderr(&second);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("leaving out")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("referee: leaving out `h`: ")
            && warnings[0].contains("h/bot.toml:1: unknown field `rnu`"),
        "{err}"
    );
    assert_eq!(played(&second), 0, "{err}");
    assert!(stdout(&second).starts_with("Bot 1, a, has "));
    assert!(stdout(&second).contains("\nWith 2 bots, "));

    // Its bot.toml restored, `h` is back with the games it had.
    std::fs::write(h.join("bot.toml"), toml).unwrap();
    let third = run(dir.path());
    assert_eq!(played(&third), 0, "{}", stderr(&third));
    let bot_lines = |out: &std::process::Output| -> Vec<String> {
        stdout(out)
            .lines()
            .filter(|l| l.starts_with("Bot "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(bot_lines(&third), bot_lines(&first));
}

/// `referee watch` on a tournament folder, its stdout and stderr lines
/// arriving on one channel.
struct Watch {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Watch {
    fn start(dir: &Path, extra: &[&str]) -> Watch {
        use std::io::{BufRead, BufReader, Read};
        let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["watch", "--instructions", "instructions.txt"])
            .args(extra)
            .current_dir(dir)
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel::<String>();
        let streams: [Box<dyn Read + Send>; 2] = [
            Box::new(child.stdout.take().unwrap()),
            Box::new(child.stderr.take().unwrap()),
        ];
        for stream in streams {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Watch { child, lines }
    }

    /// Waits (at most a minute) until a line starting with each of
    /// `prefixes` has arrived, in any order (stdout and stderr are read
    /// apart, so their lines may interleave either way); returns the lines.
    fn wait_for(&self, prefixes: &[&str]) -> Vec<String> {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut seen = Vec::new();
        while !prefixes
            .iter()
            .all(|p| seen.iter().any(|l: &String| l.starts_with(p)))
        {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(_) => panic!("no {prefixes:?} lines from watch mode in {seen:#?}"),
            }
        }
        seen
    }

    /// The lines that arrive within `time`.
    fn lines_within(&self, time: std::time::Duration) -> Vec<String> {
        let until = std::time::Instant::now() + time;
        let mut got = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(until.saturating_duration_since(std::time::Instant::now()))
        {
            got.push(line);
        }
        got
    }

    fn stop(mut self) {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
        let status = self.child.wait().unwrap();
        assert_eq!(status.code(), Some(0));
    }
}

#[test]
fn watch_mode_settles_when_a_bot_writes_its_own_folder() {
    let dir = tournament("challenge: meta-ttt\nmax-rounds: 30\na sh a/run.sh\nb sh b/run.sh\n");
    bot_folder(dir.path(), "a");
    // `b` writes a new file into its folder at every move.
    let b = dir.path().join("b");
    let program = own_first_legal(dir.path(), "b");
    std::fs::write(
        b.join("run.sh"),
        format!("#!/bin/sh\necho move > \"b/junk-$$\"\nexec {program} \"$@\"\n"),
    )
    .unwrap();
    let watch = Watch::start(dir.path(), &[]);
    watch.wait_for(&["With 2 bots", "referee: watching "]);
    assert!(std::fs::read_dir(&b).unwrap().count() > 2, "b wrote files");
    // What `b` wrote while it played does not start another pass (which
    // would replay b's games, as its folder changed: `[n/2]` lines).
    let idle = watch.lines_within(std::time::Duration::from_secs(5));
    assert!(idle.is_empty(), "{idle:#?}");

    // A change from outside does.
    bot_folder(dir.path(), "late");
    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\"\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    watch.wait_for(&[
        "referee: new bot folder `late`; playing again",
        "With 3 bots",
        "referee: watching ",
    ]);
    let idle = watch.lines_within(std::time::Duration::from_secs(5));
    assert!(idle.is_empty(), "{idle:#?}");
    watch.stop();
}

#[test]
fn watch_mode_sees_a_bot_dropped_in_while_a_pass_runs() {
    let dir = tournament(
        "challenge: meta-ttt\ntimeout-ms: 60000\nmax-rounds: 30\na sh a/run.sh\nslow sh slow/run.sh\n",
    );
    bot_folder(dir.path(), "a");
    // `slow` holds its first move until the test says `go`.
    let slow = dir.path().join("slow");
    let program = own_first_legal(dir.path(), "slow");
    std::fs::write(
        slow.join("run.sh"),
        format!(
            "#!/bin/sh\ntouch slow/waiting\ni=0\n\
             while [ ! -e slow/go ] && [ $i -lt 1000 ]; do sleep 0.05; i=$((i+1)); done\n\
             exec {program} \"$@\"\n"
        ),
    )
    .unwrap();
    // No preflight: its call would wait as the first move does, and the
    // `go` written into the folder during it would be taken back with
    // everything else the call left there.
    let watch = Watch::start(dir.path(), &["--quiet", "--preflight", "off"]);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !slow.join("waiting").exists() {
        assert!(std::time::Instant::now() < until, "slow never moved");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    bot_folder(dir.path(), "late");
    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\"\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    std::fs::write(slow.join("go"), "").unwrap();
    // Standings are on stdout, so they arrive in order.
    let first = watch.wait_for(&["With 2 bots"]);
    assert!(
        !first.iter().any(|l| l.starts_with("With 3 bots")),
        "{first:#?}"
    );
    watch.wait_for(&["With 3 bots"]);
    watch.stop();
}

#[test]
fn watch_mode_reports_a_broken_drop_in_plays_the_rest_and_picks_it_up_once_fixed() {
    let dir = tournament("challenge: meta-ttt\nmax-rounds: 30\na sh a/run.sh\nb sh b/run.sh\n");
    bot_folder(dir.path(), "a");
    bot_folder(dir.path(), "b");
    bot_folder(dir.path(), "late");
    // Not valid TOML: the string is never closed.
    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    let watch = Watch::start(dir.path(), &["--quiet"]);
    let first = watch.wait_for(&["With 2 bots", "  late: ", "referee: watching "]);
    let warnings: Vec<&String> = first
        .iter()
        .filter(|l| l.starts_with("referee: leaving out `late`: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{first:#?}");
    assert!(
        warnings[0].contains("late/bot.toml:1: "),
        "one line naming the file and line: {first:#?}"
    );
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("  late: ") && l.contains("late/bot.toml:1: ")),
        "listed under the standings: {first:#?}"
    );

    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\"\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    let second = watch.wait_for(&[
        "referee: bot folder `late` changed; playing again",
        "With 3 bots",
        "referee: watching ",
    ]);
    assert!(
        !second.iter().any(|l| l.contains("leaving out")),
        "{second:#?}"
    );
    watch.stop();
}
