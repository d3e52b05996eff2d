//! The heat map tool at library level (`qip_memory::tools::thermal`, the code path the
//! component and the CLI share), docs/heat-map.md:
//!
//! * WAT targets whose per-byte tallies and pixels are counted by hand (instructions per
//!   docs/counting.md);
//! * an independent, deliberately naive implementation of the reference's two-run definition
//!   (maps keyed by address, run twice) compared pixel for pixel on the real targets;
//! * the KTX2 container read back with the `ktx2` crate.

mod common;
use std::collections::{BTreeMap, BTreeSet};

use common::{ATOMICS_TARGET, request};
use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::content::run::{TargetUniform, run};
use qip_memory::profile::thermal::StackRange;
use qip_memory::tools::thermal::{Options, Thermal, thermal, thermal_with};
use qip_memory::tools::{Rejection, target_limits};
use qip_memory::wasm::Observer;

fn heat(req: &[u8], normalize: bool, first_page: u32) -> Result<Thermal, Rejection> {
    thermal(req, DEFAULT_CONTENT_TYPE.as_bytes(), Options { budget: 100_000_000, normalize, first_page })
}

/// The RGBA of byte `addr` in the image (tile of its page, row-major inside the tile).
fn pixel(t: &Thermal, addr: u64) -> [u8; 4] {
    let tile = t.pages.iter().position(|&p| p == addr / 65536).expect("page is a tile");
    let i = 4 * (tile * 65536 + (addr % 65536) as usize);
    t.pixels()[i..i + 4].try_into().unwrap()
}

/// Every pixel that is not all zero, by address.
fn nonzero(t: &Thermal) -> BTreeMap<u64, [u8; 4]> {
    let mut m = BTreeMap::new();
    for (tile, page) in t.pages.iter().enumerate() {
        for b in 0..65536u64 {
            let i = 4 * (tile * 65536 + b as usize);
            let px: [u8; 4] = t.pixels()[i..i + 4].try_into().unwrap();
            if px != [0; 4] {
                m.insert(page * 65536 + b, px);
            }
        }
    }
    m
}

/// Stack top (global 0) at 65,536, so the stack is on page 0; output on page 1; data "DATA" at
/// 131,072 (page 2); input at 196,608 (page 3); the setter stores to page 4.
///
/// Render, instruction by instruction, with the work each write receives:
///  1–4   sp -= 16 (stack range becomes [65,520, 65,536))
///  5–7   i32.store at sp: a stack write, attributes nothing, the tally runs on
///  8     loop
///  9–11  local.get, local.get, i32.store8 offset=65536 → byte 65,536: I = 11
///  12–13 call $noop, its `end` (1 call)
///  14–20 local.get, i32.const 1, i32.add, local.tee, i32.const 3, i32.lt_u, br_if (taken: 1 loop)
///        then local.get, local.get, i32.store8 → byte 65,537: I = 9 + 3 = 12, L = 1, C = 1
///        the same again → byte 65,538: I = 12, L = 1, C = 1
///        call, end, 7 ops ending in an untaken br_if, the loop's `end`: 10 instructions, 1 call
///  memory.fill 65,539..65,542 with 'x' (4 instructions) → byte 65,539: I = 14, C = 1
///  memory.copy 2 bytes of "DATA" to 65,542 (4) → byte 65,542: I = 4
///  then dropped: 3 loads (9 instructions: input byte 0, output byte 65,536 twice), sp += 16 (4),
///  i64.const and the final `end` (2): 15 instructions after the last write.
/// Render total 68 instructions, image total 53; 2 loop iterations; 3 calls.
const TARGET: &str = r#"(module
  (memory (export "memory") 5 5)
  (global $sp (mut i32) (i32.const 65536))
  (data (i32.const 131072) "DATA")
  (func (export "input_ptr") (result i32) i32.const 196608)
  (func (export "input_utf8_cap") (result i32) i32.const 256)
  (func (export "output_bytes_cap") (result i32) i32.const 64)
  (func (export "uniform_set_k") (param i32) (result i32)
    i32.const 262144 local.get 0 i32.store
    local.get 0)
  (func $noop)
  (func (export "render") (param $len i32) (result i64) (local $i i32)
    global.get $sp i32.const 16 i32.sub global.set $sp
    global.get $sp i32.const 99 i32.store
    loop $l
      local.get $i local.get $i i32.store8 offset=65536
      call $noop
      local.get $i i32.const 1 i32.add local.tee $i i32.const 3 i32.lt_u br_if $l
    end
    i32.const 65539 i32.const 120 i32.const 3 memory.fill
    i32.const 65542 i32.const 131072 i32.const 2 memory.copy
    i32.const 196608 i32.load8_u drop
    i32.const 65536 i32.load8_u drop
    i32.const 65536 i32.load8_u drop
    global.get $sp i32.const 16 i32.add global.set $sp
    i64.const 0x0001000000000007))"#;

