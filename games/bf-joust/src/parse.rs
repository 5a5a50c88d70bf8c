//! Source text → validated token list with its structure (spec §1).
//!
//! Filtering keeps 17 byte values; everything else is a comment. Validation
//! is one left-to-right scan that stops at the first problem, so the error a
//! bot author sees is the one nearest the start of the file.

use std::fmt;

/// Files larger than this many bytes are rejected (spec §1: "over 16 MiB").
pub const MAX_PROGRAM_BYTES: usize = 16 * 1024 * 1024;

/// Whether `byte` survives comment filtering.
pub fn is_token(byte: u8) -> bool {
    matches!(
        byte,
        b'+' | b'-' | b'<' | b'>' | b'[' | b']' | b'.' | b'(' | b')' | b'*' | b'0'..=b'9'
    )
}

/// The filtered token list of a source text (no validation).
pub fn filter_tokens(source: &[u8]) -> Vec<u8> {
    source.iter().copied().filter(|&b| is_token(b)).collect()
}

/// What is wrong with an invalid program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A `]` with no open `[`.
    UnmatchedBracket,
    /// A `[` never closed.
    UnclosedBracket,
    /// A `)` with no open `(`.
    UnmatchedParen,
    /// A `(` never closed.
    UnclosedParen,
    /// A `)` not followed by `*` and at least one digit.
    MissingRepeatCount,
    /// A `*` that does not follow a `)`.
    StrayStar,
    /// A digit outside a repeat count; carries the digit.
    StrayDigit(u8),
    /// The file is larger than [`MAX_PROGRAM_BYTES`].
    TooLarge,
    /// 2014 rules: a `)` followed by a hill form of count (`%N`, `*-N`);
    /// carries the form's description.
    HillForm(&'static str),
    /// Hill rules: more than 4096 nested `(`.
    HillParenTooDeep,
    /// Hill rules: a `{` with no enclosing `(` left to take it.
    HillBraceWithoutGroup,
    /// Hill rules: a second `{` for a `(` that has one.
    HillSecondBrace,
    /// Hill rules: a `}` with no open `{`.
    HillUnmatchedBrace,
    /// Hill rules: a `{` still open at its group's `)`.
    HillUnclosedBrace,
    /// Hill rules: more than 4096 nested `[`.
    HillBracketTooDeep,
    /// Hill rules: a `[ ]` pair that leaves a group at a `)` or `}`.
    HillBracketCrossesOut,
    /// Hill rules: a `]` whose `[` is outside a group part it is in.
    HillBracketCrossesIn,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::UnmatchedBracket => f.write_str("unmatched ']'"),
            ParseErrorKind::UnclosedBracket => f.write_str("unclosed '['"),
            ParseErrorKind::UnmatchedParen => f.write_str("unmatched ')'"),
            ParseErrorKind::UnclosedParen => f.write_str("unclosed '('"),
            ParseErrorKind::MissingRepeatCount => {
                f.write_str("')' must be followed by '*' and a repeat count")
            }
            ParseErrorKind::StrayStar => f.write_str("stray '*'"),
            ParseErrorKind::StrayDigit(d) => write!(f, "stray digit '{}'", char::from(*d)),
            ParseErrorKind::TooLarge => f.write_str("program larger than 16 MiB"),
            ParseErrorKind::HillForm(form) => write!(
                f,
                "{form} is a hill rules form (`rules: hill`); the 2014 rules need ')*N'"
            ),
            ParseErrorKind::HillParenTooDeep => f.write_str("more than 4096 nested '('"),
            ParseErrorKind::HillBraceWithoutGroup => f.write_str("'{' without a '(' of its own"),
            ParseErrorKind::HillSecondBrace => f.write_str("a second '{' for the same '('"),
            ParseErrorKind::HillUnmatchedBrace => f.write_str("unmatched '}'"),
            ParseErrorKind::HillUnclosedBrace => {
                f.write_str("'{' is not closed by '}' before its group's ')'")
            }
            ParseErrorKind::HillBracketTooDeep => f.write_str("more than 4096 nested '['"),
            ParseErrorKind::HillBracketCrossesOut => {
                f.write_str("'[ ]' crosses out of a group at this ')' or '}'")
            }
            ParseErrorKind::HillBracketCrossesIn => {
                f.write_str("'[ ]' crosses into a '(', '{' or '}' of a group")
            }
        }
    }
}

