//! The heap analyzer on real AssemblyScript programs (docs/heap.md, "Fixtures").
//!
//! `make as-fixtures` builds the inputs: tests/assemblyscript/{dwarf_fixture,alloc_free}.ts
//! compiled by asc 0.28.20 with the layout transform, WARPO-shaped DWARF appended by dwarfgen,
//! run under Node by run.mjs, which writes version-2 dumps with every mutable i32 global. These
//! tests run `qip-memory heap analyze|diff` on them and check what follows from the programs
//! and the runtime layout (docs/heap.md, "The heap walk") alone: counts and sizes, not addresses.
//!
//! Sizes used throughout: an object with a payload of n bytes takes a TLSF block of
//! `((16 + n + 4 + 15) & !15) - 4` bytes, and its shallow size is that plus the 4-byte block
//! header, i.e. `(n + 35) & !15`:
//!   n = 0..12 → 32, n = 13..28 → 48, 29..44 → 64, 45..60 → 80, 61..76 → 96, 93..108 → 128,
//!   125..140 → 160.
//! Payloads of the classes involved: TreeNode 12 (value, left, right), Player 24 (flattened
//! id, position, name, hp, inventory, score), NPC 20, Item 8, Vector2 8, ListNode 8,
//! PinnedBox 4, Array<T> 16 (buffer, dataStart, byteLength, length_), Map/Set 24, typed
//! array 12, StaticArray<ref> 4 per element, Cell 8, Blob 24 (f64, f64, i32, ref).
//! `new Array<T>()` reserves 8 elements (asc's MIN_SIZE): a 32-byte ArrayBuffer for 4-byte
//! elements → 64. A Map/Set starts with 4 buckets (16-byte ArrayBuffer → 48) and room for 4
//! entries: Set<ref> entries are 8 bytes (32 → 64), Map<ref,ref> 12 (48 → 80),
//! Map<ref,f64> 24 (key, pad, f64 value, taggedNext, rounded to 8: 96 → 128).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;

fn fixture(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/assemblyscript/build").join(name);
    assert!(
        path.exists(),
        "missing {}: run `make as-fixtures` first (needs node and npm; `make test` does it)",
        path.display()
    );
    path
}

/// Runs the CLI; it must succeed with JSON and a newline on stdout and nothing on stderr.
fn cli(args: &[&str]) -> (Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(args)
        .output()
        .expect("run qip-memory");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "qip-memory {args:?} failed ({}): {stderr}", out.status);
    assert!(stderr.is_empty(), "qip-memory {args:?} wrote to stderr: {stderr}");
    assert!(stdout.ends_with("}\n"), "stdout must be JSON and a newline: {stdout:?}");
    (serde_json::from_str(&stdout).expect("JSON on stdout"), stdout)
}

/// The number of global values a dump holds (its header's N, docs/heap.md "Dump format").
fn dump_globals(bytes: &[u8]) -> usize {
    u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize
}

