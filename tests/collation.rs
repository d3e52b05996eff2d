//! The compact class-name tie-break (`qip_memory::heap::collate::table_compare`, what builds
//! without the `icu-collation` feature use) against ICU4X's root collator at tertiary strength,
//! the collation JavaScript's `localeCompare` uses in Node: on random strings over every
//! character the tie-break claims to order exactly (ASCII TAB, LF and the printable range,
//! U+00B7 and the Latin-1 and Latin Extended-A letters), with extra weight on `l` and `·` (a
//! contraction) and on strings that differ in one character. With the feature (the CLI),
//! `locale_compare` is ICU4X's collator itself: `cli_breaks_ties_with_icu_beyond_the_tables`.

use std::cmp::Ordering;

use icu_collator::options::{CollatorOptions, Strength};
use icu_collator::{Collator, CollatorPreferences};
use qip_memory::heap::collate::table_compare;

#[test]
fn table_compare_equals_icu_root_collation() {
    let mut options = CollatorOptions::default();
    options.strength = Some(Strength::Tertiary);
    let icu = Collator::try_new(CollatorPreferences::default(), options).unwrap();
    let mut alphabet: Vec<char> =
        (' '..='~').chain(['\t', '\n', '\u{b7}', '\u{b7}', 'l', 'L', 'l', 'L']).collect();
    alphabet.extend(('\u{c0}'..='\u{17f}').filter(|c| c.is_alphabetic()));
    // Greek and Cyrillic (the generated table), with weight on the letters that share a
    // primary with others (case and variant forms, `ґ` after `г`).
    alphabet.extend(generated_table().1);
    // Hangul syllables (composed from the table's jamo) and CJK ideographs of the main block
    // (by code point, after every letter), a sample of each.
    alphabet.extend(('\u{ac00}'..='\u{d7a3}').step_by(37));
    alphabet.extend(('\u{4e00}'..='\u{9fff}').step_by(97));
    alphabet.extend(['\u{3c3}', '\u{3c2}', '\u{3a3}', '\u{3f2}', '\u{433}', '\u{491}', '\u{413}', '\u{453}']);
    // Combining marks typed on their own, after any character.
    alphabet.extend(typed_marks());
    let mismatches = random_pairs(&icu, &alphabet, 200_000);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // The example, in Node's order.
    let mut names = ["x/Zebra", "x/\u{c4}rger", "x/\u{e4}pfel", "x/Apfel", "x/apfel"];
    names.sort_by(|a, b| icu.compare(a, b));
    assert_eq!(names, ["x/apfel", "x/Apfel", "x/\u{e4}pfel", "x/\u{c4}rger", "x/Zebra"]);
}

/// Up to 20 pairs of random strings over `alphabet` (one to six characters, half of them
/// differing in one character) that `table_compare` and ICU order differently, of `pairs`.
/// `COLLATION_PAIRS=N` draws N pairs instead (a longer run outside CI) and `COLLATION_SEED=S`
/// starts the sequence elsewhere.
fn random_pairs(icu: &icu_collator::CollatorBorrowed<'_>, alphabet: &[char], pairs: usize) -> Vec<String> {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let pairs = env("COLLATION_PAIRS").map_or(pairs, |n| n as usize);
    // xorshift64: a fixed sequence, so a failure repeats.
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ env("COLLATION_SEED").unwrap_or(0);
    let mut random = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut mismatches = Vec::new();
    for _ in 0..pairs {
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
        let (ours, theirs) = (table_compare(&a, &b), icu.compare(&a, &b));
        if ours != theirs && mismatches.len() < 20 {
            mismatches.push(format!("{a:?} vs {b:?}: ours {ours:?}, ICU {theirs:?}"));
        }
    }
    mismatches
}

/// Pairs that a structured search found ordered differently once (curly quotes against marks
/// after letters of either table, ignorable format characters, a C1 control), each against
/// ICU.
#[test]
fn structured_cases_equal_icu() {
    let icu = collator(Strength::Tertiary);
    let pairs = [
        ("a\u{2018}", "a\u{301}'"),
        ("\u{2018}", "\u{332}'"),
        ("a\u{2019}", "a\u{301}'"),
        ("a\u{201c}", "a\u{301}\""),
        ("A\u{301}\u{2018}", "a\u{2018}"),
        ("\u{3b1}\u{300}'", "\u{3b1}\u{2018}"),
        ("\u{433}\u{300}'", "\u{433}\u{2019}"),
        ("\u{ac00}\u{300}'", "\u{ac00}\u{2018}"),
        ("\u{3ac}\u{2018}", "\u{3b1}\u{2018}"),
        ("a\u{ad}b", "ab"),
        ("a\u{200b}b", "ab"),
        ("a\u{200d}b", "ab"),
        ("a\u{200e}b", "ab"),
        ("a\u{2060}b", "ab"),
        ("a\u{85}b", "ab"),
        ("\u{491}a\u{301}", "\u{433}\u{301}a"),
        ("d\u{111}", "d\u{300}d"),
    ];
    for (a, b) in pairs {
        for (x, y) in [(a, b), (b, a)] {
            assert_eq!(table_compare(x, y), icu.compare(x, y), "{x:?} vs {y:?}");
        }
    }
}

