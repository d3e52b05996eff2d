//! The types of WebAssembly 2.0 (spec 2.3 "Types") and their binary encodings (spec 5.3
//! "Types").

use alloc::boxed::Box;
use core::fmt;

use super::proposals::{self, Proposal, Site};
use super::reader::Reader;
use crate::wasm::error::Invalid;

/// A value type (spec 2.3.4): a number, a vector or a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ValType {
    /// `i32`, encoded `0x7F`.
    I32,
    /// `i64`, encoded `0x7E`.
    I64,
    /// `f32`, encoded `0x7D`.
    F32,
    /// `f64`, encoded `0x7C`.
    F64,
    /// `v128`, encoded `0x7B`.
    V128,
    /// `funcref`, encoded `0x70`.
    FuncRef,
    /// `externref`, encoded `0x6F`.
    ExternRef,
    /// `exnref`, encoded `0x69` (the exception-handling proposal): a caught exception, as
    /// `catch_ref` and `catch_all_ref` hand it over and `throw_ref` throws it again.
    ExnRef,
}

/// Every value type, in declaration order (so that `ALL[t as usize] == t`).
pub(crate) const ALL_VAL_TYPES: [ValType; 8] = [
    ValType::I32,
    ValType::I64,
    ValType::F32,
    ValType::F64,
    ValType::V128,
    ValType::FuncRef,
    ValType::ExternRef,
    ValType::ExnRef,
];

impl ValType {
    /// Whether the type is a reference type (`funcref`, `externref` or `exnref`).
    pub fn is_ref(self) -> bool {
        matches!(self, ValType::FuncRef | ValType::ExternRef | ValType::ExnRef)
    }

    /// The one-element result list `[self]` (a block of type `self`), without allocating.
    pub(crate) fn as_slice(self) -> &'static [ValType] {
        core::slice::from_ref(&ALL_VAL_TYPES[self as usize])
    }

    /// The type a byte encodes (spec 5.3.1–5.3.4), if it encodes one.
    pub(crate) fn from_byte(b: u8) -> Option<ValType> {
        Some(match b {
            0x7F => ValType::I32,
            0x7E => ValType::I64,
            0x7D => ValType::F32,
            0x7C => ValType::F64,
            0x7B => ValType::V128,
            0x70 => ValType::FuncRef,
            0x6F => ValType::ExternRef,
            0x69 if Proposal::ExceptionHandling.runs() => ValType::ExnRef,
            _ => return None,
        })
    }

    /// The text format's name (`i32`, `funcref`, …).
    pub fn name(self) -> &'static str {
        match self {
            ValType::I32 => "i32",
            ValType::I64 => "i64",
            ValType::F32 => "f32",
            ValType::F64 => "f64",
            ValType::V128 => "v128",
            ValType::FuncRef => "funcref",
            ValType::ExternRef => "externref",
            ValType::ExnRef => "exnref",
        }
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A reference type (spec 2.3.3): the element type of a table or a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefType {
    /// `funcref`: a function reference.
    FuncRef,
    /// `externref`: an opaque host reference.
    ExternRef,
    /// `exnref`: an exception (the exception-handling proposal).
    ExnRef,
}

impl From<RefType> for ValType {
    fn from(r: RefType) -> ValType {
        match r {
            RefType::FuncRef => ValType::FuncRef,
            RefType::ExternRef => ValType::ExternRef,
            RefType::ExnRef => ValType::ExnRef,
        }
    }
}

impl fmt::Display for RefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ValType::from(*self).fmt(f)
    }
}

/// A function type (spec 2.3.6): parameter and result types.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FuncType {
    /// Parameters, then results, in one allocation.
    types: Box<[ValType]>,
    params: usize,
}

impl FuncType {
    /// The type `params -> results`.
    pub fn new(
        params: impl IntoIterator<Item = ValType>,
        results: impl IntoIterator<Item = ValType>,
    ) -> Self {
        let mut types: alloc::vec::Vec<ValType> = params.into_iter().collect();
        let params = types.len();
        types.extend(results);
        FuncType { types: types.into(), params }
    }

    /// The parameter types.
    pub fn params(&self) -> &[ValType] {
        &self.types[..self.params]
    }

