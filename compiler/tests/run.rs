//! End-to-end: scripts compiled by the front end and run by the machine.

mod run_support;
use ptc_compiler::Roster;
use ptc_vm::Limits;
use run_support::{error, run, run_with, value};

#[test]
fn arithmetic_loops_and_bindings() {
    assert_eq!(
        run("(let ((n 0)) (while (< n 1000) (setq n (+ n 1))) n)"),
        value("1000")
    );
    assert_eq!(run("(let* ((a 1) (b (+ a 1))) (list a b))"), value("(1 2)"));
    assert_eq!(run("(let ((a 1)) (let ((a 2) (b a)) b))"), value("1"));
    assert_eq!(run("(if nil 1 2 3)"), value("3"));
    assert_eq!(run("(if t 1)"), value("1"));
    assert_eq!(run("(if nil 1)"), value("nil"));
    assert_eq!(run("(cond ((= 1 2) 'a) ((< 1 2) 'b) (t 'c))"), value("b"));
    assert_eq!(run("(cond (nil 1) (7))"), value("7"));
    assert_eq!(run("(and 1 2 3)"), value("3"));
    assert_eq!(run("(and)"), value("t"));
    assert_eq!(run("(or nil nil)"), value("nil"));
    assert_eq!(run("(or nil 4)"), value("4"));
    assert_eq!(run("(progn)"), value("nil"));
    assert_eq!(run("1 2 3"), value("3"));
    assert_eq!(run("(setq)"), value("nil"));
    assert_eq!(run("'(a . (b c))"), value("(a b c)"));
    assert_eq!(run("'(a . b)"), value("(a . b)"));
    assert_eq!(run("(a . b)"), error("script", "Improper list in script"));
}

#[test]
fn fused_loop_tests_and_immediate_compares_keep_their_meaning() {
    // ADDI.JLT (the fused increment and bottom test) on and off its integer fast path.
    let counter = "(defun f (i n) (let ((c 0)) (while (< i n) (setq c (+ c 1)) (setq i (+ i 1))) (list i c)))";
    assert_eq!(
        run(&format!(
            "{counter} (list (f 0 5) (f 0 0) (f 7 3) (f 0 5.5) (f 0.5 3))"
        )),
        value("((5 5) (0 0) (7 0) (6 6) (3.5 3))")
    );
    // Past the fixnum range the increment continues in big integers.
    assert_eq!(
        run(&format!(
            "{counter} (f 9223372036854775806 9223372036854775809)"
        )),
        value("(9223372036854775809 3)")
    );
    assert_eq!(
        run(&format!("{counter} (f 0 \"x\")")),
        error("script", "Wrong type argument: number-or-marker-p, \"x\"")
    );
    // A counter that turns into a non-number inside the body fails at the fused test.
    assert_eq!(
        run(
            "(defun g (n) (let ((i 0)) (while (< i n) (setq i (if (= i 2) 'x i)) (setq i (+ i 1))) i)) (g 5)"
        ),
        error("script", "Wrong type argument: number-or-marker-p, x")
    );
    // JNLTI: `(< x 2)` and `(> 2 x)` against an immediate.
    assert_eq!(
        run(
            "(defun h (x) (if (< x 2) 'small 'big)) (defun k (x) (if (> 2 x) 'small 'big)) (list (h 1) (h 2) (h 1.5) (h 2.5) (k 1) (k 2) (k 1.5) (k -7))"
        ),
        value("(small big small big small big small small)")
    );
    assert_eq!(
        run("(defun h (x) (if (< x 2) 1 2)) (h nil)"),
        error("script", "Wrong type argument: number-or-marker-p, nil")
    );
}

#[test]
fn unbound_and_bad_names_fail_when_reached() {
    assert_eq!(run("(if nil x 1)"), value("1"));
    assert_eq!(run("x"), error("script", "Unbound variable: x"));
    assert_eq!(
        run("(setq y 1)"),
        error("script", "'setq': unbound variable y")
    );
    assert_eq!(
        run("(let ((:k 1)) 1)"),
        error("script", "'let': bad binding name :k")
    );
}

