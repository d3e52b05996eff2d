//! What the analyzer reads from the wasm binary (docs/heap.md, "The wasm binary and its DWARF"):
//! the three DWARF custom sections (named without a leading dot) and the defined globals.

use alloc::vec::Vec;

use super::HeapError;
use crate::wasm::ValType;
use crate::wasm::binary::operators::Imm;
use crate::wasm::binary::reader::Reader;
use crate::wasm::binary::sections::{Sections, id};

/// One global defined in the module's global section (imported globals are not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalInfo {
    /// Whether the global's value type is i32.
    pub is_i32: bool,
    /// Whether the global is mutable.
    pub mutable: bool,
    /// The literal of the last `i32/i64/f32/f64.const` of the init expression (bit pattern,
    /// truncated to 32 bits), 0 when there is none.
    pub init: u32,
}

/// The inputs of the analysis found in a wasm binary, borrowing it.
#[derive(Debug, Clone, Default)]
pub struct ModuleInfo<'a> {
    /// The `debug_abbrev` custom section, if present.
    pub debug_abbrev: Option<&'a [u8]>,
    /// The `debug_info` custom section, if present.
    pub debug_info: Option<&'a [u8]>,
    /// The `debug_str` custom section, if present.
    pub debug_str: Option<&'a [u8]>,
    /// The defined globals; index `i` is wasm global index `i` of the global section.
    pub globals: Vec<GlobalInfo>,
    /// The contents of the first `name` custom section, if present.
    pub names: Option<&'a [u8]>,
    /// How many globals the module imports (they come before the defined ones in the global
    /// index space); `None` when the import section does not decode (WARPO reads on, and so
    /// do we: only [`ModuleInfo::heap_base`] needs it).
    pub imported_globals: Option<u32>,
    /// The contents of the export section, if present (decoded only by
    /// [`ModuleInfo::named_global`], leniently).
    pub exports: Option<&'a [u8]>,
    /// The initial size in 64 KiB pages of the module's memory (its first, defined or
    /// imported); `None` without a memory or when its type does not decode.
    pub memory_pages: Option<u64>,
}

/// How many of the entries of an import section (its contents) are globals, and the initial
/// pages of the first imported memory; `None` if it does not decode.
fn read_imports(mut r: Reader<'_>) -> Option<(u32, Option<u64>)> {
    let (mut globals, mut memory) = (0, None);
    for _ in 0..r.len().ok()? {
        r.name().ok()?;
        r.name().ok()?;
        match r.u8().ok()? {
            0x00 => drop(r.u32().ok()?),
            0x01 => drop(r.table_type().ok()?),
            0x02 => {
                let m = r.memory_type().ok()?;
                memory = memory.or(Some(m.initial));
            }
            0x03 => {
                r.global_type().ok()?;
                globals += 1;
            }
            _ => return None,
        }
    }
    Some((globals, memory))
}

/// The literal of the last `i32/i64/f32/f64.const` of a constant expression (bit pattern,
/// truncated to 32 bits), 0 when there is none; reads through the expression's `end`. The
/// expression's instructions are read with their immediates, and from the first instruction a
/// constant expression cannot hold (the extended-constant `add`, `sub` and `mul` it can), the
/// literal so far stands. `None` if the expression does not decode.
fn last_const(r: &mut Reader<'_>) -> Option<u32> {
    use crate::wasm::Operator as O;
    let mut init = 0u32;
    let mut constant = true;
    loop {
        let ins = r.instr().ok()?;
        match (ins.op, ins.imm) {
            (O::End, _) => return Some(init),
            _ if !constant => {}
            (O::I32Const, Imm::I32(v)) => init = v as u32,
            (O::I64Const, Imm::I64(v)) => init = v as u32,
            (O::F32Const | O::F64Const, Imm::Bits(bits)) => init = bits as u32,
            (
                O::GlobalGet
                | O::RefFunc
                | O::RefNull
                | O::V128Const
                | O::I32Add
                | O::I32Sub
                | O::I32Mul
                | O::I64Add
                | O::I64Sub
                | O::I64Mul,
                _,
            ) => {}
            _ => constant = false,
        }
    }
}

