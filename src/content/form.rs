//! The `-F` multipart body builder of Go `qip run` (docs/request.md, "The `-F` body"), byte for
//! byte.
//!
//! * Input: the fields in command-line order, each a name and a [`FieldSource`] (the CLI has
//!   already read the files or stdin), and a boundary (normally [`DEFAULT_BOUNDARY`]).
//! * Output: the request body, which [`multipart::parse`](super::multipart::parse) reads back
//!   into the same fields when the names are `component`, `input` and `uniforms[<key>]`.
//!
//! # Wire format
//!
//! For each field, in order (`CRLF` = `\r\n`):
//!
//! ```text
//! "--" BOUNDARY CRLF
//! "Content-Disposition: form-data; name=\"" NAME "\""
//! [ "; filename=\"" FILENAME "\"" CRLF "Content-Type: application/octet-stream" ]   (File only)
//! CRLF CRLF
//! BODY
//! CRLF
//! ```
//!
//! then once: `"--" BOUNDARY "--" CRLF`.
//!
//! | `-F` form | [`FieldSource`] | body | extra headers |
//! | --- | --- | --- | --- |
//! | `name=text` | `Text` | the text's bytes, verbatim, may be empty | none |
//! | `name=@path`, `name=@-` | `File` | the file's (stdin's) bytes | `filename` (last path segment; `-` for stdin) and the octet-stream content type |
//! | `name=<path`, `name=<-` | `Raw` | the file's (stdin's) bytes | none |
//!
//! Rules: at least one field; a name is non-empty printable ASCII (0x20–0x7E) without `"` and
//! `\`; a filename (the text after the last `/` or `\`) likewise; no body may contain
//! `CRLF "--" BOUNDARY` immediately followed by `CRLF` or `--` (a delimiter line).
//!
//! One rule is ours: a body that **ends** with `CRLF "--" BOUNDARY` is rejected as well,
//! because the CRLF written after it completes a delimiter line and a strict reader
//! (docs/request.md) would end the part there. Whether Go's check catches this case is not known
//! (its description words the check on the body alone); every body Go builds without error and that
//! reads back correctly is built here with identical bytes.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The boundary of Go's `-F` builder: `uuid-` and the all-zero UUID, 41 bytes.
pub const DEFAULT_BOUNDARY: &str = "uuid-00000000-0000-0000-0000-000000000000";

/// The content type that goes with [`DEFAULT_BOUNDARY`]: the 70-byte default value of the
/// multipart content-type slot (docs/request.md, "The boundary").
pub const DEFAULT_CONTENT_TYPE: &str =
    "multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";

/// The content type written for `name=@path` fields.
pub const FILE_CONTENT_TYPE: &str = "application/octet-stream";

/// Longest boundary accepted, in bytes (RFC 2046 5.1.1).
pub const MAX_BOUNDARY_LEN: usize = 70;

/// Where a field's body comes from, as the `-F` argument forms distinguish it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldSource {
    /// `name=text`: the text's UTF-8 bytes (may be empty); disposition header only.
    Text(Vec<u8>),
    /// `name=@path` (or `name=@-` for stdin): the file's bytes, sent with a `filename`
    /// parameter and `Content-Type: application/octet-stream`.
    File {
        /// The file's bytes.
        bytes: Vec<u8>,
        /// The path as given (or `-` for stdin); the text after its last `/` or `\` is
        /// written ([`filename_from_path`]).
        filename: String,
    },
    /// `name=<path` (or `name=<-`): the file's bytes, disposition header only.
    Raw(Vec<u8>),
}

impl FieldSource {
    /// The field's body bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            FieldSource::Text(b) | FieldSource::Raw(b) | FieldSource::File { bytes: b, .. } => b,
        }
    }
}

/// Why a form could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormError {
    /// Index of the offending field in `fields`; `None` for errors of the whole form
    /// ([`FormErrorKind::NoFields`], [`FormErrorKind::InvalidBoundary`]).
    pub field: Option<usize>,
    /// What is wrong.
    pub kind: FormErrorKind,
}

