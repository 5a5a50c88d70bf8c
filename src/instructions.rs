//! instructions.txt: optional `key: value` header lines, then the bots in
//! layout (a) (a count, then a name line and a command line per bot) or
//! layout (b) (one `name command...` line per bot). Comments start with `#`.
//!
//! Parsing knows no challenge: header keys are kept with their line numbers
//! and checked later by the challenge that understands them.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// One `key: value` header line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub key: String,
    pub value: String,
    pub line: usize,
}

/// One bot as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    /// The command as written; empty when a layout-(b) line holds only a
    /// name (the challenge decides whether that is allowed).
    pub command: String,
    /// The command split into words like a POSIX shell would (no
    /// expansion); empty with the command.
    pub argv: Vec<String>,
    /// The line that names the bot (layout (a): the name line).
    pub line: usize,
    /// The line holding the command (layout (b): the same line).
    pub command_line: usize,
}

/// A parsed instructions file.
#[derive(Debug, Clone)]
pub struct Instructions {
    pub path: PathBuf,
    /// The tournament directory: the directory of the instructions file.
    pub dir: PathBuf,
    pub headers: Vec<Header>,
    pub bots: Vec<Listed>,
}

impl Instructions {
    /// Reads and parses the file.
    pub fn load(path: &Path) -> Result<Instructions> {
        let text = std::fs::read(path)
            .map_err(|e| Error::input_file(path, format!("cannot read: {e}")))?;
        let text = String::from_utf8(text).map_err(|e| {
            let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            Error::input_at(path, line, "not valid UTF-8")
        })?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let dir = std::fs::canonicalize(&dir)
            .map_err(|e| Error::input_file(path, format!("cannot resolve its directory: {e}")))?;
        Self::parse(path, dir, &text)
    }

    /// Parses `text` as the contents of `path` (tournament directory `dir`).
    pub fn parse(path: &Path, dir: PathBuf, text: &str) -> Result<Instructions> {
        let err = |line: usize, msg: String| Error::input_at(path, line, msg);
        // Content lines: comments and blank lines dropped, numbers kept.
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
            .peekable();

        let mut headers: Vec<Header> = Vec::new();
        while let Some(&(n, l)) = lines.peek() {
            let Some((key, value)) = header_line(l) else {
                break;
            };
            if let Some(first) = headers.iter().find(|h| h.key == key) {
                return Err(err(
                    n,
                    format!("`{key}` is set twice (first on line {})", first.line),
                ));
            }
            headers.push(Header {
                key: key.to_string(),
                value: value.to_string(),
                line: n,
            });
            lines.next();
        }

        let mut bots: Vec<Listed> = Vec::new();
        let mut push = |bot: Listed| -> Result<()> {
            validate_name(&bot.name).map_err(|m| err(bot.line, m))?;
            if let Some(first) = bots.iter().find(|b| b.name == bot.name) {
                return Err(err(
                    bot.line,
                    format!(
                        "duplicate bot name `{}` (first on line {})",
                        bot.name, first.line
                    ),
                ));
            }
            bots.push(bot);
            Ok(())
        };

        match lines.peek().copied() {
            Some((count_line, l)) if l.bytes().all(|b| b.is_ascii_digit()) => {
                // Layout (a): the count, then name and command lines.
                lines.next();
                let count: usize = l
                    .parse()
                    .map_err(|_| err(count_line, format!("bot count `{l}` is too large")))?;
                for i in 0..count {
                    let Some((name_line, name)) = lines.next() else {
                        return Err(err(
                            count_line,
                            format!("the count says {count} bots but {i} are listed"),
                        ));
                    };
                    if let Some((key, _)) = header_line(name) {
                        return Err(err(
                            name_line,
                            format!("header `{key}:` must come before the bot list"),
                        ));
                    }
                    let Some((cmd_line, command)) = lines.next() else {
                        return Err(err(name_line, format!("bot `{name}` has no command line")));
                    };
                    let argv = split_command(command).map_err(|m| err(cmd_line, m))?;
                    push(Listed {
                        name: name.to_string(),
                        command: command.to_string(),
                        argv,
                        line: name_line,
                        command_line: cmd_line,
                    })?;
                }
                if let Some((n, _)) = lines.next() {
                    return Err(err(
                        n,
                        format!("more lines than the {count} bots the count on line {count_line} announces"),
                    ));
                }
            }
            _ => {
                // Layout (b): `name command...` per line.
                for (n, l) in lines {
                    if let Some((key, _)) = header_line(l) {
                        return Err(err(
                            n,
                            format!("header `{key}:` must come before the bot list"),
                        ));
                    }
                    let (name, command) = match l.split_once(char::is_whitespace) {
                        Some((name, rest)) => (name, rest.trim()),
                        None => (l, ""),
                    };
                    // A name alone is kept with no command: a challenge whose
                    // bots are processes rejects it, bf-joust uses a default path.
                    let argv = if command.is_empty() {
                        Vec::new()
                    } else {
                        split_command(command).map_err(|m| err(n, m))?
                    };
                    push(Listed {
                        name: name.to_string(),
                        command: command.to_string(),
                        argv,
                        line: n,
                        command_line: n,
                    })?;
                }
            }
        }

        Ok(Instructions {
            path: path.to_path_buf(),
            dir,
            headers,
            bots,
        })
    }

