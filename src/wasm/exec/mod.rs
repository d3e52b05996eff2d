//! The execution loop: walks the internal form of [`super::ir`], monomorphised over an
//! [`Observer`] and over precise budget mode.
//!
//! Counting (docs/counting.md, "Fuel blocks"): a [`Op::Fuel`] charges its whole block at once;
//! a taken branch (direct, or through the function's target table) charges the block it lands
//! in itself and continues after that block's `Fuel`. If the budget cannot cover a block, the
//! loop switches to its precise instantiation, which enters every block through its `Fuel` and
//! checks before every op whether that op's instruction still fits, so that a run stops after
//! exactly `budget` instructions. At a trap the count is corrected to the trapping instruction
//! with the op's place in its block.
//!
//! This module is the loop and its control flow (branches, calls, returns, the budget). The
//! data side of the instructions lives beside it, one concern per module: [`memory`] (every
//! linear-memory access: effective address, bounds, access counters, observer events),
//! [`table`] (the table instructions), and the pure value semantics in `num` (scalar and
//! SIMD lane math).

use alloc::vec;
use alloc::vec::Vec;

use super::binary::proposals::Proposal;
use super::binary::types::{FuncType, ValType};
use super::counters::Counters;
use super::error::{ExecError, FuncIndex, ModuleOffset, SignatureMismatch, Trap, TrapKind};
use super::ir::{Binop, FRAME_SLOTS, Op, TargetKind, TrapBinop, TrapUnop, Unop};
use super::module::CatchKind;
use super::module::CompiledFunc;
use super::num;
use super::num::simd;
use super::observe::Observer;
use super::store::{Caller, Exn, Func, FuncInfo, FuncKind, HostFn, InstanceData, MemoryInst, Store};
use super::value::Value;
use alloc::boxed::Box;

mod memory;
mod table;

/// Arguments (and results) of a host call passed without a heap allocation.
const HOST_VALUES: usize = 8;

/// Calls host function `f` of type `ty` from the loop: its arguments are the slots from `at` of
/// the frame at `fp`, its results go back to the same slots (translation gave the frame room
/// for them). Arguments and results are passed in fixed buffers when they fit, else on the
/// heap. One copy, out of line, for both call operators.
#[inline(never)]
fn call_host(
    f: &mut HostFn,
    ty: &FuncType,
    caller: &mut Caller<'_>,
    frame: &mut [u64; FRAME_SLOTS],
    hi: &mut [u64],
    fp: usize,
    at: usize,
) -> Result<(), TrapKind> {
    let (params, res) = (ty.params(), ty.results());
    let (mut arg_buf, mut res_buf) = ([Value::I32(0); HOST_VALUES], [Value::I32(0); HOST_VALUES]);
    let (mut arg_vec, mut res_vec) = (Vec::new(), Vec::new());
    let (args, results) = if params.len() <= HOST_VALUES && res.len() <= HOST_VALUES {
        (&mut arg_buf[..params.len()], &mut res_buf[..res.len()])
    } else {
        arg_vec.resize(params.len(), Value::I32(0));
        res_vec.resize(res.len(), Value::I32(0));
        (&mut arg_vec[..], &mut res_vec[..])
    };
    for (i, (a, &t)) in args.iter_mut().zip(params).enumerate() {
        *a = slot_value(frame, hi, fp, at + i, t);
    }
    for (r, &t) in results.iter_mut().zip(res) {
        *r = Value::default_of(t);
    }
    f(caller, args, results)?;
    for (i, &v) in results.iter().enumerate() {
        put_value(frame, hi, fp, at + i, v);
    }
    Ok(())
}

/// The index of the import of `inst` that store function `callee` (a host function) was
/// linked to; `None` when `inst` does not import it.
#[cold]
fn import_of(inst: &InstanceData, callee: u32) -> Option<u32> {
    let imported = inst.module.num_imported_funcs as usize;
    inst.funcs[..imported].iter().position(|&f| f == callee).map(|i| i as u32)
}

/// A suspended caller.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    func: u32,
    pc: u32,
    fp: u32,
}

/// How the loop stopped.
enum Stop {
    /// The entry function returned; its results are at slots `0..n`.
    Done,
    /// The budget cannot cover the block at `pc`: rerun from here in precise mode.
    Precise,
    Trap(TrapKind),
    /// Budget exhausted; the next instruction's byte offset.
    Exhausted(u32),
}

/// The registers of the loop, kept across a switch to precise mode.
struct State {
    func: u32,
    pc: usize,
    fp: usize,
    block_base: u64,
    block_first: u32,
    frames: Vec<Frame>,
}

/// A scalar's bits in a 64-bit slot: its low bits, zero-extended (docs/interpreter.md, "Slots").
trait Slot: Sized {
    fn get(x: u64) -> Self;
    fn put(self) -> u64;
}
macro_rules! slot_int {
    ($($t:ty => $u:ty),*) => {$(
        impl Slot for $t {
            #[inline(always)]
            fn get(x: u64) -> Self { x as $u as $t }
            #[inline(always)]
            fn put(self) -> u64 { self as $u as u64 }
        }
    )*};
}
slot_int!(u32 => u32, i32 => u32, u64 => u64, i64 => u64);
impl Slot for f32 {
    #[inline(always)]
    fn get(x: u64) -> Self {
        f32::from_bits(x as u32)
    }
    #[inline(always)]
    fn put(self) -> u64 {
        self.to_bits() as u64
    }
}
impl Slot for f64 {
    #[inline(always)]
    fn get(x: u64) -> Self {
        f64::from_bits(x)
    }
    #[inline(always)]
    fn put(self) -> u64 {
        self.to_bits()
    }
}

fn body_of(instances: &[InstanceData], kind: FuncKind) -> (&InstanceData, &CompiledFunc) {
    match kind {
        FuncKind::Wasm { instance, index } => {
            let inst = &instances[instance as usize];
            (inst, inst.module.body(index).expect("a Wasm function has a body"))
        }
        FuncKind::Host { .. } => unreachable!("host functions have no body"),
    }
}

