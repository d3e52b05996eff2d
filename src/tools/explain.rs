//! A rejection told in the target's terms, for front ends that show it to a person (the CLI,
//! the component-model build; [`function_name`] also for `heap capture` and the wasmtime host
//! of `qip-memory run`): the function the run stopped in, by the name a profiler would
//! give it (docs/report.md, "Names"), module offsets in hex as disassemblers print them, and
//! how much of the instruction budget ran. The Content components report only the request
//! offset and the mode (docs/rejections.md), so none of this is in their code.

use alloc::format;
use alloc::string::String;

use super::Rejection;
use crate::content::run::Cause;
use crate::profile::names::{FunctionNames, NameSource};

/// The sentence for `r`, a rejection of a run of `target` (the module's bytes, for the names
/// of its functions): for a trap `target trapped in `NAME` at module offset 0x…: KIND, after
/// N of BUDGET instructions`; for an exhausted budget `instruction budget of BUDGET
/// instructions exhausted in `NAME` (next instruction at module offset 0x…)`; for the call
/// stack limit the message and the function; otherwise the rejection's own message.
///
/// A function is named by its `name`-section entry (demangled), else its export name, else
/// `func[N]`; a malformed `name` section only loses names, never the sentence.
pub fn explain(r: &Rejection, target: &[u8]) -> String {
    let Some(stop) = &r.stop else { return r.message.clone() };
    let function = || match stop.function {
        Some(index) => format!(" in {}", function_name(target, index)),
        None => String::new(),
    };
    match (&stop.cause, stop.counters) {
        (Some(Cause::Trap { offset, kind }), counters) => {
            let ran = match counters {
                Some(c) => format!(", after {} of {} instructions", c.instructions, stop.budget),
                None => String::from(" while instantiating"),
            };
            format!("target trapped{} at module offset 0x{offset:x}: {kind}{ran}", function())
        }
        (Some(Cause::Budget { offset }), _) => format!(
            "instruction budget of {} instructions exhausted{} (next instruction at module offset 0x{offset:x})",
            stop.budget,
            function()
        ),
        (Some(Cause::Limit), _) if stop.function.is_some() => format!("{}{}", r.message, function()),
        _ => r.message.clone(),
    }
}

/// Function `index` of the module `target` (bytes) for a sentence: `` `NAME` `` with its
/// `name`-section entry (demangled) or export name, else `func[N]`.
pub fn function_name(target: &[u8], index: u32) -> String {
    let names = FunctionNames::read(target);
    match names.source(index) {
        NameSource::Index => format!("func[{index}]"),
        _ => format!("`{}`", names.get(index)),
    }
}

/// A trap's kind for a sentence: its message, and for an exception that no handler caught
/// the tag by its export name when the module exports it (`uncaught exception of tag 0,
/// exported as "boom"`), else by its index (`uncaught exception (tag 0)`).
pub fn trap_kind(kind: crate::wasm::TrapKind, exports: &[crate::wasm::Export]) -> String {
    if let crate::wasm::TrapKind::UncaughtException { tag } = kind
        && let Some(e) =
            exports.iter().find(|e| e.kind == crate::wasm::ExternalKind::Tag && e.index == u32::from(tag))
    {
        return format!("{} of tag {tag}, exported as {:?}", kind.message(), e.name);
    }
    format!("{kind}")
}
