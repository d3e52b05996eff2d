//! The heat map drawn for people (docs/report.md, "The heat map as a picture"): the picture of
//! `qip-memory thermal --view` and the colours of the report's page.
//!
//! Unlike the measurement KTX2 (whose channel values are tallies), every pixel here is opaque
//! and its colour is one metric on the viridis colour map, log scale: `t = ln(1 + v) /
//! ln(1 + max)`. Bytes accessed without receiving the metric are grey; initialized bytes never
//! touched (data segments, input) a dim tint; the rest the dark background. Every number the
//! picture prints is written with thousands separators ([`thousands`]).
//!
//! # Layout
//!
//! In pixels, top to bottom; [`Layout`] computes every position from the tile count and the
//! number of marked bytes alone, and [`Layout::cell_origin`] is the one place that says where a
//! byte is drawn (the renderer and the markers use it, and so can tests).
//!
//! * A margin of 16 around everything; 16 between tiles, and between legend columns.
//! * The header, 64 high: the metric and its largest value, a 400-wide colour bar, and ticks at
//!   the powers of ten up to the largest value (a tick whose label would touch the previous
//!   label, or leave the picture, keeps its mark without the label).
//! * The legend, only when bytes are marked: a 14-high title line, one 20-high row per marked
//!   byte, and 8 below. Rows fill the legend's columns one after the other; there are as many
//!   columns as fit the width between the margins at 760 each (at least one). A row is the
//!   byte's number, its address in hex, its value of the metric and its writer (the innermost
//!   function of the write that gave it the most instructions, elided in the middle with `…`
//!   to fit the column) in aligned columns: [`legend_rows`].
//! * The tiles in a grid, page order left to right then top to bottom, at most
//!   [`GRID_COLUMNS`] per row: each a 24-high caption (page, region as in the page table, hex
//!   address range) over the page at two pixels per byte (512 × 512, rows of 256 bytes), then
//!   16.
//!
//! So with `c = min(tiles, 3)` columns the picture is `16 + 528·c` wide (544, 1,072, 1,600)
//! and `64 + legend + 552·⌈tiles / c⌉` high, where the legend is 0 without marked bytes and
//! `14 + 20·⌈marked / legend columns⌉ + 8` with.
//!
//! # Markers
//!
//! Each marked byte gets a ring of radius 6 around its cell and its number in a box (white on
//! the background, a border in the ring's colour), joined to the ring by a leader line. The
//! box is placed by searching outward from the ring, in circles 2 pixels apart starting to the
//! upper right and alternating either way around, for the first position where it lies inside
//! its tile, keeps 2 pixels from every box placed before, meets no ring's square (so no number
//! covers a marked byte or its ring), and neither its leader nor it crosses an earlier box or
//! leader. Should no such position exist, the leader condition is dropped; then the whole
//! tile grid is searched; a box that still finds no place (not possible with a few dozen
//! markers on a 512 × 512 tile) goes to the ring's right. The marked cells are drawn again
//! last, so no leader or ring hides one. [`Picture::markers`] lists the rings and boxes drawn.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::f64::consts::{FRAC_PI_4, PI};

use super::font;
use crate::profile::pages::{PAGE_SIZE, Regions};
use crate::profile::thermal::{HeatMap, Hot, Tile};

/// Viridis at nine evenly spaced stops (the published colour map's values), interpolated
/// linearly in between. The report's page script uses this same table.
pub const VIRIDIS: [[u8; 3]; 9] = [
    [0x44, 0x01, 0x54],
    [0x47, 0x2d, 0x7b],
    [0x3b, 0x52, 0x8b],
    [0x2c, 0x72, 0x8e],
    [0x21, 0x91, 0x8c],
    [0x28, 0xae, 0x80],
    [0x5e, 0xc9, 0x62],
    [0xad, 0xdc, 0x30],
    [0xfd, 0xe7, 0x25],
];
/// The background of the picture and of untouched, uninitialized bytes.
pub const BACKGROUND: [u8; 3] = [11, 12, 15];
/// A byte that was accessed but received none of the metric.
pub const TOUCHED: [u8; 3] = [58, 62, 70];
/// A data-segment byte never touched.
pub const DATA: [u8; 3] = [30, 33, 40];
/// An input byte never touched.
pub const INPUT: [u8; 3] = [40, 36, 28];
const TEXT: [u8; 3] = [200, 206, 216];
const RING: [u8; 3] = [255, 90, 54];
const NUMBER: [u8; 3] = [255, 255, 255];

