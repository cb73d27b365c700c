//! The whole static pipeline behind [`compile`] and [`check`].
//!
//! read → the alist-cell rewrite (`crate::cells`) → direct-call classification → definition collection (against the effective
//! roster) → preflight (every diagnostic at once) → expansion of transformers and macros
//! (definition bodies first, in source order, then the script body) → lowering → the
//! verified program. Nothing runs before all of it succeeded, except macro bodies, which
//! run in the closed machine under the script's own budgets.
//!
//! The whole pipeline runs under the `seconds` budget ([`Deadline`]) when the host gives a
//! clock ([`compile_with_clock`]), counted from the start of compilation: the clock is
//! checked between stages, before every literal regexp
//! preflight compiles, before every macro call is expanded, and after every slice of a
//! macro run. Past it, compilation stops with E0031 (kind `time`); the
//! overshoot is at most one regexp compilation (bounded by the engine's size limits) or
//! one stage between checks.
//!
//! [`decode_script`] is the gate for script bytes: text that is not UTF-8 is bad input
//! (E0030, kind `input`), never a usage error.

use crate::ast::Sexp;
use crate::deadline::Deadline;
use crate::definitions::{self, DefinitionKind};
use crate::diagnostic::Diagnostic;
use crate::direct;
use crate::expand::{Expansion, MacroExpander};
use crate::list_pool;
use crate::lower::{self, FunctionDef, LowerInput};
use crate::macros::{VmMacros, parse_params};
use crate::preflight;
use crate::reader;
use crate::roster::Roster;
use ptc_vm::{Clock, ErrorKind, Interner, Limits, Program, Span, Symbol};
use std::sync::Arc;

/// The E0030 message (kind `input`).
pub const NOT_UTF8_MESSAGE: &str = "Script is not valid UTF-8";

/// `bytes` as script text, or E0030 (kind `input`) spanning the first invalid byte.
///
/// # Errors
/// When `bytes` is not UTF-8.
pub fn decode_script(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|error| {
        let at = error.valid_up_to();
        let end = at + error.error_len().unwrap_or(1);
        Diagnostic::new(
            "E0030",
            ErrorKind::Input,
            format!("{NOT_UTF8_MESSAGE} (invalid byte at offset {at})"),
            Span::new(
                u32::try_from(at).unwrap_or(u32::MAX),
                u32::try_from(end).unwrap_or(u32::MAX),
            ),
        )
    })
}

/// A macro expander that checks the deadline before every expansion and reports a macro
/// run that ran out of time as E0031.
struct Timed<'m, M> {
    inner: &'m mut M,
    deadline: Deadline,
}

impl<M: MacroExpander> MacroExpander for Timed<'_, M> {
    fn is_macro(&self, name: Symbol) -> bool {
        self.inner.is_macro(name)
    }

    fn expand(
        &mut self,
        name: Symbol,
        args: &[Sexp],
        span: Span,
        interner: &mut Interner,
    ) -> Result<Sexp, Diagnostic> {
        if self.deadline.expired() {
            return Err(self.deadline.diagnostic(span));
        }
        self.inner
            .expand(name, args, span, interner)
            .map_err(|diagnostic| {
                if diagnostic.kind == ErrorKind::Time || self.deadline.expired() {
                    self.deadline.diagnostic(span)
                } else {
                    diagnostic
                }
            })
    }
}

/// A compiled script.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The program: immutable, `Send + Sync`, run as many times as wanted.
    pub program: Arc<Program>,
    /// `Some(tool)` when the script is provably one direct call of a roster tool, whose
    /// result the host should return as that tool's own result.
    pub direct: Option<String>,
    /// The declared inputs, in order: the body function's parameters
    /// ([`crate::inputs`]).
    pub inputs: Arc<[String]>,
}

/// Compiles `source` for `roster` under `limits`.
///
/// # Errors
/// Every diagnostic the first failing stage found (reader, definitions, preflight), or
/// the first expansion or lowering diagnostic.
pub fn compile(
    source: &str,
    roster: &Roster,
    limits: &Limits,
) -> Result<Compiled, Vec<Diagnostic>> {
    compile_with_inputs(source, roster, limits, &[])
}

