//! The instruction set: one plain `Copy` enum, every variant documented with its effect
//! (register-transfer notation), its fuel cost and the errors it can raise.
//!
//! Operands are newtypes: [`Reg`] (a register of the current frame's window), [`ConstIdx`]
//! (the program's constant pool), [`FuncIdx`] (the program's function table), [`ToolIdx`]
//! (the program's tool roster) and [`PrimIdx`] (the closed primitive table). Argument blocks
//! are `args .. args + argc`, contiguous registers laid out by the compiler.
//!
//! Fuel: every instruction costs one unit, charged before it executes; when the slice or
//! the budget is exhausted the machine leaves `pc` on the instruction so a resumed machine
//! re-executes it. Calls of primitives additionally charge the work units the primitive
//! reports (see [`crate::prims`]).
//!
//! `size_of::<Op>()` is pinned at 8 bytes by a test.

/// A register of the current frame's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg(pub u16);

/// An index into the program's constant pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConstIdx(pub u32);

/// An index into the program's function table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FuncIdx(pub u16);

/// An index into the program's tool roster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolIdx(pub u16);

/// An index into [`crate::prims::PRIMITIVES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PrimIdx(pub u8);

macro_rules! as_usize {
    ($($t:ty),*) => {$(
        impl $t {
            /// The index as a `usize`.
            #[must_use]
            pub fn as_usize(self) -> usize {
                self.0 as usize
            }
        }
    )*};
}
as_usize!(Reg, ConstIdx, FuncIdx, ToolIdx, PrimIdx);