/// Which tally the colours show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Instructions attributed to the byte.
    Instructions,
    /// Loop iterations attributed to the byte.
    Loops,
    /// Calls attributed to the byte.
    Calls,
    /// Render accesses that touched the byte.
    Accesses,
}

impl Metric {
    /// The metric's name in the picture and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Instructions => "instructions",
            Metric::Loops => "loops",
            Metric::Calls => "calls",
            Metric::Accesses => "accesses",
        }
    }

    fn value(self, tile: &Tile, b: usize) -> u64 {
        match self {
            Metric::Instructions => tile.instructions[b],
            Metric::Loops => tile.loops[b] as u64,
            Metric::Calls => tile.calls[b] as u64,
            Metric::Accesses => tile.accesses[b] as u64,
        }
    }

    /// The metric's value of one hot byte.
    pub fn of(self, hot: &Hot) -> u64 {
        match self {
            Metric::Instructions => hot.instructions,
            Metric::Loops => hot.loops as u64,
            Metric::Calls => hot.calls as u64,
            Metric::Accesses => hot.accesses as u64,
        }
    }
}

/// The colour of `t` in `[0, 1]` on [`VIRIDIS`].
pub fn viridis(t: f64) -> [u8; 3] {
    let x = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (libm::floor(x) as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    core::array::from_fn(|k| libm::round(a[k] as f64 + (b[k] as f64 - a[k] as f64) * f) as u8)
}

/// `v` in decimal with a comma between groups of three digits: `1,234,567`. Every number the
/// picture prints goes through here.
pub fn thousands(v: u64) -> String {
    let digits = format!("{v}");
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` when it has at most `max` characters; else its first `⌊(max − 1) / 3⌋` characters, `…`
/// and its last ones, `max` characters in all (the end of a function name, the function
/// itself, is usually what tells it apart). Empty for `max` 0.
pub fn elide(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.into();
    }
    if max == 0 {
        return String::new();
    }
    let head = (max - 1) / 3;
    let tail = max - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// A rectangle of pixels: columns `x..x + w`, rows `y..y + h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Leftmost column.
    pub x: usize,
    /// Top row.
    pub y: usize,
    /// Width in pixels.
    pub w: usize,
    /// Height in pixels.
    pub h: usize,
}

impl Rect {
    /// Whether the two share a pixel.
    pub fn intersects(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }

    /// Whether every pixel of `self` is one of `outer`'s.
    pub fn is_within(&self, outer: &Rect) -> bool {
        outer.x <= self.x
            && outer.y <= self.y
            && self.x + self.w <= outer.x + outer.w
            && self.y + self.h <= outer.y + outer.h
    }

    /// `self` grown by `d` pixels on every side (not past column or row 0).
    fn grown(&self, d: usize) -> Rect {
        let (x, y) = (self.x.saturating_sub(d), self.y.saturating_sub(d));
        Rect { x, y, w: self.x + self.w + d - x, h: self.y + self.h + d - y }
    }

    /// Whether the point `(x, y)` (continuous coordinates: pixel `(i, j)` is the square
    /// `[i, i + 1) × [j, j + 1)`) lies inside.
    fn contains(&self, (x, y): (f64, f64)) -> bool {
        self.x as f64 <= x
            && x < (self.x + self.w) as f64
            && self.y as f64 <= y
            && y < (self.y + self.h) as f64
    }

    fn centre(&self) -> (f64, f64) {
        (self.x as f64 + self.w as f64 / 2.0, self.y as f64 + self.h as f64 / 2.0)
    }
}

/// Outer margin; also the gap between tiles and between legend columns.
const MARGIN: usize = 16;
/// Pixels per byte side.
const CELL: usize = 2;
/// Side of a tile's bytes.
const TILE_PX: usize = 256 * CELL;
/// Most tiles per row of the grid: three 512-pixel tiles make a picture 1,600 pixels wide.
pub const GRID_COLUMNS: usize = 3;
const HEADER: usize = 64;
/// The caption above each tile.
const CAPTION: usize = 24;
const BAR_W: usize = 400;
const LEGEND_TITLE: usize = 14;
const LEGEND_ROW: usize = 20;
const LEGEND_BELOW: usize = 8;
/// The narrowest legend column: at 12 pixels per character, 63 characters.
const LEGEND_COLUMN_MIN: usize = 760;
const LEGEND_SCALE: usize = 2;
/// The radius of a marker's ring, around the centre of the byte's cell.
const RING_RADIUS: usize = 6;
const LABEL_SCALE: usize = 2;
/// Between a marker's number and its box's edge (the border is the outermost pixel).
const LABEL_PAD: usize = 2;
/// Least distance between two markers' boxes.
const LABEL_GAP: usize = 2;

/// Where everything of a picture goes (see the module documentation, "Layout").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Tiles drawn.
    pub tiles: usize,
    /// Tiles per row of the grid: `min(tiles, GRID_COLUMNS)`, at least 1.
    pub columns: usize,
    /// Rows of the grid: `⌈tiles / columns⌉`.
    pub rows: usize,
    /// Bytes marked and listed in the legend.
    pub marked: usize,
    /// Columns of the legend.
    pub legend_columns: usize,
    /// Rows per legend column: `⌈marked / legend_columns⌉`.
    pub legend_rows: usize,
    /// Width of the picture in pixels.
    pub width: usize,
    /// Height of the picture in pixels.
    pub height: usize,
}

