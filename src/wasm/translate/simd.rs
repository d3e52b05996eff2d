//! SIMD operators for the translator: which kind and stack shape each one has.
//!
//! Handled by the translator itself, so `None` from [`classify`]: `v128.load`, `v128.store`,
//! `v128.const`, `i8x16.shuffle` and the lane loads/stores `v128.load{8,16,32,64}_lane` /
//! `v128.store{8,16,32,64}_lane`.

use crate::wasm::binary::operators::Operator;
use crate::wasm::ir::simd::{
    SimdBinary, SimdExtract, SimdLoad, SimdReplace, SimdShift, SimdSplat, SimdTernary, SimdTest, SimdUnary,
};

/// What a SIMD operator is, for the translator: its stack shape and kind (see [`classify`]).
/// Lane indices and memargs are the instruction's immediates.
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
    /// `v128 -> scalar` with a lane index, run with [`extract_lane`](crate::wasm::num::simd::extract_lane).
    ExtractLane(SimdExtract),
    /// `v128 scalar -> v128` with a lane index, run with [`replace_lane`](crate::wasm::num::simd::replace_lane).
    ReplaceLane(SimdReplace),
    /// `i32 -> v128`, a load with a value transform (`v128.load8x8_s` … `v128.load64_zero`),
    /// run with [`load_transform`](crate::wasm::num::simd::load_transform).
    Load(SimdLoad),
}

/// Classifies a SIMD operator. `None` for every non-SIMD operator and for the SIMD operators
/// the translator handles itself (see the module documentation). Evaluated when the translator's
/// table of pure operators is built ([`super::pure`]), at compile time.
pub(crate) const fn classify(op: Operator) -> Option<SimdOp> {
    if let Some(k) = SimdBinary::from_op(op) {
        return Some(SimdOp::Binary(k));
    }
    if let Some(k) = SimdUnary::from_op(op) {
        return Some(SimdOp::Unary(k));
    }
    if let Some(k) = SimdTernary::from_op(op) {
        return Some(SimdOp::Ternary(k));
    }
    if let Some(k) = SimdShift::from_op(op) {
        return Some(SimdOp::Shift(k));
    }
    if let Some(k) = SimdTest::from_op(op) {
        return Some(SimdOp::Test(k));
    }
    if let Some(k) = SimdSplat::from_op(op) {
        return Some(SimdOp::Splat(k));
    }
    if let Some(k) = SimdExtract::from_op(op) {
        return Some(SimdOp::ExtractLane(k));
    }
    if let Some(k) = SimdReplace::from_op(op) {
        return Some(SimdOp::ReplaceLane(k));
    }
    if let Some(k) = SimdLoad::from_op(op) {
        return Some(SimdOp::Load(k));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Operators the translator handles itself (not classified here).
    fn translator_own(op: Operator) -> bool {
        use Operator as O;
        matches!(
            op,
            O::V128Load
                | O::V128Store
                | O::V128Const
                | O::I8x16Shuffle
                | O::V128Load8Lane
                | O::V128Load16Lane
                | O::V128Load32Lane
                | O::V128Load64Lane
                | O::V128Store8Lane
                | O::V128Store16Lane
                | O::V128Store32Lane
                | O::V128Store64Lane
        )
    }

    #[test]
    fn classification_covers_every_simd_operator_exactly_once() {
        let (mut n_simd, mut n_classified, mut n_load, mut n_own) = (0, 0, 0, 0);
        for &op in Operator::ALL {
            let c = classify(op);
            let own = translator_own(op);
            if op.encoding().0 != 0xFD {
                assert!(c.is_none() && !own, "{op} is not SIMD");
                continue;
            }
            n_simd += 1;
            assert_eq!(c.is_some() as u32 + own as u32, 1, "{op} must be covered exactly once");
            n_own += own as u32;
            match c {
                Some(SimdOp::Load(k)) => {
                    n_load += 1;
                    assert_eq!(alloc::format!("{k:?}"), alloc::format!("{op:?}"));
                }
                // The classified kind carries the same name as the operator.
                Some(k) => {
                    n_classified += 1;
                    let dbg = alloc::format!("{k:?}");
                    assert!(dbg.contains(&alloc::format!("({op:?})")), "{op:?} classified as {dbg}");
                }
                None => {}
            }
        }
        assert_eq!((n_simd, n_classified, n_load, n_own), (236, 212, 12, 12));
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
}
