//! The memory report (docs/report.md): one run of a Content request observed by the page
//! table, the heat map with attribution and the per-function recorder at once, turned into one
//! data object (JSON) and a self-contained HTML page that draws it.
//!
//! Every number of the report is one of the other tools' numbers or a sum of them: the pages
//! are [`super::page_writes`]'s rows, the tiles [`super::thermal`]'s tallies (the same
//! recorder, plus who did the writes), the counters those of the run.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value, json};

use super::page_writes::clamp_budget;
use super::{Rejection, Request};
use crate::image::view;
use crate::profile::calltree::{CallTree, Costs};
use crate::profile::functions::FunctionCosts;
use crate::profile::lines::{LineCosts, LineTable, Site};
use crate::profile::names::FunctionNames;
use crate::profile::pages::{PAGE_SIZE, PageRecorder, PageTable, Regions};
use crate::profile::thermal::{Finish, HeatMap, Hot, NO_STACK, StackRange, ThermalRecorder, Tile};
use crate::profile::timeline::{Timeline, Times};
use crate::run::{Failure, Finished, Run};
use crate::wasm::Counters;

/// How many of the hottest bytes the report lists and marks.
pub const HOTTEST: usize = 16;

/// The report's own options (the request's uniforms, as for the other tools: README,
/// "Uniforms of the tool").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `instruction_budget`, clamped to 1…1,000,000,000 here.
    pub budget: u32,
    /// `first_page`: the lowest page that may become a tile.
    pub first_page: u32,
}

/// One function's row: its name and costs, self and inclusive.
#[derive(Debug, Clone)]
pub struct FunctionRow {
    /// Index in the module's function index space.
    pub index: u32,
    /// Its name for people ([`FunctionNames`]).
    pub name: String,
    /// What it did itself, with its pages.
    pub costs: FunctionCosts,
    /// What it did itself, as the call tree counts it; `write_instructions` is the work its
    /// writes received on the tiles (the heat-map rule: docs/report.md, "Attribution").
    pub self_costs: Costs,
    /// What it and its callees did (each path counted once, docs/report.md, "Call tree").
    pub total: Costs,
}

/// A finished report.
#[derive(Debug)]
pub struct Report {
    /// The budget the run had (a Content target's clamped); `None`: no limit.
    pub budget: Option<u64>,
    /// What ran on what, for the title and the summary.
    pub subject: Subject,
    /// Counters of the setters and render.
    pub counters: Counters,
    /// The page table, as `qip-memory page-writes` prints it.
    pub pages: PageTable,
    /// The heat map with its writers, as `qip-memory thermal` records it.
    pub heat_map: HeatMap,
    /// The regions of the run (data segments, input, stack, output).
    pub regions: Regions,
    /// Every function that ran, most self instructions first (ties: lower index first).
    pub functions: Vec<FunctionRow>,
    /// Function names, for the stacks.
    pub names: FunctionNames,
    /// Facts about the target module.
    pub module: ModuleFacts,
    /// Runs of the target (2 when the heat map needed the two-run fallback).
    pub runs: u32,
    /// The time axis.
    pub times: Times,
    /// The finished run (how it ended, its layout).
    pub finished: Finished,
    /// The calling-context tree of the run (docs/report.md, "Call tree").
    pub tree: CallTree,
    /// Source lines, when the module has DWARF line tables (docs/report.md, "Source lines").
    pub source: Option<Source>,
}

/// What the report knows of the target's source: its line table and the run's costs per line.
#[derive(Debug)]
pub struct Source {
    /// The module's line table.
    pub table: LineTable,
    /// The sites (a line of a function) that ran, with their costs.
    pub lines: Vec<(Site, LineCosts)>,
    /// The costs of code without a line (line 0, or outside every sequence).
    pub unlined: LineCosts,
}

/// What the report is about: the target's name and its input, for the title and the
/// summary (docs/report.md, "Title").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// The target's name: the one the front end gives (the CLI: the file's name, for a
    /// program), else the module's own name from its `name` section, else `None`.
    pub name: Option<String>,
    /// The input in one line: a Content target's input text (its first [`SUBJECT_INPUT`]
    /// characters, lossy UTF-8), a program's arguments after `argv[0]` (or the export and its
    /// arguments) joined by spaces.
    pub input: String,
}

