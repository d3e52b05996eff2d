//! Translation of one function body into the internal form of [`super::ir`], operator by
//! operator, after the validator ([`super::binary::validate`]) has checked each one.
//!
//! The translator keeps its own operand stack of [`Opnd`]s: a value is either in its canonical
//! temporary slot or still *is* a local (a `local.get` not yet copied). Such aliases are
//! materialised (copied) before the local is written, at block boundaries and before calls.
//! Instruction counting is done per fuel block: the block's count is patched into its
//! [`Op::Fuel`] when the block closes.

use alloc::vec::Vec;

use super::binary::operators::{AtomicClass, Imm, ImmKind, Instr, Operator};
use super::binary::proposals::Proposal;
use super::binary::reader::Reader;
use super::binary::types::{BlockType, MemArg, ValType};
use super::binary::validate::{Context, FuncValidator};
use super::error::{Invalid, Limit, LoadError};
use super::ir::{self, BranchTarget, FRAME_SLOTS, LoadKind, Op, Slot, TargetKind};
use super::limits::Limits;
use super::module::{CatchKind, CompiledFunc, Getter, Handler, Module};

mod emit;
mod peephole;
mod pure;
mod simd;

use emit::Emitter;

/// The most instructions one fuel block may count (`Limit::FuelBlock`): a branch's `charge`
/// (the target block's count minus the rest of its own) then fits an `i32`. A block is
/// straight-line code, so only a function body of more than 2 GiB could reach it.
const MAX_FUEL_BLOCK: u32 = i32::MAX as u32;
use pure::Pure;
use simd::SimdOp;

/// Where an operand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opnd {
    /// In its canonical slot, `num_locals + height`.
    Temp,
    /// Still in local `l`'s slot.
    Local(u32),
    /// An `i32.const`, or an `i64.const` that fits in 32 bits signed, not yet in a slot: the
    /// value sign-extended from these 32 bits; `true` for an `i64`. Folded into a [`Op::BinopImm`] when it is the
    /// right operand, else written to its slot when popped.
    Imm(u32, bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CtrlKind {
    Func,
    Block,
    Loop,
    If,
    Else,
    /// The body of a legacy `try`, before its first clause.
    Try,
    /// A legacy `catch` or `catch_all` clause.
    Catch,
}

/// A branch site to patch with a label's pc.
#[derive(Debug, Clone, Copy)]
enum Patch {
    Op(usize),
    Target(usize),
}

#[derive(Debug)]
struct Ctrl {
    kind: CtrlKind,
    /// Operand stack height below the block's parameters.
    base: u32,
    params: u32,
    results: u32,
    /// Loop: pc of the body's first op.
    loop_pc: u32,
    /// Branches to this block's end.
    patches: Vec<Patch>,
    /// `if`: the `JumpIfZero` to patch with the else-arm's start.
    if_jump: Option<usize>,
    /// Opened inside unreachable code: never executes.
    dead: bool,
    /// Function-relative index of the instruction that opened it.
    start: u32,
    /// A `try_table` or legacy `try`: its handler's clauses so far (pushed to the function's
    /// handlers when it closes), and the end of the range it protects once known (the first
    /// legacy clause or `delegate`; else its `end`).
    clauses: Option<Vec<CatchKind>>,
    protects_to: Option<u32>,
    /// A legacy `try`. In its clauses the translator's operand stack holds one more entry
    /// than the validator's, at the block's base: the exception the clause caught, for
    /// `rethrow` (below the clause's values, so that no call's frame reaches it).
    legacy: bool,
}

struct Translator<'m> {
    module: &'m Module,
    f: CompiledFunc,
    /// The code being emitted, with its side tables (moved into `f` at the end).
    e: Emitter,
    stack: Vec<Opnd>,
    ctrls: Vec<Ctrl>,
    max_height: u32,
    reachable: bool,
    /// pc of the open block's `Fuel`, if a block is open.
    fuel_pc: Option<usize>,
    /// Instructions counted in the open block.
    count: u32,
    /// The largest count of a closed fuel block (checked against `MAX_FUEL_BLOCK`: an
    /// instruction may close the block it ends, which resets `count`).
    longest: u32,
    /// Function-relative index of the instruction being translated.
    instr: u32,
    /// Conditional branches of the open fuel block, to patch with the rest of the block that
    /// a taken one does not run (the first part of its `charge`, or of its target entry's
    /// for a [`Op::BrIfTarget`]).
    rest_sites: Vec<usize>,
}

/// The op that writes an immediate to a slot: `i32`s zero-extended (the slot encoding),
/// `i64`s sign-extended from 32 bits.
fn imm_const(dst: Slot, v: u32, is64: bool) -> Op {
    if is64 {
        let x = v as i32 as i64 as u64;
        Op::Const64 { dst, lo: x as u32, hi: (x >> 32) as u32 }
    } else {
        Op::Const32 { dst, value: v }
    }
}

/// Whether `op` is a SIMD operator (prefix 0xFD): they come last in the operator table, from
/// `v128.load` on (checked by `simd_operators_come_last`).
fn is_simd(op: Operator) -> bool {
    op as u16 >= Operator::V128Load as u16
}

/// Working buffers that the translation of one module reuses from function to function (each
/// function starts with them empty): the translator's operand and control stacks, its
/// conditional branch sites and the validator's operand types. Without them every small function paid for
/// growing each from nothing.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    stack: Vec<Opnd>,
    ctrls: Vec<Ctrl>,
    rest_sites: Vec<usize>,
    operands: Vec<Option<ValType>>,
}

