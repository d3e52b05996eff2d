//! The memory heat map of `qip-interpret-memory-thermal-ktx2.wasm` (docs/heat-map.md): one
//! pixel per byte of up to 32 pages, showing where the work of `render` ended up.
//!
//! [`ThermalRecorder`] is the [`Observer`] of the run. It keeps per-byte tallies only for the
//! pages that can still become tiles (the lowest 32 touched pages at or above `first_page`),
//! so its memory is bounded by the tiles shown (1.25 MiB each), not by the target's memory.
//! [`HeatMap::render_rgba`] turns the tallies into pixels with the scales of docs/heat-map.md,
//! "Scale".
//!
//! # One run instead of two
//!
//! The reference runs the target twice: once to learn the stack range (`[lowest global 0,
//! initial global 0)`, measured over the whole run), once to attribute work, skipping writes
//! whose first byte lies in that range. We run once. A render write whose first byte is at or
//! above the initial stack pointer, or when there is no stack pointer, is attributed at once;
//! one in `[lowest so far, initial)` is a stack write for certain (the lowest value only
//! falls). Only a write *below* the lowest value seen so far is undecided: the stack may still
//! grow over it. Such writes, and every write after the first of them, wait in a queue with the
//! running totals at that point; the queue drains as soon as its front is decided, and at the
//! end every write left is decided against the final lowest value. Each write's tally is the
//! difference of running totals between it and the attributing write before it, so the result
//! is exactly the two-run image. In Rust programs (stack below the data) the queue stays
//! nearly empty. When more than `pending_limit` writes wait, the recorder gives up
//! ([`Finish::Rerun`]) and the caller runs the target again with the measured range
//! ([`StackRange::Known`]), which is the reference's method.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::pages::{PAGE_SIZE, Range};
use crate::profile::calltree::CallTreeRecorder;
use crate::wasm::Observer;

/// One slot's writers: per byte, `(node id + 1, the work of its write, the module offset of
/// the writing instruction or [`NO_OFFSET`])` (see `writers`).
type SlotWriters = Box<[(u32, u32, u32)]>;

/// The offset of a write whose instruction is not known (no line tables were read).
pub const NO_OFFSET: u32 = crate::profile::calltree::NO_OFFSET;

/// Most tiles in an image (docs/heat-map.md, "Tiles"; 32 · 256 = 8,192 rows, the KTX2 limit QIP
/// uses).
pub const MAX_TILES: usize = 32;
/// Width of the image and side of a tile, in pixels (bytes).
pub const TILE_SIDE: u32 = 256;
/// Bytes per tile (one 64 KiB page).
const TILE_BYTES: usize = PAGE_SIZE as usize;
/// Default most undecided writes held before falling back to a second run (32 bytes each, so
/// 32 MiB).
pub const DEFAULT_PENDING_LIMIT: usize = 1 << 20;

/// Alpha of a byte render never touched that held request input.
pub const ALPHA_INPUT: u8 = 40;
/// Alpha of a byte render never touched that an active data segment initialized.
pub const ALPHA_DATA: u8 = 24;
/// Alpha offset of a touched byte (`64 + alpha_level(A)`).
pub const ALPHA_TOUCHED: u8 = 64;

/// How the recorder decides which writes are stack writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackRange {
    /// Measure the range during this run (see the module documentation); hold at most
    /// `pending_limit` undecided writes.
    Measure {
        /// Most writes to hold before giving up with [`Finish::Rerun`].
        pending_limit: usize,
    },
    /// The range is known from an earlier run of the same request (`None`: no stack range).
    Known(Option<Range>),
}

impl Default for StackRange {
    fn default() -> Self {
        StackRange::Measure { pending_limit: DEFAULT_PENDING_LIMIT }
    }
}

/// Running totals of render work: instructions, loop iterations, calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Work {
    instructions: u64,
    loops: u64,
    calls: u64,
}

