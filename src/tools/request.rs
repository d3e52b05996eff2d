//! The request a tool front end sends when it is given a target, an input and target uniforms
//! as separate arguments (the CLI's `page-writes` and `thermal`, the component-model build):
//! the multipart body `qip run` would build (docs/request.md, "The `-F` body";
//! [`DEFAULT_BOUNDARY`]) for
//!
//! ```text
//! -F component=@TARGET [-F input=TEXT | -F input=@PATH] [-F uniforms[KEY]=VALUE]...
//! ```
//!
//! (fields in that order, uniforms in the given order). Every front end builds its request
//! here, so the same arguments give the same bytes, hence the same output and the same
//! rejection offsets ([`Rejection::offset`] is an offset into this body).
//!
//! The component-model build has the target's bytes but no path: it sends the target as a
//! file named [`TARGET_FILENAME`] and the input as text, i.e. exactly the request of
//! `qip-memory page-writes target.wasm --input INPUT -u KEY=VALUE...`.

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::Rejection;
use crate::content::form::{self, DEFAULT_BOUNDARY, FieldSource, FormError};

/// The filename the component-model build gives the target (it has bytes, not a path).
pub const TARGET_FILENAME: &str = "target.wasm";

/// Builds the request for `component` (normally [`FieldSource::File`], as `-F
/// component=@PATH`), the optional `input` ([`FieldSource::Text`] for `-F input=TEXT`,
/// [`FieldSource::File`] for `-F input=@PATH`) and the target `uniforms` as `(key, value)` in
/// the given order (`-F uniforms[KEY]=VALUE`).
///
/// # Errors
/// The [`FormError`] of [`form::build_body`] when the arguments cannot be written as a
/// request: a key with a byte outside printable ASCII, `"` or `\`, or a body that contains a
/// delimiter line of the boundary.
pub fn request_body(
    component: FieldSource,
    input: Option<FieldSource>,
    uniforms: &[(&str, &str)],
) -> Result<Vec<u8>, FormError> {
    let mut fields = Vec::with_capacity(2 + uniforms.len());
    fields.push(("component".to_string(), component));
    if let Some(input) = input {
        fields.push(("input".to_string(), input));
    }
    for (key, value) in uniforms {
        fields.push((format!("uniforms[{key}]"), FieldSource::Text(value.as_bytes().to_vec())));
    }
    form::build_body(&fields, DEFAULT_BOUNDARY)
}

/// The request of the component-model build: `target` sent as the file [`TARGET_FILENAME`],
/// `input` as text (see the [module documentation](self)).
///
/// # Errors
/// Mode 0 at offset 0 when the arguments cannot be written as a request (see
/// [`request_body`]); there is no request to point into.
pub fn request_from_bytes(
    target: &[u8],
    input: Option<&[u8]>,
    uniforms: &[(&str, &str)],
) -> Result<Vec<u8>, Rejection> {
    let component = FieldSource::File { bytes: target.to_vec(), filename: TARGET_FILENAME.into() };
    request_body(component, input.map(|i| FieldSource::Text(i.to_vec())), uniforms).map_err(unbuildable)
}

/// The rejection for arguments that cannot be written as a request: mode 0 (malformed
/// request) at offset 0, with the builder's reason.
pub fn unbuildable(e: FormError) -> Rejection {
    Rejection::new(0, super::modes::MALFORMED.number, format!("cannot build the request: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::form::FormErrorKind;
    use crate::content::multipart;
    use alloc::vec;

    #[test]
    fn component_input_and_uniforms_in_order() {
        let body = request_from_bytes(b"\0asm", Some(b"hi"), &[("z", "1"), ("a", "")]).unwrap();
        let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"component\"; filename=\"target.wasm\"\r\n\
            Content-Type: application/octet-stream\r\n\
            \r\n\
            \0asm\r\n\
            --uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"input\"\r\n\
            \r\n\
            hi\r\n\
            --uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"uniforms[z]\"\r\n\
            \r\n\
            1\r\n\
            --uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"uniforms[a]\"\r\n\
            \r\n\
            \r\n\
            --uuid-00000000-0000-0000-0000-000000000000--\r\n";
        assert_eq!(body, expected);
        let parsed = multipart::parse(&body, form::DEFAULT_CONTENT_TYPE.as_bytes()).unwrap();
        assert_eq!(parsed.component.bytes, b"\0asm");
        assert_eq!(parsed.input_bytes(), b"hi");
        let keys: Vec<&str> = parsed.uniforms.iter().map(|u| u.key).collect();
        assert_eq!(keys, vec!["a", "z"]);
    }

    #[test]
    fn no_input_part_without_input() {
        let body = request_from_bytes(b"", None, &[]).unwrap();
        assert!(!body.windows(12).any(|w| w == b"name=\"input\""));
        let parsed = multipart::parse(&body, form::DEFAULT_CONTENT_TYPE.as_bytes()).unwrap();
        assert!(parsed.input.is_none());
    }

    #[test]
    fn unbuildable_arguments_are_mode_0_at_offset_0() {
        // A '"' in a key: field 1 (component is field 0), at offset 10 of `uniforms[a"b]`.
        let r = request_from_bytes(b"\0asm", None, &[("a\"b", "1")]).unwrap_err();
        assert_eq!((r.offset, r.mode), (0, 0));
        let e = request_body(FieldSource::Raw(vec![]), None, &[("a\"b", "1")]).unwrap_err();
        assert_eq!((e.field, e.kind), (Some(1), FormErrorKind::InvalidNameByte { at: 10, byte: b'"' }));
        assert_eq!(r.message, format!("cannot build the request: {e}"));
    }
}
