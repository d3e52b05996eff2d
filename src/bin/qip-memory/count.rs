//! `qip-memory count`: runs an exported function in the bounded interpreter and prints its
//! results and counters, one `name value` pair per line (the counting rules are in the
//! README's "Counting" section).
//!
//! The module may be binary or text (`.wat`, or a `.wast` file holding one module); arguments
//! and results are written `TYPE:VALUE` with the WebAssembly text format's constants
//! (`i32:0x10`, `i64:-1_000`, `f32:nan:0x200000`, `f64:-inf`, `v128:i32x4 1 2 3 4`), which the
//! `wat` crate reads, so they mean exactly what they mean in a `.wat` file.

use std::sync::Arc;
use std::time::Instant;

use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::profile::calltree::CallTreeRecorder;
use qip_memory::profile::lines::LineTable;
use qip_memory::profile::names::{FunctionNames, NameSource};
use qip_memory::run::{End, Finished, Kind};
use qip_memory::tools::Request;
use qip_memory::tools::export::Profile;
use qip_memory::tools::page_writes::clamp_budget;
use qip_memory::wasm::{ExternalKind, FuncIndex, Limits, Module, NoObserver, Observer, Store, Value};

use crate::export::ExportArgs;
use crate::request::rejected;
use crate::target::{Loaded, TargetArgs, conclude, failed, read_module};

/// The types an argument may have.
const ARG_TYPES: [&str; 5] = ["i32", "i64", "f32", "f64", "v128"];

/// Parses `TYPE:VALUE` as the text format's `TYPE.const VALUE`: the constant is compiled by
/// `wat` into a one-function module and read back by running it.
pub(crate) fn parse_arg(s: &str) -> Result<Value, String> {
    let (ty, v) = s.split_once(':').ok_or_else(|| format!("argument {s:?} is not TYPE:VALUE"))?;
    if !ARG_TYPES.contains(&ty) {
        return Err(format!("argument {s:?}: unknown type {ty:?} (i32, i64, f32, f64, v128)"));
    }
    let bad =
        |why: &str| format!("argument {s:?}: {v:?} is not a valid {ty} constant of the text format{why}");
    // Only the characters of numbers, lane shapes and `nan:0x…`: nothing else reaches `wat`.
    if v.is_empty() || !v.bytes().all(|c| c.is_ascii_alphanumeric() || b"_.+-: ".contains(&c)) {
        return Err(bad(""));
    }
    let text = format!("(module (func (export \"c\") (result {ty}) {ty}.const {v}))");
    let wasm = wat::parse_str(&text).map_err(|e| {
        let e = e.to_string();
        let first = e.lines().next().unwrap_or("").to_string();
        // wat's message names a position in our one-line module; its reason is what matters.
        let reason = first.rsplit_once(": ").map_or(first.as_str(), |(_, r)| r).to_string();
        bad(&format!(" ({reason})"))
    })?;
    let module = Module::new(&wasm, &Limits::default()).map_err(|e| bad(&format!(" ({e})")))?;
    let mut store = Store::new(Limits::default());
    let instance = store.instantiate(Arc::new(module), &[]).map_err(|e| bad(&format!(" ({e})")))?;
    let f = store.get_func(instance, "c").ok_or_else(|| bad(""))?;
    let values = store.call(f, &[]).map_err(|e| bad(&format!(" ({e})")))?;
    values.into_iter().next().ok_or_else(|| bad(""))
}

/// `count WASM --dump-ir FUNC`: prints the internal code of function `func` (an index, `func[N]`,
/// or a name from the `name` section or the exports) as [`Module::disassemble`] lists it.
pub fn dump_ir(wasm: &std::path::Path, func: &str, max_module_size: usize) -> Result<(), crate::Failure> {
    let bytes = read_module(wasm)?;
    let limits = Limits::default().with_max_module_bytes(max_module_size);
    let module = Module::new(&bytes, &limits).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let names = FunctionNames::read(&bytes);
    let by_index =
        func.strip_prefix("func[").and_then(|f| f.strip_suffix(']')).unwrap_or(func).parse::<u32>();
    let index = match by_index {
        Ok(i) => i,
        // `$name` as the text format writes it, or the bare name; then an export's name (a
        // function can have both, and the name section's wins in listings).
        Err(_) => (0..module.function_count())
            .find(|&i| names.get(i) == func.trim_start_matches('$'))
            .or_else(|| {
                module
                    .exports()
                    .iter()
                    .find(|e| e.kind == ExternalKind::Func && e.name == func)
                    .map(|e| e.index)
            })
            .ok_or_else(|| {
                let known: Vec<String> =
                    (0..module.function_count()).take(12).map(|i| names.get(i)).collect();
                let more = if module.function_count() > 12 { ", ..." } else { "" };
                format!(
                    "{}: no function named {func:?} (give an index, func[N], or one of: {}{more})",
                    wasm.display(),
                    known.join(", ")
                )
            })?,
    };
    let listing = module.disassemble(FuncIndex(index)).ok_or_else(|| {
        let why =
            if index < module.function_count() { "is imported, it has no code" } else { "does not exist" };
        format!("{}: function {index} {why} ({} functions)", wasm.display(), module.function_count())
    })?;
    let name = match names.source(index) {
        NameSource::Index => String::new(),
        _ => format!(" `{}`", names.get(index)),
    };
    crate::out::stdout(format!("; {}{name}\n{listing}", wasm.display()).as_bytes())?;
    Ok(())
}

