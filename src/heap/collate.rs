//! The className tie-break of the views' orders (docs/heap.md, "Orders"): JavaScript
//! `String.prototype.localeCompare`, i.e. ICU collation with the root locale at tertiary
//! strength (Node's default), as docs/heap.md "Sorting ties by class name" describes.
//!
//! With the `icu-collation` feature (the CLI) [`locale_compare`] is ICU4X's root collator
//! itself. Builds without it (the heap Content component, size-bound) use the compact tables
//! of this module ([`table_compare`]), which the rest of this documentation describes.
//!
//! Each character becomes collation elements of three weights, as in the Unicode Collation
//! Algorithm (UTS #10): a primary (the letter, digit or symbol), a secondary (accents and
//! other marks) and a tertiary (case, and ligature or compatibility forms). Two strings are
//! compared by their primary weights, then their secondary weights, then their tertiary
//! weights, each as a sequence.
//!
//! Exact for ASCII, the spaces, punctuation and symbols of Latin-1, General Punctuation and the
//! currency signs, the letters of Latin-1 (U+00C0–U+00FF) and Latin Extended-A
//! (U+0100–U+017F), the letters of Latin Extended-B and Latin Extended Additional that are
//! ASCII letters with marks, and the letters of Latin Extended-B and the IPA Extensions with a
//! primary of their own, checked against ICU4X's root collator in tests/collation.rs:
//!
//! 1. C0 controls other than TAB…CR, and DEL, are ignorable;
//! 2. primaries: the spaces, punctuation and symbols in the generated order (`SYMBOLS`: TAB
//!    LF VT FF CR, SPACE, then `` _ - , ; : ! ? . · ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = >
//!    | ~ $ `` with the others among them, `‘` and `’` a secondary difference from `'`, the
//!    no-break space a tertiary one from the space), then `0`–`9`,
//!    then the Latin letters in the generated order (`ASCII_PRIMARIES`, `LATIN_LETTERS`):
//!    `a` … `z` with `ı` after `i`, `ŋ` after `n`, `ĸ` after `q`, `ŧ` after `t`, `þ` after
//!    `z`, and the letters of U+0180–U+02FF among them (`ƀ` after `b`, `ʒ` after `z`, `ʼ` of
//!    `ŉ` before `ʕ`), each with a tertiary for its case, and a modifier letter that is a
//!    variant of an ASCII letter (`ʰ`) that letter with a tertiary after its capital's;
//! 3. a letter with marks is its base letter (an ASCII letter, `ʒ` of `ǯ`, `æ` of `ǽ`, `ø` of
//!    `ǿ`) followed by one
//!    secondary element per mark (its
//!    canonical decomposition, `collate_table.rs`'s `LATIN_DECOMPOSED`), the marks' weights in
//!    root order (`MARKS`); `đ ħ ł ø`, `ŀ` (and `l·` as one letter), `ð` and `ſ` are
//!    their base letter and a mark of their own, placed among those (`D_STROKE` …); `æ`, `œ`,
//!    `ß` are `ae`, `oe`, `ss` with a ligature mark after the first letter, `ĳ` is `ij` and
//!    `ŉ` is `ʼn` in compatibility form;
//! 4. tertiary: lower case, then compatibility forms (`æ ß ĳ ŉ ſ`), then upper case, then
//!    upper-case compatibility forms (`Æ Œ Ĳ`).
//!
//! The letters of Greek, Cyrillic, Armenian, Hebrew, Arabic, Syriac, Thaana, N'Ko, Georgian,
//! Glagolitic, Coptic, Hiragana, Katakana, Bopomofo, Ethiopic, Cherokee, Canadian syllabics,
//! Mongolian, Tifinagh, the Brahmic scripts of India and Sri Lanka (independent vowels,
//! consonants, letters with a nukta, vowel signs and viramas), Thai and Lao (consonants and
//! vowels), Tibetan, Myanmar
//! and Khmer (consonants) and the Hangul jamo (a syllable is its jamo) come from a table
//! generated from ICU4X's root collation (`collate_table.rs`, written and checked by
//! tests/collation.rs, which lists the exact ranges): each letter is one element (its primary
//! ranked after all of Latin, a secondary of its own where it has one, like `ґ` after `г`, and
//! a tertiary ranked among the letters of its primary: `σ ϲ Σ Ϲ ς`), or its canonical
//! decomposition, a base letter and up to three marks of the table's secondary order. Three
//! rules of the root collation go beyond one character:
//!
//! - a string is first decomposed (the tables' canonical decompositions) and each run of
//!   combining marks put in canonical order (by combining class, `COMBINING_CLASSES`), so a
//!   mark typed after its letter (`e` and U+0301) weighs what the precomposed letter's does
//!   (`é`), and canonically equivalent strings compare equal. Every secondary is on one
//!   scale: the marks' (`MARKS`: those of the decompositions, U+0300–U+036F and the
//!   combining marks of the scripts' blocks: Hebrew points, Arabic harakat, nuktas, Thai and
//!   Lao tone marks…, in root order), with the letters' and symbols' own secondaries and the marks this file writes
//!   (`D_STROKE` …) placed among them by ICU;
//! - contractions: `й` and `Й`, and the two-part vowel signs of the Brahmic scripts (`ୋ`), are
//!   letters of their own, also when typed as their characters (`CONTRACTIONS`, also across
//!   marks that do not block them, as UTS #10 matches discontiguous contractions), and so
//!   are Thai `ำ` and Lao `ຳ` when typed as their compatibility decomposition (nikhahit and
//!   `า`);
//! - a Thai or Lao vowel written before its consonant sorts after it (`เก` as `กเ`).
//!
//! Letters that expand to several elements (`ϗ`, `Ϗ`) or that the collation ignores are not in
//! the table.
//!
//! Other characters sort by code point, each as its own primary: those below U+0370 between
//! Latin and the table's letters, the others after them. That is exact for the CJK ideographs
//! of U+4E00–U+9FFF and an approximation for the rest (symbols of other blocks, those that
//! expand like `…`, the Latin digraphs that expand, the Syriac letters from U+072D), which
//! AssemblyScript names seen so far never contain.

