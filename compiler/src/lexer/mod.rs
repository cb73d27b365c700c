//! The lexer: script text to [`Token`]s with byte spans, atoms finished.
//!
//! A logos DFA dispatches on the first byte of each token; the few token shapes whose extent
//! depends on escapes (strings, `?` characters, symbols, `#` dispatch) finish with small
//! hand-written scanners. A second pass ("cooking") turns the raw tokens into [`Token`]s:
//! numbers are converted under the number-bit budget, symbol names are interned (`nil` and
//! `t` become the constants), and every lexical problem becomes one [`Diagnostic`] plus a
//! [`Token::Error`] placeholder, so the parser can keep going and report more.
//!
//! Invariants:
//! - Every byte of the source is covered by a token, a skipped run (whitespace, every
//!   control character but NUL, U+00A0, `;` comments) or an error; lexing is linear and
//!   never recurses.
//! - Emacs's whitespace rule applies: every character up to U+0020 separates tokens. NUL is
//!   the exception: outside a string it is refused ("Invalid read syntax: NUL byte outside
//!   a string") where Emacs would skip it, so `Re<NUL>ad` cannot silently read as two
//!   symbols (a deviation, spec/reference/deviations.md).
//! - Strings may only hold Unicode scalar values: `\xE9` is `é` (Emacs would make a unibyte
//!   string), and `\M-` / `\S-` style modifiers inside strings are refused.

use crate::ast::SexpKind;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::scratch;
use crate::token::{NumberText, Token, classify_number};
use logos::Logos;
use num_bigint::{BigInt, BigUint, Sign};
use ptc_vm::symbol::well_known;
use ptc_vm::{ErrorKind, Interner, Limits, Span};
use std::borrow::Cow;
use std::sync::Arc;

mod escapes;
mod recent;
use escapes::{read_escape, string_character};
use recent::Recent;

/// Why a raw token failed: the diagnostic it becomes, minus its span.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    code: &'static str,
    kind: ErrorKind,
    message: String,
}

impl Default for LexError {
    fn default() -> Self {
        LexError::invalid("")
    }
}

impl LexError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        LexError {
            code,
            kind: ErrorKind::Script,
            message: message.into(),
        }
    }

    fn invalid(what: &str) -> Self {
        LexError::new(
            codes::INVALID_SYNTAX,
            format!("Invalid read syntax: {what}"),
        )
    }

    fn end_of_file() -> Self {
        LexError::new(codes::END_OF_FILE, "End of file during parsing")
    }

    fn escape() -> Self {
        LexError::new(codes::INVALID_ESCAPE, "Invalid escape character syntax")
    }

    fn unsupported(type_name: &str) -> Self {
        LexError::new(
            codes::UNSUPPORTED_LITERAL,
            format!("Unsupported literal of type {type_name} in script"),
        )
    }
}

/// What a `#` dispatch read.
#[derive(Debug, Clone, PartialEq)]
enum Hash {
    /// `#'`.
    Function,
    /// `#(`.
    Propertized,
    /// `#[`, `#^[`, `#^^[`.
    Unsupported(&'static str),
    /// `#s(`: a record or a hash table, decided by the next token.
    Record,
    /// `#x1F`, `#b101`, `#o17`, `#24r1k`.
    Integer {
        radix: u32,
        negative: bool,
        digits: String,
    },
    /// `##`, `#:name` (uninterned), `#_name`.
    Symbol { name: String, uninterned: bool },
    /// `#1=`: a reader label definition, refused.
    LabelDefinition,
}

/// A symbol or number's text with backslash escapes removed: borrowed from the source
/// unless it had escapes.
#[derive(Debug, Clone, PartialEq)]
struct AtomText<'s> {
    text: Cow<'s, str>,
    escaped: bool,
}

