//! Whose fault it is, end to end through the referee binary: a bot whose
//! program (or interpreter) lies where a bot may not run programs, and a
//! bot whose folder holds more than its policy's `disk-mb` or `files`
//! between calls, are `sandbox` faults with the contract's cost; the
//! referee out of file descriptors stops the run (exit 1, one line) and
//! records nothing, so a rerun plays every game.

use crate::common::{bot, first_legal, python, q, referee, stderr, stdout, tournament};
use serde_json::Value;
use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// `referee standings --format json` as (name -> row).
fn rows(dir: &Path) -> HashMap<String, Value> {
    let out = referee(dir, &["standings", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    rows.into_iter()
        .map(|r| (r["name"].as_str().unwrap_or_default().to_string(), r))
        .collect()
}

fn fault(row: &Value, kind: &str) -> u64 {
    row["faults"][kind].as_u64().unwrap_or(0)
}

fn log(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("logs").join(format!("{name}.log"))).unwrap_or_default()
}

fn write_exec(path: &Path, text: &str, mode: u32) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether this machine confines files (Landlock): without it nothing can
/// be refused, and the referee says so at start-up.
fn files_confined() -> bool {
    let landlock = referee_sandbox::Support::probe().landlock_abi.is_some();
    if !landlock {
        eprintln!("skipped: no Landlock on this machine");
    }
    landlock
}

fn hoarder_py(protocol: &str, what: &str) -> String {
    format!(
        "{} {} {protocol} {what}",
        q(Path::new(python())),
        q(&bot("hoarder.py"))
    )
}

fn hoarder_sh(protocol: &str, what: &str) -> String {
    format!("sh {} {protocol} {what}", q(&bot("hoarder.sh")))
}

#[test]
fn a_program_where_a_bot_may_not_run_one_is_a_sandbox_fault() {
    if !files_confined() {
        return;
    }
    let good = format!("sh {} 10 guncheck", q(&bot("heist_fixed.sh")));
    let dir = tournament(&format!(
        "challenge: heist\nseed: 5\ngames: 3\nrabble: 0\n\
         root ./rootbot.sh\ninterp ./interp/bot.sh\nnoexec ./noexec/bot.sh\ngood {good}\ngood2 {good}\n"
    ));
    let t = dir.path().canonicalize().unwrap();
    // In the tournament folder rather than in its own: a shell script...
    write_exec(&t.join("rootbot.sh"), "#!/bin/sh\necho 5\n", 0o755);
    // ... and the interpreter of a script that is in its own folder.
    let sh = t.join("tools/sh");
    std::fs::create_dir_all(t.join("tools")).unwrap();
    std::fs::copy("/bin/sh", &sh).unwrap();
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    write_exec(
        &t.join("interp/bot.sh"),
        &format!("#!{}\necho 5\n", sh.display()),
        0o755,
    );
    // Not executable at all: the bot's own mistake, not a denial.
    write_exec(&t.join("noexec/bot.sh"), "#!/bin/sh\necho 5\n", 0o644);

    // The preflight finds all three before the first game: each cannot
    // start, in one line naming its instructions line, and is left out.
    let out = referee(&t, &["--instructions", "instructions.txt", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let refused = |bot: &str| {
        err.lines()
            .find(|l| {
                l.starts_with(&format!(
                    "referee: bot `{bot}` cannot start (instructions.txt:"
                ))
            })
            .unwrap_or_else(|| panic!("{bot}: {err}"))
            .to_string()
    };
    let root = refused("root");
    assert!(
        root.contains(&format!(
            "): the sandbox refused to run `{}`: a bot may only run programs inside its own folder",
            t.join("rootbot.sh").display()
        )) && root.contains(
            "`./rootbot.sh` is in the tournament folder, outside the bot's own folder `root/`"
        ) && root.ends_with("name it `root/rootbot.sh` in the command; left out of this run"),
        "{root}"
    );
    assert!(
        refused("interp").contains(&format!(
            "the sandbox refused to run `{}` (the interpreter on the #! line of `{}`)",
            sh.display(),
            t.join("interp/bot.sh").display()
        )),
        "{err}"
    );
    assert!(
        refused("noexec").contains("`./noexec/bot.sh` is not executable"),
        "{err}"
    );
    let rows_of_preflight = rows(&t);
    assert_eq!(rows_of_preflight["good"]["faults"], serde_json::json!({}));
    for name in ["root", "interp", "noexec"] {
        let row = &rows_of_preflight[name];
        assert!(row["rank"].is_null(), "{row}");
        assert!(
            row["not_playing"]
                .as_str()
                .is_some_and(|r| r.starts_with("cannot start (instructions.txt:")),
            "{row}"
        );
    }

    // Without the preflight they play, and each call costs what the
    // contract says a failed call costs.
    let out = referee(
        &t,
        &[
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--preflight",
            "off",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(&t);
    // Every round-1 call of each failed (3 games), as the contract says a
    // failed call does: it bets nothing.
    assert_eq!(rows["root"]["faults"], serde_json::json!({"sandbox": 3}));
    assert_eq!(rows["interp"]["faults"], serde_json::json!({"sandbox": 3}));
    assert_eq!(
        rows["noexec"]["faults"],
        serde_json::json!({"spawn_failed": 3})
    );
    assert_eq!(rows["good"]["faults"], serde_json::json!({}));
    let root_log = log(&t, "root");
    assert!(
        root_log.contains(&format!(
            "referee: the sandbox refused to run `{}`: a bot may only run programs inside its own folder (`{}`) or in system locations",
            t.join("rootbot.sh").display(),
            t.join("root").display()
        )),
        "{root_log}"
    );
    let interp_log = log(&t, "interp");
    assert!(
        interp_log.contains(&format!(
            "the sandbox refused to run `{}` (the interpreter on the #! line of `{}`)",
            sh.display(),
            t.join("interp/bot.sh").display()
        )),
        "{interp_log}"
    );
}

#[test]
fn a_meta_ttt_bot_whose_folder_grows_past_its_policy_loses_those_calls() {
    let dir = tournament(&format!(
        "challenge: meta-ttt\ntimeout-ms: 20000\nmax-rounds: 8\n\
         files {}\nbytes {}\nsparse {}\nhonest {}\n",
        hoarder_py("meta-ttt", "files"),
        hoarder_sh("meta-ttt", "bytes"),
        hoarder_py("meta-ttt", "sparse"),
        q(&first_legal()),
    ));
    let t = dir.path();
    let out = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(t);
    // Every call of the hoarders is a sandbox fault: an illegal call each.
    for name in ["files", "bytes"] {
        let r = &rows[name];
        let calls = fault(r, "sandbox");
        assert!(calls >= 12, "{name}: {r}");
        assert_eq!(r["illegal"].as_u64(), Some(calls), "{name}: {r}");
        assert_eq!(r["wins"].as_u64(), Some(0), "{name}: {r}");
    }
    // A terabyte of hole uses nothing: no fault at all.
    assert_eq!(fault(&rows["sparse"], "sandbox"), 0, "{}", rows["sparse"]);
    assert_eq!(rows["honest"]["faults"], serde_json::json!({}));
    let files_log = log(t, "files");
    assert!(
        files_log.contains(
            "referee: folder holds more than files (1000 entries): counting stopped at entry 1001; the call is a sandbox fault"
        ),
        "{files_log}"
    );
    let bytes_log = log(t, "bytes");
    assert!(
        bytes_log.contains("referee: folder holds more than disk-mb (64 MiB): "),
        "{bytes_log}"
    );
    // The referee deletes nothing (the bot may have been stopped during
    // its first call, once past 1000 entries, before it made all 1100).
    let made = entries(&t.join("files/hoard"));
    assert!((1001..=1100).contains(&made), "{made}");
    assert!(t.join("bytes/big2").is_file());
}

/// Entries of `dir`, 0 if it is missing.
fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
fn a_bot_filling_its_folder_within_one_move_is_stopped_during_the_move() {
    // A move may take 20 s, and the bot creates files all along it: the
    // folder is measured while the call runs, not only after it.
    let dir = tournament(&format!(
        "challenge: meta-ttt\ntimeout-ms: 20000\nmax-rounds: 2\n\
         flood {}\nhonest {}\n",
        hoarder_py("meta-ttt", "flood"),
        q(&first_legal()),
    ));
    let t = dir.path();
    let out = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(t);
    let flood = &rows["flood"];
    assert!(fault(flood, "sandbox") >= 2, "{flood}");
    assert_eq!(fault(flood, "timeout"), 0, "{flood}");
    assert!(
        log(t, "flood").contains(
            "referee: folder holds more than files (1000 entries): counting stopped at entry 1001; the call is a sandbox fault"
        ),
        "{}",
        log(t, "flood")
    );
    // Stopped within a tenth of a second of passing 1000 entries, each
    // move: far from what 20 s of creating files would leave.
    let made = entries(&t.join("flood/flood"));
    assert!((1001..10_000).contains(&made), "{made} files");
}

#[test]
fn a_persistent_bot_filling_its_folder_is_killed_while_it_runs() {
    // Interface 2: the process floods its folder from its start, before it
    // answers anything; the watch on its folder kills it.
    let dir = tournament(&format!(
        "challenge: gun-duel\nduels-per-pair: 2\nturns: 5\ntimeout-ms: 20000\n\
         flood {}\nhonest {}\n",
        hoarder_py("gun-io", "flood"),
        hoarder_py("gun-io", "none"),
    ));
    let t = dir.path();
    let out = referee(
        t,
        &[
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--preflight",
            "off",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(t);
    assert_eq!(rows["flood"]["faults"], serde_json::json!({"sandbox": 1}));
    assert!(
        log(t, "flood").contains(
            "referee: folder holds more than files (1000 entries): counting stopped at entry 1001: killed; its next move is a sandbox fault"
        ),
        "{}",
        log(t, "flood")
    );
    let made = entries(&t.join("flood/flood"));
    assert!((1001..10_000).contains(&made), "{made} files");
}

#[test]
fn gun_duel_bots_over_their_folder_policy_lose_their_moves() {
    let dir = tournament(&format!(
        "challenge: gun-duel\nduels-per-pair: 3\nturns: 5\ntimeout-ms: 20000\n\
         hoardio {}\nhoardexit {}\nhonest {}\nrootio ./rootio.py\n",
        hoarder_py("gun-io", "files"),
        hoarder_sh("gun-exit", "bytes"),
        hoarder_py("gun-io", "none"),
    ));
    let t = dir.path();
    // An interface-2 program outside its folder: refused at its start.
    write_exec(
        &t.join("rootio.py"),
        "#!/usr/bin/env python3\nimport sys\nfor l in sys.stdin:\n    print(0, flush=True)\n",
        0o755,
    );
    std::fs::create_dir_all(t.join("hoardexit")).unwrap();
    std::fs::write(t.join("hoardexit/bot.toml"), "interface = \"exit-code\"\n").unwrap();
    // Without the preflight, which would leave `rootio` out before it plays.
    let out = referee(
        t,
        &[
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--preflight",
            "off",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(t);
    // Interface 2: measured after its first duel, killed, its next move a
    // sandbox fault, then dead (no more faults counted).
    assert_eq!(rows["hoardio"]["faults"], serde_json::json!({"sandbox": 1}));
    assert!(log(t, "hoardio").contains(
        "referee: folder holds more than files (1000 entries): counting stopped at entry 1001: killed; its next move is a sandbox fault"
    ));
    // Interface 1: every turn's call is a sandbox fault (no action: its gun
    // explodes on turn 0 of every duel).
    assert!(
        fault(&rows["hoardexit"], "sandbox") >= 3,
        "{}",
        rows["hoardexit"]
    );
    assert_eq!(rows["honest"]["faults"], serde_json::json!({}));
    assert_eq!(rows["honest"]["rank"].as_u64(), Some(1), "{}", stdout(&out));
    if files_confined() {
        // Its first move is the sandbox fault, then it is dead.
        assert_eq!(rows["rootio"]["faults"], serde_json::json!({"sandbox": 1}));
        assert!(log(t, "rootio").contains("the sandbox refused to run"));
    }
}

#[test]
fn a_forty_process_over_its_folder_policy_crashes_as_a_sandbox_fault() {
    let good = format!(
        "{} {} good",
        q(Path::new(python())),
        q(&bot("forty_raw.py"))
    );
    let dir = tournament(&format!(
        "challenge: forty\nseed: 3\ngames: 400\nconcurrency: 20\ntimeout-ms: 5000\nstartup-ms: 30000\n\
         Hoarder {}\nGoodA {good}\nGoodB {good}\nRoot ./root.py\n",
        hoarder_py("forty", "files"),
    ));
    let t = dir.path();
    let files = files_confined();
    write_exec(&t.join("root.py"), "#!/usr/bin/env python3\n", 0o755);
    // Without the preflight, which would leave `Root` out before it plays.
    let out = referee(
        t,
        &[
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--preflight",
            "off",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(t);
    let hoarder = &rows["Hoarder"];
    assert!(fault(hoarder, "sandbox") >= 1, "{hoarder}");
    // A sandbox fault ends the process like a crash (and counts as one).
    assert!(
        fault(hoarder, "crash") >= fault(hoarder, "sandbox"),
        "{hoarder}"
    );
    assert!(
        log(t, "Hoarder").contains("crash: sandbox: folder holds more than files (1000 entries)")
    );
    if files {
        // Refused at every start: disqualified after max-crashes.
        let root = &rows["Root"];
        assert_eq!(fault(root, "sandbox"), 3, "{root}");
        assert_eq!(fault(root, "crash"), 3, "{root}");
        assert!(log(t, "Root").contains("crash: the sandbox refused to run"));
    }
    for good in ["GoodA", "GoodB"] {
        assert_eq!(fault(&rows[good], "sandbox"), 0);
        assert_eq!(fault(&rows[good], "crash"), 0);
    }
}

/// Runs the referee with its descriptors limited to `n` (`ulimit -n`).
fn referee_with_nofile(dir: &Path, n: u32, args: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n {n} && exec {} {args}",
            q(Path::new(env!("CARGO_BIN_EXE_referee")))
        ))
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("sh runs")
}

/// The smallest descriptor limit at which the referee gets as far as
/// starting bots, and the run it gave: below it the referee cannot open
/// its database or its logs (another error, before any game).
fn first_failing_start(dir: &Path, args: &str) -> (u32, Output) {
    for n in 8..=96 {
        let out = referee_with_nofile(dir, n, args);
        if stderr(&out).contains("referee: error: cannot start a process of bot") {
            return (n, out);
        }
        assert!(
            !out.status.success(),
            "limit {n}: the run completed although no lower limit let it start a bot: {}",
            stderr(&out)
        );
    }
    panic!("no descriptor limit made starting a bot fail");
}

#[test]
fn the_referee_out_of_descriptors_stops_and_records_nothing() {
    let dir = tournament(&format!(
        "challenge: meta-ttt\nmax-rounds: 6\ntimeout-ms: 20000\nc {}\npy {} {}\nsh {}\n",
        q(&first_legal()),
        q(Path::new(python())),
        q(&bot("first_legal.py")),
        hoarder_sh("meta-ttt", "none"),
    ));
    let t = dir.path();
    // Without the preflight, whose first calls would meet the limit
    // before any game: a game in progress is what must not be recorded.
    let args = "--instructions instructions.txt --jobs 1 --quiet --preflight off";
    let (n, out) = first_failing_start(t, args);
    assert_eq!(out.status.code(), Some(1), "limit {n}: {}", stderr(&out));
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.starts_with("referee: error: "))
        .unwrap_or_default();
    assert!(
        line.contains("Too many open files")
            && line.contains("the referee is out of file descriptors (raise `ulimit -n`)")
            && line.contains("nothing is recorded for the game in progress"),
        "{err}"
    );
    // Nothing was stored, and no bot's log blames the bot.
    for (name, row) in rows(t) {
        assert_eq!(row["played"].as_u64(), Some(0), "{name}: {row}");
    }
    for name in ["c", "py", "sh"] {
        assert!(!log(t, name).contains("cannot start"), "{name}");
    }
    // Without the limit, every game is played, none of them "already".
    let again = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!stderr(&again).contains("resuming"), "{}", stderr(&again));
    for (name, row) in rows(t) {
        assert_eq!(row["played"].as_u64(), Some(4), "{name}: {row}");
        assert_eq!(fault(&row, "spawn_failed"), 0, "{name}: {row}");
    }
}

#[test]
fn persistent_bots_are_the_same_the_referee_out_of_descriptors_stops_the_run() {
    let good = format!(
        "{} {} good",
        q(Path::new(python())),
        q(&bot("forty_raw.py"))
    );
    let dir = tournament(&format!(
        "challenge: forty\nseed: 1\ngames: 100\nstartup-ms: 30000\nA {good}\nB {good}\nC {good}\n"
    ));
    let t = dir.path();
    let args = "--instructions instructions.txt --quiet --preflight off";
    let (n, out) = first_failing_start(t, args);
    assert_eq!(out.status.code(), Some(1), "limit {n}: {}", stderr(&out));
    // No bot was charged a crash or disqualified for it.
    for (name, row) in rows(t) {
        assert_eq!(fault(&row, "crash"), 0, "{name}: {row}");
    }
    let again = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
    assert!(again.status.success(), "{}", stderr(&again));
    for (name, row) in rows(t) {
        assert_eq!(fault(&row, "crash"), 0, "{name}: {row}");
    }
}

#[test]
fn what_the_organiser_left_in_a_bot_folder_never_counts_against_it() {
    let dir = tournament(&format!(
        "challenge: meta-ttt\nmax-rounds: 4\nbuilt {}\nhonest {}\n",
        q(&first_legal()),
        q(&first_legal()),
    ));
    let t = dir.path();
    // A build's output (a Rust `target/` easily holds more than the
    // policy's 1000 entries) is there before the first call.
    std::fs::create_dir_all(t.join("built/target")).unwrap();
    for i in 0..1500 {
        std::fs::write(t.join(format!("built/target/o{i}")), "").unwrap();
    }
    let out = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(t);
    assert_eq!(
        rows["built"]["faults"],
        serde_json::json!({}),
        "{}",
        rows["built"]
    );
}
