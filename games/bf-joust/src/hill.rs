//! The hill rules' program format (`rules: hill`), as the community's
//! hills run it with gearlance.
//!
//! What differs from the 2014 format (spec §1, §2):
//! - **Commands.** `+ - < > . [ ]`, `( )`, `{ }`, and a repeat count after
//!   `)`: `*N`, `%N`, `*-N` or `%-N`. Everything else is a comment,
//!   including `,` and any `*`, `%` or digit that does not follow a `)`.
//! - **Counts.** After `)`, the next command character (comments skipped)
//!   must be `*` or `%`, else the count is 0. After it, comments are skipped
//!   again, an optional `-` is taken, and the digits that follow *directly*
//!   form the count (`*1 0` is 1). A count above 100,000 is 100,000; a
//!   negative one (`*-1`) is 100,000; `*-` with no digit is 0.
//! - **`(a{b}c)%N`** runs `a` N times, `b` once, `c` N times. A `{` belongs
//!   to the innermost `(` that has none yet at its level; a second `{` opened
//!   inside it belongs to the next `(` out, which gives the nested forms.
//! - **Groups are a stack.** Each bot has one repeat register and a stack of
//!   saved registers: a group's `(` saves the register and loads N, its `)`
//!   counts down and restores on leaving; `{` counts the `a` part down and
//!   restores, `}` saves again and counts the `c` part up from 1.
//! - **Empty parts.** A group with no instruction in its body counts 0
//!   times; `({b}c)%N` is `b(c)*N` and `(a{b})%N` is `(a)*Nb`. A group with
//!   count 0 is removed, together with its body (for `(a{b}c)%0`, only
//!   `b` is left).
//! - **Brackets** match after that removal, and a `[ ]` pair must not
//!   cross a `(`, `{`, `}` or `)` unless it encloses the matching partner
//!   (`(a[{b}]c)%N` is allowed: the pair encloses a `{…}`).
//! - **Limits.** At most 4096 nested `(` and 4096 nested `[`.
//!
//! This module implements those rules from their description; the test
//! data under `tests/data/hill/` pins them to gearlance's results.

use crate::parse::{ParseError, ParseErrorKind, MAX_PROGRAM_BYTES};

/// The hill's cycle limit, and its largest repeat count.
pub const HILL_CYCLES: u64 = 100_000;
/// The hill's nesting limit for `(` and for `[`.
pub const MAX_NESTING: usize = 4096;

/// What an item of the hill program is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Inc,
    Dec,
    Left,
    Right,
    Wait,
    /// `[`
    Open,
    /// `]`
    Close,
    /// `(` of a plain group.
    Rep,
    /// `)` of a plain group.
    RepEnd,
    /// `(` of a group with `{…}`.
    IRep,
    /// `{`
    Inner,
    /// `}`
    InnerEnd,
    /// `)` of a group with `{…}`.
    IRepEnd,
}

/// One command of the program, with its links.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item {
    pub kind: Kind,
    /// The partner: `(`↔`)` (plain), `(`↔`{`, `}`↔`)`, `[`↔`]`.
    pub partner: usize,
    /// The other links of a `({})` group: `(`↔`)`, `{`↔`}`.
    pub inner: usize,
    /// The repeat count, on every part of a group.
    pub count: u32,
    /// Byte offset in the file (for error positions).
    pub offset: usize,
    /// Index in the kept command list (for tracing).
    pub token: usize,
}

const NONE: usize = usize::MAX;

/// A parsed hill program: its items (no group with count 0), ready to
/// compile, and the command characters kept (for display and hashing).
pub(crate) struct HillParsed {
    pub items: Vec<Item>,
    pub tokens: Vec<u8>,
}

fn is_command(b: u8) -> bool {
    matches!(
        b,
        b'+' | b'-'
            | b'<'
            | b'>'
            | b'.'
            | b','
            | b'['
            | b']'
            | b'('
            | b')'
            | b'{'
            | b'}'
            | b'*'
            | b'%'
            | b'0'..=b'9'
    )
}

