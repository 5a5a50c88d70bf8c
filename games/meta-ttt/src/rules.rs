//! The rules of one game as a deterministic state machine.
//!
//! The game knows nothing of processes: it is told, call by call, what the
//! side to move answered (a [`Call`]), and judges it.

use game_core::Fault;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A player's mark. X moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mark {
    X,
    O,
}

impl Mark {
    pub fn other(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }
    /// 0 for X, 1 for O: the index into per-side arrays.
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn letter(self) -> char {
        match self {
            Mark::X => 'X',
            Mark::O => 'O',
        }
    }
}

/// A move `bt`: board and tile, each 0-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub board: u8,
    pub tile: u8,
}

impl Move {
    /// A move from two digits; `None` unless both are 0-8.
    pub fn new(board: u8, tile: u8) -> Option<Move> {
        (board < 9 && tile < 9).then_some(Move { board, tile })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.board, self.tile)
    }
}

/// Why a call was illegal. `Display` gives the reason shown in transcripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Illegal {
    BoardWon(u8),
    BoardFull(u8),
    MustPlay(u8),
    TileTaken {
        board: u8,
        tile: u8,
    },
    Timeout,
    Garbage,
    /// The process ended abnormally without a valid move: exit status
    /// `code` (non-zero), or killed by `signal`.
    Crash {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// The sandbox refused the call (a program the bot may not run, or its
    /// folder over its limits afterwards).
    Sandbox,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::BoardWon(b) => write!(f, "board {b} is won"),
            Illegal::BoardFull(b) => write!(f, "board {b} is full"),
            Illegal::MustPlay(b) => write!(f, "must play board {b}"),
            Illegal::TileTaken { board, tile } => {
                write!(f, "tile {tile} of board {board} is taken")
            }
            Illegal::Timeout => f.write_str("timeout"),
            Illegal::Garbage => f.write_str("garbage output"),
            Illegal::Crash {
                signal: Some(s), ..
            } => write!(f, "crash: killed by signal {s}"),
            Illegal::Crash { code, .. } => {
                write!(f, "crash: exit status {}", code.unwrap_or(-1))
            }
            Illegal::Sandbox => f.write_str("sandbox denial"),
        }
    }
}

/// What the side to move answered, as the wire codec read it: a move to
/// judge, or a failure that is illegal whatever the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Move(Move),
    /// Timed out, crashed without output, garbage...: the reason shown and
    /// the fault kind recorded.
    Failed(Illegal, Fault),
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum End {
    /// Three won boards in a row on the master board.
    Win(Mark),
    /// Every board closed without a master line.
    Draw,
    /// `max-rounds` calls were made.
    RoundLimit,
}

/// One call as it happened, for records and transcripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    pub mark: Mark,
    /// The move, if legal.
    pub mv: Option<Move>,
    pub illegal: Option<Illegal>,
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

fn line_owner(cells: &[Option<Mark>; 9]) -> Option<Mark> {
    LINES.iter().find_map(|&[a, b, c]| {
        let m = cells[a]?;
        (cells[b] == Some(m) && cells[c] == Some(m)).then_some(m)
    })
}

/// The state of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    cells: [[Option<Mark>; 9]; 9],
    owner: [Option<Mark>; 9],
    /// The last legal move, or `None` at the start and after an illegal call.
    last: Option<Move>,
    to_move: Mark,
    calls: u32,
    max_rounds: u32,
    illegal: [u32; 2],
    faults: [game_core::FaultCounts; 2],
    history: Vec<Played>,
    end: Option<End>,
}

impl Game {
    pub fn new(max_rounds: u32) -> Game {
        Game {
            cells: [[None; 9]; 9],
            owner: [None; 9],
            last: None,
            to_move: Mark::X,
            calls: 0,
            max_rounds,
            illegal: [0; 2],
            faults: Default::default(),
            history: Vec::new(),
            end: None,
        }
    }

