//! The heap graph of a module without DWARF, from AssemblyScript's own runtime: its
//! generated visitors run in our interpreter over the dump's memory (docs/heap.md "Without
//! DWARF").
//!
//! An AssemblyScript program built with the garbage-collecting runtimes (`incremental`, the
//! default, or `minimal`) carries the functions its collector marks with:
//! `~lib/rt/__visit_members(ptr, cookie)` switches on the object's class id and calls the
//! class's `…~visit`, which calls `~lib/rt/itcms/__visit(ref, cookie)` (`tcms` in the minimal
//! runtime) once per reference the object holds; `~lib/rt/__visit_globals(cookie)` does the
//! same for every global that holds an object. `asc --debug` names them all in the `name`
//! section. So the analysis without DWARF instantiates the module (without its start
//! function), loads the dump's memory image and globals into it, replaces `__visit` by a host
//! function that records its argument, and calls `__visit_members` once per object and
//! `__visit_globals` once.
//!
//! What each part gives:
//! - edges: every `__visit` argument that is an object's payload pointer, in the visitor's
//!   order, with the address the reference was last loaded from (an observer of the run's
//!   loads), which names the slot: a field, an element, an entry;
//! - class names, once per module, by running `__visit_members` on an empty object of each
//!   class id: the first `…~visit` function it enters names the class, and the further
//!   `…~visit` functions it enters are the class's ancestors (each class's visitor calls its
//!   base class's). Classes without references have no visitor: they are named by the
//!   constructor (`X#constructor`) whose first allocation (`i32.const id` then a call of
//!   `~lib/rt/…/__new`) has their id, and ids 0–3 by the runtime's fixed classes;
//! - field names from the classes' accessors: a getter `X#get:name` loads one word at a fixed
//!   offset of `this`, a setter `X#set:name` first stores its argument there (asc keeps the
//!   accessors a program uses; a constructor uses the setters of the fields it sets);
//! - global roots: each reference `__visit_globals` visits, named by the first global it
//!   reads (`global.get`) whose value it is.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::wasm::Names;
use crate::wasm::Operator;
use crate::wasm::binary::code::{self, Body};
use crate::wasm::binary::operators::Imm;
use crate::wasm::binary::sections::{Sections, id};

use super::HeapError;
use super::graph::Graph;
use super::graph::Slot;
use super::layout::{BuiltinKind, ClassLayout, DebugInfo, Field, FieldNode};
use super::module::ModuleInfo;
use super::roots::GlobalRoot;
use super::tlsf::{Object, PtrIndex};
use super::visit_trace::{Program, Step, Tracer};
use crate::wasm::{
    Extern, FuncType, ImportType, Instance, Limits, Memory, Module, Observer, Store, ValType, Value,
};

/// `__visit_members`: `(ptr, cookie)`, dispatching on the class id at `ptr - 8`.
pub const VISIT_MEMBERS: &str = "~lib/rt/__visit_members";
/// `__visit_globals`: `(cookie)`.
pub const VISIT_GLOBALS: &str = "~lib/rt/__visit_globals";
/// The collector's `__visit(ref, cookie)` in the incremental and the minimal runtime.
pub const VISIT: [&str; 2] = ["~lib/rt/itcms/__visit", "~lib/rt/tcms/__visit"];
/// The allocator's `__new(size, id)` in the three runtimes.
pub const NEW: [&str; 3] = ["~lib/rt/itcms/__new", "~lib/rt/tcms/__new", "~lib/rt/stub/__new"];
/// The global holding the address of the runtime type table (its first word: the class
/// count).
pub const RTTI_BASE: &str = "~lib/rt/__rtti_base";
/// The classes whose ids AssemblyScript fixes (0–3), by their internal names.
pub const FIXED_CLASSES: [&str; 4] = [
    "~lib/object/Object",
    "~lib/arraybuffer/ArrayBuffer",
    "~lib/string/String",
    "~lib/arraybuffer/ArrayBufferView",
];
/// Class ids probed when the module has no `__rtti_base` to give their count.
const MAX_PROBED_CLASSES: u32 = 4096;
/// Instructions the visitors may execute per dump: this many per word of the memory image,
/// plus a fixed allowance. A consistent heap's visitors spend a few tens per reference.
const INSTRUCTIONS_PER_WORD: u64 = 64;
/// Value-stack slots of the visitors' store (the interpreter's default is 262,144).
const VALUE_STACK: u32 = 16_384;
/// A slot address for a reference whose load was not seen.
pub const UNKNOWN_SLOT: u64 = u64::MAX;

/// The runtime functions of a module without DWARF, found by name, and what is read from the
/// module once: class names, ancestors and getters.
#[derive(Debug, Clone)]
pub struct Runtime {
    module: Arc<Module>,
    visit_members: u32,
    visit: u32,
    visit_globals: u32,
    /// Global indices `__visit_globals` reads, in code order.
    globals_read: Vec<u32>,
    /// `name` section names of the globals.
    global_names: BTreeMap<u32, String>,
    /// Class name by id.
    pub classes: BTreeMap<u32, String>,
    /// Ancestor class names by id, nearest first (from the visitors each class's visitor
    /// calls).
    pub ancestors: BTreeMap<u32, Vec<String>>,
    /// Field names by class name and payload offset, from the accessors.
    pub getters: BTreeMap<(String, u64), String>,
    /// The fixed trace of each class id's visitors, where they have one (`visit_trace.rs`).
    traces: Vec<Option<Vec<Step>>>,
    /// The instance of the last run, reused while dumps fit its memory.
    vm: CachedVm,
}

/// A [`Vm`] kept between runs; a clone starts without one.
#[derive(Default)]
struct CachedVm(RefCell<Option<Vm>>);

impl Clone for CachedVm {
    fn clone(&self) -> Self {
        CachedVm::default()
    }
}

impl core::fmt::Debug for CachedVm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.0.borrow().is_some() { "CachedVm(Some(..))" } else { "CachedVm(None)" })
    }
}

/// The names in a module's `name` section: functions (borrowed from `wasm`) and globals, by
/// index.
fn names(wasm: &[u8]) -> (BTreeMap<u32, &str>, BTreeMap<u32, String>) {
    let names = Names::of_module(wasm);
    let globals = names.globals.into_iter().map(|(i, n)| (i, n.to_string())).collect();
    (names.functions.into_iter().collect(), globals)
}

