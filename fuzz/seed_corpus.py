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

# `ptc serve` sessions (serve_frames): requests, then answers to our "c1", "c2", ... in
# every shape the protocol knows, and the ones it must refuse.
def rpc(**frame):
    return json.dumps({"jsonrpc": "2.0", **frame})
tools = [{"name": "A", "inputSchema": {"type": "object"}}, {"name": "B", "inputSchema": {"type": "object"}}]
run = lambda rid, expr, **extra: rpc(id=rid, method="run", params={"expression": expr, "tools": tools, **extra})
sessions = [
    [rpc(id=1, method="initialize", params={"protocolVersion": "2026-12-01"}), rpc(method="notifications/initialized")],
    [rpc(id=1, method="initialize", params={"protocolVersion": "1999"}), rpc(id="d", method="describe", params={"tools": tools})],
    [rpc(id=2, method="check", params={"expression": "(A :x 1", "tools": tools}), rpc(id=3, method="nope")],
    [run(1, "(list (A :x 1) (B))"),
     rpc(id="c1", result={"content": [{"type": "text", "text": "one"}]}),
     rpc(id="c2", result={"structuredContent": {"k": [1, 2]}, "content": []}),
     rpc(id="c2", result="duplicate"), rpc(id="c9", result="late")],
    [run("r", "(parallel (A) (B))"), rpc(id="c01", result=1), rpc(id="c1", error={"code": -1, "message": "no"}),
     rpc(id="c2", result={"denied": "user said no"})],
    [run(7, "(A)"), '{"jsonrpc":"2.0","id":"c1","result":1e999}'],
    [run(7, "(A)"), '{"jsonrpc":"2.0","id":"c1","result":' + "[" * 130 + "]" * 130 + "}"],
    [run(7, "(A)", limits={"tool_timeout_ms": 1}), rpc(id="c1", result={"isError": True, "content": []})],
    [run(12345678901234567890123, "(A)"), rpc(method="notifications/cancelled", params={"requestId": 12345678901234567890123})],
    [run(1, "(A)"), run(1, "(B)"), rpc(id=1.50, method="run", params={"expression": 1})],
    ["[]", "{}", "not json", "[" * 200, '{"jsonrpc":"2.0","id":{},"method":"run"}', '{"jsonrpc":"1.0","id":5,"method":"initialize"}',
     '{"jsonrpc":"2.0","id":5,"method":7}', '{"jsonrpc":"2.0","id":-0,"method":"initialize"}', '{"jsonrpc":"2.0","id":5}'],
    [run(1, "(dotimes (i 3) (A :i i))", limits={"tool_calls": 2}), rpc(id="c1", result=None), rpc(id="c2", result=[1])],
]
sessions.append(['{"jsonrpc":"2.0","id":1.50,"method":"initialize"}', '{"jsonrpc":"2.0","id":1E2,"method":"check","params":{"expression":"(A)"}}',
                 '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"describe"}', '{"jsonrpc":"2.0","id":"\\u0063\\u0031","result":1}',
                 '{"id":1,"jsonrpc":"2.0","id":2.50,"method":"initialize"}'])
for session in sessions:
    write("serve_frames", ("\n".join(session) + "\n").encode())

# Upstream MCP answers (mcp_results): what a server writes on stdout.
answers = [
    {"content": [{"type": "text", "text": "hi"}]},
    {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                 {"type": "resource", "resource": {"uri": "file:///x", "text": "abc"}},
                 {"type": "resource_link", "uri": "file:///y", "name": "y", "size": 3}, {"type": "audio"}]},
    {"content": [], "structuredContent": {"t": [1, 2.5, None, "x"]}},
    {"content": [], "isError": True}, {"isError": "yes", "content": "no"}, {"content": [{"text": 1}]},
]
for a in answers:
    write("mcp_results", json.dumps({"jsonrpc": "2.0", "id": 1, "result": a}).encode() + b"\n")
    write("mcp_results", json.dumps(a).encode())
for raw in ['{"jsonrpc":"2.0","id":2,"result":{"content":[]},"x":1e999}\n{"jsonrpc":"2.0","id":3,"result":NaN}\n',
            '{"jsonrpc":"2.0","id":"s1","result":' + "[" * 140 + "]" * 140 + '}\n',
            '{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"boom"}}\n{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n',
            '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"' + "9" * 400 + '"}]}}\r\n\n']:
    write("mcp_results", raw.encode())
