//! The heat map drawn for people (`qip_memory::image::view`, `qip-memory thermal --view`,
//! docs/report.md "The heat map as a picture"): the grid's geometry, the thousands separators,
//! the legend's rows, markers whose numbers never overlap, and the QR demo's picture end to
//! end. Every expected number is derived by hand in the comments; the checks of overlap are
//! written here, not taken from the renderer.

mod common;

use std::process::Command;

use common::report::decode_png;
use common::request;
use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::image::view::{self, HotByte, Layout, Marker, Metric, Picture, Rect, elide, thousands};
use qip_memory::profile::pages::Regions;
use qip_memory::profile::thermal::{HeatMap, Hot, NO_STACK, Tile};
use qip_memory::tools::Request;
use qip_memory::tools::thermal::{Options, Thermal, heat_map, heat_map_with_writers};

/// The ring's colour and the colour of a marker's number.
const RING: [u8; 3] = [255, 90, 54];
const WHITE: [u8; 3] = [255, 255, 255];

/// A tile whose byte `b` has `instructions[b]` (and one access) for each `(b, v)` of `hot`.
fn tile(hot: &[(usize, u64)]) -> Option<Box<Tile>> {
    let mut t = Tile {
        instructions: vec![0; 65536].into_boxed_slice(),
        loops: vec![0; 65536].into_boxed_slice(),
        calls: vec![0; 65536].into_boxed_slice(),
        accesses: vec![0; 65536].into_boxed_slice(),
    };
    for &(b, v) in hot {
        t.instructions[b] = v;
        t.accesses[b] = 1;
    }
    Some(Box::new(t))
}

/// A heat map of the given pages, without writers.
fn heat(tiles: Vec<(u64, Option<Box<Tile>>)>) -> HeatMap {
    HeatMap { tiles, writers: None }
}

fn hot(addr: u64, instructions: u64) -> Hot {
    Hot { addr, instructions, loops: 0, calls: 0, accesses: 1, writer: NO_STACK }
}

/// The hot bytes of `heat` (at most `n`), without writer names.
fn unnamed(heat: &HeatMap, n: usize) -> Vec<HotByte> {
    heat.hottest(n).into_iter().map(|hot| HotByte { hot, writer: None }).collect()
}

// ------------------------------------------------------------------------------- geometry

