//! The match engine (spec §3, §4): two compiled programs on one tape.
//!
//! A match is a pure function of (left, right, tape length, cycle limit).
//! The loop keeps everything in locals and a 32-byte tape array, allocates
//! nothing per cycle, and does the two bots' work branch-free except for
//! the group fetch. Tracing goes through an [`Observer`] whose calls are
//! compiled out of the untraced path.

use serde::{Deserialize, Serialize};

use crate::cell;
use crate::program::{Op, OpKind, Program, SIZE_CLASSES};
use crate::settings::Rules;

/// Shortest tape a match may use.
pub const MIN_TAPE_LEN: usize = 10;
/// Longest tape a match may use.
pub const MAX_TAPE_LEN: usize = 30;
/// How many tape lengths there are (10..=30): the matches per pairing with
/// `tape-lengths: all`.
pub const TAPE_LENGTH_COUNT: u32 = (MAX_TAPE_LEN - MIN_TAPE_LEN + 1) as u32;
/// The default cycle limit T.
pub const DEFAULT_CYCLES: u64 = 10_000;

/// Pointers index the tape through this mask. A bot only executes while its
/// pointer is on the tape (the check before every cycle ends the match
/// otherwise), so the mask never changes an index; it only lets the
/// compiler drop the bounds checks.
const TAPE_MASK: usize = 31;

/// Whether the right program plays as written or with `+` and `-` swapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Polarity {
    Normal,
    /// The right program's `+` and `-` swapped (the hill's second half).
    Inverted,
}

/// What a match is played with besides its two programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchSpec {
    /// 10..=30.
    pub tape_len: usize,
    /// The limit T (0 ends the match at the first check).
    pub cycles: u64,
    pub polarity: Polarity,
}

/// Who won a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    LeftWins,
    RightWins,
    Draw,
}

impl Outcome {
    /// The same result seen with the two sides exchanged.
    pub fn mirrored(self) -> Outcome {
        match self {
            Outcome::LeftWins => Outcome::RightWins,
            Outcome::RightWins => Outcome::LeftWins,
            Outcome::Draw => Outcome::Draw,
        }
    }

    /// gearlance's character: `<` left wins, `>` right wins, `X` a tie.
    pub fn symbol(self) -> char {
        match self {
            Outcome::LeftWins => '<',
            Outcome::RightWins => '>',
            Outcome::Draw => 'X',
        }
    }

    /// `"left"`, `"right"` or `"draw"`, for records.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::LeftWins => "left",
            Outcome::RightWins => "right",
            Outcome::Draw => "draw",
        }
    }
}

/// What decided a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// The loser's flag was 0 at two consecutive checks.
    Flag,
    /// The loser's pointer left the tape.
    OffTape,
    /// Both bots lost at the same check: a draw.
    BothLost,
    /// The cycle limit: the flag further from 0 won, or equal flags drew
    /// (under the hill rules, always a tie).
    Limit,
}

impl EndReason {
    /// `"flag"`, `"off-tape"`, `"both-lost"` or `"limit"`, for records.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Flag => "flag",
            EndReason::OffTape => "off-tape",
            EndReason::BothLost => "both-lost",
            EndReason::Limit => "limit",
        }
    }
}

/// The result of one match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MatchResult {
    pub outcome: Outcome,
    /// Cycles executed: `c` at the deciding check, as the original reports it.
    pub cycles: u64,
    pub end: EndReason,
}

/// The arena as it stands after a cycle (or before the first one).
#[derive(Debug, Clone, Copy)]
pub struct CycleView<'a> {
    /// Cycles executed so far (0 for the initial state).
    pub cycle: u64,
    /// Raw cell values; see [`crate::cell`] for how they display.
    pub tape: &'a [u8],
    /// Left's pointer; −1 or the tape length once it has left the tape.
    pub left_ptr: isize,
    /// Right's pointer, as a tape index (it counts down toward left's flag).
    pub right_ptr: isize,
    /// Token index of the instruction each bot executed in this cycle
    /// (`[left, right]`); the token count means "past the end". `None` for
    /// the initial state.
    pub executed: Option<[usize; 2]>,
}

