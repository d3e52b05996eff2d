//! Lane semantics of every SIMD kind, checked against lane values worked out by hand.

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
    assert_eq!(bin(SimdBinary::I32x4Add, v32([i32::MAX, 1, 2, 3]), v32([1; 4])), v32([i32::MIN, 2, 3, 4]));
    assert_eq!(bin(SimdBinary::I32x4Sub, v32([i32::MIN, 1, 2, 3]), v32([1; 4])), v32([i32::MAX, 0, 1, 2]));
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
    assert_eq!(bin(SimdBinary::I16x8Q15MulrSatS, a, b), v16([0x7fff, 8192, -8192, 0, 32766, -32767, 0, -1]));
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
    assert_eq!(unary(SimdUnary::I16x8ExtAddPairwiseI8x16U, a), v16([256, 256, 256, 256, 254, 254, 254, 254]));
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
    assert_eq!(unary(SimdUnary::F32x4ConvertI32x4U, a), f32s([16777216.0, 4294967296.0, 3.0, 2147483648.0]));
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
