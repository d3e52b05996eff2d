//! A loaded module: its types, imports, exports, segments and translated function bodies,
//! as [`super::load`] decodes and validates them.

use alloc::string::String;
use alloc::vec::Vec;

use super::binary::operators::Operator;
use super::binary::types::{ExternalKind, FuncType, GlobalType, MemoryType, TableType};
use super::error::LoadError;
use super::ir::{BranchTarget, Op};
use super::limits::Limits;

/// A constant expression (spec 3.3.10 with the extended-const proposal): one instruction, or
/// an integer expression that reads an imported global.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConstExpr {
    /// A numeric or vector constant, as slot bits; also an extended expression whose value is
    /// known when the module loads (folded by the loader).
    Value(u128),
    /// `ref.null`.
    RefNull,
    /// `ref.func f`.
    RefFunc(u32),
    /// `global.get g` of an imported global, or of an earlier one without a constant value.
    GlobalGet(u32),
    /// An extended constant expression: the instructions `Module::const_ops[start..start +
    /// len]`, evaluated on a stack at instantiation ([`ConstOp::eval`]).
    Extended { start: u32, len: u32 },
}

/// One instruction of an extended constant expression: a value pushed (`Value` or
/// `GlobalGet`), or the integer `add`, `sub` or `mul` of the two values on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConstOp {
    Push(ConstExpr),
    Arith(Operator),
}

impl ConstOp {
    /// The value of the validated expression `ops`, reading global `g` through `global`;
    /// `None` when `global` gives none. `i32` arithmetic wraps to 32 bits, `i64` to 64
    /// (spec 4.3.2 `iadd`, `isub`, `imul`).
    pub(crate) fn eval(ops: &[ConstOp], global: impl Fn(u32) -> Option<u128>) -> Option<u128> {
        let mut stack: Vec<u64> = Vec::with_capacity(ops.len());
        for op in ops {
            let v = match *op {
                ConstOp::Push(ConstExpr::Value(v)) => v as u64,
                ConstOp::Push(ConstExpr::GlobalGet(g)) => global(g)? as u64,
                ConstOp::Push(_) => return None,
                ConstOp::Arith(op) => {
                    let (b, a) = (stack.pop()?, stack.pop()?);
                    match op {
                        Operator::I32Add => (a as u32).wrapping_add(b as u32).into(),
                        Operator::I32Sub => (a as u32).wrapping_sub(b as u32).into(),
                        Operator::I32Mul => (a as u32).wrapping_mul(b as u32).into(),
                        Operator::I64Add => a.wrapping_add(b),
                        Operator::I64Sub => a.wrapping_sub(b),
                        Operator::I64Mul => a.wrapping_mul(b),
                        _ => return None,
                    }
                }
            };
            stack.push(v);
        }
        stack.pop().map(u128::from)
    }
}

/// What an import expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Module name.
    pub module: String,
    /// Field name.
    pub name: String,
    /// The expected type.
    pub ty: ImportType,
}

/// The type of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportType {
    /// A function of the module's type index.
    Func(u32),
    /// A table.
    Table(TableType),
    /// A memory.
    Memory(MemoryType),
    /// A global.
    Global(GlobalType),
    /// A tag (the exception-handling proposal) of the module's type index: an import
    /// matches a tag of exactly that function type.
    Tag(u32),
}

/// An export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// Export name.
    pub name: String,
    /// What is exported.
    pub kind: ExternalKind,
    /// Index in that kind's index space.
    pub index: u32,
}

/// An element segment.
#[derive(Debug, Clone)]
pub(crate) struct ElemSegment {
    pub mode: SegmentMode,
    pub items: Vec<ConstExpr>,
}

/// A data segment.
#[derive(Debug, Clone)]
pub(crate) struct DataSegment {
    pub mode: SegmentMode,
    /// The segment's bytes.
    pub bytes: Vec<u8>,
}

/// Whether a segment is applied at instantiation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SegmentMode {
    /// Copied at instantiation into table/memory `index` at `offset`, then dropped.
    Active { index: u32, offset: ConstExpr },
    /// Available to `memory.init` / `table.init`.
    Passive,
    /// Declares `ref.func` targets only; dropped at instantiation.
    Declared,
}

/// A body that is one constant-producing instruction and `end` (docs/content.md, "Static getters").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Getter {
    /// `i32.const C; end`.
    Const(u32),
    /// `global.get G; end`.
    Global(u32),
}