/// Compiles `source` for `roster` under `limits`, with `inputs` declared as read-only
/// variables of the script body ([`crate::inputs`]): a run binds each to a value, in order.
///
/// # Errors
/// As [`compile`]; also E0150/E0151 for bad input names and E0904 for a `setq` of an input.
pub fn compile_with_inputs(
    source: &str,
    roster: &Roster,
    limits: &Limits,
    inputs: &[&str],
) -> Result<Compiled, Vec<Diagnostic>> {
    compile_with_clock(source, roster, limits, inputs, None)
}

/// [`compile_with_inputs`] under the `seconds` budget, counted from now on the host's
/// `clock`: past it, compilation stops with E0031. Without a clock no time budget applies
/// (every other budget still does).
///
/// # Errors
/// As [`compile_with_inputs`]; also E0031 when the clock passes `seconds`.
pub fn compile_with_clock(
    source: &str,
    roster: &Roster,
    limits: &Limits,
    inputs: &[&str],
    clock: Option<Arc<dyn Clock>>,
) -> Result<Compiled, Vec<Diagnostic>> {
    let deadline = Deadline::new(limits, clock);
    let mut interner = Interner::new();
    let (mut forms, read_size) = reader::read_sized(source, limits, &mut interner)?;
    // The alist-cell update idiom (`setcdr` of an `assoc` cell) becomes a rebuild of the
    // list before preflight sees it (crate::cells); the reader's count is then not the
    // body's size.
    let rewritten = crate::cells::rewrite(&mut forms, &mut interner);
    let input_symbols = crate::inputs::intern(inputs, &mut interner)?;
    deadline.check(Span::default())?;
    let span = forms
        .iter()
        .map(|f| f.span)
        .reduce(Span::join)
        .unwrap_or_default();
    let direct_call = direct::classify(&forms, roster, &interner);
    let effective = direct::effective_roster_shared(roster, direct_call.as_ref());
    let mut definitions = definitions::collect(forms, &effective, &interner)?;
    deadline.check(span)?;
    // Preflight's expansions of conveniences and backquote templates are handed to the
    // expansion below, which then does not make them again.
    let made = preflight::preflight(
        &definitions,
        roster,
        direct_call.as_ref(),
        limits,
        &mut interner,
        Some(&deadline),
        preflight::Keep::Expansions,
    )?;
    deadline.check(span)?;
    let mut macros = VmMacros::new(&definitions.items, limits, &effective.tools);
    macros.set_deadline(deadline.clone());
    for definition in &definitions.items {
        if deadline.expired() {
            return Err(vec![deadline.diagnostic(definition.span)]);
        }
        macros
            .prepare(definition.name, &mut interner)
            .map_err(|d| {
                vec![if d.kind == ErrorKind::Time || deadline.expired() {
                    deadline.diagnostic(definition.span)
                } else {
                    d
                }]
            })?;
    }
    let mut expansion = Expansion::new(limits, &mut interner).with_expansions(made);
    if definitions.items.is_empty() && !rewritten {
        // The body is the forms read, whose size the reader counted.
        expansion = expansion.with_size(read_size);
    }
    let body = expansion
        .expand_forms(
            // Expansion consumes the body; nothing reads the unexpanded one afterwards.
            std::mem::take(&mut definitions.body),
            &mut Timed {
                inner: &mut macros,
                deadline: deadline.clone(),
            },
            &mut interner,
        )
        .map_err(|d| vec![d])?;
    deadline.check(span)?;

    // Preflight sees the expanded code too, so an unknown operator a macro produced is
    // rejected before anything runs (spec/reference/deviations.md). Transformers only
    // produce known operators, so without macros there is nothing new to see. The macros
    // stay in (with empty bodies, walked already): a macro call that expansion leaves in
    // place, such as a `parallel` entry, is then judged by the form that holds it rather
    // than reported as an unknown function.
    let has_macros = definitions
        .items
        .iter()
        .any(|d| d.kind == DefinitionKind::Macro);
    if has_macros {
        let expanded = definitions::Definitions {
            items: definitions
                .items
                .iter()
                .map(|d| definitions::Definition {
                    body: match d.kind {
                        DefinitionKind::Function => {
                            macros.body(d.name).cloned().unwrap_or_default()
                        }
                        DefinitionKind::Macro => Vec::new(),
                    },
                    ..d.clone()
                })
                .collect(),
            body: body.clone(),
        };
        preflight::preflight(
            &expanded,
            roster,
            direct_call.as_ref(),
            limits,
            &mut interner,
            Some(&deadline),
            preflight::Keep::Nothing,
        )?;
        deadline.check(span)?;
    }

    let mut functions = Vec::new();
    let mut macro_names = Vec::new();
    for definition in &definitions.items {
        match definition.kind {
            DefinitionKind::Macro => macro_names.push(definition.name),
            DefinitionKind::Function => functions.push(FunctionDef {
                name: definition.name,
                params: definition.params.clone(),
                body: macros.body(definition.name).map_or(&[][..], Vec::as_slice),
                span: definition.span,
            }),
        }
    }
    let input = LowerInput {
        interner,
        functions,
        macros: macro_names,
        body: &body,
        span,
        tools: &effective.tools,
        inputs: input_symbols,
    };
    let program = lower::lower(input, &parse_params).map_err(|d| vec![d])?;
    // The lowered forms' list buffers serve the next compile on this thread.
    list_pool::recycle(body);
    deadline.check(span)?;
    Ok(Compiled {
        program: Arc::new(program),
        direct: direct_call.map(|d| d.tool),
        inputs: if inputs.is_empty() {
            // Shared: no allocation for the common script without inputs.
            static NONE: std::sync::LazyLock<Arc<[String]>> =
                std::sync::LazyLock::new(|| Arc::from(Vec::new()));
            Arc::clone(&NONE)
        } else {
            inputs.iter().map(|name| (*name).to_owned()).collect()
        },
    })
}

