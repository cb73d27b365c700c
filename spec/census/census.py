#!/usr/bin/env python3
"""The Emacs Lisp census (issue 46): which operators modern Emacs Lisp calls most.

Reads every `.el` file of the pinned repositories in `repos.toml` (at the pinned commit,
straight from a bare git directory: `git --git-dir=... ls-tree` and `cat-file`, no work
tree), reads each file with an Emacs Lisp reader, counts the call heads of the forms in
code positions and writes `counts.tsv` (counts only, never sources).

    python3 spec/census/census.py count [--mirrors DIR]   # needs the mirrors
    python3 spec/census/census.py check-pins [--mirrors DIR]
    python3 spec/census/census.py selftest                # the reader's own checks

The statuses (supported or refused, and the compiler's advice) and the coverage come from
the compiler itself: `PTC_CENSUS_WRITE=1 cargo test -p ptc-spec --test census` writes
`spec/reference/census.md` from `counts.tsv`, `classification.tsv` and the compiler, and
plain `cargo test -p ptc-spec --test census` checks the table against the code. `all`
runs the count, then that command, and prints the coverage line.

Code positions: every top-level form and the subforms a form evaluates. Not counted:
quoted data (`'x`, `(quote x)`, vectors, `#s(...)`), backquote templates (their `,` and
`,@` parts are code again), binding lists (`let`, `let*`, `if-let`, `when-let*`, `dolist`
specs, `-let`...; their initialisers are code), parameter lists, `cond`/`pcase`/`cl-case`
clause heads and patterns, `rx` forms, `declare` specs, `cl-defstruct`/`defclass` slots and
`declare-function` arguments. A `#'(lambda ...)` is code. Lists whose head is not a symbol
or a list (strings, numbers, keywords) are data.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MIRRORS = "/work/.mirror"
TOP = 600
KEEP = 3000  # rows of counts.tsv (the most used names)

# A file is a test file (left out: ert scaffolding is not what a script calls) when a
# directory of its path is test/tests or its name ends in -test(s).el / test-*.el.
TEST_PATH = re.compile(r"(^|/)(tests?|test-files|testing)/|(^|/)test-[^/]*\.el$|-tests?\.el$")

NUMBER = re.compile(
    r"^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^[+-]?\d+\.\d+e\+(INF|NaN)$|^[+-]?\d+\.$", re.I
)

DELIMS = set("()[]\"';`,")


class Sym:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


class Quoted:
    """A reader macro applied to a form: kind is quote, function, backquote, comma,
    comma-at."""

    __slots__ = ("kind", "form")

    def __init__(self, kind, form):
        self.kind = kind
        self.form = form


class Vec:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class Data:
    """Something self-evaluating that holds no code: strings, numbers, chars, #s(...)."""

    __slots__ = ()


DATA = Data()


class ReadError(Exception):
    pass


