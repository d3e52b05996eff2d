//! Strict parser of the `multipart/form-data` request (docs/request.md).
//!
//! * Input: the request body (the component's input bytes, `0..input_size`) and the 70 bytes
//!   of the component's content-type slot, read on every call (the host may have
//!   rewritten the UUID).
//! * Output: a [`Request`] borrowing the body: the `component` part, the optional `input` part
//!   and up to [`MAX_UNIFORMS`] `uniforms[<key>]` parts sorted by key; or a [`MultipartError`]
//!   whose `offset` is the byte of the body that broke the grammar (rejection mode 0,
//!   docs/rejections.md, reports `offset * 10 + 0`).
//! * [`parse_parts`] is the same grammar with the part-name rules left to the caller, for
//!   tools whose requests have other fields (the heap analyzer's `wasm`, `dump`, `before`,
//!   `after`).
//!
//! # Grammar, with `B` = `uuid-<uuid>` (41 bytes) taken from the slot
//!
//! ```text
//! request   = "--" B CRLF part *( CRLF "--" B CRLF part ) CRLF "--" B "--" [ CRLF ]
//! part      = header-block CRLF CRLF part-body
//! ```
//!
//! * No preamble; no epilogue (only one optional CRLF after the closing delimiter).
//! * Header block: the bytes up to the next `CRLF CRLF`, at most [`MAX_HEADER_BLOCK_BYTES`];
//!   split on CRLF, every line non-empty, not starting with SP/HT (no folding), containing `:`.
//!   The name (before the first `:`) is compared ASCII-case-insensitively **without trimming**;
//!   the value is trimmed of SP/HT. Allowed: `Content-Disposition` exactly once, and
//!   `Content-Type` any number of times with a non-empty (ignored) value.
//! * Disposition value, split on `;`: first item (trimmed) `form-data` (ASCII case-insensitive);
//!   every other item (trimmed) non-empty, with a `=`; its value (trimmed) a quoted string
//!   `"…"` whose inner bytes contain no `"`, `\`, CR or LF. Key `name` (case-insensitive) gives
//!   the part name, once; other keys (`filename`, and any other, even empty) are checked and
//!   ignored.
//! * Part body: from after the `CRLF CRLF` to the first `CRLF "--" B` that is immediately
//!   followed by `CRLF` or `--`; other occurrences belong to the body.
//! * Part names (case-sensitive): `component` and `input` (each at most once) and
//!   `uniforms[<key>]` with a valid key ([`valid_key_bytes`]), each key once, at most
//!   64 of them; anything else is rejected. `component` is required; a missing `input` means
//!   empty input (`Request::input` is `None`).
//!
//! Errors are reported in the order the bytes are read: for each part its header block (line by
//! line), then the end of its body, then its name, then the bytes after its delimiter.

use alloc::vec::Vec;
use core::fmt;

use super::uniforms::valid_key_bytes;

/// Makes a [`MultipartError`] (for tools that check their own part names in
/// [`parse_parts`]).
pub fn error(offset: usize, kind: MultipartErrorKind) -> MultipartError {
    err(offset, kind)
}

/// Length of the content-type slot, in bytes.
pub const SLOT_LEN: usize = 70;

/// The immutable first 34 bytes of the content-type slot.
pub const SLOT_PREFIX: &[u8; 34] = b"multipart/form-data;boundary=uuid-";

/// Offset of the boundary parameter value `uuid-<uuid>` in the slot (after `boundary=`).
const BOUNDARY_START: usize = 29;

/// Length of the boundary `uuid-<uuid>`, in bytes.
pub const BOUNDARY_LEN: usize = 41;

/// Largest accepted header block of one part, in bytes, not counting the terminating
/// `CRLF CRLF`.
pub const MAX_HEADER_BLOCK_BYTES: usize = 16_384;

/// Largest number of `uniforms[<key>]` parts.
pub const MAX_UNIFORMS: usize = 64;

/// Length of the opening delimiter line `"--" B CRLF`.
const OPENING_LINE_LEN: usize = 2 + BOUNDARY_LEN + 2;

/// Length of `CRLF "--" B`, the delimiter as it ends a part body.
const DELIMITER_LEN: usize = 2 + 2 + BOUNDARY_LEN;

/// One part's body: its bytes and where they start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part body, exactly as sent (may be empty).
    pub bytes: &'a [u8],
    /// Byte offset of the body's first byte in the request body (for an empty body: where it
    /// would start, i.e. just after the header block's `CRLF CRLF`).
    pub offset: usize,
}

/// One `uniforms[<key>]` part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uniform<'a> {
    /// The key, valid per the uniform key grammar (ASCII).
    pub key: &'a str,
    /// The raw value: the part body, not trimmed (parse it with
    /// [`parse_value`](super::uniforms::parse_value)).
    pub value: &'a [u8],
    /// Byte offset of the value's first byte in the request body.
    pub value_offset: usize,
}

/// A parsed request (docs/request.md, "Fields").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request<'a> {
    /// The `component` part: the target module's bytes.
    pub component: Part<'a>,
    /// The `input` part, `None` when the request has none (the target then gets empty input).
    pub input: Option<Part<'a>>,
    /// The `uniforms[<key>]` parts, 0 to [`MAX_UNIFORMS`], sorted by key (byte order), keys
    /// unique.
    pub uniforms: Vec<Uniform<'a>>,
}

impl<'a> Request<'a> {
    /// The target input: the `input` part's bytes, empty when there is no `input` part.
    pub fn input_bytes(&self) -> &'a [u8] {
        self.input.map_or(&[], |p| p.bytes)
    }
}

/// Why a request is not a valid multipart request (rejection mode 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultipartError {
    /// Byte offset in the request body of the first byte that broke the grammar; always
    /// `<= body.len()`. The value for each kind is given on [`MultipartErrorKind`]'s variants.
    pub offset: usize,
    /// What is wrong.
    pub kind: MultipartErrorKind,
}

