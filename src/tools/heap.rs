//! `assemblyscript-heap-analyzer-json.wasm` as a library function: a multipart request with a
//! wasm binary and one or two dumps in, the JSON of docs/heap.md ("JSON") out (the same bytes
//! as `qip-memory heap analyze|diff` prints, without its newline), or a rejection.
//!
//! # Request
//!
//! `multipart/form-data` with the boundary of the content-type slot (docs/request.md,
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
//! `detail = offset * 10 + mode` ([`FAILURE_MODES`] = 10), `offset` a byte offset into the
//! request; the modes are the rows of [`MODES`] (rendered in docs/rejections.md). Modes 8 and
//! 9 are unused.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Rejection;
use super::modes::Mode;
use super::request::unbuildable;
use crate::content::form::{self, DEFAULT_BOUNDARY, FieldSource};
use crate::content::multipart::{self, MultipartError, MultipartErrorKind, Part};
use crate::heap::{
    Analyzer, ComparisonSort, ConstructorSort, Dump, HeapError, comparison_json, snapshot_json, views,
};

/// Failure modes per input offset of the heap analyzer component.
pub const FAILURE_MODES: u32 = 10;

/// Mode 0: the request does not parse, or holds neither field set.
pub const MALFORMED: Mode = Mode {
    number: 0,
    cause: "malformed multipart request, not one of the two field sets, or files that cannot be \
            written as one (a file containing the boundary's delimiter line)",
    offset: "first byte that broke the grammar, the unexpected part, or the closing line when a field \
             is missing; 0 when the request cannot be written",
};
/// Mode 1: a dump is not a version-2 heap dump.
pub const BAD_DUMP: Mode = Mode {
    number: 1,
    cause: "bad dump (WARPO's four dump messages)",
    offset: "offending dump part's body start",
};
/// Mode 2: the wasm binary does not parse.
pub const BAD_WASM: Mode =
    Mode { number: 2, cause: "the wasm part is not a readable module", offset: "wasm part's body start" };
/// Mode 3: the wasm binary has no DWARF to take the layouts from.
pub const NO_DEBUG_INFO: Mode =
    Mode { number: 3, cause: "no `debug_abbrev` / `debug_info` section", offset: "wasm part's body start" };
/// Mode 4: the DWARF cannot be read.
pub const BAD_DWARF: Mode = Mode { number: 4, cause: "invalid DWARF", offset: "wasm part's body start" };
/// Mode 5: the dump's heap is not consistent.
pub const BAD_HEAP: Mode = Mode {
    number: 5,
    cause: "the heap is inconsistent (a block or payload word past memory, a scan limit)",
    offset: "offending word in the dump part (part start + 24 + 4N + address), or the part's start",
};
/// Mode 6: a uniform (or option) value outside its table.
pub const BAD_UNIFORM: Mode = Mode {
    number: 6,
    cause: "`sort` code outside the view's table (the component-model interface: `top` of 0)",
    offset: "request length",
};
/// Mode 7: the JSON does not fit the output.
pub const OUTPUT_TOO_LARGE: Mode =
    Mode { number: 7, cause: "the JSON exceeds the output capacity", offset: "request length" };

/// The heap analyzer's table, in mode order (`MODES[m].number == m`).
pub const MODES: [Mode; 8] =
    [MALFORMED, BAD_DUMP, BAD_WASM, NO_DEBUG_INFO, BAD_DWARF, BAD_HEAP, BAD_UNIFORM, OUTPUT_TOO_LARGE];

/// The sentence for rejection `mode` of the heap analyzer ([`MODES`]).
pub fn mode_description(mode: u32) -> String {
    super::modes::describe(&MODES, mode)
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
        | HeapError::DumpTooSmallForGlobals { .. } => BAD_DUMP.number,
        HeapError::WasmParse => BAD_WASM.number,
        HeapError::MissingDebugAbbrev | HeapError::MissingDebugInfo => NO_DEBUG_INFO.number,
        HeapError::StringNotFound { .. }
        | HeapError::UnknownAbbreviation { .. }
        | HeapError::UnsupportedForm { .. }
        | HeapError::UnsupportedAddressSize { .. }
        | HeapError::Dwarf { .. } => BAD_DWARF.number,
        HeapError::BlockHeaderOutOfBounds { .. }
        | HeapError::PayloadOutOfBounds { .. }
        | HeapError::ScanLimitExceeded { .. } => BAD_HEAP.number,
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
/// component (docs/request.md, "The `-F` body"; [`DEFAULT_BOUNDARY`]): the constructor view of `dump`.
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
        // `dump` belongs to the constructors view, `before` and `after` to the comparison.
        if f.dump.is_some() && (f.before.is_some() || f.after.is_some()) {
            return Err(multipart::error(p.part_start, K::MixedParts));
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
    let mode = error_mode(e).unwrap_or(BAD_UNIFORM.number);
    let offset = match *e {
        HeapError::BlockHeaderOutOfBounds { block: a, .. }
        | HeapError::PayloadOutOfBounds { address: a, .. } => {
            let image_len = dump.bytes.len().saturating_sub(image_start) as u64;
            (dump.offset + image_start) as u64 + a.min(image_len)
        }
        _ if mode == BAD_DUMP.number || mode == BAD_HEAP.number => dump.offset as u64,
        _ => wasm.offset as u64,
    };
    Rejection::new(offset.min(request_len as u64) as u32, mode, reason!("{e}"))
}

/// Parses the request (`content_type` is the 70-byte multipart slot as the host left it),
/// runs the analysis and returns the JSON (no trailing newline). `sort` and `top` are the
/// uniform values (see the module documentation).
///
/// # Errors
/// A [`Rejection`] with the request offset and mode of the table in the module documentation.
pub fn heap_json(request: &[u8], content_type: &[u8], sort: u32, top: u32) -> Result<String, Rejection> {
    let len = request.len();
    let (view, f) = parse_request(request, content_type).map_err(|e| {
        Rejection::new(e.offset.min(len) as u32, MALFORMED.number, reason!("malformed request: {e}"))
    })?;
    let bad_uniform = |message: String| Rejection::new(len as u32, BAD_UNIFORM.number, message);
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
                bad_uniform(reason!(
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
                bad_uniform(reason!(
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
    fn rows_are_in_mode_order_and_distinct() {
        super::super::modes::assert_table_shape(&MODES);
        assert_eq!(
            mode_description(2),
            "the wasm part is not a readable module; the offset points at the wasm part's body start"
        );
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
