//! The forty challenge: pure rules and wire codec.
