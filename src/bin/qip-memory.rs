//! `qip-memory`: the native command-line front end. Thin: every analysis lives in the library.
//!
//! Subcommands (more arrive with the memory tools):
//! * `count WASM --invoke NAME [--arg TYPE:VALUE]... [--instruction-budget N]`: runs an exported
//!   function in the bounded interpreter and prints its result and counters, one `name value`
//!   pair per line (`spec/interpreter.md` C.6).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Parser, Subcommand};
use qip_memory::wasm::{ExecError, Limits, Module, Store, Value};

#[derive(Parser)]
#[command(name = "qip-memory", version, about = "Memory analyzers for WebAssembly")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an exported function in the bounded interpreter and print its counters.
    Count {
        /// The module (binary .wasm).
        wasm: std::path::PathBuf,
        /// The exported function to call.
        #[arg(long, default_value = "run")]
        invoke: String,
        /// An argument, as `i32:5`, `i64:-1`, `f32:1.5` or `f64:2`; repeat in parameter order.
        #[arg(long = "arg")]
        args: Vec<String>,
        /// Most instructions to execute (default: unlimited).
        #[arg(long)]
        instruction_budget: Option<u64>,
    },
}

fn parse_arg(s: &str) -> Result<Value, String> {
    let (ty, v) = s.split_once(':').ok_or_else(|| format!("argument {s:?} is not TYPE:VALUE"))?;
    let bad = || format!("argument {s:?}: {v:?} is not a valid {ty}");
    Ok(match ty {
        "i32" => Value::I32(v.parse::<i64>().map_err(|_| bad())? as i32),
        "i64" => Value::I64(v.parse().map_err(|_| bad())?),
        "f32" => Value::F32(v.parse::<f32>().map_err(|_| bad())?.to_bits()),
        "f64" => Value::F64(v.parse::<f64>().map_err(|_| bad())?.to_bits()),
        _ => {
            return Err(format!("argument {s:?}: unknown type {ty:?} (i32, i64, f32, f64)"));
        }
    })
}

fn count(wasm: &std::path::Path, invoke: &str, args: &[String], budget: Option<u64>) -> Result<(), String> {
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
    for (name, value) in store.counters().fields() {
        println!("{name} {value}");
    }
    eprintln!(
        "load {:.1} ms, run {:.1} ms ({:.1} M instructions/s)",
        load.as_secs_f64() * 1e3,
        run.as_secs_f64() * 1e3,
        store.counters().instructions as f64 / run.as_secs_f64() / 1e6
    );
    match result {
        Ok(values) => {
            println!("result {values:?}");
            Ok(())
        }
        Err(ExecError::Trap(t)) => Err(format!("{}: trap: {t}", wasm.display())),
        Err(e) => Err(format!("{}: {e}", wasm.display())),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match &cli.command {
        Command::Count { wasm, invoke, args, instruction_budget } => {
            count(wasm, invoke, args, *instruction_budget)
        }
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("qip-memory: {e}");
            ExitCode::FAILURE
        }
    }
}