#[test]
fn grid_geometry_by_hand() {
    // Width: a 16-pixel margin, then 528 per column (a 512-pixel tile and the 16 after it),
    // at most 3 columns: 1 tile → 16 + 528 = 544; 3 or more → 16 + 3 · 528 = 1,600.
    // Height: the 64-pixel header, the legend, then 552 per grid row (24 of caption, 512, 16):
    // ⌈1/1⌉ = 1 row, ⌈3/3⌉ = 1, ⌈4/3⌉ = 2, ⌈7/3⌉ = 3.
    // The legend of 16 bytes: 1,600 − 32 = 1,568 pixels hold 2 columns of at least 760, so
    // ⌈16/2⌉ = 8 rows: 14 + 8 · 20 + 8 = 182; 544 − 32 = 512 hold one, 16 rows: 14 + 320 + 8 = 342.
    let cases = [
        // tiles, marked, width, height
        (1, 0, 544, 64 + 552),
        (3, 0, 1600, 64 + 552),
        (4, 0, 1600, 64 + 2 * 552),
        (7, 0, 1600, 64 + 3 * 552),
        (1, 16, 544, 64 + 342 + 552),
        (3, 16, 1600, 64 + 182 + 552),
        (4, 16, 1600, 64 + 182 + 2 * 552),
        (7, 16, 1600, 64 + 182 + 3 * 552),
    ];
    for (tiles, marked, width, height) in cases {
        let l = Layout::new(tiles, marked);
        assert_eq!((l.width, l.height), (width, height), "{tiles} tiles, {marked} marked");
    }
    // Tile 4 of 7 is the second of the second row: x = 16 + 528 = 544, its bytes start
    // 64 + 552 + 24 = 640 down. Byte 0x1234 = 4,660 of its page is row 18, column 52 (4,660 =
    // 18 · 256 + 52): two pixels each, (544 + 104, 640 + 36).
    let l = Layout::new(7, 0);
    assert_eq!(l.tile(4), Rect { x: 544, y: 640, w: 512, h: 512 });
    assert_eq!(l.cell_origin(4, 5 * 65536 + 0x1234), (648, 676));
    // Tile 6 starts the third row: (16, 64 + 2 · 552 + 24 = 1,192); its last byte's cell is
    // (16 + 510, 1,192 + 510), 16 rows above the bottom: 1,702 + 2 + 16 = 1,720.
    assert_eq!(l.cell_origin(6, 65535), (526, 1702));
    // With 16 marked bytes everything below the header moves down by the legend's 182.
    assert_eq!(Layout::new(7, 16).cell_origin(4, 0x1234), (648, 676 + 182));
    // The second legend column begins 16 + 776 + 16 = 808 in (776 = (1,568 − 16) / 2), and
    // its first row (the 9th byte) below the header and the 14-pixel title.
    let l = Layout::new(4, 16);
    assert_eq!((l.legend_columns, l.legend_rows, l.legend_column_width()), (2, 8, 776));
    assert_eq!(
        (l.legend_origin(0), l.legend_origin(8), l.legend_origin(15)),
        ((16, 78), (808, 78), (808, 218))
    );
    // A legend row holds ⌊(776 + 2) / 12⌋ = 64 glyphs, 12 pixels apart and 10 wide.
    assert_eq!(l.legend_chars(), 64);
    assert_eq!(Layout::new(1, 16).legend_chars(), 42);
}

/// The picture has the layout's size and draws each byte where `cell_origin` says.
#[test]
fn render_draws_the_grid() {
    // Four tiles, pages 1, 2, 3 and 9; one byte of work in each: the top colour of viridis.
    let h = heat(vec![
        (1, tile(&[(0, 5)])),
        (2, tile(&[(257, 5)])),
        (3, tile(&[(65535, 5)])),
        (9, tile(&[(256 * 100 + 7, 5)])),
    ]);
    let pic = view::render(&h, &Regions::default(), &[], Metric::Instructions);
    assert_eq!((pic.width, pic.height, pic.rgba.len()), (1600, 1168, 4 * 1600 * 1168));
    let top = [0xfd, 0xe7, 0x25];
    // Page 1 byte 0: tile 0's first cell, (16, 64 + 24).
    // Page 2 byte 257 (row 1, column 1): tile 1 at x 544, cell (546, 90).
    // Page 3 byte 65,535: tile 2 at x 1,072, cell (1,072 + 510, 88 + 510).
    // Page 9 byte 25,607 (row 100, column 7): tile 3, the second row: (16 + 14, 640 + 200).
    for (x, y) in [(16, 88), (546, 90), (1582, 598), (30, 840)] {
        assert_eq!([pic.get(x, y), pic.get(x + 1, y + 1)], [top; 2], "({x}, {y})");
        assert_eq!(pic.get(x + 2, y), view::BACKGROUND, "({x}, {y}) is one cell");
    }
    // The gap between the tiles stays background.
    assert!((88..600).all(|y| (528..544).all(|x| pic.get(x, y) == view::BACKGROUND)));
}

// ----------------------------------------------------------------------------- numbers

/// Thousands separators, written differently from the library: groups of three taken from
/// the right with integer arithmetic.
fn with_commas(mut v: u64) -> String {
    let mut groups = Vec::new();
    while v >= 1000 {
        groups.push(format!("{:03}", v % 1000));
        v /= 1000;
    }
    groups.push(v.to_string());
    groups.reverse();
    groups.join(",")
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000), "1,000");
    assert_eq!(thousands(12_345), "12,345");
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    // The test's own formatting agrees on these.
    for v in [0, 999, 1_000, 1_234_567, u64::MAX] {
        assert_eq!(with_commas(v), thousands(v));
    }
}

