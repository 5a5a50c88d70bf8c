//! Framing: how a persistent process's stdout stream is cut into messages
//! (a challenge's [`Framing`]; [`lines`] for line protocols), and the
//! `Cutter` that applies one to the bytes as they are read, keeping what
//! is not a whole message yet.

use super::persistent::{Batch, Piece};
use std::sync::Arc;
use std::time::Instant;

/// What a framing function found at the start of the unread bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// A message: `buf[start..end]`, then drop `consumed` bytes.
    Message {
        start: usize,
        end: usize,
        consumed: usize,
    },
    /// Not enough bytes yet.
    Incomplete,
    /// Too long to be a message: drop `consumed` bytes and report `TooLong`;
    /// with `resync_at`, also drop what follows up to and including that byte
    /// (the rest of an overlong line).
    Overflow {
        consumed: usize,
        resync_at: Option<u8>,
    },
}

/// Cuts messages out of a bot's stdout stream.
pub type Framing = Arc<dyn Fn(&[u8]) -> Frame + Send + Sync>;

/// Line framing: a message is a line without its LF (and a trailing CR);
/// a line over `cap` bytes is reported as `TooLong` and skipped up to its LF.
pub fn lines(cap: usize) -> Framing {
    Arc::new(
        move |buf: &[u8]| match buf.iter().position(|&b| b == b'\n') {
            Some(i) if i <= cap => {
                let end = if i > 0 && buf[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                Frame::Message {
                    start: 0,
                    end,
                    consumed: i + 1,
                }
            }
            Some(i) => Frame::Overflow {
                consumed: i + 1,
                resync_at: None,
            },
            None if buf.len() > cap => Frame::Overflow {
                consumed: buf.len(),
                resync_at: Some(b'\n'),
            },
            None => Frame::Incomplete,
        },
    )
}

/// Cuts a stdout stream into messages with a challenge's [`Framing`],
/// keeping what is not a whole message yet.
pub(super) struct Cutter {
    framing: Framing,
    buf: Vec<u8>,
    /// Set while skipping the rest of an overlong message.
    resync: Option<u8>,
}

impl Cutter {
    pub(super) fn new(framing: Framing) -> Cutter {
        Cutter {
            framing,
            buf: Vec::with_capacity(8192),
            resync: None,
        }
    }

    /// The messages that `fresh`, read at `at`, completes.
    pub(super) fn cut(&mut self, mut fresh: &[u8], at: Instant) -> Batch {
        let mut out = Batch {
            tag: 0,
            at,
            bytes: Vec::new(),
            pieces: Vec::new(),
        };
        if let Some(byte) = self.resync {
            match fresh.iter().position(|&b| b == byte) {
                Some(i) => {
                    fresh = &fresh[i + 1..];
                    self.resync = None;
                }
                None => return out,
            }
        }
        let buf = &mut self.buf;
        buf.extend_from_slice(fresh);
        let mut used = 0;
        while used < buf.len() {
            match (self.framing)(&buf[used..]) {
                Frame::Incomplete => break,
                Frame::Message {
                    start,
                    end,
                    consumed,
                } => {
                    let message = buf.get(used + start..used + end).unwrap_or_default();
                    if out.bytes.is_empty() {
                        // Sized once for everything this read completed.
                        out.bytes.reserve(buf.len() - used);
                    }
                    let at = out.bytes.len();
                    out.bytes.extend_from_slice(message);
                    out.pieces.push(Piece::Message {
                        start: at,
                        end: out.bytes.len(),
                    });
                    used += consumed.max(1);
                }
                Frame::Overflow {
                    consumed,
                    resync_at,
                } => {
                    used += consumed.max(1);
                    if let Some(byte) = resync_at {
                        // Whatever is still buffered belongs to the overlong message.
                        match buf[used.min(buf.len())..].iter().position(|&b| b == byte) {
                            Some(i) => used += i + 1,
                            None => {
                                used = buf.len();
                                self.resync = Some(byte);
                            }
                        }
                    }
                    out.pieces.push(Piece::TooLong);
                }
            }
        }
        buf.drain(..used.min(buf.len()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(buf: &[u8]) -> Frame {
        lines(8)(buf)
    }

    #[test]
    fn line_framing() {
        assert_eq!(
            frame(b"ok\n"),
            Frame::Message {
                start: 0,
                end: 2,
                consumed: 3
            }
        );
        assert_eq!(
            frame(b"ok\r\nmore"),
            Frame::Message {
                start: 0,
                end: 2,
                consumed: 4
            }
        );
        assert_eq!(
            frame(b"\n"),
            Frame::Message {
                start: 0,
                end: 0,
                consumed: 1
            }
        );
        assert_eq!(frame(b"partial"), Frame::Incomplete);
        assert_eq!(
            frame(b"123456789\nx"),
            Frame::Overflow {
                consumed: 10,
                resync_at: None
            }
        );
        assert_eq!(
            frame(b"123456789"),
            Frame::Overflow {
                consumed: 9,
                resync_at: Some(b'\n')
            }
        );
    }
}
