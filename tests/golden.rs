//! Golden counters: WAT targets whose counters are counted by hand in the comments, following
//! docs/counting.md (every instruction counts once, each `end` included; a taken
//! branch to a block costs two; a branch back to a loop costs one and counts an iteration) and
//! the values QIP documents for its own interpreter and its debugger qipdb.

mod common;
use common::instruction_offsets;
use std::sync::Arc;

use qip_memory::wasm::{
    Counters, ExecError, FuncIndex, Invalid, Limit, LimitExceeded, Limits, LoadErrorKind, Module,
    ModuleOffset, Observer, Store, TrapKind, ValType, Value,
};

fn instance(wat: &str) -> (Store, qip_memory::wasm::Instance, Vec<u8>) {
    let bytes = wat::parse_str(wat).expect("valid WAT");
    let module = Arc::new(Module::new(&bytes, &Limits::default()).expect("loads"));
    let mut store = Store::new(Limits::default());
    let inst = store.instantiate(module, &[]).expect("instantiates");
    store.reset_counters();
    (store, inst, bytes)
}

fn run(wat: &str, func: &str, args: &[Value]) -> (Result<Vec<Value>, ExecError>, Counters) {
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, func).expect("export");
    let r = store.call(f, args);
    (r, *store.counters())
}

/// The counters in their documented order (docs/counting.md), one argument per counter.
#[allow(clippy::too_many_arguments)]
fn counters(
    instructions: u64,
    calls: u64,
    indirect: u64,
    returns: u64,
    branches: u64,
    loops: u64,
    reads: u64,
    writes: u64,
) -> Counters {
    Counters {
        instructions,
        calls,
        indirect_calls: indirect,
        returns,
        branches,
        loop_iterations: loops,
        memory_reads: reads,
        memory_writes: writes,
    }
}

/// QIP's documented value: a function doing `i32.const 5; return`, called once from render.
#[test]
fn callee_return_costs_seven() {
    let wat = r#"(module
      (func $five (result i32)
        i32.const 5   ;; 1
        return        ;; 2  (branch 1)
      )               ;; 3  final end (return 1)
      (func (export "render") (param i32) (result i64)
        call $five    ;; 4  (call 1)
        drop          ;; 5
        i64.const 0   ;; 6
      ))              ;; 7  final end (return 2)"#;
    let (r, c) = run(wat, "render", &[Value::I32(0)]);
    assert_eq!(r.unwrap(), vec![Value::I64(0)]);
    assert_eq!(c, counters(7, 1, 0, 2, 1, 0, 0, 0));
}

/// qipdb's loop: `i = 0; loop { i += 1; br_if i < 3 }; i` → 28 instructions, 2 loop
/// iterations, result 3.
#[test]
fn loop_three_bodies_two_iterations() {
    let wat = r#"(module (func (export "run") (result i32) (local i32)
      loop              ;; 1
        local.get 0     ;; body: 8 instructions, run 3 times = 24 → 25
        i32.const 1
        i32.add
        local.set 0
        local.get 0
        i32.const 3
        i32.lt_u
        br_if 0         ;; taken twice: 2 branches, 2 loop iterations
      end               ;; 26
      local.get 0       ;; 27
    ))                  ;; 28"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(3)]);
    assert_eq!(c, counters(28, 0, 0, 1, 2, 2, 0, 0));
}

/// QIP's bulk-memory fixture: one `memory.copy` and one `memory.fill` → reads 1, writes 2;
/// zero-length ones count nothing.
#[test]
fn bulk_memory_counts_per_instruction() {
    let wat = r#"(module (memory 1)
      (func (export "run")
        (memory.copy (i32.const 100) (i32.const 0) (i32.const 50))   ;; 4 instructions, read 1 write 1
        (memory.fill (i32.const 200) (i32.const 7) (i32.const 300))  ;; 4, write 1
        (memory.copy (i32.const 100) (i32.const 0) (i32.const 0))    ;; 4, nothing
        (memory.fill (i32.const 65536) (i32.const 7) (i32.const 0))  ;; 4, nothing (in bounds: 65536 + 0)
      ))                                                              ;; 17"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![]);
    assert_eq!(c, counters(17, 0, 0, 1, 0, 0, 1, 2));
}

/// QIP's fixture: `call_indirect` → indirect 1 (and calls 1).
#[test]
fn call_indirect_counts_indirect() {
    let wat = r#"(module
      (type $t (func (result i32)))
      (table 1 1 funcref)
      (elem (i32.const 0) $seven)
      (func $seven (result i32) i32.const 7)        ;; 2 (const, end)
      (func (export "run") (result i32)
        i32.const 0                                  ;; 1
        call_indirect (type $t)                      ;; 2
      ))                                             ;; 3 + 2 = 5"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(7)]);
    assert_eq!(c, counters(5, 1, 1, 2, 0, 0, 0, 0));
}

/// A taken branch to a block costs two (the `br` and the block's `end`).
#[test]
fn branch_to_block_costs_two() {
    let wat = r#"(module (func (export "run")
      block    ;; 1
        br 0   ;; 2, branch 1
        nop    ;; never runs
      end      ;; 3
    ))         ;; 4"#;
    let (_, c) = run(wat, "run", &[]);
    assert_eq!(c, counters(4, 0, 0, 1, 1, 0, 0, 0));
}

/// `if`/`else` are not branches; the false path skips `else` and lands on the arm after it.
#[test]
fn if_else_paths() {
    let wat = r#"(module (func (export "run") (param i32) (result i32)
      local.get 0       ;; 1
      if (result i32)   ;; 2
        i32.const 10    ;; then: 3
      else              ;; then: 4 (jumps to end)
        i32.const 20    ;; else: 3
      end               ;; then: 5, else: 4
    ))                  ;; then: 6, else: 5"#;
    let (r, c) = run(wat, "run", &[Value::I32(1)]);
    assert_eq!(r.unwrap(), vec![Value::I32(10)]);
    assert_eq!(c, counters(6, 0, 0, 1, 0, 0, 0, 0));
    let (r, c) = run(wat, "run", &[Value::I32(0)]);
    assert_eq!(r.unwrap(), vec![Value::I32(20)]);
    assert_eq!(c, counters(5, 0, 0, 1, 0, 0, 0, 0));
}

/// `br_table` to the function label is a return: branch + final `end`.
#[test]
fn br_table_return_and_block() {
    let wat = r#"(module (func (export "run") (param i32) (result i32)
      block (result i32)          ;; 1
        i32.const 5               ;; 2
        local.get 0               ;; 3
        br_table 0 1              ;; 4: index 0 → block end, else → return
      end                         ;; index 0: 5
      i32.const 1                 ;; 6
      i32.add                     ;; 7
    ))                            ;; 8; return path: 4 + final end = 5"#;
    let (r, c) = run(wat, "run", &[Value::I32(0)]);
    assert_eq!(r.unwrap(), vec![Value::I32(6)]);
    assert_eq!(c, counters(8, 0, 0, 1, 1, 0, 0, 0));
    let (r, c) = run(wat, "run", &[Value::I32(9)]);
    assert_eq!(r.unwrap(), vec![Value::I32(5)]);
    assert_eq!(c, counters(5, 0, 0, 1, 1, 0, 0, 0));
}

