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
    /// `exnref`: `None` is null, else the exception's number in the store (valid until the
    /// store reclaims its exceptions, docs/interpreter.md "Exceptions").
    ExnRef(Option<u32>),
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
            Value::ExnRef(_) => ValType::ExnRef,
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
            Value::ExternRef(e) | Value::ExnRef(e) => e.map_or(0, |e| e as u128 + 1),
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
            ValType::ExnRef => {
                let x = slot as u64;
                Value::ExnRef(if x == 0 { None } else { Some((x - 1) as u32) })
            }
        }
    }
}

/// A value in the text format's constant syntax with its type, `TYPE:VALUE`, as `count --arg`
/// takes it and prints results: `i32:-1`, `f32:1.5`, `f64:nan:0x1`, `v128:i32x4 1 2 3 4`,
/// `funcref:null`, `externref:7`, `exnref:null`. Floats: `nan` (canonical) or `nan:0x…` (other payloads) with
/// their sign, `inf`, `-0`, else the shortest decimal that reads back to the same value (in
/// exponent form beyond 1e16 and below 1e-5).
impl core::fmt::Display for Value {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Value::I32(n) => write!(f, "i32:{n}"),
            Value::I64(n) => write!(f, "i64:{n}"),
            Value::F32(bits) => {
                f.write_str("f32:")?;
                float_text(f, f64::from(f32::from_bits(bits)), u64::from(bits), 23, 32)
            }
            Value::F64(bits) => {
                f.write_str("f64:")?;
                float_text(f, f64::from_bits(bits), bits, 52, 64)
            }
            Value::V128(x) => {
                f.write_str("v128:i32x4")?;
                for i in 0..4 {
                    write!(f, " {}", ((x >> (32 * i)) as u32) as i32)?;
                }
                Ok(())
            }
            Value::FuncRef(None) => f.write_str("funcref:null"),
            Value::FuncRef(Some(_)) => f.write_str("funcref:func"),
            Value::ExternRef(None) => f.write_str("externref:null"),
            Value::ExternRef(Some(n)) => write!(f, "externref:{n}"),
            Value::ExnRef(None) => f.write_str("exnref:null"),
            Value::ExnRef(Some(n)) => write!(f, "exnref:{n}"),
        }
    }
}

/// A float as a text-format constant (see [`Value`]'s `Display`); `value` is exact for both
/// widths; `bits`, `mantissa` and `width` are the encoding's.
fn float_text(
    f: &mut core::fmt::Formatter<'_>,
    value: f64,
    bits: u64,
    mantissa: u32,
    width: u32,
) -> core::fmt::Result {
    let sign = if bits >> (width - 1) & 1 == 1 { "-" } else { "" };
    if value.is_nan() {
        let payload = bits & ((1 << mantissa) - 1);
        return if payload == 1 << (mantissa - 1) {
            write!(f, "{sign}nan")
        } else {
            write!(f, "{sign}nan:{payload:#x}")
        };
    }
    if value.is_infinite() {
        return write!(f, "{sign}inf");
    }
    let a = value.abs();
    // Shortest digits of the value at its own width.
    match (width, a != 0.0 && !(1e-5..1e16).contains(&a)) {
        (32, false) => write!(f, "{}", value as f32),
        (32, true) => write!(f, "{:e}", value as f32),
        (_, false) => write!(f, "{value}"),
        (_, true) => write!(f, "{value:e}"),
    }
}