/// A render write whose attribution waits: its first byte and the totals when it executed.
#[derive(Debug, Clone, Copy)]
struct Pending {
    addr: u64,
    at: Work,
    /// The writer's node and instruction offset, for attribution ([`NO_STACK`] without).
    stack: (u32, u32),
    /// `true`: attributes for sure; `false`: a stack write unless its address ends up below the
    /// final lowest stack pointer.
    decided: bool,
}

/// The per-byte tallies of one tile (one page), indexed by the byte's offset in the page.
#[derive(Debug, Clone)]
pub struct Tile {
    /// Instructions attributed to each byte.
    pub instructions: Box<[u64]>,
    /// Loop iterations attributed to each byte.
    pub loops: Box<[u32]>,
    /// Calls attributed to each byte.
    pub calls: Box<[u32]>,
    /// Render loads, stores, `memory.copy` sides and `memory.fill`s that touched each byte.
    pub accesses: Box<[u32]>,
}

impl Tile {
    fn new() -> Box<Tile> {
        Box::new(Tile {
            instructions: vec![0; TILE_BYTES].into_boxed_slice(),
            loops: vec![0; TILE_BYTES].into_boxed_slice(),
            calls: vec![0; TILE_BYTES].into_boxed_slice(),
            accesses: vec![0; TILE_BYTES].into_boxed_slice(),
        })
    }
}

/// The node id of a write recorded without attribution, and of a byte no write gave work.
pub const NO_STACK: u32 = crate::profile::calltree::NO_NODE;

/// Who did the writes (docs/report.md, "Attribution"): the calling-context tree of the run
/// (whose current node names the writer of every attributing write) and per tile byte the
/// write that gave it the most instructions.
#[derive(Debug, Default)]
struct Attribution {
    /// The run's calling-context tree, fed every event the recorder sees.
    tree: CallTreeRecorder,
    /// Per slot, parallel to the recorder's `slots`: per byte (node id + 1, its write's work,
    /// its offset), all zeros while no write gave the byte work (so that a fresh buffer is the
    /// allocator's zeroed memory, whose pages the system maps only when written). One write's
    /// work is below the largest budget (10⁹), so it fits a `u32`; past that it saturates.
    writers: Vec<Option<SlotWriters>>,
}

impl Attribution {
    /// Credits `work` instructions of the write made in node `node` by the instruction at
    /// `offset` to byte `b` of slot `slot`.
    fn credit(&mut self, slot: usize, b: usize, (node, offset): (u32, u32), work: u64) {
        self.tree.credit_write(node, work);
        if slot >= self.writers.len() {
            self.writers.resize_with(slot + 1, || None);
        }
        let w = self.writers[slot].get_or_insert_with(|| vec![(0, 0, 0); TILE_BYTES].into_boxed_slice());
        let work = work.min(u32::MAX as u64) as u32;
        if work > w[b].1 {
            w[b] = (node.wrapping_add(1), work, offset.wrapping_add(1));
        }
    }
}

/// What [`ThermalRecorder::with_attribution`] adds to a [`HeatMap`].
#[derive(Debug, Clone, Default)]
pub struct Writers {
    /// The calling-context tree of the run, still recording: finish it with the run's final
    /// instruction count ([`CallTreeRecorder::finish`]). Each node's
    /// [`Costs::write_instructions`](crate::profile::calltree::Costs::write_instructions) is the
    /// work its writes gave to tile bytes; their sum is [`HeatMap::totals`]'s instructions.
    pub tree: CallTreeRecorder,
    /// Per tile, parallel to [`HeatMap::tiles`]: per byte, the node (of `tree`) of the write
    /// that gave the byte the most instructions (the first of equals), or [`NO_STACK`].
    pub tiles: Vec<Box<[u32]>>,
    /// Per tile, parallel to `tiles`: the module offset of that write's instruction, or
    /// [`NO_OFFSET`] (known only with line tables, for source lines).
    pub offsets: Vec<Box<[u32]>>,
}