impl Layout {
    /// The layout of a picture of `tiles` tiles with `marked` bytes marked.
    pub fn new(tiles: usize, marked: usize) -> Layout {
        let columns = tiles.clamp(1, GRID_COLUMNS);
        let rows = tiles.div_ceil(columns);
        let width = MARGIN + columns * (TILE_PX + MARGIN);
        let legend_columns = ((width - 2 * MARGIN) / LEGEND_COLUMN_MIN).max(1);
        let legend_rows = marked.div_ceil(legend_columns);
        let mut layout =
            Layout { tiles, columns, rows, marked, legend_columns, legend_rows, width, height: 0 };
        layout.height = layout.grid_top() + rows * (CAPTION + TILE_PX + MARGIN);
        layout
    }

    /// The first row below the header and the legend.
    fn grid_top(&self) -> usize {
        let legend =
            if self.marked == 0 { 0 } else { LEGEND_TITLE + self.legend_rows * LEGEND_ROW + LEGEND_BELOW };
        HEADER + legend
    }

    /// The pixels of tile `t`'s bytes (512 × 512; its caption is the 24 rows above).
    pub fn tile(&self, t: usize) -> Rect {
        let (col, row) = (t % self.columns, t / self.columns);
        Rect {
            x: MARGIN + col * (TILE_PX + MARGIN),
            y: self.grid_top() + row * (CAPTION + TILE_PX + MARGIN) + CAPTION,
            w: TILE_PX,
            h: TILE_PX,
        }
    }

    /// Where byte `addr` of tile `t` is drawn: the top-left pixel of its 2 × 2 cell (the
    /// byte's offset in its page gives row `offset / 256` and column `offset % 256`).
    pub fn cell_origin(&self, t: usize, addr: u64) -> (usize, usize) {
        let b = (addr % PAGE_SIZE) as usize;
        let tile = self.tile(t);
        (tile.x + (b % 256) * CELL, tile.y + (b / 256) * CELL)
    }

