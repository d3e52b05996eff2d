//! The internal form each function body is translated into once (`translate`) and that the
//! execution loop (`exec`) walks.
//!
//! Operands are *slots* relative to the frame pointer: a frame holds the parameters, then the
//! other locals, then the operand stack, each value in one 64-bit slot. A `v128` value keeps
//! its high half in the same slot of a second, parallel stack that only functions holding
//! `v128` values touch ([`CompiledFunc::wide`](super::module::CompiledFunc)): their moves use
//! the `…128` forms of the move ops, and their branches and returns move both halves.
//!
//! Because Wasm operand stack heights are static, every operand's slot is resolved at
//! translation time, and a `local.get` costs no operation at all: the consumer reads the
//! local's slot directly.
//!
//! Instructions are counted per *fuel block*: every straight-line run of Wasm instructions
//! starts with a [`Op::Fuel`] that charges the whole run, or a taken branch charges it (its
//! `charge`). Each op also has its position inside the run (`cum`, and `rem`, the instructions
//! of the run after it), so the exact count is known at a trap, at a write (for observers) and
//! at the exact point where the budget runs out (docs/counting.md).

pub(crate) mod simd;

pub(crate) use super::binary::operators::AtomicClass;
use simd::{
    SimdBinary, SimdExtract, SimdLoad, SimdReplace, SimdShift, SimdSplat, SimdTernary, SimdTest, SimdUnary,
};

/// A frame-relative slot index. A frame has at most [`FRAME_SLOTS`] slots, so a `u16` indexes
/// it and the executor's fixed-size frame view needs no bounds checks.
pub(crate) type Slot = u16;

/// Slots in the largest frame (parameters + locals + operand stack of one function): 65,536
/// (docs/limits.md: at most 32,768 of them parameters and locals).
pub(crate) const FRAME_SLOTS: usize = 1 << 16;