/// Page state: not touched yet.
const UNSEEN: u32 = 0;
/// Page state: touched, but never a tile (below `first_page`, or 32 lower pages were touched).
const NO_TILE: u32 = u32::MAX;

/// Records the heat map of one run (docs/heat-map.md, "Tiles" and "Channels"). Feed it the run's
/// events (it is an [`Observer`]; [`crate::content::run::run`] reports the start of render), then
/// call [`ThermalRecorder::finish`].
///
/// `ATTRIBUTE`: whether it also records who did the writes
/// ([`ThermalRecorder::with_attribution`]); without, that code is compiled away.
#[derive(Debug)]
pub struct ThermalRecorder<const ATTRIBUTE: bool = false> {
    first_page: u64,
    /// Per page: [`UNSEEN`], [`NO_TILE`] or `slot + 1`.
    state: Vec<u32>,
    /// The current tiles: page and slot, unordered; at most [`MAX_TILES`].
    tiles: Vec<(u64, u32)>,
    /// Tile data by slot; `None` until render touches the page.
    slots: Vec<Option<Box<Tile>>>,
    free: Vec<u32>,
    rendering: bool,
    stack: StackRange,
    /// Initial global 0, when it is a mutable `i32`.
    stack_top: Option<u64>,
    /// Lowest value written to global 0 during the whole run.
    lowest: Option<u64>,
    now: Work,
    last: Work,
    pending: VecDeque<Pending>,
    overflowed: bool,
    attribution: Option<Box<Attribution>>,
}

/// The result of [`ThermalRecorder::finish`].
#[derive(Debug)]
pub enum Finish {
    /// The recording is complete.
    Done(Box<HeatMap>),
    /// Too many writes stayed undecided; run the request again with a recorder made with
    /// [`StackRange::Known`] of this range.
    Rerun(Option<Range>),
}

impl ThermalRecorder {
    /// A recorder for tiles at or above page `first_page`.
    pub fn new(first_page: u32, stack: StackRange) -> Self {
        ThermalRecorder {
            first_page: first_page as u64,
            state: Vec::new(),
            tiles: Vec::with_capacity(MAX_TILES),
            slots: Vec::new(),
            free: Vec::new(),
            rendering: false,
            stack,
            stack_top: None,
            lowest: None,
            now: Work::default(),
            last: Work::default(),
            pending: VecDeque::new(),
            overflowed: false,
            attribution: None,
        }
    }

    /// Also records who did the writes: the call stack of every attributing write and, per
    /// tile byte, the write that gave it the most work ([`HeatMap::writers`]). Costs a lookup
    /// per write after a call or return, and 12 bytes per tile byte.
    pub fn with_attribution(self) -> ThermalRecorder<true> {
        let ThermalRecorder {
            first_page,
            state,
            tiles,
            slots,
            free,
            rendering,
            stack,
            stack_top,
            lowest,
            now,
            last,
            pending,
            overflowed,
            attribution: _,
        } = self;
        ThermalRecorder {
            first_page,
            state,
            tiles,
            slots,
            free,
            rendering,
            stack,
            stack_top,
            lowest,
            now,
            last,
            pending,
            overflowed,
            attribution: Some(Box::new(Attribution::default())),
        }
    }
}

impl ThermalRecorder<true> {
    /// Also records the run's costs per source line of `table` and the line of every
    /// attributing write (in the call tree, [`Writers::tree`]).
    pub fn with_lines(mut self, table: Option<&crate::profile::lines::LineTable>) -> Self {
        if let Some(a) = self.attribution.as_deref_mut() {
            a.tree = CallTreeRecorder::with_lines(table);
        }
        self
    }
}