use alloc::vec::Vec;
use core::cmp::Ordering;

#[path = "collate_table.rs"]
mod table;

// Secondary weights: 0 is the common weight of a letter without marks; the marks' weights
// are generated (`table`), as are those of the marks this file writes itself:
use table::{D_STROKE, ETH, H_STROKE, L_STROKE, LIGATURE, LONG_S, MIDDLE_DOT, O_STROKE};

// Tertiary weights. The generated `LATIN_LETTERS` gives the modifier letters that are a
// variant of an ASCII letter (`ʰ`) 4 and up, after these.
const LOWER: u8 = 0;
const COMPAT: u8 = 1;
const UPPER: u8 = 2;
const UPPER_COMPAT: u8 = 3;

/// One collation element: primary (0 for a mark), secondary, tertiary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Element {
    primary: u32,
    secondary: u16,
    tertiary: u8,
}

/// The element of a space, punctuation mark or symbol of the generated table (`SYMBOLS`).
fn symbol(c: char) -> Option<Element> {
    let code = u16::try_from(c as u32).ok()?;
    let i = table::SYMBOLS.binary_search_by_key(&code, |x| x.0).ok()?;
    let (_, rank, secondary, tertiary) = table::SYMBOLS[i];
    Some(Element { primary: SYMBOL_PRIMARIES + u32::from(rank), secondary, tertiary })
}

/// The primary rank and tertiary of a Latin letter with a primary of its own (`a`–`z`
/// lower case, or a letter of the generated `LATIN_LETTERS`).
fn latin_letter(c: char) -> Option<(u16, u8)> {
    if c.is_ascii_lowercase() {
        return Some((table::ASCII_PRIMARIES[usize::from(c as u8 - b'a')], LOWER));
    }
    let code = u16::try_from(c as u32).ok()?;
    let i = table::LATIN_LETTERS.binary_search_by_key(&code, |l| l.0).ok()?;
    Some((table::LATIN_LETTERS[i].1, table::LATIN_LETTERS[i].2))
}

/// Latin letter `c` (lower case, or of `LATIN_LETTERS`) with the given tertiary.
fn letter(c: char, tertiary: u8) -> Element {
    latin_element(latin_letter(c).map_or(0, |l| l.0), tertiary)
}

/// The element of the Latin letter of primary rank `rank`.
fn latin_element(rank: u16, tertiary: u8) -> Element {
    Element { primary: LATIN_PRIMARIES + u32::from(rank), secondary: 0, tertiary }
}

fn mark(secondary: u16, tertiary: u8) -> Element {
    Element { primary: 0, secondary, tertiary }
}

