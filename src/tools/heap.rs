//! `assemblyscript-heap-analyzer-json.wasm` as a library function: a multipart request with a
//! wasm binary and one or two dumps in, the JSON of `heap-analyzer.md` E out (the same bytes
//! as `qip-memory heap analyze|diff` prints, without its newline), or a rejection.
//!
//! # Request
//!
//! `multipart/form-data` with the boundary of the content-type slot (`qip-content.md` B.3,
//! parsed by [`multipart::parse_parts`]), with exactly one of these sets of fields, each at
//! most once, in any order:
//!
//! * `wasm` + `dump`: the constructor view of `dump` (`qip-memory heap analyze`);
//! * `wasm` + `before` + `after`: the comparison view (`qip-memory heap diff`).
//!
//! # Uniforms (the component's own, reset to their defaults after every render)
//!
//! * `sort` (i32, unsigned, default 0): constructor view 0 retained, 1 shallow, 2 count; comparison view
//!   0 delta, 1 alloc, 2 freed, 3 count;
//! * `top` (i32, unsigned, default 0): keep the first `top` rows; 0 keeps all.
//!
//! # Rejections
//!
//! `detail = offset * 10 + mode` ([`FAILURE_MODES`] = 10, the style of `memory-tools.md` 1.1),
//! `offset` a byte offset into the request:
//!
//! | mode | meaning | offset points at |
//! | ---: | --- | --- |
//! | 0 | malformed multipart request, or fields other than the two sets above | the first byte that broke the grammar; the part start of an unknown or repeated field; the closing delimiter line when a field is missing |
//! | 1 | a dump is not a version-2 dump (the four messages of `heap-analyzer.md` A.1) | the start of that dump's part |
//! | 2 | the wasm binary cannot be read (`Failed to parse wasm binary`) | the start of the `wasm` part |
//! | 3 | the wasm binary lacks `debug_abbrev` or `debug_info` | the start of the `wasm` part |
//! | 4 | the DWARF is invalid (`heap-analyzer.md` B.1 messages, or gimli's) | the start of the `wasm` part |
//! | 5 | a dump is not a consistent heap (a block or array header past the end of memory, more slots claimed than memory holds) | the dump part's byte of the bad word (part start + 24 + 4N + address), or the part start |
//! | 6 | a bad uniform value (a `sort` code outside the view's table) | the end of the request (`input_size`) |
//! | 7 | the JSON is larger than the output capacity | the end of the request |
//!
//! Modes 8 and 9 are unused.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Rejection;
use super::request::unbuildable;
use crate::content::form::{self, DEFAULT_BOUNDARY, FieldSource};
use crate::content::multipart::{self, MultipartError, MultipartErrorKind, Part};
use crate::heap::{
    Analyzer, ComparisonSort, ConstructorSort, Dump, HeapError, comparison_json, snapshot_json, views,
};

/// Failure modes per input offset of the heap analyzer component.
pub const FAILURE_MODES: u32 = 10;

/// The sentences of the rejection modes (the table in the module documentation), by mode.
const DESCRIPTIONS: [&str; 8] = [
    "the request is not a valid multipart request with fields wasm and dump, or wasm, before and after; the offset points at the first byte that broke the grammar, the offending part or the closing boundary",
    "a dump is not a version-2 heap dump; the offset is the start of that dump's part",
    "the wasm binary cannot be read; the offset is the start of the wasm part",
    "the wasm binary has no debug_abbrev or debug_info section; the offset is the start of the wasm part",
    "the wasm binary's DWARF is invalid; the offset is the start of the wasm part",
    "a dump is not a consistent AssemblyScript heap; the offset points at the bad word in that dump's part, or at the part's start",
    "the sort uniform has a code outside the view's table; the offset is the end of the request",
    "the JSON is larger than the output capacity; the offset is the end of the request",
];