impl<const ATTRIBUTE: bool> ThermalRecorder<ATTRIBUTE> {
    /// The attribution state: `None` unless `ATTRIBUTE` (a constant, so the callers' branches
    /// fold away).
    #[inline(always)]
    fn attribution(&mut self) -> Option<&mut Attribution> {
        if ATTRIBUTE { self.attribution.as_deref_mut() } else { None }
    }

    /// The stack range measured so far (docs/page-table.md: `[lowest global 0, initial)` when
    /// global 0 moved down).
    pub fn measured_stack(&self) -> Option<Range> {
        match (self.stack_top, self.lowest) {
            (Some(top), Some(low)) if low < top => Some((low, top)),
            _ => None,
        }
    }

    /// The tile slot of page `p`, making it a tile if it qualifies (the lowest 32 touched
    /// pages at or above `first_page`). `None`: the page is not a tile.
    #[inline]
    fn slot_of(&mut self, p: u64) -> Option<usize> {
        let i = p as usize;
        if i >= self.state.len() {
            self.state.resize(i + 1, UNSEEN);
        }
        match self.state[i] {
            UNSEEN => self.select(p),
            NO_TILE => None,
            s => Some(s as usize - 1),
        }
    }

    #[cold]
    fn select(&mut self, p: u64) -> Option<usize> {
        if p < self.first_page {
            self.state[p as usize] = NO_TILE;
            return None;
        }
        if self.tiles.len() == MAX_TILES {
            let (k, &(highest, slot)) =
                self.tiles.iter().enumerate().max_by_key(|(_, t)| t.0).expect("32 tiles");
            if p > highest {
                self.state[p as usize] = NO_TILE;
                return None;
            }
            // `highest` can never come back: 32 lower pages have now been touched.
            self.tiles.swap_remove(k);
            self.state[highest as usize] = NO_TILE;
            self.slots[slot as usize] = None;
            if let Some(w) = self.attribution().and_then(|a| a.writers.get_mut(slot as usize)) {
                *w = None;
            }
            self.free.push(slot);
        }
        let slot = self.free.pop().unwrap_or_else(|| {
            self.slots.push(None);
            self.slots.len() as u32 - 1
        });
        self.tiles.push((p, slot));
        self.state[p as usize] = slot + 1;
        Some(slot as usize)
    }

    /// Counts one access to `[addr, addr + len)`: page selection always, per-byte counts during
    /// render.
    #[inline]
    fn access(&mut self, addr: u64, len: u64) {
        let end = addr + len;
        let p = addr / PAGE_SIZE;
        if (end - 1) / PAGE_SIZE == p && self.rendering {
            // The common case: a load or store inside one page.
            if let Some(slot) = self.slot_of(p) {
                let lo = (addr % PAGE_SIZE) as usize;
                Self::count(self.slots[slot].get_or_insert_with(Tile::new), lo, lo + len as usize);
            }
            return;
        }
        self.access_pages(addr, end);
    }

    /// [`Self::access`] for an access across pages or during the setters.
    fn access_pages(&mut self, addr: u64, end: u64) {
        let mut p = addr / PAGE_SIZE;
        while p * PAGE_SIZE < end {
            let base = p * PAGE_SIZE;
            if let Some(slot) = self.slot_of(p)
                && self.rendering
            {
                let (lo, hi) =
                    ((addr.max(base) - base) as usize, (end.min(base + PAGE_SIZE) - base) as usize);
                Self::count(self.slots[slot].get_or_insert_with(Tile::new), lo, hi);
            }
            p += 1;
        }
    }

    /// Adds one access to bytes `lo..hi` of `tile` (saturating).
    #[inline]
    fn count(tile: &mut Tile, lo: usize, hi: usize) {
        for a in &mut tile.accesses[lo..hi] {
            *a += u32::from(*a != u32::MAX);
        }
    }

