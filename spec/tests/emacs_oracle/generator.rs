//! Random well-typed programs over the subset ptc shares with Emacs Lisp, for the Emacs
//! oracle (issue 10). Each program is a few `defun`s and a final `(list ...)` of typed
//! expressions: integers (with bignum overflow), floats, strings, lists, plists, alists,
//! vectors, closures, `let`/`let*`, `setq` on captured variables, `dotimes`/`dolist`/
//! `while`, recursion, `&optional`/`&rest`, backquote and `format`. The generator is biased
//! toward closures and binding forms (the shapes models write most and where issue 10.1
//! hid). Programs always terminate: loop counts are literals, recursion descends a literal.

/// SplitMix64: small, fast, and reproducible from a seed.
#[derive(Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next_u64() % (n.max(1) as u64)).unwrap_or(0)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Int,
    Float,
    Str,
    List,
    Bool,
    Fn,
}

const TYPES: [Ty; 6] = [Ty::Int, Ty::Float, Ty::Str, Ty::List, Ty::Bool, Ty::Fn];

struct Gen<'r> {
    rng: &'r mut Rng,
    vars: Vec<(String, Ty)>,
    counter: usize,
    /// Script functions: name, required int params, optional, rest.
    defuns: Vec<(String, usize, usize, bool)>,
}

const STRINGS: [&str; 12] = [
    "\"\"",
    "\"a\"",
    "\"abc\"",
    "\"Hello World\"",
    "\"中文\"",
    "\"straße\"",
    "\"é\"",
    "\"a b  c\"",
    "\"x,y,z\"",
    "\"ǆungla\"",
    "\"ΣΟΦΟΣ\"",
    "\"file.txt\"",
];