/// The sentence for rejection `mode` of the heap analyzer component (no trailing period).
pub fn mode_description(mode: u32) -> &'static str {
    usize::try_from(mode).ok().and_then(|m| DESCRIPTIONS.get(m)).copied().unwrap_or("unknown rejection mode")
}

/// Which JSON a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// `wasm` + `dump`: the constructor view.
    Constructors,
    /// `wasm` + `before` + `after`: the comparison view.
    Comparison,
}

/// The constructor-view sort of a `sort` uniform code (0 retained, 1 shallow, 2 count).
pub fn constructor_sort(code: u32) -> Option<ConstructorSort> {
    match code {
        0 => Some(ConstructorSort::Retained),
        1 => Some(ConstructorSort::Shallow),
        2 => Some(ConstructorSort::Count),
        _ => None,
    }
}

/// The comparison-view sort of a `sort` uniform code (0 delta, 1 alloc, 2 freed, 3 count).
pub fn comparison_sort(code: u32) -> Option<ComparisonSort> {
    match code {
        0 => Some(ComparisonSort::Delta),
        1 => Some(ComparisonSort::Alloc),
        2 => Some(ComparisonSort::Freed),
        3 => Some(ComparisonSort::Count),
        _ => None,
    }
}

/// The mode (1–5) of an analysis error; `None` for the CLI-only errors (`--sort`, `--top`).
pub fn error_mode(e: &HeapError) -> Option<u32> {
    Some(match e {
        HeapError::DumpTooSmall { .. }
        | HeapError::InvalidMagic { .. }
        | HeapError::UnsupportedVersion { .. }
        | HeapError::DumpTooSmallForGlobals { .. } => 1,
        HeapError::WasmParse => 2,
        HeapError::MissingDebugAbbrev | HeapError::MissingDebugInfo => 3,
        HeapError::StringNotFound { .. }
        | HeapError::UnknownAbbreviation { .. }
        | HeapError::UnsupportedForm { .. }
        | HeapError::UnsupportedAddressSize { .. }
        | HeapError::Dwarf { .. } => 4,
        HeapError::BlockHeaderOutOfBounds { .. }
        | HeapError::PayloadOutOfBounds { .. }
        | HeapError::ScanLimitExceeded { .. } => 5,
        _ => return None,
    })
}

/// The filenames [`analyze_request`] and [`diff_request`] give the files (the front ends that
/// call them have bytes, not paths): the wasm binary, the dump, the two dumps.
pub const WASM_FILENAME: &str = "module.wasm";
/// See [`WASM_FILENAME`].
pub const DUMP_FILENAME: &str = "heap.dump";
/// See [`WASM_FILENAME`].
pub const BEFORE_FILENAME: &str = "before.dump";
/// See [`WASM_FILENAME`].
pub const AFTER_FILENAME: &str = "after.dump";

/// The request `qip run -F wasm=@module.wasm -F dump=@heap.dump` sends to the heap analyzer
/// component (`qip-content.md` A.10, [`DEFAULT_BOUNDARY`]): the constructor view of `dump`.
/// Front ends that hold the files' bytes (the component-model build) build it here, so their
/// rejection offsets are the component's.
///
/// # Errors
/// Mode 0 at offset 0 when a file contains the boundary's delimiter line (see
/// [`form::build_body`]).
pub fn analyze_request(wasm: &[u8], dump: &[u8]) -> Result<Vec<u8>, Rejection> {
    files_request(&[("wasm", WASM_FILENAME, wasm), ("dump", DUMP_FILENAME, dump)])
}

/// The request `qip run -F wasm=@module.wasm -F before=@before.dump -F after=@after.dump`
/// sends: the comparison view of the two dumps. As [`analyze_request`].
///
/// # Errors
/// As [`analyze_request`].
pub fn diff_request(wasm: &[u8], before: &[u8], after: &[u8]) -> Result<Vec<u8>, Rejection> {
    files_request(&[
        ("wasm", WASM_FILENAME, wasm),
        ("before", BEFORE_FILENAME, before),
        ("after", AFTER_FILENAME, after),
    ])
}

