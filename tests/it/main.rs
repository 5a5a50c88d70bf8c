//! Integration tests: real bot processes in several languages, the
//! `referee` binary end to end, resume after a kill, organiser mistakes.

mod bf_joust;
mod common;
mod meta_ttt;
mod organiser_errors;
mod persistent;
mod resume;
mod sandbox;
mod transport;
