//! The multipart request parser (docs/request.md, "Grammar") on arbitrary bytes, with the
//! default content-type slot: it must not panic, every error offset lies within the body, and
//! every borrowed slice of an accepted request sits in the body at its stated offset.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qip_memory::content::{form, multipart};

fuzz_target!(|body: &[u8]| {
    match multipart::parse(body, form::DEFAULT_CONTENT_TYPE.as_bytes()) {
        Ok(request) => {
            let c = request.component;
            assert_eq!(body.get(c.offset..c.offset + c.bytes.len()), Some(c.bytes));
            if let Some(i) = request.input {
                assert_eq!(body.get(i.offset..i.offset + i.bytes.len()), Some(i.bytes));
            }
            assert!(request.uniforms.len() <= multipart::MAX_UNIFORMS);
            assert!(request.uniforms.windows(2).all(|w| w[0].key < w[1].key));
            for u in &request.uniforms {
                assert!(qip_memory::content::uniforms::valid_key(u.key));
                assert_eq!(body.get(u.value_offset..u.value_offset + u.value.len()), Some(u.value));
            }
        }
        Err(e) => assert!(e.offset <= body.len(), "{e:?} for a body of {} bytes", body.len()),
    }
});
