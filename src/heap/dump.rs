//! The dump reader (docs/heap.md, "Dump format"): a version-2 dump file in, a borrowed [`Dump`]
//! out. Zero-copy: the memory image is a slice of the file.
//!
//! Layout (all u32 little-endian, offsets in bytes from the start of the file):
//! magic `ASHD` @0, version 2 @4, `__data_end` @8, `__heap_base` @12, `__stack_pointer` @16,
//! N @20, N mutable-i32 global values @24, then the whole linear memory from wasm address 0.

use alloc::vec::Vec;

use super::HeapError;

/// The magic number at file offset 0, read as a little-endian u32 (`"ASHD"`).
pub const DUMP_MAGIC: u32 = 0x4448_5341;
/// The only dump format version accepted.
pub const DUMP_VERSION: u32 = 2;
/// Size of the fixed dump header, in bytes.
pub const HEADER_LEN: usize = 24;

/// A parsed version-2 dump, borrowing the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dump<'a> {
    /// `__data_end` (end of static data); parsed but not used by the analysis.
    pub data_end: u32,
    /// `__heap_base`: end of the shadow stack and start of the heap area (linear-memory address).
    pub heap_base: u32,
    /// `__stack_pointer` at the moment of the dump (linear-memory address).
    pub stack_pointer: u32,
    /// Values of the module's mutable i32 globals, in global-section order.
    pub globals: Vec<u32>,
    /// The memory image: byte `i` is wasm address `i`.
    pub memory: &'a [u8],
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl<'a> Dump<'a> {
    /// Parses a dump file, checking in the order of docs/heap.md.
    ///
    /// # Errors
    /// [`HeapError::DumpTooSmall`], [`HeapError::InvalidMagic`],
    /// [`HeapError::UnsupportedVersion`], [`HeapError::DumpTooSmallForGlobals`], whose
    /// `Display` is WARPO's exact message.
    pub fn parse(file: &'a [u8]) -> Result<Dump<'a>, HeapError> {
        let len = file.len() as u64;
        if file.len() < HEADER_LEN {
            return Err(HeapError::DumpTooSmall { len });
        }
        let magic = u32_at(file, 0);
        if magic != DUMP_MAGIC {
            return Err(HeapError::InvalidMagic { magic });
        }
        let version = u32_at(file, 4);
        if version != DUMP_VERSION {
            return Err(HeapError::UnsupportedVersion { version });
        }
        let count = u32_at(file, 20);
        let memory_start = HEADER_LEN as u64 + 4 * u64::from(count);
        if len < memory_start {
            return Err(HeapError::DumpTooSmallForGlobals { count, len });
        }
        let memory_start = memory_start as usize;
        let globals = file[HEADER_LEN..memory_start].chunks_exact(4).map(|c| u32_at(c, 0)).collect();
        Ok(Dump {
            data_end: u32_at(file, 8),
            heap_base: u32_at(file, 12),
            stack_pointer: u32_at(file, 16),
            globals,
            memory: &file[memory_start..],
        })
    }
}

/// Why a dump whose header parses is still not analysed with a module
/// ([`Analyzer::check_dump`](super::Analyzer::check_dump); docs/heap.md, "Command line"): the
/// file was cut short, so that the heap the header describes is not all in it, or the dump was
/// taken from another program or build, whose header and global values would root the wrong
/// objects. WARPO's tool analyses such dumps anyway and prints negative or meaningless sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpProblem {
    /// The file ends with its header and global values: there is no memory image.
    NoMemory {
        /// Length of the header with its global values, `24 + 4N` bytes.
        header: u64,
    },
    /// The memory image is not a whole number of 64 KiB pages, which a WebAssembly memory
    /// always is.
    PartialPage {
        /// Length of the memory image, in bytes.
        image: u64,
    },
    /// The dump holds global values, but not as many as the module has mutable `i32` globals.
    GlobalCount {
        /// N, the number of global values in the dump.
        held: u64,
        /// The module's mutable `i32` globals.
        defined: u64,
    },
    /// The header's `__heap_base` or `__data_end` is not the value of the module's global of
    /// that name.
    Header {
        /// `__heap_base` or `__data_end`.
        name: &'static str,
        /// The header's value.
        dump: u32,
        /// The module's.
        module: u32,
    },
    /// The memory image is smaller than the module's memory is when it starts.
    SmallerThanModule {
        /// Length of the memory image, in bytes.
        image: u64,
        /// The module's initial memory size, in 64 KiB pages.
        pages: u64,
    },
    /// An address of the header lies past the end of the memory image.
    PastImage {
        /// `__data_end`, `__heap_base` or `__stack_pointer`.
        name: &'static str,
        /// The header's value.
        value: u32,
        /// Length of the memory image, in bytes.
        image: u64,
    },
    /// The `mmInfo` word of the heap's first block does not fit in the memory image, so the
    /// heap would have a negative size.
    HeapPastImage {
        /// Address of the first block ([`super::tlsf::first_block`]).
        first_block: u64,
        /// The header's `__heap_base`.
        heap_base: u32,
        /// Length of the memory image, in bytes.
        image: u64,
    },
}

