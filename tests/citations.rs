//! Every Markdown page the repository's text cites must be a file of the repository.
//!
//! The sources, tests, build files and docs point readers at pages such as `docs/heap.md` or
//! `docs/counting.md#budget`. This test reads every text file of the repository (build outputs,
//! installed npm packages and generated files left out), finds each name ending in `.md` and
//! fails, naming `file:line`, for any that resolves to no file. A name resolves relative to
//! the repository root, to `docs/`, or to the citing file's directory. A link with an anchor
//! (`docs/heap.md#without-dwarf`, or `#tiles` inside a Markdown page) must also name a heading
//! of that page, as GitHub turns headings into anchors.
//!
//! Not citations, so not checked: web addresses (`https://…/heap-analyzer.md`), a name that is
//! a whole string literal (`"in.md"`, a file a test creates), and this file, whose examples of
//! broken citations are on purpose.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Directories never read: version control, build outputs, installed packages, generated code,
/// fuzzing corpora.
const SKIPPED_DIRS: &[&str] =
    &[".git", "target", "node_modules", "build", "generated", "corpus", "artifacts", "application"];

/// Files that are data, not text for readers.
const SKIPPED_EXTENSIONS: &[&str] = &["wasm", "png", "dump", "heapsnapshot", "ktx2", "html"];

/// This file: its examples of broken citations are on purpose.
const THIS_FILE: &str = "tests/citations.rs";

/// Every text file of the repository but this one, relative to the root, in a fixed order.
fn text_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    walk(&path, out);
                }
            } else if !path.extension().is_some_and(|e| SKIPPED_EXTENSIONS.contains(&&*e.to_string_lossy())) {
                let rel = path.strip_prefix(root()).unwrap().to_path_buf();
                if rel != Path::new(THIS_FILE) {
                    out.push(rel);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(root(), &mut out);
    out
}

/// A cited Markdown page: the name as written and the anchor after `#`, if any.
#[derive(Debug, PartialEq, Eq)]
struct Citation {
    name: String,
    anchor: Option<String>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/')
}

fn is_anchor_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-') || b >= 0x80
}

/// The Markdown pages one line cites, and the in-page anchors (`](#tiles)`) it links to.
fn citations(line: &str) -> (Vec<Citation>, Vec<String>) {
    // Web addresses are not files of the repository.
    let mut text = line.to_string();
    for scheme in ["https://", "http://"] {
        while let Some(start) = text.find(scheme) {
            let len = text[start..]
                .find(|c: char| c.is_whitespace() || "()<>`\"'".contains(c))
                .unwrap_or(text.len() - start);
            text.replace_range(start..start + len, &" ".repeat(len));
        }
    }
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find(".md") {
        let end = i + at + 3;
        i = end;
        if b.get(end).is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_') {
            continue; // `.mdx`, `.md5`
        }
        let mut start = end - 3;
        while start > 0 && is_name_byte(b[start - 1]) {
            start -= 1;
        }
        let name = text[start..end].trim_start_matches("./").to_string();
        if name.trim_start_matches('.').len() <= 3 || name.starts_with('.') && !name.starts_with("../") {
            continue; // `.md` alone, `*.md`
        }
        if start > 0 && b[start - 1] == b'"' && b.get(end) == Some(&b'"') {
            continue; // a whole string literal: a file name used as data
        }
        let anchor = (b.get(end) == Some(&b'#')).then(|| {
            let rest = &b[end + 1..];
            let len = rest.iter().position(|&c| !is_anchor_byte(c)).unwrap_or(rest.len());
            String::from_utf8_lossy(&rest[..len]).into_owned()
        });
        found.push(Citation { name, anchor });
    }
    let mut local = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](#") {
        let tail = &rest[at + 3..];
        let len = tail.bytes().position(|c| !is_anchor_byte(c)).unwrap_or(tail.len());
        local.push(tail[..len].to_string());
        rest = &tail[len..];
    }
    (found, local)
}

