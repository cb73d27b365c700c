//! Emacs regexp syntax to `regex-syntax` syntax.
//!
//! Owns the one pass over a guest pattern: Emacs's context rules (`^` an anchor only at the
//! start of the pattern or after `\(`, `\(?:`, `\|`; `$` only at the end or before `\)`,
//! `\|`; `*`, `+`, `?` and `\{` literal where nothing precedes them), runs of postfix
//! operators collapsed as Emacs's compiler collapses them (`a+*` is `a*`, `a*?` is
//! non-greedy), every quantified piece wrapped in `(?:...)` so a quantifier applies to
//! exactly what Emacs's `laststart` covers (`a\{2\}*` repeats the pair), plain, shy and
//! explicitly numbered groups (the numbering Emacs gives them), syntax classes from Emacs's
//! standard syntax table for ASCII, and bracket classes. Backreferences are refused here:
//! they are the one construct a linear engine cannot run.

use super::Wrap;

/// Emacs's `RE_DUP_MAX`: the largest bound of a `\{m,n\}` count.
const MAX_REPETITION: u64 = 0xFFFF;

/// The name prefix of the capture group holding guest group N: `g<ordinal>_<N>`.
pub(super) const GROUP: &str = "g";

/// What stops a translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    /// Invalid syntax, with Emacs's message.
    Invalid(&'static str),
    /// A backreference `\N`.
    Backreference(char),
}

impl From<&'static str> for Fault {
    fn from(message: &'static str) -> Self {
        Fault::Invalid(message)
    }
}

/// A translated pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Translation {
    /// The `regex-syntax` text.
    pub text: String,
    /// The largest guest group number (Emacs's `re_nsub`); 0 unless capturing.
    pub groups: u32,
}

/// Translates Emacs regexp syntax into `regex-syntax` syntax. Errors are Emacs's messages.
pub(super) fn translate(pattern: &str, wrap: Wrap) -> Result<Translation, Fault> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    match wrap {
        Wrap::Start => out.push_str(r"\A(?:"),
        Wrap::End => out.push_str("(?:"),
        Wrap::Plain | Wrap::EndConcatenated | Wrap::Capturing => {}
    }
    let capturing = wrap == Wrap::Capturing;
    let dollar_at_end = wrap != Wrap::EndConcatenated;
    // Where each open group began in `out`, and the group numbers Emacs has used so far.
    let mut open: Vec<usize> = Vec::new();
    let mut nsub: u32 = 0;
    let mut ordinal: u32 = 0;
    // Where the piece a postfix operator would repeat begins in `out` (Emacs's `laststart`).
    let mut last: Option<usize> = None;
    let mut index = 0usize;
    let mut group_start = true;
    while let Some(&c) = chars.get(index) {
        let at_group_start = std::mem::replace(&mut group_start, false);
        index += 1;
        let here = out.len();
        match c {
            '^' if at_group_start => {
                out.push('^');
                group_start = true;
                last = None;
            }
            '$' if (index == chars.len() && dollar_at_end)
                || (chars.get(index) == Some(&'\\')
                    && matches!(chars.get(index + 1), Some(')' | '|'))) =>
            {
                out.push('$');
                last = None;
            }
            '*' | '+' | '?' if last.is_some() => {
                let (mut zero, mut many, mut greedy) = (false, false, true);
                let mut op = c;
                loop {
                    if op == '?' && (zero || many) {
                        greedy = false;
                    } else {
                        zero |= op != '+';
                        many |= op != '?';
                    }
                    match chars.get(index) {
                        Some(&next @ ('*' | '+' | '?')) => {
                            op = next;
                            index += 1;
                        }
                        _ => break,
                    }
                }
                let quantifier = match (zero, many) {
                    (true, true) => "*",
                    (false, _) => "+",
                    (true, false) => "?",
                };
                repeat(&mut out, last, quantifier, greedy);
            }
            '.' => {
                out.push('.');
                last = Some(here);
            }
            '[' => {
                index = translate_class(&chars, index, &mut out)?;
                last = Some(here);
            }
            '\\' => {
                let Some(&next) = chars.get(index) else {
                    return Err("Trailing backslash".into());
                };
                index += 1;
                match next {
                    '(' => {
                        let number = if chars.get(index) == Some(&'?') {
                            group_number(&chars, &mut index)?
                        } else {
                            nsub += 1;
                            Some(nsub)
                        };
                        if let Some(n) = number {
                            nsub = nsub.max(n);
                        }
                        open.push(out.len());
                        match number {
                            Some(n) if capturing => {
                                ordinal += 1;
                                out.push_str(&format!("(?P<{GROUP}{ordinal}_{n}>"));
                            }
                            _ => out.push_str("(?:"),
                        }
                        group_start = true;
                        last = None;
                    }
                    ')' => {
                        let begin = open.pop().ok_or("Unmatched ) or \\)")?;
                        out.push(')');
                        last = Some(begin);
                    }
                    '{' if last.is_some() => {
                        let (quantifier, next) = translate_count(&chars, index)?;
                        index = next;
                        repeat(&mut out, last, &quantifier, true);
                    }
                    '{' | '}' => {
                        push_literal(&mut out, next);
                        last = Some(here);
                    }
                    '|' => {
                        out.push('|');
                        group_start = true;
                        last = None;
                    }
                    '1'..='9' => return Err(Fault::Backreference(next)),
                    '`' | '\'' | 'b' | 'B' | '<' | '>' | '_' => {
                        out.push_str(match next {
                            '`' => r"\A",
                            '\'' => r"\z",
                            'b' => r"\b",
                            'B' => r"\B",
                            '<' => r"\b{start}",
                            '>' => r"\b{end}",
                            _ => {
                                let side = chars.get(index).copied();
                                index += 1;
                                match side {
                                    Some('<') => r"\b{start}",
                                    Some('>') => r"\b{end}",
                                    _ => return Err("Invalid regular expression".into()),
                                }
                            }
                        });
                        last = Some(here);
                    }
                    'w' | 'W' | 's' | 'S' => {
                        let code = if matches!(next, 'w' | 'W') {
                            'w'
                        } else {
                            let code = *chars.get(index).ok_or("Invalid regular expression")?;
                            index += 1;
                            code
                        };
                        let class = syntax_class(code).ok_or("Invalid syntax designator")?;
                        let negated = matches!(next, 'W' | 'S');
                        push_class(&mut out, class, negated, index);
                        last = Some(here);
                    }
                    'c' | 'C' => {
                        return Err("Character categories (\\c, \\C) are not supported".into());
                    }
                    '=' => return Err("Buffer point (\\=) is not available on strings".into()),
                    other => {
                        push_literal(&mut out, other);
                        last = Some(here);
                    }
                }
            }
            other => {
                push_literal(&mut out, other);
                last = Some(here);
            }
        }
    }
    if !open.is_empty() {
        return Err("Unmatched ( or \\(".into());
    }
    match wrap {
        Wrap::Start => out.push(')'),
        Wrap::End => out.push_str(r")\z"),
        Wrap::EndConcatenated => out.push_str(r"\z"),
        Wrap::Plain | Wrap::Capturing => {}
    }
    Ok(Translation {
        text: out,
        groups: if capturing { nsub } else { 0 },
    })
}