/// What the static scan of the code finds.
#[derive(Default)]
struct Code<'a> {
    /// Class id by class name, from constructors.
    constructed: BTreeMap<u32, String>,
    globals_read: Vec<u32>,
    getters: BTreeMap<(String, u64), String>,
    /// Number of imported functions.
    imported: u32,
    /// The body of every defined function, in order.
    bodies: Vec<Body<'a>>,
    /// The module's sections other than custom ones, as (id, contents).
    sections: Vec<(u8, &'a [u8])>,
    /// The type index of every defined function.
    func_types: Vec<u32>,
    /// Whether a global's initializer takes a function reference.
    ref_func_in_globals: bool,
}

/// Operators read from one body at most (the accessors and constructors read are short).
const MAX_SCANNED_OPS: usize = 4096;

/// Reads the sections, the bodies of the constructors, the accessors and `__visit_globals`.
fn scan_code<'a>(wasm: &'a [u8], funcs: &BTreeMap<u32, &str>, new: &[u32], visit_globals: u32) -> Code<'a> {
    let mut code = Code::default();
    let Ok(mut sections) = Sections::new(wasm) else { return code };
    while let Ok(Some(section)) = sections.next_section() {
        if section.id != id::CUSTOM {
            code.sections.push((section.id, section.data()));
        }
        let mut r = section.contents.clone();
        match section.id {
            id::FUNCTION => {
                let n = r.len().unwrap_or(0);
                code.func_types.extend((0..n).map_while(|_| r.u32().ok()));
            }
            id::GLOBAL => {
                for _ in 0..r.len().unwrap_or(0) {
                    if r.global_type().is_err() {
                        break;
                    }
                    // The initializer, through its `end`.
                    while let Ok(ins) = r.instr() {
                        code.ref_func_in_globals |= ins.op == Operator::RefFunc;
                        if ins.op == Operator::End {
                            break;
                        }
                    }
                }
            }
            id::IMPORT => {
                for _ in 0..r.len().unwrap_or(0) {
                    let (Ok(_), Ok(_), Ok(kind)) = (r.name(), r.name(), r.u8()) else { break };
                    let read = match kind {
                        0x00 => r.u32().map(|_| ()),
                        0x01 => r.table_type().map(|_| ()),
                        0x02 => r.memory_type().map(|_| ()),
                        0x03 => r.global_type().map(|_| ()),
                        _ => break,
                    };
                    if read.is_err() {
                        break;
                    }
                    code.imported += u32::from(kind == 0x00);
                }
            }
            id::CODE => {
                for body in code::bodies(&mut r).unwrap_or_default() {
                    let index = code.imported + code.bodies.len() as u32;
                    code.bodies.push(body.clone());
                    code.scan_body(index, &body, funcs, new, visit_globals);
                }
            }
            _ => {}
        }
    }
    code
}

impl Code<'_> {
    /// What `scan_code` learns from the body of function `index`: the globals
    /// `__visit_globals` reads, the class id a constructor allocates, the field an accessor
    /// reads or writes.
    fn scan_body(
        &mut self,
        index: u32,
        body: &Body<'_>,
        funcs: &BTreeMap<u32, &str>,
        new: &[u32],
        visit_globals: u32,
    ) {
        let Some(&name) = funcs.get(&index) else { return };
        // `Class#get:field`, `Class#set:field`, `Class#constructor`: split at the last `#`
        // (a class name may hold one, a member name does not).
        let (class, member) = name.rsplit_once('#').unwrap_or((name, ""));
        let accessor =
            member.strip_prefix("get:").or_else(|| member.strip_prefix("set:")).map(|field| (class, field));
        let constructor = (member == "constructor").then_some(class);
        if index != visit_globals && accessor.is_none() && constructor.is_none() {
            return;
        }
        let mut ops = body.instrs().take(MAX_SCANNED_OPS).map(|(_, ins)| ins);
        if index == visit_globals {
            for ins in ops {
                if ins.op == Operator::GlobalGet {
                    self.globals_read.push(ins.index());
                }
            }
        } else if let Some(class) = constructor {
            // The first allocation: `i32.const id` right before a call of `__new`.
            let mut last: Option<i32> = None;
            let first_new = ops.find_map(|ins| {
                let id = match (last, ins.op) {
                    (Some(value), Operator::Call) if new.contains(&ins.index()) => Some(value as u32),
                    _ => None,
                };
                last = match ins.imm {
                    Imm::I32(v) if ins.op == Operator::I32Const => Some(v),
                    _ => None,
                };
                id
            });
            if let Some(id) = first_new {
                self.constructed.entry(id).or_insert_with(|| class.to_string());
            }
        } else if let Some((class, field)) = accessor {
            // A getter loads the word, a setter stores its argument there first.
            let first: Vec<_> = ops.take(3).collect();
            let shape: Vec<(Operator, u32)> = first.iter().map(|i| (i.op, i.index())).collect();
            use Operator as O;
            let offset = match shape.as_slice() {
                [(O::LocalGet, 0), (O::I32Load, _), (O::End, _)] => Some(first[1].memarg().offset),
                [(O::LocalGet, 0), (O::LocalGet, 1), (O::I32Store, _)] => Some(first[2].memarg().offset),
                _ => None,
            };
            if let Some(offset) = offset {
                self.getters.insert((class.to_string(), offset as u64), field.to_string());
            }
        }
    }

    /// Which defined functions the calls from `roots` can reach, by direct calls; `leaf` is
    /// kept but not followed (its body never runs: it is redirected). `None` when
    /// a reachable body calls indirectly, takes a function reference or cannot be read: then
    /// any function may run.
    fn reachable(&self, roots: &[u32], leaf: u32) -> Option<Vec<bool>> {
        let mut seen = vec![false; self.bodies.len()];
        let mut todo: Vec<u32> = roots.to_vec();
        while let Some(f) = todo.pop() {
            let Some(k) = f.checked_sub(self.imported) else { continue };
            if core::mem::replace(seen.get_mut(k as usize)?, true) || f == leaf {
                continue;
            }
            let mut r = self.bodies[k as usize].instructions().ok()?;
            while !r.eof() {
                let ins = r.instr().ok()?;
                match ins.op {
                    Operator::Call | Operator::ReturnCall => todo.push(ins.index()),
                    Operator::CallIndirect | Operator::ReturnCallIndirect | Operator::RefFunc => return None,
                    _ => {}
                }
            }
        }
        Some(seen)
    }

    /// The module with only the functions `keep` marks (and the imports), renumbered in order,
    /// `leaf`'s body `unreachable`, and the original index of each function of it. Direct calls are the only references to
    /// functions the kept bodies make ([`Code::reachable`]); exports, the start function and
    /// element segments, which name others, are left out (the visitors' runs need none). `None`
    /// when a global's initializer takes a function reference or a body cannot be read again.
    fn renumbered(&self, keep: &[bool], leaf: u32) -> Option<(Vec<u8>, Vec<u32>)> {
        if self.ref_func_in_globals {
            return None;
        }
        let mut old_of: Vec<u32> = (0..self.imported).collect();
        let mut new_of = vec![u32::MAX; self.bodies.len()];
        for (k, _) in keep.iter().enumerate().filter(|(_, kept)| **kept) {
            new_of[k] = old_of.len() as u32;
            old_of.push(self.imported + k as u32);
        }
        let map = |f: u32| match f.checked_sub(self.imported) {
            None => Some(f),
            Some(k) => new_of.get(k as usize).copied().filter(|&n| n != u32::MAX),
        };
        let mut module = wasm_encoder::Module::new();
        for &(id, data) in &self.sections {
            use wasm_encoder::SectionId;
            if id == SectionId::Function as u8 {
                let mut f = wasm_encoder::FunctionSection::new();
                for (k, _) in keep.iter().enumerate().filter(|(_, kept)| **kept) {
                    f.function(*self.func_types.get(k)?);
                }
                module.section(&f);
            } else if id == SectionId::Code as u8 {
                let mut code = wasm_encoder::CodeSection::new();
                for (k, (body, _)) in self.bodies.iter().zip(keep).enumerate().filter(|(_, (_, kept))| **kept)
                {
                    if self.imported + k as u32 == leaf {
                        code.function(&trapping_body());
                    } else {
                        code.raw(&renumber_calls(body, &map)?);
                    }
                }
                module.section(&code);
            } else if ![SectionId::Export, SectionId::Start, SectionId::Element]
                .iter()
                .any(|s| *s as u8 == id)
            {
                module.section(&wasm_encoder::RawSection { id, data });
            }
        }
        Some((module.finish(), old_of))
    }

    /// The module with every body that `keep` leaves out replaced by `unreachable` (valid for
    /// any function type), and without custom sections: what the visitors need, loaded and
    /// translated at a fraction of the cost of the whole program.
    fn reduced(&self, keep: &[bool]) -> Vec<u8> {
        let mut module = wasm_encoder::Module::new();
        for &(id, data) in &self.sections {
            if id == wasm_encoder::SectionId::Code as u8 {
                let mut code = wasm_encoder::CodeSection::new();
                for (body, &kept) in self.bodies.iter().zip(keep) {
                    if kept {
                        code.raw(body.bytes());
                    } else {
                        code.function(&trapping_body());
                    }
                }
                module.section(&code);
            } else {
                module.section(&wasm_encoder::RawSection { id, data });
            }
        }
        module.finish()
    }
}

