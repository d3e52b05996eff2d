//! The proposals after WebAssembly 2.0 and the constructs by which the decoder recognizes
//! each (docs/interpreter.md, "Proposals after 2.0"). A module that uses one is malformed or
//! invalid for 2.0; instead of the 2.0 reason (`malformed limits flags`, `illegal opcode 0xfe`)
//! the decoder names the proposal, what it saw and, through the [`LoadError`]'s offset, where.
//!
//! Both are tables: [`Proposal`] with each proposal's name, and [`SIGNS`] with each sign's
//! place, codes, proposal and words. The decoder consults the signs only where a module has
//! already failed as 2.0, so a valid 2.0 module never pays for them.
//!
//! [`LoadError`]: crate::wasm::LoadError

use core::fmt;

use crate::wasm::error::Invalid;

/// What the interpreter runs, as the refusal of a later proposal ends: WebAssembly 2.0 and the
/// proposals after it that it implements (docs/interpreter.md, "Proposals after 2.0"); with
/// the feature `only-2-0` (the Content components), 2.0 alone.
pub const RUNS: &str = if cfg!(feature = "only-2-0") {
    "WebAssembly 2.0"
} else {
    "WebAssembly 2.0 with threads, exceptions, tail calls and extended constants"
};

impl Proposal {
    /// Whether the interpreter runs the proposal: threads (on one thread), exception handling,
    /// tail calls and extended constant expressions, unless it is built with the feature `only-2-0` (the
    /// Content components), which refuses them by name like the rest. The signs of a proposal
    /// it runs are not looked up.
    pub const fn runs(self) -> bool {
        !cfg!(feature = "only-2-0")
            && matches!(
                self,
                Proposal::Threads
                    | Proposal::ExceptionHandling
                    | Proposal::TailCalls
                    | Proposal::ExtendedConst
            )
    }
}

macro_rules! proposals {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal;)*) => {
        /// A WebAssembly proposal after 2.0 whose constructs the decoder recognizes and refuses
        /// by name ([`Invalid::Proposal`]). Each variant's documentation links its
        /// specification: the proposal's repository, with its overview in `proposals/`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Proposal {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Proposal {
            /// Every proposal, in table order.
            pub const ALL: &'static [Proposal] = &[$(Proposal::$variant,)*];

            /// The proposal's name as messages print it (`threads`, `memory64`).
            pub fn name(self) -> &'static str {
                [$($name,)*][self as usize]
            }
        }
    };
}

proposals! {
    /// Shared memories and atomic memory instructions:
    /// <https://github.com/WebAssembly/threads>. Run on one thread ([`Proposal::runs`]),
    /// unless the feature `only-2-0` leaves them out.
    Threads = "threads";
    /// Tags, `throw`, `try_table`, `exnref` and the legacy `try`, `catch` and `delegate`:
    /// <https://github.com/WebAssembly/exception-handling>. Run ([`Proposal::runs`]), unless
    /// the feature `only-2-0` leaves them out.
    ExceptionHandling = "exception handling";
    /// `return_call` and `return_call_indirect`: <https://github.com/WebAssembly/tail-call>.
    /// Run ([`Proposal::runs`]), unless the feature `only-2-0` leaves them out.
    TailCalls = "tail calls";
    /// Integer `add`, `sub` and `mul` in constant expressions, and `global.get` of an earlier
    /// global the module defines: <https://github.com/WebAssembly/extended-const>. Run
    /// ([`Proposal::runs`]), unless the feature `only-2-0` leaves them out.
    ExtendedConst = "extended constant expressions";
    /// Memories and tables indexed by `i64`: <https://github.com/WebAssembly/memory64>.
    Memory64 = "memory64";
    /// More than one memory, and memory indices in memory instructions:
    /// <https://github.com/WebAssembly/multi-memory>.
    MultiMemory = "multi-memory";
    /// Typed references `(ref $t)`, `call_ref`, `br_on_null` and table initializers:
    /// <https://github.com/WebAssembly/function-references>.
    FunctionReferences = "typed function references";
    /// Structs, arrays, recursive and sub types, the abstract heap types beyond `func` and
    /// `extern`, the `0xFB` instructions: <https://github.com/WebAssembly/gc>.
    Gc = "garbage collection";
    /// The `0xFD` instructions from `0x100` (relaxed swizzle, madd, min, max, ...):
    /// <https://github.com/WebAssembly/relaxed-simd>.
    RelaxedSimd = "relaxed SIMD";
    /// 128-bit addition and subtraction, widening multiplication:
    /// <https://github.com/WebAssembly/wide-arithmetic>.
    WideArithmetic = "wide arithmetic";
    /// Memories with a page size other than 64 KiB:
    /// <https://github.com/WebAssembly/custom-page-sizes>.
    CustomPageSizes = "custom page sizes";
    /// Continuation types, `cont.new`, `suspend`, `resume`:
    /// <https://github.com/WebAssembly/stack-switching>.
    StackSwitching = "stack switching";
}