/// Validates and translates the body of function `index` (its bytes after the size: locals,
/// then instructions), with `cx` what the module declares and `scratch` the buffers of the
/// module's translation.
pub(crate) fn translate_function(
    module: &Module,
    index: u32,
    mut body: Reader<'_>,
    cx: Context<'_>,
    limits: &Limits,
    scratch: &mut Scratch,
) -> Result<CompiledFunc, LoadError> {
    let ty = module.func_type(index).expect("the module checked every function's type index");
    let num_params = ty.params().len() as u32;
    let num_results = ty.results().len() as u32;
    let mut fv = FuncValidator::new(cx, ty, core::mem::take(&mut scratch.operands));
    let mut num_locals = num_params as u64;
    // Whether the body has a `v128` local or a SIMD operator (the module decides the rest:
    // `load::wide_module`).
    let mut wide = false;
    let r = &mut body;
    let groups = r.len().map_err(|e| r.error(e))?;
    for _ in 0..groups {
        let offset = r.offset();
        let count = r.u32().map_err(|e| r.error(e))?;
        let vt = r.val_type().map_err(|e| r.error(e))?;
        num_locals += count as u64;
        if num_locals > (FRAME_SLOTS / 2) as u64 {
            return Err(LoadError::limit(offset, Limit::Locals((FRAME_SLOTS / 2) as u64), num_locals));
        }
        fv.define_locals(count, vt);
        wide |= vt == ValType::V128;
    }
    // Room for the ops and instruction offsets of a body of typical density (about two bytes
    // per instruction), reserved once rather than grown op by op; trimmed at the end. Large
    // bodies grow as before past the first 65,536: their growth is amortised.
    let expect = (r.remaining() / 2 + 8).min(1 << 16);
    let mut t = Translator {
        module,
        f: CompiledFunc {
            index,
            num_params,
            num_locals: num_locals as u32,
            instr_offsets: Vec::with_capacity(expect),
            ..CompiledFunc::default()
        },
        stack: core::mem::take(&mut scratch.stack),
        ctrls: core::mem::take(&mut scratch.ctrls),
        max_height: 0,
        reachable: true,
        fuel_pc: None,
        count: 0,
        longest: 0,
        instr: 0,
        e: Emitter::with_capacity(expect),
        rest_sites: core::mem::take(&mut scratch.rest_sites),
    };
    t.ctrls.push(Ctrl {
        kind: CtrlKind::Func,
        base: 0,
        params: 0,
        results: num_results,
        loop_pc: 0,
        patches: Vec::new(),
        if_jump: None,
        dead: false,
        start: 0,
        clauses: None,
        protects_to: None,
        legacy: false,
    });
    t.open_block(0);
    let mut getter = None;
    let frame_limit = (FRAME_SLOTS as u64).min(limits.max_value_stack as u64);
    while !r.eof() {
        let offset = r.offset();
        let ins = r.instr().map_err(|e| r.error(e))?;
        fv.op(&ins).map_err(|e| LoadError::invalid(offset, e))?;
        t.instr = t.f.instr_offsets.len() as u32;
        t.f.instr_offsets.push(offset as u32);
        // The static getter rule (docs/content.md, "Static getters"): the body is exactly one
        // `i32.const` or `global.get`, then `end`.
        getter = match (t.instr, ins.op, &ins.imm) {
            (0, Operator::I32Const, &Imm::I32(v)) => Some(Getter::Const(v as u32)),
            (0, Operator::GlobalGet, &Imm::Index(g)) => Some(Getter::Global(g)),
            (1, Operator::End, _) => getter,
            _ => None,
        };
        wide |= is_simd(ins.op);
        t.op(&ins);
        let block = t.count.max(t.longest);
        if block > MAX_FUEL_BLOCK {
            return Err(LoadError::limit(offset, Limit::FuelBlock(MAX_FUEL_BLOCK.into()), block.into()));
        }
        let slots = t.max_height as u64 + t.f.num_locals as u64;
        if slots > frame_limit {
            return Err(LoadError::limit(offset, Limit::FrameSlots(frame_limit), slots));
        }
    }
    if !fv.finished() {
        return Err(r.error(Invalid::EndExpected));
    }
    (t.f.code, t.f.cum, t.f.rem, t.f.idx) = t.e.finish(&mut t.f.targets);
    t.f.instr_offsets.shrink_to_fit();
    t.f.wide = wide;
    t.f.frame_size = t.f.num_locals + t.max_height;
    t.f.getter = if t.f.instr_offsets.len() == 2 { getter } else { None };
    (scratch.stack, scratch.ctrls, scratch.rest_sites) = (t.stack, t.ctrls, t.rest_sites);
    scratch.stack.clear();
    scratch.ctrls.clear();
    scratch.rest_sites.clear();
    scratch.operands = fv.into_operands();
    Ok(t.f)
}

impl<'m> Translator<'m> {
    // ---- fuel blocks and emission ---------------------------------------------------------

    fn close_block(&mut self) {
        if let Some(pc) = self.fuel_pc.take()
            && let Op::Fuel { n, .. } = self.e.op_mut(pc)
        {
            *n = self.count;
        }
        for i in 0..self.rest_sites.len() {
            let site = self.rest_sites[i];
            let rest = self.count - self.e.cum(site);
            // The target block's count is added when the function is finished
            // (`Emitter::finish`); no block exceeds `MAX_FUEL_BLOCK`, so this fits.
            let rest = -(rest as i32);
            match self.e.op_mut(site) {
                Op::BrIfTarget { t, .. } => self.f.targets[*t as usize].charge = rest,
                op => {
                    let c = op.charge_mut();
                    debug_assert!(c.is_some(), "a conditional branch without a charge (at pc {site})");
                    if let Some(c) = c {
                        *c = rest;
                    }
                }
            }
        }
        self.rest_sites.clear();
        self.longest = self.longest.max(self.count);
        self.count = 0;
    }

    /// Emits a conditional branch and records it, to patch with the rest of its block.
    fn emit_cond(&mut self, op: Op) -> usize {
        let pc = self.emit(op);
        self.rest_sites.push(pc);
        // Nothing may be rewritten across a branch.
        self.e.label();
        pc
    }

    /// Opens a fuel block whose first instruction has index `first`; returns its pc.
    fn open_block(&mut self, first: u32) -> u32 {
        self.close_block();
        let pc = self.e.push(Op::Fuel { n: 0, first }, 0, first);
        self.fuel_pc = Some(pc);
        self.e.label();
        pc as u32
    }

    /// Counts the current instruction (it executes whenever this point is reached).
    fn count(&mut self) {
        self.count += 1;
    }

    fn emit(&mut self, op: Op) -> usize {
        self.e.push(op, self.count, self.instr)
    }

    // ---- operand stack ----------------------------------------------------------------------

    fn height(&self) -> u32 {
        self.stack.len() as u32
    }

    fn temp_slot(&self, h: u32) -> Slot {
        // The frame limit (checked after every operator) keeps this below 65,536.
        (self.f.num_locals + h) as Slot
    }

    fn slot_at(&mut self, h: u32) -> Slot {
        match self.stack[h as usize] {
            Opnd::Temp => self.temp_slot(h),
            Opnd::Local(l) => l as Slot,
            Opnd::Imm(..) => {
                self.materialize(h);
                self.temp_slot(h)
            }
        }
    }