    /// The result types.
    pub fn results(&self) -> &[ValType] {
        &self.types[self.params..]
    }
}

impl fmt::Display for FuncType {
    /// `[i32 i64] -> [f32]`, the specification's notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, ts: &[ValType]| {
            f.write_str("[")?;
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                t.fmt(f)?;
            }
            f.write_str("]")
        };
        list(f, self.params())?;
        f.write_str(" -> ")?;
        list(f, self.results())
    }
}

/// The type of a table (spec 2.3.9): its element type and size limits, in elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableType {
    /// What the table holds.
    pub element_type: RefType,
    /// Initial size in elements.
    pub initial: u64,
    /// Maximum size in elements, if declared.
    pub maximum: Option<u64>,
}

/// The type of a linear memory (spec 2.3.8): its size limits in 64 KiB pages, and whether it
/// is shared (the threads proposal: limits flags `0x02`; a shared memory must declare its
/// maximum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryType {
    /// Initial size in pages.
    pub initial: u64,
    /// Maximum size in pages, if declared.
    pub maximum: Option<u64>,
    /// Shared between threads (`(memory 1 2 shared)`). An import matches only a memory of the
    /// same sharing; `memory.atomic.wait32` and `wait64` trap on a memory that is not shared.
    pub shared: bool,
}

/// The type of a global (spec 2.3.10): its value type and mutability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlobalType {
    /// The value type.
    pub content_type: ValType,
    /// Whether `global.set` may write it.
    pub mutable: bool,
}

/// The kind of an import or export (spec 2.5.10–2.5.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExternalKind {
    /// A function, encoded `0x00`.
    Func,
    /// A table, encoded `0x01`.
    Table,
    /// A memory, encoded `0x02`.
    Memory,
    /// A global, encoded `0x03`.
    Global,
    /// A tag, encoded `0x04` (the exception-handling proposal).
    Tag,
}

/// The type of a structured instruction (spec 5.4.1 `blocktype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockType {
    /// `[] -> []`, encoded `0x40`.
    Empty,
    /// `[] -> [t]`, encoded as the value type.
    Type(ValType),
    /// The function type at this type index (multi-value), encoded as a non-negative `s33`.
    FuncType(u32),
}

/// The immediate of a memory instruction (spec 5.4.6 `memarg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemArg {
    /// The alignment hint as a power of two.
    pub align: u32,
    /// The static offset added to the dynamic address.
    pub offset: u32,
}

// ---- decoding -------------------------------------------------------------------------------

/// The limits flag of a shared memory (the threads proposal, its binary format: `0x02` without
/// a maximum, which validation refuses, `0x03` with one).
pub(crate) const SHARED: u8 = 0x02;

impl<'a> Reader<'a> {
    /// A value type (spec 5.3.4).
    pub(crate) fn val_type(&mut self) -> Result<ValType, Invalid> {
        self.byte_as(Invalid::ValType, ValType::from_byte).map_err(|e| self.or_sign(e, Site::Type))
    }

    /// A reference type (spec 5.3.3).
    pub(crate) fn ref_type(&mut self) -> Result<RefType, Invalid> {
        self.byte_as(Invalid::RefType, |b| match b {
            0x70 => Some(RefType::FuncRef),
            0x6F => Some(RefType::ExternRef),
            0x69 if Proposal::ExceptionHandling.runs() => Some(RefType::ExnRef),
            _ => None,
        })
        .map_err(|e| self.or_sign(e, Site::Type))
    }

    /// Limits (spec 5.3.7): the flags, `min`, and `max` when bit 0 ("has a maximum") is set;
    /// the flags are returned. `allowed` are the bits past bit 0 that `site` takes (a memory's
    /// shared bit [`SHARED`] where threads run). Later proposals give the flags more
    /// bits (a 64-bit index, a custom page size): the lowest bit past those names its proposal
    /// if it is a sign at `site` (a memory's or a table's limits); otherwise the flags are
    /// malformed.
    pub(crate) fn limits(&mut self, site: Site, allowed: u8) -> Result<(u8, u64, Option<u64>), Invalid> {
        let flags = self.peek()?;
        if flags & !(1 | allowed) != 0 {
            let past = u32::from(flags & !(1 | allowed));
            return Err(proposals::or(Invalid::LimitsFlags, site, past & past.wrapping_neg()));
        }
        self.u8()?;
        let min = self.u32()? as u64;
        let max = if flags & 1 != 0 { Some(self.u32()? as u64) } else { None };
        Ok((flags, min, max))
    }

