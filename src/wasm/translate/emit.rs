//! The emitter: a function's internal code and its per-op side tables, kept in step as one
//! unit.
//!
//! Every op has two side entries, written with it and removed with it: `cum`, the position of
//! its main instruction in its fuel block (1-based; 0 for a block's `Fuel`), and `idx`, that
//! instruction's function-relative index (docs/counting.md, "Fuel blocks"). The emitter also
//! keeps the *label*: the first pc that a branch may reach from elsewhere. Ops before it are
//! fixed; only the last op, when it is at or after the label, may be rewritten or removed by a
//! peephole (`super::peephole`), because nothing can jump between it and the next op.

use alloc::vec::Vec;

use crate::wasm::ir::{BranchTarget, Op, TargetKind};

/// The code of one function being emitted, with its `cum` and `idx` side tables.
#[derive(Debug, Default)]
pub(super) struct Emitter {
    code: Vec<Op>,
    cum: Vec<u32>,
    idx: Vec<u32>,
    /// No op before this pc may change: a branch may land on it or after it.
    label: usize,
}

impl Emitter {
    /// An emitter with room for `ops` ops before its vectors grow: a body's size in bytes
    /// bounds its instruction count, so sizing from it saves the repeated growth that
    /// otherwise costs more than the translation of a small function.
    pub(super) fn with_capacity(ops: usize) -> Self {
        Emitter {
            code: Vec::with_capacity(ops),
            cum: Vec::with_capacity(ops),
            idx: Vec::with_capacity(ops),
            label: 0,
        }
    }

    /// Appends `op`, in its specialised form ([`Op::specialize`]), whose main instruction is
    /// the `cum`-th of its fuel block and the `idx`-th of the function; returns its pc.
    pub(super) fn push(&mut self, op: Op, cum: u32, idx: u32) -> usize {
        let pc = self.code.len();
        self.code.push(op.specialize());
        self.cum.push(cum);
        self.idx.push(idx);
        pc
    }

    /// Marks the next pc as a label: a branch may land there, so nothing emitted so far may
    /// be rewritten by a peephole.
    pub(super) fn label(&mut self) {
        self.label = self.code.len();
    }

    /// The last op, if a peephole may rewrite it (it is at or after the label).
    pub(super) fn last_mut(&mut self) -> Option<&mut Op> {
        if self.code.len() > self.label { self.code.last_mut() } else { None }
    }

    /// Removes the last op and its side entries, if a peephole may (as [`Emitter::last_mut`]);
    /// returns it.
    pub(super) fn pop(&mut self) -> Option<Op> {
        if self.code.len() <= self.label {
            return None;
        }
        self.cum.pop();
        self.idx.pop();
        self.code.pop()
    }

    /// The op at `pc`, to patch a branch target, a charge or a fuel count.
    ///
    /// Panics if `pc` was not emitted (a translator bug, never input-dependent).
    pub(super) fn op_mut(&mut self, pc: usize) -> &mut Op {
        &mut self.code[pc]
    }

    /// The `cum` entry of the op at `pc`.
    pub(super) fn cum(&self, pc: usize) -> u32 {
        self.cum[pc]
    }

    /// The code and its side tables: `(code, cum, rem, idx)`, of equal length, with every
    /// direct branch's `charge` completed, and that of every entry of `targets` (the
    /// function's branch targets) that lands on a fuel block.
    /// The vectors are trimmed to their length: [`Emitter::with_capacity`] may have reserved
    /// more than the function needed.
    pub(super) fn finish(mut self, targets: &mut [BranchTarget]) -> (Vec<Op>, Vec<u32>, Vec<u32>, Vec<u32>) {
        self.code.shrink_to_fit();
        self.cum.shrink_to_fit();
        self.idx.shrink_to_fit();
        // Each op's `rem`: the count of its block (the last `Fuel` before it) minus its `cum`,
        // wrapping for the ops emitted at an `end` that a branch targets, whose `cum` still
        // includes that `end` although it moved to the next block (the executor adds `rem`
        // back as a signed difference).
        let mut rem = Vec::with_capacity(self.code.len());
        let mut n = 0u32;
        for (op, &cum) in self.code.iter().zip(&self.cum) {
            if let Op::Fuel { n: block, .. } = *op {
                n = block;
            }
            rem.push(n.wrapping_sub(cum));
        }
        // Each direct branch's charge: its target block's count, plus the negative rest of its
        // own block that `close_block` put there. Every label opens a fuel block, so every
        // target is a `Fuel`.
        for pc in 0..self.code.len() {
            let Some(t) = self.code[pc].branch_target() else { continue };
            let n = self.fuel_at(t, "the branch at pc", pc);
            if let Some(c) = self.code[pc].charge_mut() {
                // Both parts are at most `MAX_FUEL_BLOCK` (`i32::MAX`) in size.
                *c += n as i32;
            }
        }
        // Likewise the branches through the target table, except returns.
        for (i, t) in targets.iter_mut().enumerate() {
            if t.kind != TargetKind::Return {
                t.charge += self.fuel_at(t.pc, "target entry", i) as i32;
            }
        }
        (self.code, self.cum, rem, self.idx)
    }