    /// Width of a legend column in pixels.
    pub fn legend_column_width(&self) -> usize {
        (self.width - 2 * MARGIN - (self.legend_columns - 1) * MARGIN) / self.legend_columns
    }

    /// Characters a legend row may have: its glyphs are 12 pixels apart and the last one 10
    /// wide.
    pub fn legend_chars(&self) -> usize {
        (self.legend_column_width() + LEGEND_SCALE) / ((font::WIDTH + 1) * LEGEND_SCALE)
    }

    /// The top-left pixel of legend row `i` (0: the byte numbered 1).
    pub fn legend_origin(&self, i: usize) -> (usize, usize) {
        let rows = self.legend_rows.max(1);
        let (col, row) = (i / rows, i % rows);
        (MARGIN + col * (self.legend_column_width() + MARGIN), HEADER + LEGEND_TITLE + row * LEGEND_ROW)
    }
}

/// A byte to mark: its tallies and the name of its writer (`None`: not recorded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotByte {
    /// The byte and its tallies.
    pub hot: Hot,
    /// The innermost function of the write that gave it the most instructions.
    pub writer: Option<String>,
}

/// A marked byte as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// Its number: its rank in the list given to [`render`], from 1.
    pub number: usize,
    /// The byte's address.
    pub addr: u64,
    /// The ring: centre `(x, y)` in continuous pixel coordinates (the corner the byte's four
    /// pixels share) and radius. Its pixels lie within `radius + 2` of the centre.
    pub ring: (usize, usize, usize),
    /// The box of its number (border included).
    pub label: Rect,
}

/// The legend's rows for `hottest` (numbered from 1 in order), each at most `chars`
/// characters: the number right-aligned, the address as `0x` and lower-case hex left-aligned,
/// the value of `metric` with [`thousands`] separators right-aligned, each column as wide as
/// its widest entry and two spaces apart; then, for a byte with a writer, two spaces and the
/// writer's name, [`elide`]d to the characters left (left out when none are).
pub fn legend_rows(hottest: &[HotByte], metric: Metric, chars: usize) -> Vec<String> {
    let numbers: Vec<String> = (1..=hottest.len() as u64).map(thousands).collect();
    let addrs: Vec<String> = hottest.iter().map(|h| format!("0x{:x}", h.hot.addr)).collect();
    let values: Vec<String> = hottest.iter().map(|h| thousands(metric.of(&h.hot))).collect();
    let width = |v: &[String]| v.iter().map(String::len).max().unwrap_or(0);
    let (wn, wa, wv) = (width(&numbers), width(&addrs), width(&values));
    hottest
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut row = format!("{:>wn$}  {:<wa$}  {:>wv$}", numbers[i], addrs[i], values[i]);
            let room = chars.saturating_sub(row.chars().count() + 2);
            if let Some(w) = h.writer.as_deref().filter(|_| room > 0) {
                row.push_str("  ");
                row.push_str(&elide(w, room));
            }
            row
        })
        .collect()
}

/// An RGBA8 picture, rows top to bottom, every alpha 255, with what [`render`] placed.
#[derive(Debug, Clone)]
pub struct Picture {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `4 · width · height` bytes.
    pub rgba: Vec<u8>,
    /// Where everything goes.
    pub layout: Layout,
    /// The marked bytes on a tile, in number order.
    pub markers: Vec<Marker>,
    /// The legend's rows as drawn ([`legend_rows`]), in number order.
    pub legend: Vec<String>,
}

impl Picture {
    fn new(layout: Layout) -> Picture {
        let (width, height) = (layout.width, layout.height);
        let mut rgba = vec![255; 4 * width * height];
        for p in rgba.chunks_exact_mut(4) {
            p[..3].copy_from_slice(&BACKGROUND);
        }
        Picture { width, height, rgba, layout, markers: Vec::new(), legend: Vec::new() }
    }