/// What the symbolic evaluation of the visitors reads of `code`, with `visit` as the
/// recorded function and the signatures from `module` (whose type section is the program's).
fn program<'p, 'a>(code: &'p Code<'a>, module: &Module, visit: u32) -> Program<'p, 'a> {
    Program {
        imported: code.imported,
        bodies: &code.bodies,
        signatures: code
            .func_types
            .iter()
            .map(|&t| {
                let ty = module.type_at(t)?;
                let params = ty.params();
                params
                    .iter()
                    .all(|p| *p == ValType::I32)
                    .then_some((params.len() as u32, ty.results().len() as u32))
            })
            .collect(),
        visit,
    }
}

/// Loads remembered to find where a visited reference was read.
const RECENT_LOADS: usize = 32;

/// Shared between the host function that stands for `__visit` and the observer of the run.
#[derive(Default)]
struct Visits {
    /// Addresses of the latest 4-byte loads, a ring.
    recent: [u64; RECENT_LOADS],
    /// Next position in `recent`.
    next: usize,
    /// Loads remembered since the last [`Visits::forget`], up to `RECENT_LOADS`.
    loaded: usize,
    /// `(reference, slot address)` per `__visit` call: the latest remembered load that read
    /// the reference's value, [`UNKNOWN_SLOT`] when none did.
    refs: Vec<(u32, u64)>,
}

impl Visits {
    /// The address of the latest remembered load whose word in `memory` is `r` (visitors
    /// write only their shadow stack, so the words they loaded still hold what was read).
    fn read_from(&self, memory: &[u8], r: u32) -> u64 {
        (1..=self.loaded)
            .map(|k| self.recent[(self.next + RECENT_LOADS - k) % RECENT_LOADS])
            .find(|&a| super::tlsf::read_u32(memory, a) == Some(r))
            .unwrap_or(UNKNOWN_SLOT)
    }

    /// Remembers a 4-byte load at `addr`.
    fn note_load(&mut self, addr: u64) {
        self.recent[self.next] = addr;
        self.next = (self.next + 1) % RECENT_LOADS;
        self.loaded = (self.loaded + 1).min(RECENT_LOADS);
    }

    /// Forgets the remembered loads and the recorded references (before each object).
    fn forget(&mut self) {
        self.loaded = 0;
        self.refs.clear();
    }

    /// What running the visitors on `object` would record, from its class's fixed `trace`
    /// (after [`Visits::forget`]): `false`, recording nothing, when the trace does
    /// not apply, because one of its loads falls outside `memory` or the object's header does
    /// not hold the class id the trace assumed.
    fn replay(&mut self, trace: &[Step], memory: &[u8], object: &Object) -> bool {
        let payload = object.payload as u32;
        let applies = trace.iter().all(|s| match *s {
            Step::Load { at } => match super::tlsf::read_u32(memory, at.at(payload)) {
                Some(word) => !at.is_header() || word == object.rtid,
                None => false,
            },
            Step::Visit { .. } => true,
        });
        if !applies || u64::from(payload) != object.payload {
            return false;
        }
        for s in trace {
            match *s {
                Step::Load { at } => self.note_load(at.at(payload)),
                Step::Visit { at } => {
                    let r = super::tlsf::read_u32(memory, at.at(payload)).unwrap_or(0);
                    let slot = self.read_from(memory, r);
                    self.refs.push((r, slot));
                }
            }
        }
        true
    }
}

/// Sees the loads (for slot addresses) and the functions entered (for class names).
struct VisitObserver {
    visits: Rc<RefCell<Visits>>,
    /// Call depth, the visited function's own frame at 1.
    depth: u32,
    /// Functions entered below `__visit_members`, when recording them.
    entered: Option<Vec<u32>>,
}

