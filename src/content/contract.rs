//! Inspecting a target's Content contract (docs/content.md): exports and their
//! signatures, the static getter rule, the input region, the output capacity and the
//! content-type pairs.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::wasm::{ExternalKind, Getter, Module, ValType};

/// The target's input interface: `input_ptr` and one capacity getter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputInterface {
    /// `input_ptr()`: where the host writes the input (byte address).
    pub ptr: u32,
    /// The declared capacity in bytes (`input_utf8_cap` or `input_bytes_cap`).
    pub cap: u32,
    /// `true` for `input_utf8_cap` (input must be valid UTF-8).
    pub utf8: bool,
}

/// A target's Content contract, read statically from the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    /// Function index of `render`.
    pub render: u32,
    /// `None` for a generator.
    pub input: Option<InputInterface>,
    /// The declared output capacity in bytes.
    pub output_cap: u32,
    /// `true` for `output_utf8_cap`.
    pub output_utf8: bool,
    /// The declared input content type, if the pair is exported.
    pub input_content_type: Option<String>,
    /// The declared output content type, if the pair is exported.
    pub output_content_type: Option<String>,
    /// `failure_modes_per_input_offset()`, if exported.
    pub failure_modes: Option<u32>,
    /// Initial memory size in bytes.
    pub memory_bytes: u64,
    /// Initial value of global 0 when it is a mutable `i32` (LLVM's `__stack_pointer`).
    pub stack_pointer: Option<u32>,
}

/// Why a module is not a Content component. The message says what and which export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractError(pub String);

impl core::fmt::Display for ContractError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(m: String) -> Result<T, ContractError> {
    Err(ContractError(m))
}

/// The initial memory image's bytes `[ptr, ptr + len)`: zeros overwritten by the active data
/// segments in order. `None` when the range is outside the initial memory.
pub fn initial_bytes(module: &Module, memory_bytes: u64, ptr: u32, len: u32) -> Option<Vec<u8>> {
    let (start, end) = (ptr as u64, ptr as u64 + len as u64);
    if end > memory_bytes {
        return None;
    }
    let mut out = vec![0u8; len as usize];
    for (_, at, bytes) in module.active_data() {
        let Some(at) = at else { continue };
        let (s, e) = (at as u64, at as u64 + bytes.len() as u64);
        let (lo, hi) = (s.max(start), e.min(end));
        if lo < hi {
            out[(lo - start) as usize..(hi - start) as usize]
                .copy_from_slice(&bytes[(lo - s) as usize..(hi - s) as usize]);
        }
    }
    Some(out)
}

/// Checks a declared content type (docs/content.md, "Content types"): a lowercase `type/subtype` of
/// token characters with no whitespace and no parameters, or exactly the multipart slot.
pub fn valid_content_type(t: &[u8]) -> bool {
    if t.starts_with(b"multipart/form-data;boundary=uuid-") {
        return super::multipart::boundary_from_slot(t).is_ok();
    }
    let Some(slash) = t.iter().position(|&b| b == b'/') else { return false };
    let token = |s: &[u8]| {
        !s.is_empty()
            && s.iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$&^_.+-".contains(&b))
    };
    token(&t[..slash]) && token(&t[slash + 1..])
}

struct Exports<'m> {
    module: &'m Module,
}

impl Exports<'_> {
    /// The value of the static getter `name`, `None` when it is not exported.
    fn getter(&self, name: &str) -> Result<Option<u32>, ContractError> {
        let Some(e) = self.module.exports().iter().find(|e| e.name == name) else { return Ok(None) };
        if e.kind != ExternalKind::Func {
            return err(reason!("must export {name}() -> i32, not a {:?}", e.kind));
        }
        let ty = self.module.func_type(e.index).expect("exports are validated");
        if !ty.params().is_empty() || ty.results() != [ValType::I32] {
            return err(reason!("must export {name}() -> i32"));
        }
        match self.module.getter(e.index) {
            Some(Getter::Const(c)) => Ok(Some(c)),
            Some(Getter::Global(g)) => {
                let gt = self.module.global_types()[g as usize];
                match self.module.global_init(g) {
                    Some(v) if !gt.mutable && gt.content_type == ValType::I32 => Ok(Some(v as u32)),
                    _ => err(reason!(
                        "{name} is not a static getter: global {g} is not an immutable i32 constant"
                    )),
                }
            }
            None => err(reason!(
                "{name} is not a static getter: its body must be one i32.const or global.get, then end"
            )),
        }
    }

    fn pair(&self, ptr: &str, size: &str, memory_bytes: u64) -> Result<Option<String>, ContractError> {
        match (self.getter(ptr)?, self.getter(size)?) {
            (None, None) => Ok(None),
            (Some(p), Some(s)) => {
                let Some(bytes) = initial_bytes(self.module, memory_bytes, p, s) else {
                    return err(reason!("{ptr}/{size} point outside the initial memory"));
                };
                if s == 0 || !valid_content_type(&bytes) {
                    return err(reason!("{ptr}/{size} declare an invalid content type"));
                }
                Ok(Some(String::from_utf8(bytes).expect("checked ASCII")))
            }
            _ => err(reason!("{ptr} and {size} must be exported together")),
        }
    }
}