#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[\x01-\x20\u{a0}]+")]
#[logos(skip(r";[^\n]*", allow_greedy = true))]
enum Raw<'s> {
    #[token("(")]
    Open,
    #[token(")")]
    Close,
    #[token("[")]
    OpenVector,
    #[token("]")]
    CloseVector,
    #[token("'")]
    Quote,
    #[token("`")]
    Backquote,
    #[token(",")]
    Unquote,
    #[token(",@")]
    Splice,
    #[token("\"", scan_string)]
    Str(Cow<'s, str>),
    #[token("?", scan_character)]
    Character(i64),
    #[token("#", scan_hash)]
    Hash(Hash),
    #[regex(r#"[^\x00-\x20\u{a0}"';()\[\]#`,?]"#, scan_atom)]
    Atom(AtomText<'s>),
    /// A NUL byte outside a string: refused (Emacs skips it as whitespace, which would
    /// silently split a symbol; see the module docs).
    #[token("\0")]
    Nul,
}

/// A forward-only reader over the rest of the source.
struct Cursor<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor { text, position: 0 }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.position..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.position += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, expected: char) -> bool {
        if self.peek() == Some(expected) {
            self.position += expected.len_utf8();
            true
        } else {
            false
        }
    }
}

/// Whether `c` ends a symbol (Emacs: whitespace, U+00A0 and `"';()[]#`,`).
fn ends_symbol(c: char) -> bool {
    c <= ' '
        || c == '\u{a0}'
        || matches!(
            c,
            '"' | '\'' | ';' | '(' | ')' | '[' | ']' | '#' | '`' | ','
        )
}

/// Bytes a plain ASCII atom does not continue over: the ASCII bytes that end a symbol
/// ([`ends_symbol`]) or start an escape (`\\`), and every byte ≥ 0x80 (looked at one
/// character at a time by [`plain_atom_end`]).
const ATOM_STOPS: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = byte >= 0x80
            || byte <= 0x20
            || matches!(
                byte as u8,
                b'"' | b'\'' | b';' | b'(' | b')' | b'[' | b']' | b'#' | b'`' | b',' | b'\\'
            );
        byte += 1;
    }
    table
};

/// Where the first character of `text` that ends a symbol ([`ends_symbol`]) or starts an
/// escape (`\\`) is, or `text.len()`: a scan over bytes (every such character is ASCII
/// but U+00A0, whose UTF-8 form is `C2 A0`; no other character's encoding contains that
/// pair at a character boundary, and a scan from a boundary only meets `C2` at one). Runs
/// of plain ASCII bytes are skipped through [`ATOM_STOPS`].
fn plain_atom_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        while let Some(&byte) = bytes.get(at)
            && !ATOM_STOPS[usize::from(byte)]
        {
            at += 1;
        }
        match bytes.get(at) {
            None => return bytes.len(),
            Some(&byte) if byte < 0x80 => return at,
            Some(&0xC2) if bytes.get(at + 1) == Some(&0xA0) => return at,
            // A lead byte: skip the whole character.
            Some(&byte) => {
                at += match byte {
                    0xF0.. => 4,
                    0xE0.. => 3,
                    _ => 2,
                }
            }
        }
    }
}

/// Runs `scan` over the lexer's remainder and advances the lexer past what it consumed,
/// whether it succeeded or not (so a bad string is skipped as a whole).
fn scanning<'s, T>(
    lex: &mut logos::Lexer<'s, Raw<'s>>,
    scan: impl FnOnce(&mut Cursor<'_>) -> Result<T, LexError>,
) -> Result<T, LexError> {
    let mut cursor = Cursor::new(lex.remainder());
    let result = scan(&mut cursor);
    lex.bump(cursor.position);
    result
}

