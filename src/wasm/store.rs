//! The store: every function, table, memory and global of the instances created in it, the
//! value stack, the counters and the budget (docs/counting.md).

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use super::binary::proposals::Proposal;
use super::binary::types::{ExternalKind, FuncType, GlobalType, MemoryType, RefType, TableType, ValType};

use super::counters::Counters;
use super::error::{ExecError, InstantiateError, Limit, LimitExceeded, LinkError, Trap, TrapKind};
use super::exec;
use super::limits::Limits;
use super::module::{ConstExpr, ConstOp, ImportType, Module, SegmentMode};
use super::observe::{NoObserver, Observer};
use super::value::Value;

/// A function in a [`Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Func(pub(crate) u32);
/// A table in a [`Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Table(pub(crate) u32);
/// A linear memory in a [`Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Memory(pub(crate) u32);
/// A global in a [`Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Global(pub(crate) u32);
/// A tag in a [`Store`] (the exception-handling proposal): one per tag a module defines,
/// per instantiation; a module that imports a tag shares its exporter's, so exceptions of
/// both are caught by either's clauses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tag(pub(crate) u32);
/// An instance in a [`Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instance(pub(crate) u32);

/// Something an instance imports or exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extern {
    /// A function.
    Func(Func),
    /// A table.
    Table(Table),
    /// A memory.
    Memory(Memory),
    /// A global.
    Global(Global),
    /// A tag.
    Tag(Tag),
}

/// A host function: reads its arguments, writes its results (already sized to the type's
/// result count, holding defaults). Returning `Err` traps the caller with that kind.
pub type HostFn = Box<dyn FnMut(&mut Caller<'_>, &[Value], &mut [Value]) -> Result<(), TrapKind>>;

/// What a host function may see of the calling instance.
///
/// Guest memory that a host function takes in or gives back (a WASI call's iovecs, paths,
/// buffers and results) goes through [`Caller::read`] and [`Caller::write`], which check the
/// bounds and report the access to the run's observer ([`Observer::host_read`],
/// [`Observer::host_write`]), so that page tables and heat maps show I/O buffers. Reads of
/// [`Caller::memory`] itself are not observed (a memory dump, a debugging aid).
pub struct Caller<'a> {
    /// The calling instance's memory 0 (empty when it has none).
    pub memory: &'a mut Vec<u8>,
    /// Values of the calling instance's globals, in its index space, as slots: read them with
    /// [`Caller::global`].
    pub(crate) globals: &'a [u128],
    pub(crate) global_addrs: &'a [u32],
    pub(crate) global_types: &'a [GlobalType],
    /// Where observed accesses go (the run's observer, or nothing).
    pub(crate) events: &'a mut dyn HostEvents,
    /// The exact instruction count, the call instruction included.
    pub(crate) instructions: u64,
}

/// The observer as a host function sees it: [`Caller::read`] and [`Caller::write`] report
/// through it. Implemented for every [`Observer`].
pub(crate) trait HostEvents {
    fn read(&mut self, addr: u64, len: u64, instructions: u64);
    fn write(&mut self, addr: u64, len: u64, instructions: u64);
}

impl<O: Observer> HostEvents for O {
    fn read(&mut self, addr: u64, len: u64, instructions: u64) {
        if O::ENABLED && len > 0 {
            self.host_read(addr, len, instructions);
        }
    }
    fn write(&mut self, addr: u64, len: u64, instructions: u64) {
        if O::ENABLED && len > 0 {
            self.host_write(addr, len, instructions);
        }
    }
}

