//! The reader's tokens and the number syntax they share with the printer.
//!
//! [`Token`] is what the lexer hands the parser: brackets, reader-sugar prefixes and finished
//! atoms (numbers already converted under the number-bit budget, strings already unescaped,
//! symbols already interned). A token the lexer could not make sense of is [`Token::Error`];
//! its diagnostic is already recorded, so the parser treats it as a datum and moves on.
//!
//! [`classify_number`] is the Emacs rule for when an atom's text is a number rather than a
//! symbol (`1`, `+1`, `1.`, `.5`, `1e3`, `1.0e+INF`, `0.0e+NaN`); the printer uses the same
//! function to decide which symbol names need a leading backslash, so the two always agree.

use crate::ast::SexpKind;
use ptc_vm::symbol::Symbol;
use std::borrow::Cow;

/// One token of the script.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// `[`.
    OpenVector,
    /// `]`.
    CloseVector,
    /// Reader sugar that wraps the next datum in a two-element list headed by this symbol:
    /// `'` (`quote`), `` ` ``, `,`, `,@`, `#'` (`function`).
    Prefix(Symbol),
    /// A lone `.` (dotted-pair syntax).
    Dot,
    /// A finished atom: never a list or vector.
    Atom(SexpKind),
    /// A token already reported by the lexer; the parser reads it as a placeholder datum.
    Error,
    /// The opening of a literal the dialect refuses (`#s(`, `#[`, `#^[`, `#^^[`), with the
    /// Emacs type name of what it would read as and whether it closes with `]`.
    OpenUnsupported {
        /// The Emacs type name, e.g. `hash-table`, or a record's type tag.
        type_name: Cow<'static, str>,
        /// Whether the literal closes with `]` rather than `)`.
        bracket: bool,
    },
    /// `#(`: a propertized string; reads as its plain string.
    OpenPropertized,
}

/// What a numeric atom's text denotes, before any conversion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumberText<'a> {
    /// An integer: sign and decimal digits (no sign, no trailing dot).
    Integer {
        /// Whether the literal had a leading `-`.
        negative: bool,
        /// The decimal digits, at least one.
        digits: &'a str,
    },
    /// A float, already converted (`1e400` is infinity, as in Emacs).
    Float(f64),
}

/// Classifies `text` (an atom without backslash escapes) the way the Emacs reader does:
/// `[+-]?[0-9]+\.?` is an integer; digits with a fraction or exponent (`1.5`, `.5`, `1e3`,
/// `1.e3`, `1.0e+INF`, `0.0e+NaN`) are floats; anything else is a symbol (`None`).
#[must_use]
#[inline]
pub fn classify_number(text: &str) -> Option<NumberText<'_>> {
    // A number starts with a sign, a digit or a dot: most symbols are told apart here,
    // where the lexer calls, without a call.
    if !matches!(
        text.as_bytes().first(),
        Some(b'0'..=b'9' | b'+' | b'-' | b'.')
    ) {
        return None;
    }
    classify_numeric(text)
}

/// [`classify_number`] of an atom that starts like a number.
fn classify_numeric(text: &str) -> Option<NumberText<'_>> {
    let bytes = text.as_bytes();
    let mut position = 0;
    let negative = bytes.first() == Some(&b'-');
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        position = 1;
    }
    let digits_run = |from: usize| -> usize {
        bytes.get(from..).map_or(0, |rest| {
            rest.iter().take_while(|b| b.is_ascii_digit()).count()
        })
    };
    let lead_start = position;
    let lead = digits_run(position);
    position += lead;
    let dot = bytes.get(position) == Some(&b'.');
    if dot {
        position += 1;
    }
    let trail_start = position;
    let trail = digits_run(position);
    position += trail;
    let mut exponent: Option<&str> = None;
    let mut special: Option<f64> = None;
    if matches!(bytes.get(position), Some(b'e' | b'E')) {
        let after_e = position + 1;
        let sign = matches!(bytes.get(after_e), Some(b'+' | b'-'));
        let exponent_digits_start = after_e + usize::from(sign);
        let exponent_digits = digits_run(exponent_digits_start);
        let plus = bytes.get(after_e) == Some(&b'+');
        let tail = text.get(exponent_digits_start..).unwrap_or("");
        if exponent_digits > 0 {
            exponent = text.get(after_e..exponent_digits_start + exponent_digits);
            position = exponent_digits_start + exponent_digits;
        } else if plus && tail.starts_with("INF") {
            special = Some(f64::INFINITY);
            position = exponent_digits_start + 3;
        } else if plus && tail.starts_with("NaN") {
            special = Some(f64::NAN);
            position = exponent_digits_start + 3;
        }
    }
    if position != bytes.len() {
        return None;
    }
    let has_exponent = exponent.is_some() || special.is_some();
    let float_syntax = trail > 0 || (lead > 0 && has_exponent);
    if float_syntax {
        if let Some(value) = special {
            return Some(NumberText::Float(if negative { -value } else { value }));
        }
        let mantissa = text.get(..trail_start + trail)?;
        let literal = match exponent {
            Some(exponent) => format!("{mantissa}e{exponent}"),
            None => mantissa.to_owned(),
        };
        return literal.parse::<f64>().ok().map(NumberText::Float);
    }
    if lead > 0 && !has_exponent {
        let digits = text.get(lead_start..lead_start + lead)?;
        return Some(NumberText::Integer { negative, digits });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(text: &str) -> f64 {
        match classify_number(text) {
            Some(NumberText::Float(f)) => f,
            other => panic!("{text} is not a float: {other:?}"),
        }
    }

    #[test]
    fn integers_follow_emacs() {
        for (text, negative, digits) in [
            ("1", false, "1"),
            ("+1", false, "1"),
            ("-12", true, "12"),
            ("1.", false, "1"),
            ("-0.", true, "0"),
        ] {
            assert_eq!(
                classify_number(text),
                Some(NumberText::Integer { negative, digits }),
                "{text}"
            );
        }
    }

    #[test]
    fn floats_follow_emacs() {
        assert_eq!(float("1.5"), 1.5);
        assert_eq!(float(".5"), 0.5);
        assert_eq!(float("-.5"), -0.5);
        assert_eq!(float("1e3"), 1000.0);
        assert_eq!(float("1.e3"), 1000.0);
        assert_eq!(float("1E-2"), 0.01);
        assert_eq!(float("1.0e+INF"), f64::INFINITY);
        assert_eq!(float("-1.0e+INF"), f64::NEG_INFINITY);
        assert!(float("0.0e+NaN").is_nan());
        assert_eq!(float("1e400"), f64::INFINITY);
    }

    #[test]
    fn everything_else_is_a_symbol() {
        for text in [
            "",
            "+",
            "-",
            ".",
            "e3",
            ".e3",
            "1e",
            "1e+",
            "1.0e-INF",
            "1a",
            "0x10",
            "1/2",
            "1..",
            "--1",
            "1.5.",
            "inf",
            "nan",
            "1.0e+INFX",
        ] {
            assert_eq!(classify_number(text), None, "{text}");
        }
    }
}
