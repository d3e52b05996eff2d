//! SIMD operators for the translator: which kind and stack shape each one has.
//!
//! Relaxed SIMD (a later proposal) is not part of WebAssembly 2.0: [`classify`] returns
//! `None` for it. Handled by the translator itself, so `None` from both classifiers:
//! `v128.load`, `v128.store`, `v128.const`, `i8x16.shuffle` and the lane loads/stores
//! `v128.load{8,16,32,64}_lane` / `v128.store{8,16,32,64}_lane`.

use wasmparser::{MemArg, Operator};

use crate::wasm::ir::simd::{
    SimdBinary, SimdExtract, SimdLoad, SimdReplace, SimdShift, SimdSplat, SimdTernary, SimdTest, SimdUnary,
};

/// What a SIMD operator is, for the translator: its stack shape and kind (see [`classify`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdOp {
    /// `v128 -> v128`, run with [`unary`](crate::wasm::num::simd::unary).
    Unary(SimdUnary),
    /// `v128 v128 -> v128`, run with [`binary`](crate::wasm::num::simd::binary).
    Binary(SimdBinary),
    /// `v128 v128 v128 -> v128`, run with [`ternary`](crate::wasm::num::simd::ternary).
    Ternary(SimdTernary),
    /// `v128 i32 -> v128`, run with [`shift`](crate::wasm::num::simd::shift).
    Shift(SimdShift),
    /// `v128 -> i32`, run with [`test`](crate::wasm::num::simd::test()).
    Test(SimdTest),
    /// `scalar -> v128` (scalar is i32, i64, f32 or f64 per the shape), run with [`splat`](crate::wasm::num::simd::splat).
    Splat(SimdSplat),
    /// `v128 -> scalar` with the immediate lane index, run with [`extract_lane`](crate::wasm::num::simd::extract_lane).
    ExtractLane(SimdExtract, u8),
    /// `v128 scalar -> v128` with the immediate lane index, run with [`replace_lane`](crate::wasm::num::simd::replace_lane).
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

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
}
