//! The className tie-break of `heap-analyzer.md` D.9 and F.6: JavaScript
//! `String.prototype.localeCompare`, i.e. ICU collation with the root locale at tertiary
//! strength (Node's default; `en` orders ASCII the same way).
//!
//! What is implemented: the root collation order of every ASCII character, which covers
//! AssemblyScript internal names:
//!
//! 1. C0 controls other than TAB…CR, and DEL, are ignorable (skipped);
//! 2. primary order: TAB LF VT FF CR SPACE, then punctuation and symbols
//!    `` _ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~ $ ``, then the digits
//!    `0`–`9`, then the letters `a`/`A` … `z`/`Z` (case-insensitive at this level);
//! 3. tertiary order (only when the primary sequences are equal): lower case before upper
//!    case, position by position.
//!
//! Non-ASCII characters are ordered after all ASCII ones by code point (an approximation of
//! ICU for them; upstream names seen so far are ASCII).

use core::cmp::Ordering;

/// Primary weights of the punctuation and symbols, in root collation order.
const SYMBOLS: &[u8] = b"_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// The primary weight of a character, `None` when it is ignorable.
fn primary(c: char) -> Option<u32> {
    let Ok(b) = u8::try_from(c) else {
        return Some(1000 + c as u32);
    };
    match b {
        b'\t'..=b'\r' => Some(u32::from(b - b'\t') + 1),
        b' ' => Some(6),
        b'0'..=b'9' => Some(100 + u32::from(b - b'0')),
        b'a'..=b'z' => Some(200 + u32::from(b - b'a')),
        b'A'..=b'Z' => Some(200 + u32::from(b - b'A')),
        0x80..=0xff => Some(1000 + u32::from(b)),
        _ => SYMBOLS.iter().position(|&s| s == b).map(|p| 10 + p as u32),
    }
}

/// The tertiary weight: 1 for upper-case ASCII letters, 0 otherwise.
fn tertiary(c: char) -> u8 {
    u8::from(c.is_ascii_uppercase())
}

/// Compares two strings like `a.localeCompare(b)` in Node (see the module documentation);
/// `Equal` only for strings that differ in ignorable characters at most.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    let pa = a.chars().filter_map(primary);
    let pb = b.chars().filter_map(primary);
    pa.cmp(pb).then_with(|| {
        let ta = a.chars().filter(|&c| primary(c).is_some()).map(tertiary);
        let tb = b.chars().filter(|&c| primary(c).is_some()).map(tertiary);
        ta.cmp(tb)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    #[test]
    fn symbols_before_digits_before_letters() {
        // D.9: ICU puts `~lib/…` before `tools/…`.
        assert_eq!(locale_compare("~lib/string/String", "tools/x/TreeNode"), Less);
        assert_eq!(locale_compare("9", "a"), Less);
        assert_eq!(locale_compare("_", "-"), Less);
        assert_eq!(locale_compare("~", "$"), Less);
        assert_eq!(locale_compare("$", "0"), Less);
    }

    #[test]
    fn case_is_secondary_to_letters() {
        // Case-insensitive first: "apple" < "Banana" although 'B' < 'a' in bytes.
        assert_eq!(locale_compare("apple", "Banana"), Less);
        // Equal letters: lower case first.
        assert_eq!(locale_compare("a", "A"), Less);
        assert_eq!(locale_compare("Ab", "aB"), Greater);
        assert_eq!(locale_compare("x/Item", "x/Item"), Equal);
        // A prefix sorts first.
        assert_eq!(locale_compare("x/Item", "x/Items"), Less);
        // Primary difference later in the string wins over an earlier case difference.
        assert_eq!(locale_compare("Ax", "ay"), Less);
    }

    #[test]
    fn generic_names() {
        // '<' (symbol) sorts before letters, so Map< before MapEntry<.
        assert_eq!(locale_compare("~lib/map/Map<i32,i32>", "~lib/map/MapEntry<i32,i32>"), Less);
        // ',' before '>' in the symbol order.
        assert_eq!(locale_compare("A<B,C>", "A<B>"), Less);
    }
}
