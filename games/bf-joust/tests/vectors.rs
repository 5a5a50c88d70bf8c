//! Every test vector of spec §8, at the rules level and through the `play`
//! transcript's last line.

use game_bf_joust::{run_match, transcript, EndReason, Outcome, Program};

struct Vector {
    n: u32,
    tape_len: usize,
    cycles: Option<u64>,
    left: &'static str,
    right: &'static str,
    /// `L 138`, `R 1` or `draw 129`, as the spec's result column.
    result: &'static str,
}

const fn v(
    n: u32,
    tape_len: usize,
    cycles: Option<u64>,
    left: &'static str,
    right: &'static str,
    result: &'static str,
) -> Vector {
    Vector {
        n,
        tape_len,
        cycles,
        left,
        right,
        result,
    }
}

#[rustfmt::skip]
const VECTORS: [Vector; 32] = [
    v(1, 10, None, "<", "", "R 1"),
    v(2, 10, None, "", "(>)*10", "L 10"),
    v(3, 12, None, "<", "<", "draw 1"),
    v(4, 10, None, "(>)*9(-)*128", "", "L 138"),
    v(5, 10, None, "(>)*9(-)*128+-", "", "L 140"),
    v(6, 10, None, "(>)*9[-]", "", "L 266"),
    v(7, 15, None, "(-)*128", "(-)*128", "draw 129"),
    v(8, 20, None, "", "+", "L 10000"),
    v(9, 20, None, "-", "+", "draw 10000"),
    v(10, 10, None, "(.)*9999<", "-", "L 10000"),
    v(11, 10, None, "-", "(.)*9999<", "L 10000"),
    v(12, 10, None, "(.)*9998<", "-", "R 9999"),
    v(13, 10, None, "", "(.)*9999<", "draw 10000"),
    v(14, 10, None, ">(.)*7[<<]..<<", "(>)*8+", "R 13"),
    v(15, 10, None, "(>)*8+", ">(.)*7[<<]..<<", "L 13"),
    v(16, 10, None, "(>)*9((-)*16.)*8", "", "L 145"),
    v(17, 10, None, "(>)*0()*7(()*3)*2<", "", "R 1"),
    v(18, 10, None, ">([)*3-(])*3<<", "", "R 7"),
    v(19, 10, None, ">+++++([)*3-(])*3<<", "", "R 27"),
    v(20, 10, None, ">([)*2(].)*2<<", "", "R 9"),
    v(21, 10, None, ">([)*3(+])*2<<", "", "R 13"),
    v(22, 10, None, "(>)*9(-)*137", "(+)*9", "L 147"),
    v(23, 10, None, "(>)*9(-)*138", "(.)*9(+)*10", "L 148"),
    v(24, 10, None, "(>) times *9 then (-) times *128", "", "L 138"),
    v(25, 10, None, "(>)*1 0", "", "R 10"),
    v(26, 10, None, ">[<<]", "+", "L 10000"),
    v(27, 10, Some(50), "", "+", "L 50"),
    v(28, 10, Some(137), "(>)*9(-)*128", ".(>)*9(-)*128", "L 137"),
    v(29, 10, Some(138), "(>)*9(-)*128", ".(>)*9(-)*128", "draw 138"),
    v(30, 10, None, "(>)*9(-)*128", ".(>)*9(-)*128", "L 138"),
    v(31, 10, Some(0), "<", "<", "draw 0"),
    v(32, 30, None, "(>)*29(-)*128", "(>)*29(+)*128", "draw 158"),
];

fn expected(vector: &Vector) -> (Outcome, u64) {
    let (who, cycles) = vector.result.split_once(' ').expect("result column");
    let outcome = match who {
        "L" => Outcome::LeftWins,
        "R" => Outcome::RightWins,
        _ => Outcome::Draw,
    };
    (outcome, cycles.parse().expect("cycle count"))
}

fn program(src: &str) -> Program {
    Program::parse(src.as_bytes()).expect("every vector program is valid")
}

#[test]
fn every_vector_gives_the_original_result_and_cycle_count() {
    let mut failures = Vec::new();
    for vector in &VECTORS {
        let result = run_match(
            &program(vector.left),
            &program(vector.right),
            vector.tape_len,
            vector.cycles.unwrap_or(10_000),
        );
        if (result.outcome, result.cycles) != expected(vector) {
            failures.push(format!(
                "#{}: expected {}, got {:?} {}",
                vector.n, vector.result, result.outcome, result.cycles
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_vector_prints_the_original_final_line() {
    for vector in &VECTORS {
        let (out, _) = transcript(
            "L",
            "R",
            &program(vector.left),
            &program(vector.right),
            vector.tape_len,
            vector.cycles.unwrap_or(10_000),
            false,
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "===== Starting battle of <L> vs <R> with memory tape size: {} =====",
                vector.tape_len
            ),
            "#{}",
            vector.n
        );
        let (outcome, cycles) = expected(vector);
        let last = match outcome {
            Outcome::LeftWins => format!("===== L won the battle after {cycles} cycles ====="),
            Outcome::RightWins => format!("===== R won the battle after {cycles} cycles ====="),
            Outcome::Draw => "===== Draw game =====".to_string(),
        };
        assert_eq!(lines, vec![lines[0], last.as_str()], "#{}", vector.n);
    }
}

#[test]
fn vector_endings_name_what_decided_them() {
    let end = |n: u32| {
        let vector = &VECTORS[n as usize - 1];
        assert_eq!(vector.n, n);
        run_match(
            &program(vector.left),
            &program(vector.right),
            vector.tape_len,
            vector.cycles.unwrap_or(10_000),
        )
        .end
    };
    assert_eq!(end(1), EndReason::OffTape);
    assert_eq!(end(2), EndReason::OffTape);
    assert_eq!(end(3), EndReason::BothLost);
    assert_eq!(end(4), EndReason::Flag);
    assert_eq!(end(7), EndReason::BothLost);
    assert_eq!(end(8), EndReason::Limit);
    assert_eq!(end(9), EndReason::Limit);
    assert_eq!(end(10), EndReason::Limit);
    assert_eq!(end(11), EndReason::OffTape);
    assert_eq!(end(13), EndReason::Limit);
    assert_eq!(end(29), EndReason::Limit);
    assert_eq!(end(31), EndReason::Limit);
    assert_eq!(end(32), EndReason::BothLost);
}