/// Receives every state of a match; used for `play --trace` and tests.
pub trait Observer {
    /// False only for [`NoObserver`], so the untraced engine skips the
    /// bookkeeping views need.
    const ENABLED: bool = true;
    fn observe(&mut self, view: &CycleView<'_>);
}

/// The observer of an untraced match.
pub struct NoObserver;

impl Observer for NoObserver {
    const ENABLED: bool = false;
    #[inline(always)]
    fn observe(&mut self, _view: &CycleView<'_>) {}
}

impl<F: FnMut(&CycleView<'_>)> Observer for F {
    fn observe(&mut self, view: &CycleView<'_>) {
        self(view)
    }
}

/// Plays one match. `tape_len` must lie in 10..=30; `cycles` is the limit T
/// (0 ends the match at the first check, as a draw).
///
/// # Panics
/// If `tape_len` is outside 10..=30 (the caller validates options first).
pub fn run_match(left: &Program, right: &Program, tape_len: usize, cycles: u64) -> MatchResult {
    run_match_observed(left, right, tape_len, cycles, &mut NoObserver)
}

/// [`run_match`] with a polarity: the whole [`MatchSpec`].
///
/// # Panics
/// As [`run_match`].
pub fn run_match_spec(left: &Program, right: &Program, spec: MatchSpec) -> MatchResult {
    run_match_spec_observed(left, right, spec, &mut NoObserver)
}

thread_local! {
    /// Counter storage reused by [`run_match`] and [`run_match_observed`]
    /// on this thread, so a match allocates nothing once a thread has seen
    /// programs of its size.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// A group's counter during a match, next to the count it returns to.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Counter {
    /// Passes left; equal to `count` when the counter is absent.
    value: u64,
    count: u64,
}

/// Saved repeat registers per bot under the hill rules. Groups nest at
/// most 4096 deep, and a stack holds at most one entry per open group.
const HILL_STACK: usize = 8192;

/// Reusable per-match counter storage, so a worker playing many matches
/// allocates only when a bigger program comes along.
#[derive(Debug, Default)]
pub struct Scratch {
    left: Vec<Counter>,
    right: Vec<Counter>,
    left_stack: Vec<u32>,
    right_stack: Vec<u32>,
}

/// [`run_match`] with an observer called with the initial state and after every cycle.
pub fn run_match_observed<O: Observer>(
    left: &Program,
    right: &Program,
    tape_len: usize,
    cycles: u64,
    observer: &mut O,
) -> MatchResult {
    let spec = MatchSpec {
        tape_len,
        cycles,
        polarity: Polarity::Normal,
    };
    run_match_spec_observed(left, right, spec, observer)
}

/// [`run_match_spec`] with an observer.
pub fn run_match_spec_observed<O: Observer>(
    left: &Program,
    right: &Program,
    spec: MatchSpec,
    observer: &mut O,
) -> MatchResult {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => run_match_spec_with(left, right, spec, &mut scratch, observer),
        // An observer that itself plays a match: give the inner one its own.
        Err(_) => run_match_spec_with(left, right, spec, &mut Scratch::default(), observer),
    })
}

/// Sizes `counters` for `program` and makes every counter absent: "absent"
/// is stored as the group's count (see `fetch`). A program in a size class
/// gets as many counters as ops, so the engine can view both as arrays of
/// the same fixed size; a larger one gets exactly one per group.
fn reset_counters<'s>(counters: &'s mut Vec<Counter>, program: &Program) -> &'s mut [Counter] {
    let len = if SIZE_CLASSES.contains(&program.ops.len()) {
        program.ops.len()
    } else {
        program.counts.len()
    };
    if counters.len() < len {
        counters.resize(len, Counter::default());
    }
    for (counter, &count) in counters.iter_mut().zip(&program.counts) {
        *counter = Counter {
            value: count,
            count,
        };
    }
    &mut counters[..len]
}

