//! A validated program compiled once into a flat op array (spec §2, §7).
//!
//! Every instruction op carries its two possible successors (cell zero /
//! non-zero), so executing one is a select rather than a branch on its kind.
//! Groups stay interpreted: each non-empty group's `(` and `)` become a group
//! op with a counter slot, so a match keeps the original's per-group counters
//! exactly. Empty groups cost nothing and never leave a counter behind
//! (spec §2), so every successor that would land on one is resolved past it
//! at compile time; that is also what bounds a fetch whatever the counts.

use crate::expand;
use crate::hill::{self, Kind};
use crate::parse::{self, ParseError, Parsed};
use crate::settings::Rules;

/// What an op does when the fetch reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum OpKind {
    /// One cycle's instruction (`+ - < > [ ] .`, or idling past the end).
    Instr,
    /// The `(` or `)` of a non-empty group: a zero-cost counter step.
    Group,
    /// Hill: save the repeat register and load `slot` (a group's `(`).
    Push,
    /// Hill: count the register down; while not 0, go to `on_zero`, else
    /// restore it and go on (a plain group's `)`, and `{`).
    CountDown,
    /// Hill: restore the register and go on (a `{` whose `a` part is
    /// empty: counting down to itself ends the same way, at no cost).
    Pop,
    /// Hill: save the register and load 1 (`}`).
    PushOne,
    /// Hill: count the register up; while it is at most `slot`, go to
    /// `on_zero`, else restore it and go on (the `)` of a `({})` group).
    CountUp,
}

/// One op, 16 bytes so that four share a cache line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Op {
    /// Instr: the next op when the cell under the pointer is 0.
    /// Group: the first op of the body.
    pub on_zero: u32,
    /// Instr: the next op when the cell is not 0. Group: the op after the count.
    pub on_nonzero: u32,
    /// Group: the counter slot. Instr: the token index (for tracing).
    pub slot: u32,
    /// Added (wrapping) to the cell: 0, 1 or 255.
    pub dcell: u8,
    /// Pointer move toward the enemy flag: -1, 0 or 1.
    pub dptr: i8,
    pub kind: OpKind,
}

/// Op-array lengths the engine has fixed-size variants for. A program's ops
/// are padded to the smallest class that holds them, so the engine can index
/// a `[Op; N]` with `pc & (N − 1)`: the compiler then needs no bounds check,
/// and the loop no length register. Every successor is below the real op
/// count, so the mask never changes an index. Larger programs use slices.
pub(crate) const SIZE_CLASSES: [usize; 3] = [1 << 8, 1 << 12, 1 << 16];

/// A valid bf-joust program, ready to play any number of matches.
#[derive(Debug, Clone)]
pub struct Program {
    tokens: Vec<u8>,
    /// The rules the program was read under; a match uses its left
    /// program's (both must have been read under the same rules).
    pub(crate) rules: Rules,
    /// The ops, then copies of the idle end op up to the size class.
    pub(crate) ops: Vec<Op>,
    /// Initial counter per slot: the group's count, which also stands for
    /// "absent" (a present counter is always below the count; see arena).
    pub(crate) counts: Vec<u64>,
    pub(crate) start: u32,
    hash: u64,
}

impl Program {
    /// Validates and compiles a program file's bytes.
    pub fn parse(source: &[u8]) -> Result<Program, ParseError> {
        let parsed = parse::parse(source)?;
        let unrolled = expand::expand(&parsed)
            .and_then(|e| parse::structure(e.tokens).ok().map(|p| (p, e.origin)));
        Ok(match unrolled {
            Some((p, origin)) => compile(&p, Some(&origin), parsed.tokens),
            None => {
                let tokens = parsed.tokens.clone();
                compile(&parsed, None, tokens)
            }
        })
    }

    /// Validates and compiles a program under `rules`: the 2014 format of
    /// spec §1 ([`Program::parse`]), or the hill format (see [`crate::hill`]).
    pub fn parse_rules(source: &[u8], rules: Rules) -> Result<Program, ParseError> {
        match rules {
            Rules::Y2014 => Program::parse(source),
            Rules::Hill => Ok(compile_hill(hill::parse(source)?)),
        }
    }

    /// The rules this program was read under.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The filtered token list (spec §1); its indices are the spec's positions.
    /// Under the hill rules, the command characters kept.
    pub fn tokens(&self) -> &[u8] {
        &self.tokens
    }

    /// A stable 64-bit hash (FNV-1a) of the token list: two files with the
    /// same tokens play identically, so results recorded for one are valid
    /// for the other.
    pub fn token_hash(&self) -> u64 {
        self.hash
    }

    /// Number of non-empty groups, i.e. counters a match keeps for this bot.
    pub fn counter_slots(&self) -> usize {
        self.counts.len()
    }
}

const NO_OP: u32 = u32::MAX;

