//! A deliberately simple reference interpreter, written straight from the
//! spec's wording and independent of the crate's engine: it works on the
//! token list, keeps counters in a map keyed by the `(` index, walks every
//! group step literally (no empty-group shortcut), stores cells as signed
//! numbers with explicit wrapping, and orders the two bots as the original
//! controller did (left first, unless right's instruction is `[` or `]`).
//! Tests compare the fast engine with it; the benchmark uses it as the
//! same-run baseline.

#![allow(dead_code)]

use std::collections::HashMap;

/// A program as the reference sees it. It assumes a valid program (the
/// crate's parser is what rejects invalid ones).
pub struct RefProgram {
    tokens: Vec<u8>,
    /// Partner of each bracket.
    partner: HashMap<usize, usize>,
    /// `(` index of each `)`.
    open_of: HashMap<usize, usize>,
    /// Count and exit (index after the digits) of each `(`.
    group: HashMap<usize, (u64, usize)>,
}

impl RefProgram {
    pub fn new(source: &[u8]) -> RefProgram {
        let keep = b"+-<>[].()*0123456789";
        let tokens: Vec<u8> = source
            .iter()
            .copied()
            .filter(|b| keep.contains(b))
            .collect();
        let mut partner = HashMap::new();
        let mut open_of = HashMap::new();
        let mut group = HashMap::new();
        let mut brackets = Vec::new();
        let mut parens = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            match tokens[i] {
                b'[' => brackets.push(i),
                b']' => {
                    let open = brackets.pop().expect("valid program");
                    partner.insert(open, i);
                    partner.insert(i, open);
                }
                b'(' => parens.push(i),
                b')' => {
                    let open = parens.pop().expect("valid program");
                    open_of.insert(i, open);
                    // Skip `*`, then read the digits.
                    let mut j = i + 2;
                    let mut count: u64 = 0;
                    while j < tokens.len() && tokens[j].is_ascii_digit() {
                        count = count
                            .saturating_mul(10)
                            .saturating_add(u64::from(tokens[j] - b'0'));
                        j += 1;
                    }
                    group.insert(open, (count, j));
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        RefProgram {
            tokens,
            partner,
            open_of,
            group,
        }
    }

    pub fn token_count(&self) -> usize {
        self.tokens.len()
    }
}

/// One bot during a match.
struct Bot<'p> {
    program: &'p RefProgram,
    pos: usize,
    counters: HashMap<usize, u64>,
    ptr: i64,
    /// +1 for left, −1 for right: what `>` adds to the pointer.
    dir: i64,
}

impl Bot<'_> {
    /// Spec §2's fetch, step by step. Returns the instruction and its token
    /// index (the token count for "past the end").
    fn fetch(&mut self) -> (u8, usize) {
        let p = self.program;
        loop {
            if self.pos >= p.tokens.len() {
                return (b'.', p.tokens.len());
            }
            match p.tokens[self.pos] {
                b'(' => {
                    let (count, exit) = p.group[&self.pos];
                    let counter = self.counters.entry(self.pos).or_insert(count);
                    if *counter > 0 {
                        *counter -= 1;
                        self.pos += 1;
                    } else {
                        self.counters.remove(&self.pos);
                        self.pos = exit;
                    }
                }
                b')' => self.pos = p.open_of[&self.pos],
                t => return (t, self.pos),
            }
        }
    }

    fn execute(&mut self, instruction: u8, tape: &mut [i32]) {
        let p = self.program;
        if self.pos >= p.tokens.len() {
            return;
        }
        let cell = &mut tape[self.ptr as usize];
        self.pos = match instruction {
            b'+' => {
                *cell = if *cell == 128 { -127 } else { *cell + 1 };
                self.pos + 1
            }
            b'-' => {
                *cell = if *cell == -127 { 128 } else { *cell - 1 };
                self.pos + 1
            }
            b'>' => {
                self.ptr += self.dir;
                self.pos + 1
            }
            b'<' => {
                self.ptr -= self.dir;
                self.pos + 1
            }
            b'[' if *cell == 0 => p.partner[&self.pos] + 1,
            b']' if *cell != 0 => p.partner[&self.pos] + 1,
            _ => self.pos + 1,
        };
    }
}

/// The state after a cycle, for comparison with the engine's views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefState {
    pub cycle: u64,
    pub tape: Vec<i32>,
    pub left_ptr: i64,
    pub right_ptr: i64,
    /// Token index each bot executed (`None` for the initial state).
    pub executed: Option<[usize; 2]>,
}

/// `'L'`, `'R'` or `'D'`, and the cycle count at the deciding check.
pub type RefResult = (char, u64);

/// Plays a match exactly as spec §3 and §4 word it.
pub fn run(
    left: &RefProgram,
    right: &RefProgram,
    tape_len: usize,
    limit: u64,
    mut on_state: Option<&mut dyn FnMut(&RefState)>,
) -> RefResult {
    let mut tape = vec![0i32; tape_len];
    tape[0] = 128;
    tape[tape_len - 1] = 128;
    let mut l = Bot {
        program: left,
        pos: 0,
        counters: HashMap::new(),
        ptr: 0,
        dir: 1,
    };
    let mut r = Bot {
        program: right,
        pos: 0,
        counters: HashMap::new(),
        ptr: tape_len as i64 - 1,
        dir: -1,
    };
    if let Some(on_state) = on_state.as_mut() {
        on_state(&RefState {
            cycle: 0,
            tape: tape.clone(),
            left_ptr: l.ptr,
            right_ptr: r.ptr,
            executed: None,
        });
    }
    let mut f0_was_zero = false;
    let mut f1_was_zero = false;
    let mut c: u64 = 0;
    loop {
        let f0 = tape[0];
        let f1 = tape[tape_len - 1];
        let off = |ptr: i64| ptr < 0 || ptr >= tape_len as i64;
        let left_wins = (f1_was_zero && f1 == 0) || off(r.ptr);
        let right_wins = (f0_was_zero && f0 == 0) || off(l.ptr);
        let timeout = c >= limit;
        let left_better = f0.abs() > f1.abs();
        let right_better = f1.abs() > f0.abs();
        f0_was_zero = f0 == 0;
        f1_was_zero = f1 == 0;
        if left_wins && right_wins {
            return ('D', c);
        }
        if timeout && !left_better && !right_better {
            return ('D', c);
        }
        if left_wins || (timeout && left_better) {
            return ('L', c);
        }
        if right_wins || (timeout && right_better) {
            return ('R', c);
        }

        let (li, lpos) = l.fetch();
        let (ri, rpos) = r.fetch();
        if ri == b'[' || ri == b']' {
            r.execute(ri, &mut tape);
            l.execute(li, &mut tape);
        } else {
            l.execute(li, &mut tape);
            r.execute(ri, &mut tape);
        }
        c += 1;
        if let Some(on_state) = on_state.as_mut() {
            on_state(&RefState {
                cycle: c,
                tape: tape.clone(),
                left_ptr: l.ptr,
                right_ptr: r.ptr,
                executed: Some([lpos, rpos]),
            });
        }
    }
}

/// [`run`] without observing states.
pub fn result(left: &RefProgram, right: &RefProgram, tape_len: usize, limit: u64) -> RefResult {
    run(left, right, tape_len, limit, None)
}