/// Where in a module a sign can be seen, and what its code is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Site {
    /// A section id.
    Section,
    /// The kind byte of an import or export.
    External,
    /// A bit of a memory's limits flags (the bit is the code).
    MemoryFlags,
    /// A bit of a table's limits flags.
    TableFlags,
    /// The first byte of a table section entry.
    Table,
    /// The form byte of a type section entry (`0x60` in 2.0).
    Form,
    /// A byte where a value, reference or heap type is expected.
    Type,
    /// An opcode: a one-byte opcode's byte, or a prefixed one's code ([`prefixed`]).
    Op,
    /// The opcode of an instruction in a constant expression.
    ConstOp,
    /// `global.get` in a constant expression of an immutable global the module defines (the
    /// global index).
    ConstGlobal,
    /// The number of memories, imported and defined.
    Memories,
    /// The memory index of `memory.size`, `memory.grow` and the bulk memory instructions.
    MemoryIndex,
    /// A memarg's flags with bit 6, "a memory index follows".
    MemArg,
}

const ANY: u32 = u32::MAX;

/// The code of a prefixed opcode at [`Site::Op`]: the prefix in the top byte, the sub-opcode
/// below (`0xFF_FFFF` for one that does not decode or is larger).
pub(crate) const fn prefixed(prefix: u8, sub: u32) -> u32 {
    (prefix as u32) << 24 | if sub < 0xFF_FFFF { sub } else { 0xFF_FFFF }
}

macro_rules! signs {
    ($(($site:expr, $lo:expr, $hi:expr, $proposal:ident, $what:literal),)*) => {
        /// The signs: where each is seen, its codes (`lo..=hi`) and its proposal.
        pub(crate) static SIGNS: &[(Site, u32, u32, Proposal)] = &[$(($site, $lo, $hi, Proposal::$proposal),)*];
        /// What each sign is, in words (by row of [`SIGNS`]; only `Display` reads them).
        static WHAT: &[&str] = &[$($what,)*];
    };
}

use Site::*;