    fn pop(&mut self) -> Slot {
        let h = self.height() - 1;
        let s = self.slot_at(h);
        self.stack.pop();
        s
    }

    /// Pops an immediate if the top is one.
    fn pop_imm(&mut self) -> Option<u32> {
        match self.stack.last() {
            Some(&Opnd::Imm(v, _)) => {
                self.stack.pop();
                Some(v)
            }
            _ => None,
        }
    }

    fn push_imm(&mut self, v: u32, is64: bool) {
        let h = self.height();
        self.stack.push(Opnd::Imm(v, is64));
        self.max_height = self.max_height.max(h + 1);
    }

    fn push(&mut self) -> Slot {
        let h = self.height();
        self.stack.push(Opnd::Temp);
        self.max_height = self.max_height.max(h + 1);
        self.temp_slot(h)
    }

    fn materialize(&mut self, h: u32) {
        if self.stack[h as usize] != Opnd::Temp {
            self.place(h, self.temp_slot(h));
            self.stack[h as usize] = Opnd::Temp;
        }
    }

    /// Writes the operand at height `h` to slot `dst` (nothing if it is already there).
    fn place(&mut self, h: u32, dst: Slot) {
        match self.stack[h as usize] {
            Opnd::Temp if self.temp_slot(h) == dst => {}
            Opnd::Temp => {
                self.emit(Op::Copy { dst, src: self.temp_slot(h) });
            }
            Opnd::Local(l) => {
                self.emit(Op::Copy { dst, src: l as Slot });
            }
            Opnd::Imm(v, is64) => {
                self.emit(imm_const(dst, v, is64));
            }
        }
    }

    fn materialize_top(&mut self, n: u32) {
        let h = self.height();
        for i in h - n..h {
            self.materialize(i);
        }
    }

    fn materialize_all(&mut self) {
        for i in 0..self.height() {
            self.materialize(i);
        }
    }

    fn materialize_local(&mut self, l: u32) {
        for i in 0..self.height() {
            if self.stack[i as usize] == Opnd::Local(l) {
                self.materialize(i);
            }
        }
    }

    fn unop(&mut self, make: impl FnOnce(Slot, Slot) -> Op) {
        let a = self.pop();
        let dst = self.push();
        self.emit(make(dst, a));
    }

    /// A binary operation on the two top operands into a new temporary.
    fn binop(&mut self, make: impl FnOnce(Slot, Slot, Slot) -> Op) {
        let b = self.pop();
        let a = self.pop();
        let dst = self.push();
        self.emit(make(dst, a, b));
    }

    /// A scalar binary operation: its constant form `imm(dst, a, bits)` when the right operand
    /// is a folded constant (`Opnd::Imm`), else its register form `reg(dst, a, b)`.
    fn binop_or_imm(
        &mut self,
        reg: impl FnOnce(Slot, Slot, Slot) -> Op,
        imm: impl FnOnce(Slot, Slot, u32) -> Op,
    ) {
        match self.pop_imm() {
            Some(bits) => {
                let a = self.pop();
                let dst = self.push();
                self.emit(imm(dst, a, bits));
            }
            None => self.binop(reg),
        }
    }

    fn block_arity(&self, bt: BlockType) -> (u32, u32) {
        match bt {
            BlockType::Empty => (0, 0),
            BlockType::Type(_) => (0, 1),
            BlockType::FuncType(i) => {
                let t = &self.module.types[i as usize];
                (t.params().len() as u32, t.results().len() as u32)
            }
        }
    }

    fn push_ctrl(&mut self, kind: CtrlKind, bt: BlockType, loop_pc: u32) {
        let (params, results) = self.block_arity(bt);
        let dead = !self.reachable;
        let base = if dead { self.height() } else { self.height() - params };
        self.ctrls.push(Ctrl {
            kind,
            base,
            params,
            results,
            loop_pc,
            patches: Vec::new(),
            if_jump: None,
            dead,
            start: self.instr,
            clauses: None,
            protects_to: None,
            legacy: false,
        });
    }

    fn reset_stack(&mut self, height: u32) {
        self.stack.truncate(height as usize);
        // At a label (or an else-arm) the values are in their canonical slots: an alias left
        // by unreachable code (e.g. `local.get` before a `br`) must not survive. Entries below
        // the block's base are temporaries already (materialised when it opened).
        for o in &mut self.stack {
            *o = Opnd::Temp;
        }
        while self.height() < height {
            self.push();
        }
    }

    // ---- branches ---------------------------------------------------------------------------

    /// How a branch to relative depth `depth` is carried out from the current stack, with the
    /// values it carries in their slots.
    fn branch_target(&mut self, depth: u32) -> (usize, BranchTarget) {
        let (ci, t) = self.branch_label(depth);
        self.materialize_top(t.n);
        (ci, t)
    }

    /// As [`Translator::branch_target`], the values carried left where they are: `src` is
    /// where they go when materialised.
    fn branch_label(&self, depth: u32) -> (usize, BranchTarget) {
        let (ci, mut t) = self.label_target(depth);
        t.src = self.temp_slot(self.height() - t.n);
        (ci, t)
    }

    /// The label at relative depth `depth`: its control's index and how a branch lands there,
    /// the values it carries going to `dst` (`src` is `dst`: set it for a branch that moves
    /// values from the operand stack).
    fn label_target(&self, depth: u32) -> (usize, BranchTarget) {
        let ci = self.ctrls.len() - 1 - depth as usize;
        let c = &self.ctrls[ci];
        let (kind, arity, pc) = match c.kind {
            CtrlKind::Func => (TargetKind::Return, c.results, 0),
            CtrlKind::Loop => (TargetKind::Loop, c.params, c.loop_pc),
            _ => (TargetKind::Block, c.results, u32::MAX),
        };
        let dst = if kind == TargetKind::Return { 0 } else { self.temp_slot(c.base) };
        (ci, BranchTarget { pc, kind, src: dst, dst, n: arity, charge: 0 })
    }

    fn add_patch(&mut self, ci: usize, p: Patch) {
        self.ctrls[ci].patches.push(p);
    }

    fn push_target(&mut self, ci: usize, t: BranchTarget) -> u32 {
        let i = self.f.targets.len();
        self.f.targets.push(t);
        if t.kind == TargetKind::Block {
            self.add_patch(ci, Patch::Target(i));
        }
        i as u32
    }

