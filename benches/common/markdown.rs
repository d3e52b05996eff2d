//! The Markdown document the benchmarks feed `tests/targets/markdown-to-html.wasm`.

/// A Markdown document of `n` sections with headings, lists, emphasis, links and code (about
/// 200 bytes each).
pub fn markdown(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!(
            "## Section {i}\n\nSome *emphasis*, **strong** text, `code {i}` and a [link](https://example.com/{i}).\n\n\
             - item one\n- item two with _more_ words\n\n> a quote {i}\n\n```\nfn f() {{ {i} }}\n```\n\n"
        );
    }
    s
}
