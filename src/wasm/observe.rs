//! Observation of a run: the execution loop is generic over an [`Observer`] and monomorphised,
//! so a run with [`NoObserver`] compiles every hook away (docs/interpreter.md,
//! "Observe").
//!
//! Addresses are byte addresses in the instance's memory 0 (effective address, offset
//! included); lengths are in bytes. Hooks fire only for accesses that passed their bounds check
//! and have a nonzero length, exactly when the counters count them (docs/counting.md).
//! `instructions` is the exact instruction count of the run so far, the current instruction
//! included.
//!
//! Host functions (WASI, stubs, the spec harness's `spectest`) run no instructions, but they
//! are entered and left like Wasm functions, under their import's index, and the guest memory
//! they read and write is reported through [`Observer::host_read`] and
//! [`Observer::host_write`], the two sides of a `memory.copy`.

/// Receives the events of a run.
pub trait Observer {
    /// `false` only for [`NoObserver`]: lets the loop skip all bookkeeping for hooks.
    const ENABLED: bool = true;
    /// Whether this observer follows the fuel blocks ([`Observer::block`]): a constant, so
    /// that the loops of the others compile the hook away.
    const BLOCKS: bool = false;

    /// A fuel block starts (docs/counting.md, "Fuel blocks"): the block whose charging `Fuel`
    /// op is op `pc` of function `func` of `module`, entered when the exact count was
    /// `before`. Only when [`Observer::BLOCKS`]. A block runs a prefix of its ops (every
    /// branch, call and return ends one; a call's return starts a new one), so the exact count
    /// at the next block, or at an event inside this one, says how far it got.
    #[inline(always)]
    fn block(&mut self, module: &crate::wasm::Module, func: u32, pc: u32, before: u64) {
        let _ = (module, func, pc, before);
    }
    /// A load (any width, `v128` included) of `len` bytes at `addr`.
    #[inline(always)]
    fn load(&mut self, addr: u64, len: u32, instructions: u64) {
        let _ = (addr, len, instructions);
    }
    /// A store of `len` bytes at `addr`.
    #[inline(always)]
    fn store(&mut self, addr: u64, len: u32, instructions: u64) {
        let _ = (addr, len, instructions);
    }
    /// `memory.copy` of `len > 0` bytes from `src` to `dst`.
    #[inline(always)]
    fn copy(&mut self, dst: u64, src: u64, len: u64, instructions: u64) {
        let _ = (dst, src, len, instructions);
    }
    /// `memory.fill` (or `memory.init`, which writes like a fill) of `len > 0` bytes at `dst`.
    #[inline(always)]
    fn fill(&mut self, dst: u64, len: u64, instructions: u64) {
        let _ = (dst, len, instructions);
    }
    /// A call (`call`, or `call_indirect` when `indirect`), before the callee runs.
    #[inline(always)]
    fn call(&mut self, indirect: bool) {
        let _ = indirect;
    }
    /// A function starts running: the entry function of an invocation, or a callee right
    /// after its [`Observer::call`]. `func` is its index in the module's function index space
    /// (imports first, as in the `name` section); `instructions` is the exact count so far, the
    /// call instruction included. A host function called from Wasm is entered too, under the
    /// index of the caller's import it was linked to, and left as soon as it returns: it runs
    /// no instructions, but the memory it touches ([`Observer::host_read`],
    /// [`Observer::host_write`]) happens inside it.
    #[inline(always)]
    fn enter(&mut self, func: u32, instructions: u64) {
        let _ = (func, instructions);
    }
    /// The function entered last returns to its caller (or ends the invocation);
    /// `instructions` is the exact count so far, its `return` or final `end` included. A
    /// function that an exception leaves for a handler in a caller leaves at the count of the
    /// throwing instruction, one event per function left. A trap, an uncaught exception or an
    /// exhausted budget ends a run without `leave` events.
    #[inline(always)]
    fn leave(&mut self, instructions: u64) {
        let _ = instructions;
    }
    /// A host function read `len > 0` bytes at `addr` of the calling instance's memory 0 (a
    /// WASI call's iovecs, path and buffers): observed as the source of a `memory.copy` is.
    /// `instructions` is the exact count so far, the call instruction included.
    #[inline(always)]
    fn host_read(&mut self, addr: u64, len: u64, instructions: u64) {
        let _ = (addr, len, instructions);
    }
    /// A host function wrote `len > 0` bytes at `addr` of the calling instance's memory 0 (a
    /// WASI call's results and the bytes it read for the program): observed as the destination
    /// of a `memory.copy` is.
    #[inline(always)]
    fn host_write(&mut self, addr: u64, len: u64, instructions: u64) {
        let _ = (addr, len, instructions);
    }
    /// A taken branch back to a loop (one loop iteration).
    #[inline(always)]
    fn loop_iteration(&mut self) {}
    /// `global.set` of the stack pointer: global 0 (LLVM's `__stack_pointer`) unless
    /// [`Store::watch_stack_pointer`](crate::wasm::Store::watch_stack_pointer) chose another
    /// or none, in any instance of the store; `value` is the new value's low 32 bits;
    /// `instructions` the exact count, the `global.set` included.
    #[inline(always)]
    fn stack_pointer_write(&mut self, value: u32, instructions: u64) {
        let _ = (value, instructions);
    }

