//! What the analyzer reads from the wasm binary (`heap-analyzer.md` A.2): the three DWARF
//! custom sections (named without a leading dot) and the defined globals.

use alloc::vec::Vec;

use wasmparser::{Operator, Parser, Payload, ValType};

use super::HeapError;

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
}

impl<'a> ModuleInfo<'a> {
    /// Reads the module with `wasmparser`'s streaming reader (no validation).
    ///
    /// # Errors
    /// [`HeapError::WasmParse`] for any reader error (A.2: `Failed to parse wasm binary`).
    pub fn read(wasm: &'a [u8]) -> Result<ModuleInfo<'a>, HeapError> {
        let mut info = ModuleInfo::default();
        for payload in Parser::new(0).parse_all(wasm) {
            match payload.map_err(|_| HeapError::WasmParse)? {
                Payload::CustomSection(c) => {
                    // The first section of each name counts.
                    let slot = match c.name() {
                        "debug_abbrev" => &mut info.debug_abbrev,
                        "debug_info" => &mut info.debug_info,
                        "debug_str" => &mut info.debug_str,
                        _ => continue,
                    };
                    if slot.is_none() {
                        *slot = Some(c.data());
                    }
                }
                Payload::GlobalSection(reader) => {
                    for g in reader {
                        let g = g.map_err(|_| HeapError::WasmParse)?;
                        let mut init = 0u32;
                        let mut ops = g.init_expr.get_operators_reader();
                        while !ops.eof() {
                            match ops.read().map_err(|_| HeapError::WasmParse)? {
                                Operator::I32Const { value } => init = value as u32,
                                Operator::I64Const { value } => init = value as u32,
                                Operator::F32Const { value } => init = value.bits(),
                                Operator::F64Const { value } => init = value.bits() as u32,
                                _ => {}
                            }
                        }
                        info.globals.push(GlobalInfo {
                            is_i32: g.ty.content_type == ValType::I32,
                            mutable: g.ty.mutable,
                            init,
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }

    /// The value of every i32 global at dump time (B.4): a mutable i32 global takes the next
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
