//! `bot.toml`: optional per-bot settings in a bot's folder.
//!
//! ```toml
//! name = "depthBot"              # with `run`: joins the tournament unlisted (drop-in)
//! run = "./depthBot/depth"       # command, run from the tournament directory
//! build = "g++ -O2 -o depth depth.cpp"   # run once in the bot's folder
//! language = "C++"               # shown on leaderboards that have the column
//! owner = "alice"
//! interface = "io"               # gun-duel only: "io" or "exit-code"
//! ignore = ["memory.json"]       # files the bot writes while playing
//! ```

use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A parsed bot.toml. Unknown keys are errors, so a typo is not silently
/// ignored. The file is the bot's (its folder is writable to it), so
/// reading it trusts nothing about it: see [`read_bot_file`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotToml {
    pub name: Option<String>,
    pub run: Option<String>,
    pub build: Option<String>,
    /// Seconds the build may take (default 300).
    #[serde(rename = "build-timeout-s")]
    pub build_timeout_s: Option<u64>,
    pub language: Option<String>,
    pub owner: Option<String>,
    /// Files the bot writes while it plays, which must not count as a change
    /// of the bot (exact names or `*.ext`); `data.txt` and `__pycache__`
    /// never count.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Kept with its position so a challenge can reject a bad value by line.
    pub interface: Option<toml::Spanned<String>>,
    #[serde(skip)]
    pub path: PathBuf,
    #[serde(skip)]
    text: String,
}

impl BotToml {
    /// Reads `<folder>/bot.toml` if it exists. The folder belongs to a bot,
    /// which may have made its bot.toml anything: see [`read_bot_file`].
    pub fn load(folder: &Path) -> Result<Option<BotToml>> {
        let path = folder.join("bot.toml");
        match read_bot_file(&path)? {
            Some(text) => Self::parse(&path, &text).map(Some),
            None => Ok(None),
        }
    }

    pub fn parse(path: &Path, text: &str) -> Result<BotToml> {
        let mut parsed: BotToml = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            // One line, whatever the parser says: the warning is one line.
            let message: Vec<&str> = e.message().split_whitespace().collect();
            Error::input_at(path, line, message.join(" "))
        })?;
        parsed.path = path.to_path_buf();
        parsed.text = text.to_string();
        Ok(parsed)
    }

    /// The 1-based line of a span of this file (for errors about values).
    pub fn line_at(&self, offset: usize) -> usize {
        line_of(&self.text, offset)
    }

    /// The 1-based line where top-level `key = ...` is set, if it is.
    pub fn line_of_key(&self, key: &str) -> Option<usize> {
        self.text
            .lines()
            .position(|l| {
                l.trim_start()
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
            .map(|i| i + 1)
    }
}

/// The most a bot.toml may hold.
pub const MAX_BYTES: u64 = 64 << 10;

/// The text of a small file in a bot's folder, `None` if there is none.
/// The file is looked at before it is opened (a symbolic link, FIFO,
/// socket or device is refused, and so is a file over [`MAX_BYTES`]),
/// opened without following a link or blocking, and checked again once
/// open, as the bot may have swapped it meanwhile. An error names the file.
pub fn read_bot_file(path: &Path) -> Result<Option<String>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let refuse = |m: String| Error::input_file(path, m);
    match std::fs::symlink_metadata(path) {
        Ok(meta) => check_regular(&meta).map_err(refuse)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refuse(format!("cannot read: {e}"))),
    }
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refuse("is a symbolic link, not a file".to_string()))
        }
        Err(e) => return Err(refuse(format!("cannot read: {e}"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| refuse(format!("cannot read: {e}")))?;
    check_regular(&meta).map_err(refuse)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| refuse(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(refuse(too_big()));
    }
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let line = line_of_bytes(e.as_bytes(), e.utf8_error().valid_up_to());
        Error::input_at(path, line, "not valid UTF-8")
    })
}

/// A regular file of at most [`MAX_BYTES`], else what it is instead.
fn check_regular(meta: &std::fs::Metadata) -> std::result::Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let what = if kind.is_file() {
        return if meta.len() > MAX_BYTES {
            Err(too_big())
        } else {
            Ok(())
        };
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "a special file"
    };
    Err(format!("is {what}, not a file"))
}

fn too_big() -> String {
    format!("is larger than {} KiB", MAX_BYTES >> 10)
}

fn line_of(text: &str, offset: usize) -> usize {
    line_of_bytes(text.as_bytes(), offset)
}

