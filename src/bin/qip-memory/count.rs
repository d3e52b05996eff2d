//! `qip-memory count`: runs an exported function in the bounded interpreter and prints its
//! result and counters, one `name value` pair per line (`spec/interpreter.md` C.6).

use std::sync::Arc;
use std::time::Instant;

use qip_memory::wasm::{ExecError, Limits, Module, Store, Value};

pub(crate) fn parse_arg(s: &str) -> Result<Value, String> {
    let (ty, v) = s.split_once(':').ok_or_else(|| format!("argument {s:?} is not TYPE:VALUE"))?;
    let bad = || format!("argument {s:?}: {v:?} is not a valid {ty}");
    Ok(match ty {
        // The text format's ranges: signed, or unsigned up to 2^N − 1 (the same bits).
        "i32" => Value::I32(match v.parse::<i32>() {
            Ok(n) => n,
            Err(_) => v.parse::<u32>().map_err(|_| bad())? as i32,
        }),
        "i64" => Value::I64(match v.parse::<i64>() {
            Ok(n) => n,
            Err(_) => v.parse::<u64>().map_err(|_| bad())? as i64,
        }),
        "f32" => Value::F32(v.parse::<f32>().map_err(|_| bad())?.to_bits()),
        "f64" => Value::F64(v.parse::<f64>().map_err(|_| bad())?.to_bits()),
        _ => {
            return Err(format!("argument {s:?}: unknown type {ty:?} (i32, i64, f32, f64)"));
        }
    })
}

pub fn count(
    wasm: &std::path::Path,
    invoke: &str,
    args: &[String],
    budget: Option<u64>,
) -> Result<(), crate::Failure> {
    let bytes = std::fs::read(wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let limits = Limits::default();
    let t0 = Instant::now();
    let module = Module::new(&bytes, &limits).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let load = t0.elapsed();
    let mut store = Store::new(limits);
    let instance =
        store.instantiate(Arc::new(module), &[]).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let func = store
        .get_func(instance, invoke)
        .ok_or_else(|| format!("{}: no exported function {invoke:?}", wasm.display()))?;
    let args = args.iter().map(|a| parse_arg(a)).collect::<Result<Vec<_>, _>>()?;
    store.reset_counters();
    store.set_budget(budget);
    let t1 = Instant::now();
    let result = store.call(func, &args);
    let run = t1.elapsed();
    let mut counters = crate::counter_lines(store.counters());
    crate::out::stderr(&format!(
        "load {:.1} ms, run {:.1} ms ({:.1} M instructions/s)\n",
        load.as_secs_f64() * 1e3,
        run.as_secs_f64() * 1e3,
        store.counters().instructions as f64 / run.as_secs_f64() / 1e6
    ));
    // The counters always; the result when there is one.
    if let Ok(values) = &result {
        counters += &format!("result {values:?}\n");
    }
    crate::out::stdout(counters.as_bytes())?;
    match result {
        Ok(_) => Ok(()),
        Err(ExecError::Trap(t)) => Err(crate::Failure::new(format!("{}: trap: {t}", wasm.display()))),
        Err(e) => Err(crate::Failure::new(format!("{}: {e}", wasm.display()))),
    }
}
