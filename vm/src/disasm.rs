//! A stable text listing of a program, used by golden tests, traces and tooling.
//!
//! One line per instruction: `pc  OP operands  ; span`. Operands print as `rN` (register),
//! `kN` (constant, with its printed value), `fN` (function, with its name), `tool:NAME`,
//! `prim:NAME` and jump targets as absolute `@pc`. The format only changes together with
//! the golden files.

use crate::isa::Op;
use crate::prims::PRIMITIVES;
use crate::print::{self, Style};
use crate::program::{Capture, Program};
use std::fmt::Write as _;

/// The listing of every function of `program`.
#[must_use]
pub fn disassemble(program: &Program) -> String {
    let mut out = String::new();
    for (index, func) in program.functions.iter().enumerate() {
        let _ = write!(
            out,
            "fn{index} {} (params {}+{}{}, registers {}",
            func.name,
            func.required,
            func.optional,
            if func.rest { " &rest" } else { "" },
            func.registers
        );
        if !func.captures.is_empty() {
            let captures: Vec<String> = func
                .captures
                .iter()
                .map(|c| match c {
                    Capture::Cell(reg) => format!("r{}", reg.0),
                    Capture::Upvalue(i) => format!("u{i}"),
                })
                .collect();
            let _ = write!(out, ", captures {}", captures.join(" "));
        }
        out.push_str(")\n");
        for (pc, op) in func.code.iter().enumerate() {
            let text = op_text(program, pc, *op);
            let span = func.spans.get(pc).copied().unwrap_or_default();
            let _ = writeln!(out, "  {pc:>4}  {text:<44} ; {}..{}", span.start, span.end);
        }
    }
    out
}

fn target(pc: usize, offset: i64) -> String {
    let target = i64::try_from(pc)
        .unwrap_or(i64::MAX)
        .saturating_add(1)
        .saturating_add(offset);
    format!("@{target}")
}