#[test]
fn long_names_are_elided_in_the_middle() {
    assert_eq!(elide("abcdefghij", 10), "abcdefghij");
    // 7 characters: ⌊6 / 3⌋ = 2 from the front, `…`, the last 4.
    assert_eq!(elide("abcdefghij", 7), "ab…ghij");
    assert_eq!(elide("abcdefghij", 1), "…");
    assert_eq!(elide("abcdefghij", 0), "");
}

// ------------------------------------------------------------------------------ legend

#[test]
fn legend_rows_of_a_synthetic_heat_map() {
    // One tile, page 1 (0x10000–0x1ffff), three bytes whose values the test sets.
    let h = heat(vec![(1, tile(&[(0, 1_234_567), (4, 999), (0xfff0, 1_000)]))]);
    let long = "<qrcode::bits::Bits as core::fmt::Debug>::fmt"; // 45 characters
    let marked = vec![
        HotByte { hot: hot(0x10000, 1_234_567), writer: Some("render".into()) },
        HotByte { hot: hot(0x10004, 999), writer: Some(long.into()) },
        HotByte { hot: hot(0x1fff0, 1_000), writer: None },
    ];
    let pic = view::render(&h, &Regions::default(), &marked, Metric::Instructions);
    // Columns: the number (1 wide), the address (7: "0x10000"), the value (9: "1,234,567"),
    // two spaces apart: 1 + 2 + 7 + 2 + 9 = 21 characters; one 544-pixel-wide column holds 42,
    // so a name gets 42 − 21 − 2 = 19: the long one keeps ⌊18 / 3⌋ = 6 characters in front
    // and the last 12 (":Debug>::fmt") behind `…`.
    assert_eq!(
        pic.legend,
        [
            "1  0x10000  1,234,567  render",
            "2  0x10004        999  <qrcod…:Debug>::fmt",
            "3  0x1fff0      1,000"
        ]
    );
    // The same bytes by loops: every value 0, one character wide, so 1 + 2 + 7 + 2 + 1 = 13
    // characters before the name, which gets 42 − 13 − 2 = 27: ⌊26 / 3⌋ = 8 in front, 18 behind.
    let loops = view::render(&h, &Regions::default(), &marked, Metric::Loops);
    assert_eq!(
        loops.legend,
        ["1  0x10000  0  render", "2  0x10004  0  <qrcode:…::fmt::Debug>::fmt", "3  0x1fff0  0"]
    );
    // The rows are drawn below the header: legend row 0 at (16, 64 + 14), its text 3 lower.
    // The number "1" is in the ring's colour: its glyph's top pixel is font column 2, so
    // (16 + 4, 81) at scale 2; the address follows in the text colour, its "0" starting
    // 3 glyphs (36 pixels) later with its top row's pixels at font columns 1–3.
    assert_eq!(pic.get(20, 81), RING);
    assert_eq!(pic.get(16 + 36 + 2, 81), [200, 206, 216]);
}

#[test]
fn legend_columns_fill_one_after_the_other() {
    // Three tiles and 16 marked bytes: two legend columns of 8 rows. Bytes of page 0 at
    // offsets 0, 16, …, 240 with 200, 199, …, 185 instructions.
    let hot_bytes: Vec<(usize, u64)> = (0..16).map(|k| (16 * k, 200 - k as u64)).collect();
    let h = heat(vec![(0, tile(&hot_bytes)), (1, tile(&[])), (2, tile(&[]))]);
    let pic = view::render(&h, &Regions::default(), &unnamed(&h, 16), Metric::Instructions);
    assert_eq!(pic.legend.len(), 16);
    // Numbers right-aligned to 2 characters, addresses to 4 ("0xf0"), values 3 wide.
    assert_eq!(pic.legend[0], " 1  0x0   200");
    assert_eq!(pic.legend[8], " 9  0x80  192");
    assert_eq!(pic.legend[15], "16  0xf0  185");
    // Row 9 is the first of the second column, at (808, 78): its "9" is the second glyph,
    // in the ring's colour, top row pixels at font columns 1–3: x = 808 + 12 + 2.
    assert_eq!(pic.get(808 + 14, 81), RING);
    // Nothing is drawn where a third column would be.
    assert!((78..238).all(|y| (1300..1584).all(|x| pic.get(x, y) == view::BACKGROUND)));
}