/// Most characters of the input [`Subject::input`] shows.
pub const SUBJECT_INPUT: usize = 120;

/// The [`Subject`] of `run`, before it runs (a command's WASI arguments are taken by its
/// execution).
fn subject(run: &Run<'_>) -> Subject {
    use crate::run::Program;
    let name = crate::wasm::Names::of_module(run.module()).module.map(String::from);
    let input = match &run.program {
        Program::Content(c) => {
            let text = String::from_utf8_lossy(c.input);
            let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
            let mut shown: String = one_line.chars().take(SUBJECT_INPUT).collect();
            if one_line.chars().count() > SUBJECT_INPUT {
                shown.push('…');
            }
            shown
        }
        #[cfg(feature = "std")]
        Program::Invoke(i) => {
            let mut s = i.export.clone();
            for a in &i.args {
                s.push(' ');
                s.push_str(&format!("{a}"));
            }
            s
        }
        #[cfg(feature = "wasi")]
        Program::Command(c) => c.imports.wasi.as_ref().map_or_else(String::new, |w| {
            let args: Vec<String> =
                w.args.iter().skip(1).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
            args.join(" ")
        }),
    };
    Subject { name, input }
}

/// What the report's summary says about the target module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFacts {
    /// Size of the module in bytes.
    pub bytes: usize,
    /// Functions, imported and defined.
    pub functions: u32,
    /// Data segments.
    pub data_segments: usize,
    /// Memory 0: initial and maximum size in 64 KiB pages.
    pub memory: Option<(u64, Option<u64>)>,
    /// Table 0: initial and maximum elements.
    pub table: Option<(u64, Option<u64>)>,
    /// Bytes of memory 0 at the end of the run.
    pub memory_bytes: u64,
}

/// The recorders of one report run.
type Recorders = (ThermalRecorder<true>, (PageRecorder, Timeline));

fn recorders(first_page: u32, stack: StackRange, lines: Option<&LineTable>) -> Recorders {
    (
        ThermalRecorder::new(first_page, stack).with_attribution().with_lines(lines),
        (PageRecorder::new(), Timeline::new()),
    )
}

/// The module's line table: read by the builds with `std` (the CLI, the component-model
/// builds); the Content component leaves DWARF reading out for its size (docs/components.md).
fn line_table(module: &[u8]) -> Option<LineTable> {
    if cfg!(feature = "std") { LineTable::read(module) } else { None }
}

/// Parses the request (`content_type` is the 70-byte multipart slot as the host left it), runs
/// the target once (twice in the rare case of [`crate::profile::thermal`]) and gathers the
/// report.
///
/// # Errors
/// A [`Rejection`] with the request offset and mode of the README's rejection table; mode 8 when no
/// page at or above `first_page` was read or written (there would be no heat map).
pub fn report(request: &[u8], content_type: &[u8], options: Options) -> Result<Report, Rejection> {
    let req = Request::parse(request, content_type)?;
    let budget = clamp_budget(options.budget);
    report_of(&mut req.content_run(budget), options).map_err(|f| req.rejection(f, budget))
}