/// The global index that the export section `contents` exports as `name`; `None` when none
/// does or the section does not decode before it.
fn exported_global(contents: &[u8], name: &str) -> Option<u32> {
    let mut r = Reader::new(contents, 0);
    for _ in 0..r.len().ok()? {
        let (n, kind, index) = (r.name().ok()?, r.u8().ok()?, r.u32().ok()?);
        if n == name && kind == 0x03 {
            return Some(index);
        }
    }
    None
}

impl<'a> ModuleInfo<'a> {
    /// Reads the module's sections (no validation): the framing of every section, the global
    /// section's entries and the custom sections' names.
    ///
    /// # Errors
    /// [`HeapError::WasmParse`] for any of those that does not decode (`Failed to parse wasm
    /// binary`).
    pub fn read(wasm: &'a [u8]) -> Result<ModuleInfo<'a>, HeapError> {
        let mut info = ModuleInfo { imported_globals: Some(0), ..ModuleInfo::default() };
        let mut sections = Sections::new(wasm).map_err(|_| HeapError::WasmParse)?;
        while let Some(s) = sections.next_section().map_err(|_| HeapError::WasmParse)? {
            match s.id {
                id::CUSTOM => {
                    // The first section of each name counts.
                    let slot = match s.name {
                        "debug_abbrev" => &mut info.debug_abbrev,
                        "debug_info" => &mut info.debug_info,
                        "debug_str" => &mut info.debug_str,
                        "name" => &mut info.names,
                        _ => continue,
                    };
                    if slot.is_none() {
                        *slot = Some(s.data());
                    }
                }
                id::IMPORT => {
                    let imports = read_imports(s.contents.clone());
                    info.imported_globals = imports.map(|(globals, _)| globals);
                    info.memory_pages = imports.and_then(|(_, memory)| memory);
                }
                id::MEMORY => {
                    let mut r = s.contents.clone();
                    let first = r.len().ok().filter(|n| *n > 0).and_then(|_| r.memory_type().ok());
                    info.memory_pages = info.memory_pages.or(first.map(|m| m.initial));
                }
                id::EXPORT => info.exports = Some(s.data()),
                id::GLOBAL => {
                    let mut r = s.contents.clone();
                    let n = r.len().map_err(|_| HeapError::WasmParse)?;
                    for _ in 0..n {
                        let ty = r.global_type().map_err(|_| HeapError::WasmParse)?;
                        let init = last_const(&mut r).ok_or(HeapError::WasmParse)?;
                        info.globals.push(GlobalInfo {
                            is_i32: ty.content_type == ValType::I32,
                            mutable: ty.mutable,
                            init,
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }

    /// How many mutable `i32` globals the module defines: the number of global values a
    /// dump of it holds (docs/heap.md, "Dump format").
    pub fn mutable_i32_globals(&self) -> usize {
        self.globals.iter().filter(|g| g.is_i32 && g.mutable).count()
    }

    /// The value of the immutable `i32` global that the module exports as `__heap_base`, else
    /// that the `name` section calls so (AssemblyScript: `~lib/memory/__heap_base`; LLVM:
    /// `__heap_base`): the start of the heap area that a dump of this module records in its
    /// header. `None` when there is no such global or its index cannot be placed.
    pub fn heap_base(&self) -> Option<u32> {
        self.named_global("__heap_base")
    }

    /// As [`ModuleInfo::heap_base`], for `__data_end`, the end of static data.
    pub fn data_end(&self) -> Option<u32> {
        self.named_global("__data_end")
    }

    /// The value of the immutable `i32` global exported as `name`, else named `name` or
    /// `…/name` in the `name` section; `None` when there is none, when it is mutable or not an
    /// `i32`, or when its index cannot be placed among the defined globals. An export section
    /// that does not decode is passed over, as the `name` section is read leniently.
    pub fn named_global(&self, name: &str) -> Option<u32> {
        let exported = self.exports.and_then(|e| exported_global(e, name));
        let index = exported.or_else(|| {
            let names = crate::wasm::binary::names::Names::parse(self.names?);
            let suffix = |n: &str| n.strip_suffix(name).is_some_and(|p| p.is_empty() || p.ends_with('/'));
            names.globals.iter().find(|(_, n)| suffix(n)).map(|(i, _)| *i)
        })?;
        let g = self.globals.get(index.checked_sub(self.imported_globals?)? as usize)?;
        (g.is_i32 && !g.mutable).then_some(g.init)
    }

    /// The value of every i32 global at dump time: a mutable i32 global takes the next
    /// value of `dump_values` (the slot counter advances for every mutable i32 global, even
    /// past the end of the array, where globals get no value); an immutable one takes its
    /// init literal. Index = wasm global index; `None` for non-i32 globals and unvalued ones.
    pub fn global_values(&self, dump_values: &[u32]) -> Vec<Option<u32>> {
        let mut slot = 0usize;
        self.globals
            .iter()
            .map(|g| {
                if !g.is_i32 {
                    None
                } else if g.mutable {
                    slot += 1;
                    dump_values.get(slot - 1).copied()
                } else {
                    Some(g.init)
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_base_by_name_past_the_imported_globals() {
        // Global index 2 in the name section is the second defined global: the import comes
        // first in the index space.
        let wasm = wat::parse_str(
            r#"(module
              (import "env" "g" (global $imported i32))
              (global $__data_end i32 (i32.const 60))
              (global $__heap_base i32 (i32.const 100))
              (global $sp (mut i32) (i32.const 90)))"#,
        )
        .unwrap();
        let info = ModuleInfo::read(&wasm).unwrap();
        assert_eq!((info.imported_globals, info.heap_base()), (Some(1), Some(100)));
        assert_eq!(info.mutable_i32_globals(), 1);
        // Mutable, or not named: no heap base.
        let wasm = wat::parse_str("(module (global $__heap_base (mut i32) (i32.const 100)))").unwrap();
        assert_eq!(ModuleInfo::read(&wasm).unwrap().heap_base(), None);
        let wasm = wat::parse_str("(module (global i32 (i32.const 100)))").unwrap();
        assert_eq!(ModuleInfo::read(&wasm).unwrap().heap_base(), None);
    }

    #[test]
    fn named_globals_by_export_then_name_and_the_memory_size() {
        // The export wins over the name section; `__data_end` is found by its name alone.
        let wasm = wat::parse_str(
            r#"(module
              (import "env" "memory" (memory 3))
              (import "env" "g" (global i32))
              (global $__heap_base i32 (i32.const 100))
              (global $~lib/memory/__data_end i32 (i32.const 60))
              (global $other i32 (i32.const 200))
              (export "__heap_base" (global 3)))"#,
        )
        .unwrap();
        let info = ModuleInfo::read(&wasm).unwrap();
        assert_eq!((info.heap_base(), info.data_end(), info.memory_pages), (Some(200), Some(60), Some(3)));
        // A defined memory; a name that only ends like the global's is not it.
        let wasm = wat::parse_str("(module (memory 2 5) (global $x__heap_base i32 (i32.const 1)))").unwrap();
        let info = ModuleInfo::read(&wasm).unwrap();
        assert_eq!((info.heap_base(), info.memory_pages), (None, Some(2)));
        assert_eq!(ModuleInfo::read(&wat::parse_str("(module)").unwrap()).unwrap().memory_pages, None);
    }

    #[test]
    fn init_literals_of_constant_expressions() {
        let wasm = wat::parse_str(
            r#"(module
              (global i32 (i32.const 7))
              (global i64 (i64.const 0x100000005))
              (global f32 (f32.const 1.5))
              (global f64 (f64.const -2))
              (global (mut i32) (global.get 0))
              (global i32 (i32.add (i32.const 1) (i32.const -2)))
              (global funcref (ref.null func))
              (global v128 (v128.const i32x4 1 2 3 4))
              (global i32 (i32.const 9))
              (func))"#,
        )
        .unwrap();
        let info = ModuleInfo::read(&wasm).unwrap();
        let inits: Vec<u32> = info.globals.iter().map(|g| g.init).collect();
        // f32 1.5 = 0x3fc00000; f64 −2 = 0xc000000000000000, low 32 bits 0; −2 as u32.
        assert_eq!(inits, [7, 5, 0x3fc0_0000, 0, 0, 0xffff_fffe, 0, 0, 9]);
        let kinds: Vec<(bool, bool)> = info.globals.iter().map(|g| (g.is_i32, g.mutable)).collect();
        assert_eq!(kinds[4], (true, true));
    }
}