    /// The count of the fuel block at `t`, the target of `what` `from` (an op's pc or a target
    /// entry's index).
    ///
    /// Panics if `t` is not a `Fuel` op: every label opens a fuel block.
    fn fuel_at(&self, t: u32, what: &str, from: usize) -> u32 {
        match self.code[t as usize] {
            Op::Fuel { n, .. } => n,
            _ => unreachable!("{what} {from} targets pc {t}, which is not a fuel block"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_tables_follow_the_code() {
        let mut e = Emitter::default();
        assert_eq!(e.push(Op::Fuel { n: 0, first: 0 }, 0, 0), 0);
        e.label();
        assert_eq!(e.last_mut(), None, "the label protects what came before");
        assert_eq!(e.push(Op::Const32 { dst: 3, value: 7 }, 1, 0), 1);
        assert_eq!(e.push(Op::Copy { dst: 0, src: 3 }, 2, 1), 2);
        assert_eq!(e.pop(), Some(Op::Copy { dst: 0, src: 3 }));
        assert_eq!(e.cum(1), 1);
        assert_eq!(e.pop(), Some(Op::Const32 { dst: 3, value: 7 }));
        assert_eq!(e.pop(), None, "nothing before the label is removed");
        let (code, cum, rem, idx) = e.finish(&mut []);
        assert_eq!((code.len(), cum, rem, idx), (1, alloc::vec![0], alloc::vec![0], alloc::vec![0]));
    }

    #[test]
    fn finishing_completes_charges_and_rests() {
        // Two fuel blocks of 4 and 6 instructions; a `br_if` as the 2nd instruction of the
        // first (2 of its instructions left: `close_block` stored -2) to the second, and a
        // `br` as the 6th of the second back to the first.
        let mut e = Emitter::default();
        e.push(Op::Fuel { n: 4, first: 0 }, 0, 0);
        e.push(Op::BrIf { cond: 0, pc: 3, charge: -2 }, 2, 1);
        e.push(Op::Copy { dst: 1, src: 0 }, 4, 3);
        e.push(Op::Fuel { n: 6, first: 4 }, 0, 4);
        e.push(Op::BrLoop { pc: 0, charge: 0 }, 6, 9);
        // A copy emitted at an `end` that the next block took over (its `cum` is one past
        // its block's count), then a `Jump` that ends an empty block into the first.
        e.push(Op::Copy { dst: 1, src: 0 }, 7, 10);
        e.push(Op::Fuel { n: 0, first: 11 }, 0, 11);
        e.push(Op::Jump { pc: 0, charge: 0 }, 0, 11);
        // Target entries: a `br_if` with values to the second block (1 instruction of its
        // own block after it), a `br_table` entry back to the first, a `br_if` that returns.
        let entry = |pc, kind, charge| BranchTarget { pc, kind, src: 2, dst: 1, n: 1, charge };
        let mut targets = [
            entry(3, TargetKind::Block, -1),
            entry(0, TargetKind::Loop, 0),
            entry(0, TargetKind::Return, -3),
        ];
        let (code, _, rem, _) = e.finish(&mut targets);
        let charges = targets.map(|t| t.charge);
        assert_eq!(charges, [6 - 1, 4, -3], "a return's charge is only the rest handed back");
        assert_eq!(code[1], Op::BrIf { cond: 0, pc: 3, charge: 6 - 2 });
        assert_eq!(code[4], Op::BrLoop { pc: 0, charge: 4 });
        assert_eq!(code[7], Op::Jump { pc: 0, charge: 4 });
        assert_eq!(rem, alloc::vec![4, 2, 0, 6, 0, u32::MAX, 0, 0]);
    }

    #[test]
    fn a_generic_hot_binop_is_stored_specialised() {
        let mut e = Emitter::default();
        e.push(Op::Binop { op: crate::wasm::ir::Binop::I32Add, dst: 2, a: 0, b: 1 }, 1, 0);
        assert_eq!(e.last_mut().copied(), Some(Op::I32Add { dst: 2, a: 0, b: 1 }));
    }

    #[test]
    fn a_hot_compare_and_branch_is_stored_specialised() {
        use crate::wasm::ir::Binop;
        let mut e = Emitter::default();
        let generic = Op::BrIfLoopCmpImm { op: Binop::I32Ne, a: 4, imm: 10, pc: 7, charge: 2 };
        e.push(generic, 1, 0);
        let stored = e.last_mut().copied();
        assert_eq!(stored, Some(Op::BrIfLoopI32NeImm { a: 4, imm: 10, pc: 7, charge: 2 }));
        assert_eq!(stored.map(Op::generic), Some(generic), "the generic form comes back for peepholes");
        // A comparison outside the hot list keeps its generic op.
        let cold = Op::BrIfCmp { op: Binop::F64Lt, a: 0, b: 1, pc: 3, charge: 0 };
        assert_eq!(cold.specialize(), cold);
    }
}
