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

use qip_memory::profile::names::{FunctionNames, NameSource};
use qip_memory::tools::explain::function_name;
use qip_memory::wasm::{ExecError, ExternalKind, FuncIndex, FuncType, Limits, Module, Store, Value};

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

/// A value in the `--arg` syntax: `i32:-1`, `f32:1.5`, `f64:nan:0x1`, `v128:i32x4 1 2 3 4`.
pub(crate) fn format_value(v: &Value) -> String {
    match *v {
        Value::I32(n) => format!("i32:{n}"),
        Value::I64(n) => format!("i64:{n}"),
        Value::F32(bits) => {
            format!("f32:{}", float_text(f64::from(f32::from_bits(bits)), u64::from(bits), 23, 32))
        }
        Value::F64(bits) => format!("f64:{}", float_text(f64::from_bits(bits), bits, 52, 64)),
        Value::V128(x) => {
            let lanes: Vec<String> = (0..4).map(|i| (((x >> (32 * i)) as u32) as i32).to_string()).collect();
            format!("v128:i32x4 {}", lanes.join(" "))
        }
        Value::FuncRef(None) => "funcref:null".to_string(),
        Value::FuncRef(Some(_)) => "funcref:func".to_string(),
        Value::ExternRef(None) => "externref:null".to_string(),
        Value::ExternRef(Some(n)) => format!("externref:{n}"),
    }
}

/// A float as a text-format constant: `nan` (canonical) or `nan:0x…` (other payloads) with
/// their sign, `inf`, `-0`, else the shortest decimal that reads back to the same value (in
/// exponent form beyond 1e16 and below 1e-5). `value` is exact for both widths; `bits`,
/// `mantissa` and `width` are the encoding's.
fn float_text(value: f64, bits: u64, mantissa: u32, width: u32) -> String {
    let sign = if bits >> (width - 1) & 1 == 1 { "-" } else { "" };
    if value.is_nan() {
        let payload = bits & ((1 << mantissa) - 1);
        return if payload == 1 << (mantissa - 1) {
            format!("{sign}nan")
        } else {
            format!("{sign}nan:{payload:#x}")
        };
    }
    if value.is_infinite() {
        return format!("{sign}inf");
    }
    let a = value.abs();
    // Shortest digits of the value at its own width.
    let digits = |exp: bool| match (width, exp) {
        (32, false) => format!("{}", value as f32),
        (32, true) => format!("{:e}", value as f32),
        (_, false) => format!("{value}"),
        (_, true) => format!("{value:e}"),
    };
    digits(a != 0.0 && !(1e-5..1e16).contains(&a))
}

/// `name (params) -> (results)` of every exported function, for a wrong `--invoke`.
fn exported_functions(module: &Module) -> String {
    let sig = |t: &FuncType| {
        let list =
            |v: &[qip_memory::wasm::ValType]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
        format!("({}) -> ({})", list(t.params()), list(t.results()))
    };
    let names: Vec<String> = module
        .exports()
        .iter()
        .filter(|e| e.kind == ExternalKind::Func)
        .map(|e| match module.func_type(e.index) {
            Some(t) => format!("{} {}", e.name, sig(t)),
            None => e.name.clone(),
        })
        .collect();
    if names.is_empty() {
        "the module exports no functions".to_string()
    } else {
        format!("exported: {}", names.join(", "))
    }
}

/// The module's bytes: a binary file as it is, a text one compiled (errors as
/// `FILE:LINE:COL: message`).
fn read_module(wasm: &std::path::Path) -> Result<Vec<u8>, crate::Failure> {
    let file = std::fs::read(wasm).map_err(|e| format!("{}: {e}{}", wasm.display(), crate::wasi_hint(&e)))?;
    // Text (a .wat/.wast name, or UTF-8 that opens with `(` or a comment) is compiled, its
    // errors giving line and column; anything else is read as binary.
    let named_text = wasm.extension().and_then(|e| e.to_str()).is_some_and(|e| ["wat", "wast"].contains(&e));
    let looks_text = std::str::from_utf8(&file).is_ok_and(|t| t.trim_start().starts_with(['(', ';']));
    let bytes = if named_text || looks_text {
        wat::Parser::new()
            .parse_bytes(Some(wasm), &file)
            .map_err(|e| {
                // wat's message, then ` --> FILE:LINE:COL` and a snippet: one line as
                // `FILE:LINE:COL: message`, as compilers print it.
                let e = e.to_string();
                let message = e.lines().next().unwrap_or_default();
                match e.lines().find_map(|l| l.trim_start().strip_prefix("--> ")) {
                    Some(at) => format!("{at}: {message}"),
                    None => {
                        format!("{}: {}", wasm.display(), e.split_whitespace().collect::<Vec<_>>().join(" "))
                    }
                }
            })?
            .into_owned()
    } else {
        file
    };
    Ok(bytes)
}

