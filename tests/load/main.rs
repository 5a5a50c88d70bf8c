//! Verdicts measure the bot, not the machine: small tournaments played on an
//! idle machine and again under a deliberate background load give the same
//! results. A test binary of its own, so that its load never overlaps the
//! rest of the suite (cargo runs test binaries one after another).

#[path = "../it/common.rs"]
#[allow(dead_code)]
mod common;

mod background;
mod forty;