/// Runs `run` (a Content run once, twice in the rare case of [`crate::profile::thermal`]; a
/// program once) and gathers the report; `options.budget` is not used (the run has its
/// own).
///
/// # Errors
/// The run's [`Failure`]; [`crate::run::Cause::NothingToReport`] when no page at or above
/// `first_page` was read or written (there would be no heat map).
pub fn report_of(run: &mut Run<'_>, options: Options) -> Result<Report, Failure> {
    let subject = subject(run);
    let line_table = line_table(run.module());
    let mut rec = recorders(options.first_page, StackRange::default(), line_table.as_ref());
    let mut finished = run.execute(&mut rec)?;
    let mut runs = 1;
    let (thermal, (mut pages, mut timeline)) = rec;
    let heat_map = match thermal.finish() {
        Finish::Done(h) => *h,
        Finish::Rerun(range) => {
            let mut second = recorders(options.first_page, StackRange::Known(range), line_table.as_ref());
            finished = run.execute(&mut second)?;
            runs = 2;
            let (thermal, rest) = second;
            (pages, timeline) = rest;
            match thermal.finish() {
                Finish::Done(h) => *h,
                Finish::Rerun(_) => unreachable!("a known stack range never defers a write"),
            }
        }
    };
    if heat_map.is_empty() {
        return Err(super::thermal::nothing_to_report(options.first_page, finished.counters));
    }
    let regions = finished.layout.regions(pages.lowest_stack_pointer(), finished.memory_bytes);
    let table = PageTable::new(&pages, &regions);
    let names = FunctionNames::read(run.module());
    let instructions = finished.counters.instructions;
    let times = timeline.finish(instructions);
    let mut heat_map = heat_map;
    let recorder = heat_map.writers.as_mut().map(|w| core::mem::take(&mut w.tree)).unwrap_or_default();
    let (tree, (line_costs, unlined)) = recorder.finish_lines(instructions);
    let source = line_table.map(|table| Source { lines: line_costs, unlined, table });
    let per_function = tree.functions();
    let mut rows: Vec<FunctionRow> = tree
        .function_costs()
        .into_iter()
        .zip(per_function)
        .enumerate()
        .filter(|(_, (c, _))| c.entries > 0)
        .map(|(i, (costs, (_, self_costs, total)))| FunctionRow {
            index: i as u32,
            name: names.get(i as u32),
            costs,
            self_costs,
            total,
        })
        .collect();
    crate::order::sort_by(&mut rows, |a, b| {
        (b.costs.self_instructions, a.index) < (a.costs.self_instructions, b.index)
    });
    let module = facts(&finished, run.module().len());
    Ok(Report {
        budget: run.budget,
        subject,
        counters: finished.counters,
        pages: table,
        heat_map,
        regions,
        functions: rows,
        names,
        module,
        runs,
        times,
        finished,
        tree,
        source,
    })
}

fn facts(finished: &Finished, bytes: usize) -> ModuleFacts {
    let m = &finished.module;
    ModuleFacts {
        bytes,
        functions: m.function_count(),
        data_segments: m.data_segment_count(),
        memory: m.memories().first().map(|t| (t.initial, t.maximum)),
        table: m.tables().next(),
        memory_bytes: finished.memory_bytes,
    }
}

/// `program`: the kind, how it ended, where its stack pointer was found (docs/report.md).
fn program(f: &Finished) -> Value {
    use crate::run::{End, Kind, StackSource};
    let kind = match f.kind {
        Kind::Content => "content",
        Kind::Command => "command",
        Kind::Module => "module",
    };
    let end = match &f.end {
        End::Output { bytes, .. } => json!({ "output_bytes": bytes.len() }),
        End::Exit(code) => json!({ "exit_code": code }),
        End::Return(values) => json!({ "returned": values.len() }),
        End::Stopped(failure) => json!({ "stopped": failure.message }),
    };
    let stack = f.layout.stack.map_or(Value::Null, |s| {
        let source = match s.source {
            StackSource::Content => "content",
            StackSource::Named => "named",
            StackSource::Llvm => "llvm",
        };
        json!({ "global": s.global, "source": source, "top": s.top })
    });
    json!({ "kind": kind, "end": end, "stack_pointer": stack })
}

fn range(r: Option<(u64, u64)>) -> Value {
    r.map_or(Value::Null, |(a, b)| json!([a, b]))
}

fn limits(l: Option<(u64, Option<u64>)>) -> Value {
    l.map_or(Value::Null, |(min, max)| json!({ "min": min, "max": max }))
}

impl Report {
    /// The hottest bytes (at most [`HOTTEST`]), most instructions first.
    pub fn hottest(&self) -> Vec<Hot> {
        self.heat_map.hottest(HOTTEST)
    }

    /// `file:line` of the instruction at module offset `offset`, or null (no line tables, no
    /// line there, or no offset known).
    fn line_at(&self, offset: Option<u32>) -> Value {
        match (&self.source, offset) {
            (Some(s), Some(o)) => s.table.lookup(o).map_or(Value::Null, |l| s.table.describe(l).into()),
            _ => Value::Null,
        }
    }