/// Reads the source into items (no validation yet).
fn read(source: &[u8]) -> (Vec<Item>, Vec<u8>) {
    let mut items = Vec::new();
    let mut tokens = Vec::new();
    let next_command = |mut i: usize| {
        while i < source.len() && !is_command(source[i]) {
            i += 1;
        }
        i
    };
    let mut i = 0;
    loop {
        i = next_command(i);
        let Some(&b) = source.get(i) else { break };
        let offset = i;
        i += 1;
        let kind = match b {
            b'+' => Kind::Inc,
            b'-' => Kind::Dec,
            b'<' => Kind::Left,
            b'>' => Kind::Right,
            b'.' => Kind::Wait,
            b'[' => Kind::Open,
            b']' => Kind::Close,
            b'(' => Kind::Rep,
            b'{' => Kind::Inner,
            b'}' => Kind::InnerEnd,
            b')' => Kind::RepEnd,
            // `,`, and `*`, `%` or digits not after a `)`.
            _ => continue,
        };
        let mut count = 0;
        if kind == Kind::RepEnd {
            let (n, after) = repeat_count(source, i, next_command);
            count = n;
            i = after;
        }
        tokens.push(b);
        items.push(Item {
            kind,
            partner: NONE,
            inner: NONE,
            count,
            offset,
            token: tokens.len() - 1,
        });
    }
    (items, tokens)
}

/// The count after a `)` that ends just before `i`, and where reading goes on.
fn repeat_count(source: &[u8], i: usize, next_command: impl Fn(usize) -> usize) -> (u32, usize) {
    let star = next_command(i);
    if !matches!(source.get(star), Some(b'*' | b'%')) {
        // Not a count: the command is read again as itself.
        return (0, i);
    }
    let mut j = next_command(star + 1);
    let negative = source.get(j) == Some(&b'-');
    if negative {
        // The `-` is taken; the digits must follow it directly.
        j += 1;
    }
    let mut n: u64 = 0;
    while let Some(d) = source.get(j).filter(|d| d.is_ascii_digit()) {
        n = (n * 10 + u64::from(d - b'0')).min(HILL_CYCLES + 1);
        j += 1;
    }
    let n = n.min(HILL_CYCLES) as u32;
    // A negative count means "as many as there are cycles".
    let count = if negative && n > 0 {
        HILL_CYCLES as u32
    } else {
        n
    };
    (count, j)
}

fn err(kind: ParseErrorKind, source: &[u8], offset: usize) -> ParseError {
    ParseError {
        kind,
        position: Some(crate::parse::position_of(source, offset)),
    }
}

/// Pairs the groups' `(`, `{`, `}` and `)`.
fn match_groups(items: &mut [Item], source: &[u8]) -> Result<(), ParseError> {
    // Open `(`s, each with the `{` depth of its enclosing level saved.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut braces: Vec<usize> = Vec::new();
    let mut depth_in = 0usize;
    for at in 0..items.len() {
        let offset = items[at].offset;
        match items[at].kind {
            Kind::Rep => {
                if stack.len() == MAX_NESTING {
                    return Err(err(ParseErrorKind::HillParenTooDeep, source, offset));
                }
                stack.push((at, depth_in));
                depth_in = 0;
            }
            Kind::Inner => {
                depth_in += 1;
                if depth_in > stack.len() {
                    return Err(err(ParseErrorKind::HillBraceWithoutGroup, source, offset));
                }
                let group = stack[stack.len() - depth_in].0;
                if items[group].partner != NONE {
                    return Err(err(ParseErrorKind::HillSecondBrace, source, offset));
                }
                braces.push(at);
                items[at].partner = group;
                items[group].kind = Kind::IRep;
                items[group].partner = at;
            }
            Kind::InnerEnd => {
                if depth_in == 0 {
                    return Err(err(ParseErrorKind::HillUnmatchedBrace, source, offset));
                }
                depth_in -= 1;
                let Some(open) = braces.pop() else {
                    return Err(err(ParseErrorKind::HillUnmatchedBrace, source, offset));
                };
                items[at].inner = open;
                items[open].inner = at;
            }
            Kind::RepEnd => {
                let Some(&(open, saved)) = stack.last() else {
                    return Err(err(ParseErrorKind::UnmatchedParen, source, offset));
                };
                if depth_in > 0 {
                    let brace = braces.last().copied().unwrap_or(at);
                    return Err(err(
                        ParseErrorKind::HillUnclosedBrace,
                        source,
                        items[brace].offset,
                    ));
                }
                stack.pop();
                let count = items[at].count;
                if items[open].kind == Kind::IRep {
                    let brace = items[open].partner;
                    let close_brace = items[brace].inner;
                    items[at].kind = Kind::IRepEnd;
                    items[at].inner = open;
                    items[at].partner = close_brace;
                    items[open].inner = at;
                    items[open].count = count;
                    items[brace].count = count;
                    items[close_brace].partner = at;
                    items[close_brace].count = count;
                } else {
                    items[at].partner = open;
                    items[open].partner = at;
                    items[open].count = count;
                }
                depth_in = saved;
            }
            _ => {}
        }
    }
    match stack.last() {
        Some(&(open, _)) => Err(err(
            ParseErrorKind::UnclosedParen,
            source,
            items[open].offset,
        )),
        None => Ok(()),
    }
}

