//! The internal form each function body is translated into once (`translate`) and that the
//! execution loop (`exec`) walks.
//!
//! Operands are *slots* relative to the frame pointer: a frame holds the parameters, then the
//! other locals, then the operand stack, each value in one 128-bit slot. Because Wasm operand
//! stack heights are static, every operand's slot is resolved at translation time, and a
//! `local.get` costs no operation at all: the consumer reads the local's slot directly.
//!
//! Instructions are counted per *fuel block*: every straight-line run of Wasm instructions
//! starts with a [`Op::Fuel`] that charges the whole run. Each op also has its position
//! inside the run (`cum`), so the exact count is known at a trap, at a write (for observers) and
//! at the exact point where the budget runs out (docs/counting.md).

use super::simd::{
    SimdBinary, SimdExtract, SimdLoad, SimdReplace, SimdShift, SimdSplat, SimdTernary, SimdTest, SimdUnary,
};

/// A frame-relative slot index. A frame has at most [`FRAME_SLOTS`] slots, so a `u16` indexes
/// it and the executor's fixed-size frame view needs no bounds checks.
pub(crate) type Slot = u16;

/// Slots in the largest frame (parameters + locals + operand stack of one function): 65,536
/// (docs/limits.md: at most 32,768 of them parameters and locals).
pub(crate) const FRAME_SLOTS: usize = 1 << 16;

/// Pure unary operations: `Name(input type) -> output type = |a| expression`.
/// The name is also the `wasmparser::Operator` variant.
macro_rules! for_each_unop {
    ($m:ident) => {
        $m! {
            I32Eqz(u32) -> u32 = |a| (a == 0) as u32;
            I64Eqz(u64) -> u32 = |a| (a == 0) as u32;
            I32Clz(u32) -> u32 = |a| a.leading_zeros();
            I32Ctz(u32) -> u32 = |a| a.trailing_zeros();
            I32Popcnt(u32) -> u32 = |a| a.count_ones();
            I64Clz(u64) -> u64 = |a| a.leading_zeros() as u64;
            I64Ctz(u64) -> u64 = |a| a.trailing_zeros() as u64;
            I64Popcnt(u64) -> u64 = |a| a.count_ones() as u64;
            F32Abs(u32) -> u32 = |a| a & 0x7fff_ffff;
            F32Neg(u32) -> u32 = |a| a ^ 0x8000_0000;
            F32Ceil(f32) -> f32 = |a| num::f32_ceil(a);
            F32Floor(f32) -> f32 = |a| num::f32_floor(a);
            F32Trunc(f32) -> f32 = |a| num::f32_trunc(a);
            F32Nearest(f32) -> f32 = |a| num::f32_nearest(a);
            F32Sqrt(f32) -> f32 = |a| num::f32_sqrt(a);
            F64Abs(u64) -> u64 = |a| a & 0x7fff_ffff_ffff_ffff;
            F64Neg(u64) -> u64 = |a| a ^ 0x8000_0000_0000_0000;
            F64Ceil(f64) -> f64 = |a| num::f64_ceil(a);
            F64Floor(f64) -> f64 = |a| num::f64_floor(a);
            F64Trunc(f64) -> f64 = |a| num::f64_trunc(a);
            F64Nearest(f64) -> f64 = |a| num::f64_nearest(a);
            F64Sqrt(f64) -> f64 = |a| num::f64_sqrt(a);
            I32WrapI64(u64) -> u32 = |a| a as u32;
            I64ExtendI32S(i32) -> i64 = |a| a as i64;
            F32ConvertI32S(i32) -> f32 = |a| a as f32;
            F32ConvertI32U(u32) -> f32 = |a| a as f32;
            F32ConvertI64S(i64) -> f32 = |a| a as f32;
            F32ConvertI64U(u64) -> f32 = |a| a as f32;
            F32DemoteF64(f64) -> f32 = |a| a as f32;
            F64ConvertI32S(i32) -> f64 = |a| a as f64;
            F64ConvertI32U(u32) -> f64 = |a| a as f64;
            F64ConvertI64S(i64) -> f64 = |a| a as f64;
            F64ConvertI64U(u64) -> f64 = |a| a as f64;
            F64PromoteF32(f32) -> f64 = |a| a as f64;
            I32Extend8S(i32) -> i32 = |a| a as i8 as i32;
            I32Extend16S(i32) -> i32 = |a| a as i16 as i32;
            I64Extend8S(i64) -> i64 = |a| a as i8 as i64;
            I64Extend16S(i64) -> i64 = |a| a as i16 as i64;
            I64Extend32S(i64) -> i64 = |a| a as i32 as i64;
            I32TruncSatF32S(f32) -> i32 = |a| num::i32_trunc_sat_f32_s(a);
            I32TruncSatF32U(f32) -> u32 = |a| num::i32_trunc_sat_f32_u(a);
            I32TruncSatF64S(f64) -> i32 = |a| num::i32_trunc_sat_f64_s(a);
            I32TruncSatF64U(f64) -> u32 = |a| num::i32_trunc_sat_f64_u(a);
            I64TruncSatF32S(f32) -> i64 = |a| num::i64_trunc_sat_f32_s(a);
            I64TruncSatF32U(f32) -> u64 = |a| num::i64_trunc_sat_f32_u(a);
            I64TruncSatF64S(f64) -> i64 = |a| num::i64_trunc_sat_f64_s(a);
            I64TruncSatF64U(f64) -> u64 = |a| num::i64_trunc_sat_f64_u(a);
            RefIsNull(u64) -> u32 = |a| (a == 0) as u32;
        }
    };
}

