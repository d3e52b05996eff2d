//! JSON output (docs/heap.md, "JSON"), byte-identical to `JSON.stringify(value, null, 2)` of
//! WARPO's CLI, without the trailing newline (the CLI adds it).
//!
//! Layout: two-space indentation, `"key": value`, one key or element per line, empty arrays as
//! `[]`, integers only. Keys in this order:
//!
//! * `analyze`: `totalHeapSize`, `totalLiveSize`, `constructors` = [{`className`,
//!   `count`, `totalShallowSize`, `totalRetainedSize`, `instances` = [{`address`,
//!   `shallowSize`, `retainedSize`}]}];
//! * `diff`: `beforeTotalHeapSize`, `afterTotalHeapSize`, `totalHeapSizeDelta`,
//!   `beforeTotalLiveSize`, `afterTotalLiveSize`, `totalLiveSizeDelta`, `constructors` =
//!   [{`className`, `newCount`, `deletedCount`, `countDelta`, `allocatedSize`, `freedSize`,
//!   `sizeDelta`, `instances` = [{`address`, `shallowSize`, `retainedSize`, `changeKind`
//!   (`"new"` or `"delete"`)}]}].
//!
//! All sizes are bytes, addresses are linear-memory addresses of payloads.

use alloc::string::String;
use core::fmt::Write;

use super::views::{ChangeKind, Comparison, Snapshot};

/// A JSON value writer with `JSON.stringify`'s two-space layout.
struct Out {
    s: String,
}

impl Out {
    fn indent(&mut self, level: usize) {
        self.s.push('\n');
        for _ in 0..level {
            self.s.push_str("  ");
        }
    }

    fn key(&mut self, level: usize, first: bool, key: &str) {
        if !first {
            self.s.push(',');
        }
        self.indent(level);
        self.s.push('"');
        self.s.push_str(key);
        self.s.push_str("\": ");
    }

    fn int(&mut self, level: usize, first: bool, key: &str, v: impl Into<i128>) {
        self.key(level, first, key);
        let _ = write!(self.s, "{}", v.into());
    }

    fn string(&mut self, level: usize, first: bool, key: &str, v: &str) {
        self.key(level, first, key);
        push_json_string(&mut self.s, v);
    }

    /// Writes `[ items ]` with each item an object written by `item` at `level + 1`.
    fn array<T>(&mut self, level: usize, items: &[T], mut item: impl FnMut(&mut Out, usize, &T)) {
        if items.is_empty() {
            self.s.push_str("[]");
            return;
        }
        self.s.push('[');
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                self.s.push(',');
            }
            self.indent(level + 1);
            self.s.push('{');
            item(self, level + 2, it);
            self.indent(level + 1);
            self.s.push('}');
        }
        self.indent(level);
        self.s.push(']');
    }
}

/// Appends `v` as a JSON string the way `JSON.stringify` writes it: `"` and `\` escaped,
/// `\b \f \n \r \t` for those controls, `\u00XX` (lower-case hex) for the other C0 controls,
/// everything else as is.
pub fn push_json_string(s: &mut String, v: &str) {
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// The `analyze` JSON, no trailing newline.
pub fn snapshot_json(snap: &Snapshot) -> String {
    let instances: usize = snap.constructors.iter().map(|r| r.instances.len()).sum();
    let mut o = Out { s: String::with_capacity(256 + 200 * snap.constructors.len() + 90 * instances) };
    o.s.push('{');
    o.int(1, true, "totalHeapSize", snap.total_heap_size);
    o.int(1, false, "totalLiveSize", snap.total_live_size);
    o.key(1, false, "constructors");
    o.array(1, &snap.constructors, |o, l, r| {
        o.string(l, true, "className", &r.class_name);
        o.int(l, false, "count", r.count);
        o.int(l, false, "totalShallowSize", r.total_shallow_size);
        o.int(l, false, "totalRetainedSize", r.total_retained_size);
        o.key(l, false, "instances");
        o.array(l, &r.instances, |o, l, i| {
            o.int(l, true, "address", i.address);
            o.int(l, false, "shallowSize", i.shallow_size);
            o.int(l, false, "retainedSize", i.retained_size);
        });
    });
    o.indent(0);
    o.s.push('}');
    o.s
}

/// The `diff` JSON, no trailing newline.
pub fn comparison_json(c: &Comparison) -> String {
    let instances: usize = c.constructors.iter().map(|r| r.instances.len()).sum();
    let mut o = Out { s: String::with_capacity(512 + 250 * c.constructors.len() + 120 * instances) };
    o.s.push('{');
    o.int(1, true, "beforeTotalHeapSize", c.before_total_heap_size);
    o.int(1, false, "afterTotalHeapSize", c.after_total_heap_size);
    o.int(1, false, "totalHeapSizeDelta", c.total_heap_size_delta);
    o.int(1, false, "beforeTotalLiveSize", c.before_total_live_size);
    o.int(1, false, "afterTotalLiveSize", c.after_total_live_size);
    o.int(1, false, "totalLiveSizeDelta", c.total_live_size_delta);
    o.key(1, false, "constructors");
    o.array(1, &c.constructors, |o, l, r| {
        o.string(l, true, "className", &r.class_name);
        o.int(l, false, "newCount", r.new_count);
        o.int(l, false, "deletedCount", r.deleted_count);
        o.int(l, false, "countDelta", r.count_delta);
        o.int(l, false, "allocatedSize", r.allocated_size);
        o.int(l, false, "freedSize", r.freed_size);
        o.int(l, false, "sizeDelta", r.size_delta);
        o.key(l, false, "instances");
        o.array(l, &r.instances, |o, l, i| {
            o.int(l, true, "address", i.address);
            o.int(l, false, "shallowSize", i.shallow_size);
            o.int(l, false, "retainedSize", i.retained_size);
            o.key(l, false, "changeKind");
            o.s.push_str(match i.change_kind {
                ChangeKind::New => "\"new\"",
                ChangeKind::Delete => "\"delete\"",
            });
        });
    });
    o.indent(0);
    o.s.push('}');
    o.s
}