fn is_instruction(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Inc | Kind::Dec | Kind::Left | Kind::Right | Kind::Wait | Kind::Open | Kind::Close
    )
}

/// Gives empty parts count 0 and rewrites the `({})` forms with an empty
/// part, then removes every group with count 0.
fn clean_groups(items: Vec<Item>) -> Vec<Item> {
    let mut items = items;
    // The program's end counts as an instruction here.
    let mut last_real: Option<usize> = None;
    let empty_since = |last_real: Option<usize>, from: usize| last_real.is_none_or(|r| r < from);
    for at in 0..items.len() {
        match items[at].kind {
            k if is_instruction(k) => last_real = Some(at),
            Kind::RepEnd => {
                let open = items[at].partner;
                if empty_since(last_real, open) {
                    items[at].count = 0;
                    items[open].count = 0;
                }
            }
            Kind::Inner => {
                let open = items[at].partner;
                if empty_since(last_real, open) {
                    // `({b}c)%N`: `()*0 b (c)*N`.
                    let (brace, close_brace, close) = (at, items[at].inner, items[open].inner);
                    plain(&mut items, open, brace, Some(0));
                    plain(&mut items, close_brace, close, None);
                }
            }
            Kind::IRepEnd => {
                let close_brace = items[at].partner;
                if empty_since(last_real, close_brace) {
                    // `(a{b})%N`: `(a)*N b ()*0`.
                    let (open, brace) = (items[at].inner, items[close_brace].inner);
                    plain(&mut items, open, brace, None);
                    plain(&mut items, close_brace, at, Some(0));
                }
            }
            _ => {}
        }
    }
    // Remove count-0 groups with everything inside them.
    let items = remove(&items, |_, item| {
        let starts_group = matches!(item.kind, Kind::Rep | Kind::IRep | Kind::InnerEnd);
        (starts_group && item.count == 0).then_some(item.partner)
    });
    // A group left with no instruction anywhere inside it does nothing at
    // any count: removing it changes no cycle, and keeps a fetch short
    // whatever the counts (`((()*0+)*99999)*99999` would otherwise loop
    // 10^10 times between two instructions). A group is removed only if
    // every `{` or `}` inside it belongs to a group inside it, so no group
    // loses a part; the outermost such group goes with all it holds.
    struct Frame {
        lo: usize,
        hi: usize,
        instructions: bool,
    }
    fn note(stack: &mut [Frame], lo: usize, hi: usize, instruction: bool) {
        if let Some(top) = stack.last_mut() {
            top.lo = top.lo.min(lo);
            top.hi = top.hi.max(hi);
            top.instructions |= instruction;
        }
    }
    let mut removable = vec![NONE; items.len()];
    let mut stack: Vec<Frame> = Vec::new();
    for (at, item) in items.iter().enumerate() {
        match item.kind {
            Kind::Rep | Kind::IRep => stack.push(Frame {
                lo: usize::MAX,
                hi: 0,
                instructions: false,
            }),
            Kind::Inner | Kind::InnerEnd => {
                // The extent of the brace's group: its `(` and `)`.
                let (open, close) = if item.kind == Kind::Inner {
                    let open = item.partner;
                    (open, items.get(open).map_or(NONE, |o| o.inner))
                } else {
                    let close = item.partner;
                    (items.get(close).map_or(0, |c| c.inner), close)
                };
                if open == NONE || close == NONE {
                    note(&mut stack, 0, usize::MAX, true);
                } else {
                    note(&mut stack, open, close, false);
                }
            }
            Kind::RepEnd | Kind::IRepEnd => {
                let Some(f) = stack.pop() else { continue };
                let open = if item.kind == Kind::RepEnd {
                    item.partner
                } else {
                    item.inner
                };
                if open != NONE && !f.instructions && f.lo >= open && f.hi <= at {
                    removable[open] = at;
                }
                note(&mut stack, f.lo.min(open), f.hi.max(at), f.instructions);
            }
            _ => note(&mut stack, usize::MAX, 0, true),
        }
    }
    remove(&items, |at, _| {
        Some(removable[at]).filter(|&close| close != NONE)
    })
}

