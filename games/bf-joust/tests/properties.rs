//! Property tests on random valid programs: the engine agrees with the
//! reference interpreter cycle by cycle, programs stay inside their code,
//! cells stay in range, and swapping the programs mirrors the match except
//! for the asymmetries spec §4 documents.

#[path = "support/reference.rs"]
mod reference;

use game_bf_joust::{cell, run_match, run_match_observed, CycleView, Outcome, Program};
use proptest::collection::vec;
use proptest::prelude::*;
use reference::{RefProgram, RefState};

/// A random program as a tree, so groups nest properly; brackets are placed
/// freely and balanced afterwards, so they often cross group boundaries.
#[derive(Debug, Clone)]
enum Node {
    Op(u8),
    Snippet(&'static str),
    Group(Vec<Node>, u64),
}

fn op() -> impl Strategy<Value = Node> {
    prop_oneof![
        4 => Just(b'>'),
        1 => Just(b'<'),
        3 => Just(b'+'),
        3 => Just(b'-'),
        1 => Just(b'.'),
        2 => Just(b'['),
        2 => Just(b']'),
    ]
    .prop_map(Node::Op)
}

fn snippet() -> impl Strategy<Value = Node> {
    prop_oneof![
        Just("[-]"),
        Just("[+]"),
        Just("(>)*8"),
        Just("[-[+]]"),
        Just("([-)*3(])*3"),
        Just("(+)*0"),
        Just("()*4"),
    ]
    .prop_map(Node::Snippet)
}

fn count() -> impl Strategy<Value = u64> {
    prop_oneof![6 => 0u64..5, 2 => 5u64..40, 1 => Just(128), 1 => 100u64..400]
}

fn node() -> impl Strategy<Value = Node> {
    prop_oneof![6 => op(), 1 => snippet()].prop_recursive(4, 48, 6, |inner| {
        (vec(inner, 0..6), count()).prop_map(|(body, n)| Node::Group(body, n))
    })
}

/// Whether a subtree holds an instruction (so a pass through it costs cycles).
fn has_instruction(node: &Node) -> bool {
    match node {
        Node::Op(_) => true,
        Node::Snippet(s) => s.bytes().any(|b| b"+-<>[].".contains(&b)),
        Node::Group(body, _) => body.iter().any(has_instruction),
    }
}

fn render_into(node: &Node, out: &mut Vec<u8>, noise: bool) {
    match node {
        Node::Op(b) => out.push(*b),
        Node::Snippet(s) => out.extend_from_slice(s.as_bytes()),
        Node::Group(body, n) => {
            out.push(b'(');
            for child in body {
                render_into(child, out, noise);
                if noise {
                    out.extend_from_slice(b" x\n");
                }
            }
            // The reference walks empty groups literally; keep their
            // nested products small (bounded fetches have their own test).
            let n = if has_instruction(node) {
                *n
            } else {
                (*n).min(3)
            };
            out.extend_from_slice(if noise { b") rep *" } else { b")*" });
            out.extend_from_slice(n.to_string().as_bytes());
        }
    }
}

/// Renders the tree, then turns unmatched `]` and unclosed `[` into `.`.
fn render(nodes: &[Node], noise: bool) -> String {
    let mut out = Vec::new();
    for n in nodes {
        render_into(n, &mut out, noise);
    }
    let mut open = Vec::new();
    for (i, token) in out.iter_mut().enumerate() {
        match *token {
            b'[' => open.push(i),
            b']' if open.pop().is_none() => *token = b'.',
            _ => {}
        }
    }
    for i in open {
        out[i] = b'.';
    }
    String::from_utf8(out).expect("ASCII")
}

fn program_source() -> impl Strategy<Value = String> {
    (vec(node(), 0..20), any::<bool>()).prop_map(|(nodes, noise)| render(&nodes, noise))
}

fn limit() -> impl Strategy<Value = u64> {
    prop_oneof![1 => 0u64..40, 4 => 40u64..2500, 1 => Just(10_000)]
}

fn compile(source: &str) -> Program {
    Program::parse(source.as_bytes()).expect("generated programs are valid")
}

/// One engine state in the reference's terms.
fn as_ref_state(view: &CycleView<'_>) -> RefState {
    RefState {
        cycle: view.cycle,
        tape: view
            .tape
            .iter()
            .map(|&v| i32::from(cell::signed(v)))
            .collect(),
        left_ptr: view.left_ptr as i64,
        right_ptr: view.right_ptr as i64,
        executed: view.executed,
    }
}

fn outcome_char(o: Outcome) -> char {
    match o {
        Outcome::LeftWins => 'L',
        Outcome::RightWins => 'R',
        Outcome::Draw => 'D',
    }
}

/// Every state of a match as seen by the engine.
fn engine_states(
    left: &Program,
    right: &Program,
    len: usize,
    limit: u64,
) -> (Vec<RefState>, (char, u64)) {
    let mut states = Vec::new();
    let mut record = |v: &CycleView<'_>| states.push(as_ref_state(v));
    let result = run_match_observed(left, right, len, limit, &mut record);
    (states, (outcome_char(result.outcome), result.cycles))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_the_reference_cycle_by_cycle(
        left in program_source(),
        right in program_source(),
        len in 10usize..=30,
        limit in limit(),
    ) {
        let (states, result) = engine_states(&compile(&left), &compile(&right), len, limit);
        let mut ref_states = Vec::new();
        let mut record = |s: &RefState| ref_states.push(s.clone());
        let ref_result = reference::run(
            &RefProgram::new(left.as_bytes()),
            &RefProgram::new(right.as_bytes()),
            len,
            limit,
            Some(&mut record),
        );
        prop_assert_eq!(states.len(), ref_states.len());
        for (mine, theirs) in states.iter().zip(&ref_states) {
            prop_assert_eq!(mine, theirs);
        }
        prop_assert_eq!(result, ref_result);
        // The untraced engine gives the same result as the traced one.
        let plain = run_match(&compile(&left), &compile(&right), len, limit);
        prop_assert_eq!((outcome_char(plain.outcome), plain.cycles), result);
    }

    #[test]
    fn programs_never_leave_their_code_and_cells_stay_in_range(
        left in program_source(),
        right in program_source(),
        len in 10usize..=30,
        limit in limit(),
    ) {
        let (l, r) = (compile(&left), compile(&right));
        let mut problems = Vec::new();
        let mut check = |v: &CycleView<'_>| {
            if v.tape.len() != len || v.tape.iter().any(|&c| !(-127..=128).contains(&cell::signed(c))) {
                problems.push(format!("cycle {}: tape {:?}", v.cycle, v.tape));
            }
            if let Some([a, b]) = v.executed {
                for (pc, tokens) in [(a, l.tokens()), (b, r.tokens())] {
                    let ok = pc == tokens.len() || (pc < tokens.len() && b"+-<>[].".contains(&tokens[pc]));
                    if !ok {
                        problems.push(format!("cycle {}: executed token {pc} of {}", v.cycle, tokens.len()));
                    }
                }
            }
            // A bot only acts while on the tape, so a pointer is at most one step off.
            for p in [v.left_ptr, v.right_ptr] {
                if !(-1..=len as isize).contains(&p) {
                    problems.push(format!("cycle {}: pointer {p}", v.cycle));
                }
            }
        };
        let result = run_match_observed(&l, &r, len, limit, &mut check);
        prop_assert!(problems.is_empty(), "{:?}", problems);
        prop_assert!(result.cycles <= limit);
    }