/// Unary operations that may trap: the expression returns `Result<_, TrapKind>`.
macro_rules! for_each_trap_unop {
    ($m:ident) => {
        $m! {
            I32TruncF32S(f32) -> i32 = |a| num::i32_trunc_f32_s(a);
            I32TruncF32U(f32) -> u32 = |a| num::i32_trunc_f32_u(a);
            I32TruncF64S(f64) -> i32 = |a| num::i32_trunc_f64_s(a);
            I32TruncF64U(f64) -> u32 = |a| num::i32_trunc_f64_u(a);
            I64TruncF32S(f32) -> i64 = |a| num::i64_trunc_f32_s(a);
            I64TruncF32U(f32) -> u64 = |a| num::i64_trunc_f32_u(a);
            I64TruncF64S(f64) -> i64 = |a| num::i64_trunc_f64_s(a);
            I64TruncF64U(f64) -> u64 = |a| num::i64_trunc_f64_u(a);
        }
    };
}

/// Pure binary operations: `Name(type of a, type of b) -> output = |a, b| expression`.
macro_rules! for_each_binop {
    ($m:ident) => {
        $m! {
            I32Eq(u32, u32) -> u32 = |a, b| (a == b) as u32;
            I32Ne(u32, u32) -> u32 = |a, b| (a != b) as u32;
            I32LtS(i32, i32) -> u32 = |a, b| (a < b) as u32;
            I32LtU(u32, u32) -> u32 = |a, b| (a < b) as u32;
            I32GtS(i32, i32) -> u32 = |a, b| (a > b) as u32;
            I32GtU(u32, u32) -> u32 = |a, b| (a > b) as u32;
            I32LeS(i32, i32) -> u32 = |a, b| (a <= b) as u32;
            I32LeU(u32, u32) -> u32 = |a, b| (a <= b) as u32;
            I32GeS(i32, i32) -> u32 = |a, b| (a >= b) as u32;
            I32GeU(u32, u32) -> u32 = |a, b| (a >= b) as u32;
            I64Eq(u64, u64) -> u32 = |a, b| (a == b) as u32;
            I64Ne(u64, u64) -> u32 = |a, b| (a != b) as u32;
            I64LtS(i64, i64) -> u32 = |a, b| (a < b) as u32;
            I64LtU(u64, u64) -> u32 = |a, b| (a < b) as u32;
            I64GtS(i64, i64) -> u32 = |a, b| (a > b) as u32;
            I64GtU(u64, u64) -> u32 = |a, b| (a > b) as u32;
            I64LeS(i64, i64) -> u32 = |a, b| (a <= b) as u32;
            I64LeU(u64, u64) -> u32 = |a, b| (a <= b) as u32;
            I64GeS(i64, i64) -> u32 = |a, b| (a >= b) as u32;
            I64GeU(u64, u64) -> u32 = |a, b| (a >= b) as u32;
            F32Eq(f32, f32) -> u32 = |a, b| (a == b) as u32;
            F32Ne(f32, f32) -> u32 = |a, b| (a != b) as u32;
            F32Lt(f32, f32) -> u32 = |a, b| (a < b) as u32;
            F32Gt(f32, f32) -> u32 = |a, b| (a > b) as u32;
            F32Le(f32, f32) -> u32 = |a, b| (a <= b) as u32;
            F32Ge(f32, f32) -> u32 = |a, b| (a >= b) as u32;
            F64Eq(f64, f64) -> u32 = |a, b| (a == b) as u32;
            F64Ne(f64, f64) -> u32 = |a, b| (a != b) as u32;
            F64Lt(f64, f64) -> u32 = |a, b| (a < b) as u32;
            F64Gt(f64, f64) -> u32 = |a, b| (a > b) as u32;
            F64Le(f64, f64) -> u32 = |a, b| (a <= b) as u32;
            F64Ge(f64, f64) -> u32 = |a, b| (a >= b) as u32;
            I32Add(u32, u32) -> u32 = |a, b| a.wrapping_add(b);
            I32Sub(u32, u32) -> u32 = |a, b| a.wrapping_sub(b);
            I32Mul(u32, u32) -> u32 = |a, b| a.wrapping_mul(b);
            I32And(u32, u32) -> u32 = |a, b| a & b;
            I32Or(u32, u32) -> u32 = |a, b| a | b;
            I32Xor(u32, u32) -> u32 = |a, b| a ^ b;
            I32Shl(u32, u32) -> u32 = |a, b| a.wrapping_shl(b);
            I32ShrS(i32, u32) -> i32 = |a, b| a.wrapping_shr(b);
            I32ShrU(u32, u32) -> u32 = |a, b| a.wrapping_shr(b);
            I32Rotl(u32, u32) -> u32 = |a, b| a.rotate_left(b % 32);
            I32Rotr(u32, u32) -> u32 = |a, b| a.rotate_right(b % 32);
            I64Add(u64, u64) -> u64 = |a, b| a.wrapping_add(b);
            I64Sub(u64, u64) -> u64 = |a, b| a.wrapping_sub(b);
            I64Mul(u64, u64) -> u64 = |a, b| a.wrapping_mul(b);
            I64And(u64, u64) -> u64 = |a, b| a & b;
            I64Or(u64, u64) -> u64 = |a, b| a | b;
            I64Xor(u64, u64) -> u64 = |a, b| a ^ b;
            I64Shl(u64, u64) -> u64 = |a, b| a.wrapping_shl(b as u32);
            I64ShrS(i64, u64) -> i64 = |a, b| a.wrapping_shr(b as u32);
            I64ShrU(u64, u64) -> u64 = |a, b| a.wrapping_shr(b as u32);
            I64Rotl(u64, u64) -> u64 = |a, b| a.rotate_left((b % 64) as u32);
            I64Rotr(u64, u64) -> u64 = |a, b| a.rotate_right((b % 64) as u32);
            F32Add(f32, f32) -> f32 = |a, b| a + b;
            F32Sub(f32, f32) -> f32 = |a, b| a - b;
            F32Mul(f32, f32) -> f32 = |a, b| a * b;
            F32Div(f32, f32) -> f32 = |a, b| a / b;
            F32Min(f32, f32) -> f32 = |a, b| num::f32_min(a, b);
            F32Max(f32, f32) -> f32 = |a, b| num::f32_max(a, b);
            F32Copysign(f32, f32) -> f32 = |a, b| num::f32_copysign(a, b);
            F64Add(f64, f64) -> f64 = |a, b| a + b;
            F64Sub(f64, f64) -> f64 = |a, b| a - b;
            F64Mul(f64, f64) -> f64 = |a, b| a * b;
            F64Div(f64, f64) -> f64 = |a, b| a / b;
            F64Min(f64, f64) -> f64 = |a, b| num::f64_min(a, b);
            F64Max(f64, f64) -> f64 = |a, b| num::f64_max(a, b);
            F64Copysign(f64, f64) -> f64 = |a, b| num::f64_copysign(a, b);
        }
    };
}