impl Observer for VisitObserver {
    fn load(&mut self, addr: u64, len: u32, _: u64) {
        if len == 4 {
            self.visits.borrow_mut().note_load(addr);
        }
    }

    fn enter(&mut self, func: u32, _: u64) {
        self.depth += 1;
        if self.depth >= 2
            && let Some(e) = &mut self.entered
        {
            e.push(func);
        }
    }

    fn leave(&mut self, _: u64) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// What the visitors find in one dump ([`Runtime::scan`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visited {
    /// The reference graph over all objects, edges in the visitors' order.
    pub graph: Graph,
    /// Where each edge's reference was read (the address of the load, [`UNKNOWN_SLOT`] when
    /// none was seen), parallel to `graph.targets`: [`slots`] names them.
    pub reads: Vec<u64>,
    /// The global roots.
    pub globals: Vec<GlobalRoot>,
}

/// An instance of the module with `__visit` redirected to a recorder.
struct Vm {
    store: Store,
    instance: Instance,
    memory: Memory,
    visits: Rc<RefCell<Visits>>,
    visit_members: crate::wasm::Func,
    /// The largest memory the store allows, in bytes.
    max_bytes: u64,
}

impl Runtime {
    /// The runtime functions of `wasm`, or `None` when any of `__visit_members`, `__visit`
    /// and `__visit_globals` is not named in its `name` section.
    ///
    /// # Errors
    /// [`HeapError::Visitor`] when the module does not load or instantiate in the interpreter.
    pub fn find(wasm: &[u8]) -> Result<Option<Runtime>, HeapError> {
        let (funcs, global_names) = names(wasm);
        let by_name = |n: &str| funcs.iter().find(|(_, v)| **v == n).map(|(&k, _)| k);
        let (Some(visit_members), Some(visit_globals)) = (by_name(VISIT_MEMBERS), by_name(VISIT_GLOBALS))
        else {
            return Ok(None);
        };
        let Some(visit) = VISIT.iter().find_map(|n| by_name(n)) else { return Ok(None) };
        let new: Vec<u32> = NEW.iter().filter_map(|n| by_name(n)).collect();
        // Loading allocates no memory: any declared size loads, each run's store then bounds it.
        let limits =
            Limits { max_memory_bytes: 4 << 30, ..Limits::default() }.with_max_module_bytes(256 << 20);
        let mut code = scan_code(wasm, &funcs, &new, visit_globals);
        // Only the visitors and what they call run: the others need no translation. Kept and
        // renumbered where possible, else their bodies emptied, else the whole program.
        let (bytes, old_of) = match code.reachable(&[visit_members, visit_globals], visit) {
            Some(keep) => match code.renumbered(&keep, visit) {
                Some((bytes, old_of)) => (Some(bytes), Some(old_of)),
                None => (Some(code.reduced(&keep)), None),
            },
            None => (None, None),
        };
        let module = Module::new(bytes.as_deref().unwrap_or(wasm), &limits)
            .map_err(|e| HeapError::Visitor(e.to_string()))?;
        let (globals_read, getters, constructed) = (
            core::mem::take(&mut code.globals_read),
            core::mem::take(&mut code.getters),
            core::mem::take(&mut code.constructed),
        );
        let program = program(&code, &module, visit);
        let mut tracer = Tracer::new(&program, visit_members);
        // Function names by index in the module that runs.
        let run_funcs: BTreeMap<u32, &str> = match &old_of {
            Some(old_of) => {
                old_of.iter().enumerate().filter_map(|(n, o)| Some((n as u32, *funcs.get(o)?))).collect()
            }
            None => funcs.clone(),
        };
        let new_index = |old: u32| match &old_of {
            Some(o) => o.iter().position(|&x| x == old).map(|p| p as u32),
            None => Some(old),
        };
        let missing = || HeapError::Visitor("a runtime function was left out of the reduced module".into());
        let (visit_members, visit, visit_globals) = (
            new_index(visit_members).ok_or_else(missing)?,
            new_index(visit).ok_or_else(missing)?,
            new_index(visit_globals).ok_or_else(missing)?,
        );
        let rtti = global_names.iter().find(|(_, n)| n.as_str() == RTTI_BASE).map(|(&i, _)| i);
        let mut rt = Runtime {
            module: Arc::new(module.without_start()),
            visit_members,
            visit,
            visit_globals,
            globals_read,
            global_names,
            classes: BTreeMap::new(),
            ancestors: BTreeMap::new(),
            getters,
            traces: Vec::new(),
            vm: CachedVm::default(),
        };
        rt.probe_classes(&run_funcs, rtti, &mut tracer, &funcs)?;
        for (id, name) in constructed {
            rt.classes.entry(id).or_insert(name);
        }
        for (id, name) in FIXED_CLASSES.iter().enumerate() {
            rt.classes.insert(id as u32, (*name).to_string());
        }
        Ok(Some(rt))
    }

    /// Functions of the module the visitors run in, imported and defined (the program's
    /// functions that its visitors reach, when they could be picked out).
    pub fn module_functions(&self) -> u32 {
        self.module.function_count()
    }

    /// A fresh instance with `__visit` recorded and every import a function that traps, its
    /// memory able to grow to `bytes` (rounded up to whole pages) and no further: the store
    /// reserves a memory's largest size up front.
    fn vm(&self, bytes: u64) -> Result<Vm, HeapError> {
        let initial = self.module.memories().first().map_or(0, |m| m.initial);
        let pages = bytes.div_ceil(65536).max(initial).max(1);
        // Visitors nest as deep as a class's ancestry: a small value stack (which every store
        // allocates zeroed) keeps a run over a small dump cheap.
        let limits =
            Limits { max_memory_bytes: pages * 65536, max_value_stack: VALUE_STACK, ..Limits::default() };
        let mut store = Store::new(limits);
        let mut imports = Vec::new();
        for import in self.module.imports() {
            let ImportType::Func(t) = import.ty else {
                return Err(HeapError::Visitor(format!(
                    "the module imports {}.{}, which is not a function",
                    import.module, import.name
                )));
            };
            let ty = self.module.type_at(t).cloned().unwrap_or_else(|| FuncType::new([], []));
            imports
                .push(Extern::Func(store.host_func(ty, |_, _, _| Err(crate::wasm::TrapKind::Unreachable))));
        }
        let instance = store
            .instantiate(self.module.clone(), &imports)
            .map_err(|e| HeapError::Visitor(e.to_string()))?;
        let memory = store
            .instance_memory(instance)
            .ok_or_else(|| HeapError::Visitor("the module has no memory".into()))?;
        let visits = Rc::new(RefCell::new(Visits::default()));
        let v = visits.clone();
        let recorder =
            store.host_func(FuncType::new([ValType::I32, ValType::I32], []), move |caller, args, _| {
                if let Some(&Value::I32(r)) = args.first() {
                    let mut v = v.borrow_mut();
                    let at = v.read_from(caller.memory, r as u32);
                    v.refs.push((r as u32, at));
                }
                Ok(())
            });
        if !store.redirect_func(instance, self.visit, recorder) {
            return Err(HeapError::Visitor(format!("{} is not a function of (i32, i32)", VISIT[0])));
        }
        let visit_members = store
            .instance_func(instance, self.visit_members)
            .ok_or_else(|| HeapError::Visitor(format!("no function {VISIT_MEMBERS}")))?;
        Ok(Vm { store, instance, memory, visits, visit_members, max_bytes: pages * 65536 })
    }