/// `n` and `word`, with an `s` unless `n` is 1.
fn count(n: u64, word: &str) -> alloc::string::String {
    alloc::format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

impl DumpProblem {
    /// The reason in one line, naming the module as `module` (the wasm file as the user gave
    /// it); the caller puts the dump's name before it.
    pub fn message(&self, module: &str) -> alloc::string::String {
        use alloc::format;
        const NOT_OURS: &str = "was not taken from this module";
        match self {
            DumpProblem::NoMemory { header } => {
                format!(
                    "the file ends after its {header}-byte header, without a memory image: the dump is truncated"
                )
            }
            DumpProblem::PartialPage { image } => format!(
                "the dump's memory image is {image} bytes, not a whole number of 64 KiB pages: the dump is truncated"
            ),
            DumpProblem::GlobalCount { held, defined } => format!(
                "the dump holds {} but {module} has {}: the dump {NOT_OURS}",
                count(*held, "global value"),
                count(*defined, "mutable i32 global")
            ),
            DumpProblem::Header { name, dump, module: ours } => {
                format!("the dump's {name} is {dump} but {module}'s is {ours}: the dump {NOT_OURS}")
            }
            DumpProblem::SmallerThanModule { image, pages } => format!(
                "the dump's memory image is {image} bytes ({}) but {module}'s memory starts with {}: the dump is truncated or {NOT_OURS}",
                count(image / 65536, "page"),
                count(*pages, "page")
            ),
            DumpProblem::PastImage { name, value, image } => format!(
                "the dump's {name} is {value}, past the end of its memory image ({image} bytes): the dump is truncated or its header is damaged"
            ),
            DumpProblem::HeapPastImage { first_block, heap_base, image } => format!(
                "the heap's first block, at {first_block} for __heap_base {heap_base}, does not fit in the dump's memory image ({image} bytes): the dump is truncated, or the program had not allocated yet"
            ),
        }
    }
}

/// Serialises a version-2 dump: the inverse of [`Dump::parse`], for tests, fixtures
/// and benchmarks.
pub fn write_dump(
    data_end: u32,
    heap_base: u32,
    stack_pointer: u32,
    globals: &[u32],
    memory: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + 4 * globals.len() + memory.len());
    for w in [DUMP_MAGIC, DUMP_VERSION, data_end, heap_base, stack_pointer, globals.len() as u32] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for g in globals {
        out.extend_from_slice(&g.to_le_bytes());
    }
    out.extend_from_slice(memory);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    #[test]
    fn header_fields_and_memory() {
        let file = write_dump(1000, 1024, 1016, &[7, 8], &[1, 2, 3]);
        let d = Dump::parse(&file).unwrap();
        assert_eq!((d.data_end, d.heap_base, d.stack_pointer), (1000, 1024, 1016));
        assert_eq!(d.globals, vec![7, 8]);
        assert_eq!(d.memory, &[1, 2, 3]);
    }

    #[test]
    fn the_four_messages_of_a1() {
        assert_eq!(
            Dump::parse(&[0; 10]).unwrap_err().to_string(),
            "Dump file too small: expected at least 24 bytes, got 10"
        );
        // All-zero magic prints as 0x0.
        assert_eq!(
            Dump::parse(&[0; 24]).unwrap_err().to_string(),
            "Invalid dump magic: expected 0x44485341, got 0x0"
        );
        let mut f = write_dump(0, 0, 0, &[], &[]);
        f[0..4].copy_from_slice(&0x00ab_cdefu32.to_le_bytes());
        assert_eq!(
            Dump::parse(&f).unwrap_err().to_string(),
            "Invalid dump magic: expected 0x44485341, got 0xABCDEF"
        );
        let mut f = write_dump(0, 0, 0, &[], &[]);
        f[4] = 99;
        assert_eq!(Dump::parse(&f).unwrap_err().to_string(), "Unsupported dump version: expected 2, got 99");
        f[4] = 1;
        assert_eq!(Dump::parse(&f).unwrap_err().to_string(), "Unsupported dump version: expected 2, got 1");
        // N = 3 needs 24 + 12 = 36 bytes; 24 + 8 = 32 given.
        let mut f = write_dump(0, 0, 0, &[1, 2], &[]);
        f[20] = 3;
        assert_eq!(
            Dump::parse(&f).unwrap_err().to_string(),
            "Dump file too small for 3 mutable i32 global values: expected at least 36 bytes, got 32"
        );
        // A huge N does not overflow: 24 + 4 * 0xffffffff = 17179869204.
        let mut f = write_dump(0, 0, 0, &[], &[]);
        f[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            Dump::parse(&f).unwrap_err().to_string(),
            "Dump file too small for 4294967295 mutable i32 global values: expected at least 17179869204 bytes, got 24"
        );
    }
}