    pub fn header(&self, key: &str) -> Option<&Header> {
        self.headers.iter().find(|h| h.key == key)
    }
}

/// `key: value` where the key is letters, digits, `-` or `_`, starting with a letter.
fn header_line(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let mut chars = key.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then(|| (key, value.trim()))
}

/// Splits a command into words as a POSIX shell would (quotes and
/// backslashes honoured, nothing expanded). A word starting with
/// `{protocols}` must name one of the referee's protocol files
/// ([`crate::protocols::check_words`]); it is expanded when the bot starts.
pub fn split_command(command: &str) -> std::result::Result<Vec<String>, String> {
    let words = shell_words::split(command)
        .map_err(|e| format!("cannot split the command `{command}`: {e}"))?;
    if words.is_empty() {
        return Err("empty command".to_string());
    }
    crate::protocols::check_words(&words)?;
    Ok(words)
}

/// Folder names the referee uses itself inside a tournament directory.
pub const RESERVED_NAMES: &[&str] = &["logs"];

/// A bot name must be usable as a folder name.
pub fn validate_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name == "." || name == ".." {
        return Err(format!("`{name}` cannot be a bot name"));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| c == '/' || c == '\\' || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "bot name `{name}` contains {c:?}; names must be usable as folder names"
        ));
    }
    if name.starts_with('.') {
        return Err(format!("bot name `{name}` starts with a dot"));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(format!("`{name}` is reserved for the referee's own folder"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Instructions> {
        Instructions::parse(Path::new("t/instructions.txt"), PathBuf::from("t"), text)
    }

    fn err_of(text: &str) -> String {
        parse(text).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn layout_a_as_in_the_original() {
        let i = parse("4\ngoodRandBot\npython3 goodRandBot/bot.py\nnaiveBot\n./naiveBot/naive\nd\njava -cp d D\ne\n'./e x/run' \"a b\"\n").unwrap();
        assert!(i.headers.is_empty());
        let names: Vec<_> = i.bots.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["goodRandBot", "naiveBot", "d", "e"]);
        assert_eq!(i.bots[0].argv, ["python3", "goodRandBot/bot.py"]);
        assert_eq!(i.bots[3].argv, ["./e x/run", "a b"]);
        assert_eq!(i.bots[1].line, 4);
    }

    #[test]
    fn headers_comments_and_layout_b() {
        let text = "# a comment\n\nchallenge: meta-ttt\nseed: 42\ntimeout-ms: 500\n  # indented comment\nalpha python3 alpha/bot.py --fast\n\nbeta ./beta/run\n";
        let i = parse(text).unwrap();
        assert_eq!(
            i.header("challenge").map(|h| (h.value.as_str(), h.line)),
            Some(("meta-ttt", 3))
        );
        assert_eq!(
            i.header("timeout-ms").map(|h| h.value.as_str()),
            Some("500")
        );
        assert_eq!(i.bots.len(), 2);
        assert_eq!(i.bots[0].argv, ["python3", "alpha/bot.py", "--fast"]);
        assert_eq!(i.bots[1].line, 9);
    }

    #[test]
    fn headers_then_layout_a_with_comments_between() {
        let i = parse("challenge: meta-ttt\n2\n# first\na\n\nsh a.sh\nb\nsh b.sh\n").unwrap();
        assert_eq!(i.bots.len(), 2);
        assert_eq!(i.bots[0].command, "sh a.sh");
    }

    #[test]
    fn errors_name_the_file_and_line() {
        assert_eq!(
            err_of("3\na\nsh a\nb\nsh b\n"),
            "t/instructions.txt:1: the count says 3 bots but 2 are listed"
        );
        assert_eq!(
            err_of("1\na\nsh a\nb\nsh b\n"),
            "t/instructions.txt:4: more lines than the 1 bots the count on line 1 announces"
        );
        assert_eq!(
            err_of("2\na\nsh a\nb\n"),
            "t/instructions.txt:4: bot `b` has no command line"
        );
        assert_eq!(
            err_of("a sh a\n\nb sh b\na sh c\n"),
            "t/instructions.txt:4: duplicate bot name `a` (first on line 1)"
        );
        assert_eq!(
            err_of("seed: 1\nseed: 2\na sh a\n"),
            "t/instructions.txt:2: `seed` is set twice (first on line 1)"
        );
        assert_eq!(
            err_of("a sh a\nseed: 2\n"),
            "t/instructions.txt:2: header `seed:` must come before the bot list"
        );
        assert!(err_of("a sh 'unclosed\n")
            .starts_with("t/instructions.txt:1: cannot split the command"));
        assert!(err_of("../up sh a\n")
            .starts_with("t/instructions.txt:1: bot name `../up` contains '/'"));
        assert!(err_of("logs sh a\n").contains("reserved"));
        assert!(
            err_of("a sh a\nb python3 {protocols}/forty/host.py b/bot.py\n").starts_with(
                "t/instructions.txt:2: `{protocols}/forty/host.py`: the referee's protocols folder has no `forty/host.py`"
            ),
            "{}",
            err_of("a sh a\nb python3 {protocols}/forty/host.py b/bot.py\n")
        );
    }

    #[test]
    fn the_protocols_placeholder_is_kept_as_written() {
        let i = parse("a python3 {protocols}/forty/forty_host.py a/bot.py\nb sh b\n").unwrap();
        assert_eq!(
            i.bots[0].argv,
            ["python3", "{protocols}/forty/forty_host.py", "a/bot.py"]
        );
    }

    #[test]
    fn a_name_alone_is_kept_without_a_command() {
        let i = parse("a sh a\n\nb\n").unwrap();
        assert_eq!(i.bots[1].name, "b");
        assert!(i.bots[1].command.is_empty() && i.bots[1].argv.is_empty());
        assert_eq!((i.bots[1].line, i.bots[1].command_line), (3, 3));
        let i = parse("2\na\n# c\nsh a\nb\nsh b\n").unwrap();
        assert_eq!((i.bots[0].line, i.bots[0].command_line), (2, 4));
    }

    #[test]
    fn crlf_files_parse_like_lf_files() {
        let i = parse("seed: 3\r\n2\r\na\r\nsh a\r\nb\r\nsh b\r\n").unwrap();
        assert_eq!(i.bots[1].argv, ["sh", "b"]);
        assert_eq!(i.header("seed").map(|h| h.value.as_str()), Some("3"));
    }
}