    /// The calling-context node of the running code and the offset of the instruction counted
    /// `instructions`-th, the write's ([`NO_OFFSET`] without line tables), or [`NO_STACK`]
    /// without attribution.
    #[inline]
    fn stack_id(&mut self, instructions: u64) -> (u32, u32) {
        match self.attribution() {
            Some(a) => (a.tree.current(), a.tree.offset_at(instructions)),
            None => (NO_STACK, NO_OFFSET),
        }
    }

    /// A write of `len > 0` bytes at `addr`: access counts, then work attribution.
    #[inline]
    fn write(&mut self, addr: u64, len: u64, instructions: u64) {
        self.access(addr, len);
        if !self.rendering {
            return;
        }
        let at = Work { instructions, ..self.now };
        match self.stack {
            StackRange::Known(range) => {
                if !range.is_some_and(|(lo, hi)| lo <= addr && addr < hi) {
                    let stack = self.stack_id(instructions);
                    self.attribute(addr, at, stack);
                }
            }
            StackRange::Measure { pending_limit } => {
                let decided = match self.stack_top {
                    Some(top) if addr < top => {
                        if self.lowest.is_some_and(|low| low <= addr) {
                            return; // in the stack for sure
                        }
                        false
                    }
                    _ => true,
                };
                if decided && self.pending.is_empty() {
                    let stack = self.stack_id(instructions);
                    self.attribute(addr, at, stack);
                } else if !self.overflowed {
                    if self.pending.len() == pending_limit {
                        self.overflowed = true;
                        self.pending = VecDeque::new();
                    } else {
                        let stack = self.stack_id(instructions);
                        self.pending.push_back(Pending { addr, at, stack, decided });
                    }
                }
            }
        }
    }

    /// Adds the work since the last attributing write to the byte at `addr` (if it is on a
    /// tile) and starts a new tally. `stack`: the writer's stack id, for attribution.
    fn attribute(&mut self, addr: u64, at: Work, stack: (u32, u32)) {
        let (i, l, c) = (
            at.instructions - self.last.instructions,
            at.loops - self.last.loops,
            at.calls - self.last.calls,
        );
        self.last = at;
        let p = (addr / PAGE_SIZE) as usize;
        let Some(&s) = self.state.get(p) else { return };
        if s == UNSEEN || s == NO_TILE {
            return;
        }
        if let Some(tile) = self.slots[s as usize - 1].as_deref_mut() {
            let b = (addr % PAGE_SIZE) as usize;
            tile.instructions[b] = tile.instructions[b].saturating_add(i);
            tile.loops[b] = tile.loops[b].saturating_add(l.min(u32::MAX as u64) as u32);
            tile.calls[b] = tile.calls[b].saturating_add(c.min(u32::MAX as u64) as u32);
            if let Some(a) = self.attribution() {
                a.credit(s as usize - 1, b, stack, i);
            }
        }
    }

    /// Attributes the queued writes that are decided, front first; `finished`: decide all.
    fn drain(&mut self, finished: bool) {
        while let Some(&w) = self.pending.front() {
            let stack = !w.decided && self.lowest.is_some_and(|low| low <= w.addr);
            if !(w.decided || stack || finished) {
                return;
            }
            self.pending.pop_front();
            if !stack {
                self.attribute(w.addr, w.at, w.stack);
            }
        }
    }

