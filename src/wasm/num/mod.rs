//! Scalar numeric semantics of WebAssembly 2.0 that Rust's operators do not give directly.
//!
//! Source: WebAssembly Core Specification 2.0, section 4.3 "Numerics" (4.3.2 integer
//! operations `idiv_u/s`, `irem_u/s`; 4.3.3 floating-point operations `fmin`, `fmax`,
//! `fcopysign`, `fabs`, `fneg`, `fsqrt`, `fceil`, `ffloor`, `ftrunc`, `fnearest`;
//! 4.3.4 conversions `trunc_u/s`, `trunc_sat_u/s`).
//!
//! NaN results: wherever the spec returns "an element of nans{z}", these functions return a
//! quiet NaN produced by Rust float arithmetic on the NaN operand(s) (an arithmetic NaN in
//! the spec's terms; a canonical NaN when no operand was NaN).
//!
//! What Rust's `as` already does exactly as Wasm needs (and therefore has no function here):
//! `convert_s/u` (integer to float, round to nearest, ties to even), `promote`, `demote`
//! (round to nearest, ties to even) and every `trunc_sat` (NaN to 0, clamp); the
//! `trunc_sat` wrappers below exist only to give the operators a name and a test.

use crate::wasm::TrapKind;

pub(crate) mod simd;

// ---------------------------------------------------------------------------------------
// min / max
// ---------------------------------------------------------------------------------------

/// `f32.min` (spec 4.3.3 `fmin`): NaN if either operand is NaN (quiet, propagated from
/// the operand), `min(-0, +0) = -0`, otherwise the smaller operand.
#[inline]
pub fn f32_min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        // Equal values: only ±0 differ in bits; OR keeps the sign bit if either is -0.
        f32::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}

/// `f32.max` (spec 4.3.3 `fmax`): NaN if either operand is NaN (quiet, propagated from
/// the operand), `max(-0, +0) = +0`, otherwise the larger operand.
#[inline]
pub fn f32_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        // Equal values: only ±0 differ in bits; AND clears the sign bit if either is +0.
        f32::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}

/// `f64.min` (spec 4.3.3 `fmin`): NaN if either operand is NaN (quiet, propagated from
/// the operand), `min(-0, +0) = -0`, otherwise the smaller operand.
#[inline]
pub fn f64_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}

/// `f64.max` (spec 4.3.3 `fmax`): NaN if either operand is NaN (quiet, propagated from
/// the operand), `max(-0, +0) = +0`, otherwise the larger operand.
#[inline]
pub fn f64_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}

// ---------------------------------------------------------------------------------------
// Rounding and square root (libm, since `no_std` has no inherent float methods for them)
// ---------------------------------------------------------------------------------------

/// `f(x)`, or for a NaN `x` the quiet NaN `x + x` (libm may hand a signalling NaN back).
#[inline]
fn nan_or32(x: f32, f: fn(f32) -> f32) -> f32 {
    if x.is_nan() { x + x } else { f(x) }
}

/// `f(x)`, or for a NaN `x` the quiet NaN `x + x` (libm may hand a signalling NaN back).
#[inline]
fn nan_or64(x: f64, f: fn(f64) -> f64) -> f64 {
    if x.is_nan() { x + x } else { f(x) }
}

/// `f32.nearest` (spec 4.3.3 `fnearest`): round to the nearest integral value, ties to
/// even; the sign of zero is kept (`nearest(-0.4) = -0.0`); NaN in gives a quiet NaN.
#[inline]
pub fn f32_nearest(x: f32) -> f32 {
    nan_or32(x, libm::roundevenf)
}

/// `f64.nearest` (spec 4.3.3 `fnearest`): round to the nearest integral value, ties to
/// even; the sign of zero is kept (`nearest(-0.4) = -0.0`); NaN in gives a quiet NaN.
#[inline]
pub fn f64_nearest(x: f64) -> f64 {
    nan_or64(x, libm::roundeven)
}

/// `f32.floor` (spec 4.3.3 `ffloor`): round toward negative infinity; NaN in gives a quiet
/// NaN; ±0 and ±inf are returned unchanged.
#[inline]
pub fn f32_floor(x: f32) -> f32 {
    nan_or32(x, libm::floorf)
}

/// `f64.floor` (spec 4.3.3 `ffloor`): round toward negative infinity; NaN in gives a quiet
/// NaN; ±0 and ±inf are returned unchanged.
#[inline]
pub fn f64_floor(x: f64) -> f64 {
    nan_or64(x, libm::floor)
}

/// `f32.ceil` (spec 4.3.3 `fceil`): round toward positive infinity (`ceil(-0.5) = -0.0`);
/// NaN in gives a quiet NaN.
#[inline]
pub fn f32_ceil(x: f32) -> f32 {
    nan_or32(x, libm::ceilf)
}