/// The hand-counted pixels of [`TARGET`] with input "abc", `normalize=0`:
/// level(v) = round(8·log2(1+v)): 11 → 29, 12 → 30, 14 → 31, 4 → 19, 1 → 8;
/// alpha 64 + round(8·log2(A)): A = 1 → 64, A = 3 → 77.
fn expected_absolute() -> BTreeMap<u64, [u8; 4]> {
    let mut m = BTreeMap::new();
    for b in 65520..65524 {
        m.insert(b, [0, 0, 0, 64]); // the stack store: alpha only
    }
    m.insert(65536, [29, 0, 0, 77]); // I = 11; stored once, loaded twice
    m.insert(65537, [30, 8, 8, 64]);
    m.insert(65538, [30, 8, 8, 64]);
    m.insert(65539, [31, 0, 8, 64]); // fill: the first byte gets the work
    m.insert(65540, [0, 0, 0, 64]);
    m.insert(65541, [0, 0, 0, 64]);
    m.insert(65542, [19, 0, 0, 64]); // copy destination
    m.insert(65543, [0, 0, 0, 64]);
    m.insert(131072, [0, 0, 0, 64]); // copy source
    m.insert(131073, [0, 0, 0, 64]);
    m.insert(131074, [0, 0, 0, 24]); // data render never touched
    m.insert(131075, [0, 0, 0, 24]);
    m.insert(196608, [0, 0, 0, 64]); // input byte 0, loaded
    m.insert(196609, [0, 0, 0, 40]); // input bytes render never touched
    m.insert(196610, [0, 0, 0, 40]);
    m
}

#[test]
fn hand_counted_pixels_absolute() {
    let module = wat::parse_str(TARGET).unwrap();
    let t = heat(&request(&module, Some(b"abc"), &[]), false, 0).unwrap();
    assert_eq!(t.pages, [0, 1, 2, 3]);
    assert_eq!((t.width, t.height), (256, 1024));
    assert_eq!(t.counters.instructions, 68);
    assert_eq!((t.counters.loop_iterations, t.counters.calls), (2, 3));
    assert_eq!(t.totals, (53, 2, 3), "work after the last non-stack write is dropped");
    assert_eq!(nonzero(&t), expected_absolute());
    // The exact tallies behind the levels, most instructions first.
    let hot: Vec<_> =
        t.hottest.iter().map(|h| (h.addr, h.instructions, h.loops, h.calls, h.accesses)).collect();
    assert_eq!(
        hot,
        [
            (65539, 14, 0, 1, 1),
            (65537, 12, 1, 1, 1),
            (65538, 12, 1, 1, 1),
            (65536, 11, 0, 0, 3),
            (65542, 4, 0, 0, 1)
        ]
    );
}