/// `(field name, filename, bytes)` as file parts, in order.
fn files_request(files: &[(&str, &str, &[u8])]) -> Result<Vec<u8>, Rejection> {
    let fields: Vec<(String, FieldSource)> = files
        .iter()
        .map(|(name, filename, bytes)| {
            (name.to_string(), FieldSource::File { bytes: bytes.to_vec(), filename: filename.to_string() })
        })
        .collect();
    form::build_body(&fields, DEFAULT_BOUNDARY).map_err(unbuildable)
}

/// The fields of a request.
#[derive(Debug, Clone, Copy, Default)]
struct Fields<'a> {
    wasm: Option<Part<'a>>,
    dump: Option<Part<'a>>,
    before: Option<Part<'a>>,
    after: Option<Part<'a>>,
}

fn parse_request<'a>(request: &'a [u8], slot: &[u8]) -> Result<(View, Fields<'a>), MultipartError> {
    use MultipartErrorKind as K;
    let mut f = Fields::default();
    let closing = multipart::parse_parts(request, slot, |p| {
        let field = match p.name {
            b"wasm" => &mut f.wasm,
            b"dump" => &mut f.dump,
            b"before" => &mut f.before,
            b"after" => &mut f.after,
            _ => return Err(multipart::error(p.part_start, K::UnexpectedPartName)),
        };
        if field.replace(p.part).is_some() {
            return Err(multipart::error(p.part_start, K::DuplicatePart));
        }
        Ok(())
    })?;
    let view = match (f.wasm.is_some(), f.dump.is_some(), f.before.is_some(), f.after.is_some()) {
        (true, true, false, false) => View::Constructors,
        (true, false, true, true) => View::Comparison,
        _ => return Err(multipart::error(closing, K::MissingPart)),
    };
    Ok((view, f))
}

/// The request offset of an analysis error: the wasm part for modes 2–4, the dump part for
/// modes 1 and 5, and for a bad word the byte holding it (`image_start` = offset of the memory
/// image inside the dump part, i.e. 24 + 4N).
fn reject(
    e: &HeapError,
    wasm: Part<'_>,
    dump: Part<'_>,
    image_start: usize,
    request_len: usize,
) -> Rejection {
    let mode = error_mode(e).unwrap_or(6);
    let offset = match *e {
        HeapError::BlockHeaderOutOfBounds { block: a, .. }
        | HeapError::PayloadOutOfBounds { address: a, .. } => {
            let image_len = dump.bytes.len().saturating_sub(image_start) as u64;
            (dump.offset + image_start) as u64 + a.min(image_len)
        }
        _ if mode == 1 || mode == 5 => dump.offset as u64,
        _ => wasm.offset as u64,
    };
    Rejection { offset: offset.min(request_len as u64) as u32, mode, message: e.to_string() }
}