    fn set(&mut self, x: usize, y: usize, c: [u8; 3]) {
        if x < self.width && y < self.height {
            let i = 4 * (y * self.width + x);
            self.rgba[i..i + 3].copy_from_slice(&c);
        }
    }

    /// The colour at `(x, y)`.
    pub fn get(&self, x: usize, y: usize) -> [u8; 3] {
        let i = 4 * (y * self.width + x);
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }

    fn text(&mut self, s: &str, x: usize, y: usize, scale: usize, c: [u8; 3]) {
        font::draw(s, x, y, scale, |px, py| self.set(px, py, c));
    }

    /// `s` with its top-left corner at `(x, y)` in at most `width` pixels: at scale 2 when it
    /// fits, else at scale 1 (3 pixels lower), elided when it does not fit even so.
    fn line_of_text(&mut self, s: &str, x: usize, y: usize, width: usize) {
        if font::text_width(s, 2) <= width + 2 {
            self.text(s, x, y, 2, TEXT);
        } else {
            self.text(&elide(s, (width + 1) / (font::WIDTH + 1)), x, y + 3, 1, TEXT);
        }
    }

    fn fill(&mut self, r: Rect, c: [u8; 3]) {
        for y in r.y..r.y + r.h {
            for x in r.x..r.x + r.w {
                self.set(x, y, c);
            }
        }
    }

    fn ring(&mut self, cx: f64, cy: f64, r: f64, c: [u8; 3]) {
        let (lo_x, lo_y) = ((cx - r - 2.0).max(0.0) as usize, (cy - r - 2.0).max(0.0) as usize);
        for y in lo_y..(cy + r + 2.0) as usize {
            for x in lo_x..(cx + r + 2.0) as usize {
                let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
                let d = libm::sqrt(dx * dx + dy * dy);
                if libm::fabs(d - r) <= 1.0 {
                    self.set(x, y, c);
                }
            }
        }
    }

    fn line(&mut self, l: &Leader, c: [u8; 3]) {
        for (x, y) in l.points() {
            self.set(x as usize, y as usize, c);
        }
    }
}

/// The line from a ring to its number's box, in continuous pixel coordinates.
#[derive(Debug, Clone, Copy)]
struct Leader {
    from: (f64, f64),
    to: (f64, f64),
}

impl Leader {
    /// From just outside the ring around `(cx, cy)` towards the centre of `label`, ending where
    /// it meets the box.
    fn new((cx, cy): (usize, usize), r: usize, label: &Rect) -> Leader {
        let (cx, cy) = (cx as f64, cy as f64);
        let (lx, ly) = label.centre();
        let (dx, dy) = (lx - cx, ly - cy);
        let d = libm::sqrt(dx * dx + dy * dy).max(1e-9);
        let from = (cx + dx / d * (r as f64 + 1.5), cy + dy / d * (r as f64 + 1.5));
        // From the box's centre back towards the ring, the box's edge is crossed at the
        // fraction `s` of the way.
        let half = |extent: usize, delta: f64| {
            if delta == 0.0 { f64::INFINITY } else { extent as f64 / 2.0 / libm::fabs(delta) }
        };
        let s = half(label.w, dx).min(half(label.h, dy)).min(1.0);
        Leader { from, to: (lx - dx * s, ly - dy * s) }
    }

    /// Points every half pixel along the line, both ends included.
    fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let (dx, dy) = (self.to.0 - self.from.0, self.to.1 - self.from.1);
        let n = libm::ceil(2.0 * libm::sqrt(dx * dx + dy * dy)).max(1.0) as usize;
        (0..=n).map(move |k| {
            let f = k as f64 / n as f64;
            (self.from.0 + dx * f, self.from.1 + dy * f)
        })
    }

    fn crosses(&self, r: &Rect) -> bool {
        self.points().any(|p| r.contains(p))
    }
}