/// One instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `dst := src`. Fuel 1. No errors.
    Move {
        /// Destination register.
        dst: Reg,
        /// Source register.
        src: Reg,
    },
    /// `dst := constants[idx]`. Fuel 1. No errors.
    LoadConst {
        /// Destination register.
        dst: Reg,
        /// Constant-pool index.
        idx: ConstIdx,
    },
    /// `dst := nil`. Fuel 1.
    LoadNil {
        /// Destination register.
        dst: Reg,
    },
    /// `dst := t`. Fuel 1.
    LoadT {
        /// Destination register.
        dst: Reg,
    },
    /// `dst := value` (a small integer). Fuel 1.
    LoadInt {
        /// Destination register.
        dst: Reg,
        /// The small integer.
        value: i32,
    },

    /// `dst := new cell holding src` (the register then names the cell). Used for variables
    /// a closure captures, so `setq` after capture is seen by the closure. Fuel 1; charges
    /// one retained byte. Errors: `retained-value`.
    NewCell {
        /// Destination register.
        dst: Reg,
        /// Source register.
        src: Reg,
    },
    /// `dst := *cell`. Fuel 1.
    LoadCell {
        /// Destination register.
        dst: Reg,
        /// Register holding the cell.
        cell: Reg,
    },
    /// `*cell := src`. Fuel 1.
    StoreCell {
        /// Register holding the cell.
        cell: Reg,
        /// Source register.
        src: Reg,
    },
    /// `dst := *closure.captures[idx]`. Fuel 1.
    LoadUpval {
        /// Destination register.
        dst: Reg,
        /// Index into the running closure's captures.
        idx: u16,
    },
    /// `*closure.captures[idx] := src`. Fuel 1.
    StoreUpval {
        /// Index into the running closure's captures.
        idx: u16,
        /// Source register.
        src: Reg,
    },

    /// `pc += offset` (relative to the next instruction). Fuel 1.
    Jump {
        /// Jump offset, relative to the next instruction.
        offset: i32,
    },
    /// `if src is nil { pc += offset }`. Fuel 1.
    JumpIfNil {
        /// Source register.
        src: Reg,
        /// Jump offset, relative to the next instruction.
        offset: i32,
    },
    /// `if src is not nil { pc += offset }`. Fuel 1.
    JumpIfNotNil {
        /// Source register.
        src: Reg,
        /// Jump offset, relative to the next instruction.
        offset: i32,
    },
    /// `if !(lhs < rhs) { pc += offset }`, numbers only. Fuel 1. Errors: `script` (type).
    JumpIfNotLess {
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
        /// Jump offset, relative to the next instruction.
        offset: i16,
    },

    /// `if lhs < rhs { pc += offset }`, numbers only (the bottom test of a loop). Fuel 1.
    /// Errors: `script` (type).
    JumpIfLess {
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
        /// Jump offset, relative to the next instruction.
        offset: i16,
    },
    /// `if !(lhs < imm) { pc += offset }` against a small integer constant, numbers only
    /// (`(if (< n 2) ...)`). Fuel 1. Errors: `script` (type).
    JumpIfNotLessImm {
        /// Left operand register.
        lhs: Reg,
        /// Immediate operand.
        imm: i16,
        /// Jump offset, relative to the next instruction.
        offset: i16,
    },
    /// `reg := reg + imm; if reg < rhs { pc += offset }`: the increment and bottom test of a
    /// counting loop in one instruction (`dotimes`, `(while (< i n) ... (setq i (1+ i)))`).
    /// Fuel 1. Errors: `script` (type) and `integer` from the addition, `script` (type)
    /// from the comparison; when the addition fails, `reg` is unchanged.
    AddImmJumpIfLess {
        /// Counter register, incremented in place.
        reg: Reg,
        /// Right operand register.
        rhs: Reg,
        /// Immediate operand.
        imm: i8,
        /// Jump offset, relative to the next instruction.
        offset: i16,
    },

    /// Returns `src` to the caller's destination register, or finishes the run from the main
    /// function. Fuel 1. Errors (main only): `value` when the final value exceeds the value
    /// budget or holds a closure.
    Return {
        /// Source register.
        src: Reg,
    },
    /// Fails with kind `script` and the message `constants[msg]` (a string). Emitted for
    /// errors the compiler proves when a form is reached: unbound variables, bad `let`
    /// binding names, unknown operators produced by macros. Fuel 1.
    Fail {
        /// Constant-pool index of the message string.
        msg: ConstIdx,
    },

    /// `dst := functions[func](args..args+argc)`: pushes a frame. Fuel 1. Errors: `script`
    /// (arity), `stack`, `retained-value` (rest list).
    CallFn {
        /// Destination register.
        dst: Reg,
        /// Function-table index.
        func: FuncIdx,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// Tail call of `functions[func]`: replaces the current frame. Fuel 1. Errors as
    /// [`Op::CallFn`].
    TailCallFn {
        /// Function-table index.
        func: FuncIdx,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// `dst := PRIMITIVES[prim](args..args+argc)`. Fuel 1 + the primitive's work. Errors:
    /// `script` (arity, types), `value` (arguments or result over the value budget, with
    /// shared structure counted per use), `retained-value`, `atomic-work`, `step`.
    CallPrim {
        /// Destination register.
        dst: Reg,
        /// Primitive-table index.
        prim: PrimIdx,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// `dst := callee(args..)` where `callee` holds a closure or a symbol naming a script
    /// function, a primitive or a tool (already checked by [`Op::CheckCallable`]). Fuel 1.
    /// Errors: those of the callee; calling a tool suspends.
    CallValue {
        /// Destination register.
        dst: Reg,
        /// Register holding the callee.
        callee: Reg,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// `dst := callee(args.., spread(last))`: like [`Op::CallValue`], the last argument is a
    /// list whose elements become the trailing arguments. Fuel 1 + list length. Errors:
    /// `script` ("'apply': last argument must be a list").
    ApplyValue {
        /// Destination register.
        dst: Reg,
        /// Register holding the callee.
        callee: Reg,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// Checks that `src` is callable: a closure or a symbol naming a script function, a
    /// primitive or a roster tool. Fuel 1. Errors: `script` ("Macro NAME cannot be used as a
    /// function value", "Void or forbidden function: NAME", "Not callable: VALUE").
    CheckCallable {
        /// Source register.
        src: Reg,
    },
    /// `dst := closure(functions[func])`, capturing the cells the function's capture list
    /// names. Fuel 1. Errors: `retained-value`.
    MakeClosure {
        /// Destination register.
        dst: Reg,
        /// Function-table index.
        func: FuncIdx,
    },

    /// Suspends on `tools[tool](args..)`; the resumed result lands in `dst`. Fuel 1.
    /// Errors: `tool-call` (budget), `value` (argument list over budget or holding a
    /// closure), `script` ("A parallel call argument may not call another tool" while a
    /// batch is being built).
    CallTool {
        /// Destination register.
        dst: Reg,
        /// Tool-roster index.
        tool: ToolIdx,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// Starts building a parallel batch: from here until [`Op::BatchEnd`] no tool may be
    /// called. Fuel 1.
    BatchBegin,
    /// Adds `tools[tool](args..)` to the batch being built. Fuel 1. Errors: `value`.
    BatchPush {
        /// Tool-roster index.
        tool: ToolIdx,
        /// First register of the contiguous argument block.
        args: Reg,
        /// Number of registers in the argument block.
        argc: u8,
    },
    /// Suspends on the built batch (after charging its size to the tool-call budget); the
    /// resumed results land in `dst` as a list in source order. An empty batch gives nil
    /// without suspending. Fuel 1. Errors: `tool-call`.
    BatchEnd {
        /// Destination register.
        dst: Reg,
    },
    /// Runs one branch per element of the list in `list` ([`parallel`/`parallel-map`
    /// branches](../../spec/reference/tool-calls.md#parallel-batches)): the closure in `func`
    /// called with the element, or, when `func` holds nil, the element (a closure) called
    /// with no argument. Branches run in the machine's deterministic schedule and suspend
    /// on their tool calls in rounds; their values land in `dst` as a list in list order.
    /// An empty list gives nil at once. Fuel 1 (the branches' own work is charged as they
    /// run). Errors: `script` (a nested `parallel`, a non-list, a non-callable element).
    Parallel {
        /// Destination register.
        dst: Reg,
        /// The function of `parallel-map`, or nil for `parallel`'s branch closures.
        func: Reg,
        /// The list of elements.
        list: Reg,
    },

    /// `dst := lhs + rhs` (the `+` primitive, integer fast path). Fuel 1.
    Add {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := lhs - rhs`. Fuel 1.
    Sub {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := lhs * rhs` (the `*` primitive, integer fast path). Fuel 1.
    Mul {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := (% lhs rhs)` (integer remainder, fast path). Fuel 1. Errors: `script`
    /// ("Arithmetic error" on a zero divisor, types).
    Rem {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := lhs + imm`. Fuel 1.
    AddImm {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Immediate operand.
        imm: i16,
    },
    /// `dst := (< lhs rhs)`. Fuel 1.
    Less {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := (= lhs rhs)`. Fuel 1.
    NumEq {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := (eq lhs rhs)`. Fuel 1.
    Eq {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := (car src)`. Fuel 1. Errors: `script` (type).
    Car {
        /// Destination register.
        dst: Reg,
        /// Source register.
        src: Reg,
    },
    /// `dst := (cdr src)`. Fuel 1. Errors: `script` (type).
    Cdr {
        /// Destination register.
        dst: Reg,
        /// Source register.
        src: Reg,
    },
    /// `dst := (cons lhs rhs)`. Fuel 1. Errors: `value`, `retained-value`.
    Cons {
        /// Destination register.
        dst: Reg,
        /// Left operand register.
        lhs: Reg,
        /// Right operand register.
        rhs: Reg,
    },
    /// `dst := (null src)`. Fuel 1.
    Not {
        /// Destination register.
        dst: Reg,
        /// Source register.
        src: Reg,
    },

    /// Fails with `constants[msg]` unless `src` is a list. Fuel 1.
    AssertList {
        /// Source register.
        src: Reg,
        /// Constant-pool index of the message string.
        msg: ConstIdx,
    },
    /// `dst := reverse(src)` for a proper list built by the compiler's loops (`mapcar`);
    /// `src` (the loop's accumulator, dead afterwards) is left nil and its cells are reused.
    /// Fuel 1 + length; retained bytes as for a fresh copy. Errors: `value`, `retained-value`.
    ReverseList {
        /// Destination register.
        dst: Reg,
        /// Source register.
        src: Reg,
    },

    /// Installs a `condition-case` handler for this frame: `constants[clauses]` is a list
    /// with one entry per handler clause, each a list of condition symbols (`t` matches
    /// any). The next instruction is a jump over the handler code, which starts right after
    /// it. When a catchable error (kind `script`, not internal) reaches the innermost
    /// handler whose clauses match, the frames above its frame are dropped, the handlers
    /// above it and it are removed, `dst := (SYMBOL . DATA)`, `dst+1 := clause index`, and
    /// execution continues at the handler code. Fuel 1.
    PushHandler {
        /// Destination register.
        dst: Reg,
        /// Constant-pool index of the list of clause condition lists.
        clauses: ConstIdx,
    },
    /// Removes the innermost handler (the body finished normally). Fuel 1.
    PopHandler,

    /// `dst := PRIMITIVES[prim](a)`: [`Op::CallPrim`] with its one argument read in place
    /// from any register (no argument block). The verifier checks that the primitive
    /// accepts one argument. Fuel and errors as [`Op::CallPrim`].
    CallPrim1 {
        /// Destination register.
        dst: Reg,
        /// Primitive-table index.
        prim: PrimIdx,
        /// The argument's register.
        a: Reg,
    },
    /// `dst := PRIMITIVES[prim](a, b)`: [`Op::CallPrim`] with its two arguments read in
    /// place from any registers (no argument block). The verifier checks that the
    /// primitive accepts two arguments. Fuel and errors as [`Op::CallPrim`].
    CallPrim2 {
        /// Destination register.
        dst: Reg,
        /// Primitive-table index.
        prim: PrimIdx,
        /// The first argument's register.
        a: Reg,
        /// The second argument's register.
        b: Reg,
    },
    /// `dst := PRIMITIVES[prim](a, constants[k])`: [`Op::CallPrim2`] whose second argument
    /// is a literal of the constant pool (no load instruction). The verifier checks the
    /// arity and the constant. Fuel and errors as [`Op::CallPrim`].
    CallPrimRK {
        /// Destination register.
        dst: Reg,
        /// Primitive-table index.
        prim: PrimIdx,
        /// The first argument's register.
        a: Reg,
        /// Constant-pool index of the second argument (the pool's first 65 536 entries).
        k: u16,
    },
    /// `dst := PRIMITIVES[prim](constants[k], b)`: as [`Op::CallPrimRK`] with the literal
    /// first.
    CallPrimKR {
        /// Destination register.
        dst: Reg,
        /// Primitive-table index.
        prim: PrimIdx,
        /// Constant-pool index of the first argument (the pool's first 65 536 entries).
        k: u16,
        /// The second argument's register.
        b: Reg,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Op>(), 8);
    }
}