/// The items without the spans `skip` names (from an item to the index it
/// returns, inclusive), with every link renumbered.
fn remove(items: &[Item], skip: impl Fn(usize, &Item) -> Option<usize>) -> Vec<Item> {
    let mut kept: Vec<Item> = Vec::with_capacity(items.len());
    let mut new_index = vec![NONE; items.len()];
    let mut at = 0;
    while at < items.len() {
        let item = items[at];
        if let Some(end) = skip(at, &item).filter(|&end| end != NONE && end >= at) {
            at = end + 1;
            continue;
        }
        new_index[at] = kept.len();
        kept.push(item);
        at += 1;
    }
    let renumber = |i: usize| if i == NONE { NONE } else { new_index[i] };
    for item in &mut kept {
        item.partner = renumber(item.partner);
        item.inner = renumber(item.inner);
    }
    kept
}

/// Makes `open`..`close` a plain group (`(` and `)`), with `count` if given.
fn plain(items: &mut [Item], open: usize, close: usize, count: Option<u32>) {
    items[open].kind = Kind::Rep;
    items[close].kind = Kind::RepEnd;
    items[open].partner = close;
    items[close].partner = open;
    items[open].inner = NONE;
    items[close].inner = NONE;
    if let Some(n) = count {
        items[open].count = n;
        items[close].count = n;
    }
}

/// Pairs the brackets; a pair may not cross a group's parts.
fn match_brackets(items: &mut [Item], source: &[u8]) -> Result<(), ParseError> {
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut depth_in = 0usize;
    for at in 0..items.len() {
        let offset = items[at].offset;
        match items[at].kind {
            Kind::Open => {
                if stack.len() == MAX_NESTING {
                    return Err(err(ParseErrorKind::HillBracketTooDeep, source, offset));
                }
                stack.push((at, depth_in));
                depth_in = 0;
            }
            Kind::Rep | Kind::IRep | Kind::Inner => depth_in += 1,
            Kind::InnerEnd | Kind::IRepEnd | Kind::RepEnd => {
                if depth_in == 0 {
                    return Err(err(ParseErrorKind::HillBracketCrossesOut, source, offset));
                }
                depth_in -= 1;
            }
            Kind::Close => {
                let Some(&(open, saved)) = stack.last() else {
                    return Err(err(ParseErrorKind::UnmatchedBracket, source, offset));
                };
                if depth_in > 0 {
                    return Err(err(ParseErrorKind::HillBracketCrossesIn, source, offset));
                }
                stack.pop();
                items[at].partner = open;
                items[open].partner = at;
                depth_in = saved;
            }
            _ => {}
        }
    }
    match stack.last() {
        Some(&(open, _)) => Err(err(
            ParseErrorKind::UnclosedBracket,
            source,
            items[open].offset,
        )),
        None => Ok(()),
    }
}

/// Reads and validates a program under the hill rules, its simple groups
/// unrolled.
pub(crate) fn parse(source: &[u8]) -> Result<HillParsed, ParseError> {
    let parsed = parse_linked(source)?;
    Ok(match unroll(&parsed.items, source) {
        Some(items) => HillParsed {
            items,
            tokens: parsed.tokens,
        },
        None => parsed,
    })
}

/// Reads, validates and links a program under the hill rules.
fn parse_linked(source: &[u8]) -> Result<HillParsed, ParseError> {
    if source.len() > MAX_PROGRAM_BYTES {
        return Err(ParseError {
            kind: ParseErrorKind::TooLarge,
            position: None,
        });
    }
    let (mut items, tokens) = read(source);
    match_groups(&mut items, source)?;
    let mut items = clean_groups(items);
    match_brackets(&mut items, source)?;
    Ok(HillParsed { items, tokens })
}