    /// Not called by the interpreter: the Content runner (`crate::content::run`) calls it after
    /// the uniform setters, right before `render` starts, so that an observer can tell the two
    /// phases apart. `instructions` is the run's instruction count so far (the setters'
    /// instructions); `stack_pointer` is the initial value of global 0 when it is a mutable
    /// `i32` (LLVM's `__stack_pointer`, the top of the stack range of docs/page-table.md).
    #[inline(always)]
    fn begin_render(&mut self, instructions: u64, stack_pointer: Option<u32>) {
        let _ = (instructions, stack_pointer);
    }

    /// Not called by the interpreter: the program runner (`crate::run`) calls it before a
    /// program (a WASI command, a module's export) starts, in place of
    /// [`Observer::begin_render`]. `stack` is the program's stack area `[floor, top)` as the
    /// module lays it out (docs/programs.md, "Regions"), `None` without a stack pointer. By
    /// default it is [`Observer::begin_render`] at instruction 0 with `top`.
    #[inline(always)]
    fn begin_program(&mut self, stack: Option<(u64, u64)>) {
        self.begin_render(0, stack.map(|(_, top)| top as u32));
    }
}

/// The observer of a plain run: observes nothing, costs nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoObserver;

impl Observer for NoObserver {
    const ENABLED: bool = false;
}

/// Two observers of one run: every event goes to `.0`, then to `.1`.
impl<A: Observer, B: Observer> Observer for (A, B) {
    const ENABLED: bool = A::ENABLED || B::ENABLED;
    const BLOCKS: bool = A::BLOCKS || B::BLOCKS;

    #[inline(always)]
    fn block(&mut self, module: &crate::wasm::Module, func: u32, pc: u32, before: u64) {
        self.0.block(module, func, pc, before);
        self.1.block(module, func, pc, before);
    }

    #[inline(always)]
    fn load(&mut self, addr: u64, len: u32, instructions: u64) {
        self.0.load(addr, len, instructions);
        self.1.load(addr, len, instructions);
    }
    #[inline(always)]
    fn store(&mut self, addr: u64, len: u32, instructions: u64) {
        self.0.store(addr, len, instructions);
        self.1.store(addr, len, instructions);
    }
    #[inline(always)]
    fn copy(&mut self, dst: u64, src: u64, len: u64, instructions: u64) {
        self.0.copy(dst, src, len, instructions);
        self.1.copy(dst, src, len, instructions);
    }
    #[inline(always)]
    fn fill(&mut self, dst: u64, len: u64, instructions: u64) {
        self.0.fill(dst, len, instructions);
        self.1.fill(dst, len, instructions);
    }
    #[inline(always)]
    fn call(&mut self, indirect: bool) {
        self.0.call(indirect);
        self.1.call(indirect);
    }
    #[inline(always)]
    fn enter(&mut self, func: u32, instructions: u64) {
        self.0.enter(func, instructions);
        self.1.enter(func, instructions);
    }
    #[inline(always)]
    fn leave(&mut self, instructions: u64) {
        self.0.leave(instructions);
        self.1.leave(instructions);
    }
    #[inline(always)]
    fn host_read(&mut self, addr: u64, len: u64, instructions: u64) {
        self.0.host_read(addr, len, instructions);
        self.1.host_read(addr, len, instructions);
    }
    #[inline(always)]
    fn host_write(&mut self, addr: u64, len: u64, instructions: u64) {
        self.0.host_write(addr, len, instructions);
        self.1.host_write(addr, len, instructions);
    }
    #[inline(always)]
    fn loop_iteration(&mut self) {
        self.0.loop_iteration();
        self.1.loop_iteration();
    }
    #[inline(always)]
    fn stack_pointer_write(&mut self, value: u32, instructions: u64) {
        self.0.stack_pointer_write(value, instructions);
        self.1.stack_pointer_write(value, instructions);
    }
    #[inline(always)]
    fn begin_render(&mut self, instructions: u64, stack_pointer: Option<u32>) {
        self.0.begin_render(instructions, stack_pointer);
        self.1.begin_render(instructions, stack_pointer);
    }
    #[inline(always)]
    fn begin_program(&mut self, stack: Option<(u64, u64)>) {
        self.0.begin_program(stack);
        self.1.begin_program(stack);
    }
}
