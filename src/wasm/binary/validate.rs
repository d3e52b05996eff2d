//! Validation of function bodies (spec 3.3 "Instructions", with the algorithm of the spec's
//! appendix "Validation Algorithm"): an operand stack of types, where an unknown type stands
//! for any value of unreachable code, and a stack of control frames.
//!
//! The decoder hands each instruction to [`FuncValidator::op`] before the translator sees it,
//! so the translator may assume well-typed code. Operators of fixed type are checked from
//! their entry in the operator table ([`super::operators`]); the rest here.

use alloc::vec::Vec;

use super::operators::{Imm, Instr, Operator};
use super::proposals::{self, Site};
use super::types::{BlockType, FuncType, GlobalType, RefType, ValType};
use crate::wasm::error::Invalid;

/// What a function body may refer to: the module's index spaces as far as a body can see
/// them (spec 3.1.1 "Contexts").
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'m> {
    /// The type section.
    pub(crate) types: &'m [FuncType],
    /// The type index of every function, imported ones first.
    pub(crate) funcs: &'m [u32],
    /// The element type of every table, imported ones first.
    pub(crate) tables: &'m [RefType],
    /// The number of memories (0 or 1 in 2.0).
    pub(crate) memories: u32,
    /// Every global, imported ones first.
    pub(crate) globals: &'m [GlobalType],
    /// The element type of every element segment.
    pub(crate) elems: &'m [RefType],
    /// The data count section's value, if the module has one.
    pub(crate) data_count: Option<u32>,
    /// Which functions are declared for `ref.func` (spec 3.4.10, C.refs): one flag per
    /// function.
    pub(crate) refs: &'m [bool],
    /// The type index of every tag, imported ones first (exceptions).
    pub(crate) tags: &'m [u32],
}

impl<'m> Context<'m> {
    fn func_type(&self, f: u32) -> Result<&'m FuncType, Invalid> {
        let t = *self.funcs.get(f as usize).ok_or(Invalid::UnknownFunction(f))?;
        self.type_at(t)
    }

    fn type_at(&self, t: u32) -> Result<&'m FuncType, Invalid> {
        self.types.get(t as usize).ok_or(Invalid::UnknownType(t))
    }

    fn table(&self, t: u32) -> Result<ValType, Invalid> {
        self.tables.get(t as usize).map(|&r| r.into()).ok_or(Invalid::UnknownTable(t))
    }

    /// The values an exception of tag `x` carries.
    fn tag(&self, x: u32) -> Result<&'m [ValType], Invalid> {
        let t = *self.tags.get(x as usize).ok_or(Invalid::UnknownTag(x))?;
        Ok(self.type_at(t)?.params())
    }

    fn global(&self, g: u32) -> Result<GlobalType, Invalid> {
        self.globals.get(g as usize).copied().ok_or(Invalid::UnknownGlobal(g))
    }

    fn memory(&self) -> Result<(), Invalid> {
        if self.memories == 0 { Err(Invalid::UnknownMemory(0)) } else { Ok(()) }
    }

    fn elem(&self, e: u32) -> Result<ValType, Invalid> {
        self.elems.get(e as usize).map(|&r| r.into()).ok_or(Invalid::UnknownElem(e))
    }

    fn data(&self, d: u32) -> Result<(), Invalid> {
        match self.data_count {
            None => Err(Invalid::DataCountRequired),
            Some(n) if d < n => Ok(()),
            Some(_) => Err(Invalid::UnknownData(d)),
        }
    }

    /// The parameter and result types of a block type.
    fn block(&self, bt: BlockType) -> Result<(&'m [ValType], &'m [ValType]), Invalid> {
        Ok(match bt {
            BlockType::Empty => (&[], &[]),
            BlockType::Type(t) => (&[], t.as_slice()),
            BlockType::FuncType(i) => {
                let t = self.type_at(i)?;
                (t.params(), t.results())
            }
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    Block,
    Loop,
    If,
    Else,
    /// The body of a legacy `try`, before its first clause.
    Try,
    /// A legacy `catch` clause.
    Catch,
    /// A legacy `catch_all` clause.
    CatchAll,
}

#[derive(Debug)]
struct Frame<'m> {
    kind: FrameKind,
    params: &'m [ValType],
    results: &'m [ValType],
    /// Operand stack height at the start of the block.
    height: usize,
    /// The rest of the block is unreachable: popping below `height` yields unknown types.
    unreachable: bool,
}

impl<'m> Frame<'m> {
    /// The types a branch to this frame carries.
    fn label_types(&self) -> &'m [ValType] {
        if self.kind == FrameKind::Loop { self.params } else { self.results }
    }
}