// ----------------------------------------------------------------------------- markers

/// Checks, with this file's own arithmetic, that no two numbers' boxes share a pixel, that
/// no box comes within `radius + 2` of a ring's centre (a ring's pixels lie within it), that
/// each box lies inside its tile, and that each box shows its number.
fn assert_markers_apart(pic: &Picture, tiles: &[Rect]) {
    let m: &[Marker] = &pic.markers;
    for (i, a) in m.iter().enumerate() {
        let (r, s) = (a.label.x..a.label.x + a.label.w, a.label.y..a.label.y + a.label.h);
        for b in &m[i + 1..] {
            let apart = a.label.x + a.label.w <= b.label.x
                || b.label.x + b.label.w <= a.label.x
                || a.label.y + a.label.h <= b.label.y
                || b.label.y + b.label.h <= a.label.y;
            assert!(apart, "boxes of {} and {} overlap: {:?} {:?}", a.number, b.number, a.label, b.label);
        }
        for b in m {
            let (cx, cy, radius) = (b.ring.0 as f64, b.ring.1 as f64, b.ring.2 as f64);
            let nx = cx.clamp(r.start as f64, r.end as f64);
            let ny = cy.clamp(s.start as f64, s.end as f64);
            let d = ((nx - cx).powi(2) + (ny - cy).powi(2)).sqrt();
            assert!(d >= radius + 2.0, "the box of {} covers the ring of {} ({d})", a.number, b.number);
        }
        assert!(
            tiles
                .iter()
                .any(|t| t.x <= r.start && r.end <= t.x + t.w && t.y <= s.start && s.end <= t.y + t.h)
        );
        // The box: a border in the ring's colour, white digits inside.
        assert_eq!(pic.get(r.start, s.start), RING);
        assert_eq!(pic.get(r.end - 1, s.end - 1), RING);
        let white =
            s.clone().flat_map(|y| r.clone().map(move |x| (x, y))).filter(|&(x, y)| pic.get(x, y) == WHITE);
        assert!(white.count() >= 4 * 10, "number {} is drawn", a.number);
    }
}

/// The case that overlapped: the 16 hottest bytes in one 4 × 4 block, in the middle of a tile
/// and in its top-left corner (where only a quarter of the space around is the tile's).
#[test]
fn markers_of_a_4_by_4_block_never_overlap() {
    for origin in [256 * 100 + 100, 0] {
        // Bytes origin + 256·y + x for x, y in 0..4, 1,000 down to 985 instructions.
        let block: Vec<(usize, u64)> =
            (0..16).map(|k| (origin + 256 * (k / 4) + k % 4, 1_000 - k as u64)).collect();
        let h = heat(vec![(3, tile(&block))]);
        let pic = view::render(&h, &Regions::default(), &unnamed(&h, 16), Metric::Instructions);
        assert_eq!(pic.markers.len(), 16);
        // One tile: legend of 16 rows (342), so the tile's bytes start at (16, 64 + 342 + 24).
        let (x0, y0) = (16, 430);
        for (k, m) in pic.markers.iter().enumerate() {
            let b = origin + 256 * (k / 4) + k % 4;
            assert_eq!((m.number, m.addr), (k + 1, 3 * 65536 + b as u64));
            // The ring's centre is the corner the cell's four pixels share.
            let centre = (x0 + 2 * (b % 256) + 1, y0 + 2 * (b / 256) + 1);
            assert_eq!(m.ring, (centre.0, centre.1, 6));
            // The marked cell is still its colour (1,000 − k of 1,000, viridis on a log scale).
            let t = ((1_001 - k) as f64).ln() / 1_001f64.ln();
            assert_eq!(pic.get(centre.0 - 1, centre.1 - 1), view::viridis(t), "byte {k}");
        }
        assert_markers_apart(&pic, &[Rect { x: x0, y: y0, w: 512, h: 512 }]);
    }
}