/// Loads and stores count one per instruction whatever their width; a trapping load counts as
/// an instruction but not as a read (access counters count after the bounds check).
#[test]
fn loads_stores_and_trap_counts() {
    let wat = r#"(module (memory 1)
      (func (export "run") (param i32) (result i32)
        (i64.store (i32.const 8) (i64.const -1))      ;; 3, write 1
        (v128.store (i32.const 16) (v128.const i64x2 1 2)) ;; 3, write 2
        (i32.load8_u (local.get 0))                   ;; 2, read 1 (traps for 65536)
      ))                                              ;; 9"#;
    let (r, c) = run(wat, "run", &[Value::I32(8)]);
    assert_eq!(r.unwrap(), vec![Value::I32(255)]);
    assert_eq!(c, counters(9, 0, 0, 1, 0, 0, 1, 2));
    let (r, c) = run(wat, "run", &[Value::I32(65536)]);
    let Err(ExecError::Trap(t)) = r else { panic!("expected a trap, got {r:?}") };
    assert_eq!(t.kind, TrapKind::MemoryOutOfBounds);
    // The trapping load is the 8th instruction: 3 + 3 + local.get + load.
    assert_eq!(c, counters(8, 0, 0, 0, 0, 0, 0, 2));
}

/// A trap reports the byte offset of the trapping instruction and counts it.
#[test]
fn trap_offset_and_count() {
    let wat = r#"(module (func (export "run") (result i32)
      i32.const 1   ;; 1
      i32.const 0   ;; 2
      i32.div_u     ;; 3: traps
    ))"#;
    let (mut store, inst, bytes) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let r = store.call(f, &[]);
    let offsets = instruction_offsets(&bytes, 0);
    assert_eq!(
        r,
        Err(ExecError::Trap(qip_memory::wasm::Trap {
            kind: TrapKind::IntegerDivideByZero,
            offset: ModuleOffset(offsets[2] as u32),
            func: Some(FuncIndex(0)),
        }))
    );
    assert_eq!(store.counters().instructions, 3);
}

/// An infinite loop (QIP's `infinite-loop.wat`) stopped by budgets; exhaustion is not a trap, and
/// the run executes exactly the budget. The next instruction is `br` (loop body).
#[test]
fn budget_exhaustion_is_exact() {
    let wat = r#"(module (func (export "render") (param i32) (result i64)
      loop     ;; 1
        br 0   ;; 2, 3, 4, ...
      end
      unreachable))"#;
    for budget in [1u64, 2, 7, 11, 1000] {
        let (mut store, inst, bytes) = instance(wat);
        let f = store.get_func(inst, "render").unwrap();
        store.set_budget(Some(budget));
        let r = store.call(f, &[Value::I32(0)]);
        let offsets = instruction_offsets(&bytes, 0);
        // After `loop` (offset[0]) every next instruction is the `br` (offset[1]).
        let next = ModuleOffset(offsets[1] as u32);
        assert_eq!(
            r,
            Err(ExecError::BudgetExhausted { offset: next, func: Some(FuncIndex(0)) }),
            "budget {budget}"
        );
        assert_eq!(store.counters().instructions, budget);
        assert_eq!(store.counters().loop_iterations, budget - 1);
    }
}

/// A run that halts on exactly the budget-th instruction succeeds; one less is exhausted at
/// the last instruction (here the final `end`, reached by `return`).
#[test]
fn budget_boundary() {
    let wat = r#"(module (func (export "run") (result i32)
      i32.const 4   ;; 1
      i32.const 5   ;; 2
      i32.add       ;; 3
      return        ;; 4
    ))              ;; 5"#;
    let (mut store, inst, bytes) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    store.set_budget(Some(5));
    assert_eq!(store.call(f, &[]).unwrap(), vec![Value::I32(9)]);
    assert_eq!(store.counters().instructions, 5);
    let offsets = instruction_offsets(&bytes, 0);
    for budget in 1..5u64 {
        store.reset_counters();
        store.set_budget(Some(budget));
        let r = store.call(f, &[]);
        assert_eq!(
            r,
            Err(ExecError::BudgetExhausted {
                offset: ModuleOffset(offsets[budget as usize] as u32),
                func: Some(FuncIndex(0))
            }),
            "budget {budget}"
        );
        assert_eq!(store.counters().instructions, budget);
        // The `return` branch counts once it has executed (budget 4: return ran, end did not).
        assert_eq!(store.counters().branches, u64::from(budget == 4));
    }
}

/// Setters and render share one budget when the counters are not reset in between.
#[test]
fn shared_budget() {
    let wat = r#"(module
      (func (export "a") i32.const 1 drop)     ;; 3
      (func (export "b") i32.const 1 drop nop) ;; 4
    )"#;
    let (mut store, inst, _) = instance(wat);
    store.set_budget(Some(6));
    let a = store.get_func(inst, "a").unwrap();
    let b = store.get_func(inst, "b").unwrap();
    store.call(a, &[]).unwrap();
    assert_eq!(store.remaining_budget(), 3);
    assert!(matches!(store.call(b, &[]), Err(ExecError::BudgetExhausted { .. })));
    assert_eq!(store.counters().instructions, 6);
}

#[derive(Default)]
struct Recorder {
    events: Vec<String>,
}

impl Observer for Recorder {
    fn load(&mut self, addr: u64, len: u32, instructions: u64) {
        self.events.push(format!("load {addr}+{len} @{instructions}"));
    }
    fn store(&mut self, addr: u64, len: u32, instructions: u64) {
        self.events.push(format!("store {addr}+{len} @{instructions}"));
    }
    fn copy(&mut self, dst: u64, src: u64, len: u64, instructions: u64) {
        self.events.push(format!("copy {src}->{dst}+{len} @{instructions}"));
    }
    fn fill(&mut self, dst: u64, len: u64, instructions: u64) {
        self.events.push(format!("fill {dst}+{len} @{instructions}"));
    }
    fn call(&mut self, indirect: bool) {
        self.events.push(format!("call indirect={indirect}"));
    }
    fn loop_iteration(&mut self) {
        self.events.push("loop".into());
    }
    fn stack_pointer_write(&mut self, value: u32, _: u64) {
        self.events.push(format!("sp={value}"));
    }
}

/// The observer sees effective addresses (offset included), widths, and the exact instruction
/// count at each access, the access itself included.
#[test]
fn observer_events() {
    let wat = r#"(module (memory 2)
      (global $sp (mut i32) (i32.const 1024))
      (func $f (result i32) i32.const 3)
      (func (export "run") (local i32)
        (global.set $sp (i32.sub (global.get $sp) (i32.const 16)))  ;; 4 → sp=1008
        (i32.store offset=2 (i32.const 65532) (i32.const 1))        ;; 7: store 65534+4
        (drop (i64.load (i32.const 8)))                              ;; load 8+8 at 9, drop 10
        (memory.copy (i32.const 0) (i32.const 100) (i32.const 3))    ;; 14: copy 100->0+3
        (memory.fill (i32.const 50) (i32.const 0) (i32.const 9))     ;; 18: fill 50+9
        (drop (call $f))                                             ;; call at 19; $f: 2
        loop                                                         ;; 24
          (local.set 0 (i32.add (local.get 0) (i32.const 1)))        ;; 4 per body
          (br_if 0 (i32.lt_u (local.get 0) (i32.const 2)))           ;; 4 per body
        end
      ))"#;
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let mut rec = Recorder::default();
    store.call_observed(f, &[], &mut rec).unwrap();
    assert_eq!(
        rec.events,
        [
            "sp=1008",
            "store 65534+4 @7",
            "load 8+8 @9",
            "copy 100->0+3 @14",
            "fill 50+9 @18",
            "call indirect=false",
            "loop",
        ]
    );
    // 18 + call/drop 2 + callee 2 + loop 1 + 2 bodies × 8 + loop end 1 + final end 1.
    assert_eq!(store.counters().instructions, 18 + 2 + 2 + 1 + 16 + 1 + 1);
}