/// Wraps the piece of `out` from `last` in `(?:...)` and repeats it with `quantifier`.
fn repeat(out: &mut String, last: Option<usize>, quantifier: &str, greedy: bool) {
    let begin = last.unwrap_or(out.len());
    out.insert_str(begin, "(?:");
    out.push(')');
    out.push_str(quantifier);
    if !greedy {
        out.push('?');
    }
}

/// Reads the `?:` or `?N:` of `\(?` (index at the `?`): `None` for a shy group, else the
/// explicit number.
fn group_number(chars: &[char], index: &mut usize) -> Result<Option<u32>, Fault> {
    *index += 1;
    let mut number: u32 = 0;
    let mut digits = 0usize;
    loop {
        match chars.get(*index) {
            Some(':') => {
                *index += 1;
                break;
            }
            Some(&d @ '0'..='9') => {
                if digits == 0 && d == '0' {
                    return Err("Invalid regular expression".into());
                }
                number = number
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(d.to_digit(10).unwrap_or(0)))
                    .filter(|&n| u64::from(n) <= MAX_REPETITION)
                    .ok_or("Invalid regular expression")?;
                digits += 1;
                *index += 1;
            }
            _ => return Err("Invalid regular expression".into()),
        }
    }
    Ok((digits > 0).then_some(number))
}

/// Appends `c` as a literal.
pub(super) fn push_literal(out: &mut String, c: char) {
    let mut buffer = [0u8; 4];
    regex_syntax::escape_into(c.encode_utf8(&mut buffer), out);
}

/// Appends a class, negated through a marker group (folded first, negated after, as Emacs
/// does; see `fold`), named after `position` so names are unique.
fn push_class(out: &mut String, body: &str, negated: bool, position: usize) {
    if negated {
        out.push_str(&format!("(?P<{}{position}>[", super::fold::NEGATED));
        out.push_str(body);
        out.push_str("])");
    } else {
        out.push('[');
        out.push_str(body);
        out.push(']');
    }
}

/// The class body for the syntax code `code` of `\sC`: Emacs's standard syntax table for
/// ASCII; beyond ASCII, whitespace is `\p{White_Space}`, punctuation `\p{P}` and `\p{S}`,
/// and every other character a word constituent (Emacs's default for multibyte text).
fn syntax_class(code: char) -> Option<&'static str> {
    Some(match code {
        '-' | ' ' => concat!(r"\t\n\x0C\r ", r"[\x{80}-\x{10FFFF}&&\p{White_Space}]"),
        'w' => concat!(
            r"$%0-9A-Za-z",
            r"[\x{80}-\x{10FFFF}&&[^\p{White_Space}\p{P}\p{S}]]"
        ),
        '_' => r"\&\*\+\-/<=>_\|",
        '.' => concat!(
            r"\x00-\x08\x0B\x0E-\x1F!\#',\.:;\?@\^`\~\x7F",
            r"[\x{80}-\x{10FFFF}&&[\p{P}\p{S}]]"
        ),
        '(' => r"\(\[\{",
        ')' => r"\)\]\}",
        '"' => r"\x22",
        '\\' => r"\\",
        // Classes the standard table gives no character.
        '\'' | '<' | '>' | '$' | '/' | '@' | '!' | '|' => r"[^\x00-\x{10FFFF}]",
        _ => return None,
    })
}

