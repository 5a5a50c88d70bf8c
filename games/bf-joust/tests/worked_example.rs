//! Spec §2's worked example, instruction by instruction: which token each
//! cycle executes for `([)*3-(])*3.` on a cell holding 0, and on one
//! holding 5, and the leftover counter of `([)*3(+])*2`.

use game_bf_joust::{run_match_observed, CycleView, Program};

/// The tokens left executes, with its first `>` (token 0) and the `+`s that
/// load the cell removed, and the value of cell 1 at the end.
fn stream(prefix: &str, body: &str, cycles: u64) -> (String, i16) {
    let source = format!("{prefix}{body}");
    let program = Program::parse(source.as_bytes()).expect("valid");
    let idle = Program::parse(b"").expect("valid");
    let skip = prefix.len();
    let mut executed = String::new();
    let mut cell = 0;
    let mut record = |v: &CycleView<'_>| {
        if let Some([left, _]) = v.executed {
            if left >= skip {
                executed.push(char::from(*program.tokens().get(left).unwrap_or(&b'.')));
            }
        }
        cell = game_bf_joust::cell::signed(v.tape[1]);
    };
    run_match_observed(&program, &idle, 10, cycles, &mut record);
    (executed, cell)
}

#[test]
fn on_a_zero_cell_the_stream_is_open_then_three_closes_then_idle() {
    let (s, cell) = stream(">", "([)*3-(])*3.", 1 + 5);
    assert_eq!(s, "[]]].");
    assert_eq!(cell, 0);
}

#[test]
fn on_a_cell_holding_five_it_takes_19_cycles_and_leaves_one() {
    // Cycles: `>`, five `+`, then the 19 of the example, then idling.
    let (s, cell) = stream(">+++++", "([)*3-(])*3", 6 + 19 + 2);
    assert_eq!(s, "[[[-][[[-][[[-][[[-..");
    assert_eq!(cell, 1);
}

#[test]
fn a_leftover_counter_resumes_where_it_stopped() {
    let (s, _) = stream(">", "([)*3(+])*2", 1 + 10 + 1);
    assert_eq!(s, "[+][[+][[[.");
}

#[test]
fn landing_mid_body_finishes_that_pass_then_runs_n_passes() {
    // Vector 20: `([)*2(].)*2<<` on a zero cell: `[` lands just after its
    // `]`, on the `.` (rest of that pass); the `)` then starts the second
    // group's counter (2 → 1 → 0) for two full passes `] .`, and the fetch
    // leaves for the `<<` (9 cycles with the first `>`).
    let (s, _) = stream(">", "([)*2(].)*2<<", 1 + 8);
    assert_eq!(s, "[.].].<<");
}