/// A module beyond a limit is a clean load error with an offset; deep recursion is a trap.
#[test]
fn limits_are_clean_errors() {
    let big = wat::parse_str("(module (memory 4000))").unwrap();
    let e = Module::new(&big, &Limits::default()).unwrap_err();
    // 4,000 pages against the default 192 MiB.
    let exceeded = |limit, value| LoadErrorKind::Limit(LimitExceeded { limit, value });
    assert_eq!(e.kind, exceeded(Limit::InitialMemory(192 << 20), 4000));
    assert_eq!(
        e.to_string(),
        "initial memory of 4000 pages exceeds the limit of 201326592 bytes (at offset 0xa)"
    );
    let small = Limits { max_module_bytes: 8, ..Limits::default() };
    assert_eq!(
        Module::new(&big, &small).unwrap_err().kind,
        exceeded(Limit::ModuleBytes(8), big.len() as u64)
    );
    let wat = r#"(module (func $r (export "run") call $r))"#;
    let (r, c) = run(wat, "run", &[]);
    assert!(matches!(r, Err(ExecError::Trap(t)) if t.kind == TrapKind::StackOverflow));
    // 1023 calls succeed (frames 1..1024), the 1024th traps; each call is one instruction.
    assert_eq!(c.calls, 1023);
    assert_eq!(c.instructions, 1024);
}

/// Malformed and invalid modules are rejected with the decoder's offset.
#[test]
fn invalid_module_offset() {
    // Header, then a type section (id 1) whose size byte claims more than is there.
    let bytes = [0, b'a', b's', b'm', 1, 0, 0, 0, 1, 5, 1];
    let e = Module::new(&bytes, &Limits::default()).unwrap_err();
    assert!(matches!(e.kind, LoadErrorKind::Invalid(_)), "{e:?}");
    assert!(e.offset.0 >= 8 && e.offset.0 as usize <= bytes.len(), "offset {}", e.offset);
    let invalid = wat::parse_str("(module (func (result i32) i64.const 1))").unwrap();
    let e = Module::new(&invalid, &Limits::default()).unwrap_err();
    let mismatch = Invalid::TypeMismatch { expected: Some(ValType::I32), found: Some(ValType::I64) };
    assert_eq!(e.kind, LoadErrorKind::Invalid(mismatch), "{e}");
    assert_eq!(e.to_string(), "type mismatch: expected i32, found i64 (at offset 0x1a)");
}

/// Every budget from 1 to the run's total stops after exactly that many instructions, and the
/// memory writes done by then are exactly the stores the unlimited run made within its first
/// `budget` instructions (the observer reports each store's exact instruction count). This
/// exercises the precise mode at every position: inside fuel blocks, after taken and untaken
/// conditional branches (which charge the block they land in), across calls and returns.
#[test]
fn every_budget_prefix_is_exact() {
    let wat = r#"(module (memory 1)
      (func $sq (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
      (func (export "run") (param i32) (result i32) (local i32 i32)
        block $out
          loop $l
            (br_if $out (i32.ge_u (local.get 1) (local.get 0)))
            (if (i32.and (local.get 1) (i32.const 1))
              (then (i32.store (i32.shl (local.get 1) (i32.const 2)) (call $sq (local.get 1))))
              (else (local.set 2 (i32.add (local.get 2) (local.get 1)))))
            (i32.store8 (i32.const 1000) (local.get 2))
            (local.set 1 (i32.add (local.get 1) (i32.const 1)))
            (br_if $l (i32.eqz (i32.eqz (i32.const 1))))
          end
        end
        (local.get 2)))"#;
    let (full, _) = assert_every_budget_prefix(wat, 7);
    assert_eq!(full, Value::I32(2 + 4 + 6));
}

/// The same for the branches whose charge is in their target entry (docs/counting.md, "Fuel
/// blocks"): a `br_table` to a block and to the function label, a `br_if` that carries a value
/// to a block and one that returns a value; and a `br` that carries a value (`Copy`, then a
/// direct `Br`). The counts are by hand: an iteration
/// runs `A` (7 instructions the first time, `loop` included, then 6), `B` (8), `C` (4, even `i`
/// only; odd `i` take the `br_if` past it) and `D` (13, then 6 unless `s > 40` returns).
#[test]
fn every_budget_prefix_is_exact_through_branch_targets() {
    let wat = r#"(module (memory 1)
      (func (export "run") (param $n i32) (result i32) (local $i i32) (local $s i32)
        loop $l                     ;; A: 1
          block $b (result i32)     ;; 2
            local.get $s            ;; 3
            local.get $i            ;; 4
            local.get $n            ;; 5
            i32.ge_u                ;; 6
            br_table $b 2           ;; 7: i < n → $b carrying s; else return s
          end                       ;; B: 1
          block $c (result i32)     ;; 2
            i32.const 5             ;; 3
            local.get $i            ;; 4
            local.get $i            ;; 5
            i32.const 1             ;; 6
            i32.and                 ;; 7
            br_if $c                ;; 8: odd i → $c carrying i (moved down one slot)
            i32.add                 ;; C: 1
            i32.const 1             ;; 2
            i32.const 2             ;; 3
            br $c                   ;; 4: carrying 2 (moved down one slot)
          end                       ;; D: 1
          i32.add                   ;; 2
          local.set $s              ;; 3
          (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $s)) ;; 4-8
          local.get $s              ;; 9
          local.get $s              ;; 10
          i32.const 40              ;; 11
          i32.gt_u                  ;; 12
          br_if 1                   ;; 13: s > 40 → return s
          drop                      ;; 14
          local.get $i              ;; 15
          i32.const 1               ;; 16
          i32.add                   ;; 17
          local.set $i              ;; 18
          br $l                     ;; 19
        end
        unreachable))"#;
    // run(5): s = 2, 3, 5, 8, 10 after i = 0..4 (even i add 2, odd i add i); i = 5 returns
    // it through the `br_table` (A, then the final `end`).
    // Iterations: 7+8+4+19 = 38; 6+8+19 = 33 (odd); 6+8+4+19 = 37 (even); then 6 + 1.
    let (full, c) = assert_every_budget_prefix(wat, 5);
    assert_eq!(full, Value::I32(10));
    assert_eq!(c, counters(38 + 33 + 37 + 33 + 37 + 7, 0, 0, 1, 5 * 3 + 1, 5, 0, 5));
    // run(20): s passes 40 at i = 11 (37 + 11 = 48), which returns through the `br_if` after
    // A, B and D up to the branch, then the final `end`: 6 + 8 + 13 + 1.
    let (full, c) = assert_every_budget_prefix(wat, 20);
    assert_eq!(full, Value::I32(48));
    assert_eq!(c, counters(38 + 5 * 33 + 5 * 37 + 28, 0, 0, 1, 11 * 3 + 3, 11, 0, 12));
}