/// `count WASM --dump-ir FUNC`: prints the internal code of function `func` (an index, `func[N]`,
/// or a name from the `name` section or the exports) as [`Module::disassemble`] lists it.
pub fn dump_ir(wasm: &std::path::Path, func: &str) -> Result<(), crate::Failure> {
    let bytes = read_module(wasm)?;
    let module = Module::new(&bytes, &Limits::default()).map_err(|e| format!("{}: {e}", wasm.display()))?;
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

/// `count WASM --invoke NAME`: see the module docs.
pub fn count(
    wasm: &std::path::Path,
    invoke: &str,
    args: &[String],
    budget: Option<u64>,
) -> Result<(), crate::Failure> {
    let bytes = read_module(wasm)?;
    let limits = Limits::default();
    let t0 = Instant::now();
    let module = Module::new(&bytes, &limits).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let load = t0.elapsed();
    let exports = exported_functions(&module);
    let module = Arc::new(module);
    let mut store = Store::new(limits);
    let instance = store.instantiate(module.clone(), &[]).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let func = store
        .get_func(instance, invoke)
        .ok_or_else(|| format!("{}: no exported function {invoke:?} ({exports})", wasm.display()))?;
    let args = args.iter().map(|a| parse_arg(a)).collect::<Result<Vec<_>, _>>()?;
    store.reset_counters();
    store.set_budget(budget);
    let t1 = Instant::now();
    let result = store.call(func, &args);
    let run = t1.elapsed();
    // A call that never started (wrong arguments) has no counters to show: the error alone.
    if let Err(ExecError::Signature(m)) = &result {
        return Err(crate::Failure::new(format!("{}: {invoke}: {m}", wasm.display())));
    }
    let mut counters = crate::counter_lines(store.counters());
    crate::out::stderr(&format!(
        "load {:.1} ms, run {:.1} ms ({:.1} M instructions/s)\n",
        load.as_secs_f64() * 1e3,
        run.as_secs_f64() * 1e3,
        store.counters().instructions as f64 / run.as_secs_f64() / 1e6
    ));
    // The counters always; one `result` line per value when the call returned.
    if let Ok(values) = &result {
        for v in values {
            counters += &format!("result {}\n", format_value(v));
        }
    }
    crate::out::stdout(counters.as_bytes())?;
    // Where it stopped, by function name and module offset in hex.
    let within = |func: Option<FuncIndex>| match func {
        Some(f) => format!(" in {}", function_name(&bytes, f.0)),
        None => String::new(),
    };
    let executed = store.counters().instructions;
    match result {
        Ok(_) => Ok(()),
        Err(ExecError::Trap(t)) => Err(crate::Failure::new(format!(
            "{}: {invoke}: trapped{} at module offset {}: {}, after {executed} instructions",
            wasm.display(),
            within(t.func),
            t.offset,
            t.kind
        ))),
        Err(ExecError::BudgetExhausted { offset, func }) => Err(crate::Failure::new(format!(
            "{}: {invoke}: instruction budget of {executed} instructions exhausted{} (next instruction at \
             module offset {offset}); raise it with --instruction-budget N",
            wasm.display(),
            within(func)
        ))),
        Err(e) => Err(crate::Failure::new(format!("{}: {e}", wasm.display()))),
    }
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
            assert_eq!(format_value(&v), text, "{text}");
            assert_eq!(parse_arg(&format_value(&v)), Ok(v), "{text} reads back");
        }
    }
}
