//! Lowering of call forms: the argument block, a compound form dispatched on its
//! operator (special form, script function, primitive, tool), and primitive calls through
//! a fast-path or fixed-operand instruction when one fits.
//!
//! Owns the choice of call instruction. Invariant: arguments are evaluated left to right
//! before the call instruction runs, and a fast-path or fixed-operand instruction gives
//! the same value or error as `CallPrim` over a contiguous block
//! (`vm/tests/fixed_operand_calls.rs` holds every 1- and 2-argument primitive to that).

use super::*;

impl Lowerer<'_> {
    /// Lowers each of `forms` into a fresh contiguous block; returns its first register.
    pub(super) fn arguments(&mut self, forms: &[Sexp]) -> Lowered<(Reg, u8)> {
        let span = self.current()?.span;
        let argc = u8::try_from(forms.len()).map_err(|_| {
            Diagnostic::new(
                "E0901",
                ErrorKind::Input,
                format!(
                    "A call has {} arguments; at most 255 are supported",
                    forms.len()
                ),
                span,
            )
        })?;
        let first = self
            .current()?
            .alloc_block(forms.len().max(1))
            .map_err(|m| limit(m, span))?;
        for (offset, form) in forms.iter().enumerate() {
            let reg = Reg(first
                .0
                .saturating_add(u16::try_from(offset).unwrap_or(u16::MAX)));
            self.expr(form, reg, false)?;
        }
        Ok((first, argc))
    }

    pub(super) fn compound(
        &mut self,
        form: &Sexp,
        items: &[Sexp],
        dst: Reg,
        tail: bool,
    ) -> Lowered {
        let Some((head, args)) = items.split_first() else {
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        };
        let symbol = match head.kind {
            SexpKind::Sym(symbol) if !symbol.is_keyword() => symbol,
            _ => {
                let message = format!("Operator must be a name, not {}", self.show(head));
                return self.fail(message);
            }
        };
        let mark = self.mark()?;
        let result = match self.operator(symbol) {
            Operator::Special(special) => self.special(special, form, args, dst, tail),
            Operator::Function(func) => {
                let (first, argc) = self.arguments(args)?;
                if tail {
                    self.emit(Op::TailCallFn {
                        func,
                        args: first,
                        argc,
                    })?;
                } else {
                    self.emit(Op::CallFn {
                        dst,
                        func,
                        args: first,
                        argc,
                    })?;
                }
                Ok(())
            }
            Operator::Primitive(prim) => self.primitive(prim, args, dst),
            Operator::Tool(tool) => {
                let (first, argc) = self.arguments(args)?;
                self.emit(Op::CallTool {
                    dst,
                    tool,
                    args: first,
                    argc,
                })?;
                Ok(())
            }
            Operator::Macro => {
                let message = format!("Macro {} was not expanded", self.name(symbol));
                self.fail(message)
            }
            Operator::Unknown => {
                let message = format!("Void or forbidden function: {}", self.name(symbol));
                self.fail(message)
            }
        };
        self.release(mark)?;
        result
    }

    /// A primitive call, through a fast-path instruction when one exists.
    pub(super) fn primitive(&mut self, prim: PrimIdx, args: &[Sexp], dst: Reg) -> Lowered {
        let name = ptc_vm::prims::PRIMITIVES
            .get(prim.as_usize())
            .map_or("", |p| p.name);
        match (name, args) {
            ("+", [lhs, rhs]) => {
                if let Some(imm) = small_int(rhs) {
                    let lhs = self.operand(lhs)?;
                    self.emit(Op::AddImm { dst, lhs, imm })?;
                    return Ok(());
                }
                if let Some(imm) = small_int(lhs) {
                    let rhs = self.operand(rhs)?;
                    self.emit(Op::AddImm { dst, lhs: rhs, imm })?;
                    return Ok(());
                }
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Add { dst, lhs, rhs })?;
            }
            ("-", [lhs, rhs]) => {
                // Not for 0: x + 0 would turn -0.0 into 0.0, where x - 0 keeps it.
                if let Some(imm) = small_int(rhs)
                    .filter(|&i| i != 0)
                    .and_then(|i| i.checked_neg())
                {
                    let lhs = self.operand(lhs)?;
                    self.emit(Op::AddImm { dst, lhs, imm })?;
                    return Ok(());
                }
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Sub { dst, lhs, rhs })?;
            }
            ("*", [lhs, rhs]) => {
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Mul { dst, lhs, rhs })?;
            }
            ("%", [lhs, rhs]) => {
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Rem { dst, lhs, rhs })?;
            }
            ("<", [lhs, rhs]) => {
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Less { dst, lhs, rhs })?;
            }
            (">", [lhs, rhs]) => {
                // (> a b) is (< b a), evaluated left to right.
                let (a, b) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Less {
                    dst,
                    lhs: b,
                    rhs: a,
                })?;
            }
            ("=", [lhs, rhs]) => {
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::NumEq { dst, lhs, rhs })?;
            }
            ("eq", [lhs, rhs]) => {
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Eq { dst, lhs, rhs })?;
            }
            ("cons", [lhs, rhs]) => {
                let (lhs, rhs) = self.two_operands(lhs, rhs)?;
                self.emit(Op::Cons { dst, lhs, rhs })?;
            }
            ("car", [src]) => {
                let src = self.operand(src)?;
                self.emit(Op::Car { dst, src })?;
            }
            ("cdr", [src]) => {
                let src = self.operand(src)?;
                self.emit(Op::Cdr { dst, src })?;
            }
            ("null" | "not", [src]) => {
                let src = self.operand(src)?;
                self.emit(Op::Not { dst, src })?;
            }
            // One or two arguments the primitive accepts: read in place from any
            // registers, no argument block.
            (_, [a]) if accepts(prim, 1) => {
                let a = self.operand(a)?;
                self.emit(Op::CallPrim1 { dst, prim, a })?;
            }
            // A literal argument is read from the constant pool in place (no load).
            (_, [a, b]) if accepts(prim, 2) => {
                if let Some(value) = self.literal(b)
                    && let Some(k) = self.small_constant(value)?
                {
                    let a = self.operand(a)?;
                    self.emit(Op::CallPrimRK { dst, prim, a, k })?;
                    return Ok(());
                }
                if let Some(value) = self.literal(a)
                    && let Some(k) = self.small_constant(value)?
                {
                    let b = self.operand(b)?;
                    self.emit(Op::CallPrimKR { dst, prim, k, b })?;
                    return Ok(());
                }
                let (a, b) = self.two_operands(a, b)?;
                self.emit(Op::CallPrim2 { dst, prim, a, b })?;
            }
            _ => {
                let (first, argc) = self.arguments(args)?;
                self.emit(Op::CallPrim {
                    dst,
                    prim,
                    args: first,
                    argc,
                })?;
            }
        }
        Ok(())
    }

    /// Operands of a binary instruction, evaluated left to right. The left one may use a
    /// variable's own register only when the right one cannot change that variable.
    pub(super) fn two_operands(&mut self, lhs: &Sexp, rhs: &Sexp) -> Lowered<(Reg, Reg)> {
        let lhs = if is_atom(rhs) {
            self.operand(lhs)?
        } else {
            let reg = self.alloc()?;
            self.expr(lhs, reg, false)?;
            reg
        };
        let rhs = self.operand(rhs)?;
        Ok((lhs, rhs))
    }
}
