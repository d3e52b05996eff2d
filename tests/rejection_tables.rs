//! The rejection-mode tables of the README, docs/rejections.md and the WIT are renderings of
//! the library's one table per tool family (`tools::modes::TOOL_MODES`, `tools::heap::MODES`).
//! A difference fails with the expected text; `REWRITE_TABLES=1 cargo test --test
//! rejection_tables` writes the renderings into the files instead.

use std::path::Path;

use qip_memory::tools::heap;
use qip_memory::tools::modes::{Mode, TOOL_MODES};

/// The Markdown table: one row per mode, cause and offset as phrases.
fn markdown(table: &[Mode]) -> String {
    let mut out = String::from("| mode | cause | offset points at |\n| ---: | --- | --- |\n");
    for m in table {
        out.push_str(&format!("| {} | {} | {} |\n", m.number, m.cause, m.offset));
    }
    out
}

/// The WIT documentation lines: `/// N cause — offset: …;` wrapped at 100 columns, the last
/// row ending with a period.
fn wit(table: &[Mode], indent: &str) -> String {
    let first = format!("{indent}/// ");
    let next = format!("{indent}///   ");
    let mut out = String::new();
    for (i, m) in table.iter().enumerate() {
        let end = if i + 1 == table.len() { '.' } else { ';' };
        let text = format!("{} {} — offset: {}{end}", m.number, m.cause, m.offset);
        let mut line = first.clone();
        for word in text.split(' ') {
            let fresh = line == first || line == next;
            if !fresh && line.len() + 1 + word.len() > 100 {
                out.push_str(&line);
                out.push('\n');
                line = next.clone();
            } else if !fresh {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Replaces the text after the line `begin` and before the line `end` (the first such pair)
/// with `body`, or checks that it already is `body`. Returns a difference as an error.
fn check_between(file: &str, begin: &str, end: &str, body: &str) -> Result<(), String> {
    let path = root().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find(&format!("{begin}\n")).unwrap_or_else(|| panic!("{file} has no line {begin:?}"))
        + begin.len()
        + 1;
    let rest = &text[start..];
    let len = if rest.starts_with(end) {
        0
    } else {
        rest.find(&format!("\n{end}")).unwrap_or_else(|| panic!("{file}: no {end:?} after {begin:?}")) + 1
    };
    let stop = start + len;
    if &text[start..stop] == body {
        return Ok(());
    }
    if std::env::var_os("REWRITE_TABLES").is_some() {
        std::fs::write(&path, format!("{}{body}{}", &text[..start], &text[stop..])).unwrap();
        return Ok(());
    }
    Err(format!(
        "{file}: the table after {begin:?} is not the library's; expected:\n{body}\nfound:\n{}",
        &text[start..stop]
    ))
}

#[test]
fn readme_and_docs_tables_are_the_library_tables() {
    let mut errors = Vec::new();
    for file in ["README.md", "docs/rejections.md"] {
        for (name, table) in [("tools", &TOOL_MODES[..]), ("heap", &heap::MODES[..])] {
            let r = check_between(
                file,
                &format!("<!-- modes:{name} -->"),
                &format!("<!-- /modes:{name} -->"),
                &markdown(table),
            );
            errors.extend(r.err());
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn wit_tables_are_the_library_tables() {
    let indent = "        ";
    let mut errors = Vec::new();
    for (intro, table) in [
        ("What went wrong, 0 to 9 (docs/rejections.md):", &TOOL_MODES[..]),
        ("What went wrong, 0 to 7 (docs/rejections.md):", &heap::MODES[..]),
    ] {
        let r = check_between(
            "wit/memory.wit",
            &format!("{indent}/// {intro}"),
            "        mode: u32,",
            &wit(table, indent),
        );
        errors.extend(r.err());
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The wrapping keeps every word and every line within 100 columns.
#[test]
fn wit_rendering_wraps_within_100_columns() {
    let text = wit(&TOOL_MODES, "        ");
    assert!(text.lines().all(|l| l.len() <= 100), "{text}");
    let words: Vec<&str> =
        text.lines().flat_map(|l| l.trim_start().trim_start_matches("///").split_whitespace()).collect();
    let expected: Vec<String> = TOOL_MODES
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            let end = if i == 9 { '.' } else { ';' };
            format!("{} {} — offset: {}{end}", m.number, m.cause, m.offset)
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(words, expected);
}