/// The body of a string after its opening `"`.
fn scan_string_body(cursor: &mut Cursor<'_>) -> Result<String, LexError> {
    let mut text = String::new();
    let mut first_error: Option<LexError> = None;
    loop {
        let c = cursor.next().ok_or_else(LexError::end_of_file)?;
        match c {
            '"' => break,
            '\\' => match read_escape(cursor, true) {
                Ok(Some(code)) => match string_character(code) {
                    Ok(c) => text.push(c),
                    Err(error) => {
                        first_error.get_or_insert(error);
                    }
                },
                Ok(None) => {}
                Err(error) if error.code == codes::END_OF_FILE => return Err(error),
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            },
            other => text.push(other),
        }
    }
    match first_error {
        Some(error) => Err(error),
        None => Ok(text),
    }
}

fn scan_string<'s>(lex: &mut logos::Lexer<'s, Raw<'s>>) -> Result<Cow<'s, str>, LexError> {
    // Fast path: no backslash before the closing quote, so the body is a slice of the
    // source.
    let rest = lex.remainder();
    if let Some(end) = rest.find(['"', '\\'])
        && rest.as_bytes().get(end) == Some(&b'"')
    {
        lex.bump(end + 1);
        return Ok(Cow::Borrowed(&rest[..end]));
    }
    scanning(lex, scan_string_body).map(Cow::Owned)
}

fn scan_character<'s>(lex: &mut logos::Lexer<'s, Raw<'s>>) -> Result<i64, LexError> {
    scanning(lex, |cursor| {
        let c = cursor.next().ok_or_else(LexError::end_of_file)?;
        let code = if c == '\\' {
            read_escape(cursor, false)?.ok_or_else(LexError::escape)?
        } else {
            i64::from(u32::from(c))
        };
        match cursor.peek() {
            None => Ok(code),
            Some(next) if next <= ' ' || "\"';()[]#?`,.".contains(next) => Ok(code),
            Some(_) => {
                while cursor.peek().is_some_and(|c| !ends_symbol(c)) {
                    cursor.next();
                }
                Err(LexError::invalid("?"))
            }
        }
    })
}

/// Symbol characters up to the next delimiter, with backslash escapes resolved.
fn scan_symbol_chars(cursor: &mut Cursor<'_>, text: &mut String) -> Result<bool, LexError> {
    let mut escaped = false;
    while let Some(c) = cursor.peek() {
        if ends_symbol(c) {
            break;
        }
        cursor.next();
        if c == '\\' {
            escaped = true;
            text.push(cursor.next().ok_or_else(LexError::end_of_file)?);
        } else {
            text.push(c);
        }
    }
    Ok(escaped)
}

fn scan_atom<'s>(lex: &mut logos::Lexer<'s, Raw<'s>>) -> Result<AtomText<'s>, LexError> {
    // Fast path: no backslash, so the atom is one slice of the source, borrowed.
    let first = lex.slice();
    if first != "\\" {
        let rest = lex.remainder();
        let end = plain_atom_end(rest);
        if !rest[end..].starts_with('\\') {
            lex.bump(end);
            return Ok(AtomText {
                text: Cow::Borrowed(lex.slice()),
                escaped: false,
            });
        }
    }
    let first = first.to_owned();
    scanning(lex, |cursor| {
        let mut text = String::new();
        let mut escaped = false;
        if first == "\\" {
            escaped = true;
            text.push(cursor.next().ok_or_else(LexError::end_of_file)?);
        } else {
            text.push_str(&first);
        }
        escaped |= scan_symbol_chars(cursor, &mut text)?;
        Ok(AtomText {
            text: Cow::Owned(text),
            escaped,
        })
    })
}

fn scan_radix_integer(cursor: &mut Cursor<'_>, radix: u32) -> Result<Hash, LexError> {
    let bad = || LexError::invalid(&format!("integer, radix {radix}"));
    if !(2..=36).contains(&radix) {
        while cursor.peek().is_some_and(|c| !ends_symbol(c)) {
            cursor.next();
        }
        return Err(bad());
    }
    let negative = cursor.peek() == Some('-');
    if matches!(cursor.peek(), Some('+' | '-')) {
        cursor.next();
    }
    let mut digits = String::new();
    let mut valid = true;
    while let Some(c) = cursor.peek() {
        if ends_symbol(c) {
            break;
        }
        cursor.next();
        valid &= c.is_digit(radix);
        digits.push(c);
    }
    if !valid || digits.is_empty() {
        return Err(bad());
    }
    Ok(Hash::Integer {
        radix,
        negative,
        digits,
    })
}