class Reader:
    def __init__(self, text):
        self.s = text
        self.i = 0
        self.n = len(text)

    def skip(self):
        s, n = self.s, self.n
        while self.i < n:
            c = s[self.i]
            if c in " \t\n\r\f\v":
                self.i += 1
            elif c == ";":
                j = s.find("\n", self.i)
                self.i = n if j < 0 else j + 1
            elif c == "#" and s.startswith("#|", self.i):  # not Emacs, but harmless
                j = s.find("|#", self.i)
                self.i = n if j < 0 else j + 2
            elif c == "\x00" or c == "\x0c":
                self.i += 1
            else:
                break

    def forms(self):
        out = []
        while True:
            self.skip()
            if self.i >= self.n:
                return out
            out.append(self.read())

    def read(self):
        self.skip()
        if self.i >= self.n:
            raise ReadError("end of file")
        s = self.s
        c = s[self.i]
        if c == "(":
            self.i += 1
            return self.seq(")")
        if c == "[":
            self.i += 1
            return Vec(self.seq("]"))
        if c == ")" or c == "]":
            self.i += 1
            raise ReadError("unexpected " + c)
        if c == '"':
            self.string()
            return DATA
        if c == "'":
            self.i += 1
            return Quoted("quote", self.read())
        if c == "`":
            self.i += 1
            return Quoted("backquote", self.read())
        if c == ",":
            self.i += 1
            if self.i < self.n and s[self.i] == "@":
                self.i += 1
                return Quoted("comma-at", self.read())
            return Quoted("comma", self.read())
        if c == "?":
            self.char()
            return DATA
        if c == "#":
            return self.hash()
        return self.atom()

    def seq(self, close):
        items = []
        while True:
            self.skip()
            if self.i >= self.n:
                raise ReadError("unclosed list")
            if self.s[self.i] == close:
                self.i += 1
                return items
            items.append(self.read())

    def string(self):
        s, i, n = self.s, self.i + 1, self.n
        while i < n:
            c = s[i]
            if c == "\\":
                i += 2
            elif c == '"':
                self.i = i + 1
                return
            else:
                i += 1
        raise ReadError("unclosed string")

    def char(self):
        # ?x ?\( ?\C-x ?\M-\C-x ?\^M ?\x41 ?\N{NAME} ?\u00e9
        s, n = self.s, self.n
        i = self.i + 1
        while i < n:
            if s[i] == "\\":
                i += 1
                if i >= n:
                    break
                m = s[i]
                i += 1
                if m in "CMSHsA" and i < n and s[i] == "-":
                    i += 1
                    continue
                if m == "^":
                    continue
                if m == "N" and i < n and s[i] == "{":
                    j = s.find("}", i)
                    i = n if j < 0 else j + 1
                elif m in "xuU":
                    while i < n and s[i] in "0123456789abcdefABCDEF":
                        i += 1
                elif m in "01234567":
                    while i < n and s[i] in "01234567":
                        i += 1
                break
            i += 1
            break
        self.i = i

    def hash(self):
        s, n = self.s, self.n
        nxt = s[self.i + 1] if self.i + 1 < n else ""
        if nxt == "'":
            self.i += 2
            return Quoted("function", self.read())
        if nxt == "s" and s.startswith("#s(", self.i):
            self.i += 3
            self.seq(")")
            return DATA
        if nxt == "(":  # #("string" props...)
            self.i += 2
            self.seq(")")
            return DATA
        if nxt == "[":  # byte code
            self.i += 2
            self.seq("]")
            return DATA
        if nxt == "@":  # #@N skip N bytes
            m = re.match(r"#@(\d+)", s[self.i :])
            self.i += len(m.group(0)) + int(m.group(1)) if m else 2
            return DATA
        if nxt == "$":
            self.i += 2
            return DATA
        if nxt == "#":  # the empty symbol
            self.i += 2
            return Sym("")
        if nxt == "_":  # #_ symbol without shorthand
            self.i += 2
            return self.atom()
        m = re.match(r"#(\d+)([=#])", s[self.i :])
        if m:
            self.i += len(m.group(0))
            return self.read() if m.group(2) == "=" else DATA
        # #x10 #b101 #o17 #24r1k and anything else: a token
        self.i += 1
        self.token()
        return DATA

    def token(self):
        s, n = self.s, self.n
        out = []
        i = self.i
        self.escaped = False
        while i < n:
            c = s[i]
            if c == "\\":
                self.escaped = True
                if i + 1 < n:
                    out.append(s[i + 1])
                i += 2
            elif c in DELIMS or c.isspace() or c == "#" and not out:
                break
            else:
                out.append(c)
                i += 1
        self.i = i
        return "".join(out)

    def atom(self):
        start = self.i
        text = self.token()
        raw_escape = self.escaped
        if self.i == start:  # a lone delimiter we do not know: skip it
            self.i += 1
            return DATA
        if not raw_escape and NUMBER.match(text):
            return DATA
        if text == ".":
            return Sym(".")
        return Sym(text)


# ---------------------------------------------------------------- code walk

DEFUN_LIKE = {
    "defun", "defmacro", "defsubst", "cl-defun", "cl-defmacro", "cl-defsubst",
    "define-inline", "iter-defun", "cl-iter-defun", "ert-deftest", "lsp-defun",
    "transient-define-prefix", "transient-define-suffix", "transient-define-infix",
    "transient-define-argument", "define-advice", "cl-defgeneric", "defun-motion",
}
LAMBDA_LIKE = {"lambda", "cl-function", "-lambda", "pcase-lambda", "iter-lambda"}
LET_LIKE = {
    "let", "let*", "dlet", "letrec", "if-let", "if-let*", "when-let", "when-let*",
    "and-let*", "while-let", "cl-letf", "cl-letf*", "pcase-let", "pcase-let*", "-let",
    "-let*", "-if-let", "-if-let*", "-when-let", "-when-let*", "let-alist*",
    "cl-symbol-macrolet", "ignore-error-let",
}
DOLIST_LIKE = {
    "dolist", "dotimes", "cl-dolist", "cl-dotimes", "seq-doseq", "pcase-dolist",
    "dolist-with-progress-reporter", "dotimes-with-progress-reporter", "-each", "cl-do-symbols",
}
CASE_LIKE = {"cl-case", "cl-ecase", "cl-typecase", "cl-etypecase", "pcase", "pcase-exhaustive"}
FLET_LIKE = {"cl-flet", "cl-flet*", "cl-labels", "cl-macrolet", "macrolet", "flet", "labels"}
SKIP_ARGS = {
    "quote", "function", "declare", "declare-function", "rx", "rx-to-string", "rx-define",
    "rx-let", "rx-let-eval", "cl-defstruct", "defclass", "eieio-defclass", "define-error",
    "defgroup",
}
PATTERN_FIRST = {"seq-let", "map-let", "cl-destructuring-bind", "cl-multiple-value-bind",
                 "-let-pattern", "with-slots", "cl-with-gensyms", "cl-once-only",
                 "with-suppressed-warnings", "macroexp-let2", "macroexp-let2*"}