impl Gen<'_> {
    fn fresh(&mut self, stem: &str) -> String {
        self.counter += 1;
        format!("{stem}{}", self.counter)
    }

    fn var_of(&mut self, ty: Ty) -> Option<String> {
        let found: Vec<&String> = self
            .vars
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n)
            .collect();
        if found.is_empty() {
            None
        } else {
            Some(found[self.rng.below(found.len())].clone())
        }
    }

    fn int_literal(&mut self) -> String {
        match self.rng.below(10) {
            0 => self
                .rng
                .pick(&[
                    "4611686018427387903",
                    "2305843009213693951",
                    "9223372036854775807",
                    "-9223372036854775808",
                    "18446744073709551616",
                ])
                .to_owned(),
            1 => format!("{}", self.rng.below(1000) as i64 - 500),
            2 => format!("-{}", self.rng.below(10)),
            _ => format!("{}", self.rng.below(10)),
        }
    }

    fn expr(&mut self, ty: Ty, depth: usize) -> String {
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(ty, depth);
        }
        // Binding forms and closures, whatever the type (the bias).
        if self.rng.chance(30) {
            return self.binding(ty, depth);
        }
        match ty {
            Ty::Int => self.int_expr(depth),
            Ty::Float => self.float_expr(depth),
            Ty::Str => self.str_expr(depth),
            Ty::List => self.list_expr(depth),
            Ty::Bool => self.bool_expr(depth),
            Ty::Fn => self.fn_expr(depth),
        }
    }

    fn leaf(&mut self, ty: Ty, depth: usize) -> String {
        if self.rng.chance(50)
            && let Some(v) = self.var_of(ty)
        {
            return v;
        }
        match ty {
            Ty::Int => self.int_literal(),
            Ty::Float => self
                .rng
                .pick(&[
                    "0.5", "1.0", "-2.25", "3.14159", "1e10", "0.1", "100.0", "-0.0", "1e-5",
                    "6.02e23",
                ])
                .to_owned(),
            Ty::Str => self.rng.pick(&STRINGS).to_owned(),
            Ty::List => self
                .rng
                .pick(&["nil", "'(1 2 3)", "(list 4 5)", "'(7)", "(list -1 0 1 2)"])
                .to_owned(),
            Ty::Bool => self.rng.pick(&["t", "nil"]).to_owned(),
            Ty::Fn => {
                let x = self.fresh("x");
                self.vars.push((x.clone(), Ty::Int));
                let body = self.expr(Ty::Int, depth.saturating_sub(1).min(1));
                self.vars.pop();
                format!("(lambda ({x}) {body})")
            }
        }
    }

    /// `let`/`let*` with closures over the bindings, counters, loops capturing variables.
    fn binding(&mut self, ty: Ty, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(7) {
            0 | 1 => {
                // (let* ((a E) (f (lambda (x) ... a ...))) BODY) — a lambda in a later
                // initializer captures an earlier binding (issue 10.1).
                let a = self.fresh("a");
                let bound_ty = TYPES[self.rng.below(4)];
                let init = self.expr(bound_ty, d);
                self.vars.push((a.clone(), bound_ty));
                let f = self.fresh("f");
                let lambda = self.fn_expr(d);
                self.vars.push((f.clone(), Ty::Fn));
                let set = if bound_ty == Ty::Int && self.rng.chance(40) {
                    let value = self.expr(Ty::Int, d.min(2));
                    format!(" (setq {a} {value})")
                } else {
                    String::new()
                };
                let body = self.expr(ty, d);
                self.vars.pop();
                self.vars.pop();
                let form = if self.rng.chance(70) { "let*" } else { "let" };
                if form == "let" {
                    // In `let` the lambda cannot see `a`; bind it in a nested let*.
                    format!("(let (({a} {init})) (let* (({f} {lambda})){set} {body}))")
                } else {
                    format!("(let* (({a} {init}) ({f} {lambda})){set} {body})")
                }
            }
            2 => {
                // A counter closure: setq on a captured variable.
                let n = self.fresh("n");
                let inc = self.fresh("inc");
                self.vars.push((n.clone(), Ty::Int));
                let step = self.expr(Ty::Int, d.min(2));
                self.vars.pop();
                let times = self.rng.below(4);
                let calls: String = (0..times).map(|_| format!(" (funcall {inc})")).collect();
                self.vars.push((n.clone(), Ty::Int));
                let body = self.expr(ty, d);
                self.vars.pop();
                format!(
                    "(let* (({n} 0) ({inc} (lambda () (setq {n} (+ {n} {step}))))){calls} {body})"
                )
            }
            3 => {
                let v = self.fresh("v");
                let bound_ty = TYPES[self.rng.below(5)];
                let init = self.expr(bound_ty, d);
                self.vars.push((v.clone(), bound_ty));
                let body = self.expr(ty, d);
                self.vars.pop();
                format!("(let (({v} {init})) {body})")
            }
            4 => {
                // Closures made in a loop, each capturing that iteration's variable.
                let i = self.fresh("i");
                let fs = self.fresh("fs");
                let count = self.rng.below(4);
                self.vars.push((i.clone(), Ty::Int));
                let captured = self.expr(Ty::Int, d.min(2));
                self.vars.pop();
                let collected = format!(
                    "(let (({fs} nil)) (dotimes ({i} {count}) (push (lambda () {captured}) {fs})) (mapcar (lambda (g) (funcall g)) {fs}))"
                );
                if ty == Ty::List {
                    collected
                } else {
                    let l = self.fresh("l");
                    self.vars.push((l.clone(), Ty::List));
                    let body = self.expr(ty, d);
                    self.vars.pop();
                    format!("(let (({l} {collected})) {body})")
                }
            }
            5 => {
                // A while loop accumulating through setq.
                let i = self.fresh("i");
                let acc = self.fresh("acc");
                let count = self.rng.below(5);
                self.vars.push((i.clone(), Ty::Int));
                self.vars.push((acc.clone(), Ty::Int));
                let step = self.expr(Ty::Int, d.min(2));
                self.vars.pop();
                self.vars.pop();
                let looped = format!(
                    "(let (({i} 0) ({acc} 0)) (while (< {i} {count}) (setq {acc} (+ {acc} {step})) (setq {i} (+ {i} 1))) {acc})"
                );
                if ty == Ty::Int {
                    looped
                } else {
                    let r = self.fresh("r");
                    self.vars.push((r.clone(), Ty::Int));
                    let body = self.expr(ty, d);
                    self.vars.pop();
                    format!("(let (({r} {looped})) {body})")
                }
            }
            _ => {
                // dolist over a list, closure capturing the element.
                let x = self.fresh("x");
                let out = self.fresh("out");
                let list = self.expr(Ty::List, d.min(2));
                self.vars.push((x.clone(), Ty::Int));
                let item = self.expr(Ty::Int, d.min(2));
                self.vars.pop();
                let built = format!(
                    "(let (({out} nil)) (dolist ({x} {list}) (push (funcall (lambda () {item})) {out})) (reverse {out}))"
                );
                if ty == Ty::List {
                    built
                } else {
                    let l = self.fresh("l");
                    self.vars.push((l.clone(), Ty::List));
                    let body = self.expr(ty, d);
                    self.vars.pop();
                    format!("(let (({l} {built})) {body})")
                }
            }
        }
    }

    fn int_expr(&mut self, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(18) {
            0..=2 => {
                let op = self.rng.pick(&["+", "-", "*", "max", "min"]);
                let a = self.expr(Ty::Int, d);
                let b = self.expr(Ty::Int, d);
                format!("({op} {a} {b})")
            }
            3 => {
                let op = self.rng.pick(&["/", "%", "mod"]);
                let a = self.expr(Ty::Int, d);
                let k = self.rng.pick(&["1", "2", "3", "-3", "7", "10"]);
                format!("({op} {a} {k})")
            }
            4 => {
                let a = self.expr(Ty::Int, d);
                format!("(abs {a})")
            }
            5 => {
                let l = self.expr(Ty::List, d);
                format!("(length {l})")
            }
            6 => {
                let s = self.expr(Ty::Str, d);
                format!("(length {s})")
            }
            7 => {
                let f = self.expr(Ty::Fn, d);
                let a = self.expr(Ty::Int, d);
                format!("(funcall {f} {a})")
            }
            8 => {
                let l = self.expr(Ty::List, d);
                format!("(apply '+ {l})")
            }
            9 => {
                let l = self.expr(Ty::List, d);
                let k = self.rng.below(4);
                format!("(or (nth {k} {l}) -1)")
            }
            10 => {
                let op = self.rng.pick(&["truncate", "round", "floor", "ceiling"]);
                let f = self.expr(Ty::Float, d);
                format!("({op} {f})")
            }
            11 => {
                let c = self.expr(Ty::Bool, d);
                let a = self.expr(Ty::Int, d);
                let b = self.expr(Ty::Int, d);
                format!("(if {c} {a} {b})")
            }
            12 => {
                let c = self.expr(Ty::Bool, d);
                let a = self.expr(Ty::Int, d);
                let b = self.expr(Ty::Int, d);
                format!("(cond ({c} {a}) (t {b}))")
            }
            13 => {
                let (a, b) = (self.expr(Ty::Int, d), self.expr(Ty::Int, d));
                let key = self.rng.pick(&[":a", ":b", ":c"]);
                format!("(or (plist-get (list :a {a} :b {b}) {key}) 0)")
            }
            14 => {
                let (a, b) = (self.expr(Ty::Int, d), self.expr(Ty::Int, d));
                let key = self.rng.pick(&["'x", "'y", "'z"]);
                let lookup = self.rng.pick(&["assq", "assoc"]);
                format!("(or (cdr ({lookup} {key} (list (cons 'x {a}) (cons 'y {b})))) 0)")
            }
            15 => {
                let s = self.expr(Ty::Int, d);
                format!("(string-to-number (number-to-string {s}))")
            }
            16 if self.defuns.iter().any(|d| !d.0.ends_with("-call")) => {
                let callable: Vec<_> = self
                    .defuns
                    .iter()
                    .filter(|d| !d.0.ends_with("-call"))
                    .cloned()
                    .collect();
                let (name, required, optional, rest) =
                    callable[self.rng.below(callable.len())].clone();
                let extra = if rest {
                    self.rng.below(3)
                } else {
                    self.rng.below(optional + 1)
                };
                let args: Vec<String> = (0..required + extra)
                    .map(|_| self.expr(Ty::Int, d.min(2)))
                    .collect();
                format!("({name} {})", args.join(" "))
            }
            _ => {
                let v = self.rng.pick(&["[1 2 3]", "[]", "[4 5]"]);
                format!("(length {v})")
            }
        }
    }

    fn float_expr(&mut self, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(5) {
            0 | 1 => {
                let op = self.rng.pick(&["+", "-", "*", "max", "min"]);
                let a = self.expr(Ty::Float, d);
                let b = if self.rng.chance(50) {
                    self.expr(Ty::Float, d)
                } else {
                    self.expr(Ty::Int, d)
                };
                format!("({op} {a} {b})")
            }
            2 => {
                let a = self.expr(Ty::Int, d);
                format!("(float {a})")
            }
            3 => {
                let a = self.expr(Ty::Float, d);
                let k = self.rng.pick(&["2.0", "3", "0.5", "-4.0"]);
                format!("(/ {a} {k})")
            }
            _ => {
                let a = self.expr(Ty::Float, d);
                format!("(abs {a})")
            }
        }
    }

    fn str_expr(&mut self, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(11) {
            0 | 1 => {
                let (i, s, f) = (
                    self.expr(Ty::Int, d),
                    self.expr(Ty::Str, d),
                    self.expr(Ty::Float, d),
                );
                let control = self.rng.pick(&[
                    "%d|%s|%f",
                    "%5d|%-6s|%.2f",
                    "%x|%S|%e",
                    "%+d %s %g",
                    "%05d%3s%.3g",
                    "%o %.2s %10.4f",
                    "%d %%|%s|%.1e",
                    "%-5d|%8s|%#g",
                    "%X %c %s",
                    "%.3d %.1s %.0f",
                ]);
                if control.contains("%c") {
                    format!("(format \"%X %c %s\" {i} ?a {s})")
                } else {
                    format!("(format \"{control}\" {i} {s} {f})")
                }
            }
            2 => {
                let (a, b) = (self.expr(Ty::Str, d), self.expr(Ty::Str, d));
                format!("(concat {a} {b})")
            }
            3 => {
                let s = self.expr(Ty::Str, d);
                let k = self.rng.below(4);
                format!("(let ((s {s})) (substring s 0 (min {k} (length s))))")
            }
            4 => {
                let op = self
                    .rng
                    .pick(&["upcase", "downcase", "capitalize", "string-trim"]);
                let s = self.expr(Ty::Str, d);
                format!("({op} {s})")
            }
            5 => {
                let a = if self.rng.chance(50) {
                    self.expr(Ty::Int, d)
                } else {
                    self.expr(Ty::Float, d)
                };
                format!("(number-to-string {a})")
            }
            6 => {
                let (a, b) = (self.expr(Ty::Str, d), self.expr(Ty::Str, d));
                let sep = self.rng.pick(&["\"-\"", "\", \"", "\"\""]);
                format!("(string-join (list {a} {b}) {sep})")
            }
            7 => {
                let l = self.expr(Ty::List, d);
                format!("(format \"%S\" {l})")
            }
            8 => {
                // Explicit separators and OMIT-NULLS: the default form is a listed
                // deviation (the original's wrapper keeps empty strings).
                let s = self.expr(Ty::Str, d);
                format!("(string-join (split-string {s} \" \" t) \"_\")")
            }
            9 => {
                let l = self.expr(Ty::List, d);
                format!("(format \"%s\" `(a ,@{l} \"q\" [1 b] ,(length {l})))")
            }
            _ => {
                let i = self.expr(Ty::Int, d);
                let w = self.rng.pick(&["%4s", "%-4s", "%.1s", "%3S"]);
                let s = self.rng.pick(&STRINGS);
                format!("(concat (format \"{w}|\" {s}) (number-to-string {i}))")
            }
        }
    }

    fn list_expr(&mut self, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(13) {
            0 => {
                let n = self.rng.below(4);
                let items: Vec<String> = (0..n).map(|_| self.expr(Ty::Int, d)).collect();
                format!("(list {})", items.join(" "))
            }
            1 | 2 => {
                let f = self.expr(Ty::Fn, d);
                let l = self.expr(Ty::List, d);
                format!("(mapcar {f} {l})")
            }
            3 => {
                let (i, l) = (self.expr(Ty::Int, d), self.expr(Ty::List, d));
                format!("(cons {i} {l})")
            }
            4 => {
                let (a, b) = (self.expr(Ty::List, d), self.expr(Ty::List, d));
                format!("(append {a} {b})")
            }
            5 => {
                let op = self.rng.pick(&["reverse", "cdr", "sort", "last"]);
                let l = self.expr(Ty::List, d);
                format!("({op} {l})")
            }
            6 => {
                let op = self.rng.pick(&["take", "nthcdr"]);
                let k = self.rng.below(4);
                let l = self.expr(Ty::List, d);
                format!("({op} {k} {l})")
            }
            7 => {
                let (i, l) = (self.expr(Ty::Int, d), self.expr(Ty::List, d));
                // Only unquoted parts are expressions: a backquote inside the data is refused
                // (deviation 25).
                format!("`(x ,{i} ,@{l} 9)")
            }
            8 => {
                let (i, l) = (self.expr(Ty::Int, d), self.expr(Ty::List, d));
                format!("(or (memq {i} {l}) (list {i}))")
            }
            9 => {
                // `mapcar` takes lists only here (a listed deviation): vectors go through
                // `append` first.
                let f = self.expr(Ty::Fn, d);
                let v = self.rng.pick(&["[1 2 3]", "[]", "[-4 10]"]);
                format!("(mapcar {f} (append {v} nil))")
            }
            10 => {
                let v = self.rng.pick(&["[1 2 3]", "[]", "[-4 10]"]);
                format!("(append {v} nil)")
            }
            11 => {
                let i = self.fresh("i");
                let n = self.rng.below(5);
                self.vars.push((i.clone(), Ty::Int));
                let item = self.expr(Ty::Int, d.min(2));
                self.vars.pop();
                format!("(let (r) (dotimes ({i} {n}) (push {item} r)) r)")
            }
            _ => {
                let (a, b) = (self.expr(Ty::Int, d), self.expr(Ty::Int, d));
                format!("(cdr (plist-member (list :p {a} :q {b}) :q))")
            }
        }
    }

    fn bool_expr(&mut self, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(9) {
            0 | 1 => {
                let op = self.rng.pick(&["<", ">", "=", "<=", ">=", "/="]);
                let (a, b) = (self.expr(Ty::Int, d), self.expr(Ty::Int, d));
                format!("({op} {a} {b})")
            }
            2 => {
                // `eq` on numbers is deviation 18 (floats and bignums have no identity
                // here), so `eq` compares only strings, lists and booleans.
                let op = self.rng.pick(&["equal", "eq", "eql"]);
                let ty = match op {
                    "eq" => [Ty::Str, Ty::List, Ty::Bool][self.rng.below(3)],
                    _ => TYPES[self.rng.below(4)],
                };
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({op} {a} {b})")
            }
            3 => {
                let op = self.rng.pick(&["null", "consp", "listp", "atom"]);
                let l = self.expr(Ty::List, d);
                format!("({op} {l})")
            }
            4 => {
                let op = self.rng.pick(&["and", "or"]);
                let (a, b) = (self.expr(Ty::Bool, d), self.expr(Ty::Bool, d));
                format!("({op} {a} {b})")
            }
            5 => {
                let a = self.expr(Ty::Bool, d);
                format!("(not {a})")
            }
            6 => {
                let op = self.rng.pick(&["string-prefix-p", "string-suffix-p"]);
                let (a, b) = (self.expr(Ty::Str, d), self.expr(Ty::Str, d));
                format!("({op} {a} {b})")
            }
            7 => {
                let ty = TYPES[self.rng.below(5)];
                let op = self.rng.pick(&[
                    "integerp",
                    "floatp",
                    "stringp",
                    "numberp",
                    "symbolp",
                    "sequencep",
                ]);
                let a = self.expr(ty, d);
                format!("({op} {a})")
            }
            _ => {
                let (s, t) = (self.expr(Ty::Str, d), self.expr(Ty::Str, d));
                format!("(if (string-search {s} {t}) t nil)")
            }
        }
    }

    fn fn_expr(&mut self, depth: usize) -> String {
        let d = depth.saturating_sub(1);
        let x = self.fresh("x");
        self.vars.push((x.clone(), Ty::Int));
        let body = self.expr(Ty::Int, d.min(3));
        self.vars.pop();
        if self.rng.chance(25)
            && let Some(f) = self.var_of(Ty::Fn)
        {
            // Composition: a closure over another closure.
            return format!("(lambda ({x}) (funcall {f} {body}))");
        }
        format!("(lambda ({x}) {body})")
    }

    fn defun(&mut self, index: usize) -> String {
        let name = format!("fn{index}");
        match self.rng.below(4) {
            0 => {
                self.defuns.push((name.clone(), 1, 1, false));
                format!("(defun {name} (a &optional b) (if b (+ a (* 2 b)) (- a)))")
            }
            1 => {
                self.defuns.push((name.clone(), 0, 0, true));
                format!("(defun {name} (&rest xs) (+ (* 100 (length xs)) (apply '+ xs)))")
            }
            2 => {
                // Recursion on a descending argument (bignums past 20!).
                let op = self.rng.pick(&["*", "+"]);
                self.defuns.push((format!("{name}-call"), 0, 0, false));
                format!("(defun {name} (n) (if (<= n 1) 1 ({op} n ({name} (- n 1)))))")
            }
            _ => {
                self.vars.push(("a".to_owned(), Ty::Int));
                self.vars.push(("b".to_owned(), Ty::Int));
                let body = self.expr(Ty::Int, 3);
                self.vars.clear();
                self.defuns.push((name.clone(), 2, 0, false));
                format!("(defun {name} (a b) {body})")
            }
        }
    }
}