fn scan_hash<'s>(lex: &mut logos::Lexer<'s, Raw<'s>>) -> Result<Hash, LexError> {
    scanning(lex, |cursor| {
        let c = cursor.peek().ok_or_else(LexError::end_of_file)?;
        let radix = match c {
            'x' | 'X' => Some(16),
            'b' | 'B' => Some(2),
            'o' | 'O' => Some(8),
            _ => None,
        };
        if let Some(radix) = radix {
            cursor.next();
            return scan_radix_integer(cursor, radix);
        }
        if c.is_ascii_digit() {
            let mut number: u32 = 0;
            while let Some(digit) = cursor.peek().and_then(|c| c.to_digit(10)) {
                cursor.next();
                number = number.saturating_mul(10).saturating_add(digit);
            }
            return match cursor.next() {
                Some('r') => scan_radix_integer(cursor, number),
                Some('=') => Ok(Hash::LabelDefinition),
                Some('#') => Err(LexError::new(
                    codes::READER_LABEL,
                    "Reader labels (#N= and #N#) are not supported in script",
                )),
                _ => Err(LexError::invalid("#")),
            };
        }
        cursor.next();
        match c {
            '\'' => Ok(Hash::Function),
            '(' => Ok(Hash::Propertized),
            '[' => Ok(Hash::Unsupported("compiled-function")),
            '^' if cursor.eat('[') => Ok(Hash::Unsupported("char-table")),
            '^' if cursor.eat('^') && cursor.eat('[') => Ok(Hash::Unsupported("sub-char-table")),
            's' if cursor.eat('(') => Ok(Hash::Record),
            '&' => {
                let digits = cursor.rest().bytes().take_while(u8::is_ascii_digit).count();
                cursor.position += digits;
                if digits > 0 && cursor.eat('"') {
                    scan_string_body(cursor)?;
                    Err(LexError::unsupported("bool-vector"))
                } else {
                    Err(LexError::invalid("#&"))
                }
            }
            '#' => Ok(Hash::Symbol {
                name: String::new(),
                uninterned: false,
            }),
            ':' | '_' => {
                let mut name = String::new();
                scan_symbol_chars(cursor, &mut name)?;
                Ok(Hash::Symbol {
                    name,
                    uninterned: c == ':',
                })
            }
            '^' => Err(LexError::invalid("#^")),
            's' => Err(LexError::invalid("#s")),
            _ => Err(LexError::invalid("#")),
        }
    })
}

/// An integer literal under the number-bit budget: `|n| < 2^number_bits`.
fn integer(
    negative: bool,
    digits: &str,
    radix: u32,
    number_bits: u64,
) -> Result<SexpKind, LexError> {
    let over = || {
        let mut error = LexError::new(
            codes::INTEGER_BUDGET,
            format!("Guest integer exceeds its {number_bits} bit budget"),
        );
        error.kind = ErrorKind::Value;
        error
    };
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(SexpKind::Int(0));
    }
    // Reject hopelessly long literals before converting: the value is at least
    // radix^(len-1) >= 2^(floor(log2 radix) * (len-1)).
    let floor_log2 = u64::from(31 - radix.max(2).leading_zeros());
    let length = u64::try_from(digits.len()).unwrap_or(u64::MAX);
    if length.saturating_sub(1).saturating_mul(floor_log2) >= number_bits {
        return Err(over());
    }
    // Fast path: a literal that fits 64 bits needs no big-integer conversion.
    if digits.bytes().all(|b| b.is_ascii_alphanumeric())
        && let Ok(magnitude) = u64::from_str_radix(digits, radix)
    {
        if u64::from(64 - magnitude.leading_zeros()) > number_bits {
            return Err(over());
        }
        let value = if negative {
            0i64.checked_sub_unsigned(magnitude)
        } else {
            i64::try_from(magnitude).ok()
        };
        if let Some(value) = value {
            return Ok(SexpKind::Int(value));
        }
    }
    let magnitude = BigUint::parse_bytes(digits.as_bytes(), radix).ok_or_else(over)?;
    if magnitude.bits() > number_bits {
        return Err(over());
    }
    let value = BigInt::from_biguint(if negative { Sign::Minus } else { Sign::Plus }, magnitude);
    Ok(match i64::try_from(&value) {
        Ok(small) => SexpKind::Int(small),
        Err(_) => SexpKind::Big(Arc::new(value)),
    })
}

