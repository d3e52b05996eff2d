//! Uniform value parsing (docs/uniforms.md, the `qip-memory run` column) on arbitrary bytes: the
//! first byte picks the setter type, the rest is the value text. It must not panic, error offsets
//! lie within the text, and an accepted value has the requested type.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qip_memory::content::uniforms::{ScalarType, parse_value};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else { return };
    let ty = match selector % 4 {
        0 => ScalarType::I32,
        1 => ScalarType::I64,
        2 => ScalarType::F32,
        _ => ScalarType::F64,
    };
    match parse_value(ty, text) {
        Ok(value) => assert_eq!(value.ty(), ty),
        Err(e) => assert!(e.offset <= text.len(), "{e:?} for {} bytes", text.len()),
    }
});
