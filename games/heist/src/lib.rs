//! The heist challenge: pure rules and wire codec.