    /// Names each class id by the visitors `__visit_members` enters for an empty object of
    /// that id, for the ids of the type table (or up to the first id that traps), and keeps
    /// each id's trace. Where there is a trace, the visitors it enters name the class
    /// (`traced_funcs`: names by function index in the whole program); where there is none
    /// (or its loads leave the empty object's memory) the interpreter runs them (`funcs`:
    /// names by index in the module that runs).
    fn probe_classes(
        &mut self,
        funcs: &BTreeMap<u32, &str>,
        rtti: Option<u32>,
        tracer: &mut Tracer<'_, '_, '_>,
        traced_funcs: &BTreeMap<u32, &str>,
    ) -> Result<(), HeapError> {
        let mut vm = self.vm(65536)?;
        if vm.store.memory_data(vm.memory).len() < 65536 {
            vm.store.grow_memory(vm.memory, 1);
        }
        let size = vm.store.memory_data(vm.memory).len() as u64;
        let count = rtti.and_then(|g| vm.store.instance_global(vm.instance, g)).and_then(|g| {
            match vm.store.global_get(g) {
                Value::I32(a) => super::tlsf::read_u32(vm.store.memory_data(vm.memory), u64::from(a as u32)),
                _ => None,
            }
        });
        // An empty object at the end of memory: a 20-byte header, 64 zero bytes of payload.
        let payload = size - 64;
        let visitor_names = |entered: &[u32], funcs: &BTreeMap<u32, &str>| -> Vec<String> {
            entered.iter().filter_map(|f| funcs.get(f)?.strip_suffix("~visit").map(str::to_string)).collect()
        };
        for id in 0..count.unwrap_or(MAX_PROBED_CLASSES).min(MAX_PROBED_CLASSES) {
            let traced = tracer.trace(id).filter(|(steps, _)| {
                steps.iter().all(|s| !matches!(s, Step::Load { at } if at.at(payload as u32) + 4 > size))
            });
            let visitors: Vec<String> = match &traced {
                Some((_, entered)) => visitor_names(entered, traced_funcs),
                None => {
                    let mem = vm.store.memory_data_mut(vm.memory);
                    mem[(payload - 20) as usize..].fill(0);
                    mem[(payload - 8) as usize..(payload - 4) as usize].copy_from_slice(&id.to_le_bytes());
                    let mut obs =
                        VisitObserver { visits: vm.visits.clone(), depth: 0, entered: Some(Vec::new()) };
                    vm.store.set_budget(Some(1 << 20));
                    let ok = vm
                        .store
                        .call_observed(
                            vm.visit_members,
                            &[Value::I32(payload as i32), Value::I32(0)],
                            &mut obs,
                        )
                        .is_ok();
                    if !ok && count.is_none() {
                        break;
                    }
                    visitor_names(&obs.entered.unwrap_or_default(), funcs)
                }
            };
            self.traces.push(traced.map(|(steps, _)| steps));
            let mut visitors = visitors.into_iter();
            if let Some(class) = visitors.next() {
                self.classes.insert(id, class);
                let mut chain: Vec<String> = Vec::new();
                for a in visitors {
                    if !chain.contains(&a) {
                        chain.push(a);
                    }
                }
                self.ancestors.insert(id, chain);
            }
        }
        *self.vm.0.borrow_mut() = Some(vm);
        Ok(())
    }

    /// Class layouts standing for the DWARF ones: one per named class, with its name, its
    /// special kind and, as fields, the references its getters read (inherited ones through
    /// the ancestors' nodes), so that class names, kinds, field names and the views work
    /// unchanged. Node 0 of `fields` is empty.
    pub fn debug_info(&self) -> DebugInfo {
        let mut fields = vec![FieldNode::default()];
        let mut node_of: BTreeMap<String, u32> = BTreeMap::new();
        let mut node = |name: &str, fields: &mut Vec<FieldNode>| -> u32 {
            if let Some(&n) = node_of.get(name) {
                return n;
            }
            let own = self
                .getters
                .range((name.to_string(), 0)..=(name.to_string(), u64::MAX))
                .map(|((_, offset), field)| Field {
                    name: field.clone(),
                    type_name: String::new(),
                    offset: *offset,
                    size: 4,
                    is_reference: true,
                })
                .collect();
            fields.push(FieldNode { own, base: None });
            let n = (fields.len() - 1) as u32;
            node_of.insert(name.to_string(), n);
            n
        };
        let mut layouts = BTreeMap::new();
        for (&id, name) in &self.classes {
            let own = node(name, &mut fields);
            // Link the chain class → nearest ancestor → … where not linked yet (a cycle, which
            // no compiler writes, is cut where it would close).
            let mut child = own;
            for a in self.ancestors.get(&id).into_iter().flatten() {
                let parent = node(a, &mut fields);
                if fields[child as usize].base.is_none()
                    && parent != child
                    && !reaches(&fields, parent, child)
                {
                    fields[child as usize].base = Some(parent);
                }
                child = parent;
            }
            let layout = ClassLayout {
                rtid: u64::from(id),
                name: name.clone(),
                fields: own,
                base: self.ancestors.get(&id).and_then(|a| a.first().cloned()),
                byte_size: 0,
                template_type: None,
                template_is_reference: false,
                kind: BuiltinKind::of(name),
                entry: None,
            };
            layouts.insert(u64::from(id), layout);
        }
        DebugInfo { layouts, globals: Vec::new(), fields }
    }