    /// The module offset of the instruction whose write gave the byte at `addr` its most work,
    /// when the run followed every op.
    pub fn write_offset(&self, addr: u64) -> Option<u32> {
        let w = self.heat_map.writers.as_ref()?;
        let t = self.heat_map.tiles.iter().position(|(p, _)| *p == addr / PAGE_SIZE)?;
        let o = *w.offsets.get(t)?.get((addr % PAGE_SIZE) as usize)?;
        (o != crate::profile::thermal::NO_OFFSET).then_some(o)
    }

    /// The module offset of the first instruction of function `index` (its first line).
    fn module_code_offset(&self, index: u32) -> Option<u32> {
        self.finished.module.code_offset(index)
    }

    /// The `lines` entry of the data object: the source files and the run's costs per line, or
    /// null without line tables.
    fn lines_data(&self) -> Value {
        let Some(s) = &self.source else { return Value::Null };
        let cost = |c: &LineCosts| {
            json!({
                "instructions": c.instructions,
                "loads": c.loads,
                "stores": c.stores,
                "bytes_read": c.bytes_read,
                "bytes_written": c.bytes_written,
            })
        };
        let rows: Vec<Value> = s
            .lines
            .iter()
            .map(|(site, c)| {
                let mut row = cost(c);
                row["function"] = site.function(&self.finished.module).into();
                row["file"] = site.line.file.into();
                row["line"] = site.line.line.into();
                row
            })
            .collect();
        json!({ "files": s.table.files, "rows": rows, "unlined": cost(&s.unlined) })
    }

    /// The call stack (function indices, outermost first) of a node from [`Hot::writer`];
    /// empty for [`NO_STACK`].
    pub fn stack(&self, node: u32) -> Vec<u32> {
        self.tree.path(node)
    }

    /// The data object of docs/report.md, as a JSON value.
    pub fn data(&self) -> Value {
        serde_json::to_value(Data { rest: self.small_data(), report: self }).expect("the data serializes")
    }

    /// Everything of the data object but `time` and `tiles`, whose columns are written straight
    /// to the output by [`TimeData`] and [`TilesData`] instead of being built as values first.
    fn small_data(&self) -> Map<String, Value> {
        let c = &self.counters;
        let pages: Vec<Value> = self
            .pages
            .rows
            .iter()
            .map(|r| {
                json!({
                    "page": r.page,
                    "region": r.region,
                    "initialized_bytes": r.initialized_bytes,
                    "reads": r.reads,
                    "bytes_read": r.bytes_read,
                    "writes": r.writes,
                    "bytes_written": r.bytes_written,
                    "distinct_bytes_written": r.distinct_bytes_written,
                    "rewrite_ratio": r.rewrite_ratio_hundredths().map(|h| format!("{}.{:02}", h / 100, h % 100)),
                })
            })
            .collect();
        let functions: Vec<Value> = self
            .functions
            .iter()
            .map(|f| {
                let mut row = Map::new();
                row.insert("index".into(), f.index.into());
                row.insert("name".into(), f.name.as_str().into());
                row.insert("entries".into(), f.costs.entries.into());
                row.insert("self_instructions".into(), f.costs.self_instructions.into());
                row.insert("write_instructions".into(), f.self_costs.write_instructions.into());
                row.insert("loads".into(), f.costs.loads.into());
                row.insert("stores".into(), f.costs.stores.into());
                row.insert("bytes_read".into(), f.costs.bytes_read.into());
                row.insert("bytes_written".into(), f.costs.bytes_written.into());
                row.insert("pages_touched".into(), f.costs.pages_touched().into());
                row.insert("calls_self".into(), f.self_costs.calls.into());
                row.insert("line".into(), self.line_at(self.module_code_offset(f.index)));
                for (k, v) in metrics(&f.total) {
                    row.insert(alloc::format!("{k}_total"), v.into());
                }
                Value::Object(row)
            })
            .collect();
        let hottest: Vec<Value> = self
            .hottest()
            .iter()
            .map(|h| {
                json!({
                    "address": h.addr,
                    "instructions": h.instructions,
                    "loops": h.loops,
                    "calls": h.calls,
                    "accesses": h.accesses,
                    "node": if h.writer == NO_STACK { Value::Null } else { h.writer.into() },
                    "line": self.line_at(self.write_offset(h.addr)),
                })
            })
            .collect();
        let mut names = Map::new();
        for f in &self.functions {
            names.insert(format!("{}", f.index), f.name.as_str().into());
        }
        let (ti, tl, tc) = self.heat_map.totals();
        let mut counters = Map::new();
        for (k, v) in c.fields() {
            counters.insert(String::from(k), Value::from(v));
        }
        let m = &self.module;
        let r = &self.regions;
        let data = json!({
            "version": 3,
            "budget": self.budget,
            "target": { "name": self.subject.name, "input": self.subject.input },
            "runs": self.runs,
            "counters": counters,
            "module": {
                "bytes": m.bytes,
                "functions": m.functions,
                "data_segments": m.data_segments,
                "memory": limits(m.memory),
                "table": limits(m.table),
                "memory_bytes": m.memory_bytes,
            },
            "regions": {
                "data": r.data.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>(),
                "input": range(r.input),
                "input_bytes": range(r.input_bytes),
                "stack": range(r.stack),
                "output": range(r.output),
                "heap": range(r.heap),
                "io": r.io.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>(),
            },
            "program": program(&self.finished),
            "lines": self.lines_data(),
            "pages": pages,
            "totals": { "instructions": ti, "loops": tl, "calls": tc },
            "hottest": hottest,
            "functions": functions,
            "names": names,
        });
        match data {
            Value::Object(m) => m,
            _ => unreachable!("an object literal"),
        }
    }