/// Back edges to a loop with two parameters that carry values (Fibonacci pairs `(a, b)` to
/// `(b, a + b)`): a `br_if` (a target entry), then a `br_table` (a target entry) or a `br` (two
/// overlapping `Copy`s and a `BrLoop`). By hand, with `k` the iteration (`i` after its
/// increment): 3 instructions before the loop; each iteration runs L1–L7 (7), and returns `b`
/// once `k >= n` (then the final `end`: 8); else L8–L17 (10), after which odd `k` branch back
/// through the `br_if` and even `k` run 2 more (`i32.const 0`, `br_table`) or 1 (`br`).
#[test]
fn every_budget_prefix_is_exact_through_loop_parameters() {
    let wat = |tail: &str| {
        format!(
            r#"(module
          (func (export "run") (param $n i32) (result i32) (local $i i32) (local $a i32) (local $b i32)
            i32.const 0               ;; 1
            i32.const 1               ;; 2
            loop $l (param i32 i32) (result i32 i32) ;; 3
              local.get $i            ;; L1
              i32.const 1             ;; L2
              i32.add                 ;; L3
              local.tee $i            ;; L4
              local.get $n            ;; L5
              i32.ge_u                ;; L6
              br_if 1                 ;; L7: k >= n returns b
              local.set $b            ;; L8
              local.tee $a            ;; L9
              local.get $b            ;; L10
              local.get $a            ;; L11
              local.get $b            ;; L12
              i32.add                 ;; L13: [a, b, a + b]
              local.get $i            ;; L14
              i32.const 1             ;; L15
              i32.and                 ;; L16
              br_if $l                ;; L17: odd k carry [b, a + b] back
              {tail}
            end
            i32.add))"#
        )
    };
    // (a, b) after k = 1..4: (1, 1), (1, 2), (2, 3), (3, 5); k = 5 returns b = 5.
    let table = wat("i32.const 0 br_table $l");
    let (full, c) = assert_every_budget_prefix(&table, 5);
    assert_eq!(full, Value::I32(5));
    assert_eq!(c, counters(3 + 17 + 19 + 17 + 19 + 8, 0, 0, 1, 5, 4, 0, 0));
    let br = wat("br $l");
    let (full, c) = assert_every_budget_prefix(&br, 5);
    assert_eq!(full, Value::I32(5));
    assert_eq!(c, counters(3 + 17 + 18 + 17 + 18 + 8, 0, 0, 1, 5, 4, 0, 0));
    // n = 12: b is the 12th Fibonacci number; 11 full iterations, 6 of them odd.
    let (full, c) = assert_every_budget_prefix(&br, 12);
    assert_eq!(full, Value::I32(144));
    assert_eq!(c, counters(3 + 6 * 17 + 5 * 18 + 8, 0, 0, 1, 12, 11, 0, 0));
}

/// The store events of one `run(5)` of the target above, counted by hand: store `i` writes
/// `s` at `4 i` as the 8th instruction of D.
#[test]
fn store_counts_after_branch_targets() {
    let wat = r#"(module (memory 1)
      (func (export "run") (param $n i32) (result i32) (local $i i32) (local $s i32)
        loop $l
          block $b (result i32)
            (br_table $b 2 (local.get $s) (i32.ge_u (local.get $i) (local.get $n)))
          end
          block $c (result i32)
            (br_if $c (i32.const 5) (local.get $i) (i32.and (local.get $i) (i32.const 1)))
            i32.add
            (br $c (i32.const 1) (i32.const 2))
          end
          i32.add
          local.set $s
          (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $s))
          (br_if 1 (local.get $s) (i32.gt_u (local.get $s) (i32.const 40)))
          drop
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          br $l
        end
        unreachable))"#;
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let mut rec = Recorder::default();
    assert_eq!(store.call_observed(f, &[Value::I32(5)], &mut rec).unwrap(), vec![Value::I32(10)]);
    // Each iteration's store: after A (7, then 6), B (8), C (4, even i) and 8 of D; the
    // iterations before it took 38, 33, 37, 33.
    let expected = ["store 0+4 @27", "store 4+4 @60", "store 8+4 @97", "store 12+4 @130", "store 16+4 @167"];
    assert_eq!(rec.events.iter().filter(|e| e.starts_with("store")).collect::<Vec<_>>(), expected);
    assert_eq!(store.counters().instructions, 185);
}

/// Runs the export `run` of `wat` on `arg` without a budget, then at every budget below its
/// total: each stops after exactly that many instructions, with exactly the stores the full
/// run made by then; the budget of the total runs it whole again. Returns the result and the
/// full run's counters.
fn assert_every_budget_prefix(wat: &str, arg: i32) -> (Value, Counters) {
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let mut rec = Recorder::default();
    let full = store.call_observed(f, &[Value::I32(arg)], &mut rec).unwrap();
    let total = store.counters().instructions;
    let full_counters = *store.counters();
    let store_at: Vec<u64> = rec
        .events
        .iter()
        .filter(|e| e.starts_with("store"))
        .map(|e| e.rsplit('@').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(store_at.len() as u64, full_counters.memory_writes);
    for budget in 1..total {
        store.reset_counters();
        store.set_budget(Some(budget));
        let r = store.call(f, &[Value::I32(arg)]);
        assert!(matches!(r, Err(ExecError::BudgetExhausted { .. })), "budget {budget}: {r:?}");
        let c = store.counters();
        assert_eq!(c.instructions, budget);
        let expected_writes = store_at.iter().filter(|&&at| at <= budget).count() as u64;
        assert_eq!(c.memory_writes, expected_writes, "writes at budget {budget}");
    }
    store.reset_counters();
    store.set_budget(Some(total));
    assert_eq!(store.call(f, &[Value::I32(arg)]).unwrap(), full);
    assert_eq!(*store.counters(), full_counters);
    (full[0], full_counters)
}

// ---- tail calls and extended constants (docs/counting.md, "Threads, exceptions and tail calls")

/// A countdown by `return_call`, 100,000 deep: each of the 100,000 tail calls runs its 8
/// instructions and counts 1 call and 1 return; the last activation runs `block`, `local.get`,
/// `i32.eqz`, the taken `br_if` and the block's `end` (a branch), `i32.const` and the final
/// `end` (a return): 7. The same countdown by `call` overflows the 1,024 frames.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn tail_calls_run_in_constant_frames() {
    let countdown = |call: &str| {
        format!(
            r#"(module (func $count (export "count") (param i32) (result i32)
              block                  ;; 1
                local.get 0          ;; 2
                i32.eqz              ;; 3
                br_if 0              ;; 4
                local.get 0          ;; 5
                i32.const 1          ;; 6
                i32.sub              ;; 7
                {call} $count        ;; 8
                {after}
              end
              i32.const 42))"#,
            after = if call == "call" { "return" } else { "" }
        )
    };
    let (r, c) = run(&countdown("return_call"), "count", &[Value::I32(100_000)]);
    assert_eq!(r.unwrap(), vec![Value::I32(42)]);
    assert_eq!(c, counters(8 * 100_000 + 7, 100_000, 0, 100_001, 1, 0, 0, 0));
    let (r, c) = run(&countdown("call"), "count", &[Value::I32(100_000)]);
    assert!(matches!(r, Err(ExecError::Trap(t)) if t.kind == TrapKind::StackOverflow));
    assert_eq!(c.calls, 1023);
}

/// Calls, tail calls and returns as an observer sees them.
#[derive(Default)]
#[cfg(not(feature = "only-2-0"))]
struct CallTrace(Vec<String>);

#[cfg(not(feature = "only-2-0"))]
impl Observer for CallTrace {
    fn call(&mut self, indirect: bool) {
        self.0.push(format!("call indirect={indirect}"));
    }
    fn enter(&mut self, func: u32, instructions: u64) {
        self.0.push(format!("enter {func} @{instructions}"));
    }
    fn leave(&mut self, instructions: u64) {
        self.0.push(format!("leave @{instructions}"));
    }
}

