//! The builder every transformer and expander shares ([`Builder`]: symbols, lists, calls and
//! quotes at one span, fresh symbols from the interner) and the shape helpers
//! ([`shape`], [`is_variable`]): a leaf, so the dispatch (`transform`, `sugar`) and the
//! expanders (`control`, `places`, `pcase`, `cl_loop`, `rx`, `seq_forms`) all use it
//! without depending on each other.

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::list_pool;
use ptc_vm::{ErrorKind, Interner, Span};

/// Builds the nodes of one expansion, all at `span`.
pub(crate) struct Builder<'a> {
    pub(crate) span: Span,
    pub(crate) interner: &'a mut Interner,
}

pub(crate) fn shape(code: &'static str, message: String, span: Span) -> Diagnostic {
    Diagnostic::new(code, ErrorKind::Script, message, span)
}

/// Whether `datum` is a plain variable name: a symbol that is not a keyword (nil and t
/// are never symbols).
pub(crate) fn is_variable(datum: &Sexp) -> bool {
    datum.as_symbol().is_some_and(|s| !s.is_keyword())
}

impl Builder<'_> {
    pub(crate) fn sym(&mut self, name: &str) -> Sexp {
        Sexp::new(SexpKind::Sym(self.interner.intern(name)), self.span)
    }

    pub(crate) fn list(&self, items: Vec<Sexp>) -> Sexp {
        if items.is_empty() {
            return Sexp::new(SexpKind::Nil, self.span);
        }
        Sexp::new(SexpKind::List(items), self.span)
    }

    pub(crate) fn call(&mut self, operator: &str, args: impl IntoIterator<Item = Sexp>) -> Sexp {
        let args = args.into_iter();
        // Room for the operator and every argument the iterator promises: a pooled buffer
        // or one allocation.
        let mut items = list_pool::take(1 + args.size_hint().0);
        items.push(self.sym(operator));
        items.extend(args);
        self.list(items)
    }

    pub(crate) fn quote(&mut self, datum: &Sexp) -> Sexp {
        self.call("quote", [datum.clone()])
    }
}
