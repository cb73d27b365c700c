//! Capture analysis for lowering: which symbols a `lambda` inside a scope mentions (those
//! variables live in heap cells, so closures capture variables, not values) and which are
//! targets of `setq`.
//!
//! Both sets are conservative — any mention inside any nested lambda, any `setq` anywhere,
//! quoted data included — which only costs speed.
//!
//! [`ScopeIndex`] is built by one walk over the whole program before lowering: it records
//! (by address) every node within which some list is headed by `lambda`, or by `setq`. A
//! scope's walk then descends only into such nodes, so each `let` or function body no longer
//! walks its whole subtree again; inside a lambda every symbol is collected, as before. The
//! sets a walk returns are exactly those of a walk without the index.
//!
//! Invariants: the index is only consulted for nodes of the trees it was built from (the
//! lowering input, which is borrowed immutably for the whole of lowering, so addresses are
//! stable); when some form nests deeper than [`WALK_DEPTH`] the index is marked inexact and
//! every walk descends everywhere. The walks recurse once per nested list (never per atom) to
//! [`WALK_DEPTH`] levels and continue iteratively past it, so no input depth can overflow the
//! host stack.

use crate::ast::{Sexp, SexpKind};
use crate::scratch::{self, slots};
use ptc_vm::symbol::{Symbol, well_known::LAMBDA};
use rustc_hash::FxHashSet;
use std::cell::RefCell;

slots! {
    /// [`ScopeIndex::marked`]'s buffer, between compiles.
    static MARKED: (usize, u8);
}

thread_local! {
    /// A spare capture set ([`Captured`]), between uses: most scripts need one at a time.
    static SPARE_SET: RefCell<FxHashSet<Symbol>> = RefCell::default();
}

/// A capture set ([`ScopeIndex::lambda_symbols`]); its table is reused by the next one.
#[derive(Debug, PartialEq)]
pub(super) struct Captured(FxHashSet<Symbol>);

impl Captured {
    /// Whether `symbol` is mentioned inside a `lambda`.
    pub(super) fn contains(&self, symbol: &Symbol) -> bool {
        self.0.contains(symbol)
    }
}

impl Drop for Captured {
    fn drop(&mut self) {
        scratch::give(&SPARE_SET, std::mem::take(&mut self.0));
    }
}

/// The nodes of the program that hold a `lambda`- or `setq`-headed list.
#[derive(Debug)]
pub(super) struct ScopeIndex {
    /// `(address, flags)` of every marked node, sorted by address.
    marked: Vec<(usize, u8)>,
    /// False when some form nests deeper than [`WALK_DEPTH`]: then nothing is pruned.
    exact: bool,
    /// Whether some list or vector is headed by `lambda` (true when not `exact`).
    any_lambda: bool,
    /// The `setq` symbol, when the script's table has it.
    setq: Option<Symbol>,
    /// The `parallel` symbol, when the script's table has it: its entries are branch
    /// bodies, lowered as closures, so they count as `lambda`s here.
    parallel: Option<Symbol>,
    /// How many atoms of the program are not plain symbols or small integers (keywords,
    /// strings, floats, ...): what the constant pool is first sized for.
    pub(super) literals: usize,
    /// How many nodes the first body (the script body) has, lists and atoms alike: what
    /// its code vector is first sized for.
    pub(super) first_nodes: usize,
    /// How many lists or vectors are headed by `lambda` (each becomes a function).
    pub(super) lambdas: usize,
    /// Nodes marked so far.
    nodes: usize,
}

impl Drop for ScopeIndex {
    fn drop(&mut self) {
        scratch::give(&MARKED, std::mem::take(&mut self.marked));
    }
}

/// The node is, or holds, a list or vector headed by `lambda`.
const HOLDS_LAMBDA: u8 = 1;
/// The node is, or holds, a list or vector headed by `setq`.
const HOLDS_SETQ: u8 = 2;

fn address(node: &Sexp) -> usize {
    std::ptr::from_ref(node) as usize
}

/// The head symbol of a list or vector's elements.
fn head(items: &[Sexp]) -> Option<Symbol> {
    items.first().and_then(Sexp::as_symbol)
}