/// The validator of one function body.
#[derive(Debug)]
pub(crate) struct FuncValidator<'m> {
    cx: Context<'m>,
    locals: Vec<ValType>,
    /// Operand types; `None` is unknown (any type, in unreachable code).
    vals: Vec<Option<ValType>>,
    ctrls: Vec<Frame<'m>>,
}

impl<'m> FuncValidator<'m> {
    /// A validator for the body of function `func`, whose type the module gave it; `vals` is
    /// a buffer for its operand types (emptied here), handed back by
    /// [`FuncValidator::into_operands`] for the next function.
    pub(crate) fn new(cx: Context<'m>, ty: &'m FuncType, mut vals: Vec<Option<ValType>>) -> Self {
        vals.clear();
        let mut v = FuncValidator { cx, locals: ty.params().into(), vals, ctrls: Vec::new() };
        v.ctrls.push(Frame {
            kind: FrameKind::Block,
            params: &[],
            results: ty.results(),
            height: 0,
            unreachable: false,
        });
        v
    }

    /// The buffer of operand types, for the next function's validator.
    pub(crate) fn into_operands(self) -> Vec<Option<ValType>> {
        self.vals
    }

    /// Declares `count` more locals of type `ty` (the caller bounds the total).
    pub(crate) fn define_locals(&mut self, count: u32, ty: ValType) {
        self.locals.extend(core::iter::repeat_n(ty, count as usize));
    }

    /// Whether the body's final `end` has been validated.
    pub(crate) fn finished(&self) -> bool {
        self.ctrls.is_empty()
    }

    // ---- the operand and control stacks (spec appendix, "Validation Algorithm") ----------

    fn push(&mut self, t: ValType) {
        self.vals.push(Some(t));
    }

    fn push_all(&mut self, ts: &[ValType]) {
        self.vals.extend(ts.iter().map(|&t| Some(t)));
    }

    /// Pops any operand: its type, or `None` for unknown.
    fn pop_any(&mut self) -> Result<Option<ValType>, Invalid> {
        let f = self.ctrls.last().ok_or(Invalid::OperatorsAfterEnd)?;
        if self.vals.len() == f.height {
            return if f.unreachable {
                Ok(None)
            } else {
                Err(Invalid::TypeMismatch { expected: None, found: None })
            };
        }
        Ok(self.vals.pop().flatten())
    }

    /// Pops an operand of type `expected`.
    fn pop(&mut self, expected: ValType) -> Result<Option<ValType>, Invalid> {
        let f = self.ctrls.last().ok_or(Invalid::OperatorsAfterEnd)?;
        if self.vals.len() == f.height {
            return if f.unreachable {
                Ok(None)
            } else {
                Err(Invalid::TypeMismatch { expected: Some(expected), found: None })
            };
        }
        match self.vals.pop().flatten() {
            Some(t) if t != expected => {
                Err(Invalid::TypeMismatch { expected: Some(expected), found: Some(t) })
            }
            t => Ok(t),
        }
    }

    fn pop_all(&mut self, ts: &[ValType]) -> Result<(), Invalid> {
        for &t in ts.iter().rev() {
            self.pop(t)?;
        }
        Ok(())
    }

    fn push_ctrl(&mut self, kind: FrameKind, params: &'m [ValType], results: &'m [ValType]) {
        let height = self.vals.len();
        self.ctrls.push(Frame { kind, params, results, height, unreachable: false });
        self.push_all(params);
    }