/// The value of the global that the module's `name` section calls `~lib/memory/__heap_base`
/// (its `i32.const` initializer), read by wasmparser.
fn module_heap_base(wasm: &[u8]) -> u32 {
    let (mut index, mut inits) = (None, Vec::new());
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        match payload.unwrap() {
            wasmparser::Payload::GlobalSection(globals) => {
                for g in globals {
                    let mut ops = g.unwrap().init_expr.get_operators_reader();
                    inits.push(match ops.read().unwrap() {
                        wasmparser::Operator::I32Const { value } => Some(value as u32),
                        _ => None,
                    });
                }
            }
            wasmparser::Payload::CustomSection(c) => {
                if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                    for name in names {
                        if let wasmparser::Name::Global(map) = name.unwrap() {
                            for n in map {
                                let n = n.unwrap();
                                if n.name == "~lib/memory/__heap_base" {
                                    index = Some(n.index);
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    inits[index.expect("a global named ~lib/memory/__heap_base") as usize].expect("an i32.const initializer")
}

/// The mutable `i32` globals a module defines, read by wasmparser.
fn mutable_i32_globals(wasm: &[u8]) -> usize {
    let mut n = 0;
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::GlobalSection(globals) = payload.unwrap() {
            for g in globals {
                let ty = g.unwrap().ty;
                n += usize::from(ty.mutable && ty.content_type == wasmparser::ValType::I32);
            }
        }
    }
    n
}

fn analyze(dump: &str, wasm: &str, extra: &[&str]) -> (Value, String) {
    let (dump, wasm) = (fixture(dump), fixture(wasm));
    let mut args = vec!["heap", "analyze", dump.to_str().unwrap(), "--wasm", wasm.to_str().unwrap()];
    args.extend_from_slice(extra);
    cli(&args)
}

fn diff(before: &str, after: &str, wasm: &str, extra: &[&str]) -> (Value, String) {
    let (before, after, wasm) = (fixture(before), fixture(after), fixture(wasm));
    let mut args = vec![
        "heap",
        "diff",
        before.to_str().unwrap(),
        after.to_str().unwrap(),
        "--wasm",
        wasm.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    cli(&args)
}

fn int(v: &Value, key: &str) -> i64 {
    v[key].as_i64().unwrap_or_else(|| panic!("`{key}` is not an integer in {v}"))
}

fn rows(v: &Value) -> &Vec<Value> {
    v["constructors"].as_array().expect("constructors array")
}

fn row<'a>(v: &'a Value, class: &str) -> &'a Value {
    rows(v).iter().find(|r| r["className"] == class).unwrap_or_else(|| panic!("no row for {class}"))
}

fn names(v: &Value) -> Vec<&str> {
    rows(v).iter().map(|r| r["className"].as_str().unwrap()).collect()
}

/// totalHeapSize from the dump itself: memory length − firstBlock, firstBlock = R + 1580
/// with R = heapBase rounded up to 16.
fn expected_heap_size(dump: &str) -> i64 {
    let bytes = std::fs::read(fixture(dump)).unwrap();
    let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as i64;
    assert_eq!(word(0), 0x4448_5341, "magic");
    assert_eq!(word(4), 2, "version");
    let mem_len = bytes.len() as i64 - 24 - 4 * word(20);
    mem_len - (((word(12) + 15) & !15) + 1580)
}

/// The key order of E (checked on the text, since serde_json's map does not keep it).
fn assert_key_order(text: &str, keys: &[&str]) {
    let positions: Vec<usize> = keys
        .iter()
        .map(|k| text.find(&format!("\"{k}\": ")).unwrap_or_else(|| panic!("no key {k}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "keys out of order, expected {keys:?}");
}

const TREE: &str = "dwarf_fixture/TreeNode";

/// Every row of the constructor view of dwarf_fixture.1.dump, in the default order
/// (totalRetainedSize desc, then totalShallowSize desc): (class, count, shallow, retained).
/// The dump is taken in `main` after every structure was built by its own function; the
/// shadow stack then holds exactly main's three locals (list, characters, bytes).
const DWARF_FIXTURE_ROWS: &[(&str, i64, i64, i64)] = &[
    // Depth-4 tree (1 + 2 + 4 + 8 + 16 nodes), held only by `globalTree`: each node 32, so
    // 992 in all; retained per level 32·31, 32·15, 32·7, 32·3, 32 → 992 + 2·480 + 4·224 +
    // 8·96 + 16·32 = 4128.
    (TREE, 31, 992, 4128),
    // 16 buffers: 2 inventories (32 B → 64), Set buckets 48 + entries 64, Map<Item,f64>
    // buckets 48 + entries 128, Map<string,Player> buckets 48 + entries 80, matrix outer 64 +
    // 4 rows × 64, Uint8Array(64) 96, pinned ArrayBuffer(128) 160, characters 64:
    // 2·64 + 48+64 + 48+128 + 48+80 + 5·64 + 96 + 160 + 64 = 1184. None references anything.
    ("~lib/arraybuffer/ArrayBuffer", 16, 1184, 1184),
    // 48 + its buffer 64 + 4 × (Array<i32> 48 + buffer 64) = 560.
    ("~lib/array/Array<~lib/array/Array<i32>>", 1, 48, 560),
    // hero: 48 + Vector2 32 + Array 48 + buffer 64 + 3 Items·32 = 288; sidekick with 2 Items
    // 256. (The item names are static strings.) Two players: 96 shallow, 544 retained.
    ("dwarf_fixture/Player", 2, 96, 544),
    // Five 32-byte nodes held through the head only: 160+128+96+64+32 = 480.
    ("dwarf_fixture/ListNode", 5, 160, 480),
    ("~lib/array/Array<i32>", 4, 192, 448),
    // 48 + buckets 48 + entries 80 + sidekick 256 (hero is also held by `globalPlayer`, so
    // its immediate dominator is the virtual root) = 432.
    ("~lib/map/Map<~lib/string/String,dwarf_fixture/Player>", 1, 48, 432),
    // The inventories: 48 + 64 + 3·32 = 208 and 48 + 64 + 2·32 = 176.
    ("~lib/array/Array<dwarf_fixture/Item>", 2, 96, 384),
    // 5 in inventories, 3 in the Set, 3 keys of Map<Item,f64>.
    ("dwarf_fixture/Item", 11, 352, 352),
    // 48 + buffer 64 + 3 NPCs·80 = 352 (same retained total as Item, fewer shallow bytes).
    ("~lib/array/Array<dwarf_fixture/Character>", 1, 48, 352),
    // 48 + 48 + 128 + 3 Items·32 = 320; needs the entry stride 24 from DW_AT_byte_size
    // (the field extent alone gives 20 and loses two of the keys).
    ("~lib/map/Map<dwarf_fixture/Item,f64>", 1, 48, 320),
    // 48 + 48 + 64 + 3 Items·32 = 256.
    ("~lib/set/Set<dwarf_fixture/Item>", 1, 48, 256),
    // NPC payload 20 → 48, + its Vector2 32 = 80 each (names and dialogue are static).
    ("dwarf_fixture/NPC", 3, 144, 240),
    // 2 players + 3 NPCs + 2 in `corners`.
    ("dwarf_fixture/Vector2", 7, 224, 224),
    // 32 + ArrayBuffer(64) 96 = 128, held by a local.
    ("~lib/typedarray/Uint8Array", 1, 32, 128),
    // Payload 8 → 32, + 2 Vector2 = 96.
    ("~lib/staticarray/StaticArray<dwarf_fixture/Vector2>", 1, 32, 96),
    // "Hello, world!" (the only heap string): 13 UTF-16 code units = 26 bytes → 48.
    ("~lib/string/String", 1, 48, 48),
    // Pinned and referenced from nowhere else: live only as a pinned root.
    ("dwarf_fixture/PinnedBox", 1, 32, 32),
];

#[test]
fn dwarf_fixture_constructor_view() {
    let (v, text) = analyze("dwarf_fixture.1.dump", "dwarf_fixture.wasm", &[]);
    assert_key_order(&text, &["totalHeapSize", "totalLiveSize", "constructors"]);
    assert_key_order(&text, &["className", "count", "totalShallowSize", "totalRetainedSize", "instances"]);
    assert_key_order(&text, &["address", "shallowSize", "retainedSize"]);
    assert_eq!(int(&v, "totalHeapSize"), expected_heap_size("dwarf_fixture.1.dump"));

    let got: Vec<(&str, i64, i64, i64)> = rows(&v)
        .iter()
        .map(|r| {
            (
                r["className"].as_str().unwrap(),
                int(r, "count"),
                int(r, "totalShallowSize"),
                int(r, "totalRetainedSize"),
            )
        })
        .collect();
    assert_eq!(got, DWARF_FIXTURE_ROWS, "constructor rows (Garbage must be absent: dropped before the dump)");

    // Σ shallow over rows = live size; each row's totals are the sums over its instances,
    // which are ordered retained desc, shallow desc, address asc.
    let live: i64 = DWARF_FIXTURE_ROWS.iter().map(|r| r.2).sum();
    assert_eq!(int(&v, "totalLiveSize"), live);
    assert!(int(&v, "totalHeapSize") >= live);
    for r in rows(&v) {
        let inst = r["instances"].as_array().unwrap();
        assert_eq!(inst.len() as i64, int(r, "count"));
        assert_eq!(inst.iter().map(|i| int(i, "shallowSize")).sum::<i64>(), int(r, "totalShallowSize"));
        assert_eq!(inst.iter().map(|i| int(i, "retainedSize")).sum::<i64>(), int(r, "totalRetainedSize"));
        for i in inst {
            assert_eq!(i.as_object().unwrap().len(), 3, "instance keys: address, shallowSize, retainedSize");
        }
        let key = |i: &Value| (-int(i, "retainedSize"), -int(i, "shallowSize"), int(i, "address"));
        assert!(inst.windows(2).all(|w| key(&w[0]) < key(&w[1])), "instance order of {}", r["className"]);
    }

    let retained = |class: &str| -> Vec<i64> {
        row(&v, class)["instances"].as_array().unwrap().iter().map(|i| int(i, "retainedSize")).collect()
    };
    let mut tree = vec![992];
    for (n, size) in [(2, 480), (4, 224), (8, 96), (16, 32)] {
        tree.extend(std::iter::repeat_n(size, n));
    }
    assert_eq!(retained(TREE), tree);
    assert!(row(&v, TREE)["instances"].as_array().unwrap().iter().all(|i| int(i, "shallowSize") == 32));
    assert_eq!(retained("dwarf_fixture/Player"), [288, 256]);
    assert_eq!(retained("dwarf_fixture/ListNode"), [160, 128, 96, 64, 32]);
    assert_eq!(retained("dwarf_fixture/NPC"), [80, 80, 80]);
    assert_eq!(retained("~lib/array/Array<dwarf_fixture/Item>"), [208, 176]);
    assert_eq!(retained("~lib/array/Array<i32>"), [112, 112, 112, 112]);
}

#[test]
fn dwarf_fixture_sort_and_top() {
    // count: stable re-sort by count only → TreeNode 31, ArrayBuffer 16, Item 11, …
    let (v, _) = analyze("dwarf_fixture.1.dump", "dwarf_fixture.wasm", &["--sort", "count", "--top", "3"]);
    assert_eq!(names(&v), [TREE, "~lib/arraybuffer/ArrayBuffer", "dwarf_fixture/Item"]);
    // shallow: ArrayBuffer 1184 before TreeNode 992; --top keeps whole instance lists.
    let (v, _) = analyze("dwarf_fixture.1.dump", "dwarf_fixture.wasm", &["--sort", "shallow", "--top", "2"]);
    assert_eq!(names(&v), ["~lib/arraybuffer/ArrayBuffer", TREE]);
    assert_eq!(row(&v, TREE)["instances"].as_array().unwrap().len(), 31);
}

/// What `tests/heap_cli.rs` relies on when it refuses a fixture dump cut short or paired with
/// another program's module (docs/heap.md, "Command line"), read here with wasmparser: each dump
/// is whole 64 KiB pages, holds one value per mutable i32 global of its module, and its header's
/// `__heap_base` is the module's global of that name; so every dump with its own module, with
/// and without DWARF, is analysed without a word on stderr.
#[test]
fn fixture_dumps_match_their_modules() {
    for (dump, program, globals, heap_base) in [
        ("alloc_free.1.dump", "alloc_free", 13, 33572),
        ("dwarf_fixture.1.dump", "dwarf_fixture", 20, 34560),
        ("leak.2.dump", "leak", 12, 35360),
        ("sessions.1.dump", "sessions", 13, 35448),
    ] {
        let bytes = std::fs::read(fixture(dump)).unwrap();
        let module = std::fs::read(fixture(&format!("{program}.wasm"))).unwrap();
        assert_eq!((bytes.len() - 24 - 4 * dump_globals(&bytes)) % 65536, 0, "{dump}");
        assert_eq!((dump_globals(&bytes), mutable_i32_globals(&module)), (globals, globals), "{dump}");
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), heap_base, "{dump}");
        assert_eq!(module_heap_base(&module), heap_base, "{program}");
        if program != "sessions" {
            for w in [format!("{program}.wasm"), format!("{program}.no-dwarf.wasm")] {
                analyze(dump, &w, &[]);
            }
        }
    }
}

#[test]
fn dwarf_fixture_without_global_values() {
    let bytes = std::fs::read(fixture("dwarf_fixture.1.dump")).unwrap();
    let n = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    assert!(n > 0, "the runner serialises the mutable i32 globals");
    let mut stripped = bytes[..20].to_vec();
    stripped.extend_from_slice(&0u32.to_le_bytes());
    stripped.extend_from_slice(&bytes[24 + 4 * n..]);
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("heap-as-no-globals.dump");
    std::fs::write(&path, &stripped).unwrap();
    let wasm = fixture("dwarf_fixture.wasm");
    let result = cli(&["heap", "analyze", path.to_str().unwrap(), "--wasm", wasm.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    let (v, _) = result;
    // Left: the three locals of `main` (list 480, characters 352 with its NPCs and their
    // Vector2s, bytes 128) and the two pinned objects (ArrayBuffer 160, PinnedBox 32).
    let got: Vec<(&str, i64, i64)> = rows(&v)
        .iter()
        .map(|r| (r["className"].as_str().unwrap(), int(r, "count"), int(r, "totalRetainedSize")))
        .collect();
    assert_eq!(
        got,
        [
            ("dwarf_fixture/ListNode", 5, 480),
            ("~lib/array/Array<dwarf_fixture/Character>", 1, 352),
            // The characters' buffer, the Uint8Array's, the pinned one.
            ("~lib/arraybuffer/ArrayBuffer", 3, 64 + 96 + 160),
            ("dwarf_fixture/NPC", 3, 240),
            ("~lib/typedarray/Uint8Array", 1, 128),
            ("dwarf_fixture/Vector2", 3, 96),
            ("dwarf_fixture/PinnedBox", 1, 32),
        ]
    );
    // ListNodes + Array<Character> + buffers + NPCs + Uint8Array + Vector2s + PinnedBox.
    assert_eq!(int(&v, "totalLiveSize"), 160 + 48 + (64 + 96 + 160) + 144 + 32 + 96 + 32);
}

/// Every dump the fixture programs write, with its program.
const DUMPS: &[(&str, &str)] = &[
    ("dwarf_fixture", "dwarf_fixture.1.dump"),
    ("alloc_free", "alloc_free.1.dump"),
    ("alloc_free", "alloc_free.2.dump"),
    ("leak", "leak.1.dump"),
    ("leak", "leak.2.dump"),
    ("sessions", "sessions.1.dump"),
];

/// Runs the CLI on fixture files (`@name` arguments are fixture paths); it must succeed with
/// nothing on stderr. Returns stdout.
fn run(args: &[&str]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| match a.strip_prefix('@') {
            Some(name) => fixture(name).to_str().unwrap().to_string(),
            None => a.to_string(),
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(&args)
        .output()
        .expect("run qip-memory");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "qip-memory {args:?} failed ({}): {stderr}",
        out.status
    );
    String::from_utf8(out.stdout).expect("UTF-8 stdout")
}

/// A DevTools snapshot decoded into what does not depend on string-table order: per node
/// (id, type, name, self size), its edges as (type, name or index, target id), sorted.
type Nodes = BTreeMap<u64, (u64, String, u64, Vec<(u64, String, u64)>)>;

fn decode_snapshot(path: &Path) -> Nodes {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let n = |k: &str| v[k].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect::<Vec<u64>>();
    let (nodes, edges) = (n("nodes"), n("edges"));
    let strings: Vec<&str> = v["strings"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    // node_fields: type, name, id, self_size, edge_count, …; edge_fields: type, name_or_index, to_node.
    let width = v["snapshot"]["meta"]["node_fields"].as_array().unwrap().len();
    let (mut out, mut e) = (Nodes::new(), 0);
    for node in nodes.chunks(width) {
        let mut list = Vec::new();
        for _ in 0..node[4] {
            let (ty, name, to) = (edges[e], edges[e + 1], edges[e + 2] as usize);
            e += 3;
            // Type 1 is `element`: the name is an index.
            let name = if ty == 1 { name.to_string() } else { strings[name as usize].to_string() };
            list.push((ty, name, nodes[to + 2]));
        }
        list.sort();
        out.insert(node[2], (node[0], strings[node[1] as usize].to_string(), node[3], list));
    }
    out
}

/// Issue 14 item 5: asc's own output (`--debug`: a `name` section, no DWARF) is analysed by
/// running the program's own visitors (`~lib/rt/__visit_members`, `__visit_globals`) over the
/// dump. The oracle is the DWARF path on the same program (checked against WARPO's tool
/// elsewhere): on every dump of every fixture, the constructor view (three sorts, JSON and
/// table), the dominator tree, the comparison view and the retainers of the largest instance
/// of every class are byte-identical, and the DevTools snapshots have the same nodes with the
/// same edges, labels included (field names from the accessors, elements, map keys and
/// values, set elements).
#[test]
fn asc_output_without_dwarf_gives_the_dwarf_analysis() {
    for (program, dump) in DUMPS {
        let (with, without) = (format!("@{program}.wasm"), format!("@{program}.no-dwarf.wasm"));
        let dump = format!("@{dump}");
        let same = |args: &[&str]| {
            let one = |wasm: &str| {
                let args: Vec<&str> = args.iter().map(|a| if *a == "WASM" { wasm } else { a }).collect();
                run(&args)
            };
            let (a, b) = (one(&with), one(&without));
            assert_eq!(a, b, "{args:?} differs without DWARF");
            a
        };
        for extra in [&[][..], &["--sort", "shallow"], &["--sort", "count"], &["--format", "table"]] {
            let mut args = vec!["heap", "analyze", dump.as_str(), "--wasm", "WASM"];
            args.extend_from_slice(extra);
            same(&args);
        }
        same(&["heap", "dominators", &dump, "--wasm", "WASM", "--depth", "12", "--top", "100"]);
        let json = same(&["heap", "analyze", &dump, "--wasm", "WASM"]);
        let v: Value = serde_json::from_str(&json).unwrap();
        for class in names(&v) {
            same(&["heap", "retainers", &dump, "--wasm", "WASM", "--class", class, "--paths", "5"]);
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let snapshot = |wasm: &str, name: &str| {
            let path = dir.join(name);
            let out = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
                .args(["heap", "snapshot"])
                .args([
                    fixture(&dump[1..]),
                    PathBuf::from("--wasm"),
                    fixture(&wasm[1..]),
                    PathBuf::from("-o"),
                ])
                .arg(&path)
                .output()
                .expect("run qip-memory");
            assert!(
                out.status.success() && out.stdout.is_empty(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            // The one line on stderr: the file and its size.
            let len = std::fs::metadata(&path).unwrap().len();
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("wrote {} ({len} bytes)\n", path.display())
            );
            decode_snapshot(&path)
        };
        let (a, b) = (snapshot(&with, "dwarf.heapsnapshot"), snapshot(&without, "no-dwarf.heapsnapshot"));
        assert!(a.len() > 1, "{dump}: an empty snapshot");
        assert_eq!(a, b, "{dump}: the snapshots differ without DWARF");
    }
    for program in ["alloc_free", "leak"] {
        let (before, after) = (format!("@{program}.1.dump"), format!("@{program}.2.dump"));
        for wasm_format in [&[][..], &["--format", "table"]] {
            let mut a = vec!["heap", "diff", before.as_str(), after.as_str(), "--wasm"];
            let with = format!("@{program}.wasm");
            let without = format!("@{program}.no-dwarf.wasm");
            let mut b = a.clone();
            a.push(&with);
            b.push(&without);
            a.extend_from_slice(wasm_format);
            b.extend_from_slice(wasm_format);
            assert_eq!(run(&a), run(&b), "{program}: diff differs without DWARF");
        }
    }
}

/// The CLI's line for a module it cannot analyse: WARPO's, and why the other way failed too.
const NO_HEAP_INFO: &str = "Missing .debug_abbrev section in wasm binary, and no AssemblyScript runtime \
     visitors to analyse it without DWARF (~lib/rt/__visit_members, ~lib/rt/itcms/__visit and \
     ~lib/rt/__visit_globals in its name section): build it with asc --debug";

/// A module with neither DWARF nor the runtime's names (asc's output with its custom sections
/// removed) is refused in one line, exit code 1.
#[test]
fn a_module_without_dwarf_or_names_is_refused() {
    let wasm = std::fs::read(fixture("dwarf_fixture.no-dwarf.wasm")).unwrap();
    let stripped = common::without_custom_sections(&wasm);
    assert!(stripped.len() < wasm.len());
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stripped.wasm");
    std::fs::write(&path, &stripped).unwrap();
    let dump = fixture("dwarf_fixture.1.dump");
    for view in ["analyze", "dominators", "snapshot"] {
        let mut args = vec!["heap", view, dump.to_str().unwrap(), "--wasm", path.to_str().unwrap()];
        let out_file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("refused.heapsnapshot");
        if view == "snapshot" {
            args.extend(["-o", out_file.to_str().unwrap()]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_qip-memory")).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{view}");
        assert!(out.stdout.is_empty(), "{view}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("qip-memory: {}: {NO_HEAP_INFO}\n", path.display()),
            "{view}"
        );
        assert!(!out_file.exists(), "{view} left a file");
    }
}

/// Cell: 32 each; `cells` StaticArray<Cell|null>(8): payload 32 → 64. Blob: 48 each;
/// StaticArray<Blob>(3): payload 12 → 32.
/// Dump 1: StaticArray 64 + 8 Cells = 320 live. Dump 2: the odd Cells were dropped and
/// collected; 64 + 4 Cells 128 + StaticArray<Blob> 32 + 3 Blobs 144 = 368.
#[test]
fn alloc_free_diff_rows() {
    let cells_class = "~lib/staticarray/StaticArray<alloc_free/Cell|null>";
    let (before, _) = analyze("alloc_free.1.dump", "alloc_free.wasm", &[]);
    assert_eq!(names(&before), [cells_class, "alloc_free/Cell"]);
    assert_eq!(
        (int(row(&before, cells_class), "count"), int(row(&before, cells_class), "totalRetainedSize")),
        (1, 320)
    );
    assert_eq!(int(&before, "totalLiveSize"), 320);
    let (after, _) = analyze("alloc_free.2.dump", "alloc_free.wasm", &[]);
    assert_eq!(int(&after, "totalLiveSize"), 368);
    assert_eq!(int(row(&after, cells_class), "totalRetainedSize"), 64 + 4 * 32);

    let (d, text) = diff("alloc_free.1.dump", "alloc_free.2.dump", "alloc_free.wasm", &[]);
    assert_key_order(
        &text,
        &[
            "beforeTotalHeapSize",
            "afterTotalHeapSize",
            "totalHeapSizeDelta",
            "beforeTotalLiveSize",
            "afterTotalLiveSize",
            "totalLiveSizeDelta",
            "constructors",
        ],
    );
    assert_key_order(
        &text,
        &[
            "className",
            "newCount",
            "deletedCount",
            "countDelta",
            "allocatedSize",
            "freedSize",
            "sizeDelta",
            "instances",
        ],
    );
    assert_key_order(&text, &["address", "shallowSize", "retainedSize", "changeKind"]);
    // Memory did not grow: both dumps have the same heap span.
    let heap = expected_heap_size("alloc_free.1.dump");
    assert_eq!(heap, expected_heap_size("alloc_free.2.dump"));
    assert_eq!(
        [
            int(&d, "beforeTotalHeapSize"),
            int(&d, "afterTotalHeapSize"),
            int(&d, "totalHeapSizeDelta"),
            int(&d, "beforeTotalLiveSize"),
            int(&d, "afterTotalLiveSize"),
            int(&d, "totalLiveSizeDelta"),
        ],
        [heap, heap, 0, 320, 368, 48]
    );

    // (class, new, deleted, countDelta, allocated, freed, sizeDelta), sizeDelta desc.
    // The cells StaticArray and the 4 even Cells are unchanged and give no row.
    let summary = |v: &Value| -> Vec<(String, [i64; 6])> {
        rows(v)
            .iter()
            .map(|r| {
                let keys =
                    ["newCount", "deletedCount", "countDelta", "allocatedSize", "freedSize", "sizeDelta"];
                (r["className"].as_str().unwrap().to_owned(), keys.map(|k| int(r, k)))
            })
            .collect()
    };
    let blob = ("alloc_free/Blob".to_owned(), [3, 0, 3, 144, 0, 144]);
    let blobs = ("~lib/staticarray/StaticArray<alloc_free/Blob>".to_owned(), [1, 0, 1, 32, 0, 32]);
    let cell = ("alloc_free/Cell".to_owned(), [0, 4, -4, 0, 128, -128]);
    assert_eq!(summary(&d), [blob.clone(), blobs.clone(), cell.clone()]);

    let instances = |class: &str| -> Vec<(i64, i64, String)> {
        row(&d, class)["instances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (int(i, "shallowSize"), int(i, "retainedSize"), i["changeKind"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    assert_eq!(instances("alloc_free/Blob"), vec![(48, 48, "new".to_owned()); 3]);
    assert_eq!(instances(&blobs.0), [(32, 32 + 3 * 48, "new".to_owned())]);
    assert_eq!(instances("alloc_free/Cell"), vec![(32, 32, "delete".to_owned()); 4]);
    // The deleted Cells are the odd-numbered ones: allocated in order from one free block,
    // they sit at ascending addresses, so they are the 2nd, 4th, 6th and 8th by address.
    let mut before_cells: Vec<i64> = row(&before, "alloc_free/Cell")["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| int(i, "address"))
        .collect();
    before_cells.sort_unstable();
    let mut deleted: Vec<i64> = row(&d, "alloc_free/Cell")["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| int(i, "address"))
        .collect();
    deleted.sort_unstable();
    assert_eq!(deleted, [before_cells[1], before_cells[3], before_cells[5], before_cells[7]]);

    // The other orders and --top.
    let order = |extra: &[&str]| -> Vec<String> {
        let (v, _) = diff("alloc_free.1.dump", "alloc_free.2.dump", "alloc_free.wasm", extra);
        names(&v).into_iter().map(str::to_owned).collect()
    };
    let (blob, blobs, cell) = (blob.0.as_str(), blobs.0.as_str(), cell.0.as_str());
    assert_eq!(order(&["--sort", "alloc"]), [blob, blobs, cell]);
    // freed desc, then sizeDelta asc.
    assert_eq!(order(&["--sort", "freed"]), [cell, blobs, blob]);
    assert_eq!(order(&["--sort", "count"]), [blob, blobs, cell]);
    assert_eq!(order(&["--top", "1"]), [blob]);
}

// ---------------------------------------------------------------------------------------------
// The DWARF that dwarfgen appended, read back with gimli (independently of the analyzer).

type Slice = gimli::EndianSlice<'static, gimli::LittleEndian>;

struct Die {
    offset: usize,
    tag: gimli::DwTag,
    attrs: Vec<(gimli::DwAt, gimli::DwForm, gimli::AttributeValue<Slice>)>,
    children: Vec<Die>,
}

impl Die {
    fn attr(&self, at: gimli::DwAt) -> Option<&gimli::AttributeValue<Slice>> {
        self.attrs.iter().find(|a| a.0 == at).map(|a| &a.2)
    }
    fn name(&self) -> Option<String> {
        match self.attr(gimli::DW_AT_name)? {
            gimli::AttributeValue::String(s) => Some(s.to_string().unwrap().to_owned()),
            _ => None,
        }
    }
    fn u32_of(&self, at: gimli::DwAt) -> Option<u32> {
        let form = self.attrs.iter().find(|a| a.0 == at)?.1;
        assert_eq!(form, gimli::DW_FORM_data4, "{at} must be data4");
        match self.attr(at)? {
            gimli::AttributeValue::Data4(v) => Some(*v),
            // gimli's reader calls a data4 DW_AT_location a section offset (DWARF 3 loclistptr).
            gimli::AttributeValue::SecOffset(v) => Some(*v as u32),
            other => panic!("{at}: {other:?}"),
        }
    }
    fn type_offset(&self) -> Option<usize> {
        match self.attr(gimli::DW_AT_type)? {
            gimli::AttributeValue::UnitRef(o) => Some(o.0),
            other => panic!("DW_AT_type: {other:?}"),
        }
    }
}

fn read_tree(node: gimli::EntriesTreeNode<Slice>) -> Die {
    let entry = node.entry();
    let attrs = entry.attrs().iter().map(|a| (a.name(), a.form(), a.raw_value())).collect();
    let (offset, tag) = (entry.offset().0, entry.tag());
    let mut children = Vec::new();
    let mut iter = node.children();
    while let Some(child) = iter.next().unwrap() {
        children.push(read_tree(child));
    }
    Die { offset, tag, attrs, children }
}

#[test]
fn dwarf_fixture_debug_info_read_back() {
    let wasm = std::fs::read(fixture("dwarf_fixture.wasm")).unwrap();
    let mut sections: BTreeMap<String, &'static [u8]> = BTreeMap::new();
    let mut global_names: BTreeMap<String, u32> = BTreeMap::new();
    for payload in wasmparser::Parser::new(0).parse_all(&wasm) {
        if let wasmparser::Payload::CustomSection(c) = payload.unwrap() {
            if let wasmparser::KnownCustom::Name(reader) = c.as_known() {
                for name in reader {
                    if let wasmparser::Name::Global(map) = name.unwrap() {
                        for n in map {
                            let n = n.unwrap();
                            global_names.insert(n.name.to_owned(), n.index);
                        }
                    }
                }
            }
            sections.insert(c.name().to_owned(), Box::leak(c.data().to_vec().into_boxed_slice()));
        }
    }
    for name in ["debug_abbrev", "debug_info", "debug_str"] {
        assert!(sections.contains_key(name), "custom section {name}");
        assert!(!sections.contains_key(&format!(".{name}")), "no dotted .{name}");
    }
    assert_eq!(sections["debug_str"], b"warpo\0");

    let le = gimli::LittleEndian;
    let info = gimli::DebugInfo::new(sections["debug_info"], le);
    let abbrev = gimli::DebugAbbrev::new(sections["debug_abbrev"], le);
    let mut units = info.units();
    let header = units.next().unwrap().expect("a unit");
    assert!(units.next().unwrap().is_none(), "one unit");
    assert_eq!((header.version(), header.address_size(), header.format()), (4, 4, gimli::Format::Dwarf32));
    let abbrevs = header.abbreviations(&abbrev).unwrap();
    let mut tree = header.entries_tree(&abbrevs, None).unwrap();
    let root = read_tree(tree.root().unwrap());
    assert_eq!(root.tag, gimli::DW_TAG_compile_unit);
    assert!(
        matches!(root.attr(gimli::DW_AT_producer), Some(gimli::AttributeValue::DebugStrRef(o)) if o.0 == 0)
    );

    // WARPO's five forms only, on every DIE.
    fn forms(d: &Die, out: &mut Vec<gimli::DwForm>) {
        out.extend(d.attrs.iter().map(|a| a.1));
        d.children.iter().for_each(|c| forms(c, out));
    }
    let mut all = Vec::new();
    forms(&root, &mut all);
    let allowed = [
        gimli::DW_FORM_addr,
        gimli::DW_FORM_data4,
        gimli::DW_FORM_string,
        gimli::DW_FORM_strp,
        gimli::DW_FORM_ref4,
    ];
    assert!(all.iter().all(|f| allowed.contains(f)), "forms outside WARPO's five");

    let prefix = "dwarf_fixture/";
    let by_offset =
        |off: usize| root.children.iter().find(|d| d.offset == off).expect("ref4 target at the top level");
    let class = |name: &str| {
        root.children
            .iter()
            .find(|d| d.tag == gimli::DW_TAG_class_type && d.name().as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no class DIE {name}"))
    };
    // Flattened fields: base fields first, following the inheritance DIEs.
    fn fields(root: &Die, d: &Die) -> Vec<(String, u32, String)> {
        let find = |off: usize| root.children.iter().find(|c| c.offset == off).unwrap();
        let mut out = Vec::new();
        if let Some(base) = d.children.iter().find(|c| c.tag == gimli::DW_TAG_inheritance) {
            out = fields(root, find(base.type_offset().unwrap()));
        }
        for m in d.children.iter().filter(|c| c.tag == gimli::DW_TAG_member) {
            let ty = find(m.type_offset().unwrap()).name().unwrap();
            out.push((m.name().unwrap(), m.u32_of(gimli::DW_AT_data_member_location).unwrap(), ty));
        }
        out
    }
    let player = fields(&root, class(&format!("{prefix}Player")));
    let got: Vec<(&str, u32)> = player.iter().map(|f| (f.0.as_str(), f.1)).collect();
    assert_eq!(
        got,
        [("id", 0), ("position", 4), ("name", 8), ("hp", 12), ("inventory", 16), ("score", 20)],
        "Player's flattened fields"
    );
    assert_eq!(player[1].2, format!("{prefix}Vector2"));
    assert_eq!(player[2].2, "~lib/string/String");
    assert_eq!(player[3].2, "i32");
    assert_eq!(player[4].2, format!("~lib/array/Array<{prefix}Item>"));
    // Own members only on each class; the parent link is an inheritance DIE.
    let character = class(&format!("{prefix}Character"));
    let own: Vec<String> = character
        .children
        .iter()
        .filter(|c| c.tag == gimli::DW_TAG_member)
        .map(|c| c.name().unwrap())
        .collect();
    assert_eq!(own, ["name", "hp"]);
    let base = character.children.iter().find(|c| c.tag == gimli::DW_TAG_inheritance).unwrap();
    assert_eq!(by_offset(base.type_offset().unwrap()).name().unwrap(), format!("{prefix}Entity"));
    let vector = fields(&root, class(&format!("{prefix}Vector2")));
    assert_eq!(vector, [("x".into(), 0, "f32".into()), ("y".into(), 4, "f32".into())]);

    // Runtime ids: non-zero ones unique; the fixed ones of the runtime.
    let mut ids = BTreeMap::new();
    for d in root.children.iter().filter(|d| d.tag == gimli::DW_TAG_class_type) {
        let id = d.u32_of(gimli::DW_AT_signature).expect("every class DIE has a signature");
        if id != 0 {
            assert!(ids.insert(id, d.name().unwrap()).is_none(), "rtId {id} twice");
        }
    }
    assert_eq!(ids[&1], "~lib/arraybuffer/ArrayBuffer");
    assert_eq!(ids[&2], "~lib/string/String");
    assert_eq!(ids[&3], "~lib/arraybuffer/ArrayBufferView");

    // Entry classes: signature 0, real stride in DW_AT_byte_size, key/value/taggedNext.
    let entry = class(&format!("~lib/map/MapEntry<{prefix}Item,f64>"));
    assert_eq!(entry.u32_of(gimli::DW_AT_signature), Some(0));
    assert_eq!(entry.u32_of(gimli::DW_AT_byte_size), Some(24));
    let f: Vec<(String, u32)> = fields(&root, entry).into_iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(f, [("key".into(), 0), ("value".into(), 8), ("taggedNext".into(), 16)]);
    let set_entry = class(&format!("~lib/set/SetEntry<{prefix}Item>"));
    assert_eq!(set_entry.u32_of(gimli::DW_AT_byte_size), Some(8));
    // Template argument of Array<Item>.
    let array = class(&format!("~lib/array/Array<{prefix}Item>"));
    let t = array.children.iter().find(|c| c.tag == gimli::DW_TAG_template_type_parameter).unwrap();
    assert_eq!(by_offset(t.type_offset().unwrap()).name().unwrap(), format!("{prefix}Item"));

    // Global variables: location = index in the global section (= the name section's index;
    // asc imports no globals), type = the class.
    let var = root
        .children
        .iter()
        .find(|d| d.tag == gimli::DW_TAG_variable && d.name().as_deref() == Some("dwarf_fixture/globalTree"))
        .expect("globalTree variable");
    assert_eq!(var.u32_of(gimli::DW_AT_location), Some(global_names["dwarf_fixture/globalTree"]));
    assert_eq!(by_offset(var.type_offset().unwrap()).name().unwrap(), format!("{prefix}TreeNode"));
    let vars: Vec<String> =
        root.children.iter().filter(|d| d.tag == gimli::DW_TAG_variable).map(|d| d.name().unwrap()).collect();
    let mut sorted = vars.clone();
    sorted.sort();
    assert_eq!(vars, sorted, "variables in name order");
}