/// Runs `f(args)` to completion, a trap, or budget exhaustion.
pub(crate) fn invoke<O: Observer>(
    store: &mut Store,
    f: Func,
    args: &[Value],
    obs: &mut O,
) -> Result<Vec<Value>, ExecError> {
    let info = store.funcs.get(f.0 as usize).ok_or(ExecError::UnknownFunc)?;
    let ty = info.ty.clone();
    if args.len() != ty.params().len() || args.iter().zip(ty.params()).any(|(a, t)| a.ty() != *t) {
        return Err(ExecError::Signature(Box::new(SignatureMismatch {
            expected: ty.params().into(),
            got: args.iter().map(Value::ty).collect(),
        })));
    }
    let results_len = ty.results().len();
    if let FuncKind::Host { index } = info.kind {
        let mut results: Vec<Value> = ty.results().iter().map(|t| Value::default_of(*t)).collect();
        let mut empty = Vec::new();
        let mut caller = Caller {
            memory: &mut empty,
            globals: &store.globals,
            global_addrs: &[],
            global_types: &[],
            events: obs,
            instructions: store.counters.instructions,
        };
        return match (store.host_funcs[index as usize])(&mut caller, args, &mut results) {
            Ok(()) => Ok(results),
            Err(kind) => Err(ExecError::Trap(Trap::outside(kind))),
        };
    }
    let (_, body) = body_of(&store.instances, info.kind);
    let need = body.frame_size.max(results_len as u32) as usize;
    if need > store.limits.max_value_stack as usize {
        return Err(ExecError::Trap(Trap::outside(TrapKind::StackOverflow)));
    }
    // Every frame is viewed as a fixed-size array of FRAME_SLOTS slots (so that u16 slot
    // indices need no bounds checks): the stack extends that far past its limit.
    let len = store.limits.max_value_stack as usize + FRAME_SLOTS;
    // A zeroed allocation: natively, the system maps the pages a run never reaches lazily.
    if store.stack.len() < len {
        store.stack = vec![0; len];
    }
    if store.stack_hi.len() < len && store.instances.iter().any(|i| i.module.wide) {
        store.stack_hi = vec![0; len];
    }
    let frame = <&mut [u64; FRAME_SLOTS]>::try_from(&mut store.stack[..FRAME_SLOTS])
        .expect("the stack extends FRAME_SLOTS past its limit");
    frame[..body.num_locals as usize].fill(0);
    if body.wide {
        zero_high(&mut store.stack_hi, 0, body.num_locals as usize);
    }
    for (i, &a) in args.iter().enumerate() {
        put_value(frame, &mut store.stack_hi, 0, i, a);
    }
    // No exception of an earlier call can still be reached unless a global or a table may
    // hold an `exnref`.
    if Proposal::ExceptionHandling.runs() && !store.exn_roots {
        store.exns.clear();
    }
    let mut state = State {
        func: f.0,
        pc: 0,
        fp: 0,
        block_base: store.counters.instructions,
        block_first: 0,
        frames: core::mem::take(&mut store.frames),
    };
    state.frames.clear();
    if let FuncKind::Wasm { index, .. } = info.kind {
        obs.enter(index, store.counters.instructions);
    }
    let mut stop = run::<O, false>(store, &mut state, obs, false);
    if let Stop::Precise = stop {
        // With `one-loop` the precise mode is the same copy of the loop with a runtime flag.
        stop = if cfg!(feature = "one-loop") {
            run::<O, false>(store, &mut state, obs, true)
        } else {
            run::<O, true>(store, &mut state, obs, true)
        };
    }
    store.frames = core::mem::take(&mut state.frames);
    match stop {
        Stop::Done => {
            let frame = <&[u64; FRAME_SLOTS]>::try_from(&store.stack[..FRAME_SLOTS])
                .expect("the stack extends FRAME_SLOTS past its limit");
            Ok(ty
                .results()
                .iter()
                .enumerate()
                .map(|(i, &t)| slot_value(frame, &store.stack_hi, 0, i, t))
                .collect())
        }
        Stop::Trap(kind) => {
            let offset = ModuleOffset(trap_offset(store, &state));
            Err(ExecError::Trap(Trap { kind, offset, func: current_func(store, &state) }))
        }
        Stop::Exhausted(offset) => Err(ExecError::BudgetExhausted {
            offset: ModuleOffset(offset),
            func: current_func(store, &state),
        }),
        Stop::Precise => unreachable!("precise mode never asks for precise mode"),
    }
}

/// The function (in its module's index space) of the frame that was executing when the loop
/// stopped: the one holding the trapping or next instruction.
fn current_func(store: &Store, state: &State) -> Option<FuncIndex> {
    match store.funcs.get(state.func as usize)?.kind {
        FuncKind::Wasm { index, .. } => Some(FuncIndex(index)),
        FuncKind::Host { .. } => None,
    }
}

fn trap_offset(store: &Store, state: &State) -> u32 {
    let (_, body) = body_of(&store.instances, store.funcs[state.func as usize].kind);
    body.idx.get(state.pc).and_then(|&i| body.instr_offsets.get(i as usize)).copied().unwrap_or(0)
}

/// The value of a binary operation on two slots (`super::ir::for_each_binop`). Inlined with a
/// constant `op`, it folds to the one expression.
#[inline(always)]
fn eval_binop(op: Binop, a: u64, b: u64) -> u64 {
    macro_rules! ex_binop {
        ($($name:ident ( $ta:ty, $tb:ty ) -> $out:ty = |$x:ident, $y:ident| $e:expr;)*) => {
            match op { $( Binop::$name => { let $x = <$ta as Slot>::get(a); let $y = <$tb as Slot>::get(b); <$out as Slot>::put($e) } )* }
        };
    }
    super::ir::for_each_binop!(ex_binop)
}

/// A binary operation chosen at run time: the ops without a variant of their own (floats,
/// the rarer integer ops, comparisons that branch on `i64` and floats). Out of line, so that
/// the loop holds one copy of the table instead of one per handler.
#[inline(never)]
fn eval_binop_any(op: Binop, a: u64, b: u64) -> u64 {
    eval_binop(op, a, b)
}

/// A unary operation (`super::ir::for_each_unop`), out of line like [`eval_binop_any`].
#[inline(never)]
fn eval_unop(op: Unop, a: u64) -> u64 {
    macro_rules! ex_unop {
        ($($name:ident ( $t:ty ) -> $out:ty = |$arg:ident| $e:expr;)*) => {
            match op { $( Unop::$name => { let $arg = <$t as Slot>::get(a); <$out as Slot>::put($e) } )* }
        };
    }
    super::ir::for_each_unop!(ex_unop)
}

/// A unary operation that may trap (`super::ir::for_each_trap_unop`: the float-to-integer
/// truncations), out of line.
#[inline(never)]
fn eval_trap_unop(op: TrapUnop, a: u64) -> Result<u64, TrapKind> {
    macro_rules! ex_trap_unop {
        ($($name:ident ( $t:ty ) -> $out:ty = |$arg:ident| $e:expr;)*) => {
            match op { $( TrapUnop::$name => { let $arg = <$t as Slot>::get(a); $e.map(<$out as Slot>::put) } )* }
        };
    }
    super::ir::for_each_trap_unop!(ex_trap_unop)
}

/// A trapping binop on slot bits, out of line for a divisor in a register: only the
/// constant-divisor form ([`Op::TrapBinopImm`], the one compiled loops use) is inlined into the
/// loop, which keeps one inlined copy of the eight operations per copy of the loop (the size of
/// the Content components); a division by a variable costs more than the call.
#[inline(never)]
fn eval_trap_binop(op: TrapBinop, a: u64, b: u64) -> Result<u64, TrapKind> {
    macro_rules! ex_trap_binop {
        ($($name:ident ( $ta:ty, $tb:ty ) -> $out:ty = |$x:ident, $y:ident| $e:expr;)*) => {
            match op { $( TrapBinop::$name => { let $x = <$ta as Slot>::get(a); let $y = <$tb as Slot>::get(b); $e.map(<$out as Slot>::put) } )* }
        };
    }
    super::ir::for_each_trap_binop!(ex_trap_binop)
}

/// The slot bits of a binop immediate: sign-extended from 32 bits (`Op::BinopImm`).
#[inline(always)]
fn imm_bits(imm: u32) -> u64 {
    imm as i32 as i64 as u64
}