/// [`run_match_observed`] reusing `scratch` for the group counters.
pub fn run_match_with<O: Observer>(
    left: &Program,
    right: &Program,
    tape_len: usize,
    limit: u64,
    scratch: &mut Scratch,
    observer: &mut O,
) -> MatchResult {
    let spec = MatchSpec {
        tape_len,
        cycles: limit,
        polarity: Polarity::Normal,
    };
    run_match_spec_with(left, right, spec, scratch, observer)
}

/// [`run_match_spec_observed`] reusing `scratch`. The match follows the
/// left program's rules (both programs must have been read under the same).
pub fn run_match_spec_with<O: Observer>(
    left: &Program,
    right: &Program,
    spec: MatchSpec,
    scratch: &mut Scratch,
    observer: &mut O,
) -> MatchResult {
    let MatchSpec {
        tape_len,
        cycles: limit,
        polarity,
    } = spec;
    assert!(
        (MIN_TAPE_LEN..=MAX_TAPE_LEN).contains(&tape_len),
        "tape length {tape_len} outside {MIN_TAPE_LEN}..={MAX_TAPE_LEN}"
    );
    let hill = left.rules == Rules::Hill;
    let setup = Setup {
        tape_len,
        limit,
        left_start: left.start,
        right_start: right.start,
        tie_at_limit: hill,
        inverted: polarity == Polarity::Inverted,
    };
    let (l_ops, r_ops) = (&left.ops[..], &right.ops[..]);

    // Pick the fixed-size variant for both op arrays' size classes; a
    // program beyond the largest class makes the match use plain slices.
    // The literals below are the size classes, which this pins down.
    const _: () = assert!(SIZE_CLASSES[0] == 256 && SIZE_CLASSES[1] == 4096);
    const _: () = assert!(SIZE_CLASSES[2] == 65536 && SIZE_CLASSES.len() == 3);

    if hill {
        let l_stack = hill_stack(&mut scratch.left_stack);
        let r_stack = hill_stack(&mut scratch.right_stack);
        macro_rules! dispatch_hill {
            ($( ($nl:literal, $nr:literal) ),*) => {
                match (l_ops.len(), r_ops.len()) {
                    $(
                        ($nl, $nr) => match (<&[Op; $nl]>::try_from(l_ops), <&[Op; $nr]>::try_from(r_ops)) {
                            (Ok(lo), Ok(ro)) => pair(
                                &mut HillBot::new(lo, l_stack),
                                &mut HillBot::new(ro, r_stack),
                                &setup,
                                observer,
                            ),
                            _ => unreachable!("size class lengths"),
                        },
                    )*
                    _ => pair(
                        &mut HillBot::new(l_ops, l_stack),
                        &mut HillBot::new(r_ops, r_stack),
                        &setup,
                        observer,
                    ),
                }
            };
        }
        return dispatch_hill!((256, 256), (256, 4096), (4096, 256), (4096, 4096));
    }

    let l_ctr = reset_counters(&mut scratch.left, left);
    let r_ctr = reset_counters(&mut scratch.right, right);
    macro_rules! dispatch {
        ($( ($nl:literal, $nr:literal) ),*) => {
            match (l_ops.len(), r_ops.len()) {
                $(
                    ($nl, $nr) => match (
                        <&[Op; $nl]>::try_from(l_ops),
                        <&mut [Counter; $nl]>::try_from(l_ctr),
                        <&[Op; $nr]>::try_from(r_ops),
                        <&mut [Counter; $nr]>::try_from(r_ctr),
                    ) {
                        (Ok(lo), Ok(lc), Ok(ro), Ok(rc)) => pair(
                            &mut Classic { ops: lo, counters: lc },
                            &mut Classic { ops: ro, counters: rc },
                            &setup,
                            observer,
                        ),
                        // Unreachable: the lengths were just matched.
                        _ => unreachable!("size class lengths"),
                    },
                )*
                _ => pair(
                    &mut Classic { ops: l_ops, counters: l_ctr },
                    &mut Classic { ops: r_ops, counters: r_ctr },
                    &setup,
                    observer,
                ),
            }
        };
    }
    dispatch!(
        (256, 256),
        (256, 4096),
        (256, 65536),
        (4096, 256),
        (4096, 4096),
        (4096, 65536),
        (65536, 256),
        (65536, 4096),
        (65536, 65536)
    )
}