/// Canonically equivalent strings compare as their originals: the first string of each random
/// pair decomposed (Unicode's NFD), the second composed (NFC), against ICU on the originals.
#[test]
fn canonical_equivalents_compare_alike() {
    let icu = collator(Strength::Tertiary);
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd();
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    let mut alphabet: Vec<char> = ('\u{c0}'..='\u{17f}').filter(|c| c.is_alphabetic()).collect();
    alphabet.extend(generated_table().1);
    alphabet.extend(typed_marks());
    alphabet.extend('a'..='z');
    let (mut state, mut mismatches) = (0x2545_f491_4f6c_dd1du64, Vec::new());
    let mut random = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..100_000 {
        let mut string =
            || -> String { (0..1 + random(5)).map(|_| alphabet[random(alphabet.len())]).collect() };
        let (a, b) = (string(), string());
        let (da, cb) = (nfd.normalize(&a).into_owned(), nfc.normalize(&b).into_owned());
        let (ours, theirs) = (table_compare(&da, &cb), icu.compare(&a, &b));
        if ours != theirs && mismatches.len() < 20 {
            mismatches.push(format!("{a:?} ({da:?}) vs {b:?} ({cb:?}): ours {ours:?}, ICU {theirs:?}"));
        }
        if table_compare(&da, &a) != Ordering::Equal && mismatches.len() < 20 {
            mismatches.push(format!("{a:?} and its NFD {da:?} differ"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Thai and Lao, whose vowels written before a consonant sort after it (`collate.rs`'s
/// contraction rule), and the Brahmic vowel signs and viramas, on strings of those scripts
/// alone, where a prevowel meets a consonant often.
#[test]
fn thai_lao_and_brahmic_signs_equal_icu() {
    let icu = collator(Strength::Tertiary);
    // The letters, and the marks typed on their own (tone marks, nuktas, candrabindus).
    let mut letters = generated_table().1;
    letters.extend(typed_marks());
    let within = |c: &char, a: u32, b: u32| (a..=b).contains(&(*c as u32));
    let thai_lao: Vec<char> =
        letters.iter().filter(|c| within(c, 0xe01, 0xe4e) || within(c, 0xe81, 0xece)).copied().collect();
    let mut alphabet = thai_lao.clone();
    // Prevowels twice as often, and a Latin letter.
    alphabet.extend(thai_lao.iter().filter(|c| matches!(**c, '\u{e40}'..='\u{e44}' | '\u{ec0}'..='\u{ec4}')));
    alphabet.extend(thai_lao.iter().filter(|c| matches!(**c, '\u{e40}'..='\u{e44}' | '\u{ec0}'..='\u{ec4}')));
    alphabet.push('a');
    let mismatches = random_pairs(&icu, &alphabet, 200_000);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // The Brahmic letters, vowel signs and viramas, Devanagari to Sinhala.
    let brahmic: Vec<char> = letters.iter().filter(|c| within(c, 0x900, 0xdff)).copied().collect();
    assert!(brahmic.contains(&'\u{94d}') && brahmic.contains(&'\u{93e}'), "the table has the signs");
    assert!(brahmic.contains(&'\u{93c}') && thai_lao.contains(&'\u{e48}'), "a nukta and a tone mark");
    let mismatches = random_pairs(&icu, &brahmic, 200_000);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// The Spacing Modifier Letters (U+02B0–U+02FF): variants of a letter (`ʰ` after `H`, `ʱ`
/// after `ɦ`), letters of their own (`ʻ`), symbols (`ˆ`), on strings of them and the letters
/// and symbols they sort among.
#[test]
fn modifier_letters_equal_icu() {
    let icu = collator(Strength::Tertiary);
    let claimed = generated_table().1;
    let mut alphabet: Vec<char> =
        claimed.iter().copied().filter(|c| ('\u{2b0}'..='\u{2ff}').contains(c)).collect();
    assert!(alphabet.contains(&'\u{2b0}') && alphabet.contains(&'\u{2c6}'), "`ʰ` and `ˆ` are in the table");
    alphabet.extend("hHjJrRwWyYlLsSxXaA0^'\u{266}\u{279}\u{27b}\u{281}\u{263}\u{295}\u{140}\u{b7}".chars());
    let mismatches = random_pairs(&icu, &alphabet, 200_000);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// The scripts beyond Latin whose letters `src/heap/collate_table.rs` orders: Greek and Coptic,
/// Greek Extended, Cyrillic and Cyrillic Supplement, Armenian, the Hebrew letters, the Arabic
/// letters, Georgian, Glagolitic, Coptic, Hiragana and Katakana, the Devanagari vowels,
/// consonants and vowel signs, the Thai consonants and vowels, the Hangul jamo (of which
/// `collate.rs` composes the syllables), then those below. The Syriac letters from U+072D on
/// are left out: their own secondaries do not fit the model.
const SCRIPTS: [(u32, u32); 41] = [
    (0x370, 0x3ff),
    (0x1f00, 0x1fff),
    (0x400, 0x52f),
    (0x530, 0x58f),
    (0x5d0, 0x5ea),
    (0x620, 0x64a),
    (0x10a0, 0x10ff),
    (0x2c00, 0x2c5f),
    (0x2c80, 0x2cff),
    (0x3041, 0x30ff),
    (0x904, 0x94f),
    (0xe01, 0xe3a),
    (0xe40, 0xe4e),
    (0x1100, 0x11ff),
    // Syriac, Thaana and N'Ko letters.
    (0x710, 0x72c),
    (0x780, 0x7a5),
    (0x7ca, 0x7ea),
    // The independent vowels, consonants, vowel signs and viramas of Bengali, Gurmukhi,
    // Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam and Sinhala.
    (0x985, 0x9cd),
    (0xa05, 0xa4d),
    (0xa85, 0xacd),
    (0xb05, 0xb4d),
    (0xb85, 0xbcd),
    (0xc05, 0xc4d),
    (0xc85, 0xccd),
    (0xd05, 0xd4d),
    (0xd85, 0xddf),
    // The letters with a nukta and the vocalic letters and signs of Devanagari, Bengali,
    // Gurmukhi and Oriya.
    (0x958, 0x963),
    (0x9dc, 0x9e3),
    (0xa59, 0xa5e),
    (0xb5c, 0xb63),
    // The consonants and vowels of Lao, the consonants of Tibetan, Myanmar and Khmer.
    (0xe81, 0xebd),
    (0xec0, 0xece),
    (0xf40, 0xf6c),
    (0x1000, 0x102a),
    (0x1780, 0x17b3),
    // Ethiopic syllables, Cherokee, Canadian syllabics, Mongolian letters, Tifinagh, Bopomofo.
    (0x1200, 0x135a),
    (0x13a0, 0x13f5),
    (0x1401, 0x166c),
    (0x1820, 0x1878),
    (0x2d30, 0x2d67),
    (0x3105, 0x312f),
];

fn collator(strength: Strength) -> icu_collator::CollatorBorrowed<'static> {
    let mut options = CollatorOptions::default();
    options.strength = Some(strength);
    Collator::try_new(CollatorPreferences::default(), options).unwrap()
}

/// `marks` sorted in root order at secondary strength (each after `a`), with weights `step`
/// apart from `step` on; marks equal at that strength share one.
fn mark_weights(
    marks: &mut [char],
    secondary: &icu_collator::CollatorBorrowed<'_>,
    step: u16,
) -> Vec<(char, u16)> {
    let key = |m: char| format!("a{m}");
    marks.sort_by(|a, b| secondary.compare(&key(*a), &key(*b)));
    let mut weights: Vec<(char, u16)> = Vec::new();
    for (i, &m) in marks.iter().enumerate() {
        let w = match weights.last() {
            Some(&(_, last)) if secondary.compare(&key(marks[i - 1]), &key(m)).is_eq() => last,
            Some(&(_, last)) => last + step,
            None => step,
        };
        weights.push((m, w));
    }
    weights
}

/// Where a secondary falls among weighted marks, by `compare(mark)` (the secondary's string
/// against that mark's): `Ok` with the weight of the first mark it equals, else `Err` with the
/// weight of the first it precedes, `Err(None)` when it follows them all.
fn place_among_marks(
    marks: &[(char, u16)],
    mut compare: impl FnMut(char) -> Ordering,
) -> Result<u16, Option<u16>> {
    for &(m, w) in marks {
        match compare(m) {
            Ordering::Less => return Err(Some(w)),
            Ordering::Equal => return Ok(w),
            Ordering::Greater => {}
        }
    }
    Err(None)
}

/// The distance between the weights of two neighbouring combining marks. Every secondary is
/// on that one scale: besides the marks, the marks `collate.rs` writes for `đ ħ ø`… (ICU's
/// order relative to the marks, in [`PSEUDO_SECONDARIES`] of a gap), the letters' own
/// secondaries (`ґ`, in [`LETTER_SECONDARIES`]) and the symbols' (`‘`, in
/// [`SYMBOL_SECONDARIES`]). Two of different kinds in one gap keep that order, which ICU's
/// comparisons against the marks cannot check.
const MARK_STEP: u16 = 64;
/// Offsets in a gap between marks for the marks `collate.rs` writes itself.
const PSEUDO_SECONDARIES: (u16, u16) = (1, 16);
/// Offsets in a gap for the letters' own secondaries.
const LETTER_SECONDARIES: (u16, u16) = (16, 40);
/// Offsets in a gap for the symbols' own secondaries.
const SYMBOL_SECONDARIES: (u16, u16) = (40, MARK_STEP);

/// The weight of a secondary placed among the marks by `compare` ([`place_among_marks`]): the
/// mark's weight when it equals one, else the first free weight of `offsets` in its gap above
/// `previous` (the last weight given in its run), with the weight it must stay below.
fn in_gap(
    marks: &[(char, u16)],
    offsets: (u16, u16),
    previous: u16,
    compare: impl FnMut(char) -> Ordering,
) -> (u16, u16) {
    match place_among_marks(marks, compare) {
        Ok(v) => (v.max(previous + 1), v + 1),
        Err(Some(v)) => ((v - MARK_STEP + offsets.0).max(previous + 1), v - MARK_STEP + offsets.1),
        Err(None) => {
            let last = marks.last().map_or(0, |m| m.1);
            ((last + offsets.0).max(previous + 1), last + offsets.1)
        }
    }
}

/// `chars` sorted at tertiary strength (then by code point) and grouped by primary.
fn primary_groups(chars: &mut [char]) -> Vec<Vec<char>> {
    let (primary, tertiary) = (collator(Strength::Primary), collator(Strength::Tertiary));
    let s = |c: char| c.to_string();
    chars.sort_by(|a, b| tertiary.compare(&s(*a), &s(*b)).then(a.cmp(b)));
    let mut groups: Vec<Vec<char>> = Vec::new();
    for &c in chars.iter() {
        match groups.last_mut() {
            Some(g) if primary.compare(&s(g[0]), &s(c)).is_eq() => g.push(c),
            _ => groups.push(vec![c]),
        }
    }
    groups
}

/// The characters of `groups` ([`primary_groups`]) that expand to several primaries (`ϗ` is
/// `και`, `…` is `...`): against each group's first character followed by the first or the
/// last group's, a single element compares as its group does.
fn expanding(groups: &[Vec<char>]) -> Vec<char> {
    let primary = collator(Strength::Primary);
    let (low, high) = (groups[0][0], groups[groups.len() - 1][0]);
    let expands = |c: char, own: usize| {
        groups.iter().enumerate().any(|(q, g)| {
            [low, high].iter().any(|&w| {
                let want = if q == own { Ordering::Less } else { own.cmp(&q) };
                primary.compare(&c.to_string(), &format!("{}{w}", g[0])) != want
            })
        })
    };
    let mut out = Vec::new();
    for (p, g) in groups.iter().enumerate() {
        out.extend(g.iter().filter(|&&c| expands(c, p)));
    }
    out
}

/// The letters of [`SCRIPTS`]: every alphabetic character, by code point.
fn script_letters() -> Vec<char> {
    SCRIPTS
        .iter()
        .flat_map(|&(a, b)| a..=b)
        .filter_map(char::from_u32)
        .filter(|c| c.is_alphabetic() || VIRAMAS.contains(c))
        .collect()
}

/// The viramas of the Brahmic scripts of [`SCRIPTS`], which are no alphabetic characters but
/// letters of the root collation (after the vowel signs).
const VIRAMAS: [char; 10] = [
    '\u{94d}', '\u{9cd}', '\u{a4d}', '\u{acd}', '\u{b4d}', '\u{bcd}', '\u{c4d}', '\u{ccd}', '\u{d4d}',
    '\u{dca}',
];

/// `src/heap/collate_table.rs` as ICU4X's root collation gives it: the Latin part
/// ([`latin_table`]), then (see that file for the
/// model): letters and marks from the canonical decompositions, primaries from the order at
/// primary strength, a letter's own secondary placed among the marks' by comparing
/// `base letter` against `base mark base`, tertiaries ranked within each letter's secondary
/// class. Also the letters it orders (those of [`SCRIPTS`] but the ones that expand to
/// several primaries, and those decomposing to them).
fn generated_table() -> (String, Vec<char>) {
    use std::fmt::Write;
    let (primary, secondary, tertiary) =
        (collator(Strength::Primary), collator(Strength::Secondary), collator(Strength::Tertiary));
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd();
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    let s = |c: char| c.to_string();
    // The last letter of Latin, after which every letter of the table sorts.
    let latin_letters = latin_letters();
    let last_latin = latin_letters.iter().max_by_key(|l| l.1).map(|l| l.0).unwrap();
    // Each letter as its base letter and marks.
    let mut decomposed: Vec<(char, Vec<char>)> = Vec::new();
    let mut contractions: Vec<(char, char, char)> = Vec::new();
    let mut bases: Vec<char> = Vec::new();
    let mut marks: Vec<char> = Vec::new();
    for c in script_letters() {
        let mut d: Vec<char> = nfd.normalize(&s(c)).chars().collect();
        // A contraction of the root collation, a letter of its own (`й` is not `и` + breve).
        if !primary.compare(&s(c), &s(d[0])).is_eq() {
            // By its first-level decomposition: Sinhala `ෝ` is `ො` (itself `ෙ` and `ා`) and `්`.
            match d[..] {
                [first, second] => contractions.push((first, second, c)),
                [p, q, r] => {
                    let pq: Vec<char> = nfc.normalize(&format!("{p}{q}")).chars().collect();
                    if let [first] = pq[..] {
                        contractions.push((first, r, c));
                    }
                }
                _ => {}
            }
            d = vec![c];
        }
        // A sign whose decomposition leaves the scripts (U+0374, U+037E, U+0387) is no letter,
        // nor is one the collation ignores (the Arabic tatweel) or sorts before the last
        // letter of Latin.
        if !SCRIPTS.iter().any(|&(a, b)| (a..=b).contains(&(d[0] as u32)))
            || !primary.compare(&s(c), &s(last_latin)).is_gt()
        {
            continue;
        }
        assert!(d[1..].iter().all(|m| !m.is_alphabetic() || *m == '\u{345}'), "{c:?}: {d:?}");
        if !bases.contains(&d[0]) {
            bases.push(d[0]);
        }
        for m in &d[1..] {
            if !marks.contains(m) {
                marks.push(*m);
            }
        }
        if d.len() > 1 || d[0] != c {
            decomposed.push((c, d));
        }
    }
    let mut weighed = typed_marks();
    assert!(marks.iter().all(|m| weighed.contains(m)), "a decomposition's mark is weighed");
    // A letter that the root collation also contracts from its compatibility decomposition,
    // a typed mark and a letter: Thai `ำ` is nikhahit and `า`, Lao `ຳ` likewise.
    let nfkd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfkd();
    for &c in &bases {
        if let [first, second] = nfkd.normalize(&s(c)).chars().collect::<Vec<_>>()[..]
            && weighed.contains(&first)
            && tertiary.compare(&s(c), &format!("{first}{second}")).is_eq()
        {
            contractions.push((first, second, c));
        }
    }
    // The marks that decompose (U+0344 is U+0308 U+0301).
    for m in ('\u{300}'..='\u{36f}').filter(|m| !nfd.normalize(&s(*m)).chars().eq([*m])) {
        decomposed.push((m, nfd.normalize(&s(m)).chars().collect()));
    }
    // One scale for every secondary (see [`MARK_STEP`]).
    let mark_value = mark_weights(&mut weighed, &secondary, MARK_STEP);
    // A letter that expands to several primaries (`ϗ` is `και`) is no single element.
    let expanding = expanding(&primary_groups(&mut bases));
    bases.retain(|c| !expanding.contains(c));
    decomposed.retain(|(_, d)| !expanding.contains(&d[0]));
    // Base letters in tertiary order, grouped by primary.
    let groups = primary_groups(&mut bases);
    // All after the last letter of Latin.
    assert!(groups.iter().all(|g| primary.compare(&s(last_latin), &s(g[0])).is_lt()));
    let mut letters: Vec<(char, u16, u16, u8)> = Vec::new();
    for (p, group) in groups.iter().enumerate() {
        let first = group[0];
        let (mut sec, mut ter) = (0u16, 0u8);
        for (i, &c) in group.iter().enumerate() {
            if i > 0 {
                let prev = group[i - 1];
                if !secondary.compare(&s(prev), &s(c)).is_eq() {
                    // A secondary of its own: where `first c` falls among `first mark first`,
                    // in the gap before the first mark it precedes.
                    let key = format!("{first}{c}");
                    let (v, below) = in_gap(&mark_value, LETTER_SECONDARIES, sec, |m| {
                        secondary.compare(&key, &format!("{first}{m}{first}"))
                    });
                    assert!(v < below, "{c:?}: no room for its secondary among the marks");
                    (sec, ter) = (v, 0);
                } else if !tertiary.compare(&s(prev), &s(c)).is_eq() {
                    ter += 1;
                }
            }
            letters.push((c, p as u16, sec, ter));
        }
    }
    letters.sort();
    decomposed.sort();
    let letters_out: Vec<char> = letters.iter().map(|l| l.0).collect();
    assert!(letters.iter().all(|l| (l.0 as u32) < 0x10000), "the table holds code points of the BMP");
    let mut out = String::from(
        "//! Generated by `REWRITE_TABLES=1 cargo test --test collation` from ICU4X's root collation\n\
         //! (tests/collation.rs); do not edit: Latin letters with marks (`super::elements`), and\n\
         //! the letters of the scripts its `SCRIPTS` lists (`super::beyond_latin`).\n\n",
    );
    let (latin, latin_claimed) = latin_table(&latin_letters, &mark_value);
    out.push_str(&latin);
    out.push_str(
        "/// Combining marks: (code point, secondary weight), one scale with the secondaries of\n\
         /// `LETTERS`, `SYMBOLS` and the marks of `super::elements` (`D_STROKE` …).\n",
    );
    out.push_str("#[rustfmt::skip]\npub(super) const MARKS: &[(u16, u16)] = &[\n");
    let mut marks_sorted = mark_value.clone();
    marks_sorted.sort();
    for (m, v) in marks_sorted {
        writeln!(out, "    (0x{:04X}, {v}),", m as u32).unwrap();
    }
    out.push_str(
        "];\n\n/// Letters without a decomposition: (code point, primary, secondary, tertiary); the\n",
    );
    out.push_str("/// primary counts from the first letter beyond Latin.\n");
    out.push_str("#[rustfmt::skip]\npub(super) const LETTERS: &[(u16, u16, u16, u8)] = &[\n");
    for &(c, p, sec, ter) in &letters {
        writeln!(out, "    (0x{:04X}, {p}, {sec}, {ter}),", c as u32).unwrap();
    }
    out.push_str(
        "];\n\n/// Canonical decompositions (Unicode's `NFD`): (code point, base letter, marks, 0 where\n",
    );
    out.push_str("/// there are fewer than three).\n");
    out.push_str("#[rustfmt::skip]\npub(super) const DECOMPOSED: &[(u16, u16, [u16; 3])] = &[\n");
    for (c, d) in &decomposed {
        assert!(d.len() <= 4, "{c:?}: more than three marks");
        let m = |i: usize| d.get(i).map_or(0, |&m| m as u32);
        writeln!(
            out,
            "    (0x{:04X}, 0x{:04X}, [0x{:04X}, 0x{:04X}, 0x{:04X}]),",
            *c as u32,
            d[0] as u32,
            m(1),
            m(2),
            m(3)
        )
        .unwrap();
    }
    out.push_str("];\n");
    // The contractions whose letter is in the table, by their two characters.
    contractions.retain(|t| letters_out.contains(&t.2));
    contractions.sort();
    out.push_str(
        "\n/// Letters that the root collation contracts from two characters (their canonical\n\
         /// decomposition): (first, second, letter).\n",
    );
    out.push_str("#[rustfmt::skip]\npub(super) const CONTRACTIONS: &[(u16, u16, u16)] = &[\n");
    for (a, b, c) in &contractions {
        writeln!(out, "    (0x{:04X}, 0x{:04X}, 0x{:04X}),", *a as u32, *b as u32, *c as u32).unwrap();
    }
    out.push_str("];\n");
    // Canonical combining classes, for the reordering of marks typed in a non-canonical order.
    let ccc = icu_normalizer::properties::CanonicalCombiningClassMapBorrowed::new();
    out.push_str(
        "\n/// Canonical combining classes (Unicode's `ccc`) other than 0 of the letters and marks\n\
         /// above: (code point, class).\n",
    );
    out.push_str("#[rustfmt::skip]\npub(super) const COMBINING_CLASSES: &[(u16, u8)] = &[\n");
    let mut classified: Vec<char> =
        letters.iter().map(|l| l.0).chain(mark_value.iter().map(|m| m.0)).collect();
    classified.sort();
    classified.dedup();
    for c in classified {
        let class = ccc.get_u8(c);
        if class != 0 {
            writeln!(out, "    (0x{:04X}, {class}),", c as u32).unwrap();
        }
    }
    out.push_str("];\n");
    let claimed =
        letters_out.into_iter().chain(decomposed.iter().map(|d| d.0)).chain(latin_claimed).collect();
    (out, claimed)
}

/// The combining marks that both mark tables weigh, so that a mark typed after a letter of
/// either weighs what it does in a precomposed letter: the marks of the canonical
/// decompositions of the letters of [`LATIN`] and of [`script_letters`], and the combining
/// diacritical marks U+0300–U+036F and the characters of [`SCRIPT_MARKS`] that the root
/// collation weighs at secondary strength alone (not the grapheme joiner, which it ignores).
fn typed_marks() -> Vec<char> {
    let (primary, secondary) = (collator(Strength::Primary), collator(Strength::Secondary));
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd();
    let mut marks: Vec<char> = Vec::new();
    let letters = LATIN.iter().flat_map(|&(a, b)| a..=b).filter_map(char::from_u32).chain(script_letters());
    for c in letters {
        marks.extend(nfd.normalize(&c.to_string()).chars().skip(1));
    }
    marks.extend('\u{300}'..='\u{36f}');
    marks.extend(SCRIPT_MARKS.iter().flat_map(|&(a, b)| a..=b).filter_map(char::from_u32));
    marks.sort();
    marks.dedup();
    // Only what the collation weighs at secondary strength alone: no letter (a two-part vowel
    // sign's second part), nothing ignorable.
    marks.retain(|m| {
        let key = format!("a{m}");
        nfd.normalize(&m.to_string()).chars().eq([*m])
            && primary.compare(&key, "a").is_eq()
            && !secondary.compare(&key, "a").is_eq()
    });
    marks
}

/// The combining marks of the scripts of [`SCRIPTS`] that a name may carry without a
/// precomposed letter, candidates for [`typed_marks`] (which keeps those the root collation
/// weighs at secondary strength alone): the Cyrillic titlo and its kin, the Hebrew points, the
/// Arabic harakat, the Brahmic nuktas, candrabindus and stress signs, the Thai and Lao tone
/// marks, and the whole of those blocks (what has a primary, a letter or a sign, is left to
/// [`SCRIPTS`]).
const SCRIPT_MARKS: [(u32, u32); 7] = [
    (0x483, 0x487),
    (0x591, 0x5c7),
    (0x610, 0x61a),
    (0x64b, 0x65f),
    (0x900, 0xdff),
    (0xe31, 0xe4e),
    (0xeb1, 0xece),
];

/// The Latin blocks whose letters with marks `src/heap/collate_table.rs` decomposes:
/// Latin-1, Latin Extended-A and -B, Latin Extended Additional.
const LATIN: [(u32, u32); 2] = [(0xc0, 0x24f), (0x1e00, 0x1eff)];

/// The marks `collate.rs` writes itself, each carried by a letter it models as a base letter
/// and the mark (and then `tail`): its name, the letter, its base letter, what follows the mark.
/// In `collate.rs`'s order, which holds between the same two combining marks.
const PSEUDO_MARKS: [(&str, char, char, &str); 8] = [
    ("D_STROKE", '\u{111}', 'd', ""),
    ("H_STROKE", '\u{127}', 'h', ""),
    ("O_STROKE", '\u{f8}', 'o', ""),
    ("L_STROKE", '\u{142}', 'l', ""),
    ("MIDDLE_DOT", '\u{140}', 'l', ""),
    ("ETH", '\u{f0}', 'd', ""),
    ("LIGATURE", '\u{e6}', 'a', "e"),
    ("LONG_S", '\u{17f}', 's', ""),
];

/// The letters with a primary of their own that `collate.rs`'s Latin-1 and Extended-A part
/// writes (`ı ŋ ĸ ŧ þ`, and `ʼ` of `ŉ`), with their capitals.
const LATIN_SPECIALS: [char; 9] =
    ['\u{131}', '\u{14b}', '\u{14a}', '\u{138}', '\u{167}', '\u{166}', '\u{fe}', '\u{de}', '\u{2bc}'];

/// The blocks whose letters without a decomposition get a primary of their own among the
/// Latin letters: Latin Extended-B, the IPA Extensions and the Spacing Modifier Letters (those
/// that are a variant of an ASCII letter, `ʰ`, are that letter with a tertiary of
/// [`MODIFIER_TERTIARY`] or more).
const LATIN_OWN: (u32, u32) = (0x180, 0x2ff);

/// The first tertiary of a variant of an ASCII letter (`ʰ`): above `collate.rs`'s `UPPER_COMPAT`.
const MODIFIER_TERTIARY: u8 = 4;

/// The Latin letters in root order at primary strength: `a`–`z`, [`LATIN_SPECIALS`] and the
/// letters of [`LATIN_OWN`] without a decomposition, less those that expand to several
/// primaries (the digraphs `ǳ ʣ ʧ`…, found as in [`generated_table`]) or that share an ASCII
/// letter's primary. Each letter with its primary rank and a tertiary ranked within its
/// primary (`ʒ Ʒ`); ASCII capitals are not listed (`collate.rs` writes case itself).
fn latin_letters() -> Vec<(char, u16, u8)> {
    let (primary, secondary, tertiary) =
        (collator(Strength::Primary), collator(Strength::Secondary), collator(Strength::Tertiary));
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd();
    let s = |c: char| c.to_string();
    let mut letters: Vec<char> = ('a'..='z').chain(LATIN_SPECIALS).collect();
    // Not the modifier letters that sort among the symbols (`ˆ`, `ˈ`: [`symbol_table`]).
    letters.extend((LATIN_OWN.0..=LATIN_OWN.1).filter_map(char::from_u32).filter(|&c| {
        c.is_alphabetic() && nfd.normalize(&s(c)).chars().eq([c]) && primary.compare(&s(c), "0").is_gt()
    }));
    let groups = primary_groups(&mut letters);
    let expanding = expanding(&groups);
    // Those that expand, and in an ASCII letter's group those that are not a variant of it
    // after its capital (`ʰ` is `h` in superscript, after `H`).
    let modifier = |c: char, ascii: char| {
        secondary.compare(&s(c), &s(ascii)).is_eq()
            && tertiary.compare(&s(c), &s(ascii.to_ascii_uppercase())).is_gt()
    };
    let mut dropped = Vec::new();
    for g in &groups {
        let ascii = g[0].is_ascii();
        dropped.extend(
            g.iter().filter(|&&c| !c.is_ascii() && ((ascii && !modifier(c, g[0])) || expanding.contains(&c))),
        );
    }
    assert!(dropped.iter().all(|c| !LATIN_SPECIALS.contains(c)), "a special letter expands: {dropped:?}");
    letters.retain(|c| !dropped.contains(c));
    let mut out = Vec::new();
    for (p, g) in primary_groups(&mut letters).iter().enumerate() {
        let mut ter = 0u8;
        for (i, &c) in g.iter().enumerate() {
            if i > 0 {
                assert!(
                    collator(Strength::Secondary).compare(&s(g[i - 1]), &s(c)).is_eq(),
                    "{c:?}: a secondary of its own among the Latin letters"
                );
                ter += u8::from(!tertiary.compare(&s(g[i - 1]), &s(c)).is_eq());
                // After the ASCII letter's capital and its compatibility form, which
                // `collate.rs` writes itself.
                if g[0].is_ascii() {
                    ter = ter.max(MODIFIER_TERTIARY);
                }
            }
            out.push((c, p as u16, ter));
        }
    }
    out
}

/// The Latin part of `src/heap/collate_table.rs`: the primaries of [`latin_letters`]; every
/// letter of [`LATIN`] that is one of those letters with marks (by canonical decomposition,
/// and equal to that letter at primary strength); the secondary weights of those marks in root
/// order (16 apart) and of the marks of [`PSEUDO_MARKS`] placed among them (comparing `dđ` with
/// `d`, mark, `d`). Also the letters it orders.
fn latin_table(letters: &[(char, u16, u8)], value: &[(char, u16)]) -> (String, Vec<char>) {
    use std::fmt::Write;
    let (primary, secondary) = (collator(Strength::Primary), collator(Strength::Secondary));
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd();
    // Base letters: ASCII, the letters with a primary of their own, and those `collate.rs`
    // writes as a base letter and a mark of their own (`ǿ` is `ø` with an acute).
    let pseudo = |c: char| PSEUDO_MARKS.iter().any(|p| p.1 == c || p.1.to_uppercase().eq([c]));
    let is_base = |c: char| c.is_ascii_alphabetic() || letters.iter().any(|l| l.0 == c) || pseudo(c);
    let mut decomposed: Vec<(char, char, Vec<char>)> = Vec::new();
    let mut marks: Vec<char> = Vec::new();
    for c in LATIN.iter().flat_map(|&(a, b)| a..=b).filter_map(char::from_u32) {
        let d: Vec<char> = nfd.normalize(&c.to_string()).chars().collect();
        if d.len() < 2 || !is_base(d[0]) || !primary.compare(&c.to_string(), &d[0].to_string()).is_eq() {
            continue;
        }
        assert!(d.len() <= 4, "{c:?}: more than three marks");
        for m in &d[1..] {
            if !marks.contains(m) {
                marks.push(*m);
            }
        }
        decomposed.push((c, d[0], d[1..].to_vec()));
    }
    assert!(marks.iter().all(|m| value.iter().any(|v| v.0 == *m)), "a decomposition's mark is weighed");
    // Each pseudo mark: the value of the combining mark it equals, else the gap before the
    // first mark it precedes, in the listed order within a gap.
    let mut pseudo: Vec<(&str, u16)> = Vec::new();
    for &(name, letter, base, tail) in &PSEUDO_MARKS {
        let key = format!("{base}{letter}");
        let (mut v, below) = in_gap(value, PSEUDO_SECONDARIES, 0, |m| {
            secondary.compare(&key, &format!("{base}{base}{m}{tail}"))
        });
        // In the listed order within a gap (which holds between the same two marks).
        while !value.iter().any(|m| m.1 == v) && pseudo.iter().any(|p| p.1 == v) {
            v += 1;
        }
        assert!(v < below, "{letter:?}: no room for its mark among the marks");
        pseudo.push((name, v));
    }
    let mut out = String::from(
        "/// Primary ranks of the ASCII letters `a`…`z` among the Latin letters (`LATIN_LETTERS`).\n",
    );
    let rank = |c: char| letters.iter().find(|l| l.0 == c).map(|l| l.1).unwrap();
    let ascii: Vec<String> = ('a'..='z').map(|c| rank(c).to_string()).collect();
    writeln!(
        out,
        "#[rustfmt::skip]\npub(super) const ASCII_PRIMARIES: [u16; 26] = [{}];\n",
        ascii.join(", ")
    )
    .unwrap();
    out.push_str(
        "/// The other Latin letters with a primary of their own, in root order with the ASCII\n\
         /// letters: (code point, primary rank, tertiary rank within the primary).\n",
    );
    out.push_str("#[rustfmt::skip]\npub(super) const LATIN_LETTERS: &[(u16, u16, u8)] = &[\n");
    let mut own: Vec<_> = letters.iter().filter(|l| !l.0.is_ascii()).collect();
    own.sort();
    for (c, p, t) in &own {
        writeln!(out, "    (0x{:04X}, {p}, {t}),", *c as u32).unwrap();
    }
    out.push_str(
        "];\n\n/// Secondary weights of the marks `super::elements` writes for letters without a\n/// decomposition (`đ`, `ħ`, `ø`, `ł`, `ŀ`, `ð`, `æ œ ß`, `ſ`).\n",
    );
    for (name, v) in &pseudo {
        writeln!(out, "pub(super) const {name}: u16 = {v};").unwrap();
    }
    out.push_str(
        "\n/// Latin letters with marks (Unicode's `NFD`): (code point, base letter, marks, 0 where\n",
    );
    out.push_str("/// there are fewer than three).\n");
    out.push_str("#[rustfmt::skip]\npub(super) const LATIN_DECOMPOSED: &[(u16, u16, [u16; 3])] = &[\n");
    for (c, base, m) in &decomposed {
        let m = |i: usize| m.get(i).map_or(0, |&m| m as u32);
        writeln!(
            out,
            "    (0x{:04X}, 0x{:04X}, [0x{:04X}, 0x{:04X}, 0x{:04X}]),",
            *c as u32,
            *base as u32,
            m(0),
            m(1),
            m(2)
        )
        .unwrap();
    }
    out.push_str("];\n\n");
    let (symbols, symbol_chars) = symbol_table(value);
    out.push_str(&symbols);
    let claimed = own.iter().map(|l| l.0).chain(decomposed.iter().map(|d| d.0)).chain(symbol_chars);
    (out, claimed.collect())
}

/// The blocks whose spaces, punctuation and symbols `src/heap/collate_table.rs` orders: the
/// ASCII ones (TAB to CR, and the printable ones), Latin-1's (with its controls), General
/// Punctuation and the currency signs.
const SYMBOL_BLOCKS: [(char, char); 7] = [
    ('\t', '\r'),
    (' ', '~'),
    ('\u{80}', '\u{bf}'),
    ('\u{d7}', '\u{d7}'),
    ('\u{f7}', '\u{f7}'),
    ('\u{2b0}', '\u{2ff}'),
    ('\u{2000}', '\u{20c0}'),
];

/// The `SYMBOLS` table: every character of [`SYMBOL_BLOCKS`] that is no letter or digit, that
/// the root collation does not ignore and sorts before the digits as one element (not `…`,
/// which is `...`), with its primary rank, a secondary of its own where it has one among the
/// symbols of its primary (`‘` after `'`, placed among the marks' weights `marks`, in the gap
/// before the first mark it precedes, from 4 below it) and a tertiary ranked within its secondary
/// (no-break space after space).
fn symbol_table(marks: &[(char, u16)]) -> (String, Vec<char>) {
    use std::fmt::Write;
    let (primary, secondary, tertiary) =
        (collator(Strength::Primary), collator(Strength::Secondary), collator(Strength::Tertiary));
    let s = |c: char| c.to_string();
    let mut symbols: Vec<char> = SYMBOL_BLOCKS
        .iter()
        .flat_map(|&(a, b)| a..=b)
        .filter(|&c| {
            // Letters and digits sort after `0`, but for modifier letters like `ˆ`.
            (!c.is_alphanumeric() || ('\u{2b0}'..='\u{2ff}').contains(&c))
                && !tertiary.compare(&s(c), "").is_eq()
                && primary.compare(&s(c), "0").is_lt()
        })
        .collect();
    let expanding = expanding(&primary_groups(&mut symbols));
    symbols.retain(|c| !expanding.contains(c));
    let mut rows: Vec<(char, u16, u16, u8)> = Vec::new();
    for (p, g) in primary_groups(&mut symbols).iter().enumerate() {
        let first = g[0];
        let (mut sec, mut ter) = (0u16, 0u8);
        for (i, &c) in g.iter().enumerate() {
            if i > 0 {
                if !secondary.compare(&s(g[i - 1]), &s(c)).is_eq() {
                    let key = format!("{first}{c}");
                    let (v, below) = in_gap(marks, SYMBOL_SECONDARIES, sec, |m| {
                        secondary.compare(&key, &format!("{first}{m}{first}"))
                    });
                    assert!(v < below, "{c:?}: no room for its secondary among the marks");
                    (sec, ter) = (v, 0);
                } else if !tertiary.compare(&s(g[i - 1]), &s(c)).is_eq() {
                    ter += 1;
                }
            }
            rows.push((c, p as u16, sec, ter));
        }
    }
    rows.sort();
    let mut out = String::from(
        "/// Spaces, punctuation and symbols, which sort before the digits: (code point, primary\n\
         /// rank, secondary, tertiary).\n",
    );
    out.push_str("#[rustfmt::skip]\npub(super) const SYMBOLS: &[(u16, u16, u16, u8)] = &[\n");
    for (c, p, sec, ter) in &rows {
        writeln!(out, "    (0x{:04X}, {p}, {sec}, {ter}),", *c as u32).unwrap();
    }
    out.push_str("];\n\n");
    // What the collation ignores altogether: the other controls, the soft hyphen, the
    // zero-width and directional format characters.
    let ignorable: Vec<char> = ('\0'..='\u{9f}')
        .chain(SYMBOL_BLOCKS.iter().flat_map(|&(a, b)| a..=b))
        .filter(|&c| tertiary.compare(&s(c), "").is_eq() && tertiary.compare(&format!("a{c}b"), "ab").is_eq())
        .collect();
    out.push_str("/// Characters the collation ignores (no element at all).\n");
    out.push_str("#[rustfmt::skip]\npub(super) const IGNORABLE: &[u16] = &[\n");
    for c in &ignorable {
        writeln!(out, "    0x{:04X},", *c as u32).unwrap();
    }
    out.push_str("];\n\n");
    (out, rows.iter().map(|r| r.0).chain(ignorable.iter().copied()).collect())
}

#[test]
fn collation_table_is_icu_root_collation() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/heap/collate_table.rs");
    let (table, _) = generated_table();
    if std::env::var_os("REWRITE_TABLES").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == table,
        "src/heap/collate_table.rs is not what ICU4X gives: run `REWRITE_TABLES=1 cargo test --test collation`"
    );
}
