//! Expansion of every transformer and macro call before the script runs.
//!
//! [`Expansion`] walks the evaluated positions of forms (respecting `quote`, `lambda`
//! parameter lists, `let`/`let*` binding names, `cond` clauses) and rewrites every call of a transformer
//! ([`crate::transform`]) or of a script macro ([`MacroExpander`]) in place, re-examining
//! each result at the same position until no transformer or macro call remains.
//!
//! Macro output is re-validated: its size against [`Limits::expansion_nodes`] (kind
//! `expansion`, "Macro expansion exceeded its size limit"), then against the reader
//! contract's node and depth limits (kind `input`). The whole expansion of a program is
//! bounded too, so a macro that expands into itself forever ends with kind `expansion`
//! instead of hanging or exhausting memory:
//!
//! | Code  | Kind      | Message |
//! |-------|-----------|---------|
//! | E0230 | expansion | `Macro expansion exceeded its size limit` |
//! | E0231 | input     | `Script exceeds the %d node limit` (one macro expansion) |
//! | E0232 | input     | `Script nesting exceeds the depth limit of %d` (one macro expansion) |
//! | E0233 | expansion | `Script expansion exceeded its budget of %d expansions; a macro may expand into itself without end` |
//! | E0234 | expansion | `Script expansion exceeded its work budget of %d nodes; a macro may expand into itself without end` |
//! | E0235 | expansion | `Expanded script exceeds its size limit of %d nodes` |
//! | E0236 | expansion | `Expanded script nesting exceeds the depth limit of %d` |
//!
//! Budgets (see [`ExpansionBudget`]): at most `4 × nodes` expansions; at most
//! `256 × expansion-nodes` nodes produced by all expansions together (the time bound);
//! the expanded program at most `nodes + 4 × expansion-nodes` nodes (the memory bound)
//! and [`expanded_depth_limit`] deep (the host-stack bound for every later pass).
//!
//! **Deviation from the original.** The original expands when a form is *reached* at run
//! time, so a transformer shape error such as `(push 1)` in a branch that never runs went
//! unnoticed. ptc expands everything before running, so such errors in dead branches now
//! surface early, as `script` errors before any tool runs. Macros likewise expand once per
//! call site instead of on every evaluation.

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::list_pool;
use crate::scratch;
use crate::transform::{self, Transformer, count_nodes};
use ptc_vm::symbol::well_known;
use ptc_vm::{ErrorKind, Interner, Limits, Span, Symbol};
use std::cell::RefCell;

/// The lowering side's view of the script's macros: it runs a macro's body in the VM.
pub trait MacroExpander {
    /// Whether `name` is a macro of the script.
    fn is_macro(&self, name: Symbol) -> bool;

    /// Runs macro `name` on the unevaluated argument forms `args` of the call at `span`
    /// and returns its expansion as a datum.
    ///
    /// # Errors
    /// Whatever running the macro body raises, as a diagnostic.
    fn expand(
        &mut self,
        name: Symbol,
        args: &[Sexp],
        span: Span,
        interner: &mut Interner,
    ) -> Result<Sexp, Diagnostic>;
}

/// A [`MacroExpander`] for programs without macros.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMacros;

impl MacroExpander for NoMacros {
    fn is_macro(&self, _name: Symbol) -> bool {
        false
    }

    fn expand(
        &mut self,
        _name: Symbol,
        _args: &[Sexp],
        span: Span,
        _interner: &mut Interner,
    ) -> Result<Sexp, Diagnostic> {
        Ok(Sexp::new(SexpKind::Nil, span))
    }
}

/// The deepest an expanded program may nest: `8 × depth`, but never more than
/// [`EXPANDED_DEPTH_CEILING`], so recursive passes over expanded forms stay within the
/// host stack.
#[must_use]
pub fn expanded_depth_limit(limits: &Limits) -> u64 {
    limits.depth.saturating_mul(8).min(EXPANDED_DEPTH_CEILING)
}

/// The hard ceiling of [`expanded_depth_limit`].
pub const EXPANDED_DEPTH_CEILING: u64 = 2048;

/// The whole-program expansion budgets derived from [`Limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpansionBudget {
    /// Most expansions (transformer and macro) of one program.
    pub expansions: u64,
    /// Most nodes all expansions together may produce.
    pub work: u64,
    /// Most nodes of the expanded program.
    pub size: u64,
    /// Deepest nesting of the expanded program.
    pub depth: u64,
}