/// A bot's hill register stack, sized once per scratch.
fn hill_stack(stack: &mut Vec<u32>) -> &mut [u32; HILL_STACK] {
    if stack.len() != HILL_STACK {
        *stack = vec![0; HILL_STACK];
    }
    match <&mut [u32; HILL_STACK]>::try_from(&mut stack[..]) {
        Ok(array) => array,
        // Unreachable: the length was just set.
        Err(_) => unreachable!("hill stack length"),
    }
}

/// Plays the match in the right polarity's variant.
#[inline(always)]
fn pair<L: Machine, R: Machine, O: Observer>(
    left: &mut L,
    right: &mut R,
    setup: &Setup,
    observer: &mut O,
) -> MatchResult {
    if setup.inverted {
        play::<L, R, O, true>(left, right, setup, observer)
    } else {
        play::<L, R, O, false>(left, right, setup, observer)
    }
}

/// One bot's way of fetching its next instruction.
trait Machine {
    /// Runs the zero-cost steps from `*pc` and returns the cycle's instruction.
    fn fetch(&mut self, pc: &mut u32) -> Op;
}

/// A 2014 bot: per-group counters (spec §2).
struct Classic<'a, C: ?Sized, K: ?Sized> {
    ops: &'a C,
    counters: &'a mut K,
}

impl<C: Code + ?Sized, K: Counters + ?Sized> Machine for Classic<'_, C, K> {
    #[inline(always)]
    fn fetch(&mut self, pc: &mut u32) -> Op {
        fetch(self.ops, self.counters, pc)
    }
}

/// A hill bot: one repeat register and a stack of saved ones.
struct HillBot<'a, C: ?Sized> {
    ops: &'a C,
    rep: u32,
    sp: usize,
    stack: &'a mut [u32; HILL_STACK],
}

impl<'a, C: ?Sized> HillBot<'a, C> {
    fn new(ops: &'a C, stack: &'a mut [u32; HILL_STACK]) -> Self {
        HillBot {
            ops,
            rep: 0,
            sp: 0,
            stack,
        }
    }

    #[inline(always)]
    fn push(&mut self) {
        self.stack[self.sp & (HILL_STACK - 1)] = self.rep;
        self.sp = self.sp.wrapping_add(1);
    }

    #[inline(always)]
    fn pop(&mut self) {
        self.sp = self.sp.wrapping_sub(1);
        self.rep = self.stack[self.sp & (HILL_STACK - 1)];
    }
}

impl<C: Code + ?Sized> Machine for HillBot<'_, C> {
    #[inline(always)]
    fn fetch(&mut self, pc: &mut u32) -> Op {
        loop {
            let op = self.ops.op(*pc);
            match op.kind {
                OpKind::Instr => return op,
                OpKind::Push => {
                    self.push();
                    self.rep = op.slot;
                    *pc = op.on_nonzero;
                }
                OpKind::CountDown => {
                    self.rep = self.rep.wrapping_sub(1);
                    if self.rep != 0 {
                        *pc = op.on_zero;
                    } else {
                        self.pop();
                        *pc = op.on_nonzero;
                    }
                }
                OpKind::Pop => {
                    self.pop();
                    *pc = op.on_nonzero;
                }
                OpKind::PushOne => {
                    self.push();
                    self.rep = 1;
                    *pc = op.on_nonzero;
                }
                OpKind::CountUp => {
                    self.rep = self.rep.wrapping_add(1);
                    if self.rep <= op.slot {
                        *pc = op.on_zero;
                    } else {
                        self.pop();
                        *pc = op.on_nonzero;
                    }
                }
                // Not produced for hill programs.
                OpKind::Group => *pc = op.on_nonzero,
            }
        }
    }
}