DEFVAR_LIKE = {"defvar", "defconst", "defcustom", "defvar-local", "defface",
               "defvar-keymap", "define-obsolete-variable-alias"}


class Counter:
    def __init__(self):
        self.heads = collections.Counter()
        self.files = collections.defaultdict(set)
        self.total = 0
        self.file = None

    def count(self, name):
        self.heads[name] += 1
        self.files[name].add(self.file)
        self.total += 1

    def body(self, forms):
        for f in forms:
            self.code(f)

    def code(self, f):
        if isinstance(f, list):
            self.call(f)
        elif isinstance(f, Quoted):
            if f.kind == "function":
                if isinstance(f.form, list):
                    self.call(f.form)
            elif f.kind == "backquote":
                self.template(f.form)
            elif f.kind in ("comma", "comma-at"):
                self.code(f.form)
            # quote: data

    def template(self, f):
        """A backquote template: data, except its unquoted parts."""
        if isinstance(f, Quoted):
            if f.kind in ("comma", "comma-at"):
                self.code(f.form)
            else:
                self.template(f.form)
        elif isinstance(f, list):
            for x in f:
                self.template(x)
        elif isinstance(f, Vec):
            for x in f.items:
                self.template(x)

    def bindings(self, spec, pattern_bindings):
        if isinstance(spec, list):
            for b in spec:
                if isinstance(b, list):
                    if len(b) == 1:
                        self.code(b[0])  # (if-let ((expr)) ...)
                    elif pattern_bindings:
                        self.code(b[-1])
                    else:
                        self.body(b[1:])
                # a bare symbol: bound to nil
        elif isinstance(spec, Vec):  # -let [a b c d]
            for j, x in enumerate(spec.items):
                if j % 2 == 1:
                    self.code(x)

    def call(self, f):
        if not f:
            return
        head = f[0]
        args = f[1:]
        if isinstance(head, list):  # ((lambda ...) args)
            self.call(head)
            self.body(args)
            return
        if isinstance(head, Quoted):  # (#'foo x): unusual; walk what is code
            self.body(f)
            return
        if not isinstance(head, Sym) or head.name.startswith(":") or head.name in (".", ""):
            return  # a list of data
        name = head.name
        self.count(name)
        if name in SKIP_ARGS:
            if name in ("quote", "function") and args and isinstance(args[0], list):
                if name == "function":
                    self.call(args[0])
            elif name in ("cl-defstruct", "defclass"):
                pass
            return
        if name in DEFUN_LIKE:
            rest = args[1:]
            if name == "cl-defgeneric":
                return
            while rest and not isinstance(rest[0], list) and isinstance(rest[0], Sym):
                rest = rest[1:]  # qualifiers, a non-list arglist
            self.body(rest[1:])
            return
        if name == "cl-defmethod":
            rest = args[1:]
            while rest and not isinstance(rest[0], list):
                rest = rest[1:]  # :around, :extra "x" ...
            self.body(rest[1:])
            return
        if name in LAMBDA_LIKE:
            self.body(args[1:])
            return
        if name == "named-let":
            if len(args) >= 2:
                self.bindings(args[1], False)
                self.body(args[2:])
            return
        if name in LET_LIKE:
            if args:
                pattern = name.startswith("-") or name.startswith("pcase")
                spec = args[0]
                if name in ("if-let", "when-let", "-if-let", "-when-let") and isinstance(spec, list) \
                        and len(spec) == 2 and isinstance(spec[0], Sym):
                    self.code(spec[1])  # the old single-binding form
                elif name == "cl-letf" or name == "cl-letf*":
                    if isinstance(spec, list):
                        for b in spec:
                            if isinstance(b, list):
                                self.body(b)
                else:
                    self.bindings(spec, pattern)
                self.body(args[1:])
            return
        if name in DOLIST_LIKE:
            if args:
                spec = args[0]
                if isinstance(spec, list):
                    self.body(spec[1:])
                else:
                    self.code(spec)
                self.body(args[1:])
            return
        if name in DEFVAR_LIKE:
            self.body(args[1:])
            return
        if name == "cond":
            for clause in args:
                if isinstance(clause, list):
                    self.body(clause)
            return
        if name in ("condition-case", "condition-case-unless-debug"):
            if len(args) >= 2:
                self.code(args[1])
                for h in args[2:]:
                    if isinstance(h, list):
                        self.body(h[1:])
            return
        if name in CASE_LIKE:
            if args:
                self.code(args[0])
                for clause in args[1:]:
                    if isinstance(clause, list):
                        self.body(clause[1:])
            return
        if name in ("pcase-setq",):
            for j, x in enumerate(args):
                if j % 2 == 1:
                    self.code(x)
            return
        if name in FLET_LIKE:
            if args and isinstance(args[0], list):
                for b in args[0]:
                    if isinstance(b, list) and len(b) >= 2:
                        if len(b) == 2:
                            self.code(b[1])  # (name EXPR)
                        else:
                            self.body(b[2:])
            self.body(args[1:])
            return
        if name in PATTERN_FIRST:
            self.body(args[1:])
            return
        if name == "cl-loop" or name == "loop":
            skip = False
            for x in args:
                if skip:
                    skip = False
                    continue
                if isinstance(x, Sym) and x.name in ("for", "as", "with", "into"):
                    skip = True
                    continue
                self.code(x)
            return
        self.body(args)