fn span_of(range: &std::ops::Range<usize>) -> Span {
    let clamp = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
    Span::new(clamp(range.start), clamp(range.end))
}

/// A symbol atom's kind: `nil` and `t` are the constants, an uninterned name a fresh symbol.
fn symbol(name: &str, uninterned: bool, interner: &mut Interner) -> SexpKind {
    match name {
        "nil" => SexpKind::Nil,
        "t" => SexpKind::T,
        _ if uninterned => SexpKind::Sym(interner.gensym(name)),
        _ => SexpKind::Sym(interner.intern(name)),
    }
}

/// The token of an atom's text (a number, `.`, or a symbol); a plain atom's symbol goes
/// through `recent` when given.
fn cook_atom<'s>(
    text: &'s str,
    escaped: bool,
    limits: &Limits,
    interner: &mut Interner,
    recent: Option<&mut Recent<'s>>,
) -> Result<Token, LexError> {
    match (escaped, classify_number(text)) {
        (false, Some(NumberText::Integer { negative, digits })) => {
            integer(negative, digits, 10, limits.number_bits).map(Token::Atom)
        }
        (false, Some(NumberText::Float(f))) => Ok(Token::Atom(SexpKind::Float(f))),
        _ if !escaped && text == "." => Ok(Token::Dot),
        _ => Ok(Token::Atom(match recent {
            Some(recent) if !escaped && text != "nil" && text != "t" => {
                SexpKind::Sym(recent.intern(text, interner))
            }
            _ => symbol(text, false, interner),
        })),
    }
}

