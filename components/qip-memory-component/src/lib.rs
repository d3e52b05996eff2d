//! `qip-memory.component.wasm`: a component-model reactor (`wasm32-wasip2`) exporting the
//! interfaces `qip:memory/analyzers` and `qip:memory/heap` of `wit/memory.wit`. Argument
//! conversion only; no logic of its own.
//!
//! Each function builds the request a Content front end would send (for `analyzers`
//! [`qip_memory::tools::request::request_from_bytes`], the one of `qip-memory page-writes
//! target.wasm --input INPUT -u KEY=VALUE...`; for `heap`
//! [`qip_memory::tools::heap::analyze_request`] and [`qip_memory::tools::heap::diff_request`])
//! and passes it with the default multipart content type to the library function the CLI and
//! the QIP Content components run, so outputs and rejection offsets are theirs.

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::heap::HeapError;
use qip_memory::tools::request::request_from_bytes;
use qip_memory::tools::{self, heap, page_writes, report, thermal};

wit_bindgen::generate!({
    world: "memory",
    path: "../../wit",
});

use exports::qip::memory::analyzers::{Guest, HeatMapOptions, PageTableOptions, Rejection, ReportOptions};
use exports::qip::memory::heap::{
    AnalyzeOptions, ComparisonSort, ConstructorSort, DiffOptions, Guest as HeapGuest,
    Rejection as HeapRejection,
};

/// The exported implementation.
struct Memory;

/// The WIT record of a library rejection of a run of `target`, its message in the target's
/// terms ([`tools::explain`], as the CLI prints it).
fn rejection(r: tools::Rejection, target: &[u8]) -> Rejection {
    Rejection { offset: r.offset, mode: r.mode, message: tools::explain(&r, target) }
}

/// Borrows `(key, value)` pairs as the library takes them.
fn pairs(uniforms: &[(String, String)]) -> Vec<(&str, &str)> {
    uniforms.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

impl Guest for Memory {
    fn page_table(
        target: Vec<u8>,
        input: Option<Vec<u8>>,
        uniforms: Vec<(String, String)>,
        options: PageTableOptions,
    ) -> Result<String, Rejection> {
        let request = request_from_bytes(&target, input.as_deref(), &pairs(&uniforms)).map_err(|r| rejection(r, &target))?;
        page_writes::page_writes(&request, DEFAULT_CONTENT_TYPE.as_bytes(), options.instruction_budget)
            .map(|out| out.csv)
            .map_err(|r| rejection(r, &target))
    }

    fn heat_map(
        target: Vec<u8>,
        input: Option<Vec<u8>>,
        uniforms: Vec<(String, String)>,
        options: HeatMapOptions,
    ) -> Result<Vec<u8>, Rejection> {
        let request = request_from_bytes(&target, input.as_deref(), &pairs(&uniforms)).map_err(|r| rejection(r, &target))?;
        let options = thermal::Options {
            budget: options.instruction_budget,
            normalize: options.normalize,
            first_page: options.first_page,
        };
        thermal::thermal(&request, DEFAULT_CONTENT_TYPE.as_bytes(), options)
            .map(|out| out.ktx2)
            .map_err(|r| rejection(r, &target))
    }

    fn report(
        target: Vec<u8>,
        input: Option<Vec<u8>>,
        uniforms: Vec<(String, String)>,
        options: ReportOptions,
    ) -> Result<String, Rejection> {
        let request = request_from_bytes(&target, input.as_deref(), &pairs(&uniforms)).map_err(|r| rejection(r, &target))?;
        let options = report::Options { budget: options.instruction_budget, first_page: options.first_page };
        report::report(&request, DEFAULT_CONTENT_TYPE.as_bytes(), options)
            .map(|r| r.to_html())
            .map_err(|r| rejection(r, &target))
    }
}

/// The WIT record of a heap analyzer rejection.
fn heap_rejection(r: tools::Rejection) -> HeapRejection {
    HeapRejection { offset: r.offset, mode: r.mode, message: r.message }
}

/// Runs the heap analyzer on `request` with the component's uniforms (`top` 0 keeps all rows).
/// `top: some(0)` is WARPO's `--top must be a positive integer`: mode 6 (a bad uniform value)
/// at the end of the request, reported only after the analysis succeeded, in the CLI's order.
fn heap_json(request: &[u8], sort: u32, top: Option<u32>) -> Result<String, HeapRejection> {
    let json = heap::heap_json(request, DEFAULT_CONTENT_TYPE.as_bytes(), sort, top.unwrap_or(0))
        .map_err(heap_rejection)?;
    match top {
        Some(0) => Err(HeapRejection {
            offset: u32::try_from(request.len()).unwrap_or(u32::MAX),
            mode: 6,
            message: HeapError::InvalidTop.to_string(),
        }),
        _ => Ok(json),
    }
}

impl HeapGuest for Memory {
    fn heap_analyze(wasm: Vec<u8>, dump: Vec<u8>, options: AnalyzeOptions) -> Result<String, HeapRejection> {
        let request = heap::analyze_request(&wasm, &dump).map_err(heap_rejection)?;
        // The sort codes of the component's `sort` uniform (tools::heap::constructor_sort).
        let sort = match options.sort {
            ConstructorSort::Retained => 0,
            ConstructorSort::Shallow => 1,
            ConstructorSort::Count => 2,
        };
        heap_json(&request, sort, options.top)
    }

    fn heap_diff(
        wasm: Vec<u8>,
        before: Vec<u8>,
        after: Vec<u8>,
        options: DiffOptions,
    ) -> Result<String, HeapRejection> {
        let request = heap::diff_request(&wasm, &before, &after).map_err(heap_rejection)?;
        // The sort codes of the component's `sort` uniform (tools::heap::comparison_sort).
        let sort = match options.sort {
            ComparisonSort::Delta => 0,
            ComparisonSort::Alloc => 1,
            ComparisonSort::Freed => 2,
            ComparisonSort::Count => 3,
        };
        heap_json(&request, sort, options.top)
    }
}

export!(Memory);
