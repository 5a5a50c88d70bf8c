//! `referee play bf-joust`: its options.

/// `referee play bf-joust LEFT.bf RIGHT.bf`: one match, cycle by cycle.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Two .bf files, left first.
    #[arg(required = true, value_name = "FILE")]
    pub bots: Vec<String>,
    /// Seed that draws the tape length when --tape-len is not given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print the tape before the first cycle and after every cycle.
    #[arg(long)]
    pub trace: bool,
    /// The tape length, 10 to 30 (default: drawn at random).
    #[arg(long, value_name = "N")]
    pub tape_len: Option<u64>,
    /// The cycle limit (default 10000; 0 ends the match at once).
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
}