/// The elements of `c` into `out` (none for an ignorable character).
fn elements(c: char, out: &mut Vec<Element>) {
    // ASCII letters and digits first: most of every name.
    if c.is_ascii_alphabetic() {
        let upper = c.is_ascii_uppercase();
        out.push(letter(c.to_ascii_lowercase(), if upper { UPPER } else { LOWER }));
        return;
    }
    if let Some(d) = c.to_digit(10).filter(|_| c.is_ascii_digit()) {
        out.push(Element { primary: DIGIT_PRIMARIES + d, secondary: 0, tertiary: LOWER });
        return;
    }
    if u16::try_from(c as u32).is_ok_and(|code| table::IGNORABLE.binary_search(&code).is_ok()) {
        return;
    }
    if let Some(e) = symbol(c) {
        out.push(e);
        return;
    }
    if c.is_ascii() {
        // Every ASCII character is a letter, a digit, a symbol or ignorable.
        return;
    }
    let code = c as u32;
    let t = |upper: bool| if upper { UPPER } else { LOWER };
    let tc = |upper: bool| if upper { UPPER_COMPAT } else { COMPAT };
    match c {
        '\u{d0}' | '\u{f0}' => out.extend([letter('d', t(c == '\u{d0}')), mark(ETH, LOWER)]),
        '\u{110}' | '\u{111}' => out.extend([letter('d', t(c == '\u{110}')), mark(D_STROKE, LOWER)]),
        '\u{126}' | '\u{127}' => out.extend([letter('h', t(c == '\u{126}')), mark(H_STROKE, LOWER)]),
        '\u{141}' | '\u{142}' => out.extend([letter('l', t(c == '\u{141}')), mark(L_STROKE, LOWER)]),
        '\u{d8}' | '\u{f8}' => out.extend([letter('o', t(c == '\u{d8}')), mark(O_STROKE, LOWER)]),
        '\u{13f}' | '\u{140}' => out.extend([letter('l', t(c == '\u{13f}')), mark(MIDDLE_DOT, LOWER)]),
        '\u{c6}' | '\u{e6}' => {
            let u = tc(c == '\u{c6}');
            out.extend([letter('a', u), mark(LIGATURE, u), letter('e', u)]);
        }
        '\u{152}' | '\u{153}' => {
            let u = tc(c == '\u{152}');
            out.extend([letter('o', u), mark(LIGATURE, u), letter('e', u)]);
        }
        '\u{df}' => out.extend([letter('s', COMPAT), mark(LIGATURE, COMPAT), letter('s', COMPAT)]),
        '\u{17f}' => out.extend([letter('s', COMPAT), mark(LONG_S, COMPAT)]),
        '\u{132}' | '\u{133}' => {
            let u = tc(c == '\u{132}');
            out.extend([letter('i', u), letter('j', u)]);
        }
        '\u{149}' => out.extend([letter('\u{2bc}', COMPAT), letter('n', COMPAT)]),
        _ => {
            if let Some((rank, tertiary)) = latin_letter(c) {
                out.push(latin_element(rank, tertiary));
            } else if !beyond_latin(code, out) {
                // Unordered: before the scripts of the table when below them, else after them.
                let primary =
                    if code < 0x370 { UNORDERED_LATIN_PRIMARIES + code } else { UNORDERED_PRIMARIES + code };
                out.push(Element { primary, secondary: 0, tertiary: LOWER });
            }
        }
    }
}

/// The Hangul syllables, U+AC00–U+D7A3.
const HANGUL_FIRST: u32 = 0xac00;
const HANGUL_LAST: u32 = 0xd7a3;

/// The element of a letter of the generated table ([`table`]: scripts beyond Latin) into `out`
/// (a Hangul syllable: its jamo's). `false` when the table has no `code`.
fn beyond_latin(code: u32, out: &mut Vec<Element>) -> bool {
    // A Hangul syllable is its jamo (its canonical decomposition, by the Unicode Standard's
    // arithmetic, section 3.12): leading consonant, vowel, and a trailing consonant or none.
    if (HANGUL_FIRST..=HANGUL_LAST).contains(&code) {
        let s = code - HANGUL_FIRST;
        let (l, v, t) = (0x1100 + s / 588, 0x1161 + s % 588 / 28, 0x11a7 + s % 28);
        let len = out.len();
        let jamo = [l, v, t];
        let jamo = &jamo[..if t == 0x11a7 { 2 } else { 3 }];
        if jamo.iter().all(|&j| beyond_latin(j, out)) {
            return true;
        }
        out.truncate(len);
        return false;
    }
    let Ok(code) = u16::try_from(code) else { return false };
    let Ok(i) = table::LETTERS.binary_search_by_key(&code, |l| l.0) else { return false };
    let (_, primary, secondary, tertiary) = table::LETTERS[i];
    // Its own secondary is on the marks' scale (`MARKS`), placed among them by the generator.
    out.push(Element { primary: TABLE_PRIMARIES + u32::from(primary), secondary, tertiary });
    true
}