/// Translates the interval body after `\{`: the quantifier text and the index after `\}`.
fn translate_count(chars: &[char], mut index: usize) -> Result<(String, usize), Fault> {
    let mut text = String::new();
    while let Some(&c) = chars
        .get(index)
        .filter(|c| c.is_ascii_digit() || **c == ',')
    {
        text.push(c);
        index += 1;
    }
    if chars.get(index) != Some(&'\\') || chars.get(index + 1) != Some(&'}') {
        return Err("Unmatched \\{".into());
    }
    let (low, high) = match text.split_once(',') {
        None => (text.as_str(), Some(text.as_str())),
        Some((low, "")) => (low, None),
        Some((low, high)) => (low, Some(high)),
    };
    let parse = |digits: &str| -> Result<u64, Fault> {
        if digits.is_empty() {
            return Ok(0);
        }
        digits
            .parse::<u64>()
            .ok()
            .filter(|&n| n <= MAX_REPETITION)
            .ok_or(Fault::Invalid("Invalid content of \\{\\}"))
    };
    let low = parse(low)?;
    let quantifier = match high.map(parse).transpose()? {
        Some(high) if high < low => return Err("Invalid content of \\{\\}".into()),
        Some(high) => format!("{{{low},{high}}}"),
        None => format!("{{{low},}}"),
    };
    Ok((quantifier, index + 2))
}

/// Translates a bracket class starting after `[`; returns the index after its `]`.
fn translate_class(
    chars: &[char],
    mut index: usize,
    out: &mut String,
) -> Result<usize, &'static str> {
    let mut body = String::new();
    let negated = chars.get(index) == Some(&'^');
    if negated {
        index += 1;
    }
    let mut first = true;
    loop {
        let Some(&c) = chars.get(index) else {
            return Err("Unmatched [ or [^");
        };
        if c == ']' && !first {
            index += 1;
            break;
        }
        first = false;
        if c == '[' && chars.get(index + 1) == Some(&':') {
            let name_start = index + 2;
            let name_end = (name_start..chars.len().saturating_sub(1))
                .find(|&i| chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&']'));
            if let Some(name_end) = name_end {
                let name: String = chars
                    .get(name_start..name_end)
                    .unwrap_or(&[])
                    .iter()
                    .collect();
                body.push_str(named_class(&name).ok_or("Invalid character class name")?);
                index = name_end + 2;
                continue;
            }
        }
        // A range `c-e`, unless `-` is the last character before `]`.
        if chars.get(index + 1) == Some(&'-')
            && let Some(&end) = chars.get(index + 2).filter(|&&e| e != ']')
        {
            if c <= end {
                push_literal(&mut body, c);
                body.push('-');
                push_literal(&mut body, end);
            }
            // A reversed range is empty in Emacs.
            index += 3;
            continue;
        }
        push_literal(&mut body, c);
        index += 1;
    }
    match (negated, body.is_empty()) {
        (false, true) => out.push_str(r"[^\x00-\x{10FFFF}]"),
        (true, true) => out.push_str(r"[\x00-\x{10FFFF}]"),
        (false, false) => {
            out.push('[');
            out.push_str(&body);
            out.push(']');
        }
        (true, false) => {
            // Folded first, negated after (see `fold`): a marker group around the
            // positive class, named after the class's position so names are unique.
            out.push_str(&format!("(?P<{}{index}>[", super::fold::NEGATED));
            out.push_str(&body);
            out.push_str("])");
        }
    }
    Ok(index)
}

/// The class body of the Emacs character class `[:name:]`.
fn named_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => r"\p{Alphabetic}",
        "alnum" => r"\p{Alphabetic}\p{Nd}",
        "digit" => "0-9",
        "xdigit" => "0-9A-Fa-f",
        "space" => syntax_class(' ')?,
        "blank" => r"\t\p{Zs}",
        "upper" => r"\p{Uppercase}",
        "lower" => r"\p{Lowercase}",
        "punct" => r"!-/:-@\[-`\{-~\p{P}\p{S}",
        "cntrl" => r"\x00-\x1F",
        "graph" => r"[^\s\p{Cc}]",
        "print" => r"[^\p{Cc}]",
        "word" => syntax_class('w')?,
        "ascii" | "unibyte" => r"\x00-\x7F",
        "nonascii" | "multibyte" => r"\x{80}-\x{10FFFF}",
        _ => return None,
    })
}
