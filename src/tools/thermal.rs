//! `qip-interpret-memory-thermal-ktx2.wasm` as a library function: a multipart request in, the
//! memory heat map as a KTX2 file out (docs/request.md, docs/heat-map.md).

use alloc::string::String;
use alloc::vec::Vec;

use super::page_writes::{DEFAULT_BUDGET, clamp_budget};
use super::{Rejection, Request};
use crate::image::ktx2;
use crate::image::view::{self, HotByte, Metric, Picture};
use crate::profile::calltree::CallTree;
use crate::profile::names::FunctionNames;
use crate::profile::pages::Regions;
use crate::profile::thermal::{Finish, HeatMap, Hot, Initialized, Scale, StackRange, ThermalRecorder};
use crate::run::{Cause, Failure, Finished, Run};
use crate::wasm::Counters;

/// Default of the `normalize` uniform (1: each channel's maximum maps to 255).
pub const DEFAULT_NORMALIZE: bool = true;
/// Default of the `first_page` uniform.
pub const DEFAULT_FIRST_PAGE: u32 = 0;

/// The tool's own uniforms (docs/request.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `instruction_budget`, clamped to 1…1,000,000,000 here.
    pub budget: u32,
    /// `normalize`: `false` for 0, `true` for any other value.
    pub normalize: bool,
    /// `first_page`: the lowest page that may become a tile.
    pub first_page: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { budget: DEFAULT_BUDGET, normalize: DEFAULT_NORMALIZE, first_page: DEFAULT_FIRST_PAGE }
    }
}

/// How many of the hottest bytes [`Thermal::hottest`] lists.
pub const HOTTEST: usize = 8;

/// A successful heat map.
#[derive(Debug)]
pub struct Thermal {
    /// The KTX2 file (docs/heat-map.md, "KTX2 layout"): 224 header bytes, then RGBA8 pixels.
    pub ktx2: Vec<u8>,
    /// Image width in pixels (256).
    pub width: u32,
    /// Image height in pixels (256 per tile).
    pub height: u32,
    /// Page index of each tile, top to bottom.
    pub pages: Vec<u64>,
    /// Sum over the image of (instructions, loop iterations, calls) attributed to tile bytes.
    pub totals: (u64, u64, u64),
    /// The bytes with the most instructions attributed (at most [`HOTTEST`]), most first.
    pub hottest: Vec<Hot>,
    /// Counters of the setters and render.
    pub counters: Counters,
    /// Runs of the target: 1, or 2 when the single-run recording fell back to the reference's
    /// two-run method (see [`crate::profile::thermal`]).
    pub runs: u32,
    /// The tallies behind the pixels.
    pub heat_map: HeatMap,
    /// The regions of the run (for labels and the untouched bytes' tints).
    pub regions: Regions,
    /// The finished run (how it ended, its layout).
    pub finished: Finished,
    /// Who did the writes, when recorded ([`heat_map_with_writers`]).
    pub writers: Option<WriterNames>,
}

/// The writers of a heat map recorded with attribution, for people: the run's
/// calling-context tree, finished, and the module's function names.
#[derive(Debug, Clone)]
pub struct WriterNames {
    /// The calling-context tree whose nodes [`Hot::writer`] names.
    pub tree: CallTree,
    /// The target's function names.
    pub names: FunctionNames,
}

impl WriterNames {
    /// The name of the innermost function of call-tree node `node` (a [`Hot::writer`]);
    /// `None` for [`crate::profile::thermal::NO_STACK`].
    pub fn innermost(&self, node: u32) -> Option<String> {
        self.tree.nodes.get(node as usize).map(|n| self.names.get(n.function))
    }
}

impl Thermal {
    /// The RGBA8 pixels (rows top to bottom), i.e. the KTX2 level data.
    pub fn pixels(&self) -> &[u8] {
        &self.ktx2[ktx2::PIXELS_OFFSET..]
    }

    /// The `n` bytes with the most instructions ([`HeatMap::hottest`]), each with the name of
    /// its writer when the writers were recorded.
    pub fn hot_bytes(&self, n: usize) -> Vec<HotByte> {
        self.heat_map
            .hottest(n)
            .into_iter()
            .map(|hot| HotByte { writer: self.writers.as_ref().and_then(|w| w.innermost(hot.writer)), hot })
            .collect()
    }

    /// The heat map drawn for people ([`view::render`]) with `metric`, its `n` hottest bytes
    /// marked and listed with their writers: `qip-memory thermal --view`.
    pub fn view(&self, n: usize, metric: Metric) -> Picture {
        view::render(&self.heat_map, &self.regions, &self.hot_bytes(n), metric)
    }
}

/// The failure of a run that left no page at or above `first_page` read or written: there
/// is no tile to show (mode 8 at the request's end; shared by the heat map and the report).
pub(crate) fn nothing_to_report(first_page: u32, counters: Counters) -> Failure {
    Failure {
        cause: Cause::NothingToReport,
        message: reason!(
            "nothing to report: no page at or above first_page {first_page} was read or written"
        ),
        function: None,
        counters: Some(alloc::boxed::Box::new(counters)),
    }
}