/// The class of a [`MultipartError`], with the rule for its offset. "Part start" is the offset
/// of the first byte of a part's header block (right after the delimiter line that opens the
/// part); "line start" the first byte of a header line; "item start" the first byte of a
/// disposition item after its leading SP/HT (for an item of only SP/HT, the byte after it:
/// the next `;` or the end of the line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MultipartErrorKind {
    /// The content-type slot is not `multipart/form-data;boundary=uuid-` followed by a
    /// canonical lowercase UUID. Offset: 0 (the body could not be read at all).
    InvalidBoundarySlot {
        /// Offset in the slot of the first bad byte (`min(slot.len(), 70)` when the slot has
        /// the wrong length).
        slot_offset: usize,
    },
    /// The body does not start with the opening delimiter line `"--" B CRLF`. Offset: 0.
    MissingOpeningDelimiter,
    /// No `CRLF CRLF` ends the part's header block. Offset: the body's length.
    MissingHeaderTerminator,
    /// The header block is longer than [`MAX_HEADER_BLOCK_BYTES`] (checked once its
    /// terminator is found, as QIP's wrapper orders it). Offset: part start + 16,384 (its first
    /// byte beyond the limit).
    HeaderBlockTooLarge,
    /// An empty header line (e.g. a header block that starts with CRLF). Offset: line start.
    EmptyHeaderLine,
    /// A header line starting with SP or HT (folding is not allowed). Offset: line start.
    FoldedHeaderLine,
    /// A header line without `:`. Offset: line start.
    HeaderLineWithoutColon,
    /// A header other than `Content-Disposition` and `Content-Type` (names compared without
    /// trimming, so `Content-Type :` is one). Offset: line start.
    UnknownHeader,
    /// A `Content-Type` header whose trimmed value is empty. Offset: line start.
    EmptyContentType,
    /// A second `Content-Disposition` header in one part. Offset: that line's start.
    DuplicateContentDisposition,
    /// The part has no `Content-Disposition` header. Offset: part start.
    MissingContentDisposition,
    /// The disposition's first item is not `form-data`. Offset: item start.
    NotFormData,
    /// An empty disposition item (e.g. a trailing `;`). Offset: item start.
    EmptyDispositionParameter,
    /// A disposition item without `=`. Offset: item start.
    DispositionParameterWithoutEquals,
    /// A disposition parameter value that is not a quoted string without `"`, `\`, CR and LF
    /// inside. Offset: first byte of the value after its leading SP/HT (the item's end when
    /// the value is empty).
    InvalidParameterValue,
    /// A second `name` parameter. Offset: item start of the second one.
    DuplicateNameParameter,
    /// The disposition has no `name` parameter. Offset: start of the `Content-Disposition`
    /// line.
    MissingNameParameter,
    /// No delimiter (`CRLF "--" B` followed by `CRLF` or `--`) ends the part body. Offset:
    /// the body's length.
    MissingDelimiter,
    /// The part name is none of `component`, `input`, `uniforms[<key>]`. Offset: part start.
    UnknownPartName,
    /// A second `component` part. Offset: part start of the second one.
    DuplicateComponent,
    /// A second `input` part. Offset: part start of the second one.
    DuplicateInput,
    /// A `uniforms[<key>]` part whose key breaks the uniform key grammar. Offset: part start.
    InvalidUniformKey,
    /// A second `uniforms[<key>]` part with the same key. Offset: part start of the second.
    DuplicateUniform,
    /// A 65th `uniforms[<key>]` part (checked after the key's validity and uniqueness).
    /// Offset: part start of the 65th.
    TooManyUniforms,
    /// Bytes after the closing delimiter other than one optional CRLF. Offset: the first byte
    /// after the closing delimiter line: after its CRLF when the bytes after `--` start with
    /// CRLF, else right after the `--`.
    Epilogue,
    /// The request is well formed but has no `component` part. Offset: the first byte of the
    /// closing delimiter line (the first `-` of `"--" B "--"`).
    MissingComponent,
    /// (Tools with their own part names, via [`parse_parts`].) A part name the tool does not
    /// accept. Offset: part start.
    UnexpectedPartName,
    /// (Tools with their own part names.) A second part with the same name. Offset: part
    /// start of the second one.
    DuplicatePart,
    /// (Tools with their own part names.) A part that does not go with an earlier one (the heap
    /// analyzer's `dump` of the constructors view with the comparison's `before` or `after`).
    /// Offset: part start of the later one.
    MixedParts,
    /// (Tools with their own part names.) A required part is missing, or the parts sent do not
    /// form one of the tool's requests. Offset: the first byte of the closing delimiter line.
    MissingPart,
}

/// A one-line English reason for `kind`.
pub fn describe(kind: MultipartErrorKind) -> &'static str {
    use MultipartErrorKind as K;
    match kind {
        K::InvalidBoundarySlot { .. } => "the content-type slot does not hold a valid multipart boundary",
        K::MissingOpeningDelimiter => "the request does not start with the opening boundary line",
        K::MissingHeaderTerminator => "a part's headers are not ended by an empty line",
        K::HeaderBlockTooLarge => "a part's headers are longer than 16384 bytes",
        K::EmptyHeaderLine => "a part has an empty header line",
        K::FoldedHeaderLine => "a header line starts with a space or tab (folding is not allowed)",
        K::HeaderLineWithoutColon => "a header line has no colon",
        K::UnknownHeader => "a part has a header other than Content-Disposition and Content-Type",
        K::EmptyContentType => "a part has an empty Content-Type",
        K::DuplicateContentDisposition => "a part has more than one Content-Disposition header",
        K::MissingContentDisposition => "a part has no Content-Disposition header",
        K::NotFormData => "a Content-Disposition is not form-data",
        K::EmptyDispositionParameter => "a Content-Disposition has an empty parameter",
        K::DispositionParameterWithoutEquals => "a Content-Disposition parameter has no '='",
        K::InvalidParameterValue => "a Content-Disposition parameter value is not a plain quoted string",
        K::DuplicateNameParameter => "a Content-Disposition has more than one name parameter",
        K::MissingNameParameter => "a Content-Disposition has no name parameter",
        K::MissingDelimiter => "a part is not ended by a boundary line",
        K::UnknownPartName => "a part name is not component, input or uniforms[<key>]",
        K::DuplicateComponent => "the request has more than one component part",
        K::DuplicateInput => "the request has more than one input part",
        K::InvalidUniformKey => "a uniform key is not valid (1-63 of [a-z0-9_], starting with a letter)",
        K::DuplicateUniform => "a uniform key appears more than once",
        K::TooManyUniforms => "the request has more than 64 uniforms",
        K::Epilogue => "bytes follow the closing boundary line",
        K::MissingComponent => "the request has no component part",
        K::UnexpectedPartName => "a part name is not one this tool accepts",
        K::DuplicatePart => "a part name appears more than once",
        K::MixedParts => "a part does not go with an earlier one (dump with before or after)",
        K::MissingPart => "the request lacks a part this tool needs",
    }
}

