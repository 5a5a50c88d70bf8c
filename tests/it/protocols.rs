//! `{protocols}`: the referee's own copy of protocols/, written where
//! `referee protocols` says, used by `play` and `check` from any folder,
//! and a misspelt path in instructions.txt stopping the run at its line.

use crate::common::{python, referee, root, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The referee with HOME (and optionally XDG_CACHE_HOME) set.
fn referee_with(cwd: &Path, home: &Path, xdg: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    cmd.args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME");
    if let Some(x) = xdg {
        cmd.env("XDG_CACHE_HOME", x);
    }
    cmd.output().expect("referee runs")
}

/// Every source file under `dir`, relative to it, with its content.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "__pycache__" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some() {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn referee_protocols_prints_a_copy_of_the_repositorys_protocols() {
    let home = tempfile::tempdir().unwrap();
    let out = referee_with(home.path(), home.path(), None, &["protocols"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out);
    let dir = PathBuf::from(printed.trim_end());
    assert_eq!(printed.lines().count(), 1, "{printed}");
    let cache = home.path().join(".cache/referee");
    assert_eq!(dir.parent(), Some(cache.as_path()), "{printed}");
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let hash = name.strip_prefix("protocols-").unwrap_or("");
    assert!(
        hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{name}"
    );
    assert_eq!(files(&dir), files(&root().join("protocols")));

    // Run again after a file was spoilt: the same folder, put right.
    let host = dir.join("forty/forty_host.py");
    std::fs::write(&host, "raise SystemExit(1)\n").unwrap();
    let again = referee_with(home.path(), home.path(), None, &["protocols"]);
    assert_eq!(stdout(&again), printed);
    assert_eq!(
        std::fs::read(&host).unwrap(),
        std::fs::read(root().join("protocols/forty/forty_host.py")).unwrap()
    );

    // XDG_CACHE_HOME, when set, is the user's cache.
    let xdg = tempfile::tempdir().unwrap();
    let out = referee_with(home.path(), home.path(), Some(xdg.path()), &["protocols"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        PathBuf::from(stdout(&out).trim_end()),
        xdg.path().join("referee").join(&name)
    );
}

#[test]
fn play_finds_the_forty_host_from_any_folder() {
    let elsewhere = tempfile::tempdir().unwrap();
    let host = format!("{} {{protocols}}/forty/forty_host.py", python());
    let a = format!("{host} {{protocols}}/forty/examples/GoToTenBot.py");
    let b = format!("{host} {{protocols}}/forty/examples/StopBot.py");
    let out = referee(
        elsewhere.path(),
        &[
            "play",
            "forty",
            &a,
            &b,
            "--seed",
            "3",
            "--timeout-ms",
            "5000",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("\nseat 0 GoToTenBot\nseat 1 StopBot\n"),
        "{text}"
    );
    assert!(text.contains("\nresult: scores "), "{text}");
    // Every decision a throw or a stop: no error, timeout, malformed
    // reply or crash (`E`, `TO`, `M`, `X`).
    let turns: Vec<&str> = text.lines().filter(|l| l.contains(" : ")).collect();
    assert!(turns.len() >= 4, "{text}");
    for turn in turns {
        let decisions = turn.split(" : ").nth(1).unwrap_or("");
        let flags: Vec<&str> = decisions
            .split_whitespace()
            .take_while(|w| w.chars().all(|c| c.is_ascii_uppercase() || c == '-'))
            .collect();
        assert!(
            flags.iter().all(|f| ["T", "S", "-"].contains(f)),
            "{turn}\n{text}"
        );
    }
}

#[test]
fn check_runs_a_command_naming_the_forty_host() {
    let elsewhere = tempfile::tempdir().unwrap();
    let bot = format!(
        "{} {{protocols}}/forty/forty_host.py {{protocols}}/forty/examples/GoToTenBot.py",
        python()
    );
    let out = referee(
        elsewhere.path(),
        &["check", "forty", &bot, "--timeout-ms", "5000"],
    );
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
}

#[test]
fn a_misspelt_protocols_path_stops_the_run_at_its_line() {
    let dir = crate::common::tournament(
        "challenge: forty\ngames: 10\nA python3 {protocols}/forty/forty_host.py A/bot.py\n\
         B python3 {protocols}/forty/fourty_host.py B/bot.py\n",
    );
    let out = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("instructions.txt:4: `{protocols}/forty/fourty_host.py`: the referee's protocols folder has no `forty/fourty_host.py`"),
        "{err}"
    );
    assert!(!dir.path().join("results.db").exists());
}
