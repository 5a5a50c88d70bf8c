//! What a report quotes of a bot's output: its first line, the line of a
//! traceback that names the error, bytes escaped and shortened, signals in
//! plain words. Used by `check` and the preflight alike.

/// The first non-empty line of some output, shortened, for a report.
pub fn first_line(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().map(str::trim_end).find(|l| !l.is_empty())?;
    Some(shorten(line, 160))
}

/// What a report shows of a bot's stderr: its first line, and the last
/// line that says what went wrong when more follows. A traceback's first
/// line only says that something failed (`Traceback (most recent call
/// last):`, `forty_host: loading bot.py failed:`); the exception is at its
/// end (`ModuleNotFoundError: No module named 'numpy'`), below or above
/// the frames. Frames and source lines are indented (Python, the JVM,
/// node) and node ends with its version: those are skipped. A skipped
/// stretch before the last line is shown as `... `.
pub fn stderr_excerpt(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let Some(first) = lines.first() else {
        return Vec::new();
    };
    let mut shown = vec![shorten(first, 160)];
    let telling = |l: &&str| {
        !l.starts_with(char::is_whitespace)
            && !l.starts_with("Node.js v")
            && !l.chars().all(|c| matches!(c, '^' | '~'))
    };
    if let Some(last) = lines.iter().skip(1).rposition(telling) {
        let at = last + 1;
        let skipped = if at > 1 { "... " } else { "" };
        shown.push(format!("{skipped}{}", shorten(lines[at], 160)));
    }
    shown
}

/// `text` cut to at most `max` characters, with `...` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max).collect();
        s.push_str("...");
        s
    }
}

/// Bytes a bot wrote, quoted for a report (escaped, at most 60 bytes).
pub fn quoted(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(60)];
    let more = if bytes.len() > cut.len() { "..." } else { "" };
    format!("\"{}{more}\"", cut.escape_ascii())
}

/// Plain words for a signal number.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV, a segmentation fault",
        libc::SIGABRT => "SIGABRT, an abort",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGFPE => "SIGFPE, an arithmetic error",
        libc::SIGBUS => "SIGBUS",
        libc::SIGPIPE => "SIGPIPE, a write to a closed pipe",
        libc::SIGXCPU => "SIGXCPU",
        _ => return format!("signal {signal}"),
    };
    format!("signal {signal} ({name})")
}
