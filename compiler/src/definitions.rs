//! Top-level `defun` / `defmacro` collection with hoisting (dialect §6.1).
//!
//! Every top-level definition is collected before anything else, so definitions are
//! visible everywhere regardless of order; the remaining top-level forms are the body,
//! evaluated in order. Nested definitions are preflight's business (§10).
//!
//! | Code  | Kind   | Message |
//! |-------|--------|---------|
//! | E0101 | script | `'defun': bad definition name %S` (nil, t, keyword, non-symbol) |
//! | E0102 | script | `'defun': NAME collides with an existing callable name` |
//! | E0103 | script | `Script has no body form after its definitions` |
//! | E0110–E0117 | script | lambda-list errors, see [`crate::lambda_list`] |
//!
//! (`'defmacro'` replaces `'defun'` for macros.) A name collides with `defun`/`defmacro`,
//! a special form, a transformer, a pure primitive, a tool of the effective roster (after
//! standalone filtering, [`crate::direct::effective_roster`]) or an earlier definition:
//! nothing is ever shadowed.
//!
//! Invariant: the names of [`Definitions::items`] are distinct non-keyword symbols that
//! collide with nothing above.

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::lambda_list::{self, LambdaList};
use crate::roster::Roster;
use crate::tables::{is_builtin, name_of, operator_name, prin1};
use ptc_vm::{ErrorKind, Interner, Span, Symbol};

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionKind {
    /// `defun`: a function, callable by name and usable as a function value.
    Function,
    /// `defmacro`: a macro, expanded at each call site before the script runs.
    Macro,
}

impl DefinitionKind {
    /// `defun` or `defmacro`.
    #[must_use]
    pub fn form_name(self) -> &'static str {
        match self {
            DefinitionKind::Function => "defun",
            DefinitionKind::Macro => "defmacro",
        }
    }
}

/// One top-level definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The defined name.
    pub name: Symbol,
    /// Function or macro.
    pub kind: DefinitionKind,
    /// The validated parameter list.
    pub params: LambdaList,
    /// The body forms (an implicit `progn`).
    pub body: Vec<Sexp>,
    /// The span of the whole definition form.
    pub span: Span,
}

/// A script split into its hoisted definitions and its body.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Definitions {
    /// The definitions, in source order.
    pub items: Vec<Definition>,
    /// The remaining top-level forms, in source order (never empty).
    pub body: Vec<Sexp>,
}

impl Definitions {
    /// The definition named `name`.
    #[must_use]
    pub fn get(&self, name: Symbol) -> Option<&Definition> {
        self.items.iter().find(|d| d.name == name)
    }

    /// Whether `name` is a script macro.
    #[must_use]
    pub fn is_macro(&self, name: Symbol) -> bool {
        self.get(name)
            .is_some_and(|d| d.kind == DefinitionKind::Macro)
    }

    /// Whether `name` is a script function.
    #[must_use]
    pub fn is_function(&self, name: Symbol) -> bool {
        self.get(name)
            .is_some_and(|d| d.kind == DefinitionKind::Function)
    }
}

/// Splits the top-level `forms` into definitions and body.
///
/// `roster` is the effective roster (after standalone filtering).
///
/// # Errors
/// Every definition error found (E0101, E0102, E0110–E0117), in source order, or E0103
/// when no body form remains.
pub fn collect(
    forms: Vec<Sexp>,
    roster: &Roster,
    interner: &Interner,
) -> Result<Definitions, Vec<Diagnostic>> {
    let mut definitions = Definitions::default();
    let is_definition =
        |form: &Sexp| matches!(operator_name(form, interner), Some("defun" | "defmacro"));
    if !forms.is_empty() && !forms.iter().any(is_definition) {
        // No definition (most scripts): the forms are the body as they are, no copy.
        definitions.body = forms;
        return Ok(definitions);
    }
    let script_span = forms
        .iter()
        .map(|f| f.span)
        .reduce(Span::join)
        .unwrap_or_default();
    let mut errors = Vec::new();
    for form in forms {
        let kind = match operator_name(&form, interner) {
            Some("defun") => DefinitionKind::Function,
            Some("defmacro") => DefinitionKind::Macro,
            _ => {
                definitions.body.push(form);
                continue;
            }
        };
        let span = form.span;
        let items = match form.kind {
            SexpKind::List(items) => items,
            other => {
                definitions.body.push(Sexp::new(other, span));
                continue;
            }
        };
        match definition(items, span, kind, &definitions, roster, interner) {
            Ok(definition) => definitions.items.push(definition),
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() && definitions.body.is_empty() {
        errors.push(Diagnostic::new(
            "E0103",
            ErrorKind::Script,
            "Script has no body form after its definitions",
            script_span,
        ));
    }
    if errors.is_empty() {
        Ok(definitions)
    } else {
        Err(errors)
    }
}

fn definition(
    items: Vec<Sexp>,
    span: Span,
    kind: DefinitionKind,
    earlier: &Definitions,
    roster: &Roster,
    interner: &Interner,
) -> Result<Definition, Diagnostic> {
    let form_name = kind.form_name();
    let mut items = items.into_iter().skip(1);
    let name_form = items
        .next()
        .unwrap_or_else(|| Sexp::new(SexpKind::Nil, span));
    let name = name_form.as_symbol().filter(|s| !s.is_keyword());
    let Some(name) = name else {
        return Err(Diagnostic::new(
            "E0101",
            ErrorKind::Script,
            format!(
                "'{form_name}': bad definition name {}",
                prin1(&name_form, interner)
            ),
            name_form.span,
        ));
    };
    let text = name_of(interner, name);
    if is_builtin(text) || roster.get(text).is_some() || earlier.get(name).is_some() {
        let mut diagnostic = Diagnostic::new(
            "E0102",
            ErrorKind::Script,
            format!("'{form_name}': {text} collides with an existing callable name"),
            name_form.span,
        );
        if let Some(previous) = earlier.get(name) {
            diagnostic = diagnostic.with_label(previous.span, "first defined here");
        }
        return Err(diagnostic);
    }
    let params_form = items
        .next()
        .unwrap_or_else(|| Sexp::new(SexpKind::Nil, span));
    let params = lambda_list::parse(&params_form, interner)?;
    Ok(Definition {
        name,
        kind,
        params,
        body: items.collect(),
        span,
    })
}