/// Where a problem is in the source file: 1-based line, 1-based column in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub col: usize,
    /// 0-based byte offset in the file.
    pub offset: usize,
}

/// Why a program is invalid, and where (no position for [`ParseErrorKind::TooLarge`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    pub position: Option<Position>,
}

impl ParseError {
    /// The spec's one-line message, `FILE:LINE:COL: MESSAGE` (or
    /// `FILE: MESSAGE` for an oversized file). `file` is the path as given.
    pub fn with_file(&self, file: &str) -> String {
        format!("{file}:{self}")
    }
}

/// `LINE:COL: MESSAGE`, or ` MESSAGE` when there is no position, so that
/// `format!("{file}:{err}")` always gives the spec's line.
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}:{}: {}", p.line, p.col, self.kind),
            None => write!(f, " {}", self.kind),
        }
    }
}

impl std::error::Error for ParseError {}

/// One `(body)*N` construction, by token index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// Index of the `(`.
    pub open: usize,
    /// Index of the `)`.
    pub close: usize,
    /// Index just after the count digits: where the fetch goes on leaving.
    pub exit: usize,
    /// The repeat count, clamped to `u64::MAX`.
    pub count: u64,
    /// Count 0, or a body holding nothing but empty groups (spec §2).
    pub empty: bool,
}

/// A validated token list and its static structure.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The filtered token list; positions in the spec are indices into it.
    pub tokens: Vec<u8>,
    /// For each token: the partner of a `[` or `]`, else `u32::MAX`. (Token
    /// indices fit in `u32` because files are at most 16 MiB; the side
    /// tables of a maximal file stay at a few hundred MB.)
    pub(crate) partner: Vec<u32>,
    /// For each token: the index into `groups` of a `(` or `)`, else `u32::MAX`.
    pub(crate) group_of: Vec<u32>,
    /// Groups in the order of their `)`.
    pub groups: Vec<Group>,
}

impl Parsed {
    /// The partner of the bracket at token `t`.
    pub fn partner_of(&self, t: usize) -> usize {
        self.partner[t] as usize
    }

    /// The group whose `(` or `)` is token `t`.
    pub fn group_at(&self, t: usize) -> &Group {
        &self.groups[self.group_of[t] as usize]
    }
}

/// Byte offsets of the kept tokens, and the tokens themselves.
fn filter_with_offsets(source: &[u8]) -> (Vec<u8>, Vec<u32>) {
    let mut tokens = Vec::new();
    let mut offsets = Vec::new();
    for (i, &b) in source.iter().enumerate() {
        if is_token(b) {
            tokens.push(b);
            // The size check runs first, so every offset fits.
            offsets.push(i as u32);
        }
    }
    (tokens, offsets)
}

/// Line and column of a byte offset; computed only when reporting an error.
pub(crate) fn position_of(source: &[u8], offset: usize) -> Position {
    let before = &source[..offset.min(source.len())];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |nl| nl + 1);
    Position {
        line,
        col: offset - line_start + 1,
        offset,
    }
}

/// An open `(` while scanning: where it is and whether its body so far holds
/// anything that costs a cycle (an instruction or a non-empty group).
struct OpenGroup {
    open: usize,
    has_content: bool,
}

/// Validates `source` and returns its token list with bracket partners and groups.
pub fn parse(source: &[u8]) -> Result<Parsed, ParseError> {
    if source.len() > MAX_PROGRAM_BYTES {
        return Err(ParseError {
            kind: ParseErrorKind::TooLarge,
            position: None,
        });
    }
    let (tokens, offsets) = filter_with_offsets(source);
    structure(tokens).map_err(|(kind, token)| {
        let offset = offsets[token] as usize;
        let kind = match kind {
            ParseErrorKind::MissingRepeatCount => {
                crate::hill::hill_form_after(source, offset).map_or(kind, ParseErrorKind::HillForm)
            }
            _ => kind,
        };
        ParseError {
            kind,
            position: Some(position_of(source, offset)),
        }
    })
}