#[test]
fn hand_counted_pixels_normalized() {
    // Maxima: I 14, L 1, C 1, A 3. level(v) = round(255·log2(1+v)/log2(15)):
    // 11 → 234, 12 → 242, 14 → 255, 4 → 152; L and C: 1 → 255.
    // alpha: 64 + round(191·log2(A)/log2(3)): A = 3 → 255, A = 1 → 64.
    let module = wat::parse_str(TARGET).unwrap();
    let t = heat(&request(&module, Some(b"abc"), &[]), true, 0).unwrap();
    let mut want = expected_absolute();
    want.insert(65536, [234, 0, 0, 255]);
    want.insert(65537, [242, 255, 255, 64]);
    want.insert(65538, [242, 255, 255, 64]);
    want.insert(65539, [255, 0, 255, 64]);
    want.insert(65542, [152, 0, 0, 64]);
    assert_eq!(nonzero(&t), want);
    assert_eq!(pixel(&t, 65539)[0], 255, "the channel maximum maps to 255");
}

#[test]
fn setter_activity_is_not_recorded_but_its_page_is_a_tile() {
    let module = wat::parse_str(TARGET).unwrap();
    let t = heat(&request(&module, Some(b"abc"), &[("k", "5")]), false, 0).unwrap();
    assert_eq!(t.pages, [0, 1, 2, 3, 4]);
    assert_eq!(t.height, 5 * 256);
    // The setter's 5 instructions (const, get, store, get, end) are not render work: same
    // pixels, and page 4 is an empty tile.
    assert_eq!(t.counters.instructions, 68 + 5);
    assert_eq!(t.totals, (53, 2, 3));
    assert_eq!(nonzero(&t), expected_absolute());
    assert!(t.pixels()[4 * 4 * 65536..].iter().all(|&b| b == 0));
}

#[test]
fn first_page_selects_tiles_and_mode_8() {
    let module = wat::parse_str(TARGET).unwrap();
    let req = request(&module, Some(b"abc"), &[]);
    let t = heat(&req, false, 2).unwrap();
    assert_eq!(t.pages, [2, 3]);
    assert_eq!(pixel(&t, 131074), [0, 0, 0, 24]);
    assert_eq!(pixel(&t, 196608), [0, 0, 0, 64]);
    let r = heat(&req, false, 4).unwrap_err();
    assert_eq!((r.offset as usize, r.mode), (req.len(), 8));
    // With the setter, page 4 qualifies (a setter's page makes an empty tile).
    let req = request(&module, Some(b"abc"), &[("k", "1")]);
    assert_eq!(heat(&req, false, 4).unwrap().pages, [4]);
    assert_eq!(heat(&req, false, 5).unwrap_err().mode, 8);
}

#[test]
fn render_that_touches_nothing_is_mode_8() {
    let module = wat::parse_str(
        r#"(module (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    )
    .unwrap();
    let req = request(&module, None, &[]);
    let r = heat(&req, true, 0).unwrap_err();
    assert_eq!((r.offset as usize, r.mode), (req.len(), 8));
}

/// Writes below the lowest stack pointer seen so far are undecided until the stack grows over
/// them or the run ends. Stack top 65,536; the stack finally reaches 64,992.
///  60,000 store (3 instructions): stays below the stack → I = 3
///  65,000 store (3): the stack grows over it later → a stack write, nothing
///  70,000 store (3): above the top → I = 3 + 3 = 6 (the 65,000 write passed its work on)
///  sp -= 544 (4), then 60,001 store (3) → I = 7
///  sp += 544 (4), i64.const, `end` (2): dropped. Render total 22, image total 16.
const UNDECIDED: &str = r#"(module
  (memory (export "memory") 2 2)
  (global $sp (mut i32) (i32.const 65536))
  (func (export "output_bytes_cap") (result i32) i32.const 8)
  (func (export "render") (param i32) (result i64)
    i32.const 60000 i32.const 1 i32.store8
    i32.const 65000 i32.const 2 i32.store8
    i32.const 70000 i32.const 3 i32.store8
    global.get $sp i32.const 544 i32.sub global.set $sp
    i32.const 60001 i32.const 4 i32.store8
    global.get $sp i32.const 544 i32.add global.set $sp
    i64.const 0))"#;