/// Where the primaries of the spaces, punctuation and symbols start (their rank in `SYMBOLS`).
const SYMBOL_PRIMARIES: u32 = 1;
/// Where the primaries of the digits `0`–`9` start.
const DIGIT_PRIMARIES: u32 = 1_000;
/// Where the primaries of the Latin letters start (their rank in `ASCII_PRIMARIES` and
/// `LATIN_LETTERS`).
const LATIN_PRIMARIES: u32 = 2_000;
/// Where the primaries of the characters below U+0370 that no table orders start.
const UNORDERED_LATIN_PRIMARIES: u32 = 10_000;
/// Where the primaries of the generated table's letters start; those of characters it does
/// not order start at [`UNORDERED_PRIMARIES`].
const TABLE_PRIMARIES: u32 = 100_000;
/// Where the primaries of the characters above U+0370 that no table orders start.
const UNORDERED_PRIMARIES: u32 = 200_000;

/// The canonical decomposition of `c` into `out`: a letter with marks of either table
/// (`LATIN_DECOMPOSED`, `DECOMPOSED`) becomes its base letter and its marks, a letter of
/// `CONTRACTIONS` its two characters (decomposed in turn), any other character itself.
fn decompose(c: char, out: &mut Vec<char>) {
    // A contraction's letter is its two characters (`й` is `и` and a breve), which
    // `string_elements` contracts again once the marks after them are in canonical order.
    let contracted =
        if c.is_ascii() { None } else { table::CONTRACTIONS.iter().find(|x| u32::from(x.2) == c as u32) };
    if let Some(&(first, second, _)) = contracted {
        for part in [first, second].into_iter().filter_map(|x| char::from_u32(u32::from(x))) {
            decompose(part, out);
        }
        return;
    }
    let found = u16::try_from(c as u32).ok().and_then(|code| {
        let latin = table::LATIN_DECOMPOSED.binary_search_by_key(&code, |d| d.0).ok();
        latin.map(|i| (table::LATIN_DECOMPOSED[i].1, table::LATIN_DECOMPOSED[i].2)).or_else(|| {
            let i = table::DECOMPOSED.binary_search_by_key(&code, |d| d.0).ok()?;
            Some((table::DECOMPOSED[i].1, table::DECOMPOSED[i].2))
        })
    });
    let Some((base, marks)) = found else {
        out.push(c);
        return;
    };
    let chars = core::iter::once(base).chain(marks.into_iter().take_while(|&m| m != 0));
    out.extend(chars.filter_map(|x| char::from_u32(u32::from(x))));
}

/// The secondary weight of `c` when it is a combining mark the tables weigh (`MARKS`).
fn typed_mark(c: char) -> Option<u16> {
    let code = u16::try_from(c as u32).ok()?;
    let i = table::MARKS.binary_search_by_key(&code, |m| m.0).ok()?;
    Some(table::MARKS[i].1)
}

/// The canonical combining class of `c` (Unicode's `ccc`) where the generated table has one, 0
/// (a starter) otherwise.
fn combining_class(c: char) -> u8 {
    let Ok(code) = u16::try_from(c as u32) else { return 0 };
    table::COMBINING_CLASSES.binary_search_by_key(&code, |x| x.0).map_or(0, |i| table::COMBINING_CLASSES[i].1)
}

/// The characters of `s` decomposed ([`decompose`]) and each run of combining marks in
/// canonical order: sorted by combining class, stably (the canonical ordering of the Unicode
/// Standard, section 3.11: the collation compares canonically equivalent strings as equal).
fn canonical_order(s: &str) -> Vec<char> {
    let mut chars: Vec<char> = Vec::with_capacity(s.len());
    for c in s.chars() {
        decompose(c, &mut chars);
    }
    let mut start = 0;
    while start < chars.len() {
        let len = chars[start..].iter().take_while(|&&c| combining_class(c) != 0).count();
        chars[start..start + len].sort_by_key(|&c| combining_class(c));
        start += len.max(1);
    }
    chars
}

/// The letter of the generated table that `first` and `second` make together (a contraction
/// of the root collation: `и` and a combining breve are `й`, Oriya `େ` and `ା` are `ୋ`).
fn contraction(first: char, second: char) -> Option<char> {
    let (Ok(a), Ok(b)) = (u16::try_from(first as u32), u16::try_from(second as u32)) else { return None };
    let i = table::CONTRACTIONS.binary_search_by_key(&(a, b), |x| (x.0, x.1)).ok()?;
    char::from_u32(u32::from(table::CONTRACTIONS[i].2))
}