/// Validates a token list and works out its structure; an error names the
/// token index of the first problem.
pub(crate) fn structure(tokens: Vec<u8>) -> Result<Parsed, (ParseErrorKind, usize)> {
    let n = tokens.len();
    let mut partner = vec![u32::MAX; n];
    let mut group_of = vec![u32::MAX; n];
    let mut groups = Vec::new();
    let mut brackets: Vec<usize> = Vec::new();
    let mut parens: Vec<OpenGroup> = Vec::new();

    let mut i = 0;
    while i < n {
        match tokens[i] {
            b'(' => parens.push(OpenGroup {
                open: i,
                has_content: false,
            }),
            b')' => {
                let Some(g) = parens.pop() else {
                    return Err((ParseErrorKind::UnmatchedParen, i));
                };
                let has_count = tokens.get(i + 1) == Some(&b'*')
                    && tokens.get(i + 2).is_some_and(u8::is_ascii_digit);
                if !has_count {
                    return Err((ParseErrorKind::MissingRepeatCount, i));
                }
                let mut exit = i + 2;
                let mut count: u64 = 0;
                while let Some(&d) = tokens.get(exit).filter(|d| d.is_ascii_digit()) {
                    count = count.saturating_mul(10).saturating_add(u64::from(d - b'0'));
                    exit += 1;
                }
                let empty = count == 0 || !g.has_content;
                if !empty {
                    if let Some(parent) = parens.last_mut() {
                        parent.has_content = true;
                    }
                }
                let index = groups.len();
                groups.push(Group {
                    open: g.open,
                    close: i,
                    exit,
                    count,
                    empty,
                });
                group_of[g.open] = index as u32;
                group_of[i] = index as u32;
                i = exit;
                continue;
            }
            b'*' => return Err((ParseErrorKind::StrayStar, i)),
            d @ b'0'..=b'9' => return Err((ParseErrorKind::StrayDigit(d), i)),
            b'[' => {
                brackets.push(i);
                mark_content(&mut parens);
            }
            b']' => {
                let Some(open) = brackets.pop() else {
                    return Err((ParseErrorKind::UnmatchedBracket, i));
                };
                partner[open] = i as u32;
                partner[i] = open as u32;
                mark_content(&mut parens);
            }
            _ => mark_content(&mut parens),
        }
        i += 1;
    }

    // Unclosed openers are met at the end of the scan: report whichever
    // still-open `[` or `(` appears last.
    let last_bracket = brackets.last().copied();
    let last_paren = parens.last().map(|g| g.open);
    match (last_bracket, last_paren) {
        (Some(b), Some(p)) if p > b => Err((ParseErrorKind::UnclosedParen, p)),
        (Some(b), _) => Err((ParseErrorKind::UnclosedBracket, b)),
        (None, Some(p)) => Err((ParseErrorKind::UnclosedParen, p)),
        (None, None) => Ok(Parsed {
            tokens,
            partner,
            group_of,
            groups,
        }),
    }
}