/// A `try_table` or legacy `try` of a translated body: the Wasm instructions it protects and
/// its clauses (docs/interpreter.md, "Exceptions"). A function's handlers are listed inner
/// before outer, so the first that covers an instruction and has a matching clause catches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Handler {
    /// The function-relative indices of the instructions it protects: `from..to` (the body
    /// of the `try_table`, or of the `try` up to its first `catch`, `catch_all` or
    /// `delegate`).
    pub from: u32,
    pub to: u32,
    /// Its clauses: `CompiledFunc::catches[start..start + len]`, in order.
    pub start: u32,
    pub len: u32,
}

/// What one handler clause does with an exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CatchKind {
    /// Catches an exception of the module's tag `tag` (`None`: any exception) and branches
    /// to `targets[target]` with its values; the `exnref` goes to slot `exn` when the clause
    /// keeps it (`catch_ref`, `catch_all_ref`, and every legacy clause, for `rethrow`).
    Catch { tag: Option<u32>, target: u32, exn: Option<u16> },
    /// A legacy `delegate`: the search goes on in this function among the handlers that
    /// cover instruction `from` (`u32::MAX`: in the caller).
    Delegate { from: u32 },
}

/// One translated function body.
#[derive(Debug, Clone, Default)]
pub(crate) struct CompiledFunc {
    /// The function's index in the module's function index space (imports first).
    pub index: u32,
    /// Parameters (the first slots of the frame).
    pub num_params: u32,
    /// Parameters plus declared locals.
    pub num_locals: u32,
    /// Slots the frame needs: locals plus the deepest operand stack.
    pub frame_size: u32,
    /// The internal form.
    pub code: Vec<Op>,
    /// Per op: its main instruction's position (1-based) in its fuel block.
    pub cum: Vec<u32>,
    /// Per op: the instructions of its fuel block after its main instruction (the block's
    /// count minus `cum`, wrapping when an op is charged to the next block).
    pub rem: Vec<u32>,
    /// Per op: its main instruction's function-relative index.
    pub idx: Vec<u32>,
    /// Byte offset in the module of every instruction of the body, in order.
    pub instr_offsets: Vec<u32>,
    /// The targets of `br_table`s and of `br_if`s that move values or return, and the
    /// landing places of catch clauses.
    pub targets: Vec<BranchTarget>,
    /// The exception handlers, inner before outer.
    pub handlers: Vec<Handler>,
    /// Their clauses.
    pub catches: Vec<CatchKind>,
    /// `v128.const` values.
    pub v128s: Vec<u128>,
    /// `i8x16.shuffle` lane lists.
    pub shuffles: Vec<[u8; 16]>,
    /// `(table, table)` or `(table, segment)` pairs of `table.copy` / `table.init`.
    pub pairs: Vec<(u32, u32)>,
    /// Byte offset of the body's final `end`.
    pub end_offset: u32,
    /// `Some` when the body is exactly `i32.const`/`global.get` + `end`.
    pub getter: Option<Getter>,
    /// Whether a `v128` value can be in the frame (set for every function of a module that
    /// has any, `load::wide_module`): its slots' high halves (the parallel stack) are then
    /// live, moved by branches and returns and zeroed for its locals.
    pub wide: bool,
}

/// A decoded, validated and translated module, ready to instantiate in a
/// [`Store`](super::Store). Immutable; share it with `Arc`.
#[derive(Debug, Clone, Default)]
pub struct Module {
    pub(crate) types: Vec<FuncType>,
    pub(crate) imports: Vec<Import>,
    /// Type index of every function, imported ones first.
    pub(crate) func_types: Vec<u32>,
    pub(crate) num_imported_funcs: u32,
    pub(crate) num_imported_tables: u32,
    pub(crate) num_imported_memories: u32,
    pub(crate) num_imported_globals: u32,
    pub(crate) num_imported_tags: u32,
    /// The type index of every tag, imported ones first (the exception-handling proposal).
    pub(crate) tags: Vec<u32>,
    pub(crate) tables: Vec<TableType>,
    pub(crate) memories: Vec<MemoryType>,
    pub(crate) globals: Vec<(GlobalType, ConstExpr)>,
    /// The instructions of the extended constant expressions ([`ConstExpr::Extended`]).
    pub(crate) const_ops: Vec<ConstOp>,
    /// Types of all globals, imported ones first.
    pub(crate) global_types: Vec<GlobalType>,
    pub(crate) exports: Vec<Export>,
    pub(crate) start: Option<u32>,
    pub(crate) elems: Vec<ElemSegment>,
    pub(crate) datas: Vec<DataSegment>,
    pub(crate) funcs: Vec<CompiledFunc>,
    /// Whether its functions hold `v128` values ([`CompiledFunc::wide`]: all or none).
    pub(crate) wide: bool,
}