    /// The self-contained HTML page (docs/report.md): the page's template with the data
    /// object embedded as `<script type="application/json" id="qip-memory-data">`.
    pub fn to_html(&self) -> String {
        let data = Data { rest: self.small_data(), report: self };
        let json = escape_for_script(&to_json(&data));
        let colours = json!({
            "viridis": view::VIRIDIS,
            "background": view::BACKGROUND,
            "touched": view::TOUCHED,
            "data": view::DATA,
            "input": view::INPUT,
        });
        // The page draws with the picture's colours: one table, in `image::view`.
        let colours = to_json(&colours);
        // The marks' places are found when this compiles (the data's comes first).
        let mut html = String::with_capacity(TEMPLATE.len() + colours.len() + json.len());
        html.push_str(&TEMPLATE[..DATA_AT]);
        html.push_str(&json);
        html.push_str(&TEMPLATE[DATA_AT + DATA_MARK.len()..COLOURS_AT]);
        html.push_str(&colours);
        html.push_str(&TEMPLATE[COLOURS_AT + COLOURS_MARK.len()..]);
        html
    }
}

/// The data object: the small entries as values, then `tiles` streamed.
struct Data<'a> {
    rest: Map<String, Value>,
    report: &'a Report,
}

impl Serialize for Data<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.rest.len() + 2))?;
        for (k, v) in &self.rest {
            map.serialize_entry(k, v)?;
        }
        map.serialize_entry("call_tree", &TreeData(self.report))?;
        map.serialize_entry("time", &TimeData(&self.report.times))?;
        map.serialize_entry("tiles", &TilesData(self.report))?;
        map.end()
    }
}

/// The measures of [`Costs`] by their names in the data object, in its order.
fn metrics(c: &Costs) -> [(&'static str, u64); 7] {
    [
        ("instructions", c.instructions),
        ("loads", c.loads),
        ("stores", c.stores),
        ("bytes_read", c.bytes_read),
        ("bytes_written", c.bytes_written),
        ("calls", c.calls),
        ("write_instructions", c.write_instructions),
    ]
}

/// `call_tree`: the calling-context tree's nodes in their order (a parent before its
/// children), each with `parent` (a node index, null for a root), `function` (an index into
/// `functions`), `entries`, `merged`, `line` (`file:line` of the call that entered the path,
/// with line tables) and every measure of [`metrics`] as `NAME_self` and `NAME_total`
/// (docs/report.md, "Call tree").
struct TreeData<'a>(&'a Report);