fn line_of_bytes(bytes: &[u8], offset: usize) -> usize {
    1 + bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_parse() {
        let t = BotToml::parse(
            Path::new("b/bot.toml"),
            "name = \"b\"\nrun = \"./b/run\"\nbuild = \"cc -o run run.c\"\nlanguage = \"C\"\ninterface = \"io\"\n",
        )
        .unwrap();
        assert_eq!(t.run.as_deref(), Some("./b/run"));
        let iface = t.interface.as_ref().unwrap();
        assert_eq!(iface.get_ref(), "io");
        assert_eq!(t.line_at(iface.span().start), 5);
    }

    #[test]
    fn a_key_is_found_by_line() {
        let t = BotToml::parse(
            Path::new("b/bot.toml"),
            "name = \"b\"\n# run = \"no\"\n  run   = \"b.bf\"\n",
        )
        .unwrap();
        assert_eq!(t.line_of_key("run"), Some(3));
        assert_eq!(t.line_of_key("name"), Some(1));
        assert_eq!(t.line_of_key("owner"), None);
    }

    #[test]
    fn unknown_keys_and_bad_types_name_the_line() {
        let e = BotToml::parse(
            Path::new("b/bot.toml"),
            "name = \"b\"\n\nbuidl = \"make\"\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("b/bot.toml:3: unknown field `buidl`"), "{s}");
        let e = BotToml::parse(Path::new("b/bot.toml"), "name = 3\n").unwrap_err();
        assert!(e.to_string().starts_with("b/bot.toml:1: "), "{e}");
    }

    /// Whether this process can read a file whatever its mode (root).
    fn privileged() -> bool {
        std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1))
                == Some("0")
        })
    }

    #[test]
    fn only_a_small_regular_file_is_read_and_nothing_blocks() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside.toml");
        std::fs::write(&outside, "name = \"x\"\n").unwrap();
        let folder = |name: &str| {
            let f = d.path().join(name);
            std::fs::create_dir(&f).unwrap();
            f
        };
        let none = folder("none");
        assert!(BotToml::load(&none).unwrap().is_none());
        let link = folder("link");
        std::os::unix::fs::symlink(&outside, link.join("bot.toml")).unwrap();
        let fifo = folder("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(fifo.join("bot.toml"))
            .status()
            .is_ok_and(|s| s.success());
        assert!(made, "mkfifo");
        let huge = folder("huge");
        std::fs::File::create(huge.join("bot.toml"))
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        let dir = folder("dir");
        std::fs::create_dir(dir.join("bot.toml")).unwrap();
        let bytes = folder("bytes");
        std::fs::write(bytes.join("bot.toml"), b"name = \"b\"\nrun = \"\xff\"\n").unwrap();
        let cases = [
            (link, "is a symbolic link, not a file".to_string()),
            (fifo, "is a FIFO, not a file".to_string()),
            (huge, "is larger than 64 KiB".to_string()),
            (dir, "is a folder, not a file".to_string()),
        ];
        // A FIFO opened for reading would block for ever: load in a thread.
        let (tx, rx) = std::sync::mpsc::channel();
        let folders: Vec<PathBuf> = cases.iter().map(|(f, _)| f.clone()).collect();
        let bytes_folder = bytes.clone();
        std::thread::spawn(move || {
            let mut errors: Vec<String> = folders
                .iter()
                .map(|f| match BotToml::load(f) {
                    Ok(t) => format!("read: {t:?}"),
                    Err(e) => e.to_string(),
                })
                .collect();
            errors.push(match BotToml::load(&bytes_folder) {
                Ok(t) => format!("read: {t:?}"),
                Err(e) => e.to_string(),
            });
            let _ = tx.send(errors);
        });
        let errors = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("loading finished");
        for ((folder, message), got) in cases.iter().zip(&errors) {
            let file = folder.join("bot.toml");
            assert_eq!(*got, format!("{}: {message}", file.display()));
        }
        let file = bytes.join("bot.toml");
        assert_eq!(errors[4], format!("{}:2: not valid UTF-8", file.display()));

        if !privileged() {
            let locked = folder("locked");
            std::fs::write(locked.join("bot.toml"), "name = \"l\"\n").unwrap();
            std::fs::set_permissions(
                locked.join("bot.toml"),
                std::fs::Permissions::from_mode(0o000),
            )
            .unwrap();
            let e = BotToml::load(&locked).unwrap_err().to_string();
            assert!(e.contains("bot.toml: cannot read: "), "{e}");
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
            let e = BotToml::load(&locked).unwrap_err().to_string();
            assert!(e.contains("bot.toml: cannot read: "), "{e}");
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
    }
}