/// `return_call_indirect`: the caller leaves and the callee enters in its place, at the tail
/// call's count; the callee's `end` returns to the caller's caller.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn a_tail_call_replaces_its_caller() {
    let wat = r#"(module
      (type $t (func (param i32) (result i32)))
      (table funcref (elem $double))
      (func $double (type $t) (i32.add (local.get 0) (local.get 0)))  ;; 4 with its end
      (func $via (param i32) (result i32)
        local.get 0                       ;; 3
        i32.const 0                       ;; 4
        return_call_indirect (type $t))   ;; 5: call (indirect), return
      (func (export "run") (result i32)
        i32.const 21                      ;; 1
        call $via))                       ;; 2; the final end is 10"#;
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let mut trace = CallTrace::default();
    assert_eq!(store.call_observed(f, &[], &mut trace).unwrap(), vec![Value::I32(42)]);
    assert_eq!(
        trace.0,
        [
            "enter 2 @0",
            "call indirect=false",
            "enter 1 @2",
            "call indirect=true",
            "leave @5",
            "enter 0 @5",
            "leave @9",
            "leave @10",
        ]
    );
    // Returns: $double's end, the tail call, run's end.
    assert_eq!(*store.counters(), counters(10, 2, 1, 3, 0, 0, 0, 0));
    // A callee of another type traps at the tail call, counted.
    let wat = wat
        .replace("(elem $double)", "(elem $run)")
        .replace("(func (export \"run\")", "(func $run (export \"run\")")
        .replace("(func $via", "(func $via (export \"via\")");
    let (r, c) = run(&wat, "via", &[Value::I32(1)]);
    assert!(matches!(r, Err(ExecError::Trap(t)) if t.kind == TrapKind::IndirectCallTypeMismatch), "{r:?}");
    assert_eq!(c.instructions, 3);
}

/// Extended constant expressions: computed when the module is instantiated, from constants and
/// earlier immutable globals (imported or defined), with `i32` arithmetic wrapping at 32 bits.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn extended_constants_compute_at_instantiation() {
    let wat = r#"(module (memory 1)
      (global $a i32 (i32.const 1000))
      (global $b i32 (i32.add (global.get $a) (i32.mul (i32.const 3) (i32.const 8))))
      (global $c i64 (i64.sub (i64.const 0) (i64.const 1)))
      (global $d i32 (i32.mul (i32.const 0x10000) (i32.const 0x10001)))
      (data (offset (i32.sub (global.get $b) (i32.const 4))) "\2a")
      (func (export "run") (result i32 i64 i32 i32)
        global.get $b global.get $c global.get $d (i32.load8_u (i32.const 1020))))"#;
    let (r, _) = run(wat, "run", &[]);
    // 1000 + 24; 0 - 1; 0x10000 × 0x10001 = 0x1_0001_0000, wrapped to 0x10000; the byte at
    // 1024 - 4 = 1020.
    assert_eq!(r.unwrap(), vec![Value::I32(1024), Value::I64(-1), Value::I32(0x10000), Value::I32(42)]);
    // Folded when the module loads: the data segment's offset is known statically.
    let module = Module::new(&wat::parse_str(wat).unwrap(), &Limits::default()).unwrap();
    assert_eq!(
        module.active_data().map(|(m, at, bytes)| (m, at, bytes.to_vec())).collect::<Vec<_>>(),
        [(0, Some(1020), vec![42])]
    );
}

/// Every budget is exact across tail calls: a store in each activation of a countdown by
/// `return_call` and one through `return_call_indirect`, at every prefix.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn every_budget_prefix_is_exact_through_tail_calls() {
    let wat = r#"(module (memory 1)
      (type $t (func (param i32) (result i32)))
      (table funcref (elem $down))
      (func $down (type $t)
        (i32.store (i32.shl (local.get 0) (i32.const 2)) (local.get 0))
        (if (i32.eqz (local.get 0)) (then (return (i32.const 7))))
        (return_call_indirect (type $t) (i32.sub (local.get 0) (i32.const 1)) (i32.const 0)))
      (func (export "run") (param i32) (result i32)
        (return_call $down (local.get 0))))"#;
    let (full, c) = assert_every_budget_prefix(wat, 5);
    assert_eq!(full, Value::I32(7));
    // 6 activations of $down, each storing once; 1 return_call and 5 return_call_indirect.
    assert_eq!((c.calls, c.indirect_calls, c.memory_writes), (6, 5, 6));
}

/// Built as the Content components build it (`only-2-0`, `make test-compact`), the interpreter
/// refuses the proposals it otherwise runs by name, at the construct (offsets as in
/// tests/validate.rs).
#[test]
#[cfg(feature = "only-2-0")]
fn only_2_0_refuses_the_later_proposals_by_name() {
    let refusal = |wat: &str| {
        let e = Module::new(&wat::parse_str(wat).unwrap(), &Limits::default()).map(|_| ()).unwrap_err();
        (e.offset.0, e.kind.proposal().map(|p| p.name()), e.to_string())
    };
    assert_eq!(
        refusal("(module (func return_call 0))"),
        (
            0x17,
            Some("tail calls"),
            "uses tail calls (return_call, opcode 0x12); the interpreter runs WebAssembly 2.0 (at offset 0x17)".into()
        )
    );
    let (offset, name, _) = refusal("(module (global i32 (i32.add (i32.const 1) (i32.const 2))))");
    assert_eq!((offset, name), (0x11, Some("extended constant expressions")));
    // Global 1's `global.get 0` at 0x12 (global 0 is 0xb..=0xf).
    let (offset, name, _) = refusal("(module (global i32 (i32.const 1)) (global i32 (global.get 0)))");
    assert_eq!((offset, name), (0x12, Some("extended constant expressions")));
    // Memory section: id 8, size 9, count 0xa, the shared flags 0x03 at 0xb.
    let (offset, name, _) = refusal("(module (memory 1 1 shared))");
    assert_eq!((offset, name), (0xb, Some("threads")));
    // Type section 8..=0xd, the tag section's id 13 at 0xe; a body's first instruction (as
    // `return_call` above) at 0x17.
    let (offset, name, _) = refusal("(module (tag))");
    assert_eq!((offset, name), (0xe, Some("exception handling")));
    let (offset, name, _) = refusal("(module (func (try_table)))");
    assert_eq!((offset, name), (0x17, Some("exception handling")));
}

// ------------------------------------------------------------------ threads (docs/counting.md)

/// Every class of atomic counted as docs/counting.md "Threads" says, by hand: a load one read,
/// a store one write, a read-modify-write and a compare-exchange (its compare failing too) one
/// read and one write of their width, a wait one read of 4 or 8 bytes, a notify and a fence
/// nothing but themselves. The observer sees each access with its width, effective address and
/// exact count, a read-modify-write as a load and a store at the same count.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn atomics_count_as_their_accesses() {
    let wat = r#"(module (memory 1 1 shared)
      (func (export "run") (result i32)
        (i32.atomic.store (i32.const 8) (i32.const 5))                   ;; 1-3: write 8+4; mem[8] = 5
        (drop (i64.atomic.rmw16.add_u (i32.const 8) (i64.const 2)))      ;; 4-7: op at 6, 5 + 2 = 7
        (drop (i32.atomic.rmw8.cmpxchg_u (i32.const 8) (i32.const 7) (i32.const 9)))  ;; 8-12: op 11, 7 = 7: 9
        (drop (i32.atomic.rmw8.cmpxchg_u (i32.const 8) (i32.const 7) (i32.const 1)))  ;; 13-17: op 16, 9 ≠ 7
        (drop (memory.atomic.wait32 (i32.const 8) (i32.const 0) (i64.const 0)))      ;; 18-22: op 21, 9 ≠ 0: 1
        (drop (memory.atomic.wait64 (i32.const 8) (i64.const 9) (i64.const 0)))      ;; 23-27: op 26, equal: 2
        (drop (memory.atomic.notify (i32.const 8) (i32.const 1)))                    ;; 28-31: no access
        atomic.fence                                                                 ;; 32
        (i32.atomic.load8_u (i32.const 8))                                           ;; 33-34: read 8+1
      ))                                                                             ;; 35"#;
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let mut rec = Recorder::default();
    assert_eq!(store.call_observed(f, &[], &mut rec).unwrap(), vec![Value::I32(9)]);
    // Reads: the add, both compare-exchanges, both waits, the load = 6. Writes: the store, the
    // add, both compare-exchanges = 4.
    assert_eq!(*store.counters(), counters(35, 0, 0, 1, 0, 0, 6, 4));
    assert_eq!(
        rec.events,
        [
            "store 8+4 @3",
            "load 8+2 @6",
            "store 8+2 @6",
            "load 8+1 @11",
            "store 8+1 @11",
            "load 8+1 @16",
            "store 8+1 @16",
            "load 8+4 @21",
            "load 8+8 @26",
            "load 8+1 @34",
        ]
    );
    // The plain run counts the same.
    let (r, c) = run(wat, "run", &[]);
    assert_eq!((r.unwrap(), c), (vec![Value::I32(9)], counters(35, 0, 0, 1, 0, 0, 6, 4)));
}

