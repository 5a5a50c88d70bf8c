//! What a bot's decision amounts to once a wire codec has read it.

use game_core::Fault;

use crate::action::Action;

/// One bot's move for one turn: an action, or no action and possibly the
/// fault that caused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub action: Option<Action>,
    pub fault: Option<Fault>,
}

impl Answer {
    /// The move asked of an interface-2 bot that is already dead: no action
    /// at once, and its fault was counted when it died.
    pub const DEAD: Answer = Answer {
        action: None,
        fault: None,
    };

    pub fn action(action: Action) -> Answer {
        Answer {
            action: Some(action),
            fault: None,
        }
    }

    pub fn no_action(fault: Fault) -> Answer {
        Answer {
            action: None,
            fault: Some(fault),
        }
    }
}
