//! The constructor view and the comparison view (docs/heap.md, "The two views"):
//! per-object sizes in, rows grouped by class name out, in WARPO's orders.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::HeapError;
use super::collate::locale_compare;

/// One object of a constructor row (`instances[]` of `analyze`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instance {
    /// Payload pointer (linear-memory address of the payload).
    pub address: u64,
    /// Shallow size in bytes.
    pub shallow_size: u64,
    /// Retained size in bytes.
    pub retained_size: u64,
}

/// One row of the constructor view (`constructors[]` of `analyze`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstructorRow {
    /// Class name.
    pub class_name: String,
    /// Number of live instances.
    pub count: u64,
    /// Σ shallow sizes, in bytes.
    pub total_shallow_size: u64,
    /// Σ retained sizes, in bytes (overlapping: may exceed the live size).
    pub total_retained_size: u64,
    /// Every instance: retained desc, shallow desc, address asc.
    pub instances: Vec<Instance>,
}

/// The result of `analyze`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// `memLen − firstBlock`, in bytes (negative for absurd heap bases).
    pub total_heap_size: i64,
    /// Σ shallow sizes of live objects, in bytes.
    pub total_live_size: u64,
    /// Rows in the requested order (default: by retained size).
    pub constructors: Vec<ConstructorRow>,
}

/// Builds the constructor rows from `(rtId, instance)` pairs of the live objects in ascending
/// address order: groups by class name (`class_name(rtId)`; different rtIds with one
/// name share a row; rows in first-occurrence order before sorting), sorts instances and rows.
pub fn constructor_rows(
    objects: impl IntoIterator<Item = (u32, Instance)>,
    class_name: impl Fn(u32) -> String,
) -> Vec<ConstructorRow> {
    let mut by_rtid: BTreeMap<u32, usize> = BTreeMap::new();
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    let mut rows: Vec<ConstructorRow> = Vec::new();
    let mut last: Option<(u32, usize)> = None;
    for (rtid, inst) in objects {
        let i = match last {
            Some((r, i)) if r == rtid => i,
            _ => *by_rtid.entry(rtid).or_insert_with(|| {
                let name = class_name(rtid);
                *by_name.entry(name.clone()).or_insert_with(|| {
                    rows.push(ConstructorRow {
                        class_name: name,
                        count: 0,
                        total_shallow_size: 0,
                        total_retained_size: 0,
                        instances: Vec::new(),
                    });
                    rows.len() - 1
                })
            }),
        };
        last = Some((rtid, i));
        let r = &mut rows[i];
        r.count += 1;
        r.total_shallow_size += inst.shallow_size;
        r.total_retained_size += inst.retained_size;
        r.instances.push(inst);
    }
    for r in &mut rows {
        r.instances.sort_unstable_by(|a, b| {
            b.retained_size
                .cmp(&a.retained_size)
                .then(b.shallow_size.cmp(&a.shallow_size))
                .then(a.address.cmp(&b.address))
        });
    }
    rows.sort_by(|a, b| {
        b.total_retained_size
            .cmp(&a.total_retained_size)
            .then(b.total_shallow_size.cmp(&a.total_shallow_size))
            .then(b.count.cmp(&a.count))
            .then_with(|| locale_compare(&a.class_name, &b.class_name))
    });
    rows
}

/// `--sort` of `analyze`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConstructorSort {
    /// Retained size, shallow size, count, class name (the default).
    #[default]
    Retained,
    /// Stable re-sort by total shallow size, descending.
    Shallow,
    /// Stable re-sort by count, descending.
    Count,
}

impl ConstructorSort {
    /// Parses `retained`, `shallow` or `count`.
    ///
    /// # Errors
    /// [`HeapError::InvalidConstructorSort`] for anything else.
    pub fn parse(name: &str) -> Result<ConstructorSort, HeapError> {
        match name {
            "retained" => Ok(ConstructorSort::Retained),
            "shallow" => Ok(ConstructorSort::Shallow),
            "count" => Ok(ConstructorSort::Count),
            _ => Err(HeapError::InvalidConstructorSort(name.into())),
        }
    }
}

