//! Attribution of a run to functions (`qip_memory::profile::functions`, docs/report.md):
//! `enter`/`leave` events of the interpreter and the per-function costs, counted by hand on WAT
//! modules (instructions as the interpreter counts them: every executed operator, each
//! function's final `end` included, `block`/`loop` included).

use std::sync::Arc;

use qip_memory::profile::calltree::CallTreeRecorder;
use qip_memory::profile::names::{FunctionNames, NameSource};
use qip_memory::wasm::{ExecError, Limits, Module, Observer, Store, Value};

/// Runs export `func` of `wat` under `obs`; the result and the run's instruction count.
fn run<O: Observer>(
    wat: &str,
    func: &str,
    args: &[Value],
    obs: &mut O,
) -> (Result<Vec<Value>, ExecError>, u64) {
    let bytes = wat::parse_str(wat).expect("valid WAT");
    let module = Arc::new(Module::new(&bytes, &Limits::default()).expect("loads"));
    let mut store = Store::new(Limits::default());
    let inst = store.instantiate(module, &[]).expect("instantiates");
    store.reset_counters();
    let f = store.get_func(inst, func).expect("export");
    let r = store.call_observed(f, args, obs);
    (r, store.counters().instructions)
}

/// The events, as text.
#[derive(Default)]
struct Events(Vec<String>);

impl Observer for Events {
    fn enter(&mut self, func: u32, instructions: u64) {
        self.0.push(format!("enter {func} @{instructions}"));
    }
    fn leave(&mut self, instructions: u64) {
        self.0.push(format!("leave @{instructions}"));
    }
}

const TWO_CALLS: &str = r#"(module
  (memory 2)
  (func $leaf (param i32)                  ;; function 0: 4 instructions per entry
    local.get 0
    i32.const 7
    i32.store8)                            ;; + end
  (func $main (export "main")              ;; function 1: 8 instructions of its own
    i32.const 100                          ;; 1
    call $leaf                             ;; 2, leaf 3-6
    i32.const 65536                        ;; 7
    call $leaf                             ;; 8, leaf 9-12
    i32.const 0                            ;; 13
    i32.load                               ;; 14
    drop)                                  ;; 15, end 16
)"#;

#[test]
fn enter_and_leave_carry_the_function_and_the_exact_count() {
    let mut events = Events::default();
    let (r, total) = run(TWO_CALLS, "main", &[], &mut events);
    r.unwrap();
    assert_eq!(total, 16);
    assert_eq!(events.0, ["enter 1 @0", "enter 0 @2", "leave @6", "enter 0 @8", "leave @12", "leave @16"]);
}

#[test]
fn costs_per_function() {
    let mut rec = CallTreeRecorder::new();
    let (r, total) = run(TWO_CALLS, "main", &[], &mut rec);
    r.unwrap();
    let costs = rec.finish(total).function_costs();
    let leaf = &costs[0];
    assert_eq!(
        (leaf.entries, leaf.self_instructions, leaf.loads, leaf.stores, leaf.bytes_read, leaf.bytes_written),
        (2, 8, 0, 2, 0, 2)
    );
    // Byte 100 is on page 0, byte 65,536 on page 1.
    assert_eq!(leaf.pages().collect::<Vec<_>>(), [0, 1]);
    assert_eq!(leaf.pages_touched(), 2);
    let main = &costs[1];
    assert_eq!(
        (main.entries, main.self_instructions, main.loads, main.stores, main.bytes_read, main.bytes_written),
        (1, 8, 1, 0, 4, 0)
    );
    assert_eq!(main.pages().collect::<Vec<_>>(), [0]);
    assert_eq!(costs.iter().map(|c| c.self_instructions).sum::<u64>(), total);
}

#[test]
fn a_trap_leaves_the_rest_to_the_trapping_function() {
    // main: call (1); deep: i32.const, i32.load out of bounds (2, the trapping load counted).
    let wat = r#"(module (memory 1)
      (func $deep (result i32) (i32.load (i32.const 70000)))
      (func (export "main") (drop (call $deep))))"#;
    let mut rec = CallTreeRecorder::new();
    let (r, total) = run(wat, "main", &[], &mut rec);
    assert!(matches!(r, Err(ExecError::Trap(_))));
    assert_eq!(total, 3);
    let costs = rec.finish(total).function_costs();
    assert_eq!((costs[0].self_instructions, costs[1].self_instructions), (2, 1));
    // The load trapped before it read anything.
    assert_eq!(costs[0].loads, 0);
}

#[test]
fn recursion_and_copies() {
    // f(n) = n == 0 ? 0 : f(n - 1): per entry with n > 0: local.get, i32.eqz, if (3),
    // local.get, i32.const, i32.sub, call (4), end of if, end (2) = 9; n == 0: local.get,
    // i32.eqz, if, i32.const 0, return (5) — `return` ends the function, so no `end`.
    // main: memory.copy of 10 bytes (4 instructions), i32.const, call, drop, end (4).
    let wat = r#"(module (memory 1)
      (func $f (param i32) (result i32)
        (if (result i32) (i32.eqz (local.get 0))
          (then (return (i32.const 0)))
          (else (call $f (i32.sub (local.get 0) (i32.const 1))))))
      (func (export "main")
        (memory.copy (i32.const 0) (i32.const 100) (i32.const 10))
        (drop (call $f (i32.const 3)))))"#;
    let mut rec = CallTreeRecorder::new();
    let (r, total) = run(wat, "main", &[], &mut rec);
    r.unwrap();
    let costs = rec.finish(total).function_costs();
    assert_eq!(costs[0].entries, 4);
    assert_eq!(costs[1].entries, 1);
    assert_eq!(
        (costs[1].loads, costs[1].stores, costs[1].bytes_read, costs[1].bytes_written),
        (1, 1, 10, 10)
    );
    assert_eq!(costs[1].self_instructions, 8);
    // f: 3 entries of 9 and one of 6.
    assert_eq!(costs[0].self_instructions, 33);
    assert_eq!(total, 41);
}

#[test]
fn names_from_the_name_section_exports_and_indices() {
    // $leaf has a name-section name (a mangled Rust symbol), main an export, the import its
    // module and field; a module without a name section still has exports and indices.
    let wat = r#"(module
      (import "env" "log" (func (param i32)))
      (func $_ZN7mycrate4leaf17h0123456789abcdefE)
      (func (export "render") (export "alias"))
      (func))"#;
    let names = FunctionNames::read(&wat::parse_str(wat).unwrap());
    assert_eq!(names.len(), 4);
    assert_eq!((names.get(0), names.source(0)), ("env.log".to_owned(), NameSource::Import));
    assert_eq!((names.get(1), names.source(1)), ("mycrate::leaf".to_owned(), NameSource::NameSection));
    assert_eq!((names.get(2), names.source(2)), ("render".to_owned(), NameSource::Export));
    assert_eq!((names.get(3), names.source(3)), ("func[3]".to_owned(), NameSource::Index));
    assert_eq!(names.get(9), "func[9]");
}