/// Compiles `p`, whose token `t` copies original token `origin[t]` of
/// `original` when groups were unrolled (`origin` is `None` otherwise).
fn compile(p: &Parsed, origin: Option<&[u32]>, original: Vec<u8>) -> Program {
    let n = p.tokens.len();
    let is_op = |t: usize| match p.tokens[t] {
        b'(' | b')' => !p.group_at(t).empty,
        b'*' | b'0'..=b'9' => false,
        _ => true,
    };

    // Op index of every token that becomes an op; `end` idles forever.
    let mut op_of = vec![NO_OP; n];
    let mut op_token: Vec<u32> = Vec::new();
    for (t, op) in op_of.iter_mut().enumerate() {
        if is_op(t) {
            *op = to_u32(op_token.len());
            op_token.push(to_u32(t));
        }
    }
    let end = to_u32(op_token.len());

    // Slot per non-empty group, keyed by group index.
    let mut slot_of = vec![NO_OP; p.groups.len()];
    let mut counts = Vec::new();
    for (g, group) in p.groups.iter().enumerate() {
        if !group.empty {
            slot_of[g] = to_u32(counts.len());
            counts.push(group.count);
        }
    }

    // Where a fetch that arrives at token position `t` really starts: empty
    // groups (reached at their `(` or `)`) are passed over at no cost, and
    // count digits are never an instruction.
    let resolve = |mut t: usize| -> u32 {
        loop {
            if t >= n {
                return end;
            }
            match p.tokens[t] {
                b'(' | b')' if p.group_at(t).empty => t = p.group_at(t).exit,
                b'*' | b'0'..=b'9' => t += 1,
                _ => return op_of[t],
            }
        }
    };

    let mut ops = Vec::with_capacity(op_token.len() + 1);
    for t in op_token.iter().map(|&t| t as usize) {
        let next = resolve(t + 1);
        let instr = |dcell: u8, dptr: i8| Op {
            on_zero: next,
            on_nonzero: next,
            slot: origin.map_or(to_u32(t), |o| o[t]),
            dcell,
            dptr,
            kind: OpKind::Instr,
        };
        let op = match p.tokens[t] {
            b'+' => instr(1, 0),
            b'-' => instr(255, 0),
            b'>' => instr(0, 1),
            b'<' => instr(0, -1),
            b'[' => Op {
                on_zero: resolve(p.partner_of(t) + 1),
                ..instr(0, 0)
            },
            b']' => Op {
                on_nonzero: resolve(p.partner_of(t) + 1),
                ..instr(0, 0)
            },
            b'(' | b')' => {
                let g = p.group_of[t] as usize;
                Op {
                    on_zero: resolve(p.groups[g].open + 1),
                    on_nonzero: resolve(p.groups[g].exit),
                    slot: slot_of[g],
                    dcell: 0,
                    dptr: 0,
                    kind: OpKind::Group,
                }
            }
            // Only `.` is left.
            _ => instr(0, 0),
        };
        ops.push(op);
    }
    let idle = Op {
        on_zero: end,
        on_nonzero: end,
        slot: to_u32(original.len()),
        dcell: 0,
        dptr: 0,
        kind: OpKind::Instr,
    };
    ops.push(idle);
    if let Some(&class) = SIZE_CLASSES.iter().find(|&&c| c >= ops.len()) {
        ops.resize(class, idle);
    }

    let start = resolve(0);
    let hash = game_core::seed::stable_hash(&original);
    Program {
        tokens: original,
        rules: Rules::Y2014,
        ops,
        counts,
        start,
        hash,
    }
}

/// Compiles a hill program: every item becomes one op, so jumps need no
/// renumbering; the end is an idle op.
fn compile_hill(p: hill::HillParsed) -> Program {
    let n = p.items.len();
    let end = to_u32(n);
    // A link to a removed item (only in pathological programs) ends the
    // program rather than jumping anywhere.
    let after = |i: usize| if i >= n { end } else { to_u32(i + 1) };
    let mut ops = Vec::with_capacity(n + 1);
    let mut hash_input = Vec::with_capacity(n * 5 + 4);
    hash_input.extend_from_slice(b"hill");
    for (at, item) in p.items.iter().enumerate() {
        let next = to_u32(at + 1);
        let instr = |dcell: u8, dptr: i8| Op {
            on_zero: next,
            on_nonzero: next,
            slot: to_u32(item.token),
            dcell,
            dptr,
            kind: OpKind::Instr,
        };
        let free = |kind: OpKind, on_zero: u32, slot: u32| Op {
            on_zero,
            on_nonzero: next,
            slot,
            dcell: 0,
            dptr: 0,
            kind,
        };
        let op = match item.kind {
            Kind::Inc => instr(1, 0),
            Kind::Dec => instr(255, 0),
            Kind::Right => instr(0, 1),
            Kind::Left => instr(0, -1),
            Kind::Wait => instr(0, 0),
            Kind::Open => Op {
                on_zero: after(item.partner),
                ..instr(0, 0)
            },
            Kind::Close => Op {
                on_nonzero: after(item.partner),
                ..instr(0, 0)
            },
            Kind::Rep | Kind::IRep => free(OpKind::Push, next, item.count),
            Kind::RepEnd | Kind::Inner => {
                let target = after(item.partner);
                if target == to_u32(at) {
                    free(OpKind::Pop, next, 0)
                } else {
                    free(OpKind::CountDown, target, 0)
                }
            }
            Kind::InnerEnd => free(OpKind::PushOne, next, 0),
            Kind::IRepEnd => free(OpKind::CountUp, after(item.partner), item.count),
        };
        hash_input.push(item.kind as u8);
        hash_input.extend_from_slice(&item.count.to_le_bytes());
        ops.push(op);
    }
    let idle = Op {
        on_zero: end,
        on_nonzero: end,
        slot: to_u32(p.tokens.len()),
        dcell: 0,
        dptr: 0,
        kind: OpKind::Instr,
    };
    ops.push(idle);
    if let Some(&class) = SIZE_CLASSES.iter().find(|&&c| c >= ops.len()) {
        ops.resize(class, idle);
    }
    Program {
        hash: game_core::seed::stable_hash(&hash_input),
        tokens: p.tokens,
        rules: Rules::Hill,
        ops,
        counts: Vec::new(),
        start: 0,
    }
}