impl Snapshot {
    /// Applies `--sort` and `--top`: a stable re-sort, then the first `top` rows
    /// (`None` = all); instance lists are never cut.
    pub fn sort_and_truncate(&mut self, sort: ConstructorSort, top: Option<usize>) {
        match sort {
            ConstructorSort::Retained => {}
            ConstructorSort::Shallow => {
                self.constructors.sort_by_key(|r| core::cmp::Reverse(r.total_shallow_size))
            }
            ConstructorSort::Count => self.constructors.sort_by_key(|r| core::cmp::Reverse(r.count)),
        }
        if let Some(n) = top {
            self.constructors.truncate(n);
        }
    }
}

/// Whether an instance of a comparison row appeared or disappeared (`changeKind` of `diff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// In the after snapshot only (`"new"`).
    New,
    /// In the before snapshot only (`"delete"`).
    Delete,
}

/// One changed instance (`instances[]` of `diff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangedInstance {
    /// Payload pointer.
    pub address: u64,
    /// Shallow size in bytes (from the snapshot the instance is in).
    pub shallow_size: u64,
    /// Retained size in bytes (from the snapshot the instance is in).
    pub retained_size: u64,
    /// New or deleted.
    pub change_kind: ChangeKind,
}

/// One row of the comparison view (`constructors[]` of `diff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComparisonRow {
    /// Class name.
    pub class_name: String,
    /// Instances only in after.
    pub new_count: u64,
    /// Instances only in before.
    pub deleted_count: u64,
    /// `new_count − deleted_count`.
    pub count_delta: i64,
    /// Σ shallow of new instances, in bytes.
    pub allocated_size: u64,
    /// Σ shallow of deleted instances, in bytes.
    pub freed_size: u64,
    /// `allocated_size − freed_size`, in bytes.
    pub size_delta: i64,
    /// New before deleted, then shallow desc, retained desc, address asc.
    pub instances: Vec<ChangedInstance>,
}

/// The result of `diff`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Heap size of the before snapshot, in bytes.
    pub before_total_heap_size: i64,
    /// Heap size of the after snapshot, in bytes.
    pub after_total_heap_size: i64,
    /// after − before, in bytes.
    pub total_heap_size_delta: i64,
    /// Live size of the before snapshot, in bytes.
    pub before_total_live_size: u64,
    /// Live size of the after snapshot, in bytes.
    pub after_total_live_size: u64,
    /// after − before, in bytes.
    pub total_live_size_delta: i64,
    /// Rows with at least one changed instance.
    pub constructors: Vec<ComparisonRow>,
}

/// `--sort` of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ComparisonSort {
    /// sizeDelta desc, allocatedSize desc, countDelta desc, className (default).
    #[default]
    Delta,
    /// allocatedSize desc, sizeDelta desc, countDelta desc, className.
    Alloc,
    /// freedSize desc, sizeDelta asc, className.
    Freed,
    /// countDelta desc, sizeDelta desc, className.
    Count,
}

impl ComparisonSort {
    /// Parses `delta`, `alloc`, `freed` or `count`.
    ///
    /// # Errors
    /// [`HeapError::InvalidComparisonSort`] for anything else.
    pub fn parse(name: &str) -> Result<ComparisonSort, HeapError> {
        match name {
            "delta" => Ok(ComparisonSort::Delta),
            "alloc" => Ok(ComparisonSort::Alloc),
            "freed" => Ok(ComparisonSort::Freed),
            "count" => Ok(ComparisonSort::Count),
            _ => Err(HeapError::InvalidComparisonSort(name.into())),
        }
    }

    fn compare(self, a: &ComparisonRow, b: &ComparisonRow) -> Ordering {
        let name = || locale_compare(&a.class_name, &b.class_name);
        match self {
            ComparisonSort::Delta => b
                .size_delta
                .cmp(&a.size_delta)
                .then(b.allocated_size.cmp(&a.allocated_size))
                .then(b.count_delta.cmp(&a.count_delta))
                .then_with(name),
            ComparisonSort::Alloc => b
                .allocated_size
                .cmp(&a.allocated_size)
                .then(b.size_delta.cmp(&a.size_delta))
                .then(b.count_delta.cmp(&a.count_delta))
                .then_with(name),
            ComparisonSort::Freed => {
                b.freed_size.cmp(&a.freed_size).then(a.size_delta.cmp(&b.size_delta)).then_with(name)
            }
            ComparisonSort::Count => {
                b.count_delta.cmp(&a.count_delta).then(b.size_delta.cmp(&a.size_delta)).then_with(name)
            }
        }
    }
}