impl ScopeIndex {
    /// The index of every form in `bodies`, `setq` being the table's `setq` symbol.
    pub(super) fn new<'t>(
        bodies: impl IntoIterator<Item = &'t [Sexp]>,
        setq: Option<Symbol>,
        parallel: Option<Symbol>,
    ) -> Self {
        let mut index = ScopeIndex {
            marked: scratch::take(&MARKED, 0),
            exact: true,
            any_lambda: false,
            setq,
            parallel,
            literals: 0,
            first_nodes: 0,
            lambdas: 0,
            nodes: 0,
        };
        for (at, body) in bodies.into_iter().enumerate() {
            match index.mark(body, 0) {
                Ok(flags) => index.any_lambda |= flags & HOLDS_LAMBDA != 0,
                Err(TooDeep) => {
                    index.exact = false;
                    index.any_lambda = true;
                    index.marked = Vec::new();
                    return index;
                }
            }
            if at == 0 {
                index.first_nodes = index.nodes;
            }
        }
        index.marked.sort_unstable_by_key(|&(address, _)| address);
        index
    }

    /// Marks the nodes within `items`; returns the flags of what they hold.
    fn mark(&mut self, items: &[Sexp], depth: u32) -> Result<u8, TooDeep> {
        let mut all = 0;
        self.nodes += items.len();
        for item in items {
            let flags = match &item.kind {
                SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..)
                    if depth >= WALK_DEPTH =>
                {
                    return Err(TooDeep);
                }
                SexpKind::List(inner) | SexpKind::Vector(inner) => {
                    let mut flags = self.mark(inner, depth + 1)?;
                    let head = head(inner);
                    if opens_closure(head, self.parallel) {
                        flags |= HOLDS_LAMBDA;
                        self.lambdas += 1;
                    }
                    if head.is_some() && head == self.setq {
                        flags |= HOLDS_SETQ;
                    }
                    flags
                }
                SexpKind::Dotted(inner, tail) => {
                    // The setq walk never enters a dotted list; the lambda walk does.
                    let inner = self.mark(inner, depth + 1)?
                        | self.mark(std::slice::from_ref(tail), depth + 1)?;
                    inner & HOLDS_LAMBDA
                }
                SexpKind::Sym(symbol) => {
                    self.literals += usize::from(symbol.is_keyword());
                    0
                }
                SexpKind::Nil | SexpKind::T | SexpKind::Int(_) => 0,
                SexpKind::Big(_) | SexpKind::Float(_) | SexpKind::Str(_) => {
                    self.literals += 1;
                    0
                }
            };
            if flags != 0 {
                if self.marked.capacity() == 0 {
                    // A lambda or setq is usually a few levels deep: its list and those
                    // holding it fit without regrowing.
                    self.marked.reserve(8);
                }
                self.marked.push((address(item), flags));
            }
            all |= flags;
        }
        Ok(all)
    }

    /// Whether a walk looking for `flag` must enter `node`.
    fn enters(&self, node: &Sexp, flag: u8) -> bool {
        if !self.exact {
            return true;
        }
        let address = address(node);
        self.marked
            .binary_search_by_key(&address, |&(address, _)| address)
            .is_ok_and(|at| {
                self.marked
                    .get(at)
                    .is_some_and(|&(_, flags)| flags & flag != 0)
            })
    }

    /// Every symbol mentioned inside any `lambda` form within `forms` (the conservative
    /// capture set). The set is only allocated once a symbol is found, and its table is
    /// reused by later sets.
    pub(super) fn lambda_symbols(&self, forms: &[Sexp]) -> Captured {
        let mut found = scratch::take(&SPARE_SET, 0);
        if self.any_lambda {
            self.lambda_walk(forms, false, 0, &mut found);
        }
        Captured(found)
    }

    /// [`ScopeIndex::lambda_symbols`] over `items` (the elements of one list, `inside` a
    /// lambda or not): one call per nested list, none per atom; outside a lambda, only
    /// into nodes that hold one.
    fn lambda_walk(&self, items: &[Sexp], inside: bool, depth: u32, found: &mut FxHashSet<Symbol>) {
        for item in items {
            match &item.kind {
                SexpKind::Sym(symbol) if inside => {
                    insert_sized(found, *symbol);
                }
                SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..)
                    if !inside && !self.enters(item, HOLDS_LAMBDA) => {}
                SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..)
                    if depth >= WALK_DEPTH =>
                {
                    lambda_walk_iterative(item, inside, self.parallel, found);
                }
                SexpKind::List(inner) | SexpKind::Vector(inner) => {
                    let inside = inside || opens_closure(head(inner), self.parallel);
                    self.lambda_walk(inner, inside, depth + 1, found);
                }
                SexpKind::Dotted(inner, tail) => {
                    self.lambda_walk(inner, inside, depth + 1, found);
                    self.lambda_walk(std::slice::from_ref(tail), inside, depth + 1, found);
                }
                _ => {}
            }
        }
    }

    /// Every symbol that is the target of a `setq` somewhere within `forms` (conservative:
    /// nested lambdas and quoted data included).
    pub(super) fn assigned_symbols(&self, forms: &[Sexp]) -> FxHashSet<Symbol> {
        let mut found = FxHashSet::default();
        let Some(setq) = self.setq else { return found };
        self.assigned_walk(forms, setq, 0, &mut found);
        found
    }

    /// [`ScopeIndex::assigned_symbols`] over the elements of one list: one call per nested
    /// list, only into nodes that hold a `setq`.
    fn assigned_walk(
        &self,
        items: &[Sexp],
        setq: Symbol,
        depth: u32,
        found: &mut FxHashSet<Symbol>,
    ) {
        for item in items {
            if let SexpKind::List(inner) | SexpKind::Vector(inner) = &item.kind {
                if !self.enters(item, HOLDS_SETQ) {
                    continue;
                }
                if depth >= WALK_DEPTH {
                    assigned_walk_iterative(item, setq, found);
                    continue;
                }
                if head(inner) == Some(setq) {
                    found.extend(inner.iter().skip(1).step_by(2).filter_map(Sexp::as_symbol));
                }
                self.assigned_walk(inner, setq, depth + 1, found);
            }
        }
    }
}