/// How many items unrolling may add to one program.
const GROWTH_BUDGET: u64 = 3_000;

/// Writes out the plain groups that cannot tell they were unrolled, within
/// a growth budget, innermost first (they run most): a plain group with no
/// `{` or `}` of any group inside. Nothing outside can jump into such a
/// group (a bracket pair cannot cross its `(` or `)`), and its `(` saves
/// the register that its `)` restores, so N copies of its body run the
/// same instructions, each still one cycle; only the zero-cost register
/// steps are gone. `None` when nothing is unrolled.
fn unroll(items: &[Item], source: &[u8]) -> Option<Vec<Item>> {
    let n = items.len();
    let mut braces_before = Vec::with_capacity(n + 1);
    let mut b = 0usize;
    for item in items {
        braces_before.push(b);
        b += usize::from(matches!(item.kind, Kind::Inner | Kind::InnerEnd));
    }
    // Items each frame's body will take once its own decisions are made.
    let mut unrolled = vec![false; n];
    let mut budget = GROWTH_BUDGET;
    let mut sizes: Vec<u64> = vec![0];
    for (at, item) in items.iter().enumerate() {
        match item.kind {
            Kind::Rep | Kind::IRep => sizes.push(0),
            Kind::RepEnd | Kind::IRepEnd => {
                let body = sizes.pop().unwrap_or(0);
                let open = if item.kind == Kind::RepEnd {
                    item.partner
                } else {
                    item.inner
                };
                let as_text = body + 2;
                let plain = item.kind == Kind::RepEnd
                    && open < at
                    && braces_before[at] == braces_before[open];
                let copies = u64::from(item.count).checked_mul(body);
                let size = match copies {
                    Some(copies) if plain && copies.saturating_sub(as_text) <= budget => {
                        budget -= copies.saturating_sub(as_text);
                        unrolled[open] = true;
                        copies
                    }
                    _ => as_text,
                };
                if let Some(parent) = sizes.last_mut() {
                    *parent += size;
                }
            }
            _ => {
                if let Some(top) = sizes.last_mut() {
                    *top += 1;
                }
            }
        }
    }
    if !unrolled.iter().any(|&u| u) {
        return None;
    }
    // Emit, then link again from the plain text.
    struct Pass {
        body: usize,
        close: usize,
        left: u32,
    }
    let mut out: Vec<Item> = Vec::with_capacity(n);
    let mut stack: Vec<Pass> = Vec::new();
    let mut at = 0;
    loop {
        if let Some(pass) = stack.last_mut() {
            if at == pass.close {
                pass.left -= 1;
                if pass.left > 0 {
                    at = pass.body;
                } else {
                    at = pass.close + 1;
                    stack.pop();
                }
                continue;
            }
        } else if at >= n {
            break;
        }
        let item = items[at];
        if unrolled[at] {
            // Unrolled groups have a count of at least 1 (count-0 groups
            // were removed).
            stack.push(Pass {
                body: at + 1,
                close: item.partner,
                left: item.count.max(1),
            });
            at += 1;
            continue;
        }
        let kind = match item.kind {
            Kind::IRep => Kind::Rep,
            Kind::IRepEnd => Kind::RepEnd,
            k => k,
        };
        out.push(Item {
            kind,
            partner: NONE,
            inner: NONE,
            ..item
        });
        at += 1;
    }
    // The text is valid (it was), so linking cannot fail.
    match_groups(&mut out, source).ok()?;
    match_brackets(&mut out, source).ok()?;
    Some(out)
}

/// A hint for a 2014-rules parse error caused by a hill form: the hill
/// form met at or after the `)` at byte `offset`, if any.
pub(crate) fn hill_form_after(source: &[u8], offset: usize) -> Option<&'static str> {
    let rest = source.get(offset + 1..)?;
    let next = rest.iter().position(|&b| !b.is_ascii_whitespace())?;
    match rest[next] {
        b'%' => Some("'%N' repeat count"),
        b'*' => {
            let after = rest[next + 1..].iter().find(|b| !b.is_ascii_whitespace());
            (after == Some(&b'-')).then_some("negative repeat count '*-N'")
        }
        _ => None,
    }
}