/// Whether `c` is a Thai or Lao vowel written before the consonant it follows in speech
/// (U+0E40–U+0E44, U+0EC0–U+0EC4), and `next` a consonant of the same script.
fn prevowel_before_consonant(c: char, next: char) -> bool {
    match c {
        '\u{e40}'..='\u{e44}' => ('\u{e01}'..='\u{e2e}').contains(&next),
        '\u{ec0}'..='\u{ec4}' => ('\u{e81}'..='\u{eae}').contains(&next),
        _ => false,
    }
}

/// The elements of a whole string; `l·` and `L·` count as `ŀ` and `Ŀ`, and a Thai or Lao
/// prevowel and the consonant after it sort as the consonant, then the vowel (contractions
/// of the root collation, which sorts Thai and Lao syllables in spoken order).
fn string_elements(s: &str) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::with_capacity(s.len() + 4);
    // ASCII has no marks, no decompositions and no contractions (`l·` needs U+00B7).
    if s.is_ascii() {
        for c in s.chars() {
            elements(c, &mut out);
        }
        return out;
    }
    let mut chars = canonical_order(s);
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        i += 1;
        if let Some((at, letter)) = contraction_at(&chars, i - 1) {
            // The letter takes the second character's place, the marks between them keep
            // their order, and it is read again: it may contract further (Sinhala `ො` and
            // `්` are `ෝ`). A mark may begin one (Thai nikhahit and `า` are `ำ`).
            chars[i..=at].rotate_right(1);
            chars[i] = letter;
        } else if let Some(weight) = typed_mark(c) {
            out.push(mark(weight, LOWER));
        } else if matches!(c, 'l' | 'L') && next == Some('\u{b7}') {
            i += 1;
            elements(if c == 'l' { '\u{140}' } else { '\u{13f}' }, &mut out);
        } else if let Some(consonant) = next.filter(|&n| prevowel_before_consonant(c, n)) {
            elements(consonant, &mut out);
            elements(c, &mut out);
            i += 1;
        } else {
            elements(c, &mut out);
        }
    }
    out
}

/// The contraction that the character at `start` makes with the next one, or, when it is a
/// starter, with a later combining mark that no mark between them blocks (one of the same or
/// a higher combining class, or a starter: UTS #10's discontiguous match): the position of
/// the second character and the letter.
fn contraction_at(chars: &[char], start: usize) -> Option<(usize, char)> {
    let first = chars[start];
    let next = *chars.get(start + 1)?;
    if let Some(letter) = contraction(first, next) {
        return Some((start + 1, letter));
    }
    let mut highest = combining_class(next);
    if combining_class(first) != 0 || highest == 0 {
        return None;
    }
    for (k, &c) in chars.iter().enumerate().skip(start + 2) {
        let class = combining_class(c);
        if class == 0 {
            return None;
        }
        if class > highest {
            if let Some(letter) = contraction(first, c) {
                return Some((k, letter));
            }
            highest = class;
        }
    }
    None
}

/// Compares two strings like `a.localeCompare(b)` in Node: ICU's root collation at tertiary
/// strength. With the `icu-collation` feature (on in the CLI and the WASI command) ICU4X's
/// collator itself decides, exactly for every string; without it (the heap Content
/// component, whose size bound its data would break) [`table_compare`] does. `Equal` for
/// strings that differ only in ignorable characters or are canonically equivalent.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    #[cfg(feature = "icu-collation")]
    {
        icu::compare(a, b)
    }
    #[cfg(not(feature = "icu-collation"))]
    {
        table_compare(a, b)
    }
}

/// ICU4X's root collator, built once from its compiled data.
#[cfg(feature = "icu-collation")]
mod icu {
    use core::cmp::Ordering;

    use icu_collator::options::{CollatorOptions, Strength};
    use icu_collator::{Collator, CollatorBorrowed, CollatorPreferences};
    use std::sync::OnceLock;

    static ROOT: OnceLock<CollatorBorrowed<'static>> = OnceLock::new();

    /// `a` against `b` in the root collation at tertiary strength (Node's default).
    pub(super) fn compare(a: &str, b: &str) -> Ordering {
        ROOT.get_or_init(|| {
            let mut options = CollatorOptions::default();
            options.strength = Some(Strength::Tertiary);
            // The root locale's data is compiled in: building from it cannot fail.
            Collator::try_new(CollatorPreferences::default(), options)
                .expect("ICU4X's compiled data holds the root collation")
        })
        .compare(a, b)
    }
}

