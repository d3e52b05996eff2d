//! The class-name tie-break (`qip_memory::heap::collate::locale_compare`) against ICU4X's root
//! collator at tertiary strength, the collation JavaScript's `localeCompare` uses in Node: on
//! random strings over every character the tie-break claims to order exactly (ASCII TAB, LF
//! and the printable range, U+00B7 and the Latin-1 and Latin Extended-A letters), with extra
//! weight on `l` and `·` (a contraction) and on strings that differ in one character.

use icu_collator::options::{CollatorOptions, Strength};
use icu_collator::{Collator, CollatorPreferences};
use qip_memory::heap::collate::locale_compare;

#[test]
fn locale_compare_equals_icu_root_collation() {
    let mut options = CollatorOptions::default();
    options.strength = Some(Strength::Tertiary);
    let icu = Collator::try_new(CollatorPreferences::default(), options).unwrap();
    let mut alphabet: Vec<char> =
        (' '..='~').chain(['\t', '\n', '\u{b7}', '\u{b7}', 'l', 'L', 'l', 'L']).collect();
    alphabet.extend(('\u{c0}'..='\u{17f}').filter(|c| c.is_alphabetic()));
    // xorshift64: a fixed sequence, so a failure repeats.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut mismatches = Vec::new();
    for _ in 0..200_000 {
        let len = 1 + random(6);
        let a: String = (0..len).map(|_| alphabet[random(alphabet.len())]).collect();
        let b: String = if random(2) == 0 {
            let mut chars: Vec<char> = a.chars().collect();
            let i = random(chars.len());
            chars[i] = alphabet[random(alphabet.len())];
            chars.into_iter().collect()
        } else {
            let len = 1 + random(6);
            (0..len).map(|_| alphabet[random(alphabet.len())]).collect()
        };
        let (ours, theirs) = (locale_compare(&a, &b), icu.compare(&a, &b));
        if ours != theirs && mismatches.len() < 20 {
            mismatches.push(format!("{a:?} vs {b:?}: ours {ours:?}, ICU {theirs:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // The example, in Node's order.
    let mut names = ["x/Zebra", "x/\u{c4}rger", "x/\u{e4}pfel", "x/Apfel", "x/apfel"];
    names.sort_by(|a, b| icu.compare(a, b));
    assert_eq!(names, ["x/apfel", "x/Apfel", "x/\u{e4}pfel", "x/\u{c4}rger", "x/Zebra"]);
}
