//! Callgrind's text format (valgrind's "Callgrind Format Specification", format version 1),
//! for `callgrind_annotate` and KCachegrind (docs/report.md, "pprof and callgrind").
//!
//! * Header: `# callgrind format`, `version: 1`, `creator:`, `cmd:` ([`Profile::name`]),
//!   `positions: line`, one `event:` line per event with its long name, then
//!   `events: Ir Loads Stores BytesRead BytesWritten` ([`EVENTS`]: instructions, loads,
//!   stores, bytes read, bytes written) and `summary:`, the sums over all functions; the file
//!   ends with the same sums as `totals:`.
//! * Per function of the calling-context tree, one block: `fl=` (the file of its first
//!   instruction's line, else of its first line, `???` when unknown), `fn=` (its name; two functions of one name get
//!   ` (func[N])`), then its self cost lines `LINE Ir Loads Stores BytesRead BytesWritten` (a
//!   line of another file after `fi=`, back in its own after `fe=`), then its calls.
//! * Self costs per line come from the run's costs per source line; the function's self costs
//!   from the tree are what they add up to. Code without a line (or a function without line
//!   tables) is line 0. Bytes a host function (WASI) moved belong to the host function, as
//!   in the tree, not to the line that called it. Where the tree and the lines disagree (a
//!   path merged into its caller past the tree's limits), the tree's costs win: the lines of
//!   the function are cut from its last line up, or the rest is put on line 0.
//! * Per call site (caller, line of the call, callee): `cfl=`, `cfn=`, `calls=COUNT LINE` (how
//!   often, and the callee's first line or 0), then `LINE Ir …` with the inclusive costs of
//!   those calls (the tree nodes of the callee entered there), as callgrind writes them, so
//!   that a tool's inclusive cost of a function is its self cost plus its calls'. A path is
//!   entered at one call site: the line of the call that entered it first.
//! * Names are compressed (`(N) name` once, `(N)` after); control characters in names and
//!   paths become spaces.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use super::Profile;
use crate::profile::calltree::Costs;
use crate::profile::lines::{LineCosts, SourceLine};

/// The events as `(name, long name)`, in the order of every cost line.
pub const EVENTS: [(&str, &str); 5] = [
    ("Ir", "Instructions (WebAssembly, counted exactly)"),
    ("Loads", "Loads (memory_reads)"),
    ("Stores", "Stores (memory_writes)"),
    ("BytesRead", "Bytes read"),
    ("BytesWritten", "Bytes written"),
];

/// Costs in the order of [`EVENTS`].
type Cost = [u64; 5];

fn of_costs(c: &Costs) -> Cost {
    [c.instructions, c.loads, c.stores, c.bytes_read, c.bytes_written]
}

/// A line's costs without the bytes of host functions called on it.
fn of_line(c: &LineCosts) -> Cost {
    [
        c.instructions,
        c.loads,
        c.stores,
        c.bytes_read - c.host_bytes_read,
        c.bytes_written - c.host_bytes_written,
    ]
}

fn add(a: &mut Cost, b: &Cost) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// A position: a file (an index of the line table's files, or `None` for the function's own
/// file) and a line.
type Pos = (Option<u32>, u32);

/// The position of a source line (line 0 for none).
fn pos(line: Option<SourceLine>) -> Pos {
    line.map_or((None, 0), |l| (Some(l.file), l.line))
}

/// Function `f`'s self cost lines: its line sites' costs, made to add up to `own` (its self
/// costs in the tree) per event: what the lines lack goes to line 0; what they have too much
/// is taken off them from the last line up.
fn reconcile(own: &Cost, mut lines: Vec<(Pos, Cost)>) -> Vec<(Pos, Cost)> {
    let mut rest = [0u64; 5];
    for e in 0..5 {
        let sum: u64 = lines.iter().map(|(_, c)| c[e]).sum();
        if sum <= own[e] {
            rest[e] = own[e] - sum;
            continue;
        }
        let mut excess = sum - own[e];
        for (_, c) in lines.iter_mut().rev() {
            let cut = c[e].min(excess);
            c[e] -= cut;
            excess -= cut;
        }
    }
    let mut out = Vec::with_capacity(lines.len() + 1);
    if rest != [0; 5] {
        out.push(((None, 0), rest));
    }
    out.extend(lines.into_iter().filter(|(_, c)| *c != [0; 5]));
    out
}

/// Calls from one caller at one line to one callee.
#[derive(Default)]
struct Call {
    count: u64,
    inclusive: Cost,
}

/// The file as `callgrind` writes names: control characters become spaces.
fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// Name compression: `(N) name` the first time, `(N)` after.
#[derive(Default)]
struct Compressed {
    ids: BTreeMap<String, usize>,
}

impl Compressed {
    fn name(&mut self, name: &str) -> String {
        if let Some(id) = self.ids.get(name) {
            return format!("({id})");
        }
        let id = self.ids.len() + 1;
        self.ids.insert(name.into(), id);
        format!("({id}) {}", clean(name))
    }
}

/// A cost line: the position's line and the costs, trailing zeros left out (they are zero
/// when missing), at least one.
fn cost_line(out: &mut String, line: u32, c: &Cost) {
    let used = c.iter().rposition(|&v| v != 0).map_or(1, |i| i + 1);
    let _ = write!(out, "{line}");
    for v in &c[..used] {
        let _ = write!(out, " {v}");
    }
    out.push('\n');
}

