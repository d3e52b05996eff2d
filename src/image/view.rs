//! The heat map drawn for people (docs/report.md, "The heat map as a picture"): the picture of
//! `qip-memory thermal --view` and the colours of the report's page.
//!
//! Unlike the measurement KTX2 (whose channel values are tallies), every pixel here is opaque
//! and its colour is one metric on the viridis colour map, log scale: `t = ln(1 + v) /
//! ln(1 + max)`. Layout, top to bottom: a header with the metric and a colour bar with ticks at
//! powers of ten; then per tile a label (page, region, hex address range) and the page at two
//! pixels per byte (512 × 512), bytes in address order, rows of 256. The hottest bytes are
//! ringed and numbered. Bytes accessed without receiving the metric are grey; initialized
//! bytes never touched (data segments, input) a dim tint; the rest the dark background.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

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
}

/// The colour of `t` in `[0, 1]` on [`VIRIDIS`].
pub fn viridis(t: f64) -> [u8; 3] {
    let x = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (libm::floor(x) as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    core::array::from_fn(|k| libm::round(a[k] as f64 + (b[k] as f64 - a[k] as f64) * f) as u8)
}

/// An RGBA8 picture, rows top to bottom, every alpha 255.
#[derive(Debug, Clone)]
pub struct Picture {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `4 · width · height` bytes.
    pub rgba: Vec<u8>,
}

impl Picture {
    fn new(width: usize, height: usize) -> Picture {
        let mut rgba = vec![255; 4 * width * height];
        for p in rgba.chunks_exact_mut(4) {
            p[..3].copy_from_slice(&BACKGROUND);
        }
        Picture { width, height, rgba }
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
}

const MARGIN: usize = 16;
/// Pixels per byte side.
const CELL: usize = 2;
const TILE_PX: usize = 256 * CELL;
const HEADER: usize = 64;
const LABEL: usize = 24;
const BAR_W: usize = 400;

/// `1`, `10`, …, `1K`, `10K`, `100K`, `1M`, …
fn tick_label(p: u64) -> String {
    match p {
        p if p >= 1_000_000_000 => format!("{}G", p / 1_000_000_000),
        p if p >= 1_000_000 => format!("{}M", p / 1_000_000),
        p if p >= 1_000 => format!("{}K", p / 1_000),
        p => format!("{p}"),
    }
}

/// Where byte `addr` of tile `t` is drawn: the top-left pixel of its cell.
pub fn cell_origin(t: usize, addr: u64) -> (usize, usize) {
    let b = (addr % PAGE_SIZE) as usize;
    (MARGIN + (b % 256) * CELL, HEADER + t * (LABEL + TILE_PX + MARGIN) + LABEL + (b / 256) * CELL)
}

/// Draws `heat` for people with `metric`; `hottest` are ringed and numbered (1 first).
pub fn render(heat: &HeatMap, regions: &Regions, hottest: &[Hot], metric: Metric) -> Picture {
    let n = heat.tiles.len();
    let width = 2 * MARGIN + TILE_PX;
    let height = HEADER + n * (LABEL + TILE_PX + MARGIN);
    let mut pic = Picture::new(width, height);
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
    pic.text(&format!("{} per byte, log, max {max}", metric.name()), MARGIN, 8, 2, TEXT);
    for x in 0..BAR_W {
        let c = viridis(x as f64 / (BAR_W - 1) as f64);
        for y in 30..42 {
            pic.set(MARGIN + x, y, c);
        }
    }
    let mut p = 1u64;
    while p <= max && scale > 0.0 {
        let x = MARGIN + ((BAR_W - 1) as f64 * libm::log(1.0 + p as f64) / scale) as usize;
        for y in 42..46 {
            pic.set(x, y, TEXT);
        }
        let label = tick_label(p);
        pic.text(&label, x.saturating_sub(font::text_width(&label, 1) / 2), 48, 1, TEXT);
        p = p.saturating_mul(10);
    }

    for (t, (page, tile)) in heat.tiles.iter().enumerate() {
        let base = page * PAGE_SIZE;
        let (x0, y0) = cell_origin(t, base);
        let label =
            format!("page {page}  {}  0x{:x}-0x{:x}", regions.label(*page), base, base + PAGE_SIZE - 1);
        pic.text(&label, MARGIN, y0 - LABEL + 6, 2, TEXT);
        for b in 0..PAGE_SIZE as usize {
            let addr = base + b as u64;
            let c = match tile.as_deref() {
                Some(tile) if metric.value(tile, b) > 0 => colour(metric.value(tile, b)),
                Some(tile) if tile.accesses[b] > 0 || tile.instructions[b] > 0 => TOUCHED,
                _ if regions.input_bytes.is_some_and(|(lo, hi)| lo <= addr && addr < hi) => INPUT,
                _ if regions.data.iter().any(|&(lo, hi)| lo <= addr && addr < hi) => DATA,
                _ => BACKGROUND,
            };
            let (x, y) = (x0 + (b % 256) * CELL, y0 + (b / 256) * CELL);
            for dy in 0..CELL {
                for dx in 0..CELL {
                    pic.set(x + dx, y + dy, c);
                }
            }
        }
    }
    // The hottest bytes: a ring around each cell and its rank beside it; then the cells
    // again, so that a neighbour's ring never hides a hot byte.
    let cells: Vec<(usize, usize, [u8; 3])> = hottest
        .iter()
        .filter_map(|h| {
            let t = heat.tiles.iter().position(|(p, _)| *p == h.addr / PAGE_SIZE)?;
            let (x, y) = cell_origin(t, h.addr);
            Some((x, y, pic.get(x, y)))
        })
        .collect();
    for (rank, &(x, y, _)) in cells.iter().enumerate() {
        let (cx, cy) = (x as f64 + CELL as f64 / 2.0, y as f64 + CELL as f64 / 2.0);
        pic.ring(cx, cy, 6.0, RING);
        pic.text(&format!("{}", rank + 1), x + 9, y.saturating_sub(10), 1, [255, 255, 255]);
    }
    for &(x, y, c) in &cells {
        for dy in 0..CELL {
            for dx in 0..CELL {
                pic.set(x + dx, y + dy, c);
            }
        }
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
    fn tick_labels() {
        assert_eq!([1, 10, 1_000, 100_000, 1_000_000].map(tick_label), ["1", "10", "1K", "100K", "1M"]);
    }
}
