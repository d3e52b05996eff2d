//! The heap analyzer without DWARF on the hand-computed test heaps of docs/heap.md: a module shaped
//! like AssemblyScript's output (`asc --debug` names; `__visit_members` dispatching on the class id
//! at `ptr - 8`; TreeNode's visitor visiting `left` and `right`; `__visit_globals` visiting the one
//! global `x/root`) must give the JSON written by hand for S1 and S2, the same as the DWARF module
//! `syn_g.wasm`. Three shapes of the module take the three ways it is loaded: reduced to the
//! visitors and renumbered, bodies emptied (a global takes a function reference), and whole (a
//! visitor calls through a table).

#[path = "common/heap.rs"]
mod fixtures;

use fixtures::{S1_JSON, S2_JSON, s1_dump, s2_dump};
use qip_memory::heap::{Analyzer, Dump, snapshot_json};

/// The module, with `extra` fields and `dispatch` as the TreeNode case of `__visit_members`.
fn runtime(extra: &str, dispatch: &str) -> Vec<u8> {
    wat::parse_str(format!(
        r#"(module
  (type $vv (func (param i32 i32)))
  (memory 1)
  (global $x/root (mut i32) (i32.const 0))
  {extra}
  (func $~lib/rt/itcms/__visit (type $vv)
    ;; The collector's marking, never run by the analyzer: it would trap.
    call $~lib/rt/itcms/markGray)
  (func $~lib/rt/itcms/markGray unreachable)
  (func $unused (export "main") (result i32) i32.const 7)
  (func $x/TreeNode~visit (type $vv)
    local.get 0 i32.load offset=4 local.get 1 call $~lib/rt/itcms/__visit
    local.get 0 i32.load offset=8 local.get 1 call $~lib/rt/itcms/__visit)
  (func $x/TreeNode#set:left (param $this i32) (param $v i32)
    local.get $this local.get $v i32.store offset=4)
  (func $x/TreeNode#constructor (param $this i32) (result i32)
    i32.const 12 i32.const 4 call $~lib/rt/itcms/__new)
  (func $~lib/arraybuffer/ArrayBuffer#constructor (param i32) (result i32)
    local.get 0 i32.const 1 call $~lib/rt/itcms/__new)
  (func $~lib/rt/itcms/__new (param i32 i32) (result i32) unreachable)
  (func $~lib/rt/__visit_members (type $vv)
    block
      block
        block
          local.get 0 i32.const 8 i32.sub i32.load
          br_table 0 0 0 0 1 2
        end
        return
      end
      {dispatch}
      return
    end
    unreachable)
  (func $~lib/rt/__visit_globals (param i32)
    global.get $x/root local.get 0 call $~lib/rt/itcms/__visit))
"#
    ))
    .unwrap()
}

fn direct() -> Vec<u8> {
    runtime("", "local.get 0 local.get 1 call $x/TreeNode~visit")
}

fn with_function_reference_in_a_global() -> Vec<u8> {
    runtime("(global funcref (ref.func $x/TreeNode~visit))", "local.get 0 local.get 1 call $x/TreeNode~visit")
}

fn through_a_table() -> Vec<u8> {
    runtime(
        "(table 1 funcref) (elem (i32.const 0) $x/TreeNode~visit)",
        "local.get 0 local.get 1 i32.const 0 call_indirect (type $vv)",
    )
}

#[test]
fn the_visitors_give_the_hand_computed_views() {
    for (shape, wasm) in [
        ("direct", direct()),
        ("a function reference in a global", with_function_reference_in_a_global()),
        ("through a table", through_a_table()),
    ] {
        let analyzer = Analyzer::load(&wasm).unwrap_or_else(|e| panic!("{shape}: {e}"));
        let rt = analyzer.runtime.as_ref().expect("no DWARF: the runtime's visitors");
        assert_eq!(rt.classes.get(&4).map(String::as_str), Some("x/TreeNode"), "{shape}");
        assert_eq!(rt.classes.get(&1).map(String::as_str), Some("~lib/arraybuffer/ArrayBuffer"), "{shape}");
        // 10 functions in the module: the direct shape keeps the two visitors, TreeNode's and
        // __visit (emptied) only.
        let expected_functions = if shape == "direct" { 4 } else { 10 };
        assert_eq!(rt.module_functions(), expected_functions, "{shape}");
        for (dump, json) in [(s1_dump(), S1_JSON), (s2_dump(), S2_JSON)] {
            let snap = analyzer.analyze(&Dump::parse(&dump).unwrap()).unwrap();
            assert_eq!(snapshot_json(&snap), json.trim_end(), "{shape}");
        }
    }
}

/// The retainers view names TreeNode's `left` field from its setter, and the global root
/// from the `name` section.
#[test]
fn field_and_global_names_come_from_the_name_section() {
    let wasm = direct();
    let analyzer = Analyzer::load(&wasm).unwrap();
    let dump = s2_dump();
    let view = analyzer
        .retainers(&Dump::parse(&dump).unwrap(), &qip_memory::heap::retainers::Target::Address(2656), 3)
        .unwrap();
    let table = view.to_table();
    // B (2656) is held by A's left field; A by D's left field; D by the global x/root.
    let retainer = table.lines().find(|l| l.contains("held by")).and_then(|_| table.lines().nth(5)).unwrap();
    assert!(retainer.contains(" .left ") && retainer.ends_with("x/TreeNode @ 2624"), "{table}");
    assert!(table.contains("global x/root (global 0)"), "{table}");
}
