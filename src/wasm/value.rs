//! Values crossing the interpreter's API, and their encoding in value-stack slots.
//!
//! Inside the interpreter every value occupies one 128-bit slot: integers zero-extended, floats
//! as their IEEE-754 bits, `v128` as its 16 bytes little-endian, and references as
//! `0` = null, `index + 1` otherwise (so zeroed memory is all nulls).

use super::binary::types::ValType;
use super::store::Func;

/// A WebAssembly value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// `i32`
    I32(i32),
    /// `i64`
    I64(i64),
    /// `f32`, as its bits (so NaN payloads survive).
    F32(u32),
    /// `f64`, as its bits.
    F64(u64),
    /// `v128`, lane 0 in the low bits.
    V128(u128),
    /// `funcref`: `None` is null.
    FuncRef(Option<Func>),
    /// `externref`: `None` is null; the host chooses the numbers.
    ExternRef(Option<u32>),
}

impl Value {
    /// The value's type.
    pub fn ty(&self) -> ValType {
        match self {
            Value::I32(_) => ValType::I32,
            Value::I64(_) => ValType::I64,
            Value::F32(_) => ValType::F32,
            Value::F64(_) => ValType::F64,
            Value::V128(_) => ValType::V128,
            Value::FuncRef(_) => ValType::FuncRef,
            Value::ExternRef(_) => ValType::ExternRef,
        }
    }

    /// The default (zero or null) value of a type.
    pub fn default_of(ty: ValType) -> Value {
        Value::from_slot(ty, 0)
    }

    /// Encodes the value into a slot.
    pub(crate) fn to_slot(self) -> u128 {
        match self {
            Value::I32(v) => v as u32 as u128,
            Value::I64(v) => v as u64 as u128,
            Value::F32(v) => v as u128,
            Value::F64(v) => v as u128,
            Value::V128(v) => v,
            Value::FuncRef(f) => f.map_or(0, |f| f.0 as u128 + 1),
            Value::ExternRef(e) => e.map_or(0, |e| e as u128 + 1),
        }
    }

    /// Decodes a slot of type `ty`.
    pub(crate) fn from_slot(ty: ValType, slot: u128) -> Value {
        match ty {
            ValType::I32 => Value::I32(slot as u32 as i32),
            ValType::I64 => Value::I64(slot as u64 as i64),
            ValType::F32 => Value::F32(slot as u32),
            ValType::F64 => Value::F64(slot as u64),
            ValType::V128 => Value::V128(slot),
            ValType::FuncRef => {
                let x = slot as u64;
                Value::FuncRef(if x == 0 { None } else { Some(Func((x - 1) as u32)) })
            }
            ValType::ExternRef => {
                let x = slot as u64;
                Value::ExternRef(if x == 0 { None } else { Some((x - 1) as u32) })
            }
        }
    }
}
