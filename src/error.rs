//! The referee's own errors: one line each, naming the file and line when an
//! organiser's input is at fault. A bot's misbehaviour is never an error.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, and whose input it was.
#[derive(Debug)]
pub enum Error {
    /// The organiser's input (instructions, bot.toml, command line) is wrong.
    Input {
        file: Option<PathBuf>,
        line: Option<usize>,
        message: String,
    },
    /// The machine prevented the run (database, filesystem, spawning the runtime).
    Machine(String),
}

impl Error {
    pub fn input_at(file: &Path, line: usize, message: impl Into<String>) -> Error {
        Error::Input {
            file: Some(file.to_path_buf()),
            line: Some(line),
            message: message.into(),
        }
    }
    pub fn input_file(file: &Path, message: impl Into<String>) -> Error {
        Error::Input {
            file: Some(file.to_path_buf()),
            line: None,
            message: message.into(),
        }
    }
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input {
            file: None,
            line: None,
            message: message.into(),
        }
    }
    pub fn machine(message: impl Into<String>) -> Error {
        Error::Machine(message.into())
    }

    /// The process exit status for this error: 2 for bad input (as clap
    /// uses for bad arguments), 1 for everything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input { .. } => 2,
            Error::Machine(_) => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input {
                file: Some(file),
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", file.display()),
            Error::Input {
                file: Some(file),
                line: None,
                message,
            } => write!(f, "{}: {message}", file.display()),
            Error::Input { message, .. } | Error::Machine(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Machine(format!("results database: {e}"))
    }
}

pub type Result<T> = std::result::Result<T, Error>;
