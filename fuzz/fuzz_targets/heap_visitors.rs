//! The heap analyzer without DWARF on arbitrary dumps: a module shaped like AssemblyScript's
//! output (`asc --debug` names; `__visit_members` dispatching on the class id at `ptr - 8`, a
//! TreeNode visitor of two fields, an Array visitor looping over `dataStart`/`length_`, and
//! `__visit_globals` visiting one global) runs over the memory image of each input, read as
//! the contents of a dump as in `heap_dump`. No panic, no hang (the visitors' instruction
//! budget ends a run over a corrupt array), and on success the same invariants of every view.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qip_memory::heap::{Analyzer, Dump};

#[path = "common/heap_views.rs"]
mod heap_views;

const RUNTIME: &str = r#"(module
  (memory 1)
  (global $~lib/memory/__stack_pointer (mut i32) (i32.const 0))
  (global $x/root (mut i32) (i32.const 0))
  (func $~lib/rt/itcms/__visit (param i32 i32))
  (func $x/TreeNode~visit (param i32 i32)
    local.get 0 i32.load offset=4 local.get 1 call $~lib/rt/itcms/__visit
    local.get 0 i32.load offset=8 local.get 1 call $~lib/rt/itcms/__visit)
  (func $~lib/array/Array<x/TreeNode>~visit (param i32 i32) (local $cur i32) (local $end i32)
    local.get 0 i32.load offset=4 local.tee $cur
    local.get 0 i32.load offset=12 i32.const 2 i32.shl i32.add local.set $end
    block
      loop
        local.get $cur local.get $end i32.ge_u br_if 1
        local.get $cur i32.load local.get 1 call $~lib/rt/itcms/__visit
        local.get $cur i32.const 4 i32.add local.set $cur
        br 0
      end
    end
    local.get 0 i32.load local.get 1 call $~lib/rt/itcms/__visit)
  (func $x/TreeNode#set:left (param $this i32) (param $v i32)
    local.get $this local.get $v i32.store offset=4)
  (func $~lib/rt/__visit_members (param i32 i32)
    block
      block
        block
          block
            local.get 0 i32.const 8 i32.sub i32.load
            br_table 0 0 0 0 1 2 3
          end
          return
        end
        local.get 0 local.get 1 call $x/TreeNode~visit return
      end
      local.get 0 local.get 1 call $~lib/array/Array<x/TreeNode>~visit return
    end
    unreachable)
  (func $~lib/rt/__visit_globals (param i32)
    global.get $x/root local.get 0 call $~lib/rt/itcms/__visit))
"#;

fuzz_target!(|data: &[u8]| {
    let Some(dump) = heap_views::dump_from(data) else { return };
    let wasm = wat::parse_str(RUNTIME).expect("the fixed module is valid WAT");
    let analyzer = Analyzer::load(&wasm).expect("the fixed module has the runtime's visitors");
    assert!(analyzer.runtime.is_some(), "analysed without DWARF");
    heap_views::check(&analyzer, &Dump::parse(&dump).expect("a valid header"));
});