    fn emit_br(&mut self, depth: u32) {
        let (ci, t) = self.branch_label(depth);
        if t.kind != TargetKind::Return {
            // The values carried go straight to the target's slots before the jump: constants
            // and locals written there, temporaries moved down (`dst <= src`, so in ascending
            // order none is overwritten before it is read). Nothing after an unconditional
            // branch reads the slots they overwrite.
            let h = self.height() - t.n;
            for k in 0..t.n {
                self.place(h + k, t.dst + k as Slot);
            }
        }
        match t.kind {
            TargetKind::Return => {
                self.materialize_top(t.n);
                self.emit(Op::Return { src: t.src, n: t.n });
            }
            TargetKind::Loop => {
                self.emit(Op::BrLoop { pc: t.pc, charge: 0 });
            }
            TargetKind::Block => {
                let pc = self.emit(Op::Br { pc: u32::MAX, charge: 0 });
                self.add_patch(ci, Patch::Op(pc));
            }
        }
    }

    fn emit_br_if(&mut self, depth: u32, cond: Slot) {
        let fused = self.take_condition(cond);
        let (ci, t) = self.branch_target(depth);
        let moves = t.n > 0 && t.src != t.dst;
        let (pc, charge) = (t.pc, 0);
        match (t.kind, fused) {
            (TargetKind::Loop, Some(Op::Binop { op, a, b, .. })) if !moves => {
                match self.take_increment(op, a) {
                    Some((make, step)) => {
                        self.emit_cond(make(a, step, b, pc));
                    }
                    None => {
                        self.emit_cond(Op::BrIfLoopCmp { op, a, b, pc, charge });
                    }
                }
            }
            (TargetKind::Loop, Some(Op::BinopImm { op, a, imm, .. })) if !moves => {
                self.emit_cond(Op::BrIfLoopCmpImm { op, a, imm, pc, charge });
            }
            (TargetKind::Block, Some(Op::Binop { op, a, b, .. })) if !moves => {
                let pc = self.emit_cond(Op::BrIfCmp { op, a, b, pc, charge });
                self.add_patch(ci, Patch::Op(pc));
            }
            (TargetKind::Block, Some(Op::BinopImm { op, a, imm, .. })) if !moves => {
                let pc = self.emit_cond(Op::BrIfCmpImm { op, a, imm, pc, charge });
                self.add_patch(ci, Patch::Op(pc));
            }
            (kind, fused) => {
                // Not fusable here: put the condition back where it was.
                if let Some(op) = fused {
                    self.emit(op);
                }
                match kind {
                    TargetKind::Loop if !moves => {
                        self.emit_cond(Op::BrIfLoop { cond, pc, charge });
                    }
                    TargetKind::Block if !moves => {
                        let pc = self.emit_cond(Op::BrIf { cond, pc, charge });
                        self.add_patch(ci, Patch::Op(pc));
                    }
                    _ => {
                        let i = self.push_target(ci, t);
                        self.emit_cond(Op::BrIfTarget { cond, t: i });
                    }
                }
            }
        }
    }

    /// Patches the branches recorded on `c` to `pc`.
    fn patch(&mut self, patches: &[Patch], pc: u32) {
        for p in patches {
            match *p {
                Patch::Op(i) => match self.e.op_mut(i).target_mut() {
                    Some(t) => *t = pc,
                    None => unreachable!("patching a non-branch op (at pc {i})"),
                },
                Patch::Target(i) => self.f.targets[i].pc = pc,
            }
        }
    }

    fn load(&mut self, kind: LoadKind, m: MemArg) {
        let addr = self.pop();
        let dst = self.push();
        self.emit(kind.op(dst, addr, m.offset));
    }

    fn store(&mut self, width: u8, m: MemArg) {
        let offset = m.offset;
        let value = self.pop();
        let addr = self.pop();
        self.emit(match width {
            1 => Op::Store8 { addr, value, offset },
            2 => Op::Store16 { addr, value, offset },
            4 => Op::Store32 { addr, value, offset },
            8 => Op::Store64 { addr, value, offset },
            _ => Op::Store128 { addr, value, offset },
        });
    }

    /// Whether global `g` holds a `v128` (its moves then carry both slot halves).
    fn v128_global(&self, g: u32) -> bool {
        self.module.global_types.get(g as usize).is_some_and(|t| t.content_type == ValType::V128)
    }

    fn call_args(&mut self, type_index: u32) -> (Slot, u32) {
        let params = self.module.types[type_index as usize].params().len() as u32;
        self.materialize_top(params);
        let args = self.temp_slot(self.height() - params);
        (args, params)
    }

    fn finish_call(&mut self, type_index: u32, params: u32) {
        let t = &self.module.types[type_index as usize];
        let results = t.results().len() as u32;
        for _ in 0..params {
            self.stack.pop();
        }
        for _ in 0..results {
            self.push();
        }
        // The continuation is a new fuel block: the callee may trap or run out of budget.
        let next = self.instr + 1;
        self.open_block(next);
    }

    fn set_local(&mut self, l: u32, tee: bool) {
        self.materialize_local(l);
        let h = self.height() - 1;
        if let Opnd::Imm(v, is64) = self.stack[h as usize] {
            self.emit(imm_const(l as Slot, v, is64));
            if !tee {
                self.stack.pop();
            }
            return;
        }
        let top_temp = self.stack[h as usize] == Opnd::Temp;
        let temp = self.temp_slot(h);
        if top_temp && self.retarget_last(temp, l as Slot) {
            if tee {
                self.stack[h as usize] = Opnd::Local(l);
            } else {
                self.stack.pop();
            }
        } else {
            let src = self.slot_at(h);
            self.emit(Op::Copy { dst: l as Slot, src });
            if !tee {
                self.stack.pop();
            }
        }
    }

    // ---- the operators ----------------------------------------------------------------------

