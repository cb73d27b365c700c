//! Static preflight (dialect §10): one pass over every definition body and the script
//! body that reports every problem it can see before anything runs.
//!
//! The walk visits evaluated positions only. Atoms are skipped; a list whose head is not
//! an operator name is walked element by element. Not walked: `quote` forms, the
//! arguments of the script's own macros, `lambda` parameter lists, `let`/`let*` binding
//! names (their initialisers are walked), `dolist`/`dotimes` variables (their LIST/COUNT
//! and bodies are walked); `cond` clauses are walked element-wise; backquote forms are
//! walked through their real expansion, so malformed templates fail here with the
//! transformer's own message (kind `script`). Dead branches are not exempt.
//!
//! | Code  | Kind        | Message |
//! |-------|-------------|---------|
//! | E0301 | preflight   | `Unknown functions: NAME (try: SUGGESTION), NAME2.  Callable names are limited to ...` |
//! | E0302 | preflight   | `'%s' is only valid inside a backquote template` |
//! | E0303 | preflight   | `'defun' is only allowed as a top-level form of the script` (or `'defmacro'`) |
//! | E0304 | preflight   | `Standalone-only tools require one direct call as the entire expression` |
//! | E0305 | atomic-work | a literal regexp argument that is too long, invalid or uses a backreference (the regexp checker's message) |
//! | E0306 | atomic-work | `'split-string': an empty separator is forbidden` |
//! | E0307 | input       | `Script nesting exceeds the depth limit of %d` (a backquote expansion too deep) |
//! | E0311 | preflight   | `'parallel' may not be nested inside a parallel branch` (also `'parallel-map'`) |
//! | E02xx | script      | backquote template errors, see [`crate::transform`] |
//! | E032x | preflight   | a tool call's literal arguments against its contract, see [`crate::preflight_args`] |
//!
//! Diagnostics come in walk order (definition bodies in source order, then the body);
//! the single unknown-functions diagnostic (unknown names once each, in first-seen order,
//! with nearest-match suggestions from [`crate::suggest`]) comes last, so the first
//! diagnostic is the error the original would have raised.

use crate::ast::{Sexp, SexpKind};
use crate::definitions::{DefinitionKind, Definitions};
use crate::diagnostic::Diagnostic;
use crate::direct::DirectCall;
use crate::expand::{Expansions, expanded_depth_limit, form_key};
use crate::preflight_args;
use crate::roster::Roster;
use crate::suggest::describe_unknown;
use crate::tables::{
    SPECIAL_FORMS, TRANSFORMERS, is_primitive, is_special_form, is_transformer, name_of,
};
use crate::transform::{self, Transformer};
use ptc_vm::prims::PRIMITIVES;
use ptc_vm::{Error, ErrorKind, Interner, Limits, Span, Symbol};
use rustc_hash::FxHashSet;

/// The tail of the unknown-functions message (after the names and a period).
pub const UNKNOWN_TAIL: &str = "Callable names are limited to the documented special forms and conveniences, the pure data primitives, this script's definitions, and this request's tools";

/// The standalone-only message.
pub const STANDALONE_MESSAGE: &str =
    "Standalone-only tools require one direct call as the entire expression";

/// Checks a literal regexp (byte cap, backreferences, syntax; `spec/reference/regexps.md`) without the
/// input-dependent work estimate: byte budget, subset scan, compile check.
///
/// # Errors
/// A kind `atomic-work` error with the regexp checker's message.
pub fn check_literal_regexp(pattern: &str, limits: &Limits) -> Result<(), Error> {
    ptc_vm::regexp::check_subset(pattern, limits)
}

/// Which arguments (0-based, after the operator) of `primitive` are regexps.
fn regexp_arguments(primitive: &str) -> &'static [usize] {
    match primitive {
        "string-match-p" => &[0],
        "split-string" => &[1, 3],
        "string-trim" => &[1, 2],
        _ => &[],
    }
}

/// What a preflight hands back besides its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Only the verdict.
    Nothing,
    /// The transformer expansions it made to check conveniences and backquote templates of
    /// the definitions (not of other expansions), for
    /// [`crate::expand::Expansion::with_expansions`]: the compile pipeline's mode.
    Expansions,
}

