//! Errors of the heap analyzer. Where WARPO's tool has a message, [`HeapError`]'s `Display`
//! prints it verbatim (docs/heap.md, "Dump format" and "The wasm binary and its DWARF"); where
//! WARPO would crash (a JS `RangeError`, a hang), it prints one clear English line instead.

use core::fmt;

/// Everything that can stop an analysis. Nothing here is a panic: every input, however broken,
/// ends in a result or one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeapError {
    /// Dump check 1: the dump is shorter than its 24-byte header.
    DumpTooSmall {
        /// Length of the dump file, in bytes.
        len: u64,
    },
    /// Dump check 2: the u32 at file offset 0 is not `0x44485341` ("ASHD").
    InvalidMagic {
        /// The u32 read at offset 0 (little-endian).
        magic: u32,
    },
    /// Dump check 3: the version at file offset 4 is not 2.
    UnsupportedVersion {
        /// The version read.
        version: u32,
    },
    /// Dump check 4: the file ends inside the array of mutable i32 global values.
    DumpTooSmallForGlobals {
        /// N, the count at file offset 20.
        count: u32,
        /// Length of the dump file, in bytes.
        len: u64,
    },
    /// The wasm binary could not be read: its sections, the global section or a custom
    /// section's name do not decode.
    WasmParse,
    /// No custom section named `debug_abbrev`.
    MissingDebugAbbrev,
    /// No custom section named `debug_info`.
    MissingDebugInfo,
    /// A `DW_FORM_strp` offset that is not the start of a string of `debug_str`.
    StringNotFound {
        /// The offset into `debug_str`, in bytes.
        offset: u64,
    },
    /// A DIE uses an abbreviation code that the table does not define.
    UnknownAbbreviation {
        /// The abbreviation code.
        code: u64,
        /// Offset of the DIE from the start of `debug_info`, in bytes.
        offset: u64,
    },
    /// An attribute form that cannot be read.
    UnsupportedForm {
        /// The `DW_FORM_*` code.
        form: u64,
    },
    /// `DW_FORM_addr` in a unit whose address size is not 4.
    UnsupportedAddressSize {
        /// The unit's address size, in bytes.
        size: u8,
    },
    /// Any other malformation of the DWARF sections (truncated unit or abbreviation table,
    /// bad LEB128, ...), as reported by `gimli`.
    Dwarf {
        /// The section being read: `debug_abbrev` or `debug_info`.
        section: &'static str,
        /// Offset in that section where reading stopped, in bytes (the unit's start when not
        /// known more precisely).
        offset: u64,
        /// `gimli`'s description of the problem.
        reason: gimli::Error,
    },
    /// The heap walk: a used block's 20-byte header (mmInfo and object header) does not fit in
    /// memory. WARPO dies with a JavaScript `RangeError` here.
    BlockHeaderOutOfBounds {
        /// Linear-memory address of the block (its `mmInfo` word).
        block: u64,
        /// Length of the memory image, in bytes.
        memory_len: u64,
    },
    /// Reference scanning: a header word of an Array, Map, Set or SmallTuple payload (`dataStart`,
    /// `length_`, `entries`, `entriesOffset`, the bitmap) lies past the end of memory. WARPO
    /// dies with a JavaScript `RangeError` here.
    PayloadOutOfBounds {
        /// Payload pointer of the object being scanned.
        payload: u64,
        /// Linear-memory address of the word that could not be read.
        address: u64,
    },
    /// Reference scanning: the arrays, maps and tuples of the dump claim more element slots than
    /// the memory image can hold several times over; a real heap never does (WARPO would spin for
    /// hours).
    ScanLimitExceeded {
        /// The limit on element slots read, `2 × memory length / 4 + 1,048,576`.
        limit: u64,
    },
    /// G: `--sort` of `analyze` is not `retained`, `shallow` or `count`.
    InvalidConstructorSort(alloc::string::String),
    /// G: `--sort` of `diff` is not `delta`, `alloc`, `freed` or `count`.
    InvalidComparisonSort(alloc::string::String),
    /// G: `--top` is not a positive integer (after JavaScript `parseInt`).
    InvalidTop,
    /// `retainers --address`: no object has this payload address.
    NoObjectAt {
        /// The address asked for.
        address: u64,
    },
    /// `snapshot`: the output could not be written.
    Write,
    /// `retainers --class`: no live object has this class name, in full or with module paths
    /// left out.
    NoLiveInstance {
        /// The class name asked for.
        class_name: alloc::string::String,
        /// The live classes it most likely meant, best first (`class_names::suggestions`).
        suggestions: alloc::vec::Vec<alloc::string::String>,
    },
    /// `retainers --class`: the name, with module paths left out, is that of several live
    /// classes.
    AmbiguousClass {
        /// The class name asked for.
        class_name: alloc::string::String,
        /// The full names of those classes, in name order.
        candidates: alloc::vec::Vec<alloc::string::String>,
    },
    /// [`Analyzer::load`](super::Analyzer::load): the module has neither DWARF nor the
    /// AssemblyScript runtime functions (found by their `name` section names) that the
    /// analysis without DWARF runs.
    NoHeapInfo,
    /// Without DWARF: the module's visitors could not be loaded or run over a dump (the
    /// interpreter's reason).
    Visitor(alloc::string::String),
}

