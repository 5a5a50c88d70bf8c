//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A test bot's path.
pub fn bot(name: &str) -> PathBuf {
    root().join("tests/bots").join(name)
}

/// The real Python interpreter (the `python3` on PATH may be a slow shim).
pub fn python() -> &'static str {
    static PY: OnceLock<String> = OnceLock::new();
    PY.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "python3".to_string())
    })
}

/// Compiles a C test bot once per test run; returns the binary's path.
pub fn c_bot(source: &Path, name: &str) -> PathBuf {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-bots");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join(name);
    // Compile to a unique temporary name and rename, so parallel tests never
    // see a half-written binary.
    let tmp = out_dir.join(format!("{name}.{}.tmp", std::process::id()));
    let status = Command::new("cc")
        .arg("-O2")
        .arg("-o")
        .arg(&tmp)
        .arg(source)
        .status()
        .expect("cc runs");
    assert!(status.success(), "compiling {}", source.display());
    std::fs::rename(&tmp, &out).unwrap();
    out
}

/// The C `firstLegal` example bot, compiled.
pub fn first_legal() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        c_bot(
            &root().join("examples/bots/meta-ttt/firstLegal/firstLegal.c"),
            "firstLegal",
        )
    })
    .clone()
}

/// Runs the referee binary with `args` in `cwd`.
pub fn referee(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .output()
        .expect("referee runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh tournament folder with this instructions.txt.
pub fn tournament(instructions: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("instructions.txt"), instructions).unwrap();
    dir
}

/// A shell-quoted path, for commands in instructions.txt.
pub fn q(p: &Path) -> String {
    shell_words::quote(&p.to_string_lossy()).into_owned()
}

/// True while a process with this pid exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}