/// `f64.ceil` (spec 4.3.3 `fceil`): round toward positive infinity (`ceil(-0.5) = -0.0`);
/// NaN in gives a quiet NaN.
#[inline]
pub fn f64_ceil(x: f64) -> f64 {
    nan_or64(x, libm::ceil)
}

/// `f32.trunc` (spec 4.3.3 `ftrunc`): round toward zero, keeping the sign
/// (`trunc(-0.5) = -0.0`); NaN in gives a quiet NaN.
#[inline]
pub fn f32_trunc(x: f32) -> f32 {
    nan_or32(x, libm::truncf)
}

/// `f64.trunc` (spec 4.3.3 `ftrunc`): round toward zero, keeping the sign
/// (`trunc(-0.5) = -0.0`); NaN in gives a quiet NaN.
#[inline]
pub fn f64_trunc(x: f64) -> f64 {
    nan_or64(x, libm::trunc)
}

/// `f32.sqrt` (spec 4.3.3 `fsqrt`): correctly rounded square root; `sqrt(-0) = -0`,
/// negative operands and NaN give a NaN.
#[inline]
pub fn f32_sqrt(x: f32) -> f32 {
    nan_or32(x, libm::sqrtf)
}

/// `f64.sqrt` (spec 4.3.3 `fsqrt`): correctly rounded square root; `sqrt(-0) = -0`,
/// negative operands and NaN give a NaN.
#[inline]
pub fn f64_sqrt(x: f64) -> f64 {
    nan_or64(x, libm::sqrt)
}

// ---------------------------------------------------------------------------------------
// Sign operations: pure bit manipulation, NaN payloads pass through untouched
// ---------------------------------------------------------------------------------------

const F32_SIGN: u32 = 0x8000_0000;
const F64_SIGN: u64 = 0x8000_0000_0000_0000;

/// `f32.copysign` (spec 4.3.3 `fcopysign`): the magnitude bits of `a` with the sign bit of
/// `b`; never changes a NaN payload.
#[inline]
pub fn f32_copysign(a: f32, b: f32) -> f32 {
    f32::from_bits((a.to_bits() & !F32_SIGN) | (b.to_bits() & F32_SIGN))
}

/// `f64.copysign` (spec 4.3.3 `fcopysign`): the magnitude bits of `a` with the sign bit of
/// `b`; never changes a NaN payload.
#[inline]
pub fn f64_copysign(a: f64, b: f64) -> f64 {
    f64::from_bits((a.to_bits() & !F64_SIGN) | (b.to_bits() & F64_SIGN))
}

/// `f32.abs` (spec 4.3.3 `fabs`): clears the sign bit; never changes a NaN payload.
#[inline]
pub fn f32_abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !F32_SIGN)
}

/// `f64.abs` (spec 4.3.3 `fabs`): clears the sign bit; never changes a NaN payload.
#[inline]
pub fn f64_abs(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & !F64_SIGN)
}

/// `f32.neg` (spec 4.3.3 `fneg`): flips the sign bit; never changes a NaN payload.
#[inline]
pub fn f32_neg(x: f32) -> f32 {
    f32::from_bits(x.to_bits() ^ F32_SIGN)
}

/// `f64.neg` (spec 4.3.3 `fneg`): flips the sign bit; never changes a NaN payload.
#[inline]
pub fn f64_neg(x: f64) -> f64 {
    f64::from_bits(x.to_bits() ^ F64_SIGN)
}

// ---------------------------------------------------------------------------------------
// Trapping float -> integer truncation (spec 4.3.4 `trunc_u`, `trunc_s`)
// ---------------------------------------------------------------------------------------

/// Range check shared by the trapping truncations. `x` is the operand widened to `f64`
/// (exact for `f32`). It is valid iff `lo < x < hi` (both exclusive), i.e. iff its value
/// truncated toward zero lies in the target type's range. NaN traps with
/// `InvalidConversionToInteger`, anything else outside with `IntegerOverflow`.
#[inline]
fn trunc_check(x: f64, lo: f64, hi: f64) -> Result<(), TrapKind> {
    if x.is_nan() {
        Err(TrapKind::InvalidConversionToInteger)
    } else if x > lo && x < hi {
        Ok(())
    } else {
        Err(TrapKind::IntegerOverflow)
    }
}

// Exclusive bounds. `-2^31 - 1` and `-1` are exact in f64. For i64 the exclusive lower
// bound `-2^63 - 1` is not representable, but no f64 lies strictly between it and `-2^63`,
// so the bound used is the largest f64 below `-2^63` (`-2^63 - 2048`).
const I32_LO: f64 = -2_147_483_649.0; // -2^31 - 1
const I32_HI: f64 = 2_147_483_648.0; // 2^31
const U32_HI: f64 = 4_294_967_296.0; // 2^32
const I64_LO: f64 = -9_223_372_036_854_777_856.0; // -2^63 - 2048 (next f64 below -2^63)
const I64_HI: f64 = 9_223_372_036_854_775_808.0; // 2^63
const U64_HI: f64 = 18_446_744_073_709_551_616.0; // 2^64
const U_LO: f64 = -1.0;