/// The index walk met a form nested deeper than [`WALK_DEPTH`].
#[derive(Debug, PartialEq)]
struct TooDeep;

/// Room a capture set takes on its first symbol: a lambda's mentions usually fit, so the
/// set grows once instead of doubling from its smallest size.
const FIRST_ROOM: usize = 16;

/// Inserts `symbol`, giving an empty set [`FIRST_ROOM`] first.
fn insert_sized(found: &mut FxHashSet<Symbol>, symbol: Symbol) {
    if found.capacity() == 0 {
        found.reserve(FIRST_ROOM);
    }
    found.insert(symbol);
}

/// How deep the recursive walks of this module go before they continue iteratively.
const WALK_DEPTH: u32 = 64;

/// Whether a list headed by `head` makes closures of its body: `lambda`, and `parallel`
/// (whose entries are branch closures).
fn opens_closure(head: Option<Symbol>, parallel: Option<Symbol>) -> bool {
    head == Some(LAMBDA) || (head.is_some() && head == parallel)
}

fn lambda_walk_iterative(
    form: &Sexp,
    inside: bool,
    parallel: Option<Symbol>,
    found: &mut FxHashSet<Symbol>,
) {
    let mut stack: Vec<(&Sexp, bool)> = vec![(form, inside)];
    while let Some((form, inside)) = stack.pop() {
        match &form.kind {
            SexpKind::Sym(symbol) if inside => {
                found.insert(*symbol);
            }
            SexpKind::Dotted(items, tail) => {
                stack.push((tail, inside));
                stack.extend(items.iter().map(|item| (item, inside)));
            }
            SexpKind::List(items) | SexpKind::Vector(items) => {
                let is_lambda = opens_closure(head(items), parallel);
                for item in items {
                    stack.push((item, inside || is_lambda));
                }
            }
            _ => {}
        }
    }
}

