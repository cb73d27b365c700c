//! Focused machine tests on hand-assembled programs: fuel and pauses, suspension and
//! resumption, the stack budget, captured cells. Programs compiled from source are tested
//! in the compiler and spec crates.

use ptc_vm::isa::{ConstIdx, FuncIdx, Op, Reg, ToolIdx};
use ptc_vm::program::{Capture, Function};
use ptc_vm::{ErrorKind, Interner, Limits, Machine, Program, ProgramParts, Span, Step, Value};
use std::sync::Arc;

fn function(name: &str, code: Vec<Op>, registers: u16, required: u8) -> Function {
    let spans = vec![Span::new(0, 1); code.len()];
    Function {
        name: name.to_owned().into(),
        code,
        spans,
        registers,
        required,
        optional: 0,
        rest: false,
        captures: vec![],
    }
}

fn program(functions: Vec<Function>, constants: Vec<Value>, tools: &[&str]) -> Arc<Program> {
    let parts = ProgramParts {
        functions,
        constants,
        tools: tools.iter().map(|t| Arc::from(*t)).collect(),
        symbols: Interner::new(),
        callables: vec![],
    };
    Arc::new(Program::new(parts).expect("verifies"))
}

/// `(let ((n 0)) (while (< n LIMIT) (setq n (+ n 1))) n)`
fn counting_loop(limit: i32) -> Arc<Program> {
    let code = vec![
        Op::LoadInt {
            dst: Reg(0),
            value: 0,
        },
        Op::LoadInt {
            dst: Reg(1),
            value: limit,
        },
        Op::JumpIfNotLess {
            lhs: Reg(0),
            rhs: Reg(1),
            offset: 2,
        },
        Op::AddImm {
            dst: Reg(0),
            lhs: Reg(0),
            imm: 1,
        },
        Op::Jump { offset: -3 },
        Op::Return { src: Reg(0) },
    ];
    program(vec![function("main", code, 2, 0)], vec![], &[])
}

fn run_to_end(machine: &mut Machine) -> (Step, u64) {
    let mut pauses = 0;
    loop {
        match machine.step() {
            Step::Pause => pauses += 1,
            other => return (other, pauses),
        }
    }
}

#[test]
fn loop_runs_with_pauses_and_exact_fuel() {
    let limits = Limits {
        steps: 10_000_000,
        ..Limits::default()
    };
    let mut machine = Machine::new(counting_loop(100_000), limits);
    let (step, pauses) = run_to_end(&mut machine);
    assert!(matches!(step, Step::Done(Value::Int(100_000))), "{step:?}");
    // 2 setup + 3 per iteration + final test + return
    assert_eq!(machine.stats().fuel_used, 2 + 3 * 100_000 + 2);
    assert!(pauses >= machine.stats().fuel_used / 2_000 - 1, "{pauses}");
}

#[test]
fn step_budget_is_hard() {
    let limits = Limits {
        steps: 1_000,
        slice_steps: 300,
        ..Limits::default()
    };
    let mut machine = Machine::new(counting_loop(1_000_000), limits);
    let (step, _) = run_to_end(&mut machine);
    let Step::Error(error) = step else {
        panic!("expected an error, got {step:?}")
    };
    assert_eq!(error.kind(), ErrorKind::Step);
    assert_eq!(
        error.message(),
        "Script exceeded its step budget of 1000 after 1000 steps; narrow the script"
    );
    assert_eq!(machine.stats().fuel_used, 1_000);
    // Settled: the same error again.
    assert!(matches!(machine.step(), Step::Error(e) if e.kind() == ErrorKind::Step));
}