/// The token of one raw logos token (`None`: the token only left a diagnostic). `raw` is
/// the lexer just past it, for the one token (`#s(`) that looks at what follows.
fn cook_raw<'s>(
    token: &Result<Raw<'s>, LexError>,
    span: Span,
    raw: &logos::Lexer<'s, Raw<'s>>,
    limits: &Limits,
    interner: &mut Interner,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Result<Token, LexError>> {
    Some(match token {
        Err(error) => Err(error.clone()),
        Ok(Raw::Nul) => Err(LexError::invalid("NUL byte outside a string")),
        Ok(Raw::Open) => Ok(Token::Open),
        Ok(Raw::Close) => Ok(Token::Close),
        Ok(Raw::OpenVector) => Ok(Token::OpenVector),
        Ok(Raw::CloseVector) => Ok(Token::CloseVector),
        Ok(Raw::Quote) => Ok(Token::Prefix(well_known::QUOTE)),
        Ok(Raw::Backquote) => Ok(Token::Prefix(well_known::BACKQUOTE)),
        Ok(Raw::Unquote) => Ok(Token::Prefix(well_known::UNQUOTE)),
        Ok(Raw::Splice) => Ok(Token::Prefix(well_known::SPLICE)),
        Ok(Raw::Str(text)) => Ok(Token::Atom(SexpKind::Str(Arc::from(&**text)))),
        Ok(Raw::Character(code)) => {
            let negative = *code < 0;
            integer(
                negative,
                &code.unsigned_abs().to_string(),
                10,
                limits.number_bits,
            )
            .map(Token::Atom)
        }
        Ok(Raw::Atom(AtomText { text, escaped })) => {
            cook_atom(text, *escaped, limits, interner, None)
        }
        Ok(Raw::Hash(hash)) => match hash {
            Hash::Function => Ok(Token::Prefix(interner.intern("function"))),
            Hash::Propertized => Ok(Token::OpenPropertized),
            Hash::Unsupported(type_name) => Ok(Token::OpenUnsupported {
                type_name: Cow::Borrowed(type_name),
                bracket: true,
            }),
            Hash::Record => {
                // `#s(hash-table ...)` is a hash table; any other `#s(TAG ...)` is a
                // record, whose type (Emacs's `type-of`) is its tag when that is a
                // plain symbol. Other tags (numbers, strings, escaped names) keep the
                // generic name `record`.
                let next = raw.clone().next();
                let tag = match &next {
                    Some(Ok(Raw::Atom(AtomText {
                        text,
                        escaped: false,
                    }))) if classify_number(text).is_none() && text != "." => Some(text),
                    _ => None,
                };
                let type_name = match tag {
                    Some(tag) if tag == "hash-table" => Cow::Borrowed("hash-table"),
                    Some(tag) => Cow::Owned(tag.to_string()),
                    None => Cow::Borrowed("record"),
                };
                Ok(Token::OpenUnsupported {
                    type_name,
                    bracket: false,
                })
            }
            Hash::Integer {
                radix,
                negative,
                digits,
            } => integer(*negative, digits, *radix, limits.number_bits).map(Token::Atom),
            Hash::Symbol { name, uninterned } => {
                Ok(Token::Atom(symbol(name, *uninterned, interner)))
            }
            Hash::LabelDefinition => {
                diagnostics.push(Diagnostic::new(
                    codes::READER_LABEL,
                    ErrorKind::Script,
                    "Reader labels (#N= and #N#) are not supported in script",
                    span,
                ));
                return None;
            }
        },
    })
}

/// What the byte-level fast path makes of the byte at a token's start.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// A separator (every control character but NUL, and space).
    Blank,
    /// `;`: a comment to the end of the line.
    Comment,
    /// A one-byte token: `(`, `)`, `[`, `]`, `'`, `` ` ``.
    Single,
    /// `,` or `,@`.
    Comma,
    /// `"`.
    Quote,
    /// The first byte of a plain ASCII atom.
    Atom,
    /// Anything else (NUL, `?`, `#`, `\`, non-ASCII): the logos lexer reads the token.
    Other,
}

/// The class of each ASCII byte, one literal table (bytes ≥ 0x80 are [`Class::Other`]).
const CLASSES: [Class; 128] = {
    let mut table = [Class::Atom; 128];
    let mut byte = 1;
    while byte <= 0x20 {
        table[byte] = Class::Blank;
        byte += 1;
    }
    table[0] = Class::Other;
    table[b';' as usize] = Class::Comment;
    table[b'(' as usize] = Class::Single;
    table[b')' as usize] = Class::Single;
    table[b'[' as usize] = Class::Single;
    table[b']' as usize] = Class::Single;
    table[b'\'' as usize] = Class::Single;
    table[b'`' as usize] = Class::Single;
    table[b',' as usize] = Class::Comma;
    table[b'"' as usize] = Class::Quote;
    table[b'?' as usize] = Class::Other;
    table[b'#' as usize] = Class::Other;
    table[b'\\' as usize] = Class::Other;
    table
};

scratch::slots! {
    static TOKENS: (Token, Span);
}

/// Keeps a spent token buffer for the next [`lex`] on this thread (the parser hands back
/// the one it consumed).
pub fn give_tokens(tokens: Vec<(Token, Span)>) {
    scratch::give(&TOKENS, tokens);
}