impl Gen<'_> {
    /// A hash-table program (issue 46): a table filled from a random list of integers
    /// (counting under a key derived from each), then mutated through an alias, walked with
    /// `maphash`, and returned with its count, keys, values and printed form. Keys are small
    /// integers or fresh strings, so `eq` on them means the same in ptc and Emacs.
    fn table_expr(&mut self) -> String {
        let test = self.rng.pick(&["eq", "eql", "equal"]);
        let list = self.expr(Ty::List, 2);
        let h = self.fresh("h");
        let g = self.fresh("g");
        let x = self.fresh("x");
        let key = match self.rng.below(3) {
            0 => format!("(% {x} 5)"),
            1 => format!("(number-to-string (% {x} 4))"),
            _ => format!("(if (cl-evenp {x}) 'even 'odd)"),
        };
        let mut forms = vec![format!(
            "(dolist ({x} {list}) (puthash {key} (1+ (gethash {key} {h} 0)) {h}))"
        )];
        for _ in 0..self.rng.below(4) {
            forms.push(match self.rng.below(6) {
                0 => format!(
                    "(remhash {} {h})",
                    self.rng.pick(&["0", "1", "'even", "\"1\""])
                ),
                1 => format!(
                    "(let (({g} {h})) (puthash 'alias {} {g}))",
                    self.rng.below(9)
                ),
                2 => format!("(setq {h} (copy-hash-table {h}))"),
                3 => format!("(when (cl-oddp (hash-table-count {h})) (clrhash {h}))"),
                4 => format!(
                    "(puthash {} (list (hash-table-count {h})) {h})",
                    self.rng.below(6)
                ),
                _ => format!("(puthash 'seen (gethash 2 {h} 'none) {h})"),
            });
        }
        let walk =
            format!("(let ((acc nil)) (maphash (lambda (k v) (push (list k v) acc)) {h}) acc)");
        format!(
            "(let (({h} (make-hash-table :test '{test}))) {} (list (hash-table-count {h}) (hash-table-keys {h}) (hash-table-values {h}) {walk} {h}))",
            forms.join(" ")
        )
    }
}

