//! Value semantics of the fixed-width SIMD instructions (`v128`) of WebAssembly 2.0.
//!
//! Source: WebAssembly Core Specification 2.0, section 4.4.3 "Vector Instructions" (execution)
//! and section 4.3 "Numerics" (the lane-wise scalar operators it lifts), plus the binary
//! opcodes of section 5.4.8. Relaxed SIMD (a later proposal) is not part of 2.0 and has no
//! kinds here.
//!
//! Representation: a `v128` is a `u128` whose lanes are in little-endian order, lane 0 in
//! the lowest bits (the same layout as the 16 bytes in memory read with `u128::from_le_bytes`).
//! Scalars going in or out (splat, lane access) are raw bits in a `u64`: an `i32`/`f32` uses
//! the low 32 bits (zero-extended), an `i64`/`f64` all 64.
//!
//! The executor calls [`unary`], [`binary`], [`ternary`], [`shift`], [`test()`], [`splat`],
//! [`extract_lane`], [`replace_lane`] or [`load_transform`] with the kind the translator
//! chose (`ir::simd`). The lane loads and stores (`v128.load{8,16,32,64}_lane`,
//! `v128.store{8,16,32,64}_lane`) are done by the executor's memory access with the integer
//! shape of their lane width.

use crate::wasm::ir::simd::{
    SimdBinary, SimdExtract, SimdLoad, SimdReplace, SimdShift, SimdSplat, SimdTernary, SimdTest, SimdUnary,
};
use crate::wasm::num;

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

/// Builds the `v128` of a transforming load from `raw`, the [`SimdLoad::width`] bytes read
/// from memory as a little-endian integer, zero-extended to `u64` (spec 4.4.7).
#[inline(never)]
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
#[inline(never)]
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
#[inline(never)]
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
#[inline(never)]
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
#[inline(never)]
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
#[inline(never)]
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
#[inline(never)]
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
#[inline(never)]
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
mod tests;