/// Parses the request (`content_type` is the 70-byte multipart slot as the host left it),
/// runs the target once (twice in the rare case described in [`crate::profile::thermal`]) and
/// returns the heat map as KTX2.
///
/// # Errors
/// A [`Rejection`] with the request offset and mode of docs/rejections.md; mode 8 when no
/// page at or above `first_page` was read or written.
pub fn thermal(request: &[u8], content_type: &[u8], options: Options) -> Result<Thermal, Rejection> {
    thermal_with(request, content_type, options, StackRange::default())
}

/// [`thermal`] with an explicit way of finding the stack range: [`StackRange::Known`] gives
/// the reference's second run directly; a small `pending_limit` forces the fallback (tests).
///
/// # Errors
/// As [`thermal`].
pub fn thermal_with(
    request: &[u8],
    content_type: &[u8],
    options: Options,
    stack: StackRange,
) -> Result<Thermal, Rejection> {
    let req = Request::parse(request, content_type)?;
    let budget = clamp_budget(options.budget);
    heat_map_with(&mut req.content_run(budget), options, stack).map_err(|f| req.rejection(f, budget))
}

/// Runs `run` and returns its heat map (docs/heat-map.md); `options.budget` is not used (the
/// run has its own). A Content run may run twice (see [`crate::profile::thermal`]); a
/// program runs once, its stack area known from its layout.
///
/// # Errors
/// The run's [`Failure`]; [`Cause::NothingToReport`] when no page at or above `first_page`
/// was read or written.
pub fn heat_map(run: &mut Run<'_>, options: Options) -> Result<Thermal, Failure> {
    heat_map_with(run, options, StackRange::default())
}

/// [`heat_map`] with an explicit way of finding a Content target's stack range (see
/// [`thermal_with`]).
///
/// # Errors
/// As [`heat_map`].
pub fn heat_map_with(run: &mut Run<'_>, options: Options, stack: StackRange) -> Result<Thermal, Failure> {
    record(run, options, stack, ThermalRecorder::new)
}

/// [`heat_map`] that also records who did the writes ([`ThermalRecorder::with_attribution`]),
/// for the picture's legend ([`Thermal::view`]): `qip-memory thermal --view`. The KTX2 file
/// and every tally are the same as [`heat_map`]'s (attribution only watches); the components
/// call [`heat_map`], without its cost.
///
/// # Errors
/// As [`heat_map`].
pub fn heat_map_with_writers(run: &mut Run<'_>, options: Options) -> Result<Thermal, Failure> {
    record(run, options, StackRange::default(), |first_page, stack| {
        ThermalRecorder::new(first_page, stack).with_attribution()
    })
}

/// Runs `run` under recorders made by `recorder(first_page, stack range)` and gathers the heat
/// map.
fn record<const ATTRIBUTE: bool>(
    run: &mut Run<'_>,
    options: Options,
    stack: StackRange,
    recorder: impl Fn(u32, StackRange) -> ThermalRecorder<ATTRIBUTE>,
) -> Result<Thermal, Failure> {
    let mut first = recorder(options.first_page, stack);
    let mut finished = run.execute(&mut first)?;
    let mut runs = 1;
    // The lowest stack pointer, for the stack region of the labels (not for the pixels).
    let mut lowest = first.measured_stack().map(|(low, _)| low as u32);
    let heat_map: HeatMap = match first.finish() {
        Finish::Done(h) => *h,
        Finish::Rerun(range) => {
            lowest = range.map(|(low, _)| low as u32);
            let mut second = recorder(options.first_page, StackRange::Known(range));
            finished = run.execute(&mut second)?;
            runs = 2;
            match second.finish() {
                Finish::Done(h) => *h,
                Finish::Rerun(_) => unreachable!("a known stack range never defers a write"),
            }
        }
    };
    if heat_map.is_empty() {
        return Err(nothing_to_report(options.first_page, finished.counters));
    }
    let r = finished.layout.regions(lowest, finished.memory_bytes);
    let (width, height) = heat_map.dimensions();
    let mut ktx2 = Vec::with_capacity(ktx2::PIXELS_OFFSET + 4 * width as usize * height as usize);
    ktx2.extend_from_slice(&ktx2::rgba8_srgb_header(width, height));
    ktx2.resize(ktx2.capacity(), 0);
    let scale = if options.normalize { Scale::Normalized } else { Scale::Absolute };
    heat_map.render_rgba(
        scale,
        Initialized { data: &r.data, input: r.input_bytes },
        &mut ktx2[ktx2::PIXELS_OFFSET..],
    );
    // Only with attribution: so that the components' builds (no attribution) leave the tree's
    // finishing and the name section's reading (Rust demangling) out of their code.
    let writers = heat_map.writers.as_ref().filter(|_| ATTRIBUTE).map(|w| WriterNames {
        tree: w.tree.clone().finish(finished.counters.instructions),
        names: FunctionNames::read(run.module()),
    });
    Ok(Thermal {
        writers,
        ktx2,
        width,
        height,
        pages: heat_map.pages().collect(),
        totals: heat_map.totals(),
        hottest: heat_map.hottest(HOTTEST),
        counters: finished.counters,
        runs,
        heat_map,
        regions: r,
        finished,
    })
}
