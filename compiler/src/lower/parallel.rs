//! `parallel` and `parallel-map` (`spec/reference/special-forms.md`,
//! `spec/reference/tool-calls.md#parallel-batches`).
//!
//! Two lowerings, chosen statically:
//! - **Bare calls.** Every entry (every `parallel-map` body) is one direct roster-tool call
//!   whose arguments cannot reach a tool ([`Lowerer::may_call_tool`]): the arguments are
//!   evaluated in order and the calls go out as one batch (`BatchBegin`/`BatchPush`/
//!   `BatchEnd`), as before branches existed, so its audit and batch shape are unchanged.
//! - **Branches.** Anything else: each `parallel` entry becomes a closure of no parameter
//!   and `parallel-map`'s lambda a closure of one, run by `Op::Parallel` as branches that
//!   may compute, call tools in sequence and return any value (`vm/src/machine/branches.rs`).
//!
//! Invariant: `parallel-map`'s LIST is evaluated before any batch is begun, so it may call
//! tools.

use super::{Lowered, Lowerer, Operator, Params, Special, limit};
use crate::ast::{Sexp, SexpKind};
use ptc_vm::Value;
use ptc_vm::isa::{Op, Reg, ToolIdx};
use ptc_vm::symbol::well_known::{LAMBDA, QUOTE};
use smallvec::SmallVec;

impl Lowerer<'_> {
    /// The tool and arguments of a bare-call entry: one direct roster-tool call whose
    /// arguments cannot reach a tool. `None` for any other entry.
    fn bare_call<'f>(&self, entry: &'f Sexp) -> Option<(ToolIdx, &'f [Sexp])> {
        let items = entry.as_list()?;
        let (head, args) = items.split_first()?;
        match self.operator(head.as_symbol()?) {
            Operator::Tool(tool) if !self.may_call_tool(args) => Some((tool, args)),
            _ => None,
        }
    }

    /// Whether evaluating `forms` might call a tool: some list (outside `quote`) is headed
    /// by a tool, a script function, `funcall`, `apply`, `mapcar`, `parallel` or
    /// `parallel-map`. Conservative, and iterative (no host recursion per level).
    fn may_call_tool(&self, forms: &[Sexp]) -> bool {
        let mut stack: Vec<&Sexp> = forms.iter().collect();
        while let Some(form) = stack.pop() {
            let items = match &form.kind {
                SexpKind::List(items) | SexpKind::Vector(items) => items,
                SexpKind::Dotted(items, tail) => {
                    stack.push(tail);
                    items
                }
                _ => continue,
            };
            let head = items.first().and_then(Sexp::as_symbol);
            if head == Some(QUOTE) {
                continue;
            }
            if let Some(head) = head
                && matches!(
                    self.operator(head),
                    Operator::Tool(_)
                        | Operator::Function(_)
                        | Operator::Special(
                            Special::Funcall
                                | Special::Apply
                                | Special::Mapcar
                                | Special::Parallel
                                | Special::ParallelMap
                        )
                )
            {
                return true;
            }
            stack.extend(items.iter());
        }
        false
    }

    pub(super) fn lower_parallel(&mut self, entries: &[Sexp], dst: Reg) -> Lowered {
        if entries.is_empty() {
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        }
        // Inline for the usual batch of a few calls.
        let mut calls: SmallVec<[_; 8]> = SmallVec::with_capacity(entries.len());
        for entry in entries {
            match self.bare_call(entry) {
                Some(call) => calls.push((entry, call)),
                None => return self.lower_branches(entries, dst),
            }
        }
        self.emit(Op::BatchBegin)?;
        for (entry, (tool, args)) in calls {
            let mark = self.mark()?;
            let saved = self.current()?.span;
            self.current()?.span = entry.span;
            let (first, argc) = self.arguments(args)?;
            self.emit(Op::BatchPush {
                tool,
                args: first,
                argc,
            })?;
            self.current()?.span = saved;
            self.release(mark)?;
        }
        self.emit(Op::BatchEnd { dst })?;
        Ok(())
    }

    /// `(parallel ENTRY...)` as branches: one closure of no parameter per entry, in a list.
    fn lower_branches(&mut self, entries: &[Sexp], dst: Reg) -> Lowered {
        let mark = self.mark()?;
        let list = self.alloc()?;
        let closure = self.alloc()?;
        self.emit(Op::LoadNil { dst: list })?;
        let params = Params::default();
        for entry in entries.iter().rev() {
            let func = self.nested_function(&params, std::slice::from_ref(entry), entry.span)?;
            self.emit(Op::MakeClosure { dst: closure, func })?;
            self.emit(Op::Cons {
                dst: list,
                lhs: closure,
                rhs: list,
            })?;
        }
        self.emit(Op::LoadNil { dst: closure })?;
        self.emit(Op::Parallel {
            dst,
            func: closure,
            list,
        })?;
        self.release(mark)
    }

    pub(super) fn lower_parallel_map(&mut self, args: &[Sexp], dst: Reg) -> Lowered {
        let [template, list] = args else {
            return self.fail("'parallel-map': expects a lambda and one list");
        };
        let shape = "'parallel-map': lambda must have exactly one parameter";
        let Some((head, params, body)) = template
            .as_list()
            .and_then(|items| Some((items.first()?, items.get(1)?, items.get(2..)?)))
        else {
            return self.fail("'parallel-map': expects a lambda and one list");
        };
        if head.as_symbol() != Some(LAMBDA) {
            return self.fail("'parallel-map': expects a lambda and one list");
        }
        let parsed = match (self.parse_params)(params, self.interner) {
            Ok(parsed) => parsed,
            Err(message) => return self.fail(message),
        };
        let param = match (
            parsed.required.as_slice(),
            parsed.optional.is_empty(),
            parsed.rest,
        ) {
            ([param], true, None) => *param,
            _ => return self.fail(shape),
        };
        let rest = self.alloc()?;
        self.expr(list, rest, false)?;
        let msg = self.constant(Value::string("'parallel-map': expects a list"))?;
        self.emit(Op::AssertList { src: rest, msg })?;
        let bare = match body {
            [call] => self.bare_call(call).map(|call_parts| (call, call_parts)),
            _ => None,
        };
        let Some((call, (tool, call_args))) = bare else {
            // Branches: the lambda is a real closure, called once per element.
            let func = self.alloc()?;
            self.expr(template, func, false)?;
            self.emit(Op::Parallel {
                dst,
                func,
                list: rest,
            })?;
            return Ok(());
        };
        self.emit(Op::BatchBegin)?;
        let top = self.current()?.here();
        let exit = self.current()?.emit_jump(Op::JumpIfNil {
            src: rest,
            offset: 0,
        });
        let mark = self.mark()?;
        let scope = self.current()?.scope_mark();
        let item = self.alloc()?;
        self.emit(Op::Car {
            dst: item,
            src: rest,
        })?;
        let boxed = self.captured(call_args).contains(&param);
        self.bind_local(param, item, boxed)?;
        let saved = self.current()?.span;
        self.current()?.span = call.span;
        let (first, argc) = self.arguments(call_args)?;
        self.emit(Op::BatchPush {
            tool,
            args: first,
            argc,
        })?;
        self.current()?.span = saved;
        self.current()?.unbind_to(scope);
        self.release(mark)?;
        self.emit(Op::Cdr {
            dst: rest,
            src: rest,
        })?;
        let span = self.current()?.span;
        self.current()?.jump_back(top).map_err(|m| limit(m, span))?;
        self.patch_here(exit)?;
        self.emit(Op::BatchEnd { dst })?;
        Ok(())
    }
}
