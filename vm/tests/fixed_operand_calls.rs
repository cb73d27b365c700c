//! The fixed-operand primitive calls (`CallPrim1`, `CallPrim2`, `CallPrimRK`,
//! `CallPrimKR`) against the argument-block call (`CallPrim`): every primitive that takes
//! one or two arguments, on a pool of argument values, under default and tight budgets,
//! gives the same outcome (value, or error kind, message and span) and the same fuel.
//! This covers the fast paths on borrowed operands and the general path on copies. Also:
//! the verifier's checks of the new instructions.

use ptc_vm::isa::{ConstIdx, Op, PrimIdx, Reg};
use ptc_vm::prims::PRIMITIVES;
use ptc_vm::program::Function;
use ptc_vm::{Interner, Limits, Machine, Program, ProgramParts, Span, Step, Value};
use std::sync::Arc;

const CALL_SPAN: Span = Span::new(10, 20);

fn function(code: Vec<Op>, registers: u16) -> Function {
    // Every instruction but the call has span 0..1, so an error's span shows which ran.
    let spans = code
        .iter()
        .map(|op| {
            if matches!(op, Op::LoadConst { .. } | Op::Return { .. }) {
                Span::new(0, 1)
            } else {
                CALL_SPAN
            }
        })
        .collect();
    Function {
        name: "main".into(),
        code,
        spans,
        registers,
        required: 0,
        optional: 0,
        rest: false,
        captures: vec![],
    }
}

fn parts(code: Vec<Op>, constants: Vec<Value>, symbols: &Interner) -> ProgramParts {
    ProgramParts {
        functions: vec![function(code, 3)],
        constants,
        tools: vec![],
        symbols: symbols.clone(),
        callables: vec![],
    }
}

fn load(dst: u16, idx: u32) -> Op {
    Op::LoadConst {
        dst: Reg(dst),
        idx: ConstIdx(idx),
    }
}

/// Runs `code` to its end: the outcome's debug text and the fuel used.
fn run(code: Vec<Op>, constants: &[Value], symbols: &Interner, limits: Limits) -> (String, u64) {
    let program = Program::new(parts(code, constants.to_vec(), symbols)).expect("verifies");
    let mut machine = Machine::new(Arc::new(program), limits);
    loop {
        match machine.step() {
            Step::Pause => {}
            other => return (format!("{other:?}"), machine.stats().fuel_used),
        }
    }
}

fn pool(symbols: &mut Interner) -> Vec<Value> {
    let a = Value::Sym(symbols.intern("a"));
    let key = Value::Sym(symbols.intern(":a"));
    let b = Value::Sym(symbols.intern(":b"));
    vec![
        Value::Nil,
        Value::T,
        Value::Int(0),
        Value::Int(2),
        Value::Int(-7),
        Value::Int(i64::MAX),
        Value::Float(0.5),
        Value::string("ab"),
        Value::string(""),
        a.clone(),
        key.clone(),
        Value::list([key.clone(), Value::Int(1), b, Value::Int(2)]),
        Value::list([Value::list([a, Value::Int(1)]), Value::Int(3)]),
        Value::list([Value::Int(1), Value::Int(2), Value::Int(3)]),
        Value::cons(key, Value::Int(1)),
    ]
}

fn limit_sets() -> Vec<(&'static str, Limits)> {
    vec![
        ("default", Limits::default()),
        (
            "tight value budget",
            Limits {
                value_bytes: 6,
                value_nodes: 7,
                ..Limits::default()
            },
        ),
        (
            "tiny value budget",
            Limits {
                value_bytes: 19,
                value_nodes: 2,
                ..Limits::default()
            },
        ),
        (
            "slices of one step",
            Limits {
                slice_steps: 1,
                ..Limits::default()
            },
        ),
    ]
}

/// The reference program: both arguments loaded into an argument block.
fn block_call(prim: PrimIdx, argc: u8) -> Vec<Op> {
    let mut code: Vec<Op> = (0..argc)
        .map(|i| load(u16::from(i), u32::from(i)))
        .collect();
    code.push(Op::CallPrim {
        dst: Reg(2),
        prim,
        args: Reg(0),
        argc,
    });
    code.push(Op::Return { src: Reg(2) });
    code
}