signs! {
    (MemoryFlags, 0x02, 0x02, Threads, "a shared memory"),
    (Op, prefixed(0xFE, 0), prefixed(0xFE, ANY), Threads, "an atomic instruction"),
    (Section, 13, 13, ExceptionHandling, "a tag section"),
    (External, 4, 4, ExceptionHandling, "a tag import or export"),
    (Op, 0x06, 0x06, ExceptionHandling, "try"),
    (Op, 0x07, 0x07, ExceptionHandling, "catch"),
    (Op, 0x08, 0x08, ExceptionHandling, "throw"),
    (Op, 0x09, 0x09, ExceptionHandling, "rethrow"),
    (Op, 0x0A, 0x0A, ExceptionHandling, "throw_ref"),
    (Op, 0x18, 0x18, ExceptionHandling, "delegate"),
    (Op, 0x19, 0x19, ExceptionHandling, "catch_all"),
    (Op, 0x1F, 0x1F, ExceptionHandling, "try_table"),
    (Type, 0x69, 0x69, ExceptionHandling, "the type exnref"),
    (Op, 0x12, 0x12, TailCalls, "return_call"),
    (Op, 0x13, 0x13, TailCalls, "return_call_indirect"),
    (ConstOp, 0x6A, 0x6A, ExtendedConst, "i32.add in a constant expression"),
    (ConstOp, 0x6B, 0x6B, ExtendedConst, "i32.sub in a constant expression"),
    (ConstOp, 0x6C, 0x6C, ExtendedConst, "i32.mul in a constant expression"),
    (ConstOp, 0x7C, 0x7C, ExtendedConst, "i64.add in a constant expression"),
    (ConstOp, 0x7D, 0x7D, ExtendedConst, "i64.sub in a constant expression"),
    (ConstOp, 0x7E, 0x7E, ExtendedConst, "i64.mul in a constant expression"),
    (ConstGlobal, 0, ANY, ExtendedConst, "global.get of a global the module defines, in a constant expression"),
    (MemoryFlags, 0x04, 0x04, Memory64, "a 64-bit memory"),
    (TableFlags, 0x04, 0x04, Memory64, "a 64-bit table"),
    (Memories, 2, ANY, MultiMemory, "a second memory"),
    (MemoryIndex, 1, ANY, MultiMemory, "memory index"),
    (MemArg, 0x40, 0x7F, MultiMemory, "a memarg with a memory index"),
    (Op, 0x14, 0x14, FunctionReferences, "call_ref"),
    (Op, 0x15, 0x15, FunctionReferences, "return_call_ref"),
    (Op, 0xD4, 0xD4, FunctionReferences, "ref.as_non_null"),
    (Op, 0xD5, 0xD5, FunctionReferences, "br_on_null"),
    (Op, 0xD6, 0xD6, FunctionReferences, "br_on_non_null"),
    (Type, 0x63, 0x63, FunctionReferences, "a (ref null $t) type"),
    (Type, 0x64, 0x64, FunctionReferences, "a (ref $t) type"),
    (Table, 0x40, 0x40, FunctionReferences, "a table with an initializer expression"),
    (Form, 0x5E, 0x5E, Gc, "an array type"),
    (Form, 0x5F, 0x5F, Gc, "a struct type"),
    (Form, 0x4E, 0x4E, Gc, "a recursive type group"),
    (Form, 0x50, 0x50, Gc, "a subtype"),
    (Form, 0x4F, 0x4F, Gc, "a final subtype"),
    (Type, 0x6A, 0x6A, Gc, "the type arrayref"),
    (Type, 0x6B, 0x6B, Gc, "the type structref"),
    (Type, 0x6C, 0x6C, Gc, "the type i31ref"),
    (Type, 0x6D, 0x6D, Gc, "the type eqref"),
    (Type, 0x6E, 0x6E, Gc, "the type anyref"),
    (Type, 0x71, 0x71, Gc, "the type nullref"),
    (Type, 0x72, 0x72, Gc, "the type nullexternref"),
    (Type, 0x73, 0x73, Gc, "the type nullfuncref"),
    (Type, 0x74, 0x74, Gc, "the type nullexnref"),
    (Op, 0xD3, 0xD3, Gc, "ref.eq"),
    (Op, prefixed(0xFB, 0), prefixed(0xFB, ANY), Gc, "a GC instruction"),
    (Op, prefixed(0xFD, 0x100), prefixed(0xFD, 0x113), RelaxedSimd, "a relaxed SIMD instruction"),
    (Op, prefixed(0xFC, 19), prefixed(0xFC, 19), WideArithmetic, "i64.add128"),
    (Op, prefixed(0xFC, 20), prefixed(0xFC, 20), WideArithmetic, "i64.sub128"),
    (Op, prefixed(0xFC, 21), prefixed(0xFC, 21), WideArithmetic, "i64.mul_wide_s"),
    (Op, prefixed(0xFC, 22), prefixed(0xFC, 22), WideArithmetic, "i64.mul_wide_u"),
    (MemoryFlags, 0x08, 0x08, CustomPageSizes, "a memory with a custom page size"),
    (Form, 0x5D, 0x5D, StackSwitching, "a continuation type"),
    (Type, 0x68, 0x68, StackSwitching, "the type contref"),
    (Type, 0x75, 0x75, StackSwitching, "the type nullcontref"),
    (Op, 0xE0, 0xE0, StackSwitching, "cont.new"),
    (Op, 0xE1, 0xE1, StackSwitching, "cont.bind"),
    (Op, 0xE2, 0xE2, StackSwitching, "suspend"),
    (Op, 0xE3, 0xE3, StackSwitching, "resume"),
    (Op, 0xE4, 0xE4, StackSwitching, "resume_throw"),
    (Op, 0xE5, 0xE5, StackSwitching, "resume_throw_ref"),
    (Op, 0xE6, 0xE6, StackSwitching, "switch"),
}

/// The first construct of a proposal after 2.0 that the decoder met in a module: a row of the
/// table of signs, and the code it was seen with (an opcode, a byte, an index). Packed, so
/// that [`Invalid`] stays 8 bytes and every decoder's result stays as narrow as in 2.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed)]
pub struct Sign {
    code: u32,
    row: u8,
}