/// `i32.trunc_f32_s` (spec 4.3.4 `trunc_s`): truncate toward zero to a signed 32-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[-2^31, 2^31)` →
/// `IntegerOverflow` (so `-2147483648.0` is accepted, `2147483648.0` traps).
#[inline]
pub fn i32_trunc_f32_s(x: f32) -> Result<i32, TrapKind> {
    trunc_check(x as f64, I32_LO, I32_HI).map(|()| x as i32)
}

/// `i32.trunc_f32_u` (spec 4.3.4 `trunc_u`): truncate toward zero to an unsigned 32-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[0, 2^32)` →
/// `IntegerOverflow` (`-0.9` truncates to 0 and is accepted).
#[inline]
pub fn i32_trunc_f32_u(x: f32) -> Result<u32, TrapKind> {
    trunc_check(x as f64, U_LO, U32_HI).map(|()| x as u32)
}

/// `i32.trunc_f64_s` (spec 4.3.4 `trunc_s`): truncate toward zero to a signed 32-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[-2^31, 2^31)` →
/// `IntegerOverflow` (`-2147483648.9` and `2147483647.9` are accepted).
#[inline]
pub fn i32_trunc_f64_s(x: f64) -> Result<i32, TrapKind> {
    trunc_check(x, I32_LO, I32_HI).map(|()| x as i32)
}

/// `i32.trunc_f64_u` (spec 4.3.4 `trunc_u`): truncate toward zero to an unsigned 32-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[0, 2^32)` →
/// `IntegerOverflow` (`-0.9` and `4294967295.9` are accepted).
#[inline]
pub fn i32_trunc_f64_u(x: f64) -> Result<u32, TrapKind> {
    trunc_check(x, U_LO, U32_HI).map(|()| x as u32)
}

/// `i64.trunc_f32_s` (spec 4.3.4 `trunc_s`): truncate toward zero to a signed 64-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[-2^63, 2^63)` →
/// `IntegerOverflow`.
#[inline]
pub fn i64_trunc_f32_s(x: f32) -> Result<i64, TrapKind> {
    trunc_check(x as f64, I64_LO, I64_HI).map(|()| x as i64)
}

/// `i64.trunc_f32_u` (spec 4.3.4 `trunc_u`): truncate toward zero to an unsigned 64-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[0, 2^64)` →
/// `IntegerOverflow`.
#[inline]
pub fn i64_trunc_f32_u(x: f32) -> Result<u64, TrapKind> {
    trunc_check(x as f64, U_LO, U64_HI).map(|()| x as u64)
}

/// `i64.trunc_f64_s` (spec 4.3.4 `trunc_s`): truncate toward zero to a signed 64-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[-2^63, 2^63)` →
/// `IntegerOverflow`.
#[inline]
pub fn i64_trunc_f64_s(x: f64) -> Result<i64, TrapKind> {
    trunc_check(x, I64_LO, I64_HI).map(|()| x as i64)
}

/// `i64.trunc_f64_u` (spec 4.3.4 `trunc_u`): truncate toward zero to an unsigned 64-bit
/// integer. Traps: NaN → `InvalidConversionToInteger`; result outside `[0, 2^64)` →
/// `IntegerOverflow`.
#[inline]
pub fn i64_trunc_f64_u(x: f64) -> Result<u64, TrapKind> {
    trunc_check(x, U_LO, U64_HI).map(|()| x as u64)
}

// ---------------------------------------------------------------------------------------
// Saturating float -> integer truncation (spec 4.3.4 `trunc_sat_u`, `trunc_sat_s`)
// Rust's `as` is defined as exactly this: truncate toward zero, NaN -> 0, clamp.
// ---------------------------------------------------------------------------------------

/// `i32.trunc_sat_f32_s` (spec 4.3.4 `trunc_sat_s`): truncate toward zero; NaN → 0;
/// clamps to `[i32::MIN, i32::MAX]`.
#[inline]
pub fn i32_trunc_sat_f32_s(x: f32) -> i32 {
    x as i32
}

/// `i32.trunc_sat_f32_u` (spec 4.3.4 `trunc_sat_u`): truncate toward zero; NaN → 0;
/// clamps to `[0, u32::MAX]`.
#[inline]
pub fn i32_trunc_sat_f32_u(x: f32) -> u32 {
    x as u32
}

