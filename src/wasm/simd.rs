//! Value semantics of the fixed-width SIMD instructions (`v128`) of WebAssembly 2.0.
//!
//! Source: WebAssembly Core Specification 2.0, section 4.4.3 "Vector Instructions" (execution)
//! and section 4.3 "Numerics" (the lane-wise scalar operators it lifts), plus the binary
//! opcodes of section 5.4.8. Relaxed SIMD (a later proposal) is not part of 2.0 and is not
//! handled here: [`classify`] returns `None` for it.
//!
//! Representation: a `v128` is a `u128` whose lanes are in little-endian order, lane 0 in
//! the lowest bits (the same layout as the 16 bytes in memory read with `u128::from_le_bytes`).
//! Scalars going in or out (splat, lane access) are raw bits in a `u64`: an `i32`/`f32` uses
//! the low 32 bits (zero-extended), an `i64`/`f64` all 64.
//!
//! The translator calls [`classify`] (and [`classify_load`] for memory loads with a value
//! transform) once per operator; the executor then calls [`unary`], [`binary`], [`ternary`],
//! [`shift`], [`test()`], [`splat`], [`extract_lane`], [`replace_lane`] or [`load_transform`]
//! with the operator kind. Every enum variant is named exactly like the
//! `wasmparser::Operator` variant it stands for (e.g. `SimdBinary::I8x16AddSatS` for
//! `Operator::I8x16AddSatS`, the text-format `i8x16.add_sat_s`).
//!
//! Handled by the interpreter itself, so `None` from both classifiers: `v128.load`,
//! `v128.store`, `v128.const`, `i8x16.shuffle` and the lane loads/stores
//! `v128.load{8,16,32,64}_lane` / `v128.store{8,16,32,64}_lane` (done with
//! [`extract_lane`] / [`replace_lane`] of the integer shape of that lane width).

use super::num;
use wasmparser::{MemArg, Operator};

// ---------------------------------------------------------------------------------------
// Lane access helpers
// ---------------------------------------------------------------------------------------

/// A scalar that can be one lane of a `v128`.
trait Lane: Copy {
    /// Lane width in bits (8, 16, 32 or 64); the vector has `128 / BITS` lanes.
    const BITS: u32;
    /// The lane value held in the low `BITS` bits of `v` (higher bits ignored).
    fn from_bits(v: u128) -> Self;
    /// The lane's bits, zero-extended.
    fn to_bits(self) -> u128;
}

macro_rules! int_lane {
    ($($t:ty => $u:ty),*) => {$(
        impl Lane for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn from_bits(v: u128) -> Self { v as $u as $t }
            #[inline]
            fn to_bits(self) -> u128 { self as $u as u128 }
        }
    )*};
}
int_lane!(i8 => u8, u8 => u8, i16 => u16, u16 => u16, i32 => u32, u32 => u32, i64 => u64, u64 => u64);

impl Lane for f32 {
    const BITS: u32 = 32;
    #[inline]
    fn from_bits(v: u128) -> Self {
        f32::from_bits(v as u32)
    }
    #[inline]
    fn to_bits(self) -> u128 {
        f32::to_bits(self) as u128
    }
}

impl Lane for f64 {
    const BITS: u32 = 64;
    #[inline]
    fn from_bits(v: u128) -> Self {
        f64::from_bits(v as u64)
    }
    #[inline]
    fn to_bits(self) -> u128 {
        f64::to_bits(self) as u128
    }
}

/// Number of lanes of width `T`.
#[inline]
fn count<T: Lane>() -> usize {
    (128 / T::BITS) as usize
}

/// All-ones in the low `bits` bits (`bits` < 128).
#[inline]
fn ones(bits: u32) -> u128 {
    (1u128 << bits) - 1
}

/// Lane `i` of `v`, read as `T`.
#[inline]
fn lane<T: Lane>(v: u128, i: usize) -> T {
    T::from_bits(v >> (i as u32 * T::BITS))
}

/// The vector whose lane `i` (of type `T`) is `f(i)`.
#[inline]
fn build<T: Lane>(f: impl Fn(usize) -> T) -> u128 {
    (0..count::<T>()).fold(0, |acc, i| acc | f(i).to_bits() << (i as u32 * T::BITS))
}

/// Lane-wise `f` over one vector; `T` and `U` have the same width.
#[inline]
fn map<T: Lane, U: Lane>(a: u128, f: impl Fn(T) -> U) -> u128 {
    build(|i| f(lane::<T>(a, i)))
}

/// Lane-wise `f` over two vectors; `T` and `U` have the same width.
#[inline]
fn zip<T: Lane, U: Lane>(a: u128, b: u128, f: impl Fn(T, T) -> U) -> u128 {
    build(|i| f(lane::<T>(a, i), lane::<T>(b, i)))
}

/// Lane-wise comparison: all-ones lanes where `f` holds, zero lanes elsewhere.
#[inline]
fn cmp<T: Lane>(a: u128, b: u128, f: impl Fn(T, T) -> bool) -> u128 {
    (0..count::<T>()).fold(0, |acc, i| {
        if f(lane::<T>(a, i), lane::<T>(b, i)) { acc | ones(T::BITS) << (i as u32 * T::BITS) } else { acc }
    })
}

/// Widening lane-wise op over the low (`high == false`) or high half of `a`: the result
/// has half as many lanes of type `U`, each `f` of the matching `T` lane.
#[inline]
fn widen<T: Lane, U: Lane>(a: u128, high: bool, f: impl Fn(T) -> U) -> u128 {
    let off = if high { count::<U>() } else { 0 };
    build(|i| f(lane::<T>(a, i + off)))
}

/// Widening lane-wise op over the same half of two vectors (for `extmul`).
#[inline]
fn widen2<T: Lane, U: Lane>(a: u128, b: u128, high: bool, f: impl Fn(T, T) -> U) -> u128 {
    let off = if high { count::<U>() } else { 0 };
    build(|i| f(lane::<T>(a, i + off), lane::<T>(b, i + off)))
}

/// Pairwise op: result lane `i` (type `U`) is `f(a[2i], a[2i+1])` over lanes of type `T`.
#[inline]
fn pairwise<T: Lane, U: Lane>(a: u128, b: u128, f: impl Fn(T, T, T, T) -> U) -> u128 {
    build(|i| f(lane::<T>(a, 2 * i), lane::<T>(a, 2 * i + 1), lane::<T>(b, 2 * i), lane::<T>(b, 2 * i + 1)))
}

/// Narrowing: lanes of `a` then lanes of `b` (type `T`), each converted by `f` to the
/// half-width `U`.
#[inline]
fn narrow<T: Lane, U: Lane>(a: u128, b: u128, f: impl Fn(T) -> U) -> u128 {
    let n = count::<T>();
    build(|i| f(if i < n { lane::<T>(a, i) } else { lane::<T>(b, i - n) }))
}

/// Low lanes converted by `f`, the rest of the (same-width `U`) result lanes zero; `T` is
/// twice as wide as `U` (for the `_zero` conversions).
#[inline]
fn low_then_zero<T: Lane, U: Lane + Default>(a: u128, f: impl Fn(T) -> U) -> u128 {
    let n = count::<T>();
    build(|i| if i < n { f(lane::<T>(a, i)) } else { U::default() })
}

/// 1 if every lane of width `T` is non-zero.
#[inline]
fn all_true<T: Lane>(a: u128) -> u32 {
    (0..count::<T>()).all(|i| lane::<T>(a, i).to_bits() != 0) as u32
}

/// Bit `i` of the result is the top (sign) bit of lane `i` of width `T`.
#[inline]
fn bitmask<T: Lane>(a: u128) -> u32 {
    (0..count::<T>()).fold(0, |m, i| m | (((lane::<T>(a, i).to_bits() >> (T::BITS - 1)) & 1) as u32) << i)
}

/// Lane index reduced into range. Validation guarantees `lane < 128 / T::BITS`; reducing
/// keeps this function panic-free even if handed an unvalidated index.
#[inline]
fn idx<T: Lane>(l: u8) -> usize {
    debug_assert!((l as usize) < count::<T>(), "lane index {l} out of range");
    l as usize % count::<T>()
}

/// Lane `l` of `a` replaced by the low `T::BITS` bits of `x`.
#[inline]
fn set_lane<T: Lane>(a: u128, l: u8, x: u64) -> u128 {
    let sh = idx::<T>(l) as u32 * T::BITS;
    (a & !(ones(T::BITS) << sh)) | ((x as u128 & ones(T::BITS)) << sh)
}

/// Lane `l` of `a` as zero-extended raw bits.
#[inline]
fn get_lane<T: Lane>(a: u128, l: u8) -> u64 {
    lane::<T>(a, idx::<T>(l)).to_bits() as u64
}

// ---------------------------------------------------------------------------------------
// Operator kinds
// ---------------------------------------------------------------------------------------