    /// Translates one validated instruction.
    fn op(&mut self, ins: &Instr<'_>) {
        use Operator as O;
        // Structure is tracked even in unreachable code; nothing else is translated there.
        if !self.reachable {
            match ins.op {
                O::Block | O::Loop | O::If | O::TryTable => {
                    return self.push_ctrl(CtrlKind::Block, ins.block_type(), 0);
                }
                O::Try => return self.push_ctrl(CtrlKind::Try, ins.block_type(), 0),
                O::Else | O::End | O::Catch | O::CatchAll | O::Delegate => {}
                _ => return,
            }
        }
        if self.pure(ins) {
            return;
        }
        if self.reachable {
            self.count();
        }
        match ins.op {
            O::Unreachable => {
                self.emit(Op::Unreachable);
                self.reachable = false;
                self.close_block();
            }
            O::Nop => {}
            O::Block => {
                self.materialize_all();
                self.push_ctrl(CtrlKind::Block, ins.block_type(), 0);
            }
            O::Loop => {
                self.materialize_all();
                let next = self.instr + 1;
                let pc = self.open_block(next);
                self.push_ctrl(CtrlKind::Loop, ins.block_type(), pc);
            }
            O::If => self.tr_if(ins.block_type()),
            O::Else => self.tr_else(),
            O::End => self.end(),
            O::Br => {
                self.emit_br(ins.index());
                self.reachable = false;
                self.close_block();
            }
            O::BrIf => {
                // The fallthrough continues the fuel block; a taken branch hands back the rest.
                let cond = self.pop();
                self.emit_br_if(ins.index(), cond);
            }
            O::BrTable => {
                let Imm::BrTable(table) = &ins.imm else { return };
                let index = self.pop();
                let start = self.f.targets.len() as u32;
                for d in table.labels() {
                    let (ci, t) = self.branch_target(d);
                    self.push_target(ci, t);
                }
                self.emit(Op::BrTable { index, start, len: table.len() + 1 });
                self.reachable = false;
                self.close_block();
            }
            O::Return => {
                let depth = self.ctrls.len() as u32 - 1;
                self.emit_br(depth);
                self.reachable = false;
                self.close_block();
            }
            O::Call => {
                let func = ins.index();
                let ty = self.module.func_types[func as usize];
                let (args, params) = self.call_args(ty);
                self.emit(Op::Call { func, args });
                self.finish_call(ty, params);
            }
            O::CallIndirect => {
                let (ty, table) = (ins.index(), ins.second());
                let index = self.pop();
                let (args, params) = self.call_args(ty);
                self.emit(Op::CallIndirect { ty, table, index, args });
                self.finish_call(ty, params);
            }
            O::ReturnCall | O::ReturnCallIndirect if !Proposal::TailCalls.runs() => {
                unreachable!()
            }
            O::ReturnCall => {
                let func = ins.index();
                let (args, _) = self.call_args(self.module.func_types[func as usize]);
                self.emit(Op::ReturnCall { func, args });
                self.reachable = false;
                self.close_block();
            }
            O::ReturnCallIndirect => {
                let (ty, table) = (ins.index(), ins.second());
                let index = self.pop();
                let (args, _) = self.call_args(ty);
                self.emit(Op::ReturnCallIndirect { ty, table, index, args });
                self.reachable = false;
                self.close_block();
            }
            O::TryTable
            | O::Try
            | O::Catch
            | O::CatchAll
            | O::Delegate
            | O::Throw
            | O::ThrowRef
            | O::Rethrow
                if !Proposal::ExceptionHandling.runs() =>
            {
                unreachable!()
            }
            O::TryTable => self.tr_try_table(ins),
            O::Try => {
                self.materialize_all();
                self.push_ctrl(CtrlKind::Try, ins.block_type(), 0);
                let c = self.ctrls.last_mut().expect("just pushed");
                c.legacy = true;
                c.clauses = Some(Vec::new());
            }
            O::Catch => {
                let n = self.module.tag_type(ins.index()).map_or(0, |t| t.params().len() as u32);
                self.tr_catch(Some(ins.index()), n);
            }
            O::CatchAll => self.tr_catch(None, 0),
            O::Delegate => self.tr_delegate(ins.index()),
            O::Throw => {
                let tag = ins.index();
                let n = self.module.tag_type(tag).map_or(0, |t| t.params().len() as u32);
                self.materialize_top(n);
                let args = self.temp_slot(self.height() - n);
                for _ in 0..n {
                    self.stack.pop();
                }
                self.emit(Op::Throw { tag, args });
                self.reachable = false;
                self.close_block();
            }
            O::ThrowRef => {
                let src = self.pop();
                self.emit(Op::ThrowRef { src });
                self.reachable = false;
                self.close_block();
            }
            O::Rethrow => {
                let ci = self.ctrls.len() - 1 - ins.index() as usize;
                // Validated: the label is a legacy clause, which keeps its exception at its base.
                let src = self.temp_slot(self.ctrls[ci].base);
                self.emit(Op::ThrowRef { src });
                self.reachable = false;
                self.close_block();
            }
            O::Drop => {
                // A dropped constant or local needs no slot: only a temporary's value exists.
                self.stack.pop();
            }
            O::Select | O::TypedSelect => {
                let c = self.pop();
                let b = self.pop();
                let a = self.pop();
                let dst = self.push();
                self.emit(Op::Select { dst, a, b, c });
            }
            O::LocalGet => {
                let h = self.height();
                self.stack.push(Opnd::Local(ins.index()));
                self.max_height = self.max_height.max(h + 1);
            }
            O::LocalSet => self.set_local(ins.index(), false),
            O::LocalTee => self.set_local(ins.index(), true),
            O::GlobalGet => {
                let (dst, global) = (self.push(), ins.index());
                self.emit(if self.v128_global(global) {
                    Op::GlobalGet128 { dst, global }
                } else {
                    Op::GlobalGet { dst, global }
                });
            }
            O::GlobalSet => {
                let (src, global) = (self.pop(), ins.index());
                self.emit(if self.v128_global(global) {
                    Op::GlobalSet128 { global, src }
                } else {
                    Op::GlobalSet { global, src }
                });
            }
            O::I32Load | O::F32Load | O::I64Load32U => self.load(LoadKind::U32, ins.memarg()),
            O::I64Load | O::F64Load => self.load(LoadKind::U64, ins.memarg()),
            O::I32Load8S => self.load(LoadKind::S8x32, ins.memarg()),
            O::I64Load8S => self.load(LoadKind::S8x64, ins.memarg()),
            O::I32Load8U | O::I64Load8U => self.load(LoadKind::U8, ins.memarg()),
            O::I32Load16S => self.load(LoadKind::S16x32, ins.memarg()),
            O::I64Load16S => self.load(LoadKind::S16x64, ins.memarg()),
            O::I32Load16U | O::I64Load16U => self.load(LoadKind::U16, ins.memarg()),
            O::I64Load32S => self.load(LoadKind::S32x64, ins.memarg()),
            O::V128Load => self.load(LoadKind::V128, ins.memarg()),
            O::I32Store8 | O::I64Store8 => self.store(1, ins.memarg()),
            O::I32Store16 | O::I64Store16 => self.store(2, ins.memarg()),
            O::I32Store | O::F32Store | O::I64Store32 => self.store(4, ins.memarg()),
            O::I64Store | O::F64Store => self.store(8, ins.memarg()),
            O::V128Store => self.store(16, ins.memarg()),
            O::MemorySize => {
                let dst = self.push();
                self.emit(Op::MemorySize { dst });
            }
            O::MemoryGrow => {
                let delta = self.pop();
                let dst = self.push();
                self.emit(Op::MemoryGrow { dst, delta });
            }
            O::I32Const | O::I64Const | O::F32Const | O::F64Const | O::V128Const => self.constant(ins),
            O::RefNull => {
                let dst = self.push();
                self.emit(Op::Const32 { dst, value: 0 });
            }
            O::RefFunc => {
                let dst = self.push();
                self.emit(Op::RefFunc { dst, func: ins.index() });
            }
            // Zero extension is bit-identical in the slot encoding, but an `i32` immediate on the
            // stack stands for its value sign-extended from 32 bits once an `i64` operation
            // folds it ([`Opnd::Imm`]). Below 2^31 both extensions agree and it becomes an
            // `i64` immediate; from 2^31 on it is written to its slot, which holds it
            // zero-extended.
            O::I64ExtendI32U => {
                if let Some(&Opnd::Imm(v, false)) = self.stack.last() {
                    let h = self.stack.len() - 1;
                    if (v as i32) >= 0 {
                        self.stack[h] = Opnd::Imm(v, true);
                    } else {
                        self.materialize(h as u32);
                    }
                }
            }
            // Bit-identical in the slot encoding: counted, nothing to do.
            O::I32ReinterpretF32 | O::F32ReinterpretI32 | O::I64ReinterpretF64 | O::F64ReinterpretI64 => {}
            O::MemoryCopy => {
                let [dst, src, len] = self.pop3();
                self.emit(Op::MemoryCopy { dst, src, len });
            }
            O::MemoryFill => {
                let [dst, value, len] = self.pop3();
                self.emit(Op::MemoryFill { dst, value, len });
            }
            O::MemoryInit => {
                let [dst, src, len] = self.pop3();
                self.emit(Op::MemoryInit { seg: ins.index(), dst, src, len });
            }
            O::DataDrop => {
                self.emit(Op::DataDrop { seg: ins.index() });
            }
            O::TableGet => {
                let index = self.pop();
                let dst = self.push();
                self.emit(Op::TableGet { table: ins.index(), dst, index });
            }
            O::TableSet => {
                let value = self.pop();
                let index = self.pop();
                self.emit(Op::TableSet { table: ins.index(), index, value });
            }
            O::TableSize => {
                let dst = self.push();
                self.emit(Op::TableSize { table: ins.index(), dst });
            }
            O::TableGrow => {
                let delta = self.pop();
                let init = self.pop();
                let dst = self.push();
                self.emit(Op::TableGrow { table: ins.index(), dst, init, delta });
            }
            O::TableFill => {
                let [index, value, len] = self.pop3();
                self.emit(Op::TableFill { table: ins.index(), index, value, len });
            }
            O::TableCopy => {
                self.table_pair(ins.index(), ins.second(), |pair, args| Op::TableCopy { pair, args })
            }
            O::TableInit => {
                self.table_pair(ins.second(), ins.index(), |pair, args| Op::TableInit { pair, args })
            }
            O::ElemDrop => {
                self.emit(Op::ElemDrop { seg: ins.index() });
            }
            O::I8x16Shuffle => {
                let Imm::Shuffle(lanes) = ins.imm else { return };
                let b = self.pop();
                let a = self.pop();
                let dst = self.push();
                let idx = self.f.shuffles.len() as u32;
                self.f.shuffles.push(lanes);
                self.emit(Op::Shuffle { dst, a, b, idx });
            }
            O::V128Load8Lane => self.load_lane(1, ins),
            O::V128Load16Lane => self.load_lane(2, ins),
            O::V128Load32Lane => self.load_lane(4, ins),
            O::V128Load64Lane => self.load_lane(8, ins),
            O::V128Store8Lane => self.store_lane(1, ins),
            O::V128Store16Lane => self.store_lane(2, ins),
            O::V128Store32Lane => self.store_lane(4, ins),
            O::V128Store64Lane => self.store_lane(8, ins),
            // On one thread a fence orders nothing: counted, nothing to do.
            O::AtomicFence => {}
            // Every other operator is an atomic or a pure operation that `pure` translated.
            op => match op.info().imm {
                ImmKind::Atomic(class, align) => self.atomic(class, align, ins.memarg()),
                _ => unreachable!("an operator without a translation"),
            },
        }
    }

