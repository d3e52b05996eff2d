//! Loading a module: each section decoded (spec 5.5 "Modules") and checked against the rules
//! of module validation (spec 3.4 "Modules"), each function body validated and translated
//! once ([`super::translate`]). The checks of a section happen when it is read, so an error
//! names the offset of the entry that breaks the rule.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::binary::code;
use super::binary::operators::{Imm, Operator};
use super::binary::proposals::{self, Proposal, Site};
use super::binary::reader::Reader;
use super::binary::sections::{Sections, id};
use super::binary::types::{ExternalKind, MemoryType, RefType, TableType, ValType};
use super::binary::validate::Context;
use super::error::{Invalid, Limit, LoadError};
use super::ir::Op;
use super::limits::Limits;
use super::module::{
    ConstExpr, ConstOp, DataSegment, ElemSegment, Export, Import, ImportType, Module, SegmentMode,
};
use super::translate::{Scratch, translate_function};

/// The result of a decoder or rule on a reader, with the error placed at the reader's offset.
trait At<T> {
    fn at(self, r: &Reader<'_>) -> Result<T, LoadError>;
}

impl<T> At<T> for Result<T, Invalid> {
    fn at(self, r: &Reader<'_>) -> Result<T, LoadError> {
        self.map_err(|e| r.error(e))
    }
}

/// What the sections read so far say beyond the [`Module`] itself.
#[derive(Default)]
struct Facts {
    /// Element type of every table, imported ones first.
    tables: Vec<RefType>,
    /// Number of memories, imported and defined.
    memories: u32,
    /// Element type of every element segment.
    elems: Vec<RefType>,
    /// The data count section's value.
    data_count: Option<u32>,
    /// Functions the function section declared.
    declared: Option<u32>,
    /// Function bodies in the code section.
    bodies: u32,
    /// Functions named outside function bodies (exports, segments, global initialisers):
    /// those `ref.func` may take (spec 3.4.10, C.refs).
    refs: Vec<bool>,
}

impl Facts {
    fn declare_ref(&mut self, f: u32) {
        if let Some(r) = self.refs.get_mut(f as usize) {
            *r = true;
        }
    }
}

/// Decodes, validates and translates a module (see [`Module::new`]).
pub(crate) fn load(bytes: &[u8], limits: &Limits) -> Result<Module, LoadError> {
    if bytes.len() > limits.max_module_bytes {
        return Err(LoadError::limit(
            limits.max_module_bytes,
            Limit::ModuleBytes(limits.max_module_bytes as u64),
            bytes.len() as u64,
        ));
    }
    let mut m = Module::default();
    let mut facts = Facts::default();
    let mut sections = Sections::new(bytes)?;
    while let Some(section) = sections.next_section()? {
        let r = &mut section.contents.clone();
        match section.id {
            id::CUSTOM => continue,
            id::TYPE => {
                for _ in 0..r.len().at(r)? {
                    m.types.push(r.func_type().at(r)?);
                }
            }
            id::IMPORT => imports(r, &mut m, &mut facts)?,
            id::FUNCTION => {
                let n = r.len().at(r)?;
                for _ in 0..n {
                    let t = r.u32().at(r)?;
                    if t as usize >= m.types.len() {
                        return Err(LoadError::invalid(r.offset(), Invalid::UnknownType(t)));
                    }
                    m.func_types.push(t);
                }
                if m.func_types.len() > limits.max_functions as usize {
                    return Err(LoadError::limit(
                        section.contents.offset(),
                        Limit::Functions(limits.max_functions as u64),
                        m.func_types.len() as u64,
                    ));
                }
                facts.declared = Some(n);
            }
            id::TABLE => {
                for _ in 0..r.len().at(r)? {
                    // Typed function references let an entry start `0x40 0x00` and end with an
                    // initializer expression.
                    let t = r
                        .table_type()
                        .map_err(
                            |e| if matches!(e, Invalid::RefType) { r.or_sign(e, Site::Table) } else { e },
                        )
                        .at(r)?;
                    table_limits(&t).at(r)?;
                    facts.tables.push(t.element_type);
                    m.tables.push(t);
                }
            }
            id::MEMORY => {
                for _ in 0..r.len().at(r)? {
                    let at = r.offset();
                    let t = r.memory_type().at(r)?;
                    memory_limits(&t, &mut facts).map_err(|e| LoadError::invalid(at, e))?;
                    if t.initial.saturating_mul(65536) > limits.max_memory_bytes {
                        return Err(LoadError::limit(
                            section.contents.offset(),
                            Limit::InitialMemory(limits.max_memory_bytes),
                            t.initial,
                        ));
                    }
                    m.memories.push(t);
                }
            }
            id::TAG => {
                if !Proposal::ExceptionHandling.runs() {
                    unreachable!();
                }
                for _ in 0..r.len().at(r)? {
                    let t = tag_type(r, &m)?;
                    m.tags.push(t);
                }
            }
            id::GLOBAL => {
                facts.refs.resize(m.func_types.len(), false);
                for _ in 0..r.len().at(r)? {
                    let ty = r.global_type().at(r)?;
                    let init = const_expr(r, &mut m, &mut facts, ty.content_type)?;
                    m.global_types.push(ty);
                    m.globals.push((ty, init));
                }
            }
            id::EXPORT => exports(r, &mut m, &mut facts)?,
            id::START => {
                let f = r.u32().at(r)?;
                let ty = m.func_type(f).ok_or(Invalid::UnknownFunction(f)).at(r)?;
                if !ty.params().is_empty() || !ty.results().is_empty() {
                    return Err(r.error(Invalid::StartFunction));
                }
                m.start = Some(f);
            }
            id::ELEMENT => {
                facts.refs.resize(m.func_types.len(), false);
                for _ in 0..r.len().at(r)? {
                    let e = elem_segment(r, &mut m, &mut facts)?;
                    m.elems.push(e);
                }
            }
            id::DATA_COUNT => facts.data_count = Some(r.u32().at(r)?),
            id::CODE => code(r, &mut m, &mut facts, limits)?,
            id::DATA => {
                let n = r.len().at(r)?;
                if facts.data_count.is_some_and(|c| c != n) {
                    return Err(LoadError::invalid(section.contents.offset(), Invalid::DataCountMismatch));
                }
                for _ in 0..n {
                    let d = data_segment(r, &mut m, &mut facts)?;
                    m.datas.push(d);
                }
            }
            _ => unreachable!("Sections yields known section ids only"),
        }
        if !r.eof() {
            return Err(r.error(Invalid::SectionSizeMismatch));
        }
    }
    let end = bytes.len();
    if facts.declared.unwrap_or(0) != facts.bodies {
        return Err(LoadError::invalid(end, Invalid::FunctionCodeMismatch));
    }
    if facts.data_count.is_some_and(|c| c as usize != m.datas.len()) {
        return Err(LoadError::invalid(end, Invalid::DataCountMismatch));
    }
    Ok(m)
}

/// A tag's type (the exception-handling proposal, "Binary format"): the attribute byte 0
/// (an exception), then a function type index whose type has no results; an error is placed
/// at the byte that breaks the rule.
fn tag_type(r: &mut Reader<'_>, m: &Module) -> Result<u32, LoadError> {
    r.byte_as(Invalid::TagType, |b| (b == 0).then_some(())).at(r)?;
    let at = r.offset();
    let t = r.u32().at(r)?;
    match m.types.get(t as usize) {
        None => Err(LoadError::invalid(at, Invalid::UnknownType(t))),
        Some(ty) if !ty.results().is_empty() => Err(LoadError::invalid(at, Invalid::TagType)),
        Some(_) => Ok(t),
    }
}

/// Table limits (spec 3.2.2): the minimum at most the maximum.
fn table_limits(t: &TableType) -> Result<(), Invalid> {
    match t.maximum {
        Some(max) if t.initial > max => Err(Invalid::LimitsOrder),
        _ => Ok(()),
    }
}

/// Memory limits (spec 3.2.3): at most one memory in 2.0 (a second is multi-memory's sign),
/// at most 65,536 pages, the minimum at most the maximum, and a maximum for a shared memory
/// (the threads proposal).
fn memory_limits(t: &MemoryType, facts: &mut Facts) -> Result<(), Invalid> {
    facts.memories += 1;
    if facts.memories > 1 {
        return Err(proposals::or(Invalid::MultipleMemories, Site::Memories, facts.memories));
    }
    if t.initial > 65536 || t.maximum.is_some_and(|m| m > 65536) {
        return Err(Invalid::MemorySize);
    }
    if t.maximum.is_some_and(|m| t.initial > m) {
        return Err(Invalid::LimitsOrder);
    }
    if t.shared && t.maximum.is_none() {
        return Err(Invalid::SharedMemoryMaximum);
    }
    Ok(())
}

fn imports(r: &mut Reader<'_>, m: &mut Module, facts: &mut Facts) -> Result<(), LoadError> {
    for _ in 0..r.len().at(r)? {
        let module = r.name().at(r)?;
        let name = r.name().at(r)?;
        let at = r.offset();
        let ty = match r.external_kind().at(r)? {
            ExternalKind::Func => {
                let t = r.u32().at(r)?;
                if t as usize >= m.types.len() {
                    return Err(LoadError::invalid(at, Invalid::UnknownType(t)));
                }
                m.func_types.push(t);
                m.num_imported_funcs += 1;
                ImportType::Func(t)
            }
            ExternalKind::Table => {
                let t = r.table_type().at(r)?;
                table_limits(&t).map_err(|e| LoadError::invalid(at, e))?;
                facts.tables.push(t.element_type);
                m.num_imported_tables += 1;
                ImportType::Table(t)
            }
            ExternalKind::Memory => {
                let t = r.memory_type().at(r)?;
                memory_limits(&t, facts).map_err(|e| LoadError::invalid(at, e))?;
                m.num_imported_memories += 1;
                ImportType::Memory(t)
            }
            ExternalKind::Global => {
                let t = r.global_type().at(r)?;
                m.num_imported_globals += 1;
                m.global_types.push(t);
                ImportType::Global(t)
            }
            ExternalKind::Tag => {
                if !Proposal::ExceptionHandling.runs() {
                    unreachable!()
                }
                let t = tag_type(r, m)?;
                m.tags.push(t);
                m.num_imported_tags += 1;
                ImportType::Tag(t)
            }
        };
        m.imports.push(Import { module: module.into(), name: name.into(), ty });
    }
    Ok(())
}

fn exports(r: &mut Reader<'_>, m: &mut Module, facts: &mut Facts) -> Result<(), LoadError> {
    facts.refs.resize(m.func_types.len(), false);
    let mut names = BTreeSet::new();
    for _ in 0..r.len().at(r)? {
        let at = r.offset();
        let name = r.name().at(r)?;
        let kind = r.external_kind().at(r)?;
        let index = r.u32().at(r)?;
        let known = match kind {
            ExternalKind::Func => (index as usize) < m.func_types.len(),
            ExternalKind::Table => (index as usize) < facts.tables.len(),
            ExternalKind::Memory => index < facts.memories,
            ExternalKind::Global => (index as usize) < m.global_types.len(),
            ExternalKind::Tag => (index as usize) < m.tags.len(),
        };
        if !known {
            let why = match kind {
                ExternalKind::Func => Invalid::UnknownFunction(index),
                ExternalKind::Table => Invalid::UnknownTable(index),
                ExternalKind::Memory => Invalid::UnknownMemory(index),
                ExternalKind::Global => Invalid::UnknownGlobal(index),
                ExternalKind::Tag => Invalid::UnknownTag(index),
            };
            return Err(LoadError::invalid(at, why));
        }
        if kind == ExternalKind::Func {
            facts.declare_ref(index);
        }
        if !names.insert(name) {
            return Err(LoadError::invalid(at, Invalid::DuplicateExport));
        }
        m.exports.push(Export { name: name.into(), kind, index });
    }
    Ok(())
}

/// A constant expression of type `expected` (spec 3.3.10), with the extended-const proposal's
/// integer `add`, `sub` and `mul`, and `global.get` of any earlier immutable global (an
/// imported one, or one the module defined before the expression's own global; every global
/// for a segment's expression). A `ref.func` declares its function for the bodies' `ref.func`
/// (C.refs). One instruction stays that instruction; a longer expression is folded to its value
/// when it reads no imported global, and kept as its instructions
/// ([`ConstExpr::Extended`]) otherwise, to be evaluated at instantiation.
#[inline(never)]
fn const_expr(
    r: &mut Reader<'_>,
    m: &mut Module,
    facts: &mut Facts,
    expected: ValType,
) -> Result<ConstExpr, LoadError> {
    use Operator as O;
    let start = m.const_ops.len();
    let mut types: Vec<ValType> = Vec::new();
    let end = loop {
        let (at, opcode) = (r.offset(), r.peek().unwrap_or(0));
        let ins = r.instr().at(r)?;
        let fail = |why| Err(LoadError::invalid(at, why));
        let (op, ty) = match (ins.op, &ins.imm) {
            (O::End, _) => break at,
            (O::I32Const, &Imm::I32(v)) => (ConstExpr::Value(v as u32 as u128), ValType::I32),
            (O::I64Const, &Imm::I64(v)) => (ConstExpr::Value(v as u64 as u128), ValType::I64),
            (O::F32Const, &Imm::Bits(b)) => (ConstExpr::Value(b), ValType::F32),
            (O::F64Const, &Imm::Bits(b)) => (ConstExpr::Value(b), ValType::F64),
            (O::V128Const, &Imm::Bits(b)) => (ConstExpr::Value(b), ValType::V128),
            (O::RefNull, &Imm::Type(t)) => (ConstExpr::RefNull, t),
            (O::RefFunc, &Imm::Index(f)) => {
                if f as usize >= m.func_types.len() {
                    return fail(Invalid::UnknownFunction(f));
                }
                facts.declare_ref(f);
                (ConstExpr::RefFunc(f), ValType::FuncRef)
            }
            (O::GlobalGet, &Imm::Index(g)) => {
                let Some(&t) = m.global_types.get(g as usize) else { return fail(Invalid::UnknownGlobal(g)) };
                if t.mutable {
                    return fail(Invalid::ConstantExpressionRequired);
                }
                if g >= m.num_imported_globals && !Proposal::ExtendedConst.runs() {
                    return fail(proposals::left_out(Site::ConstGlobal, g));
                }
                // An earlier global with a known value is that value.
                (m.global_init(g).map_or(ConstExpr::GlobalGet(g), ConstExpr::Value), t.content_type)
            }
            (op @ (O::I32Add | O::I32Sub | O::I32Mul | O::I64Add | O::I64Sub | O::I64Mul), _) => {
                if !Proposal::ExtendedConst.runs() {
                    return fail(proposals::left_out(Site::ConstOp, opcode.into()));
                }
                let t =
                    if matches!(op, O::I32Add | O::I32Sub | O::I32Mul) { ValType::I32 } else { ValType::I64 };
                for _ in 0..2 {
                    match types.pop() {
                        Some(found) if found == t => {}
                        found => return fail(Invalid::TypeMismatch { expected: Some(t), found }),
                    }
                }
                m.const_ops.push(ConstOp::Arith(op));
                types.push(t);
                continue;
            }
            _ => return fail(Invalid::ConstantExpressionRequired),
        };
        types.push(ty);
        m.const_ops.push(ConstOp::Push(op));
    };
    let found = match types[..] {
        [t] if t == expected => None,
        [t] => Some(Invalid::TypeMismatch { expected: Some(expected), found: Some(t) }),
        [] => Some(Invalid::TypeMismatch { expected: Some(expected), found: None }),
        _ => Some(Invalid::TypeMismatch { expected: None, found: None }),
    };
    if let Some(why) = found {
        return Err(LoadError::invalid(end, why));
    }
    let ops = &m.const_ops[start..];
    let folded = match ops {
        &[ConstOp::Push(e)] => Some(e),
        // Only extended constants have more instructions (which `only-2-0` refuses above).
        _ if !Proposal::ExtendedConst.runs() => unreachable!(),
        _ => ConstOp::eval(ops, |_| None).map(ConstExpr::Value),
    };
    if let Some(e) = folded {
        m.const_ops.truncate(start);
        return Ok(e);
    }
    Ok(ConstExpr::Extended { start: start as u32, len: (m.const_ops.len() - start) as u32 })
}

/// An element segment (spec 5.5.12: eight forms by their flags; 3.4.5 for its rules).
fn elem_segment(r: &mut Reader<'_>, m: &mut Module, facts: &mut Facts) -> Result<ElemSegment, LoadError> {
    let at = r.offset();
    let flags = r.u32().at(r)?;
    if flags > 7 {
        return Err(LoadError::invalid(at, Invalid::ElemKind));
    }
    // Bit 0: passive or declarative; bit 1: an explicit table (active) or declarative
    // (otherwise); bit 2: items are expressions with an explicit reference type.
    let (explicit_table, exprs) = (flags & 2 != 0, flags & 4 != 0);
    let mode = if flags & 1 == 0 {
        let table_at = r.offset();
        let table = if explicit_table { r.u32().at(r)? } else { 0 };
        let Some(&table_type) = facts.tables.get(table as usize) else {
            return Err(LoadError::invalid(table_at, Invalid::UnknownTable(table)));
        };
        let offset = const_expr(r, m, facts, ValType::I32)?;
        Some((table, table_type, offset))
    } else {
        None
    };
    // The forms without an explicit kind (0 and 4) hold function references.
    let ty = if flags & 3 == 0 {
        RefType::FuncRef
    } else if exprs {
        r.ref_type().at(r)?
    } else {
        r.byte_as(Invalid::ElemKind, |b| (b == 0x00).then_some(RefType::FuncRef)).at(r)?
    };
    let mode = match mode {
        Some((index, table_type, offset)) => {
            if table_type != ty {
                return Err(LoadError::invalid(
                    at,
                    Invalid::TypeMismatch { expected: Some(table_type.into()), found: Some(ty.into()) },
                ));
            }
            SegmentMode::Active { index, offset }
        }
        None if flags & 2 != 0 => SegmentMode::Declared,
        None => SegmentMode::Passive,
    };
    let n = r.len().at(r)?;
    let mut items = Vec::with_capacity(n as usize);
    for _ in 0..n {
        if exprs {
            items.push(const_expr(r, m, facts, ty.into())?);
        } else {
            let f = r.u32().at(r)?;
            if f as usize >= m.func_types.len() {
                return Err(r.error(Invalid::UnknownFunction(f)));
            }
            facts.declare_ref(f);
            items.push(ConstExpr::RefFunc(f));
        }
    }
    facts.elems.push(ty);
    Ok(ElemSegment { mode, items })
}

/// A data segment (spec 5.5.14: three forms; 3.4.6).
fn data_segment(r: &mut Reader<'_>, m: &mut Module, facts: &mut Facts) -> Result<DataSegment, LoadError> {
    let at = r.offset();
    let mode = match r.u32().at(r)? {
        flags @ (0 | 2) => {
            let memory = if flags == 2 { r.u32().at(r)? } else { 0 };
            if memory >= facts.memories {
                return Err(LoadError::invalid(at, Invalid::UnknownMemory(memory)));
            }
            let offset = const_expr(r, m, facts, ValType::I32)?;
            SegmentMode::Active { index: memory, offset }
        }
        1 => SegmentMode::Passive,
        _ => return Err(LoadError::invalid(at, Invalid::DataKind)),
    };
    let n = r.len().at(r)?;
    let bytes = r.bytes(n as usize).at(r)?.to_vec();
    Ok(DataSegment { mode, bytes })
}

/// The code section: every body validated and translated.
#[inline(never)]
fn code(r: &mut Reader<'_>, m: &mut Module, facts: &mut Facts, limits: &Limits) -> Result<(), LoadError> {
    let at = r.offset();
    let bodies = code::bodies(r).at(r)?;
    let n = bodies.len() as u32;
    if facts.declared.unwrap_or(0) != n {
        return Err(LoadError::invalid(at, Invalid::FunctionCodeMismatch));
    }
    facts.refs.resize(m.func_types.len(), false);
    let mut compiled = Vec::with_capacity(n as usize);
    {
        let cx = Context {
            types: &m.types,
            funcs: &m.func_types,
            tables: &facts.tables,
            memories: facts.memories,
            globals: &m.global_types,
            elems: &facts.elems,
            data_count: facts.data_count,
            refs: &facts.refs,
            tags: &m.tags,
        };
        let mut scratch = Scratch::default();
        for (i, body) in bodies.iter().enumerate() {
            let index = m.num_imported_funcs + i as u32;
            compiled.push(translate_function(m, index, body.reader(), cx, limits, &mut scratch)?);
        }
    }
    facts.bodies = n;
    m.funcs = compiled;
    wide_module(m);
    Ok(())
}

/// Marks every function of `m` as holding `v128` values when any can (a type, a global, a
/// local or an operator has one), and gives it the moves of both slot halves
/// (docs/interpreter.md, "Slots"). Per module, not per function: in a module without SIMD
/// nothing changes, and one with SIMD pays a little on its scalar moves.
fn wide_module(m: &mut Module) {
    let v128 = |t: &[ValType]| t.contains(&ValType::V128);
    m.wide = m.funcs.iter().any(|f| f.wide)
        || m.types.iter().any(|t| v128(t.params()) || v128(t.results()))
        || m.global_types.iter().any(|g| g.content_type == ValType::V128);
    if m.wide {
        for f in &mut m.funcs {
            f.wide = true;
            f.code.iter_mut().for_each(Op::widen);
        }
    }
}
