//! Backslash escapes of strings and `?` characters: modifier chains (`\C-`, `\M-`, …),
//! hex, octal and `\N{U+…}` codes, and which codes a string may hold.
//!
//! Invariant: a modifier chain is read iteratively, so reading an escape never recurses;
//! a string receives only Unicode scalar values ([`string_character`]).

use super::{Cursor, LexError, codes};

pub(super) const ALT: i64 = 1 << 22;
pub(super) const SUPER: i64 = 1 << 23;
pub(super) const HYPER: i64 = 1 << 24;
pub(super) const SHIFT: i64 = 1 << 25;
pub(super) const CONTROL: i64 = 1 << 26;
pub(super) const META: i64 = 1 << 27;
pub(super) const MODIFIERS: i64 = ALT | SUPER | HYPER | SHIFT | CONTROL | META;
/// The largest Emacs character code.
pub(super) const MAX_CHARACTER: i64 = 0x3F_FFFF;

/// How an escape modifies the character it prefixes.
#[derive(Clone, Copy)]
pub(super) enum Modifier {
    Bit(i64),
    Control,
}

/// Emacs's control rule: `\C-a` is 1, `\C-?` is 127, other characters get the control bit.
pub(super) fn apply_control(c: i64) -> i64 {
    let base = c & !MODIFIERS;
    if base == i64::from(b'?') {
        127 | (c & MODIFIERS)
    } else if base >= 256 {
        c | CONTROL
    } else if (0o101..=0o132).contains(&(c & 0o137)) || (0o100..=0o137).contains(&(c & 0o177)) {
        c & (0o37 | !0o177)
    } else {
        c | CONTROL
    }
}

/// Reads the escape after a backslash. `None` means "no character" (backslash-newline or
/// backslash-space inside a string). Modifier chains (`\C-\M-a`) are read iteratively.
pub(super) fn read_escape(
    cursor: &mut Cursor<'_>,
    in_string: bool,
) -> Result<Option<i64>, LexError> {
    let mut modifiers: Vec<Modifier> = Vec::new();
    let base = loop {
        let c = cursor.next().ok_or_else(LexError::end_of_file)?;
        let bit = match c {
            'M' => Some(META),
            'S' => Some(SHIFT),
            'H' => Some(HYPER),
            'A' => Some(ALT),
            's' => Some(SUPER),
            'C' => Some(0),
            _ => None,
        };
        if let Some(bit) = bit
            && cursor.eat('-')
        {
            modifiers.push(if c == 'C' {
                Modifier::Control
            } else {
                Modifier::Bit(bit)
            });
        } else if c == '^' {
            modifiers.push(Modifier::Control);
        } else {
            let code = match c {
                'a' => 7,
                'b' => 8,
                'd' => 127,
                'e' => 27,
                'f' => 12,
                'n' => 10,
                'r' => 13,
                't' => 9,
                'v' => 11,
                's' => 32,
                '\n' | ' ' if in_string && modifiers.is_empty() => return Ok(None),
                '\n' => return Err(LexError::escape()),
                'x' => read_hex(cursor, 1, usize::MAX)?,
                'u' => read_hex(cursor, 4, 4)?,
                'U' => read_hex(cursor, 8, 8)?,
                'N' => read_named(cursor)?,
                '0'..='7' => read_octal(cursor, c),
                other => i64::from(u32::from(other)),
            };
            break code;
        }
        // The character after a modifier may itself be an escape: `\C-\M-a`.
        if !modifiers.is_empty() {
            match cursor.next().ok_or_else(LexError::end_of_file)? {
                '\\' => {}
                plain => {
                    break i64::from(u32::from(plain));
                }
            }
        }
    };
    let mut code = base;
    for modifier in modifiers.iter().rev() {
        code = match modifier {
            Modifier::Bit(bit) => code | bit,
            Modifier::Control => apply_control(code),
        };
    }
    Ok(Some(code))
}

pub(super) fn read_hex(
    cursor: &mut Cursor<'_>,
    minimum: usize,
    maximum: usize,
) -> Result<i64, LexError> {
    let mut value: i64 = 0;
    let mut count = 0;
    while count < maximum {
        let Some(digit) = cursor.peek().and_then(|c| c.to_digit(16)) else {
            break;
        };
        cursor.next();
        value = value.saturating_mul(16).saturating_add(i64::from(digit));
        count += 1;
    }
    if count < minimum {
        return Err(if cursor.peek().is_none() {
            LexError::end_of_file()
        } else {
            LexError::escape()
        });
    }
    if value > MAX_CHARACTER {
        return Err(LexError::escape());
    }
    Ok(value)
}

pub(super) fn read_octal(cursor: &mut Cursor<'_>, first: char) -> i64 {
    let mut value = i64::from(first.to_digit(8).unwrap_or(0));
    for _ in 0..2 {
        match cursor.peek().and_then(|c| c.to_digit(8)) {
            Some(digit) => {
                cursor.next();
                value = value * 8 + i64::from(digit);
            }
            None => break,
        }
    }
    value
}

/// `\N{U+XXXX}`; character names are not supported (no name table).
pub(super) fn read_named(cursor: &mut Cursor<'_>) -> Result<i64, LexError> {
    if !cursor.eat('{') || !cursor.eat('U') || !cursor.eat('+') {
        return Err(LexError::escape());
    }
    let value = read_hex(cursor, 1, 8)?;
    if cursor.eat('}') {
        Ok(value)
    } else {
        Err(LexError::escape())
    }
}

/// A character code as a string character.
pub(super) fn string_character(code: i64) -> Result<char, LexError> {
    if code & MODIFIERS != 0 {
        return Err(LexError::new(
            codes::INVALID_MODIFIER,
            "Invalid modifier in string",
        ));
    }
    u32::try_from(code)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| {
            LexError::new(
                codes::NON_UNICODE,
                format!("Non-Unicode character: 0x{code:x}"),
            )
        })
}