impl fmt::Display for MultipartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed multipart request: {} (at offset 0x{:x})", describe(self.kind), self.offset)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for MultipartError {}

#[cold]
fn err(offset: usize, kind: MultipartErrorKind) -> MultipartError {
    MultipartError { offset, kind }
}

/// Checks the content-type slot and returns the boundary `uuid-<uuid>` (41 bytes).
///
/// # Errors
///
/// [`MultipartErrorKind::InvalidBoundarySlot`] (offset 0) when the slot is not 70 bytes, does
/// not start with [`SLOT_PREFIX`], or its last 36 bytes are not a canonical lowercase UUID
/// (`8-4-4-4-12`, hyphens at UUID offsets 8, 13, 18, 23, other bytes `0-9a-f`).
pub fn boundary_from_slot(slot: &[u8]) -> Result<&[u8], MultipartError> {
    let bad = |slot_offset| err(0, MultipartErrorKind::InvalidBoundarySlot { slot_offset });
    if let Some(i) = slot.iter().zip(SLOT_PREFIX).position(|(a, b)| a != b) {
        return Err(bad(i));
    }
    for (i, &c) in slot.iter().enumerate().take(SLOT_LEN).skip(SLOT_PREFIX.len()) {
        let ok = match i - SLOT_PREFIX.len() {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(&c),
        };
        if !ok {
            return Err(bad(i));
        }
    }
    if slot.len() != SLOT_LEN {
        return Err(bad(slot.len().min(SLOT_LEN)));
    }
    Ok(&slot[BOUNDARY_START..SLOT_LEN])
}

/// Whether `hay[at..]` starts with `needle` (false when `at` is past the end).
fn starts_with_at(hay: &[u8], at: usize, needle: &[u8]) -> bool {
    hay.get(at..).is_some_and(|s| s.starts_with(needle))
}

/// Removes leading and trailing SP/HT; returns the trimmed slice and the number of bytes
/// removed at the front.
fn trim(s: &[u8]) -> (&[u8], usize) {
    let is_ws = |c: &u8| *c == b' ' || *c == b'\t';
    let front = s.iter().take_while(|c| is_ws(c)).count();
    let rest = &s[front..];
    let back = rest.iter().rev().take_while(|c| is_ws(c)).count();
    (&rest[..rest.len() - back], front)
}

/// Offset of the first `CRLF CRLF` at or after `from`.
fn find_header_end(body: &[u8], from: usize) -> Option<usize> {
    body.get(from..)?.windows(4).position(|w| w == b"\r\n\r\n").map(|p| from + p)
}

/// Offset of the first `CRLF "--" B` at or after `from` that is immediately followed by
/// `CRLF` or `--`.
fn find_delimiter(body: &[u8], from: usize, boundary: &[u8]) -> Option<usize> {
    let mut p = from;
    while let Some(rel) = body.get(p..).and_then(|s| s.iter().position(|&c| c == b'\r')) {
        let at = p + rel;
        if starts_with_at(body, at, b"\r\n--")
            && starts_with_at(body, at + 4, boundary)
            && (starts_with_at(body, at + DELIMITER_LEN, b"\r\n")
                || starts_with_at(body, at + DELIMITER_LEN, b"--"))
        {
            return Some(at);
        }
        p = at + 1;
    }
    None
}

/// Parses the header block `body[start..end]` of one part (no CRLF CRLF inside, by
/// construction) and returns the part name (the inner bytes of the `name` parameter).
fn parse_header_block(body: &[u8], start: usize, end: usize) -> Result<&[u8], MultipartError> {
    use MultipartErrorKind as K;
    let block = &body[start..end];
    let mut name: Option<&[u8]> = None;
    let mut disposition_seen = false;
    let mut line_start = 0;
    loop {
        let line_end =
            block[line_start..].windows(2).position(|w| w == b"\r\n").map_or(block.len(), |p| line_start + p);
        let line = &block[line_start..line_end];
        let at = start + line_start;
        match line.first() {
            None => return Err(err(at, K::EmptyHeaderLine)),
            Some(b' ' | b'\t') => return Err(err(at, K::FoldedHeaderLine)),
            Some(_) => {}
        }
        let colon = line.iter().position(|&c| c == b':').ok_or_else(|| err(at, K::HeaderLineWithoutColon))?;
        let header = &line[..colon];
        let raw_value = &line[colon + 1..];
        if header.eq_ignore_ascii_case(b"content-type") {
            if trim(raw_value).0.is_empty() {
                return Err(err(at, K::EmptyContentType));
            }
        } else if header.eq_ignore_ascii_case(b"content-disposition") {
            if disposition_seen {
                return Err(err(at, K::DuplicateContentDisposition));
            }
            disposition_seen = true;
            let value_at = at + colon + 1;
            name = Some(
                parse_disposition(raw_value, value_at)?.ok_or_else(|| err(at, K::MissingNameParameter))?,
            );
        } else {
            return Err(err(at, K::UnknownHeader));
        }
        if line_end == block.len() {
            break;
        }
        line_start = line_end + 2;
    }
    name.ok_or_else(|| err(start, K::MissingContentDisposition))
}