    /// Runs the visitors over one dump: the reference graph over all `objects` (edges in the
    /// visitors' order, duplicates kept), the slot of each edge ([`slot`], parallel to the
    /// graph's targets) and the global roots.
    ///
    /// # Errors
    /// [`HeapError::Visitor`] when the dump's memory does not fit the module's memory,
    /// [`HeapError::ScanLimitExceeded`] when the visitors run past their instruction budget.
    pub fn scan(
        &self,
        module: &ModuleInfo<'_>,
        memory: &[u8],
        globals: &[u32],
        objects: &[Object],
        index: &PtrIndex,
    ) -> Result<Visited, HeapError> {
        let mut cached = self.vm.0.borrow_mut();
        if cached.as_ref().is_none_or(|vm| vm.max_bytes < memory.len() as u64) {
            *cached = Some(self.vm(memory.len() as u64)?);
        }
        let Some(vm) = cached.as_mut() else { unreachable!("set above") };
        let have = vm.store.memory_data(vm.memory).len() as u64;
        let want = (memory.len() as u64).div_ceil(65536);
        if want > have / 65536 && vm.store.grow_memory(vm.memory, want - have / 65536).is_none() {
            return Err(HeapError::Visitor(format!(
                "the dump's memory of {} bytes is larger than the module's memory can grow",
                memory.len()
            )));
        }
        // The dump's image, and zeros past it (the last run's memory may have been larger).
        let image = vm.store.memory_data_mut(vm.memory);
        image[..memory.len()].copy_from_slice(memory);
        image[memory.len()..].fill(0);
        let values = module.global_values(globals);
        for (i, v) in values.iter().enumerate() {
            if let (Some(v), Some(g)) = (v, vm.store.instance_global(vm.instance, i as u32))
                && vm.store.global_type(g).content_type == ValType::I32
            {
                vm.store.global_set(g, Value::I32(*v as i32));
            }
        }
        let limit = INSTRUCTIONS_PER_WORD * (memory.len() as u64 / 4) + (1 << 24);
        vm.store.set_budget(Some(limit));
        let exhausted = HeapError::ScanLimitExceeded { limit };
        let mut obs = VisitObserver { visits: vm.visits.clone(), depth: 0, entered: None };
        let (mut offsets, mut targets, mut reads) =
            (Vec::with_capacity(objects.len() + 1), Vec::new(), Vec::new());
        offsets.push(0);
        for o in objects {
            vm.visits.borrow_mut().forget();
            let trace = self.traces.get(o.rtid as usize).and_then(Option::as_deref);
            if !trace.is_some_and(|t| vm.visits.borrow_mut().replay(t, memory, o)) {
                obs.depth = 0;
                let args = [Value::I32(o.payload as u32 as i32), Value::I32(0)];
                if let Err(crate::wasm::ExecError::BudgetExhausted { .. }) =
                    vm.store.call_observed(vm.visit_members, &args, &mut obs)
                {
                    return Err(exhausted);
                }
            }
            for &(r, at) in &vm.visits.borrow().refs {
                if r != 0
                    && let Some(i) = index.get(r)
                {
                    targets.push(i);
                    reads.push(at);
                }
            }
            offsets.push(targets.len());
        }
        let roots = self.global_roots(vm, &mut obs, index, objects, &values)?;
        Ok(Visited { graph: Graph { offsets, targets }, reads, globals: roots })
    }

    /// The objects `__visit_globals` visits, each named by the first global it reads that
    /// holds it.
    fn global_roots(
        &self,
        vm: &mut Vm,
        obs: &mut VisitObserver,
        index: &PtrIndex,
        objects: &[Object],
        values: &[Option<u32>],
    ) -> Result<Vec<GlobalRoot>, HeapError> {
        vm.visits.borrow_mut().refs.clear();
        let f = vm
            .store
            .instance_func(vm.instance, self.visit_globals)
            .ok_or_else(|| HeapError::Visitor(format!("no function {VISIT_GLOBALS}")))?;
        // A trap leaves the references visited before it.
        let _ = vm.store.call_observed(f, &[Value::I32(0)], obs);
        let refs: Vec<u32> = vm.visits.borrow().refs.iter().map(|&(r, _)| r).collect();
        let mut used: Vec<u32> = Vec::new();
        let mut out = Vec::new();
        for r in refs {
            let Some(i) = (r != 0).then(|| index.get(r)).flatten() else { continue };
            let global = self
                .globals_read
                .iter()
                .copied()
                .find(|g| !used.contains(g) && values.get(*g as usize).copied().flatten() == Some(r));
            let Some(g) = global else { continue };
            used.push(g);
            let rtid = objects[i as usize].rtid;
            out.push(GlobalRoot {
                name: self.global_names.get(&g).cloned().unwrap_or_else(|| format!("global[{g}]")),
                class_name: self.classes.get(&rtid).cloned().unwrap_or_else(|| format!("Class#{rtid}")),
                global_index: u64::from(g),
                value: r,
            });
        }
        Ok(out)
    }

    /// The field name of the word at payload offset `offset` of an object of class `rtid`:
    /// from its own getters or its ancestors', nearest first.
    pub fn field_name(&self, rtid: u32, offset: u64) -> Option<&str> {
        let own = self.classes.get(&rtid)?;
        let ancestors = self.ancestors.get(&rtid).map(Vec::as_slice).unwrap_or(&[]);
        core::iter::once(own)
            .chain(ancestors)
            .find_map(|c| self.getters.get(&(c.clone(), offset)))
            .map(String::as_str)
    }
}

/// Whether `from`'s base links reach `to`.
fn reaches(fields: &[FieldNode], from: u32, to: u32) -> bool {
    let mut at = Some(from);
    let mut steps = 0;
    while let Some(n) = at {
        if n == to {
            return true;
        }
        steps += 1;
        if steps > fields.len() {
            return true;
        }
        at = fields[n as usize].base;
    }
    false
}

/// The slot of every edge of `graph` ([`slot`]), from where its reference was read
/// (`reads`, parallel to `graph.targets`, as [`Runtime::scan`] gives them).
pub fn slots(memory: &[u8], objects: &[Object], graph: &Graph, reads: &[u64], info: &DebugInfo) -> Vec<Slot> {
    let mut chain = Vec::new();
    let mut out = Vec::with_capacity(reads.len());
    for (o, edges) in objects.iter().zip(graph.offsets.windows(2)) {
        for e in edges[0]..edges[1] {
            let r = objects[graph.targets[e] as usize].payload as u32;
            out.push(slot(memory, o, info, r, reads[e], &mut chain));
        }
    }
    out
}

/// Payload words searched for a reference whose load was not seen.
const SEARCHED_WORDS: u64 = 64;

