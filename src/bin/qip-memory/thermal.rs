//! `qip-memory thermal`: the memory heat map of docs/heat-map.md without a Wasm host,
//! computed by [`heat_map`](qip_memory::tools::thermal::heat_map) over the target's run (a
//! Content target's through the component's request, [`crate::request`]; a program's built
//! directly, [`crate::target`]); written as the component's KTX2 file (`-o`), as a PNG of the
//! same pixels (`--png`) or as the picture for people (`--view`, recorded with the writers
//! for its legend: [`heat_map_with_writers`](qip_memory::tools::thermal::heat_map_with_writers)).

use std::path::Path;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::image::view::Metric;
use qip_memory::run::{Kind, Run};
use qip_memory::tools::Request;
use qip_memory::tools::page_writes::clamp_budget;
use qip_memory::tools::report::HOTTEST;
use qip_memory::tools::thermal::{Options, Thermal, heat_map, heat_map_with_writers};

use crate::Failure;
use crate::request::{budget, rejected};
use crate::target::{Loaded, TargetArgs, conclude, failed};

/// What `thermal` was asked to do.
pub struct Args<'a> {
    /// The target and how to run it.
    pub target: &'a TargetArgs,
    /// The `normalize` uniform (0 or 1).
    pub normalize: bool,
    /// The `first_page` uniform.
    pub first_page: u32,
    /// `-o PATH`: the KTX2 file.
    pub ktx2: Option<&'a Path>,
    /// `--png PATH`: the PNG.
    pub png: Option<&'a Path>,
    /// `--view PATH`: the picture for people, as PNG.
    pub view: Option<&'a Path>,
    /// `--metric`: what `--view` colours.
    pub metric: Metric,
    /// Print tiles, totals, the hottest bytes and the counters to stderr.
    pub stats: bool,
}

/// Runs `thermal`: writes the requested files; with `--stats` prints the tile pages, the image
/// totals, the bytes with the most instructions and the run's counters to stderr.
pub fn main(args: &Args<'_>) -> Result<(), Failure> {
    if let Some(path) = args.ktx2 {
        check_ktx2_name(path)?;
    }
    let loaded = args.target.load()?;
    let options = Options {
        budget: budget(args.target.instruction_budget),
        normalize: args.normalize,
        first_page: args.first_page,
    };
    // The picture's legend names the writers: only `--view` records them.
    let record = if args.view.is_some() { heat_map_with_writers } else { heat_map };
    let out = match loaded.kind {
        Kind::Content => content(args.target, &loaded, options, args.stats, record)?,
        _ => {
            let mut run = args.target.program(&loaded)?;
            record(&mut run, options).map_err(|f| failed(&loaded, f))?
        }
    };
    let png = match args.png {
        Some(_) => crate::png::encode(out.width, out.height, out.pixels())?,
        None => Vec::new(),
    };
    let view = match args.view {
        Some(_) => {
            let pic = out.view(HOTTEST, args.metric);
            crate::png::encode(pic.width as u32, pic.height as u32, &pic.rgba)?
        }
        None => Vec::new(),
    };
    let mut files: Vec<(&Path, &[u8])> = Vec::new();
    files.extend(args.ktx2.map(|p| (p, &out.ktx2[..])));
    files.extend(args.png.map(|p| (p, &png[..])));
    files.extend(args.view.map(|p| (p, &view[..])));
    crate::out::files(&files)?;
    if args.stats {
        let pages: Vec<String> = out.pages.iter().map(u64::to_string).collect();
        let mut s = format!("tiles {} (pages {})\n", out.pages.len(), pages.join(","));
        s += &format!("image_instructions {}\n", out.totals.0);
        s += &format!("image_loop_iterations {}\n", out.totals.1);
        s += &format!("image_calls {}\n", out.totals.2);
        s += &format!("runs {}\n", out.runs);
        for h in &out.hottest {
            s += &format!(
                "hot_byte {} page {} instructions {} loop_iterations {} calls {} accesses {}\n",
                h.addr,
                h.addr / 65536,
                h.instructions,
                h.loops,
                h.calls,
                h.accesses
            );
        }
        crate::out::stderr(&s);
        crate::print_counters(&out.counters);
        crate::stats::print_program(&loaded, &out.finished);
    }
    conclude(&loaded, &out.finished, true)
}

/// How a heat map is recorded: [`heat_map`] or [`heat_map_with_writers`].
type Record = fn(&mut Run<'_>, Options) -> Result<Thermal, qip_memory::run::Failure>;

/// A Content target's heat map through its request, a rejection as the component's.
fn content(
    target: &TargetArgs,
    loaded: &Loaded,
    options: Options,
    stats: bool,
    record: Record,
) -> Result<Thermal, Failure> {
    let req = target.request(loaded)?;
    let budget = clamp_budget(options.budget);
    let parsed =
        Request::parse(&req.body, DEFAULT_CONTENT_TYPE.as_bytes()).map_err(|r| rejected(r, &req, stats))?;
    let mut run = parsed.content_run(budget);
    run.limits = target.limits();
    record(&mut run, options).map_err(|f| rejected(parsed.rejection(f, budget), &req, stats))
}

/// `-o` writes KTX2 bytes: a name ending in anything but `.ktx2` (any case) would hide them
/// behind the wrong extension (`-o qr.png` made a "PNG" no viewer opens), so it is refused
/// before anything runs, pointing at the options that write PNG. A path that is not a regular
/// file (`/dev/null`) is taken as it is.
fn check_ktx2_name(path: &Path) -> Result<(), Failure> {
    let is_ktx2 = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("ktx2"));
    // A path that exists and is not a regular file (`/dev/null`, a pipe) has no extension to
    // mislead a viewer: the bytes go where the user sends them.
    let not_a_file = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    if is_ktx2 || not_a_file {
        return Ok(());
    }
    Err(Failure::new(format!(
        "-o {} would hold KTX2 bytes (the measurement image): name it .ktx2, or use --view {} for the \
         labelled picture or --png {} for the same pixels as PNG",
        path.display(),
        path.with_extension("png").display(),
        path.with_extension("png").display()
    )))
}