#[test]
fn undecided_writes_match_the_two_run_definition() {
    let module = wat::parse_str(UNDECIDED).unwrap();
    let req = request(&module, None, &[]);
    // Levels: 3 → round(8·log2 4) = 16; 6 → round(8·log2 7) = 22.46 → 22; 7 → 24.
    let want = BTreeMap::from([
        (60000, [16, 0, 0, 64]),
        (60001, [24, 0, 0, 64]),
        (65000, [0, 0, 0, 64]),
        (70000, [22, 0, 0, 64]),
    ]);
    let options = Options { budget: 1000, normalize: false, first_page: 0 };
    let slot = DEFAULT_CONTENT_TYPE.as_bytes();
    for (stack, runs) in [
        (StackRange::default(), 1),
        (StackRange::Measure { pending_limit: 1 }, 2), // the queue overflows: second run
        (StackRange::Known(Some((64992, 65536))), 1),  // what the reference's first run finds
    ] {
        let t = thermal_with(&req, slot, options, stack).unwrap();
        assert_eq!(nonzero(&t), want, "{stack:?}");
        assert_eq!((t.totals, t.counters.instructions, t.runs), ((16, 0, 0), 22, runs), "{stack:?}");
    }
}

/// 40 pages, one byte stored at the start of each, highest page first, so that the 32-tile
/// window has to drop pages it had already taken.
#[test]
fn at_most_32_tiles_lowest_first() {
    let module = wat::parse_str(
        r#"(module (memory (export "memory") 40 40)
          (func (export "output_bytes_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64) (local $p i32)
            i32.const 40 local.set $p
            loop $l
              local.get $p i32.const 1 i32.sub local.tee $p
              i32.const 16 i32.shl local.get $p i32.store8
              local.get $p br_if $l
            end
            i64.const 0))"#,
    )
    .unwrap();
    let req = request(&module, None, &[]);
    let t = heat(&req, false, 0).unwrap();
    assert_eq!(t.pages, (0..32).collect::<Vec<_>>());
    assert_eq!((t.width, t.height), (256, 8192));
    let t = heat(&req, false, 5).unwrap();
    assert_eq!(t.pages, (5..37).collect::<Vec<_>>());
    // Each tile: its first byte was written once; nothing else is touched.
    for (tile, page) in t.pages.iter().enumerate() {
        let px = &t.pixels()[4 * tile * 65536..4 * (tile + 1) * 65536];
        assert_eq!(px[3], 64, "page {page}");
        assert!(px[4..].iter().all(|&b| b == 0), "page {page}");
    }
}

#[test]
fn ktx2_reads_back_with_the_ktx2_crate() {
    let module = wat::parse_str(TARGET).unwrap();
    let t = heat(&request(&module, Some(b"abc"), &[]), true, 0).unwrap();
    let reader = ktx2::Reader::new(&t.ktx2[..]).expect("a valid KTX2 file");
    let h = reader.header();
    assert_eq!(h.format, Some(ktx2::Format::R8G8B8A8_SRGB));
    assert_eq!((h.pixel_width, h.pixel_height, h.level_count), (256, 1024, 1));
    let levels: Vec<_> = reader.levels().collect();
    assert_eq!(levels.len(), 1);
    assert_eq!(levels[0].data, t.pixels());
    assert_eq!(t.ktx2.len(), 224 + 4 * 256 * 1024);
}

// ---------------------------------------------------------------------------------------------
// The reference's two-run definition, written independently and naively.

/// Run 1: pages touched (setters and render) and the lowest global 0.
#[derive(Default)]
struct Survey {
    pages: BTreeSet<u64>,
    lowest: Option<u32>,
}