fn op_text(program: &Program, pc: usize, op: Op) -> String {
    let constant = |idx: crate::isa::ConstIdx| {
        program.constants.get(idx.as_usize()).map_or_else(
            || "?".into(),
            |v| print::to_string(v, Style::Prin1, &*program.symbols),
        )
    };
    let func = |f: crate::isa::FuncIdx| {
        format!(
            "f{}<{}>",
            f.0,
            program
                .functions
                .get(f.as_usize())
                .map_or("?", |f| &*f.name)
        )
    };
    let tool = |t: crate::isa::ToolIdx| {
        format!(
            "tool:{}",
            program.tools.get(t.as_usize()).map_or("?", |n| &**n)
        )
    };
    let prim = |p: crate::isa::PrimIdx| {
        format!(
            "prim:{}",
            PRIMITIVES.get(p.as_usize()).map_or("?", |p| p.name)
        )
    };
    let block = |args: crate::isa::Reg, argc: u8| {
        if argc == 0 {
            "()".to_owned()
        } else {
            format!(
                "(r{}..r{})",
                args.0,
                u32::from(args.0) + u32::from(argc) - 1
            )
        }
    };
    match op {
        Op::Move { dst, src } => format!("MOVE r{} r{}", dst.0, src.0),
        Op::LoadConst { dst, idx } => format!("CONST r{} k{}={}", dst.0, idx.0, constant(idx)),
        Op::LoadNil { dst } => format!("NIL r{}", dst.0),
        Op::LoadT { dst } => format!("T r{}", dst.0),
        Op::LoadInt { dst, value } => format!("INT r{} {value}", dst.0),
        Op::NewCell { dst, src } => format!("NEWCELL r{} r{}", dst.0, src.0),
        Op::LoadCell { dst, cell } => format!("GETCELL r{} [r{}]", dst.0, cell.0),
        Op::StoreCell { cell, src } => format!("SETCELL [r{}] r{}", cell.0, src.0),
        Op::LoadUpval { dst, idx } => format!("GETUP r{} u{idx}", dst.0),
        Op::StoreUpval { idx, src } => format!("SETUP u{idx} r{}", src.0),
        Op::Jump { offset } => format!("JUMP {}", target(pc, i64::from(offset))),
        Op::JumpIfNil { src, offset } => {
            format!("JNIL r{} {}", src.0, target(pc, i64::from(offset)))
        }
        Op::JumpIfNotNil { src, offset } => {
            format!("JNOTNIL r{} {}", src.0, target(pc, i64::from(offset)))
        }
        Op::JumpIfLess { lhs, rhs, offset } => {
            format!(
                "JLT r{} r{} {}",
                lhs.0,
                rhs.0,
                target(pc, i64::from(offset))
            )
        }
        Op::JumpIfNotLessImm { lhs, imm, offset } => {
            format!("JNLTI r{} {imm} {}", lhs.0, target(pc, i64::from(offset)))
        }
        Op::AddImmJumpIfLess {
            reg,
            rhs,
            imm,
            offset,
        } => format!(
            "ADDI.JLT r{} {imm} r{} {}",
            reg.0,
            rhs.0,
            target(pc, i64::from(offset))
        ),
        Op::JumpIfNotLess { lhs, rhs, offset } => {
            format!(
                "JNLT r{} r{} {}",
                lhs.0,
                rhs.0,
                target(pc, i64::from(offset))
            )
        }
        Op::Return { src } => format!("RETURN r{}", src.0),
        Op::Fail { msg } => format!("FAIL k{}={}", msg.0, constant(msg)),
        Op::PushHandler { dst, clauses } => format!(
            "HANDLER r{} k{}={} -> {}",
            dst.0,
            clauses.0,
            constant(clauses),
            pc + 2
        ),
        Op::PopHandler => "POPHANDLER".to_owned(),
        Op::CallFn {
            dst,
            func: f,
            args,
            argc,
        } => format!("CALL r{} {} {}", dst.0, func(f), block(args, argc)),
        Op::TailCallFn {
            func: f,
            args,
            argc,
        } => format!("TAILCALL {} {}", func(f), block(args, argc)),
        Op::CallPrim {
            dst,
            prim: p,
            args,
            argc,
        } => format!("PRIM r{} {} {}", dst.0, prim(p), block(args, argc)),
        Op::CallPrim1 { dst, prim: p, a } => format!("PRIM1 r{} {} r{}", dst.0, prim(p), a.0),
        Op::CallPrim2 { dst, prim: p, a, b } => {
            format!("PRIM2 r{} {} r{} r{}", dst.0, prim(p), a.0, b.0)
        }
        Op::CallPrimRK { dst, prim: p, a, k } => format!(
            "PRIM2 r{} {} r{} k{}={}",
            dst.0,
            prim(p),
            a.0,
            k,
            constant(crate::isa::ConstIdx(u32::from(k)))
        ),
        Op::CallPrimKR { dst, prim: p, k, b } => format!(
            "PRIM2 r{} {} k{}={} r{}",
            dst.0,
            prim(p),
            k,
            constant(crate::isa::ConstIdx(u32::from(k))),
            b.0
        ),
        Op::CallValue {
            dst,
            callee,
            args,
            argc,
        } => {
            format!("CALLV r{} r{} {}", dst.0, callee.0, block(args, argc))
        }
        Op::ApplyValue {
            dst,
            callee,
            args,
            argc,
        } => {
            format!("APPLY r{} r{} {}", dst.0, callee.0, block(args, argc))
        }
        Op::CheckCallable { src } => format!("CHECKFN r{}", src.0),
        Op::MakeClosure { dst, func: f } => format!("CLOSURE r{} {}", dst.0, func(f)),
        Op::CallTool {
            dst,
            tool: t,
            args,
            argc,
        } => format!("TOOL r{} {} {}", dst.0, tool(t), block(args, argc)),
        Op::BatchBegin => "BATCH".to_owned(),
        Op::BatchPush {
            tool: t,
            args,
            argc,
        } => format!("BATCHPUSH {} {}", tool(t), block(args, argc)),
        Op::BatchEnd { dst } => format!("BATCHEND r{}", dst.0),
        Op::Parallel { dst, func, list } => {
            format!("PARALLEL r{} r{} r{}", dst.0, func.0, list.0)
        }
        Op::Add { dst, lhs, rhs } => format!("ADD r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::Sub { dst, lhs, rhs } => format!("SUB r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::Mul { dst, lhs, rhs } => format!("MUL r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::Rem { dst, lhs, rhs } => format!("REM r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::AddImm { dst, lhs, imm } => format!("ADDI r{} r{} {imm}", dst.0, lhs.0),
        Op::Less { dst, lhs, rhs } => format!("LT r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::NumEq { dst, lhs, rhs } => format!("NUMEQ r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::Eq { dst, lhs, rhs } => format!("EQ r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::Car { dst, src } => format!("CAR r{} r{}", dst.0, src.0),
        Op::Cdr { dst, src } => format!("CDR r{} r{}", dst.0, src.0),
        Op::Cons { dst, lhs, rhs } => format!("CONS r{} r{} r{}", dst.0, lhs.0, rhs.0),
        Op::Not { dst, src } => format!("NOT r{} r{}", dst.0, src.0),
        Op::AssertList { src, msg } => format!("ASSERTLIST r{} k{}", src.0, msg.0),
        Op::ReverseList { dst, src } => format!("REVERSE r{} r{}", dst.0, src.0),
    }
}