impl Comparison {
    /// Applies `--sort` (stable, full comparator) and `--top` (`None` = all rows).
    pub fn sort_and_truncate(&mut self, sort: ComparisonSort, top: Option<usize>) {
        self.constructors.sort_by(|a, b| sort.compare(a, b));
        if let Some(n) = top {
            self.constructors.truncate(n);
        }
    }
}

fn sorted_addresses(instances: &[Instance]) -> Vec<u64> {
    let mut v: Vec<u64> = instances.iter().map(|i| i.address).collect();
    v.sort_unstable();
    v
}

/// Compares two snapshots on their constructor rows; rows in the default order.
pub fn compare(before: &Snapshot, after: &Snapshot) -> Comparison {
    let after_rows: BTreeMap<&str, &ConstructorRow> =
        after.constructors.iter().map(|r| (r.class_name.as_str(), r)).collect();
    let before_rows: BTreeMap<&str, &ConstructorRow> =
        before.constructors.iter().map(|r| (r.class_name.as_str(), r)).collect();
    let names = before.constructors.iter().map(|r| r.class_name.as_str()).chain(
        after.constructors.iter().map(|r| r.class_name.as_str()).filter(|n| !before_rows.contains_key(n)),
    );
    let empty: &[Instance] = &[];
    let mut rows = Vec::new();
    for name in names {
        let b = before_rows.get(name).map_or(empty, |r| &r.instances[..]);
        let a = after_rows.get(name).map_or(empty, |r| &r.instances[..]);
        let (b_addr, a_addr) = (sorted_addresses(b), sorted_addresses(a));
        let change = |i: &Instance, change_kind| ChangedInstance {
            address: i.address,
            shallow_size: i.shallow_size,
            retained_size: i.retained_size,
            change_kind,
        };
        let mut instances: Vec<ChangedInstance> = a
            .iter()
            .filter(|i| b_addr.binary_search(&i.address).is_err())
            .map(|i| change(i, ChangeKind::New))
            .collect();
        let new_count = instances.len() as u64;
        instances.extend(
            b.iter()
                .filter(|i| a_addr.binary_search(&i.address).is_err())
                .map(|i| change(i, ChangeKind::Delete)),
        );
        if instances.is_empty() {
            continue;
        }
        let deleted_count = instances.len() as u64 - new_count;
        let allocated_size: u64 = instances[..new_count as usize].iter().map(|i| i.shallow_size).sum();
        let freed_size: u64 = instances[new_count as usize..].iter().map(|i| i.shallow_size).sum();
        instances.sort_by(|x, y| {
            let rank = |c: &ChangedInstance| c.change_kind == ChangeKind::Delete;
            rank(x)
                .cmp(&rank(y))
                .then(y.shallow_size.cmp(&x.shallow_size))
                .then(y.retained_size.cmp(&x.retained_size))
                .then(x.address.cmp(&y.address))
        });
        rows.push(ComparisonRow {
            class_name: name.into(),
            new_count,
            deleted_count,
            count_delta: new_count as i64 - deleted_count as i64,
            allocated_size,
            freed_size,
            size_delta: allocated_size as i64 - freed_size as i64,
            instances,
        });
    }
    let mut c = Comparison {
        before_total_heap_size: before.total_heap_size,
        after_total_heap_size: after.total_heap_size,
        total_heap_size_delta: after.total_heap_size - before.total_heap_size,
        before_total_live_size: before.total_live_size,
        after_total_live_size: after.total_live_size,
        total_live_size_delta: after.total_live_size as i64 - before.total_live_size as i64,
        constructors: rows,
    };
    c.sort_and_truncate(ComparisonSort::Delta, None);
    c
}
