//! What a bot's calls took, for the record: wall-clock time, the time the
//! limit was measured against (charged: wall less waiting for a CPU, see
//! [`super::cpu_wait`]), and the longest wait of any one call. Stored with
//! each game so that an organiser can see when the machine, not the bot,
//! was slow.

use super::one_shot::Outcome;
use serde::{Deserialize, Serialize};

/// A bot's calls, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CallTimes {
    pub calls: u64,
    /// Wall-clock seconds, spawn to reap.
    pub wall_s: f64,
    /// Seconds charged against the limit.
    pub charged_s: f64,
    /// The longest any one call waited for a CPU (wall less charged).
    pub longest_wait_s: f64,
}

impl CallTimes {
    /// Adds one call.
    pub fn add(&mut self, outcome: &Outcome) {
        let wall = outcome.wall.as_secs_f64();
        let charged = outcome.charged.as_secs_f64();
        self.calls += 1;
        self.wall_s += wall;
        self.charged_s += charged;
        self.longest_wait_s = self.longest_wait_s.max((wall - charged).max(0.0));
    }

    /// Adds another bot's (or game's) sums.
    pub fn merge(&mut self, other: &CallTimes) {
        self.calls += other.calls;
        self.wall_s += other.wall_s;
        self.charged_s += other.charged_s;
        self.longest_wait_s = self.longest_wait_s.max(other.longest_wait_s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::{Ending, Reply};
    use std::time::Duration;

    fn call(wall_ms: u64, charged_ms: u64) -> Outcome {
        Outcome {
            reply: Reply::ended(Vec::new(), Ending::Exited(0)),
            stderr: Vec::new(),
            cpu: Duration::ZERO,
            wall: Duration::from_millis(wall_ms),
            charged: Duration::from_millis(charged_ms),
        }
    }

    #[test]
    fn sums_and_the_longest_wait() {
        let mut a = CallTimes::default();
        a.add(&call(1500, 300));
        a.add(&call(100, 100));
        let mut b = CallTimes::default();
        b.add(&call(400, 200));
        a.merge(&b);
        assert_eq!(a.calls, 3);
        assert!((a.wall_s - 2.0).abs() < 1e-9);
        assert!((a.charged_s - 0.6).abs() < 1e-9);
        assert!((a.longest_wait_s - 1.2).abs() < 1e-9);
    }
}