/// One random program (deterministic in `rng`).
pub fn program(rng: &mut Rng) -> String {
    let mut generator = Gen {
        rng,
        vars: Vec::new(),
        counter: 0,
        defuns: Vec::new(),
    };
    let mut forms = Vec::new();
    for index in 0..generator.rng.below(3) {
        forms.push(generator.defun(index));
    }
    // Recursive defuns are called with a small literal, not through `int_expr`.
    let recursive: Vec<String> = generator
        .defuns
        .iter()
        .filter(|(n, ..)| n.ends_with("-call"))
        .map(|(n, ..)| n.trim_end_matches("-call").to_owned())
        .collect();
    generator.defuns.retain(|(n, ..)| !n.ends_with("-call"));
    let count = 1 + generator.rng.below(3);
    let mut items: Vec<String> = (0..count)
        .map(|_| {
            let ty = TYPES[generator.rng.below(TYPES.len() - 1)];
            let depth = 2 + generator.rng.below(3);
            generator.expr(ty, depth)
        })
        .collect();
    for name in recursive {
        let n = generator.rng.below(30);
        items.push(format!("({name} {n})"));
    }
    // Drawn after everything else, so the programs of earlier seeds keep their prefix.
    if generator.rng.chance(35) {
        let table = generator.table_expr();
        items.push(table);
    }
    forms.push(format!("(list {})", items.join(" ")));
    forms.join("\n")
}