/// What each wait and notify returns on one thread, and the traps of the atomics in the
/// threads specification's order (alignment, a wait's shared memory, then bounds), each
/// counting its instruction and no access; the deadlocked wait has read and compared its
/// value, and counts that read.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn atomic_results_and_traps_on_one_thread() {
    let wat = r#"(module (memory 1 1 shared)
      (func (export "load") (param i32) (result i64)
        (i64.atomic.load (local.get 0)))                                      ;; 1-2, end 3
      (func (export "wait") (param i32 i32 i64) (result i32)
        (memory.atomic.wait32 (local.get 0) (local.get 1) (local.get 2)))     ;; 1-4, end 5
      (func (export "notify") (param i32 i32) (result i32)
        (memory.atomic.notify (local.get 0) (local.get 1))))                  ;; 1-3, end 4"#;
    let (i, l) = (Value::I32, Value::I64);
    let trap = |r: Result<Vec<Value>, ExecError>| match r {
        Err(ExecError::Trap(t)) => t.kind,
        other => panic!("expected a trap, got {other:?}"),
    };
    // Aligned and inside: the bytes.
    let (r, c) = run(wat, "load", &[i(8)]);
    assert_eq!((r.unwrap(), c), (vec![l(0)], counters(3, 0, 0, 1, 0, 0, 1, 0)));
    // 4 is not a multiple of 8; 65,536 is, but the 8 bytes from it are past the page; 65,532
    // is both, and alignment comes first.
    for (addr, kind) in [
        (4, TrapKind::UnalignedAtomic),
        (65_536, TrapKind::MemoryOutOfBounds),
        (65_532, TrapKind::UnalignedAtomic),
    ] {
        let (r, c) = run(wat, "load", &[i(addr)]);
        assert_eq!((trap(r), c), (kind, counters(2, 0, 0, 0, 0, 0, 0, 0)), "load at {addr}");
    }
    // The value at 0 is 0: expecting 1 is "not-equal" (1); expecting 0 with a timeout of 0 ns
    // or a day is "timed-out" (2) at once, with none it is a deadlock, trapped after the read.
    for (expected, timeout, result) in [(1, -1, 1), (0, 0, 2), (0, 86_400_000_000_000, 2)] {
        let (r, c) = run(wat, "wait", &[i(0), i(expected), l(timeout)]);
        assert_eq!((r.unwrap(), c), (vec![i(result)], counters(5, 0, 0, 1, 0, 0, 1, 0)));
    }
    let (r, c) = run(wat, "wait", &[i(0), i(0), l(-1)]);
    assert_eq!((trap(r), c), (TrapKind::Deadlock, counters(4, 0, 0, 0, 0, 0, 1, 0)));
    for (addr, kind) in [(2, TrapKind::UnalignedAtomic), (65_536, TrapKind::MemoryOutOfBounds)] {
        let (r, c) = run(wat, "wait", &[i(addr), i(0), l(-1)]);
        assert_eq!((trap(r), c), (kind, counters(4, 0, 0, 0, 0, 0, 0, 0)), "wait at {addr}");
    }
    // No waiter can exist: a notify wakes 0, reads nothing; it checks alignment and bounds.
    let (r, c) = run(wat, "notify", &[i(65_532), i(-1)]);
    assert_eq!((r.unwrap(), c), (vec![i(0)], counters(4, 0, 0, 1, 0, 0, 0, 0)));
    for (addr, kind) in [(2, TrapKind::UnalignedAtomic), (65_536, TrapKind::MemoryOutOfBounds)] {
        let (r, c) = run(wat, "notify", &[i(addr), i(1)]);
        assert_eq!((trap(r), c), (kind, counters(3, 0, 0, 0, 0, 0, 0, 0)), "notify at {addr}");
    }
    // A wait on a memory that is not shared traps before its bounds are looked at; the other
    // atomics run on it.
    let unshared = wat.replace("(memory 1 1 shared)", "(memory 1 1)");
    let (r, c) = run(&unshared, "wait", &[i(65_536), i(0), l(0)]);
    assert_eq!((trap(r), c), (TrapKind::ExpectedSharedMemory, counters(4, 0, 0, 0, 0, 0, 0, 0)));
    let (r, c) = run(&unshared, "notify", &[i(0), i(1)]);
    assert_eq!((r.unwrap(), c), (vec![i(0)], counters(4, 0, 0, 1, 0, 0, 0, 0)));
    assert_eq!(TrapKind::UnalignedAtomic.message(), "unaligned atomic");
    assert_eq!(
        TrapKind::Deadlock.message(),
        "deadlock: memory.atomic.wait without a timeout on the only thread can never be woken"
    );
}

// ---- exceptions (docs/counting.md, "Threads, exceptions and tail calls") ----------------------

/// A `throw` caught by a `try_table` of its own function: the throw counts 1 and a branch, and
/// the catch lands on its label's `end`, which runs.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn a_throw_caught_in_its_function_is_a_branch() {
    let wat = r#"(module
      (tag $e (param i32))
      (func (export "run") (result i32)
        block $h (result i32)        ;; 1
          try_table (catch $e $h)    ;; 2
            i32.const 5              ;; 3
            throw $e                 ;; 4: branch 1, lands on $h's end with 5
          end
          i32.const 0
        end                          ;; 5
      ))                             ;; 6: return 1"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(5)]);
    assert_eq!(c, counters(6, 0, 0, 1, 1, 0, 0, 0));
}

/// A `throw` two frames below its handler: one branch, and one return for each function it
/// leaves (their final `end`s do not run); the observer sees both leave at the throw's count.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn a_throw_caught_two_frames_up_returns_from_both() {
    let wat = r#"(module
      (tag $e (param i32))
      (func $inner (param i32)
        local.get 0                  ;; 7
        throw $e)                    ;; 8: branch 1; $inner and $middle left: 2 returns
      (func $middle (param i32)
        local.get 0                  ;; 5
        call $inner)                 ;; 6: call 2
      (func (export "run") (result i32)
        block $h (result i32)        ;; 1
          try_table (catch $e $h)    ;; 2
            i32.const 9              ;; 3
            call $middle             ;; 4: call 1
          end
          i32.const 0
        end                          ;; 9
      ))                             ;; 10: return 3"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(9)]);
    assert_eq!(c, counters(10, 2, 0, 3, 1, 0, 0, 0));
    let (mut store, inst, _) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let mut trace = CallTrace::default();
    assert_eq!(store.call_observed(f, &[], &mut trace).unwrap(), vec![Value::I32(9)]);
    assert_eq!(
        trace.0,
        [
            "enter 2 @0",
            "call indirect=false",
            "enter 1 @4",
            "call indirect=false",
            "enter 0 @6",
            "leave @8",
            "leave @8",
            "leave @10",
        ]
    );
}