/// Read access to one bot's ops by op index.
trait Code {
    fn op(&self, pc: u32) -> Op;
}

/// One bot's group counters by slot.
trait Counters {
    fn counter(&mut self, slot: u32) -> &mut Counter;
}

impl<const N: usize> Code for [Op; N] {
    #[inline(always)]
    fn op(&self, pc: u32) -> Op {
        const { assert!(N.is_power_of_two()) };
        self[pc as usize & (N - 1)]
    }
}

impl<const N: usize> Counters for [Counter; N] {
    #[inline(always)]
    fn counter(&mut self, slot: u32) -> &mut Counter {
        const { assert!(N.is_power_of_two()) };
        &mut self[slot as usize & (N - 1)]
    }
}

impl Code for [Op] {
    #[inline(always)]
    fn op(&self, pc: u32) -> Op {
        self[pc as usize]
    }
}

impl Counters for [Counter] {
    #[inline(always)]
    fn counter(&mut self, slot: u32) -> &mut Counter {
        &mut self[slot as usize]
    }
}

/// What a match needs besides the two bots' code and counters.
struct Setup {
    tape_len: usize,
    limit: u64,
    left_start: u32,
    right_start: u32,
    /// The hill's limit: a tie, whatever the flags.
    tie_at_limit: bool,
    /// The right program's `+` and `-` swapped.
    inverted: bool,
}

/// The match loop proper.
#[inline(always)]
fn play<L, R, O, const INVERTED: bool>(
    l_bot: &mut L,
    r_bot: &mut R,
    setup: &Setup,
    observer: &mut O,
) -> MatchResult
where
    L: Machine,
    R: Machine,
    O: Observer,
{
    let Setup {
        tape_len,
        limit,
        left_start,
        right_start,
        tie_at_limit,
        inverted: _,
    } = *setup;
    let last = tape_len - 1;
    let mut tape = [0u8; TAPE_MASK + 1];
    tape[0] = 128;
    tape[last & TAPE_MASK] = 128;
    // Pointers are usize with wrapping moves, so −1 becomes usize::MAX and
    // a single `> last` test catches both ends.
    let mut lp: usize = 0;
    let mut rp: usize = last;
    let mut lpc = left_start;
    let mut rpc = right_start;
    // Whether F0 / F1 were 0 at the previous check.
    let mut f0_was_zero = false;
    let mut f1_was_zero = false;
    let mut c: u64 = 0;

    if O::ENABLED {
        observer.observe(&CycleView {
            cycle: 0,
            tape: &tape[..tape_len],
            left_ptr: 0,
            right_ptr: last as isize,
            executed: None,
        });
    }

    // One cycle (spec §3): fetch, test on start-of-cycle cells, then apply
    // both cell changes (they add up), then move.
    macro_rules! cycle {
        () => {{
            let lop = l_bot.fetch(&mut lpc);
            let rop = r_bot.fetch(&mut rpc);
            let li = lp & TAPE_MASK;
            let ri = rp & TAPE_MASK;
            lpc = if tape[li] == 0 {
                lop.on_zero
            } else {
                lop.on_nonzero
            };
            rpc = if tape[ri] == 0 {
                rop.on_zero
            } else {
                rop.on_nonzero
            };
            tape[li] = tape[li].wrapping_add(lop.dcell);
            tape[ri] = if INVERTED {
                tape[ri].wrapping_sub(rop.dcell)
            } else {
                tape[ri].wrapping_add(rop.dcell)
            };
            lp = lp.wrapping_add(lop.dptr as isize as usize);
            rp = rp.wrapping_sub(rop.dptr as isize as usize);
            c += 1;
            if O::ENABLED {
                observer.observe(&CycleView {
                    cycle: c,
                    tape: &tape[..tape_len],
                    left_ptr: lp as isize,
                    right_ptr: rp as isize,
                    executed: Some([lop.slot as usize, rop.slot as usize]),
                });
            }
        }};
    }

    loop {
        // The full check (spec §4).
        let f0 = tape[0];
        let f1 = tape[last & TAPE_MASK];
        let left_flag_dead = f0_was_zero & (f0 == 0);
        let right_flag_dead = f1_was_zero & (f1 == 0);
        let left_off = lp > last;
        let right_off = rp > last;
        if right_flag_dead | right_off | left_flag_dead | left_off | (c >= limit) {
            return decide(
                c,
                c >= limit,
                tie_at_limit,
                (f0, f1),
                (left_flag_dead, left_off),
                (right_flag_dead, right_off),
            );
        }
        f0_was_zero = f0 == 0;
        f1_was_zero = f1 == 0;
        cycle!();

        // While both flags are non-zero, both pointers on the tape and the
        // limit ahead, a check can decide nothing and leaves no flag memory,
        // so the common case is one cheap test per cycle. The first check
        // that fails it goes back to the full check, with no flag memory
        // (the check before it saw both flags non-zero).
        if !(f0_was_zero | f1_was_zero) {
            while (tape[0] != 0)
                & (tape[last & TAPE_MASK] != 0)
                & (lp.max(rp) <= last)
                & (c < limit)
            {
                cycle!();
            }
            f0_was_zero = false;
            f1_was_zero = false;
        }
    }
}