/// The class of a [`FormError`]; offsets are byte offsets in the named string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormErrorKind {
    /// The field list is empty.
    NoFields,
    /// The boundary is empty, longer than [`MAX_BOUNDARY_LEN`], or has a byte outside RFC
    /// 2046's boundary characters without space (`0-9 A-Z a-z ' ( ) + _ , - . / : = ?`).
    InvalidBoundary {
        /// Offset in the boundary of the first bad byte (its length when it is empty or too
        /// long: 0 or 70).
        at: usize,
    },
    /// A field name is empty.
    EmptyName,
    /// A field name has a byte outside printable ASCII, or `"` or `\`.
    InvalidNameByte {
        /// Offset in the name.
        at: usize,
        /// The byte.
        byte: u8,
    },
    /// A `File` field's filename (the last path segment) is empty.
    EmptyFilename,
    /// A `File` field's filename has a byte outside printable ASCII, or `"` or `\`.
    InvalidFilenameByte {
        /// Offset in the filename (the last path segment).
        at: usize,
        /// The byte.
        byte: u8,
    },
    /// A field body contains a delimiter line for the boundary (or ends with
    /// `CRLF "--" BOUNDARY`, which the CRLF after the body completes into one).
    BodyContainsDelimiter {
        /// Offset in the body of the CRLF that starts the delimiter.
        at: usize,
    },
}

impl FormErrorKind {
    /// A one-line English reason.
    pub fn describe(self) -> &'static str {
        match self {
            FormErrorKind::NoFields => "a form needs at least one field",
            FormErrorKind::InvalidBoundary { .. } => "the multipart boundary is not valid",
            FormErrorKind::EmptyName => "a form field name is empty",
            FormErrorKind::InvalidNameByte { .. } => {
                "a form field name must be printable ASCII without '\"' or '\\'"
            }
            FormErrorKind::EmptyFilename => "a form file name is empty",
            FormErrorKind::InvalidFilenameByte { .. } => {
                "a form file name must be printable ASCII without '\"' or '\\'"
            }
            FormErrorKind::BodyContainsDelimiter { .. } => {
                "a form field contains the multipart boundary as a delimiter line"
            }
        }
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.describe())?;
        if let Some(i) = self.field {
            write!(f, " (field {i})")?;
        }
        match self.kind {
            FormErrorKind::InvalidBoundary { at }
            | FormErrorKind::InvalidNameByte { at, .. }
            | FormErrorKind::InvalidFilenameByte { at, .. }
            | FormErrorKind::BodyContainsDelimiter { at } => write!(f, " (at offset 0x{at:x})"),
            _ => Ok(()),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FormError {}

/// The file name `-F name=@path` sends: the text after the last `/` or `\` of `path` (all of
/// it when there is none; empty when `path` ends with a separator).
pub fn filename_from_path(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or(path, |i| &path[i + 1..])
}

/// The first byte of `s` that breaks the name rule (printable ASCII 0x20–0x7E, not `"`,
/// not `\`), with its offset.
fn first_bad_name_byte(s: &str) -> Option<(usize, u8)> {
    s.bytes().enumerate().find(|&(_, c)| !(0x20..=0x7e).contains(&c) || c == b'"' || c == b'\\')
}

/// Whether `c` is an RFC 2046 boundary character other than space.
fn is_boundary_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"'()+_,-./:=?".contains(&c)
}

/// Offset of the first `CRLF "--" boundary` in `body` that is followed by `CRLF` or `--`, or
/// that ends `body`.
fn delimiter_in_body(body: &[u8], boundary: &[u8]) -> Option<usize> {
    let len = 4 + boundary.len();
    (0..body.len()).filter(|&i| body[i] == b'\r').find(|&i| {
        let Some(rest) = body.get(i..) else { return false };
        rest.starts_with(b"\r\n--")
            && rest.get(4..len) == Some(boundary)
            && matches!(rest.get(len..), Some([] | [b'\r', b'\n', ..] | [b'-', b'-', ..]))
    })
}