    #[test]
    fn swapping_programs_mirrors_the_match_except_at_the_asymmetric_final_check(
        a in program_source(),
        b in program_source(),
        len in 10usize..=30,
        limit in limit(),
    ) {
        let (pa, pb) = (compile(&a), compile(&b));
        let (forward, fr) = engine_states(&pa, &pb, len, limit);
        let (swapped, sr) = engine_states(&pb, &pa, len, limit);
        prop_assert_eq!(forward.len(), swapped.len());
        let last = len as i64 - 1;
        for (f, s) in forward.iter().zip(&swapped) {
            let mut mirrored_tape = f.tape.clone();
            mirrored_tape.reverse();
            prop_assert_eq!(&s.tape, &mirrored_tape);
            prop_assert_eq!(s.left_ptr, last - f.right_ptr);
            prop_assert_eq!(s.right_ptr, last - f.left_ptr);
        }
        // Same deciding check, so the same cycle count.
        prop_assert_eq!(fr.1, sr.1);
        let mirrored = match fr.0 { 'L' => 'R', 'R' => 'L', d => d };
        if asymmetric_final_check(&forward, limit) {
            // Left is tested first: whoever is on the left wins both times.
            prop_assert_eq!((fr.0, sr.0), ('L', 'L'));
        } else {
            prop_assert_eq!(sr.0, mirrored);
        }
    }
}

/// Spec §4's asymmetric case: the limit is reached at a check where exactly
/// one bot has lost, while that bot's flag is the further from 0.
fn asymmetric_final_check(states: &[RefState], limit: u64) -> bool {
    let Some(end) = states.last() else {
        return false;
    };
    if end.cycle < limit || states.len() < 2 {
        return false;
    }
    let before = &states[states.len() - 2];
    let len = end.tape.len() as i64;
    let (f0, f1) = (end.tape[0], end.tape[end.tape.len() - 1]);
    let off = |p: i64| p < 0 || p >= len;
    let left_lost = (before.tape[0] == 0 && f0 == 0) || off(end.left_ptr);
    let right_lost = (before.tape[end.tape.len() - 1] == 0 && f1 == 0) || off(end.right_ptr);
    (left_lost && !right_lost && f0.abs() > f1.abs())
        || (right_lost && !left_lost && f1.abs() > f0.abs())
}

#[test]
fn the_documented_asymmetry_is_real() {
    // Vectors 10 and 11: left off the tape at T with the further flag wins,
    // and so does left when the roles are swapped.
    let off = compile("(.)*9999<");
    let dent = compile("-");
    assert_eq!(
        run_match(&off, &dent, 10, 10_000).outcome,
        Outcome::LeftWins
    );
    assert_eq!(
        run_match(&dent, &off, 10, 10_000).outcome,
        Outcome::LeftWins
    );
    let (states, _) = engine_states(&off, &dent, 10, 10_000);
    assert!(asymmetric_final_check(&states, 10_000));
}

#[test]
fn fetches_are_bounded_whatever_the_counts() {
    let huge = compile("((()*1000000)*1000000)*1000000 (((+)*0)*99999999999)*99999999999 <");
    let result = run_match(&huge, &compile(""), 10, 10_000);
    assert_eq!((result.outcome, result.cycles), (Outcome::RightWins, 1));
}
