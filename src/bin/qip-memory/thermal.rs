//! `qip-memory thermal`: the memory heat map of `memory-tools.md` 3 without a Wasm host,
//! computed by [`thermal`](qip_memory::tools::thermal::thermal) on the request of
//! [`crate::request`]; written as the component's KTX2 file (`-o`) or as a PNG of the same
//! pixels (`--png`).

use std::path::Path;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::thermal::{Options, thermal};

use crate::Failure;
use crate::request::{Target, budget, rejected};

/// What `thermal` was asked to do.
pub struct Args<'a> {
    /// The target and its input and uniforms.
    pub target: Target<'a>,
    /// The `instruction_budget` uniform.
    pub budget: u64,
    /// The `normalize` uniform (0 or 1).
    pub normalize: bool,
    /// The `first_page` uniform.
    pub first_page: u32,
    /// `-o PATH`: the KTX2 file.
    pub ktx2: Option<&'a Path>,
    /// `--png PATH`: the PNG.
    pub png: Option<&'a Path>,
    /// Print tiles, totals, the hottest bytes and the counters to stderr.
    pub stats: bool,
}

/// Runs `thermal`: writes the requested files; with `--stats` prints the tile pages, the image
/// totals, the bytes with the most instructions and the run's counters to stderr.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    let body = args.target.body()?;
    let options =
        Options { budget: budget(args.budget), normalize: args.normalize, first_page: args.first_page };
    let out = thermal(&body, DEFAULT_CONTENT_TYPE.as_bytes(), options).map_err(rejected)?;
    if let Some(path) = args.ktx2 {
        crate::png::write(path, &out.ktx2)?;
    }
    if let Some(path) = args.png {
        crate::png::write(path, &crate::png::encode(out.width, out.height, out.pixels())?)?;
    }
    if args.stats {
        let pages: Vec<String> = out.pages.iter().map(u64::to_string).collect();
        eprintln!("tiles {} (pages {})", out.pages.len(), pages.join(","));
        eprintln!("image_instructions {}", out.totals.0);
        eprintln!("image_loop_iterations {}", out.totals.1);
        eprintln!("image_calls {}", out.totals.2);
        eprintln!("runs {}", out.runs);
        for h in &out.hottest {
            eprintln!(
                "hot_byte {} page {} instructions {} loop_iterations {} calls {} accesses {}",
                h.addr,
                h.addr / 65536,
                h.instructions,
                h.loops,
                h.calls,
                h.accesses
            );
        }
        crate::print_counters(&out.counters);
    }
    Ok(())
}