impl Observer for Survey {
    fn load(&mut self, a: u64, n: u32, _: u64) {
        self.pages.extend(a / 65536..=(a + n as u64 - 1) / 65536);
    }
    fn store(&mut self, a: u64, n: u32, i: u64) {
        self.load(a, n, i);
    }
    fn copy(&mut self, d: u64, s: u64, n: u64, _: u64) {
        self.pages.extend(s / 65536..=(s + n - 1) / 65536);
        self.pages.extend(d / 65536..=(d + n - 1) / 65536);
    }
    fn fill(&mut self, d: u64, n: u64, _: u64) {
        self.pages.extend(d / 65536..=(d + n - 1) / 65536);
    }
    fn stack_pointer_write(&mut self, v: u32, _: u64) {
        self.lowest = Some(self.lowest.map_or(v, |l| l.min(v)));
    }
}

/// Run 2: per-byte work and accesses of render with the stack range known.
struct Record {
    stack: Option<(u64, u64)>,
    rendering: bool,
    pending: (u64, u64, u64),
    last_instructions: u64,
    work: BTreeMap<u64, (u64, u64, u64)>,
    accesses: BTreeMap<u64, u64>,
    /// Instruction count at render start and at the last write outside the stack.
    start: u64,
    last_attributed: u64,
}

impl Record {
    fn touch(&mut self, a: u64, n: u64) {
        if self.rendering {
            for b in a..a + n {
                *self.accesses.entry(b).or_default() += 1;
            }
        }
    }
    fn write(&mut self, a: u64, n: u64, i: u64) {
        self.touch(a, n);
        if !self.rendering {
            return;
        }
        self.pending.0 += i - self.last_instructions;
        self.last_instructions = i;
        if self.stack.is_some_and(|(lo, hi)| lo <= a && a < hi) {
            return;
        }
        self.last_attributed = i;
        let w = self.work.entry(a).or_default();
        w.0 += self.pending.0;
        w.1 += self.pending.1;
        w.2 += self.pending.2;
        self.pending = (0, 0, 0);
    }
}

impl Observer for Record {
    fn load(&mut self, a: u64, n: u32, _: u64) {
        self.touch(a, n as u64);
    }
    fn store(&mut self, a: u64, n: u32, i: u64) {
        self.write(a, n as u64, i);
    }
    fn copy(&mut self, d: u64, s: u64, n: u64, i: u64) {
        self.touch(s, n);
        self.write(d, n, i);
    }
    fn fill(&mut self, d: u64, n: u64, i: u64) {
        self.write(d, n, i);
    }
    fn call(&mut self, _: bool) {
        if self.rendering {
            self.pending.2 += 1;
        }
    }
    fn loop_iteration(&mut self) {
        if self.rendering {
            self.pending.1 += 1;
        }
    }
    fn begin_render(&mut self, instructions: u64, _: Option<u32>) {
        self.rendering = true;
        self.last_instructions = instructions;
        self.start = instructions;
        self.last_attributed = instructions;
    }
}

