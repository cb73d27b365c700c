//! The closed table of pure primitives.
//!
//! [`PRIMITIVES`] is the single, hand-audited literal that decides which pure operations a
//! guest may call: the original's 80 names (spec/reference/primitives.md) and the Emacs functions models
//! write that issue 18 added (each pure and audited), nothing derived from anything
//! open-ended. Each entry gives the name, the Emacs-style signature the reference
//! prints, the arity the machine checks before the primitive runs, and the function.
//!
//! The contract every primitive keeps:
//! - It receives its evaluated arguments, already arity-checked and already checked against
//!   the value budget with shared structure counted per use (so `(append s s s)` is sized
//!   three times). It may assume nothing else about their types.
//! - It reports the work it did with [`PrimCtx::charge`] (one fuel unit per list element
//!   visited and per 32 bytes of text scanned or produced) and the fresh structure it built
//!   with [`PrimCtx::alloc`] (weight bytes of new strings, conses, vector slots and big
//!   integers). The machine checks both budgets after the call, so a primitive can overshoot
//!   a budget by at most its own charge, which the value budget bounds.
//! - Its result is checked against the value budget by the machine.
//! - It never panics, never recurses on the host stack over guest data, and never touches
//!   anything outside its arguments and the context.

use crate::error::Result;
use crate::limits::Limits;
use crate::regexp::RegexCache;
use crate::symbol::Symbols;
use crate::value::Value;

/// Binds `$test` to an `eq` test against `$key` specialised to the key's kind, then
/// evaluates `$body`: a symbol or fixnum key (the usual plist and alist keys) compares by
/// value in line, so a scan does not call [`crate::equal::eq`] per element; other keys use it.
macro_rules! with_eq_test {
    ($key:expr, |$test:ident| $body:expr) => {
        match $key {
            Value::Sym(symbol) => {
                let symbol = *symbol;
                let $test = |v: &Value| matches!(v, Value::Sym(x) if *x == symbol);
                $body
            }
            Value::Int(n) => {
                let n = *n;
                let $test = |v: &Value| matches!(v, Value::Int(x) if *x == n);
                $body
            }
            key => {
                let $test = |v: &Value| crate::equal::eq(key, v);
                $body
            }
        }
    };
}

mod alist;
mod casing;
pub(crate) mod fast;
mod file_name;
mod format;
mod hash;
mod json_prims;
mod list;
mod map;
mod more;
mod number;
mod predicate;
mod seq;
mod seq_more;
pub mod signal;
mod string;
mod text;

/// What a primitive may use besides its arguments.
#[derive(Debug)]
pub struct PrimCtx<'a> {
    /// The run's budgets (regexp, split-string and string-to-number guards read them).
    pub limits: &'a Limits,
    /// The run's symbol table (printing, `gensym`).
    pub symbols: &'a mut Symbols,
    /// The run's compiled-regexp cache, when the machine keeps one ([`PrimCtx::with_regexps`]);
    /// without it every regexp primitive compiles its pattern afresh.
    pub regexps: Option<&'a mut RegexCache>,
    work: u64,
    allocated: u64,
}

impl<'a> PrimCtx<'a> {
    /// A context over the run's budgets and symbols, with nothing charged yet.
    pub fn new(limits: &'a Limits, symbols: &'a mut Symbols) -> Self {
        PrimCtx {
            limits,
            symbols,
            regexps: None,
            work: 0,
            allocated: 0,
        }
    }

    /// The same context using the run's regexp cache `regexps`.
    #[must_use]
    pub fn with_regexps(mut self, regexps: &'a mut RegexCache) -> Self {
        self.regexps = Some(regexps);
        self
    }

    /// Records `units` of fuel for work done beyond the call itself.
    pub fn charge(&mut self, units: u64) {
        self.work = self.work.saturating_add(units);
    }

    /// Records `bytes` of freshly built structure, for the retained budget: real heap bytes,
    /// as [`crate::heap`] computes them.
    pub fn alloc(&mut self, bytes: u64) {
        self.allocated = self.allocated.saturating_add(bytes);
    }

    /// The fuel units charged so far.
    #[must_use]
    pub fn work(&self) -> u64 {
        self.work
    }

    /// The heap bytes allocated so far.
    #[must_use]
    pub fn allocated(&self) -> u64 {
        self.allocated
    }
}