impl Serialize for TreeData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// One node, with its function's row.
        struct NodeData<'a>(&'a crate::profile::calltree::Node, u32, Value);
        impl Serialize for NodeData<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let n = self.0;
                let mut map = s.serialize_map(Some(18))?;
                let parent = (n.parent != crate::profile::calltree::NO_NODE).then_some(n.parent);
                map.serialize_entry("parent", &parent)?;
                map.serialize_entry("function", &self.1)?;
                map.serialize_entry("entries", &n.entries)?;
                map.serialize_entry("merged", &n.merged)?;
                map.serialize_entry("line", &self.2)?;
                for ((k, own), (_, all)) in metrics(&n.self_costs).into_iter().zip(metrics(&n.total)) {
                    map.serialize_entry(&alloc::format!("{k}_self"), &own)?;
                    map.serialize_entry(&alloc::format!("{k}_total"), &all)?;
                }
                map.end()
            }
        }
        let r = self.0;
        // Function index → row of `functions`.
        let mut row = Vec::new();
        for (i, f) in r.functions.iter().enumerate() {
            let at = f.index as usize;
            if row.len() <= at {
                row.resize(at + 1, u32::MAX);
            }
            row[at] = i as u32;
        }
        let mut seq = s.serialize_seq(Some(r.tree.nodes.len()))?;
        for n in &r.tree.nodes {
            let function = row.get(n.function as usize).copied().unwrap_or(u32::MAX);
            let site = (n.call_site != crate::profile::calltree::NO_OFFSET).then_some(n.call_site);
            seq.serialize_element(&NodeData(n, function, r.line_at(site)))?;
        }
        seq.end()
    }
}

/// `time`: the time axis ([`Times`]), reads and writes as two columns per page.
struct TimeData<'a>(&'a Times);

impl Serialize for TimeData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// One page's touches.
        struct Page<'a>(&'a crate::profile::timeline::PageTimes);
        impl Serialize for Page<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let p = self.0;
                let mut map = s.serialize_map(Some(5))?;
                map.serialize_entry("page", &p.page)?;
                map.serialize_entry("first", &p.first)?;
                map.serialize_entry("last", &p.last)?;
                map.serialize_entry("reads", &Bins(&p.bins, false))?;
                map.serialize_entry("writes", &Bins(&p.bins, true))?;
                map.end()
            }
        }
        /// The read (or write) counts of one page's bins.
        struct Bins<'a>(&'a [(u32, u32)], bool);
        impl Serialize for Bins<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(|b| if self.1 { b.1 } else { b.0 }))
            }
        }
        let t = self.0;
        let mut map = s.serialize_map(Some(6))?;
        map.serialize_entry("bin_width", &t.bin_width)?;
        map.serialize_entry("bins", &t.bins)?;
        map.serialize_entry("pages", &t.pages.iter().map(Page).collect::<Vec<_>>())?;
        map.serialize_entry("stack", &t.stack)?;
        map.serialize_entry("lowest_stack", &t.lowest_stack)?;
        map.serialize_entry("highest_written", &t.highest_written)?;
        map.end()
    }
}

/// `tiles`: per tile, its page and its columns, run-length encoded (docs/report.md, "Tiles"):
/// `touched` (the offsets of the bytes accessed or given work) with `accesses` over them, and
/// `worked` (the offsets of the bytes given work) with `instructions`, `loops`, `calls` and
/// `writer` over them.
struct TilesData<'a>(&'a Report);

impl Serialize for TilesData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let heat = &self.0.heat_map;
        let writers = heat.writers.as_ref();
        let mut seq = s.serialize_seq(Some(heat.tiles.len()))?;
        for (t, (page, tile)) in heat.tiles.iter().enumerate() {
            let writer = writers.map(|w| &w.tiles[t][..]);
            seq.serialize_element(&TileData { page: *page, tile: tile.as_deref(), writer })?;
        }
        seq.end()
    }
}

struct TileData<'a> {
    page: u64,
    tile: Option<&'a Tile>,
    writer: Option<&'a [u32]>,
}

