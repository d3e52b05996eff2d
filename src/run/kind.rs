//! What kind of program a module is, from its imports and exports (docs/programs.md,
//! "Kinds"):
//!
//! | exports | imports | kind |
//! | --- | --- | --- |
//! | `_start` | any | [`Kind::Command`] (a WASI command) |
//! | `render` | none | [`Kind::Content`] (a QIP Content target) |
//! | `_start` and `render` | none | [`Detected::Ambiguous`] |
//! | neither | any | [`Detected::Unknown`]: say which export to call |
//!
//! A front end that is told which export to call runs [`Kind::Module`] whatever the exports.

use crate::wasm::{ExternalKind, Module};

/// A kind of program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A QIP Content target: `render` after the uniform setters.
    Content,
    /// A WASI command: `_start`.
    Command,
    /// A module's export, called with arguments.
    Module,
}

/// What the exports and imports say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// One kind fits.
    Kind(Kind),
    /// It exports both `_start` and `render` and imports nothing: a command or a Content
    /// target alike.
    Ambiguous,
    /// Neither `_start` nor a Content `render`: an export must be named.
    Unknown,
}

/// The kind of `module` by the table of the [module documentation](self).
pub fn detect(module: &Module) -> Detected {
    let exports =
        |name: &str| module.exports().iter().any(|e| e.kind == ExternalKind::Func && e.name == name);
    let (start, render) = (exports("_start"), exports("render"));
    let content = render && module.imports().is_empty();
    match (start, content) {
        (true, true) => Detected::Ambiguous,
        (true, false) => Detected::Kind(Kind::Command),
        (false, true) => Detected::Kind(Kind::Content),
        (false, false) => Detected::Unknown,
    }
}

/// Whether `module` imports anything from WASI preview 1.
pub fn imports_wasi(module: &Module) -> bool {
    module.imports().iter().any(|i| i.module == "wasi_snapshot_preview1")
}