    /// An atomic operator of the threads proposal (refused when built with `only-2-0`):
    /// its operands popped by its class, one [`Op::Atomic`] on `2^align` bytes.
    fn atomic(&mut self, class: AtomicClass, align: u8, m: MemArg) {
        #[cfg(not(feature = "only-2-0"))]
        {
            use AtomicClass as C;
            // After the address: nothing (a load), the value, expected value or count, and a
            // compare-exchange's replacement or a wait's timeout.
            let n = match class {
                C::Load => 0,
                C::Cmpxchg | C::Wait => 2,
                _ => 1,
            };
            let mut more = [0 as Slot; 2];
            for i in (0..n).rev() {
                more[i] = self.pop();
            }
            let addr = self.pop();
            let (a, b) = (if n > 0 { more[0] } else { addr }, if n > 1 { more[1] } else { addr });
            let dst = if class == C::Store { addr } else { self.push() };
            let op = ir::AtomicOp { class, width: 1 << align };
            self.emit(Op::Atomic { op, dst, addr, a, b, offset: m.offset });
        }
        #[cfg(feature = "only-2-0")]
        {
            let _ = (class, align, m);
            unreachable!()
        }
    }

    /// Translates a pure operator (see [`pure`]) and returns `true`, or returns `false` for
    /// any other.
    fn pure(&mut self, ins: &Instr<'_>) -> bool {
        let kind = pure::PURE[ins.op as usize];
        if kind == Pure::No {
            return false;
        }
        self.count();
        match kind {
            Pure::No => {}
            Pure::Eqz(is64) => {
                self.push_imm(0, is64);
                let op = if is64 { ir::Binop::I64Eq } else { ir::Binop::I32Eq };
                self.binop_or_imm(
                    |dst, a, b| Op::Binop { op, dst, a, b },
                    |dst, a, imm| Op::BinopImm { op, dst, a, imm },
                );
            }
            Pure::Unop(op) => self.unop(|dst, a| Op::Unop { op, dst, a }),
            Pure::TrapUnop(op) => self.unop(|dst, a| Op::TrapUnop { op, dst, a }),
            Pure::Binop(op) => self.binop_or_imm(
                |dst, a, b| Op::Binop { op, dst, a, b },
                |dst, a, imm| Op::BinopImm { op, dst, a, imm },
            ),
            Pure::TrapBinop(op) => self.binop_or_imm(
                |dst, a, b| Op::TrapBinop { op, dst, a, b },
                |dst, a, imm| Op::TrapBinopImm { op, dst, a, imm },
            ),
            Pure::Simd(sop) => {
                let lane = ins.lane();
                match sop {
                    SimdOp::Unary(o) => self.unop(|dst, a| Op::SimdUnary { op: o, dst, a }),
                    SimdOp::Binary(o) => self.binop(|dst, a, b| Op::SimdBinary { op: o, dst, a, b }),
                    SimdOp::Shift(o) => self.binop(|dst, a, b| Op::SimdShift { op: o, dst, a, b }),
                    SimdOp::Test(o) => self.unop(|dst, a| Op::SimdTest { op: o, dst, a }),
                    SimdOp::Splat(o) => self.unop(|dst, a| Op::SimdSplat { op: o, dst, a }),
                    SimdOp::ExtractLane(o) => self.unop(|dst, a| Op::SimdExtract { op: o, lane, dst, a }),
                    SimdOp::ReplaceLane(o) => {
                        self.binop(|dst, a, b| Op::SimdReplace { op: o, lane, dst, a, b })
                    }
                    SimdOp::Ternary(o) => {
                        let [a, b, c] = self.pop3();
                        let dst = self.push();
                        self.emit(Op::SimdTernary { op: o, dst, a, b, c });
                    }
                    SimdOp::Load(kind) => {
                        let addr = self.pop();
                        let dst = self.push();
                        self.emit(Op::SimdLoad { kind, dst, addr, offset: ins.memarg().offset });
                    }
                }
            }
        }
        true
    }