/// Pure unary operations: `Name(input type) -> output type = |a| expression`.
/// The name is also the [`Operator`](crate::wasm::Operator) variant. `for_each_unop!(m)` calls `m! { list }`;
/// `for_each_unop!(m, args…)` calls `m! { args…; list }` (so do the other `for_each_*` lists),
/// for a consumer that needs operands of its own.
macro_rules! for_each_unop {
    ($m:ident $(, $($pre:tt)*)?) => {
        $m! {
            $($($pre)*;)?
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
    ($m:ident $(, $($pre:tt)*)?) => {
        $m! {
            $($($pre)*;)?
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
    ($m:ident $(, $($pre:tt)*)?) => {
        $m! {
            $($($pre)*;)?
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
    ($m:ident $(, $($pre:tt)*)?) => {
        $m! {
            $($($pre)*;)?
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

/// The operations frequent enough in compiled code to get [`Op`] variants of their own, which
/// saves the executor's second dispatch on the [`Binop`] kind. Their semantics stay in
/// [`for_each_binop`]; the translator emits the generic ops and [`Op::specialize`] turns them
/// into these.
///
/// * `binop`: `Name NameImm`, the register and constant-operand forms of `Binop::Name`;
/// * `cmp`: `Name BrIf BrIfImm BrIfLoop BrIfLoopImm`, the compare-and-branch ops of the
///   comparison `Binop::Name` ([`Op::BrIfCmp`], [`Op::BrIfCmpImm`], [`Op::BrIfLoopCmp`],
///   [`Op::BrIfLoopCmpImm`] specialised to it);
/// * `div`: `Name NameImm`, [`Op::TrapBinopImm`] of `TrapBinop::Name` by a constant other
///   than 0 and -1, which cannot trap (no division by zero, no signed overflow).
#[cfg_attr(feature = "compact-ops", allow(unused_macros))]
macro_rules! for_each_hot_op {
    ($m:ident) => {
        $m! {
            binop {
                I32Add I32AddImm, I32Sub I32SubImm, I32Mul I32MulImm, I32And I32AndImm, I32Or I32OrImm,
                I32Xor I32XorImm, I32Shl I32ShlImm, I32ShrS I32ShrSImm, I32ShrU I32ShrUImm,
                I32Rotl I32RotlImm, I32Rotr I32RotrImm,
                I32Eq I32EqImm, I32Ne I32NeImm, I32LtS I32LtSImm, I32LtU I32LtUImm, I32GtS I32GtSImm,
                I32GtU I32GtUImm, I32LeS I32LeSImm, I32LeU I32LeUImm, I32GeS I32GeSImm, I32GeU I32GeUImm,
                I64Add I64AddImm, I64Sub I64SubImm, I64Mul I64MulImm, I64And I64AndImm, I64Or I64OrImm,
                I64Xor I64XorImm, I64Shl I64ShlImm, I64ShrU I64ShrUImm, I64Eq I64EqImm, I64Ne I64NeImm,
                I64LtU I64LtUImm,
                // The arithmetic of floating-point loops, such as a Mandelbrot set's inner loop
                // (docs/speed.md, "Floating-point hot ops"). Their `Imm` forms, like those of
                // `F64Le` below, are never emitted: a float constant is always a `Const64` in a
                // slot, never an immediate (the grammar of this table pairs every hot op with one).
                F64Add F64AddImm, F64Sub F64SubImm, F64Mul F64MulImm, F64Le F64LeImm
            }
            cmp {
                I32Eq BrIfI32Eq BrIfI32EqImm BrIfLoopI32Eq BrIfLoopI32EqImm,
                I32Ne BrIfI32Ne BrIfI32NeImm BrIfLoopI32Ne BrIfLoopI32NeImm,
                I32LtS BrIfI32LtS BrIfI32LtSImm BrIfLoopI32LtS BrIfLoopI32LtSImm,
                I32LtU BrIfI32LtU BrIfI32LtUImm BrIfLoopI32LtU BrIfLoopI32LtUImm,
                I32GtS BrIfI32GtS BrIfI32GtSImm BrIfLoopI32GtS BrIfLoopI32GtSImm,
                I32GtU BrIfI32GtU BrIfI32GtUImm BrIfLoopI32GtU BrIfLoopI32GtUImm,
                I32LeS BrIfI32LeS BrIfI32LeSImm BrIfLoopI32LeS BrIfLoopI32LeSImm,
                I32LeU BrIfI32LeU BrIfI32LeUImm BrIfLoopI32LeU BrIfLoopI32LeUImm,
                I32GeS BrIfI32GeS BrIfI32GeSImm BrIfLoopI32GeS BrIfLoopI32GeSImm,
                I32GeU BrIfI32GeU BrIfI32GeUImm BrIfLoopI32GeU BrIfLoopI32GeUImm,
                // A floating-point loop's test (a Mandelbrot set's `x² + y² <= 4`).
                F64Le BrIfF64Le BrIfF64LeImm BrIfLoopF64Le BrIfLoopF64LeImm
            }
            div {
                I32DivS I32DivSImm, I32DivU I32DivUImm, I32RemS I32RemSImm, I32RemU I32RemUImm,
                I64DivS I64DivSImm, I64DivU I64DivUImm, I64RemS I64RemSImm, I64RemU I64RemUImm
            }
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

/// The kind of an [`Op::Atomic`]: what it does ([`AtomicClass`], the operator table's) and on
/// how many bytes (1, 2, 4 or 8). Prints as the class and the width in bits (`Add32`,
/// `Cmpxchg8`, `Wait64`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct AtomicOp {
    /// What the operator does.
    pub(crate) class: AtomicClass,
    /// The access width in bytes.
    pub(crate) width: u8,
}

impl core::fmt::Debug for AtomicOp {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}{}", self.class, u32::from(self.width) * 8)
    }
}

/// A target of a `br_table`, or of a `br_if` that moves values or returns, kept out of line.
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
    /// What the branch adds to the instruction count when taken: for a `Block` or `Loop`
    /// target, the count of the fuel block it lands in (whose `Fuel` it skips) minus the
    /// instructions of the branch's own block after it; for `Return`, minus those
    /// instructions alone (the final `end` is charged by the return). Completed by the
    /// translator's emitter (docs/counting.md, "Fuel blocks").
    pub charge: i32,
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

/// The one definition of the internal instruction set. Each entry is an op's doc comment, its
/// name and its operands, each with its *role*:
///
/// * `out`: the slot the op writes, where a following `local.set` may put the result directly
///   (pure producers, see [`Op::retargetable_dst`]);
/// * `dst`: a slot the op writes that must stay where it is;
/// * `src`: a slot the op reads;
/// * `pc`: a forward branch target, patched when its block closes ([`Op::target_mut`]);
/// * `back`: a backward (loop) branch target, known when the op is emitted;
/// * `charge`: what a taken direct branch adds to the instruction count: the count of the
///   fuel block it lands in, whose [`Op::Fuel`] it skips, minus the instructions of its own
///   block after it, charged but not run ([`Op::charge_mut`]; docs/counting.md, "Fuel blocks");
/// * `kind`: which operation of a family (an enum such as [`Binop`]);
/// * `imm`: any other immediate: an index, a count, constant bits, a static memory offset.
///
/// From it `define_op!` generates the `Op` enum, [`Op::name`], the role accessors and the
/// `Display` disassembler. Fuel is not a per-op cost: every op belongs to the fuel block its
/// [`Op::Fuel`] charged, and the translator's `cum`/`idx` side tables give each op's place in
/// it (docs/counting.md, "Fuel blocks").
macro_rules! op_table {
    (binop { $($hot:ident $hot_imm:ident),* } cmp { $($cmp:tt)* } div { $($div:tt)* }) => {
        define_op! {
            ($)
            table {
            // ---- accounting and control -------------------------------------------------------------
            /// Start of a fuel block: charge `n` instructions; `first` is the function-relative index
            /// of the block's first Wasm instruction.
            Fuel { n: u32 = imm, first: u32 = imm };
            /// `unreachable`.
            Unreachable;
            /// Unconditional jump that is not a branch (end of an if's then-arm at `else`).
            Jump { pc: u32 = pc, charge: i32 = charge };
            /// `if` with a false condition: jump to the else-arm or the `end`.
            JumpIfZero { cond: Slot = src, pc: u32 = pc, charge: i32 = charge };
            /// `if` on a fused comparison: jump when `op(a, b)` is zero.
            JumpIfNotCmp { op: Binop = kind, a: Slot = src, b: Slot = src, pc: u32 = pc, charge: i32 = charge };
            /// `if` on a fused comparison with a constant right operand.
            JumpIfNotCmpImm { op: Binop = kind, a: Slot = src, imm: u32 = imm, pc: u32 = pc, charge: i32 = charge };
            /// Taken `br` to a block or if (after the `Copy`s of the values it carries).
            Br { pc: u32 = pc, charge: i32 = charge };
            /// `br` back to a loop (after the `Copy`s of the values it carries).
            BrLoop { pc: u32 = back, charge: i32 = charge };
            /// `br_if` to a block, nothing to move.
            BrIf { cond: Slot = src, pc: u32 = pc, charge: i32 = charge };
            /// `br_if` to a block on a fused comparison `op(a, b)` (the `i32` result is not stored).
            BrIfCmp { op: Binop = kind, a: Slot = src, b: Slot = src, pc: u32 = pc, charge: i32 = charge };
            /// `br_if` to a block on a fused comparison with a constant right operand.
            BrIfCmpImm { op: Binop = kind, a: Slot = src, imm: u32 = imm, pc: u32 = pc, charge: i32 = charge };
            /// `br_if` back to a loop on a fused comparison.
            BrIfLoopCmp { op: Binop = kind, a: Slot = src, b: Slot = src, pc: u32 = back, charge: i32 = charge };
            /// `br_if` back to a loop on a fused comparison with a constant right operand.
            BrIfLoopCmpImm { op: Binop = kind, a: Slot = src, imm: u32 = imm, pc: u32 = back, charge: i32 = charge };
            /// A loop's counting tail `i += step; br_if (i <u n) loop` in one op: `i` is a local
            /// the add writes and the comparison reads (superinstructions of `I32AddImm` and
            /// `BrIfLoopCmp`; `step` is the add's constant, fitting 16 bits signed).
            IncBrIfLoopLtU { i: Slot = dst, step: i16 = imm, n: Slot = src, pc: u32 = back, charge: i32 = charge };
            /// As [`Op::IncBrIfLoopLtU`] with a signed comparison `i <s n`.
            IncBrIfLoopLtS { i: Slot = dst, step: i16 = imm, n: Slot = src, pc: u32 = back, charge: i32 = charge };
            /// As [`Op::IncBrIfLoopLtU`] with `i != n`.
            IncBrIfLoopNe { i: Slot = dst, step: i16 = imm, n: Slot = src, pc: u32 = back, charge: i32 = charge };
            /// `br_if` to a loop, nothing to move.
            BrIfLoop { cond: Slot = src, pc: u32 = back, charge: i32 = charge };
            /// `br_if` with values to move or to the function label.
            BrIfTarget { cond: Slot = src, t: u32 = imm };
            /// `br_table`: `targets[start .. start + len]`, the last one the default.
            BrTable { index: Slot = src, start: u32 = imm, len: u32 = imm };
            /// `return` (a branch; the final `end` is charged when it runs).
            Return { src: Slot = src, n: u32 = imm };
            /// The final `end` of the body, reached by falling through.
            FuncEnd { src: Slot = src, n: u32 = imm };
            /// `call` of the module's function `func`; arguments start at slot `args`.
            Call { func: u32 = imm, args: Slot = src };
            /// `call_indirect` through `table` with expected type `ty`.
            CallIndirect { ty: u32 = imm, table: u32 = imm, index: Slot = src, args: Slot = src };
            /// `return_call`: the arguments at `args` become the callee's first slots in this
            /// frame, which the callee takes over (a call and a return; no `end` runs).
            ReturnCall { func: u32 = imm, args: Slot = src };
            /// `return_call_indirect`.
            ReturnCallIndirect { ty: u32 = imm, table: u32 = imm, index: Slot = src, args: Slot = src };
            /// `throw` of the module's tag `tag`, its values in the slots from `args`: creates
            /// the exception and unwinds to the handler that catches it (docs/interpreter.md,
            /// "Exceptions"). Ends its fuel block.
            Throw { tag: u32 = imm, args: Slot = src };
            /// `throw_ref` of the `exnref` in `src` (a null one traps), and a legacy `rethrow`,
            /// whose `src` is the hidden slot of the clause it names. Ends its fuel block.
            ThrowRef { src: Slot = src };

            // ---- moves and constants ----------------------------------------------------------------
            /// `dst = src` (`local.set`, `local.tee`, moving a `local.get` into the operand stack).
            Copy { dst: Slot = dst, src: Slot = src };
            /// `i32.const`, `f32.const` (bits), `ref.null` (0).
            Const32 { dst: Slot = out, value: u32 = imm };
            /// `i64.const`, `f64.const` (bits), split to keep the op 4-byte aligned.
            Const64 { dst: Slot = out, lo: u32 = imm, hi: u32 = imm };
            /// `v128.const`: `v128s[idx]`.
            ConstV128 { dst: Slot = dst, idx: u32 = imm };
            /// `select` and typed `select`: `dst = if c != 0 { a } else { b }`.
            Select { dst: Slot = out, a: Slot = src, b: Slot = src, c: Slot = src };
            /// `global.get` of the instance's global `global`.
            GlobalGet { dst: Slot = out, global: u32 = imm };
            /// `global.set`.
            GlobalSet { global: u32 = imm, src: Slot = src };
            /// `ref.func`.
            RefFunc { dst: Slot = dst, func: u32 = imm };
            /// [`Op::Copy`] in a function that holds `v128` values: both halves of the slot.
            Copy128 { dst: Slot = dst, src: Slot = src };
            /// [`Op::Select`] in a function that holds `v128` values.
            Select128 { dst: Slot = out, a: Slot = src, b: Slot = src, c: Slot = src };
            /// [`Op::GlobalGet`] of a `v128` global.
            GlobalGet128 { dst: Slot = out, global: u32 = imm };
            /// [`Op::GlobalSet`] of a `v128` global (not an observer's `stack_pointer_write`, which
            /// is for an `i32` global 0).
            GlobalSet128 { global: u32 = imm, src: Slot = src };

            // ---- memory -----------------------------------------------------------------------------
            /// `i32.load8_u`, `i64.load8_u`. Loads: one variant per [`LoadKind`] so widths are static.
            LoadU8 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i32.load8_s`.
            LoadS8x32 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i64.load8_s`.
            LoadS8x64 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i32.load16_u`, `i64.load16_u`.
            LoadU16 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i32.load16_s`.
            LoadS16x32 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i64.load16_s`.
            LoadS16x64 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i32.load`, `f32.load`, `i64.load32_u`.
            LoadU32 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i64.load32_s`.
            LoadS32x64 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `i64.load`, `f64.load`.
            LoadU64 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// `v128.load`.
            LoadV128 { dst: Slot = out, addr: Slot = src, offset: u32 = imm };
            /// Stores of 1 byte: the low byte of `value` (`i32.store8`, `i64.store8`).
            Store8 { addr: Slot = src, value: Slot = src, offset: u32 = imm };
            /// Stores of 2 bytes.
            Store16 { addr: Slot = src, value: Slot = src, offset: u32 = imm };
            /// Stores of 4 bytes (`i32.store`, `f32.store`, `i64.store32`).
            Store32 { addr: Slot = src, value: Slot = src, offset: u32 = imm };
            /// Stores of 8 bytes.
            Store64 { addr: Slot = src, value: Slot = src, offset: u32 = imm };
            /// `v128.store`.
            Store128 { addr: Slot = src, value: Slot = src, offset: u32 = imm };
            /// SIMD loads with a transform (extend, splat, zero).
            SimdLoad { kind: SimdLoad = kind, dst: Slot = dst, addr: Slot = src, offset: u32 = imm };
            /// `v128.loadN_lane`: `width` bytes into lane `lane` of `vec`.
            LoadLane { width: u8 = imm, lane: u8 = imm, dst: Slot = dst, addr: Slot = src, offset: u32 = imm, vec: Slot = src };
            /// `v128.storeN_lane`.
            StoreLane { width: u8 = imm, lane: u8 = imm, addr: Slot = src, vec: Slot = src, offset: u32 = imm };
            /// An atomic access of the threads proposal, run on one thread (docs/interpreter.md,
            /// "Threads"): `op` says what and on how many bytes at `addr + offset`, which must
            /// be a multiple of the width and inside memory. `a` is the value stored or
            /// combined, the expected value of a compare-exchange or a wait, or a notify's
            /// count; `b` a compare-exchange's replacement or a wait's timeout. The result, if
            /// the operator has one, goes to `dst`; unused slots repeat `addr`. (`atomic.fence`
            /// has no op: on one thread it orders nothing.)
            #[cfg_attr(feature = "only-2-0", allow(dead_code))]
            Atomic { op: AtomicOp = kind, dst: Slot = dst, addr: Slot = src, a: Slot = src, b: Slot = src, offset: u32 = imm };
            /// `memory.size`.
            MemorySize { dst: Slot = dst };
            /// `memory.grow`.
            MemoryGrow { dst: Slot = dst, delta: Slot = src };
            /// `memory.copy`.
            MemoryCopy { dst: Slot = src, src: Slot = src, len: Slot = src };
            /// `memory.fill`.
            MemoryFill { dst: Slot = src, value: Slot = src, len: Slot = src };
            /// `memory.init` of data segment `seg`.
            MemoryInit { seg: u32 = imm, dst: Slot = src, src: Slot = src, len: Slot = src };
            /// `data.drop`.
            DataDrop { seg: u32 = imm };

            // ---- tables -----------------------------------------------------------------------------
            /// `table.get`.
            TableGet { table: u32 = imm, dst: Slot = dst, index: Slot = src };
            /// `table.set`.
            TableSet { table: u32 = imm, index: Slot = src, value: Slot = src };
            /// `table.size`.
            TableSize { table: u32 = imm, dst: Slot = dst };
            /// `table.grow`: `dst` also holds the init value on entry.
            TableGrow { table: u32 = imm, dst: Slot = dst, init: Slot = src, delta: Slot = src };
            /// `table.fill`.
            TableFill { table: u32 = imm, index: Slot = src, value: Slot = src, len: Slot = src };
            /// `table.copy`: tables in `pairs[pair]` = (destination, source); operands start at `args`
            /// (dst, src, len).
            TableCopy { pair: u32 = imm, args: Slot = src };
            /// `table.init`: `pairs[pair]` = (table, element segment); operands start at `args`.
            TableInit { pair: u32 = imm, args: Slot = src };
            /// `elem.drop`.
            ElemDrop { seg: u32 = imm };

            // ---- SIMD value operations --------------------------------------------------------------
            /// v128 -> v128.
            SimdUnary { op: SimdUnary = kind, dst: Slot = out, a: Slot = src };
            /// v128 v128 -> v128.
            SimdBinary { op: SimdBinary = kind, dst: Slot = out, a: Slot = src, b: Slot = src };
            /// v128 v128 v128 -> v128.
            SimdTernary { op: SimdTernary = kind, dst: Slot = dst, a: Slot = src, b: Slot = src, c: Slot = src };
            /// v128 i32 -> v128.
            SimdShift { op: SimdShift = kind, dst: Slot = dst, a: Slot = src, b: Slot = src };
            /// v128 -> i32.
            SimdTest { op: SimdTest = kind, dst: Slot = dst, a: Slot = src };
            /// scalar -> v128.
            SimdSplat { op: SimdSplat = kind, dst: Slot = out, a: Slot = src };
            /// v128 -> scalar.
            SimdExtract { op: SimdExtract = kind, lane: u8 = imm, dst: Slot = out, a: Slot = src };
            /// v128 scalar -> v128.
            SimdReplace { op: SimdReplace = kind, lane: u8 = imm, dst: Slot = dst, a: Slot = src, b: Slot = src };
            /// `i8x16.shuffle` with lanes `shuffles[idx]`.
            Shuffle { dst: Slot = dst, a: Slot = src, b: Slot = src, idx: u32 = imm };

            // ---- pure scalar operations (generated) ---------------------------------------------------
            /// A pure unary operation.
            Unop { op: Unop = kind, dst: Slot = out, a: Slot = src };
            /// A unary operation that may trap.
            TrapUnop { op: TrapUnop = kind, dst: Slot = out, a: Slot = src };
            /// A pure binary operation.
            Binop { op: Binop = kind, dst: Slot = out, a: Slot = src, b: Slot = src };
            /// A pure binary operation whose right operand is a constant: the 32 bits of `imm`
            /// sign-extended to 64 (so `i32` operations see exactly `imm`).
            BinopImm { op: Binop = kind, dst: Slot = out, a: Slot = src, imm: u32 = imm };
            /// A binary operation that may trap.
            TrapBinop { op: TrapBinop = kind, dst: Slot = out, a: Slot = src, b: Slot = src };
            /// A binary operation that may trap, with a constant right operand (sign-extended
            /// from 32 bits as in [`Op::BinopImm`]): division and remainder by a constant, one
            /// op instead of a constant and the operation.
            TrapBinopImm { op: TrapBinop = kind, dst: Slot = out, a: Slot = src, imm: u32 = imm };

            }
            hot { $($hot $hot_imm),* }
            cmp { $($cmp)* }
            div { $($div)* }
        }
    };
}

/// Expands [`op_table`]: the hot binops become entries of their own, then everything is
/// generated from the combined list.
macro_rules! define_op {
    (($d:tt) table { $($entries:tt)* } hot { $($hot:ident $hot_imm:ident),* }
        cmp { $($cmp:ident $br:ident $br_imm:ident $lp:ident $lp_imm:ident),* }
        div { $($div:ident $div_imm:ident),* }
    ) => {
        define_op! {
            @dispatch ($d) { $($entries)* } hot { $($hot $hot_imm),* }
            cmp { $($cmp $br $br_imm $lp $lp_imm),* } div { $($div $div_imm),* }
        }
        define_op! {
            @gen ($d)
            $($entries)*
            $(
                /// A hot binary operation (see [`Binop`]).
                $hot { dst: Slot = out, a: Slot = src, b: Slot = src };
                /// A hot binary operation with a constant right operand (see [`Op::BinopImm`]).
                $hot_imm { dst: Slot = out, a: Slot = src, imm: u32 = imm };
            )*
            $(
                /// [`Op::BrIfCmp`] on a hot comparison.
                $br { a: Slot = src, b: Slot = src, pc: u32 = pc, charge: i32 = charge };
                /// [`Op::BrIfCmpImm`] on a hot comparison.
                $br_imm { a: Slot = src, imm: u32 = imm, pc: u32 = pc, charge: i32 = charge };
                /// [`Op::BrIfLoopCmp`] on a hot comparison.
                $lp { a: Slot = src, b: Slot = src, pc: u32 = back, charge: i32 = charge };
                /// [`Op::BrIfLoopCmpImm`] on a hot comparison.
                $lp_imm { a: Slot = src, imm: u32 = imm, pc: u32 = back, charge: i32 = charge };
            )*
            $(
                /// [`Op::TrapBinopImm`] by a constant that cannot make it trap.
                $div_imm { dst: Slot = out, a: Slot = src, imm: u32 = imm };
            )*
        }

        impl Op {
            /// The specialised form of a generic binop or compare-and-branch, or the op itself.
            pub(crate) fn specialize(self) -> Op {
                match self {
                    $(
                        Op::Binop { op: Binop::$hot, dst, a, b } => Op::$hot { dst, a, b },
                        Op::BinopImm { op: Binop::$hot, dst, a, imm } => Op::$hot_imm { dst, a, imm },
                    )*
                    $(
                        Op::BrIfCmp { op: Binop::$cmp, a, b, pc, charge } => Op::$br { a, b, pc, charge },
                        Op::BrIfCmpImm { op: Binop::$cmp, a, imm, pc, charge } => Op::$br_imm { a, imm, pc, charge },
                        Op::BrIfLoopCmp { op: Binop::$cmp, a, b, pc, charge } => Op::$lp { a, b, pc, charge },
                        Op::BrIfLoopCmpImm { op: Binop::$cmp, a, imm, pc, charge } => {
                            Op::$lp_imm { a, imm, pc, charge }
                        }
                    )*
                    $(
                        Op::TrapBinopImm { op: TrapBinop::$div, dst, a, imm } if imm != 0 && imm != u32::MAX => {
                            Op::$div_imm { dst, a, imm }
                        }
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
                    $(
                        Op::$br { a, b, pc, charge } => Op::BrIfCmp { op: Binop::$cmp, a, b, pc, charge },
                        Op::$br_imm { a, imm, pc, charge } => Op::BrIfCmpImm { op: Binop::$cmp, a, imm, pc, charge },
                        Op::$lp { a, b, pc, charge } => Op::BrIfLoopCmp { op: Binop::$cmp, a, b, pc, charge },
                        Op::$lp_imm { a, imm, pc, charge } => {
                            Op::BrIfLoopCmpImm { op: Binop::$cmp, a, imm, pc, charge }
                        }
                    )*
                    $(
                        Op::$div_imm { dst, a, imm } => Op::TrapBinopImm { op: TrapBinop::$div, dst, a, imm },
                    )*
                    other => other,
                }
            }
        }
    };
    (@dispatch ($d:tt)
        { $( $(#[$meta:meta])* $name:ident $({ $($field:ident : $ty:ident = $role:ident),* })? ; )* }
        hot { $($hot:ident $hot_imm:ident),* }
        cmp { $($cmp:ident $br:ident $br_imm:ident $lp:ident $lp_imm:ident),* }
        div { $($div:ident $div_imm:ident),* }
    ) => {
        /// The executor's dispatch skeleton, generated from [`op_table`]: `dispatch_op!(op, h)`
        /// is a `match` on the [`Op`] `op` with one arm per op, each handing the op to the
        /// handler macro `h` by name with its operands bound, in table order:
        ///
        /// * `h!(Name { f1, f2 })` for an op of the table (`h!(Name)` for one without
        ///   operands);
        /// * `h!(@hot Name { dst, a, b })` and `h!(@hot_imm Name { dst, a, imm })` for the
        ///   register and immediate forms of the hot binop `Binop::Name`;
        /// * `h!(@const BrIfCmp { op, a, b, pc, charge })` (and likewise for the other three
        ///   compare-and-branch ops) for a hot compare-and-branch, with `op` bound to the
        ///   constant `Binop::Name`, so that the handler can fold the comparison into the arm
        ///   where the generic op calls the shared out-of-line table;
        /// * `h!(TrapBinopImm { .. })` with `op` bound to the constant `TrapBinop::Name` for a
        ///   division by a safe constant.
        ///
        /// A handler thus cannot forget an op, and an operand added to the table fails to match
        /// the handler's rule until the handler takes it.
        macro_rules! dispatch_op {
            ($d op:expr, $d h:ident) => {
                match $d op {
                    $( Op::$name $({ $($field),* })? => $d h!($name $({ $($field),* })?), )*
                    $(
                        Op::$hot { dst, a, b } => $d h!(@hot $hot { dst, a, b }),
                        Op::$hot_imm { dst, a, imm } => $d h!(@hot_imm $hot { dst, a, imm }),
                    )*
                    $(
                        Op::$br { a, b, pc, charge } => {
                            let op = Binop::$cmp;
                            $d h!(@const BrIfCmp { op, a, b, pc, charge })
                        }
                        Op::$br_imm { a, imm, pc, charge } => {
                            let op = Binop::$cmp;
                            $d h!(@const BrIfCmpImm { op, a, imm, pc, charge })
                        }
                        Op::$lp { a, b, pc, charge } => {
                            let op = Binop::$cmp;
                            $d h!(@const BrIfLoopCmp { op, a, b, pc, charge })
                        }
                        Op::$lp_imm { a, imm, pc, charge } => {
                            let op = Binop::$cmp;
                            $d h!(@const BrIfLoopCmpImm { op, a, imm, pc, charge })
                        }
                    )*
                    $(
                        Op::$div_imm { dst, a, imm } => {
                            let op = TrapBinop::$div;
                            $d h!(TrapBinopImm { op, dst, a, imm })
                        }
                    )*
                }
            };
        }
        pub(crate) use dispatch_op;
    };
    (@gen ($d:tt) $( $(#[$meta:meta])* $name:ident $({ $($field:ident : $ty:ident = $role:ident),* })? ; )*) => {
        /// One operation of the internal form (defined by [`op_table`]). At most 16 bytes
        /// (checked below). `repr(u8)` gives it an explicit tag byte: without it the compiler
        /// folds the tag into a niche of an inner enum field, and decoding that costs the
        /// dispatch several instructions.
        ///
        /// Conditional branches do not end their fuel block. A taken direct branch (one with
        /// a `pc` or `back` target, always a fuel block's `Fuel`) adds its `charge` to the
        /// count and continues after that `Fuel`, unless the target block does not fit the
        /// budget or the run is in precise mode: then it hands back the rest of its own block
        /// and lands on the `Fuel`. A branch through the target table ([`Op::BrIfTarget`],
        /// [`Op::BrTable`]) does the same with the charge of its [`BranchTarget`].
        #[derive(Debug, Clone, Copy, PartialEq)]
        #[repr(u8)]
        pub(crate) enum Op {
            $( $(#[$meta])* $name $({ $($field: $ty),* })?, )*
        }

        // The body of an accessor: returns the operand of the op `$self_` whose role `op_role!`
        // matches `$want` (a role, or `target` for the value of a `pc` or `back`), else `None`.
        macro_rules! operand_of_role {
            ($d self_:tt, $d want:ident) => {{
                match $d self_ {
                    $( Op::$name $({ $($field),* })? => {
                        $($( let _ = &$field; )*)?
                        $($( op_role!($d want, $role, $field); )*)?
                    } )*
                }
                None
            }};
        }

        impl Op {
            /// The op's name as the table spells it (the disassembler's mnemonic).
            pub(crate) fn name(&self) -> &'static str {
                match self {
                    $( Op::$name { .. } => stringify!($name), )*
                }
            }

            /// The charge of a taken direct branch (see [`Op`]): its `charge` operand.
            pub(crate) fn charge_mut(&mut self) -> Option<&mut i32> {
                operand_of_role!(self, charge)
            }

            /// The target of a direct branch: its `pc` or `back` operand.
            pub(crate) fn branch_target(&self) -> Option<u32> {
                operand_of_role!(self, target)
            }

            /// The forward branch target to patch: the `pc` operand.
            pub(crate) fn target_mut(&mut self) -> Option<&mut u32> {
                operand_of_role!(self, pc)
            }

            /// The slot a pure producer writes, for retargeting a following `local.set`: the
            /// `out` operand.
            pub(crate) fn retargetable_dst(&mut self) -> Option<&mut Slot> {
                operand_of_role!(self, out)
            }
        }

        /// The disassembler: the op's name, then each operand as `name=value`; slots print as
        /// `sN` (frame-relative), branch targets as `@pc`, kinds by name.
        impl core::fmt::Display for Op {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())?;
                match self {
                    $( Op::$name $({ $($field),* })? => { $($( op_fmt!(f, $role, $field); )*)? } )*
                }
                Ok(())
            }
        }
    };
}

/// One operand of a generated accessor: returns it when its role is the one wanted.
macro_rules! op_role {
    (pc, pc, $f:ident) => {
        return Some($f)
    };
    (out, out, $f:ident) => {
        return Some($f)
    };
    (charge, charge, $f:ident) => {
        return Some($f)
    };
    (target, pc, $f:ident) => {
        return Some(*$f)
    };
    (target, back, $f:ident) => {
        return Some(*$f)
    };
    ($want:ident, $role:ident, $f:ident) => {};
}

/// One operand of the disassembler, printed by its role.
macro_rules! op_fmt {
    ($w:ident, out, $f:ident) => {
        write!($w, " {}=s{}", stringify!($f), $f)?
    };
    ($w:ident, dst, $f:ident) => {
        write!($w, " {}=s{}", stringify!($f), $f)?
    };
    ($w:ident, src, $f:ident) => {
        write!($w, " {}=s{}", stringify!($f), $f)?
    };
    ($w:ident, pc, $f:ident) => {
        write!($w, " {}=@{}", stringify!($f), $f)?
    };
    ($w:ident, back, $f:ident) => {
        write!($w, " {}=@{}", stringify!($f), $f)?
    };
    ($w:ident, kind, $f:ident) => {
        write!($w, " {}={:?}", stringify!($f), $f)?
    };
    ($w:ident, $role:ident, $f:ident) => {
        write!($w, " {}={}", stringify!($f), $f)?
    };
}

// The Content components (feature `compact-ops`) leave the hot variants out: their loop is
// then a seventh smaller, which their hosts compile on every run (docs/components.md).
#[cfg(not(feature = "compact-ops"))]
for_each_hot_op!(op_table);
#[cfg(feature = "compact-ops")]
op_table! { binop {} cmp {} div {} }

impl Op {
    /// Turns a move op into its form for a function that holds `v128` values: the ops that
    /// move a value of any type (`Copy`, `Select`) move both halves of its slot there. Other
    /// ops stay (a global's type is known: `GlobalGet128`, `GlobalSet128`).
    pub(crate) fn widen(&mut self) {
        match *self {
            Op::Copy { dst, src } => *self = Op::Copy128 { dst, src },
            Op::Select { dst, a, b, c } => *self = Op::Select128 { dst, a, b, c },
            _ => {}
        }
    }
}

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