/// Binary operations that may trap.
macro_rules! for_each_trap_binop {
    ($m:ident) => {
        $m! {
            I32DivS(i32, i32) -> i32 = |a, b| num::i32_div_s(a, b);
            I32DivU(u32, u32) -> u32 = |a, b| num::i32_div_u(a, b);
            I32RemS(i32, i32) -> i32 = |a, b| num::i32_rem_s(a, b);
            I32RemU(u32, u32) -> u32 = |a, b| num::i32_rem_u(a, b);
            I64DivS(i64, i64) -> i64 = |a, b| num::i64_div_s(a, b);
            I64DivU(u64, u64) -> u64 = |a, b| num::i64_div_u(a, b);
            I64RemS(i64, i64) -> i64 = |a, b| num::i64_rem_s(a, b);
            I64RemU(u64, u64) -> u64 = |a, b| num::i64_rem_u(a, b);
        }
    };
}

/// The binary operations frequent enough in compiled code to get their own [`Op`] variants
/// (register and immediate forms), saving the second dispatch on [`Binop`]. Their semantics
/// stay in [`for_each_binop`]; the translator specialises generic ops into these.
macro_rules! for_each_hot_binop {
    ($m:ident) => {
        $m! {
            I32Add I32AddImm, I32Sub I32SubImm, I32Mul I32MulImm, I32And I32AndImm, I32Or I32OrImm,
            I32Xor I32XorImm, I32Shl I32ShlImm, I32ShrS I32ShrSImm, I32ShrU I32ShrUImm,
            I32Eq I32EqImm, I32Ne I32NeImm, I32LtS I32LtSImm, I32LtU I32LtUImm, I32GtS I32GtSImm,
            I32GtU I32GtUImm, I32LeS I32LeSImm, I32LeU I32LeUImm, I32GeS I32GeSImm, I32GeU I32GeUImm,
            I64Add I64AddImm, I64Sub I64SubImm, I64Mul I64MulImm, I64And I64AndImm, I64Or I64OrImm,
            I64Xor I64XorImm, I64Shl I64ShlImm, I64ShrU I64ShrUImm, I64Eq I64EqImm, I64Ne I64NeImm,
            I64LtU I64LtUImm
        }
    };
}