    pub fn to_move(&self) -> Mark {
        self.to_move
    }
    pub fn last_move(&self) -> Option<Move> {
        self.last
    }
    pub fn calls(&self) -> u32 {
        self.calls
    }
    pub fn end(&self) -> Option<End> {
        self.end
    }
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }
    pub fn cell(&self, board: u8, tile: u8) -> Option<Mark> {
        self.cells[board as usize][tile as usize]
    }
    pub fn board_owner(&self, board: u8) -> Option<Mark> {
        self.owner[board as usize]
    }
    pub fn history(&self) -> &[Played] {
        &self.history
    }
    pub fn illegal_calls(&self, mark: Mark) -> u32 {
        self.illegal[mark.index()]
    }

    fn board_full(&self, board: usize) -> bool {
        self.cells[board].iter().all(Option::is_some)
    }

    /// Open: neither won nor full.
    pub fn is_open(&self, board: u8) -> bool {
        self.owner[board as usize].is_none() && !self.board_full(board as usize)
    }

    /// The board the side to move must play in, or `None` for a free move.
    pub fn forced_board(&self) -> Option<u8> {
        let last = self.last?;
        self.is_open(last.tile).then_some(last.tile)
    }

    /// Judges a move against the rules, in the spec's order of checks.
    pub fn check(&self, mv: Move) -> Result<(), Illegal> {
        let b = mv.board;
        if self.owner[b as usize].is_some() {
            return Err(Illegal::BoardWon(b));
        }
        if self.board_full(b as usize) {
            return Err(Illegal::BoardFull(b));
        }
        if let Some(forced) = self.forced_board() {
            if forced != b {
                return Err(Illegal::MustPlay(forced));
            }
        }
        if self.cells[b as usize][mv.tile as usize].is_some() {
            return Err(Illegal::TileTaken {
                board: b,
                tile: mv.tile,
            });
        }
        Ok(())
    }

    /// Every legal move, ordered by board then tile.
    pub fn legal_moves(&self) -> Vec<Move> {
        (0..9u8)
            .flat_map(|b| (0..9u8).map(move |t| Move { board: b, tile: t }))
            .filter(|&m| self.check(m).is_ok())
            .collect()
    }

    /// Empty cells among all 81: the "open spots" a win is worth.
    pub fn open_spots(&self) -> u32 {
        self.cells.iter().flatten().filter(|c| c.is_none()).count() as u32
    }

    /// Applies one call of the side to move. Does nothing once the game is over.
    pub fn apply(&mut self, call: Call) -> Result<Move, Illegal> {
        if self.end.is_some() {
            return Err(Illegal::Garbage);
        }
        let mark = self.to_move;
        let verdict = match call {
            Call::Move(mv) => self.check(mv).map(|()| mv),
            Call::Failed(reason, _) => Err(reason),
        };
        match verdict {
            Ok(mv) => {
                let (b, t) = (mv.board as usize, mv.tile as usize);
                self.cells[b][t] = Some(mark);
                if self.owner[b].is_none() {
                    self.owner[b] = line_owner(&self.cells[b]);
                }
                self.last = Some(mv);
            }
            Err(reason) => {
                self.illegal[mark.index()] += 1;
                let fault = match call {
                    Call::Failed(_, fault) => fault,
                    Call::Move(_) => Fault::IllegalMove,
                };
                self.faults[mark.index()].add(fault);
                self.last = None;
                let _ = reason;
            }
        }
        self.history.push(Played {
            mark,
            mv: verdict.ok(),
            illegal: verdict.err(),
        });
        self.calls += 1;
        self.to_move = mark.other();
        self.end = self.check_end();
        verdict
    }

    /// The end conditions, checked after every call in the spec's order.
    fn check_end(&self) -> Option<End> {
        if let Some(m) = line_owner(&self.owner) {
            return Some(End::Win(m));
        }
        if (0..9u8).all(|b| !self.is_open(b)) {
            return Some(End::Draw);
        }
        if self.calls >= self.max_rounds {
            return Some(End::RoundLimit);
        }
        None
    }

    /// Points of each side ([X, O]) as the game stands; final once it is over.
    pub fn points(&self) -> [i64; 2] {
        let mut points = [-(self.illegal[0] as i64), -(self.illegal[1] as i64)];
        match self.end {
            Some(End::Win(m)) => points[m.index()] += 100 + i64::from(self.open_spots()),
            Some(End::RoundLimit) => {
                points[0] -= 10;
                points[1] -= 10;
            }
            Some(End::Draw) | None => {}
        }
        points
    }

    /// The finished game as stored in the results database.
    pub fn record(&self) -> GameRecord {
        let winner = match self.end {
            Some(End::Win(m)) => Some(m),
            _ => None,
        };
        GameRecord {
            end: self.end,
            winner,
            open_spots: self.open_spots(),
            calls: self.calls,
            illegal: self.illegal,
            points: self.points(),
            faults: self.faults.clone(),
            moves: self
                .history
                .iter()
                .map(|p| p.mv.map_or_else(|| "xx".to_string(), |m| m.to_string()))
                .collect(),
        }
    }
}

/// What is kept of a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub end: Option<End>,
    pub winner: Option<Mark>,
    pub open_spots: u32,
    pub calls: u32,
    /// Illegal calls of [X, O].
    pub illegal: [u32; 2],
    /// Points of [X, O].
    pub points: [i64; 2],
    /// Faults by kind of [X, O].
    pub faults: [game_core::FaultCounts; 2],
    /// Each call in order: the move played, or `xx` for an illegal call.
    pub moves: Vec<String>,
}