/// `i32.trunc_sat_f64_s` (spec 4.3.4 `trunc_sat_s`): truncate toward zero; NaN → 0;
/// clamps to `[i32::MIN, i32::MAX]`.
#[inline]
pub fn i32_trunc_sat_f64_s(x: f64) -> i32 {
    x as i32
}

/// `i32.trunc_sat_f64_u` (spec 4.3.4 `trunc_sat_u`): truncate toward zero; NaN → 0;
/// clamps to `[0, u32::MAX]`.
#[inline]
pub fn i32_trunc_sat_f64_u(x: f64) -> u32 {
    x as u32
}

/// `i64.trunc_sat_f32_s` (spec 4.3.4 `trunc_sat_s`): truncate toward zero; NaN → 0;
/// clamps to `[i64::MIN, i64::MAX]`.
#[inline]
pub fn i64_trunc_sat_f32_s(x: f32) -> i64 {
    x as i64
}

/// `i64.trunc_sat_f32_u` (spec 4.3.4 `trunc_sat_u`): truncate toward zero; NaN → 0;
/// clamps to `[0, u64::MAX]`.
#[inline]
pub fn i64_trunc_sat_f32_u(x: f32) -> u64 {
    x as u64
}

/// `i64.trunc_sat_f64_s` (spec 4.3.4 `trunc_sat_s`): truncate toward zero; NaN → 0;
/// clamps to `[i64::MIN, i64::MAX]`.
#[inline]
pub fn i64_trunc_sat_f64_s(x: f64) -> i64 {
    x as i64
}

/// `i64.trunc_sat_f64_u` (spec 4.3.4 `trunc_sat_u`): truncate toward zero; NaN → 0;
/// clamps to `[0, u64::MAX]`.
#[inline]
pub fn i64_trunc_sat_f64_u(x: f64) -> u64 {
    x as u64
}

// ---------------------------------------------------------------------------------------
// Integer division and remainder (spec 4.3.2 `idiv_u/s`, `irem_u/s`)
// ---------------------------------------------------------------------------------------

/// `i32.div_s` (spec 4.3.2 `idiv_s`): signed division truncating toward zero. Traps:
/// `b == 0` → `IntegerDivideByZero`; `i32::MIN / -1` → `IntegerOverflow`.
#[inline]
pub fn i32_div_s(a: i32, b: i32) -> Result<i32, TrapKind> {
    match b {
        0 => Err(TrapKind::IntegerDivideByZero),
        _ => a.checked_div(b).ok_or(TrapKind::IntegerOverflow),
    }
}

/// `i32.div_u` (spec 4.3.2 `idiv_u`): unsigned division. Traps: `b == 0` →
/// `IntegerDivideByZero`.
#[inline]
pub fn i32_div_u(a: u32, b: u32) -> Result<u32, TrapKind> {
    a.checked_div(b).ok_or(TrapKind::IntegerDivideByZero)
}

/// `i32.rem_s` (spec 4.3.2 `irem_s`): signed remainder, sign of the dividend;
/// `rem_s(i32::MIN, -1) = 0`. Traps: `b == 0` → `IntegerDivideByZero`.
#[inline]
pub fn i32_rem_s(a: i32, b: i32) -> Result<i32, TrapKind> {
    match b {
        0 => Err(TrapKind::IntegerDivideByZero),
        _ => Ok(a.wrapping_rem(b)),
    }
}

/// `i32.rem_u` (spec 4.3.2 `irem_u`): unsigned remainder. Traps: `b == 0` →
/// `IntegerDivideByZero`.
#[inline]
pub fn i32_rem_u(a: u32, b: u32) -> Result<u32, TrapKind> {
    a.checked_rem(b).ok_or(TrapKind::IntegerDivideByZero)
}

/// `i64.div_s` (spec 4.3.2 `idiv_s`): signed division truncating toward zero. Traps:
/// `b == 0` → `IntegerDivideByZero`; `i64::MIN / -1` → `IntegerOverflow`.
#[inline]
pub fn i64_div_s(a: i64, b: i64) -> Result<i64, TrapKind> {
    match b {
        0 => Err(TrapKind::IntegerDivideByZero),
        _ => a.checked_div(b).ok_or(TrapKind::IntegerOverflow),
    }
}

/// `i64.div_u` (spec 4.3.2 `idiv_u`): unsigned division. Traps: `b == 0` →
/// `IntegerDivideByZero`.
#[inline]
pub fn i64_div_u(a: u64, b: u64) -> Result<u64, TrapKind> {
    a.checked_div(b).ok_or(TrapKind::IntegerDivideByZero)
}