impl Module {
    /// Decodes, validates (WebAssembly 2.0: MVP, mutable globals, sign extension, saturating
    /// conversions, multi-value, bulk memory, reference types, SIMD 128) and translates `bytes`.
    ///
    /// # Errors
    /// A [`LoadError`] with the byte offset of the first problem: malformed or invalid bytes
    /// (`Invalid`), or a module beyond `limits` (`Limit`).
    pub fn new(bytes: &[u8], limits: &Limits) -> Result<Module, LoadError> {
        super::load::load(bytes, limits)
    }

    /// The module's imports, in order.
    pub fn imports(&self) -> &[Import] {
        &self.imports
    }

    /// The module's exports, in order.
    pub fn exports(&self) -> &[Export] {
        &self.exports
    }

    /// The type of function `index` (imported functions first).
    pub fn func_type(&self, index: u32) -> Option<&FuncType> {
        self.func_types.get(index as usize).map(|&t| &self.types[t as usize])
    }

    /// The module's type `index`.
    pub fn type_at(&self, index: u32) -> Option<&FuncType> {
        self.types.get(index as usize)
    }

    /// The function type of tag `index` (imported tags first): the values its exceptions carry.
    pub fn tag_type(&self, index: u32) -> Option<&FuncType> {
        self.tags.get(index as usize).map(|&t| &self.types[t as usize])
    }

    /// Types of the module's globals (imported first).
    pub fn global_types(&self) -> &[GlobalType] {
        &self.global_types
    }

    /// The function index of the export `name`, if it exports a function by that name.
    pub fn exported_func(&self, name: &str) -> Option<u32> {
        self.exports.iter().find(|e| e.name == name && e.kind == ExternalKind::Func).map(|e| e.index)
    }

    /// The translated body of the defined function `index` (imported functions have none).
    pub(crate) fn body(&self, index: u32) -> Option<&CompiledFunc> {
        index.checked_sub(self.num_imported_funcs).and_then(|i| self.funcs.get(i as usize))
    }

    /// The module's defined memories.
    pub fn memories(&self) -> &[MemoryType] {
        &self.memories
    }

    /// The module's defined tables: initial and maximum element counts.
    pub fn tables(&self) -> impl Iterator<Item = (u64, Option<u64>)> + '_ {
        self.tables.iter().map(|t| (t.initial, t.maximum))
    }

    /// Number of functions, imported and defined.
    pub fn function_count(&self) -> u32 {
        self.num_imported_funcs + self.funcs.len() as u32
    }

    /// Number of data segments.
    pub fn data_segment_count(&self) -> usize {
        self.datas.len()
    }

    /// The active data segments, in order: `(memory index, offset, bytes)`, where the offset is
    /// `None` when it is not a constant (a `global.get` of an imported global).
    pub fn active_data(&self) -> impl Iterator<Item = (u32, Option<u32>, &[u8])> + '_ {
        self.datas.iter().filter_map(|d| match d.mode {
            SegmentMode::Active { index, offset } => {
                let at = match offset {
                    ConstExpr::Value(v) => Some(v as u32),
                    _ => None,
                };
                Some((index, at, d.bytes.as_slice()))
            }
            _ => None,
        })
    }

    /// The static getter shape of function `index` (docs/content.md, "Static getters"): `Some` when
    /// its body is exactly one `i32.const` or `global.get` followed by `end`. `None` for imported
    /// functions and every other body.
    pub fn getter(&self, index: u32) -> Option<Getter> {
        self.body(index).and_then(|b| b.getter)
    }

    /// The constant initial value (slot bits) of global `index`, when it is a defined global
    /// initialised by a numeric constant.
    pub fn global_init(&self, index: u32) -> Option<u128> {
        let defined = index.checked_sub(self.num_imported_globals)?;
        match self.globals.get(defined as usize)?.1 {
            ConstExpr::Value(v) => Some(v),
            _ => None,
        }
    }

    /// How many functions the module imports (the defined ones come after them in the
    /// function index space).
    pub fn imported_function_count(&self) -> u32 {
        self.num_imported_funcs
    }

    /// The module offset of the first instruction of defined function `index` (imports first
    /// in the index space); `None` for an import or an index past the end.
    pub fn code_offset(&self, index: u32) -> Option<u32> {
        let body = self.body(index)?;
        Some(body.instr_offsets.first().copied().unwrap_or(body.end_offset))
    }

    /// Whether the module has a start function.
    pub fn has_start(&self) -> bool {
        self.start.is_some()
    }

    /// The same module without its start function: instantiating it links, creates the
    /// entities and applies the segments, and runs nothing (the heap analyzer's visitors run
    /// over a dump's memory, where the program's start code must not run again).
    pub fn without_start(mut self) -> Module {
        self.start = None;
        self
    }
}
