//! The pure operators: those whose translation is one op computing a value from the operands
//! alone (the kinds of `ir`: unary, binary, trapping, SIMD). Which kind each operator is comes
//! from one table, [`PURE`], built at compile time from the kind lists of `ir` (whose names are
//! the operators'), so the translator handles all of them with one `match` on the kind.

use super::simd::{SimdOp, classify};
use crate::wasm::binary::operators::Operator;
use crate::wasm::ir::{Binop, TrapBinop, TrapUnop, Unop};

/// How the translator emits a pure operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pure {
    /// Not a pure operator.
    No,
    /// `i32.eqz` (`false`) or `i64.eqz` (`true`): translated as `eq` with a constant 0, which
    /// computes the same value and fuses into branches.
    Eqz(bool),
    /// [`Op::Unop`](crate::wasm::ir::Op::Unop).
    Unop(Unop),
    /// [`Op::TrapUnop`](crate::wasm::ir::Op::TrapUnop).
    TrapUnop(TrapUnop),
    /// [`Op::Binop`](crate::wasm::ir::Op::Binop), or its constant-operand form.
    Binop(Binop),
    /// [`Op::TrapBinop`](crate::wasm::ir::Op::TrapBinop), or its constant-operand form.
    TrapBinop(TrapBinop),
    /// A SIMD operator of one of the shapes of [`SimdOp`].
    Simd(SimdOp),
}

macro_rules! kind_of {
    ($fn_name:ident, $kind:ident; $($name:ident ( $($t:ty),* ) -> $out:ty = |$($arg:ident),*| $e:expr;)*) => {
        /// The kind of `op`, if the kind list names it.
        const fn $fn_name(op: Operator) -> Option<$kind> {
            match op {
                $(Operator::$name => Some($kind::$name),)*
                _ => None,
            }
        }
    };
}
crate::wasm::ir::for_each_unop!(kind_of, unop_of, Unop);
crate::wasm::ir::for_each_trap_unop!(kind_of, trap_unop_of, TrapUnop);
crate::wasm::ir::for_each_binop!(kind_of, binop_of, Binop);
crate::wasm::ir::for_each_trap_binop!(kind_of, trap_binop_of, TrapBinop);

/// What kind of pure operator `op` is.
const fn pure_of(op: Operator) -> Pure {
    if let Operator::I32Eqz | Operator::I64Eqz = op {
        return Pure::Eqz(matches!(op, Operator::I64Eqz));
    }
    if let Some(k) = binop_of(op) {
        return Pure::Binop(k);
    }
    if let Some(k) = unop_of(op) {
        return Pure::Unop(k);
    }
    if let Some(k) = trap_binop_of(op) {
        return Pure::TrapBinop(k);
    }
    if let Some(k) = trap_unop_of(op) {
        return Pure::TrapUnop(k);
    }
    if let Some(k) = classify(op) {
        return Pure::Simd(k);
    }
    Pure::No
}

/// The kind of every operator, by [`Operator`] discriminant.
pub(crate) static PURE: [Pure; Operator::COUNT] = {
    let mut t = [Pure::No; Operator::COUNT];
    let mut i = 0;
    while i < Operator::COUNT {
        t[i] = pure_of(Operator::ALL[i]);
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_names_its_operator() {
        let mut counts = [0usize; 7];
        for &op in Operator::ALL {
            let p = PURE[op as usize];
            let (slot, kind) = match p {
                Pure::No => (0, alloc::string::String::new()),
                Pure::Eqz(_) => (1, alloc::string::String::new()),
                Pure::Unop(k) => (2, alloc::format!("{k:?}")),
                Pure::TrapUnop(k) => (3, alloc::format!("{k:?}")),
                Pure::Binop(k) => (4, alloc::format!("{k:?}")),
                Pure::TrapBinop(k) => (5, alloc::format!("{k:?}")),
                Pure::Simd(k) => (6, alloc::format!("{k:?}")),
            };
            counts[slot] += 1;
            if slot >= 2 {
                assert!(kind.contains(&alloc::format!("{op:?}")), "{op:?} is {kind}");
            }
        }
        // Of the 504 operators: 2 eqz, 46 pure unary (the unop list less the two eqz), 8
        // trapping unary, 68 binary, 8 trapping binary, 224 SIMD, and the rest translated
        // one by one.
        assert_eq!(counts[1..], [2, 46, 8, 68, 8, 224]);
        assert_eq!(counts.iter().sum::<usize>(), Operator::COUNT);
    }
}
