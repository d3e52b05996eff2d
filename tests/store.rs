//! The store's host-side operations used by the heap analyzer without DWARF: redirecting a
//! module's own function to a host function, growing a memory from the host, and
//! instantiating without the start function. Expected values follow from the WAT by hand.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use qip_memory::wasm::{Extern, FuncType, Limits, Module, Store, ValType, Value};

fn module(wat: &str) -> Arc<Module> {
    let bytes = wat::parse_str(wat).unwrap();
    Arc::new(Module::new(&bytes, &Limits::default()).unwrap())
}

const CALLS: &str = r#"(module
  (type $t (func (param i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $double)
  (func $double (export "double") (type $t) local.get 0 i32.const 2 i32.mul)
  (func (export "direct") (param i32) (result i32) local.get 0 call $double)
  (func (export "via_table") (param i32) (result i32) local.get 0 i32.const 0 call_indirect (type $t))
  (func (export "via_ref") (param i32) (result i32)
    i32.const 0 ref.func $double table.set 0
    local.get 0 i32.const 0 call_indirect (type $t)))
"#;

#[test]
fn a_redirected_function_reaches_the_host_from_direct_calls_and_exports() {
    let mut store = Store::new(Limits::default());
    let inst = store.instantiate(module(CALLS), &[]).unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    let host = store.host_func(FuncType::new([ValType::I32], [ValType::I32]), move |_, args, out| {
        let Value::I32(x) = args[0] else { unreachable!() };
        s.borrow_mut().push(x);
        out[0] = Value::I32(x + 1000);
        Ok(())
    });
    let call = |store: &mut Store, name: &str, x: i32| {
        let f = store.get_func(inst, name).unwrap();
        store.call(f, &[Value::I32(x)]).unwrap()
    };
    assert_eq!(call(&mut store, "direct", 5), [Value::I32(10)]);
    // A different type is refused and changes nothing.
    let wrong = store.host_func(FuncType::new([], []), |_, _, _| Ok(()));
    assert!(!store.redirect_func(inst, 0, wrong));
    assert!(!store.redirect_func(inst, 99, host));
    assert_eq!(call(&mut store, "direct", 5), [Value::I32(10)]);
    assert!(store.redirect_func(inst, 0, host));
    assert_eq!(call(&mut store, "direct", 5), [Value::I32(1005)]);
    assert_eq!(call(&mut store, "double", 7), [Value::I32(1007)]);
    // The element written at instantiation still holds the module's own function.
    assert_eq!(call(&mut store, "via_table", 4), [Value::I32(8)]);
    // `ref.func` evaluated now gives the host function, and the table then holds it.
    assert_eq!(call(&mut store, "via_ref", 3), [Value::I32(1003)]);
    assert_eq!(call(&mut store, "via_table", 4), [Value::I32(1004)]);
    assert_eq!(*seen.borrow(), [5, 7, 3, 4]);
    assert_eq!(store.instance_func(inst, 0), Some(host));
}

#[test]
fn grow_memory_from_the_host_zeroes_and_keeps_the_maximum() {
    let mut store = Store::new(Limits::default());
    let m = module(r#"(module (memory (export "m") 1 3) (data (i32.const 0) "\2a"))"#);
    let inst = store.instantiate(m, &[]).unwrap();
    let Some(Extern::Memory(mem)) = store.get_export(inst, "m") else { panic!("no memory") };
    assert_eq!(store.grow_memory(mem, 1), Some(1));
    assert_eq!(store.memory_data(mem).len(), 2 * 65536);
    assert_eq!(store.memory_data(mem)[0], 0x2a);
    assert!(store.memory_data(mem)[65536..].iter().all(|&b| b == 0));
    // 2 + 2 > 3: refused, nothing changes; 2 + 1 = 3 is the maximum.
    assert_eq!(store.grow_memory(mem, 2), None);
    assert_eq!(store.memory_data(mem).len(), 2 * 65536);
    assert_eq!(store.grow_memory(mem, 1), Some(2));
    assert_eq!(store.grow_memory(mem, 0), Some(3));
    assert_eq!(store.grow_memory(mem, u64::MAX), None);
}

#[test]
fn without_start_instantiates_and_runs_nothing() {
    let wat = r#"(module
      (global $g (export "g") (mut i32) (i32.const 1))
      (memory (export "m") 1)
      (data (i32.const 8) "\07")
      (func $start i32.const 0 i32.const 99 i32.store8 i32.const 2 global.set $g)
      (start $start))"#;
    let read = |m: Arc<Module>| {
        let mut store = Store::new(Limits::default());
        let inst = store.instantiate(m, &[]).unwrap();
        let Some(Extern::Global(g)) = store.get_export(inst, "g") else { panic!("no global") };
        let Some(Extern::Memory(mem)) = store.get_export(inst, "m") else { panic!("no memory") };
        (store.global_get(g), store.memory_data(mem)[0], store.memory_data(mem)[8])
    };
    let m = module(wat);
    assert!(m.has_start());
    assert_eq!(read(m.clone()), (Value::I32(2), 99, 7));
    let plain = (*m).clone().without_start();
    assert!(!plain.has_start());
    // Segments are applied; the start function's writes are not made.
    assert_eq!(read(Arc::new(plain)), (Value::I32(1), 0, 7));
}

/// `v128` values in a module whose code has no SIMD operator: they come from a host function,
/// a global and the caller, and move through a branch with values, a call and return, a local,
/// `select`, a global and back to the host. Slots keep their high halves apart from their low
/// ones (docs/interpreter.md, "Slots"): each value's high half must arrive intact.
const V128_MOVES: &str = r#"(module
  (import "h" "make" (func $make (param i32) (result v128)))
  (import "h" "take" (func $take (param v128) (result i64)))
  (global $g (mut v128) (v128.const i64x2 0 0))
  (func $id (param v128) (result v128) local.get 0)
  (func (export "pick") (param v128 v128 i32) (result v128)
    local.get 0 local.get 1 local.get 2 select)
  (func (export "run") (param i32) (result i64)
    (local $v v128)
    (block (result v128)
      local.get 0 call $make
      local.get 0
      br_if 0
      drop
      i32.const 7 call $make)
    call $id
    local.set $v
    local.get $v global.set $g
    global.get $g
    call $take)
  (func (export "carry") (param i32) (result i64)
    (block (result v128)
      i32.const 1 call $make
      local.get 0 call $make
      br 0)
    call $take))