/// `catch_ref` hands over the `exnref` after the values; `throw_ref` throws the same
/// exception again (a second branch), and an outer clause for its tag gets its value.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn catch_ref_and_throw_ref_rethrow_the_same_exception() {
    let wat = r#"(module
      (tag $e (param i32))
      (func (export "run") (result i32)
        block $outer (result i32)          ;; 1
          try_table (catch $e $outer)      ;; 2
            block $h (result i32 exnref)   ;; 3
              try_table (catch_ref $e $h)  ;; 4
                i32.const 3                ;; 5
                throw $e                   ;; 6: branch 1
              end
              unreachable
            end                            ;; 7: 3 and the exnref
            throw_ref                      ;; 8: branch 2, lands on $outer's end with 3
          end
          i32.const 0
        end                                ;; 9
      ))                                   ;; 10"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(3)]);
    assert_eq!(c, counters(10, 0, 0, 1, 2, 0, 0, 0));
    // A null exnref traps at the `throw_ref`, which counts.
    let wat = r#"(module (func (export "run") i32.const 1 drop ref.null exn throw_ref))"#;
    let (r, c) = run(wat, "run", &[]);
    assert!(matches!(r, Err(ExecError::Trap(t)) if t.kind == TrapKind::NullExceptionReference), "{r:?}");
    assert_eq!(c, counters(4, 0, 0, 0, 0, 0, 0, 0));
}

/// The legacy `try`: an exception lands on its `catch`, which runs (1) before its body; the
/// end of the `try` body and of a clause's body reach the next clause instruction, which
/// counts 1, then the `try`'s `end` (as `else` does).
#[test]
#[cfg(not(feature = "only-2-0"))]
fn legacy_catch_and_catch_all_count_as_else() {
    let wat = r#"(module
      (tag $e (param i32))
      (func (export "run") (param i32) (result i32)
        try (result i32)       ;; 1
          local.get 0          ;; 2
          if                   ;; 3
            i32.const 4        ;; 4
            throw $e           ;; 5: branch 1
          end                  ;; (0: 4)
          i32.const 1          ;; (0: 5)
        catch $e               ;; 6 (0: 6, then the end)
          i32.const 10         ;; 7
          i32.add              ;; 8
        catch_all              ;; 9
          i32.const 99
        end                    ;; 10 (0: 7)
      ))                       ;; 11 (0: 8)"#;
    let (r, c) = run(wat, "run", &[Value::I32(1)]);
    assert_eq!(r.unwrap(), vec![Value::I32(14)]);
    assert_eq!(c, counters(11, 0, 0, 1, 1, 0, 0, 0));
    let (r, c) = run(wat, "run", &[Value::I32(0)]);
    assert_eq!(r.unwrap(), vec![Value::I32(1)]);
    assert_eq!(c, counters(8, 0, 0, 1, 0, 0, 0, 0));
}

/// `rethrow` throws the exception its `catch_all` caught again, and `delegate` to the
/// function's label hands it to the caller without running: 2 branches, 3 functions left.
/// A `delegate` to an enclosing `try` hands it to that `try`'s clauses.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn legacy_rethrow_and_delegate() {
    let wat = r#"(module
      (tag $e (param i32))
      (func $thrower (param i32)
        local.get 0                ;; 10
        throw $e)                  ;; 11: branch 1, $thrower left
      (func $relay (param i32)
        try                        ;; 7
          local.get 0              ;; 8
          call $thrower            ;; 9
        catch_all                  ;; 12
          rethrow 0                ;; 13: branch 2, $relay and $delegating left
        end)
      (func $delegating (param i32)
        try                        ;; 4
          local.get 0              ;; 5
          call $relay              ;; 6
        delegate 0)
      (func (export "run") (param i32) (result i32)
        try (result i32)           ;; 1
          local.get 0              ;; 2
          call $delegating         ;; 3
          i32.const -1
        catch $e                   ;; 14
        end)                       ;; 15; the final end 16
      (func (export "nested") (result i32)
        try (result i32)           ;; 1
          try                      ;; 2
            i32.const 6            ;; 3
            throw $e               ;; 4: branch 1, to the outer try's catch
          delegate 0
          i32.const 0
        catch $e                   ;; 5
        end))                      ;; 6; the final end 7"#;
    let (r, c) = run(wat, "run", &[Value::I32(7)]);
    assert_eq!(r.unwrap(), vec![Value::I32(7)]);
    assert_eq!(c, counters(16, 3, 0, 4, 2, 0, 0, 0));
    let (r, c) = run(wat, "nested", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(6)]);
    assert_eq!(c, counters(7, 0, 0, 1, 1, 0, 0, 0));
}

/// An exception no handler catches ends the run like a trap at the throwing instruction,
/// naming the tag in the throwing module: the throw counts, no branch and no return do.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn an_uncaught_exception_stops_at_the_throw() {
    let wat = r#"(module
      (tag $unused)
      (tag $e (param i32))
      (func $t (param i32)
        local.get 0        ;; 3
        throw $e)          ;; 4
      (func (export "run") (result i32)
        i32.const 3        ;; 1
        call $t            ;; 2
        i32.const 0))"#;
    let (mut store, inst, bytes) = instance(wat);
    let f = store.get_func(inst, "run").unwrap();
    let r = store.call(f, &[]);
    let Err(ExecError::Trap(t)) = r else { panic!("{r:?}") };
    assert_eq!(t.kind, TrapKind::UncaughtException { tag: 1 });
    assert_eq!(t.to_string(), format!("uncaught exception (tag 1) (at offset {})", t.offset));
    assert_eq!(t.func, Some(FuncIndex(0)));
    // `throw` is the second instruction of function 0.
    assert_eq!(t.offset, ModuleOffset(instruction_offsets(&bytes, 0)[1] as u32));
    assert_eq!(*store.counters(), counters(4, 1, 0, 0, 0, 0, 0, 0));
}

/// Every budget is exact through throws: stores in each activation of a recursion that throws
/// at its bottom, caught in the entry function, which stores after the landing; and the same
/// through the legacy clauses, `rethrow` included.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn every_budget_prefix_is_exact_through_throws() {
    let deep = r#"
      (tag $e (param i32))
      (func $deep (param i32)
        (i32.store (i32.shl (local.get 0) (i32.const 2)) (local.get 0))
        (if (i32.eqz (local.get 0)) (then (throw $e (i32.const 77))))
        (call $deep (i32.sub (local.get 0) (i32.const 1))))"#;
    let wat = format!(
        r#"(module (memory 1) {deep}
      (func (export "run") (param i32) (result i32) (local $r i32)
        (local.set $r
          (block $h (result i32)
            (try_table (catch $e $h) (call $deep (local.get 0)))
            (i32.const 0)))
        (i32.store (i32.const 400) (local.get $r))
        (local.get $r)))"#
    );
    let (full, c) = assert_every_budget_prefix(&wat, 4);
    assert_eq!(full, Value::I32(77));
    // 5 activations of $deep, 5 stores there and 1 after; each activation left by the throw.
    assert_eq!((c.calls, c.returns, c.branches, c.memory_writes), (5, 6, 1, 6));
    let wat = format!(
        r#"(module (memory 1) {deep}
      (func (export "run") (param i32) (result i32) (local $v i32)
        try (result i32)
          try (result i32)
            local.get 0
            call $deep
            i32.const 0
          catch $e
            local.set $v
            (i32.store (i32.const 404) (local.get $v))
            rethrow 0
          end
        catch_all
          i32.const 5
        end))"#
    );
    let (full, c) = assert_every_budget_prefix(&wat, 3);
    assert_eq!(full, Value::I32(5));
    assert_eq!((c.calls, c.returns, c.branches, c.memory_writes), (4, 5, 2, 5));
}

