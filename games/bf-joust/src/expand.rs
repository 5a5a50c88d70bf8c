//! Compile-time unrolling of groups that cannot tell they were unrolled.
//!
//! A group is **simple** when every bracket in its body pairs with a bracket
//! in the same body. Then no jump enters the body from outside or leaves it
//! mid-pass, so the fetch only ever enters at the `(` with the counter
//! absent and leaves through the count with the counter absent again: the
//! group never leaves a counter behind. If every group nested inside is
//! empty or simple as well, nothing inside can leave a counter behind either,
//! and writing the body N times in a row runs exactly the same instruction
//! stream (spec §2's counters only ever count passes).
//!
//! Every instruction still costs its one cycle: this removes the zero-cost
//! counter steps from the engine's loop, nothing else. It is bounded by a
//! growth budget per program, innermost groups first, because those run most.

use crate::parse::Parsed;

/// How many tokens unrolling may add to one program. The op array of a
/// typical bot stays in the engine's two smallest size classes.
const GROWTH_BUDGET: u64 = 3_000;

/// The unrolled token list, and for each of its tokens the index of the
/// original token it copies (for tracing and for the spec's positions).
pub(crate) struct Expanded {
    pub tokens: Vec<u8>,
    pub origin: Vec<u32>,
}

/// What is known about a group's body while scanning it.
struct Frame {
    /// Smallest and largest partner index of a bracket anywhere in the body.
    min_partner: usize,
    max_partner: usize,
    /// Every group nested in the body is empty or simple (recursively).
    inner_ok: bool,
    /// Tokens the body will take once its own nested decisions are made.
    size: u64,
}

impl Frame {
    fn new() -> Frame {
        Frame {
            min_partner: usize::MAX,
            max_partner: 0,
            inner_ok: true,
            size: 0,
        }
    }
}

/// Unrolls what can be unrolled within the budget; `None` when nothing is.
pub(crate) fn expand(p: &Parsed) -> Option<Expanded> {
    let unroll = decide(p);
    if !unroll.iter().any(|&u| u) {
        return None;
    }
    Some(emit(p, &unroll))
}

/// Which groups to unroll: bottom-up (a group closes after its children),
/// greedily while the budget lasts.
fn decide(p: &Parsed) -> Vec<bool> {
    let mut unroll = vec![false; p.groups.len()];
    let mut budget = GROWTH_BUDGET;
    // The outermost frame stands for the top level of the program.
    let mut stack = vec![Frame::new()];
    let mut t = 0;
    while t < p.tokens.len() {
        match p.tokens[t] {
            b'(' => stack.push(Frame::new()),
            b')' => {
                let g = p.group_at(t);
                let Some(f) = stack.pop() else { break };
                let simple = f.min_partner > g.open && f.max_partner < g.close;
                let as_text = f.size + 1 + (g.exit - g.close) as u64;
                let unrolled = g.count.checked_mul(f.size);
                let growth = unrolled.map(|u| u.saturating_sub(as_text));
                let size = match growth {
                    Some(growth) if !g.empty && simple && f.inner_ok && growth <= budget => {
                        budget -= growth;
                        unroll[p.group_of[t] as usize] = true;
                        unrolled.unwrap_or(as_text)
                    }
                    _ => as_text,
                };
                if let Some(parent) = stack.last_mut() {
                    parent.size += size;
                    parent.min_partner = parent.min_partner.min(f.min_partner);
                    parent.max_partner = parent.max_partner.max(f.max_partner);
                    parent.inner_ok &= g.empty || (simple && f.inner_ok);
                }
                t = g.exit;
                continue;
            }
            b'[' | b']' => {
                if let Some(top) = stack.last_mut() {
                    top.min_partner = top.min_partner.min(p.partner_of(t));
                    top.max_partner = top.max_partner.max(p.partner_of(t));
                    top.size += 1;
                }
            }
            _ => {
                if let Some(top) = stack.last_mut() {
                    top.size += 1;
                }
            }
        }
        t += 1;
    }
    unroll
}

/// A group being unrolled: its body and how many passes remain.
struct Pass {
    body: usize,
    close: usize,
    exit: usize,
    left: u64,
}

/// Writes the token list with each chosen group replaced by N copies of its
/// (itself unrolled) body. Iterative, so deep nesting cannot overflow.
fn emit(p: &Parsed, unroll: &[bool]) -> Expanded {
    let mut tokens = Vec::with_capacity(p.tokens.len());
    let mut origin = Vec::with_capacity(p.tokens.len());
    let mut stack: Vec<Pass> = Vec::new();
    let mut t = 0;
    loop {
        if let Some(pass) = stack.last_mut() {
            if t == pass.close {
                pass.left -= 1;
                if pass.left > 0 {
                    t = pass.body;
                } else {
                    t = pass.exit;
                    stack.pop();
                }
                continue;
            }
        } else if t >= p.tokens.len() {
            break;
        }
        if p.tokens[t] == b'(' && unroll[p.group_of[t] as usize] {
            let g = p.group_at(t);
            // Only non-empty groups are unrolled, so the count is at least 1.
            stack.push(Pass {
                body: g.open + 1,
                close: g.close,
                exit: g.exit,
                left: g.count,
            });
            t = g.open + 1;
            continue;
        }
        tokens.push(p.tokens[t]);
        // Token indices fit in u32 (16 MiB files).
        origin.push(t as u32);
        t += 1;
    }
    Expanded { tokens, origin }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn unrolled(src: &str) -> String {
        let p = parse(src.as_bytes()).expect("valid");
        match expand(&p) {
            Some(e) => String::from_utf8(e.tokens).expect("ASCII"),
            None => String::from_utf8(p.tokens).expect("ASCII"),
        }
    }

    #[test]
    fn simple_groups_are_written_out() {
        assert_eq!(unrolled("(>)*3(-)*2"), ">>>--");
        assert_eq!(unrolled("((+)*2>)*3"), "++>++>++>");
        assert_eq!(unrolled("([-]>)*2"), "[-]>[-]>");
    }

    #[test]
    fn groups_whose_brackets_cross_their_body_stay_groups() {
        assert_eq!(unrolled("([)*3-(])*3"), "([)*3-(])*3");
        // The outer group holds a crossing pair inside: its inner groups
        // keep counters across passes, so the outer one must stay too.
        assert_eq!(unrolled("(([)*2-(])*2>)*3"), "(([)*2-(])*2>)*3");
        // A group around a bracket that pairs outside it stays; the simple
        // group next to it is unrolled.
        assert_eq!(unrolled("[(+])*2(-)*2"), "[(+])*2--");
    }

    #[test]
    fn empty_groups_are_left_to_the_compiler() {
        assert_eq!(unrolled("()*5(+)*0+"), "()*5(+)*0+");
        // An empty group inside does not stop its parent from unrolling.
        assert_eq!(unrolled("(()*9+)*2"), "()*9+()*9+");
    }

    #[test]
    fn the_budget_bounds_growth_innermost_first() {
        // Too big as a whole, but its inner group fits.
        assert_eq!(unrolled("((-)*3>)*999999"), "(--->)*999999");
        let big = unrolled("(.)*9999");
        assert_eq!(big, "(.)*9999");
        let p = parse(b"(+)*2000(-)*2000").expect("valid");
        let e = expand(&p).expect("the first group fits");
        assert_eq!(e.tokens.len(), 2000 + 8);
        assert_eq!(e.origin[0], 1);
        assert_eq!(e.origin[1999], 1);
        assert_eq!(e.origin[2000], 8);
    }
}