pub(crate) use {for_each_binop, for_each_trap_binop, for_each_trap_unop, for_each_unop};

/// Memory access widths and extensions of loads. `f32.load` is `Load32` (slot bits are the
/// same), `f64.load` is `Load64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadKind {
    /// 1 byte, sign-extended to 32 bits.
    S8x32,
    /// 1 byte, sign-extended to 64 bits.
    S8x64,
    /// 1 byte, zero-extended.
    U8,
    /// 2 bytes, sign-extended to 32 bits.
    S16x32,
    /// 2 bytes, sign-extended to 64 bits.
    S16x64,
    /// 2 bytes, zero-extended.
    U16,
    /// 4 bytes, zero-extended (`i32.load`, `f32.load`, `i64.load32_u`).
    U32,
    /// 4 bytes, sign-extended to 64 bits.
    S32x64,
    /// 8 bytes.
    U64,
    /// 16 bytes (`v128.load`).
    V128,
}

impl LoadKind {
    /// The op that performs this load.
    pub(crate) fn op(self, dst: Slot, addr: Slot, offset: u32) -> Op {
        match self {
            LoadKind::U8 => Op::LoadU8 { dst, addr, offset },
            LoadKind::S8x32 => Op::LoadS8x32 { dst, addr, offset },
            LoadKind::S8x64 => Op::LoadS8x64 { dst, addr, offset },
            LoadKind::U16 => Op::LoadU16 { dst, addr, offset },
            LoadKind::S16x32 => Op::LoadS16x32 { dst, addr, offset },
            LoadKind::S16x64 => Op::LoadS16x64 { dst, addr, offset },
            LoadKind::U32 => Op::LoadU32 { dst, addr, offset },
            LoadKind::S32x64 => Op::LoadS32x64 { dst, addr, offset },
            LoadKind::U64 => Op::LoadU64 { dst, addr, offset },
            LoadKind::V128 => Op::LoadV128 { dst, addr, offset },
        }
    }
}

