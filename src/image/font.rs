//! A 5 × 7 bitmap font of our own for the labels of [`super::view`]: digits, lower-case
//! letters (other upper-case letters than `M` and `K` are drawn lower-case), the punctuation
//! of the labels and of function names (`_ < > [ ] { } & $ ~ * ! ' " ; ? | @ % \`), and the
//! ellipsis `…` of elided names. Characters without a glyph are drawn as a hollow box.

/// Glyph width and height in font pixels; glyphs advance by `WIDTH + 1`.
pub const WIDTH: usize = 5;
/// See [`WIDTH`].
pub const HEIGHT: usize = 7;

/// Each glyph: 7 rows of 5 columns, `#` set.
const GLYPHS: &[(char, [&str; HEIGHT])] = &[
    ('0', [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "]),
    ('1', ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "]),
    ('2', [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"]),
    ('3', ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "]),
    ('4', ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "]),
    ('5', ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "]),
    ('6', ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "]),
    ('7', ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "]),
    ('8', [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "]),
    ('9', [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "]),
    ('a', ["     ", "     ", " ### ", "    #", " ####", "#   #", " ####"]),
    ('b', ["#    ", "#    ", "# ## ", "##  #", "#   #", "#   #", "#### "]),
    ('c', ["     ", "     ", " ### ", "#    ", "#    ", "#   #", " ### "]),
    ('d', ["    #", "    #", " ## #", "#  ##", "#   #", "#   #", " ####"]),
    ('e', ["     ", "     ", " ### ", "#   #", "#####", "#    ", " ### "]),
    ('f', ["  ## ", " #  #", " #   ", "###  ", " #   ", " #   ", " #   "]),
    ('g', ["     ", " ####", "#   #", "#   #", " ####", "    #", " ### "]),
    ('h', ["#    ", "#    ", "# ## ", "##  #", "#   #", "#   #", "#   #"]),
    ('i', ["  #  ", "     ", " ##  ", "  #  ", "  #  ", "  #  ", " ### "]),
    ('j', ["   # ", "     ", "  ## ", "   # ", "   # ", "#  # ", " ##  "]),
    ('k', ["#    ", "#    ", "#  # ", "# #  ", "##   ", "# #  ", "#  # "]),
    ('l', [" ##  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "]),
    ('m', ["     ", "     ", "## # ", "# # #", "# # #", "#   #", "#   #"]),
    ('n', ["     ", "     ", "# ## ", "##  #", "#   #", "#   #", "#   #"]),
    ('o', ["     ", "     ", " ### ", "#   #", "#   #", "#   #", " ### "]),
    ('p', ["     ", "     ", "#### ", "#   #", "#### ", "#    ", "#    "]),
    ('q', ["     ", "     ", " ## #", "#  ##", " ####", "    #", "    #"]),
    ('r', ["     ", "     ", "# ## ", "##  #", "#    ", "#    ", "#    "]),
    ('s', ["     ", "     ", " ####", "#    ", " ### ", "    #", "#### "]),
    ('t', [" #   ", " #   ", "###  ", " #   ", " #   ", " #  #", "  ## "]),
    ('u', ["     ", "     ", "#   #", "#   #", "#   #", "#  ##", " ## #"]),
    ('v', ["     ", "     ", "#   #", "#   #", "#   #", " # # ", "  #  "]),
    ('w', ["     ", "     ", "#   #", "#   #", "# # #", "# # #", " # # "]),
    ('x', ["     ", "     ", "#   #", " # # ", "  #  ", " # # ", "#   #"]),
    ('y', ["     ", "     ", "#   #", "#   #", " ####", "    #", " ### "]),
    ('z', ["     ", "     ", "#####", "   # ", "  #  ", " #   ", "#####"]),
    ('K', ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"]),
    ('M', ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"]),
    (' ', ["     ", "     ", "     ", "     ", "     ", "     ", "     "]),
    ('-', ["     ", "     ", "     ", "#####", "     ", "     ", "     "]),
    ('.', ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "]),
    (',', ["     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "]),
    (':', ["     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "]),
    ('(', ["   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "]),
    (')', [" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "]),
    ('/', ["     ", "    #", "   # ", "  #  ", " #   ", "#    ", "     "]),
    ('+', ["     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "]),
    ('#', [" # # ", " # # ", "#####", " # # ", "#####", " # # ", " # # "]),
    ('=', ["     ", "     ", "#####", "     ", "#####", "     ", "     "]),
    ('_', ["     ", "     ", "     ", "     ", "     ", "     ", "#####"]),
    ('<', ["   # ", "  #  ", " #   ", "#    ", " #   ", "  #  ", "   # "]),
    ('>', [" #   ", "  #  ", "   # ", "    #", "   # ", "  #  ", " #   "]),
    ('[', [" ### ", " #   ", " #   ", " #   ", " #   ", " #   ", " ### "]),
    (']', [" ### ", "   # ", "   # ", "   # ", "   # ", "   # ", " ### "]),
    ('{', ["  ## ", " #   ", " #   ", "##   ", " #   ", " #   ", "  ## "]),
    ('}', [" ##  ", "   # ", "   # ", "   ##", "   # ", "   # ", " ##  "]),
    ('&', [" ##  ", "#  # ", "# #  ", " #   ", "# # #", "#  # ", " ## #"]),
    ('$', ["  #  ", " ####", "# #  ", " ### ", "  # #", "#### ", "  #  "]),
    ('~', ["     ", "     ", " #   ", "# # #", "   # ", "     ", "     "]),
    ('*', ["     ", "  #  ", "# # #", " ### ", "# # #", "  #  ", "     "]),
    ('!', ["  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "     ", "  #  "]),
    ('\'', ["  #  ", "  #  ", "     ", "     ", "     ", "     ", "     "]),
    ('"', [" # # ", " # # ", "     ", "     ", "     ", "     ", "     "]),
    (';', ["     ", " ##  ", " ##  ", "     ", " ##  ", "  #  ", " #   "]),
    ('?', [" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "]),
    ('|', ["  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "]),
    ('@', [" ### ", "#   #", "# ###", "# # #", "# ###", "#    ", " ####"]),
    ('%', ["##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"]),
    ('\\', ["     ", "#    ", " #   ", "  #  ", "   # ", "    #", "     "]),
    ('\u{2026}', ["     ", "     ", "     ", "     ", "     ", "     ", "# # #"]),
];

const MISSING: [&str; HEIGHT] = ["#####", "#   #", "#   #", "#   #", "#   #", "#   #", "#####"];

/// The rows of `c`'s glyph.
fn glyph(c: char) -> &'static [&'static str; HEIGHT] {
    let c = if c.is_ascii_uppercase() && c != 'K' && c != 'M' { c.to_ascii_lowercase() } else { c };
    GLYPHS.iter().find(|(g, _)| *g == c).map_or(&MISSING, |(_, rows)| rows)
}

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: usize) -> usize {
    text.chars().count() * (WIDTH + 1) * scale
}

/// Calls `set(x, y)` for every pixel of `text` drawn with its top-left corner at `(x, y)`, each
/// font pixel `scale` × `scale` pixels.
pub fn draw(text: &str, x: usize, y: usize, scale: usize, mut set: impl FnMut(usize, usize)) {
    for (i, c) in text.chars().enumerate() {
        let gx = x + i * (WIDTH + 1) * scale;
        for (row, bits) in glyph(c).iter().enumerate() {
            for (col, b) in bits.bytes().enumerate() {
                if b == b'#' {
                    for dy in 0..scale {
                        for dx in 0..scale {
                            set(gx + col * scale + dx, y + row * scale + dy);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_is_5_by_7_and_distinct() {
        for (c, rows) in GLYPHS {
            assert!(rows.iter().all(|r| r.len() == WIDTH), "{c}");
        }
        for (i, (a, ra)) in GLYPHS.iter().enumerate() {
            for (b, rb) in &GLYPHS[i + 1..] {
                assert!(ra != rb, "{a} and {b} look the same");
            }
        }
    }

    #[test]
    fn draws_scaled_pixels() {
        let mut set = alloc::vec::Vec::new();
        draw("1", 10, 20, 2, |x, y| set.push((x, y)));
        // "1" has 10 font pixels: 40 at scale 2; its top pixel is column 2, row 0.
        assert_eq!(set.len(), 40);
        assert!(set.contains(&(14, 20)) && set.contains(&(15, 21)));
        assert_eq!(text_width("page 16", 2), 84);
    }

    #[test]
    fn function_names_have_glyphs() {
        // Names as the legend shows them: demangled Rust, AssemblyScript paths, `func[N]`,
        // imports, and an elided one.
        let names = "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop {closure#0} ~lib/rt/tlsf/allocate \
                     func[12] wasi_snapshot_preview1.fd_write &mut $f! 'a \"s\"; a?b|c@d%e\\f qr\u{2026}ode";
        for c in names.chars() {
            assert!(glyph(c) != &MISSING, "{c:?} has no glyph");
        }
        // Upper-case letters other than K and M are drawn lower-case.
        assert_eq!(glyph('V'), glyph('v'));
        assert!(glyph('K') != glyph('k'));
        // One glyph per character, whatever its UTF-8 length.
        assert_eq!(text_width("a\u{2026}", 1), 12);
    }
}