/// Parses a `Content-Disposition` value (untrimmed; it starts at body offset `at`) and
/// returns the `name` parameter's inner bytes, `None` when there is none.
fn parse_disposition(value: &[u8], at: usize) -> Result<Option<&[u8]>, MultipartError> {
    use MultipartErrorKind as K;
    // Splitting the untrimmed value and trimming each item gives the same items as trimming
    // the value first: the value's outer SP/HT belong to the first and last items.
    let mut name = None;
    let mut item_start = 0;
    for (index, item) in value.split(|&c| c == b';').enumerate() {
        let (trimmed, front) = trim(item);
        let item_at = at + item_start + front;
        item_start += item.len() + 1;
        if index == 0 {
            if !trimmed.eq_ignore_ascii_case(b"form-data") {
                return Err(err(item_at, K::NotFormData));
            }
            continue;
        }
        if trimmed.is_empty() {
            return Err(err(item_at, K::EmptyDispositionParameter));
        }
        let eq = trimmed
            .iter()
            .position(|&c| c == b'=')
            .ok_or_else(|| err(item_at, K::DispositionParameterWithoutEquals))?;
        let key = trim(&trimmed[..eq]).0;
        let (param, param_front) = trim(&trimmed[eq + 1..]);
        let inner = match param {
            [b'"', inner @ .., b'"'] if !inner.iter().any(|c| matches!(c, b'"' | b'\\' | b'\r' | b'\n')) => {
                inner
            }
            _ => return Err(err(item_at + eq + 1 + param_front, K::InvalidParameterValue)),
        };
        if key.eq_ignore_ascii_case(b"name") {
            if name.is_some() {
                return Err(err(item_at, K::DuplicateNameParameter));
            }
            name = Some(inner);
        }
    }
    Ok(name)
}

/// One part of a request as [`parse_parts`] hands it over, before its name is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedPart<'a> {
    /// The inner bytes of the disposition's `name` parameter (not checked against any list).
    pub name: &'a [u8],
    /// Offset of the part's first header byte in the request body ("part start").
    pub part_start: usize,
    /// The part body.
    pub part: Part<'a>,
}

/// Walks the parts of a request body against the boundary in `content_type_slot` (the
/// grammar and every rule except the part names are in the [module documentation](self)),
/// calling `on_part` for each part in order, after its header block and body end were read and
/// before the bytes after its delimiter are. `on_part` applies a tool's own part-name rules;
/// its error aborts the walk. Returns the offset of the closing delimiter line (the first `-`
/// of `"--" B "--"`).
///
/// # Errors
///
/// A [`MultipartError`] for the first rule the bytes break, in reading order (the ones of
/// `on_part` included); its offset is always `<= body.len()` when `on_part`'s are.
pub fn parse_parts<'a>(
    body: &'a [u8],
    content_type_slot: &[u8],
    mut on_part: impl FnMut(NamedPart<'a>) -> Result<(), MultipartError>,
) -> Result<usize, MultipartError> {
    use MultipartErrorKind as K;
    let boundary = boundary_from_slot(content_type_slot)?;
    if !(body.starts_with(b"--")
        && starts_with_at(body, 2, boundary)
        && starts_with_at(body, 2 + BOUNDARY_LEN, b"\r\n"))
    {
        return Err(err(0, K::MissingOpeningDelimiter));
    }
    let mut part_start = OPENING_LINE_LEN;
    loop {
        let header_end =
            find_header_end(body, part_start).ok_or_else(|| err(body.len(), K::MissingHeaderTerminator))?;
        if header_end - part_start > MAX_HEADER_BLOCK_BYTES {
            return Err(err(part_start + MAX_HEADER_BLOCK_BYTES, K::HeaderBlockTooLarge));
        }
        let name = parse_header_block(body, part_start, header_end)?;
        let body_start = header_end + 4;
        let delimiter =
            find_delimiter(body, body_start, boundary).ok_or_else(|| err(body.len(), K::MissingDelimiter))?;
        let part = Part { bytes: &body[body_start..delimiter], offset: body_start };
        on_part(NamedPart { name, part_start, part })?;

        // The delimiter is followed by "--" (closing) or CRLF (next part): `find_delimiter`
        // only accepts those two.
        let after = delimiter + DELIMITER_LEN;
        if starts_with_at(body, after, b"--") {
            let rest = &body[after + 2..];
            if rest.is_empty() || rest == b"\r\n" {
                return Ok(delimiter + 2);
            }
            let offset = if rest.starts_with(b"\r\n") { after + 4 } else { after + 2 };
            return Err(err(offset, K::Epilogue));
        }
        part_start = after + 2;
    }
}

