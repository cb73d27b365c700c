//! `condition-case`: guest error handling on the machine's handler records
//! ([`Op::PushHandler`] / [`Op::PopHandler`]).
//!
//! Layout of `(condition-case VAR BODY (C1 H1...) (C2 H2...) (:success S...))`:
//!
//! ```text
//!       PushHandler err, k=((C1...) (C2...))   ; err, err+1 = (SYMBOL . DATA), clause index
//!       Jump body
//!       ; handler code: clause i runs when err+1 < i+1 (earlier clauses jumped away)
//!       JumpIfNotLessImm err+1, 1 -> next1 ; VAR := err ; H1... -> dst ; Jump end
//! next1: ... the last clause without a test ...
//! body: BODY -> dst ; PopHandler ; [VAR := dst ; S... -> dst]
//! end:
//! ```
//!
//! Invariants: BODY is never in tail position (its frame must outlive it for the handler);
//! the machine pops the handler before running its code, so an error inside a handler
//! goes to the next handler out. Which errors are catchable is the machine's decision
//! (`ptc_vm::prims::signal::catchable`): only kind `script`, never internal errors or
//! budgets. Shape errors follow Emacs's messages and fail when reached.

use super::builder::Location;
use super::{Lowered, Lowerer};
use crate::ast::{Sexp, SexpKind};
use ptc_vm::Value;
use ptc_vm::isa::{Op, Reg};

impl Lowerer<'_> {
    pub(super) fn lower_condition_case(&mut self, args: &[Sexp], dst: Reg) -> Lowered {
        let Some((variable, rest)) = args.split_first() else {
            return self.fail("Wrong number of arguments: condition-case, 0");
        };
        let variable = match &variable.kind {
            SexpKind::Nil => None,
            SexpKind::Sym(symbol) if !symbol.is_keyword() => Some(*symbol),
            _ => {
                let message = format!("Wrong type argument: symbolp, {}", self.show(variable));
                return self.fail(message);
            }
        };
        let (body, clauses) = match rest.split_first() {
            Some((body, clauses)) => (Some(body), clauses),
            None => (None, &[][..]),
        };
        let mut handlers: Vec<(Value, &[Sexp])> = Vec::new();
        let mut success: Option<&[Sexp]> = None;
        for clause in clauses {
            let Some((conditions, handler_body)) = clause.as_list().and_then(|c| c.split_first())
            else {
                if matches!(clause.kind, SexpKind::Nil) {
                    continue;
                }
                let message = format!("Invalid condition handler: {}", self.show(clause));
                return self.fail(message);
            };
            let names = match &conditions.kind {
                SexpKind::Sym(symbol) if self.name(*symbol) == ":success" => {
                    success = Some(handler_body);
                    continue;
                }
                SexpKind::Sym(_) | SexpKind::T => Value::list([conditions.to_value()]),
                SexpKind::Nil => Value::Nil,
                SexpKind::List(items) => {
                    Value::list(items.iter().map(Sexp::to_value).collect::<Vec<_>>())
                }
                _ => {
                    let message = format!("Invalid condition handler: {}", self.show(clause));
                    return self.fail(message);
                }
            };
            handlers.push((names, handler_body));
        }
        let mark = self.mark()?;
        let span = self.current()?.span;
        let error = self
            .current()?
            .alloc_block(2)
            .map_err(|m| super::limit(m, span))?;
        let index = Reg(error.0.saturating_add(1));
        let table = Value::list(
            handlers
                .iter()
                .map(|(names, _)| names.clone())
                .collect::<Vec<_>>(),
        );
        let clauses_idx = self.constant(table)?;
        self.emit(Op::PushHandler {
            dst: error,
            clauses: clauses_idx,
        })?;
        let to_body = self.current()?.emit_jump(Op::Jump { offset: 0 });
        let mut ends = Vec::new();
        let count = handlers.len();
        for (position, (_, handler_body)) in handlers.iter().enumerate() {
            let skip = if position + 1 < count {
                let imm = i16::try_from(position + 1).unwrap_or(i16::MAX);
                Some(self.current()?.emit_jump(Op::JumpIfNotLessImm {
                    lhs: index,
                    imm,
                    offset: 0,
                }))
            } else {
                None
            };
            self.bound_progn(variable, error, handler_body, dst)?;
            ends.push(self.current()?.emit_jump(Op::Jump { offset: 0 }));
            if let Some(skip) = skip {
                self.patch_here(skip)?;
            }
        }
        if count == 0 {
            // No clause can match, but the handler code must still end.
            ends.push(self.current()?.emit_jump(Op::Jump { offset: 0 }));
        }
        self.patch_here(to_body)?;
        match body {
            Some(body) => self.expr(body, dst, false)?,
            None => {
                self.emit(Op::LoadNil { dst })?;
            }
        }
        self.emit(Op::PopHandler)?;
        if let Some(success_body) = success {
            self.emit(Op::Move {
                dst: error,
                src: dst,
            })?;
            self.bound_progn(variable, error, success_body, dst)?;
        }
        for end in ends {
            self.patch_here(end)?;
        }
        self.release(mark)
    }

    /// `body` in a scope where `variable` (when given) names the value in `reg`.
    fn bound_progn(
        &mut self,
        variable: Option<ptc_vm::Symbol>,
        reg: Reg,
        body: &[Sexp],
        dst: Reg,
    ) -> Lowered {
        let scope = self.current()?.scope_mark();
        if let Some(symbol) = variable {
            if self.captured(body).contains(&symbol) {
                let cell = self.alloc()?;
                self.emit(Op::NewCell {
                    dst: cell,
                    src: reg,
                })?;
                self.current()?.bind(symbol, Location::Cell(cell));
            } else {
                self.current()?.bind(symbol, Location::Register(reg));
            }
        }
        let result = self.progn(body, dst, false);
        self.current()?.unbind_to(scope);
        result
    }
}