/// The square around a ring that holds all its pixels (see [`Marker::ring`]).
fn ring_square((cx, cy): (usize, usize), r: usize) -> Rect {
    let (x, y) = (cx.saturating_sub(r + 2), cy.saturating_sub(r + 2));
    Rect { x, y, w: cx + r + 2 - x, h: cy + r + 2 - y }
}

/// The boxes of markers' numbers placed so far (module documentation, "Markers").
struct Labels<'a> {
    rings: &'a [Rect],
    placed: Vec<(Rect, Leader)>,
}

impl Labels<'_> {
    /// Whether a box at `rect` for the ring around `centre` is free; `strict`: its leader
    /// too.
    fn free(&self, rect: &Rect, centre: (usize, usize), strict: bool) -> bool {
        if self.rings.iter().any(|r| r.intersects(rect)) {
            return false;
        }
        if self.placed.iter().any(|(p, _)| p.grown(LABEL_GAP).intersects(rect)) {
            return false;
        }
        if strict {
            let leader = Leader::new(centre, RING_RADIUS, rect);
            let grown = rect.grown(1);
            if self.placed.iter().any(|(p, l)| leader.crosses(&p.grown(1)) || l.crosses(&grown)) {
                return false;
            }
        }
        true
    }

    /// The first free place of a `w × h` box inside `bounds` on circles around `centre`.
    fn search(
        &self,
        centre: (usize, usize),
        (w, h): (usize, usize),
        bounds: Rect,
        strict: bool,
    ) -> Option<Rect> {
        let (cx, cy) = (centre.0 as f64, centre.1 as f64);
        // Past this distance every box would lie outside `bounds`.
        let far = {
            let dx = (cx - bounds.x as f64).max((bounds.x + bounds.w) as f64 - cx);
            let dy = (cy - bounds.y as f64).max((bounds.y + bounds.h) as f64 - cy);
            libm::sqrt(dx * dx + dy * dy) + (w + h) as f64
        };
        let mut rho = (RING_RADIUS + 3) as f64 + h as f64 / 2.0;
        while rho <= far {
            let n = (libm::ceil(2.0 * PI * rho / 4.0) as usize).max(8);
            for k in 0..n {
                let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
                let theta = -FRAC_PI_4 + sign * k.div_ceil(2) as f64 * 2.0 * PI / n as f64;
                let x = libm::round(cx + rho * libm::cos(theta) - w as f64 / 2.0);
                let y = libm::round(cy + rho * libm::sin(theta) - h as f64 / 2.0);
                if x < 0.0 || y < 0.0 {
                    continue;
                }
                let rect = Rect { x: x as usize, y: y as usize, w, h };
                if rect.is_within(&bounds) && self.free(&rect, centre, strict) {
                    return Some(rect);
                }
            }
            rho += 2.0;
        }
        None
    }

    /// Places the box of the ring around `centre` on tile `tile` of `layout`.
    fn place(&mut self, centre: (usize, usize), size: (usize, usize), tile: Rect, grid: Rect) -> Rect {
        let found = [(tile, true), (tile, false), (grid, true), (grid, false)]
            .into_iter()
            .find_map(|(bounds, strict)| self.search(centre, size, bounds, strict));
        let rect = found.unwrap_or(Rect { x: centre.0 + RING_RADIUS + 3, y: centre.1, w: size.0, h: size.1 });
        self.placed.push((rect, Leader::new(centre, RING_RADIUS, &rect)));
        rect
    }
}