/// A branch whose target needs values moved (or is a function return), kept out of line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BranchTarget {
    /// Target pc (unused for `Return`).
    pub pc: u32,
    /// What the branch does when taken.
    pub kind: TargetKind,
    /// First slot of the values carried (contiguous).
    pub src: Slot,
    /// First slot they move to (for `Return`: 0, the frame's first slot).
    pub dst: Slot,
    /// Number of values carried.
    pub n: u32,
}

/// The kind of a [`BranchTarget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetKind {
    /// Forward branch to a block's or if's `end`.
    Block,
    /// Backward branch to a loop's first body instruction (a loop iteration).
    Loop,
    /// Branch to the function's label: a return, which also executes the final `end`.
    Return,
}

macro_rules! define_op {
    ($($hot:ident $hot_imm:ident),*) => {
/// Conditional branches do not end their fuel block: when taken they hand back `refund`, the
/// instructions of the block after them that were charged but will not run.
///
/// One operation of the internal form. At most 16 bytes (checked below). `repr(u8)` gives it
/// an explicit tag byte: without it the compiler folds the tag into a niche of an inner enum
/// field, and decoding that costs the dispatch several instructions.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(u8)]
pub(crate) enum Op {
    // ---- accounting and control -------------------------------------------------------------
    /// Start of a fuel block: charge `n` instructions; `first` is the function-relative index
    /// of the block's first Wasm instruction.
    Fuel { n: u32, first: u32 },
    /// `unreachable`.
    Unreachable,
    /// Unconditional jump that is not a branch (end of an if's then-arm at `else`).
    Jump { pc: u32 },
    /// `if` with a false condition: jump to the else-arm or the `end`.
    JumpIfZero { cond: Slot, pc: u32, refund: u32 },
    /// `if` on a fused comparison: jump when `op(a, b)` is zero.
    JumpIfNotCmp { op: Binop, a: Slot, b: Slot, pc: u32, refund: u32 },
    /// `if` on a fused comparison with a constant right operand.
    JumpIfNotCmpImm { op: Binop, a: Slot, imm: u32, pc: u32, refund: u32 },
    /// Taken `br` to a block or if, nothing to move.
    Br { pc: u32 },
    /// `br` back to a loop, nothing to move.
    BrLoop { pc: u32 },
    /// `br` with values to move, or to the function label: `targets[t]`.
    BrTarget { t: u32 },
    /// `br_if` to a block, nothing to move.
    BrIf { cond: Slot, pc: u32, refund: u32 },
    /// `br_if` to a block on a fused comparison `op(a, b)` (the `i32` result is not stored).
    BrIfCmp { op: Binop, a: Slot, b: Slot, pc: u32, refund: u32 },
    /// `br_if` to a block on a fused comparison with a constant right operand.
    BrIfCmpImm { op: Binop, a: Slot, imm: u32, pc: u32, refund: u32 },
    /// `br_if` back to a loop on a fused comparison.
    BrIfLoopCmp { op: Binop, a: Slot, b: Slot, pc: u32, refund: u32 },
    /// `br_if` back to a loop on a fused comparison with a constant right operand.
    BrIfLoopCmpImm { op: Binop, a: Slot, imm: u32, pc: u32, refund: u32 },
    /// `br_if` to a loop, nothing to move.
    BrIfLoop { cond: Slot, pc: u32, refund: u32 },
    /// `br_if` with values to move or to the function label.
    BrIfTarget { cond: Slot, t: u32, refund: u32 },
    /// `br_table`: `targets[start .. start + len]`, the last one the default.
    BrTable { index: Slot, start: u32, len: u32 },
    /// `return` (a branch; the final `end` is charged when it runs).
    Return { src: Slot, n: u32 },
    /// The final `end` of the body, reached by falling through.
    FuncEnd { src: Slot, n: u32 },
    /// `call` of the module's function `func`; arguments start at slot `args`.
    Call { func: u32, args: Slot },
    /// `call_indirect` through `table` with expected type `ty`.
    CallIndirect { ty: u32, table: u32, index: Slot, args: Slot },

    // ---- moves and constants ----------------------------------------------------------------
    /// `dst = src` (`local.set`, `local.tee`, moving a `local.get` into the operand stack).
    Copy { dst: Slot, src: Slot },
    /// `i32.const`, `f32.const` (bits), `ref.null` (0).
    Const32 { dst: Slot, value: u32 },
    /// `i64.const`, `f64.const` (bits), split to keep the op 4-byte aligned.
    Const64 { dst: Slot, lo: u32, hi: u32 },
    /// `v128.const`: `v128s[idx]`.
    ConstV128 { dst: Slot, idx: u32 },
    /// `select` and typed `select`: `dst = if c != 0 { a } else { b }`.
    Select { dst: Slot, a: Slot, b: Slot, c: Slot },
    /// `global.get` of the instance's global `global`.
    GlobalGet { dst: Slot, global: u32 },
    /// `global.set`.
    GlobalSet { global: u32, src: Slot },
    /// `ref.func`.
    RefFunc { dst: Slot, func: u32 },

    // ---- memory -----------------------------------------------------------------------------
    /// `i32.load8_u`, `i64.load8_u`. Loads: one variant per [`LoadKind`] so widths are static.
    LoadU8 { dst: Slot, addr: Slot, offset: u32 },
    /// `i32.load8_s`.
    LoadS8x32 { dst: Slot, addr: Slot, offset: u32 },
    /// `i64.load8_s`.
    LoadS8x64 { dst: Slot, addr: Slot, offset: u32 },
    /// `i32.load16_u`, `i64.load16_u`.
    LoadU16 { dst: Slot, addr: Slot, offset: u32 },
    /// `i32.load16_s`.
    LoadS16x32 { dst: Slot, addr: Slot, offset: u32 },
    /// `i64.load16_s`.
    LoadS16x64 { dst: Slot, addr: Slot, offset: u32 },
    /// `i32.load`, `f32.load`, `i64.load32_u`.
    LoadU32 { dst: Slot, addr: Slot, offset: u32 },
    /// `i64.load32_s`.
    LoadS32x64 { dst: Slot, addr: Slot, offset: u32 },
    /// `i64.load`, `f64.load`.
    LoadU64 { dst: Slot, addr: Slot, offset: u32 },
    /// `v128.load`.
    LoadV128 { dst: Slot, addr: Slot, offset: u32 },
    /// Stores of 1 byte: the low byte of `value` (`i32.store8`, `i64.store8`).
    Store8 { addr: Slot, value: Slot, offset: u32 },
    /// Stores of 2 bytes.
    Store16 { addr: Slot, value: Slot, offset: u32 },
    /// Stores of 4 bytes (`i32.store`, `f32.store`, `i64.store32`).
    Store32 { addr: Slot, value: Slot, offset: u32 },
    /// Stores of 8 bytes.
    Store64 { addr: Slot, value: Slot, offset: u32 },
    /// `v128.store`.
    Store128 { addr: Slot, value: Slot, offset: u32 },
    /// SIMD loads with a transform (extend, splat, zero).
    SimdLoad { kind: SimdLoad, dst: Slot, addr: Slot, offset: u32 },
    /// `v128.loadN_lane`: `width` bytes into lane `lane` of `vec`.
    LoadLane { width: u8, lane: u8, dst: Slot, addr: Slot, offset: u32, vec: Slot },
    /// `v128.storeN_lane`.
    StoreLane { width: u8, lane: u8, addr: Slot, vec: Slot, offset: u32 },
    /// `memory.size`.
    MemorySize { dst: Slot },
    /// `memory.grow`.
    MemoryGrow { dst: Slot, delta: Slot },
    /// `memory.copy`.
    MemoryCopy { dst: Slot, src: Slot, len: Slot },
    /// `memory.fill`.
    MemoryFill { dst: Slot, value: Slot, len: Slot },
    /// `memory.init` of data segment `seg`.
    MemoryInit { seg: u32, dst: Slot, src: Slot, len: Slot },
    /// `data.drop`.
    DataDrop { seg: u32 },

    // ---- tables -----------------------------------------------------------------------------
    /// `table.get`.
    TableGet { table: u32, dst: Slot, index: Slot },
    /// `table.set`.
    TableSet { table: u32, index: Slot, value: Slot },
    /// `table.size`.
    TableSize { table: u32, dst: Slot },
    /// `table.grow`: `dst` also holds the init value on entry.
    TableGrow { table: u32, dst: Slot, init: Slot, delta: Slot },
    /// `table.fill`.
    TableFill { table: u32, index: Slot, value: Slot, len: Slot },
    /// `table.copy`: tables in `pairs[pair]` = (destination, source); operands start at `args`
    /// (dst, src, len).
    TableCopy { pair: u32, args: Slot },
    /// `table.init`: `pairs[pair]` = (table, element segment); operands start at `args`.
    TableInit { pair: u32, args: Slot },
    /// `elem.drop`.
    ElemDrop { seg: u32 },

    // ---- SIMD value operations --------------------------------------------------------------
    /// v128 -> v128.
    SimdUnary { op: SimdUnary, dst: Slot, a: Slot },
    /// v128 v128 -> v128.
    SimdBinary { op: SimdBinary, dst: Slot, a: Slot, b: Slot },
    /// v128 v128 v128 -> v128.
    SimdTernary { op: SimdTernary, dst: Slot, a: Slot, b: Slot, c: Slot },
    /// v128 i32 -> v128.
    SimdShift { op: SimdShift, dst: Slot, a: Slot, b: Slot },
    /// v128 -> i32.
    SimdTest { op: SimdTest, dst: Slot, a: Slot },
    /// scalar -> v128.
    SimdSplat { op: SimdSplat, dst: Slot, a: Slot },
    /// v128 -> scalar.
    SimdExtract { op: SimdExtract, lane: u8, dst: Slot, a: Slot },
    /// v128 scalar -> v128.
    SimdReplace { op: SimdReplace, lane: u8, dst: Slot, a: Slot, b: Slot },
    /// `i8x16.shuffle` with lanes `shuffles[idx]`.
    Shuffle { dst: Slot, a: Slot, b: Slot, idx: u32 },

    // ---- pure scalar operations (generated) ---------------------------------------------------
    /// A pure unary operation.
    Unop { op: Unop, dst: Slot, a: Slot },
    /// A unary operation that may trap.
    TrapUnop { op: TrapUnop, dst: Slot, a: Slot },
    /// A pure binary operation.
    Binop { op: Binop, dst: Slot, a: Slot, b: Slot },
    /// A pure binary operation whose right operand is a constant: the 32 bits of `imm`
    /// sign-extended to 64 (so `i32` operations see exactly `imm`).
    BinopImm { op: Binop, dst: Slot, a: Slot, imm: u32 },
    /// A binary operation that may trap.
    TrapBinop { op: TrapBinop, dst: Slot, a: Slot, b: Slot },
    // ---- hot binary operations (generated from `for_each_hot_binop`) -------------------------
    $(
        /// A hot binary operation (see [`Binop`]).
        $hot { dst: Slot, a: Slot, b: Slot },
        /// A hot binary operation with a constant right operand (see [`Op::BinopImm`]).
        $hot_imm { dst: Slot, a: Slot, imm: u32 },
    )*
}

        impl Op {
            /// The specialised form of a generic binop, or the op itself.
            pub(crate) fn specialize(self) -> Op {
                match self {
                    $(
                        Op::Binop { op: Binop::$hot, dst, a, b } => Op::$hot { dst, a, b },
                        Op::BinopImm { op: Binop::$hot, dst, a, imm } => Op::$hot_imm { dst, a, imm },
                    )*
                    other => other,
                }
            }

            /// The generic form of a (possibly specialised) binop, else the op itself.
            pub(crate) fn generic(self) -> Op {
                match self {
                    $(
                        Op::$hot { dst, a, b } => Op::Binop { op: Binop::$hot, dst, a, b },
                        Op::$hot_imm { dst, a, imm } => Op::BinopImm { op: Binop::$hot, dst, a, imm },
                    )*
                    other => other,
                }
            }

            /// The slot a pure producer writes, for retargeting a following `local.set`.
            pub(crate) fn retargetable_dst(&mut self) -> Option<&mut Slot> {
                match self {
                    $( Op::$hot { dst, .. } | Op::$hot_imm { dst, .. } => Some(dst), )*
                    other => other.retargetable_dst_generic(),
                }
            }
        }
    };
}
for_each_hot_binop!(define_op);

