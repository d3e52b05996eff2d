//! pprof's `profile.proto` (github.com/google/pprof, `proto/profile.proto`), gzip'd as pprof
//! stores it on disk, for `go tool pprof` (docs/report.md, "pprof and callgrind").
//!
//! * Sample types, in this order: `instructions/count` (the default, [`SAMPLE_TYPES`]),
//!   `loads/count`, `stores/count`, `bytes_read/bytes`, `bytes_written/bytes`, `calls/count`.
//! * One sample per node of the calling-context tree: its self costs
//!   ([`crate::profile::calltree::Node::self_costs`]) and its stack, leaf first. The values of
//!   each type add up over the samples to the run's counter.
//! * One location per (function, source line): a sample's leaf is its node's function at the
//!   line of its first instruction (line 0 without one); each frame above is the caller at the
//!   line of the call that entered the path below it (its node's
//!   [`crate::profile::calltree::Node::call_site`]; line 0 when unknown).
//! * One function per function of the tree: `name` as [`FunctionNames`] gives it (demangled;
//!   two functions of one name get ` (func[N])`), `system_name` its index as `func[N]` (the
//!   name `qip-memory count --dump-ir` takes), `filename` and `start_line` from the line of
//!   its first instruction when the line table has one.
//! * One mapping, the module (`filename`: [`Profile::name`]); addresses are not used.
//!
//! The messages are written by hand below with `prost`'s derive (no build script, no
//! `protoc`); they declare only the fields this writer sets, under the proto's field numbers.
//!
//! [`FunctionNames`]: crate::profile::names::FunctionNames

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::Profile;
use crate::profile::calltree::Costs;

/// The sample types as `(type, unit)`, in the order of every sample's values; the first is the
/// default.
pub const SAMPLE_TYPES: [(&str, &str); 6] = [
    ("instructions", "count"),
    ("loads", "count"),
    ("stores", "count"),
    ("bytes_read", "bytes"),
    ("bytes_written", "bytes"),
    ("calls", "count"),
];

/// `Profile` (field numbers of `profile.proto`).
#[derive(Clone, PartialEq, prost::Message)]
struct ProfileMessage {
    #[prost(message, repeated, tag = "1")]
    sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    sample: Vec<Sample>,
    #[prost(message, repeated, tag = "3")]
    mapping: Vec<Mapping>,
    #[prost(message, repeated, tag = "4")]
    location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    function: Vec<Function>,
    /// `string_table[0]` is `""`.
    #[prost(string, repeated, tag = "6")]
    string_table: Vec<String>,
    #[prost(message, optional, tag = "11")]
    period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    period: i64,
    /// Indices into the string table.
    #[prost(int64, repeated, tag = "13")]
    comment: Vec<i64>,
    /// Index into the string table of the default sample type's `type`.
    #[prost(int64, tag = "14")]
    default_sample_type: i64,
}

/// `ValueType`: indices into the string table.
#[derive(Clone, PartialEq, prost::Message)]
struct ValueType {
    #[prost(int64, tag = "1")]
    r#type: i64,
    #[prost(int64, tag = "2")]
    unit: i64,
}

/// `Sample`: location ids, leaf first, and one value per sample type.
#[derive(Clone, PartialEq, prost::Message)]
struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    value: Vec<i64>,
}

/// `Mapping`: the module.
#[derive(Clone, PartialEq, prost::Message)]
struct Mapping {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(int64, tag = "5")]
    filename: i64,
    #[prost(bool, tag = "7")]
    has_functions: bool,
    #[prost(bool, tag = "8")]
    has_filenames: bool,
    #[prost(bool, tag = "9")]
    has_line_numbers: bool,
}

/// `Location`: one line of one function.
#[derive(Clone, PartialEq, prost::Message)]
struct Location {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(uint64, tag = "2")]
    mapping_id: u64,
    #[prost(message, repeated, tag = "4")]
    line: Vec<Line>,
}

/// `Line`.
#[derive(Clone, PartialEq, prost::Message)]
struct Line {
    #[prost(uint64, tag = "1")]
    function_id: u64,
    #[prost(int64, tag = "2")]
    line: i64,
}

/// `Function`: names and the file are indices into the string table.
#[derive(Clone, PartialEq, prost::Message)]
struct Function {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(int64, tag = "2")]
    name: i64,
    #[prost(int64, tag = "3")]
    system_name: i64,
    #[prost(int64, tag = "4")]
    filename: i64,
    #[prost(int64, tag = "5")]
    start_line: i64,
}