/// Builds the `-F` request body for `fields` (in order) with `boundary` (the wire
/// format and rules are in the [module documentation](self)).
///
/// # Errors
///
/// [`FormErrorKind::NoFields`] for an empty list, [`FormErrorKind::InvalidBoundary`], and per
/// field (the first offending field, checked in order: name, filename, body)
/// [`FormErrorKind::EmptyName`], [`FormErrorKind::InvalidNameByte`],
/// [`FormErrorKind::EmptyFilename`], [`FormErrorKind::InvalidFilenameByte`],
/// [`FormErrorKind::BodyContainsDelimiter`].
pub fn build_body(fields: &[(String, FieldSource)], boundary: &str) -> Result<Vec<u8>, FormError> {
    let whole = |kind| FormError { field: None, kind };
    if fields.is_empty() {
        return Err(whole(FormErrorKind::NoFields));
    }
    if boundary.is_empty() || boundary.len() > MAX_BOUNDARY_LEN {
        let at = boundary.len().min(MAX_BOUNDARY_LEN);
        return Err(whole(FormErrorKind::InvalidBoundary { at }));
    }
    if let Some(at) = boundary.bytes().position(|c| !is_boundary_char(c)) {
        return Err(whole(FormErrorKind::InvalidBoundary { at }));
    }
    let boundary = boundary.as_bytes();

    let mut out = Vec::with_capacity(
        fields.iter().map(|(name, src)| 2 * boundary.len() + name.len() + src.bytes().len() + 160).sum(),
    );
    for (index, (name, source)) in fields.iter().enumerate() {
        let fail = |kind| FormError { field: Some(index), kind };
        if name.is_empty() {
            return Err(fail(FormErrorKind::EmptyName));
        }
        if let Some((at, byte)) = first_bad_name_byte(name) {
            return Err(fail(FormErrorKind::InvalidNameByte { at, byte }));
        }
        let filename = match source {
            FieldSource::File { filename, .. } => {
                let filename = filename_from_path(filename);
                if filename.is_empty() {
                    return Err(fail(FormErrorKind::EmptyFilename));
                }
                if let Some((at, byte)) = first_bad_name_byte(filename) {
                    return Err(fail(FormErrorKind::InvalidFilenameByte { at, byte }));
                }
                Some(filename)
            }
            FieldSource::Text(_) | FieldSource::Raw(_) => None,
        };
        let body = source.bytes();
        if let Some(at) = delimiter_in_body(body, boundary) {
            return Err(fail(FormErrorKind::BodyContainsDelimiter { at }));
        }

        out.extend_from_slice(b"--");
        out.extend_from_slice(boundary);
        out.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\"");
        if let Some(filename) = filename {
            out.extend_from_slice(b"; filename=\"");
            out.extend_from_slice(filename.as_bytes());
            out.extend_from_slice(b"\"\r\nContent-Type: ");
            out.extend_from_slice(FILE_CONTENT_TYPE.as_bytes());
        }
        out.extend_from_slice(b"\r\n\r\n");
        out.extend_from_slice(body);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"--");
    out.extend_from_slice(boundary);
    out.extend_from_slice(b"--\r\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::multipart;
    use alloc::borrow::ToOwned;
    use alloc::format;
    use alloc::vec;

    fn text(name: &str, body: &str) -> (String, FieldSource) {
        (name.to_owned(), FieldSource::Text(body.as_bytes().to_vec()))
    }

    fn raw(name: &str, body: &[u8]) -> (String, FieldSource) {
        (name.to_owned(), FieldSource::Raw(body.to_vec()))
    }

    fn file(name: &str, body: &[u8], path: &str) -> (String, FieldSource) {
        (name.to_owned(), FieldSource::File { bytes: body.to_vec(), filename: path.to_owned() })
    }

    fn build(fields: &[(String, FieldSource)]) -> Result<Vec<u8>, FormError> {
        build_body(fields, DEFAULT_BOUNDARY)
    }

    #[test]
    fn constants() {
        assert_eq!(DEFAULT_BOUNDARY.len(), 41);
        assert_eq!(DEFAULT_CONTENT_TYPE.len(), 70);
        assert_eq!(DEFAULT_CONTENT_TYPE, format!("multipart/form-data;boundary={DEFAULT_BOUNDARY}"));
        assert_eq!(
            multipart::boundary_from_slot(DEFAULT_CONTENT_TYPE.as_bytes()),
            Ok(DEFAULT_BOUNDARY.as_bytes())
        );
    }

    #[test]
    fn text_field_bytes() {
        // `-F scale=0.5`: delimiter line, disposition only, blank line, body, CRLF,
        // closing line.
        let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"uniforms[scale]\"\r\n\
            \r\n\
            0.5\r\n\
            --uuid-00000000-0000-0000-0000-000000000000--\r\n";
        assert_eq!(build(&[text("uniforms[scale]", "0.5")]).unwrap(), expected);
    }

    #[test]
    fn empty_text_field_bytes() {
        // `-F input=`: an empty body sits between the blank line and the CRLF.
        let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"input\"\r\n\
            \r\n\
            \r\n\
            --uuid-00000000-0000-0000-0000-000000000000--\r\n";
        assert_eq!(build(&[text("input", "")]).unwrap(), expected);
    }

    #[test]
    fn file_field_bytes() {
        // `-F component=@dir/sub\t.wasm`: filename is the last segment, then the octet-stream
        // line; the body is the file's bytes verbatim.
        let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"component\"; filename=\"t.wasm\"\r\n\
            Content-Type: application/octet-stream\r\n\
            \r\n\
            \0asm\x01\0\0\0\r\n\
            --uuid-00000000-0000-0000-0000-000000000000--\r\n";
        let got = build(&[file("component", b"\0asm\x01\0\0\0", "dir/sub\\t.wasm")]).unwrap();
        assert_eq!(got, expected);
        // `-F input=@-`: filename "-".
        let got = build(&[file("input", b"x", "-")]).unwrap();
        assert!(got.windows(16).any(|w| w == b"; filename=\"-\"\r\n"));
    }

    #[test]
    fn raw_field_bytes_and_order() {
        // `-F component=<t.wasm -F input=hi`: no filename, no content type; order kept.
        let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"component\"\r\n\
            \r\n\
            \0asm\r\n\
            --uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"input\"\r\n\
            \r\n\
            hi\r\n\
            --uuid-00000000-0000-0000-0000-000000000000--\r\n";
        assert_eq!(build(&[raw("component", b"\0asm"), text("input", "hi")]).unwrap(), expected);
    }

    #[test]
    fn custom_boundary() {
        let got = build_body(&[text("a", "b")], "xyz").unwrap();
        assert_eq!(got, b"--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--xyz--\r\n");
        let e = |b: &str| build_body(&[text("a", "b")], b).unwrap_err().kind;
        assert_eq!(e(""), FormErrorKind::InvalidBoundary { at: 0 });
        assert_eq!(e("ab cd"), FormErrorKind::InvalidBoundary { at: 2 });
        assert_eq!(e("ab\r\n"), FormErrorKind::InvalidBoundary { at: 2 });
        assert_eq!(e(&"a".repeat(71)), FormErrorKind::InvalidBoundary { at: 70 });
        assert!(build_body(&[text("a", "b")], &"a".repeat(70)).is_ok());
    }

    #[test]
    fn name_and_filename_rules() {
        assert_eq!(build(&[]), Err(FormError { field: None, kind: FormErrorKind::NoFields }));
        let err = |fields: &[(String, FieldSource)]| build(fields).unwrap_err();
        assert_eq!(
            err(&[text("input", "x"), text("", "x")]),
            FormError { field: Some(1), kind: FormErrorKind::EmptyName }
        );
        // '"' at offset 2 of `ab"c`.
        assert_eq!(err(&[text("ab\"c", "x")]).kind, FormErrorKind::InvalidNameByte { at: 2, byte: b'"' });
        assert_eq!(err(&[text("a\\", "x")]).kind, FormErrorKind::InvalidNameByte { at: 1, byte: b'\\' });
        assert_eq!(err(&[text("a\x7f", "x")]).kind, FormErrorKind::InvalidNameByte { at: 1, byte: 0x7f });
        assert_eq!(err(&[text("\t", "x")]).kind, FormErrorKind::InvalidNameByte { at: 0, byte: b'\t' });
        // 'é' is 0xc3 0xa9 in UTF-8: the first byte breaks the rule.
        assert_eq!(err(&[text("é", "x")]).kind, FormErrorKind::InvalidNameByte { at: 0, byte: 0xc3 });
        // Space and every other printable byte are fine in names.
        assert!(build(&[text(" !#$%&'()*+,-./:;<=>?@[]^_`{|}~", "x")]).is_ok());
        assert_eq!(err(&[file("input", b"x", "dir/")]).kind, FormErrorKind::EmptyFilename);
        assert_eq!(err(&[file("input", b"x", "")]).kind, FormErrorKind::EmptyFilename);
        assert_eq!(err(&[file("input", b"x", "c:\\dir\\")]).kind, FormErrorKind::EmptyFilename);
        assert_eq!(
            err(&[file("input", b"x", "dir/a\"b")]).kind,
            FormErrorKind::InvalidFilenameByte { at: 1, byte: b'"' }
        );
        assert_eq!(filename_from_path("a/b\\c"), "c");
        assert_eq!(filename_from_path("a\\b/c.d"), "c.d");
        assert_eq!(filename_from_path("plain"), "plain");
    }

    #[test]
    fn delimiter_lines_in_bodies() {
        let b = DEFAULT_BOUNDARY;
        let err = |body: String| build(&[text("input", &body)]).unwrap_err().kind;
        // "x" then CRLF "--" B CRLF: the CRLF starts at offset 1.
        assert_eq!(err(format!("x\r\n--{b}\r\ny")), FormErrorKind::BodyContainsDelimiter { at: 1 });
        assert_eq!(err(format!("\r\n--{b}--")), FormErrorKind::BodyContainsDelimiter { at: 0 });
        // Ending with CRLF "--" B: the builder's CRLF would complete the line (ours).
        assert_eq!(err(format!("ab\r\n--{b}")), FormErrorKind::BodyContainsDelimiter { at: 2 });
        // Not delimiter lines: other continuations, no CRLF before, a partial boundary.
        for ok in [
            format!("\r\n--{b}x"),
            format!("\r\n--{b}-"),
            format!("--{b}\r\n"),
            format!("--{b}--\r\n"),
            format!("\r\n--{}", &b[..40]),
            format!("\r\n-{b}\r\n"),
        ] {
            assert!(build(&[text("input", &ok)]).is_ok(), "{ok:?}");
        }
    }

    /// Reads `body` with the strict parser and compares with what was built.
    fn assert_round_trip(component: &[u8], input: Option<&FieldSource>, uniforms: &[(&str, &[u8])]) {
        let mut fields = vec![raw("component", component)];
        if let Some(src) = input {
            fields.push(("input".to_owned(), src.clone()));
        }
        for (k, v) in uniforms {
            fields.push(raw(&format!("uniforms[{k}]"), v));
        }
        let body = build(&fields).unwrap();
        let r = multipart::parse(&body, DEFAULT_CONTENT_TYPE.as_bytes()).unwrap();
        assert_eq!(r.component.bytes, component);
        assert_eq!(r.input.map(|p| p.bytes), input.map(FieldSource::bytes));
        let mut sorted: Vec<_> = uniforms.to_vec();
        sorted.sort();
        let got: Vec<(&str, &[u8])> = r.uniforms.iter().map(|u| (u.key, u.value)).collect();
        assert_eq!(got, sorted);
    }

    #[test]
    fn round_trips() {
        let b = DEFAULT_BOUNDARY;
        assert_round_trip(b"\0asm\x01\0\0\0", None, &[]);
        assert_round_trip(b"", Some(&FieldSource::Text(vec![])), &[]);
        assert_round_trip(
            format!("--{b}\r\n").as_bytes(),
            Some(&FieldSource::File {
                bytes: format!("\r\n--{b}x\r\n").into_bytes(),
                filename: "in.bin".into(),
            }),
            &[("zeta", b"-1"), ("alpha", b" 2 "), ("m", b"\r\n")],
        );
        assert_round_trip(b"\r\n", Some(&FieldSource::Raw(b"\r\n\r\n--".to_vec())), &[("k", b"")]);
    }

    #[test]
    fn random_round_trips() {
        // Bodies over a small alphabet rich in delimiter fragments: whatever builds must read
        // back identically; whatever does not must fail only for a delimiter line.
        let b = DEFAULT_BOUNDARY;
        let pieces: [&[u8]; 7] =
            [b"\r", b"\n", b"-", b"--", b.as_bytes(), format!("\r\n--{b}").leak().as_bytes(), b"x"];
        let mut state: u64 = 42;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let (mut built, mut refused) = (0, 0);
        for _ in 0..3_000 {
            let mut make = || {
                let mut v = Vec::new();
                for _ in 0..next() % 6 {
                    v.extend_from_slice(pieces[next() % pieces.len()]);
                }
                v
            };
            let (c, i, u) = (make(), make(), make());
            let fields = vec![raw("component", &c), raw("input", &i), raw("uniforms[u]", &u)];
            match build(&fields) {
                Ok(body) => {
                    built += 1;
                    let r = multipart::parse(&body, DEFAULT_CONTENT_TYPE.as_bytes()).unwrap();
                    assert_eq!(r.component.bytes, &c[..]);
                    assert_eq!(r.input_bytes(), &i[..]);
                    assert_eq!(r.uniforms[0].value, &u[..]);
                }
                Err(e) => {
                    refused += 1;
                    assert!(matches!(e.kind, FormErrorKind::BodyContainsDelimiter { .. }), "{e:?}");
                }
            }
        }
        assert!(built > 100 && refused > 100, "{built} built, {refused} refused");
    }

    #[test]
    fn error_display() {
        let e = FormError { field: Some(2), kind: FormErrorKind::BodyContainsDelimiter { at: 16 } };
        assert_eq!(
            alloc::string::ToString::to_string(&e),
            "a form field contains the multipart boundary as a delimiter line (field 2) (at offset 0x10)"
        );
    }
}