/// Runs the fetch of spec §2 from `*pc` and returns the cycle's instruction.
///
/// A counter holding the group's count N means "absent": a present counter
/// is set to N and decremented in the same step, so it is always below N,
/// and the spec's "absent → N → step" is then the same as stepping from N.
/// Leaving a group (counter 0) restores N, i.e. makes it absent again.
#[inline(always)]
fn fetch<C: Code + ?Sized, K: Counters + ?Sized>(ops: &C, counters: &mut K, pc: &mut u32) -> Op {
    loop {
        let op = ops.op(*pc);
        if op.kind == OpKind::Instr {
            return op;
        }
        let counter = counters.counter(op.slot);
        if counter.value > 0 {
            counter.value -= 1;
            *pc = op.on_zero;
        } else {
            counter.value = counter.count;
            *pc = op.on_nonzero;
        }
    }
}

/// The decision list of spec §4, step 7. `left` and `right` are each bot's
/// (flag dead twice, pointer off the tape): either makes that bot lose.
#[cold]
fn decide(
    c: u64,
    timeout: bool,
    tie_at_limit: bool,
    (f0, f1): (u8, u8),
    (left_flag_dead, left_off): (bool, bool),
    (right_flag_dead, right_off): (bool, bool),
) -> MatchResult {
    let left_wins = right_flag_dead || right_off;
    let right_wins = left_flag_dead || left_off;
    let (a0, a1) = (cell::magnitude(f0), cell::magnitude(f1));
    let done = |outcome, end| MatchResult {
        outcome,
        cycles: c,
        end,
    };
    let win_reason = |flag_dead: bool| {
        if flag_dead {
            EndReason::Flag
        } else {
            EndReason::OffTape
        }
    };
    if left_wins && right_wins {
        done(Outcome::Draw, EndReason::BothLost)
    } else if tie_at_limit {
        // The hill: a loss on the last cycle still counts; then a tie.
        if left_wins {
            done(Outcome::LeftWins, win_reason(right_flag_dead))
        } else if right_wins {
            done(Outcome::RightWins, win_reason(left_flag_dead))
        } else {
            done(Outcome::Draw, EndReason::Limit)
        }
    } else if timeout && a0 == a1 {
        done(Outcome::Draw, EndReason::Limit)
    } else if left_wins {
        done(Outcome::LeftWins, win_reason(right_flag_dead))
    } else if timeout && a0 > a1 {
        done(Outcome::LeftWins, EndReason::Limit)
    } else if right_wins {
        done(Outcome::RightWins, win_reason(left_flag_dead))
    } else {
        // Only reachable with `timeout && a1 > a0`.
        done(Outcome::RightWins, EndReason::Limit)
    }
}