/// The image of docs/heat-map.md computed from the two runs, as `(pages, rgba)`, and the
/// render instructions up to and including the last write outside the stack.
fn reference_image(
    component: &[u8],
    input: &[u8],
    budget: u64,
    normalize: bool,
    first_page: u64,
) -> (Vec<u64>, Vec<u8>, u64) {
    let limits = target_limits();
    let mut survey = Survey::default();
    let outcome = run(component, input, &[] as &[TargetUniform<'_>], budget, &limits, &mut survey).unwrap();
    let top = outcome.contract.stack_pointer;
    let stack = match (survey.lowest, top) {
        (Some(l), Some(t)) if l < t => Some((l as u64, t as u64)),
        _ => None,
    };
    let mut rec = Record {
        stack,
        rendering: false,
        pending: (0, 0, 0),
        last_instructions: 0,
        work: BTreeMap::new(),
        accesses: BTreeMap::new(),
        start: 0,
        last_attributed: 0,
    };
    run(component, input, &[], budget, &limits, &mut rec).unwrap();
    let pages: Vec<u64> = survey.pages.iter().copied().filter(|&p| p >= first_page).take(32).collect();
    let log2 = |v: f64| v.log2();
    let round = |x: f64| x.round() as u8; // f64::round: half away from zero
    let max = |f: &dyn Fn(&(u64, u64, u64)) -> u64| rec.work.values().map(f).max().unwrap_or(0);
    let (mi, ml, mc) = (max(&|w| w.0), max(&|w| w.1), max(&|w| w.2));
    let ma = rec.accesses.values().copied().max().unwrap_or(0);
    let level = |v: u64, m: u64| match (v, normalize) {
        (0, _) => 0,
        (_, false) => round((8.0 * log2(1.0 + v as f64)).min(255.0)),
        (_, true) => round(255.0 * log2(1.0 + v as f64) / log2(1.0 + m as f64)),
    };
    let alpha = |a: u64| match normalize {
        false => 64 + round((8.0 * log2(a as f64)).min(191.0)),
        true if ma > 1 => 64 + round(191.0 * log2(a as f64) / log2(ma as f64)),
        true => 64,
    };
    let data: Vec<(u64, u64)> = outcome
        .module
        .active_data()
        .filter(|(m, at, b)| *m == 0 && at.is_some() && !b.is_empty())
        .map(|(_, at, b)| (at.unwrap() as u64, at.unwrap() as u64 + b.len() as u64))
        .collect();
    let input_range = outcome.contract.input.map(|i| (i.ptr as u64, i.ptr as u64 + input.len() as u64));
    let mut rgba = vec![0u8; pages.len() * 65536 * 4];
    for (t, page) in pages.iter().enumerate() {
        for b in 0..65536u64 {
            let addr = page * 65536 + b;
            let px = &mut rgba[4 * (t * 65536 + b as usize)..][..4];
            match rec.accesses.get(&addr) {
                Some(&a) => {
                    let w = rec.work.get(&addr).copied().unwrap_or_default();
                    px.copy_from_slice(&[level(w.0, mi), level(w.1, ml), level(w.2, mc), alpha(a)]);
                }
                None if input_range.is_some_and(|(lo, hi)| lo <= addr && addr < hi) => px[3] = 40,
                None if data.iter().any(|&(lo, hi)| lo <= addr && addr < hi) => px[3] = 24,
                None => {}
            }
        }
    }
    let total: u64 = rec.work.values().map(|w| w.0).sum();
    assert_eq!(total, rec.last_attributed - rec.start, "the reference's own bookkeeping");
    (pages, rgba, total)
}

fn target(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/targets/{name}.wasm", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `make targets` first)"))
}

#[test]
fn hand_written_targets_equal_the_reference_definition() {
    for (wat, input) in [(TARGET, &b"abc"[..]), (UNDECIDED, &b""[..])] {
        let module = wat::parse_str(wat).unwrap();
        let req = request(&module, (!input.is_empty()).then_some(input), &[]);
        for normalize in [false, true] {
            let t = heat(&req, normalize, 0).unwrap();
            let (pages, rgba, total) = reference_image(&module, input, 100_000_000, normalize, 0);
            assert_eq!(t.pages, pages);
            assert_eq!(t.totals.0, total);
            assert!(t.pixels() == rgba, "pixels differ from the reference definition");
        }
    }
}