/// A clause whose label is a `loop` lands on the loop's first instruction with the values as
/// the loop's parameters: a branch and a loop iteration each time. `run(k)` throws `k` times.
#[cfg(not(feature = "only-2-0"))]
const THROWING_LOOP: &str = r#"
  (tag $e (param i32))
  (func (export "run") (param $k i32) (result i32) (local $n i32)
    i32.const 0                        ;; 1
    loop $l (param i32) (result i32)   ;; 2
      local.set $n                     ;; an iteration that throws: 10
      local.get $n
      local.get $k
      i32.lt_u
      if
        try_table (catch $e $l)
          local.get $n
          i32.const 1
          i32.add
          throw $e                     ;; branch, loop iteration
        end
      end                              ;; the last iteration: local.set to here, 6
      local.get $n                     ;; 7
    end                                ;; 8
  )                                    ;; 1
"#;

#[test]
#[cfg(not(feature = "only-2-0"))]
fn a_catch_into_a_loop_is_an_iteration() {
    let (r, c) = run(&format!("(module {THROWING_LOOP})"), "run", &[Value::I32(3)]);
    assert_eq!(r.unwrap(), vec![Value::I32(3)]);
    assert_eq!(c, counters(2 + 3 * 10 + 8 + 1, 0, 0, 1, 3, 3, 0, 0));
}

/// Exceptions carry `v128` values whole, across a call.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn an_exception_carries_a_v128() {
    let wat = r#"(module
      (tag $v (param v128 i32))
      (func $t (throw $v (v128.const i32x4 1 2 3 4) (i32.const 9)))   ;; 4, 5, 6
      (func (export "run") (result v128 i32)
        (block $h (result v128 i32)                                 ;; 1; its end 7
          (try_table (catch $v $h) (call $t))                       ;; 2, 3
          (unreachable))))                                          ;; the final end 8"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::V128(4 << 96 | 3 << 64 | 2 << 32 | 1), Value::I32(9)]);
    assert_eq!(c, counters(8, 1, 0, 2, 1, 0, 0, 0));
}

/// At most `Limits::max_exceptions` exception objects: the throw past it traps, counted. They
/// are reclaimed when a call starts, unless a global or table of `exnref`s could keep one.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn exceptions_are_bounded_and_reclaimed() {
    let limits = Limits { max_exceptions: 2, ..Limits::default() };
    let call = |wat: &str, calls: &[i32]| {
        let bytes = wat::parse_str(wat).unwrap();
        let module = Arc::new(Module::new(&bytes, &limits).unwrap());
        let mut store = Store::new(limits.clone());
        let inst = store.instantiate(module, &[]).unwrap();
        let f = store.get_func(inst, "run").unwrap();
        calls
            .iter()
            .map(|&k| {
                store.reset_counters();
                (store.call(f, &[Value::I32(k)]), store.counters().instructions)
            })
            .collect::<Vec<_>>()
    };
    let plain = format!("(module {THROWING_LOOP})");
    let r = call(&plain, &[2, 2, 3]);
    assert_eq!(r[0].0, Ok(vec![Value::I32(2)]));
    assert_eq!(r[1].0, Ok(vec![Value::I32(2)]), "the first call's exceptions were reclaimed");
    assert!(matches!(r[2].0, Err(ExecError::Trap(t)) if t.kind == TrapKind::TooManyExceptions), "{:?}", r[2]);
    // The third throw traps: 2 + 3 × 10 instructions.
    assert_eq!(r[2].1, 32);
    let rooted = format!("(module (global (mut exnref) (ref.null exn)) {THROWING_LOOP})");
    let r = call(&rooted, &[2, 1]);
    assert_eq!(r[0].0, Ok(vec![Value::I32(2)]));
    assert!(matches!(r[1].0, Err(ExecError::Trap(t)) if t.kind == TrapKind::TooManyExceptions), "{:?}", r[1]);
}

/// A legacy clause keeps its exception while its body calls other functions: `rethrow` after
/// a call (whose frame starts above the clause's operands) throws the caught exception.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn rethrow_after_a_call_in_the_clause() {
    let wat = r#"(module
      (tag $e (param i32))
      (func $busy (param i32) (result i32) (local i32 i32 i32 i32)
        (local.set 1 (i32.const 1)) (local.set 2 (i32.const 2))
        (local.set 3 (i32.const 3)) (local.set 4 (i32.const 4))
        (i32.add (local.get 0) (local.get 4)))
      (func (export "run") (result i32)
        try (result i32)
          try (result i32)
            (throw $e (i32.const 30))
          catch $e
            call $busy
            drop
            rethrow 0
          end
        catch $e
        end))"#;
    let (r, c) = run(wat, "run", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(30)]);
    assert_eq!((c.calls, c.branches, c.returns), (1, 2, 2));
}

/// A clause whose label is the function's: landing returns, so the final `end` runs (1 more)
/// and counts the return, as a `br` to the function's label does; every budget stops exactly.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn a_catch_to_the_function_label_returns() {
    let wat = r#"(module
      (tag $e (param i32))
      (func (export "run") (param i32) (result i32)
        try_table (catch $e 0)   ;; 1
          local.get 0            ;; 2
          throw $e               ;; 3: branch 1
        end
        i32.const 0))            ;; 4: the final end, return 1"#;
    let (r, c) = run(wat, "run", &[Value::I32(8)]);
    assert_eq!(r.unwrap(), vec![Value::I32(8)]);
    assert_eq!(c, counters(4, 0, 0, 1, 1, 0, 0, 0));
    let (full, _) = assert_every_budget_prefix(wat, 8);
    assert_eq!(full, Value::I32(8));
}

/// `delegate` to a block's label hands the exception to the handlers around that block (here
/// the `try_table` it is in); to a `try_table`'s label, to that `try_table`'s clauses. It runs
/// no instruction when it delegates.
#[test]
#[cfg(not(feature = "only-2-0"))]
fn legacy_delegate_to_a_block_or_a_try_table() {
    let wat = r#"(module
      (tag $e (param i32))
      (func (export "to_block") (result i32)
        block $h (result i32)            ;; 1; its end 7
          try_table (catch $e $h)        ;; 2
            block $b                     ;; 3
              try                        ;; 4
                i32.const 12             ;; 5
                throw $e                 ;; 6: branch 1
              delegate $b
            end
          end
          i32.const 0
        end)                             ;; the final end 8
      (func (export "to_try_table") (result i32)
        block $h (result i32)            ;; 1; its end 6
          try_table $t (catch $e $h)     ;; 2
            try                          ;; 3
              i32.const 13               ;; 4
              throw $e                   ;; 5: branch 1
            delegate $t
          end
          i32.const 0
        end))                            ;; the final end 7"#;
    let (r, c) = run(wat, "to_block", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(12)]);
    assert_eq!(c, counters(8, 0, 0, 1, 1, 0, 0, 0));
    let (r, c) = run(wat, "to_try_table", &[]);
    assert_eq!(r.unwrap(), vec![Value::I32(13)]);
    assert_eq!(c, counters(7, 0, 0, 1, 1, 0, 0, 0));
}