#[inline(always)]
fn lane_mask(width: u32) -> u128 {
    if width >= 16 { u128::MAX } else { (1u128 << (width * 8)) - 1 }
}

/// The `v128` in slot `s` of the frame at `fp`: its low half in the frame, its high half in
/// the parallel stack (docs/interpreter.md, "Slots"). Out of line, like every `v128` access,
/// so that the loop stays small for the code that has none.
#[inline(never)]
fn get_v128(frame: &[u64; FRAME_SLOTS], hi: &[u64], fp: usize, s: usize) -> u128 {
    u128::from(frame[s]) | u128::from(hi[fp + s]) << 64
}

/// Writes `v` to slot `s` of the frame at `fp`, as [`get_v128`] reads it.
#[inline(never)]
fn set_v128(frame: &mut [u64; FRAME_SLOTS], hi: &mut [u64], fp: usize, s: usize, v: u128) {
    frame[s] = v as u64;
    hi[fp + s] = (v >> 64) as u64;
}

/// Moves `n` values from slot `src` to slot `dst` of the frame at `fp` (the values a branch
/// or a return carries), with their high halves when the function holds `v128` values
/// (`wide`). Out of line: one call in each of the loop's branch and return paths.
#[inline(never)]
fn move_slots(
    frame: &mut [u64; FRAME_SLOTS],
    hi: &mut [u64],
    fp: usize,
    (src, dst, n): (usize, usize, usize),
    wide: bool,
) {
    frame.copy_within(src..src + n, dst);
    if wide {
        hi.copy_within(fp + src..fp + src + n, fp + dst);
    }
}

/// Zeroes the high halves of the slots `from..to` (absolute): the locals of a function that
/// holds `v128` values, at its entry.
#[inline(never)]
fn zero_high(hi: &mut [u64], from: usize, to: usize) {
    hi[from..to].fill(0);
}

/// The value of type `t` in slot `s` of the frame at `fp` (a host function's argument, an
/// entry function's result).
#[inline(never)]
fn slot_value(frame: &[u64; FRAME_SLOTS], hi: &[u64], fp: usize, s: usize, t: ValType) -> Value {
    let high = if t == ValType::V128 { u128::from(hi[fp + s]) << 64 } else { 0 };
    Value::from_slot(t, u128::from(frame[s]) | high)
}

/// Writes `v` to slot `s` of the frame at `fp` (a host function's result, an entry
/// function's argument).
#[inline(never)]
fn put_value(frame: &mut [u64; FRAME_SLOTS], hi: &mut [u64], fp: usize, s: usize, v: Value) {
    let bits = v.to_slot();
    frame[s] = bits as u64;
    if let Value::V128(_) = v {
        hi[fp + s] = (bits >> 64) as u64;
    }
}