macro_rules! define_kind_enum {
    ($enum:ident; $( $name:ident ( $($t:ty),* ) -> $out:ty = |$($arg:ident),*| $e:expr; )*) => {
        /// One of the generated scalar operations (see the `for_each_*` lists).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub(crate) enum $enum { $( $name, )* }
    };
}
macro_rules! def_unop { ($($t:tt)*) => { define_kind_enum!(Unop; $($t)*); }; }
macro_rules! def_trap_unop { ($($t:tt)*) => { define_kind_enum!(TrapUnop; $($t)*); }; }
macro_rules! def_binop { ($($t:tt)*) => { define_kind_enum!(Binop; $($t)*); }; }
macro_rules! def_trap_binop { ($($t:tt)*) => { define_kind_enum!(TrapBinop; $($t)*); }; }
for_each_unop!(def_unop);
for_each_trap_unop!(def_trap_unop);
for_each_binop!(def_binop);
for_each_trap_binop!(def_trap_binop);

const _: () = assert!(core::mem::size_of::<Op>() <= 16);

impl Op {
    /// The slot a pure producer writes, for retargeting a following `local.set`.
    /// The refund of a conditional branch (see [`Op`]).
    pub(crate) fn refund_mut(&mut self) -> Option<&mut u32> {
        match self {
            Op::JumpIfZero { refund, .. }
            | Op::JumpIfNotCmp { refund, .. }
            | Op::JumpIfNotCmpImm { refund, .. }
            | Op::BrIf { refund, .. }
            | Op::BrIfCmp { refund, .. }
            | Op::BrIfCmpImm { refund, .. }
            | Op::BrIfLoopCmp { refund, .. }
            | Op::BrIfLoopCmpImm { refund, .. }
            | Op::BrIfLoop { refund, .. }
            | Op::BrIfTarget { refund, .. } => Some(refund),
            _ => None,
        }
    }