// ------------------------------------------------------------------- writers, by hand

/// Render calls `$quick`, which stores byte 0x10001, then `$slow`, which loops and stores
/// byte 0x10000. Instructions of render, counted from its start (docs/counting.md):
///  1     call $quick
///  2–4   i32.const, i32.const, i32.store8 → byte 0x10001: I = 4, 1 call
///  5     $quick's end
///  6     call $slow
///  7     loop
///  8–77  10 times: local.get, i32.const 1, i32.add, local.tee, i32.const 10, i32.lt_u,
///        br_if (taken 9 times: 9 loop iterations)
///  78    the loop's end
///  79–81 i32.const, i32.const, i32.store8 → byte 0x10000: I = 81 − 4 = 77, 9 loops, 1 call
const WRITERS: &str = r#"(module
  (memory (export "memory") 2 2)
  (func (export "input_ptr") (result i32) i32.const 0)
  (func (export "input_utf8_cap") (result i32) i32.const 16)
  (func (export "output_bytes_cap") (result i32) i32.const 16)
  (func $quick
    i32.const 65537 i32.const 2 i32.store8)
  (func $slow (local $i i32)
    loop $l
      local.get $i i32.const 1 i32.add local.tee $i i32.const 10 i32.lt_u br_if $l
    end
    i32.const 65536 i32.const 1 i32.store8)
  (func (export "render") (param i32) (result i64)
    call $quick
    call $slow
    i64.const 0x0001000000000002))"#;

/// Runs the Content request `req` as `qip-memory thermal` does, with or without writers.
fn run_thermal(req: &[u8], budget: u32, writers: bool) -> Thermal {
    let parsed = Request::parse(req, DEFAULT_CONTENT_TYPE.as_bytes()).unwrap();
    let mut run = parsed.content_run(budget);
    let options = Options { budget, normalize: true, first_page: 0 };
    let record = if writers { heat_map_with_writers } else { heat_map };
    record(&mut run, options).unwrap()
}

#[test]
fn legend_names_the_innermost_writer() {
    let module = wat::parse_str(WRITERS).unwrap();
    let req = request(&module, None, &[]);
    let t = run_thermal(&req, 1_000_000, true);
    let pic = t.view(16, Metric::Instructions);
    // The names come from the `name` section wat writes for `$slow` and `$quick`.
    assert_eq!(pic.legend, ["1  0x10000  77  slow", "2  0x10001   4  quick"]);
    let loops = t.view(16, Metric::Loops);
    assert_eq!(loops.legend, ["1  0x10000  9  slow", "2  0x10001  0  quick"]);
    // Without writers: the same bytes and values, no names.
    let plain = run_thermal(&req, 1_000_000, false);
    assert!(plain.writers.is_none());
    assert_eq!(plain.view(16, Metric::Instructions).legend, ["1  0x10000  77", "2  0x10001   4"]);
    assert!(plain.ktx2 == t.ktx2, "attribution changes the KTX2");
}

// ---------------------------------------------------------------------- the QR demo

fn target(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/targets/{name}.wasm", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `make targets` first)"))
}