fn mark_content(parens: &mut [OpenGroup]) {
    if let Some(g) = parens.last_mut() {
        g.has_content = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> String {
        match parse(src.as_bytes()) {
            Ok(_) => panic!("{src:?} should be invalid"),
            Err(e) => e.with_file("bot.bf"),
        }
    }

    #[test]
    fn filtering_keeps_exactly_the_token_bytes() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(filter_tokens(&all), b"()*+-.0123456789<>[]".to_vec());
        assert_eq!(filter_tokens("{a} %é\u{ff}\n\t+".as_bytes()), b"+".to_vec());
    }

    #[test]
    fn each_kind_of_invalid_program_is_named_with_its_position() {
        assert_eq!(err("+\n ]"), "bot.bf:2:2: unmatched ']'");
        assert_eq!(err("a[ [ ]"), "bot.bf:1:2: unclosed '['");
        assert_eq!(err("-)*2"), "bot.bf:1:2: unmatched ')'");
        assert_eq!(err("((+)*2"), "bot.bf:1:1: unclosed '('");
        assert_eq!(
            err("(+)+"),
            "bot.bf:1:3: ')' must be followed by '*' and a repeat count"
        );
        assert_eq!(
            err("(+)*x"),
            "bot.bf:1:3: ')' must be followed by '*' and a repeat count"
        );
        assert_eq!(
            err("(+)"),
            "bot.bf:1:3: ')' must be followed by '*' and a repeat count"
        );
        assert_eq!(err("+*3"), "bot.bf:1:2: stray '*'");
        assert_eq!(err("\n\n  ++7"), "bot.bf:3:5: stray digit '7'");
        assert_eq!(err("(+)*3 4*"), "bot.bf:1:8: stray '*'");
    }

    #[test]
    fn a_digit_in_a_comment_is_a_stray_digit_even_next_to_a_group() {
        // `(a{b}c)%3` filters to `()3`: the message names the hill form.
        assert_eq!(
            err("(a{b}c)%3"),
            "bot.bf:1:7: '%N' repeat count is a hill rules form (`rules: hill`); the 2014 rules need ')*N'"
        );
        assert_eq!(
            err("(+)* -1"),
            "bot.bf:1:3: negative repeat count '*-N' is a hill rules form (`rules: hill`); the 2014 rules need ')*N'"
        );
        assert_eq!(err("version 2"), "bot.bf:1:9: stray digit '2'");
    }

    #[test]
    fn unclosed_openers_report_the_last_still_open_one() {
        assert_eq!(err("[ ( [ ] +"), "bot.bf:1:3: unclosed '('");
        assert_eq!(err("( [ ( )*1 +"), "bot.bf:1:3: unclosed '['");
        assert_eq!(err("[[]"), "bot.bf:1:1: unclosed '['");
    }

    #[test]
    fn the_first_problem_of_the_scan_wins() {
        // The stray digit comes before the unmatched bracket.
        assert_eq!(err("1 ]"), "bot.bf:1:1: stray digit '1'");
        assert_eq!(err("] 1"), "bot.bf:1:1: unmatched ']'");
        // An unclosed opener is only met at the end, after everything else.
        assert_eq!(err("[ *"), "bot.bf:1:3: stray '*'");
    }

    #[test]
    fn columns_count_bytes_and_lines_restart_them() {
        // 'é' is two bytes in UTF-8, so the ']' is at byte column 4.
        assert_eq!(err("é ]"), "bot.bf:1:4: unmatched ']'");
        assert_eq!(err("++\r\n+]"), "bot.bf:2:2: unmatched ']'");
    }

    #[test]
    fn oversized_files_are_rejected_without_a_position() {
        let big = vec![b' '; MAX_PROGRAM_BYTES + 1];
        let e = parse(&big).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::TooLarge);
        assert_eq!(e.with_file("big.bf"), "big.bf: program larger than 16 MiB");
        assert!(parse(&vec![b' '; MAX_PROGRAM_BYTES]).is_ok());
    }

    #[test]
    fn counts_join_across_comments_and_clamp() {
        let p = parse(b"(>)*1 0 (+) times *007 (-)*99999999999999999999999").unwrap();
        let counts: Vec<u64> = p.groups.iter().map(|g| g.count).collect();
        assert_eq!(counts, vec![10, 7, u64::MAX]);
    }

    #[test]
    fn brackets_match_textually_across_groups() {
        let p = parse(b"([)*3-(])*3.").unwrap();
        assert_eq!(p.partner_of(1), 7);
        assert_eq!(p.partner_of(7), 1);
        assert_eq!(p.groups[0].open, 0);
        assert_eq!(p.groups[0].exit, 5);
        assert_eq!(p.groups[1].open, 6);
        assert_eq!(p.groups[1].exit, 11);
    }

    #[test]
    fn emptiness_follows_the_spec_definition() {
        let p = parse(b"()*5 (+)*0 (()*3)*2 ((+)*0)*4 ((+)*1)*2").unwrap();
        let empty: Vec<bool> = p.groups.iter().map(|g| g.empty).collect();
        // Groups in order of their `)`: ()*5, (+)*0, ()*3, (()*3)*2,
        // (+)*0, ((+)*0)*4, (+)*1, ((+)*1)*2.
        assert_eq!(
            empty,
            vec![true, true, true, true, true, true, false, false]
        );
    }
}