    /// The branch target pc to patch, for forward branches.
    pub(crate) fn target_mut(&mut self) -> Option<&mut u32> {
        match self {
            Op::Br { pc }
            | Op::Jump { pc }
            | Op::BrIf { pc, .. }
            | Op::BrIfCmp { pc, .. }
            | Op::BrIfCmpImm { pc, .. }
            | Op::JumpIfZero { pc, .. }
            | Op::JumpIfNotCmp { pc, .. }
            | Op::JumpIfNotCmpImm { pc, .. } => Some(pc),
            _ => None,
        }
    }

    fn retargetable_dst_generic(&mut self) -> Option<&mut Slot> {
        match self {
            Op::Const32 { dst, .. }
            | Op::Const64 { dst, .. }
            | Op::GlobalGet { dst, .. }
            | Op::LoadU8 { dst, .. }
            | Op::LoadS8x32 { dst, .. }
            | Op::LoadS8x64 { dst, .. }
            | Op::LoadU16 { dst, .. }
            | Op::LoadS16x32 { dst, .. }
            | Op::LoadS16x64 { dst, .. }
            | Op::LoadU32 { dst, .. }
            | Op::LoadS32x64 { dst, .. }
            | Op::LoadU64 { dst, .. }
            | Op::LoadV128 { dst, .. }
            | Op::Unop { dst, .. }
            | Op::Binop { dst, .. }
            | Op::BinopImm { dst, .. }
            | Op::TrapUnop { dst, .. }
            | Op::TrapBinop { dst, .. }
            | Op::Select { dst, .. }
            | Op::SimdUnary { dst, .. }
            | Op::SimdBinary { dst, .. }
            | Op::SimdExtract { dst, .. }
            | Op::SimdSplat { dst, .. } => Some(dst),
            _ => None,
        }
    }
}
