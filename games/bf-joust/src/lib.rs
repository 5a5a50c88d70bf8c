//! The bf-joust challenge: pure rules and wire codec.
