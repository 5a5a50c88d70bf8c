//! `referee new`: every template of every challenge, generated, built with
//! the command `new` prints, passes `referee check` as `new` prints it, and
//! plays a tournament as a drop-in (a forty class through the host the
//! referee carries) without a single fault. A language whose toolchain is missing here
//! is skipped with a message.

use crate::common::{referee, stderr, stdout};
use std::path::Path;
use std::process::Command;

/// Every language of the process challenges' templates.
const LANGS: [&str; 6] = ["python", "c", "cpp", "js", "java", "sh"];

/// The program a language needs that this machine lacks, if any.
fn missing_tool(lang: &str) -> Option<&'static str> {
    let tools: &[&'static str] = match lang {
        "python" => &["python3"],
        "c" => &["cc"],
        "cpp" => &["c++"],
        "js" => &["node"],
        "java" => &["javac", "java"],
        _ => &["sh"],
    };
    tools.iter().copied().find(|tool| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .map_or(true, |o| !o.status.success())
    })
}

/// The command after `PREFIX` on a line of `new`'s output.
fn step<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .map(str::trim)
}

/// `referee new CHALLENGE NAME --lang LANG` in `dir`, its build run as
/// printed, then `referee check` exactly as printed (with a generous time
/// limit: a loaded machine must not fail a template). Returns the bot's
/// name, or `None` when the language's toolchain is missing.
fn new_and_check(dir: &Path, challenge: &str, lang: &str) -> Option<String> {
    if let Some(tool) = missing_tool(lang) {
        eprintln!("skipping the {challenge} {lang} template: `{tool}` is not installed");
        return None;
    }
    let name = format!("{lang}-starter");
    let out = referee(dir, &["new", challenge, &name, "--lang", lang]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    if let Some(build) = step(&text, "build it:") {
        let built = Command::new("sh")
            .args(["-c", build])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "{challenge} {lang}: {build}: {}",
            stderr(&built)
        );
    }
    let check = step(&text, "check it:").unwrap_or_else(|| panic!("{text}"));
    let mut words = shell_words::split(check).unwrap();
    assert_eq!(words.remove(0), "referee", "{check}");
    if challenge != "bf-joust" {
        words.extend(["--timeout-ms".to_string(), "5000".to_string()]);
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let out = referee(dir, &words);
    let report = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{challenge} {lang}: {check}\n{report}{}",
        stderr(&out)
    );
    let verdict = if challenge == "bf-joust" {
        "verdict: the program is valid.".to_string()
    } else {
        format!("verdict: the bot follows the {challenge} ")
    };
    assert!(report.contains(&verdict), "{report}");
    Some(name)
}

/// Generates every template of `challenge` in one tournament folder,
/// checks each, then runs the tournament with `header` and returns its
/// standings as JSON rows.
fn every_template(challenge: &str, header: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for lang in LANGS {
        let Some(name) = new_and_check(dir.path(), challenge, lang) else {
            continue;
        };
        names.push(name);
    }
    if names.len() < 2 {
        eprintln!("skipping the {challenge} tournament: fewer than 2 languages here");
        return Vec::new();
    }
    std::fs::write(
        dir.path().join("instructions.txt"),
        format!("challenge: {challenge}\n{header}"),
    )
    .unwrap();
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("leaving out"),
        "every template joins: {}",
        stderr(&out)
    );
    let json = stdout(&referee(
        dir.path(),
        &[
            "standings",
            "--instructions",
            "instructions.txt",
            "--format",
            "json",
        ],
    ));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    let mut got: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    got.sort_unstable();
    names.sort();
    assert_eq!(got, names, "{json}");
    for row in &rows {
        // forty lists every kind, with 0 where there was none.
        let faults = row["faults"].as_object().unwrap();
        assert!(faults.values().all(|n| n == 0), "{json}");
    }
    rows
}

#[test]
fn meta_ttt_templates_check_and_play_a_tournament() {
    every_template("meta-ttt", "timeout-ms: 5000\nmax-rounds: 4\n");
}

#[test]
fn heist_templates_check_and_play_a_tournament() {
    every_template("heist", "games: 2\nrabble: 5\nseed: 3\n");
}

#[test]
fn gun_duel_templates_check_and_play_a_tournament() {
    every_template(
        "gun-duel",
        "timeout-ms: 5000\nduels-per-pair: 2\nturns: 6\n",
    );
}

#[test]
fn forty_templates_check_and_play_a_tournament() {
    every_template("forty", "games: 30\ntimeout-ms: 2000\nseed: 1\n");
}

#[test]
fn the_bf_joust_template_is_valid_and_joins_a_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let name = new_and_check(dir.path(), "bf-joust", "bf").unwrap();
    let out = referee(dir.path(), &["new", "bf-joust", "other"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(dir.path().join("instructions.txt"), "challenge: bf-joust\n").unwrap();
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(&format!("| {name} ")), "{text}");
    assert!(!text.contains("invalid:"), "{text}");
}

#[test]
fn new_refuses_a_taken_folder_a_bad_name_and_a_foreign_language() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    for (args, needle) in [
        (&["new", "meta-ttt", "taken"][..], "taken: already exists"),
        (&["new", "meta-ttt", "my bot"], "my bot"),
        (&["new", "meta-ttt", "a.b"], "letters, digits"),
        (
            &["new", "bf-joust", "x", "--lang", "c"],
            "bf-joust has no c template",
        ),
        (
            &["new", "heist", "x", "--lang", "bf"],
            "heist has no bf template",
        ),
    ] {
        let out = referee(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    // Nothing was written for the refused ones.
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(entries.len(), 1);
    // --dir puts the folder elsewhere and says so in every command.
    let out = referee(
        dir.path(),
        &[
            "new", "gun-duel", "duelist", "--dir", "taken", "--lang", "sh",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(dir.path().join("taken/duelist/bot.sh").is_file());
    assert!(text.contains("--cwd taken/duelist"), "{text}");
    assert!(
        std::fs::read_to_string(dir.path().join("taken/duelist/bot.toml"))
            .unwrap()
            .contains("interface = \"exit-code\""),
    );
}