/// A primitive's implementation.
pub type PrimFn = fn(&mut PrimCtx<'_>, &[Value]) -> Result<Value>;

/// One entry of the closed table.
#[derive(Debug, Clone, Copy)]
pub struct Primitive {
    /// The guest name.
    pub name: &'static str,
    /// The signature as the reference prints it.
    pub signature: &'static str,
    /// Fewest arguments accepted.
    pub min_args: u8,
    /// Most arguments accepted; `None` for `&rest`.
    pub max_args: Option<u8>,
    /// The implementation.
    pub run: PrimFn,
}

impl Primitive {
    /// Whether `count` arguments satisfy this primitive's arity.
    #[must_use]
    pub fn accepts(&self, count: usize) -> bool {
        count >= usize::from(self.min_args)
            && self.max_args.is_none_or(|max| count <= usize::from(max))
    }
}

/// The closed table: the original's 80 pure primitives, the 68 of issue 18, then the
/// 60 of issue 46, in the reference's order.
pub static PRIMITIVES: [Primitive; 208] = [
    Primitive {
        name: "car",
        signature: "(car LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::car,
    },
    Primitive {
        name: "cdr",
        signature: "(cdr LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::cdr,
    },
    Primitive {
        name: "caar",
        signature: "(caar LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::caar,
    },
    Primitive {
        name: "cadr",
        signature: "(cadr LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::cadr,
    },
    Primitive {
        name: "cdar",
        signature: "(cdar LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::cdar,
    },
    Primitive {
        name: "cddr",
        signature: "(cddr LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::cddr,
    },
    Primitive {
        name: "cons",
        signature: "(cons CAR CDR)",
        min_args: 2,
        max_args: Some(2),
        run: list::cons,
    },
    Primitive {
        name: "list",
        signature: "(list &rest OBJECTS)",
        min_args: 0,
        max_args: None,
        run: list::list,
    },
    Primitive {
        name: "append",
        signature: "(append &rest SEQUENCES)",
        min_args: 0,
        max_args: None,
        run: list::append,
    },
    Primitive {
        name: "length",
        signature: "(length SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: list::length,
    },
    Primitive {
        name: "nth",
        signature: "(nth N LIST)",
        min_args: 2,
        max_args: Some(2),
        run: list::nth,
    },
    Primitive {
        name: "nthcdr",
        signature: "(nthcdr N LIST)",
        min_args: 2,
        max_args: Some(2),
        run: list::nthcdr,
    },
    Primitive {
        name: "last",
        signature: "(last LIST &optional N)",
        min_args: 1,
        max_args: Some(2),
        run: list::last,
    },
    Primitive {
        name: "take",
        signature: "(take N LIST)",
        min_args: 2,
        max_args: Some(2),
        run: list::take,
    },
    Primitive {
        name: "reverse",
        signature: "(reverse SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: list::reverse,
    },
    Primitive {
        name: "sort",
        signature: "(sort LIST)",
        min_args: 1,
        max_args: Some(1),
        run: list::sort,
    },
    Primitive {
        name: "member",
        signature: "(member ELT LIST)",
        min_args: 2,
        max_args: Some(2),
        run: list::member,
    },
    Primitive {
        name: "memq",
        signature: "(memq ELT LIST)",
        min_args: 2,
        max_args: Some(2),
        run: list::memq,
    },
    Primitive {
        name: "assoc",
        signature: "(assoc KEY ALIST &optional TESTFN)",
        min_args: 2,
        max_args: Some(3),
        run: list::assoc,
    },
    Primitive {
        name: "assq",
        signature: "(assq KEY ALIST)",
        min_args: 2,
        max_args: Some(2),
        run: list::assq,
    },
    Primitive {
        name: "plist-get",
        signature: "(plist-get PLIST PROP &optional PREDICATE)",
        min_args: 2,
        max_args: Some(3),
        run: list::plist_get,
    },
    Primitive {
        name: "plist-member",
        signature: "(plist-member PLIST PROP &optional PREDICATE)",
        min_args: 2,
        max_args: Some(3),
        run: list::plist_member,
    },
    Primitive {
        name: "concat",
        signature: "(concat &rest SEQUENCES)",
        min_args: 0,
        max_args: None,
        run: string::concat,
    },
    Primitive {
        name: "format",
        signature: "(format STRING &rest OBJECTS)",
        min_args: 1,
        max_args: None,
        run: format::format,
    },
    Primitive {
        name: "substring",
        signature: "(substring STRING &optional FROM TO)",
        min_args: 1,
        max_args: Some(3),
        run: string::substring,
    },
    Primitive {
        name: "split-string",
        signature: "(split-string STRING &optional SEPARATORS OMIT-NULLS TRIM)",
        min_args: 1,
        max_args: Some(4),
        run: string::split_string,
    },
    Primitive {
        name: "string-join",
        signature: "(string-join STRINGS &optional SEPARATOR)",
        min_args: 1,
        max_args: Some(2),
        run: string::string_join,
    },
    Primitive {
        name: "file-name-nondirectory",
        signature: "(file-name-nondirectory FILENAME)",
        min_args: 1,
        max_args: Some(1),
        run: file_name::nondirectory,
    },
    Primitive {
        name: "file-name-directory",
        signature: "(file-name-directory FILENAME)",
        min_args: 1,
        max_args: Some(1),
        run: file_name::directory,
    },
    Primitive {
        name: "file-name-concat",
        signature: "(file-name-concat DIRECTORY &rest COMPONENTS)",
        min_args: 1,
        max_args: None,
        run: file_name::concat,
    },
    Primitive {
        name: "file-name-extension",
        signature: "(file-name-extension FILENAME &optional PERIOD)",
        min_args: 1,
        max_args: Some(2),
        run: file_name::extension,
    },
    Primitive {
        name: "file-name-sans-extension",
        signature: "(file-name-sans-extension FILENAME)",
        min_args: 1,
        max_args: Some(1),
        run: file_name::sans_extension,
    },
    Primitive {
        name: "file-name-base",
        signature: "(file-name-base &optional FILENAME)",
        min_args: 0,
        max_args: Some(1),
        run: file_name::base,
    },
    Primitive {
        name: "string-trim",
        signature: "(string-trim STRING &optional TRIM-LEFT TRIM-RIGHT)",
        min_args: 1,
        max_args: Some(3),
        run: string::string_trim,
    },
    Primitive {
        name: "string-prefix-p",
        signature: "(string-prefix-p PREFIX STRING &optional IGNORE-CASE)",
        min_args: 2,
        max_args: Some(3),
        run: string::string_prefix_p,
    },
    Primitive {
        name: "string-suffix-p",
        signature: "(string-suffix-p SUFFIX STRING &optional IGNORE-CASE)",
        min_args: 2,
        max_args: Some(3),
        run: string::string_suffix_p,
    },
    Primitive {
        name: "string-match-p",
        signature: "(string-match-p REGEXP STRING &optional START)",
        min_args: 2,
        max_args: Some(3),
        run: string::string_match_p,
    },
    Primitive {
        name: "string-search",
        signature: "(string-search NEEDLE HAYSTACK &optional START-POS)",
        min_args: 2,
        max_args: Some(3),
        run: string::string_search,
    },
    Primitive {
        name: "regexp-quote",
        signature: "(regexp-quote STRING)",
        min_args: 1,
        max_args: Some(1),
        run: string::regexp_quote,
    },
    Primitive {
        name: "upcase",
        signature: "(upcase OBJ)",
        min_args: 1,
        max_args: Some(1),
        run: string::upcase,
    },
    Primitive {
        name: "downcase",
        signature: "(downcase OBJ)",
        min_args: 1,
        max_args: Some(1),
        run: string::downcase,
    },
    Primitive {
        name: "capitalize",
        signature: "(capitalize OBJ)",
        min_args: 1,
        max_args: Some(1),
        run: string::capitalize,
    },
    Primitive {
        name: "number-to-string",
        signature: "(number-to-string NUMBER)",
        min_args: 1,
        max_args: Some(1),
        run: string::number_to_string,
    },
    Primitive {
        name: "string-to-number",
        signature: "(string-to-number STRING &optional BASE)",
        min_args: 1,
        max_args: Some(2),
        run: string::string_to_number,
    },
    Primitive {
        name: "+",
        signature: "(+ &rest NUMBERS)",
        min_args: 0,
        max_args: None,
        run: number::add,
    },
    Primitive {
        name: "-",
        signature: "(- &optional NUMBER &rest NUMBERS)",
        min_args: 0,
        max_args: None,
        run: number::sub,
    },
    Primitive {
        name: "*",
        signature: "(* &rest NUMBERS)",
        min_args: 0,
        max_args: None,
        run: number::mul,
    },
    Primitive {
        name: "/",
        signature: "(/ NUMBER &rest DIVISORS)",
        min_args: 1,
        max_args: None,
        run: number::div,
    },
    Primitive {
        name: "%",
        signature: "(% X Y)",
        min_args: 2,
        max_args: Some(2),
        run: number::rem,
    },
    Primitive {
        name: "mod",
        signature: "(mod X Y)",
        min_args: 2,
        max_args: Some(2),
        run: number::modulo,
    },
    Primitive {
        name: "abs",
        signature: "(abs ARG)",
        min_args: 1,
        max_args: Some(1),
        run: number::abs,
    },
    Primitive {
        name: "max",
        signature: "(max NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::max,
    },
    Primitive {
        name: "min",
        signature: "(min NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::min,
    },
    Primitive {
        name: "float",
        signature: "(float ARG)",
        min_args: 1,
        max_args: Some(1),
        run: number::float,
    },
    Primitive {
        name: "truncate",
        signature: "(truncate ARG &optional DIVISOR)",
        min_args: 1,
        max_args: Some(2),
        run: number::truncate,
    },
    Primitive {
        name: "round",
        signature: "(round ARG &optional DIVISOR)",
        min_args: 1,
        max_args: Some(2),
        run: number::round,
    },
    Primitive {
        name: "floor",
        signature: "(floor ARG &optional DIVISOR)",
        min_args: 1,
        max_args: Some(2),
        run: number::floor,
    },
    Primitive {
        name: "ceiling",
        signature: "(ceiling ARG &optional DIVISOR)",
        min_args: 1,
        max_args: Some(2),
        run: number::ceiling,
    },
    Primitive {
        name: "=",
        signature: "(= NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::num_eq,
    },
    Primitive {
        name: "/=",
        signature: "(/= NUM1 NUM2)",
        min_args: 2,
        max_args: Some(2),
        run: number::num_ne,
    },
    Primitive {
        name: "<",
        signature: "(< NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::lt,
    },
    Primitive {
        name: ">",
        signature: "(> NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::gt,
    },
    Primitive {
        name: "<=",
        signature: "(<= NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::le,
    },
    Primitive {
        name: ">=",
        signature: "(>= NUMBER &rest NUMBERS)",
        min_args: 1,
        max_args: None,
        run: number::ge,
    },
    Primitive {
        name: "eq",
        signature: "(eq OBJ1 OBJ2)",
        min_args: 2,
        max_args: Some(2),
        run: predicate::eq,
    },
    Primitive {
        name: "eql",
        signature: "(eql OBJ1 OBJ2)",
        min_args: 2,
        max_args: Some(2),
        run: predicate::eql,
    },
    Primitive {
        name: "equal",
        signature: "(equal OBJ1 OBJ2)",
        min_args: 2,
        max_args: Some(2),
        run: predicate::equal,
    },
    Primitive {
        name: "null",
        signature: "(null OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::null,
    },
    Primitive {
        name: "not",
        signature: "(not OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::not,
    },
    Primitive {
        name: "atom",
        signature: "(atom OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::atom,
    },
    Primitive {
        name: "consp",
        signature: "(consp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::consp,
    },
    Primitive {
        name: "listp",
        signature: "(listp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::listp,
    },
    Primitive {
        name: "stringp",
        signature: "(stringp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::stringp,
    },
    Primitive {
        name: "numberp",
        signature: "(numberp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::numberp,
    },
    Primitive {
        name: "integerp",
        signature: "(integerp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::integerp,
    },
    Primitive {
        name: "floatp",
        signature: "(floatp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::floatp,
    },
    Primitive {
        name: "symbolp",
        signature: "(symbolp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::symbolp,
    },
    Primitive {
        name: "sequencep",
        signature: "(sequencep OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::sequencep,
    },
    Primitive {
        name: "identity",
        signature: "(identity ARG)",
        min_args: 1,
        max_args: Some(1),
        run: predicate::identity,
    },
    Primitive {
        name: "gensym",
        signature: "(gensym &optional PREFIX)",
        min_args: 0,
        max_args: Some(1),
        run: string::gensym,
    },
    // Issue 18: the Emacs Lisp models write (reference: the second table of primitives.md).
    Primitive {
        name: "1+",
        signature: "(1+ NUMBER)",
        min_args: 1,
        max_args: Some(1),
        run: seq::one_plus,
    },
    Primitive {
        name: "1-",
        signature: "(1- NUMBER)",
        min_args: 1,
        max_args: Some(1),
        run: seq::one_minus,
    },
    Primitive {
        name: "car-safe",
        signature: "(car-safe OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: seq::car_safe,
    },
    Primitive {
        name: "cdr-safe",
        signature: "(cdr-safe OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: seq::cdr_safe,
    },
    Primitive {
        name: "butlast",
        signature: "(butlast LIST &optional N)",
        min_args: 1,
        max_args: Some(2),
        run: seq::butlast,
    },
    Primitive {
        name: "nreverse",
        signature: "(nreverse SEQ)",
        min_args: 1,
        max_args: Some(1),
        run: seq::nreverse,
    },
    Primitive {
        name: "number-sequence",
        signature: "(number-sequence FROM &optional TO SEP)",
        min_args: 1,
        max_args: Some(3),
        run: seq::number_sequence,
    },
    Primitive {
        name: "seq-take",
        signature: "(seq-take SEQUENCE N)",
        min_args: 2,
        max_args: Some(2),
        run: seq::seq_take,
    },
    Primitive {
        name: "seq-drop",
        signature: "(seq-drop SEQUENCE N)",
        min_args: 2,
        max_args: Some(2),
        run: seq::seq_drop,
    },
    Primitive {
        name: "seq-uniq",
        signature: "(seq-uniq SEQUENCE &optional TESTFN)",
        min_args: 1,
        max_args: Some(2),
        run: seq::seq_uniq,
    },
    Primitive {
        name: "delete-dups",
        signature: "(delete-dups LIST)",
        min_args: 1,
        max_args: Some(1),
        run: seq::delete_dups,
    },
    Primitive {
        name: "remove",
        signature: "(remove ELT SEQ)",
        min_args: 2,
        max_args: Some(2),
        run: seq::remove,
    },
    Primitive {
        name: "delete",
        signature: "(delete ELT SEQ)",
        min_args: 2,
        max_args: Some(2),
        run: seq::remove,
    },
    Primitive {
        name: "copy-sequence",
        signature: "(copy-sequence ARG)",
        min_args: 1,
        max_args: Some(1),
        run: seq::copy_sequence,
    },
    Primitive {
        name: "vector",
        signature: "(vector &rest OBJECTS)",
        min_args: 0,
        max_args: None,
        run: seq::vector,
    },
    Primitive {
        name: "vconcat",
        signature: "(vconcat &rest SEQUENCES)",
        min_args: 0,
        max_args: None,
        run: seq::vconcat,
    },
    Primitive {
        name: "aref",
        signature: "(aref ARRAY IDX)",
        min_args: 2,
        max_args: Some(2),
        run: seq::aref,
    },
    Primitive {
        name: "elt",
        signature: "(elt SEQUENCE N)",
        min_args: 2,
        max_args: Some(2),
        run: seq::elt,
    },
    Primitive {
        name: "flatten-tree",
        signature: "(flatten-tree TREE)",
        min_args: 1,
        max_args: Some(1),
        run: seq::flatten_tree,
    },
    Primitive {
        name: "string-to-list",
        signature: "(string-to-list STRING)",
        min_args: 1,
        max_args: Some(1),
        run: seq::string_to_list,
    },
    Primitive {
        name: "seq-position",
        signature: "(seq-position SEQUENCE ELT &optional TESTFN)",
        min_args: 2,
        max_args: Some(3),
        run: seq::seq_position,
    },
    Primitive {
        name: "seq-contains-p",
        signature: "(seq-contains-p SEQUENCE ELT &optional TESTFN)",
        min_args: 2,
        max_args: Some(3),
        run: seq::seq_contains_p,
    },
    Primitive {
        name: "seq-max",
        signature: "(seq-max SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: seq::seq_max,
    },
    Primitive {
        name: "seq-min",
        signature: "(seq-min SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: seq::seq_min,
    },
    Primitive {
        name: "seq-first",
        signature: "(seq-first SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: seq::seq_first,
    },
    Primitive {
        name: "seq-rest",
        signature: "(seq-rest SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: seq::seq_rest,
    },
    Primitive {
        name: "seq-empty-p",
        signature: "(seq-empty-p SEQUENCE)",
        min_args: 1,
        max_args: Some(1),
        run: seq::seq_empty_p,
    },
    Primitive {
        name: "cl-evenp",
        signature: "(cl-evenp INTEGER)",
        min_args: 1,
        max_args: Some(1),
        run: seq::cl_evenp,
    },
    Primitive {
        name: "cl-oddp",
        signature: "(cl-oddp INTEGER)",
        min_args: 1,
        max_args: Some(1),
        run: seq::cl_oddp,
    },
    Primitive {
        name: "zerop",
        signature: "(zerop NUMBER)",
        min_args: 1,
        max_args: Some(1),
        run: seq::zerop,
    },
    Primitive {
        name: "alist-get",
        signature: "(alist-get KEY ALIST &optional DEFAULT REMOVE TESTFN)",
        min_args: 2,
        max_args: Some(5),
        run: alist::alist_get,
    },
    Primitive {
        name: "assoc-default",
        signature: "(assoc-default KEY ALIST &optional TEST DEFAULT)",
        min_args: 2,
        max_args: Some(4),
        run: alist::assoc_default,
    },
    Primitive {
        name: "rassoc",
        signature: "(rassoc KEY ALIST)",
        min_args: 2,
        max_args: Some(2),
        run: alist::rassoc,
    },
    Primitive {
        name: "rassq",
        signature: "(rassq KEY ALIST)",
        min_args: 2,
        max_args: Some(2),
        run: alist::rassq,
    },
    Primitive {
        name: "assoc-delete-all",
        signature: "(assoc-delete-all KEY ALIST &optional TEST)",
        min_args: 2,
        max_args: Some(3),
        run: alist::assoc_delete_all,
    },
    Primitive {
        name: "plist-put",
        signature: "(plist-put PLIST PROP VAL &optional PREDICATE)",
        min_args: 3,
        max_args: Some(4),
        run: alist::plist_put,
    },
    Primitive {
        name: "string=",
        signature: "(string= S1 S2)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_equal,
    },
    Primitive {
        name: "string-equal",
        signature: "(string-equal S1 S2)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_equal,
    },
    Primitive {
        name: "string<",
        signature: "(string< S1 S2)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_less,
    },
    Primitive {
        name: "string-lessp",
        signature: "(string-lessp S1 S2)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_less,
    },
    Primitive {
        name: "string>",
        signature: "(string> S1 S2)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_greater,
    },
    Primitive {
        name: "string-greaterp",
        signature: "(string-greaterp S1 S2)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_greater,
    },
    Primitive {
        name: "string-empty-p",
        signature: "(string-empty-p STRING)",
        min_args: 1,
        max_args: Some(1),
        run: text::string_empty_p,
    },
    Primitive {
        name: "string-blank-p",
        signature: "(string-blank-p STRING)",
        min_args: 1,
        max_args: Some(1),
        run: text::string_blank_p,
    },
    Primitive {
        name: "string-replace",
        signature: "(string-replace FROM-STRING TO-STRING IN-STRING)",
        min_args: 3,
        max_args: Some(3),
        run: text::string_replace,
    },
    Primitive {
        name: "string-lines",
        signature: "(string-lines STRING &optional OMIT-NULLS)",
        min_args: 1,
        max_args: Some(2),
        run: text::string_lines,
    },
    Primitive {
        name: "string-pad",
        signature: "(string-pad STRING LENGTH &optional PADDING START)",
        min_args: 2,
        max_args: Some(4),
        run: text::string_pad,
    },
    Primitive {
        name: "make-string",
        signature: "(make-string LENGTH INIT &optional MULTIBYTE)",
        min_args: 2,
        max_args: Some(3),
        run: text::make_string,
    },
    Primitive {
        name: "char-to-string",
        signature: "(char-to-string CHAR)",
        min_args: 1,
        max_args: Some(1),
        run: text::char_to_string,
    },
    Primitive {
        name: "string-to-char",
        signature: "(string-to-char STRING)",
        min_args: 1,
        max_args: Some(1),
        run: text::string_to_char,
    },
    Primitive {
        name: "string-remove-prefix",
        signature: "(string-remove-prefix PREFIX STRING)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_remove_prefix,
    },
    Primitive {
        name: "string-remove-suffix",
        signature: "(string-remove-suffix SUFFIX STRING)",
        min_args: 2,
        max_args: Some(2),
        run: text::string_remove_suffix,
    },
    Primitive {
        name: "string-match",
        signature: "(string-match REGEXP STRING &optional START)",
        min_args: 2,
        max_args: Some(3),
        run: text::string_match,
    },
    Primitive {
        name: "match-string",
        signature: "(match-string NUM &optional STRING)",
        min_args: 1,
        max_args: Some(2),
        run: text::match_string,
    },
    Primitive {
        name: "match-beginning",
        signature: "(match-beginning SUBEXP)",
        min_args: 1,
        max_args: Some(1),
        run: text::match_beginning,
    },
    Primitive {
        name: "match-end",
        signature: "(match-end SUBEXP)",
        min_args: 1,
        max_args: Some(1),
        run: text::match_end,
    },
    Primitive {
        name: "replace-regexp-in-string",
        signature: "(replace-regexp-in-string REGEXP REP STRING &optional FIXEDCASE LITERAL SUBEXP START)",
        min_args: 3,
        max_args: Some(7),
        run: text::replace_regexp_in_string,
    },
    Primitive {
        name: "json-encode",
        signature: "(json-encode OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: json_prims::json_encode,
    },
    Primitive {
        name: "json-serialize",
        signature: "(json-serialize OBJECT &rest ARGS)",
        min_args: 1,
        max_args: None,
        run: json_prims::json_serialize,
    },
    Primitive {
        name: "json-parse-string",
        signature: "(json-parse-string STRING &rest ARGS)",
        min_args: 1,
        max_args: None,
        run: json_prims::json_parse_string,
    },
    Primitive {
        name: "error",
        signature: "(error STRING &rest ARGS)",
        min_args: 1,
        max_args: None,
        run: signal::error,
    },
    Primitive {
        name: "user-error",
        signature: "(user-error FORMAT &rest ARGS)",
        min_args: 1,
        max_args: None,
        run: signal::user_error,
    },
    Primitive {
        name: "signal",
        signature: "(signal ERROR-SYMBOL DATA)",
        min_args: 2,
        max_args: Some(2),
        run: signal::signal,
    },
    Primitive {
        name: "error-message-string",
        signature: "(error-message-string OBJ)",
        min_args: 1,
        max_args: Some(1),
        run: signal::error_message_string,
    },
    Primitive {
        name: "message",
        signature: "(message FORMAT-STRING &rest ARGS)",
        min_args: 1,
        max_args: None,
        run: text::message,
    },
    Primitive {
        name: "intern",
        signature: "(intern STRING &optional OBARRAY)",
        min_args: 1,
        max_args: Some(2),
        run: text::intern,
    },
    Primitive {
        name: "symbol-name",
        signature: "(symbol-name SYMBOL)",
        min_args: 1,
        max_args: Some(1),
        run: text::symbol_name,
    },
    Primitive {
        name: "directory-file-name",
        signature: "(directory-file-name DIRECTORY)",
        min_args: 1,
        max_args: Some(1),
        run: text::directory_file_name,
    },
    Primitive {
        name: "make-hash-table",
        signature: "(make-hash-table &rest KEYWORD-ARGS)",
        min_args: 0,
        max_args: None,
        run: hash::make_hash_table,
    },
    Primitive {
        name: "gethash",
        signature: "(gethash KEY TABLE &optional DFLT)",
        min_args: 2,
        max_args: Some(3),
        run: hash::gethash,
    },
    Primitive {
        name: "puthash",
        signature: "(puthash KEY VALUE TABLE)",
        min_args: 3,
        max_args: Some(3),
        run: hash::puthash,
    },
    Primitive {
        name: "remhash",
        signature: "(remhash KEY TABLE)",
        min_args: 2,
        max_args: Some(2),
        run: hash::remhash,
    },
    Primitive {
        name: "clrhash",
        signature: "(clrhash TABLE)",
        min_args: 1,
        max_args: Some(1),
        run: hash::clrhash,
    },
    Primitive {
        name: "hash-table-count",
        signature: "(hash-table-count TABLE)",
        min_args: 1,
        max_args: Some(1),
        run: hash::hash_table_count,
    },
    Primitive {
        name: "hash-table-keys",
        signature: "(hash-table-keys TABLE)",
        min_args: 1,
        max_args: Some(1),
        run: hash::hash_table_keys,
    },
    Primitive {
        name: "hash-table-values",
        signature: "(hash-table-values TABLE)",
        min_args: 1,
        max_args: Some(1),
        run: hash::hash_table_values,
    },
    Primitive {
        name: "hash-table-p",
        signature: "(hash-table-p OBJ)",
        min_args: 1,
        max_args: Some(1),
        run: hash::hash_table_p,
    },
    Primitive {
        name: "copy-hash-table",
        signature: "(copy-hash-table TABLE)",
        min_args: 1,
        max_args: Some(1),
        run: hash::copy_hash_table,
    },
    Primitive {
        name: "type-of",
        signature: "(type-of OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::type_of,
    },
    Primitive {
        name: "vectorp",
        signature: "(vectorp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::vectorp,
    },
    Primitive {
        name: "keywordp",
        signature: "(keywordp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::keywordp,
    },
    Primitive {
        name: "booleanp",
        signature: "(booleanp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::booleanp,
    },
    Primitive {
        name: "natnump",
        signature: "(natnump OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::natnump,
    },
    Primitive {
        name: "functionp",
        signature: "(functionp OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::functionp,
    },
    Primitive {
        name: "proper-list-p",
        signature: "(proper-list-p OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::proper_list_p,
    },
    Primitive {
        name: "ensure-list",
        signature: "(ensure-list OBJECT)",
        min_args: 1,
        max_args: Some(1),
        run: more::ensure_list,
    },
    Primitive {
        name: "caddr",
        signature: "(caddr X)",
        min_args: 1,
        max_args: Some(1),
        run: more::caddr,
    },
    Primitive {
        name: "cdddr",
        signature: "(cdddr X)",
        min_args: 1,
        max_args: Some(1),
        run: more::cdddr,
    },
    Primitive {
        name: "cl-first",
        signature: "(cl-first LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_first,
    },
    Primitive {
        name: "cl-second",
        signature: "(cl-second LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_second,
    },
    Primitive {
        name: "cl-third",
        signature: "(cl-third LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_third,
    },
    Primitive {
        name: "cl-fourth",
        signature: "(cl-fourth LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_fourth,
    },
    Primitive {
        name: "cl-fifth",
        signature: "(cl-fifth LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_fifth,
    },
    Primitive {
        name: "cl-sixth",
        signature: "(cl-sixth LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_sixth,
    },
    Primitive {
        name: "cl-seventh",
        signature: "(cl-seventh LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_seventh,
    },
    Primitive {
        name: "cl-eighth",
        signature: "(cl-eighth LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_eighth,
    },
    Primitive {
        name: "cl-ninth",
        signature: "(cl-ninth LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_ninth,
    },
    Primitive {
        name: "cl-tenth",
        signature: "(cl-tenth LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_tenth,
    },
    Primitive {
        name: "cl-rest",
        signature: "(cl-rest LIST)",
        min_args: 1,
        max_args: Some(1),
        run: more::cl_rest,
    },
    Primitive {
        name: "length<",
        signature: "(length< SEQUENCE LENGTH)",
        min_args: 2,
        max_args: Some(2),
        run: more::length_less,
    },
    Primitive {
        name: "length=",
        signature: "(length= SEQUENCE LENGTH)",
        min_args: 2,
        max_args: Some(2),
        run: more::length_equal,
    },
    Primitive {
        name: "length>",
        signature: "(length> SEQUENCE LENGTH)",
        min_args: 2,
        max_args: Some(2),
        run: more::length_greater,
    },
    Primitive {
        name: "ignore",
        signature: "(ignore &rest ARGUMENTS)",
        min_args: 0,
        max_args: None,
        run: more::ignore,
    },
    Primitive {
        name: "always",
        signature: "(always &rest ARGUMENTS)",
        min_args: 0,
        max_args: None,
        run: more::always,
    },
    Primitive {
        name: "string-trim-left",
        signature: "(string-trim-left STRING &optional REGEXP)",
        min_args: 1,
        max_args: Some(2),
        run: more::string_trim_left,
    },
    Primitive {
        name: "string-trim-right",
        signature: "(string-trim-right STRING &optional REGEXP)",
        min_args: 1,
        max_args: Some(2),
        run: more::string_trim_right,
    },
    Primitive {
        name: "string-width",
        signature: "(string-width STRING)",
        min_args: 1,
        max_args: Some(1),
        run: more::string_width,
    },
    Primitive {
        name: "prin1-to-string",
        signature: "(prin1-to-string OBJECT &optional NOESCAPE)",
        min_args: 1,
        max_args: Some(2),
        run: more::prin1_to_string,
    },
    Primitive {
        name: "substring-no-properties",
        signature: "(substring-no-properties STRING &optional FROM TO)",
        min_args: 1,
        max_args: Some(3),
        run: string::substring,
    },
    Primitive {
        name: "match-string-no-properties",
        signature: "(match-string-no-properties NUM &optional STRING)",
        min_args: 1,
        max_args: Some(2),
        run: text::match_string,
    },
    Primitive {
        name: "map-elt",
        signature: "(map-elt MAP KEY &optional DEFAULT)",
        min_args: 2,
        max_args: Some(3),
        run: map::map_elt,
    },
    Primitive {
        name: "map-nested-elt",
        signature: "(map-nested-elt MAP KEYS &optional DEFAULT)",
        min_args: 2,
        max_args: Some(3),
        run: map::map_nested_elt,
    },
    Primitive {
        name: "map-keys",
        signature: "(map-keys MAP)",
        min_args: 1,
        max_args: Some(1),
        run: map::map_keys,
    },
    Primitive {
        name: "map-values",
        signature: "(map-values MAP)",
        min_args: 1,
        max_args: Some(1),
        run: map::map_values,
    },
    Primitive {
        name: "map-put!",
        signature: "(map-put! MAP KEY VALUE)",
        min_args: 3,
        max_args: Some(3),
        run: map::map_put,
    },
    Primitive {
        name: "map-into",
        signature: "(map-into MAP TYPE)",
        min_args: 2,
        max_args: Some(2),
        run: map::map_into,
    },
    Primitive {
        name: "delq",
        signature: "(delq ELT LIST)",
        min_args: 2,
        max_args: Some(2),
        run: map::delq,
    },
    Primitive {
        name: "remq",
        signature: "(remq ELT LIST)",
        min_args: 2,
        max_args: Some(2),
        run: map::delq,
    },
    Primitive {
        name: "seq-difference",
        signature: "(seq-difference SEQUENCE1 SEQUENCE2)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::seq_difference,
    },
    Primitive {
        name: "seq-intersection",
        signature: "(seq-intersection SEQUENCE1 SEQUENCE2)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::seq_intersection,
    },
    Primitive {
        name: "seq-union",
        signature: "(seq-union SEQUENCE1 SEQUENCE2)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::seq_union,
    },
    Primitive {
        name: "seq-partition",
        signature: "(seq-partition SEQUENCE N)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::seq_partition,
    },
    Primitive {
        name: "cl-set-difference",
        signature: "(cl-set-difference LIST1 LIST2)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::cl_set_difference,
    },
    Primitive {
        name: "cl-find",
        signature: "(cl-find ITEM SEQ)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::cl_find,
    },
    Primitive {
        name: "cl-position",
        signature: "(cl-position ITEM SEQ)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::cl_position,
    },
    Primitive {
        name: "cl-count",
        signature: "(cl-count ITEM SEQ)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::cl_count,
    },
    Primitive {
        name: "cl-remove",
        signature: "(cl-remove ITEM SEQ)",
        min_args: 2,
        max_args: Some(2),
        run: seq_more::cl_remove,
    },
    Primitive {
        name: "truncate-string-to-width",
        signature: "(truncate-string-to-width STR END-COLUMN &optional START-COLUMN PADDING ELLIPSIS)",
        min_args: 2,
        max_args: Some(5),
        run: more::truncate_string_to_width,
    },
];

/// The index of the primitive named `name` in [`PRIMITIVES`].
#[must_use]
pub fn lookup(name: &str) -> Option<usize> {
    PRIMITIVES.iter().position(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_signatures_name_themselves() {
        let mut names: Vec<_> = PRIMITIVES.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PRIMITIVES.len());
        for p in &PRIMITIVES {
            assert!(
                p.signature.starts_with(&format!("({}", p.name)),
                "{}",
                p.name
            );
            let rest = p.signature.contains("&rest");
            assert_eq!(rest, p.max_args.is_none(), "{}", p.name);
        }
    }
}
