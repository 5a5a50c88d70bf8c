//! A Java bot as the README and instructions.example.txt show it:
//! compiled by its bot.toml `build` (javac), listed as
//! `javaBot java -cp javaBot Main`, run from the tournament folder under
//! the meta-ttt sandbox, as root and as an unprivileged user. The JVM
//! loads the bot's classes from its folder, while the tournament folder
//! itself stays closed to it.

use crate::common::{first_legal, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The bot: a random legal move, from two classes in two files so that the
/// JVM really loads from the class path. Each call also notes, in its own
/// folder, the heap the JVM allowed itself and whether the tournament
/// folder (its working directory) could be listed.
const MAIN: &str = r#"import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.util.List;
import java.util.Random;

public class Main {
    public static void main(String[] args) throws IOException {
        Position position = new Position(args);
        List<String> moves = position.legalMoves();
        String[] listed = new File(".").list();
        try (FileWriter notes = new FileWriter("javaBot/jvm.txt")) {
            notes.write("max-heap " + Runtime.getRuntime().maxMemory() + "\n");
            notes.write("tournament-folder " + (listed == null ? "closed" : "open") + "\n");
        }
        System.out.println(moves.get(new Random().nextInt(moves.size())));
    }
}
"#;

const POSITION: &str = r#"import java.util.ArrayList;
import java.util.List;

/** The 12 arguments of a meta-ttt call, and the moves they allow. */
class Position {
    private final String[] boards = new String[9];
    private final String master;
    private final String last;

    Position(String[] args) {
        System.arraycopy(args, 1, boards, 0, 9);
        master = args[10];
        last = args[11];
    }

    private boolean open(int board) {
        return master.charAt(board) == '-' && boards[board].indexOf('-') >= 0;
    }

    List<String> legalMoves() {
        int forced = last.equals("xx") ? -1 : last.charAt(1) - '0';
        boolean free = forced < 0 || !open(forced);
        List<String> moves = new ArrayList<>();
        for (int b = 0; b < 9; b++) {
            if (!open(b) || (!free && b != forced)) {
                continue;
            }
            for (int t = 0; t < 9; t++) {
                if (boards[b].charAt(t) == '-') {
                    moves.add("" + b + t);
                }
            }
        }
        return moves;
    }
}
"#;

/// Whether `program -version` runs.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether this process runs as root.
fn root_user() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
}

/// The tournament in `work/t`, the referee and the C opponent in
/// `work/bin` (where an unprivileged user can reach them).
fn stage(work: &Path) -> (PathBuf, PathBuf) {
    let bin = work.join("bin");
    let t = work.join("t");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(t.join("javaBot")).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_referee"), bin.join("referee")).unwrap();
    std::fs::copy(first_legal(), bin.join("firstLegal")).unwrap();
    std::fs::write(t.join("javaBot/Main.java"), MAIN).unwrap();
    std::fs::write(t.join("javaBot/Position.java"), POSITION).unwrap();
    std::fs::write(
        t.join("javaBot/bot.toml"),
        "build = \"javac -d . Main.java Position.java\"\nlanguage = \"Java\"\n",
    )
    .unwrap();
    std::fs::write(
        t.join("instructions.txt"),
        format!(
            "challenge: meta-ttt\n\
             # A JVM starts in well under a second; a loaded machine gets room.\n\
             timeout-ms: 20000\n\
             javaBot java -cp javaBot Main\n\
             plain {}\n",
            bin.join("firstLegal").display()
        ),
    )
    .unwrap();
    (bin.join("referee"), t)
}

/// The referee in `dir`, as this user or (with `user`) as that uid via
/// setpriv, with this process's PATH.
fn referee_as(bin: &Path, user: Option<&str>, dir: &Path, args: &[&str]) -> Output {
    let mut cmd = match user {
        None => Command::new(bin),
        Some(u) => {
            let mut c = Command::new("setpriv");
            c.args(["--reuid", u, "--regid", u, "--clear-groups", "--"])
                .arg(bin)
                .env("HOME", dir);
            c
        }
    };
    cmd.args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("referee runs")
}

/// Builds and plays the tournament; every game is whole and legal, the
/// Java bot has no fault of any kind, and its JVM sized itself by the
/// bot's memory limit and could not list the tournament folder.
fn java_tournament(user: Option<&str>) {
    let work = tempfile::tempdir_in("/tmp").unwrap();
    let (referee, t) = stage(work.path());
    if user.is_some() {
        let ok = Command::new("chmod")
            .args(["-R", "a+rwX"])
            .arg(work.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "chmod");
    }
    let out = referee_as(&referee, user, &t, &["--instructions", "instructions.txt"]);
    let log = std::fs::read_to_string(t.join("logs/javaBot.log")).unwrap_or_default();
    assert!(out.status.success(), "{}\n{log}", stderr(&out));
    assert!(
        t.join("javaBot/Main.class").exists() && t.join("javaBot/Position.class").exists(),
        "the build made no classes: {log}"
    );

    let json = stdout(&referee_as(
        &referee,
        user,
        &t,
        &["standings", "--format", "json"],
    ));
    let rows: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    for name in ["javaBot", "plain"] {
        let row = rows
            .as_array()
            .and_then(|r| r.iter().find(|r| r["name"] == name))
            .unwrap_or_else(|| panic!("no {name}: {json}"));
        assert_eq!(
            row["faults"],
            serde_json::json!({}),
            "{name}: {json}\n{log}"
        );
        assert_eq!(row["illegal"], 0, "{name}: {json}\n{log}");
        assert_eq!(row["played"], 2, "{name}: {json}");
        let decided = ["wins", "losses", "draws"]
            .iter()
            .map(|k| row[*k].as_u64().unwrap_or(0))
            .sum::<u64>();
        assert_eq!(decided, 2, "{name}: {json}");
    }

    let notes = std::fs::read_to_string(t.join("javaBot/jvm.txt")).unwrap_or_default();
    assert!(notes.contains("tournament-folder closed"), "{notes}");
    let heap: u64 = notes
        .lines()
        .find_map(|l| l.strip_prefix("max-heap "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no max-heap in {notes:?}"));
    // A quarter of the bot's 512 MiB, as in a memory cgroup of that size;
    // sized by the machine's memory, it would be a quarter of that.
    assert!(heap <= 256 << 20, "the JVM took a {heap}-byte heap");
}

#[test]
fn a_java_bot_builds_and_plays_legal_games_under_the_sandbox() {
    if !runs("javac") || !runs("java") {
        eprintln!(
            "skipping the Java bot test: no JDK (javac and java) on PATH; .ci/run installs default-jdk-headless"
        );
        return;
    }
    java_tournament(None);
}

#[test]
fn a_java_bot_builds_and_plays_legal_games_when_the_referee_is_not_root() {
    if !runs("javac") || !runs("java") {
        eprintln!(
            "skipping the unprivileged Java bot test: no JDK (javac and java) on PATH; .ci/run installs default-jdk-headless"
        );
        return;
    }
    if !root_user() {
        // Already unprivileged: the test above covers it.
        return;
    }
    assert!(
        Command::new("setpriv").arg("--version").output().is_ok(),
        "setpriv (util-linux) is needed to run the sandbox tests unprivileged"
    );
    java_tournament(Some("65534"));
}
