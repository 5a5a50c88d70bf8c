//! The gun-duel challenge: pure rules and wire codec.