/// Declares one operator-kind enum whose variants are named exactly like the
/// `wasmparser::Operator` variants, plus `from_op`, the mapping from the operator.
/// `plain`: the operator has no immediate; `lane`: it has `{ lane }`; `memarg`: `{ memarg }`.
macro_rules! simd_kind {
    (@enum [$($doc:tt)*] $name:ident { $($(#[doc = $vdoc:literal])* $v:ident,)* }) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        // The variants are the instructions' names (`i8x16.splat` is `I8x16Splat`), so the
        // kinds of one family share a suffix.
        #[allow(clippy::enum_variant_names)]
        pub enum $name { $($(#[doc = $vdoc])* $v,)* }
        impl $name {
            /// Every variant, in declaration order (tests only).
            #[cfg(test)]
            pub const ALL: &'static [$name] = &[$($name::$v),*];
        }
    };
    ($(#[doc = $doc:literal])* $name:ident, plain { $($(#[doc = $vdoc:literal])* $v:ident,)* }) => {
        simd_kind!(@enum [$(#[doc = $doc])*] $name { $($(#[doc = $vdoc])* $v,)* });
        impl $name {
            #[inline]
            fn from_op(op: &Operator<'_>) -> Option<Self> {
                match op {
                    $(Operator::$v => Some(Self::$v),)*
                    _ => None,
                }
            }
        }
    };
    ($(#[doc = $doc:literal])* $name:ident, lane { $($(#[doc = $vdoc:literal])* $v:ident,)* }) => {
        simd_kind!(@enum [$(#[doc = $doc])*] $name { $($(#[doc = $vdoc])* $v,)* });
        impl $name {
            #[inline]
            fn from_op(op: &Operator<'_>) -> Option<(Self, u8)> {
                match op {
                    $(Operator::$v { lane } => Some((Self::$v, *lane)),)*
                    _ => None,
                }
            }
        }
    };
    ($(#[doc = $doc:literal])* $name:ident, memarg { $($(#[doc = $vdoc:literal])* $v:ident,)* }) => {
        simd_kind!(@enum [$(#[doc = $doc])*] $name { $($(#[doc = $vdoc])* $v,)* });
        impl $name {
            #[inline]
            fn from_op(op: &Operator<'_>) -> Option<(Self, MemArg)> {
                match op {
                    $(Operator::$v { memarg } => Some((Self::$v, *memarg)),)*
                    _ => None,
                }
            }
        }
    };
}

simd_kind! {
    /// `v128 -> v128` operators (spec 4.4.3 `vvunop`, `vunop`, extend/extadd/convert/
    /// trunc_sat/demote/promote). Executed by [`unary`].
    SimdUnary, plain {
        /// `v128.not`: bitwise NOT.
        V128Not,
        /// `i8x16.abs`: lane-wise |x|; `-128` stays `-128`.
        I8x16Abs,
        /// `i8x16.neg`: lane-wise wrapping negation.
        I8x16Neg,
        /// `i8x16.popcnt`: number of set bits per byte.
        I8x16Popcnt,
        /// `i16x8.extadd_pairwise_i8x16_s`: `r[i] = sext(a[2i]) + sext(a[2i+1])`.
        I16x8ExtAddPairwiseI8x16S,
        /// `i16x8.extadd_pairwise_i8x16_u`: `r[i] = zext(a[2i]) + zext(a[2i+1])`.
        I16x8ExtAddPairwiseI8x16U,
        /// `i16x8.abs`: lane-wise |x|; `-32768` stays `-32768`.
        I16x8Abs,
        /// `i16x8.neg`: lane-wise wrapping negation.
        I16x8Neg,
        /// `i16x8.extend_low_i8x16_s`: i8 lanes 0..8 sign-extended to i16.
        I16x8ExtendLowI8x16S,
        /// `i16x8.extend_high_i8x16_s`: i8 lanes 8..16 sign-extended to i16.
        I16x8ExtendHighI8x16S,
        /// `i16x8.extend_low_i8x16_u`: i8 lanes 0..8 zero-extended to i16.
        I16x8ExtendLowI8x16U,
        /// `i16x8.extend_high_i8x16_u`: i8 lanes 8..16 zero-extended to i16.
        I16x8ExtendHighI8x16U,
        /// `i32x4.extadd_pairwise_i16x8_s`: `r[i] = sext(a[2i]) + sext(a[2i+1])`.
        I32x4ExtAddPairwiseI16x8S,
        /// `i32x4.extadd_pairwise_i16x8_u`: `r[i] = zext(a[2i]) + zext(a[2i+1])`.
        I32x4ExtAddPairwiseI16x8U,
        /// `i32x4.abs`: lane-wise |x|; `i32::MIN` stays `i32::MIN`.
        I32x4Abs,
        /// `i32x4.neg`: lane-wise wrapping negation.
        I32x4Neg,
        /// `i32x4.extend_low_i16x8_s`: i16 lanes 0..4 sign-extended to i32.
        I32x4ExtendLowI16x8S,
        /// `i32x4.extend_high_i16x8_s`: i16 lanes 4..8 sign-extended to i32.
        I32x4ExtendHighI16x8S,
        /// `i32x4.extend_low_i16x8_u`: i16 lanes 0..4 zero-extended to i32.
        I32x4ExtendLowI16x8U,
        /// `i32x4.extend_high_i16x8_u`: i16 lanes 4..8 zero-extended to i32.
        I32x4ExtendHighI16x8U,
        /// `i64x2.abs`: lane-wise |x|; `i64::MIN` stays `i64::MIN`.
        I64x2Abs,
        /// `i64x2.neg`: lane-wise wrapping negation.
        I64x2Neg,
        /// `i64x2.extend_low_i32x4_s`: i32 lanes 0..2 sign-extended to i64.
        I64x2ExtendLowI32x4S,
        /// `i64x2.extend_high_i32x4_s`: i32 lanes 2..4 sign-extended to i64.
        I64x2ExtendHighI32x4S,
        /// `i64x2.extend_low_i32x4_u`: i32 lanes 0..2 zero-extended to i64.
        I64x2ExtendLowI32x4U,
        /// `i64x2.extend_high_i32x4_u`: i32 lanes 2..4 zero-extended to i64.
        I64x2ExtendHighI32x4U,
        /// `f32x4.ceil`: lane-wise [`num::f32_ceil`].
        F32x4Ceil,
        /// `f32x4.floor`: lane-wise [`num::f32_floor`].
        F32x4Floor,
        /// `f32x4.trunc`: lane-wise [`num::f32_trunc`].
        F32x4Trunc,
        /// `f32x4.nearest`: lane-wise [`num::f32_nearest`] (ties to even).
        F32x4Nearest,
        /// `f32x4.abs`: lane-wise sign-bit clear (NaN payloads kept).
        F32x4Abs,
        /// `f32x4.neg`: lane-wise sign-bit flip (NaN payloads kept).
        F32x4Neg,
        /// `f32x4.sqrt`: lane-wise [`num::f32_sqrt`].
        F32x4Sqrt,
        /// `f64x2.ceil`: lane-wise [`num::f64_ceil`].
        F64x2Ceil,
        /// `f64x2.floor`: lane-wise [`num::f64_floor`].
        F64x2Floor,
        /// `f64x2.trunc`: lane-wise [`num::f64_trunc`].
        F64x2Trunc,
        /// `f64x2.nearest`: lane-wise [`num::f64_nearest`] (ties to even).
        F64x2Nearest,
        /// `f64x2.abs`: lane-wise sign-bit clear (NaN payloads kept).
        F64x2Abs,
        /// `f64x2.neg`: lane-wise sign-bit flip (NaN payloads kept).
        F64x2Neg,
        /// `f64x2.sqrt`: lane-wise [`num::f64_sqrt`].
        F64x2Sqrt,
        /// `i32x4.trunc_sat_f32x4_s`: lane-wise saturating truncation, NaN → 0.
        I32x4TruncSatF32x4S,
        /// `i32x4.trunc_sat_f32x4_u`: lane-wise unsigned saturating truncation, NaN → 0.
        I32x4TruncSatF32x4U,
        /// `f32x4.convert_i32x4_s`: lane-wise signed i32 → f32, round to nearest even.
        F32x4ConvertI32x4S,
        /// `f32x4.convert_i32x4_u`: lane-wise unsigned i32 → f32, round to nearest even.
        F32x4ConvertI32x4U,
        /// `i32x4.trunc_sat_f64x2_s_zero`: f64 lanes 0, 1 → saturating i32 lanes 0, 1;
        /// lanes 2, 3 are 0.
        I32x4TruncSatF64x2SZero,
        /// `i32x4.trunc_sat_f64x2_u_zero`: f64 lanes 0, 1 → saturating u32 lanes 0, 1;
        /// lanes 2, 3 are 0.
        I32x4TruncSatF64x2UZero,
        /// `f64x2.convert_low_i32x4_s`: signed i32 lanes 0, 1 → f64 (exact).
        F64x2ConvertLowI32x4S,
        /// `f64x2.convert_low_i32x4_u`: unsigned i32 lanes 0, 1 → f64 (exact).
        F64x2ConvertLowI32x4U,
        /// `f32x4.demote_f64x2_zero`: f64 lanes 0, 1 → f32 lanes 0, 1 (round to nearest
        /// even); lanes 2, 3 are +0.0.
        F32x4DemoteF64x2Zero,
        /// `f64x2.promote_low_f32x4`: f32 lanes 0, 1 → f64 (exact).
        F64x2PromoteLowF32x4,
    }
}

simd_kind! {
    /// `v128 v128 -> v128` operators (spec 4.4.3 `vvbinop`, `vbinop`, `vrelop`, swizzle,
    /// narrow, extmul, dot, q15mulr). Executed by [`binary`] with `a` the first (deeper)
    /// operand and `b` the second (top of stack).
    SimdBinary, plain {
        /// `v128.and`: bitwise AND.
        V128And,
        /// `v128.andnot`: `a & !b`.
        V128AndNot,
        /// `v128.or`: bitwise OR.
        V128Or,
        /// `v128.xor`: bitwise XOR.
        V128Xor,
        /// `i8x16.swizzle`: `r[i] = if b[i] < 16 { a[b[i]] } else { 0 }` (b's bytes unsigned).
        I8x16Swizzle,
        /// `i8x16.eq`: all-ones lane where equal.
        I8x16Eq,
        /// `i8x16.ne`: all-ones lane where not equal.
        I8x16Ne,
        /// `i8x16.lt_s`: signed `a < b` per lane.
        I8x16LtS,
        /// `i8x16.lt_u`: unsigned `a < b` per lane.
        I8x16LtU,
        /// `i8x16.gt_s`: signed `a > b` per lane.
        I8x16GtS,
        /// `i8x16.gt_u`: unsigned `a > b` per lane.
        I8x16GtU,
        /// `i8x16.le_s`: signed `a <= b` per lane.
        I8x16LeS,
        /// `i8x16.le_u`: unsigned `a <= b` per lane.
        I8x16LeU,
        /// `i8x16.ge_s`: signed `a >= b` per lane.
        I8x16GeS,
        /// `i8x16.ge_u`: unsigned `a >= b` per lane.
        I8x16GeU,
        /// `i16x8.eq`: all-ones lane where equal.
        I16x8Eq,
        /// `i16x8.ne`: all-ones lane where not equal.
        I16x8Ne,
        /// `i16x8.lt_s`: signed `a < b` per lane.
        I16x8LtS,
        /// `i16x8.lt_u`: unsigned `a < b` per lane.
        I16x8LtU,
        /// `i16x8.gt_s`: signed `a > b` per lane.
        I16x8GtS,
        /// `i16x8.gt_u`: unsigned `a > b` per lane.
        I16x8GtU,
        /// `i16x8.le_s`: signed `a <= b` per lane.
        I16x8LeS,
        /// `i16x8.le_u`: unsigned `a <= b` per lane.
        I16x8LeU,
        /// `i16x8.ge_s`: signed `a >= b` per lane.
        I16x8GeS,
        /// `i16x8.ge_u`: unsigned `a >= b` per lane.
        I16x8GeU,
        /// `i32x4.eq`: all-ones lane where equal.
        I32x4Eq,
        /// `i32x4.ne`: all-ones lane where not equal.
        I32x4Ne,
        /// `i32x4.lt_s`: signed `a < b` per lane.
        I32x4LtS,
        /// `i32x4.lt_u`: unsigned `a < b` per lane.
        I32x4LtU,
        /// `i32x4.gt_s`: signed `a > b` per lane.
        I32x4GtS,
        /// `i32x4.gt_u`: unsigned `a > b` per lane.
        I32x4GtU,
        /// `i32x4.le_s`: signed `a <= b` per lane.
        I32x4LeS,
        /// `i32x4.le_u`: unsigned `a <= b` per lane.
        I32x4LeU,
        /// `i32x4.ge_s`: signed `a >= b` per lane.
        I32x4GeS,
        /// `i32x4.ge_u`: unsigned `a >= b` per lane.
        I32x4GeU,
        /// `i64x2.eq`: all-ones lane where equal.
        I64x2Eq,
        /// `i64x2.ne`: all-ones lane where not equal.
        I64x2Ne,
        /// `i64x2.lt_s`: signed `a < b` per lane.
        I64x2LtS,
        /// `i64x2.gt_s`: signed `a > b` per lane.
        I64x2GtS,
        /// `i64x2.le_s`: signed `a <= b` per lane.
        I64x2LeS,
        /// `i64x2.ge_s`: signed `a >= b` per lane.
        I64x2GeS,
        /// `f32x4.eq`: IEEE `a == b` per lane (false with NaN, true for -0 == +0).
        F32x4Eq,
        /// `f32x4.ne`: IEEE `a != b` per lane (true with NaN).
        F32x4Ne,
        /// `f32x4.lt`: IEEE `a < b` per lane.
        F32x4Lt,
        /// `f32x4.gt`: IEEE `a > b` per lane.
        F32x4Gt,
        /// `f32x4.le`: IEEE `a <= b` per lane.
        F32x4Le,
        /// `f32x4.ge`: IEEE `a >= b` per lane.
        F32x4Ge,
        /// `f64x2.eq`: IEEE `a == b` per lane.
        F64x2Eq,
        /// `f64x2.ne`: IEEE `a != b` per lane.
        F64x2Ne,
        /// `f64x2.lt`: IEEE `a < b` per lane.
        F64x2Lt,
        /// `f64x2.gt`: IEEE `a > b` per lane.
        F64x2Gt,
        /// `f64x2.le`: IEEE `a <= b` per lane.
        F64x2Le,
        /// `f64x2.ge`: IEEE `a >= b` per lane.
        F64x2Ge,
        /// `i8x16.narrow_i16x8_s`: signed i16 lanes of `a` then `b`, saturated to i8.
        I8x16NarrowI16x8S,
        /// `i8x16.narrow_i16x8_u`: signed i16 lanes of `a` then `b`, saturated to u8.
        I8x16NarrowI16x8U,
        /// `i16x8.narrow_i32x4_s`: signed i32 lanes of `a` then `b`, saturated to i16.
        I16x8NarrowI32x4S,
        /// `i16x8.narrow_i32x4_u`: signed i32 lanes of `a` then `b`, saturated to u16.
        I16x8NarrowI32x4U,
        /// `i8x16.add`: lane-wise wrapping add.
        I8x16Add,
        /// `i8x16.add_sat_s`: lane-wise signed saturating add.
        I8x16AddSatS,
        /// `i8x16.add_sat_u`: lane-wise unsigned saturating add.
        I8x16AddSatU,
        /// `i8x16.sub`: lane-wise wrapping subtract.
        I8x16Sub,
        /// `i8x16.sub_sat_s`: lane-wise signed saturating subtract.
        I8x16SubSatS,
        /// `i8x16.sub_sat_u`: lane-wise unsigned saturating subtract (floor 0).
        I8x16SubSatU,
        /// `i8x16.min_s`: lane-wise signed minimum.
        I8x16MinS,
        /// `i8x16.min_u`: lane-wise unsigned minimum.
        I8x16MinU,
        /// `i8x16.max_s`: lane-wise signed maximum.
        I8x16MaxS,
        /// `i8x16.max_u`: lane-wise unsigned maximum.
        I8x16MaxU,
        /// `i8x16.avgr_u`: lane-wise unsigned rounding average `(a + b + 1) / 2`.
        I8x16AvgrU,
        /// `i16x8.q15mulr_sat_s`: `sat_i16((a * b + 0x4000) >> 15)` per lane.
        I16x8Q15MulrSatS,
        /// `i16x8.add`: lane-wise wrapping add.
        I16x8Add,
        /// `i16x8.add_sat_s`: lane-wise signed saturating add.
        I16x8AddSatS,
        /// `i16x8.add_sat_u`: lane-wise unsigned saturating add.
        I16x8AddSatU,
        /// `i16x8.sub`: lane-wise wrapping subtract.
        I16x8Sub,
        /// `i16x8.sub_sat_s`: lane-wise signed saturating subtract.
        I16x8SubSatS,
        /// `i16x8.sub_sat_u`: lane-wise unsigned saturating subtract (floor 0).
        I16x8SubSatU,
        /// `i16x8.mul`: lane-wise wrapping multiply.
        I16x8Mul,
        /// `i16x8.min_s`: lane-wise signed minimum.
        I16x8MinS,
        /// `i16x8.min_u`: lane-wise unsigned minimum.
        I16x8MinU,
        /// `i16x8.max_s`: lane-wise signed maximum.
        I16x8MaxS,
        /// `i16x8.max_u`: lane-wise unsigned maximum.
        I16x8MaxU,
        /// `i16x8.avgr_u`: lane-wise unsigned rounding average `(a + b + 1) / 2`.
        I16x8AvgrU,
        /// `i16x8.extmul_low_i8x16_s`: `sext(a[i]) * sext(b[i])` for i8 lanes 0..8.
        I16x8ExtMulLowI8x16S,
        /// `i16x8.extmul_high_i8x16_s`: `sext(a[i]) * sext(b[i])` for i8 lanes 8..16.
        I16x8ExtMulHighI8x16S,
        /// `i16x8.extmul_low_i8x16_u`: `zext(a[i]) * zext(b[i])` for i8 lanes 0..8.
        I16x8ExtMulLowI8x16U,
        /// `i16x8.extmul_high_i8x16_u`: `zext(a[i]) * zext(b[i])` for i8 lanes 8..16.
        I16x8ExtMulHighI8x16U,
        /// `i32x4.add`: lane-wise wrapping add.
        I32x4Add,
        /// `i32x4.sub`: lane-wise wrapping subtract.
        I32x4Sub,
        /// `i32x4.mul`: lane-wise wrapping multiply.
        I32x4Mul,
        /// `i32x4.min_s`: lane-wise signed minimum.
        I32x4MinS,
        /// `i32x4.min_u`: lane-wise unsigned minimum.
        I32x4MinU,
        /// `i32x4.max_s`: lane-wise signed maximum.
        I32x4MaxS,
        /// `i32x4.max_u`: lane-wise unsigned maximum.
        I32x4MaxU,
        /// `i32x4.dot_i16x8_s`: `r[i] = a[2i]*b[2i] + a[2i+1]*b[2i+1]` (signed i16 products,
        /// wrapping i32 sum).
        I32x4DotI16x8S,
        /// `i32x4.extmul_low_i16x8_s`: `sext(a[i]) * sext(b[i])` for i16 lanes 0..4.
        I32x4ExtMulLowI16x8S,
        /// `i32x4.extmul_high_i16x8_s`: `sext(a[i]) * sext(b[i])` for i16 lanes 4..8.
        I32x4ExtMulHighI16x8S,
        /// `i32x4.extmul_low_i16x8_u`: `zext(a[i]) * zext(b[i])` for i16 lanes 0..4.
        I32x4ExtMulLowI16x8U,
        /// `i32x4.extmul_high_i16x8_u`: `zext(a[i]) * zext(b[i])` for i16 lanes 4..8.
        I32x4ExtMulHighI16x8U,
        /// `i64x2.add`: lane-wise wrapping add.
        I64x2Add,
        /// `i64x2.sub`: lane-wise wrapping subtract.
        I64x2Sub,
        /// `i64x2.mul`: lane-wise wrapping multiply.
        I64x2Mul,
        /// `i64x2.extmul_low_i32x4_s`: `sext(a[i]) * sext(b[i])` for i32 lanes 0..2.
        I64x2ExtMulLowI32x4S,
        /// `i64x2.extmul_high_i32x4_s`: `sext(a[i]) * sext(b[i])` for i32 lanes 2..4.
        I64x2ExtMulHighI32x4S,
        /// `i64x2.extmul_low_i32x4_u`: `zext(a[i]) * zext(b[i])` for i32 lanes 0..2.
        I64x2ExtMulLowI32x4U,
        /// `i64x2.extmul_high_i32x4_u`: `zext(a[i]) * zext(b[i])` for i32 lanes 2..4.
        I64x2ExtMulHighI32x4U,
        /// `f32x4.add`: lane-wise IEEE add.
        F32x4Add,
        /// `f32x4.sub`: lane-wise IEEE subtract.
        F32x4Sub,
        /// `f32x4.mul`: lane-wise IEEE multiply.
        F32x4Mul,
        /// `f32x4.div`: lane-wise IEEE divide.
        F32x4Div,
        /// `f32x4.min`: lane-wise [`num::f32_min`] (NaN-propagating, -0 < +0).
        F32x4Min,
        /// `f32x4.max`: lane-wise [`num::f32_max`] (NaN-propagating, -0 < +0).
        F32x4Max,
        /// `f32x4.pmin`: lane-wise `if b < a { b } else { a }`.
        F32x4PMin,
        /// `f32x4.pmax`: lane-wise `if a < b { b } else { a }`.
        F32x4PMax,
        /// `f64x2.add`: lane-wise IEEE add.
        F64x2Add,
        /// `f64x2.sub`: lane-wise IEEE subtract.
        F64x2Sub,
        /// `f64x2.mul`: lane-wise IEEE multiply.
        F64x2Mul,
        /// `f64x2.div`: lane-wise IEEE divide.
        F64x2Div,
        /// `f64x2.min`: lane-wise [`num::f64_min`] (NaN-propagating, -0 < +0).
        F64x2Min,
        /// `f64x2.max`: lane-wise [`num::f64_max`] (NaN-propagating, -0 < +0).
        F64x2Max,
        /// `f64x2.pmin`: lane-wise `if b < a { b } else { a }`.
        F64x2PMin,
        /// `f64x2.pmax`: lane-wise `if a < b { b } else { a }`.
        F64x2PMax,
    }
}

simd_kind! {
    /// `v128 v128 v128 -> v128` operators (spec 4.4.3 `vvternop`). Executed by [`ternary`].
    SimdTernary, plain {
        /// `v128.bitselect`: `(a & c) | (b & !c)` (bits of `a` where `c` is 1, else `b`).
        V128Bitselect,
    }
}

simd_kind! {
    /// `v128 i32 -> v128` shifts (spec 4.4.3 `vshiftop`). The count is taken modulo the lane
    /// width in bits. Executed by [`shift`].
    SimdShift, plain {
        /// `i8x16.shl`: lane-wise shift left by `count % 8`.
        I8x16Shl,
        /// `i8x16.shr_s`: lane-wise arithmetic shift right by `count % 8`.
        I8x16ShrS,
        /// `i8x16.shr_u`: lane-wise logical shift right by `count % 8`.
        I8x16ShrU,
        /// `i16x8.shl`: lane-wise shift left by `count % 16`.
        I16x8Shl,
        /// `i16x8.shr_s`: lane-wise arithmetic shift right by `count % 16`.
        I16x8ShrS,
        /// `i16x8.shr_u`: lane-wise logical shift right by `count % 16`.
        I16x8ShrU,
        /// `i32x4.shl`: lane-wise shift left by `count % 32`.
        I32x4Shl,
        /// `i32x4.shr_s`: lane-wise arithmetic shift right by `count % 32`.
        I32x4ShrS,
        /// `i32x4.shr_u`: lane-wise logical shift right by `count % 32`.
        I32x4ShrU,
        /// `i64x2.shl`: lane-wise shift left by `count % 64`.
        I64x2Shl,
        /// `i64x2.shr_s`: lane-wise arithmetic shift right by `count % 64`.
        I64x2ShrS,
        /// `i64x2.shr_u`: lane-wise logical shift right by `count % 64`.
        I64x2ShrU,
    }
}

simd_kind! {
    /// `v128 -> i32` tests (spec 4.4.3 `vvtestop`, `vitestop`, `bitmask`). Executed by
    /// [`test()`].
    SimdTest, plain {
        /// `v128.any_true`: 1 if any bit is set.
        V128AnyTrue,
        /// `i8x16.all_true`: 1 if every i8 lane is non-zero.
        I8x16AllTrue,
        /// `i8x16.bitmask`: bit `i` = sign bit of i8 lane `i` (16 bits).
        I8x16Bitmask,
        /// `i16x8.all_true`: 1 if every i16 lane is non-zero.
        I16x8AllTrue,
        /// `i16x8.bitmask`: bit `i` = sign bit of i16 lane `i` (8 bits).
        I16x8Bitmask,
        /// `i32x4.all_true`: 1 if every i32 lane is non-zero.
        I32x4AllTrue,
        /// `i32x4.bitmask`: bit `i` = sign bit of i32 lane `i` (4 bits).
        I32x4Bitmask,
        /// `i64x2.all_true`: 1 if every i64 lane is non-zero.
        I64x2AllTrue,
        /// `i64x2.bitmask`: bit `i` = sign bit of i64 lane `i` (2 bits).
        I64x2Bitmask,
    }
}

simd_kind! {
    /// `scalar -> v128` splats (spec 4.4.3 `shape.splat`). Executed by [`splat`]; the scalar
    /// is raw bits in a `u64` and is truncated to the lane width.
    SimdSplat, plain {
        /// `i8x16.splat`: low 8 bits of the i32 operand into all 16 lanes.
        I8x16Splat,
        /// `i16x8.splat`: low 16 bits of the i32 operand into all 8 lanes.
        I16x8Splat,
        /// `i32x4.splat`: the i32 operand (low 32 bits) into all 4 lanes.
        I32x4Splat,
        /// `i64x2.splat`: the i64 operand into both lanes.
        I64x2Splat,
        /// `f32x4.splat`: the f32 bits (low 32 bits) into all 4 lanes.
        F32x4Splat,
        /// `f64x2.splat`: the f64 bits into both lanes.
        F64x2Splat,
    }
}

simd_kind! {
    /// `v128 -> scalar` lane reads (spec 4.4.3 `shape.extract_lane_sx?`), immediate lane
    /// index carried in [`SimdOp::ExtractLane`]. Executed by [`extract_lane`].
    SimdExtract, lane {
        /// `i8x16.extract_lane_s`: i8 lane sign-extended to i32.
        I8x16ExtractLaneS,
        /// `i8x16.extract_lane_u`: i8 lane zero-extended to i32.
        I8x16ExtractLaneU,
        /// `i16x8.extract_lane_s`: i16 lane sign-extended to i32.
        I16x8ExtractLaneS,
        /// `i16x8.extract_lane_u`: i16 lane zero-extended to i32.
        I16x8ExtractLaneU,
        /// `i32x4.extract_lane`: i32 lane.
        I32x4ExtractLane,
        /// `i64x2.extract_lane`: i64 lane.
        I64x2ExtractLane,
        /// `f32x4.extract_lane`: f32 lane bits.
        F32x4ExtractLane,
        /// `f64x2.extract_lane`: f64 lane bits.
        F64x2ExtractLane,
    }
}

simd_kind! {
    /// `v128 scalar -> v128` lane writes (spec 4.4.3 `shape.replace_lane`), immediate lane
    /// index carried in [`SimdOp::ReplaceLane`]. Executed by [`replace_lane`].
    SimdReplace, lane {
        /// `i8x16.replace_lane`: low 8 bits of the i32 operand into the lane.
        I8x16ReplaceLane,
        /// `i16x8.replace_lane`: low 16 bits of the i32 operand into the lane.
        I16x8ReplaceLane,
        /// `i32x4.replace_lane`: the i32 operand into the lane.
        I32x4ReplaceLane,
        /// `i64x2.replace_lane`: the i64 operand into the lane.
        I64x2ReplaceLane,
        /// `f32x4.replace_lane`: the f32 bits into the lane.
        F32x4ReplaceLane,
        /// `f64x2.replace_lane`: the f64 bits into the lane.
        F64x2ReplaceLane,
    }
}

simd_kind! {
    /// Memory loads whose bytes are transformed into a `v128` (spec 4.4.7
    /// `v128.loadNxM_sx`, `v128.loadN_splat`, `v128.loadN_zero`). The interpreter reads
    /// [`SimdLoad::width`] bytes at the effective address (trapping out of bounds as for
    /// any load) and calls [`load_transform`]. Found by [`classify_load`].
    SimdLoad, memarg {
        /// `v128.load8x8_s`: 8 bytes, each sign-extended to an i16 lane.
        V128Load8x8S,
        /// `v128.load8x8_u`: 8 bytes, each zero-extended to an i16 lane.
        V128Load8x8U,
        /// `v128.load16x4_s`: 4 × i16, each sign-extended to an i32 lane.
        V128Load16x4S,
        /// `v128.load16x4_u`: 4 × i16, each zero-extended to an i32 lane.
        V128Load16x4U,
        /// `v128.load32x2_s`: 2 × i32, each sign-extended to an i64 lane.
        V128Load32x2S,
        /// `v128.load32x2_u`: 2 × i32, each zero-extended to an i64 lane.
        V128Load32x2U,
        /// `v128.load8_splat`: 1 byte into all 16 lanes.
        V128Load8Splat,
        /// `v128.load16_splat`: 2 bytes into all 8 lanes.
        V128Load16Splat,
        /// `v128.load32_splat`: 4 bytes into all 4 lanes.
        V128Load32Splat,
        /// `v128.load64_splat`: 8 bytes into both lanes.
        V128Load64Splat,
        /// `v128.load32_zero`: 4 bytes into lane 0 of i32x4, other lanes 0.
        V128Load32Zero,
        /// `v128.load64_zero`: 8 bytes into lane 0 of i64x2, lane 1 is 0.
        V128Load64Zero,
    }
}

impl SimdLoad {
    /// Bytes read from memory: 8 for the extending loads (`load8x8`, `load16x4`,
    /// `load32x2`), 1/2/4/8 for `load8/16/32/64_splat`, 4/8 for `load32/64_zero`.
    #[inline]
    pub fn width(self) -> u32 {
        use SimdLoad::*;
        match self {
            V128Load8Splat => 1,
            V128Load16Splat => 2,
            V128Load32Splat | V128Load32Zero => 4,
            V128Load8x8S | V128Load8x8U | V128Load16x4S | V128Load16x4U | V128Load32x2S | V128Load32x2U
            | V128Load64Splat | V128Load64Zero => 8,
        }
    }
}

/// What a SIMD operator is, for the translator: its stack shape and kind (see [`classify`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdOp {
    /// `v128 -> v128`, run with [`unary`].
    Unary(SimdUnary),
    /// `v128 v128 -> v128`, run with [`binary`].
    Binary(SimdBinary),
    /// `v128 v128 v128 -> v128`, run with [`ternary`].
    Ternary(SimdTernary),
    /// `v128 i32 -> v128`, run with [`shift`].
    Shift(SimdShift),
    /// `v128 -> i32`, run with [`test()`].
    Test(SimdTest),
    /// `scalar -> v128` (scalar is i32, i64, f32 or f64 per the shape), run with [`splat`].
    Splat(SimdSplat),
    /// `v128 -> scalar` with the immediate lane index, run with [`extract_lane`].
    ExtractLane(SimdExtract, u8),
    /// `v128 scalar -> v128` with the immediate lane index, run with [`replace_lane`].
    ReplaceLane(SimdReplace, u8),
}

/// Classifies a SIMD value operator. `None` for every non-SIMD operator, every relaxed-SIMD
/// operator, and the SIMD operators the interpreter handles itself: `v128.load`,
/// `v128.store`, `v128.const`, `i8x16.shuffle`, the lane loads/stores
/// (`v128.load*_lane`, `v128.store*_lane`) and the transforming loads of [`classify_load`].
#[inline]
pub fn classify(op: &Operator<'_>) -> Option<SimdOp> {
    if let Some(k) = SimdBinary::from_op(op) {
        Some(SimdOp::Binary(k))
    } else if let Some(k) = SimdUnary::from_op(op) {
        Some(SimdOp::Unary(k))
    } else if let Some(k) = SimdTernary::from_op(op) {
        Some(SimdOp::Ternary(k))
    } else if let Some(k) = SimdShift::from_op(op) {
        Some(SimdOp::Shift(k))
    } else if let Some(k) = SimdTest::from_op(op) {
        Some(SimdOp::Test(k))
    } else if let Some(k) = SimdSplat::from_op(op) {
        Some(SimdOp::Splat(k))
    } else if let Some((k, lane)) = SimdExtract::from_op(op) {
        Some(SimdOp::ExtractLane(k, lane))
    } else {
        SimdReplace::from_op(op).map(|(k, lane)| SimdOp::ReplaceLane(k, lane))
    }
}

/// `Some((kind, memarg))` for the loads with a value transform (`v128.load8x8_s` …
/// `v128.load32x2_u`, `v128.load8/16/32/64_splat`, `v128.load32_zero`, `v128.load64_zero`);
/// `None` for every other operator.
#[inline]
pub fn classify_load<'a>(op: &Operator<'a>) -> Option<(SimdLoad, MemArg)> {
    SimdLoad::from_op(op)
}

/// Builds the `v128` of a transforming load from `raw`, the [`SimdLoad::width`] bytes read
/// from memory as a little-endian integer, zero-extended to `u64` (spec 4.4.7).
#[inline]
pub fn load_transform(kind: SimdLoad, raw: u64) -> u128 {
    use SimdLoad::*;
    let r = raw as u128;
    match kind {
        V128Load8x8S => widen(r, false, |x: i8| x as i16),
        V128Load8x8U => widen(r, false, |x: u8| x as u16),
        V128Load16x4S => widen(r, false, |x: i16| x as i32),
        V128Load16x4U => widen(r, false, |x: u16| x as u32),
        V128Load32x2S => widen(r, false, |x: i32| x as i64),
        V128Load32x2U => widen(r, false, |x: u32| x as u64),
        V128Load8Splat => splat(SimdSplat::I8x16Splat, raw),
        V128Load16Splat => splat(SimdSplat::I16x8Splat, raw),
        V128Load32Splat => splat(SimdSplat::I32x4Splat, raw),
        V128Load64Splat => splat(SimdSplat::I64x2Splat, raw),
        V128Load32Zero => r & ones(32),
        V128Load64Zero => r & ones(64),
    }
}

// ---------------------------------------------------------------------------------------
// Executors
// ---------------------------------------------------------------------------------------

/// Executes a `v128 -> v128` operator on `a` (lanes little-endian, lane 0 lowest).
#[inline]
pub fn unary(op: SimdUnary, a: u128) -> u128 {
    use SimdUnary::*;
    match op {
        V128Not => !a,
        I8x16Abs => map(a, i8::wrapping_abs),
        I8x16Neg => map(a, i8::wrapping_neg),
        I8x16Popcnt => map(a, |x: u8| x.count_ones() as u8),
        I16x8ExtAddPairwiseI8x16S => pairwise(a, 0, |x: i8, y: i8, _, _| x as i16 + y as i16),
        I16x8ExtAddPairwiseI8x16U => pairwise(a, 0, |x: u8, y: u8, _, _| x as u16 + y as u16),
        I16x8Abs => map(a, i16::wrapping_abs),
        I16x8Neg => map(a, i16::wrapping_neg),
        I16x8ExtendLowI8x16S => widen(a, false, |x: i8| x as i16),
        I16x8ExtendHighI8x16S => widen(a, true, |x: i8| x as i16),
        I16x8ExtendLowI8x16U => widen(a, false, |x: u8| x as u16),
        I16x8ExtendHighI8x16U => widen(a, true, |x: u8| x as u16),
        I32x4ExtAddPairwiseI16x8S => pairwise(a, 0, |x: i16, y: i16, _, _| x as i32 + y as i32),
        I32x4ExtAddPairwiseI16x8U => pairwise(a, 0, |x: u16, y: u16, _, _| x as u32 + y as u32),
        I32x4Abs => map(a, i32::wrapping_abs),
        I32x4Neg => map(a, i32::wrapping_neg),
        I32x4ExtendLowI16x8S => widen(a, false, |x: i16| x as i32),
        I32x4ExtendHighI16x8S => widen(a, true, |x: i16| x as i32),
        I32x4ExtendLowI16x8U => widen(a, false, |x: u16| x as u32),
        I32x4ExtendHighI16x8U => widen(a, true, |x: u16| x as u32),
        I64x2Abs => map(a, i64::wrapping_abs),
        I64x2Neg => map(a, i64::wrapping_neg),
        I64x2ExtendLowI32x4S => widen(a, false, |x: i32| x as i64),
        I64x2ExtendHighI32x4S => widen(a, true, |x: i32| x as i64),
        I64x2ExtendLowI32x4U => widen(a, false, |x: u32| x as u64),
        I64x2ExtendHighI32x4U => widen(a, true, |x: u32| x as u64),
        F32x4Ceil => map(a, num::f32_ceil),
        F32x4Floor => map(a, num::f32_floor),
        F32x4Trunc => map(a, num::f32_trunc),
        F32x4Nearest => map(a, num::f32_nearest),
        F32x4Abs => map(a, num::f32_abs),
        F32x4Neg => map(a, num::f32_neg),
        F32x4Sqrt => map(a, num::f32_sqrt),
        F64x2Ceil => map(a, num::f64_ceil),
        F64x2Floor => map(a, num::f64_floor),
        F64x2Trunc => map(a, num::f64_trunc),
        F64x2Nearest => map(a, num::f64_nearest),
        F64x2Abs => map(a, num::f64_abs),
        F64x2Neg => map(a, num::f64_neg),
        F64x2Sqrt => map(a, num::f64_sqrt),
        I32x4TruncSatF32x4S => map(a, num::i32_trunc_sat_f32_s),
        I32x4TruncSatF32x4U => map(a, num::i32_trunc_sat_f32_u),
        F32x4ConvertI32x4S => map(a, |x: i32| x as f32),
        F32x4ConvertI32x4U => map(a, |x: u32| x as f32),
        I32x4TruncSatF64x2SZero => low_then_zero(a, num::i32_trunc_sat_f64_s),
        I32x4TruncSatF64x2UZero => low_then_zero(a, num::i32_trunc_sat_f64_u),
        F64x2ConvertLowI32x4S => widen(a, false, |x: i32| x as f64),
        F64x2ConvertLowI32x4U => widen(a, false, |x: u32| x as f64),
        F32x4DemoteF64x2Zero => low_then_zero(a, |x: f64| x as f32),
        F64x2PromoteLowF32x4 => widen(a, false, |x: f32| x as f64),
    }
}

/// Executes a `v128 v128 -> v128` operator; `a` is the first operand (pushed first), `b`
/// the second.
#[inline]
pub fn binary(op: SimdBinary, a: u128, b: u128) -> u128 {
    use SimdBinary::*;
    match op {
        V128And => a & b,
        V128AndNot => a & !b,
        V128Or => a | b,
        V128Xor => a ^ b,
        I8x16Swizzle => build(|i| {
            let j = lane::<u8>(b, i);
            if j < 16 { lane::<u8>(a, j as usize) } else { 0 }
        }),
        I8x16Eq => cmp(a, b, |x: u8, y| x == y),
        I8x16Ne => cmp(a, b, |x: u8, y| x != y),
        I8x16LtS => cmp(a, b, |x: i8, y| x < y),
        I8x16LtU => cmp(a, b, |x: u8, y| x < y),
        I8x16GtS => cmp(a, b, |x: i8, y| x > y),
        I8x16GtU => cmp(a, b, |x: u8, y| x > y),
        I8x16LeS => cmp(a, b, |x: i8, y| x <= y),
        I8x16LeU => cmp(a, b, |x: u8, y| x <= y),
        I8x16GeS => cmp(a, b, |x: i8, y| x >= y),
        I8x16GeU => cmp(a, b, |x: u8, y| x >= y),
        I16x8Eq => cmp(a, b, |x: u16, y| x == y),
        I16x8Ne => cmp(a, b, |x: u16, y| x != y),
        I16x8LtS => cmp(a, b, |x: i16, y| x < y),
        I16x8LtU => cmp(a, b, |x: u16, y| x < y),
        I16x8GtS => cmp(a, b, |x: i16, y| x > y),
        I16x8GtU => cmp(a, b, |x: u16, y| x > y),
        I16x8LeS => cmp(a, b, |x: i16, y| x <= y),
        I16x8LeU => cmp(a, b, |x: u16, y| x <= y),
        I16x8GeS => cmp(a, b, |x: i16, y| x >= y),
        I16x8GeU => cmp(a, b, |x: u16, y| x >= y),
        I32x4Eq => cmp(a, b, |x: u32, y| x == y),
        I32x4Ne => cmp(a, b, |x: u32, y| x != y),
        I32x4LtS => cmp(a, b, |x: i32, y| x < y),
        I32x4LtU => cmp(a, b, |x: u32, y| x < y),
        I32x4GtS => cmp(a, b, |x: i32, y| x > y),
        I32x4GtU => cmp(a, b, |x: u32, y| x > y),
        I32x4LeS => cmp(a, b, |x: i32, y| x <= y),
        I32x4LeU => cmp(a, b, |x: u32, y| x <= y),
        I32x4GeS => cmp(a, b, |x: i32, y| x >= y),
        I32x4GeU => cmp(a, b, |x: u32, y| x >= y),
        I64x2Eq => cmp(a, b, |x: u64, y| x == y),
        I64x2Ne => cmp(a, b, |x: u64, y| x != y),
        I64x2LtS => cmp(a, b, |x: i64, y| x < y),
        I64x2GtS => cmp(a, b, |x: i64, y| x > y),
        I64x2LeS => cmp(a, b, |x: i64, y| x <= y),
        I64x2GeS => cmp(a, b, |x: i64, y| x >= y),
        F32x4Eq => cmp(a, b, |x: f32, y| x == y),
        F32x4Ne => cmp(a, b, |x: f32, y| x != y),
        F32x4Lt => cmp(a, b, |x: f32, y| x < y),
        F32x4Gt => cmp(a, b, |x: f32, y| x > y),
        F32x4Le => cmp(a, b, |x: f32, y| x <= y),
        F32x4Ge => cmp(a, b, |x: f32, y| x >= y),
        F64x2Eq => cmp(a, b, |x: f64, y| x == y),
        F64x2Ne => cmp(a, b, |x: f64, y| x != y),
        F64x2Lt => cmp(a, b, |x: f64, y| x < y),
        F64x2Gt => cmp(a, b, |x: f64, y| x > y),
        F64x2Le => cmp(a, b, |x: f64, y| x <= y),
        F64x2Ge => cmp(a, b, |x: f64, y| x >= y),
        I8x16NarrowI16x8S => narrow(a, b, |x: i16| x.clamp(i8::MIN as i16, i8::MAX as i16) as i8),
        I8x16NarrowI16x8U => narrow(a, b, |x: i16| x.clamp(0, u8::MAX as i16) as u8),
        I16x8NarrowI32x4S => narrow(a, b, |x: i32| x.clamp(i16::MIN as i32, i16::MAX as i32) as i16),
        I16x8NarrowI32x4U => narrow(a, b, |x: i32| x.clamp(0, u16::MAX as i32) as u16),
        I8x16Add => zip(a, b, u8::wrapping_add),
        I8x16AddSatS => zip(a, b, i8::saturating_add),
        I8x16AddSatU => zip(a, b, u8::saturating_add),
        I8x16Sub => zip(a, b, u8::wrapping_sub),
        I8x16SubSatS => zip(a, b, i8::saturating_sub),
        I8x16SubSatU => zip(a, b, u8::saturating_sub),
        I8x16MinS => zip(a, b, |x: i8, y| x.min(y)),
        I8x16MinU => zip(a, b, |x: u8, y| x.min(y)),
        I8x16MaxS => zip(a, b, |x: i8, y| x.max(y)),
        I8x16MaxU => zip(a, b, |x: u8, y| x.max(y)),
        I8x16AvgrU => zip(a, b, |x: u8, y| ((x as u16 + y as u16 + 1) >> 1) as u8),
        I16x8Q15MulrSatS => zip(a, b, |x: i16, y: i16| {
            ((x as i32 * y as i32 + 0x4000) >> 15).clamp(i16::MIN as i32, i16::MAX as i32) as i16
        }),
        I16x8Add => zip(a, b, u16::wrapping_add),
        I16x8AddSatS => zip(a, b, i16::saturating_add),
        I16x8AddSatU => zip(a, b, u16::saturating_add),
        I16x8Sub => zip(a, b, u16::wrapping_sub),
        I16x8SubSatS => zip(a, b, i16::saturating_sub),
        I16x8SubSatU => zip(a, b, u16::saturating_sub),
        I16x8Mul => zip(a, b, u16::wrapping_mul),
        I16x8MinS => zip(a, b, |x: i16, y| x.min(y)),
        I16x8MinU => zip(a, b, |x: u16, y| x.min(y)),
        I16x8MaxS => zip(a, b, |x: i16, y| x.max(y)),
        I16x8MaxU => zip(a, b, |x: u16, y| x.max(y)),
        I16x8AvgrU => zip(a, b, |x: u16, y| ((x as u32 + y as u32 + 1) >> 1) as u16),
        I16x8ExtMulLowI8x16S => widen2(a, b, false, |x: i8, y| x as i16 * y as i16),
        I16x8ExtMulHighI8x16S => widen2(a, b, true, |x: i8, y| x as i16 * y as i16),
        I16x8ExtMulLowI8x16U => widen2(a, b, false, |x: u8, y| x as u16 * y as u16),
        I16x8ExtMulHighI8x16U => widen2(a, b, true, |x: u8, y| x as u16 * y as u16),
        I32x4Add => zip(a, b, u32::wrapping_add),
        I32x4Sub => zip(a, b, u32::wrapping_sub),
        I32x4Mul => zip(a, b, u32::wrapping_mul),
        I32x4MinS => zip(a, b, |x: i32, y| x.min(y)),
        I32x4MinU => zip(a, b, |x: u32, y| x.min(y)),
        I32x4MaxS => zip(a, b, |x: i32, y| x.max(y)),
        I32x4MaxU => zip(a, b, |x: u32, y| x.max(y)),
        I32x4DotI16x8S => {
            pairwise(a, b, |a0: i16, a1, b0, b1| (a0 as i32 * b0 as i32).wrapping_add(a1 as i32 * b1 as i32))
        }
        I32x4ExtMulLowI16x8S => widen2(a, b, false, |x: i16, y| x as i32 * y as i32),
        I32x4ExtMulHighI16x8S => widen2(a, b, true, |x: i16, y| x as i32 * y as i32),
        I32x4ExtMulLowI16x8U => widen2(a, b, false, |x: u16, y| x as u32 * y as u32),
        I32x4ExtMulHighI16x8U => widen2(a, b, true, |x: u16, y| x as u32 * y as u32),
        I64x2Add => zip(a, b, u64::wrapping_add),
        I64x2Sub => zip(a, b, u64::wrapping_sub),
        I64x2Mul => zip(a, b, u64::wrapping_mul),
        I64x2ExtMulLowI32x4S => widen2(a, b, false, |x: i32, y| x as i64 * y as i64),
        I64x2ExtMulHighI32x4S => widen2(a, b, true, |x: i32, y| x as i64 * y as i64),
        I64x2ExtMulLowI32x4U => widen2(a, b, false, |x: u32, y| x as u64 * y as u64),
        I64x2ExtMulHighI32x4U => widen2(a, b, true, |x: u32, y| x as u64 * y as u64),
        F32x4Add => zip(a, b, |x: f32, y| x + y),
        F32x4Sub => zip(a, b, |x: f32, y| x - y),
        F32x4Mul => zip(a, b, |x: f32, y| x * y),
        F32x4Div => zip(a, b, |x: f32, y| x / y),
        F32x4Min => zip(a, b, num::f32_min),
        F32x4Max => zip(a, b, num::f32_max),
        F32x4PMin => zip(a, b, |x: f32, y| if y < x { y } else { x }),
        F32x4PMax => zip(a, b, |x: f32, y| if x < y { y } else { x }),
        F64x2Add => zip(a, b, |x: f64, y| x + y),
        F64x2Sub => zip(a, b, |x: f64, y| x - y),
        F64x2Mul => zip(a, b, |x: f64, y| x * y),
        F64x2Div => zip(a, b, |x: f64, y| x / y),
        F64x2Min => zip(a, b, num::f64_min),
        F64x2Max => zip(a, b, num::f64_max),
        F64x2PMin => zip(a, b, |x: f64, y| if y < x { y } else { x }),
        F64x2PMax => zip(a, b, |x: f64, y| if x < y { y } else { x }),
    }
}

/// Executes a `v128 v128 v128 -> v128` operator (operands in push order).
#[inline]
pub fn ternary(op: SimdTernary, a: u128, b: u128, c: u128) -> u128 {
    match op {
        SimdTernary::V128Bitselect => (a & c) | (b & !c),
    }
}

/// Executes a shift of every lane of `a` by `count` modulo the lane width in bits (`count`
/// is the raw i32 operand, any value).
#[inline]
pub fn shift(op: SimdShift, a: u128, count: u32) -> u128 {
    use SimdShift::*;
    // `wrapping_shl/shr` reduce the count modulo the type's bit width, as the spec asks.
    match op {
        I8x16Shl => map(a, |x: u8| x.wrapping_shl(count)),
        I8x16ShrS => map(a, |x: i8| x.wrapping_shr(count)),
        I8x16ShrU => map(a, |x: u8| x.wrapping_shr(count)),
        I16x8Shl => map(a, |x: u16| x.wrapping_shl(count)),
        I16x8ShrS => map(a, |x: i16| x.wrapping_shr(count)),
        I16x8ShrU => map(a, |x: u16| x.wrapping_shr(count)),
        I32x4Shl => map(a, |x: u32| x.wrapping_shl(count)),
        I32x4ShrS => map(a, |x: i32| x.wrapping_shr(count)),
        I32x4ShrU => map(a, |x: u32| x.wrapping_shr(count)),
        I64x2Shl => map(a, |x: u64| x.wrapping_shl(count)),
        I64x2ShrS => map(a, |x: i64| x.wrapping_shr(count)),
        I64x2ShrU => map(a, |x: u64| x.wrapping_shr(count)),
    }
}

/// Executes a `v128 -> i32` test; the result is the i32 value (0/1 for the `*_true` tests,
/// a lane bit mask for `*.bitmask`).
#[inline]
pub fn test(op: SimdTest, a: u128) -> u32 {
    use SimdTest::*;
    match op {
        V128AnyTrue => (a != 0) as u32,
        I8x16AllTrue => all_true::<u8>(a),
        I8x16Bitmask => bitmask::<u8>(a),
        I16x8AllTrue => all_true::<u16>(a),
        I16x8Bitmask => bitmask::<u16>(a),
        I32x4AllTrue => all_true::<u32>(a),
        I32x4Bitmask => bitmask::<u32>(a),
        I64x2AllTrue => all_true::<u64>(a),
        I64x2Bitmask => bitmask::<u64>(a),
    }
}

/// Executes a splat: the low lane-width bits of `x` (raw scalar bits: i32 zero-extended,
/// f32 bits in the low 32) copied into every lane.
#[inline]
pub fn splat(op: SimdSplat, x: u64) -> u128 {
    use SimdSplat::*;
    let x = x as u128;
    match op {
        I8x16Splat => build(|_| u8::from_bits(x)),
        I16x8Splat => build(|_| u16::from_bits(x)),
        I32x4Splat | F32x4Splat => build(|_| u32::from_bits(x)),
        I64x2Splat | F64x2Splat => build(|_| u64::from_bits(x)),
    }
}

/// Reads lane `lane` of `a` as raw scalar bits: the `_s`/`_u` 8- and 16-bit forms are sign-
/// or zero-extended to i32, and every i32/f32 result is then zero-extended to `u64`; i64/f64
/// lanes are returned as is. `lane` must be below the lane count (validation guarantees it).
#[inline]
pub fn extract_lane(op: SimdExtract, a: u128, lane: u8) -> u64 {
    use SimdExtract::*;
    match op {
        I8x16ExtractLaneS => get_lane::<u8>(a, lane) as u8 as i8 as i32 as u32 as u64,
        I8x16ExtractLaneU => get_lane::<u8>(a, lane),
        I16x8ExtractLaneS => get_lane::<u16>(a, lane) as u16 as i16 as i32 as u32 as u64,
        I16x8ExtractLaneU => get_lane::<u16>(a, lane),
        I32x4ExtractLane | F32x4ExtractLane => get_lane::<u32>(a, lane),
        I64x2ExtractLane | F64x2ExtractLane => get_lane::<u64>(a, lane),
    }
}

/// Returns `a` with lane `lane` replaced by the low lane-width bits of `x` (raw scalar
/// bits). `lane` must be below the lane count (validation guarantees it).
#[inline]
pub fn replace_lane(op: SimdReplace, a: u128, x: u64, lane: u8) -> u128 {
    use SimdReplace::*;
    match op {
        I8x16ReplaceLane => set_lane::<u8>(a, lane, x),
        I16x8ReplaceLane => set_lane::<u16>(a, lane, x),
        I32x4ReplaceLane | F32x4ReplaceLane => set_lane::<u32>(a, lane, x),
        I64x2ReplaceLane | F64x2ReplaceLane => set_lane::<u64>(a, lane, x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    // ---- test-side vector builders (independent of the module's helpers) ----------------

    fn v8(l: [u8; 16]) -> u128 {
        u128::from_le_bytes(l)
    }
    fn v16(l: [i16; 8]) -> u128 {
        l.iter().rev().fold(0, |acc, &x| acc << 16 | x as u16 as u128)
    }
    fn v32(l: [i32; 4]) -> u128 {
        l.iter().rev().fold(0, |acc, &x| acc << 32 | x as u32 as u128)
    }
    fn v64(l: [i64; 2]) -> u128 {
        (l[1] as u64 as u128) << 64 | l[0] as u64 as u128
    }
    fn f32s(l: [f32; 4]) -> u128 {
        v32(l.map(|x| x.to_bits() as i32))
    }
    fn f64s(l: [f64; 2]) -> u128 {
        v64(l.map(|x| x.to_bits() as i64))
    }
    fn get_f32s(v: u128) -> [u32; 4] {
        core::array::from_fn(|i| (v >> (32 * i)) as u32)
    }
    fn get_f64s(v: u128) -> [u64; 2] {
        [v as u64, (v >> 64) as u64]
    }
    fn bin(op: SimdBinary, a: u128, b: u128) -> u128 {
        binary(op, a, b)
    }

    #[test]
    fn lane_order_is_little_endian() {
        // Lane 0 is the lowest byte: memory bytes 01 02 .. 10 read as u128 LE.
        let v = v8([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(v, 0x100f0e0d_0c0b0a09_08070605_04030201);
        assert_eq!(extract_lane(SimdExtract::I8x16ExtractLaneU, v, 0), 1);
        assert_eq!(extract_lane(SimdExtract::I16x8ExtractLaneU, v, 1), 0x0403);
        assert_eq!(extract_lane(SimdExtract::I32x4ExtractLane, v, 3), 0x100f0e0d);
        assert_eq!(extract_lane(SimdExtract::I64x2ExtractLane, v, 1), 0x100f0e0d_0c0b0a09);
        assert_eq!(v16([1, -1, 0, 0, 0, 0, 0, 0]), 0xffff_0001);
    }

    #[test]
    fn bitwise_ops() {
        let a = 0xff00_ff00_0000_0000_0000_0000_1234_5678u128;
        let b = 0x0ff0_0ff0_0000_0000_0000_0000_ffff_0000u128;
        assert_eq!(unary(SimdUnary::V128Not, 0), u128::MAX);
        assert_eq!(bin(SimdBinary::V128And, a, b), 0x0f00_0f00_0000_0000_0000_0000_1234_0000);
        assert_eq!(bin(SimdBinary::V128Or, a, b), 0xfff0_fff0_0000_0000_0000_0000_ffff_5678);
        assert_eq!(bin(SimdBinary::V128Xor, a, b), 0xf0f0_f0f0_0000_0000_0000_0000_edcb_5678);
        assert_eq!(bin(SimdBinary::V128AndNot, a, b), 0xf000_f000_0000_0000_0000_0000_0000_5678);
        // bitselect: bits of a where c = 1, of b where c = 0.
        let c = 0xffff_ffff_0000_0000_ffff_ffff_0000_0000u128;
        assert_eq!(ternary(SimdTernary::V128Bitselect, u128::MAX, 0, c), c);
        assert_eq!(ternary(SimdTernary::V128Bitselect, a, b, c), 0xff00_ff00_0000_0000_0000_0000_ffff_0000);
    }

    #[test]
    fn float_min_max_nan_and_zero() {
        // f32x4.min lanes: (-0, +0) -> -0; (+0, -0) -> -0; (NaN, 1) -> NaN; (1, 2) -> 1.
        let a = f32s([-0.0, 0.0, f32::NAN, 1.0]);
        let b = f32s([0.0, -0.0, 1.0, 2.0]);
        let r = get_f32s(bin(SimdBinary::F32x4Min, a, b));
        assert_eq!(r[0], 0x8000_0000);
        assert_eq!(r[1], 0x8000_0000);
        assert!(f32::from_bits(r[2]).is_nan());
        assert_eq!(r[3], 1.0f32.to_bits());
        // f32x4.max lanes: -> +0, +0, NaN, 2.
        let r = get_f32s(bin(SimdBinary::F32x4Max, a, b));
        assert_eq!([r[0], r[1], r[3]], [0, 0, 2.0f32.to_bits()]);
        assert!(f32::from_bits(r[2]).is_nan());
        // f64x2: min(1, NaN) = NaN; min(-0, +0) = -0; max(-0, +0) = +0.
        let r = get_f64s(bin(SimdBinary::F64x2Min, f64s([1.0, -0.0]), f64s([f64::NAN, 0.0])));
        assert!(f64::from_bits(r[0]).is_nan());
        assert_eq!(r[1], 0x8000_0000_0000_0000);
        let r = get_f64s(bin(SimdBinary::F64x2Max, f64s([1.0, -0.0]), f64s([f64::NAN, 0.0])));
        assert!(f64::from_bits(r[0]).is_nan());
        assert_eq!(r[1], 0);
    }

    #[test]
    fn float_pmin_pmax_no_nan_special_case() {
        // pmin(a, b) = b < a ? b : a. Lanes: (NaN, 1) -> 1 < NaN false -> a = NaN;
        // (1, NaN) -> NaN < 1 false -> a = 1; (-0, +0) -> a = -0; (+0, -0) -> a = +0.
        let a = f32s([f32::NAN, 1.0, -0.0, 0.0]);
        let b = f32s([1.0, f32::NAN, 0.0, -0.0]);
        let r = get_f32s(bin(SimdBinary::F32x4PMin, a, b));
        assert!(f32::from_bits(r[0]).is_nan());
        assert_eq!(&r[1..], &[1.0f32.to_bits(), 0x8000_0000, 0]);
        // pmax(a, b) = a < b ? b : a: same picks here (no lane has a < b).
        let r = get_f32s(bin(SimdBinary::F32x4PMax, a, b));
        assert!(f32::from_bits(r[0]).is_nan());
        assert_eq!(&r[1..], &[1.0f32.to_bits(), 0x8000_0000, 0]);
        // f64: pmin(3, 2) = 2, pmax(3, 4) = 4.
        assert_eq!(bin(SimdBinary::F64x2PMin, f64s([3.0, 3.0]), f64s([2.0, 4.0])), f64s([2.0, 3.0]));
        assert_eq!(bin(SimdBinary::F64x2PMax, f64s([3.0, 3.0]), f64s([2.0, 4.0])), f64s([3.0, 4.0]));
    }

    #[test]
    fn float_rounding_and_sign_lanes() {
        // nearest: 0.5 -> +0, -0.5 -> -0, 2.5 -> 2, -0.4 -> -0.
        let r = unary(SimdUnary::F32x4Nearest, f32s([0.5, -0.5, 2.5, -0.4]));
        assert_eq!(r, f32s([0.0, -0.0, 2.0, -0.0]));
        assert_eq!(unary(SimdUnary::F64x2Nearest, f64s([-1.5, 3.5])), f64s([-2.0, 4.0]));
        assert_eq!(unary(SimdUnary::F32x4Ceil, f32s([-0.5, 0.1, -1.5, 7.0])), f32s([-0.0, 1.0, -1.0, 7.0]));
        assert_eq!(unary(SimdUnary::F32x4Floor, f32s([-0.5, 0.1, -1.5, 7.0])), f32s([-1.0, 0.0, -2.0, 7.0]));
        assert_eq!(unary(SimdUnary::F32x4Trunc, f32s([-0.5, 0.9, -1.5, 7.0])), f32s([-0.0, 0.0, -1.0, 7.0]));
        assert_eq!(unary(SimdUnary::F64x2Ceil, f64s([-0.5, 1.1])), f64s([-0.0, 2.0]));
        assert_eq!(unary(SimdUnary::F64x2Floor, f64s([-0.5, 1.1])), f64s([-1.0, 1.0]));
        assert_eq!(unary(SimdUnary::F64x2Trunc, f64s([-0.5, 1.9])), f64s([-0.0, 1.0]));
        assert_eq!(unary(SimdUnary::F32x4Sqrt, f32s([4.0, 9.0, -0.0, 0.25])), f32s([2.0, 3.0, -0.0, 0.5]));
        assert_eq!(unary(SimdUnary::F64x2Sqrt, f64s([16.0, 0.0])), f64s([4.0, 0.0]));
        // abs/neg are bit ops: a signalling NaN's payload survives.
        let snan = 0x7f80_0001u32;
        let v = v32([snan as i32, 0xff80_0001u32 as i32, 0, i32::MIN]);
        assert_eq!(unary(SimdUnary::F32x4Abs, v), v32([snan as i32, snan as i32, 0, 0]));
        assert_eq!(unary(SimdUnary::F32x4Neg, v), v32([0xff80_0001u32 as i32, snan as i32, i32::MIN, 0]));
        assert_eq!(unary(SimdUnary::F64x2Neg, f64s([1.0, -0.0])), f64s([-1.0, 0.0]));
        assert_eq!(unary(SimdUnary::F64x2Abs, f64s([-1.0, -0.0])), f64s([1.0, 0.0]));
    }

    #[test]
    fn float_arith_and_compare() {
        let a = f32s([1.0, 6.0, 0.0, f32::NAN]);
        let b = f32s([2.0, 3.0, -0.0, 1.0]);
        // add: 1+2 = 3, 6+3 = 9, +0 + -0 = +0, NaN + 1 = NaN.
        let r = get_f32s(bin(SimdBinary::F32x4Add, a, b));
        assert_eq!(r[..3], [3.0f32.to_bits(), 9.0f32.to_bits(), 0]);
        assert!(f32::from_bits(r[3]).is_nan());
        // div: 1/2 = 0.5, 6/3 = 2, 0/-0 = NaN, NaN/1 = NaN.
        let r = get_f32s(bin(SimdBinary::F32x4Div, a, b));
        assert_eq!(r[..2], [0.5f32.to_bits(), 2.0f32.to_bits()]);
        assert!(f32::from_bits(r[2]).is_nan() && f32::from_bits(r[3]).is_nan());
        // Lane by lane: 1 vs 2, 6 vs 3, +0 vs -0 (equal), NaN vs 1 (unordered).
        assert_eq!(bin(SimdBinary::F32x4Eq, a, b), v32([0, 0, -1, 0]));
        assert_eq!(bin(SimdBinary::F32x4Ne, a, b), v32([-1, -1, 0, -1]));
        assert_eq!(bin(SimdBinary::F32x4Lt, a, b), v32([-1, 0, 0, 0]));
        assert_eq!(bin(SimdBinary::F32x4Gt, a, b), v32([0, -1, 0, 0]));
        assert_eq!(bin(SimdBinary::F32x4Le, a, b), v32([-1, 0, -1, 0]));
        assert_eq!(bin(SimdBinary::F32x4Ge, a, b), v32([0, -1, -1, 0]));
        let a = f64s([1.0, f64::NAN]);
        let b = f64s([1.0, f64::NAN]);
        assert_eq!(bin(SimdBinary::F64x2Eq, a, b), v64([-1, 0]));
        assert_eq!(bin(SimdBinary::F64x2Ne, a, b), v64([0, -1]));
        assert_eq!(bin(SimdBinary::F64x2Le, a, b), v64([-1, 0]));
        assert_eq!(bin(SimdBinary::F64x2Ge, a, b), v64([-1, 0]));
        assert_eq!(bin(SimdBinary::F64x2Lt, f64s([1.0, 2.0]), f64s([2.0, 1.0])), v64([-1, 0]));
        assert_eq!(bin(SimdBinary::F64x2Gt, f64s([1.0, 2.0]), f64s([2.0, 1.0])), v64([0, -1]));
        assert_eq!(bin(SimdBinary::F64x2Mul, f64s([1.5, -2.0]), f64s([2.0, 0.25])), f64s([3.0, -0.5]));
        assert_eq!(bin(SimdBinary::F64x2Sub, f64s([1.5, -2.0]), f64s([2.0, 0.25])), f64s([-0.5, -2.25]));
        assert_eq!(
            bin(SimdBinary::F32x4Mul, f32s([2.0; 4]), f32s([1.0, 2.0, 3.0, -4.0])),
            f32s([2.0, 4.0, 6.0, -8.0])
        );
        assert_eq!(
            bin(SimdBinary::F32x4Sub, f32s([2.0; 4]), f32s([1.0, 2.0, 3.0, -4.0])),
            f32s([1.0, 0.0, -1.0, 6.0])
        );
    }

    #[test]
    fn int_compare_signed_vs_unsigned() {
        // i8 lanes 0..3: a = 0x80 (-128 / 128), 0x7f, 0x01, 0xff (-1 / 255); b = 1 each.
        let mut al = [0u8; 16];
        al[..4].copy_from_slice(&[0x80, 0x7f, 1, 0xff]);
        let a = v8(al);
        let b = v8([1; 16]);
        // lt_s: -128<1 T, 127<1 F, 1<1 F, -1<1 T; lanes 4..16: 0<1 T.
        let mut want = [0xffu8; 16];
        want[..4].copy_from_slice(&[0xff, 0, 0, 0xff]);
        assert_eq!(bin(SimdBinary::I8x16LtS, a, b), v8(want));
        // lt_u: 128<1 F, 127<1 F, 1<1 F, 255<1 F, 0<1 T.
        want[..4].copy_from_slice(&[0, 0, 0, 0]);
        assert_eq!(bin(SimdBinary::I8x16LtU, a, b), v8(want));
        // ge_u: complement of lt_u.
        assert_eq!(bin(SimdBinary::I8x16GeU, a, b), !v8(want));
        // eq: only lane 2 (1 == 1).
        let mut eq = [0u8; 16];
        eq[2] = 0xff;
        assert_eq!(bin(SimdBinary::I8x16Eq, a, b), v8(eq));
        assert_eq!(bin(SimdBinary::I8x16Ne, a, b), !v8(eq));
        // gt_s: 127>1 only (lane 1); gt_u: 128, 127, 255 > 1 (lanes 0, 1, 3).
        let mut g = [0u8; 16];
        g[1] = 0xff;
        assert_eq!(bin(SimdBinary::I8x16GtS, a, b), v8(g));
        g[0] = 0xff;
        g[3] = 0xff;
        assert_eq!(bin(SimdBinary::I8x16GtU, a, b), v8(g));
        // i16: -1 vs 1: lt_s T, lt_u F; le_s T, le_u F; ge_s F, ge_u T, gt_s F, gt_u T.
        let a = v16([-1; 8]);
        let b = v16([1; 8]);
        assert_eq!(bin(SimdBinary::I16x8LtS, a, b), u128::MAX);
        assert_eq!(bin(SimdBinary::I16x8LtU, a, b), 0);
        assert_eq!(bin(SimdBinary::I16x8LeS, a, b), u128::MAX);
        assert_eq!(bin(SimdBinary::I16x8LeU, a, b), 0);
        assert_eq!(bin(SimdBinary::I16x8GeS, a, b), 0);
        assert_eq!(bin(SimdBinary::I16x8GeU, a, b), u128::MAX);
        assert_eq!(bin(SimdBinary::I16x8GtS, a, b), 0);
        assert_eq!(bin(SimdBinary::I16x8GtU, a, b), u128::MAX);
        assert_eq!(bin(SimdBinary::I16x8Eq, a, a), u128::MAX);
        assert_eq!(bin(SimdBinary::I16x8Ne, a, b), u128::MAX);
        // i8 le_s / le_u / ge_s on equal vectors: all true.
        assert_eq!(bin(SimdBinary::I8x16LeS, b, b), u128::MAX);
        assert_eq!(bin(SimdBinary::I8x16LeU, b, b), u128::MAX);
        assert_eq!(bin(SimdBinary::I8x16GeS, b, b), u128::MAX);
        // i32 lanes: (MIN, 0), (0, MIN), (5, 5), (-1, 1).
        let a = v32([i32::MIN, 0, 5, -1]);
        let b = v32([0, i32::MIN, 5, 1]);
        assert_eq!(bin(SimdBinary::I32x4Eq, a, b), v32([0, 0, -1, 0]));
        assert_eq!(bin(SimdBinary::I32x4Ne, a, b), v32([-1, -1, 0, -1]));
        assert_eq!(bin(SimdBinary::I32x4LtS, a, b), v32([-1, 0, 0, -1]));
        assert_eq!(bin(SimdBinary::I32x4LtU, a, b), v32([0, -1, 0, 0]));
        assert_eq!(bin(SimdBinary::I32x4GtS, a, b), v32([0, -1, 0, 0]));
        assert_eq!(bin(SimdBinary::I32x4GtU, a, b), v32([-1, 0, 0, -1]));
        assert_eq!(bin(SimdBinary::I32x4LeS, a, b), v32([-1, 0, -1, -1]));
        assert_eq!(bin(SimdBinary::I32x4LeU, a, b), v32([0, -1, -1, 0]));
        assert_eq!(bin(SimdBinary::I32x4GeS, a, b), v32([0, -1, -1, 0]));
        assert_eq!(bin(SimdBinary::I32x4GeU, a, b), v32([-1, 0, -1, -1]));
    }

    #[test]
    fn i64x2_compare_abs_all_true_bitmask() {
        // Lanes: (MIN, -1) and (7, 7).
        let a = v64([i64::MIN, 7]);
        let b = v64([-1, 7]);
        assert_eq!(bin(SimdBinary::I64x2Eq, a, b), v64([0, -1]));
        assert_eq!(bin(SimdBinary::I64x2Ne, a, b), v64([-1, 0]));
        assert_eq!(bin(SimdBinary::I64x2LtS, a, b), v64([-1, 0]));
        assert_eq!(bin(SimdBinary::I64x2GtS, a, b), v64([0, 0]));
        assert_eq!(bin(SimdBinary::I64x2LeS, a, b), v64([-1, -1]));
        assert_eq!(bin(SimdBinary::I64x2GeS, a, b), v64([0, -1]));
        // abs: MIN stays MIN, -5 -> 5.
        assert_eq!(unary(SimdUnary::I64x2Abs, v64([i64::MIN, -5])), v64([i64::MIN, 5]));
        assert_eq!(unary(SimdUnary::I64x2Neg, v64([i64::MIN, -5])), v64([i64::MIN, 5]));
        assert_eq!(test(SimdTest::I64x2AllTrue, v64([1, -1])), 1);
        assert_eq!(test(SimdTest::I64x2AllTrue, v64([0, -1])), 0);
        // bitmask: lane 0 = MIN (sign 1), lane 1 = 7 (sign 0) -> 0b01.
        assert_eq!(test(SimdTest::I64x2Bitmask, a), 0b01);
        assert_eq!(test(SimdTest::I64x2Bitmask, v64([1, -1])), 0b10);
    }

    #[test]
    fn abs_neg_of_min_stay_min() {
        let mut l = [0u8; 16];
        l[..3].copy_from_slice(&[0x80, 0xff, 0x05]); // -128, -1, 5
        assert_eq!(
            unary(SimdUnary::I8x16Abs, v8(l)),
            v8({
                let mut w = [0u8; 16];
                w[..3].copy_from_slice(&[0x80, 1, 5]);
                w
            })
        );
        assert_eq!(
            unary(SimdUnary::I8x16Neg, v8(l)),
            v8({
                let mut w = [0u8; 16];
                w[..3].copy_from_slice(&[0x80, 1, 0xfb]);
                w
            })
        );
        assert_eq!(
            unary(SimdUnary::I16x8Abs, v16([i16::MIN, -2, 3, 0, 0, 0, 0, 0])),
            v16([i16::MIN, 2, 3, 0, 0, 0, 0, 0])
        );
        assert_eq!(
            unary(SimdUnary::I16x8Neg, v16([i16::MIN, -2, 3, 0, 0, 0, 0, 0])),
            v16([i16::MIN, 2, -3, 0, 0, 0, 0, 0])
        );
        assert_eq!(unary(SimdUnary::I32x4Abs, v32([i32::MIN, -9, 9, 0])), v32([i32::MIN, 9, 9, 0]));
        assert_eq!(unary(SimdUnary::I32x4Neg, v32([i32::MIN, -9, 9, 0])), v32([i32::MIN, 9, -9, 0]));
    }

    #[test]
    fn popcnt() {
        // bytes 0x00 -> 0, 0xff -> 8, 0x0f -> 4, 0x81 -> 2, 0x55 -> 4, 0x01 -> 1, rest 0.
        let mut l = [0u8; 16];
        l[..6].copy_from_slice(&[0x00, 0xff, 0x0f, 0x81, 0x55, 0x01]);
        let mut w = [0u8; 16];
        w[..6].copy_from_slice(&[0, 8, 4, 2, 4, 1]);
        assert_eq!(unary(SimdUnary::I8x16Popcnt, v8(l)), v8(w));
    }

    #[test]
    fn saturating_add_sub() {
        // i8 lanes 0..4: a = 100, -100, 0x7f, 0; b = 100, -100, 1, 0.
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        a[..4].copy_from_slice(&[100, (-100i8) as u8, 0x7f, 0]);
        b[..4].copy_from_slice(&[100, (-100i8) as u8, 1, 0]);
        // add_sat_s: 200 -> 127, -200 -> -128, 128 -> 127, 0.
        let mut w = [0u8; 16];
        w[..4].copy_from_slice(&[0x7f, 0x80, 0x7f, 0]);
        assert_eq!(bin(SimdBinary::I8x16AddSatS, v8(a), v8(b)), v8(w));
        // add_sat_u: 200, 156+156=312 -> 255, 128, 0.
        w[..4].copy_from_slice(&[200, 255, 128, 0]);
        assert_eq!(bin(SimdBinary::I8x16AddSatU, v8(a), v8(b)), v8(w));
        // add (wrapping): 200 = 0xc8, 312 - 256 = 56, 128, 0.
        w[..4].copy_from_slice(&[200, 56, 128, 0]);
        assert_eq!(bin(SimdBinary::I8x16Add, v8(a), v8(b)), v8(w));
        // sub_sat_s of b - a: 0, 0, 1 - 127 = -126, 0. Then -128 - 1 saturates to -128.
        w[..4].copy_from_slice(&[0, 0, (-126i8) as u8, 0]);
        assert_eq!(bin(SimdBinary::I8x16SubSatS, v8(b), v8(a)), v8(w));
        assert_eq!(bin(SimdBinary::I8x16SubSatS, v8([0x80; 16]), v8([1; 16])), v8([0x80; 16]));
        // sub_sat_u: 1 - 127 -> 0; 5 - 3 = 2.
        assert_eq!(bin(SimdBinary::I8x16SubSatU, v8([1; 16]), v8([127; 16])), 0);
        assert_eq!(bin(SimdBinary::I8x16SubSatU, v8([5; 16]), v8([3; 16])), v8([2; 16]));
        assert_eq!(bin(SimdBinary::I8x16Sub, v8([1; 16]), v8([2; 16])), v8([0xff; 16]));
        // i16: 32767 + 1 -> 32767 (s), 65535 + 1 -> 65535 (u), -32768 - 1 -> -32768 (s),
        // 0 - 1 -> 0 (u).
        assert_eq!(bin(SimdBinary::I16x8AddSatS, v16([i16::MAX; 8]), v16([1; 8])), v16([i16::MAX; 8]));
        assert_eq!(bin(SimdBinary::I16x8AddSatU, v16([-1; 8]), v16([1; 8])), v16([-1; 8]));
        assert_eq!(bin(SimdBinary::I16x8SubSatS, v16([i16::MIN; 8]), v16([1; 8])), v16([i16::MIN; 8]));
        assert_eq!(bin(SimdBinary::I16x8SubSatU, v16([0; 8]), v16([1; 8])), 0);
        assert_eq!(bin(SimdBinary::I16x8Add, v16([i16::MAX; 8]), v16([1; 8])), v16([i16::MIN; 8]));
        assert_eq!(bin(SimdBinary::I16x8Sub, v16([i16::MIN; 8]), v16([1; 8])), v16([i16::MAX; 8]));
    }

    #[test]
    fn min_max_avgr_int() {
        // i8: a = -1 (0xff), b = 1: min_s -1, min_u 1, max_s 1, max_u 0xff.
        let a = v8([0xff; 16]);
        let b = v8([1; 16]);
        assert_eq!(bin(SimdBinary::I8x16MinS, a, b), a);
        assert_eq!(bin(SimdBinary::I8x16MinU, a, b), b);
        assert_eq!(bin(SimdBinary::I8x16MaxS, a, b), b);
        assert_eq!(bin(SimdBinary::I8x16MaxU, a, b), a);
        // avgr_u: (255 + 1 + 1) / 2 = 128 (no overflow), (2 + 3 + 1) / 2 = 3, (0 + 1 + 1) / 2 = 1.
        assert_eq!(bin(SimdBinary::I8x16AvgrU, a, b), v8([128; 16]));
        assert_eq!(bin(SimdBinary::I8x16AvgrU, v8([2; 16]), v8([3; 16])), v8([3; 16]));
        assert_eq!(bin(SimdBinary::I8x16AvgrU, v8([0; 16]), v8([1; 16])), v8([1; 16]));
        // i16 avgr_u: (65535 + 65535 + 1) / 2 = 65535; (0 + 65535 + 1) / 2 = 32768.
        assert_eq!(bin(SimdBinary::I16x8AvgrU, v16([-1; 8]), v16([-1; 8])), v16([-1; 8]));
        assert_eq!(bin(SimdBinary::I16x8AvgrU, v16([0; 8]), v16([-1; 8])), v16([i16::MIN; 8]));
        let a = v16([-1; 8]);
        let b = v16([1; 8]);
        assert_eq!(bin(SimdBinary::I16x8MinS, a, b), a);
        assert_eq!(bin(SimdBinary::I16x8MinU, a, b), b);
        assert_eq!(bin(SimdBinary::I16x8MaxS, a, b), b);
        assert_eq!(bin(SimdBinary::I16x8MaxU, a, b), a);
        let a = v32([-1; 4]);
        let b = v32([1; 4]);
        assert_eq!(bin(SimdBinary::I32x4MinS, a, b), a);
        assert_eq!(bin(SimdBinary::I32x4MinU, a, b), b);
        assert_eq!(bin(SimdBinary::I32x4MaxS, a, b), b);
        assert_eq!(bin(SimdBinary::I32x4MaxU, a, b), a);
    }

    #[test]
    fn mul_add_sub_wide_lanes() {
        // i16 mul wraps: 300 * 300 = 90000 = 0x15f90 -> 0x5f90 = 24464.
        assert_eq!(bin(SimdBinary::I16x8Mul, v16([300; 8]), v16([300; 8])), v16([24464; 8]));
        // i32 mul wraps: 0x10000 * 0x10000 = 2^32 -> 0; 3 * -4 = -12.
        assert_eq!(
            bin(SimdBinary::I32x4Mul, v32([0x10000, 3, 0, 0]), v32([0x10000, -4, 0, 0])),
            v32([0, -12, 0, 0])
        );
        assert_eq!(
            bin(SimdBinary::I32x4Add, v32([i32::MAX, 1, 2, 3]), v32([1; 4])),
            v32([i32::MIN, 2, 3, 4])
        );
        assert_eq!(
            bin(SimdBinary::I32x4Sub, v32([i32::MIN, 1, 2, 3]), v32([1; 4])),
            v32([i32::MAX, 0, 1, 2])
        );
        // i64: MAX + 1 = MIN; 2^32 * 2^32 = 2^64 -> 0; -3 * 5 = -15.
        assert_eq!(bin(SimdBinary::I64x2Add, v64([i64::MAX, 1]), v64([1, 1])), v64([i64::MIN, 2]));
        assert_eq!(bin(SimdBinary::I64x2Sub, v64([i64::MIN, 1]), v64([1, 3])), v64([i64::MAX, -2]));
        assert_eq!(bin(SimdBinary::I64x2Mul, v64([1 << 32, -3]), v64([1 << 32, 5])), v64([0, -15]));
    }

    #[test]
    fn narrow_saturates() {
        // a = [-129, -128, 127, 128, 0, 255, 256, -1], b = [1; 8].
        let a = v16([-129, -128, 127, 128, 0, 255, 256, -1]);
        let b = v16([1; 8]);
        // s: -129 -> -128, -128, 127, 128 -> 127, 0, 255 -> 127, 256 -> 127, -1; then b's 1s.
        let mut w = [1u8; 16];
        w[..8].copy_from_slice(&[0x80, 0x80, 0x7f, 0x7f, 0, 0x7f, 0x7f, 0xff]);
        assert_eq!(bin(SimdBinary::I8x16NarrowI16x8S, a, b), v8(w));
        // u (signed input): negatives -> 0, 127, 128, 0, 255, 256 -> 255, -1 -> 0.
        w[..8].copy_from_slice(&[0, 0, 127, 128, 0, 255, 255, 0]);
        assert_eq!(bin(SimdBinary::I8x16NarrowI16x8U, a, b), v8(w));
        // i32 -> i16: [-40000, 40000, 65535, -1] ++ [7, 8, 9, 10].
        let a = v32([-40000, 40000, 65535, -1]);
        let b = v32([7, 8, 9, 10]);
        assert_eq!(
            bin(SimdBinary::I16x8NarrowI32x4S, a, b),
            v16([i16::MIN, i16::MAX, i16::MAX, -1, 7, 8, 9, 10])
        );
        // u: -40000 -> 0, 40000, 65535 -> 0xffff, -1 -> 0.
        assert_eq!(bin(SimdBinary::I16x8NarrowI32x4U, a, b), v16([0, 40000u16 as i16, -1, 0, 7, 8, 9, 10]));
    }

    #[test]
    fn q15mulr_sat() {
        // 0x8000 * 0x8000 = (-32768)^2 = 2^30; (2^30 + 2^14) >> 15 = 32768 -> saturates 0x7fff.
        // 0x4000 * 0x4000 = 2^28; (2^28 + 2^14) >> 15 = 8192 (0.5 * 0.5 = 0.25).
        // -0x4000 * 0x4000 = -2^28; (-2^28 + 2^14) >> 15 = -8192 (arith shift of -268419072).
        // 1 * 1 = 1; (1 + 16384) >> 15 = 0. 0x7fff * 0x7fff = 1073676289; +16384 >> 15 = 32766.
        // -32768 * 32767 = -1073709056; +16384 = -1073692672; >> 15 = -32767.5 floor -> -32767.
        // 3 * -5461 = -16383; +16384 = 1 >> 15 = 0. 3 * -5462 = -16386; -2 >> 15 = -1.
        let a = v16([i16::MIN, 0x4000, -0x4000, 1, 0x7fff, i16::MIN, 3, 3]);
        let b = v16([i16::MIN, 0x4000, 0x4000, 1, 0x7fff, 0x7fff, -5461, -5462]);
        assert_eq!(
            bin(SimdBinary::I16x8Q15MulrSatS, a, b),
            v16([0x7fff, 8192, -8192, 0, 32766, -32767, 0, -1])
        );
    }

    #[test]
    fn dot_product() {
        // a = [1, 2, 3, 4, -5, 6, MIN, MIN], b = [7, 8, 9, 10, 11, -12, MIN, MIN]
        // r0 = 1*7 + 2*8 = 23; r1 = 3*9 + 4*10 = 67; r2 = -55 + -72 = -127;
        // r3 = 2^30 + 2^30 = 2^31 -> wraps to i32::MIN.
        let a = v16([1, 2, 3, 4, -5, 6, i16::MIN, i16::MIN]);
        let b = v16([7, 8, 9, 10, 11, -12, i16::MIN, i16::MIN]);
        assert_eq!(bin(SimdBinary::I32x4DotI16x8S, a, b), v32([23, 67, -127, i32::MIN]));
    }

    #[test]
    fn extmul() {
        // i8 lanes: a[i] = -2 (0xfe) for low 8, 3 for high 8; b = 0xff (-1 / 255) all.
        let mut al = [0xfeu8; 16];
        al[8..].copy_from_slice(&[3; 8]);
        let a = v8(al);
        let b = v8([0xff; 16]);
        // low_s: -2 * -1 = 2; high_s: 3 * -1 = -3; low_u: 254 * 255 = 64770; high_u: 765.
        assert_eq!(bin(SimdBinary::I16x8ExtMulLowI8x16S, a, b), v16([2; 8]));
        assert_eq!(bin(SimdBinary::I16x8ExtMulHighI8x16S, a, b), v16([-3; 8]));
        assert_eq!(bin(SimdBinary::I16x8ExtMulLowI8x16U, a, b), v16([64770u16 as i16; 8]));
        assert_eq!(bin(SimdBinary::I16x8ExtMulHighI8x16U, a, b), v16([765; 8]));
        // i16 lanes: a = [-2, -2, -2, -2, 3, 3, 3, 3], b = all -1 (0xffff).
        let a = v16([-2, -2, -2, -2, 3, 3, 3, 3]);
        let b = v16([-1; 8]);
        assert_eq!(bin(SimdBinary::I32x4ExtMulLowI16x8S, a, b), v32([2; 4]));
        assert_eq!(bin(SimdBinary::I32x4ExtMulHighI16x8S, a, b), v32([-3; 4]));
        // 65534 * 65535 = 4294770690 = 0xfffd0002; 3 * 65535 = 196605.
        assert_eq!(bin(SimdBinary::I32x4ExtMulLowI16x8U, a, b), v32([0xfffd_0002u32 as i32; 4]));
        assert_eq!(bin(SimdBinary::I32x4ExtMulHighI16x8U, a, b), v32([196605; 4]));
        // i32 lanes: a = [-2, -2, MIN, 3], b = [-1, -1, MIN, -1].
        let a = v32([-2, -2, i32::MIN, 3]);
        let b = v32([-1, -1, i32::MIN, -1]);
        assert_eq!(bin(SimdBinary::I64x2ExtMulLowI32x4S, a, b), v64([2, 2]));
        // high_s: MIN * MIN = 2^62; 3 * -1 = -3.
        assert_eq!(bin(SimdBinary::I64x2ExtMulHighI32x4S, a, b), v64([1 << 62, -3]));
        // low_u: 0xfffffffe * 0xffffffff = 0xfffffffd_00000002.
        assert_eq!(bin(SimdBinary::I64x2ExtMulLowI32x4U, a, b), v64([0xffff_fffd_0000_0002u64 as i64; 2]));
        // high_u: 2^31 * 2^31 = 2^62; 3 * 0xffffffff = 0x2_ffff_fffd.
        assert_eq!(bin(SimdBinary::I64x2ExtMulHighI32x4U, a, b), v64([1 << 62, 0x2_ffff_fffd]));
    }

    #[test]
    fn extend_and_extadd_pairwise() {
        // bytes: lanes 0..8 = 0x80, lanes 8..16 = 0x7f.
        let mut l = [0x80u8; 16];
        l[8..].copy_from_slice(&[0x7f; 8]);
        let a = v8(l);
        assert_eq!(unary(SimdUnary::I16x8ExtendLowI8x16S, a), v16([-128; 8]));
        assert_eq!(unary(SimdUnary::I16x8ExtendLowI8x16U, a), v16([128; 8]));
        assert_eq!(unary(SimdUnary::I16x8ExtendHighI8x16S, a), v16([127; 8]));
        assert_eq!(unary(SimdUnary::I16x8ExtendHighI8x16U, a), v16([127; 8]));
        // pairwise: low pairs 0x80+0x80: s -256, u 256; high pairs 127+127 = 254.
        assert_eq!(
            unary(SimdUnary::I16x8ExtAddPairwiseI8x16S, a),
            v16([-256, -256, -256, -256, 254, 254, 254, 254])
        );
        assert_eq!(
            unary(SimdUnary::I16x8ExtAddPairwiseI8x16U, a),
            v16([256, 256, 256, 256, 254, 254, 254, 254])
        );
        let a = v16([-1, -1, 2, 3, i16::MIN, i16::MIN, -1, 5]);
        assert_eq!(unary(SimdUnary::I32x4ExtendLowI16x8S, a), v32([-1, -1, 2, 3]));
        assert_eq!(unary(SimdUnary::I32x4ExtendLowI16x8U, a), v32([65535, 65535, 2, 3]));
        assert_eq!(unary(SimdUnary::I32x4ExtendHighI16x8S, a), v32([-32768, -32768, -1, 5]));
        assert_eq!(unary(SimdUnary::I32x4ExtendHighI16x8U, a), v32([32768, 32768, 65535, 5]));
        // pairs: (-1,-1) s -2 u 131070; (2,3) 5; (MIN,MIN) s -65536 u 65536; (-1,5) s 4 u 65540.
        assert_eq!(unary(SimdUnary::I32x4ExtAddPairwiseI16x8S, a), v32([-2, 5, -65536, 4]));
        assert_eq!(unary(SimdUnary::I32x4ExtAddPairwiseI16x8U, a), v32([131070, 5, 65536, 65540]));
        let a = v32([-1, 2, i32::MIN, 7]);
        assert_eq!(unary(SimdUnary::I64x2ExtendLowI32x4S, a), v64([-1, 2]));
        assert_eq!(unary(SimdUnary::I64x2ExtendLowI32x4U, a), v64([0xffff_ffff, 2]));
        assert_eq!(unary(SimdUnary::I64x2ExtendHighI32x4S, a), v64([i32::MIN as i64, 7]));
        assert_eq!(unary(SimdUnary::I64x2ExtendHighI32x4U, a), v64([0x8000_0000, 7]));
    }

    #[test]
    fn shifts_modulo_lane_width() {
        let a = v8([0x81; 16]);
        // count 9 % 8 = 1: shl 0x81 -> 0x02; shr_s -> 0xc0; shr_u -> 0x40.
        assert_eq!(shift(SimdShift::I8x16Shl, a, 9), v8([0x02; 16]));
        assert_eq!(shift(SimdShift::I8x16ShrS, a, 9), v8([0xc0; 16]));
        assert_eq!(shift(SimdShift::I8x16ShrU, a, 9), v8([0x40; 16]));
        assert_eq!(shift(SimdShift::I8x16Shl, a, 8), a); // 8 % 8 = 0
        let a = v16([i16::MIN; 8]);
        // 0x8000: shl by 17 % 16 = 1 -> 0; shr_s 15 -> -1; shr_u 15 -> 1.
        assert_eq!(shift(SimdShift::I16x8Shl, a, 17), 0);
        assert_eq!(shift(SimdShift::I16x8ShrS, a, 15), v16([-1; 8]));
        assert_eq!(shift(SimdShift::I16x8ShrU, a, 15), v16([1; 8]));
        let a = v32([-16, 16, 1, i32::MIN]);
        // count 34 % 32 = 2: shl: -64, 64, 4, 0; shr_s: -4, 4, 0, MIN/4; shr_u: 0x3ffffffc, 4, 0, 2^29.
        assert_eq!(shift(SimdShift::I32x4Shl, a, 34), v32([-64, 64, 4, 0]));
        assert_eq!(shift(SimdShift::I32x4ShrS, a, 34), v32([-4, 4, 0, -(1 << 29)]));
        assert_eq!(shift(SimdShift::I32x4ShrU, a, 34), v32([0x3fff_fffc, 4, 0, 1 << 29]));
        let a = v64([-2, 3]);
        // count 65 % 64 = 1; u32::MAX % 64 = 63.
        assert_eq!(shift(SimdShift::I64x2Shl, a, 65), v64([-4, 6]));
        assert_eq!(shift(SimdShift::I64x2ShrS, a, 65), v64([-1, 1]));
        assert_eq!(shift(SimdShift::I64x2ShrU, a, 65), v64([i64::MAX, 1]));
        assert_eq!(shift(SimdShift::I64x2ShrU, a, u32::MAX), v64([1, 0]));
    }

    #[test]
    fn tests_any_all_bitmask() {
        assert_eq!(test(SimdTest::V128AnyTrue, 0), 0);
        assert_eq!(test(SimdTest::V128AnyTrue, 1 << 127), 1);
        // all_true: one zero byte at lane 15 makes i8x16 false but i16x8 still true
        // (lane 7 = 0x00ff is non-zero).
        let mut l = [0xffu8; 16];
        l[15] = 0;
        let v = v8(l);
        assert_eq!(test(SimdTest::I8x16AllTrue, v), 0);
        assert_eq!(test(SimdTest::I16x8AllTrue, v), 1);
        assert_eq!(test(SimdTest::I8x16AllTrue, v8([1; 16])), 1);
        assert_eq!(test(SimdTest::I16x8AllTrue, v16([1, 1, 1, 1, 1, 1, 0, 1])), 0);
        assert_eq!(test(SimdTest::I32x4AllTrue, v32([1, 1, 1, 0])), 0);
        assert_eq!(test(SimdTest::I32x4AllTrue, v32([1, -1, 1 << 16, 1 << 31])), 1);
        // bitmask i8x16: sign bits of bytes -> bit i. Bytes 0x80 at lanes 0, 3, 15.
        let mut l = [0x7fu8; 16];
        l[0] = 0x80;
        l[3] = 0xff;
        l[15] = 0x80;
        assert_eq!(test(SimdTest::I8x16Bitmask, v8(l)), 0b1000_0000_0000_1001);
        assert_eq!(test(SimdTest::I16x8Bitmask, v16([-1, 1, -1, 1, 0, 0, 0, i16::MIN])), 0b1000_0101);
        assert_eq!(test(SimdTest::I32x4Bitmask, v32([1, -1, 0, -5])), 0b1010);
    }

    #[test]
    fn swizzle() {
        // a = bytes 0x10..0x1f; indices b = [0, 15, 16, 255, 3, 0x80, 1, 1, 2, 2, 17, 14, 5, 6, 7, 8].
        let a = v8(core::array::from_fn(|i| 0x10 + i as u8));
        let b = v8([0, 15, 16, 255, 3, 0x80, 1, 1, 2, 2, 17, 14, 5, 6, 7, 8]);
        // index >= 16 (16, 255, 0x80, 17) gives 0.
        let want = v8([0x10, 0x1f, 0, 0, 0x13, 0, 0x11, 0x11, 0x12, 0x12, 0, 0x1e, 0x15, 0x16, 0x17, 0x18]);
        assert_eq!(bin(SimdBinary::I8x16Swizzle, a, b), want);
    }

    #[test]
    fn conversions() {
        // trunc_sat f32 -> i32: NaN -> 0, 3e9 -> MAX, -3e9 -> MIN, -1.9 -> -1.
        let a = f32s([f32::NAN, 3e9, -3e9, -1.9]);
        assert_eq!(unary(SimdUnary::I32x4TruncSatF32x4S, a), v32([0, i32::MAX, i32::MIN, -1]));
        // u: NaN -> 0, 3e9 -> 3000000000, -3e9 -> 0, -1.9 -> 0.
        assert_eq!(unary(SimdUnary::I32x4TruncSatF32x4U, a), v32([0, 3_000_000_000u32 as i32, 0, 0]));
        // f64 -> i32 _zero: lanes 2, 3 are zero.
        let a = f64s([-2147483648.9, 1e10]);
        assert_eq!(unary(SimdUnary::I32x4TruncSatF64x2SZero, a), v32([i32::MIN, i32::MAX, 0, 0]));
        assert_eq!(unary(SimdUnary::I32x4TruncSatF64x2UZero, a), v32([0, -1, 0, 0]));
        // convert i32 -> f32: 16777217 ties to even 16777216; as u32, -1 = 4294967295 -> 2^32.
        let a = v32([16777217, -1, 3, i32::MIN]);
        assert_eq!(unary(SimdUnary::F32x4ConvertI32x4S, a), f32s([16777216.0, -1.0, 3.0, -2147483648.0]));
        assert_eq!(
            unary(SimdUnary::F32x4ConvertI32x4U, a),
            f32s([16777216.0, 4294967296.0, 3.0, 2147483648.0])
        );
        // convert_low: only lanes 0, 1.
        assert_eq!(unary(SimdUnary::F64x2ConvertLowI32x4S, a), f64s([16777217.0, -1.0]));
        assert_eq!(unary(SimdUnary::F64x2ConvertLowI32x4U, a), f64s([16777217.0, 4294967295.0]));
    }

    #[test]
    fn demote_and_promote() {
        // demote lanes: 1.5 exact; 1e300 -> +inf; lanes 2, 3 are +0.0.
        let r = unary(SimdUnary::F32x4DemoteF64x2Zero, f64s([1.5, 1e300]));
        assert_eq!(r, f32s([1.5, f32::INFINITY, 0.0, 0.0]));
        // 1 + 2^-24 is the tie between 1 and 1 + 2^-23: to even (1.0). -0 stays -0.
        let r = unary(SimdUnary::F32x4DemoteF64x2Zero, f64s([f64::from_bits(0x3ff0_0000_1000_0000), -0.0]));
        assert_eq!(r, f32s([1.0, -0.0, 0.0, 0.0]));
        // NaN stays NaN.
        let r = unary(SimdUnary::F32x4DemoteF64x2Zero, f64s([f64::NAN, 0.0]));
        assert!(f32::from_bits(r as u32).is_nan());
        // promote: lanes 0, 1 of the f32x4, exact; lanes 2, 3 ignored.
        let r = unary(SimdUnary::F64x2PromoteLowF32x4, f32s([0.1, -0.0, 5.0, 6.0]));
        assert_eq!(r, f64s([0.1f32 as f64, -0.0]));
        assert_eq!(get_f64s(r)[0], 0x3fb9_9999_a000_0000); // 0.1f32 = 0x3dcccccd widened
    }

    #[test]
    fn splat_extract_replace() {
        // splat truncates to the lane width: 0x1234_5678 as i8 lanes -> 0x78 each.
        assert_eq!(splat(SimdSplat::I8x16Splat, 0x1234_5678), v8([0x78; 16]));
        assert_eq!(splat(SimdSplat::I16x8Splat, 0x1234_5678), v16([0x5678; 8]));
        assert_eq!(splat(SimdSplat::I32x4Splat, 0xdead_beef), v32([0xdead_beefu32 as i32; 4]));
        assert_eq!(splat(SimdSplat::I64x2Splat, u64::MAX), u128::MAX);
        assert_eq!(splat(SimdSplat::F32x4Splat, 1.5f32.to_bits() as u64), f32s([1.5; 4]));
        assert_eq!(splat(SimdSplat::F64x2Splat, (-2.0f64).to_bits()), f64s([-2.0; 2]));
        // extract_lane_s/u: byte 0xf0 at lane 5 -> s: -16 as i32 = 0xfffffff0 (zero-extended
        // to u64), u: 0xf0.
        let mut l = [0u8; 16];
        l[5] = 0xf0;
        let v = v8(l);
        assert_eq!(extract_lane(SimdExtract::I8x16ExtractLaneS, v, 5), 0xffff_fff0);
        assert_eq!(extract_lane(SimdExtract::I8x16ExtractLaneU, v, 5), 0xf0);
        let v = v16([0, 0, 0, -2, 0, 0, 0, 0]);
        assert_eq!(extract_lane(SimdExtract::I16x8ExtractLaneS, v, 3), 0xffff_fffe);
        assert_eq!(extract_lane(SimdExtract::I16x8ExtractLaneU, v, 3), 0xfffe);
        let v = f32s([0.0, 0.0, -1.0, 0.0]);
        assert_eq!(extract_lane(SimdExtract::F32x4ExtractLane, v, 2), 0xbf80_0000);
        assert_eq!(extract_lane(SimdExtract::I32x4ExtractLane, v, 2), 0xbf80_0000);
        let v = f64s([0.0, -1.0]);
        assert_eq!(extract_lane(SimdExtract::F64x2ExtractLane, v, 1), 0xbff0_0000_0000_0000);
        assert_eq!(extract_lane(SimdExtract::I64x2ExtractLane, v, 0), 0);
        // replace_lane keeps other lanes and truncates the scalar.
        let base = u128::MAX;
        let mut w = [0xffu8; 16];
        w[7] = 0x34;
        assert_eq!(replace_lane(SimdReplace::I8x16ReplaceLane, base, 0x1234, 7), v8(w));
        assert_eq!(
            replace_lane(SimdReplace::I16x8ReplaceLane, base, 0x1_0002, 0),
            v16([2, -1, -1, -1, -1, -1, -1, -1])
        );
        assert_eq!(replace_lane(SimdReplace::I32x4ReplaceLane, base, 5, 3), v32([-1, -1, -1, 5]));
        assert_eq!(
            replace_lane(SimdReplace::F32x4ReplaceLane, 0, 2.0f32.to_bits() as u64, 1),
            f32s([0.0, 2.0, 0.0, 0.0])
        );
        assert_eq!(replace_lane(SimdReplace::I64x2ReplaceLane, base, 9, 1), v64([-1, 9]));
        assert_eq!(replace_lane(SimdReplace::F64x2ReplaceLane, 0, 3.0f64.to_bits(), 0), f64s([3.0, 0.0]));
    }

    #[test]
    fn load_transforms() {
        use SimdLoad::*;
        // memory bytes 80 01 ff 7f 00 02 fe 03 read little-endian:
        let raw = u64::from_le_bytes([0x80, 0x01, 0xff, 0x7f, 0x00, 0x02, 0xfe, 0x03]);
        assert_eq!(load_transform(V128Load8x8S, raw), v16([-128, 1, -1, 127, 0, 2, -2, 3]));
        assert_eq!(load_transform(V128Load8x8U, raw), v16([128, 1, 255, 127, 0, 2, 254, 3]));
        // i16 lanes: 0x0180, 0x7fff, 0x0200, 0x03fe.
        assert_eq!(load_transform(V128Load16x4S, raw), v32([0x0180, 0x7fff, 0x0200, 0x03fe]));
        let raw2 = u64::from_le_bytes([0x00, 0x80, 0xff, 0xff, 1, 0, 0, 0]);
        assert_eq!(load_transform(V128Load16x4S, raw2), v32([-32768, -1, 1, 0]));
        assert_eq!(load_transform(V128Load16x4U, raw2), v32([32768, 65535, 1, 0]));
        // i32 lanes: 0xffff8000, 1.
        assert_eq!(load_transform(V128Load32x2S, raw2), v64([-32768, 1]));
        assert_eq!(load_transform(V128Load32x2U, raw2), v64([0xffff_8000, 1]));
        assert_eq!(load_transform(V128Load8Splat, 0xab), v8([0xab; 16]));
        assert_eq!(load_transform(V128Load16Splat, 0xabcd), v16([0xabcdu16 as i16; 8]));
        assert_eq!(load_transform(V128Load32Splat, 0x0102_0304), v32([0x0102_0304; 4]));
        assert_eq!(load_transform(V128Load64Splat, raw), v64([raw as i64; 2]));
        assert_eq!(load_transform(V128Load32Zero, 0xdead_beef), 0xdead_beef);
        assert_eq!(load_transform(V128Load64Zero, u64::MAX), u64::MAX as u128);
        let widths: Vec<u32> = SimdLoad::ALL.iter().map(|k| k.width()).collect();
        assert_eq!(widths, [8, 8, 8, 8, 8, 8, 1, 2, 4, 8, 4, 8]);
    }

    // ---- completeness against wasmparser's operator list -----------------------------

    /// A placeholder immediate of each type that SIMD operators carry.
    trait Dummy {
        fn dummy() -> Self;
    }
    impl Dummy for u8 {
        fn dummy() -> Self {
            1
        }
    }
    impl Dummy for [u8; 16] {
        fn dummy() -> Self {
            [0; 16]
        }
    }
    impl Dummy for wasmparser::V128 {
        fn dummy() -> Self {
            0u128.into()
        }
    }
    impl Dummy for MemArg {
        fn dummy() -> Self {
            MemArg {
                align: 0,
                max_align: 4,
                offset: 7,
                target: wasmparser::MemArgTarget::Memory(0),
                ordering: None,
            }
        }
    }

    /// Every SIMD and relaxed-SIMD operator wasmparser knows, with its proposal and name.
    fn all_simd_operators() -> Vec<(&'static str, &'static str, Operator<'static>)> {
        macro_rules! collect {
            ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* })? => $visit:ident ($($ann:tt)*))*) => {
                alloc::vec![$(
                    (stringify!($proposal), stringify!($op), Operator::$op $({ $($arg: <$argty as Dummy>::dummy()),* })?),
                )*]
            };
        }
        wasmparser::for_each_visit_simd_operator!(collect)
    }

    /// Operators the interpreter executes itself (not classified here).
    fn interpreter_own(op: &Operator<'_>) -> bool {
        matches!(
            op,
            Operator::V128Load { .. }
                | Operator::V128Store { .. }
                | Operator::V128Const { .. }
                | Operator::I8x16Shuffle { .. }
                | Operator::V128Load8Lane { .. }
                | Operator::V128Load16Lane { .. }
                | Operator::V128Load32Lane { .. }
                | Operator::V128Load64Lane { .. }
                | Operator::V128Store8Lane { .. }
                | Operator::V128Store16Lane { .. }
                | Operator::V128Store32Lane { .. }
                | Operator::V128Store64Lane { .. }
        )
    }

    #[test]
    fn classification_covers_every_simd_operator_exactly_once() {
        let ops = all_simd_operators();
        let (mut n_simd, mut n_classify, mut n_load, mut n_own, mut n_relaxed) = (0, 0, 0, 0, 0);
        for (proposal, name, op) in &ops {
            let c = classify(op);
            let l = classify_load(op);
            let own = interpreter_own(op);
            match *proposal {
                "simd" => {
                    n_simd += 1;
                    let hits = c.is_some() as u32 + l.is_some() as u32 + own as u32;
                    assert_eq!(hits, 1, "{name} must be covered exactly once");
                    n_classify += c.is_some() as u32;
                    n_load += l.is_some() as u32;
                    n_own += own as u32;
                    // The classified kind carries the same name as the operator.
                    if let Some(k) = c {
                        let dbg = alloc::format!("{k:?}");
                        assert!(dbg.contains(&alloc::format!("({name}")), "{name} classified as {dbg}");
                    }
                    if let Some((k, m)) = l {
                        assert_eq!(alloc::format!("{k:?}"), *name);
                        assert_eq!(m.offset, 7);
                    }
                }
                "relaxed_simd" => {
                    n_relaxed += 1;
                    assert!(c.is_none() && l.is_none() && !own, "relaxed {name} must not be handled");
                }
                other => panic!("unexpected proposal {other}"),
            }
        }
        // Lane immediates come through.
        assert_eq!(
            classify(&Operator::I16x8ExtractLaneS { lane: 5 }),
            Some(SimdOp::ExtractLane(SimdExtract::I16x8ExtractLaneS, 5))
        );
        assert_eq!(
            classify(&Operator::F64x2ReplaceLane { lane: 1 }),
            Some(SimdOp::ReplaceLane(SimdReplace::F64x2ReplaceLane, 1))
        );
        assert_eq!(n_classify, 212);
        assert_eq!(n_load, 12);
        assert_eq!(n_own, 12);
        assert_eq!(n_simd, n_classify + n_load + n_own);
        assert_eq!(n_relaxed, 20);
        // The variant lists have no extras either.
        let declared = SimdUnary::ALL.len()
            + SimdBinary::ALL.len()
            + SimdTernary::ALL.len()
            + SimdShift::ALL.len()
            + SimdTest::ALL.len()
            + SimdSplat::ALL.len()
            + SimdExtract::ALL.len()
            + SimdReplace::ALL.len();
        assert_eq!(declared, 212);
        assert_eq!(SimdLoad::ALL.len(), 12);
    }

    #[test]
    fn non_simd_operators_are_not_classified() {
        for op in [Operator::Nop, Operator::I32Add, Operator::F32Min, Operator::I64Popcnt, Operator::Drop] {
            assert_eq!(classify(&op), None);
            assert!(classify_load(&op).is_none());
        }
    }

    #[test]
    fn every_operator_runs_without_panicking() {
        // Debug builds panic on arithmetic overflow; run every kind over awkward inputs.
        let vals = [
            0u128,
            u128::MAX,
            0x8000_0000_0000_0000_8000_0000_0000_0000,
            0x7fff_ffff_ffff_ffff_7fff_ffff_ffff_ffff,
            0x8080_8080_8080_8080_8080_8080_8080_8080,
            0x7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f,
            0x8000_8000_8000_8000_8000_8000_8000_8000,
            0x7fc0_0000_ff80_0000_7ff8_0000_0000_0001,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ];
        let mut sink = 0u128;
        for &a in &vals {
            for &k in SimdUnary::ALL {
                sink ^= unary(k, a);
            }
            for &k in SimdTest::ALL {
                sink ^= test(k, a) as u128;
            }
            for &k in SimdShift::ALL {
                for c in [0, 1, 7, 8, 15, 31, 63, 64, 127, 128, u32::MAX] {
                    sink ^= shift(k, a, c);
                }
            }
            for &k in SimdExtract::ALL {
                for lane in 0..2 {
                    sink ^= extract_lane(k, a, lane) as u128;
                }
            }
            for &k in SimdReplace::ALL {
                sink ^= replace_lane(k, a, a as u64, 1);
            }
            for &k in SimdSplat::ALL {
                sink ^= splat(k, a as u64);
            }
            for &k in SimdLoad::ALL {
                sink ^= load_transform(k, a as u64);
            }
            for &b in &vals {
                for &k in SimdBinary::ALL {
                    sink ^= binary(k, a, b);
                }
                for &k in SimdTernary::ALL {
                    sink ^= ternary(k, a, b, a ^ b);
                }
            }
        }
        let _ = sink;
    }
}
