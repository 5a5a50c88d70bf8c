//! The meta-ttt challenge: pure rules and wire codec.