/// [`locale_compare`] from this module's compact tables (see the module documentation), the
/// comparison of builds without the `icu-collation` feature: equal to ICU's on the characters
/// the tables cover, by code point beyond them. `Equal` only for strings with the same
/// elements (differing in ignorable characters, or `l·` against `ŀ`).
pub fn table_compare(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (x, y) = (string_elements(a), string_elements(b));
    let primaries =
        |v: &[Element]| v.iter().filter(|e| e.primary != 0).map(|e| e.primary).collect::<Vec<_>>();
    primaries(&x)
        .cmp(&primaries(&y))
        .then_with(|| x.iter().map(|e| e.secondary).cmp(y.iter().map(|e| e.secondary)))
        .then_with(|| x.iter().map(|e| e.tertiary).cmp(y.iter().map(|e| e.tertiary)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    #[test]
    fn beyond_the_tables_by_code_point() {
        // What builds without `icu-collation` do past the tables (the module documentation):
        // `ǳ` (below U+0370) after Latin, then the tables' letters (`ア`), then the rest by
        // code point (`ܭ`, the emoji). ICU gives `😀 ǳ e ܭ ア` (tests/heap.rs).
        let mut v = ["x/\u{1f600}", "x/\u{72d}", "x/\u{30a2}", "x/\u{1f3}", "x/e"];
        v.sort_by(|a, b| table_compare(a, b));
        assert_eq!(v, ["x/e", "x/\u{1f3}", "x/\u{30a2}", "x/\u{72d}", "x/\u{1f600}"]);
    }

    #[test]
    fn symbols_before_digits_before_letters() {
        // ICU puts `~lib/…` before `tools/…`.
        assert_eq!(table_compare("~lib/string/String", "tools/x/TreeNode"), Less);
        assert_eq!(table_compare("9", "a"), Less);
        assert_eq!(table_compare("_", "-"), Less);
        assert_eq!(table_compare("~", "$"), Less);
        assert_eq!(table_compare("$", "0"), Less);
    }

    #[test]
    fn symbols_beyond_ascii() {
        // ICU4X's root collator gives these: currency signs after `$`'s kin, in this order;
        // `‘` and `’` are the apostrophe with a secondary difference, and a no-break space is a
        // space with a tertiary one; `¡` after `!`, `§` after `}`, all before the digits.
        let mut v = ["\u{20ac}", "$", "\u{a3}", "\u{a2}", "\u{a4}", "\u{a5}"];
        v.sort_by(|a, b| table_compare(a, b));
        assert_eq!(v, ["\u{a4}", "\u{a2}", "$", "\u{a3}", "\u{a5}", "\u{20ac}"]);
        assert_eq!(table_compare("'", "\u{2018}"), Less);
        assert_eq!(table_compare("\u{2018}", "\u{2019}"), Less);
        assert_eq!(table_compare("a\u{2019}b", "a'c"), Less);
        assert_eq!(table_compare("a\u{a0}b", "a b"), Greater);
        assert_eq!(table_compare("a\u{a0}a", "a b"), Less);
        assert_eq!(table_compare("!", "\u{a1}"), Less);
        assert_eq!(table_compare("\u{a1}", "?"), Less);
        assert_eq!(table_compare("}", "\u{a7}"), Less);
        assert_eq!(table_compare("\u{20ac}", "0"), Less);
        // A curly quote's secondary is below every mark's, after a letter of any script.
        assert_eq!(table_compare("a\u{2018}", "a\u{301}'"), Less);
        assert_eq!(table_compare("\u{3b1}\u{300}'", "\u{3b1}\u{2018}"), Greater);
        // The soft hyphen is ignored; the C1 control NEL is not.
        assert_eq!(table_compare("a\u{ad}b", "ab"), Equal);
        assert_eq!(table_compare("a\u{85}b", "ab"), Less);
    }

    #[test]
    fn case_is_secondary_to_letters() {
        // Case-insensitive first: "apple" < "Banana" although 'B' < 'a' in bytes.
        assert_eq!(table_compare("apple", "Banana"), Less);
        // Equal letters: lower case first.
        assert_eq!(table_compare("a", "A"), Less);
        assert_eq!(table_compare("Ab", "aB"), Greater);
        assert_eq!(table_compare("x/Item", "x/Item"), Equal);
        // A prefix sorts first.
        assert_eq!(table_compare("x/Item", "x/Items"), Less);
        // Primary difference later in the string wins over an earlier case difference.
        assert_eq!(table_compare("Ax", "ay"), Less);
    }

    #[test]
    fn accents_after_the_base_letter_case_last() {
        // The order WARPO (Node) gives: accents are secondary, case tertiary.
        let mut v = ["x/Zebra", "x/\u{c4}rger", "x/\u{e4}pfel", "x/Apfel", "x/apfel"];
        v.sort_by(|a, b| table_compare(a, b));
        assert_eq!(v, ["x/apfel", "x/Apfel", "x/\u{e4}pfel", "x/\u{c4}rger", "x/Zebra"]);
        // Letters of their own: \u{131} (dotless i) after i, \u{fe} (thorn) after z.
        assert_eq!(table_compare("\u{131}", "iz"), Greater);
        assert_eq!(table_compare("\u{fe}", "z"), Greater);
        // Expansions: \u{df} is ss with a mark, \u{e6} is ae with one.
        assert_eq!(table_compare("\u{df}", "ss"), Greater);
        assert_eq!(table_compare("\u{df}", "st"), Less);
        assert_eq!(table_compare("\u{e6}", "af"), Less);
        // The l\u{b7} contraction.
        assert_eq!(table_compare("l\u{b7}", "\u{140}"), Equal);
    }

    #[test]
    fn latin_letters_of_their_own() {
        // ICU4X's root collator at tertiary strength gives each of these: `ƀ` (b with stroke)
        // between `b` and `c`, turned `ǝ` before schwa `ə`, both after `e`; ezh `ʒ` after `z`
        // and before `þ`, its capital a tertiary variant; `ǯ` is `ʒ` with a caron; the
        // glottal stop `ʔ` before `ʼ`, the pharyngeal `ʕ` after it.
        let mut v = ["c", "\u{180}", "b", "\u{259}", "\u{1dd}", "f", "e"];
        v.sort_by(|a, b| table_compare(a, b));
        assert_eq!(v, ["b", "\u{180}", "c", "e", "\u{1dd}", "\u{259}", "f"]);
        let mut v = ["\u{fe}", "\u{1b7}", "\u{1ef}", "z", "\u{292}", "\u{2bc}", "\u{294}", "\u{295}"];
        v.sort_by(|a, b| table_compare(a, b));
        assert_eq!(v, ["z", "\u{292}", "\u{1b7}", "\u{1ef}", "\u{fe}", "\u{294}", "\u{2bc}", "\u{295}"]);
        assert_eq!(table_compare("\u{292}b", "\u{1b7}a"), Greater);
        assert_eq!(table_compare("\u{1ef}a", "\u{292}b"), Less);
    }

    #[test]
    fn thai_prevowels_and_brahmic_contractions() {
        // ICU4X's root collator gives these (tests/collation.rs checks them at random): a
        // Thai vowel written before its consonant sorts after it, so `ใฆ` sorts as `ฆใ`,
        // before `ษ`.
        assert_eq!(table_compare("\u{e43}\u{e06}\u{e1c}\u{e25}", "\u{e29}\u{e06}\u{e1c}\u{e25}"), Less);
        // Oriya `େ` and `ା` are `ୋ` (canonically equivalent), which sorts after `ର`; `и` and a
        // combining breve are `й`.
        assert_eq!(table_compare("\u{b47}\u{b3e}", "\u{b4b}"), Equal);
        assert_eq!(table_compare("\u{a1b}\u{db6}\u{b47}\u{b3e}", "\u{a1b}\u{db6}\u{b47}\u{b30}"), Greater);
        assert_eq!(table_compare("\u{438}\u{306}", "\u{439}"), Equal);
        // Marks typed out of canonical order: Thai phinthu (class 9) before sara u (103).
        assert_eq!(table_compare("\u{e01}\u{e38}\u{e3a}", "\u{e01}\u{e3a}\u{e38}"), Equal);
        // Sinhala `ෙ`, `ා` and `්` are `ො` and `්`, which are `ෝ`.
        assert_eq!(table_compare("\u{dd9}\u{dcf}\u{dca}", "\u{ddd}"), Equal);
    }

    #[test]
    fn spacing_modifier_letters() {
        // ICU4X's root collator gives these: `ʰ` is `h` after `H`, `ʻ` a letter after `h`,
        // `ˆ` a symbol before the digits.
        assert_eq!(table_compare("\u{2b0}", "H"), Greater);
        assert_eq!(table_compare("\u{2b0}", "i"), Less);
        assert_eq!(table_compare("a\u{2b0}b", "aHb"), Greater);
        assert_eq!(table_compare("\u{2bb}", "h"), Greater);
        assert_eq!(table_compare("\u{2bb}", "i"), Less);
        assert_eq!(table_compare("\u{2c6}", "0"), Less);
    }

    #[test]
    fn tone_marks_nuktas_and_sara_am() {
        // ICU4X's root collator gives these: Thai tone marks are secondary differences, mai
        // ek before mai tho.
        assert_eq!(table_compare("\u{e01}\u{e48}", "\u{e01}"), Greater);
        assert_eq!(table_compare("\u{e01}\u{e49}", "\u{e01}\u{e48}"), Greater);
        assert_eq!(table_compare("\u{e01}\u{e48}\u{e02}", "\u{e01}\u{e02}\u{e48}"), Greater);
        // Devanagari `क़` is `क` and a nukta, between `क` and `ख`.
        assert_eq!(table_compare("\u{958}", "\u{915}\u{93c}"), Equal);
        assert_eq!(table_compare("\u{958}", "\u{915}"), Greater);
        assert_eq!(table_compare("\u{958}", "\u{916}"), Less);
        // Thai nikhahit and `า` contract to sara am `ำ` (its compatibility decomposition),
        // Lao likewise; not across a tone mark.
        assert_eq!(table_compare("\u{e01}\u{e4d}\u{e32}", "\u{e01}\u{e33}"), Equal);
        assert_eq!(table_compare("\u{e81}\u{ecd}\u{eb2}", "\u{e81}\u{eb3}"), Equal);
        assert_eq!(table_compare("\u{e01}\u{e4d}\u{e32}", "\u{e01}\u{e32}"), Greater);
        assert_eq!(table_compare("\u{e4d}\u{e48}\u{e32}", "\u{e33}\u{e48}"), Less);
        assert_eq!(table_compare("\u{ecd}\u{e32}", "\u{e4d}\u{e32}"), Less);
    }

    #[test]
    fn long_runs_of_marks_and_contractions() {
        // Each character is looked at a bounded number of times: these take milliseconds
        // (a quadratic pass would take minutes). `и` and a breve, 100,000 times, are `й`s; a
        // letter with 200,000 viramas after it sorts after the letter with one fewer.
        let (n, m) = ("\u{438}\u{306}".repeat(100_000), "\u{439}".repeat(100_000));
        assert_eq!(table_compare(&n, &m), Equal);
        let long = alloc::format!("\u{915}{}", "\u{94d}".repeat(200_000));
        assert_eq!(table_compare(&long, &long[..long.len() - 3]), Greater);
        let marks = alloc::format!("a{}b", "\u{301}\u{323}".repeat(100_000));
        assert_eq!(table_compare(&marks, "ab"), Greater);
        assert_eq!(table_compare(&marks, "ac"), Less);
    }

    #[test]
    fn typed_marks_equal_precomposed_letters() {
        // Canonically equivalent strings, which the collation does not tell apart: a mark
        // typed after its letter, marks in either order around a precomposed letter (dot below,
        // class 220, before circumflex, 230), a mark that decomposes (U+0344 is a diaeresis and
        // an acute), a Greek letter and its tonos.
        assert_eq!(table_compare("cafe\u{301}/Item", "caf\u{e9}/Item"), Equal);
        assert_eq!(table_compare("\u{e2}\u{323}", "\u{1ead}"), Equal);
        assert_eq!(table_compare("a\u{302}\u{323}", "\u{1ea1}\u{302}"), Equal);
        assert_eq!(table_compare("\u{3b9}\u{344}", "\u{390}"), Equal);
        assert_eq!(table_compare("\u{3b1}\u{301}", "\u{3ac}"), Equal);
        // A contraction's letter with a mark that goes before its own: `أ` (alef, hamza above)
        // and hamza below are `إ` (alef, hamza below) and hamza above.
        assert_eq!(table_compare("\u{623}\u{655}", "\u{625}\u{654}"), Equal);
        // A typed mark is a secondary difference: after `cafe`, before `cafeb`.
        assert_eq!(table_compare("cafe\u{301}", "cafe"), Greater);
        assert_eq!(table_compare("cafe\u{301}", "cafeb"), Less);
    }

    #[test]
    fn greek_and_cyrillic() {
        // ICU4X's root collator gives each of these (tests/collation.rs checks the table).
        // Final sigma is a tertiary variant after capital sigma; it still ties only on case.
        assert_eq!(table_compare("\u{3c2}", "\u{3a3}"), Greater);
        assert_eq!(table_compare("\u{3c3}\u{3c2}", "\u{3c3}\u{3c3}"), Greater);
        // `ґ` has a secondary of its own, below the acute of `ѓ`.
        assert_eq!(table_compare("\u{433}\u{491}", "\u{453}\u{433}"), Less);
        // Greek after Latin, Cyrillic after Greek.
        assert_eq!(table_compare("\u{3b1}", "\u{fe}"), Greater);
        assert_eq!(table_compare("\u{430}", "\u{3c9}"), Greater);
    }

    #[test]
    fn generic_names() {
        // '<' (symbol) sorts before letters, so Map< before MapEntry<.
        assert_eq!(table_compare("~lib/map/Map<i32,i32>", "~lib/map/MapEntry<i32,i32>"), Less);
        // ',' before '>' in the symbol order.
        assert_eq!(table_compare("A<B,C>", "A<B>"), Less);
    }
}