/// Parses the request (`content_type` is the 70-byte multipart slot as the host left it),
/// runs the analysis and returns the JSON (no trailing newline). `sort` and `top` are the
/// uniform values (see the module documentation).
///
/// # Errors
/// A [`Rejection`] with the request offset and mode of the table in the module documentation.
pub fn heap_json(request: &[u8], content_type: &[u8], sort: u32, top: u32) -> Result<String, Rejection> {
    let len = request.len();
    let (view, f) = parse_request(request, content_type).map_err(|e| Rejection {
        offset: e.offset.min(len) as u32,
        mode: 0,
        message: format!("malformed request: {e}"),
    })?;
    let bad_uniform = |message: String| Rejection { offset: len as u32, mode: 6, message };
    let wasm = f.wasm.unwrap_or(Part { bytes: &[], offset: 0 });
    let first = f.dump.or(f.before).unwrap_or(wasm);
    let first_dump = Dump::parse(first.bytes).map_err(|e| reject(&e, wasm, first, 0, len))?;
    let first_image = first.bytes.len() - first_dump.memory.len();
    let analyzer = Analyzer::new(wasm.bytes).map_err(|e| reject(&e, wasm, first, 0, len))?;
    let first_snap = analyzer.analyze(&first_dump).map_err(|e| reject(&e, wasm, first, first_image, len))?;
    let top = match top {
        0 => None,
        n => Some(usize::try_from(n).unwrap_or(usize::MAX)),
    };
    match view {
        View::Constructors => {
            let mut snap = first_snap;
            let s = constructor_sort(sort).ok_or_else(|| {
                bad_uniform(format!(
                    "sort {sort} is not a constructor-view sort (0 retained, 1 shallow, 2 count)"
                ))
            })?;
            snap.sort_and_truncate(s, top);
            Ok(snapshot_json(&snap))
        }
        View::Comparison => {
            let after = f.after.unwrap_or(first);
            let after_dump = Dump::parse(after.bytes).map_err(|e| reject(&e, wasm, after, 0, len))?;
            let after_image = after.bytes.len() - after_dump.memory.len();
            let after_snap =
                analyzer.analyze(&after_dump).map_err(|e| reject(&e, wasm, after, after_image, len))?;
            let mut c = views::compare(&first_snap, &after_snap);
            let s = comparison_sort(sort).ok_or_else(|| {
                bad_uniform(format!(
                    "sort {sort} is not a comparison-view sort (0 delta, 1 alloc, 2 freed, 3 count)"
                ))
            })?;
            c.sort_and_truncate(s, top);
            Ok(comparison_json(&c))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_its_own_sentence() {
        for m in 0..8 {
            for n in 0..m {
                assert_ne!(mode_description(m), mode_description(n));
            }
        }
        assert_eq!(mode_description(8), "unknown rejection mode");
    }

    #[test]
    fn requests_of_the_file_front_ends() {
        let body = analyze_request(b"\0asm", b"D").unwrap();
        let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"wasm\"; filename=\"module.wasm\"\r\n\
            Content-Type: application/octet-stream\r\n\
            \r\n\
            \0asm\r\n\
            --uuid-00000000-0000-0000-0000-000000000000\r\n\
            Content-Disposition: form-data; name=\"dump\"; filename=\"heap.dump\"\r\n\
            Content-Type: application/octet-stream\r\n\
            \r\n\
            D\r\n\
            --uuid-00000000-0000-0000-0000-000000000000--\r\n";
        assert_eq!(body, expected);
        let slot = crate::content::form::DEFAULT_CONTENT_TYPE.as_bytes();
        let (view, f) = parse_request(&body, slot).unwrap();
        assert_eq!(view, View::Constructors);
        assert_eq!(f.dump.unwrap().bytes, b"D");
        let body = diff_request(b"W", b"B", b"A").unwrap();
        let (view, f) = parse_request(&body, slot).unwrap();
        assert_eq!(view, View::Comparison);
        assert_eq!(
            (f.wasm.unwrap().bytes, f.before.unwrap().bytes, f.after.unwrap().bytes),
            (&b"W"[..], &b"B"[..], &b"A"[..])
        );
        // A dump holding the delimiter line cannot be sent: mode 0 at offset 0.
        let r = analyze_request(b"W", b"x\r\n--uuid-00000000-0000-0000-0000-000000000000\r\ny").unwrap_err();
        assert_eq!((r.offset, r.mode), (0, 0));
    }

    #[test]
    fn sort_codes() {
        assert_eq!(constructor_sort(2), Some(ConstructorSort::Count));
        assert_eq!(constructor_sort(3), None);
        assert_eq!(comparison_sort(3), Some(ComparisonSort::Count));
        assert_eq!(comparison_sort(4), None);
    }
}