"#;

#[test]
fn v128_values_keep_both_halves_through_every_move() {
    let mut store = Store::new(Limits::default());
    let v128 = |hi: u64, lo: u64| (u128::from(hi) << 64) | u128::from(lo);
    // make(x) = (hi x + 1, lo x + 100); take(v) = 1000 * hi + lo.
    let make = store.host_func(FuncType::new([ValType::I32], [ValType::V128]), move |_, args, out| {
        let Value::I32(x) = args[0] else { unreachable!() };
        out[0] = Value::V128(v128(x as u64 + 1, x as u64 + 100));
        Ok(())
    });
    let take = store.host_func(FuncType::new([ValType::V128], [ValType::I64]), |_, args, out| {
        let Value::V128(v) = args[0] else { unreachable!() };
        out[0] = Value::I64(((v >> 64) as i64) * 1000 + (v as u64 as i64));
        Ok(())
    });
    let inst = store.instantiate(module(V128_MOVES), &[Extern::Func(make), Extern::Func(take)]).unwrap();
    let run = store.get_func(inst, "run").unwrap();
    // x = 5: the branch is taken with make(5) = (6, 105).
    assert_eq!(store.call(run, &[Value::I32(5)]).unwrap(), [Value::I64(6 * 1000 + 105)]);
    // x = 0: not taken; make(7) = (8, 107).
    assert_eq!(store.call(run, &[Value::I32(0)]).unwrap(), [Value::I64(8 * 1000 + 107)]);
    // A `br` carrying a value down one slot (a `Copy`, widened): make(5) = (6, 105), not the
    // high half of the make(1) below it.
    let carry = store.get_func(inst, "carry").unwrap();
    assert_eq!(store.call(carry, &[Value::I32(5)]).unwrap(), [Value::I64(6 * 1000 + 105)]);
    let pick = store.get_func(inst, "pick").unwrap();
    let (a, b) = (v128(0xaaaa_0000_0000_0001, 2), v128(0xbbbb_0000_0000_0003, 2));
    for (c, want) in [(1, a), (0, b)] {
        let args = [Value::V128(a), Value::V128(b), Value::I32(c)];
        assert_eq!(store.call(pick, &args).unwrap(), [Value::V128(want)]);
    }
}

