//! Open-coded special forms: control flow, bindings, closures and higher-order calls
//! (`parallel` and `parallel-map` are in `parallel.rs`). Shapes and messages follow the dialect reference
//! (`spec/reference/special-forms.md`); lenient corners (`(if)`, `(setq x)`,
//! `(quote a b)`, extra elements in a `let` binding) are kept as in the original.

use super::builder::{EmitError, Location};
use super::{Lowered, Lowerer, Operator, Params, Special, is_atom, limit};
use crate::ast::{Sexp, SexpKind};
use ptc_vm::Value;
use ptc_vm::isa::{FuncIdx, Op, Reg};
use ptc_vm::symbol::Symbol;

impl Lowerer<'_> {
    pub(super) fn special(
        &mut self,
        special: Special,
        form: &Sexp,
        args: &[Sexp],
        dst: Reg,
        tail: bool,
    ) -> Lowered {
        match special {
            Special::Quote => match args.first() {
                Some(quoted) => self.load_constant(dst, quoted.to_value()),
                None => {
                    self.emit(Op::LoadNil { dst })?;
                    Ok(())
                }
            },
            Special::If => self.lower_if(args, dst, tail),
            Special::Progn => self.progn(args, dst, tail),
            Special::Cond => self.lower_cond(args, dst, tail),
            Special::And => self.lower_and_or(args, dst, tail, true),
            Special::Or => self.lower_and_or(args, dst, tail, false),
            Special::Let => self.lower_let(args, dst, tail, false),
            Special::LetStar => self.lower_let(args, dst, tail, true),
            Special::Setq => self.lower_setq(args, dst),
            Special::While => self.lower_while(args, dst),
            Special::Lambda => self.lower_lambda(form, args, dst),
            Special::Funcall => self.lower_funcall(args, dst, false),
            Special::Apply => self.lower_funcall(args, dst, true),
            Special::Mapcar => self.lower_mapcar(args, dst),
            Special::Parallel => self.lower_parallel(args, dst),
            Special::ParallelMap => self.lower_parallel_map(args, dst),
            Special::ConditionCase => self.lower_condition_case(args, dst),
            Special::Definition => {
                let name = form
                    .head_symbol()
                    .map_or("defun", |s| self.name(s))
                    .to_owned();
                self.fail(format!("'{name}' is only allowed as a top-level form"))
            }
        }
    }

    /// Emits `test` and a jump taken when it is nil; returns the jump to patch.
    fn jump_if_false(&mut self, test: &Sexp) -> Lowered<super::builder::Patch> {
        let mark = self.mark()?;
        if let Some((lhs, rhs, swapped)) = self.comparison(test) {
            // Against a small integer constant: `(< x 2)`, `(> 2 x)`.
            let (first, second) = if swapped { (rhs, lhs) } else { (lhs, rhs) };
            if let Some(imm) = super::small_int(second) {
                let lhs = self.operand(first)?;
                let patch = self.current()?.emit_jump(Op::JumpIfNotLessImm {
                    lhs,
                    imm,
                    offset: 0,
                });
                self.release(mark)?;
                return Ok(patch);
            }
            let (a, b) = self.two_operands(lhs, rhs)?;
            let (lhs, rhs) = if swapped { (b, a) } else { (a, b) };
            let patch = self.current()?.emit_jump(Op::JumpIfNotLess {
                lhs,
                rhs,
                offset: 0,
            });
            self.release(mark)?;
            return Ok(patch);
        }
        let src = self.operand(test)?;
        let patch = self.current()?.emit_jump(Op::JumpIfNil { src, offset: 0 });
        self.release(mark)?;
        Ok(patch)
    }

    /// `(< a b)` or `(> a b)` with the primitive meaning: the operands, and whether they
    /// swap.
    fn comparison<'f>(&self, test: &'f Sexp) -> Option<(&'f Sexp, &'f Sexp, bool)> {
        let items = test.as_list()?;
        let [head, lhs, rhs] = items else { return None };
        let symbol = head.as_symbol()?;
        let Operator::Primitive(prim) = self.operator(symbol) else {
            return None;
        };
        match ptc_vm::prims::PRIMITIVES.get(prim.as_usize())?.name {
            "<" => Some((lhs, rhs, false)),
            ">" => Some((lhs, rhs, true)),
            _ => None,
        }
    }

    fn lower_if(&mut self, args: &[Sexp], dst: Reg, tail: bool) -> Lowered {
        let Some((test, rest)) = args.split_first() else {
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        };
        let else_jump = self.jump_if_false(test)?;
        match rest.split_first() {
            Some((then, _)) => self.expr(then, dst, tail)?,
            None => {
                self.emit(Op::LoadNil { dst })?;
            }
        }
        if tail {
            // In tail position the branch returns instead of jumping to the return.
            self.current()?.emit_return(dst);
            self.patch_here(else_jump)?;
            return self.progn(rest.get(1..).unwrap_or(&[]), dst, tail);
        }
        let end_jump = self.current()?.emit_jump(Op::Jump { offset: 0 });
        self.patch_here(else_jump)?;
        self.progn(rest.get(1..).unwrap_or(&[]), dst, tail)?;
        self.patch_here(end_jump)
    }

    fn lower_cond(&mut self, clauses: &[Sexp], dst: Reg, tail: bool) -> Lowered {
        let mut ends = Vec::new();
        for clause in clauses {
            let Some(items) = clause.as_list() else {
                if matches!(clause.kind, SexpKind::Nil) {
                    continue;
                }
                let message = format!("Wrong type argument: listp, {}", self.show(clause));
                self.fail(message)?;
                break;
            };
            let Some((test, body)) = items.split_first() else {
                continue;
            };
            if body.is_empty() {
                self.expr(test, dst, false)?;
                ends.push(self.current()?.emit_jump(Op::JumpIfNotNil {
                    src: dst,
                    offset: 0,
                }));
            } else {
                let next = self.jump_if_false(test)?;
                self.progn(body, dst, tail)?;
                if tail {
                    self.current()?.emit_return(dst);
                } else {
                    ends.push(self.current()?.emit_jump(Op::Jump { offset: 0 }));
                }
                self.patch_here(next)?;
            }
        }
        self.emit(Op::LoadNil { dst })?;
        for end in ends {
            self.patch_here(end)?;
        }
        Ok(())
    }

    fn lower_and_or(&mut self, forms: &[Sexp], dst: Reg, tail: bool, and: bool) -> Lowered {
        let Some((last, init)) = forms.split_last() else {
            self.emit(if and {
                Op::LoadT { dst }
            } else {
                Op::LoadNil { dst }
            })?;
            return Ok(());
        };
        let mut ends = Vec::new();
        for form in init {
            self.expr(form, dst, false)?;
            let op = if and {
                Op::JumpIfNil {
                    src: dst,
                    offset: 0,
                }
            } else {
                Op::JumpIfNotNil {
                    src: dst,
                    offset: 0,
                }
            };
            ends.push(self.current()?.emit_jump(op));
        }
        self.expr(last, dst, tail)?;
        for end in ends {
            self.patch_here(end)?;
        }
        Ok(())
    }

    fn lower_let(&mut self, args: &[Sexp], dst: Reg, tail: bool, sequential: bool) -> Lowered {
        let Some((bindings, body)) = args.split_first() else {
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        };
        let form_name = if sequential { "let*" } else { "let" };
        let bindings: &[Sexp] = match &bindings.kind {
            SexpKind::Nil => &[],
            SexpKind::List(items) => items,
            _ => {
                let message = format!("Wrong type argument: listp, {}", self.show(bindings));
                return self.fail(message);
            }
        };
        // Capture analysis covers every region where a new binding is visible: the body,
        // and for `let*` every later initializer too. Scanning the whole form (initializers
        // included, for both forms) is a superset of those regions, so a lambda anywhere a
        // binding is visible always finds it boxed.
        let captured = self.captured(args);
        // The assigned symbols matter only to a binding whose initializer is a variable:
        // walked for the first such binding, not for every `let`.
        let mut assigned = None;
        let scope = self.current()?.scope_mark();
        // A `let` binding waits for the other initializers; `let*`'s, or a `let` of one
        // binding (no other initializer can see it), is bound at once: the same bindings and
        // code, with no pending list (the per-iteration `let` of `dolist` is the common case).
        let at_once = sequential || bindings.len() == 1;
        let mut pending: Vec<(Symbol, Reg)> = Vec::new();
        for binding in bindings {
            let (name, init) = match &binding.kind {
                SexpKind::List(items) => (items.first(), items.get(1)),
                _ => (Some(binding), None),
            };
            // `(let ((x y)) ...)` where neither is assigned nor x captured: x names y's
            // register (the per-iteration variable of `dotimes`/`dolist` is the common case).
            if let (Some(SexpKind::Sym(symbol)), Some(SexpKind::Sym(source))) =
                (name.map(|n| &n.kind), init.map(|i| &i.kind))
                && !symbol.is_keyword()
                && !source.is_keyword()
                && !captured.contains(symbol)
                && let assigned = assigned.get_or_insert_with(|| self.scopes.assigned_symbols(args))
                && !assigned.contains(symbol)
                && !assigned.contains(source)
                && let Some((_, Location::Register(reg))) = self.current()?.lookup(*source)
            {
                if at_once {
                    self.current()?.bind(*symbol, Location::Register(reg));
                } else {
                    pending.push((*symbol, reg));
                }
                continue;
            }
            let reg = self.alloc()?;
            match init {
                Some(init) => self.expr(init, reg, false)?,
                None => {
                    self.emit(Op::LoadNil { dst: reg })?;
                }
            }
            let symbol = match name.map(|n| &n.kind) {
                Some(SexpKind::Sym(symbol)) if !symbol.is_keyword() => *symbol,
                _ => {
                    let shown = name.map_or_else(|| "nil".to_owned(), |n| self.show(n));
                    return self.fail(format!("'{form_name}': bad binding name {shown}"));
                }
            };
            if at_once {
                self.bind_local(symbol, reg, captured.contains(&symbol))?;
            } else {
                pending.push((symbol, reg));
            }
        }
        for (symbol, reg) in pending {
            if captured.contains(&symbol) {
                self.bind_local(symbol, reg, true)?;
            } else {
                self.current()?.bind(symbol, Location::Register(reg));
            }
        }
        let result = self.progn(body, dst, tail);
        self.current()?.unbind_to(scope);
        result
    }

    /// Binds `symbol` to the value in `reg`, boxing it when a lambda may capture it.
    pub(super) fn bind_local(&mut self, symbol: Symbol, reg: Reg, boxed: bool) -> Lowered {
        let location = if boxed {
            self.emit(Op::NewCell { dst: reg, src: reg })?;
            Location::Cell(reg)
        } else {
            Location::Register(reg)
        };
        self.current()?.bind(symbol, location);
        Ok(())
    }

    fn lower_setq(&mut self, args: &[Sexp], dst: Reg) -> Lowered {
        if args.is_empty() {
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        }
        for pair in args.chunks(2) {
            let [target, rest @ ..] = pair else { continue };
            let value = rest.first();
            let symbol = match target.kind {
                SexpKind::Sym(symbol) if !symbol.is_keyword() => symbol,
                _ => {
                    let message = format!("'setq': bad variable name {}", self.show(target));
                    return self.fail(message);
                }
            };
            if self.is_input(symbol) {
                return Err(crate::inputs::assigned(self.name(symbol), target.span));
            }
            let location = self.resolve(symbol)?;
            match location {
                Some(Location::Register(reg))
                    if value.is_none_or(|v| self.writes_destination_last(v)) =>
                {
                    match value {
                        Some(value) => self.expr(value, reg, false)?,
                        None => {
                            self.emit(Op::LoadNil { dst: reg })?;
                        }
                    }
                    if reg != dst && self.discarded != Some(dst) {
                        self.emit(Op::Move { dst, src: reg })?;
                    }
                }
                _ => {
                    match value {
                        Some(value) => {
                            // The value is read back from `dst` below, so it is not
                            // discarded even when this `setq` is.
                            let discarded = self.discarded.take();
                            let lowered = self.expr(value, dst, false);
                            self.discarded = discarded;
                            lowered?;
                        }
                        None => {
                            self.emit(Op::LoadNil { dst })?;
                        }
                    }
                    match location {
                        Some(Location::Register(reg)) => {
                            self.emit(Op::Move { dst: reg, src: dst })?;
                        }
                        Some(Location::Cell(cell)) => {
                            self.emit(Op::StoreCell { cell, src: dst })?;
                        }
                        Some(Location::Upvalue(idx)) => {
                            self.emit(Op::StoreUpval { idx, src: dst })?;
                        }
                        None => {
                            let message = format!("'setq': unbound variable {}", self.name(symbol));
                            return self.fail(message);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn lower_while(&mut self, args: &[Sexp], dst: Reg) -> Lowered {
        let Some((test, body)) = args.split_first() else {
            // (while) loops forever on nil? The original evaluates a missing test as nil.
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        };
        // Test at the bottom: one conditional jump per iteration.
        let to_test = self.current()?.emit_jump(Op::Jump { offset: 0 });
        let top = self.current()?.here();
        for form in body {
            self.effect(form)?;
        }
        if let Some((counter, limit)) = self.counting_test(test)?
            && self.current()?.fuse_increment_test(counter, limit, top)
        {
            // The body's last instruction now increments, tests and jumps back; falling
            // through leaves the loop past the entry test below.
            let exit = self.current()?.emit_jump(Op::Jump { offset: 0 });
            self.patch_here(to_test)?;
            self.jump_if_true(test, top)?;
            self.patch_here(exit)?;
        } else {
            self.patch_here(to_test)?;
            self.jump_if_true(test, top)?;
        }
        self.emit(Op::LoadNil { dst })?;
        Ok(())
    }

    /// For a loop test `(< i n)` (or `(> n i)`) over two variables held in registers, the
    /// registers of `i` and `n`: the shape a trailing increment of `i` can fuse with.
    fn counting_test(&mut self, test: &Sexp) -> Lowered<Option<(Reg, Reg)>> {
        let Some((lhs, rhs, swapped)) = self.comparison(test) else {
            return Ok(None);
        };
        let (counter, limit) = if swapped { (rhs, lhs) } else { (lhs, rhs) };
        let (SexpKind::Sym(counter), SexpKind::Sym(limit)) = (&counter.kind, &limit.kind) else {
            return Ok(None);
        };
        let (counter, limit) = (*counter, *limit);
        match (self.resolve(counter)?, self.resolve(limit)?) {
            (Some(Location::Register(counter)), Some(Location::Register(limit))) => {
                Ok(Some((counter, limit)))
            }
            _ => Ok(None),
        }
    }

    /// Emits `test` and a jump to `target` taken when it is not nil.
    fn jump_if_true(&mut self, test: &Sexp, target: usize) -> Lowered {
        let mark = self.mark()?;
        let span = self.current()?.span;
        if let Some((lhs, rhs, swapped)) = self.comparison(test) {
            let (a, b) = self.two_operands(lhs, rhs)?;
            let (lhs, rhs) = if swapped { (b, a) } else { (a, b) };
            let patch = self.current()?.emit_jump(Op::JumpIfLess {
                lhs,
                rhs,
                offset: 0,
            });
            if self.current()?.patch_to(patch, target).is_err() {
                // Too far for a fused compare: compare into a register, then jump.
                let builder = self.current()?;
                builder.code.pop();
                builder.spans.pop();
                let flag = self.alloc()?;
                self.emit(Op::Less {
                    dst: flag,
                    lhs,
                    rhs,
                })?;
                let patch = self.current()?.emit_jump(Op::JumpIfNotNil {
                    src: flag,
                    offset: 0,
                });
                self.current()?
                    .patch_to(patch, target)
                    .map_err(|m| limit(m, span))?;
            }
        } else {
            let src = self.operand(test)?;
            let patch = self
                .current()?
                .emit_jump(Op::JumpIfNotNil { src, offset: 0 });
            self.current()?
                .patch_to(patch, target)
                .map_err(|m| limit(m, span))?;
        }
        self.release(mark)
    }

    /// Whether lowering `form` into a variable's own register is safe: atoms and calls of
    /// functions, primitives and tools write their destination only after every operand
    /// was read; special forms like `cond` or `and` may write it early.
    fn writes_destination_last(&self, form: &Sexp) -> bool {
        is_atom(form)
            || form.head_symbol().is_some_and(|s| {
                matches!(
                    self.operator(s),
                    Operator::Function(_) | Operator::Primitive(_) | Operator::Tool(_)
                )
            })
    }

    /// Compiles a nested function for `(lambda PARAMS BODY...)` and returns its index.
    pub(super) fn nested_function(
        &mut self,
        params: &Params,
        body: &[Sexp],
        span: ptc_vm::Span,
    ) -> Lowered<FuncIdx> {
        let function = self.emit_function("lambda".into(), params, body, span, 0)?;
        let index = self.functions.len();
        self.functions.push(Some(function));
        let index = u16::try_from(index).map_err(|_| {
            limit(
                EmitError::Limit("Script has more than 65535 functions".into()),
                span,
            )
        })?;
        Ok(FuncIdx(index))
    }

    fn lower_lambda(&mut self, form: &Sexp, args: &[Sexp], dst: Reg) -> Lowered {
        let nil = Sexp::new(SexpKind::Nil, form.span);
        let (params_form, body) = args.split_first().unwrap_or((&nil, &[]));
        let params = match (self.parse_params)(params_form, self.interner) {
            Ok(params) => params,
            Err(message) => return self.fail(message),
        };
        let func = self.nested_function(&params, body, form.span)?;
        self.emit(Op::MakeClosure { dst, func })?;
        Ok(())
    }

    fn lower_funcall(&mut self, args: &[Sexp], dst: Reg, apply: bool) -> Lowered {
        let Some((function, rest)) = args.split_first() else {
            let name = if apply { "apply" } else { "funcall" };
            return self.fail(format!("Wrong number of arguments: {name}, 0"));
        };
        let callee = self.alloc()?;
        self.expr(function, callee, false)?;
        self.emit(Op::CheckCallable { src: callee })?;
        let (first, argc) = if apply && rest.is_empty() {
            let reg = self.alloc()?;
            self.emit(Op::LoadNil { dst: reg })?;
            (reg, 1)
        } else {
            self.arguments(rest)?
        };
        if apply {
            self.emit(Op::ApplyValue {
                dst,
                callee,
                args: first,
                argc,
            })?;
        } else {
            self.emit(Op::CallValue {
                dst,
                callee,
                args: first,
                argc,
            })?;
        }
        Ok(())
    }

    fn lower_mapcar(&mut self, args: &[Sexp], dst: Reg) -> Lowered {
        let [function, list] = args else {
            return self.fail(format!("Wrong number of arguments: mapcar, {}", args.len()));
        };
        let callee = self.alloc()?;
        self.expr(function, callee, false)?;
        self.emit(Op::CheckCallable { src: callee })?;
        let rest = self.alloc()?;
        self.expr(list, rest, false)?;
        let msg = self.constant(Value::string("'mapcar': expects a list"))?;
        self.emit(Op::AssertList { src: rest, msg })?;
        let acc = self.alloc()?;
        self.emit(Op::LoadNil { dst: acc })?;
        let item = self.alloc()?;
        let top = self.current()?.here();
        let exit = self.current()?.emit_jump(Op::JumpIfNil {
            src: rest,
            offset: 0,
        });
        self.emit(Op::Car {
            dst: item,
            src: rest,
        })?;
        self.emit(Op::CallValue {
            dst: item,
            callee,
            args: item,
            argc: 1,
        })?;
        self.emit(Op::Cons {
            dst: acc,
            lhs: item,
            rhs: acc,
        })?;
        self.emit(Op::Cdr {
            dst: rest,
            src: rest,
        })?;
        let span = self.current()?.span;
        self.current()?.jump_back(top).map_err(|m| limit(m, span))?;
        self.patch_here(exit)?;
        self.emit(Op::ReverseList { dst, src: acc })?;
        Ok(())
    }
}