# The reader's own checks (`census.py selftest`): source, and the call heads it counts.
SELFTEST = [
    ("(foo ?\\( (bar))", "bar foo"),
    ("(foo ?\\) (bar))", "bar foo"),
    ("(foo ?\" (bar))", "bar foo"),
    ("(foo ?\\C-x ?\\M-\\C-a ?\\^M (bar))", "bar foo"),
    ("(foo '(a b c) `(x ,(y) ,@(z w)) #'car #'(lambda (q) (r q)))", "foo lambda r y z"),
    ("(let ((a (b)) c) (d a))", "b d let"),
    ("(cond ((e) (f)) (t (g)))", "cond e f g"),
    ("(pcase x (`(,a . ,b) (h a)) ('k (i)))", "h i pcase"),
    ("(defun n (x &optional y) \"doc (not a call)\" (j x))", "defun j"),
    ("(rx (or \"a\" (+ digit)))", "rx"),
    ("(foo \"str \\\" (notcall)\" ; (comment)\n (k))", "foo k"),
    ("(setq x [a (b) c] y #s(hash-table data (a 1)))", "setq"),
    ("(foo 1.5 -2 +3 1e5 #x1F (l) (:key v) (\"s\" t))", "foo l"),
    ("(cl-loop for (a b) in xs collect (m a))", "cl-loop m"),
    ("(condition-case err (n1) (error (n2 err)))", "condition-case n1 n2"),
    ("(when-let ((x (o1)) ((o2))) (o3))", "o1 o2 o3 when-let"),
    ("(cl-defmethod p :around ((x string) y) (p1 x))", "cl-defmethod p1"),
    ("(dolist (x (q1) (q2)) (q3 x))", "dolist q1 q2 q3"),
    ("((lambda (x) (s1 x)) 1)", "lambda s1"),
    ("(foo\\ bar 1) (a\\(b)", "a(b foo bar"),
]


def selftest():
    bad = 0
    for source, want in SELFTEST:
        c = Counter()
        c.file = "selftest"
        c.body(Reader(source).forms())
        got = " ".join(sorted(n for n, k in c.heads.items() for _ in range(k)))
        if got != want:
            print(f"selftest: {source!r}: counted {got!r}, want {want!r}")
            bad += 1
    print(f"selftest: {len(SELFTEST) - bad} of {len(SELFTEST)} pass")
    sys.exit(1 if bad else 0)


def git(git_dir, *args, data=False):
    out = subprocess.run(["git", "--git-dir=" + git_dir, *args], check=True, capture_output=True)
    return out.stdout if data else out.stdout.decode()