/// Both polarities of a pairing on every tape length, as gearlance plays
/// it: `[normal, inverted]`, each indexed by tape length − 10.
pub fn play_pairing(
    left: &crate::Program,
    right: &crate::Program,
    cycles: u64,
) -> [[crate::Outcome; crate::TAPE_LENGTH_COUNT as usize]; 2] {
    use crate::arena::{MatchSpec, Polarity};
    let mut out = [[crate::Outcome::Draw; crate::TAPE_LENGTH_COUNT as usize]; 2];
    for (row, polarity) in out.iter_mut().zip([Polarity::Normal, Polarity::Inverted]) {
        for (i, slot) in row.iter_mut().enumerate() {
            let spec = MatchSpec {
                tape_len: crate::MIN_TAPE_LEN + i,
                cycles,
                polarity,
            };
            *slot = crate::run_match_spec(left, right, spec).outcome;
        }
    }
    out
}

/// A row of results as the community reads it: `<` left wins, `>` right
/// wins, `X` a tie, one character per match.
pub fn result_string(outcomes: impl IntoIterator<Item = crate::Outcome>) -> String {
    outcomes.into_iter().map(crate::Outcome::symbol).collect()
}

/// A pairing's points from the left program's side: matches won minus
/// matches lost (gearlance's score; −42..=42 on the hill).
pub fn points(outcomes: impl IntoIterator<Item = crate::Outcome>) -> i64 {
    outcomes
        .into_iter()
        .map(|o| match o {
            crate::Outcome::LeftWins => 1,
            crate::Outcome::RightWins => -1,
            crate::Outcome::Draw => 0,
        })
        .sum()
}