impl ExpansionBudget {
    /// The budgets for `limits`.
    #[must_use]
    pub fn new(limits: &Limits) -> Self {
        ExpansionBudget {
            expansions: limits.nodes.saturating_mul(4).max(1),
            work: limits.expansion_nodes.saturating_mul(256),
            size: limits
                .nodes
                .saturating_add(limits.expansion_nodes.saturating_mul(4)),
            depth: expanded_depth_limit(limits),
        }
    }
}

/// Operator symbols the walk treats specially, interned once.
struct Operators {
    quote: Symbol,
    lambda: Symbol,
    let_: Symbol,
    let_star: Symbol,
    cond: Symbol,
    defun: Symbol,
    defmacro: Symbol,
}

/// The expansion of one program: budgets are shared by every [`Expansion::expand_forms`]
/// call (definition bodies and the script body).
pub struct Expansion<'a> {
    limits: &'a Limits,
    budget: ExpansionBudget,
    operators: Operators,
    expansions: u64,
    work: u64,
    size: u64,
    /// Expansions preflight already made of the forms being walked
    /// ([`Expansion::with_expansions`]), consumed as they are met.
    made: Expansions,
    /// The size of the forms [`Expansion::expand_forms`] is given next, when the caller
    /// counted it already ([`Expansion::with_size`]).
    counted: Option<u64>,
}

/// Transformer expansions made by preflight, by the address of the form they expand
/// ([`form_key`]) with their node count. Only forms of the tree being expanded are keys,
/// and a key is removed before its form is dropped, so an address is never a key for a
/// form other than the one expanded.
pub(crate) type Expansions = rustc_hash::FxHashMap<usize, (Sexp, u64)>;

thread_local! {
    /// A spare [`Expansions`] table between compiles ([`spare_expansions`]).
    static SPARE_EXPANSIONS: RefCell<Expansions> = RefCell::default();
}

/// An empty [`Expansions`] table: the one the last [`Expansion`] on this thread left, so
/// preflight's table costs no allocation once warm.
pub(crate) fn spare_expansions() -> Expansions {
    scratch::take(&SPARE_EXPANSIONS, 0)
}

/// Hands the expansions no form claimed to the list pool and keeps the table as the spare.
impl Drop for Expansion<'_> {
    fn drop(&mut self) {
        let mut made = std::mem::take(&mut self.made);
        for (_, (form, _)) in made.drain() {
            list_pool::recycle_one(form);
        }
        scratch::give(&SPARE_EXPANSIONS, made);
    }
}

/// The key of `form` in [`Expansions`]: its address (a form does not move while preflight
/// and expansion run: the forms are elements of vectors that are never resized).
pub(crate) fn form_key(form: &Sexp) -> usize {
    std::ptr::from_ref(form) as usize
}

impl std::fmt::Debug for Expansion<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expansion")
            .field("budget", &self.budget)
            .field("expansions", &self.expansions)
            .field("work", &self.work)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// Expands every transformer and macro call of `forms` (one program's worth of budget).