    /// Ends the recording: decides the writes still waiting and returns the tiles in page
    /// order, or [`Finish::Rerun`] when the queue overflowed.
    pub fn finish(mut self) -> Finish {
        if self.overflowed {
            return Finish::Rerun(self.measured_stack());
        }
        self.drain(true);
        crate::order::sort_by_key(&mut self.tiles, |t| t.0);
        let mut slots = core::mem::take(&mut self.slots);
        let tiles = self.tiles.iter().map(|&(page, slot)| (page, slots[slot as usize].take())).collect();
        let writers = self.attribution.take().map(|mut a| {
            let (mut tiles, mut offsets) = (Vec::new(), Vec::new());
            for &(_, slot) in &self.tiles {
                match a.writers.get_mut(slot as usize).and_then(Option::take) {
                    // Node id + 1 back to the node id, offset + 1 to the offset; 0 (no write)
                    // to `NO_STACK` and `NO_OFFSET`.
                    Some(w) => {
                        tiles.push(w.iter().map(|&(s, _, _)| s.wrapping_sub(1)).collect());
                        offsets.push(w.iter().map(|&(_, _, o)| o.wrapping_sub(1)).collect());
                    }
                    None => {
                        tiles.push(vec![NO_STACK; TILE_BYTES].into_boxed_slice());
                        offsets.push(vec![NO_OFFSET; TILE_BYTES].into_boxed_slice());
                    }
                }
            }
            Writers { tree: a.tree, tiles, offsets }
        });
        Finish::Done(Box::new(HeatMap { tiles, writers }))
    }
}

/// With attribution, every event also goes to the calling-context tree (its node is the
/// writer of the writes that follow), before the recorder's own handling.
impl<const ATTRIBUTE: bool> Observer for ThermalRecorder<ATTRIBUTE> {
    const BLOCKS: bool = ATTRIBUTE && <CallTreeRecorder as Observer>::BLOCKS;

    #[inline]
    fn block(&mut self, module: &crate::wasm::Module, func: u32, pc: u32, before: u64) {
        if let Some(a) = self.attribution() {
            a.tree.block(module, func, pc, before);
        }
    }
    #[inline]
    fn load(&mut self, addr: u64, len: u32, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.load(addr, len, instructions);
        }
        self.access(addr, len as u64);
    }
    #[inline]
    fn store(&mut self, addr: u64, len: u32, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.store(addr, len, instructions);
        }
        self.write(addr, len as u64, instructions);
    }
    #[inline]
    fn copy(&mut self, dst: u64, src: u64, len: u64, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.copy(dst, src, len, instructions);
        }
        self.access(src, len);
        self.write(dst, len, instructions);
    }
    #[inline]
    fn fill(&mut self, dst: u64, len: u64, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.fill(dst, len, instructions);
        }
        self.write(dst, len, instructions);
    }
    fn host_read(&mut self, addr: u64, len: u64, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.host_read(addr, len, instructions);
        }
        self.access(addr, len);
    }
    fn host_write(&mut self, addr: u64, len: u64, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.host_write(addr, len, instructions);
        }
        self.write(addr, len, instructions);
    }
    #[inline]
    fn call(&mut self, indirect: bool) {
        if let Some(a) = self.attribution() {
            a.tree.call(indirect);
        }
        self.now.calls += 1;
    }
    #[inline]
    fn enter(&mut self, func: u32, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.enter(func, instructions);
        }
    }
    #[inline]
    fn leave(&mut self, instructions: u64) {
        if let Some(a) = self.attribution() {
            a.tree.leave(instructions);
        }
    }
    #[inline]
    fn loop_iteration(&mut self) {
        self.now.loops += 1;
    }
    fn stack_pointer_write(&mut self, value: u32, _: u64) {
        let v = value as u64;
        if self.lowest.is_none_or(|low| v < low) {
            self.lowest = Some(v);
            if !self.pending.is_empty() {
                self.drain(false);
            }
        }
    }
    /// A program's stack area is known from its layout: writes in it attribute nothing, with
    /// no queue and no second run (docs/programs.md, "Heat map").
    fn begin_program(&mut self, stack: Option<(u64, u64)>) {
        self.stack = StackRange::Known(stack.filter(|(floor, top)| floor < top));
        self.begin_render(0, stack.map(|(_, top)| top as u32));
    }
    fn begin_render(&mut self, instructions: u64, stack_pointer: Option<u32>) {
        self.rendering = true;
        self.stack_top = stack_pointer.map(u64::from);
        self.now = Work { instructions, loops: 0, calls: 0 };
        self.last = self.now;
    }
}