/// The loop. `P`: precise budget mode, checked per instruction; with the `one-loop` feature
/// only `P = false` is instantiated and `precise` says it at run time instead (one copy of
/// the loop, one predictable branch per instruction).
#[allow(clippy::too_many_lines)]
fn run<O: Observer, const P: bool>(store: &mut Store, st: &mut State, obs: &mut O, precise: bool) -> Stop {
    let precise = if cfg!(feature = "one-loop") { precise } else { P };
    let Store {
        limits,
        funcs,
        host_funcs,
        tables,
        memories,
        globals,
        instances,
        segments,
        exns,
        counters,
        instruction_limit,
        stack,
        stack_hi,
        stack_pointer,
        ..
    } = store;
    let stack_pointer = *stack_pointer;
    let limit = *instruction_limit;
    let max_frames = limits.max_frames as usize;
    let max_stack = limits.max_value_stack as usize;
    let max_exceptions = limits.max_exceptions as usize;
    let counters: &mut Counters = counters;

    let stack: &mut Vec<u64> = stack;
    let hi: &mut Vec<u64> = stack_hi;
    let (mut inst, mut body) = body_of(instances, funcs[st.func as usize].kind);
    let mut code: &[Op] = &body.code;
    let mut mem: &mut MemoryInst = &mut memories[inst.mem0 as usize];
    let mut pc = st.pc;
    let mut fp = st.fp;
    let mut block_base = st.block_base;
    let mut block_first = st.block_first;

    // The current frame: FRAME_SLOTS slots from `fp`, re-derived whenever `fp` changes.
    macro_rules! frame_at {
        ($fp:expr) => {
            <&mut [u64; FRAME_SLOTS]>::try_from(&mut stack[$fp..$fp + FRAME_SLOTS])
                .expect("the stack extends FRAME_SLOTS past its limit")
        };
    }
    let mut frame = frame_at!(fp);
    macro_rules! r {
        ($s:expr) => {
            frame[$s as usize]
        };
    }
    macro_rules! get {
        ($t:ty, $s:expr) => {
            <$t as Slot>::get(r!($s))
        };
    }
    // A `v128` slot: its low half in the frame, its high half in the parallel stack.
    macro_rules! v {
        ($s:expr) => {
            get_v128(frame, hi, fp, $s as usize)
        };
    }
    macro_rules! set_v {
        ($s:expr, $v:expr) => {{
            let v: u128 = $v;
            set_v128(frame, hi, fp, $s as usize, v)
        }};
    }
    // The count up to and including the current op's instruction: the whole block is charged,
    // less the instructions after it (`rem`), whether the block was entered through its `Fuel`
    // or by a branch that charged it.
    macro_rules! exact {
        () => {
            count_at(counters.instructions, body.rem[pc])
        };
    }
    macro_rules! save {
        () => {
            st.pc = pc;
            st.fp = fp;
            st.block_base = block_base;
            st.block_first = block_first;
        };
    }
    macro_rules! trap {
        ($k:expr) => {{
            counters.instructions = exact!();
            save!();
            return Stop::Trap($k);
        }};
    }
    macro_rules! exhausted {
        () => {{
            let next = block_first as u64 + (limit - block_base);
            counters.instructions = limit;
            save!();
            return Stop::Exhausted(
                body.instr_offsets.get(next as usize).copied().unwrap_or(body.end_offset),
            );
        }};
    }
    // Calls host function `$index` (store function `$callee`) with its arguments at `$args`,
    // its results written there: a call, counted and observed, the host entered under the
    // caller's import it is linked to (none for a host function reached through another
    // instance's table) and left when it returns.
    macro_rules! host_call {
        ($callee:expr, $index:expr, $args:expr, $indirect:expr) => {{
            counters.calls += 1;
            counters.indirect_calls += $indirect as u64;
            obs.call($indirect);
            let at = exact!();
            let import = if O::ENABLED { import_of(inst, $callee) } else { None };
            if let Some(i) = import {
                obs.enter(i, at);
            }
            let mut caller = Caller {
                memory: &mut mem.data,
                globals: &globals[..],
                global_addrs: &inst.globals,
                global_types: &inst.module.global_types,
                events: obs,
                instructions: at,
            };
            let host = &mut host_funcs[$index as usize];
            let ty = &funcs[$callee as usize].ty;
            if let Err(k) = call_host(host, ty, &mut caller, frame, hi, fp, $args as usize) {
                trap!(k);
            }
            if import.is_some() {
                obs.leave(at);
            }
        }};
    }
    // Switches to the function `$f` (a store function index) with frame pointer `$fp`.
    // Calls are counted once the callee is entered (a call that overflows the stack traps
    // before it happens).
    macro_rules! enter {
        ($callee:expr, $args:expr, $indirect:expr) => {{
            let callee: u32 = $callee;
            let new_fp = fp + $args as usize;
            match funcs[callee as usize].kind {
                FuncKind::Wasm { .. } => {
                    if st.frames.len() + 1 >= max_frames {
                        trap!(TrapKind::StackOverflow);
                    }
                    let (ci, cb) = body_of(instances, funcs[callee as usize].kind);
                    let top = new_fp + cb.frame_size as usize;
                    if top > max_stack {
                        trap!(TrapKind::StackOverflow);
                    }
                    counters.calls += 1;
                    counters.indirect_calls += $indirect as u64;
                    obs.call($indirect);
                    if O::ENABLED {
                        if let FuncKind::Wasm { index, .. } = funcs[callee as usize].kind {
                            obs.enter(index, exact!());
                        }
                    }
                    frame = frame_at!(new_fp);
                    frame[cb.num_params as usize..cb.num_locals as usize].fill(0);
                    if cb.wide {
                        zero_high(hi, new_fp + cb.num_params as usize, new_fp + cb.num_locals as usize);
                    }
                    st.frames.push(Frame { func: st.func, pc: pc as u32 + 1, fp: fp as u32 });
                    st.func = callee;
                    if !core::ptr::eq(ci, inst) {
                        inst = ci;
                        mem = &mut memories[inst.mem0 as usize];
                    }
                    body = cb;
                    code = &body.code;
                    fp = new_fp;
                    pc = 0;
                    continue;
                }
                FuncKind::Host { index } => {
                    host_call!(callee, index, $args, $indirect);
                    pc += 1;
                    continue;
                }
            }
        }};
    }
    // The store function that `call_indirect` or `return_call_indirect` of type `$ty` through
    // table `$table` reaches at slot `$index`'s element, or its trap.
    macro_rules! indirect_callee {
        ($ty:expr, $table:expr, $index:expr) => {{
            let tab = &tables[inst.tables[$table as usize] as usize];
            let callee = tri!(table::callee(tab, get!(u32, $index)));
            if funcs[callee as usize].type_id != inst.type_ids[$ty as usize] {
                trap!(TrapKind::IndirectCallTypeMismatch);
            }
            callee
        }};
    }
    // A tail call (`return_call`, `return_call_indirect`) of store function `$callee` with its
    // arguments at `$args`: a call and a return in one (docs/counting.md, "Threads, exceptions
    // and tail calls"). A Wasm callee takes over the caller's frame, its arguments moved to the
    // frame's first slots, so that a chain of tail calls runs in constant stack; the observer
    // sees the caller leave and the callee enter in its place. A host callee runs as by
    // `call`, then the caller returns its results.
    macro_rules! tail {
        ($callee:expr, $args:expr, $indirect:expr) => {{
            let callee: u32 = $callee;
            if let FuncKind::Wasm { index, .. } = funcs[callee as usize].kind {
                let (ci, cb) = body_of(instances, funcs[callee as usize].kind);
                if fp + cb.frame_size as usize > max_stack {
                    trap!(TrapKind::StackOverflow);
                }
                counters.calls += 1;
                counters.indirect_calls += $indirect as u64;
                counters.returns += 1;
                obs.call($indirect);
                if O::ENABLED {
                    let at = exact!();
                    obs.leave(at);
                    obs.enter(index, at);
                }
                let (n, locals) = (cb.num_params as usize, cb.num_locals as usize);
                if n > 0 {
                    move_slots(frame, hi, fp, ($args as usize, 0, n), body.wide);
                }
                frame[n..locals].fill(0);
                if cb.wide {
                    zero_high(hi, fp + n, fp + locals);
                }
                st.func = callee;
                if !core::ptr::eq(ci, inst) {
                    inst = ci;
                    mem = &mut memories[inst.mem0 as usize];
                }
                body = cb;
                code = &body.code;
                pc = 0;
                continue;
            }
            let FuncKind::Host { index: host } = funcs[callee as usize].kind else { unreachable!() };
            host_call!(callee, host, $args, $indirect);
            ret!($args, funcs[callee as usize].ty.results().len());
        }};
    }
    // Returns from the current function with results at `$src..$src+$n`.
    macro_rules! ret {
        ($src:expr, $n:expr) => {{
            let (src, n) = ($src as usize, $n as usize);
            if src != 0 && n > 0 {
                move_slots(frame, hi, fp, (src, 0, n), body.wide);
            }
            counters.returns += 1;
            if O::ENABLED {
                obs.leave(counters.instructions);
            }
            match st.frames.pop() {
                None => {
                    save!();
                    return Stop::Done;
                }
                Some(fr) => {
                    st.func = fr.func;
                    let (ci, cb) = body_of(instances, funcs[fr.func as usize].kind);
                    if !core::ptr::eq(ci, inst) {
                        inst = ci;
                        mem = &mut memories[inst.mem0 as usize];
                    }
                    body = cb;
                    code = &body.code;
                    fp = fr.fp as usize;
                    frame = frame_at!(fp);
                    pc = fr.pc as usize;
                    continue;
                }
            }
        }};
    }
    // Throws exception `exns[$exn]` (docs/interpreter.md, "Exceptions"): the handler that
    // catches it is searched in this frame and its callers first; none ends the run like a
    // trap at the throwing instruction, naming the tag. Else the branch counts, each function
    // left counts a return (the observer sees it leave), the values and the `exnref` go to
    // the clause's slots, and the clause's target is taken as a branch to it would be.
    macro_rules! throw {
        ($exn:expr) => {{
            let exn: usize = $exn;
            let tag = exns[exn].tag;
            let Some(h) = find_handler(instances, funcs, &st.frames, st.func, pc, tag) else {
                let named = inst.tags.iter().position(|&t| t == tag);
                let tag = named.and_then(|i| u16::try_from(i).ok()).unwrap_or(u16::MAX);
                trap!(TrapKind::UncaughtException { tag });
            };
            counters.branches += 1;
            for _ in 0..h.left {
                counters.returns += 1;
                if O::ENABLED {
                    obs.leave(counters.instructions);
                }
                let fr = st.frames.pop().expect("the handler's frame is on the stack");
                st.func = fr.func;
                let (ci, cb) = body_of(instances, funcs[fr.func as usize].kind);
                if !core::ptr::eq(ci, inst) {
                    inst = ci;
                    mem = &mut memories[inst.mem0 as usize];
                }
                body = cb;
                code = &body.code;
                fp = fr.fp as usize;
                frame = frame_at!(fp);
            }
            let t = body.targets[h.target as usize];
            catch_values(frame, hi, fp, (t.dst, h.exn), &exns[exn].values, exn, body.wide);
            match t.kind {
                TargetKind::Return => {
                    // The function's final `end` runs.
                    if counters.instructions >= limit {
                        counters.instructions = limit;
                        save!();
                        return Stop::Exhausted(body.end_offset);
                    }
                    counters.instructions += 1;
                    ret!(0, t.n);
                }
                TargetKind::Loop => {
                    counters.loop_iterations += 1;
                    obs.loop_iteration();
                    land!(t.pc, t.charge);
                }
                TargetKind::Block => land!(t.pc, t.charge),
            }
        }};
    }
    // A taken branch to the fuel block at `$t` that charges `$charge` (the target block's
    // count minus the rest of this one): past the target's `Fuel` when the target block fits
    // the budget, else onto it with the rest handed back.
    macro_rules! land {
        ($t:expr, $charge:expr) => {{
            let t = $t as usize;
            let c = counters.instructions.wrapping_add(i64::from($charge) as u64);
            if precise || c > limit {
                counters.instructions = c - fuel_of(code, t);
                pc = t;
            } else {
                counters.instructions = c;
                if O::BLOCKS {
                    obs.block(&inst.module, body.index, t as u32, c - fuel_of(code, t));
                }
                pc = t + 1;
            }
            continue;
        }};
    }
    // A taken branch to `targets[$t]`, which charges like a direct one (`land!`) after moving
    // the values it carries.
    macro_rules! branch {
        ($t:expr) => {{
            let t = body.targets[$t as usize];
            counters.branches += 1;
            match t.kind {
                TargetKind::Return => {
                    // Hand back the rest of this block (a `br_if`'s; zero otherwise).
                    counters.instructions = counters.instructions.wrapping_add(i64::from(t.charge) as u64);
                    if counters.instructions >= limit {
                        counters.instructions = limit;
                        save!();
                        return Stop::Exhausted(body.end_offset);
                    }
                    counters.instructions += 1;
                    ret!(t.src, t.n);
                }
                kind => {
                    if t.n > 0 && t.src != t.dst {
                        let (s, d, n) = (t.src as usize, t.dst as usize, t.n as usize);
                        move_slots(frame, hi, fp, (s, d, n), body.wide);
                    }
                    if kind == TargetKind::Loop {
                        counters.loop_iterations += 1;
                        obs.loop_iteration();
                    }
                    land!(t.pc, t.charge);
                }
            }
        }};
    }
    // A taken branch to a block.
    macro_rules! taken {
        ($t:expr, $charge:expr) => {{
            counters.branches += 1;
            land!($t, $charge);
        }};
    }
    // A taken branch back to a loop.
    macro_rules! taken_loop {
        ($t:expr, $charge:expr) => {{
            counters.branches += 1;
            counters.loop_iterations += 1;
            obs.loop_iteration();
            land!($t, $charge);
        }};
    }
    // The exact instruction count, for an observer's event (computed only when it is enabled).
    macro_rules! at {
        () => {
            |now: u64| count_at(now, body.rem[pc])
        };
    }
    // The value of a memory or table access, or its trap.
    macro_rules! tri {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(k) => trap!(k),
            }
        };
    }
    // A load of `$w` bytes as the little-endian integer type `$t`.
    macro_rules! load_le {
        ($addr:expr, $offset:expr, $w:literal, $t:ty) => {
            <$t>::from_le_bytes(tri!(memory::load::<$w, O>(
                &mem.data,
                get!(u32, $addr),
                $offset,
                counters,
                obs,
                at!()
            )))
        };
    }
    // A store of the low `$w` bytes of slot `$value`.
    macro_rules! store_le {
        ($addr:expr, $value:expr, $offset:expr, $w:literal, $t:ty) => {
            tri!(memory::store::<$w, O>(
                &mut mem.data,
                get!(u32, $addr),
                $offset,
                (r!($value) as $t).to_le_bytes(),
                counters,
                obs,
                at!()
            ))
        };
    }

    // A trapping binop with the constant right operand `$imm`, inlined (`for_each_trap_binop`).
    macro_rules! ex_trap_binop_imm {
        ($op:ident, $dst:ident, $a:ident, $imm:ident; $($name:ident ( $ta:ty, $tb:ty ) -> $out:ty = |$x:ident, $y:ident| $e:expr;)*) => {
            match $op { $( TrapBinop::$name => { let $x = get!($ta, $a); let $y = <$tb as Slot>::get(imm_bits($imm)); match $e { Ok(v) => r!($dst) = <$out as Slot>::put(v), Err(k) => trap!(k) } } )* }
        };
    }
    // One rule per op of the table, by name and with its operands in table order; the
    // match itself is generated from the table (`dispatch_op!`, docs/interpreter.md).
    macro_rules! exec_op {
        (@hot $name:ident { $dst:ident, $a:ident, $b:ident }) => {
            r!($dst) = eval_binop(Binop::$name, r!($a), r!($b))
        };
        (@hot_imm $name:ident { $dst:ident, $a:ident, $imm:ident }) => {
            r!($dst) = eval_binop(Binop::$name, r!($a), imm_bits($imm))
        };
        (Fuel { $n:ident, $first:ident }) => {{
            if precise {
                if counters.instructions > limit {
                    exhausted!();
                }
                block_first = $first;
            } else if counters.instructions + $n as u64 > limit {
                save!();
                return Stop::Precise;
            }
            // Only precise mode reads `block_base` (`exhausted!`, the per-op check), and it
            // always arrives through this op. The fast loop writes it too: without the write its
            // host instructions rose by 6 to 11 % (docs/speed.md, "Fuel charged by the branch").
            block_base = counters.instructions;
            if O::BLOCKS {
                obs.block(&inst.module, body.index, pc as u32, block_base);
            }
            counters.instructions += $n as u64;
        }};
        (Unreachable) => {{ trap!(TrapKind::Unreachable) }};
        (Jump { $t:ident, $charge:ident }) => {{ land!($t, $charge) }};
        (JumpIfZero { $cond:ident, $t:ident, $charge:ident }) => {{
            if get!(u32, $cond) == 0 {
                land!($t, $charge);
            }
        }};
        (JumpIfNotCmp { $op:ident, $a:ident, $b:ident, $t:ident, $charge:ident }) => {{
            if eval_binop($op, r!($a), r!($b)) as u32 == 0 {
                land!($t, $charge);
            }
        }};
        (JumpIfNotCmpImm { $op:ident, $a:ident, $imm:ident, $t:ident, $charge:ident }) => {{
            if eval_binop($op, r!($a), imm_bits($imm)) as u32 == 0 {
                land!($t, $charge);
            }
        }};
        (Br { $t:ident, $charge:ident }) => {{ taken!($t, $charge) }};
        (BrLoop { $t:ident, $charge:ident }) => {{ taken_loop!($t, $charge) }};
        (BrIf { $cond:ident, $t:ident, $charge:ident }) => {{
            if get!(u32, $cond) != 0 {
                taken!($t, $charge);
            }
        }};
        // The generic compare-and-branch ops call the shared table; their hot forms arrive
        // as `@const` with a constant comparison, which the inlined table folds.
        (@const $name:ident { $($x:tt)* }) => { exec_op!(@with eval_binop; $name { $($x)* }) };
        (BrIfCmp { $($x:tt)* }) => { exec_op!(@with eval_binop_any; BrIfCmp { $($x)* }) };
        (BrIfCmpImm { $($x:tt)* }) => { exec_op!(@with eval_binop_any; BrIfCmpImm { $($x)* }) };
        (BrIfLoopCmp { $($x:tt)* }) => { exec_op!(@with eval_binop_any; BrIfLoopCmp { $($x)* }) };
        (BrIfLoopCmpImm { $($x:tt)* }) => { exec_op!(@with eval_binop_any; BrIfLoopCmpImm { $($x)* }) };
        (@with $ev:ident; BrIfCmp { $op:ident, $a:ident, $b:ident, $t:ident, $charge:ident }) => {{
            if $ev($op, r!($a), r!($b)) as u32 != 0 {
                taken!($t, $charge);
            }
        }};
        (@with $ev:ident; BrIfCmpImm { $op:ident, $a:ident, $imm:ident, $t:ident, $charge:ident }) => {{
            if $ev($op, r!($a), imm_bits($imm)) as u32 != 0 {
                taken!($t, $charge);
            }
        }};
        (BrIfLoop { $cond:ident, $t:ident, $charge:ident }) => {{
            if get!(u32, $cond) != 0 {
                taken_loop!($t, $charge);
            }
        }};
        (@with $ev:ident; BrIfLoopCmp { $op:ident, $a:ident, $b:ident, $t:ident, $charge:ident }) => {{
            if $ev($op, r!($a), r!($b)) as u32 != 0 {
                taken_loop!($t, $charge);
            }
        }};
        (IncBrIfLoopLtU { $i:ident, $step:ident, $n:ident, $t:ident, $charge:ident }) => {{
            let v = get!(u32, $i).wrapping_add($step as i32 as u32);
            r!($i) = <u32 as Slot>::put(v);
            if v < get!(u32, $n) {
                taken_loop!($t, $charge);
            }
        }};
        (IncBrIfLoopLtS { $i:ident, $step:ident, $n:ident, $t:ident, $charge:ident }) => {{
            let v = get!(i32, $i).wrapping_add($step as i32);
            r!($i) = <i32 as Slot>::put(v);
            if v < get!(i32, $n) {
                taken_loop!($t, $charge);
            }
        }};
        (IncBrIfLoopNe { $i:ident, $step:ident, $n:ident, $t:ident, $charge:ident }) => {{
            let v = get!(u32, $i).wrapping_add($step as i32 as u32);
            r!($i) = <u32 as Slot>::put(v);
            if v != get!(u32, $n) {
                taken_loop!($t, $charge);
            }
        }};
        (@with $ev:ident; BrIfLoopCmpImm { $op:ident, $a:ident, $imm:ident, $t:ident, $charge:ident }) => {{
            if $ev($op, r!($a), imm_bits($imm)) as u32 != 0 {
                taken_loop!($t, $charge);
            }
        }};
        (BrIfTarget { $cond:ident, $t:ident }) => {{
            if get!(u32, $cond) != 0 {
                branch!($t);
            }
        }};
        (BrTable { $index:ident, $start:ident, $len:ident }) => {{
            let i = get!(u32, $index).min($len - 1);
            branch!($start + i);
        }};
        (Return { $src:ident, $n:ident }) => {{
            counters.branches += 1;
            if counters.instructions >= limit {
                counters.instructions = limit;
                save!();
                return Stop::Exhausted(body.end_offset);
            }
            counters.instructions += 1;
            ret!($src, $n);
        }};
        (FuncEnd { $src:ident, $n:ident }) => {{ ret!($src, $n) }};
        (Call { $func:ident, $args:ident }) => {{
            enter!(inst.funcs[$func as usize], $args, false);
        }};
        (CallIndirect { $ty:ident, $table:ident, $index:ident, $args:ident }) => {{
            let callee = indirect_callee!($ty, $table, $index);
            enter!(callee, $args, true);
        }};
        // Without tail calls (`only-2-0`) the decoder refuses them, and their code is left out.
        (ReturnCall { $func:ident, $args:ident }) => {{
            if !Proposal::TailCalls.runs() {
                unreachable!();
            }
            tail!(inst.funcs[$func as usize], $args, false);
        }};
        (ReturnCallIndirect { $ty:ident, $table:ident, $index:ident, $args:ident }) => {{
            if !Proposal::TailCalls.runs() {
                unreachable!();
            }
            let callee = indirect_callee!($ty, $table, $index);
            tail!(callee, $args, true);
        }};
        // Without exceptions (`only-2-0`) the decoder refuses them, and their code is left out.
        (Throw { $tag:ident, $args:ident }) => {{
            if !Proposal::ExceptionHandling.runs() {
                unreachable!();
            }
            if exns.len() >= max_exceptions {
                trap!(TrapKind::TooManyExceptions);
            }
            let n = inst.module.tag_type($tag).map_or(0, |t| t.params().len());
            let values = thrown_values(frame, hi, fp, $args as usize, n, body.wide);
            exns.push(Exn { tag: inst.tags[$tag as usize], values });
            throw!(exns.len() - 1);
        }};
        (ThrowRef { $src:ident }) => {{
            if !Proposal::ExceptionHandling.runs() {
                unreachable!();
            }
            // A reference the store no longer holds (kept by the host across a reclaim) is
            // refused like a null one.
            match (r!($src) as usize).checked_sub(1) {
                Some(x) if x < exns.len() => throw!(x),
                _ => trap!(TrapKind::NullExceptionReference),
            }
        }};
        (Copy { $dst:ident, $src:ident }) => {{ r!($dst) = r!($src) }};
        (Const32 { $dst:ident, $value:ident }) => {{ r!($dst) = $value as u64 }};
        (Const64 { $dst:ident, $lo:ident, $hi:ident }) => {{ r!($dst) = ($hi as u64) << 32 | $lo as u64 }};
        (ConstV128 { $dst:ident, $idx:ident }) => {{ set_v!($dst, body.v128s[$idx as usize]) }};
        (Select { $dst:ident, $a:ident, $b:ident, $c:ident }) => {{ r!($dst) = if get!(u32, $c) != 0 { r!($a) } else { r!($b) } }};
        (GlobalGet { $dst:ident, $global:ident }) => {{ r!($dst) = globals[inst.globals[$global as usize] as usize] as u64 }};
        (GlobalSet { $global:ident, $src:ident }) => {{
            let v = r!($src);
            globals[inst.globals[$global as usize] as usize] = u128::from(v);
            if O::ENABLED && Some($global) == stack_pointer {
                obs.stack_pointer_write(v as u32, exact!());
            }
        }};
        (RefFunc { $dst:ident, $func:ident }) => {{ r!($dst) = inst.funcs[$func as usize] as u64 + 1 }};
        (Copy128 { $dst:ident, $src:ident }) => {{ set_v!($dst, v!($src)) }};
        (Select128 { $dst:ident, $a:ident, $b:ident, $c:ident }) => {{ set_v!($dst, if get!(u32, $c) != 0 { v!($a) } else { v!($b) }) }};
        (GlobalGet128 { $dst:ident, $global:ident }) => {{ set_v!($dst, globals[inst.globals[$global as usize] as usize]) }};
        (GlobalSet128 { $global:ident, $src:ident }) => {{ globals[inst.globals[$global as usize] as usize] = v!($src) }};
        (LoadU8 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 1, u8) as u64 }};
        (LoadS8x32 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 1, u8) as i8 as i32 as u32 as u64 }};
        (LoadS8x64 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 1, u8) as i8 as i64 as u64 }};
        (LoadU16 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 2, u16) as u64 }};
        (LoadS16x32 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 2, u16) as i16 as i32 as u32 as u64 }};
        (LoadS16x64 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 2, u16) as i16 as i64 as u64 }};
        (LoadU32 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 4, u32) as u64 }};
        (LoadS32x64 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 4, u32) as i32 as i64 as u64 }};
        (LoadU64 { $dst:ident, $addr:ident, $offset:ident }) => {{ r!($dst) = load_le!($addr, $offset, 8, u64) }};
        (LoadV128 { $dst:ident, $addr:ident, $offset:ident }) => {{ set_v!($dst, load_le!($addr, $offset, 16, u128)) }};
        (Store8 { $addr:ident, $value:ident, $offset:ident }) => {{ store_le!($addr, $value, $offset, 1, u8) }};
        (Store16 { $addr:ident, $value:ident, $offset:ident }) => {{ store_le!($addr, $value, $offset, 2, u16) }};
        (Store32 { $addr:ident, $value:ident, $offset:ident }) => {{ store_le!($addr, $value, $offset, 4, u32) }};
        (Store64 { $addr:ident, $value:ident, $offset:ident }) => {{ store_le!($addr, $value, $offset, 8, u64) }};
        (Store128 { $addr:ident, $value:ident, $offset:ident }) => {{
            tri!(memory::store::<16, O>(&mut mem.data, get!(u32, $addr), $offset, v!($value).to_le_bytes(), counters, obs, at!()))
        }};
        (SimdLoad { $kind:ident, $dst:ident, $addr:ident, $offset:ident }) => {{
            let raw = memory::load_narrow(
                &mem.data,
                get!(u32, $addr),
                $offset,
                $kind.width(),
                counters,
                obs,
                at!(),
            );
            set_v!($dst, simd::load_transform($kind, tri!(raw) as u64));
        }};
        (LoadLane { $width:ident, $lane:ident, $dst:ident, $addr:ident, $offset:ident, $vec:ident }) => {{
            let v = v!($vec);
            let x = tri!(memory::load_narrow(
                &mem.data,
                get!(u32, $addr),
                $offset,
                $width as u32,
                counters,
                obs,
                at!()
            ));
            let shift = $lane as u32 * $width as u32 * 8;
            let mask = lane_mask($width as u32) << shift;
            set_v!($dst, (v & !mask) | (x << shift));
        }};
        (StoreLane { $width:ident, $lane:ident, $addr:ident, $vec:ident, $offset:ident }) => {{
            let x = v!($vec) >> ($lane as u32 * $width as u32 * 8);
            let a = get!(u32, $addr);
            tri!(memory::store_narrow(&mut mem.data, a, $offset, $width as u32, x, counters, obs, at!()));
        }};
        (Atomic { $op:ident, $dst:ident, $addr:ident, $a:ident, $b:ident, $offset:ident }) => {{
            if !Proposal::Threads.runs() {
                unreachable!();
            }
            let args = (get!(u32, $addr), r!($a), r!($b), $offset);
            if let Some(v) = tri!(memory::atomic(mem, $op, args, counters, obs, at!())) {
                r!($dst) = v;
            }
        }};
        (MemorySize { $dst:ident }) => {{ r!($dst) = memory::size(mem) as u64 }};
        (MemoryGrow { $dst:ident, $delta:ident }) => {{ r!($dst) = memory::grow(mem, get!(u32, $delta)) as u64 }};
        (MemoryCopy { $dst:ident, $src:ident, $len:ident }) => {{
            let args = (get!(u32, $dst), get!(u32, $src), get!(u32, $len));
            tri!(memory::copy(&mut mem.data, args, counters, obs, at!()));
        }};
        (MemoryFill { $dst:ident, $value:ident, $len:ident }) => {{
            let args = (get!(u32, $dst), get!(u32, $value) as u8, get!(u32, $len));
            tri!(memory::fill(&mut mem.data, args, counters, obs, at!()));
        }};
        (MemoryInit { $seg:ident, $dst:ident, $src:ident, $len:ident }) => {{
            let args = (get!(u32, $dst), get!(u32, $src), get!(u32, $len));
            let iidx = instance_index(funcs[st.func as usize].kind);
            let data: &[u8] = if segments[iidx].datas_dropped[$seg as usize] {
                &[]
            } else {
                &inst.module.datas[$seg as usize].bytes
            };
            tri!(memory::init(&mut mem.data, data, args, counters, obs, at!()));
        }};
        (DataDrop { $seg:ident }) => {{
            let iidx = instance_index(funcs[st.func as usize].kind);
            segments[iidx].datas_dropped[$seg as usize] = true;
        }};
        (TableGet { $table:ident, $dst:ident, $index:ident }) => {{
            let tab = &tables[inst.tables[$table as usize] as usize];
            r!($dst) = tri!(table::get(tab, get!(u32, $index)));
        }};
        (TableSet { $table:ident, $index:ident, $value:ident }) => {{
            let tab = &mut tables[inst.tables[$table as usize] as usize];
            tri!(table::set(tab, get!(u32, $index), r!($value)));
        }};
        (TableSize { $table:ident, $dst:ident }) => {{ r!($dst) = tables[inst.tables[$table as usize] as usize].elems.len() as u64 }};
        (TableGrow { $table:ident, $dst:ident, $init:ident, $delta:ident }) => {{
            let tab = &mut tables[inst.tables[$table as usize] as usize];
            r!($dst) = table::grow(tab, r!($init), get!(u32, $delta)) as u64;
        }};
        (TableFill { $table:ident, $index:ident, $value:ident, $len:ident }) => {{
            let tab = &mut tables[inst.tables[$table as usize] as usize];
            tri!(table::fill(tab, get!(u32, $index), r!($value), get!(u32, $len)));
        }};
        (TableCopy { $pair:ident, $args:ident }) => {{
            let (dt, st2) = body.pairs[$pair as usize];
            let ends = (inst.tables[dt as usize] as usize, inst.tables[st2 as usize] as usize);
            let range = (get!(u32, $args), get!(u32, $args + 1), get!(u32, $args + 2));
            tri!(table::copy(tables, ends, range));
        }};
        (TableInit { $pair:ident, $args:ident }) => {{
            let (t, seg) = body.pairs[$pair as usize];
            let range = (get!(u32, $args), get!(u32, $args + 1), get!(u32, $args + 2));
            let iidx = instance_index(funcs[st.func as usize].kind);
            let tab = &mut tables[inst.tables[t as usize] as usize];
            tri!(table::init(tab, &segments[iidx].elems[seg as usize], range));
        }};
        (ElemDrop { $seg:ident }) => {{
            let iidx = instance_index(funcs[st.func as usize].kind);
            segments[iidx].elems[$seg as usize] = Vec::new();
        }};
        (SimdUnary { $op:ident, $dst:ident, $a:ident }) => {{ set_v!($dst, simd::unary($op, v!($a))) }};
        (SimdBinary { $op:ident, $dst:ident, $a:ident, $b:ident }) => {{ set_v!($dst, simd::binary($op, v!($a), v!($b))) }};
        (SimdTernary { $op:ident, $dst:ident, $a:ident, $b:ident, $c:ident }) => {{ set_v!($dst, simd::ternary($op, v!($a), v!($b), v!($c))) }};
        (SimdShift { $op:ident, $dst:ident, $a:ident, $b:ident }) => {{ set_v!($dst, simd::shift($op, v!($a), get!(u32, $b))) }};
        (SimdTest { $op:ident, $dst:ident, $a:ident }) => {{ r!($dst) = u64::from(simd::test($op, v!($a))) }};
        (SimdSplat { $op:ident, $dst:ident, $a:ident }) => {{ set_v!($dst, simd::splat($op, r!($a))) }};
        (SimdExtract { $op:ident, $lane:ident, $dst:ident, $a:ident }) => {{ r!($dst) = simd::extract_lane($op, v!($a), $lane) }};
        (SimdReplace { $op:ident, $lane:ident, $dst:ident, $a:ident, $b:ident }) => {{ set_v!($dst, simd::replace_lane($op, v!($a), r!($b), $lane)) }};
        (Shuffle { $dst:ident, $a:ident, $b:ident, $idx:ident }) => {{
            let (x, y) = (v!($a).to_le_bytes(), v!($b).to_le_bytes());
            let lanes = &body.shuffles[$idx as usize];
            let mut out = [0u8; 16];
            for (o, &l) in out.iter_mut().zip(lanes) {
                *o = if l < 16 { x[l as usize] } else { y[(l - 16) as usize] };
            }
            set_v!($dst, u128::from_le_bytes(out));
        }};
        (Unop { $op:ident, $dst:ident, $a:ident }) => {{ r!($dst) = eval_unop($op, r!($a)) }};
        (TrapUnop { $op:ident, $dst:ident, $a:ident }) => {{ r!($dst) = tri!(eval_trap_unop($op, r!($a))) }};
        (Binop { $op:ident, $dst:ident, $a:ident, $b:ident }) => {{ r!($dst) = eval_binop_any($op, r!($a), r!($b)) }};
        (BinopImm { $op:ident, $dst:ident, $a:ident, $imm:ident }) => {{ r!($dst) = eval_binop_any($op, r!($a), imm_bits($imm)) }};
        (TrapBinop { $op:ident, $dst:ident, $a:ident, $b:ident }) => {{
            match eval_trap_binop($op, r!($a), r!($b)) {
                Ok(v) => r!($dst) = v,
                Err(k) => trap!(k),
            }
        }};
        (TrapBinopImm { $op:ident, $dst:ident, $a:ident, $imm:ident }) => {{ super::ir::for_each_trap_binop!(ex_trap_binop_imm, $op, $dst, $a, $imm) }};
    }

    loop {
        if precise && block_base + body.cum[pc] as u64 > limit {
            exhausted!();
        }
        super::ir::dispatch_op!(code[pc], exec_op);
        pc += 1;
    }
}