    fn pop_ctrl(&mut self) -> Result<Frame<'m>, Invalid> {
        let f = self.ctrls.last().ok_or(Invalid::OperatorsAfterEnd)?;
        let (results, height) = (f.results, f.height);
        self.pop_all(results)?;
        if self.vals.len() != height {
            return Err(Invalid::TypeMismatch { expected: None, found: self.vals.last().copied().flatten() });
        }
        Ok(self.ctrls.pop().expect("checked above"))
    }

    fn unreachable(&mut self) {
        if let Some(f) = self.ctrls.last_mut() {
            self.vals.truncate(f.height);
            f.unreachable = true;
        }
    }

    fn label(&self, depth: u32) -> Result<&'m [ValType], Invalid> {
        let n = self.ctrls.len();
        if depth as usize >= n {
            return Err(Invalid::UnknownLabel(depth));
        }
        Ok(self.ctrls[n - 1 - depth as usize].label_types())
    }

    fn local(&self, l: u32) -> Result<ValType, Invalid> {
        self.locals.get(l as usize).copied().ok_or(Invalid::UnknownLocal(l))
    }

    fn align(&self, ins: &Instr<'_>, natural: u8) -> Result<(), Invalid> {
        self.cx.memory()?;
        let align = ins.memarg().align;
        if align > natural as u32 {
            // Multi-memory's bit 6: a memory index follows (which 2.0 read as the offset).
            return Err(proposals::or(Invalid::Alignment, Site::MemArg, align));
        }
        Ok(())
    }

    /// An atomic's memarg (the threads proposal): a memory, and exactly the natural alignment.
    fn atomic_align(&self, ins: &Instr<'_>, natural: u8) -> Result<(), Invalid> {
        self.cx.memory()?;
        let align = ins.memarg().align;
        if align != natural as u32 {
            return Err(proposals::or(Invalid::AtomicAlignment, Site::MemArg, align));
        }
        Ok(())
    }

    // ---- the instructions ------------------------------------------------------------------

    /// Validates one instruction.
    /// The type of a `call_indirect` or `return_call_indirect` (its table must hold
    /// `funcref`s), with its `i32` index popped.
    fn indirect(&mut self, ins: &Instr<'_>) -> Result<&'m FuncType, Invalid> {
        let (ty, table) = (ins.index(), ins.second());
        if self.cx.table(table)? != ValType::FuncRef {
            return Err(Invalid::TypeMismatch {
                expected: Some(ValType::FuncRef),
                found: self.cx.table(table).ok(),
            });
        }
        let t = self.cx.type_at(ty)?;
        self.pop(ValType::I32)?;
        Ok(t)
    }

    /// A tail call to a function of type `t` (the tail-call proposal, "Validation"): the
    /// callee's results must be the caller's, its parameters are popped, and the rest of the
    /// block is unreachable, as after `return`.
    fn tail_call(&mut self, t: &'m FuncType) -> Result<(), Invalid> {
        let own = self.ctrls[0].results;
        if t.results() != own {
            return Err(Invalid::TypeMismatch {
                expected: own.first().copied(),
                found: t.results().first().copied(),
            });
        }
        self.pop_all(t.params())?;
        self.unreachable();
        Ok(())
    }

    pub(crate) fn op(&mut self, ins: &Instr<'_>) -> Result<(), Invalid> {
        use super::operators::ImmKind;
        use Operator as O;
        if self.ctrls.is_empty() {
            return Err(Invalid::OperatorsAfterEnd);
        }
        let info = ins.op.info();
        // Immediates that every operator of their kind shares.
        match info.imm {
            ImmKind::Mem(a) | ImmKind::MemLane(a) => self.align(ins, a)?,
            ImmKind::Atomic(_, a) => self.atomic_align(ins, a)?,
            _ => {}
        }
        match info.imm {
            ImmKind::Lane(n) if ins.lane() >= n => return Err(Invalid::LaneIndex),
            ImmKind::MemLane(a) if ins.lane() >= 16 >> a => return Err(Invalid::LaneIndex),
            ImmKind::Shuffle => {
                if let Imm::Shuffle(lanes) = &ins.imm
                    && lanes.iter().any(|&l| l >= 32)
                {
                    return Err(Invalid::LaneIndex);
                }
            }
            _ => {}
        }
        if !info.sig.is_special() {
            for t in info.sig.params().rev() {
                self.pop(t)?;
            }
            if let Some(t) = info.sig.result() {
                self.push(t);
            }
            if matches!(ins.op, O::MemorySize | O::MemoryGrow) {
                self.cx.memory()?;
            }
            return Ok(());
        }
        match ins.op {
            // The operators of a proposal this build leaves out (`only-2-0`) are refused by the
            // decoder (`Operator::proposal`).
            op if op.proposal().is_some_and(|p| !p.runs()) => unreachable!(),
            O::Unreachable => self.unreachable(),
            O::Block | O::Loop => {
                let (params, results) = self.cx.block(ins.block_type())?;
                self.pop_all(params)?;
                let kind = if ins.op == O::Block { FrameKind::Block } else { FrameKind::Loop };
                self.push_ctrl(kind, params, results);
            }
            O::If => {
                let (params, results) = self.cx.block(ins.block_type())?;
                self.pop(ValType::I32)?;
                self.pop_all(params)?;
                self.push_ctrl(FrameKind::If, params, results);
            }
            O::TryTable => {
                let Imm::TryTable(bt, catches) = &ins.imm else { return Ok(()) };
                let (params, results) = self.cx.block(*bt)?;
                // The clauses' labels are those around the `try_table`; each must take the
                // values it hands over: the tag's, then the `exnref` for the `_ref` forms.
                for c in catches.clauses() {
                    let mut carried: Vec<ValType> = match c.tag {
                        Some(x) => self.cx.tag(x)?.into(),
                        None => Vec::new(),
                    };
                    if c.with_ref {
                        carried.push(ValType::ExnRef);
                    }
                    let ts = self.label(c.label)?;
                    if ts != carried.as_slice() {
                        return Err(Invalid::TypeMismatch {
                            expected: ts.first().copied(),
                            found: carried.first().copied(),
                        });
                    }
                }
                self.pop_all(params)?;
                self.push_ctrl(FrameKind::Block, params, results);
            }
            O::Try => {
                let (params, results) = self.cx.block(ins.block_type())?;
                self.pop_all(params)?;
                self.push_ctrl(FrameKind::Try, params, results);
            }
            O::Catch | O::CatchAll => {
                let in_try = self.ctrls.last().map(|f| f.kind);
                if !matches!(in_try, Some(FrameKind::Try | FrameKind::Catch)) {
                    return Err(Invalid::CatchWithoutTry);
                }
                let values = if ins.op == O::Catch { self.cx.tag(ins.index())? } else { &[] };
                let f = self.pop_ctrl()?;
                let kind = if ins.op == O::Catch { FrameKind::Catch } else { FrameKind::CatchAll };
                self.push_ctrl(kind, f.params, f.results);
                let height = self.ctrls.last().map_or(0, |f| f.height);
                self.vals.truncate(height);
                self.push_all(values);
            }
            O::Delegate => {
                if self.ctrls.last().map(|f| f.kind) != Some(FrameKind::Try) {
                    return Err(Invalid::CatchWithoutTry);
                }
                let f = self.pop_ctrl()?;
                self.label(ins.index())?;
                self.push_all(f.results);
            }
            O::Throw => {
                let ts = self.cx.tag(ins.index())?;
                self.pop_all(ts)?;
                self.unreachable();
            }
            O::ThrowRef => {
                self.pop(ValType::ExnRef)?;
                self.unreachable();
            }
            O::Rethrow => {
                let depth = ins.index();
                self.label(depth)?;
                let kind = self.ctrls[self.ctrls.len() - 1 - depth as usize].kind;
                if !matches!(kind, FrameKind::Catch | FrameKind::CatchAll) {
                    return Err(Invalid::RethrowLabel);
                }
                self.unreachable();
            }
            O::Else => {
                let f = self.pop_ctrl()?;
                if f.kind != FrameKind::If {
                    return Err(Invalid::ElseWithoutIf);
                }
                self.push_ctrl(FrameKind::Else, f.params, f.results);
            }
            O::End => {
                let f = self.pop_ctrl()?;
                // An `if` without `else` passes its parameters through the missing arm.
                if f.kind == FrameKind::If && f.params != f.results {
                    return Err(Invalid::TypeMismatch { expected: f.results.first().copied(), found: None });
                }
                self.push_all(f.results);
            }
            O::Br => {
                let ts = self.label(ins.index())?;
                self.pop_all(ts)?;
                self.unreachable();
            }
            O::BrIf => {
                let ts = self.label(ins.index())?;
                self.pop(ValType::I32)?;
                self.pop_all(ts)?;
                self.push_all(ts);
            }
            O::BrTable => {
                let Imm::BrTable(table) = &ins.imm else { return Ok(()) };
                self.pop(ValType::I32)?;
                let default = self.label(table.default())?;
                for l in table.labels().take(table.len() as usize) {
                    let ts = self.label(l)?;
                    if ts.len() != default.len() {
                        return Err(Invalid::BrTableArity);
                    }
                    // Check the operands against this label, keeping what was there (an
                    // unknown operand stays unknown for the next label).
                    let mut popped = Vec::with_capacity(ts.len());
                    for &t in ts.iter().rev() {
                        popped.push(self.pop(t)?);
                    }
                    self.vals.extend(popped.into_iter().rev());
                }
                self.pop_all(default)?;
                self.unreachable();
            }
            O::Return => {
                let ts = self.ctrls[0].results;
                self.pop_all(ts)?;
                self.unreachable();
            }
            O::Call => {
                let t = self.cx.func_type(ins.index())?;
                self.pop_all(t.params())?;
                self.push_all(t.results());
            }
            O::CallIndirect => {
                let t = self.indirect(ins)?;
                self.pop_all(t.params())?;
                self.push_all(t.results());
            }
            O::ReturnCall => {
                let t = self.cx.func_type(ins.index())?;
                self.tail_call(t)?;
            }
            O::ReturnCallIndirect => {
                let t = self.indirect(ins)?;
                self.tail_call(t)?;
            }
            O::Drop => {
                self.pop_any()?;
            }
            O::Select => {
                self.pop(ValType::I32)?;
                let t1 = self.pop_any()?;
                let t2 = self.pop_any()?;
                // Untyped `select` takes numbers or vectors, both of one type.
                if t1.is_some_and(ValType::is_ref) || t2.is_some_and(ValType::is_ref) {
                    return Err(Invalid::TypeMismatch { expected: None, found: t1.or(t2) });
                }
                if let (Some(a), Some(b)) = (t1, t2)
                    && a != b
                {
                    return Err(Invalid::TypeMismatch { expected: Some(a), found: Some(b) });
                }
                self.vals.push(t1.or(t2));
            }
            O::TypedSelect => {
                let Imm::Type(t) = ins.imm else { return Ok(()) };
                self.pop(ValType::I32)?;
                self.pop(t)?;
                self.pop(t)?;
                self.push(t);
            }
            O::LocalGet => {
                let t = self.local(ins.index())?;
                self.push(t);
            }
            O::LocalSet => {
                let t = self.local(ins.index())?;
                self.pop(t)?;
            }
            O::LocalTee => {
                let t = self.local(ins.index())?;
                self.pop(t)?;
                self.push(t);
            }
            O::GlobalGet => {
                let g = self.cx.global(ins.index())?;
                self.push(g.content_type);
            }
            O::GlobalSet => {
                let g = self.cx.global(ins.index())?;
                if !g.mutable {
                    return Err(Invalid::ImmutableGlobal(ins.index()));
                }
                self.pop(g.content_type)?;
            }
            O::TableGet => {
                let t = self.cx.table(ins.index())?;
                self.pop(ValType::I32)?;
                self.push(t);
            }
            O::TableSet => {
                let t = self.cx.table(ins.index())?;
                self.pop(t)?;
                self.pop(ValType::I32)?;
            }
            O::TableSize => {
                self.cx.table(ins.index())?;
                self.push(ValType::I32);
            }
            O::TableGrow => {
                let t = self.cx.table(ins.index())?;
                self.pop(ValType::I32)?;
                self.pop(t)?;
                self.push(ValType::I32);
            }
            O::TableFill => {
                let t = self.cx.table(ins.index())?;
                self.pop(ValType::I32)?;
                self.pop(t)?;
                self.pop(ValType::I32)?;
            }
            O::TableCopy => {
                let (dst, src) = (self.cx.table(ins.index())?, self.cx.table(ins.second())?);
                if dst != src {
                    return Err(Invalid::TypeMismatch { expected: Some(dst), found: Some(src) });
                }
                self.pop_all(&[ValType::I32; 3])?;
            }
            O::TableInit => {
                let (elem, table) = (self.cx.elem(ins.index())?, self.cx.table(ins.second())?);
                if elem != table {
                    return Err(Invalid::TypeMismatch { expected: Some(table), found: Some(elem) });
                }
                self.pop_all(&[ValType::I32; 3])?;
            }
            O::ElemDrop => {
                self.cx.elem(ins.index())?;
            }
            O::MemoryInit => {
                self.cx.memory()?;
                self.cx.data(ins.index())?;
                self.pop_all(&[ValType::I32; 3])?;
            }
            O::DataDrop => self.cx.data(ins.index())?,
            O::MemoryCopy | O::MemoryFill => {
                self.cx.memory()?;
                self.pop_all(&[ValType::I32; 3])?;
            }
            O::RefNull => {
                let Imm::Type(t) = ins.imm else { return Ok(()) };
                self.push(t);
            }
            O::RefIsNull => {
                if let Some(t) = self.pop_any()?
                    && !t.is_ref()
                {
                    return Err(Invalid::TypeMismatch { expected: None, found: Some(t) });
                }
                self.push(ValType::I32);
            }
            O::RefFunc => {
                let f = ins.index();
                self.cx.func_type(f)?;
                if !self.cx.refs.get(f as usize).copied().unwrap_or(false) {
                    return Err(Invalid::UndeclaredFunctionReference(f));
                }
                self.push(ValType::FuncRef);
            }
            _ => unreachable!("every special operator has a rule: {}", ins.op.name()),
        }
        Ok(())
    }
}