/// Reads and checks the Content contract of `module`.
///
/// # Errors
/// A [`ContractError`] naming the first violation: imports, a missing or mistyped `memory` or
/// `render`, a getter that is not static, a partial input interface, not exactly one
/// output capacity, an input region outside the initial memory or overlapping an active data
/// segment, an invalid content-type declaration.
pub fn inspect(module: &Module) -> Result<Contract, ContractError> {
    if let Some(i) = module.imports().first() {
        return err(reason!("a Content component has no imports; this one imports {}::{}", i.module, i.name));
    }
    let ex = Exports { module };
    let memory = module.exports().iter().find(|e| e.name == "memory");
    match memory {
        Some(e) if e.kind == ExternalKind::Memory && e.index == 0 => {}
        _ => return err("must export its memory as \"memory\"".into()),
    }
    if module.memories().len() != 1 {
        return err("must have exactly one memory".into());
    }
    let memory_bytes = module.memories()[0].initial * 65536;
    let Some(render) = module.exported_func("render") else {
        return err("must export render(i32) -> i64".into());
    };
    let rt = module.func_type(render).expect("validated");
    if rt.params() != [ValType::I32] || rt.results() != [ValType::I64] {
        return err("must export render(i32) -> i64".into());
    }
    let input_ptr = ex.getter("input_ptr")?;
    let (utf8_cap, bytes_cap) = (ex.getter("input_utf8_cap")?, ex.getter("input_bytes_cap")?);
    let input = match (input_ptr, utf8_cap, bytes_cap) {
        (None, None, None) => None,
        (Some(ptr), Some(cap), None) => Some(InputInterface { ptr, cap, utf8: true }),
        (Some(ptr), None, Some(cap)) => Some(InputInterface { ptr, cap, utf8: false }),
        (Some(_), Some(_), Some(_)) => return err("exports both input_utf8_cap and input_bytes_cap".into()),
        _ => return err("partial input interface: input_ptr needs exactly one input capacity".into()),
    };
    if let Some(i) = input {
        let end = i.ptr as u64 + i.cap as u64;
        if end > memory_bytes {
            return err(reason!(
                "input region [{}, {end}) lies outside the initial memory of {memory_bytes} bytes",
                i.ptr
            ));
        }
        for (_, at, bytes) in module.active_data() {
            let s = at.map_or(0, u64::from);
            let e = s + bytes.len() as u64;
            // `ptr < seg_end && seg_start < ptr + cap` (so a zero-length segment strictly
            // inside the region overlaps too).
            if (i.ptr as u64) < e && s < end {
                return err(reason!("input region [{}, {end}) overlaps the data segment at {s}", i.ptr));
            }
        }
    }
    let (output_cap, output_utf8) = match (ex.getter("output_utf8_cap")?, ex.getter("output_bytes_cap")?) {
        (Some(c), None) => (c, true),
        (None, Some(c)) => (c, false),
        (Some(_), Some(_)) => return err("exports both output_utf8_cap and output_bytes_cap".into()),
        (None, None) => return err("must export output_utf8_cap or output_bytes_cap".into()),
    };
    let input_content_type = ex.pair("input_content_type_ptr", "input_content_type_size", memory_bytes)?;
    if input.is_none() && input_content_type.is_some() {
        return err("a generator (no input_ptr) must not declare an input content type".into());
    }
    let output_content_type = ex.pair("output_content_type_ptr", "output_content_type_size", memory_bytes)?;
    let failure_modes = ex.getter("failure_modes_per_input_offset")?;
    let stack_pointer = match module.global_types().first() {
        Some(g) if g.mutable && g.content_type == ValType::I32 => module.global_init(0).map(|v| v as u32),
        _ => None,
    };
    Ok(Contract {
        render,
        input,
        output_cap,
        output_utf8,
        input_content_type,
        output_content_type,
        failure_modes,
        memory_bytes,
        stack_pointer,
    })
}