impl Sign {
    /// The proposal the construct belongs to.
    pub fn proposal(self) -> Proposal {
        SIGNS[self.row as usize].3
    }
}

impl fmt::Display for Sign {
    /// What was seen: `a 64-bit memory`, `return_call, opcode 0x12`,
    /// `an atomic instruction, opcode 0xfe 0x10`, `memory index 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, code) = (WHAT[self.row as usize], self.code);
        match (SIGNS[self.row as usize].0, code >> 24, code & 0xFF_FFFF) {
            (Op, 0, _) => write!(f, "{what}, opcode 0x{code:02x}"),
            (Op, prefix, 0xFF_FFFF) => write!(f, "{what}, opcode 0x{prefix:02x}"),
            (Op, prefix, sub) => write!(f, "{what}, opcode 0x{prefix:02x} 0x{sub:x}"),
            (MemoryIndex, ..) => write!(f, "{what} {code}"),
            _ => f.write_str(what),
        }
    }
}

/// The sign that `code` seen at `site` is, if it is one. Out of line, like [`or`]: only a
/// module that has already failed as 2.0 comes here.
#[cold]
#[inline(never)]
pub(crate) fn sign(site: Site, code: u32) -> Option<Sign> {
    let row = SIGNS.iter().position(|&(s, lo, hi, p)| !p.runs() && s == site && (lo..=hi).contains(&code))?;
    Some(Sign { row: row as u8, code })
}

/// The refusal of a construct of a proposal the interpreter runs, in a build that leaves it out
/// (the feature `only-2-0`): `code` seen at `site` must be one of its signs.
#[cold]
#[inline(never)]
pub(crate) fn left_out(site: Site, code: u32) -> Invalid {
    Invalid::Proposal(sign(site, code).expect("the construct is a sign of its proposal"))
}

/// `why`, the 2.0 reason, unless `code` seen at `site` is the sign of a later proposal.
#[cold]
#[inline(never)]
pub(crate) fn or(why: Invalid, site: Site, code: u32) -> Invalid {
    sign(site, code).map_or(why, Invalid::Proposal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_proposal_has_a_sign_and_no_code_has_two() {
        assert!(SIGNS.len() <= u8::MAX as usize && WHAT.len() == SIGNS.len());
        for &p in Proposal::ALL {
            assert!(SIGNS.iter().any(|s| s.3 == p), "{}", p.name());
        }
        for (i, a) in SIGNS.iter().enumerate() {
            for b in &SIGNS[i + 1..] {
                assert!(a.0 != b.0 || a.2 < b.1 || b.2 < a.1, "{a:?} overlaps {b:?}");
            }
        }
    }

    #[test]
    fn signs_say_what_was_seen() {
        let show = |site, code| sign(site, code).map(|s| alloc::format!("{}: {s}", s.proposal().name()));
        // The proposals the interpreter runs are signs only where it is built without them
        // (`only-2-0`).
        let left_out = cfg!(feature = "only-2-0");
        assert_eq!(show(Op, 0x12).as_deref(), left_out.then_some("tail calls: return_call, opcode 0x12"));
        assert_eq!(
            show(Op, 0xFE00_0010).as_deref(),
            left_out.then_some("threads: an atomic instruction, opcode 0xfe 0x10")
        );
        assert_eq!(show(MemoryFlags, 0x02).as_deref(), left_out.then_some("threads: a shared memory"));
        assert_eq!(show(Op, 0x14).as_deref(), Some("typed function references: call_ref, opcode 0x14"));
        assert_eq!(
            show(Op, 0xFBFF_FFFF).as_deref(),
            Some("garbage collection: a GC instruction, opcode 0xfb")
        );
        assert_eq!(prefixed(0xFB, u32::MAX), 0xFBFF_FFFF);
        assert_eq!(show(MemoryIndex, 1).as_deref(), Some("multi-memory: memory index 1"));
        assert_eq!(show(MemoryIndex, 0), None, "memory 0 is 2.0's");
        assert_eq!(show(Op, 0xFD00_00FF), None, "below the relaxed range");
        assert_eq!(show(Op, 0xFC00_0012), None);
        assert_eq!(show(Op, 0xFE), None, "0xfe alone is the code of no one-byte opcode");
        assert_eq!(show(TableFlags, 0x02), None, "a shared table is no sign of threads");
    }
}