impl fmt::Display for HeapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeapError::DumpTooSmall { len } => {
                write!(f, "Dump file too small: expected at least 24 bytes, got {len}")
            }
            HeapError::InvalidMagic { magic } => {
                write!(f, "Invalid dump magic: expected 0x44485341, got 0x{magic:X}")
            }
            HeapError::UnsupportedVersion { version } => {
                write!(f, "Unsupported dump version: expected 2, got {version}")
            }
            HeapError::DumpTooSmallForGlobals { count, len } => write!(
                f,
                "Dump file too small for {count} mutable i32 global values: expected at least {} bytes, got {len}",
                24 + 4 * u64::from(*count)
            ),
            HeapError::WasmParse => f.write_str("Failed to parse wasm binary"),
            HeapError::MissingDebugAbbrev => f.write_str("Missing .debug_abbrev section in wasm binary"),
            HeapError::MissingDebugInfo => f.write_str("Missing .debug_info section in wasm binary"),
            HeapError::StringNotFound { offset } => {
                write!(f, "String not found at offset {offset} in .debug_str")
            }
            HeapError::UnknownAbbreviation { code, offset } => {
                write!(f, "Unknown abbreviation code {code} at offset {offset}")
            }
            HeapError::UnsupportedForm { form } => write!(f, "Unsupported DW_FORM: 0x{form:x}"),
            HeapError::UnsupportedAddressSize { size } => write!(f, "Unsupported address size: {size}"),
            HeapError::Dwarf { section, offset, reason } => {
                write!(f, "Invalid DWARF in {section}: {reason} (at offset 0x{offset:x})")
            }
            HeapError::BlockHeaderOutOfBounds { block, memory_len } => write!(
                f,
                "Heap block at address {block} has an object header past the end of memory ({memory_len} bytes)"
            ),
            HeapError::PayloadOutOfBounds { payload, address } => write!(
                f,
                "Object at address {payload} has a header word at address {address} past the end of memory"
            ),
            HeapError::ScanLimitExceeded { limit } => write!(
                f,
                "Heap references claim more than {limit} array, map or tuple slots: the dump is inconsistent"
            ),
            HeapError::InvalidConstructorSort(s) => {
                write!(f, "Invalid constructor sort field: {s}. Must be retained, shallow, or count.")
            }
            HeapError::InvalidComparisonSort(s) => {
                write!(f, "Invalid comparison sort field: {s}. Must be delta, alloc, freed, or count.")
            }
            HeapError::InvalidTop => f.write_str("--top must be a positive integer"),
            HeapError::NoObjectAt { address } => write!(
                f,
                "No object at address {address} (0x{address:x}) in the dump: give an object's payload address, as analyze lists them"
            ),
            HeapError::Write => f.write_str("Could not write the heap snapshot"),
            HeapError::NoLiveInstance { class_name, suggestions } => {
                write!(f, "No live object of class {class_name} in the dump")?;
                if suggestions.is_empty() {
                    Ok(())
                } else {
                    write!(f, "; did you mean {}?", super::class_names::did_you_mean(suggestions))
                }
            }
            HeapError::AmbiguousClass { class_name, candidates } => write!(
                f,
                "Class name {class_name} is ambiguous: it is short for {} live classes, {}; give the full name",
                candidates.len(),
                super::class_names::prose_list(candidates, "and", usize::MAX)
            ),
            HeapError::NoHeapInfo => f.write_str(
                "Missing .debug_abbrev section in wasm binary, and no AssemblyScript runtime visitors \
                 to analyse it without DWARF (~lib/rt/__visit_members, ~lib/rt/itcms/__visit and \
                 ~lib/rt/__visit_globals in its name section): build it with asc --debug",
            ),
            HeapError::Visitor(reason) => write!(f, "Cannot run the module's heap visitors: {reason}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for HeapError {}
