//! The translator's peepholes: rewrites of the last emitted op, made only when no branch can
//! land between it and the op being emitted (the emitter's label, `super::emit`). Each keeps
//! the counters exact: a removed op's instruction is still counted by its fuel block, and the
//! fused op that replaces it carries its position (docs/counting.md).
//!
//! * Result retargeting: `op → temp; local.set l` becomes `op → l` when `op` is a pure
//!   producer (an `out` operand in the op table).
//! * Condition fusion: `cmp → temp; br_if` / `if` becomes one compare-and-branch op.
//! * Loop tail: `i += step; br_if (i <u n) loop` (also `<s`, `!=`) becomes one
//!   `IncBrIfLoop*` op.
//!
//! Constant right operands are folded earlier, on the translator's operand stack (`Opnd::Imm`).

use super::Translator;
use crate::wasm::ir::{self, Op, Slot};

/// The constructor of a loop-tail superinstruction: `(i, step, n, pc)`.
pub(super) type MakeIncBranch = fn(Slot, i16, Slot, u32) -> Op;

impl Translator<'_> {
    /// If the last op writes temporary `temp` and is a pure producer, makes it write `to`
    /// instead and returns `true`.
    pub(super) fn retarget_last(&mut self, temp: Slot, to: Slot) -> bool {
        match self.e.last_mut().and_then(Op::retargetable_dst) {
            Some(d) if *d == temp => {
                *d = to;
                true
            }
            _ => false,
        }
    }

    /// If the last op computed the `i32` condition in temporary `cond` with a binop, removes
    /// it and returns it (in its generic form) for fusion into the branch.
    pub(super) fn take_condition(&mut self, cond: Slot) -> Option<Op> {
        let op = self.e.last_mut()?.generic();
        match op {
            Op::Binop { dst, .. } | Op::BinopImm { dst, .. } if dst == cond && cond >= self.temp_slot(0) => {
                self.e.pop();
                Some(op)
            }
            _ => None,
        }
    }

    /// For a loop branch on `op(i, n)`: if the last op is `i += step` on the same slot with a
    /// 16-bit step and `op` is `<u`, `<s` or `!=`, removes the add and returns the
    /// superinstruction's constructor and the step.
    pub(super) fn take_increment(&mut self, op: ir::Binop, i: Slot) -> Option<(MakeIncBranch, i16)> {
        let make: MakeIncBranch = match op {
            ir::Binop::I32LtU => |i, step, n, pc| Op::IncBrIfLoopLtU { i, step, n, pc, charge: 0 },
            ir::Binop::I32LtS => |i, step, n, pc| Op::IncBrIfLoopLtS { i, step, n, pc, charge: 0 },
            ir::Binop::I32Ne => |i, step, n, pc| Op::IncBrIfLoopNe { i, step, n, pc, charge: 0 },
            _ => return None,
        };
        let Op::BinopImm { op: ir::Binop::I32Add, dst, a, imm } = self.e.last_mut()?.generic() else {
            return None;
        };
        let step = i16::try_from(imm as i32).ok()?;
        if dst != i || a != i {
            return None;
        }
        self.e.pop();
        Some((make, step))
    }
}