/// The README's demo, `qip-memory thermal tests/targets/url-to-qr-svg.wasm --input
/// https://example.com --instruction-budget 10000000 --view qr-view.png --stats`, against the
/// library: the PNG is the library's picture; the legend lists the bytes `--stats` prints, in
/// its order, with their values; each writer is the function the report names for the byte;
/// no two numbers overlap; the KTX2 is the same with and without writers.
#[test]
fn qr_demo_end_to_end() {
    let module = target("url-to-qr-svg");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("view");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("qr-view.png");
    let wasm = format!("{}/tests/targets/url-to-qr-svg.wasm", env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(["thermal", &wasm, "--input", "https://example.com", "--instruction-budget", "10000000"])
        .args(["--view", out.to_str().unwrap(), "--stats"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "{stderr}");
    // `hot_byte ADDR page P instructions I loop_iterations L calls C accesses A`
    let stats: Vec<(u64, u64)> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("hot_byte "))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!((f[1], f[3]), ("page", "instructions"), "{l}");
            (f[0].parse().unwrap(), f[4].parse().unwrap())
        })
        .collect();
    assert_eq!(stats.len(), 8, "{stderr}");
    let tiles = stderr.lines().find_map(|l| l.strip_prefix("tiles ")).unwrap();
    assert!(tiles.starts_with("5 "), "{tiles}");

    // The library's picture of the same request.
    let req = request(&module, Some(b"https://example.com"), &[]);
    let t = run_thermal(&req, 10_000_000, true);
    let pic = t.view(16, Metric::Instructions);
    // 5 tiles: 3 columns, 2 rows, 1,600 wide; 16 bytes in 2 legend columns of 8 rows (182):
    // 64 + 182 + 2 · 552 = 1,350 high. (Before the grid: one column, 544 × 2,824.)
    assert_eq!((pic.width, pic.height), (1600, 1350));
    let (w, h, rgba) = decode_png(&std::fs::read(&out).unwrap());
    assert_eq!((w, h), (1600, 1350));
    assert!(rgba == pic.rgba, "the CLI's PNG is not the library's picture");

    // The legend: 16 rows; the first 8 are the `--stats` bytes, in order, with their
    // instructions; all 16 are the heat map's hottest.
    assert_eq!(pic.legend.len(), 16);
    let hottest = t.heat_map.hottest(16);
    assert_eq!(hottest[..8].iter().map(|h| (h.addr, h.instructions)).collect::<Vec<_>>(), stats);
    // The report's call tree and names, from a run of its own, name each byte's writer.
    let mut run = Request::parse(&req, DEFAULT_CONTENT_TYPE.as_bytes()).unwrap().content_run(10_000_000);
    let report = qip_memory::tools::report::report_of(
        &mut run,
        qip_memory::tools::report::Options { budget: 10_000_000, first_page: 0 },
    )
    .unwrap();
    let by_report = report.hottest();
    for (i, row) in pic.legend.iter().enumerate() {
        let f: Vec<&str> = row.split_whitespace().collect();
        let (addr, value) = (hottest[i].addr, hottest[i].instructions);
        assert_eq!(&f[..3], [format!("{}", i + 1), format!("0x{addr:x}"), with_commas(value)], "row {row}");
        assert_eq!((by_report[i].addr, by_report[i].instructions), (addr, value));
        let stack = report.stack(by_report[i].writer);
        let name = report.names.get(*stack.last().expect("a hot byte has a writer"));
        // The name as drawn: whole, or its two ends around `…`.
        let shown = f[3..].join(" ");
        match shown.split_once('…') {
            None => assert_eq!(shown, name, "row {row}"),
            Some((head, tail)) => assert!(name.starts_with(head) && name.ends_with(tail), "{row}: {name}"),
        }
    }
    // No two numbers overlap, none covers a ring.
    assert_eq!(pic.markers.len(), 16);
    let tile_rects: Vec<Rect> = (0..5).map(|k| pic.layout.tile(k)).collect();
    assert_markers_apart(&pic, &tile_rects);

    // The writers change no tally: the KTX2 is the same without them.
    let plain = run_thermal(&req, 10_000_000, false);
    assert!(plain.ktx2 == t.ktx2, "attribution changes the KTX2");
    assert_eq!(plain.totals, t.totals);
    let strip = |v: &[Hot]| v.iter().map(|h| Hot { writer: NO_STACK, ..*h }).collect::<Vec<_>>();
    assert_eq!(strip(&plain.heat_map.hottest(16)), strip(&hottest));
}