/// The `n` values a `throw` takes from the slots from `args` of the frame at `fp`, with their
/// high halves in a function that holds `v128` values (`wide`). Out of line, as is all of a
/// throw, so that the loop stays compact.
#[inline(never)]
fn thrown_values(
    frame: &[u64; FRAME_SLOTS],
    hi: &[u64],
    fp: usize,
    args: usize,
    n: usize,
    wide: bool,
) -> Box<[u128]> {
    (args..args + n)
        .map(|s| {
            let high = if wide { u128::from(hi[fp + s]) << 64 } else { 0 };
            u128::from(frame[s]) | high
        })
        .collect()
}

/// Writes a caught exception's `values` to the slots from `dst` of the frame at `fp` (both
/// halves in a `wide` function), and its `exnref` (exception `exn` + 1) to slot `exn_slot`
/// when the clause keeps it.
#[inline(never)]
fn catch_values(
    frame: &mut [u64; FRAME_SLOTS],
    hi: &mut [u64],
    fp: usize,
    (dst, exn_slot): (u16, Option<u16>),
    values: &[u128],
    exn: usize,
    wide: bool,
) {
    let dst = dst as usize;
    for (i, &v) in values.iter().enumerate() {
        frame[dst + i] = v as u64;
        if wide {
            hi[fp + dst + i] = (v >> 64) as u64;
        }
    }
    if let Some(e) = exn_slot {
        frame[e as usize] = exn as u64 + 1;
    }
}