/// Runs preflight over `definitions`: the one entry point.
///
/// `roster` is the full roster; `direct` the script's direct call, if it is one
/// ([`crate::direct::classify`]): only a direct script may name a standalone-only tool.
/// Under `deadline` (when given) the clock is checked before each literal regexp is
/// compiled; once it has run out, the walk reports E0031 (kind `time`) instead of
/// compiling further regexps. With [`Keep::Expansions`] the expansions it made come back
/// (empty with [`Keep::Nothing`]).
///
/// # Errors
/// Every diagnostic found (see the module table), plus E0031.
pub fn preflight(
    definitions: &Definitions,
    roster: &Roster,
    direct: Option<&DirectCall>,
    limits: &Limits,
    interner: &mut Interner,
    deadline: Option<&crate::deadline::Deadline>,
    keep: Keep,
) -> Result<Expansions, Vec<Diagnostic>> {
    let unlimited;
    let deadline = match deadline {
        Some(deadline) => deadline,
        None => {
            let no_clock = Limits {
                seconds: None,
                ..*limits
            };
            unlimited = crate::deadline::Deadline::new(&no_clock, None);
            &unlimited
        }
    };
    let made = match keep {
        Keep::Nothing => None,
        Keep::Expansions => Some(crate::expand::spare_expansions()),
    };
    run(
        definitions,
        roster,
        direct,
        limits,
        interner,
        deadline,
        made,
    )
    .map(Option::unwrap_or_default)
}

fn run(
    definitions: &Definitions,
    roster: &Roster,
    direct: Option<&DirectCall>,
    limits: &Limits,
    interner: &mut Interner,
    deadline: &crate::deadline::Deadline,
    made: Option<Expansions>,
) -> Result<Option<Expansions>, Vec<Diagnostic>> {
    let mut walk = Walk {
        made,
        in_expansion: false,
        deadline,
        out_of_time: false,
        definitions,
        roster,
        direct: direct.is_some(),
        limits,
        depth_limit: expanded_depth_limit(limits),
        branches: 0,
        diagnostics: Vec::new(),
        unknown: Vec::new(),
        seen_unknown: FxHashSet::default(),
    };
    for definition in &definitions.items {
        walk.forms(&definition.body, 1, interner);
    }
    walk.forms(&definitions.body, 1, interner);
    let Walk {
        mut diagnostics,
        unknown,
        made,
        ..
    } = walk;
    if let Some(diagnostic) = unknown_diagnostic(&unknown, definitions, roster, direct, interner) {
        diagnostics.push(diagnostic);
    }
    if diagnostics.is_empty() {
        Ok(made)
    } else {
        Err(diagnostics)
    }
}

fn unknown_diagnostic(
    unknown: &[(String, Span)],
    definitions: &Definitions,
    roster: &Roster,
    direct: Option<&DirectCall>,
    interner: &Interner,
) -> Option<Diagnostic> {
    let ((_, first_span), rest) = unknown.split_first()?;
    let tools = crate::direct::effective_roster(roster, direct);
    let of_kind = |kind: DefinitionKind| {
        definitions
            .items
            .iter()
            .filter(move |d| d.kind == kind)
            .map(|d| name_of(interner, d.name))
    };
    let candidates: Vec<&str> = SPECIAL_FORMS
        .iter()
        .chain(TRANSFORMERS.iter())
        .chain(PRIMITIVES.iter().map(|p| &p.name))
        .copied()
        .chain(tools.tools.iter().map(|t| &*t.name))
        .chain(of_kind(DefinitionKind::Function))
        .chain(of_kind(DefinitionKind::Macro))
        .collect();
    let names: Vec<&str> = unknown.iter().map(|(name, _)| name.as_str()).collect();
    let listed = describe_unknown(&names, &candidates);
    let message = format!("Unknown functions: {listed}.  {UNKNOWN_TAIL}");
    let mut diagnostic = Diagnostic::new("E0301", ErrorKind::Preflight, message, *first_span);
    // Labels are bounded like the list (crate::suggest).
    for (name, span) in rest.iter().take(crate::suggest::MAX_LISTED_NAMES) {
        diagnostic = diagnostic.with_label(*span, format!("unknown function {name}"));
    }
    Some(diagnostic)
}

/// What a head no named arm of [`Walk::form`] takes names ([`Walk::tail`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// A special form or transformer (walked element by element).
    Builtin,
    /// A tool of the roster.
    Tool,
    /// A function of the script.
    Function,
    /// A pure primitive.
    Primitive,
    /// None of these: reported as an unknown function.
    Unknown,
}

struct Walk<'a> {
    /// Where the expansions made of the walked tree's own forms are kept, if wanted.
    made: Option<Expansions>,
    /// Whether the walk is inside an expansion (whose forms are dropped after the walk).
    in_expansion: bool,
    deadline: &'a crate::deadline::Deadline,
    /// Set once E0031 was reported: no further regexp is compiled.
    out_of_time: bool,
    definitions: &'a Definitions,
    roster: &'a Roster,
    direct: bool,
    limits: &'a Limits,
    depth_limit: u64,
    /// How many `parallel` / `parallel-map` branches enclose the form being walked.
    branches: u32,
    diagnostics: Vec<Diagnostic>,
    unknown: Vec<(String, Span)>,
    seen_unknown: FxHashSet<String>,
}