#[test]
fn real_targets_equal_the_reference_definition() {
    let cases: [(&str, &[u8], u64); 3] = [
        ("url-to-qr-svg", b"https://example.com", 10_000_000),
        (
            "markdown-to-html",
            b"# Title\n\nSome *emphasis* and a [link](https://example.com).\n\n- a\n- b\n",
            10_000_000,
        ),
        ("url-to-qr-svg", b"https://example.com/a/longer/path?with=query", 3_000_000), // budget runs out
    ];
    for (name, input, budget) in cases {
        let module = target(name);
        let req = request(&module, Some(input), &[]);
        let options = Options { budget: budget as u32, normalize: false, first_page: 0 };
        let slot = DEFAULT_CONTENT_TYPE.as_bytes();
        let t = match thermal(&req, slot, options) {
            Ok(t) => t,
            Err(r) => {
                assert_eq!(r.mode, 5, "{name}: only the short budget may fail");
                continue;
            }
        };
        for normalize in [false, true] {
            let t = thermal(&req, slot, Options { normalize, ..options }).unwrap();
            let (pages, rgba, total) = reference_image(&module, input, budget, normalize, 0);
            assert_eq!(t.pages, pages, "{name}");
            // The image total is all render work up to the last write outside the stack.
            assert_eq!(t.totals.0, total, "{name}");
            assert!(t.pixels() == rgba, "{name}, normalize {normalize}: pixels differ");
        }
        // The forced two-run path gives the same file.
        let forced = thermal_with(&req, slot, options, StackRange::Measure { pending_limit: 0 }).unwrap();
        assert!(forced.ktx2 == t.ktx2, "{name}: forced second run differs");
    }
}

// ------------------------------------------------------------------ the picture for people

/// `thermal --view`'s picture of [`TARGET`] (input "abc"): opaque everywhere; each byte's
/// 2 × 2 cell coloured from its tallies (instructions: 65,539 has the most, 14, so the top of
/// viridis; 65,537 has 12: viridis(ln 13 / ln 15)); bytes touched without instructions grey;
/// data and input bytes never touched their tints; the rest background.
#[test]
fn view_colours_counted_by_hand() {
    use qip_memory::image::view::{self, BACKGROUND, DATA, HotByte, INPUT, Metric, TOUCHED, viridis};
    let module = wat::parse_str(TARGET).unwrap();
    let t = heat(&request(&module, Some(b"abc"), &[]), false, 0).unwrap();
    // Colours first without the rings of the hottest bytes (they are drawn over neighbours).
    let pic = view::render(&t.heat_map, &t.regions, &[], Metric::Instructions);
    // Four tiles in a grid of 3 per row: 16 + 3 · 528 wide; the 64-pixel header, then two
    // rows of 24 + 512 + 16.
    assert_eq!((pic.width, pic.height), (1600, 64 + 2 * 552));
    assert!(pic.rgba.chunks_exact(4).all(|p| p[3] == 255), "opaque");
    let at = |addr: u64| {
        let tile = t.pages.iter().position(|&p| p == addr / 65536).unwrap();
        let (x, y) = pic.layout.cell_origin(tile, addr);
        let c = pic.get(x, y);
        // The whole 2 × 2 cell has one colour (rings are drawn outside the cell).
        assert_eq!([pic.get(x + 1, y), pic.get(x, y + 1), pic.get(x + 1, y + 1)], [c; 3], "{addr}");
        c
    };
    assert_eq!(at(65539), [0xfd, 0xe7, 0x25]);
    let ln = |v: f64| (1.0 + v).ln();
    assert_eq!(at(65537), viridis(ln(12.0) / ln(14.0)));
    assert_eq!(at(65542), viridis(ln(4.0) / ln(14.0)));
    assert_eq!(at(65540), TOUCHED); // filled, no work
    assert_eq!(at(65520), TOUCHED); // the stack store
    assert_eq!(at(131074), DATA);
    assert_eq!(at(196609), INPUT);
    assert_eq!(at(65600), BACKGROUND);
    for c in [at(65539), at(65537), at(65542)] {
        assert!(c != BACKGROUND && c != TOUCHED);
    }
    // The captions are drawn: text-coloured pixels in the rows above each tile (tiles 0, 1
    // and 2 side by side at x = 16, 544, 1,072; tile 3 below tile 0).
    for tile in 0..4 {
        let (x, y) = pic.layout.cell_origin(tile, t.pages[tile] * 65536);
        assert_eq!((x, y), [(16, 88), (544, 88), (1072, 88), (16, 640)][tile]);
        let row = (y - 18..y - 4).flat_map(|yy| (x..x + 284).map(move |xx| (xx, yy)));
        assert!(row.filter(|&(x, yy)| pic.get(x, yy) == [200, 206, 216]).count() > 50, "tile {tile}");
    }
    // With the hottest bytes: a ring of radius 6 around each cell's centre, and a number.
    let hottest: Vec<HotByte> =
        t.heat_map.hottest(16).into_iter().map(|hot| HotByte { hot, writer: None }).collect();
    let ringed = view::render(&t.heat_map, &t.regions, &hottest, Metric::Instructions);
    let (x, y) = ringed.layout.cell_origin(1, 65536);
    assert_eq!(ringed.get(x + 1 - 6, y + 1), [255, 90, 54]);
    assert_eq!(ringed.get(x + 1, y + 1 - 6), [255, 90, 54]);
    // Every hot byte's cell stays visible, even where a neighbour's ring passes.
    for h in t.heat_map.hottest(16) {
        let (x, y) = ringed.layout.cell_origin(1, h.addr);
        let (px, py) = pic.layout.cell_origin(1, h.addr);
        assert_eq!(ringed.get(x, y), pic.get(px, py), "{}", h.addr);
    }
    // Loops: only 65,537 and 65,538 got one each, so they are the top colour.
    let loops = view::render(&t.heat_map, &t.regions, &[], Metric::Loops);
    let (x, y) = loops.layout.cell_origin(1, 65537);
    assert_eq!(loops.get(x, y), [0xfd, 0xe7, 0x25]);
    let (x, y) = loops.layout.cell_origin(1, 65539);
    assert_eq!(loops.get(x, y), TOUCHED);
}

