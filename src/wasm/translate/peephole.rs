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
//! * Pairs (native loop only, not `compact-ops`): two `Copy`s become one `Copy2`; `i32.rotl`
//!   by a constant into a temporary that an `i32.xor` then consumes becomes one
//!   `I32XorRotlImm`. The fused op carries the second op's position.
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
            ir::Binop::I32LtU => |i, step, n, pc| Op::IncBrIfLoopLtU { i, step, n, pc, refund: 0 },
            ir::Binop::I32LtS => |i, step, n, pc| Op::IncBrIfLoopLtS { i, step, n, pc, refund: 0 },
            ir::Binop::I32Ne => |i, step, n, pc| Op::IncBrIfLoopNe { i, step, n, pc, refund: 0 },
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

    /// Fuses `op`, about to be emitted, with the last op when the pair has a superinstruction
    /// (the module comment's "Pairs"): removes the last op and returns the fused one, else
    /// returns `op`. Both ops are pure moves or computations, so where a precise budget stops
    /// (before the fused op) nothing observable differs.
    #[cfg(not(feature = "compact-ops"))]
    pub(super) fn fuse_with_last(&mut self, op: Op) -> Op {
        let first_temp = self.temp_slot(0);
        let Some(last) = self.e.last_mut().map(|o| o.generic()) else { return op };
        let fused = match (last, op.generic()) {
            (Op::Copy { dst, src }, Op::Copy { dst: dst2, src: src2 }) => Op::Copy2 { dst, src, dst2, src2 },
            (
                Op::BinopImm { op: ir::Binop::I32Rotl, dst: t, a: x, imm },
                Op::Binop { op: ir::Binop::I32Xor, dst, a, b },
            ) if t >= first_temp && (a == t) != (b == t) => {
                // The rotation's temporary is consumed here (it was the top of the operand
                // stack, or the operand under a local's slot) and is dead afterwards.
                let other = if b == t { a } else { b };
                Op::I32XorRotlImm { dst, a: other, b: x, imm }
            }
            _ => return op,
        };
        self.e.pop();
        fused
    }
}
