//! `referee`: runs King-of-the-Hill bot tournaments.
//!
//! See ARCHITECTURE.md for the codemap and the invariants.
#![forbid(unsafe_code)]

pub mod app;
pub mod bot;
pub mod bot_build;
pub mod bot_folder;
pub mod bot_toml;
pub mod build_record;
pub mod challenge;
pub mod challenges;
pub mod check;
pub mod cli;
pub mod config;
pub mod error;
pub mod excerpt;
pub mod first_call;
pub mod instructions;
pub mod kept_folder;
pub mod lock;
pub mod merge;
pub mod new_bot;
pub mod output;
pub mod play;
pub mod preflight;
pub mod prepare;
pub mod progress;
pub mod protocols;
pub mod report;
pub mod results;
pub mod session;
pub mod setting_flags;
pub mod shard;
pub mod standings;
pub mod status;
pub mod tournament;
pub mod watch;
