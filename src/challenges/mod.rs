//! The challenges: one folder each, joining that challenge's pure rules and
//! codec (its `games/<id>` crate) to the transport, the session and the
//! tournament loop, and implementing [`crate::challenge::Challenge`].

pub mod bf_joust;
pub mod forty;
pub mod gun_duel;
pub mod heist;
pub mod meta_ttt;
