#!/usr/bin/env python3
"""Runs every model-corpus case through GNU Emacs (batch, lexical binding) with the tools
stubbed as Emacs functions, and reports the cases whose expected `value` differs from what
Emacs prints. By hand: `python3 spec/model-corpus/emacs_check.py` (needs `emacs`).

Shims on the Emacs side, because the dialect has them and Emacs does not: `parallel` (a
list of its calls), `parallel-map` (mapcar), and the tools (functions over a keyword
plist). Emacs 28 lacks `take` (29) and plain `incf`/`decf` (31): shimmed too."""
import json, pathlib, subprocess, sys, tomllib

HERE = pathlib.Path(__file__).parent

def el(v):
    """A JSON value as an Emacs literal under the tool-result mapping."""
    if v is None: return ":null"
    if v is True: return "t"
    if v is False: return ":json-false"
    if isinstance(v, (int, float)): return json.dumps(v)
    if isinstance(v, str): return el_str(v)
    if isinstance(v, list): return "(" + " ".join(el(x) for x in v) + ")" if v else "nil"
    if isinstance(v, dict):
        return "(" + " ".join(":" + k + " " + el(x) for k, x in v.items()) + ")" if v else "nil"
    raise ValueError(v)

def el_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

def answer(stub):
    if "error" in stub: return "(list :error %s)" % el_str(stub["error"])
    if "text" in stub:
        t = stub["text"]
        return el_str(t) if isinstance(t, str) else {k: el_str(x) for k, x in t.items()}
    j = stub["json"]
    if isinstance(j, str): return "'" + el(json.loads(j))
    return {k: "'" + el(json.loads(x)) for k, x in j.items()}

def tool_def(name, stub):
    a = answer(stub)
    if isinstance(a, dict):
        key = stub["by"]
        clauses = " ".join("((equal k %s) %s)" % (el_str(k), v) for k, v in a.items())
        body = ('(let ((k (format "%%s" (plist-get args :%s)))) (cond %s (t (list :error (concat "not found: " k)))))'
                % (key, clauses))
    else:
        body = a
    return "(defun %s (&rest args) (ignore args) %s)" % (name, body)

PRELUDE = r'''
(setq lexical-binding t)
(require 'cl-lib) (require 'seq) (require 'subr-x)
(autoload 'json-encode "json")
(defmacro parallel (&rest calls) `(list ,@calls))
(defmacro parallel-map (fn list) `(mapcar ,fn ,list))
(unless (fboundp 'take) (defun take (n l) (seq-take l n)))
(unless (fboundp 'incf) (defalias 'incf 'cl-incf))
(unless (fboundp 'decf) (defalias 'decf 'cl-decf))
'''

def main():
    cases = []
    for f in sorted(HERE.glob("*.toml")):
        for c in tomllib.loads(f.read_text())["case"]:
            cases.append(c)
    forms = []
    for c in cases:
        defs = " ".join(tool_def(n, s) for n, s in c.get("tools", {}).items())
        prog = "(progn %s\n%s\n)" % (defs, c["script"])
        forms.append("(princ (format \"@@%%s\\t%%s\\n\" %s (condition-case e (replace-regexp-in-string \"\\n\" \"\\\\n\" (prin1-to-string (eval (car (read-from-string %s)) t)) t t) (error (format \"ERROR %%S\" e)))))"
                     % (el_str(c["name"]), el_str(prog)))
    src = PRELUDE + "\n".join(forms)
    path = pathlib.Path("/tmp/model_corpus_check.el")
    path.write_text(src)
    out = subprocess.run(["emacs", "--batch", "-Q", "-l", str(path)], capture_output=True, text=True)
    got = {}
    for line in out.stdout.splitlines():
        if line.startswith("@@"):
            name, _, val = line[2:].partition("\t")
            got[name] = val
    bad = 0
    for c in cases:
        g = got.get(c["name"], "<no output>")
        want = c.get("value")
        if want is None:
            ok = g.startswith("ERROR")
        else:
            ok = g == want
        if not ok:
            bad += 1
            print("%s\n  want %s\n  emacs %s" % (c["name"], want or ("error " + c["error"]), g))
    print("%d cases, %d differ from Emacs" % (len(cases), bad))
    if out.stderr.strip():
        print("stderr:", out.stderr[-2000:], file=sys.stderr)

main()
