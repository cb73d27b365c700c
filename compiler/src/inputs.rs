//! Declared inputs: read-only variables whose values a host gives each run of a compiled
//! script (the embedding API's `RunOptions` inputs), so one compiled program serves many
//! runs with different data.
//!
//! The names are declared at compile time ([`crate::compile_with_inputs`]); the program's
//! body function (function 0) takes them as its parameters, in declaration order, so the
//! machine binds them like any parameter (boxed when a closure mentions them). They are
//! visible in the script body and its lambdas — not inside `defun` or `defmacro` bodies,
//! which see only their own parameters, as for any variable the body binds.
//!
//! Invariants:
//! - Every declared name reads as exactly one non-keyword symbol other than `nil` and `t`,
//!   and no name is declared twice (E0150, E0151); otherwise nothing compiles.
//! - A `setq` that would assign an input binding (after every transformer and macro has
//!   expanded, dead code included) is E0904: an input is read-only. Shadowing an input with
//!   `let`, a lambda parameter or a `condition-case` variable is not assignment to it.

use crate::ast::SexpKind;
use crate::diagnostic::Diagnostic;
use ptc_vm::{ErrorKind, Interner, Limits, Span, Symbol};

/// The code of a declared name that is not a variable name.
pub const BAD_NAME: &str = "E0150";
/// The code of a name declared twice.
pub const DUPLICATE: &str = "E0151";
/// The code of a `setq` of an input.
pub const ASSIGNED: &str = "E0904";

/// Interns `names` as the input symbols, in order.
///
/// # Errors
/// E0150 for each name that is not a variable name, E0151 for each repeated one (spans
/// are empty: the names are not part of the script text).
pub(crate) fn intern(
    names: &[&str],
    interner: &mut Interner,
) -> Result<Vec<Symbol>, Vec<Diagnostic>> {
    let mut symbols = Vec::with_capacity(names.len());
    let mut problems = Vec::new();
    for name in names {
        let Some(symbol) = variable_symbol(name, interner) else {
            problems.push(Diagnostic::new(
                BAD_NAME,
                ErrorKind::Script,
                format!("Input name {name:?} is not a variable name"),
                Span::default(),
            ));
            continue;
        };
        if symbols.contains(&symbol) {
            problems.push(Diagnostic::new(
                DUPLICATE,
                ErrorKind::Script,
                format!("Input {name} is declared twice"),
                Span::default(),
            ));
            continue;
        }
        symbols.push(symbol);
    }
    if problems.is_empty() {
        Ok(symbols)
    } else {
        Err(problems)
    }
}

/// `name` as a symbol when it reads as exactly that one non-keyword symbol.
fn variable_symbol(name: &str, interner: &mut Interner) -> Option<Symbol> {
    if name.is_empty() || name.len() > 128 {
        return None;
    }
    let forms = crate::reader::read(name, &Limits::default(), interner).ok()?;
    let [form] = forms.as_slice() else {
        return None;
    };
    match form.kind {
        SexpKind::Sym(symbol) if !symbol.is_keyword() && interner.name(symbol) == Some(name) => {
            Some(symbol)
        }
        _ => None,
    }
}

/// E0904 for a `setq` of `name` at `span`.
pub(crate) fn assigned(name: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        ASSIGNED,
        ErrorKind::Script,
        format!("'setq': {name} is a read-only input"),
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roster::Roster;
    use ptc_vm::{Machine, Step, Value};

    fn run(source: &str, inputs: &[&str], values: Vec<Value>) -> Result<String, String> {
        let limits = Limits::default();
        let compiled = crate::compile_with_inputs(source, &Roster::default(), &limits, inputs)
            .map_err(|d| format!("{} {}", d[0].code, d[0].message))?;
        assert_eq!(&*compiled.inputs, inputs);
        let mut machine = Machine::new(compiled.program, limits);
        for (index, value) in values.into_iter().enumerate() {
            assert!(machine.bind_input(index, value));
        }
        match machine.step() {
            Step::Done(value) => Ok(machine.render(&value)),
            Step::Error(error) => Err(error.message().to_owned()),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn inputs_are_the_body_parameters() {
        let got = run(
            "(+ a (* b 10))",
            &["a", "b"],
            vec![Value::Int(1), Value::Int(2)],
        );
        assert_eq!(got.as_deref(), Ok("21"));
        // Captured by a closure, shadowed by let, unseen by defuns.
        let got = run(
            "(defun f () (condition-case nil a (error 'unseen)))
             (list (mapcar (lambda (x) (+ x a)) '(1 2)) (let ((a 5)) (setq a 6) a) (f))",
            &["a"],
            vec![Value::Int(10)],
        );
        assert_eq!(got.as_deref(), Ok("((11 12) 6 unseen)"));
        // An input never bound is nil.
        assert_eq!(run("a", &["a"], vec![]).as_deref(), Ok("nil"));
    }

    #[test]
    fn assigning_an_input_is_a_diagnostic_even_in_dead_code() {
        for source in [
            "(setq a 1)",
            "(if nil (setq a 2) a)",
            "(mapcar (lambda (x) (setq a x)) '(1))",
            "(cl-incf a)",
        ] {
            let got = run(source, &["a"], vec![Value::Int(1)]);
            assert_eq!(
                got,
                Err("E0904 'setq': a is a read-only input".into()),
                "{source}"
            );
        }
    }

    #[test]
    fn names_must_be_distinct_variable_names() {
        let mut interner = Interner::new();
        assert!(intern(&["city", "max-n", "x1"], &mut interner).is_ok());
        let bad = intern(
            &["nil", ":k", "a b", "", "12", "ok", "ok", "t"],
            &mut interner,
        )
        .unwrap_err();
        let codes: Vec<&str> = bad.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            [
                BAD_NAME, BAD_NAME, BAD_NAME, BAD_NAME, BAD_NAME, DUPLICATE, BAD_NAME
            ]
        );
    }
}