/// The slot of the reference `r` of `object` that its visitor loaded from `address`
/// ([`UNKNOWN_SLOT`] when no remembered load read it). A word of the payload is a field of
/// its class (named by the accessors' offsets), a StaticArray's element or a SmallTuple's
/// slot; a word of an Array's elements (from `dataStart`, `length_` of them) is an element; a
/// key or value word of a Map's or Set's entries (the entry's stride being the buffer's size
/// over `entriesCapacity`, its last word the `taggedNext` link) is an entry's key (offset 0),
/// value, or a Set's element. A load elsewhere (a word that held the same value by chance,
/// like an entry's link to the first entry) gives way to the first of the first
/// 64 payload words holding `r`; without either, the slot is the address.
pub fn slot(
    memory: &[u8],
    object: &Object,
    info: &DebugInfo,
    r: u32,
    address: u64,
    chain: &mut Vec<u32>,
) -> Slot {
    let p = object.payload;
    let end = p + u64::from(object.rt_size);
    let word = |a: u64| super::tlsf::read_u32(memory, a);
    let layout = info.layouts.get(&u64::from(object.rtid));
    let kind = layout.and_then(|l| l.kind);
    let mut classify = |address: u64| -> Option<Slot> {
        if address >= p && address < end {
            let k = address - p;
            match kind {
                Some(BuiltinKind::StaticArray) => return Some(Slot::Element(k / 4)),
                Some(BuiltinKind::SmallTuple) => return Some(Slot::TupleSlot(k / 4)),
                _ => {}
            }
            if let Some(l) = layout {
                info.chain(l, chain);
                for &node in chain.iter().rev() {
                    if let Some(f) = info.fields[node as usize].own.iter().position(|f| f.offset == k) {
                        return Some(Slot::Field { node, field: f as u32 });
                    }
                }
            }
            return Some(Slot::Offset(k));
        }
        match kind {
            // Array: buffer, dataStart, byteLength, length_.
            Some(BuiltinKind::Array) => {
                let data_start = u64::from(word(p + 4)?);
                let length = u64::from(word(p + 12)?);
                (address >= data_start && address < data_start + 4 * length)
                    .then(|| Slot::Element((address - data_start) / 4))
            }
            // Map and Set: buckets, bucketsMask, entries, entriesCapacity, …
            Some(BuiltinKind::MapOrSet) => {
                let entries = u64::from(word(p + 8)?);
                let capacity = u64::from(word(p + 12)?);
                let size = u64::from(word(entries.checked_sub(4)?)?);
                if capacity == 0 || address < entries || address >= entries + size {
                    return None;
                }
                let stride = (size / capacity).max(8);
                let (entry, at) = ((address - entries) / stride, (address - entries) % stride);
                let set = layout.is_some_and(|l| l.name.starts_with("~lib/set/"));
                (at + 4 < stride).then_some(Slot::MapEntry { entry, key: at == 0, set })
            }
            _ => None,
        }
    };
    if address != UNKNOWN_SLOT
        && let Some(s) = classify(address)
    {
        return s;
    }
    let in_payload =
        (0..SEARCHED_WORDS).map(|k| p + 4 * k).take_while(|&a| a + 4 <= end).find(|&a| word(a) == Some(r));
    match in_payload {
        Some(a) => classify(a).unwrap_or(Slot::Offset(a - p)),
        None => Slot::Read(address),
    }
}

/// `unreachable`: a body valid for any function type, for the functions that never run.
fn trapping_body() -> wasm_encoder::Function {
    let mut f = wasm_encoder::Function::new([]);
    f.instructions().unreachable().end();
    f
}