/// gearlance's summary line for a pairing: the normal polarity's string,
/// the inverted one's, and the points, separated by spaces.
pub fn summary_line(rows: &[[crate::Outcome; crate::TAPE_LENGTH_COUNT as usize]; 2]) -> String {
    format!(
        "{} {} {}",
        result_string(rows[0]),
        result_string(rows[1]),
        points(rows.iter().flatten().copied())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept items as text: each group's parts with their count.
    fn shape(src: &str) -> String {
        let p = parse_linked(src.as_bytes()).unwrap_or_else(|e| panic!("{src}: {e}"));
        p.items
            .iter()
            .map(|i| match i.kind {
                Kind::Inc => "+".to_string(),
                Kind::Dec => "-".to_string(),
                Kind::Left => "<".to_string(),
                Kind::Right => ">".to_string(),
                Kind::Wait => ".".to_string(),
                Kind::Open => "[".to_string(),
                Kind::Close => "]".to_string(),
                Kind::Rep | Kind::IRep => "(".to_string(),
                Kind::Inner => "{".to_string(),
                Kind::InnerEnd => "}".to_string(),
                Kind::RepEnd | Kind::IRepEnd => format!(")*{}", i.count),
            })
            .collect()
    }

    fn error(src: &str) -> String {
        match parse(src.as_bytes()) {
            Ok(_) => panic!("{src:?} should be invalid"),
            Err(e) => e.with_file("bot.bf"),
        }
    }

    #[test]
    fn counts_follow_the_hill_reading() {
        assert_eq!(shape("(+)*3"), "(+)*3");
        assert_eq!(shape("(+)%3"), "(+)*3");
        assert_eq!(shape("(+) * 3"), "(+)*3");
        assert_eq!(shape("(+)*1 0"), "(+)*1");
        assert_eq!(shape("(+)*-1"), "(+)*100000");
        assert_eq!(shape("(+)*999999999"), "(+)*100000");
        // No count, or `*-` with no digit: the group is removed.
        assert_eq!(shape("(+)>"), ">");
        assert_eq!(shape("(+)*-+"), "+");
        assert_eq!(shape("(+)*0-"), "-");
        // Stray digits, `*`, `%` and `,` are comments.
        assert_eq!(shape("7+*%,3"), "+");
    }

    #[test]
    fn brace_forms_and_their_empty_parts() {
        assert_eq!(shape("(+{>}-)%2"), "(+{>}-)*2");
        assert_eq!(shape("({>}-)%2"), ">(-)*2");
        assert_eq!(shape("(+{>})%2"), "(+)*2>");
        assert_eq!(shape("(+{>}-)%0"), ">");
        assert_eq!(shape("(()*3{>}-)*2"), ">(-)*2");
    }

    #[test]
    fn errors_name_the_form_with_line_and_column() {
        assert_eq!(error("+\n{"), "bot.bf:2:1: '{' without a '(' of its own");
        assert_eq!(
            error("(a{b}c{d}e)*2"),
            "bot.bf:1:7: a second '{' for the same '('"
        );
        assert_eq!(
            error("(a{b{c}d}e)*2"),
            "bot.bf:1:5: '{' without a '(' of its own"
        );
        assert_eq!(error("(a}b)*2"), "bot.bf:1:3: unmatched '}'");
        assert_eq!(
            error("(a{b)*2"),
            "bot.bf:1:3: '{' is not closed by '}' before its group's ')'"
        );
        assert_eq!(error(")*2"), "bot.bf:1:1: unmatched ')'");
        assert_eq!(error("((+)*2"), "bot.bf:1:1: unclosed '('");
        assert_eq!(
            error("[(+])*2"),
            "bot.bf:1:4: '[ ]' crosses into a '(', '{' or '}' of a group"
        );
        assert_eq!(
            error("(+[)*2]"),
            "bot.bf:1:4: '[ ]' crosses out of a group at this ')' or '}'"
        );
        assert_eq!(error("+]"), "bot.bf:1:2: unmatched ']'");
        assert_eq!(error("[["), "bot.bf:1:2: unclosed '['");
        let deep = "(".repeat(MAX_NESTING + 1) + "+" + &")*2".repeat(MAX_NESTING + 1);
        assert_eq!(
            error(&deep),
            format!("bot.bf:1:{}: more than 4096 nested '('", MAX_NESTING + 1)
        );
        let ok = "(".repeat(MAX_NESTING) + "+" + &")*2".repeat(MAX_NESTING);
        assert!(parse(ok.as_bytes()).is_ok());
        let deep = "[".repeat(MAX_NESTING + 1) + &"]".repeat(MAX_NESTING + 1);
        assert_eq!(
            error(&deep),
            format!("bot.bf:1:{}: more than 4096 nested '['", MAX_NESTING + 1)
        );
    }

    #[test]
    fn plain_groups_without_braces_are_unrolled_within_the_budget() {
        let unrolled = |src: &str| {
            let p = parse(src.as_bytes()).expect("valid");
            p.items.len()
        };
        // `((+)*2>)*3` is 9 instructions; `(a{b}c)` keeps its groups, but
        // plain groups inside its parts are written out.
        assert_eq!(unrolled("((+)*2>)*3"), 9);
        assert_eq!(unrolled("((+)*2{>}-)%3"), 8);
        // Too big for the budget: kept as a group.
        assert_eq!(unrolled("(+)*100000"), 3);
    }

    #[test]
    fn groups_with_no_instruction_cost_nothing_whatever_their_counts() {
        // Without the removal, each of these would spin through up to
        // 10^15 register steps between two instructions.
        for src in [
            "((((+)*0)*100000)*100000)*100000<",
            "(((()*7)*100000)*100000)*100000<",
            "((((+)*0{}(.)*0)%100000)*100000)*100000<",
            "(((+)*0{<})%100000)*100000",
        ] {
            let p = parse(src.as_bytes()).unwrap_or_else(|e| panic!("{src}: {e}"));
            let kinds: Vec<Kind> = p.items.iter().map(|i| i.kind).collect();
            assert!(
                kinds.len() <= 4,
                "{src}: {kinds:?} should be little more than its '<'"
            );
            let program =
                crate::Program::parse_rules(src.as_bytes(), crate::Rules::Hill).expect("valid");
            let idle = crate::Program::parse_rules(b"", crate::Rules::Hill).expect("valid");
            // The `<` leaves the tape in the first cycle.
            let r = crate::run_match_spec(
                &program,
                &idle,
                crate::MatchSpec {
                    tape_len: 10,
                    cycles: HILL_CYCLES,
                    polarity: crate::Polarity::Normal,
                },
            );
            assert_eq!(
                (r.outcome, r.cycles),
                (crate::Outcome::RightWins, 1),
                "{src}"
            );
        }
    }

    #[test]
    fn a_bracket_may_enclose_a_whole_brace_part() {
        assert!(parse(b"(+[{-}]>)%3").is_ok());
        // Removed groups take their brackets with them.
        assert!(parse(b"([)*0]").is_err());
        assert!(parse(b"(+[)*0]").is_err());
    }
}