/// `i64.rem_s` (spec 4.3.2 `irem_s`): signed remainder, sign of the dividend;
/// `rem_s(i64::MIN, -1) = 0`. Traps: `b == 0` → `IntegerDivideByZero`.
#[inline]
pub fn i64_rem_s(a: i64, b: i64) -> Result<i64, TrapKind> {
    match b {
        0 => Err(TrapKind::IntegerDivideByZero),
        _ => Ok(a.wrapping_rem(b)),
    }
}

/// `i64.rem_u` (spec 4.3.2 `irem_u`): unsigned remainder. Traps: `b == 0` →
/// `IntegerDivideByZero`.
#[inline]
pub fn i64_rem_u(a: u64, b: u64) -> Result<u64, TrapKind> {
    a.checked_rem(b).ok_or(TrapKind::IntegerDivideByZero)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::TrapKind::{IntegerDivideByZero, IntegerOverflow, InvalidConversionToInteger};

    const F32_QUIET: u32 = 0x0040_0000;
    const F64_QUIET: u64 = 0x0008_0000_0000_0000;

    fn is_quiet32(x: f32) -> bool {
        x.is_nan() && x.to_bits() & F32_QUIET != 0
    }
    fn is_quiet64(x: f64) -> bool {
        x.is_nan() && x.to_bits() & F64_QUIET != 0
    }
    /// Same value and same sign (distinguishes -0.0 from +0.0).
    fn same32(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits()
    }
    fn same64(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits()
    }

    #[test]
    fn min_max_signed_zero() {
        // min picks -0 whichever side it is on; max picks +0.
        assert!(same32(f32_min(-0.0, 0.0), -0.0));
        assert!(same32(f32_min(0.0, -0.0), -0.0));
        assert!(same32(f32_max(-0.0, 0.0), 0.0));
        assert!(same32(f32_max(0.0, -0.0), 0.0));
        assert!(same32(f32_min(-0.0, -0.0), -0.0));
        assert!(same32(f32_max(-0.0, -0.0), -0.0));
        assert!(same64(f64_min(-0.0, 0.0), -0.0));
        assert!(same64(f64_min(0.0, -0.0), -0.0));
        assert!(same64(f64_max(-0.0, 0.0), 0.0));
        assert!(same64(f64_max(0.0, -0.0), 0.0));
    }

    #[test]
    fn min_max_ordinary_and_infinite() {
        assert_eq!(f32_min(1.0, 2.0), 1.0);
        assert_eq!(f32_max(1.0, 2.0), 2.0);
        assert_eq!(f32_min(f32::NEG_INFINITY, -1e30), f32::NEG_INFINITY);
        assert_eq!(f32_max(f32::INFINITY, 1e30), f32::INFINITY);
        assert_eq!(f64_min(-3.5, 2.0), -3.5);
        assert_eq!(f64_max(-3.5, 2.0), 2.0);
    }

    #[test]
    fn min_max_nan_propagates_quiet() {
        // Rust's f32::min would return the non-NaN operand; Wasm returns NaN.
        let snan32 = f32::from_bits(0x7f80_0001); // signalling NaN, payload 1
        let qnan32 = f32::from_bits(0x7fc0_1234);
        for n in [f32::NAN, snan32, qnan32] {
            assert!(is_quiet32(f32_min(n, 1.0)));
            assert!(is_quiet32(f32_min(1.0, n)));
            assert!(is_quiet32(f32_max(n, 1.0)));
            assert!(is_quiet32(f32_max(1.0, n)));
            assert!(is_quiet32(f32_max(n, f32::INFINITY)));
            assert!(is_quiet32(f32_min(n, f32::NEG_INFINITY)));
        }
        let snan64 = f64::from_bits(0x7ff0_0000_0000_0001);
        for n in [f64::NAN, snan64] {
            assert!(is_quiet64(f64_min(n, 1.0)));
            assert!(is_quiet64(f64_min(1.0, n)));
            assert!(is_quiet64(f64_max(n, 1.0)));
            assert!(is_quiet64(f64_max(1.0, n)));
        }
    }

    #[test]
    fn nearest_ties_to_even_and_sign_of_zero() {
        // (input, expected): ties go to the even neighbour, zero keeps the input's sign.
        let cases32: [(f32, f32); 12] = [
            (0.5, 0.0),
            (-0.5, -0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-2.5, -2.0),
            (3.5, 4.0),
            (-0.4, -0.0),
            (0.4, 0.0),
            (0.6, 1.0),
            (-0.0, -0.0),
            (8388609.0, 8388609.0), // 2^23 + 1: already integral
            (f32::NEG_INFINITY, f32::NEG_INFINITY),
        ];
        for (x, want) in cases32 {
            assert!(same32(f32_nearest(x), want), "nearest({x})");
        }
        let cases64: [(f64, f64); 8] = [
            (0.5, 0.0),
            (-0.5, -0.0),
            (2.5, 2.0),
            (-3.5, -4.0),
            (-0.4, -0.0),
            (4503599627370497.0, 4503599627370497.0), // 2^52 + 1
            (4503599627370495.5, 4503599627370496.0), // 2^52 - 0.5: tie, to even 2^52
            (f64::INFINITY, f64::INFINITY),
        ];
        for (x, want) in cases64 {
            assert!(same64(f64_nearest(x), want), "nearest({x})");
        }
        assert!(is_quiet32(f32_nearest(f32::from_bits(0x7f80_0001))));
        assert!(is_quiet64(f64_nearest(f64::from_bits(0xfff0_0000_0000_0001))));
    }

    #[test]
    fn floor_ceil_trunc_sqrt() {
        assert!(same32(f32_floor(-0.5), -1.0));
        assert!(same32(f32_floor(-0.0), -0.0));
        assert!(same32(f32_ceil(-0.5), -0.0)); // ceil toward +inf keeps the sign: -0
        assert!(same32(f32_ceil(1.2), 2.0));
        assert!(same32(f32_trunc(-1.7), -1.0));
        assert!(same32(f32_trunc(-0.7), -0.0));
        assert!(same64(f64_floor(2.9), 2.0));
        assert!(same64(f64_ceil(-1.5), -1.0));
        assert!(same64(f64_ceil(-0.5), -0.0));
        assert!(same64(f64_trunc(-0.2), -0.0));
        assert_eq!(f32_sqrt(9.0), 3.0);
        assert!(same32(f32_sqrt(-0.0), -0.0));
        assert!(f32_sqrt(-1.0).is_nan());
        assert_eq!(f64_sqrt(2.0), core::f64::consts::SQRT_2);
        assert!(f64_sqrt(-1.0).is_nan());
        let snan32 = f32::from_bits(0x7f80_0001);
        let snan64 = f64::from_bits(0x7ff0_0000_0000_0001);
        for f in [f32_floor, f32_ceil, f32_trunc, f32_sqrt, f32_nearest] {
            assert!(is_quiet32(f(snan32)));
        }
        for f in [f64_floor, f64_ceil, f64_trunc, f64_sqrt, f64_nearest] {
            assert!(is_quiet64(f(snan64)));
        }
    }

    #[test]
    fn sign_ops_keep_nan_payloads() {
        let snan = f32::from_bits(0x7f80_0001);
        assert_eq!(f32_abs(f32::from_bits(0xff80_0001)).to_bits(), 0x7f80_0001);
        assert_eq!(f32_neg(snan).to_bits(), 0xff80_0001);
        assert_eq!(f32_copysign(snan, -1.0).to_bits(), 0xff80_0001);
        assert_eq!(f32_copysign(-2.0, 0.0).to_bits(), 2.0f32.to_bits());
        assert_eq!(f32_copysign(2.0, -0.0).to_bits(), (-2.0f32).to_bits());
        assert_eq!(f32_neg(0.0).to_bits(), 0x8000_0000);
        let snan64 = f64::from_bits(0x7ff0_0000_0000_0001);
        assert_eq!(f64_neg(snan64).to_bits(), 0xfff0_0000_0000_0001);
        assert_eq!(f64_abs(f64::from_bits(0xfff0_0000_0000_0001)).to_bits(), 0x7ff0_0000_0000_0001);
        assert_eq!(f64_copysign(snan64, -0.0).to_bits(), 0xfff0_0000_0000_0001);
        assert_eq!(f64_copysign(-3.0, f64::NAN).to_bits(), 3.0f64.to_bits());
        assert_eq!(f64_abs(-0.0).to_bits(), 0);
    }

    #[test]
    fn trunc_nan_traps_invalid() {
        assert_eq!(i32_trunc_f32_s(f32::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i32_trunc_f32_u(f32::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i32_trunc_f64_s(f64::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i32_trunc_f64_u(-f64::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i64_trunc_f32_s(f32::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i64_trunc_f32_u(f32::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i64_trunc_f64_s(f64::NAN), Err(InvalidConversionToInteger));
        assert_eq!(i64_trunc_f64_u(f64::NAN), Err(InvalidConversionToInteger));
    }

    #[test]
    fn trunc_i32_boundaries() {
        // f32 -> i32 s: -2^31 exact is the lowest f32 accepted; the next f32 below is
        // -2^31 - 256; the largest f32 below 2^31 is 2^31 - 128 = 2147483520.
        assert_eq!(i32_trunc_f32_s(-2147483648.0), Ok(i32::MIN));
        assert_eq!(i32_trunc_f32_s(-2147483904.0), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f32_s(2147483648.0), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f32_s(2147483520.0), Ok(2147483520));
        assert_eq!(i32_trunc_f32_s(-1.9), Ok(-1));
        assert_eq!(i32_trunc_f32_s(f32::INFINITY), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f32_s(f32::NEG_INFINITY), Err(IntegerOverflow));
        // f32 -> i32 u: (-1, 2^32) exclusive; 2^32 - 256 = 4294967040 is the top f32 inside.
        assert_eq!(i32_trunc_f32_u(-0.9), Ok(0));
        assert_eq!(i32_trunc_f32_u(-0.0), Ok(0));
        assert_eq!(i32_trunc_f32_u(-1.0), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f32_u(4294967040.0), Ok(4294967040));
        assert_eq!(i32_trunc_f32_u(4294967296.0), Err(IntegerOverflow));
        // f64 -> i32 s: the fractional part is dropped before the range check.
        assert_eq!(i32_trunc_f64_s(-2147483648.9), Ok(i32::MIN));
        assert_eq!(i32_trunc_f64_s(2147483647.9), Ok(i32::MAX));
        assert_eq!(i32_trunc_f64_s(-2147483649.0), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f64_s(2147483648.0), Err(IntegerOverflow));
        // f64 -> i32 u
        assert_eq!(i32_trunc_f64_u(-0.9), Ok(0));
        assert_eq!(i32_trunc_f64_u(-1.0), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f64_u(4294967295.9), Ok(u32::MAX));
        assert_eq!(i32_trunc_f64_u(4294967296.0), Err(IntegerOverflow));
        assert_eq!(i32_trunc_f64_u(1e300), Err(IntegerOverflow));
    }

    #[test]
    fn trunc_i64_boundaries() {
        // -2^63 is accepted; the next f32 below is -2^63 - 2^40, the next f64 below is
        // -2^63 - 2048. 2^63 itself traps; the top f64 below it is 2^63 - 1024.
        assert_eq!(i64_trunc_f32_s(-9223372036854775808.0), Ok(i64::MIN));
        assert_eq!(i64_trunc_f32_s(-9223373136366403584.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f32_s(9223372036854775808.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f32_s(9223371487098961920.0), Ok(9223371487098961920)); // 2^63 - 2^39
        assert_eq!(i64_trunc_f64_s(-9223372036854775808.0), Ok(i64::MIN));
        assert_eq!(i64_trunc_f64_s(-9223372036854777856.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f64_s(9223372036854774784.0), Ok(9223372036854774784));
        assert_eq!(i64_trunc_f64_s(9223372036854775808.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f64_s(-1.5), Ok(-1));
        // unsigned: (-1, 2^64)
        assert_eq!(i64_trunc_f32_u(-0.9), Ok(0));
        assert_eq!(i64_trunc_f32_u(-1.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f32_u(18446742974197923840.0), Ok(18446742974197923840)); // 2^64 - 2^40
        assert_eq!(i64_trunc_f32_u(18446744073709551616.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f64_u(-0.9), Ok(0));
        assert_eq!(i64_trunc_f64_u(18446744073709549568.0), Ok(18446744073709549568)); // 2^64 - 2048
        assert_eq!(i64_trunc_f64_u(18446744073709551616.0), Err(IntegerOverflow));
        assert_eq!(i64_trunc_f64_u(f64::INFINITY), Err(IntegerOverflow));
    }

    #[test]
    fn trunc_sat_clamps_and_zeroes_nan() {
        assert_eq!(i32_trunc_sat_f32_s(f32::NAN), 0);
        assert_eq!(i32_trunc_sat_f32_s(3e9), i32::MAX);
        assert_eq!(i32_trunc_sat_f32_s(-3e9), i32::MIN);
        assert_eq!(i32_trunc_sat_f32_s(-2.7), -2);
        assert_eq!(i32_trunc_sat_f32_u(-5.0), 0);
        assert_eq!(i32_trunc_sat_f32_u(5e9), u32::MAX);
        assert_eq!(i32_trunc_sat_f32_u(f32::NAN), 0);
        assert_eq!(i32_trunc_sat_f64_s(2147483647.9), i32::MAX);
        assert_eq!(i32_trunc_sat_f64_s(-2147483648.9), i32::MIN);
        assert_eq!(i32_trunc_sat_f64_s(f64::NEG_INFINITY), i32::MIN);
        assert_eq!(i32_trunc_sat_f64_u(4294967295.9), u32::MAX);
        assert_eq!(i32_trunc_sat_f64_u(f64::NAN), 0);
        assert_eq!(i64_trunc_sat_f32_s(f32::INFINITY), i64::MAX);
        assert_eq!(i64_trunc_sat_f32_s(f32::NAN), 0);
        assert_eq!(i64_trunc_sat_f32_u(-0.9), 0);
        assert_eq!(i64_trunc_sat_f32_u(1e20), u64::MAX);
        assert_eq!(i64_trunc_sat_f64_s(-1e19), i64::MIN);
        assert_eq!(i64_trunc_sat_f64_s(9223372036854774784.0), 9223372036854774784);
        assert_eq!(i64_trunc_sat_f64_u(f64::INFINITY), u64::MAX);
        assert_eq!(i64_trunc_sat_f64_u(-f64::NAN), 0);
    }

    #[test]
    fn integer_div_rem() {
        assert_eq!(i32_div_s(7, 0), Err(IntegerDivideByZero));
        assert_eq!(i32_div_s(i32::MIN, -1), Err(IntegerOverflow));
        assert_eq!(i32_div_s(-7, 2), Ok(-3)); // truncates toward zero
        assert_eq!(i32_div_u(7, 0), Err(IntegerDivideByZero));
        assert_eq!(i32_div_u(0xffff_fff9, 2), Ok(0x7fff_fffc)); // -7 as unsigned / 2
        assert_eq!(i32_rem_s(i32::MIN, -1), Ok(0));
        assert_eq!(i32_rem_s(-7, 2), Ok(-1)); // sign of the dividend
        assert_eq!(i32_rem_s(7, -2), Ok(1));
        assert_eq!(i32_rem_s(7, 0), Err(IntegerDivideByZero));
        assert_eq!(i32_rem_u(7, 0), Err(IntegerDivideByZero));
        assert_eq!(i32_rem_u(0xffff_fff9, 2), Ok(1));
        assert_eq!(i64_div_s(1, 0), Err(IntegerDivideByZero));
        assert_eq!(i64_div_s(i64::MIN, -1), Err(IntegerOverflow));
        assert_eq!(i64_div_s(i64::MIN, 1), Ok(i64::MIN));
        assert_eq!(i64_div_u(u64::MAX, 0), Err(IntegerDivideByZero));
        assert_eq!(i64_div_u(u64::MAX, 2), Ok(0x7fff_ffff_ffff_ffff));
        assert_eq!(i64_rem_s(i64::MIN, -1), Ok(0));
        assert_eq!(i64_rem_s(-9, 4), Ok(-1));
        assert_eq!(i64_rem_s(1, 0), Err(IntegerDivideByZero));
        assert_eq!(i64_rem_u(u64::MAX, 10), Ok(5)); // 18446744073709551615 % 10
        assert_eq!(i64_rem_u(1, 0), Err(IntegerDivideByZero));
    }

    #[test]
    fn rust_as_conversions_round_to_nearest_even() {
        // i64/u64 -> f32 must round once, to nearest, ties to even (spec `convert_u/s`).
        // 0x7fffff4000000001: the top 24 significant bits are 0x7fffff|4 i.e. the value is
        // just above the midpoint between 0x7fffff0000000000 and 0x7fffff8000000000
        // (f32 spacing there is 2^39 = 0x8000000000); it must round up. A double
        // rounding through f64 would drop the low 1 first, land exactly on the tie and
        // round to even (down).
        assert_eq!(0x7fff_ff40_0000_0001u64 as f32, 9223371487098961920.0); // 0xffffff * 2^39
        assert_eq!((0x7fff_ff40_0000_0001u64 as f32).to_bits(), 0x5eff_ffff);
        // Exact tie 0x7fffff4000000000: round to even mantissa (0x...fe), i.e. down.
        assert_eq!((0x7fff_ff40_0000_0000u64 as f32).to_bits(), 0x5eff_fffe);
        // Signed: same for i64.
        assert_eq!((0x7fff_ff40_0000_0001i64 as f32).to_bits(), 0x5eff_ffff);
        // u64::MAX -> 2^64 (rounds up), i32 -> f32: 16777217 = 2^24 + 1 ties to even 2^24.
        assert_eq!(u64::MAX as f32, 18446744073709551616.0);
        assert_eq!(16777217i32 as f32, 16777216.0);
        assert_eq!(16777219i32 as f32, 16777220.0);
        // u32 -> f32 (convert_u) of 0xffffffff rounds to 2^32.
        assert_eq!(u32::MAX as f32, 4294967296.0);
        // i64 -> f64: 2^53 + 1 ties to even 2^53.
        assert_eq!(9007199254740993i64 as f64, 9007199254740992.0);
        // demote: round to nearest even; out-of-range to infinity; promote is exact.
        assert_eq!(f64::from_bits(0x3ff0_0000_1000_0000) as f32, 1.0); // 1 + 2^-24: tie -> even (1.0)
        assert_eq!(f64::from_bits(0x3ff0_0000_3000_0000) as f32, 1.0 + 2.0 * f32::EPSILON); // 1 + 3*2^-24: tie -> even (1 + 2^-22)
        assert_eq!(f64::MAX as f32, f32::INFINITY);
        assert_eq!(f32::MIN_POSITIVE as f64 as f32, f32::MIN_POSITIVE);
        assert!((f64::NAN as f32).is_nan());
    }
}
