#!/usr/bin/env python3
"""Regenerates fuzz/seeds/ from the script literals in compiler/tests/*.rs plus the hostile
catalogue's classic inputs. Run from the repository root: python3 fuzz/seed_corpus.py"""
import hashlib, json, pathlib, re

root = pathlib.Path(__file__).resolve().parent.parent
seeds = root / "fuzz" / "seeds"
literal = re.compile(r'r#"(.*?)"#|"((?:[^"\\]|\\.)*)"', re.S)

def unescape(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "\n":
                i += 2
                while i < len(text) and text[i] in " \t\n":
                    i += 1
                continue
            out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"', "0": "\0", "'": "'"}.get(n, "\\" + n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)

scripts = set()
for path in sorted((root / "compiler" / "tests").glob("*.rs")):
    for m in literal.finditer(path.read_text()):
        text = m.group(1) if m.group(1) is not None else unescape(m.group(2))
        if "(" in text and len(text) < 2000:
            scripts.add(text)

catalogue = [
    "(while t)", "(defun f (n) (g n)) (defun g (n) (f n)) (f 1)",
    '(string-match-p "\\\\(x+y*\\\\)*a" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz")',
    "(let ((x (list 1 2))) (dotimes (i 64) (setq x (list x x))) x)",
    '(let ((x "a")) (dotimes (i 60) (setq x (concat x x))) x)',
    '(format "%1000000000d" 1)', '(format "%.1000000f" 1.0)',
    "(/ -9223372036854775808 -1)", "(% -9223372036854775808 -1)", "(abs -9223372036854775808)",
    "(parallel-map (lambda (x) (Read :file_path x)) (make-list 10000 \"a\"))",
    "(let ((r (Read))) (list r (equal r r) (format \"%S\" r)))",
    "(Grep :pattern (Read :file_path \"a\"))",
    "(parallel (Read :file_path \"a\") (Grep :pattern \"b\") (Glob :pattern \"*\"))",
    # Branches that compute and call tools in sequence (issue 37).
    "(parallel-map (lambda (f) (cons f (length (split-string (Read :file_path f) \"\\n\")))) '(\"a\" \"b\" \"c\" \"d\" \"e\"))",
    "(parallel (progn (Read :file_path \"a\") (Grep :pattern (Read))) (car 1) (Glob :pattern \"*\"))",
    "(let ((n 0)) (parallel-map (lambda (x) (setq n (1+ n)) (list n (Read :file_path x) (Read))) (make-list 9 \"a\")))",
    "(defun g (x) (parallel (Read :file_path x))) (parallel-map (lambda (x) (condition-case e (g x) (error e))) '(\"a\" \"b\"))",
    # Hash tables: mutation, aliasing, self-reference, a long chain (issue 46).
    "(let ((h (make-hash-table :test 'equal))) (dolist (w '(\"a\" \"b\" \"a\")) (puthash w (1+ (gethash w h 0)) h)) (list h (hash-table-keys h)))",
    "(let ((h (make-hash-table))) (puthash 'me (list h) h))",
    "(let ((h (make-hash-table))) (dotimes (i 100000) (let ((n (make-hash-table))) (puthash 'next h n) (setq h n))) h)",
    "(let* ((h (make-hash-table)) (l (list h h h))) (dotimes (i 1000) (puthash i (format \"%d\" i) h)) (format \"%S\" l))",
    "(let ((h (make-hash-table))) (maphash (lambda (k v) (remhash k h)) (progn (puthash 1 2 h) (puthash 3 4 h) h)) (Read :file_path (json-encode (map-into h 'alist))))",
]
scripts.update(catalogue)

def write(target, data):
    d = seeds / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)

for s in sorted(scripts):
    b = s.encode()
    for target in ("lex_parse", "compile", "compile_verify", "differential"):
        write(target, b)
    for variant in range(4):
        host = bytes([1, 5]) + b"hello" + bytes([2, 3]) + b"bad" + bytes([3, 9]) + b'{"a":[1]}' + bytes([4, 3, 5, 40, 2])
        write("execute", bytes([variant]) + b + b"\xff" + host)

for j in ['{"a":1,"b":[1,2,{"c":null}]}', "[true,false,null]", '{"":1}', "18446744073709551615",
          "1e400", '"\\ud800"', "[" * 100 + "]" * 100, '{"null":1,"json-false":2}', "-0.0", "{}", "[]"]:
    write("tool_results", j.encode())

for p, h in [("^[0-9]+$", "123"), ("\\(x+y*\\)*a", "x" * 40 + "z"), ("a\\{1000\\}", "aaa"),
             ("[[:alpha:]]+\\b", "hello world"), ("\\(a+\\)\\1", "aa"), ("\\`a.c\\'", "abc"), ("[]a-]", "-"),
             ("\\_<foo\\_>", "a foo b"), ("\\sw\\s-", "a b")]:
    write("regexp", p.encode() + b"\xff" + h.encode())

for f in ["%s", "%S", "%d", "%5.2f", "%x", "%-10s|", "%c", "%%", "%e", "%g", "%1000000000d", "%.99999f", "%o", "%3$s"]:
    fb = f.encode()
    write("format", bytes([len(fb)]) + fb + bytes([2, 5]) + (2**63 - 1).to_bytes(8, "little") + bytes([4, 3]) + b"abc")

# Structured format directives (first byte >= 0x80): std's 65535 precision edge, the value
# budget's edge, with f/e/g conversions (issue 11.1).
for size_pick, conv in [(5, 7), (4, 8), (5, 9), (6, 7), (8, 9), (7, 8)]:
    # one directive: no literal, no field number, no flags, no width, a precision
    directive = bytes([1, 1, 1, 0, 1, 0, size_pick, conv])
    write("format", bytes([0x81]) + directive + bytes([2, 11]))

for op in range(22):
    write("numeric", bytes([op, 2, 1, 3]))
    write("numeric", bytes([op, 3, 5]) + (12345).to_bytes(8, "little") + bytes([10, 200]) + (7).to_bytes(8, "little") + bytes([6]))