/// The recorded tiles, in ascending page order (docs/heat-map.md, "Tiles").
#[derive(Debug)]
pub struct HeatMap {
    /// Page index and tallies of each tile; `None` for a page only the setters touched.
    pub tiles: Vec<(u64, Option<Box<Tile>>)>,
    /// Who did the writes, when recorded [`ThermalRecorder::with_attribution`].
    pub writers: Option<Writers>,
}

/// The tallies of one byte (see [`HeatMap::hottest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hot {
    /// The byte's address in the target's memory.
    pub addr: u64,
    /// Instructions attributed to it.
    pub instructions: u64,
    /// Loop iterations attributed to it.
    pub loops: u32,
    /// Calls attributed to it.
    pub calls: u32,
    /// Render accesses that touched it.
    pub accesses: u32,
    /// The calling-context node ([`Writers::tree`]) of the write that gave it the most
    /// instructions; [`NO_STACK`] without attribution.
    pub writer: u32,
}

/// The byte ranges that give untouched bytes their alpha.
#[derive(Debug, Clone, Copy, Default)]
pub struct Initialized<'a> {
    /// Active data segments of memory 0: alpha 24.
    pub data: &'a [Range],
    /// The request's input bytes as copied before the run: alpha 40 (wins over data).
    pub input: Option<Range>,
}

/// The scale (docs/heat-map.md, "Scale").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// `normalize=0`: `min(255, round(8·log2(1+v)))`; alpha `min(191, round(8·log2(A)))`.
    Absolute,
    /// `normalize=1`: each channel's largest value maps to 255 (alpha: 191).
    Normalized,
}

/// `round` half away from zero of a non-negative value, as a byte (callers keep it ≤ 255).
fn round_byte(x: f64) -> u8 {
    libm::round(x) as u8
}

/// Level of a colour value. `max`: the channel's largest value for [`Scale::Normalized`].
fn level(v: u64, scale: Scale, max: u64) -> u8 {
    if v == 0 {
        return 0;
    }
    let l = libm::log2(1.0 + v as f64);
    match scale {
        Scale::Absolute => round_byte((8.0 * l).min(255.0)),
        Scale::Normalized => round_byte(255.0 * l / libm::log2(1.0 + max as f64)),
    }
}

/// `alpha_level` of an access count `a > 0`.
fn alpha_level(a: u32, scale: Scale, max: u32) -> u8 {
    let l = libm::log2(a as f64);
    match scale {
        Scale::Absolute => round_byte((8.0 * l).min(191.0)),
        Scale::Normalized if max > 1 => round_byte(191.0 * l / libm::log2(max as f64)),
        Scale::Normalized => 0,
    }
}