/// Runs the static pipeline only: every diagnostic, or none when the script is accepted.
#[must_use]
pub fn check(source: &str, roster: &Roster, limits: &Limits) -> Vec<Diagnostic> {
    match compile(source, roster, limits) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use crate::definitions;
    use crate::expand::{Expansion, NoMacros};
    use crate::preflight;
    use crate::reader;
    use crate::roster::Roster;
    use crate::sexp_print::forms_to_string;
    use ptc_vm::{Interner, Limits};

    /// The script's body expanded with preflight's kept expansions (`keep`) or without.
    fn expanded(source: &str, keep: bool) -> (String, usize) {
        let limits = Limits::default();
        let roster = Roster::default();
        let mut interner = Interner::new();
        let forms = reader::read(source, &limits, &mut interner).expect("reads");
        let mut definitions = definitions::collect(forms, &roster, &interner).expect("collects");
        let deadline = super::Deadline::new(&limits, None);
        let made = preflight::preflight(
            &definitions,
            &roster,
            None,
            &limits,
            &mut interner,
            Some(&deadline),
            preflight::Keep::Expansions,
        )
        .expect("passes preflight");
        let kept = made.len();
        let mut expansion = Expansion::new(&limits, &mut interner);
        if keep {
            expansion = expansion.with_expansions(made);
        }
        let body = expansion
            .expand_forms(
                std::mem::take(&mut definitions.body),
                &mut NoMacros,
                &mut interner,
            )
            .expect("expands");
        (forms_to_string(&body, &interner), kept)
    }

    #[test]
    fn preflight_expansions_are_the_ones_expansion_makes() {
        for (source, kept) in [
            (
                "(mapconcat (lambda (d) (format \"%s\" d)) '(1 2) \", \")",
                1,
            ),
            // Nested in a transformer that preflight does not expand: that form is
            // replaced first, so its kept inner expansion is forgotten, and the copy of
            // it in `when`'s expansion is expanded afresh.
            ("(when t (mapconcat #'identity '(\"a\") \"-\"))", 1),
            (
                "(let ((x 1)) `(a ,x ,@(list 2 3)) (when-let ((y x)) (1+ y)))",
                2,
            ),
            ("(if-let ((a 1)) (pop a) (cl-incf a))", 1),
            (
                "(list (mapconcat #'identity '(\"a\") \"\") `(b ,(+ 1 2)))",
                2,
            ),
        ] {
            let (with, count) = expanded(source, true);
            let (without, _) = expanded(source, false);
            assert_eq!(count, kept, "{source}");
            assert_eq!(with, without, "{source}");
        }
    }
}