/// Runs the loaded target once under `obs`: a Content target through its request (a
/// rejection as the component's), a program directly.
fn execute<O: Observer>(
    target: &TargetArgs,
    loaded: &Loaded,
    obs: &mut O,
) -> Result<Finished, crate::Failure> {
    match loaded.kind {
        Kind::Content => {
            let req = target.request(loaded)?;
            let budget = clamp_budget(crate::request::budget(target.instruction_budget));
            let parsed = Request::parse(&req.body, DEFAULT_CONTENT_TYPE.as_bytes())
                .map_err(|r| rejected(r, &req, true))?;
            let mut run = parsed.content_run(budget);
            run.limits = target.limits();
            run.execute(obs).map_err(|f| rejected(parsed.rejection(f, budget), &req, true))
        }
        _ => {
            let mut run = target.program(loaded)?;
            run.execute(obs).map_err(|f| failed(loaded, f))
        }
    }
}

/// `count PROGRAM`: runs the program (a Content target, a WASI command, a module's export)
/// once and prints its counters, one `name value` per line (docs/counting.md), then one
/// `result TYPE:VALUE` line per value an export returned: to stdout, or to stderr when the
/// program links WASI (its stdout is its own). The load and run times go to stderr.
///
/// The run is unobserved, unless `exports` asks for profile files: it is then observed by the
/// call tree and, for a module with DWARF line tables, the costs per source line,
/// and the files are written before the counters are printed.
pub fn count(target: &TargetArgs, exports: &ExportArgs) -> Result<(), crate::Failure> {
    let t0 = Instant::now();
    let loaded = target.load_or(Some("run"))?;
    let load = t0.elapsed();
    let t1 = Instant::now();
    let (finished, run) = if exports.any() {
        let table = LineTable::read(&loaded.bytes);
        // The tree owns the line recorder, as the report's does: the call sites' lines.
        let mut obs = CallTreeRecorder::with_lines(table.as_ref());
        let finished = execute(target, &loaded, &mut obs)?;
        let run = t1.elapsed();
        let instructions = finished.counters.instructions;
        let (tree, (lines, _)) = obs.finish_lines(instructions);
        let names = FunctionNames::read(&loaded.bytes);
        let name = crate::wasi_config::argv0_text(&loaded.path);
        let profile = Profile {
            tree: &tree,
            names: &names,
            module: &finished.module,
            lines: table.as_ref().map(|t| (t, &lines[..])),
            instructions,
            name: &name,
        };
        let files = exports.outputs(&profile);
        crate::out::files(&files.iter().map(|(p, b)| (*p, &b[..])).collect::<Vec<_>>())?;
        (finished, run)
    } else {
        let finished = execute(target, &loaded, &mut NoObserver)?;
        (finished, t1.elapsed())
    };
    crate::out::stderr(&format!(
        "load {:.1} ms, run {:.1} ms ({:.1} M instructions/s)\n",
        load.as_secs_f64() * 1e3,
        run.as_secs_f64() * 1e3,
        finished.counters.instructions as f64 / run.as_secs_f64() / 1e6
    ));
    let mut lines = crate::counter_lines(&finished.counters);
    if let End::Return(values) = &finished.end {
        for v in values {
            lines += &format!("result {v}\n");
        }
    }
    if loaded.owns_stdio() {
        crate::out::stderr(&lines);
        crate::stats::print_program(&loaded, &finished);
    } else {
        crate::out::stdout(lines.as_bytes())?;
    }
    conclude(&loaded, &finished, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_text_format_constants() {
        let ok = |s: &str| parse_arg(s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ok("i32:0x10"), Value::I32(16));
        assert_eq!(ok("i32:4294967295"), Value::I32(-1));
        assert_eq!(ok("i32:-2147483648"), Value::I32(i32::MIN));
        assert_eq!(ok("i64:-1_000"), Value::I64(-1000));
        assert_eq!(ok("i64:0xffff_ffff_ffff_ffff"), Value::I64(-1));
        assert_eq!(ok("f32:1.5"), Value::F32(0x3fc0_0000));
        assert_eq!(ok("f32:nan:0x200000"), Value::F32(0x7fa0_0000));
        assert_eq!(ok("f32:-nan"), Value::F32(0xffc0_0000));
        assert_eq!(ok("f64:inf"), Value::F64(0x7ff0_0000_0000_0000));
        assert_eq!(ok("f64:0x1p-1"), Value::F64(0.5f64.to_bits()));
        assert_eq!(ok("v128:i32x4 1 2 3 4"), Value::V128(1 | 2 << 32 | 3 << 64 | 4 << 96));
        for bad in ["i32:4294967296", "i32:1.5", "f32:1e39", "i32:", "i32:1)", "x:1", "i32"] {
            assert!(parse_arg(bad).is_err(), "{bad} accepted");
        }
        assert!(parse_arg("f32:1e39").unwrap_err().contains("not a valid f32 constant of the text format"));
    }

    #[test]
    fn results_are_written_as_arguments() {
        for text in [
            "i32:-1",
            "i64:9223372036854775807",
            "f32:1.5",
            "f64:0.1",
            "f32:-0",
            "f64:inf",
            "f32:-inf",
            "f32:nan",
            "f64:-nan",
            "f32:nan:0x1",
            "f64:nan:0x8000000000001",
            "f64:1e300",
            "f32:1e-10",
            "v128:i32x4 1 -2 3 4",
        ] {
            let v = parse_arg(text).unwrap();
            assert_eq!(v.to_string(), text, "{text}");
            assert_eq!(parse_arg(&v.to_string()), Ok(v), "{text} reads back");
        }
    }
}