    /// An import or export kind (spec 5.5.5, 5.5.10).
    pub(crate) fn external_kind(&mut self) -> Result<ExternalKind, Invalid> {
        self.byte_as(Invalid::ExternalKind, |b| match b {
            0x00 => Some(ExternalKind::Func),
            0x01 => Some(ExternalKind::Table),
            0x02 => Some(ExternalKind::Memory),
            0x03 => Some(ExternalKind::Global),
            0x04 if Proposal::ExceptionHandling.runs() => Some(ExternalKind::Tag),
            _ => None,
        })
        .map_err(|e| self.or_sign(e, Site::External))
    }

    /// A function type (spec 5.3.6): `0x60`, parameters, results.
    pub(crate) fn func_type(&mut self) -> Result<FuncType, Invalid> {
        self.byte_as(Invalid::FuncTypeForm, |b| (b == 0x60).then_some(()))
            .map_err(|e| self.or_sign(e, Site::Form))?;
        let mut types = alloc::vec::Vec::new();
        let n = self.len()?;
        for _ in 0..n {
            types.push(self.val_type()?);
        }
        let params = types.len();
        let m = self.len()?;
        for _ in 0..m {
            types.push(self.val_type()?);
        }
        Ok(FuncType { types: types.into(), params })
    }

    /// A table type (spec 5.3.9).
    pub(crate) fn table_type(&mut self) -> Result<TableType, Invalid> {
        let element_type = self.ref_type()?;
        let (_, initial, maximum) = self.limits(Site::TableFlags, 0)?;
        Ok(TableType { element_type, initial, maximum })
    }

    /// A memory type (spec 5.3.8; the threads proposal's flags `0x02` and `0x03` for a shared
    /// memory, where threads run: [`Proposal::runs`]). Whether a shared memory has its maximum is the
    /// module's rule, checked where the memory is declared.
    pub(crate) fn memory_type(&mut self) -> Result<MemoryType, Invalid> {
        let allowed = if Proposal::Threads.runs() { SHARED } else { 0 };
        let (flags, initial, maximum) = self.limits(Site::MemoryFlags, allowed)?;
        Ok(MemoryType { initial, maximum, shared: flags & SHARED != 0 })
    }

    /// A global type (spec 5.3.10): value type and mutability byte.
    pub(crate) fn global_type(&mut self) -> Result<GlobalType, Invalid> {
        let content_type = self.val_type()?;
        let mutable = self.byte_as(Invalid::Mutability, |b| (b <= 1).then_some(b == 1))?;
        Ok(GlobalType { content_type, mutable })
    }

    /// A block type (spec 5.4.1): `0x40`, a value type, or a type index as `s33`.
    pub(crate) fn block_type(&mut self) -> Result<BlockType, Invalid> {
        let b = self.peek()?;
        if b == 0x40 {
            self.u8()?;
            return Ok(BlockType::Empty);
        }
        if let Some(t) = ValType::from_byte(b) {
            self.u8()?;
            return Ok(BlockType::Type(t));
        }
        // A one-byte negative s33 that is no value type names no type of 2.0 (`(ref $t)` and
        // `anyref` are later proposals'): refused at that byte.
        if b > 0x40 && b < 0x80 {
            return Err(self.or_sign(Invalid::ValType, Site::Type));
        }
        let x = self.s33()?;
        // A negative s33 that is not a value type's byte names no type; an index past u32
        // names no type of a module either.
        u32::try_from(x).map(BlockType::FuncType).map_err(|_| Invalid::ValType)
    }

    /// A `memarg` (spec 5.4.6): alignment exponent and offset.
    pub(crate) fn memarg(&mut self) -> Result<MemArg, Invalid> {
        let align = self.u32()?;
        let offset = self.u32()?;
        Ok(MemArg { align, offset })
    }
}