    fn tr_if(&mut self, bt: BlockType) {
        let cond = self.pop();
        let fused = self.take_condition(cond);
        self.materialize_all();
        let (pc, charge) = (u32::MAX, 0);
        let j = match fused {
            Some(Op::Binop { op, a, b, .. }) => self.emit_cond(Op::JumpIfNotCmp { op, a, b, pc, charge }),
            Some(Op::BinopImm { op, a, imm, .. }) => {
                self.emit_cond(Op::JumpIfNotCmpImm { op, a, imm, pc, charge })
            }
            _ => self.emit_cond(Op::JumpIfZero { cond, pc, charge }),
        };
        // The then-arm continues the fuel block; the false path hands back the rest.
        self.push_ctrl(CtrlKind::If, bt, 0);
        self.ctrls.last_mut().expect("just pushed").if_jump = Some(j);
    }

    /// `try_table`: a block whose clauses branch to labels around it (each as a `br` that
    /// carries the exception's values, and its `exnref` for the `_ref` forms), recorded as
    /// branch targets now and as a handler when the block closes.
    fn tr_try_table(&mut self, ins: &Instr<'_>) {
        let Imm::TryTable(bt, catches) = &ins.imm else { return };
        self.materialize_all();
        let mut clauses = Vec::new();
        for c in catches.clauses() {
            let n = c.tag.and_then(|x| self.module.tag_type(x)).map_or(0, |t| t.params().len() as u32);
            // The values come from the exception, not from the operand stack.
            let (ci, t) = self.label_target(c.label);
            let exn = c.with_ref.then_some(t.dst + n as Slot);
            let target = self.push_target(ci, t);
            clauses.push(CatchKind::Catch { tag: c.tag, target, exn });
        }
        self.push_ctrl(CtrlKind::Block, *bt, 0);
        self.ctrls.last_mut().expect("just pushed").clauses = Some(clauses);
    }

    /// A legacy `catch` (tag `tag` with `n` values) or `catch_all` (`None`, 0): as `else`,
    /// the code before it jumps to the `try`'s `end`, counting the clause instruction
    /// (docs/counting.md); an exception lands on a fuel block that starts with it, its
    /// `exnref` in the slot at the block's base (an operand only the translator sees, for
    /// `rethrow`) and its values above it.
    fn tr_catch(&mut self, tag: Option<u32>, n: u32) {
        let ci = self.ctrls.len() - 1;
        let c = &mut self.ctrls[ci];
        let (first, dead) = (c.kind == CtrlKind::Try, c.dead);
        if dead {
            c.kind = CtrlKind::Catch;
            return;
        }
        if first {
            c.protects_to = Some(self.instr);
        }
        let (base, results) = (c.base, c.results);
        if self.reachable {
            self.materialize_top(results);
            self.leave_clause(ci);
            let pc = self.emit(Op::Jump { pc: u32::MAX, charge: 0 });
            self.add_patch(ci, Patch::Op(pc));
        }
        self.ctrls[ci].kind = CtrlKind::Catch;
        self.reachable = true;
        self.reset_stack(base);
        let pc = self.open_block(self.instr);
        self.count();
        let exn = self.push();
        let dst = self.temp_slot(base + 1);
        let target = self.f.targets.len() as u32;
        self.f.targets.push(BranchTarget { pc, kind: TargetKind::Block, src: dst, dst, n, charge: 0 });
        for _ in 0..n {
            self.push();
        }
        let clauses = self.ctrls[ci].clauses.get_or_insert_with(Vec::new);
        clauses.push(CatchKind::Catch { tag, target, exn: Some(exn) });
    }

    /// At the end of a legacy clause's body (control `ci`), reached: its results, on top of
    /// the stack and in their slots, move down over the clause's `exnref` to the block's
    /// result slots, as after any block.
    fn leave_clause(&mut self, ci: usize) {
        let c = &self.ctrls[ci];
        if c.kind != CtrlKind::Catch {
            return;
        }
        let (base, results) = (c.base, c.results);
        let h = self.height() - results;
        for k in 0..results {
            self.place(h + k, self.temp_slot(base + k));
        }
        self.stack.truncate(base as usize);
        for _ in 0..results {
            self.push();
        }
    }