/// Token and op counts are bounded by the 16 MiB file limit, so they fit.
fn to_u32(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        Program::parse(src.as_bytes()).expect("valid test program")
    }

    #[test]
    fn count_digits_and_empty_groups_produce_no_op() {
        // `(-])*3` holds a `]` that pairs outside it, so it stays a group.
        let p = program("()*5 (+)*0 (()*3)*2 + [(-])*3");
        // ops: `+`@5 (kept: a jump could land on it), `+`@17, `[`@18,
        // `(`@19, `-`@20, `]`@21, `)`@22, end. The fetch starts past the
        // three empty groups.
        assert_eq!(
            p.ops.len(),
            SIZE_CLASSES[0],
            "padded to the first size class"
        );
        assert_eq!(p.ops[7].on_zero, 7, "op 7 is the idle end");
        assert_eq!(p.counts, vec![3]);
        assert_eq!(p.ops[p.start as usize].slot, 17);
        assert_eq!(p.ops[3].kind, OpKind::Group);
        assert_eq!(p.ops[6].kind, OpKind::Group);
        assert_eq!((p.ops[3].on_zero, p.ops[3].on_nonzero), (4, 7));
    }

    #[test]
    fn simple_groups_are_unrolled_and_trace_back_to_their_tokens() {
        let p = program("(>)*3 (-[+])*2");
        assert!(p.counts.is_empty(), "no group is left");
        let slots: Vec<u32> = p.ops[..10].iter().map(|op| op.slot).collect();
        assert_eq!(slots, vec![1, 1, 1, 6, 7, 8, 9, 6, 7, 8]);
        assert_eq!(p.tokens(), b"(>)*3(-[+])*2");
    }

    #[test]
    fn instructions_inside_a_zero_count_group_stay_reachable_by_a_jump() {
        // `[` jumps to just after `]`, which is inside `(]+)*0`: the `+`.
        let p = program("[(]+)*0.");
        let open = &p.ops[p.start as usize];
        assert_eq!(p.tokens()[open.slot as usize], b'[');
        let landing = &p.ops[open.on_zero as usize];
        assert_eq!(p.tokens()[landing.slot as usize], b'+');
        // After the `+`, the zero-count group's `)` is passed over to the `.`.
        let after = &p.ops[landing.on_zero as usize];
        assert_eq!(p.tokens()[after.slot as usize], b'.');
    }

    #[test]
    fn past_the_end_is_an_idle_op_that_stays_put() {
        let p = program("");
        let end = p.ops[p.start as usize];
        assert_eq!(p.start, 0);
        assert_eq!(
            (end.on_zero, end.on_nonzero, end.dcell, end.dptr),
            (0, 0, 0, 0)
        );
        assert_eq!(end.kind, OpKind::Instr);
    }

    #[test]
    fn ops_are_padded_to_a_size_class_and_every_successor_is_real() {
        for src in [
            "",
            "+",
            &"+".repeat(255),
            &"+".repeat(256),
            &"([)*3(-[+]>])*3".repeat(700),
        ] {
            let p = program(src);
            // Padding copies the idle end op, whose successors are itself.
            let end = p.ops[p.ops.len() - 1].on_zero as usize;
            assert_eq!(p.ops[end].on_zero as usize, end);
            assert!(SIZE_CLASSES.contains(&p.ops.len()), "{} ops", p.ops.len());
            for op in &p.ops {
                assert!((op.on_zero as usize) <= end && (op.on_nonzero as usize) <= end);
                if op.kind == OpKind::Group {
                    assert!((op.slot as usize) < p.counts.len());
                }
            }
        }
        // Beyond the largest class, the ops are kept unpadded.
        let huge = program(&"+".repeat(SIZE_CLASSES[2]));
        assert_eq!(huge.ops.len(), SIZE_CLASSES[2] + 1);
    }

    #[test]
    fn the_token_hash_depends_on_tokens_only() {
        assert_eq!(
            program("(>)*9 rush").token_hash(),
            program("(>) times *9").token_hash()
        );
        assert_ne!(program("+").token_hash(), program("-").token_hash());
    }
}
