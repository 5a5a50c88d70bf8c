//! Integration tests: real bot processes in several languages, the
//! `referee` binary end to end, resume after a kill, organiser mistakes.

mod bf_joust;
mod builds;
mod check;
mod common;
mod faults;
mod forty;
mod gun_duel;
mod heist;
mod java;
mod meta_ttt;
mod new_bot;
mod organiser_errors;
mod overnight;
mod persistent;
mod play;
mod preflight;
mod preflight_trace;
mod protocols;
mod report;
mod resume;
mod sandbox;
mod shard;
mod tidy;
mod transport;
mod two_referees;
