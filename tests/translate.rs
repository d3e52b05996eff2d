//! Translator tests: each `tests/translate/NAME.wat` is loaded and the internal code of every
//! function it defines is listed with `Module::disassemble`; the listing must equal
//! `tests/translate/NAME.ir`, which was read and checked by hand against the translation rules
//! of docs/interpreter.md and docs/counting.md ("Fuel blocks").
//!
//! A change to the translator that changes a listing fails here with the difference; when the
//! new listing is the intended one, `REWRITE_IR=1 cargo test --test translate` rewrites the
//! `.ir` files (review them with `git diff` before committing).

use std::path::{Path, PathBuf};

use qip_memory::wasm::{FuncIndex, Limits, Module};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/translate");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wat"))
        .collect();
    cases.sort();
    cases
}

fn listing(wat: &Path) -> String {
    let bytes = wat::parse_file(wat).unwrap_or_else(|e| panic!("{}: {e}", wat.display()));
    let module = Module::new(&bytes, &Limits::default()).unwrap_or_else(|e| panic!("{}: {e}", wat.display()));
    let imported =
        module.imports().iter().filter(|i| matches!(i.ty, qip_memory::wasm::ImportType::Func(_))).count();
    (imported as u32..module.function_count())
        .map(|i| module.disassemble(FuncIndex(i)).expect("a defined function has code"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn listings_match_the_reviewed_ones() {
    let rewrite = std::env::var_os("REWRITE_IR").is_some();
    let cases = cases();
    assert!(cases.len() >= 8, "the translate cases are missing: {cases:?}");
    let mut failed = Vec::new();
    for wat in &cases {
        let got = listing(wat);
        let ir = wat.with_extension("ir");
        if rewrite {
            std::fs::write(&ir, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&ir).unwrap_or_default();
        if got != want {
            eprintln!("--- {} (expected)\n{want}\n+++ (got)\n{got}", ir.display());
            failed.push(ir.display().to_string());
        }
    }
    assert!(failed.is_empty(), "listings differ (REWRITE_IR=1 rewrites them): {failed:?}");
}

/// Imported functions and indices past the end have no listing.
#[test]
fn no_listing_without_code() {
    let bytes = wat::parse_str(r#"(module (import "m" "f" (func)) (func))"#).unwrap();
    let module = Module::new(&bytes, &Limits::default()).unwrap();
    assert!(module.disassemble(FuncIndex(0)).is_none());
    assert!(module.disassemble(FuncIndex(1)).is_some());
    assert!(module.disassemble(FuncIndex(2)).is_none());
}