/// The string table being built: each string once, `""` first.
struct Strings {
    table: Vec<String>,
    index: BTreeMap<String, i64>,
}

impl Strings {
    fn new() -> Strings {
        let mut s = Strings { table: Vec::new(), index: BTreeMap::new() };
        s.get("");
        s
    }

    /// The index of `s`, added if new.
    fn get(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.into());
        self.index.insert(s.into(), i);
        i
    }
}

/// `v` as protobuf's `int64`: unchanged below 2^63, which no run reaches (2^63 instructions
/// take centuries at 10^9 a second, and an instruction reads or writes at most 2^32 bytes).
fn int64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A node's self costs in the order of [`SAMPLE_TYPES`].
fn values(c: &Costs) -> Vec<i64> {
    [c.instructions, c.loads, c.stores, c.bytes_read, c.bytes_written, c.calls]
        .into_iter()
        .map(int64)
        .collect()
}

/// The function id of function index `f` (ids are nonzero).
fn function_id(f: u32) -> u64 {
    u64::from(f) + 1
}

/// The profile as pprof's `profile.proto`, gzip'd (see the module documentation).
pub fn pprof(p: &Profile<'_>) -> Vec<u8> {
    let message = message(p);
    let bytes = prost::Message::encode_to_vec(&message);
    gzip(&bytes)
}

/// The `Profile` message of `p`.
fn message(p: &Profile<'_>) -> ProfileMessage {
    let mut strings = Strings::new();
    let sample_type: Vec<ValueType> = SAMPLE_TYPES
        .iter()
        .map(|(t, u)| ValueType { r#type: strings.get(t), unit: strings.get(u) })
        .collect();
    let has_lines = p.lines.is_some();
    let mapping = Mapping {
        id: 1,
        filename: strings.get(p.name),
        has_functions: true,
        has_filenames: has_lines,
        has_line_numbers: has_lines,
    };
    let names = p.display_names();
    let function: Vec<Function> = names
        .iter()
        .map(|(&f, name)| {
            let first = p.first_line(f);
            let file = first.and_then(|l| p.file(l.file)).unwrap_or("");
            Function {
                id: function_id(f),
                name: strings.get(name),
                system_name: strings.get(&format!("func[{f}]")),
                filename: strings.get(file),
                start_line: first.map_or(0, |l| i64::from(l.line)),
            }
        })
        .collect();
    // Locations by (function, line), ids from 1 in order of first use.
    let mut location: Vec<Location> = Vec::new();
    let mut ids: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut location_of = |f: u32, line: u32| -> u64 {
        *ids.entry((f, line)).or_insert_with(|| {
            let id = location.len() as u64 + 1;
            location.push(Location {
                id,
                mapping_id: 1,
                line: vec![Line { function_id: function_id(f), line: i64::from(line) }],
            });
            id
        })
    };
    let nodes = &p.tree.nodes;
    let sample: Vec<Sample> = nodes
        .iter()
        .map(|n| {
            let leaf = p.first_line(n.function).map_or(0, |l| l.line);
            let mut stack = vec![location_of(n.function, leaf)];
            let mut child = n;
            while let Some(parent) = nodes.get(child.parent as usize) {
                let line = p.line_at(child.call_site).map_or(0, |l| l.line);
                stack.push(location_of(parent.function, line));
                child = parent;
            }
            Sample { location_id: stack, value: values(&n.self_costs) }
        })
        .collect();
    let comment = vec![strings.get(&format!(
        "qip-memory: {} instructions, counted exactly by its interpreter (docs/counting.md)",
        p.instructions
    ))];
    let period_type = Some(sample_type[0].clone());
    let default_sample_type = sample_type[0].r#type;
    ProfileMessage {
        sample_type,
        sample,
        mapping: vec![mapping],
        location,
        function,
        string_table: strings.table,
        period_type,
        period: 1,
        comment,
        default_sample_type,
    }
}

/// `bytes` gzip'd (RFC 1952, no file name, modification time 0: the same input gives the same
/// bytes).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4 + 64),
        flate2::Compression::default(),
    );
    // Writing into a `Vec` does not fail.
    match gz.write_all(bytes).and_then(|()| gz.finish()) {
        Ok(out) => out,
        Err(_) => unreachable!("gzip into memory"),
    }
}