    /// A legacy `delegate l`: ends the `try` as `end` does; an exception its body throws goes
    /// on to the handlers around label `l` (counted from outside the `try`): those covering
    /// the label's first instruction when it is a `try` or `try_table` body, else those
    /// covering the instruction that opened it, or the caller's for the function's label.
    fn tr_delegate(&mut self, label: u32) {
        let ci = self.ctrls.len() - 1;
        if !self.ctrls[ci].dead {
            let outer = &self.ctrls[ci - 1 - label as usize];
            let from = match outer.kind {
                CtrlKind::Func => u32::MAX,
                CtrlKind::Try => outer.start + 1,
                _ if outer.clauses.is_some() && !outer.legacy => outer.start + 1,
                _ => outer.start,
            };
            let c = &mut self.ctrls[ci];
            c.protects_to = Some(self.instr);
            c.clauses = Some(alloc::vec![CatchKind::Delegate { from }]);
        }
        self.end();
    }

    fn tr_else(&mut self) {
        // `else` counts only when the then-arm reaches it (counted by `op` if reachable).
        let c = self.ctrls.last_mut().expect("validated: `else` closes an `if`");
        c.kind = CtrlKind::Else;
        if c.dead {
            return;
        }
        let (base, params, results) = (c.base, c.params, c.results);
        if self.reachable {
            self.materialize_top(results);
            let pc = self.emit(Op::Jump { pc: u32::MAX, charge: 0 });
            let ci = self.ctrls.len() - 1;
            self.add_patch(ci, Patch::Op(pc));
        }
        self.reachable = true;
        self.reset_stack(base + params);
        let next = self.instr + 1;
        let pc = self.open_block(next);
        if let Some(j) = self.ctrls.last_mut().expect("still open").if_jump.take() {
            self.patch(&[Patch::Op(j)], pc);
        }
    }

    /// A numeric or vector constant: `i32` and small `i64` constants stay immediates on the
    /// stack (folded into their consumer when it can take one), the rest go to a slot.
    fn constant(&mut self, ins: &Instr<'_>) {
        use Operator as O;
        match (ins.op, &ins.imm) {
            (O::I32Const, &Imm::I32(v)) => self.push_imm(v as u32, false),
            (O::I64Const, &Imm::I64(v)) if i32::try_from(v).is_ok() => self.push_imm(v as i32 as u32, true),
            (O::F32Const, &Imm::Bits(v)) => {
                let dst = self.push();
                self.emit(Op::Const32 { dst, value: v as u32 });
            }
            (O::I64Const | O::F64Const, &(Imm::I64(_) | Imm::Bits(_))) => {
                let v = match ins.imm {
                    Imm::I64(v) => v as u64,
                    Imm::Bits(v) => v as u64,
                    _ => 0,
                };
                let dst = self.push();
                self.emit(Op::Const64 { dst, lo: v as u32, hi: (v >> 32) as u32 });
            }
            (_, &Imm::Bits(v)) => {
                let dst = self.push();
                let idx = self.f.v128s.len() as u32;
                self.f.v128s.push(v);
                self.emit(Op::ConstV128 { dst, idx });
            }
            _ => {}
        }
    }

    /// Pops the three `i32` operands of a bulk operation, deepest first.
    fn pop3(&mut self) -> [Slot; 3] {
        let c = self.pop();
        let b = self.pop();
        let a = self.pop();
        [a, b, c]
    }

    /// `table.copy` and `table.init`: three operands in consecutive slots and a pair of
    /// indices in the side table.
    fn table_pair(&mut self, first: u32, second: u32, make: impl FnOnce(u32, Slot) -> Op) {
        self.materialize_top(3);
        let args = self.temp_slot(self.height() - 3);
        for _ in 0..3 {
            self.pop();
        }
        let pair = self.f.pairs.len() as u32;
        self.f.pairs.push((first, second));
        self.emit(make(pair, args));
    }

    fn load_lane(&mut self, width: u8, ins: &Instr<'_>) {
        let (offset, lane) = (ins.memarg().offset, ins.lane());
        let vec = self.pop();
        let addr = self.pop();
        let dst = self.push();
        self.emit(Op::LoadLane { width, lane, dst, addr, offset, vec });
    }

    fn store_lane(&mut self, width: u8, ins: &Instr<'_>) {
        let (offset, lane) = (ins.memarg().offset, ins.lane());
        let vec = self.pop();
        let addr = self.pop();
        self.emit(Op::StoreLane { width, lane, addr, vec, offset });
    }

    fn end(&mut self) {
        let mut c = self.ctrls.pop().expect("validated: `end` closes an open control");
        if c.dead {
            return;
        }
        // Only exceptions make handlers (none in a build with `only-2-0`).
        if Proposal::ExceptionHandling.runs()
            && let Some(clauses) = c.clauses.take()
            && !clauses.is_empty()
        {
            let start = self.f.catches.len() as u32;
            self.f.handlers.push(Handler {
                from: c.start + 1,
                to: c.protects_to.unwrap_or(self.instr),
                start,
                len: clauses.len() as u32,
            });
            self.f.catches.extend(clauses);
        }
        if c.kind == CtrlKind::Func {
            if self.reachable {
                let n = c.results;
                self.materialize_top(n);
                let src = self.temp_slot(self.height() - n);
                self.emit(Op::FuncEnd { src, n });
            }
            self.close_block();
            let end_offset = *self.f.instr_offsets.last().unwrap();
            self.f.end_offset = end_offset;
            return;
        }
        if self.reachable {
            self.materialize_top(c.results);
            if Proposal::ExceptionHandling.runs() && c.kind == CtrlKind::Catch {
                self.ctrls.push(c);
                let ci = self.ctrls.len() - 1;
                self.leave_clause(ci);
                c = self.ctrls.pop().expect("just pushed");
            }
        }
        // An `if` without `else` jumps to its `end` when the condition is false.
        let mut patches = c.patches;
        if let Some(j) = c.if_jump {
            patches.push(Patch::Op(j));
        }
        if !patches.is_empty() {
            // The `end` is a branch target: it starts a fuel block, and its own count moves
            // there (it was counted in the block it falls through from).
            if self.reachable {
                self.count -= 1;
            }
            let instr = self.instr;
            let pc = self.open_block(instr);
            self.count();
            self.patch(&patches, pc);
            self.reachable = true;
        }
        if self.reachable {
            self.reset_stack(c.base + c.results);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Operator, is_simd};

    /// `is_simd` against each operator's own encoding, for all 504 of them.
    #[test]
    fn simd_operators_come_last() {
        for &op in Operator::ALL {
            assert_eq!(is_simd(op), op.encoding().0 == 0xFD, "{}", op.name());
        }
    }
}