/// Where an exception lands: the functions it leaves (frames popped), and the clause that
/// catches it in the function it lands in.
struct Found {
    left: usize,
    target: u32,
    exn: Option<u16>,
}

/// The handler that catches an exception of store tag `tag` thrown at op `pc` of store
/// function `func`, the suspended callers being `frames` (each at the call it waits on):
/// the first handler covering the instruction, inner before outer, with a clause for the tag
/// (a legacy `delegate` goes on among the handlers around its label), then the same in each
/// caller in turn. Out of line: only a throw comes here.
#[cold]
#[inline(never)]
fn find_handler(
    instances: &[InstanceData],
    funcs: &[FuncInfo],
    frames: &[Frame],
    func: u32,
    pc: usize,
    tag: u32,
) -> Option<Found> {
    let (mut func, mut pc) = (func, pc);
    let mut left = 0;
    loop {
        let (inst, body) = body_of(instances, funcs[func as usize].kind);
        let mut at = body.idx[pc];
        'search: while at != u32::MAX {
            for h in &body.handlers {
                if !(h.from..h.to).contains(&at) {
                    continue;
                }
                for c in &body.catches[h.start as usize..(h.start + h.len) as usize] {
                    match *c {
                        CatchKind::Catch { tag: t, target, exn } => {
                            if t.is_none_or(|t| inst.tags[t as usize] == tag) {
                                return Some(Found { left, target, exn });
                            }
                        }
                        CatchKind::Delegate { from } => {
                            at = from;
                            continue 'search;
                        }
                    }
                }
            }
            break;
        }
        let fr = frames.len().checked_sub(left + 1).map(|i| frames[i])?;
        left += 1;
        func = fr.func;
        pc = fr.pc as usize - 1;
    }
}

/// The exact count at an op whose block is charged up to `charged`, the op having `rem`
/// instructions of its block after it (`CompiledFunc::rem`, a signed difference: an op emitted
/// at an `end` that the next block took over is one instruction past its block).
#[inline(always)]
fn count_at(charged: u64, rem: u32) -> u64 {
    charged.wrapping_sub(rem as i32 as i64 as u64)
}

/// The count of the fuel block whose `Fuel` op is at `t` (a taken branch's target).
#[cold]
#[inline(never)]
fn fuel_of(code: &[Op], t: usize) -> u64 {
    match code[t] {
        Op::Fuel { n, .. } => n as u64,
        _ => unreachable!("a branch targets a fuel block"),
    }
}

fn instance_index(kind: FuncKind) -> usize {
    match kind {
        FuncKind::Wasm { instance, .. } => instance as usize,
        FuncKind::Host { .. } => unreachable!("host functions execute no ops"),
    }
}
