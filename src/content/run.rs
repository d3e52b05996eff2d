//! Running a Content target in the bounded interpreter, in the order of docs/request.md, "The run":
//! load and validate, check the contract, copy the input, apply the uniforms in sorted key
//! order from one instruction budget, call `render(input_length)`, decode and validate the
//! result (docs/content.md).
//!
//! Failures are classified by [`Cause`]; the tools turn a cause into a rejection mode and a
//! request offset (docs/rejections.md).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

pub use crate::run::failure::{Cause, Failure};
use crate::run::failure::{exec_failure, fail, fail_after};

use super::contract::{self, Contract};
use super::uniforms::{self, ScalarType, UniformValue};
use crate::wasm::{Counters, Instance, Limits, Module, Observer, Store, ValType, Value};

/// One target uniform of the request: `uniforms[<key>]` with its raw value.
#[derive(Debug, Clone, Copy)]
pub struct TargetUniform<'a> {
    /// The key (grammar checked by the request parser).
    pub key: &'a str,
    /// The raw value bytes.
    pub value: &'a [u8],
}

/// A finished run.
#[derive(Debug)]
pub struct Outcome {
    /// The target's contract.
    pub contract: Contract,
    /// The module (for data segments and the like).
    pub module: Arc<Module>,
    /// The output bytes.
    pub output: Vec<u8>,
    /// Where the output lay in the target's memory (byte address).
    pub output_ptr: u32,
    /// Counters of the setters and render together.
    pub counters: Counters,
    /// Size of the target's memory at the end, in bytes.
    pub memory_bytes: u64,
}

fn scalar_type(t: ValType) -> Option<ScalarType> {
    match t {
        ValType::I32 => Some(ScalarType::I32),
        ValType::I64 => Some(ScalarType::I64),
        ValType::F32 => Some(ScalarType::F32),
        ValType::F64 => Some(ScalarType::F64),
        _ => None,
    }
}

