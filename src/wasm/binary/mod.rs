//! The WebAssembly 2.0 binary format, read by code of our own: primitive encodings
//! ([`reader`]), types ([`types`]), the operator table and the instruction decoder
//! ([`operators`]), the section framing ([`sections`]), function bodies ([`code`]), the `name`
//! section ([`names`]), the validation of function bodies ([`validate`]), and the signs of the
//! proposals after 2.0, by which a module that uses one is refused by name ([`proposals`]).
//!
//! Why our own and not a general decoder crate: the Content components compile this library
//! into a Wasm module that every `qip run` compiles again, so its size is their start-up time
//! (docs/components.md). A decoder and validator of exactly WebAssembly 2.0, driven by one
//! table of operators, is a fraction of a general one's code. The tests hold it to the
//! specification's test suite and, on generated and mutated modules, to `wasmparser`
//! (docs/testing.md).

pub(crate) mod code;
pub(crate) mod names;
pub(crate) mod operators;
pub(crate) mod proposals;
pub(crate) mod reader;
pub(crate) mod sections;
pub(crate) mod types;
pub(crate) mod validate;