///
/// # Errors
/// The first transformer shape error, macro failure or budget overrun met, in walk order.
pub fn expand_all(
    forms: Vec<Sexp>,
    expander: &mut dyn MacroExpander,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<Vec<Sexp>, Diagnostic> {
    Expansion::new(limits, interner).expand_forms(forms, expander, interner)
}

impl<'a> Expansion<'a> {
    /// A fresh expansion under `limits`.
    pub fn new(limits: &'a Limits, interner: &mut Interner) -> Self {
        Expansion {
            limits,
            budget: ExpansionBudget::new(limits),
            operators: Operators {
                quote: well_known::QUOTE,
                lambda: well_known::LAMBDA,
                let_: interner.intern("let"),
                let_star: interner.intern("let*"),
                cond: interner.intern("cond"),
                defun: interner.intern("defun"),
                defmacro: interner.intern("defmacro"),
            },
            expansions: 0,
            work: 0,
            size: 0,
            made: Expansions::default(),
            counted: None,
        }
    }

    /// Uses `made` (preflight's expansions of these forms, [`crate::preflight`]) instead of
    /// expanding those forms again: the same expansion, charged the same way.
    #[must_use]
    pub(crate) fn with_expansions(mut self, made: Expansions) -> Self {
        self.made = made;
        self
    }

    /// Takes `size` as the sum of [`count_nodes`] over the forms the next
    /// [`Expansion::expand_forms`] is given (the reader counted it: [`crate::reader::read_sized`])
    /// instead of counting them again. Exact sizes only: each form's count must be within
    /// the size budget, as every form of a read script's body is.
    #[must_use]
    pub(crate) fn with_size(mut self, size: u64) -> Self {
        self.counted = Some(size);
        self
    }

    /// Removes every key of [`Expansions`] inside `form`, which is about to be dropped.
    fn forget(&mut self, form: &Sexp) {
        if self.made.is_empty() {
            return;
        }
        let mut pending = vec![form];
        while let Some(form) = pending.pop() {
            match &form.kind {
                SexpKind::List(items) | SexpKind::Vector(items) => {
                    self.made.remove(&form_key(form));
                    pending.extend(items);
                }
                SexpKind::Dotted(items, tail) => {
                    pending.extend(items);
                    pending.push(tail);
                }
                _ => {}
            }
        }
    }

    /// Expands `forms` (top-level forms or one definition body) in place.
    ///
    /// # Errors
    /// As [`expand_all`].
    pub fn expand_forms(
        &mut self,
        mut forms: Vec<Sexp>,
        expander: &mut dyn MacroExpander,
        interner: &mut Interner,
    ) -> Result<Vec<Sexp>, Diagnostic> {
        if let Some(size) = self.counted.take() {
            self.size = self.size.saturating_add(size);
        } else {
            for form in &forms {
                let nodes = count_nodes(form, self.budget.size);
                self.size = self.size.saturating_add(nodes);
            }
        }
        for form in &mut forms {
            self.walk(form, 1, expander, interner)?;
        }
        Ok(forms)
    }

    fn budget_error(&self, code: &'static str, message: String, span: Span) -> Diagnostic {
        Diagnostic::new(code, ErrorKind::Expansion, message, span)
    }

    /// Charges one expansion of a form of `replaced` nodes (its [`count_nodes`] within the
    /// size budget) at `span` into an expansion of `produced` nodes (exact within
    /// [`Limits::expansion_nodes`]) to the program budgets.
    fn account(&mut self, span: Span, replaced: u64, produced: u64) -> Result<(), Diagnostic> {
        self.expansions = self.expansions.saturating_add(1);
        if self.expansions > self.budget.expansions {
            return Err(self.budget_error(
                "E0233",
                format!(
                    "Script expansion exceeded its budget of {} expansions; a macro may expand into itself without end",
                    self.budget.expansions
                ),
                span,
            ));
        }
        self.work = self.work.saturating_add(produced);
        if self.work > self.budget.work {
            return Err(self.budget_error(
                "E0234",
                format!(
                    "Script expansion exceeded its work budget of {} nodes; a macro may expand into itself without end",
                    self.budget.work
                ),
                span,
            ));
        }
        self.size = self.size.saturating_sub(replaced).saturating_add(produced);
        if self.size > self.budget.size {
            return Err(self.budget_error(
                "E0235",
                format!(
                    "Expanded script exceeds its size limit of {} nodes",
                    self.budget.size
                ),
                span,
            ));
        }
        Ok(())
    }

    /// Checks one macro expansion against the expansion and reader-contract limits; its
    /// node count ([`count_nodes`]) when it is within them.
    fn validate_macro_output(&self, expansion: &Sexp, span: Span) -> Result<u64, Diagnostic> {
        let limits = self.limits;
        let size = count_nodes(expansion, limits.expansion_nodes);
        if size > limits.expansion_nodes {
            return Err(Diagnostic::new(
                "E0230",
                ErrorKind::Expansion,
                "Macro expansion exceeded its size limit",
                span,
            ));
        }
        // The reader contract: one node per datum plus one per cons cell; the expansion
        // stands where a top-level form would, at depth 1.
        let mut nodes: u64 = 0;
        let mut pending: Vec<(&Sexp, u64)> = vec![(expansion, 1)];
        while let Some((datum, depth)) = pending.pop() {
            if depth > limits.depth {
                return Err(Diagnostic::new(
                    "E0232",
                    ErrorKind::Input,
                    format!("Script nesting exceeds the depth limit of {}", limits.depth),
                    span,
                ));
            }
            nodes = nodes.saturating_add(1);
            let children: &[Sexp] = match &datum.kind {
                SexpKind::List(items) => {
                    nodes = nodes.saturating_add(items.len() as u64);
                    items
                }
                SexpKind::Vector(items) => items,
                SexpKind::Dotted(items, _) => items,
                _ => &[],
            };
            if nodes > limits.nodes {
                return Err(Diagnostic::new(
                    "E0231",
                    ErrorKind::Input,
                    format!("Script exceeds the {} node limit", limits.nodes),
                    span,
                ));
            }
            let child_depth = depth.saturating_add(1);
            pending.extend(children.iter().map(|c| (c, child_depth)));
        }
        Ok(size)
    }

    /// Rewrites the call at `form` until its operator is no transformer or macro.
    fn expand_here(
        &mut self,
        form: &mut Sexp,
        expander: &mut dyn MacroExpander,
        interner: &mut Interner,
    ) -> Result<(), Diagnostic> {
        loop {
            let Some(head) = form.head_symbol().filter(|s| !s.is_keyword()) else {
                return Ok(());
            };
            // A transformer expansion made here takes the form's body forms instead of
            // copying them: the form is counted and its keys forgotten first.
            let mut moved = None;
            let (expansion, produced) = if let Some(transformer) = Transformer::of(form, interner) {
                match self.made.remove(&form_key(form)) {
                    Some(made) => made,
                    None => {
                        // The size budget is at least `expansion_nodes`, as the moving
                        // expansion's count needs.
                        let size = count_nodes(form, self.budget.size);
                        moved = Some(size);
                        self.forget(form);
                        transform::expand_counted_moving(
                            transformer,
                            form,
                            size,
                            self.limits,
                            interner,
                        )?
                    }
                }
            } else if expander.is_macro(head) {
                let args = form.as_list().and_then(|i| i.get(1..)).unwrap_or_default();
                let expansion = expander.expand(head, args, form.span, interner)?;
                let produced = self.validate_macro_output(&expansion, form.span)?;
                (expansion, produced)
            } else {
                return Ok(());
            };
            let replaced = match moved {
                Some(replaced) => replaced,
                None => {
                    self.forget(form);
                    count_nodes(form, self.budget.size)
                }
            };
            self.account(form.span, replaced, produced)?;
            // What the expansion replaced (whatever the moving transformer left of it)
            // hands its list buffers to the next lists built.
            list_pool::recycle_one(std::mem::replace(form, expansion));
        }
    }

    fn walk(
        &mut self,
        form: &mut Sexp,
        depth: u64,
        expander: &mut dyn MacroExpander,
        interner: &mut Interner,
    ) -> Result<(), Diagnostic> {
        if depth > self.budget.depth {
            return Err(self.budget_error(
                "E0236",
                format!(
                    "Expanded script nesting exceeds the depth limit of {}",
                    self.budget.depth
                ),
                form.span,
            ));
        }
        self.expand_here(form, expander, interner)?;
        let head = form.head_symbol().filter(|s| !s.is_keyword());
        let SexpKind::List(items) = &mut form.kind else {
            return Ok(());
        };
        let ops = &self.operators;
        let inner = depth.saturating_add(1);
        let Some(head) = head else {
            return self.walk_all(items, inner, expander, interner);
        };
        if head == ops.quote || head == ops.defun || head == ops.defmacro {
            return Ok(());
        }
        if head == ops.lambda {
            return self.walk_all(
                items.get_mut(2..).unwrap_or_default(),
                inner,
                expander,
                interner,
            );
        }
        if head == ops.let_ || head == ops.let_star {
            if let Some(SexpKind::List(bindings)) = items.get_mut(1).map(|b| &mut b.kind) {
                for binding in bindings {
                    if let SexpKind::List(parts) = &mut binding.kind
                        && let Some(init) = parts.get_mut(1)
                    {
                        self.walk(init, depth.saturating_add(3), expander, interner)?;
                    }
                }
            }
            return self.walk_all(
                items.get_mut(2..).unwrap_or_default(),
                inner,
                expander,
                interner,
            );
        }
        let is_cond = head == ops.cond;
        let args = items.get_mut(1..).unwrap_or_default();
        if is_cond {
            for entry in args {
                // cond clauses: every element is evaluated.
                if let SexpKind::List(parts) = &mut entry.kind {
                    self.walk_all(parts, inner.saturating_add(1), expander, interner)?;
                }
            }
            return Ok(());
        }
        // Everything else, `parallel` entries and `parallel-map`'s lambda included (their
        // branches may run any code): ordinary forms.
        self.walk_all(args, inner, expander, interner)
    }

    fn walk_all(
        &mut self,
        forms: &mut [Sexp],
        depth: u64,
        expander: &mut dyn MacroExpander,
        interner: &mut Interner,
    ) -> Result<(), Diagnostic> {
        // Within the depth budget, an element that is no list has nothing to expand or
        // walk: no call per atom. Past it, every element is an E0236 error, atoms included.
        let deep = depth > self.budget.depth;
        for form in forms {
            if deep || matches!(form.kind, SexpKind::List(_)) {
                self.walk(form, depth, expander, interner)?;
            }
        }
        Ok(())
    }
}