/// Runs `component` on `input` with the target `uniforms` (sorted by key, as the request parser
/// returns them) and at most `budget` instructions for setters and render together,
/// reporting every event of both phases to `observer` (with
/// [`Observer::begin_render`] between them).
///
/// # Errors
/// A [`Failure`] for anything that keeps the run from producing a valid output.
pub fn run<O: Observer>(
    component: &[u8],
    input: &[u8],
    uniforms: &[TargetUniform<'_>],
    budget: u64,
    limits: &Limits,
    observer: &mut O,
) -> Result<Outcome, Failure> {
    let module = match Module::new(component, limits) {
        Ok(m) => Arc::new(m),
        Err(e) if e.kind.is_limit() => {
            return fail(Cause::Limit, reason!("target module at module offset {}: {}", e.offset, e.kind));
        }
        Err(e) => {
            let at = e.offset;
            return fail(
                Cause::Invalid { offset: at.0 as usize },
                reason!("target module invalid at module offset {at}: {}", e.kind),
            );
        }
    };
    let contract = match contract::inspect(&module) {
        Ok(c) => c,
        Err(e) => return fail(Cause::Contract, reason!("target contract: {e}")),
    };
    if module.has_start() {
        return fail(Cause::Contract, "target contract: a Content component has no start function".into());
    }
    match contract.input {
        None if !input.is_empty() => {
            return fail(
                Cause::Contract,
                "the target is a generator (no input_ptr) but input was given".into(),
            );
        }
        Some(i) if input.len() as u64 > i.cap as u64 => {
            return fail(
                Cause::Contract,
                reason!("input of {} bytes exceeds the target's capacity of {} bytes", input.len(), i.cap),
            );
        }
        Some(i) if i.utf8 && core::str::from_utf8(input).is_err() => {
            return fail(
                Cause::Contract,
                "input is not valid UTF-8 but the target declares input_utf8_cap".into(),
            );
        }
        _ => {}
    }
    let mut store = Store::new(limits.clone());
    // Content targets have no start function (checked above); instantiating under the same
    // observer type keeps the execution loop to one monomorphised copy per tool.
    let instance: Instance = match store.instantiate_observed(module.clone(), &[], observer) {
        Ok(i) => i,
        Err(crate::wasm::InstantiateError::Limit(l)) => return fail(Cause::Limit, reason!("{l}")),
        Err(crate::wasm::InstantiateError::Exec(e)) => return Err(exec_failure(e, None)),
        Err(e) => return fail(Cause::Contract, reason!("{e}")),
    };
    let memory = store.instance_memory(instance).expect("the contract requires a memory");
    if let Some(i) = contract.input {
        let at = i.ptr as usize;
        store.memory_data_mut(memory)[at..at + input.len()].copy_from_slice(input);
    }
    store.reset_counters();
    store.set_budget(Some(budget));
    for (index, u) in uniforms.iter().enumerate() {
        // The export's name, built without `format!`, which `reason!` leaves out of the
        // components (and which would pull the formatting machinery back in).
        let name = ["uniform_set_", u.key].concat();
        let bad = |m: String| fail(Cause::Uniform { index }, m);
        let Some(setter) = store.get_func(instance, &name) else {
            return bad(reason!("the target has no uniform {:?} (no export {name})", u.key));
        };
        let ty = store.func_type(setter).clone();
        let t = match (ty.params(), ty.results()) {
            ([p], [r]) if p == r => scalar_type(*p),
            _ => None,
        };
        let Some(t) = t else { return bad(reason!("{name} is not a (T) -> T setter of a scalar type")) };
        let value = match uniforms::parse_target_value(t, u.value) {
            Ok(v) => v,
            Err(e) => return bad(reason!("uniform {:?}: {e}", u.key)),
        };
        let arg = match value {
            UniformValue::I32(v) => Value::I32(v as i32),
            UniformValue::I64(v) => Value::I64(v),
            UniformValue::F32(v) => Value::F32(v.to_bits()),
            UniformValue::F64(v) => Value::F64(v.to_bits()),
        };
        store
            .call_observed(setter, &[arg], observer)
            .map_err(|e| exec_failure(e, Some(Box::new(*store.counters()))))?;
    }
    let render = store.get_func(instance, "render").expect("checked by the contract");
    // A budget used up by the setters makes render exhaust at its first instruction, as in QIP's
    // wrapper.
    observer.begin_render(store.counters().instructions, contract.stack_pointer);
    let result = store
        .call_observed(render, &[Value::I32(input.len() as i32)], observer)
        .map_err(|e| exec_failure(e, Some(Box::new(*store.counters()))))?;
    let counters = *store.counters();
    let Some(Value::I64(r)) = result.first().copied() else { unreachable!("render returns i64") };
    let r = r as u64;
    let data = store.memory_data(memory);
    let memory_bytes = data.len() as u64;
    if r >> 63 == 1 {
        if (r >> 32) & 0x7fff_ffff != 0 {
            return fail_after(
                counters,
                Cause::Output,
                reason!("target rejection has nonzero reserved bits (0x{r:016x})"),
            );
        }
        let detail = r as u32;
        return match contract.failure_modes {
            Some(n) if n > 0 => {
                let (offset, mode) = (detail / n, detail % n);
                if offset as usize > input.len() {
                    return fail_after(
                        counters,
                        Cause::Output,
                        reason!(
                            "target rejected at input offset {offset}, past the input's {} bytes",
                            input.len()
                        ),
                    );
                }
                fail_after(
                    counters,
                    Cause::Rejected { offset: Some(offset), mode: Some(mode) },
                    reason!("target rejected its input at input offset {offset} (its mode {mode})"),
                )
            }
            _ => fail_after(
                counters,
                Cause::Rejected { offset: None, mode: None },
                reason!("target rejected its input (detail {detail})"),
            ),
        };
    }
    let (ptr, size) = (((r >> 32) & 0x7fff_ffff) as u32, r as u32);
    if size > contract.output_cap {
        return fail_after(
            counters,
            Cause::Output,
            reason!("output of {size} bytes exceeds the target's capacity of {}", contract.output_cap),
        );
    }
    if ptr as u64 + size as u64 > memory_bytes {
        return fail_after(
            counters,
            Cause::Output,
            reason!("output [{ptr}, {}) lies outside the target's memory", ptr as u64 + size as u64),
        );
    }
    let output = data[ptr as usize..ptr as usize + size as usize].to_vec();
    if contract.output_utf8 && core::str::from_utf8(&output).is_err() {
        return fail_after(
            counters,
            Cause::Output,
            "output is not valid UTF-8 but the target declares output_utf8_cap".into(),
        );
    }
    Ok(Outcome { contract, module, output, output_ptr: ptr, counters, memory_bytes })
}
