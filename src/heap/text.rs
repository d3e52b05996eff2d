//! Text for people, shared by the `--format table` views: sizes in bytes with KiB/MiB beside
//! them, aligned columns, and the constructor and comparison views as tables.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::views::{Comparison, Snapshot};

/// Bytes for people: `512 B`, `98,304 B (96.0 KiB)`, `3,145,728 B (3.00 MiB)`.
pub fn size(bytes: u64) -> String {
    let digits = grouped(bytes);
    if bytes < 1024 {
        alloc::format!("{digits} B")
    } else if bytes < 1 << 20 {
        alloc::format!("{digits} B ({:.1} KiB)", bytes as f64 / 1024.0)
    } else {
        alloc::format!("{digits} B ({:.2} MiB)", bytes as f64 / 1048576.0)
    }
}

/// A signed size for people: `+512 B`, `-98,304 B (-96.0 KiB)`, `0 B`.
pub fn signed_size(bytes: i64) -> String {
    let s = size(bytes.unsigned_abs());
    match bytes {
        0 => s,
        b if b > 0 => alloc::format!("+{}", s.replace('(', "(+")),
        _ => alloc::format!("-{}", s.replace('(', "(-")),
    }
}

/// A heap size (memory length less the heap base, negative when a dump's heap base lies past
/// its memory): as [`size`], with a minus sign when negative.
fn heap_size(bytes: i64) -> String {
    if bytes < 0 { signed_size(bytes) } else { size(bytes.unsigned_abs()) }
}

/// `n` with thousands separated by commas: `1,234,567`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Rows as aligned columns, two spaces apart: the first `right` columns (numbers) right-aligned
/// to their widest cell, the others left-aligned, the last cell of a row left as it is (names
/// of any length). Rows may be shorter than the widest one; every line ends with `\n`.
pub fn columns(rows: &[Vec<String>], right: usize) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = alloc::vec![0usize; n];
    for r in rows {
        for (c, cell) in r.iter().enumerate().take(r.len().saturating_sub(1)) {
            widths[c] = widths[c].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c + 1 < r.len() {
                let fill = core::iter::repeat_n(' ', widths[c] - cell.chars().count());
                if c < right {
                    line.extend(fill);
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.extend(fill);
                }
                line.push_str("  ");
            } else {
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A signed count: `+3`, `-1`, `0`.
fn signed(n: i64) -> String {
    if n > 0 {
        alloc::format!("+{}", grouped(n as u64))
    } else if n < 0 {
        alloc::format!("-{}", grouped(n.unsigned_abs()))
    } else {
        "0".into()
    }
}

/// The constructor view for people: the heap and live totals, then one row per class in the
/// view's order (count, shallow and retained size, class name).
pub fn snapshot_table(s: &Snapshot) -> String {
    let heap = heap_size(s.total_heap_size);
    let mut rows = alloc::vec![["count", "shallow", "retained", "class"].map(String::from).to_vec()];
    for r in &s.constructors {
        rows.push(alloc::vec![
            grouped(r.count),
            size(r.total_shallow_size),
            size(r.total_retained_size),
            r.class_name.clone(),
        ]);
    }
    alloc::format!("heap size {heap}, live size {}\n{}", size(s.total_live_size), columns(&rows, 3))
}

/// The comparison view for people: the heap and live totals before and after, then one row
/// per class in the view's order (count change, new and deleted instances, allocated and
/// freed bytes, size change, class name).
pub fn comparison_table(c: &Comparison) -> String {
    let mut rows = alloc::vec![
        ["count Δ", "new", "deleted", "allocated", "freed", "size Δ", "class"].map(String::from).to_vec()
    ];
    for r in &c.constructors {
        rows.push(alloc::vec![
            signed(r.count_delta),
            grouped(r.new_count),
            grouped(r.deleted_count),
            size(r.allocated_size),
            size(r.freed_size),
            signed_size(r.size_delta),
            r.class_name.clone(),
        ]);
    }
    alloc::format!(
        "heap size {} → {} ({}), live size {} → {} ({})\n{}",
        heap_size(c.before_total_heap_size),
        heap_size(c.after_total_heap_size),
        signed_size(c.total_heap_size_delta),
        size(c.before_total_live_size),
        size(c.after_total_live_size),
        signed_size(c.total_live_size_delta),
        columns(&rows, 6)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_columns() {
        assert_eq!(size(1023), "1,023 B");
        assert_eq!(size(98_304), "98,304 B (96.0 KiB)");
        assert_eq!(size(3_145_728), "3,145,728 B (3.00 MiB)");
        assert_eq!(signed_size(-98_304), "-98,304 B (-96.0 KiB)");
        assert_eq!(signed_size(512), "+512 B");
        assert_eq!(signed_size(0), "0 B");
        assert_eq!(heap_size(-4_294_903_324), "-4,294,903,324 B (-4095.94 MiB)");
        assert_eq!(heap_size(65_536), "65,536 B (64.0 KiB)");
        let rows = [
            alloc::vec!["a".to_string(), "bbb".to_string(), "name".to_string()],
            alloc::vec!["cc".to_string(), "d".to_string(), "x".to_string()],
        ];
        assert_eq!(columns(&rows, 2), " a  bbb  name\ncc    d  x\n");
        assert_eq!(columns(&rows, 1), " a  bbb  name\ncc  d    x\n");
    }
}