impl Caller<'_> {
    /// The value of the calling instance's global `index`.
    pub fn global(&self, index: u32) -> Option<Value> {
        let addr = *self.global_addrs.get(index as usize)?;
        let ty = self.global_types.get(index as usize)?;
        Some(Value::from_slot(ty.content_type, self.globals[addr as usize]))
    }

    /// Number of globals of the calling instance.
    pub fn global_count(&self) -> u32 {
        self.global_addrs.len() as u32
    }

    /// The type of the calling instance's global `index`.
    pub fn global_type(&self, index: u32) -> Option<GlobalType> {
        self.global_types.get(index as usize).copied()
    }

    /// The run's exact instruction count so far, the call instruction included
    /// (docs/counting.md): a clock that advances with the program's work.
    pub fn instructions(&self) -> u64 {
        self.instructions
    }

    /// `len` bytes of memory 0 at byte address `addr`, observed as read by the host; `None`
    /// when `[addr, addr + len)` lies outside the memory (nothing is observed then).
    pub fn read(&mut self, addr: u32, len: u32) -> Option<&[u8]> {
        if !self.in_bounds(addr, len) {
            return None;
        }
        let (start, end) = (addr as usize, addr as usize + len as usize);
        self.events.read(u64::from(addr), u64::from(len), self.instructions);
        Some(&self.memory[start..end])
    }

    /// Writes `bytes` to memory 0 at byte address `addr`, observed as written by the host;
    /// `None` (and nothing written) when the range lies outside the memory.
    pub fn write(&mut self, addr: u32, bytes: &[u8]) -> Option<()> {
        let len = u32::try_from(bytes.len()).ok()?;
        if !self.in_bounds(addr, len) {
            return None;
        }
        let (start, end) = (addr as usize, addr as usize + bytes.len());
        self.memory[start..end].copy_from_slice(bytes);
        self.events.write(u64::from(addr), bytes.len() as u64, self.instructions);
        Some(())
    }

    /// Whether `[addr, addr + len)` lies inside memory 0.
    /// (In 64 bits: on a 32-bit host `addr + len` may not fit a `usize`.)
    pub fn in_bounds(&self, addr: u32, len: u32) -> bool {
        u64::from(addr) + u64::from(len) <= self.memory.len() as u64
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum FuncKind {
    /// Defined function `index` (module-wide index) of `instance`.
    Wasm { instance: u32, index: u32 },
    /// `host_funcs[index]`.
    Host { index: u32 },
}

#[derive(Debug, Clone)]
pub(crate) struct FuncInfo {
    pub kind: FuncKind,
    pub ty: FuncType,
    /// Interned type id: equal ids ⇔ equal function types.
    pub type_id: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct MemoryInst {
    pub data: Vec<u8>,
    /// Largest size in pages (declared maximum and our limit).
    pub max_pages: u64,
    pub ty: MemoryType,
}

#[derive(Debug, Clone)]
pub(crate) struct TableInst {
    /// Slot-encoded references: 0 null, else index + 1.
    pub elems: Vec<u64>,
    pub max: u64,
    pub ty: TableType,
}

#[derive(Debug)]
pub(crate) struct InstanceData {
    pub module: Arc<Module>,
    pub funcs: Vec<u32>,
    pub tables: Vec<u32>,
    /// Memory 0's address (0 = the store's empty sentinel when there is none).
    pub mem0: u32,
    pub memories: Vec<u32>,
    pub globals: Vec<u32>,
    pub type_ids: Vec<u32>,
    /// The store tag of each of the module's tags.
    pub tags: Vec<u32>,
}

/// An exception object (the exception-handling proposal): its store tag and the values it
/// carries, each as a slot's 128 bits. An `exnref` slot holds its index in
/// [`Store`]'s `exns` plus one.
#[derive(Debug, Clone)]
pub(crate) struct Exn {
    pub tag: u32,
    pub values: Box<[u128]>,
}

/// Mutable per-instance segment state (dropped segments are emptied).
#[derive(Debug, Default)]
pub(crate) struct Segments {
    pub elems: Vec<Vec<u64>>,
    pub datas_dropped: Vec<bool>,
}

/// All runtime state: instances and their entities, the value stack, the counters and the
/// instruction limit.
pub struct Store {
    pub(crate) limits: Limits,
    pub(crate) funcs: Vec<FuncInfo>,
    pub(crate) host_funcs: Vec<HostFn>,
    pub(crate) types: Vec<FuncType>,
    pub(crate) tables: Vec<TableInst>,
    pub(crate) memories: Vec<MemoryInst>,
    pub(crate) globals: Vec<u128>,
    pub(crate) global_types: Vec<GlobalType>,
    pub(crate) instances: Vec<InstanceData>,
    pub(crate) segments: Vec<Segments>,
    /// The function type of every tag.
    pub(crate) tags: Vec<FuncType>,
    /// The exception objects of the runs (docs/interpreter.md, "Exceptions"): at most
    /// [`Limits::max_exceptions`], emptied when a call starts unless an `exnref` can outlive
    /// a call ([`Store::exn_roots`]).
    pub(crate) exns: Vec<Exn>,
    /// Whether an instance has a global or a table of `exnref`s, where an exception can
    /// outlive the call that threw it.
    pub(crate) exn_roots: bool,
    pub(crate) counters: Counters,
    /// `counters.instructions` may not exceed this.
    pub(crate) instruction_limit: u64,
    /// The value stack: one 64-bit slot per value (docs/interpreter.md, "Slots").
    pub(crate) stack: Vec<u64>,
    /// The high halves of `v128` values, slot for slot beside `stack`; allocated only once a
    /// module with such values is instantiated ([`Module`]'s `wide`).
    pub(crate) stack_hi: Vec<u64>,
    /// The call stack's storage, kept between calls so that a host calling many short
    /// functions does not grow a new one each time.
    pub(crate) frames: Vec<crate::wasm::exec::Frame>,
    /// The global whose `global.set` is reported as [`Observer::stack_pointer_write`]
    /// (an index in each instance's global index space; `None`: none is).
    pub(crate) stack_pointer: Option<u32>,
}

impl core::fmt::Debug for Store {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Store")
            .field("instances", &self.instances.len())
            .field("funcs", &self.funcs.len())
            .field("counters", &self.counters)
            .finish()
    }
}

impl Store {
    /// An empty store with these limits, no instruction limit and zero counters.
    pub fn new(limits: Limits) -> Store {
        let empty = MemoryType { initial: 0, maximum: Some(0), shared: false };
        let sentinel = MemoryInst { data: Vec::new(), max_pages: 0, ty: empty };
        Store {
            limits,
            funcs: Vec::new(),
            host_funcs: Vec::new(),
            types: Vec::new(),
            tables: Vec::new(),
            memories: vec![sentinel],
            globals: Vec::new(),
            global_types: Vec::new(),
            instances: Vec::new(),
            segments: Vec::new(),
            tags: Vec::new(),
            exns: Vec::new(),
            exn_roots: false,
            counters: Counters::default(),
            instruction_limit: u64::MAX,
            stack: Vec::new(),
            stack_hi: Vec::new(),
            frames: Vec::new(),
            stack_pointer: Some(0),
        }
    }

    /// Chooses the global whose writes observers see as [`Observer::stack_pointer_write`]:
    /// global 0 by default (LLVM's `__stack_pointer` in the modules it links, and the Content
    /// contract's rule, docs/page-table.md), another index for a module whose `name` section
    /// says so, `None` for a module without a stack pointer. Only `i32` globals are reported.
    pub fn watch_stack_pointer(&mut self, global: Option<u32>) {
        self.stack_pointer = global;
    }

    /// The limits this store enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The counters accumulated since the last [`Store::reset_counters`].
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Zeroes the counters.
    pub fn reset_counters(&mut self) {
        self.counters = Counters::default();
    }

    /// Lets the following calls execute until `counters().instructions` reaches `budget`
    /// more than it is now (setters and render share one pool when the counters are not
    /// reset in between). `None` removes the limit.
    pub fn set_budget(&mut self, budget: Option<u64>) {
        self.instruction_limit = match budget {
            Some(b) => self.counters.instructions.saturating_add(b),
            None => u64::MAX,
        };
    }

    /// Instructions left before the budget is exhausted (`u64::MAX` when unlimited).
    pub fn remaining_budget(&self) -> u64 {
        if self.instruction_limit == u64::MAX {
            u64::MAX
        } else {
            self.instruction_limit.saturating_sub(self.counters.instructions)
        }
    }

    fn intern(&mut self, ty: &FuncType) -> u32 {
        if let Some(i) = self.types.iter().position(|t| t == ty) {
            return i as u32;
        }
        self.types.push(ty.clone());
        (self.types.len() - 1) as u32
    }

    /// Adds a host function of type `ty`.
    pub fn host_func(
        &mut self,
        ty: FuncType,
        f: impl FnMut(&mut Caller<'_>, &[Value], &mut [Value]) -> Result<(), TrapKind> + 'static,
    ) -> Func {
        let type_id = self.intern(&ty);
        self.host_funcs.push(Box::new(f));
        let index = (self.host_funcs.len() - 1) as u32;
        self.funcs.push(FuncInfo { kind: FuncKind::Host { index }, ty, type_id });
        Func((self.funcs.len() - 1) as u32)
    }

    /// Adds a global.
    pub fn new_global(&mut self, ty: GlobalType, value: Value) -> Global {
        self.exn_roots |= ty.content_type == ValType::ExnRef;
        self.globals.push(value.to_slot());
        self.global_types.push(ty);
        Global((self.globals.len() - 1) as u32)
    }

    /// Adds a tag whose exceptions carry the parameters of `ty` (the exception-handling
    /// proposal), to import into a module; no other tag is equal to it.
    pub fn new_tag(&mut self, ty: FuncType) -> Tag {
        self.tags.push(ty);
        Tag((self.tags.len() - 1) as u32)
    }

    /// Adds a table of `ty.initial` elements set to `init`.
    pub fn new_table(&mut self, ty: TableType, init: Value) -> Table {
        let max = ty.maximum.unwrap_or(u32::MAX as u64).min(self.limits.max_table_elements as u64);
        let init = init.to_slot() as u64;
        self.exn_roots |= ty.element_type == RefType::ExnRef;
        self.tables.push(TableInst { elems: vec![init; ty.initial as usize], max, ty });
        Table((self.tables.len() - 1) as u32)
    }

    /// Adds a zeroed memory of `ty.initial` pages, shared if `ty.shared` (the threads
    /// proposal: it imports only where a shared memory is imported).
    ///
    /// # Errors
    /// When the initial size exceeds the memory limit.
    pub fn new_memory(&mut self, ty: MemoryType) -> Result<Memory, InstantiateError> {
        let limit_pages = self.limits.max_memory_bytes / 65536;
        if ty.initial > limit_pages {
            return Err(InstantiateError::Limit(LimitExceeded {
                limit: Limit::Memory(self.limits.max_memory_bytes),
                value: ty.initial,
            }));
        }
        let max_pages = ty.maximum.unwrap_or(65536).min(limit_pages);
        // Reserve the largest size up front: `memory.grow` then never reallocates, so a memory
        // near the limit cannot need twice its size while it grows (in a component's fixed
        // arena that would be an out-of-memory trap instead of a result).
        let (initial, reserved) = ((ty.initial * 65536) as usize, (max_pages * 65536) as usize);
        let data = if cfg!(target_arch = "wasm32") {
            // The components' allocator zeroes what it hands out: zero only the initial pages.
            let mut data = Vec::with_capacity(reserved);
            data.resize(initial, 0);
            data
        } else {
            // The system's zeroed allocation maps pages only when they are first written, so
            // the pages a run never touches cost nothing.
            let mut data = vec![0u8; reserved];
            data.truncate(initial);
            data
        };
        self.memories.push(MemoryInst { data, max_pages, ty });
        Ok(Memory((self.memories.len() - 1) as u32))
    }

    /// The type of a function.
    pub fn func_type(&self, f: Func) -> &FuncType {
        &self.funcs[f.0 as usize].ty
    }

    /// The bytes of a memory.
    pub fn memory_data(&self, m: Memory) -> &[u8] {
        &self.memories[m.0 as usize].data
    }

    /// The bytes of a memory, writable.
    pub fn memory_data_mut(&mut self, m: Memory) -> &mut [u8] {
        &mut self.memories[m.0 as usize].data
    }

    /// `memory.grow` from the host: grows `m` by `delta` pages of 64 KiB, zeroed, and returns
    /// the old size in pages; `None` (and no change) past the memory's maximum or the store's
    /// memory limit, like the instruction's −1.
    pub fn grow_memory(&mut self, m: Memory, delta: u64) -> Option<u64> {
        let mem = &mut self.memories[m.0 as usize];
        let old = mem.data.len() as u64 / 65536;
        let new = old.checked_add(delta).filter(|&n| n <= mem.max_pages)?;
        mem.data.resize(usize::try_from(new * 65536).ok()?, 0);
        Some(old)
    }

    /// The instance's function `index` (its own index space, imported functions first).
    pub fn instance_func(&self, i: Instance, index: u32) -> Option<Func> {
        self.instances[i.0 as usize].funcs.get(index as usize).map(|&f| Func(f))
    }

    /// Makes the instance's function `index` stand for `to` from now on: its direct calls,
    /// `ref.func` and exports reach `to` (a host function, say, that observes the calls a
    /// module makes to one of its own functions). Table elements already written keep the
    /// function they hold. Returns `false`, changing nothing, when there is no such function
    /// or the types differ.
    pub fn redirect_func(&mut self, i: Instance, index: u32, to: Func) -> bool {
        let Some(&from) = self.instances[i.0 as usize].funcs.get(index as usize) else { return false };
        if self.funcs[from as usize].type_id != self.funcs[to.0 as usize].type_id {
            return false;
        }
        self.instances[i.0 as usize].funcs[index as usize] = to.0;
        true
    }

    /// A global's value.
    pub fn global_get(&self, g: Global) -> Value {
        Value::from_slot(self.global_types[g.0 as usize].content_type, self.globals[g.0 as usize])
    }

    /// A global's type.
    pub fn global_type(&self, g: Global) -> GlobalType {
        self.global_types[g.0 as usize]
    }

    /// Sets a global (mutable or not: the host may initialise).
    pub fn global_set(&mut self, g: Global, v: Value) {
        self.globals[g.0 as usize] = v.to_slot();
    }

    /// The module an instance was created from.
    pub fn module(&self, i: Instance) -> &Arc<Module> {
        &self.instances[i.0 as usize].module
    }

    /// The export `name` of an instance.
    pub fn get_export(&self, i: Instance, name: &str) -> Option<Extern> {
        let inst = &self.instances[i.0 as usize];
        let e = inst.module.exports.iter().find(|e| e.name == name)?;
        Some(match e.kind {
            ExternalKind::Func => Extern::Func(Func(inst.funcs[e.index as usize])),
            ExternalKind::Table => Extern::Table(Table(inst.tables[e.index as usize])),
            ExternalKind::Memory => Extern::Memory(Memory(inst.memories[e.index as usize])),
            ExternalKind::Global => Extern::Global(Global(inst.globals[e.index as usize])),
            ExternalKind::Tag => Extern::Tag(Tag(inst.tags[e.index as usize])),
        })
    }

    /// The exported function `name`.
    pub fn get_func(&self, i: Instance, name: &str) -> Option<Func> {
        match self.get_export(i, name)? {
            Extern::Func(f) => Some(f),
            _ => None,
        }
    }

    /// The instance's memory 0.
    pub fn instance_memory(&self, i: Instance) -> Option<Memory> {
        self.instances[i.0 as usize].memories.first().map(|&m| Memory(m))
    }

    /// The instance's global `index` (its own index space, imported globals first).
    pub fn instance_global(&self, i: Instance, index: u32) -> Option<Global> {
        self.instances[i.0 as usize].globals.get(index as usize).map(|&g| Global(g))
    }

    fn eval_const(&self, module: &Module, e: ConstExpr, globals: &[u32], funcs: &[u32]) -> u128 {
        let global = |g: u32| self.globals[globals[g as usize] as usize];
        match e {
            ConstExpr::Value(v) => v,
            ConstExpr::RefNull => 0,
            ConstExpr::RefFunc(f) => funcs[f as usize] as u128 + 1,
            ConstExpr::GlobalGet(g) => global(g),
            ConstExpr::Extended { start, len } => {
                if !Proposal::ExtendedConst.runs() {
                    unreachable!();
                }
                let ops = &module.const_ops[start as usize..(start + len) as usize];
                ConstOp::eval(ops, |g| Some(global(g))).expect("a validated expression has a value")
            }
        }
    }

    /// Instantiates `module` with `imports` (one per import, in order): links, creates its
    /// entities, applies active segments in order (2.0 semantics: a failing segment traps,
    /// leaving earlier ones applied), and runs the start function under the current budget.
    ///
    /// # Errors
    /// `Link` for a missing or mistyped import, `Exec` for a trap or exhausted budget in a
    /// segment or the start function, `Limit` for memory or tables beyond the limits.
    pub fn instantiate(
        &mut self,
        module: Arc<Module>,
        imports: &[Extern],
    ) -> Result<Instance, InstantiateError> {
        self.instantiate_observed(module, imports, &mut NoObserver)
    }

    /// [`Store::instantiate`], with the start function observed by `observer`. A front end
    /// that runs everything under one observer type calls this, so that the execution loop is
    /// monomorphised once for it and not also for [`NoObserver`] (each copy is tens of
    /// kilobytes of a component's code).
    ///
    /// # Errors
    /// As [`Store::instantiate`].
    pub fn instantiate_observed<O: Observer>(
        &mut self,
        module: Arc<Module>,
        imports: &[Extern],
        observer: &mut O,
    ) -> Result<Instance, InstantiateError> {
        if imports.len() != module.imports.len() {
            return Err(InstantiateError::ImportCount {
                expected: module.imports.len() as u32,
                got: imports.len() as u32,
            });
        }
        let mut funcs = Vec::new();
        let mut tables = Vec::new();
        let mut memories = Vec::new();
        let mut globals = Vec::new();
        let mut tags = Vec::new();
        for (imp, ext) in module.imports.iter().zip(imports) {
            let bad = || {
                let kind = match imp.ty {
                    ImportType::Func(_) => ExternalKind::Func,
                    ImportType::Table(_) => ExternalKind::Table,
                    ImportType::Memory(_) => ExternalKind::Memory,
                    ImportType::Global(_) => ExternalKind::Global,
                    ImportType::Tag(_) => ExternalKind::Tag,
                };
                let (module, name) = (imp.module.clone(), imp.name.clone());
                InstantiateError::Link(Box::new(LinkError { module, name, kind }))
            };
            match (&imp.ty, ext) {
                (ImportType::Func(t), Extern::Func(f)) => {
                    if self.funcs[f.0 as usize].ty != module.types[*t as usize] {
                        return Err(bad());
                    }
                    funcs.push(f.0);
                }
                (ImportType::Table(t), Extern::Table(tb)) => {
                    let have = &self.tables[tb.0 as usize];
                    if have.ty.element_type != t.element_type
                        || !limits_match(have.elems.len() as u64, have.ty.maximum, t.initial, t.maximum)
                    {
                        return Err(bad());
                    }
                    tables.push(tb.0);
                }
                (ImportType::Memory(t), Extern::Memory(m)) => {
                    let have = &self.memories[m.0 as usize];
                    if have.ty.shared != t.shared
                        || !limits_match(
                            have.data.len() as u64 / 65536,
                            have.ty.maximum,
                            t.initial,
                            t.maximum,
                        )
                    {
                        return Err(bad());
                    }
                    memories.push(m.0);
                }
                (ImportType::Global(t), Extern::Global(g)) => {
                    if self.global_types[g.0 as usize] != *t {
                        return Err(bad());
                    }
                    globals.push(g.0);
                }
                (ImportType::Tag(t), Extern::Tag(tg)) if Proposal::ExceptionHandling.runs() => {
                    if self.tags[tg.0 as usize] != module.types[*t as usize] {
                        return Err(bad());
                    }
                    tags.push(tg.0);
                }
                _ => return Err(bad()),
            }
        }
        let inst_index = self.instances.len() as u32;
        let type_ids: Vec<u32> = module.types.clone().iter().map(|t| self.intern(t)).collect();
        for (i, _) in module.funcs.iter().enumerate() {
            let index = module.num_imported_funcs + i as u32;
            let ty_idx = module.func_types[index as usize];
            self.funcs.push(FuncInfo {
                kind: FuncKind::Wasm { instance: inst_index, index },
                ty: module.types[ty_idx as usize].clone(),
                type_id: type_ids[ty_idx as usize],
            });
            funcs.push((self.funcs.len() - 1) as u32);
        }
        // A build without exceptions (`only-2-0`) loads no module with tags or `exnref`s.
        if Proposal::ExceptionHandling.runs() {
            for &t in &module.tags[module.num_imported_tags as usize..] {
                self.tags.push(module.types[t as usize].clone());
                tags.push((self.tags.len() - 1) as u32);
            }
        }
        self.exn_roots |= Proposal::ExceptionHandling.runs()
            && (module.global_types.iter().any(|g| g.content_type == ValType::ExnRef)
                || module.tables.iter().any(|t| t.element_type == RefType::ExnRef));
        for (g_ty, init) in &module.globals {
            let v = self.eval_const(&module, *init, &globals, &funcs);
            self.globals.push(v);
            self.global_types.push(*g_ty);
            globals.push((self.globals.len() - 1) as u32);
        }
        for t_ty in &module.tables {
            if t_ty.initial > self.limits.max_table_elements as u64 {
                return Err(InstantiateError::Limit(LimitExceeded {
                    limit: Limit::TableElements(self.limits.max_table_elements as u64),
                    value: t_ty.initial,
                }));
            }
            let max = t_ty.maximum.unwrap_or(u32::MAX as u64).min(self.limits.max_table_elements as u64);
            self.tables.push(TableInst { elems: vec![0; t_ty.initial as usize], max, ty: *t_ty });
            tables.push((self.tables.len() - 1) as u32);
        }
        for m_ty in &module.memories {
            let m = self.new_memory(*m_ty)?;
            memories.push(m.0);
        }
        let mut segs = Segments::default();
        for e in &module.elems {
            let items: Vec<u64> =
                e.items.iter().map(|&x| self.eval_const(&module, x, &globals, &funcs) as u64).collect();
            segs.elems.push(items);
        }
        segs.datas_dropped = vec![false; module.datas.len()];
        let mem0 = memories.first().copied().unwrap_or(0);
        self.instances.push(InstanceData {
            module: module.clone(),
            funcs,
            tables,
            mem0,
            memories,
            globals,
            type_ids,
            tags,
        });
        self.segments.push(segs);
        let trap = |kind| InstantiateError::Exec(ExecError::Trap(Trap::outside(kind)));
        // Element segments, then data segments, in order (2.0).
        for (i, e) in module.elems.iter().enumerate() {
            match e.mode {
                SegmentMode::Active { index, offset } => {
                    let inst = &self.instances[inst_index as usize];
                    let start = self.eval_const(&module, offset, &inst.globals, &inst.funcs) as u32 as u64;
                    let t = inst.tables[index as usize] as usize;
                    let items = core::mem::take(&mut self.segments[inst_index as usize].elems[i]);
                    let table = &mut self.tables[t];
                    if start + items.len() as u64 > table.elems.len() as u64 {
                        return Err(trap(TrapKind::TableOutOfBounds));
                    }
                    table.elems[start as usize..start as usize + items.len()].copy_from_slice(&items);
                }
                SegmentMode::Declared => {
                    self.segments[inst_index as usize].elems[i].clear();
                }
                SegmentMode::Passive => {}
            }
        }
        for (i, d) in module.datas.iter().enumerate() {
            if let SegmentMode::Active { index, offset } = d.mode {
                let inst = &self.instances[inst_index as usize];
                let start = self.eval_const(&module, offset, &inst.globals, &inst.funcs) as u32 as u64;
                let mem = &mut self.memories[inst.memories[index as usize] as usize];
                if start + d.bytes.len() as u64 > mem.data.len() as u64 {
                    return Err(trap(TrapKind::MemoryOutOfBounds));
                }
                mem.data[start as usize..start as usize + d.bytes.len()].copy_from_slice(&d.bytes);
                self.segments[inst_index as usize].datas_dropped[i] = true;
            }
        }
        if let Some(start) = module.start {
            let f = Func(self.instances[inst_index as usize].funcs[start as usize]);
            self.call_observed(f, &[], observer).map_err(InstantiateError::Exec)?;
        }
        Ok(Instance(inst_index))
    }

    /// Calls `f` with `args` without observation.
    ///
    /// # Errors
    /// A trap, an exhausted budget, or arguments that do not match the function's type.
    pub fn call(&mut self, f: Func, args: &[Value]) -> Result<Vec<Value>, ExecError> {
        exec::invoke(self, f, args, &mut NoObserver)
    }

    /// Calls `f` with `args`, reporting every event to `observer`.
    ///
    /// # Errors
    /// As [`Store::call`].
    pub fn call_observed<O: Observer>(
        &mut self,
        f: Func,
        args: &[Value],
        observer: &mut O,
    ) -> Result<Vec<Value>, ExecError> {
        exec::invoke(self, f, args, observer)
    }
}

/// Import subtyping of limits (2.0): the provided size is at least the required minimum, and if
/// a maximum is required the provided one exists and is not larger.
fn limits_match(have_min: u64, have_max: Option<u64>, want_min: u64, want_max: Option<u64>) -> bool {
    if have_min < want_min {
        return false;
    }
    match (want_max, have_max) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(w), Some(h)) => h <= w,
    }
}