impl Serialize for TileData<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(8))?;
        map.serialize_entry("page", &self.page)?;
        let Some(tile) = self.tile else {
            for k in ["touched", "accesses", "worked", "instructions", "loops", "calls", "writer"] {
                map.serialize_entry(k, &[0u8; 0])?;
            }
            return map.end();
        };
        let worked_at = |b: usize| tile.instructions[b] != 0 || tile.loops[b] != 0 || tile.calls[b] != 0;
        let touched: Vec<usize> =
            (0..PAGE_SIZE as usize).filter(|&b| tile.accesses[b] != 0 || worked_at(b)).collect();
        let worked: Vec<usize> = touched.iter().copied().filter(|&b| worked_at(b)).collect();
        let writer = self.writer;
        map.serialize_entry("touched", &Runs::gaps(&touched))?;
        map.serialize_entry("accesses", &Runs::of(touched.iter().map(|&b| tile.accesses[b])))?;
        map.serialize_entry("worked", &Runs::gaps(&worked))?;
        map.serialize_entry("instructions", &Runs::of(worked.iter().map(|&b| tile.instructions[b])))?;
        map.serialize_entry("loops", &Runs::of(worked.iter().map(|&b| tile.loops[b])))?;
        map.serialize_entry("calls", &Runs::of(worked.iter().map(|&b| tile.calls[b])))?;
        let stack = |b: usize| writer.map(|w| w[b]).filter(|&w| w != NO_STACK);
        map.serialize_entry("writer", &Runs::of(worked.iter().map(|&b| stack(b))))?;
        map.end()
    }
}

/// A run-length encoded column: `[value, count, value, count, …]` (docs/report.md, "Tiles").
struct Runs<T>(Vec<(T, u32)>);

impl<T: PartialEq> Runs<T> {
    fn of(values: impl Iterator<Item = T>) -> Self {
        let mut runs: Vec<(T, u32)> = Vec::new();
        for v in values {
            match runs.last_mut() {
                Some((last, n)) if *last == v => *n += 1,
                _ => runs.push((v, 1)),
            }
        }
        Runs(runs)
    }
}

impl Runs<u64> {
    /// Ascending offsets as the runs of their gaps (the first gap counts from 0).
    fn gaps(offsets: &[usize]) -> Self {
        let mut last = 0;
        Runs::of(offsets.iter().map(|&o| {
            let gap = (o - last) as u64;
            last = o;
            gap
        }))
    }
}

impl<T: Serialize> Serialize for Runs<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(2 * self.0.len()))?;
        for (v, n) in &self.0 {
            seq.serialize_element(v)?;
            seq.serialize_element(n)?;
        }
        seq.end()
    }
}

/// The report page: HTML, CSS and the script that draws the data (no external resources).
const TEMPLATE: &str = include_str!("report.html");
/// Where the data object goes in [`TEMPLATE`].
const DATA_MARK: &str = "/*QIP-MEMORY-DATA*/";
/// Where the colour table of [`view`] goes in [`TEMPLATE`].
const COLOURS_MARK: &str = "/*QIP-MEMORY-COLOURS*/";
/// The byte offsets of the two marks in [`TEMPLATE`], the data's first.
const DATA_AT: usize = find(TEMPLATE, DATA_MARK, 0);
const COLOURS_AT: usize = find(TEMPLATE, COLOURS_MARK, DATA_AT + DATA_MARK.len());

/// The byte offset of the first `needle` in `hay` at or after `from`, computed when the crate
/// compiles: a template without its marks, or with them in the other order, does not build.
const fn find(hay: &str, needle: &str, from: usize) -> usize {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let mut i = from;
    while i + n.len() <= h.len() {
        let mut j = 0;
        while j < n.len() && h[i + j] == n[j] {
            j += 1;
        }
        if j == n.len() {
            return i;
        }
        i += 1;
    }
    panic!("a mark is missing from the report template")
}

/// `json` with every `<` written `\u003c` (the same JSON string: `<` occurs only inside
/// strings), so that nothing in it can end or re-enter the script element it is embedded in:
/// neither `</script`, nor `<!--` or `<script`, which switch the HTML tokenizer into the
/// script-data escaped states (HTML Living Standard, 13.2.5.4 and following).
fn escape_for_script(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// `value` as compact JSON. Serializing into a string cannot fail for the report's data (no
/// map keys other than strings, no failing `Serialize`); the error is not formatted, which
/// keeps `serde_json`'s error formatting out of the Content component.
fn to_json(value: &impl serde::Serialize) -> String {
    match serde_json::to_string(value) {
        Ok(s) => s,
        Err(_) => unreachable!("the report's data serializes"),
    }
}