/// The heat map of [`ATOMICS_TARGET`] (input "ab"), by hand. Render's instructions: the store
/// 1–3, the add 4–7 (op at 6), the compare-exchanges 8–12 (op 11) and 13–17 (op 16, its
/// compare fails but it writes), the load 18–20, the wait 21–25, the notify 26–29, the fence
/// 30, `i64.const` and `end` 31–32. The four writes give byte 65,600 the tallies up to each: I =
/// 3 + 3 + 5 + 5 = 16; the 15 instructions after the last write are dropped. Each of the 4
/// bytes is accessed by the store, twice by each read-modify-write (a read and a write), by
/// the load and the wait: A = 1 + 2 + 2 + 2 + 1 + 1 = 9. Levels: red round(8·log2(17)) = 33,
/// alpha 64 + round(8·log2(9)) = 89; the untouched input bytes have alpha 40.
#[test]
fn atomics_are_accesses_of_their_width() {
    let module = wat::parse_str(ATOMICS_TARGET).unwrap();
    let t = heat(&request(&module, Some(b"ab"), &[]), false, 0).unwrap();
    assert_eq!(t.pages, [1]);
    assert_eq!(t.counters.instructions, 32);
    assert_eq!((t.counters.memory_reads, t.counters.memory_writes), (5, 4));
    assert_eq!(t.totals, (16, 0, 0));
    let hot: Vec<_> =
        t.hottest.iter().map(|h| (h.addr, h.instructions, h.loops, h.calls, h.accesses)).collect();
    assert_eq!(hot, [(65600, 16, 0, 0, 9)]);
    let want = BTreeMap::from([
        (65536, [0, 0, 0, 40]),
        (65537, [0, 0, 0, 40]),
        (65600, [33, 0, 0, 89]),
        (65601, [0, 0, 0, 89]),
        (65602, [0, 0, 0, 89]),
        (65603, [0, 0, 0, 89]),
    ]);
    assert_eq!(nonzero(&t), want);
}