#[test]
fn fixed_operand_calls_match_the_argument_block_call() {
    let mut symbols = Interner::new();
    let values = pool(&mut symbols);
    let mut compared = 0usize;
    for (index, primitive) in PRIMITIVES.iter().enumerate() {
        let prim = PrimIdx(u8::try_from(index).expect("small table"));
        for (label, limits) in limit_sets() {
            if primitive.accepts(1) {
                for x in &values {
                    let constants = [x.clone()];
                    let reference = run(block_call(prim, 1), &constants, &symbols, limits);
                    let code = vec![
                        load(1, 0),
                        Op::CallPrim1 {
                            dst: Reg(2),
                            prim,
                            a: Reg(1),
                        },
                        Op::Return { src: Reg(2) },
                    ];
                    let fixed = run(code, &constants, &symbols, limits);
                    assert_eq!(fixed, reference, "{} {x:?} ({label})", primitive.name);
                    compared += 1;
                }
            }
            if !primitive.accepts(2) {
                continue;
            }
            for x in &values {
                for y in &values {
                    let constants = [x.clone(), y.clone()];
                    let reference = run(block_call(prim, 2), &constants, &symbols, limits);
                    let what = format!("{} {x:?} {y:?} ({label})", primitive.name);
                    // Operands in any registers, here in the reverse of the block's order.
                    let two = vec![
                        load(1, 0),
                        load(0, 1),
                        Op::CallPrim2 {
                            dst: Reg(2),
                            prim,
                            a: Reg(1),
                            b: Reg(0),
                        },
                        Op::Return { src: Reg(2) },
                    ];
                    assert_eq!(run(two, &constants, &symbols, limits), reference, "{what}");
                    // A constant operand saves one load: one unit of fuel less.
                    let rk = vec![
                        load(0, 0),
                        Op::CallPrimRK {
                            dst: Reg(2),
                            prim,
                            a: Reg(0),
                            k: 1,
                        },
                        Op::Return { src: Reg(2) },
                    ];
                    let kr = vec![
                        load(1, 1),
                        Op::CallPrimKR {
                            dst: Reg(2),
                            prim,
                            k: 0,
                            b: Reg(1),
                        },
                        Op::Return { src: Reg(2) },
                    ];
                    for code in [rk, kr] {
                        let (outcome, fuel) = run(code, &constants, &symbols, limits);
                        assert_eq!((outcome, fuel + 1), reference, "{what}");
                    }
                    compared += 4;
                }
            }
        }
    }
    assert!(compared > 10_000, "{compared}");
}

#[test]
fn a_primitive_whose_work_spends_the_step_budget_fails_on_the_call() {
    // A load, then (length LIST) of a 3-element list at 1 + 3, then the return: with 5
    // steps or fewer the run stops on the call (or before it).
    let symbols = Interner::new();
    let list = Value::list([Value::Int(1), Value::Int(2), Value::Int(3)]);
    let length = PrimIdx(
        u8::try_from(
            PRIMITIVES
                .iter()
                .position(|p| p.name == "length")
                .expect("length"),
        )
        .expect("small"),
    );
    for steps in 1..9 {
        let limits = Limits {
            steps,
            ..Limits::default()
        };
        let reference = run(
            block_call(length, 1),
            std::slice::from_ref(&list),
            &symbols,
            limits,
        );
        let code = vec![
            load(0, 0),
            Op::CallPrim1 {
                dst: Reg(2),
                prim: length,
                a: Reg(0),
            },
            Op::Return { src: Reg(2) },
        ];
        let fixed = run(code, std::slice::from_ref(&list), &symbols, limits);
        assert_eq!(fixed, reference, "{steps} steps");
        if steps <= 5 {
            assert!(fixed.0.contains("Step"), "{steps}: {fixed:?}");
        } else {
            assert!(fixed.0.contains("Done(Int(3))"), "{steps}: {fixed:?}");
        }
    }
}

#[test]
fn the_verifier_checks_fixed_operand_calls() {
    let symbols = Interner::new();
    let prim = |name: &str| {
        PrimIdx(
            u8::try_from(PRIMITIVES.iter().position(|p| p.name == name).expect(name))
                .expect("small"),
        )
    };
    let verifies = |call: Op| {
        let code = vec![call, Op::Return { src: Reg(2) }];
        Program::new(parts(code, vec![Value::Int(1)], &symbols)).is_ok()
    };
    let two = |prim, a, b| Op::CallPrim2 {
        dst: Reg(2),
        prim,
        a: Reg(a),
        b: Reg(b),
    };
    assert!(verifies(two(prim("assq"), 0, 1)));
    // `car` takes one argument, `plist-get` at least two; registers stay in the window.
    assert!(!verifies(two(prim("car"), 0, 1)));
    assert!(!verifies(Op::CallPrim1 {
        dst: Reg(2),
        prim: prim("plist-get"),
        a: Reg(0),
    }));
    assert!(!verifies(two(prim("assq"), 0, 3)));
    assert!(!verifies(two(PrimIdx(255), 0, 1)));
    let rk = |k| Op::CallPrimRK {
        dst: Reg(2),
        prim: prim("assq"),
        a: Reg(0),
        k,
    };
    assert!(verifies(rk(0)));
    assert!(!verifies(rk(1)));
    assert!(!verifies(Op::CallPrimKR {
        dst: Reg(3),
        prim: prim("assq"),
        k: 0,
        b: Reg(0),
    }));
}
