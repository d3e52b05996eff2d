//! The class a person means by a name (docs/heap.md, "Retainers"): `retainers --class` takes a
//! class by its full internal name (`leak/Session`, `~lib/array/Array<leak/AuditEntry>`) or
//! with module paths left out (`Session`, `Array<AuditEntry>`) when that names one class;
//! several such classes are listed, and a name that matches none gets the classes it most
//! likely meant.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::HeapError;

/// How many suggestions a "did you mean" names before it counts the rest.
const SHOWN: usize = 5;

/// One piece of a class name: a run of name characters (a path such as `~lib/string/String`, a
/// type such as `i32`) or one character between them (`<`, `>`, `,`, `|`, `(`, `)`, `=`…).
#[derive(PartialEq, Eq)]
enum Piece<'a> {
    Path(&'a str),
    Punct(char),
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '~' | '/' | '.' | '#' | '@' | '-')
}

fn pieces(name: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in name.char_indices() {
        match (is_name_char(c), start) {
            (true, None) => start = Some(i),
            (true, Some(_)) => {}
            (false, s) => {
                if let Some(s) = s {
                    out.push(Piece::Path(&name[s..i]));
                }
                start = None;
                out.push(Piece::Punct(c));
            }
        }
    }
    if let Some(s) = start {
        out.push(Piece::Path(&name[s..]));
    }
    out
}

/// Whether `short` is `full` with some module paths left out: the same pieces, each path of
/// `short` equal to the corresponding path of `full` or to one of its tails after a `/`
/// (`Session` and `leak/Session` for `leak/Session`, `Map<String,Player>` for
/// `~lib/map/Map<~lib/string/String,x/Player>`; not `other/Session`).
pub(crate) fn abbreviates(short: &str, full: &str) -> bool {
    let (s, f) = (pieces(short), pieces(full));
    s.len() == f.len()
        && s.iter().zip(&f).all(|(s, f)| match (s, f) {
            (Piece::Path(s), Piece::Path(f)) => {
                f.strip_suffix(s).is_some_and(|head| head.is_empty() || head.ends_with('/'))
            }
            _ => s == f,
        })
}

/// `name` with every module path left out: `Map<String,Player>` for
/// `~lib/map/Map<~lib/string/String,x/Player>`.
pub(crate) fn unqualified(name: &str) -> String {
    pieces(name)
        .into_iter()
        .map(|p| match p {
            Piece::Path(p) => p.rsplit('/').next().unwrap_or(p).to_string(),
            Piece::Punct(c) => c.to_string(),
        })
        .collect()
}

/// Levenshtein distance between `a` and `b`, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The names of `names` that `asked` most likely meant, of the first of these kinds that has
/// any: those it abbreviates but for letter case; those within a few edits of it, compared in
/// full and without module paths (`Sesion` → `leak/Session`, `other/Session` →
/// `leak/Session`), fewest edits first; those whose name without module paths starts with it,
/// if it has three letters or more (`Array` → `~lib/array/Array<i32>`). Ties in name order.
pub(crate) fn suggestions(asked: &str, names: &[&str]) -> Vec<String> {
    let lower = asked.to_lowercase();
    let lower_short = unqualified(&lower);
    // At most one edit in three characters of the shorter name, and at least one.
    let near = |a: &str, b: &str| {
        let d = distance(a, b);
        (d <= (a.chars().count().min(b.chars().count()) / 3).max(1)).then_some(d)
    };
    let mut ranked: Vec<(u8, usize, &str)> = names
        .iter()
        .filter_map(|&name| {
            let full = name.to_lowercase();
            let short = unqualified(&full);
            if abbreviates(&lower, &full) {
                return Some((0, 0, name));
            }
            let edits = [near(&lower, &full), near(&lower_short, &short)].into_iter().flatten().min();
            if let Some(d) = edits {
                return Some((1, d, name));
            }
            (lower_short.chars().count() >= 3 && short.starts_with(&lower_short)).then_some((2, 0, name))
        })
        .collect();
    ranked.sort_unstable();
    let best = ranked.first().map(|r| r.0);
    ranked.into_iter().take_while(|r| Some(r.0) == best).map(|(_, _, name)| name.to_string()).collect()
}

/// The class of `names` (the distinct names of the live classes) that `asked` names: the one
/// named so exactly, else the only one it abbreviates ([`abbreviates`]).
///
/// # Errors
/// [`HeapError::AmbiguousClass`] with every class it abbreviates when there are several;
/// [`HeapError::NoLiveInstance`] with [`suggestions`] when there is none.
pub(crate) fn resolve<'n>(asked: &str, names: &[&'n str]) -> Result<&'n str, HeapError> {
    if let Some(exact) = names.iter().find(|n| **n == asked) {
        return Ok(exact);
    }
    let mut matching: Vec<&'n str> = names.iter().copied().filter(|n| abbreviates(asked, n)).collect();
    match matching.len() {
        1 => Ok(matching[0]),
        0 => Err(HeapError::NoLiveInstance {
            class_name: asked.to_string(),
            suggestions: suggestions(asked, names),
        }),
        _ => {
            matching.sort_unstable();
            Err(HeapError::AmbiguousClass {
                class_name: asked.to_string(),
                candidates: matching.into_iter().map(ToString::to_string).collect(),
            })
        }
    }
}