#[test]
fn functions_recursion_and_tail_calls() {
    assert_eq!(
        run("(defun fib (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 15)"),
        value("610")
    );
    assert_eq!(
        run("(defun count (n acc) (if (= n 0) acc (count (- n 1) (+ acc 1)))) (count 50000 0)"),
        value("50000")
    );
    assert_eq!(
        run("(defun f (a &optional b &rest c) (list a b c)) (list (f 1) (f 1 2 3 4))"),
        value("((1 nil nil) (1 2 (3 4)))")
    );
    assert_eq!(
        run("(defun f (a) a) (f)"),
        error("script", "Wrong number of arguments: expected 1, got 0")
    );
    assert_eq!(
        run("(defun f (n) (+ 1 (f n))) (f 1)"),
        error(
            "stack",
            "Script exceeded its stack budget of 2000 frames; recursion is too deep"
        )
    );
}

#[test]
fn closures_capture_variables() {
    assert_eq!(
        run("(let ((x 1)) (let ((f (lambda () x))) (setq x 2) (funcall f)))"),
        value("2")
    );
    assert_eq!(
        run(
            "(let ((n 0)) (let ((inc (lambda () (setq n (+ n 1))))) (funcall inc) (funcall inc) n))"
        ),
        value("2")
    );
    assert_eq!(
        run("(funcall (let ((a 5)) (lambda (b) (lambda () (+ a b)))) 1)"),
        error(
            "value",
            "Guest closures cannot cross a tool or result boundary"
        )
    );
    assert_eq!(
        run("(funcall (funcall (let ((a 5)) (lambda (b) (lambda () (+ a b)))) 1))"),
        value("6")
    );
    assert_eq!(
        run("(mapcar (lambda (x) (+ x 1)) '(1 2 3))"),
        value("(2 3 4)")
    );
    assert_eq!(run("(apply '+ 1 2 '(3 4))"), value("10"));
    assert_eq!(run("(funcall 'car '(1 2))"), value("1"));
    assert_eq!(
        run("(funcall 'nope 1)"),
        error("script", "Void or forbidden function: nope")
    );
    assert_eq!(run("(funcall 5)"), error("script", "Not callable: 5"));
}

#[test]
fn transformers_and_macros() {
    assert_eq!(
        run("(let ((acc nil)) (dolist (x '(1 2 3)) (push x acc)) acc)"),
        value("(3 2 1)")
    );
    assert_eq!(
        run("(let ((s 0)) (dotimes (i 5) (setq s (+ s i))) s)"),
        value("10")
    );
    assert_eq!(run("(when t 1 2)"), value("2"));
    assert_eq!(run("(unless t 1 2)"), value("nil"));
    assert_eq!(
        run("(let ((x 2)) `(a ,x ,@(list 3 4)))"),
        value("(a 2 3 4)")
    );
    assert_eq!(
        run("(defmacro twice (f) `(progn ,f ,f)) (let ((n 0)) (twice (setq n (+ n 1))) n)"),
        value("2")
    );
    assert_eq!(
        run("(defmacro my-if (c a b) `(cond (,c ,a) (t ,b))) (my-if nil 1 2)"),
        value("2")
    );
    assert_eq!(
        run(
            "(let ((fs nil)) (dotimes (i 3) (push (lambda () i) fs)) (mapcar (lambda (f) (funcall f)) fs))"
        ),
        value("(2 1 0)")
    );
}