def load_pins():
    with open(os.path.join(HERE, "repos.toml"), "rb") as f:
        return tomllib.load(f)["repo"]


def git_dir(mirrors, repo):
    return os.path.join(mirrors, repo.replace("/", "+"), "repo")


def el_files(gd, commit):
    names = git(gd, "ls-tree", "-r", "--name-only", commit).splitlines()
    return [p for p in names if p.endswith(".el") and not TEST_PATH.search(p)]


def count(mirrors):
    counter = Counter()
    repos = 0
    files = 0
    unread = []
    for pin in load_pins():
        gd = git_dir(mirrors, pin["repo"])
        paths = el_files(gd, pin["commit"])
        if len(paths) != pin["files"]:
            sys.exit(f"{pin['repo']}: {len(paths)} .el files at {pin['commit']}, the pin says {pin['files']}")
        repos += 1
        for path in paths:
            blob = git(gd, "cat-file", "blob", f"{pin['commit']}:{path}", data=True)
            text = blob.decode("utf-8", errors="replace")
            counter.file = pin["repo"] + ":" + path
            reader = Reader(text)
            try:
                forms = reader.forms()
            except (ReadError, RecursionError) as e:
                unread.append(f"{counter.file}: {e} at {reader.i}")
                continue
            files += 1
            counter.body(forms)
    for u in unread:
        print("unread:", u, file=sys.stderr)
    rows = counter.heads.most_common()
    rows.sort(key=lambda r: (-r[1], r[0]))
    with open(os.path.join(HERE, "counts.tsv"), "w", encoding="utf-8") as out:
        out.write("# The Emacs Lisp census (issue 46), written by spec/census/census.py count.\n")
        out.write(f"# repos\t{repos}\n# files\t{files}\n# unread\t{len(unread)}\n")
        out.write(f"# call-heads\t{counter.total}\n# names\t{len(rows)}\n")
        out.write(f"# kept\tthe {KEEP} most used names\n")
        out.write("name\toccurrences\tfiles\n")
        for name, n in rows[:KEEP]:
            out.write(f"{name}\t{n}\t{len(counter.files[name])}\n")
    print(f"{repos} repositories, {files} files read ({len(unread)} unread), "
          f"{counter.total} call heads, {len(rows)} names")


def check_pins(mirrors):
    bad = 0
    for pin in load_pins():
        gd = git_dir(mirrors, pin["repo"])
        try:
            git(gd, "cat-file", "-e", pin["commit"] + "^{commit}")
            n = len(el_files(gd, pin["commit"]))
        except (subprocess.CalledProcessError, FileNotFoundError):
            print(f"missing: {pin['repo']} at {pin['commit']} (fetch github:{pin['repo']})")
            bad += 1
            continue
        status = "ok" if n == pin["files"] else f"{n} files, pinned {pin['files']}"
        print(f"{pin['repo']}: {status}")
        bad += status != "ok"
    sys.exit(1 if bad else 0)


def pin(mirrors, repos):
    """Print repos.toml entries for `repos` at their mirrors' HEAD."""
    for repo in repos:
        gd = git_dir(mirrors, repo)
        commit = git(gd, "rev-parse", "HEAD").strip()
        date = git(gd, "log", "-1", "--format=%cs", commit).strip()
        n = len(el_files(gd, commit))
        print(f'[[repo]]\nrepo = "{repo}"\ncommit = "{commit}"\ndate = "{date}"\nfiles = {n}\n')


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["count", "check-pins", "pin", "all", "selftest"])
    p.add_argument("repos", nargs="*", help="for pin: owner/name ...")
    p.add_argument("--mirrors", default=os.environ.get("PTC_CENSUS_MIRRORS", DEFAULT_MIRRORS))
    a = p.parse_args()
    sys.setrecursionlimit(20000)
    if a.command == "selftest":
        selftest()
    elif a.command == "count":
        count(a.mirrors)
    elif a.command == "check-pins":
        check_pins(a.mirrors)
    elif a.command == "pin":
        pin(a.mirrors, a.repos)
    else:
        count(a.mirrors)
        env = dict(os.environ, PTC_CENSUS_WRITE="1")
        subprocess.run(["cargo", "test", "-q", "-p", "ptc-spec", "--test", "census"],
                       cwd=ROOT, env=env, check=True)
        with open(os.path.join(ROOT, "spec", "reference", "census.md"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("**Coverage"):
                    print(line.strip())


if __name__ == "__main__":
    main()