/// Draws `heat` for people with `metric`; `hottest` are ringed, numbered (1 first) and listed
/// in the legend (module documentation).
pub fn render(heat: &HeatMap, regions: &Regions, hottest: &[HotByte], metric: Metric) -> Picture {
    let layout = Layout::new(heat.tiles.len(), hottest.len());
    let mut pic = Picture::new(layout);
    let max = heat
        .tiles
        .iter()
        .filter_map(|t| t.1.as_deref())
        .flat_map(|t| (0..PAGE_SIZE as usize).map(move |b| metric.value(t, b)))
        .max()
        .unwrap_or(0);
    let scale = libm::log(1.0 + max as f64);
    let colour = |v: u64| viridis(if scale > 0.0 { libm::log(1.0 + v as f64) / scale } else { 0.0 });

    // Header: title and colour bar with ticks in real units.
    let title = format!("{} per byte, log, max {}", metric.name(), thousands(max));
    pic.line_of_text(&title, MARGIN, 8, layout.width - 2 * MARGIN);
    for x in 0..BAR_W {
        let c = viridis(x as f64 / (BAR_W - 1) as f64);
        for y in 30..42 {
            pic.set(MARGIN + x, y, c);
        }
    }
    let mut free_from = 0;
    let mut p = Some(1u64);
    while let Some(v) = p.filter(|&v| v <= max && scale > 0.0) {
        let x = MARGIN + ((BAR_W - 1) as f64 * libm::log(1.0 + v as f64) / scale) as usize;
        for y in 42..46 {
            pic.set(x, y, TEXT);
        }
        let label = thousands(v);
        let w = font::text_width(&label, 1);
        let left = x.saturating_sub(w / 2);
        if left >= free_from && left + w <= layout.width - MARGIN {
            pic.text(&label, left, 48, 1, TEXT);
            free_from = left + w + 6;
        }
        p = v.checked_mul(10);
    }

    // The legend.
    if !hottest.is_empty() {
        let writer = if hottest.iter().any(|h| h.writer.is_some()) { ", writer" } else { "" };
        let title = format!("hottest bytes (by instructions): number, address, {}{writer}", metric.name());
        pic.text(&title, MARGIN, HEADER, 1, TEXT);
        let rows = legend_rows(hottest, metric, layout.legend_chars());
        let number_chars = thousands(hottest.len() as u64).len();
        for (i, row) in rows.iter().enumerate() {
            let (x, y) = layout.legend_origin(i);
            let (number, rest) = row.split_at(number_chars);
            pic.text(number, x, y + 3, LEGEND_SCALE, RING);
            pic.text(rest, x + font::text_width(number, LEGEND_SCALE), y + 3, LEGEND_SCALE, TEXT);
        }
        pic.legend = rows;
    }

    for (t, (page, tile)) in heat.tiles.iter().enumerate() {
        let base = page * PAGE_SIZE;
        let (x0, y0) = layout.cell_origin(t, base);
        let caption = format!(
            "page {}  {}  0x{:x}-0x{:x}",
            thousands(*page),
            regions.label(*page),
            base,
            base + PAGE_SIZE - 1
        );
        pic.line_of_text(&caption, x0, y0 - CAPTION + 6, TILE_PX);
        for b in 0..PAGE_SIZE as usize {
            let addr = base + b as u64;
            let c = match tile.as_deref() {
                Some(tile) if metric.value(tile, b) > 0 => colour(metric.value(tile, b)),
                Some(tile) if tile.accesses[b] > 0 || tile.instructions[b] > 0 => TOUCHED,
                _ if regions.input_bytes.is_some_and(|(lo, hi)| lo <= addr && addr < hi) => INPUT,
                _ if regions.data.iter().any(|&(lo, hi)| lo <= addr && addr < hi) => DATA,
                _ => BACKGROUND,
            };
            let (x, y) = layout.cell_origin(t, addr);
            pic.fill(Rect { x, y, w: CELL, h: CELL }, c);
        }
    }

    // The markers: rings, boxes placed apart, leaders, numbers; then the marked cells again.
    let on_tiles: Vec<(usize, u64, usize, (usize, usize))> = hottest
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            let t = heat.tiles.iter().position(|(p, _)| *p == h.hot.addr / PAGE_SIZE)?;
            let (x, y) = layout.cell_origin(t, h.hot.addr);
            Some((i + 1, h.hot.addr, t, (x + CELL / 2, y + CELL / 2)))
        })
        .collect();
    let squares: Vec<Rect> = on_tiles.iter().map(|m| ring_square(m.3, RING_RADIUS)).collect();
    let mut labels = Labels { rings: &squares, placed: Vec::new() };
    let top = layout.tile(0).y - CAPTION;
    let grid = Rect { x: 0, y: top, w: layout.width, h: layout.height - top };
    for &(number, addr, t, centre) in &on_tiles {
        let text = thousands(number as u64);
        let size = (
            font::text_width(&text, LABEL_SCALE) - LABEL_SCALE + 2 * LABEL_PAD,
            font::HEIGHT * LABEL_SCALE + 2 * LABEL_PAD,
        );
        let label = labels.place(centre, size, layout.tile(t), grid);
        pic.markers.push(Marker { number, addr, ring: (centre.0, centre.1, RING_RADIUS), label });
    }
    let cells: Vec<(usize, usize, [u8; 3])> = on_tiles
        .iter()
        .map(|m| {
            let (x, y) = (m.3.0 - CELL / 2, m.3.1 - CELL / 2);
            (x, y, pic.get(x, y))
        })
        .collect();
    for m in pic.markers.clone() {
        pic.ring(m.ring.0 as f64, m.ring.1 as f64, m.ring.2 as f64, RING);
    }
    for (_, leader) in &labels.placed {
        pic.line(leader, RING);
    }
    for m in pic.markers.clone() {
        let r = m.label;
        pic.fill(r, RING);
        pic.fill(Rect { x: r.x + 1, y: r.y + 1, w: r.w - 2, h: r.h - 2 }, BACKGROUND);
        pic.text(&thousands(m.number as u64), r.x + LABEL_PAD, r.y + LABEL_PAD, LABEL_SCALE, NUMBER);
    }
    for (x, y, c) in cells {
        pic.fill(Rect { x, y, w: CELL, h: CELL }, c);
    }
    pic
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_ends_and_middle() {
        assert_eq!(viridis(0.0), [0x44, 0x01, 0x54]);
        assert_eq!(viridis(1.0), [0xfd, 0xe7, 0x25]);
        assert_eq!(viridis(0.5), [0x21, 0x91, 0x8c]);
        // Halfway between the first two stops: (0x44 + 0x47) / 2 = 69.5 → 70, 0x17 = 23, 0x68 = 104.
        assert_eq!(viridis(1.0 / 16.0), [70, 23, 104]);
    }

    #[test]
    fn rectangles_meet_when_they_share_a_pixel() {
        let a = Rect { x: 10, y: 10, w: 4, h: 3 }; // columns 10..=13, rows 10..=12
        assert!(a.intersects(&Rect { x: 13, y: 12, w: 1, h: 1 }));
        assert!(!a.intersects(&Rect { x: 14, y: 10, w: 5, h: 5 }));
        assert!(!a.intersects(&Rect { x: 0, y: 13, w: 50, h: 1 }));
        assert_eq!(a.grown(2), Rect { x: 8, y: 8, w: 8, h: 7 });
        assert_eq!(Rect { x: 1, y: 0, w: 2, h: 2 }.grown(2), Rect { x: 0, y: 0, w: 5, h: 4 });
        // Radius 6 around (100, 50): pixels within 8 of the centre, columns 92..=107.
        assert_eq!(ring_square((100, 50), 6), Rect { x: 92, y: 42, w: 16, h: 16 });
    }

    #[test]
    fn leader_runs_from_the_ring_to_the_box() {
        // A box straight right of the ring: the leader is horizontal, from 6 + 1.5 right of
        // the centre to the box's left edge.
        let label = Rect { x: 120, y: 40, w: 20, h: 20 };
        let l = Leader::new((100, 50), 6, &label);
        assert_eq!((l.from, l.to), ((107.5, 50.0), (120.0, 50.0)));
        assert_eq!(l.points().count(), 26); // 12.5 pixels in half-pixel steps: 25 steps
    }
}