/// The bytes of `body` (locals and code) with the function index of every `call` replaced by
/// `map`'s (`None` when a callee has no new index or the body does not read).
fn renumber_calls(body: &Body<'_>, map: &impl Fn(u32) -> Option<u32>) -> Option<Vec<u8>> {
    let bytes = body.bytes();
    let base = body.offset();
    let mut r = body.instructions().ok()?;
    let (mut out, mut copied) = (Vec::with_capacity(bytes.len()), 0usize);
    while !r.eof() {
        let at = r.offset() - base;
        let ins = r.instr().ok()?;
        if ins.op == Operator::Call {
            let end = r.offset() - base;
            out.extend_from_slice(&bytes[copied..at]);
            out.push(0x10);
            wasm_encoder::Encode::encode(&map(ins.index())?, &mut out);
            copied = end;
        }
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::visit_trace::Address;
    use super::*;
    use crate::heap::Dump;
    use crate::heap::tlsf;

    /// A module with the runtime's three functions and four classes: 4 loads two fields, 5
    /// branches on a field's value, 6 branches on the cookie and calls its base class's
    /// visitor (4's), 7 has none.
    const CLASSES: &str = r#"(module
      (memory 1)
      (func $~lib/rt/itcms/__visit (param i32 i32))
      (func $~lib/rt/__visit_globals (param i32))
      (func $A~visit (param i32 i32)
        local.get 0 i32.load local.get 1 call $~lib/rt/itcms/__visit
        local.get 0 i32.const 4 i32.add i32.load offset=8 local.get 1 call $~lib/rt/itcms/__visit)
      (func $B~visit (param i32 i32) (local i32)
        local.get 0 i32.load local.tee 2
        if local.get 2 local.get 1 call $~lib/rt/itcms/__visit end)
      (func $C~visit (param i32 i32)
        local.get 0 local.get 1 call $A~visit
        local.get 1 i32.eqz
        if (block local.get 0 i32.load offset=16 local.get 1 call $~lib/rt/itcms/__visit br 0) end
        i32.const 0 local.get 1 call $~lib/rt/itcms/__visit)
      (func $~lib/rt/__visit_members (param i32 i32)
        block block block block block
          local.get 0 i32.const 8 i32.sub i32.load
          br_table 3 3 3 3 0 1 2 3 4
        end local.get 0 local.get 1 call $A~visit return
        end local.get 0 local.get 1 call $B~visit return
        end local.get 0 local.get 1 call $C~visit return
        end return
        end unreachable))"#;

    fn at(delta: i32, offset: u32) -> Address {
        Address { delta, offset }
    }

    #[test]
    fn traces_follow_constant_branches_and_stop_at_data_dependent_ones() {
        let wasm = wat::parse_str(CLASSES).unwrap();
        let rt = Runtime::find(&wasm).unwrap().expect("the runtime functions are named");
        assert!(at(-8, 0).is_header() && at(-12, 4).is_header() && !at(0, 0).is_header());
        let header = Step::Load { at: at(-8, 0) };
        let load = |d, o| Step::Load { at: at(d, o) };
        let visit = |d, o| Step::Visit { at: at(d, o) };
        let a = vec![header, load(0, 0), visit(0, 0), load(4, 8), visit(4, 8)];
        assert_eq!(rt.traces[4].as_deref(), Some(a.as_slice()));
        assert_eq!(rt.traces[5], None, "B branches on the word it loads");
        let mut c = a.clone();
        c.extend([load(0, 16), visit(0, 16)]);
        assert_eq!(rt.traces[6].as_deref(), Some(c.as_slice()));
        assert_eq!(rt.traces[7].as_deref(), Some(&[header][..]));
        assert_eq!(rt.traces[0].as_deref(), Some(&[header][..]), "ids 0-3 return at once");
        // Id 8 reaches `unreachable`: the probe stops there.
        assert_eq!(rt.traces.len(), 8);
        // Names from the traces (A, C) and from the interpreter (B) alike.
        let name = |id: u32| rt.classes.get(&id).map(String::as_str);
        assert_eq!((name(4), name(5), name(6), name(7)), (Some("A"), Some("B"), Some("C"), None));
        assert_eq!(rt.ancestors.get(&6), Some(&vec!["A".to_string()]));
        assert_eq!(rt.ancestors.get(&4), Some(&vec![]));
    }

    /// The evaluation ends on any code, with or without a trace: every defined function of
    /// 300 wasm-smith modules (WebAssembly 2.0 without SIMD) traced as `__visit_members`, with
    /// each of the first four functions as `__visit`.
    #[test]
    fn tracing_arbitrary_code_ends() {
        let mut seed = 0x2545_F491_4F6C_DD1D_u64;
        let (mut traced, mut loaded, mut tried) = (0, 0, 0);
        for _ in 0..300 {
            let bytes: Vec<u8> = (0..4096)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let mut u = arbitrary::Unstructured::new(&bytes);
            let config = wasm_smith::Config {
                min_funcs: 4,
                min_types: 2,
                max_imports: 0,
                min_memories: 1,
                max_memories: 1,
                // WebAssembly 2.0 without SIMD.
                memory64_enabled: false,
                simd_enabled: false,
                relaxed_simd_enabled: false,
                gc_enabled: false,
                exceptions_enabled: false,
                threads_enabled: false,
                shared_everything_threads_enabled: false,
                tail_call_enabled: false,
                custom_page_sizes_enabled: false,
                wide_arithmetic_enabled: false,
                extended_const_enabled: false,
                custom_descriptors_enabled: false,
                ..wasm_smith::Config::default()
            };
            let Ok(m) = wasm_smith::Module::new(config, &mut u) else { continue };
            let wasm = m.to_bytes();
            let Ok(module) = Module::new(&wasm, &Limits::default()) else { continue };
            let code = scan_code(&wasm, &BTreeMap::new(), &[], u32::MAX);
            let functions = code.imported + code.bodies.len() as u32;
            loaded += 1;
            for visit in 0..functions.min(4) {
                let program = program(&code, &module, visit);
                for start in code.imported..functions {
                    let mut tracer = Tracer::new(&program, start);
                    for rtid in 0..3 {
                        tried += 1;
                        traced += usize::from(tracer.trace(rtid).is_some());
                    }
                }
            }
        }
        // Random code rarely stays within what the evaluation follows (900 of 14,064 when
        // written): what is checked is that it ends, on many functions, both ways.
        assert!(
            loaded >= 100 && tried >= 3000 && traced > 0,
            "{loaded} modules, {tried} tried, {traced} traced"
        );
    }

    /// The AssemblyScript fixtures of `make as-fixtures` (module without DWARF, dump).
    const FIXTURES: &[(&str, &str)] = &[
        ("leak.no-dwarf.wasm", "leak.1.dump"),
        ("leak.no-dwarf.wasm", "leak.2.dump"),
        ("dwarf_fixture.no-dwarf.wasm", "dwarf_fixture.1.dump"),
        ("alloc_free.no-dwarf.wasm", "alloc_free.1.dump"),
        ("alloc_free.no-dwarf.wasm", "alloc_free.2.dump"),
        ("sessions.no-dwarf.wasm", "sessions.1.dump"),
    ];

    fn fixture(name: &str) -> Vec<u8> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/assemblyscript/build").join(name);
        std::fs::read(&path).unwrap_or_else(|_| {
            panic!("missing {}: run `make as-fixtures` first (`make test` does it)", path.display())
        })
    }

    /// The traces replayed give what the interpreter gives, on the fixtures' dumps and on
    /// copies whose payload words are overwritten at random (with other objects' addresses,
    /// zero or noise), so that the untraced visitors' branches go every way too.
    #[test]
    fn replayed_traces_equal_the_interpreter() {
        let mut traced_classes = 0;
        for &(wasm, dump) in FIXTURES {
            let wasm = fixture(wasm);
            let bytes = fixture(dump);
            let dump = Dump::parse(&bytes).unwrap();
            let module = ModuleInfo::read(&wasm).unwrap();
            let rt = Runtime::find(&wasm).unwrap().unwrap();
            let untraced = Runtime { traces: Vec::new(), ..rt.clone() };
            traced_classes += rt.traces.iter().filter(|t| t.as_ref().is_some_and(|t| t.len() > 1)).count();
            let objects = tlsf::walk(dump.memory, dump.heap_base).unwrap();
            let index = PtrIndex::new(&objects);
            let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for round in 0..40 {
                let mut memory = dump.memory.to_vec();
                if round > 0 {
                    for _ in 0..16 {
                        let o = &objects[next() as usize % objects.len()];
                        if o.rt_size < 4 {
                            continue;
                        }
                        let word = o.payload as usize + (next() as usize % (o.rt_size as usize / 4)) * 4;
                        let value = match next() % 3 {
                            0 => objects[next() as usize % objects.len()].payload as u32,
                            1 => 0,
                            _ => next() as u32,
                        };
                        memory[word..word + 4].copy_from_slice(&value.to_le_bytes());
                    }
                }
                let scan = |rt: &Runtime| rt.scan(&module, &memory, &dump.globals, &objects, &index);
                let (replayed, interpreted) = (scan(&rt), scan(&untraced));
                assert_eq!(replayed, interpreted, "round {round}");
            }
        }
        assert!(traced_classes >= 3, "the fixtures' plain classes have traces ({traced_classes})");
    }
}