/// Parses a request body against the boundary in `content_type_slot` (the grammar and
/// every rule are in the [module documentation](self)).
///
/// `content_type_slot` is the component's 70-byte content-type slot as read on this call.
///
/// # Errors
///
/// A [`MultipartError`] for the first rule the bytes break, in reading order; its offset rule
/// is given per [`MultipartErrorKind`] variant and is always `<= body.len()`.
pub fn parse<'a>(body: &'a [u8], content_type_slot: &[u8]) -> Result<Request<'a>, MultipartError> {
    use MultipartErrorKind as K;
    let mut component: Option<Part<'a>> = None;
    let mut input: Option<Part<'a>> = None;
    let mut uniforms: Vec<Uniform<'a>> = Vec::new();
    let closing_line_start = parse_parts(body, content_type_slot, |p| {
        let (part_start, part) = (p.part_start, p.part);
        match p.name {
            b"component" => {
                if component.replace(part).is_some() {
                    return Err(err(part_start, K::DuplicateComponent));
                }
            }
            b"input" => {
                if input.replace(part).is_some() {
                    return Err(err(part_start, K::DuplicateInput));
                }
            }
            [b'u', b'n', b'i', b'f', b'o', b'r', b'm', b's', b'[', key @ .., b']'] => {
                let key = match core::str::from_utf8(key) {
                    Ok(key) if valid_key_bytes(key.as_bytes()) => key,
                    _ => return Err(err(part_start, K::InvalidUniformKey)),
                };
                if uniforms.iter().any(|u| u.key == key) {
                    return Err(err(part_start, K::DuplicateUniform));
                }
                if uniforms.len() == MAX_UNIFORMS {
                    return Err(err(part_start, K::TooManyUniforms));
                }
                uniforms.push(Uniform { key, value: part.bytes, value_offset: part.offset });
            }
            _ => return Err(err(part_start, K::UnknownPartName)),
        }
        Ok(())
    })?;
    let component = component.ok_or_else(|| err(closing_line_start, K::MissingComponent))?;
    crate::order::sort_by(&mut uniforms, |a, b| a.key.as_bytes() < b.key.as_bytes());
    Ok(Request { component, input, uniforms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec;

    /// The default slot, 70 bytes.
    const SLOT: &[u8] = b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000";
    /// `"--" B`, 43 bytes.
    const DASH_B: &str = "--uuid-00000000-0000-0000-0000-000000000000";

    /// One part as the Go `-F` builder writes it: delimiter line, disposition, blank line,
    /// body, CRLF.
    fn part(name: &str, body: &str) -> String {
        format!("{DASH_B}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{body}\r\n")
    }

    fn close() -> String {
        format!("{DASH_B}--\r\n")
    }

    fn parse_str(body: &str) -> Result<Request<'_>, MultipartError> {
        parse(body.as_bytes(), SLOT)
    }

    fn fails(body: &str) -> (usize, MultipartErrorKind) {
        let e = parse_str(body).expect_err("should be rejected");
        assert!(e.offset <= body.len());
        (e.offset, e.kind)
    }

    use MultipartErrorKind as K;

    #[test]
    fn minimal_request() {
        // Bytes: opening line 0..45 ("--" + 41 + CRLF);
        // "Content-Disposition: form-data; name=\"component\"" is 20 + 11 + 17 = 48 bytes,
        // 45..93; CRLF CRLF 93..97; body "ABCD" 97..101; CRLF "--" B "--" CRLF after it.
        let body = format!("{}{}", part("component", "ABCD"), close());
        let r = parse_str(&body).unwrap();
        assert_eq!(r.component, Part { bytes: b"ABCD", offset: 97 });
        assert_eq!(r.input, None);
        assert_eq!(r.input_bytes(), b"");
        assert!(r.uniforms.is_empty());
    }

    #[test]
    fn full_request_sorted_uniforms() {
        // Part 1 (component, body "C"): 0..45 line, 45..93 disposition, 93..97, body at 97,
        // then CRLF 98..100. Part 2 starts at 100: line 100..145; disposition for "input" is
        // 20 + 11 + 13 = 44 bytes, 145..189; CRLF CRLF 189..193; empty body at 193; CRLF
        // 193..195. Part 3 at 195: line ..240; "uniforms[zeta]" disposition 20+11+22 = 53,
        // 240..293; 293..297; body "1" at 297; CRLF 298..300. Part 4 at 300: line ..345;
        // "uniforms[alpha]" 54 bytes, 345..399; 399..403; body "0x10" at 403.
        let body = format!(
            "{}{}{}{}{}",
            part("component", "C"),
            part("input", ""),
            part("uniforms[zeta]", "1"),
            part("uniforms[alpha]", "0x10"),
            close()
        );
        let r = parse_str(&body).unwrap();
        assert_eq!(r.component, Part { bytes: b"C", offset: 97 });
        assert_eq!(r.input, Some(Part { bytes: b"", offset: 193 }));
        assert_eq!(
            r.uniforms,
            vec![
                Uniform { key: "alpha", value: b"0x10", value_offset: 403 },
                Uniform { key: "zeta", value: b"1", value_offset: 297 },
            ]
        );
    }

    #[test]
    fn closing_crlf_is_optional() {
        let body = format!("{}{DASH_B}--", part("component", "x"));
        assert!(parse_str(&body).is_ok());
    }

    #[test]
    fn host_rewritten_boundary() {
        let slot = b"multipart/form-data;boundary=uuid-0123abcd-4567-89ef-0123-456789abcdef";
        let b = "--uuid-0123abcd-4567-89ef-0123-456789abcdef";
        let body = format!("{b}\r\nContent-Disposition: form-data; name=\"component\"\r\n\r\nW\r\n{b}--\r\n");
        let r = parse(body.as_bytes(), slot).unwrap();
        assert_eq!(r.component.bytes, b"W");
        // The default boundary no longer delimits anything.
        let default = format!("{}{}", part("component", "W"), close());
        assert_eq!(parse(default.as_bytes(), slot).unwrap_err().offset, 0);
    }

    #[test]
    fn bad_slots() {
        let slot_err = |slot: &[u8]| match parse(b"", slot) {
            Err(MultipartError { offset: 0, kind: K::InvalidBoundarySlot { slot_offset } }) => slot_offset,
            other => panic!("{other:?}"),
        };
        // Uppercase hex at UUID offset 0 = slot offset 34.
        assert_eq!(slot_err(b"multipart/form-data;boundary=uuid-A0000000-0000-0000-0000-000000000000"), 34);
        // Hyphen missing at UUID offset 8 = slot offset 42.
        assert_eq!(slot_err(b"multipart/form-data;boundary=uuid-0000000000000-0000-0000-000000000000"), 42);
        // Prefix differs at offset 0 ("M").
        assert_eq!(slot_err(b"Multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000"), 0);
        // 'g' at UUID offset 35 = slot offset 69.
        assert_eq!(slot_err(b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-00000000000g"), 69);
        // Too short (69 bytes, all valid so far) and too long (71 bytes).
        assert_eq!(slot_err(&SLOT[..69]), 69);
        let mut long = SLOT.to_vec();
        long.push(b'0');
        assert_eq!(slot_err(&long), 70);
        assert_eq!(slot_err(b""), 0);
        assert_eq!(boundary_from_slot(SLOT).unwrap(), &DASH_B.as_bytes()[2..]);
    }

    #[test]
    fn opening_delimiter() {
        let good = format!("{}{}", part("component", "x"), close());
        for bad in [
            format!("\r\n{good}"),               // leading CRLF
            format!("preamble\r\n{good}"),       // preamble
            good.replacen("\r\n", "\n", 1),      // LF only
            good.replacen("--uuid", "-uuid", 1), // one hyphen
            good.replacen(&format!("{DASH_B}\r\n"), &format!("{DASH_B}--\r\n"), 1),
            String::new(),
        ] {
            assert_eq!(fails(&bad), (0, K::MissingOpeningDelimiter), "{bad:?}");
        }
    }

    #[test]
    fn header_terminator_and_size() {
        // Headers never end: offset = body length.
        let body = format!("{DASH_B}\r\nContent-Disposition: form-data; name=\"component\"\r\n");
        assert_eq!(fails(&body), (body.len(), K::MissingHeaderTerminator));
        // Block of exactly 16,384 bytes is fine as far as size goes: the disposition line (48
        // bytes) + CRLF + a Content-Type line "Content-Type: " (14) + 16,320 'a' = 16,384.
        let ok = format!(
            "{DASH_B}\r\nContent-Disposition: form-data; name=\"component\"\r\nContent-Type: {}\r\n\r\nx\r\n{}",
            "a".repeat(16_320),
            close()
        );
        assert!(parse_str(&ok).is_ok());
        // One byte more: rejected at part start 45 + 16,384 = 16,429.
        let big = ok.replacen(&"a".repeat(16_320), &"a".repeat(16_321), 1);
        assert_eq!(fails(&big), (16_429, K::HeaderBlockTooLarge));
    }

    #[test]
    fn header_lines() {
        let with_headers = |headers: &str| format!("{DASH_B}\r\n{headers}\r\n\r\nx\r\n{}", close());
        // Part start = 45. Second line starts at 45 + 48 + 2 = 95.
        let disp = "Content-Disposition: form-data; name=\"component\"";
        assert_eq!(fails(&with_headers(&format!("{disp}\r\n X: y"))), (95, K::FoldedHeaderLine));
        assert_eq!(fails(&with_headers(&format!("{disp}\r\n\tX: y"))), (95, K::FoldedHeaderLine));
        assert_eq!(fails(&with_headers(&format!("{disp}\r\nNoColon"))), (95, K::HeaderLineWithoutColon));
        assert_eq!(fails(&with_headers(&format!("{disp}\r\nX-Other: 1"))), (95, K::UnknownHeader));
        // No trimming of the name: "Content-Type " (trailing space) is another header.
        assert_eq!(fails(&with_headers(&format!("{disp}\r\nContent-Type : a/b"))), (95, K::UnknownHeader));
        assert_eq!(fails(&with_headers(&format!("{disp}\r\nContent-Type: \t "))), (95, K::EmptyContentType));
        assert_eq!(fails(&with_headers(&format!("{disp}\r\nContent-Type:"))), (95, K::EmptyContentType));
        assert_eq!(fails(&with_headers(&format!("{disp}\r\n{disp}"))), (95, K::DuplicateContentDisposition));
        // Header block starting with CRLF: its first line (at 45) is empty.
        assert_eq!(fails(&with_headers(&format!("\r\n{disp}"))), (45, K::EmptyHeaderLine));
        // Only a Content-Type: no disposition, reported at part start 45.
        assert_eq!(fails(&with_headers("Content-Type: a/b")), (45, K::MissingContentDisposition));
        // Case-insensitive names, repeated Content-Type, value trimming: all accepted.
        let ok = with_headers(
            "content-type: a/b\r\nCONTENT-DISPOSITION:\t FORM-DATA ; NAME = \"component\" ; filename=\"x.wasm\"\t\r\nContent-Type: c",
        );
        assert_eq!(parse_str(&ok).unwrap().component.bytes, b"x");
    }

    #[test]
    fn disposition_items() {
        // The disposition line starts at 45; "Content-Disposition:" is 20 bytes, so the value
        // starts at 65.
        let with_value = |v: &str| format!("{DASH_B}\r\nContent-Disposition:{v}\r\n\r\nx\r\n{}", close());
        // " attachment; name=\"component\"": item 0 starts at 65, trimmed at 66.
        assert_eq!(fails(&with_value(" attachment; name=\"component\"")), (66, K::NotFormData));
        // Empty value: first item is empty; its "start" is the end of the line, 65.
        assert_eq!(fails(&with_value("")), (65, K::NotFormData));
        // " form-data; name=\"component\";": the last item is empty and starts at
        // 65 + 11 + 17 + 1 = 94 (the end of the line).
        assert_eq!(fails(&with_value(" form-data; name=\"component\";")), (94, K::EmptyDispositionParameter));
        // " form-data;; name=...": the empty item between the semicolons starts at 65 + 11 = 76.
        assert_eq!(fails(&with_value(" form-data;; name=\"component\"")), (76, K::EmptyDispositionParameter));
        // " form-data; name": item 1 starts at 76, trimmed at 77.
        assert_eq!(fails(&with_value(" form-data; name")), (77, K::DispositionParameterWithoutEquals));
        // Values: unquoted, single quote char, escape, inner quote; value starts at
        // 77 + "name=".len() = 82 (after trimming, 83 for " name= x").
        assert_eq!(fails(&with_value(" form-data; name=component")), (82, K::InvalidParameterValue));
        assert_eq!(fails(&with_value(" form-data; name=\"")), (82, K::InvalidParameterValue));
        assert_eq!(fails(&with_value(" form-data; name=\"a\\b\"")), (82, K::InvalidParameterValue));
        assert_eq!(fails(&with_value(" form-data; name=\"a\"b\"")), (82, K::InvalidParameterValue));
        assert_eq!(fails(&with_value(" form-data; name= x")), (83, K::InvalidParameterValue));
        assert_eq!(fails(&with_value(" form-data; name=")), (82, K::InvalidParameterValue));
        // A ';' inside quotes splits the item: `name="a` is then unterminated (value at 82).
        assert_eq!(fails(&with_value(" form-data; name=\"a;b\"")), (82, K::InvalidParameterValue));
        // A bare CR inside the quotes (not followed by LF, so the line goes on).
        assert_eq!(fails(&with_value(" form-data; name=\"a\rb\"")), (82, K::InvalidParameterValue));
        // Other parameters are validated too: filename=x at item start 77 + 0, value at 86.
        assert_eq!(
            fails(&with_value(" form-data; filename=x; name=\"component\"")),
            (86, K::InvalidParameterValue)
        );
        // Second name: item 2 starts at 65 + 11 + 17 + 1 + 1 = 95.
        assert_eq!(
            fails(&with_value(" form-data; name=\"component\"; name=\"input\"")),
            (95, K::DuplicateNameParameter)
        );
        // No name: reported at the disposition line start, 45.
        assert_eq!(fails(&with_value(" form-data; filename=\"a\"")), (45, K::MissingNameParameter));
        assert_eq!(fails(&with_value(" form-data")), (45, K::MissingNameParameter));
        // An empty key is only validated, not rejected (the grammar puts no rule on keys).
        assert!(parse_str(&with_value(" form-data; =\"\"; name=\"component\"")).is_ok());
    }

    #[test]
    fn delimiters_inside_bodies() {
        // "\r\n--B" followed by anything but CRLF or "--" belongs to the body.
        let inner = format!("a\r\n{DASH_B}x\r\n{DASH_B}-");
        let body = format!("{}{}", part("component", &inner), close());
        assert_eq!(parse_str(&body).unwrap().component.bytes, inner.as_bytes());
        // A delimiter without its leading CRLF is body too.
        let inner = format!("{DASH_B}--\r\n");
        let body = format!("{}{}", part("component", &inner), close());
        assert_eq!(parse_str(&body).unwrap().component.bytes, inner.as_bytes());
    }

    #[test]
    fn missing_delimiter() {
        let body = format!("{DASH_B}\r\nContent-Disposition: form-data; name=\"component\"\r\n\r\nabc");
        assert_eq!(fails(&body), (body.len(), K::MissingDelimiter));
        // A closing delimiter without the CRLF before it does not count.
        let body =
            format!("{DASH_B}\r\nContent-Disposition: form-data; name=\"component\"\r\n\r\n{DASH_B}--");
        assert_eq!(fails(&body), (body.len(), K::MissingDelimiter));
        // A delimiter at the very end, with nothing after it: not followed by CRLF or "--".
        // (`part(..)[..98]` ends with the body "x" at 97.)
        let body = format!("{}\r\n{DASH_B}", &part("component", "x")[..98]);
        assert_eq!(fails(&body), (body.len(), K::MissingDelimiter));
        // An intermediate delimiter and then nothing: the next part has no header terminator.
        let body = format!("{}{DASH_B}\r\n", part("component", "x"));
        assert_eq!(fails(&body), (body.len(), K::MissingHeaderTerminator));
        // The part alone, without any delimiter after its body.
        let body = part("component", "x");
        assert_eq!(fails(&body), (body.len(), K::MissingDelimiter));
    }

    #[test]
    fn part_names() {
        // The first part ("component", body "x") is 45 + 48 + 4 + 1 + 2 = 100 bytes, so the
        // second part's delimiter line is 100..145 and its header block starts at 145.
        let two = |name: &str| format!("{}{}{}", part("component", "x"), part(name, "v"), close());
        assert_eq!(fails(&two("cols")), (145, K::UnknownPartName));
        assert_eq!(fails(&two("Component")), (145, K::UnknownPartName));
        assert_eq!(fails(&two("uniforms")), (145, K::UnknownPartName));
        assert_eq!(fails(&two("uniforms[a")), (145, K::UnknownPartName));
        assert_eq!(fails(&two("")), (145, K::UnknownPartName));
        assert_eq!(fails(&two("component")), (145, K::DuplicateComponent));
        assert_eq!(fails(&two("uniforms[]")), (145, K::InvalidUniformKey));
        assert_eq!(fails(&two("uniforms[A]")), (145, K::InvalidUniformKey));
        assert_eq!(fails(&two("uniforms[a__b]")), (145, K::InvalidUniformKey));
        assert_eq!(fails(&two("uniforms[a_]")), (145, K::InvalidUniformKey));
        assert_eq!(fails(&two("uniforms[a]b]")), (145, K::InvalidUniformKey));
        assert_eq!(fails(&two("uniforms[\u{e9}]")), (145, K::InvalidUniformKey));
        // Non-UTF-8 key bytes.
        let mut raw = two("uniforms[\u{e9}]").into_bytes();
        let i = raw.windows(2).position(|w| w == "\u{e9}".as_bytes()).unwrap();
        raw[i] = 0xff;
        let e = parse(&raw, SLOT).unwrap_err();
        assert_eq!((e.offset, e.kind), (145, K::InvalidUniformKey));
        // Input twice: the first input part spans 100..196 ("input" disposition is 44 bytes,
        // body "v": 45 + 44 + 4 + 1 + 2 = 96 bytes); the second's headers start at 196 + 45.
        let body =
            format!("{}{}{}{}", part("component", "x"), part("input", "v"), part("input", "v"), close());
        assert_eq!(fails(&body), (241, K::DuplicateInput));
        // Uniform twice: "uniforms[k]" disposition is 50 bytes, the first uniform part spans
        // 100..202 (45 + 50 + 4 + 1 + 2 = 102 bytes); the second's headers start at 247.
        let body = format!(
            "{}{}{}{}",
            part("component", "x"),
            part("uniforms[k]", "1"),
            part("uniforms[k]", "2"),
            close()
        );
        assert_eq!(fails(&body), (247, K::DuplicateUniform));
    }

    #[test]
    fn uniform_count_limit() {
        // 64 uniforms with keys k00..k63 are fine; a 65th is rejected at its part start.
        let mut body = part("component", "x");
        for i in 0..64 {
            body.push_str(&part(&format!("uniforms[k{i:02}]"), "1"));
        }
        let ok = format!("{body}{}", close());
        let r = parse_str(&ok).unwrap();
        assert_eq!(r.uniforms.len(), 64);
        assert!(r.uniforms.windows(2).all(|w| w[0].key < w[1].key));
        // Each uniform part is 45 + 52 ("uniforms[kNN]" disposition: 20 + 11 + 21) + 4 + 1
        // + 2 = 104 bytes; the 65th part's delimiter line starts at 100 + 64 × 104 = 6,756 and
        // its header block at 6,756 + 45 = 6,801.
        assert_eq!(body.len(), 6_756);
        let over = format!("{body}{}{}", part("uniforms[k64]", "1"), close());
        assert_eq!(fails(&over), (6_801, K::TooManyUniforms));
        // The 65th with a key already used is a duplicate first.
        let dup = format!("{body}{}{}", part("uniforms[k00]", "1"), close());
        assert_eq!(fails(&dup), (6_801, K::DuplicateUniform));
    }

    #[test]
    fn epilogue_and_missing_component() {
        let base = format!("{}{DASH_B}--", part("component", "x"));
        // The closing "--" ends at base.len(); CRLF then 'x': offset base.len() + 2.
        assert_eq!(fails(&format!("{base}\r\nx")), (base.len() + 2, K::Epilogue));
        assert_eq!(fails(&format!("{base}\r\n\r\n")), (base.len() + 2, K::Epilogue));
        // No CRLF after "--": the first byte after "--" is the culprit.
        assert_eq!(fails(&format!("{base}x")), (base.len(), K::Epilogue));
        assert_eq!(fails(&format!("{base}\r")), (base.len(), K::Epilogue));
        assert_eq!(fails(&format!("{base}--")), (base.len(), K::Epilogue));
        // Only an input part: well formed but no component. The closing line starts after
        // the input part: 45 + 44 + 4 + 1 + 2 = 96.
        let body = format!("{}{}", part("input", "x"), close());
        assert_eq!(fails(&body), (96, K::MissingComponent));
    }

    #[test]
    fn reading_order() {
        // An unknown name and a missing delimiter: the body end is read first.
        let body = format!("{DASH_B}\r\nContent-Disposition: form-data; name=\"cols\"\r\n\r\nabc");
        assert_eq!(fails(&body), (body.len(), K::MissingDelimiter));
        // A header error comes before the missing delimiter.
        let body = format!("{DASH_B}\r\nX: 1\r\n\r\nabc");
        assert_eq!(fails(&body), (45, K::UnknownHeader));
    }

    #[test]
    fn error_display_and_size() {
        let e = MultipartError { offset: 0x2a, kind: K::Epilogue };
        assert_eq!(
            alloc::string::ToString::to_string(&e),
            "malformed multipart request: bytes follow the closing boundary line (at offset 0x2a)"
        );
        assert!(core::mem::size_of::<MultipartError>() <= 24);
    }

    /// Deterministic PRNG (SplitMix64) for the mutation test.
    struct SplitMix(u64);

    impl SplitMix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            // n > 0 and small: the modulo bias is irrelevant here.
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn mutations_never_panic() {
        let seeds: Vec<Vec<u8>> = vec![
            format!("{}{}", part("component", "ABCD"), close()).into_bytes(),
            format!(
                "{}{}{}{}",
                part("component", "\0asm\x01\0\0\0"),
                part("input", "hello\r\n--"),
                part("uniforms[scale]", "0x1p-2"),
                close()
            )
            .into_bytes(),
            format!(
                "{DASH_B}\r\ncontent-type: a/b\r\nContent-Disposition: form-data; name=\"input\"; filename=\"f\"\r\n\r\n\r\n{DASH_B}\r\n{}{DASH_B}--",
                &part("component", "")[45..]
            )
            .into_bytes(),
        ];
        // Fragments that steer mutations towards the grammar's edges.
        let tokens: [&[u8]; 10] = [
            b"\r\n",
            b"\r\n\r\n",
            b"--",
            DASH_B.as_bytes(),
            b";",
            b"\"",
            b"name=\"uniforms[k]\"",
            b"Content-Disposition: form-data; name=\"input\"",
            b"Content-Type: x",
            b" ",
        ];
        let mut rng = SplitMix(0x5eed);
        let mut accepted = 0;
        for round in 0..20_000 {
            let mut b = seeds[round % seeds.len()].clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len() + 1);
                match rng.below(6) {
                    0 if at < b.len() => b[at] = rng.next() as u8,
                    1 if at < b.len() => {
                        b.remove(at);
                    }
                    2 => b.insert(at, rng.next() as u8),
                    3 => {
                        let t = tokens[rng.below(tokens.len())];
                        b.splice(at..at, t.iter().copied());
                    }
                    4 => b.truncate(at),
                    _ => {
                        // Duplicate a random slice of the body at `at`.
                        let from = rng.below(b.len() + 1);
                        let len = rng.below(b.len() - from + 1).min(200);
                        let chunk = b[from..from + len].to_vec();
                        b.splice(at..at, chunk);
                    }
                }
            }
            match parse(&b, SLOT) {
                Ok(r) => {
                    accepted += 1;
                    // Borrowed slices sit inside the body at their stated offsets.
                    let c = r.component;
                    assert_eq!(&b[c.offset..c.offset + c.bytes.len()], c.bytes);
                    for u in &r.uniforms {
                        assert_eq!(&b[u.value_offset..u.value_offset + u.value.len()], u.value);
                    }
                }
                Err(e) => assert!(e.offset <= b.len(), "{e:?} for {} bytes", b.len()),
            }
        }
        // Some mutations keep the request valid (e.g. a changed body byte).
        assert!(accepted > 0);
    }
}
