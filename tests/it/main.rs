//! Integration tests: real bot processes in several languages, the
//! `referee` binary end to end, resume after a kill, organiser mistakes.

mod bf_joust;
mod check;
mod common;
mod faults;
mod forty;
mod gun_duel;
mod heist;
mod meta_ttt;
mod new_bot;
mod organiser_errors;
mod overnight;
mod persistent;
mod play;
mod resume;
mod sandbox;
mod tidy;
mod transport;