#[test]
fn tool_calls_and_batches() {
    assert_eq!(
        run("(Read :file_path \"a\")"),
        value("\"<Read (:file_path \\\"a\\\")>\"")
    );
    assert_eq!(
        run("(parallel (Read :file_path \"a\") (Grep :pattern \"b\"))"),
        value("(\"<Read (:file_path \\\"a\\\")>\" \"<Grep (:pattern \\\"b\\\")>\")")
    );
    assert_eq!(
        run("(length (parallel-map (lambda (f) (Read :file_path f)) '(\"a\" \"b\" \"c\")))"),
        value("3")
    );
    // Branches may call tools in sequence and compute (deviation 130).
    assert_eq!(
        run("(length (parallel (Read :file_path (Glob :pattern \"*\"))))"),
        value("1")
    );
    assert_eq!(run("(parallel (car '(1)))"), value("(1)"));
    assert_eq!(run("(parallel)"), value("nil"));
    let limits = Limits {
        tool_calls: 2,
        ..Limits::default()
    };
    let roster = Roster::new().tool("Read");
    let (outcome, calls) = run_with("(parallel (Read) (Read) (Read))", &roster, limits);
    assert_eq!(
        outcome,
        error(
            "tool-call",
            "Script exceeded its budget of 2 tool calls before a 3-call parallel batch at call 1"
        )
    );
    assert!(calls.is_empty());
}

#[test]
fn operators_resolve_before_arguments() {
    let roster = Roster::new().tool("Read");
    let (outcome, calls) = run_with(
        "(defmacro m () '(bogus (Read))) (m)",
        &roster,
        Limits::default(),
    );
    let run_support::Outcome::Error(kind, message) = outcome else {
        panic!("expected an error")
    };
    assert_eq!(kind, "preflight");
    assert!(message.starts_with("Unknown functions: bogus"), "{message}");
    assert!(calls.is_empty());
    // A computed call of an unknown name fails when reached, before its arguments run.
    let (outcome, calls) = run_with(
        "(Read) (funcall (car '(bogus)) (Read))",
        &roster,
        Limits::default(),
    );
    assert_eq!(
        outcome,
        error("script", "Void or forbidden function: bogus")
    );
    assert_eq!(calls.len(), 1);
}

#[test]
fn literal_regexps_are_checked_before_anything_runs() {
    let roster = Roster::new().tool("Read");
    let (outcome, calls) = run_with(
        "(progn (Read) (string-match-p \"\\\\(a\\\\)\\\\1\" \"aaa\"))",
        &roster,
        Limits::default(),
    );
    let run_support::Outcome::Error(kind, message) = outcome else {
        panic!("expected an error")
    };
    assert_eq!(kind, "atomic-work");
    assert!(message.contains("uses the backreference"), "{message}");
    assert!(calls.is_empty());
    assert_eq!(run("(string-match-p \"^[0-9]+$\" \"123\")"), value("0"));
}

#[test]
fn deeply_nested_scripts_compile_and_run_on_a_small_stack() {
    // 95 nested lets (depth limit 100) and a deep backquote-free expression, compiled and run
    // on a 2 MiB thread like the default test harness's.
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let mut script = String::new();
            for i in 0..45 {
                script.push_str(&format!("(let ((x{i} {i})) (dolist (y '(1)) "));
            }
            script.push('1');
            for _ in 0..45 {
                script.push_str("))");
            }
            assert_eq!(run(&script), value("nil"));
            let mut expr = String::new();
            for _ in 0..98 {
                expr.push_str("(+ 1 ");
            }
            expr.push('0');
            expr.push_str(&")".repeat(98));
            assert_eq!(run(&expr), value("98"));
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nested_setq_values_are_not_discarded() {
    // Found by the differential proptest: the inner setq's value was dropped because the
    // outer setq stood in statement position.
    assert_eq!(
        run("(let ((a 1) (c 3)) (setq c (setq a '(1 2 3) a 0) a '(1 2 3)) c)"),
        value("0")
    );
    assert_eq!(
        run("(let ((a 1) (c 3)) (setq c (if t (setq a 5))) (list a c))"),
        value("(5 5)")
    );
}

#[test]
fn definitions_are_hoisted_out_of_the_body_value() {
    // Found by the differential fuzz target (artifact crash-162390bc…): a definition after
    // the last body form does not make the script's value nil; the reference evaluator was
    // wrong, the machine right.
    assert_eq!(run(" 2 3 1 (defun f () 1ro g () 2)"), value("1"));
}
