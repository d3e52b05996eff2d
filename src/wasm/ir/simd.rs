//! The kinds of the fixed-width SIMD instructions (`v128`, WebAssembly 2.0): one enum per
//! stack shape, whose variants are named exactly like the [`Operator`]s they stand for
//! (`SimdBinary::I8x16AddSatS` is `Operator::I8x16AddSatS`, the text format's
//! `i8x16.add_sat_s`). Each enum is declared once, by `simd_kind!`, together with its
//! mapping from the operator; the translator classifies with it (`translate::simd`) and the
//! executor runs the kinds with the lane math of `num::simd`.

use crate::wasm::binary::operators::Operator;

/// Declares one operator-kind enum whose variants are named exactly like the [`Operator`]
/// variants, plus `from_op`, the mapping from the operator. The form (`plain`, `lane`,
/// `memarg`) says which immediate the operator has; the translator reads it from the
/// instruction.
macro_rules! simd_kind {
    ($(#[doc = $doc:literal])* $name:ident, $form:ident { $($(#[doc = $vdoc:literal])* $v:ident,)* }) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        // The variants are the instructions' names (`i8x16.splat` is `I8x16Splat`), so the
        // kinds of one family share a suffix.
        #[allow(clippy::enum_variant_names)]
        pub enum $name { $($(#[doc = $vdoc])* $v,)* }
        impl $name {
            /// Every variant, in declaration order (tests only).
            #[cfg(test)]
            pub const ALL: &'static [$name] = &[$($name::$v),*];

            /// The kind of operator `op`, if it is one of this enum's.
            pub(crate) const fn from_op(op: Operator) -> Option<Self> {
                match op {
                    $(Operator::$v => Some(Self::$v),)*
                    _ => None,
                }
            }
        }
    };
}

simd_kind! {
    /// `v128 -> v128` operators (spec 4.4.3 `vvunop`, `vunop`, extend/extadd/convert/
    /// trunc_sat/demote/promote). Executed by [`unary`](crate::wasm::num::simd::unary).
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
        /// `f32x4.ceil`: lane-wise [`num::f32_ceil`](crate::wasm::num::f32_ceil).
        F32x4Ceil,
        /// `f32x4.floor`: lane-wise [`num::f32_floor`](crate::wasm::num::f32_floor).
        F32x4Floor,
        /// `f32x4.trunc`: lane-wise [`num::f32_trunc`](crate::wasm::num::f32_trunc).
        F32x4Trunc,
        /// `f32x4.nearest`: lane-wise [`num::f32_nearest`](crate::wasm::num::f32_nearest) (ties to even).
        F32x4Nearest,
        /// `f32x4.abs`: lane-wise sign-bit clear (NaN payloads kept).
        F32x4Abs,
        /// `f32x4.neg`: lane-wise sign-bit flip (NaN payloads kept).
        F32x4Neg,
        /// `f32x4.sqrt`: lane-wise [`num::f32_sqrt`](crate::wasm::num::f32_sqrt).
        F32x4Sqrt,
        /// `f64x2.ceil`: lane-wise [`num::f64_ceil`](crate::wasm::num::f64_ceil).
        F64x2Ceil,
        /// `f64x2.floor`: lane-wise [`num::f64_floor`](crate::wasm::num::f64_floor).
        F64x2Floor,
        /// `f64x2.trunc`: lane-wise [`num::f64_trunc`](crate::wasm::num::f64_trunc).
        F64x2Trunc,
        /// `f64x2.nearest`: lane-wise [`num::f64_nearest`](crate::wasm::num::f64_nearest) (ties to even).
        F64x2Nearest,
        /// `f64x2.abs`: lane-wise sign-bit clear (NaN payloads kept).
        F64x2Abs,
        /// `f64x2.neg`: lane-wise sign-bit flip (NaN payloads kept).
        F64x2Neg,
        /// `f64x2.sqrt`: lane-wise [`num::f64_sqrt`](crate::wasm::num::f64_sqrt).
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
    /// narrow, extmul, dot, q15mulr). Executed by [`binary`](crate::wasm::num::simd::binary) with `a` the first (deeper)
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
        /// `f32x4.min`: lane-wise [`num::f32_min`](crate::wasm::num::f32_min) (NaN-propagating, -0 < +0).
        F32x4Min,
        /// `f32x4.max`: lane-wise [`num::f32_max`](crate::wasm::num::f32_max) (NaN-propagating, -0 < +0).
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
        /// `f64x2.min`: lane-wise [`num::f64_min`](crate::wasm::num::f64_min) (NaN-propagating, -0 < +0).
        F64x2Min,
        /// `f64x2.max`: lane-wise [`num::f64_max`](crate::wasm::num::f64_max) (NaN-propagating, -0 < +0).
        F64x2Max,
        /// `f64x2.pmin`: lane-wise `if b < a { b } else { a }`.
        F64x2PMin,
        /// `f64x2.pmax`: lane-wise `if a < b { b } else { a }`.
        F64x2PMax,
    }
}

simd_kind! {
    /// `v128 v128 v128 -> v128` operators (spec 4.4.3 `vvternop`). Executed by [`ternary`](crate::wasm::num::simd::ternary).
    SimdTernary, plain {
        /// `v128.bitselect`: `(a & c) | (b & !c)` (bits of `a` where `c` is 1, else `b`).
        V128Bitselect,
    }
}

simd_kind! {
    /// `v128 i32 -> v128` shifts (spec 4.4.3 `vshiftop`). The count is taken modulo the lane
    /// width in bits. Executed by [`shift`](crate::wasm::num::simd::shift).
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
    /// [`test`](crate::wasm::num::simd::test()).
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
    /// `scalar -> v128` splats (spec 4.4.3 `shape.splat`). Executed by [`splat`](crate::wasm::num::simd::splat); the scalar
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
    /// index carried in `SimdOp::ExtractLane`. Executed by [`extract_lane`](crate::wasm::num::simd::extract_lane).
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
    /// index carried in `SimdOp::ReplaceLane`. Executed by [`replace_lane`](crate::wasm::num::simd::replace_lane).
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
    /// any load) and calls [`load_transform`](crate::wasm::num::simd::load_transform). Found by `translate::simd::classify_load`.
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