/// `return_call` of an imported host function: the host runs with the arguments and the
/// caller returns its results (1 call, 1 return, no `end` of the caller).
#[test]
fn a_tail_call_reaches_the_host() {
    let wat = r#"(module
      (import "env" "triple" (func $triple (param i32) (result i32)))
      (func (export "run") (param i32) (result i32)
        (return_call $triple (i32.add (local.get 0) (i32.const 1)))))"#;
    let mut store = Store::new(Limits::default());
    let host = store.host_func(FuncType::new([ValType::I32], [ValType::I32]), |_, args, out| {
        let Value::I32(x) = args[0] else { unreachable!() };
        out[0] = Value::I32(3 * x);
        Ok(())
    });
    let inst = store.instantiate(module(wat), &[Extern::Func(host)]).unwrap();
    let f = store.get_func(inst, "run").unwrap();
    assert_eq!(store.call(f, &[Value::I32(4)]).unwrap(), [Value::I32(15)]);
    let c = store.counters();
    // local.get, i32.const, i32.add, return_call.
    assert_eq!((c.instructions, c.calls, c.returns, c.branches), (4, 1, 1, 0));
}

/// Tags have one identity per instantiation: a module that imports a tag catches the
/// exporter's exceptions of it; two instances of one module, a tag of the same type defined
/// elsewhere, and a host's tag (`Store::new_tag`) are different tags. An import must have the
/// tag's exact type.
#[test]
fn imported_tags_share_their_exporters_identity() {
    use qip_memory::wasm::{ExecError, InstantiateError, TrapKind};
    let exporter = module(
        r#"(module (tag $e (export "e") (param i32))
             (func (export "throw") (param i32) (throw $e (local.get 0))))"#,
    );
    let catcher = module(
        r#"(module (import "m" "e" (tag $e (param i32))) (import "m" "throw" (func $throw (param i32)))
             (func (export "run") (param i32) (result i32)
               (block $h (result i32)
                 (try_table (catch $e $h) (call $throw (local.get 0)))
                 (i32.const -1))))"#,
    );
    let mut store = Store::new(Limits::default());
    let a = store.instantiate(exporter.clone(), &[]).unwrap();
    let b = store.instantiate(exporter, &[]).unwrap();
    let (e_a, e_b) = (store.get_export(a, "e").unwrap(), store.get_export(b, "e").unwrap());
    assert_ne!(e_a, e_b, "one tag per instantiation");
    let (throw_a, throw_b) = (store.get_export(a, "throw").unwrap(), store.get_export(b, "throw").unwrap());
    let run = |store: &mut Store, tag: Extern, throw: Extern| {
        let c = store.instantiate(catcher.clone(), &[tag, throw]).unwrap();
        let f = store.get_func(c, "run").unwrap();
        store.call(f, &[Value::I32(42)])
    };
    assert_eq!(run(&mut store, e_a, throw_a), Ok(vec![Value::I32(42)]));
    // Another instance's tag does not catch: the exception ends the run, named in the module
    // of its throw (tag 0 there).
    let r = run(&mut store, e_b, throw_a);
    assert!(
        matches!(r, Err(ExecError::Trap(t)) if t.kind == TrapKind::UncaughtException { tag: 0 }),
        "{r:?}"
    );
    let host = store.new_tag(FuncType::new([ValType::I32], []));
    let r = run(&mut store, Extern::Tag(host), throw_b);
    assert!(matches!(r, Err(ExecError::Trap(_))), "{r:?}");
    // A tag of another type does not link.
    let other = store.new_tag(FuncType::new([ValType::I64], []));
    assert!(matches!(
        store.instantiate(catcher, &[Extern::Tag(other), throw_a]),
        Err(InstantiateError::Link(_))
    ));
}