impl Walk<'_> {
    fn forms(&mut self, forms: &[Sexp], depth: u64, interner: &mut Interner) {
        for form in forms {
            // Only lists are checked (`Walk::form` skips everything else): no call per atom.
            if matches!(form.kind, SexpKind::List(_)) {
                self.form(form, depth, interner);
            }
        }
    }

    fn is_standalone(&self, name: &str) -> bool {
        !self.direct && self.roster.get(name).is_some_and(|t| t.standalone)
    }

    fn preflight_error(&mut self, code: &'static str, message: String, span: Span) {
        self.diagnostics
            .push(Diagnostic::new(code, ErrorKind::Preflight, message, span));
    }

    /// Checks `form` through its expansion by `transformer`, keeping the expansion when
    /// `form` is one of the walked tree's own.
    fn expansion(
        &mut self,
        transformer: Transformer,
        form: &Sexp,
        depth: u64,
        interner: &mut Interner,
    ) {
        match transform::expand_counted(transformer, form, self.limits, interner) {
            Ok((expansion, nodes)) => {
                let outer = std::mem::replace(&mut self.in_expansion, true);
                self.form(&expansion, depth, interner);
                self.in_expansion = outer;
                if !outer && let Some(made) = &mut self.made {
                    made.insert(form_key(form), (expansion, nodes));
                }
            }
            Err(diagnostic) => self.diagnostics.push(diagnostic),
        }
    }

    #[allow(clippy::too_many_lines)]
    fn form(&mut self, form: &Sexp, depth: u64, interner: &mut Interner) {
        let SexpKind::List(items) = &form.kind else {
            return;
        };
        if depth > self.depth_limit {
            self.diagnostics.push(Diagnostic::new(
                "E0307",
                ErrorKind::Input,
                format!(
                    "Script nesting exceeds the depth limit of {}",
                    self.depth_limit
                ),
                form.span,
            ));
            return;
        }
        let inner = depth.saturating_add(1);
        let head = form.head_symbol().filter(|s| !s.is_keyword());
        let Some(head) = head else {
            self.forms(items, inner, interner);
            return;
        };
        let args = items.get(1..).unwrap_or_default();
        // The conveniences of `crate::sugar` bind names and take unevaluated parts, so
        // they are checked through their real expansion, as backquote is.
        // Borrowed from the table: every arm is done with it before it recurses (which
        // may write the table).
        let name = interner.name(head).unwrap_or_default();
        if let Some(sugar @ Transformer::Sugar(_)) = Transformer::of_named(form, name) {
            self.expansion(sugar, form, depth, interner);
            return;
        }
        match name {
            "quote" => {}
            "`" => self.expansion(Transformer::Backquote, form, depth, interner),
            "," | ",@" => {
                self.preflight_error(
                    "E0302",
                    format!("'{name}' is only valid inside a backquote template"),
                    form.span,
                );
                self.forms(args, inner, interner);
            }
            "defun" | "defmacro" => self.preflight_error(
                "E0303",
                format!("'{name}' is only allowed as a top-level form of the script"),
                form.span,
            ),
            _ if self.definitions.is_macro(head) => {}
            "lambda" => self.forms(args.get(1..).unwrap_or_default(), inner, interner),
            "let" | "let*" => {
                if let Some(SexpKind::List(bindings)) = args.first().map(|b| &b.kind) {
                    for binding in bindings {
                        if let Some(init) = binding.as_list().and_then(|parts| parts.get(1)) {
                            self.form(init, depth.saturating_add(3), interner);
                        }
                    }
                }
                self.forms(args.get(1..).unwrap_or_default(), inner, interner);
            }
            "condition-case" => {
                // VAR and the condition names are not evaluated; the body and each
                // handler's forms are.
                if let Some(body) = args.get(1) {
                    self.form(body, inner, interner);
                }
                for clause in args.get(2..).unwrap_or_default() {
                    if let Some(parts) = clause.as_list() {
                        self.forms(
                            parts.get(1..).unwrap_or_default(),
                            inner.saturating_add(1),
                            interner,
                        );
                    }
                }
            }
            "cond" => {
                for clause in args {
                    if let Some(parts) = clause.as_list() {
                        self.forms(parts, inner.saturating_add(1), interner);
                    }
                }
            }
            "dolist" | "dotimes" => {
                if let Some(spec) = args.first().and_then(Sexp::as_list) {
                    self.forms(
                        spec.get(1..).unwrap_or_default(),
                        inner.saturating_add(1),
                        interner,
                    );
                }
                self.forms(args.get(1..).unwrap_or_default(), inner, interner);
            }
            "parallel" | "parallel-map" => {
                // A branch may run any code but another set of branches
                // (`vm/src/machine/branches.rs`); `parallel-map`'s LIST runs before them.
                if self.branches > 0 {
                    self.preflight_error(
                        "E0311",
                        format!("'{name}' may not be nested inside a parallel branch"),
                        form.span,
                    );
                }
                let split = if name == "parallel" { args.len() } else { 1 };
                let (inside, after) = args.split_at(split.min(args.len()));
                self.branches += 1;
                self.forms(inside, inner, interner);
                self.branches -= 1;
                self.forms(after, inner, interner);
            }
            "funcall" | "apply" | "mapcar" => {
                // 'TOOL or #'TOOL (no script function or macro may take a tool's name).
                let quoted = args
                    .first()
                    .filter(|f| {
                        f.head_symbol()
                            .is_some_and(|s| matches!(name_of(interner, s), "quote" | "function"))
                    })
                    .and_then(|f| f.as_list().and_then(|parts| parts.get(1)))
                    .and_then(Sexp::as_symbol)
                    .map(|s| name_of(interner, s));
                if quoted.is_some_and(|target| self.is_standalone(target)) {
                    self.preflight_error("E0304", STANDALONE_MESSAGE.to_owned(), form.span);
                }
                if let Some(entry) = quoted.and_then(|target| self.roster.get(target)) {
                    let out = &mut self.diagnostics;
                    match name {
                        "funcall" => {
                            preflight_args::check_funcall(entry, form, items, interner, out);
                        }
                        "apply" => preflight_args::check_apply(entry, form, items, interner, out),
                        _ => {}
                    }
                }
                self.forms(args, inner, interner);
            }
            _ => match self.tail(head, name) {
                Tail::Builtin | Tail::Function => self.forms(args, inner, interner),
                Tail::Tool => {
                    if self.is_standalone(name) {
                        self.preflight_error("E0304", STANDALONE_MESSAGE.to_owned(), form.span);
                    }
                    if let Some(entry) = self.roster.get(name) {
                        preflight_args::check_call(
                            entry,
                            form,
                            items,
                            interner,
                            &mut self.diagnostics,
                        );
                    }
                    self.forms(args, inner, interner);
                }
                Tail::Primitive => {
                    self.regexps(name, args);
                    self.forms(args, inner, interner);
                }
                Tail::Unknown => {
                    if self.seen_unknown.insert(name.to_string()) {
                        // Point at the operator itself, not the whole call.
                        let span = items.first().map_or(form.span, |h| h.span);
                        self.unknown.push((name.to_string(), span));
                    }
                    self.forms(args, inner, interner);
                }
            },
        }
    }

    /// What `head` (named `name`) is when no named arm of [`Walk::form`] takes it: a
    /// special form or transformer, a tool, a script function, a primitive or unknown, in
    /// that order.
    fn tail(&self, head: Symbol, name: &str) -> Tail {
        if is_special_form(name) || is_transformer(name) {
            Tail::Builtin
        } else if self.roster.get(name).is_some() {
            Tail::Tool
        } else if self.definitions.is_function(head) {
            Tail::Function
        } else if is_primitive(name) {
            Tail::Primitive
        } else {
            Tail::Unknown
        }
    }

    fn regexps(&mut self, primitive: &str, args: &[Sexp]) {
        for &index in regexp_arguments(primitive) {
            let Some(SexpKind::Str(pattern)) = args.get(index).map(|a| &a.kind) else {
                continue;
            };
            let span = args.get(index).map_or_else(Span::default, |a| a.span);
            if self.out_of_time {
                return;
            }
            if self.deadline.expired() {
                self.out_of_time = true;
                self.diagnostics.push(self.deadline.diagnostic(span));
                return;
            }
            if let Err(error) = check_literal_regexp(pattern, self.limits) {
                self.diagnostics.push(Diagnostic::new(
                    "E0305",
                    ErrorKind::AtomicWork,
                    error.message().to_owned(),
                    span,
                ));
            } else if primitive == "split-string" && index == 1 && pattern.is_empty() {
                self.diagnostics.push(Diagnostic::new(
                    "E0306",
                    ErrorKind::AtomicWork,
                    "'split-string': an empty separator is forbidden",
                    span,
                ));
            }
        }
    }
}