fn assigned_walk_iterative(form: &Sexp, setq: Symbol, found: &mut FxHashSet<Symbol>) {
    let mut stack: Vec<&Sexp> = vec![form];
    while let Some(form) = stack.pop() {
        if let SexpKind::List(items) | SexpKind::Vector(items) = &form.kind {
            if head(items) == Some(setq) {
                found.extend(items.iter().skip(1).step_by(2).filter_map(Sexp::as_symbol));
            }
            stack.extend(items.iter());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_vm::{Interner, Limits};

    impl ScopeIndex {
        /// An index that prunes nothing: every walk descends everywhere, as before the
        /// index existed.
        fn unpruned(setq: Option<Symbol>) -> Self {
            ScopeIndex {
                marked: Vec::new(),
                exact: false,
                any_lambda: true,
                setq,
                parallel: None,
                literals: 0,
                first_nodes: 0,
                lambdas: 0,
                nodes: 0,
            }
        }
    }

    /// Every element slice of every list, vector and dotted list in `items`, `items` too.
    fn slices<'t>(items: &'t [Sexp], out: &mut Vec<&'t [Sexp]>) {
        out.push(items);
        for item in items {
            match &item.kind {
                SexpKind::List(inner) | SexpKind::Vector(inner) => slices(inner, out),
                SexpKind::Dotted(inner, tail) => {
                    slices(inner, out);
                    slices(std::slice::from_ref(tail), out);
                }
                _ => {}
            }
        }
    }

    /// The pruned walks give exactly the sets of the unpruned ones, for every scope.
    #[test]
    fn pruned_walks_find_what_full_walks_find() {
        let scripts = [
            include_str!("../../../benches/programs/agent.lisp"),
            "(let ((x 1) (y 2)) (setq x 3) (list (lambda () (setq y x)) [a (lambda (z) z)]))",
            "(let* ((f (lambda (a) (lambda (b) (+ a b c))))) (funcall (funcall f 1) 2) '(lambda q))",
            "(progn (setq a 1) (let ((b '(x . (lambda (k) k)))) `(,b . (setq c 2))))",
            "(dolist (x '(1 2)) (let ((y x)) (setq y (1+ y)) (mapcar (lambda (v) (* v y)) '(3))))",
            "(let ((n 0)) (while (< n 3) (setq n (1+ n))) n)",
            "(+ 1 2)",
        ];
        let mut compared = 0;
        for script in scripts {
            let mut interner = Interner::new();
            let forms = crate::reader::read(script, &Limits::default(), &mut interner)
                .expect("the script reads");
            let setq = interner.lookup("setq");
            let index = ScopeIndex::new([forms.as_slice()], setq, None);
            assert!(index.exact, "{script}");
            let full = ScopeIndex::unpruned(setq);
            let mut all = Vec::new();
            slices(&forms, &mut all);
            for items in all {
                assert_eq!(
                    index.lambda_symbols(items),
                    full.lambda_symbols(items),
                    "{script}"
                );
                assert_eq!(
                    index.assigned_symbols(items),
                    full.assigned_symbols(items),
                    "{script}"
                );
                compared += 1;
            }
        }
        assert!(compared > 40, "{compared} scopes compared");
    }

    /// A lambda the walks see: `x` is captured in the scope that holds the lambda, not in
    /// one beside it; `y`, only assigned, is not captured but is assigned.
    #[test]
    fn captures_are_found_only_where_a_lambda_is() {
        let mut interner = Interner::new();
        let script = "(list (let ((x 1)) (lambda () x)) (let ((y 2)) (setq y 3) y))";
        let forms = crate::reader::read(script, &Limits::default(), &mut interner)
            .expect("the script reads");
        let index = ScopeIndex::new([forms.as_slice()], interner.lookup("setq"), None);
        let x = interner.lookup("x").expect("x");
        let y = interner.lookup("y").expect("y");
        let lists: Vec<&[Sexp]> = match &forms[0].kind {
            SexpKind::List(items) => items[1..]
                .iter()
                .filter_map(|item| item.as_list())
                .collect(),
            other => panic!("{other:?}"),
        };
        assert!(index.lambda_symbols(lists[0]).contains(&x));
        assert!(!index.lambda_symbols(lists[1]).contains(&y));
        assert!(index.assigned_symbols(lists[1]).contains(&y));
        assert!(!index.assigned_symbols(lists[0]).contains(&x));
        assert_eq!(index.lambdas, 1);
    }

    /// Past the recursion depth the index gives up pruning (and still answers the same).
    #[test]
    fn deep_forms_are_walked_unpruned() {
        let mut interner = Interner::new();
        let depth = usize::try_from(WALK_DEPTH).expect("fits") + 10;
        let script = format!(
            "{}(lambda () deep){}",
            "(list ".repeat(depth),
            ")".repeat(depth)
        );
        let forms = crate::reader::read(&script, &Limits::default(), &mut interner)
            .expect("the script reads");
        let index = ScopeIndex::new([forms.as_slice()], None, None);
        assert!(!index.exact);
        let deep = interner.lookup("deep").expect("deep");
        assert!(index.lambda_symbols(&forms).contains(&deep));
    }
}