#[test]
fn fuel_monotonicity_on_the_loop() {
    for budget in [50, 200, 303, 304, 1_000] {
        let limits = Limits {
            steps: budget,
            ..Limits::default()
        };
        let mut machine = Machine::new(counting_loop(100), limits);
        let (step, _) = run_to_end(&mut machine);
        match step {
            Step::Done(Value::Int(100)) => assert!(budget >= 304, "{budget}"),
            Step::Error(e) => {
                assert_eq!(e.kind(), ErrorKind::Step);
                assert!(budget < 304, "{budget}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn tool_call_suspends_and_resumes_into_its_register() {
    // (cons (Read :file_path "a") nil)
    let mut interner = Interner::new();
    let key = interner.intern(":file_path");
    let code = vec![
        Op::LoadConst {
            dst: Reg(1),
            idx: ConstIdx(0),
        },
        Op::LoadConst {
            dst: Reg(2),
            idx: ConstIdx(1),
        },
        Op::CallTool {
            dst: Reg(0),
            tool: ToolIdx(0),
            args: Reg(1),
            argc: 2,
        },
        Op::LoadNil { dst: Reg(1) },
        Op::Cons {
            dst: Reg(0),
            lhs: Reg(0),
            rhs: Reg(1),
        },
        Op::Return { src: Reg(0) },
    ];
    let parts = ProgramParts {
        functions: vec![function("main", code, 3, 0)],
        constants: vec![Value::Sym(key), Value::string("a")],
        tools: vec![Arc::from("Read")],
        symbols: interner,
        callables: vec![],
    };
    let mut machine = Machine::new(Arc::new(Program::new(parts).unwrap()), Limits::default());
    let Step::Tool(request) = machine.step() else {
        panic!("expected a tool call")
    };
    assert_eq!(&*request.tool, "Read");
    assert_eq!(machine.render(&request.args), "(:file_path \"a\")");
    let Step::Done(value) = machine.resume_tool(Value::string("text")) else {
        panic!("expected the end")
    };
    assert_eq!(machine.render(&value), "(\"text\")");
    assert_eq!(machine.stats().tool_calls, 1);
}

#[test]
fn tool_call_budget_counts_calls() {
    let code = vec![
        Op::CallTool {
            dst: Reg(0),
            tool: ToolIdx(0),
            args: Reg(0),
            argc: 0,
        },
        Op::CallTool {
            dst: Reg(0),
            tool: ToolIdx(0),
            args: Reg(0),
            argc: 0,
        },
        Op::Return { src: Reg(0) },
    ];
    let prog = program(vec![function("main", code, 1, 0)], vec![], &["Probe"]);
    let mut machine = Machine::new(
        prog,
        Limits {
            tool_calls: 1,
            ..Limits::default()
        },
    );
    assert!(matches!(machine.step(), Step::Tool(_)));
    let Step::Error(error) = machine.resume_tool(Value::Nil) else {
        panic!()
    };
    assert_eq!(error.kind(), ErrorKind::ToolCall);
    assert_eq!(
        error.message(),
        "Script exceeded its budget of 1 tool calls before nested call Probe at call 2"
    );
}

#[test]
fn deep_recursion_hits_the_stack_budget_not_the_host_stack() {
    // (defun f (n) (+ 1 (f n)))  — never ends; must stop at the stack budget.
    let main = vec![
        Op::LoadInt {
            dst: Reg(0),
            value: 0,
        },
        Op::CallFn {
            dst: Reg(0),
            func: FuncIdx(1),
            args: Reg(0),
            argc: 1,
        },
        Op::Return { src: Reg(0) },
    ];
    let f = vec![
        Op::CallFn {
            dst: Reg(1),
            func: FuncIdx(1),
            args: Reg(0),
            argc: 1,
        },
        Op::AddImm {
            dst: Reg(1),
            lhs: Reg(1),
            imm: 1,
        },
        Op::Return { src: Reg(1) },
    ];
    let prog = program(
        vec![function("main", main, 1, 0), function("f", f, 2, 1)],
        vec![],
        &[],
    );
    let limits = Limits {
        stack_depth: 100_000,
        steps: 10_000_000,
        ..Limits::default()
    };
    let handle = std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(move || {
            let mut machine = Machine::new(prog, limits);
            let (step, _) = run_to_end(&mut machine);
            match step {
                Step::Error(e) => (e.kind(), e.message().to_owned()),
                other => panic!("{other:?}"),
            }
        })
        .unwrap();
    let (kind, message) = handle.join().unwrap();
    assert_eq!(kind, ErrorKind::Stack);
    assert_eq!(
        message,
        "Script exceeded its stack budget of 100000 frames; recursion is too deep"
    );
}

#[test]
fn tail_calls_run_in_constant_frame_depth() {
    // (defun loop (n) (if (< n 0) ... )) approximated: count down n by tail calls.
    let main = vec![
        Op::LoadInt {
            dst: Reg(0),
            value: 50_000,
        },
        Op::CallFn {
            dst: Reg(0),
            func: FuncIdx(1),
            args: Reg(0),
            argc: 1,
        },
        Op::Return { src: Reg(0) },
    ];
    let f = vec![
        Op::LoadInt {
            dst: Reg(1),
            value: 1,
        },
        Op::JumpIfNotLess {
            lhs: Reg(0),
            rhs: Reg(1),
            offset: 1,
        },
        Op::Return { src: Reg(0) },
        Op::AddImm {
            dst: Reg(2),
            lhs: Reg(0),
            imm: -1,
        },
        Op::TailCallFn {
            func: FuncIdx(1),
            args: Reg(2),
            argc: 1,
        },
    ];
    let prog = program(
        vec![function("main", main, 1, 0), function("count", f, 3, 1)],
        vec![],
        &[],
    );
    let limits = Limits {
        stack_depth: 10,
        steps: 10_000_000,
        ..Limits::default()
    };
    let mut machine = Machine::new(prog, limits);
    let (step, _) = run_to_end(&mut machine);
    assert!(matches!(step, Step::Done(Value::Int(0))), "{step:?}");
}

#[test]
fn closures_share_captured_cells() {
    // (let ((x 1)) (let ((f (lambda () x))) (setq x 2) (funcall f)))
    let main = vec![
        Op::LoadInt {
            dst: Reg(0),
            value: 1,
        },
        Op::NewCell {
            dst: Reg(0),
            src: Reg(0),
        },
        Op::MakeClosure {
            dst: Reg(1),
            func: FuncIdx(1),
        },
        Op::LoadInt {
            dst: Reg(2),
            value: 2,
        },
        Op::StoreCell {
            cell: Reg(0),
            src: Reg(2),
        },
        Op::CallValue {
            dst: Reg(2),
            callee: Reg(1),
            args: Reg(3),
            argc: 0,
        },
        Op::Return { src: Reg(2) },
    ];
    let mut lambda = function(
        "lambda",
        vec![
            Op::LoadUpval {
                dst: Reg(0),
                idx: 0,
            },
            Op::Return { src: Reg(0) },
        ],
        1,
        0,
    );
    lambda.captures = vec![Capture::Cell(Reg(0))];
    let prog = program(vec![function("main", main, 4, 0), lambda], vec![], &[]);
    let mut machine = Machine::new(prog, Limits::default());
    let (step, _) = run_to_end(&mut machine);
    assert!(matches!(step, Step::Done(Value::Int(2))), "{step:?}");
}

#[test]
fn closures_cannot_be_the_final_value() {
    let main = vec![
        Op::MakeClosure {
            dst: Reg(0),
            func: FuncIdx(1),
        },
        Op::Return { src: Reg(0) },
    ];
    let lambda = function(
        "lambda",
        vec![Op::LoadNil { dst: Reg(0) }, Op::Return { src: Reg(0) }],
        1,
        0,
    );
    let prog = program(vec![function("main", main, 1, 0), lambda], vec![], &[]);
    let mut machine = Machine::new(prog, Limits::default());
    let Step::Error(error) = machine.step() else {
        panic!()
    };
    assert_eq!(error.kind(), ErrorKind::Value);
    assert_eq!(
        error.message(),
        "Guest closures cannot cross a tool or result boundary"
    );
}

#[test]
fn verifier_rejects_out_of_range_references() {
    let bad = vec![function(
        "main",
        vec![
            Op::Move {
                dst: Reg(5),
                src: Reg(0),
            },
            Op::Return { src: Reg(0) },
        ],
        1,
        0,
    )];
    let parts = ProgramParts {
        functions: bad,
        ..ProgramParts::default()
    };
    assert!(Program::new(parts).is_err());
    let falls_off = vec![function("main", vec![Op::LoadNil { dst: Reg(0) }], 1, 0)];
    assert!(
        Program::new(ProgramParts {
            functions: falls_off,
            ..ProgramParts::default()
        })
        .is_err()
    );
    let bad_jump = vec![function("main", vec![Op::Jump { offset: 5 }], 1, 0)];
    assert!(
        Program::new(ProgramParts {
            functions: bad_jump,
            ..ProgramParts::default()
        })
        .is_err()
    );
}