impl HeatMap {
    /// Number of tiles (0 means nothing to report: rejection mode 8).
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether there are no tiles.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// The page of each tile, top to bottom.
    pub fn pages(&self) -> impl Iterator<Item = u64> + '_ {
        self.tiles.iter().map(|t| t.0)
    }

    /// Image width and height in pixels: 256 × 256·tiles.
    pub fn dimensions(&self) -> (u32, u32) {
        (TILE_SIDE, TILE_SIDE * self.tiles.len() as u32)
    }

    /// Sum over all pixels of (instructions, loop iterations, calls): the work up to and
    /// including the last attributed write, minus what went to bytes outside the tiles.
    pub fn totals(&self) -> (u64, u64, u64) {
        let mut t = (0u64, 0u64, 0u64);
        for tile in self.tiles.iter().filter_map(|t| t.1.as_deref()) {
            t.0 += tile.instructions.iter().sum::<u64>();
            t.1 += tile.loops.iter().map(|&v| v as u64).sum::<u64>();
            t.2 += tile.calls.iter().map(|&v| v as u64).sum::<u64>();
        }
        t
    }

    /// The `n` bytes with the most instructions attributed, most first (ties: lower address
    /// first), as [`Hot`] records.
    pub fn hottest(&self, n: usize) -> Vec<Hot> {
        // Kept in order as they come: a byte enters when it beats the last of the `n` so far.
        let before = |a: &Hot, b: &Hot| (b.instructions, a.addr) < (a.instructions, b.addr);
        let mut top: Vec<Hot> = Vec::with_capacity(n + 1);
        for (t, (page, tile)) in self.tiles.iter().enumerate() {
            let Some(tile) = tile.as_deref() else { continue };
            let writers = self.writers.as_ref().map(|w| &w.tiles[t]);
            for (b, &i) in tile.instructions.iter().enumerate() {
                if i == 0 || n == 0 {
                    continue;
                }
                let h = Hot {
                    writer: writers.map_or(NO_STACK, |w| w[b]),
                    addr: page * PAGE_SIZE + b as u64,
                    instructions: i,
                    loops: tile.loops[b],
                    calls: tile.calls[b],
                    accesses: tile.accesses[b],
                };
                if top.len() == n && !before(&h, &top[n - 1]) {
                    continue;
                }
                let at = top.partition_point(|x| before(x, &h));
                top.insert(at, h);
                top.truncate(n);
            }
        }
        top
    }

    /// Writes the pixels (RGBA8, rows top to bottom, 4 bytes per pixel, docs/heat-map.md)
    /// into `out`, which must hold exactly `4 · 256 · 256 · tiles` bytes.
    ///
    /// # Panics
    /// If `out` has another length.
    pub fn render_rgba(&self, scale: Scale, initialized: Initialized<'_>, out: &mut [u8]) {
        assert_eq!(out.len(), 4 * TILE_BYTES * self.tiles.len(), "pixel buffer size");
        let (mut mi, mut ml, mut mc, mut ma) = (0u64, 0u32, 0u32, 0u32);
        for tile in self.tiles.iter().filter_map(|t| t.1.as_deref()) {
            mi = mi.max(tile.instructions.iter().copied().max().unwrap_or(0));
            ml = ml.max(tile.loops.iter().copied().max().unwrap_or(0));
            mc = mc.max(tile.calls.iter().copied().max().unwrap_or(0));
            ma = ma.max(tile.accesses.iter().copied().max().unwrap_or(0));
        }
        // Alpha levels of the common small counts, computed once (log2 is the costly part).
        let table: Vec<u8> =
            (0..=ma.min(4096)).map(|a| if a == 0 { 0 } else { alpha_level(a, scale, ma) }).collect();
        for ((page, tile), px) in self.tiles.iter().zip(out.chunks_exact_mut(4 * TILE_BYTES)) {
            px.fill(0);
            // Untouched bytes first: data, then input over it.
            let base = page * PAGE_SIZE;
            let ranges = initialized
                .data
                .iter()
                .map(|&r| (r, ALPHA_DATA))
                .chain(initialized.input.map(|r| (r, ALPHA_INPUT)));
            for ((lo, hi), alpha) in ranges {
                let (lo, hi) = (lo.max(base), hi.min(base + PAGE_SIZE));
                for b in lo..hi.max(lo) {
                    px[4 * (b - base) as usize + 3] = alpha;
                }
            }
            let Some(tile) = tile.as_deref() else { continue };
            for (b, p) in px.chunks_exact_mut(4).enumerate() {
                let a = tile.accesses[b];
                if a == 0 {
                    continue;
                }
                p[0] = level(tile.instructions[b], scale, mi);
                p[1] = level(tile.loops[b] as u64, scale, ml as u64);
                p[2] = level(tile.calls[b] as u64, scale, mc as u64);
                let alpha = match table.get(a as usize) {
                    Some(&l) => l,
                    None => alpha_level(a, scale, ma),
                };
                p[3] = ALPHA_TOUCHED + alpha;
            }
        }
    }
}
