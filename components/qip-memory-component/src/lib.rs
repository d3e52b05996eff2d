//! `qip-memory.component.wasm`: a component-model reactor (`wasm32-wasip2`) exporting the
//! interface `qip:memory/analyzers` of `wit/memory.wit`. Argument conversion only; no logic
//! of its own.
//!
//! Each function builds the request of [`qip_memory::tools::request::request_from_bytes`] (the
//! one `qip-memory page-writes target.wasm --input INPUT -u KEY=VALUE...` sends) and passes it
//! with the default multipart content type to the library function the CLI and the QIP
//! Content components run, so outputs and rejection offsets are theirs.

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::request::request_from_bytes;
use qip_memory::tools::{self, page_writes, thermal};

wit_bindgen::generate!({
    world: "memory",
    path: "../../wit",
});

use exports::qip::memory::analyzers::{Guest, HeatMapOptions, PageTableOptions, Rejection};

/// The exported implementation.
struct Memory;

/// The WIT record of a library rejection.
fn rejection(r: tools::Rejection) -> Rejection {
    Rejection { offset: r.offset, mode: r.mode, message: r.message }
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
        let request = request_from_bytes(&target, input.as_deref(), &pairs(&uniforms)).map_err(rejection)?;
        page_writes::page_writes(&request, DEFAULT_CONTENT_TYPE.as_bytes(), options.instruction_budget)
            .map(|out| out.csv)
            .map_err(rejection)
    }

    fn heat_map(
        target: Vec<u8>,
        input: Option<Vec<u8>>,
        uniforms: Vec<(String, String)>,
        options: HeatMapOptions,
    ) -> Result<Vec<u8>, Rejection> {
        let request = request_from_bytes(&target, input.as_deref(), &pairs(&uniforms)).map_err(rejection)?;
        let options = thermal::Options {
            budget: options.instruction_budget,
            normalize: options.normalize,
            first_page: options.first_page,
        };
        thermal::thermal(&request, DEFAULT_CONTENT_TYPE.as_bytes(), options)
            .map(|out| out.ktx2)
            .map_err(rejection)
    }
}

export!(Memory);