/// The profile in callgrind's text format (see the module documentation).
pub fn callgrind(p: &Profile<'_>) -> String {
    let names = p.display_names();
    // Per function: its self costs and first line.
    let mut own: BTreeMap<u32, Cost> = names.keys().map(|&f| (f, [0; 5])).collect();
    for n in &p.tree.nodes {
        if let Some(c) = own.get_mut(&n.function) {
            add(c, &of_costs(&n.self_costs));
        }
    }
    // Per function: its line sites.
    let mut sites: BTreeMap<u32, Vec<(Pos, Cost)>> = BTreeMap::new();
    if let Some((_, lines)) = p.lines {
        for (site, c) in lines {
            sites
                .entry(site.function(p.module))
                .or_default()
                .push(((Some(site.line.file), site.line.line), of_line(c)));
        }
    }
    // Per caller: (call position, callee) → calls.
    let mut calls: BTreeMap<u32, BTreeMap<(Pos, u32), Call>> = BTreeMap::new();
    for n in &p.tree.nodes {
        let Some(parent) = p.tree.nodes.get(n.parent as usize) else { continue };
        let at = pos(p.line_at(n.call_site));
        let call = calls.entry(parent.function).or_default().entry((at, n.function)).or_default();
        call.count += n.entries;
        add(&mut call.inclusive, &of_costs(&n.total));
    }
    // Each function's file: its first instruction's, else that of its first line site.
    let homes: BTreeMap<u32, Option<u32>> = names
        .keys()
        .map(|&f| {
            let first = p.first_line(f).map(|l| l.file);
            (f, first.or_else(|| sites.get(&f).and_then(|s| s.first()).and_then(|((file, _), _)| *file)))
        })
        .collect();
    let file_of = |f: u32| homes.get(&f).copied().flatten();
    let path = |file: Option<u32>| -> &str { file.and_then(|i| p.file(i)).unwrap_or("???") };

    let mut out = String::new();
    let mut total = [0u64; 5];
    for c in own.values() {
        add(&mut total, c);
    }
    out.push_str("# callgrind format\nversion: 1\n");
    let _ = writeln!(out, "creator: qip-memory {}", env!("CARGO_PKG_VERSION"));
    if !p.name.is_empty() {
        let _ = writeln!(out, "cmd: {}", clean(p.name));
    }
    let _ = writeln!(out, "desc: Instructions: {} (the run's count, docs/counting.md)", p.instructions);
    out.push_str("positions: line\n");
    for (name, long) in EVENTS {
        let _ = writeln!(out, "event: {name} : {long}");
    }
    let events: Vec<&str> = EVENTS.iter().map(|(n, _)| *n).collect();
    let _ = writeln!(out, "events: {}", events.join(" "));
    out.push_str("summary:");
    for v in total {
        let _ = write!(out, " {v}");
    }
    out.push_str("\n\n");
    if !p.name.is_empty() {
        let _ = writeln!(out, "ob=(1) {}", clean(p.name));
    }

    let (mut files, mut fns) = (Compressed::default(), Compressed::default());
    for (&f, name) in &names {
        let home = file_of(f);
        let _ = writeln!(out, "fl={}", files.name(path(home)));
        let _ = writeln!(out, "fn={}", fns.name(name));
        // The file the cost lines refer to now: `fi=` switches to another, `fe=` back home.
        let mut current = home;
        let mut to = |out: &mut String, files: &mut Compressed, at: Pos| {
            // Line 0 is in the function's own file.
            let file = if at.1 == 0 { home } else { at.0 };
            if file != current {
                let key = if file == home { "fe" } else { "fi" };
                let _ = writeln!(out, "{key}={}", files.name(path(file)));
                current = file;
            }
        };
        for (at, c) in &reconcile(&own[&f], sites.remove(&f).unwrap_or_default()) {
            to(&mut out, &mut files, *at);
            cost_line(&mut out, at.1, c);
        }
        for (&(at, callee), call) in calls.get(&f).into_iter().flatten() {
            to(&mut out, &mut files, at);
            let _ = writeln!(out, "cfl={}", files.name(path(file_of(callee))));
            let _ = writeln!(out, "cfn={}", fns.name(&names[&callee]));
            let target = p.first_line(callee).map_or(0, |l| l.line);
            let _ = writeln!(out, "calls={} {target}", call.count);
            cost_line(&mut out, at.1, &call.inclusive);
        }
        out.push('\n');
    }
    out.push_str("totals:");
    for v in total {
        let _ = write!(out, " {v}");
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn lines_are_made_to_add_up_to_the_function() {
        let at = |l| (Some(0), l);
        // Instructions: the lines have 7 of 10, 3 go to line 0. Loads: the lines have 5 of 2,
        // 3 are cut from the last line up (2 from line 9, 1 from line 5).
        let lines = vec![(at(5), [4, 3, 0, 0, 0]), (at(9), [3, 2, 0, 0, 0])];
        let got = reconcile(&[10, 2, 0, 0, 0], lines);
        assert_eq!(got, [((None, 0), [3, 0, 0, 0, 0]), (at(5), [4, 2, 0, 0, 0]), (at(9), [3, 0, 0, 0, 0])]);
        // Nothing lined: all at line 0; nothing at all: no line.
        assert_eq!(reconcile(&[1, 2, 3, 4, 5], vec![]), [((None, 0), [1, 2, 3, 4, 5])]);
        assert_eq!(reconcile(&[0; 5], vec![(at(3), [0; 5])]), []);
    }

    #[test]
    fn cost_lines_leave_out_trailing_zeros_and_names_are_compressed() {
        let mut s = String::new();
        cost_line(&mut s, 12, &[5, 0, 2, 0, 0]);
        cost_line(&mut s, 0, &[0; 5]);
        assert_eq!(s, "12 5 0 2\n0 0\n");
        let mut c = Compressed::default();
        assert_eq!(
            (c.name("a\nb"), c.name("c"), c.name("a\nb")),
            ("(1) a b".into(), "(2) c".into(), "(1)".into())
        );
    }
}