/// The file a cited name stands for: relative to the root, to `docs/`, or to the citing file's
/// directory.
fn resolve(name: &str, citing: &Path) -> Option<PathBuf> {
    let dir = citing.parent().unwrap_or(Path::new(""));
    [PathBuf::from(name), Path::new("docs").join(name), dir.join(name)]
        .into_iter()
        .find(|p| root().join(p).is_file())
}

/// The anchors GitHub gives the headings of a Markdown page: lower case, punctuation dropped,
/// spaces as `-`, and `-1`, `-2`, … after a repeated heading.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fence = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        if fence || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut unique = slug.clone();
        let mut n = 0;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{slug}-{n}");
        }
        seen.insert(unique);
    }
    seen
}

/// `file:line: message` for every citation in `files` that does not resolve.
fn broken(files: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(root().join(file)) else { continue }; // not UTF-8
        let is_markdown = file.extension().is_some_and(|e| e == "md");
        for (n, line) in text.lines().enumerate() {
            let (cited, local) = citations(line);
            for c in cited {
                let at = format!("{}:{}", file.display(), n + 1);
                match resolve(&c.name, file) {
                    None => out.push(format!("{at}: `{}` is not a file of the repository", c.name)),
                    Some(page) => {
                        if let Some(anchor) = c.anchor.filter(|a| !a.is_empty()) {
                            let target = std::fs::read_to_string(root().join(&page)).unwrap();
                            if !anchors(&target).contains(&anchor) {
                                out.push(format!(
                                    "{at}: `{}` has no heading for `#{anchor}`",
                                    page.display()
                                ));
                            }
                        }
                    }
                }
            }
            if is_markdown {
                for anchor in local {
                    if !anchors(&text).contains(&anchor) {
                        out.push(format!("{}:{}: no heading for `#{anchor}`", file.display(), n + 1));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_cited_page_is_a_file_of_the_repository() {
    let files = text_files();
    assert!(files.iter().any(|f| f == Path::new("README.md")), "the walk reaches the root's files");
    assert!(files.iter().any(|f| f.starts_with("src")), "and the sources");
    let broken = broken(&files);
    assert!(
        broken.is_empty(),
        "{} citations point at no file or heading:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_scanner_finds_citations_in_comments_links_and_prose() {
    let names = |line: &str| citations(line).0.into_iter().map(|c| c.name).collect::<Vec<_>>();
    assert_eq!(names("//! Counting (`notes/counting.md` 6): a fuel block"), ["notes/counting.md"]);
    assert_eq!(names("# bounded interpreter, with its counters (rules.md 6)"), ["rules.md"]);
    assert_eq!(names("see [docs/heap.md](docs/heap.md#without-dwarf)."), ["docs/heap.md", "docs/heap.md"]);
    assert_eq!(citations("[x](heat-map.md#ktx2-layout)").0[0].anchor.as_deref(), Some("ktx2-layout"));
    assert_eq!(names("let input = file(&d, \"in.md\", b\"# T\");"), Vec::<String>::new());
    assert_eq!(
        names("https://github.com/wasm-ecosystem/warpo/blob/main/docs/heap-analyzer.md"),
        Vec::<String>::new()
    );
    assert_eq!(names("`*.md` files, a `.md` suffix, README.mdx"), Vec::<String>::new());
    assert_eq!(citations("as in [Tiles](#tiles)").1, ["tiles"]);
}

#[test]
fn a_citation_of_a_missing_page_is_reported_with_its_file_and_line() {
    let dir = std::env::temp_dir().join(format!("qip-memory-citations-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let planted = dir.join("planted.rs");
    std::fs::write(&planted, "//! ok: `docs/README.md`\n//! gone: `notes/counting.md` 6\n").unwrap();
    let found = broken(std::slice::from_ref(&planted));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [format!("{}:2: `notes/counting.md` is not a file of the repository", planted.display())]
    );
}

#[test]
fn anchors_follow_github() {
    let a =
        anchors("# The heat map\n## Component-model builds (`wit/`, `wasm32-wasip2`)\n## Tiles\n## Tiles\n");
    assert!(a.contains("the-heat-map"));
    assert!(a.contains("component-model-builds-wit-wasm32-wasip2"));
    assert!(a.contains("tiles") && a.contains("tiles-1"));
}
