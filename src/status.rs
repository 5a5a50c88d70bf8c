//! How a command ended, as a value: `main` alone turns it into an exit
//! status, so nothing below it knows exit codes.

/// The end of a command that ran (an `Err` is the other way to end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything asked was done (bots misbehaving is normal): exit 0.
    Done,
    /// `check`: the bot does not follow its contract: exit 1.
    ContractBroken,
    /// The organiser's input was wrong and has been reported already
    /// (bf-joust `play` of an invalid program): exit 2.
    BadInput,
    /// Stopped by Ctrl-C or SIGTERM; finished games are saved: exit 130.
    Interrupted,
    /// `merge`: done, but parts of the tournament are missing (said on
    /// stderr): exit 3.
    Incomplete,
}

impl Status {
    /// The process exit status (documented in `referee --help`).
    pub fn exit_code(self) -> i32 {
        match self {
            Status::Done => 0,
            Status::ContractBroken => 1,
            Status::BadInput => 2,
            Status::Interrupted => 130,
            Status::Incomplete => 3,
        }
    }
}
