//! The decoder and validator (`qip_memory::wasm::Module::new`, docs/interpreter.md "Load") on
//! arbitrary bytes: it must not panic or hang, an error's offset lies within the module, and
//! it accepts a module exactly when wasmparser's validator, restricted to what the interpreter
//! runs (WebAssembly 2.0, threads, exceptions in both encodings, tail calls and extended
//! constants; a constant expression's `global.get` of a global the module defines, which
//! wasmparser allows only with GC, judged again with GC on, as tests/validate.rs does),
//! accepts it (a module past one of our limits is not compared). An input that does not start
//! with the magic number gets the module header in front, so that a short run explores
//! sections rather than the header (`tests/validate.rs` is the same comparison on generated
//! modules).
#![no_main]

use libfuzzer_sys::fuzz_target;
use qip_memory::wasm::{Limits, LoadErrorKind, Module};
use wasmparser::{Validator, WasmFeatures};

fuzz_target!(|input: &[u8]| {
    let with_header;
    let data = if input.starts_with(b"\0asm") {
        input
    } else {
        with_header = [b"\0asm\x01\0\0\0", input].concat();
        &with_header
    };
    let ours = Module::new(data, &Limits::default());
    if let Err(e) = &ours {
        assert!(e.offset.0 as usize <= data.len(), "offset {} past {} bytes", e.offset, data.len());
        if matches!(e.kind, LoadErrorKind::Limit(_)) {
            return;
        }
    }
    let runs = WasmFeatures::WASM2
        | WasmFeatures::THREADS
        | WasmFeatures::EXCEPTIONS
        | WasmFeatures::LEGACY_EXCEPTIONS
        | WasmFeatures::TAIL_CALL
        | WasmFeatures::EXTENDED_CONST;
    let mut theirs = Validator::new_with_features(runs).validate_all(data).map(|_| ());
    if let Err(e) = &theirs
        && e.message().contains("global.get of locally defined global")
    {
        let gc = runs | WasmFeatures::GC | WasmFeatures::FUNCTION_REFERENCES;
        theirs = Validator::new_with_features(gc).validate_all(data).map(|_| ());
    }
    assert_eq!(ours.is_ok(), theirs.is_ok(), "ours {:?}, wasmparser {:?}", ours.err(), theirs.err());
});