/// The tokens of `source` and the diagnostics of every token that failed.
///
/// Plain tokens (brackets, reader sugar, blanks, comments, strings without escapes, ASCII
/// atoms without escapes) are read over bytes here; every other token is read by the logos
/// lexer started at its first byte, so both paths see the same token boundaries.
pub fn lex(
    source: &str,
    limits: &Limits,
    interner: &mut Interner,
) -> (Vec<(Token, Span)>, Vec<Diagnostic>) {
    let bytes = source.as_bytes();
    // One token per three bytes of source covers ordinary code (the agent script of
    // issue 19 has one per 3.5), so the vector rarely grows; the last parse's buffer is
    // reused ([`give_tokens`]).
    let mut tokens = scratch::take(&TOKENS, source.len() / 3 + 1);
    let mut diagnostics = Vec::new();
    let mut recent = Recent::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let start = at;
        let class = CLASSES
            .get(usize::from(byte))
            .copied()
            .unwrap_or(Class::Other);
        let cooked = match class {
            Class::Blank => {
                at += 1;
                while bytes.get(at).is_some_and(|&b| (1..=0x20).contains(&b)) {
                    at += 1;
                }
                continue;
            }
            Class::Comment => {
                at = bytes[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |n| at + n);
                continue;
            }
            Class::Single => {
                at += 1;
                Ok(match byte {
                    b'(' => Token::Open,
                    b')' => Token::Close,
                    b'[' => Token::OpenVector,
                    b']' => Token::CloseVector,
                    b'\'' => Token::Prefix(well_known::QUOTE),
                    _ => Token::Prefix(well_known::BACKQUOTE),
                })
            }
            Class::Comma => {
                at += 1;
                if bytes.get(at) == Some(&b'@') {
                    at += 1;
                    Ok(Token::Prefix(well_known::SPLICE))
                } else {
                    Ok(Token::Prefix(well_known::UNQUOTE))
                }
            }
            Class::Quote
                if let Some(end) = bytes[at + 1..]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\')
                    && bytes[at + 1 + end] == b'"' =>
            {
                at += end + 2;
                Ok(Token::Atom(SexpKind::Str(Arc::from(
                    &source[start + 1..at - 1],
                ))))
            }
            Class::Atom
                if {
                    at = start + 1 + plain_atom_end(&source[start + 1..]);
                    bytes.get(at) != Some(&b'\\')
                } =>
            {
                cook_atom(
                    &source[start..at],
                    false,
                    limits,
                    interner,
                    Some(&mut recent),
                )
            }
            _ => {
                let mut raw = Raw::lexer(&source[start..]);
                let Some(token) = raw.next() else {
                    break;
                };
                let relative = raw.span();
                at = start + relative.end;
                let span = span_of(&(start + relative.start..at));
                if let Some(cooked) =
                    cook_raw(&token, span, &raw, limits, interner, &mut diagnostics)
                {
                    push(&mut tokens, &mut diagnostics, cooked, span);
                }
                continue;
            }
        };
        push(&mut tokens, &mut diagnostics, cooked, span_of(&(start..at)));
    }
    (tokens, diagnostics)
}

/// Records a cooked token, or its diagnostic and a [`Token::Error`] placeholder (inlined
/// so the plain paths store their token without moving a whole `Result` through a call).
#[inline(always)]
fn push(
    tokens: &mut Vec<(Token, Span)>,
    diagnostics: &mut Vec<Diagnostic>,
    cooked: Result<Token, LexError>,
    span: Span,
) {
    match cooked {
        Ok(token) => tokens.push((token, span)),
        Err(error) => {
            diagnostics.push(Diagnostic::new(error.code, error.kind, error.message, span));
            tokens.push((Token::Error, span));
        }
    }
}

#[cfg(test)]
mod tests;