/// `names` as a list in prose: `a`, `a and b`, `a, b and c` (`and` or `or` as `last`); past
/// `limit` names, the rest are counted (`a, b or 3 more`).
pub(crate) fn prose_list(names: &[String], last: &str, limit: usize) -> String {
    let shown = &names[..names.len().min(limit)];
    let rest = names.len() - shown.len();
    let mut items: Vec<String> = shown.to_vec();
    if rest > 0 {
        items.push(alloc::format!("{rest} more"));
    }
    match items.split_last() {
        None => String::new(),
        Some((only, [])) => only.clone(),
        Some((final_item, init)) => alloc::format!("{} {last} {final_item}", init.join(", ")),
    }
}

/// [`prose_list`] of suggestions, as many as a message shows.
pub(crate) fn did_you_mean(suggestions: &[String]) -> String {
    prose_list(suggestions, "or", SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const NAMES: &[&str] = &[
        "a/Session",
        "b/Session",
        "leak/AuditEntry",
        "x/SessionStore",
        "~lib/array/Array<leak/AuditEntry>",
        "~lib/array/Array<i32>",
        "~lib/map/Map<~lib/string/String,x/Player>",
        "~lib/staticarray/StaticArray<i32>",
        "~lib/string/String",
    ];

    #[test]
    fn abbreviations_leave_out_whole_path_heads() {
        assert!(abbreviates("Session", "leak/Session"));
        assert!(abbreviates("leak/Session", "leak/Session"));
        assert!(!abbreviates("other/Session", "leak/Session"));
        assert!(!abbreviates("ession", "leak/Session"));
        assert!(abbreviates("Array<AuditEntry>", "~lib/array/Array<leak/AuditEntry>"));
        assert!(abbreviates("array/Array<leak/AuditEntry>", "~lib/array/Array<leak/AuditEntry>"));
        assert!(!abbreviates("Array", "~lib/array/Array<leak/AuditEntry>"));
        assert!(abbreviates("Map<String,Player>", "~lib/map/Map<~lib/string/String,x/Player>"));
        assert!(!abbreviates("Map<String, Player>", "~lib/map/Map<~lib/string/String,x/Player>"));
        assert_eq!(unqualified("~lib/map/Map<~lib/string/String,x/Player>"), "Map<String,Player>");
        assert_eq!(unqualified("Class#7"), "Class#7");
    }

    #[test]
    fn exact_then_unique_abbreviation_then_candidates() {
        assert_eq!(resolve("a/Session", NAMES), Ok("a/Session"));
        assert_eq!(resolve("SessionStore", NAMES), Ok("x/SessionStore"));
        assert_eq!(resolve("Array<i32>", NAMES), Ok("~lib/array/Array<i32>"));
        assert_eq!(
            resolve("Session", NAMES),
            Err(HeapError::AmbiguousClass {
                class_name: "Session".into(),
                candidates: vec!["a/Session".into(), "b/Session".into()],
            })
        );
    }

    #[test]
    fn suggestions_by_case_edits_and_prefix() {
        // Case only: the abbreviation it would be.
        assert_eq!(suggestions("sessionstore", NAMES), ["x/SessionStore"]);
        // One edit from Session (7 letters allow two); SessionStore is 5 more.
        assert_eq!(suggestions("Sesion", NAMES), ["a/Session", "b/Session"]);
        // Another module's path: the same class name elsewhere.
        assert_eq!(suggestions("c/Session", NAMES), ["a/Session", "b/Session"]);
        // The start of the name without paths: every Array, not StaticArray.
        assert_eq!(
            suggestions("Array", NAMES),
            ["~lib/array/Array<i32>", "~lib/array/Array<leak/AuditEntry>"]
        );
        assert!(suggestions("Nope", NAMES).is_empty());
        assert!(suggestions("x", NAMES).is_empty());
    }

    #[test]
    fn lists_in_prose() {
        let names: Vec<String> = ["a", "b", "c", "d", "e", "f", "g"].iter().map(|s| s.to_string()).collect();
        assert_eq!(prose_list(&names[..1], "or", 5), "a");
        assert_eq!(prose_list(&names[..2], "and", 5), "a and b");
        assert_eq!(prose_list(&names[..3], "or", 5), "a, b or c");
        assert_eq!(prose_list(&names, "or", 5), "a, b, c, d, e or 2 more");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
