#!/usr/bin/env bash
# The Emacs Lisp client (emacs/ptc.el, issue 45): byte-compiles it and its tests with warnings
# as errors, runs checkdoc on both (any message fails), runs the ERT suite under
# `emacs --batch -Q` against a real `ptc serve`, then runs the README's runnable examples
# (the blocks after `<!-- ci: run -->` in emacs/README.md) literally, in `emacs --batch -Q`
# with only emacs/ on the load path and `ptc` on PATH, checking what they print.
# The binary is PTC_BIN when set, else a release build of ptc-cli. Emacs comes from
# .ci/dialect.sh, which .ci/run runs first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PTC_BIN:-}" ]; then
    echo "== cargo build -p ptc-cli --release (for emacs/ptc.el)"
    cargo build -p ptc-cli --release --locked --quiet
    PTC_BIN="$PWD/target/release/ptc"
fi
PTC_BIN="$(cd "$(dirname "$PTC_BIN")" && pwd)/$(basename "$PTC_BIN")"
export PTC_BIN
echo "== emacs/ptc.el: $(emacs --version | head -n 1), $PTC_BIN"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp emacs/ptc.el emacs/test/ptc-test.el "$scratch/"

echo "== byte-compile (warnings are errors) and checkdoc: emacs/ptc.el emacs/test/ptc-test.el"
cat >"$scratch/lint.el" <<'EOF'
(require 'checkdoc)
(setq byte-compile-error-on-warn t)
(let ((problems 0))
  (dolist (file command-line-args-left)
    (unless (byte-compile-file file)
      (setq problems (1+ problems)))
    (let ((checkdoc-create-error-function
           (lambda (text start _end &optional _unfixable)
             (setq problems (1+ problems))
             (message "%s:%d: checkdoc: %s" (file-name-nondirectory file)
                      (line-number-at-pos start) text)
             nil)))
      (with-current-buffer (find-file-noselect file)
        (checkdoc-current-buffer t))))
  (setq command-line-args-left nil)
  (message "lint: %d problem(s)" problems)
  (kill-emacs (if (zerop problems) 0 1)))
EOF
# Compiled in the scratch copy, so no .elc lands in the tree; ptc-test.el compiles against it.
(cd "$scratch" && emacs --batch -Q -L . -l lint.el ptc.el ptc-test.el)

echo "== ERT: emacs/test/ptc-test.el"
timeout 300 emacs --batch -Q -L emacs -l emacs/test/ptc-test.el -f ert-run-tests-batch-and-exit

echo "== emacs/README.md examples, literally"
PATH="$(dirname "$PTC_BIN"):$PATH"
awk -v dir="$scratch" '
    /^<!-- ci: run -->$/ { want = 1; next }
    want && /^```elisp$/ { n++; file = dir "/example" n ".el"; inside = 1; want = 0; next }
    inside && /^```$/ { inside = 0; close(file); next }
    inside { print > file }
' emacs/README.md
# What each example prints, as the README says.
expected=('completed: (:warmest 19 :shout "OSLO")' 'completed: 3 files, 105 bytes')
for n in 1 2; do
    [ -f "$scratch/example$n.el" ] || { echo "emacs/README.md: runnable example $n is missing"; exit 1; }
    got="$(timeout 60 emacs --batch -Q -L emacs -l "$scratch/example$n.el" 2>&1)"
    echo "$got"
    if [ "$got" != "${expected[$((n - 1))]}" ]; then
        echo "emacs/README.md example $n printed the above, expected: ${expected[$((n - 1))]}"
        exit 1
    fi
done
echo "== emacs/ptc.el: ok"
