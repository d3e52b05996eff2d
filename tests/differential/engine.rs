//! The machinery of the differential test, shared by tests/differential.rs (seeds expanded
//! into bytes) and the libFuzzer target fuzz/fuzz_targets/differential.rs (the fuzzer's
//! bytes): the wasm-smith configuration, the wasmi workaround, the call arguments, the value
//! and state comparisons, the run of one module against a peer and the verdict with wasmtime
//! as the arbiter ([`judge`]). What is compared and how is described at the top of
//! tests/differential.rs and in docs/differential-testing.md.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use arbitrary::Unstructured;
use qip_memory::profile::pages::PageRecorder;
use qip_memory::wasm::{self as ours, ExecError, ExternalKind, Observer, TrapKind, ValType};

#[path = "peer.rs"]
pub mod peer;
use peer::{Engine, PeerError, PeerInstance, PeerModule, Val};

/// Instruction budget of ours per call (and for the start function); `DIFF_BUDGET` overrides.
/// Of the calls that complete, very few need more than a few thousand instructions; most of
/// the runs that exhaust the budget are endless loops, so a larger budget mostly costs time.
pub const DEFAULT_BUDGET: u64 = 20_000;
/// A peer's fuel per call: far more than any run ours completes within our budget needs.
pub const PEER_FUEL: u64 = 5_000_000;
/// Growth limits applied identically to all engines.
pub const MAX_MEMORY_BYTES: u64 = 8 << 20;
pub const MAX_TABLE_ELEMENTS: u32 = 100_000;
/// Call depth limit of ours and wasmi (both count the entry frame). The value stacks are large
/// enough for almost every generated module that only this limit decides a stack overflow, so
/// that overflow happens at the same point and the states stay comparable. (256 is the
/// reference depth of QIP's interpreter; our store allocates its whole value stack up front,
/// so it stays modest.)
pub const MAX_FRAMES: u32 = 256;
/// Our value stack, in slots.
pub const MAX_VALUE_STACK: u32 = 1 << 17;

// ---------------------------------------------------------------------------------------------
// Deterministic bytes.

/// splitmix64 (Steele, Lea, Flood 2014).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Generation.

pub struct Case {
    pub bytes: Vec<u8>,
    pub canonical_nans: bool,
}

#[allow(clippy::field_reassign_with_default)] // the config has too many fields for a literal
pub fn smith_config(seed: u64) -> wasm_smith::Config {
    let mut c = wasm_smith::Config::default();
    // WebAssembly 2.0, and (below, by seed) the proposals after it that the interpreter runs.
    c.reference_types_enabled = true;
    c.bulk_memory_enabled = true;
    c.multi_value_enabled = true;
    c.saturating_float_to_int_enabled = true;
    c.sign_extension_ops_enabled = true;
    c.simd_enabled = true;
    c.relaxed_simd_enabled = false;
    c.shared_everything_threads_enabled = false;
    c.acquire_release_atomics_enabled = false;
    c.exceptions_enabled = false;
    c.gc_enabled = false;
    c.custom_descriptors_enabled = false;
    c.multibyte_array_access_enabled = false;
    c.memory64_enabled = false;
    c.custom_page_sizes_enabled = false;
    c.wide_arithmetic_enabled = false;
    c.compact_imports_enabled = false;
    c.max_memories = 1;
    c.max_tables = 3;
    // No imports: every module runs stand-alone in both engines.
    c.min_imports = 0;
    c.max_imports = 0;
    c.export_everything = true;
    // Sizes both engines can hold cheaply; growth is limited identically in both.
    c.max_memory32_bytes = 2 << 20;
    c.max_table_elements = 10_000;
    // Variation by seed. wasm-smith draws "one more?" decisions from the bytes, so with
    // unguided random bytes every section would hold about one entry: raise the minima.
    let mut r = SplitMix64(seed ^ 0x00C0_4F16);
    c.canonicalize_nans = !seed.is_multiple_of(4);
    c.disallow_traps = seed.is_multiple_of(3);
    c.min_types = 1 + (r.next() % 4) as usize;
    c.min_funcs = 1 + (r.next() % 6) as usize;
    c.min_globals = (r.next() % 4) as usize;
    c.min_memories = u32::from(!r.next().is_multiple_of(4));
    c.min_tables = u32::from(r.next().is_multiple_of(2));
    if c.min_memories > 0 {
        c.min_data_segments = (r.next() % 3) as usize;
    }
    if c.min_tables > 0 {
        c.min_element_segments = (r.next() % 3) as usize;
    }
    // The proposals the interpreter runs beyond 2.0 that both peers run too, each on half
    // of the seeds (a quarter with both): tail calls and extended constant expressions.
    c.tail_call_enabled = r.next().is_multiple_of(2);
    c.extended_const_enabled = r.next().is_multiple_of(2);
    // Threads for 1 seed in 8: shared memories (a quarter of wasm-smith's memories then) and
    // the atomics, which wasmi does not run; wasmtime judges the modules that use them
    // ([`judge`]).
    c.threads_enabled = r.next().is_multiple_of(8);
    // Exceptions on an eighth of the seeds, chosen by the seed alone so that every other
    // seed builds the module it built before: wasmi does not run them, so wasmtime is those
    // seeds' peer ([`peer_of`]).
    c.exceptions_enabled = seed % 8 == 5;
    c
}

/// The engine seed `seed` is compared with: wasmtime when its modules may use exceptions
/// (wasmi does not run them), else [`default_peer`].
pub fn peer_of(seed: u64) -> Engine {
    if smith_config(seed).exceptions_enabled { Engine::Wasmtime } else { default_peer() }
}

/// The module wasm-smith builds from `data` with the configuration of `seed`
/// ([`smith_config`]), its waits given a timeout of 0 ([`zero_wait_timeouts`]); the seed also
/// chooses the call arguments in [`judge`].
pub fn build(seed: u64, data: &[u8]) -> Result<Case, String> {
    let config = smith_config(seed);
    let (canonical_nans, threads) = (config.canonicalize_nans, config.threads_enabled);
    let mut u = Unstructured::new(data);
    let m = wasm_smith::Module::new(config, &mut u).map_err(|e| format!("wasm-smith: {e}"))?;
    let bytes = if threads { zero_wait_timeouts(&m.to_bytes()) } else { m.to_bytes() };
    Ok(Case { bytes, canonical_nans })
}

/// Whether a module uses the threads proposal: a shared memory, or an instruction with the
/// prefix `0xFE` (an atomic). wasmi does not run those; wasmtime judges them.
pub fn uses_threads(bytes: &[u8]) -> bool {
    use wasmparser::{Parser, Payload, TypeRef};
    Parser::new(0).parse_all(bytes).flatten().any(|p| match p {
        Payload::MemorySection(r) => r.into_iter().flatten().any(|t| t.shared),
        Payload::ImportSection(r) => {
            r.into_imports().flatten().any(|i| matches!(i.ty, TypeRef::Memory(t) if t.shared))
        }
        Payload::CodeSectionEntry(body) => body.get_operators_reader().is_ok_and(|mut r| {
            std::iter::from_fn(|| r.read_with_offset().ok()).any(|(_, at)| bytes[at as usize] == 0xFE)
        }),
        _ => false,
    })
}

// ---------------------------------------------------------------------------------------------
// A workaround for a wasmi 2.0.0 bug.
//
// wasmi 2.0.0 fuses a comparison with zero (`i32.eqz x`, `i32.eq x 0`, `i32.ne x 0`) into a
// following `select` and then picks the wrong operand: `(select (i32.const 7) (local.get 0)
// (i32.eqz (local.get 1)))` returns 7 for locals (5, 3) where 2.0 requires 5. Ours is right.
// wasm-smith emits exactly that pattern around every division when traps are disallowed.
// The copy of the module given to wasmi therefore gets an empty `block end` before every
// `select`, which ends the fusion window and changes nothing else. `DIFF_RAW_WASMI=1` turns
// the workaround off (to see the wasmi bug; reproducer in `wasmi_bugs_ours_is_right` in
// tests/differential.rs).

pub fn leb_u32(mut v: u32, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            break;
        }
        out.push(b | 0x80);
    }
}

/// `bytes` with `block end` (0x02 0x40 0x0b) inserted before every `select` in every body.
pub fn defuse_selects(bytes: &[u8]) -> Vec<u8> {
    use wasmparser::Operator;
    insert_before(
        bytes,
        |op| matches!(op, Operator::Select | Operator::TypedSelect { .. }),
        &[0x02, 0x40, 0x0b],
    )
}

/// `bytes` with `drop i64.const 0` (0x1a 0x42 0x00) inserted before every
/// `memory.atomic.wait32` and `wait64` in every body: each wait's timeout becomes 0 ns. A wait
/// whose value is equal then returns 2 ("timed-out") at once in every engine, where wasmtime,
/// which runs real threads, would otherwise sleep for as long as the generated timeout says,
/// or forever (ours traps for that deadlock: tests/golden.rs checks it by hand).
pub fn zero_wait_timeouts(bytes: &[u8]) -> Vec<u8> {
    use wasmparser::Operator;
    let wait = |op: &Operator| {
        matches!(op, Operator::MemoryAtomicWait32 { .. } | Operator::MemoryAtomicWait64 { .. })
    };
    insert_before(bytes, wait, &[0x1a, 0x42, 0x00])
}

/// `bytes` with `insert` before every operator `pick` chooses, in every body (the code
/// section rebuilt with the new sizes); `bytes` unchanged when they do not parse.
fn insert_before(bytes: &[u8], pick: impl Fn(&wasmparser::Operator) -> bool, insert: &[u8]) -> Vec<u8> {
    use wasmparser::{Parser, Payload};
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut section_end = 0usize; // end of the last section seen (or of the header)
    let mut code: Option<(usize, usize, Vec<Vec<u8>>)> = None; // (start, end, bodies)
    for payload in Parser::new(0).parse_all(bytes) {
        let Ok(payload) = payload else {
            return bytes.to_vec();
        };
        match &payload {
            Payload::Version { range, .. } => section_end = range.end as usize,
            Payload::CodeSectionStart { unchecked_range, .. } => {
                code = Some((section_end, unchecked_range.end as usize, Vec::new()));
                section_end = unchecked_range.end as usize;
            }
            Payload::CodeSectionEntry(body) => {
                let range = body.range();
                let (start, end) = (range.start as usize, range.end as usize);
                let mut inserts = Vec::new();
                let mut reader = match body.get_operators_reader() {
                    Ok(r) => r,
                    Err(_) => return bytes.to_vec(),
                };
                while !reader.eof() {
                    match reader.read_with_offset() {
                        Ok((op, at)) if pick(&op) => inserts.push(at as usize),
                        Ok(_) => {}
                        Err(_) => return bytes.to_vec(),
                    }
                }
                let mut b = Vec::with_capacity(end - start + insert.len() * inserts.len());
                let mut pos = start;
                for at in inserts {
                    b.extend_from_slice(&bytes[pos..at]);
                    b.extend_from_slice(insert);
                    pos = at;
                }
                b.extend_from_slice(&bytes[pos..end]);
                code.as_mut().expect("entries follow the section start").2.push(b);
            }
            _ => {
                if let Some((_, range)) = payload.as_section() {
                    section_end = range.end as usize;
                }
            }
        }
    }
    let Some((start, end, bodies)) = code else {
        return bytes.to_vec();
    };
    let mut content = Vec::new();
    leb_u32(bodies.len() as u32, &mut content);
    for b in &bodies {
        leb_u32(b.len() as u32, &mut content);
        content.extend_from_slice(b);
    }
    out.extend_from_slice(&bytes[..start]);
    out.push(10);
    leb_u32(content.len() as u32, &mut out);
    out.extend_from_slice(&content);
    out.extend_from_slice(&bytes[end..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Arguments.

pub fn arg(rng: &mut SplitMix64, ty: ValType) -> Val {
    let r = rng.next();
    let pick = r % 8;
    let bits = rng.next();
    match ty {
        ValType::I32 => Val::I32(match pick {
            0 => 0,
            1 => 1,
            2 => -1,
            3 => i32::MIN,
            4 => i32::MAX,
            5 => (bits % 256) as i32,
            6 => (bits % 65_536) as i32,
            _ => bits as i32,
        }),
        ValType::I64 => Val::I64(match pick {
            0 => 0,
            1 => 1,
            2 => -1,
            3 => i64::MIN,
            4 => i64::MAX,
            5 => (bits % 256) as i64,
            6 => (bits % 65_536) as i64,
            _ => bits as i64,
        }),
        ValType::F32 => Val::F32(match pick {
            0 => 0,
            1 => 0x8000_0000, // -0.0
            2 => 1.5f32.to_bits(),
            3 => 0x7FC0_0000, // canonical NaN
            4 => f32::INFINITY.to_bits(),
            5 => (-(bits as i16 as f32)).to_bits(),
            6 => ((bits % 1_000_000) as f32 / 7.0).to_bits(),
            _ => bits as u32,
        }),
        ValType::F64 => Val::F64(match pick {
            0 => 0,
            1 => 0x8000_0000_0000_0000,
            2 => 1.5f64.to_bits(),
            3 => 0x7FF8_0000_0000_0000,
            4 => f64::NEG_INFINITY.to_bits(),
            5 => (bits as i32 as f64).to_bits(),
            6 => ((bits % 1_000_000) as f64 / 3.0).to_bits(),
            _ => bits,
        }),
        ValType::V128 => Val::V128(match pick {
            0 => 0,
            1 => u128::MAX,
            _ => (bits as u128) << 64 | rng.next() as u128,
        }),
        ValType::FuncRef | ValType::ExternRef | ValType::ExnRef => {
            unreachable!("functions with reference parameters are not called")
        }
    }
}

/// A numeric argument as our API takes it.
pub fn to_ours(v: &Val) -> ours::Value {
    match *v {
        Val::I32(x) => ours::Value::I32(x),
        Val::I64(x) => ours::Value::I64(x),
        Val::F32(x) => ours::Value::F32(x),
        Val::F64(x) => ours::Value::F64(x),
        Val::V128(x) => ours::Value::V128(x),
        Val::Ref { .. } => unreachable!("functions with reference parameters are not called"),
    }
}

// ---------------------------------------------------------------------------------------------
// Comparison.

#[derive(Default)]
pub struct Stats {
    pub seeds: AtomicU64,
    pub smith_failed: AtomicU64,
    pub ours_limit_rejected: AtomicU64,
    pub both_rejected: AtomicU64,
    pub instantiated: AtomicU64,
    pub inst_limit: AtomicU64,
    pub inst_traps: AtomicU64,
    pub calls_compared: AtomicU64,
    pub calls_returned: AtomicU64,
    pub calls_trapped: AtomicU64,
    pub trap_kind_differs: AtomicU64,
    pub skipped_ref_params: AtomicU64,
    pub inst_cut: AtomicU64,
    pub us_generate: AtomicU64,
    pub us_ours_load: AtomicU64,
    pub us_peer_load: AtomicU64,
    pub us_ours_run: AtomicU64,
    pub us_observed_run: AtomicU64,
    pub us_peer_run: AtomicU64,
    pub us_compare: AtomicU64,
    pub max_compared_run: AtomicU64,
    pub long_runs: AtomicU64,
    pub cut_budget: AtomicU64,
    pub cut_stack: AtomicU64,
    pub cut_fuel: AtomicU64,
    pub states_compared: AtomicU64,
    pub our_instructions: AtomicU64,
    pub observed_calls: AtomicU64,
    pub arbitrations: AtomicU64,
    /// Modules with a shared memory or an atomic, judged by wasmtime.
    pub threads: AtomicU64,
    /// Calls compared in those modules, and those of them that returned in both engines.
    pub threads_calls: AtomicU64,
    pub threads_returned: AtomicU64,
}

/// Runs `f`, adding its wall time in microseconds to `c`.
pub fn timed<T>(c: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    c.fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
    r
}

pub fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Why a module's comparison stopped early (not a failure).
pub enum Cut {
    Budget,
    Stack,
    Fuel,
}

pub fn count_cut(stats: &Stats, cut: &Cut) {
    match cut {
        Cut::Budget => inc(&stats.cut_budget),
        Cut::Stack => inc(&stats.cut_stack),
        Cut::Fuel => inc(&stats.cut_fuel),
    }
}

/// Why the comparison of a module ended with something to report.
pub enum Stop {
    /// Ours and the peer disagree (the message says where).
    Diverged(String),
    /// Ours disagrees with itself: the observed run differs from the plain one.
    ObserverChanged(String),
    /// The peer panicked.
    PeerCrashed(String),
    /// The arbiter could not compare what the first peer compared.
    Undecided(String),
}

/// Whether the peer's trap is ours under another name (only to count differing kinds; not a
/// failure). The peers report an undefined element as a table access out of bounds, and a
/// segment out of bounds as a memory or table access out of bounds.
pub fn same_kind(ours: TrapKind, theirs: Option<TrapKind>) -> bool {
    use TrapKind as K;
    let Some(theirs) = theirs else { return false };
    ours == theirs
        || matches!(
            (ours, theirs),
            (K::UncaughtException { .. }, K::UncaughtException { .. })
                | (K::UndefinedElement, K::TableOutOfBounds)
                | (K::SegmentOutOfBounds, K::MemoryOutOfBounds | K::TableOutOfBounds)
        )
}

pub fn is_nan32(b: u32) -> bool {
    f32::from_bits(b).is_nan()
}
pub fn is_nan64(b: u64) -> bool {
    f64::from_bits(b).is_nan()
}

/// Compares one of our values with the peer's. Without canonical NaNs, a NaN float compares
/// equal to any NaN, and once one was seen (`nan_seen`) integers and `v128` are not compared.
pub fn compare_value(
    a: &Val,
    b: &Val,
    canonical: bool,
    nan_seen: &mut bool,
    peer: Engine,
) -> Result<(), String> {
    let ok = match (a, b) {
        (Val::I32(x), Val::I32(y)) => x == y || (!canonical && *nan_seen),
        (Val::I64(x), Val::I64(y)) => x == y || (!canonical && *nan_seen),
        (Val::F32(x), Val::F32(y)) => {
            if !canonical && (is_nan32(*x) || is_nan32(*y)) {
                *nan_seen = true;
                is_nan32(*x) && is_nan32(*y)
            } else {
                x == y
            }
        }
        (Val::F64(x), Val::F64(y)) => {
            if !canonical && (is_nan64(*x) || is_nan64(*y)) {
                *nan_seen = true;
                is_nan64(*x) && is_nan64(*y)
            } else {
                x == y
            }
        }
        (Val::V128(x), Val::V128(y)) => {
            if !canonical && x != y {
                *nan_seen = true;
            }
            x == y || !canonical
        }
        (Val::Ref { null: x }, Val::Ref { null: y }) => x == y,
        _ => false,
    };
    if ok { Ok(()) } else { Err(format!("ours {a:x} vs {} {b:x}", peer.name())) }
}

/// The page-table observer, plus a tally of the events it was given (to check them against
/// the counters).
#[derive(Default)]
pub struct Observed {
    pages: PageRecorder,
    reads: u64,
    writes: u64,
    calls: u64,
    indirect_calls: u64,
    loop_iterations: u64,
}

impl Observer for Observed {
    fn load(&mut self, addr: u64, len: u32, instructions: u64) {
        self.reads += 1;
        self.pages.load(addr, len, instructions);
    }
    fn store(&mut self, addr: u64, len: u32, instructions: u64) {
        self.writes += 1;
        self.pages.store(addr, len, instructions);
    }
    fn copy(&mut self, dst: u64, src: u64, len: u64, instructions: u64) {
        self.reads += 1;
        self.writes += 1;
        self.pages.copy(dst, src, len, instructions);
    }
    fn fill(&mut self, dst: u64, len: u64, instructions: u64) {
        self.writes += 1;
        self.pages.fill(dst, len, instructions);
    }
    fn call(&mut self, indirect: bool) {
        self.calls += 1;
        self.indirect_calls += u64::from(indirect);
        self.pages.call(indirect);
    }
    fn loop_iteration(&mut self) {
        self.loop_iterations += 1;
        self.pages.loop_iteration();
    }
    fn stack_pointer_write(&mut self, value: u32, instructions: u64) {
        self.pages.stack_pointer_write(value, instructions);
    }
}

/// Checks one call of ours, plain against observed: same outcome, same counters, and the
/// observer's events equal the counters' growth.
pub fn check_observed(
    plain: (&Result<Vec<ours::Value>, ExecError>, &ours::Counters, &ours::Counters),
    observed: (&Result<Vec<ours::Value>, ExecError>, &ours::Counters, &Observed),
) -> Result<(), String> {
    let (r, before, after) = plain;
    let (ro, oafter, events) = observed;
    if r != ro {
        return Err(format!("observed run returns {ro:x?}, plain run {r:x?}"));
    }
    if after != oafter {
        return Err(format!("counters differ: observed {oafter:?}, plain {after:?}"));
    }
    let grew = [
        ("memory_reads", after.memory_reads - before.memory_reads, events.reads),
        ("memory_writes", after.memory_writes - before.memory_writes, events.writes),
        ("calls", after.calls - before.calls, events.calls),
        ("indirect_calls", after.indirect_calls - before.indirect_calls, events.indirect_calls),
        ("loop_iterations", after.loop_iterations - before.loop_iterations, events.loop_iterations),
    ];
    for (name, counted, seen) in grew {
        if counted != seen {
            return Err(format!("{name}: the counter grew by {counted}, the observer saw {seen} events"));
        }
    }
    Ok(())
}

/// One of our instances in its own store.
pub struct Ours {
    store: ours::Store,
    inst: ours::Instance,
}

/// A fresh instance of the module in each engine: ours plain, ours observed, the peer.
pub struct Pair {
    plain: Ours,
    observed: Ours,
    peer: Box<dyn PeerInstance>,
}

/// Why instantiation gave no pair to compare (not a failure).
pub enum NoPair {
    /// Ours refuses for a limit of ours.
    Limit(String),
    /// Both trapped.
    BothTrapped,
    /// Budget, fuel or stack ran out.
    Cut(Cut),
}

pub fn budget() -> u64 {
    static B: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *B.get_or_init(|| env_u64("DIFF_BUDGET").unwrap_or(DEFAULT_BUDGET))
}

pub fn our_limits() -> ours::Limits {
    ours::Limits {
        max_memory_bytes: MAX_MEMORY_BYTES,
        max_table_elements: MAX_TABLE_ELEMENTS,
        max_frames: MAX_FRAMES,
        max_value_stack: MAX_VALUE_STACK,
        ..ours::Limits::default()
    }
}

/// Whether the peer overflows its stack at our frame limit exactly (so that states after an
/// overflow are comparable).
pub fn exact_depth(peer: Engine) -> bool {
    peer == Engine::Wasmi
}

/// Whether a run with these outcomes is not compared for the stack: an overflow in one engine
/// only, or in either when the peer's depth limit is not ours.
pub fn stack_cut(ours: bool, theirs: bool, peer: Engine) -> bool {
    if exact_depth(peer) { ours != theirs } else { ours || theirs }
}

pub fn instantiate_ours(
    module: &Arc<ours::Module>,
) -> (ours::Store, Result<ours::Instance, ours::InstantiateError>) {
    let mut store = ours::Store::new(our_limits());
    store.set_budget(Some(budget()));
    let inst = store.instantiate(module.clone(), &[]);
    (store, inst)
}

/// Instantiates in all three.
pub fn instantiate_pair(
    module: &Arc<ours::Module>,
    peer_module: &dyn PeerModule,
    peer: Engine,
    stats: &Stats,
    verbose: bool,
) -> Result<Result<Pair, NoPair>, Stop> {
    let (store, ours_inst) = timed(&stats.us_ours_run, || instantiate_ours(module));
    let (ostore, observed_inst) = timed(&stats.us_observed_run, || instantiate_ours(module));
    if ours_inst != observed_inst || store.counters() != ostore.counters() {
        return Err(Stop::ObserverChanged(format!(
            "instantiation: plain {ours_inst:?} {:?}, the observed twin {observed_inst:?} {:?}",
            store.counters(),
            ostore.counters()
        )));
    }
    match &ours_inst {
        Err(ours::InstantiateError::Exec(ExecError::BudgetExhausted { .. })) => {
            // The start function runs too long: nothing to compare (and no need to run the peer).
            return Ok(Err(NoPair::Cut(Cut::Budget)));
        }
        Err(ours::InstantiateError::Limit(m)) => return Ok(Err(NoPair::Limit(m.to_string()))),
        _ => {}
    }
    let peer_inst = timed(&stats.us_peer_run, || peer_module.instantiate());
    if let Err(PeerError::Panicked(m)) = &peer_inst {
        return Err(Stop::PeerCrashed(format!("{} panicked instantiating: {m}", peer.name())));
    }
    let our_overflow = matches!(&ours_inst,
        Err(ours::InstantiateError::Exec(ExecError::Trap(t))) if t.kind == TrapKind::StackOverflow);
    let their_overflow = peer_inst.as_ref().err().is_some_and(PeerError::is_stack_overflow);
    if stack_cut(our_overflow, their_overflow, peer) {
        if verbose || exact_depth(peer) {
            println!(
                "note: start function: stack overflow: ours {ours_inst:?}; {} {:?}",
                peer.name(),
                peer_inst.as_ref().err()
            );
        }
        return Ok(Err(NoPair::Cut(Cut::Stack)));
    }
    if let Err(PeerError::OutOfFuel) = peer_inst {
        return Ok(Err(NoPair::Cut(Cut::Fuel)));
    }
    let name = peer.name();
    match (ours_inst, peer_inst) {
        (Ok(inst), Ok(peer)) => Ok(Ok(Pair {
            plain: Ours { store, inst },
            observed: Ours { store: ostore, inst: observed_inst.expect("the twin instantiated") },
            peer,
        })),
        // wasmi reports a segment out of bounds as an instantiation error, not as a trap.
        (
            Err(ours::InstantiateError::Exec(ExecError::Trap(t))),
            Err(w @ (PeerError::Trap { .. } | PeerError::Other(_))),
        ) => {
            if verbose {
                println!("  instantiation traps in both: ours {t}; {name} {w}");
            }
            Ok(Err(NoPair::BothTrapped))
        }
        (Err(e), Ok(_)) => Err(Stop::Diverged(format!("instantiation: ours fails ({e}), {name} succeeds"))),
        (Ok(_), Err(w)) => Err(Stop::Diverged(format!("instantiation: ours succeeds, {name} fails ({w})"))),
        (Err(e), Err(w)) => {
            Err(Stop::Diverged(format!("instantiation: ours fails ({e}), {name} fails ({w})")))
        }
    }
}

/// Compares the engines on one module; `seed` also chooses the call arguments.
///
/// `schedule` receives one entry per call: `true` when the call was not compared (and fresh
/// instances followed). With `replay` (the schedule of an earlier run of the same module with
/// another peer), the calls it covers are cut or compared exactly as there, so that the
/// arbiter judges the same calls on the same instance histories; a call there compared that
/// this peer cannot compare (fuel, a stack overflow in one engine only) makes the module
/// undecided, and after a stack overflow in both (depth limits not equal) every divergence is.
#[allow(clippy::too_many_arguments)] // one call site per mode; a struct would only rename them
pub fn run_module(
    label: &str,
    seed: u64,
    bytes: &[u8],
    canonical: bool,
    peer: Engine,
    replay: Option<&[bool]>,
    schedule: &mut Vec<bool>,
    stats: &Stats,
    verbose: bool,
) -> Result<(), Stop> {
    let name_of_peer = peer.name();
    let threads = uses_threads(bytes);
    // Set once the instances' histories may differ for a reason that is nobody's bug.
    let mut tainted: Option<String> = None;
    let diverged = |tainted: &Option<String>, what: String| match tainted {
        None => Err(Stop::Diverged(format!("{label}: {what}"))),
        Some(why) => Err(Stop::Undecided(format!("{label}: {what} ({why})"))),
    };

    // Load.
    let ours_module = timed(&stats.us_ours_load, || ours::Module::new(bytes, &our_limits()));
    let peer_module = timed(&stats.us_peer_load, || peer.load(bytes));
    if let Err(PeerError::Panicked(m)) = &peer_module {
        return Err(Stop::PeerCrashed(format!("{label}: {name_of_peer} panicked loading the module: {m}")));
    }
    let (module, peer_module) = match (ours_module, peer_module) {
        (Ok(o), Ok(w)) => (Arc::new(o), w),
        (Err(e), _) if e.kind.is_limit() => {
            inc(&stats.ours_limit_rejected);
            println!("{label}: skipped: ours rejects the module for a limit: {e}");
            return Ok(());
        }
        (Err(e), Err(w)) => {
            inc(&stats.both_rejected);
            println!("{label}: note: both engines reject the module (ours: {e}; {name_of_peer}: {w})");
            return Ok(());
        }
        (Err(e), Ok(_)) => {
            return diverged(
                &None,
                format!("validation disagreement: ours rejects ({e}), {name_of_peer} accepts"),
            );
        }
        (Ok(_), Err(w)) => {
            return diverged(
                &None,
                format!("validation disagreement: ours accepts, {name_of_peer} rejects ({w})"),
            );
        }
    };
    let fresh = |stats: &Stats| match instantiate_pair(&module, &*peer_module, peer, stats, verbose) {
        Err(Stop::Diverged(m)) => Err(Stop::Diverged(format!("{label}: {m}"))),
        Err(Stop::ObserverChanged(m)) => Err(Stop::ObserverChanged(format!("{label}: {m}"))),
        Err(Stop::PeerCrashed(m)) => Err(Stop::PeerCrashed(format!("{label}: {m}"))),
        Err(Stop::Undecided(m)) => Err(Stop::Undecided(format!("{label}: {m}"))),
        Ok(r) => Ok(r),
    };

    // Instantiate.
    let mut pair = match fresh(stats)? {
        Ok(p) => p,
        Err(NoPair::Limit(m)) => {
            inc(&stats.inst_limit);
            println!("{label}: skipped: ours refuses to instantiate for a limit: {m}");
            return Ok(());
        }
        Err(NoPair::BothTrapped) => {
            inc(&stats.inst_traps);
            return Ok(());
        }
        Err(NoPair::Cut(c)) => {
            inc(&stats.inst_cut);
            count_cut(stats, &c);
            return Ok(());
        }
    };
    inc(&stats.instantiated);
    stats.our_instructions.fetch_add(pair.plain.store.counters().instructions, Ordering::Relaxed);

    // Call every exported function with numeric/vector parameters, twice. A call that cannot be
    // compared (budget, fuel, stack) may leave the instances in different states: all are then
    // replaced by fresh ones and the calls go on.
    let exports: Vec<ours::Export> = module.exports().to_vec();
    let mut rng = SplitMix64(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xA5A5);
    let mut nan_seen = false;
    for round in 0..2 {
        for e in exports.iter().filter(|e| e.kind == ExternalKind::Func) {
            let Pair { plain, observed, peer: peer_inst } = &mut pair;
            let f = plain.store.get_func(plain.inst, &e.name).expect("exported function");
            let ty = plain.store.func_type(f).clone();
            if ty.params().iter().any(|t| t.is_ref()) {
                if round == 0 {
                    inc(&stats.skipped_ref_params);
                }
                continue;
            }
            let args: Vec<Val> = ty.params().iter().map(|t| arg(&mut rng, *t)).collect();
            let our_args: Vec<ours::Value> = args.iter().map(to_ours).collect();
            let name = &e.name;

            let before = *plain.store.counters();
            plain.store.set_budget(Some(budget()));
            let r = timed(&stats.us_ours_run, || plain.store.call(f, &our_args));
            let after = *plain.store.counters();
            stats.our_instructions.fetch_add(after.instructions - before.instructions, Ordering::Relaxed);

            let of = observed.store.get_func(observed.inst, name).expect("exported function");
            let mut events = Observed::default();
            observed.store.set_budget(Some(budget()));
            let ro =
                timed(&stats.us_observed_run, || observed.store.call_observed(of, &our_args, &mut events));
            inc(&stats.observed_calls);
            if let Err(m) = check_observed((&r, &before, &after), (&ro, observed.store.counters(), &events)) {
                return Err(Stop::ObserverChanged(format!("{label}: function {name:?} args {args:x?}: {m}")));
            }

            let mut cut = None;
            let mut pr = Ok(Vec::new());
            if let Err(ExecError::BudgetExhausted { .. }) = r {
                cut = Some(Cut::Budget);
            } else {
                pr = timed(&stats.us_peer_run, || peer_inst.call(name, &args, ty.results()));
                if let Err(PeerError::Panicked(m)) = &pr {
                    return Err(Stop::PeerCrashed(format!(
                        "{label}: function {name:?} args {args:x?}: {name_of_peer} panicked: {m}"
                    )));
                }
                let our_overflow = matches!(&r, Err(ExecError::Trap(t)) if t.kind == TrapKind::StackOverflow);
                let their_overflow = pr.as_ref().err().is_some_and(PeerError::is_stack_overflow);
                let replayed = replay.and_then(|r| r.get(schedule.len()).copied());
                if replayed == Some(true) {
                    cut = Some(Cut::Budget); // cut as in the replayed run (counted as a budget cut)
                } else if replayed == Some(false) {
                    // Compared in the replayed run: this peer must compare it too.
                    if let Err(PeerError::OutOfFuel) = pr {
                        return Err(Stop::Undecided(format!(
                            "{label}: function {name:?} args {args:x?}: {name_of_peer} runs out of fuel"
                        )));
                    }
                    if our_overflow != their_overflow {
                        return Err(Stop::Undecided(format!(
                            "{label}: function {name:?} args {args:x?}: stack overflow in one engine only: ours {r:x?}; {name_of_peer} {pr:x?}"
                        )));
                    }
                    if our_overflow && !exact_depth(peer) && tainted.is_none() {
                        tainted = Some(format!(
                            "after function {name:?} overflowed the stack in both engines, whose depth limits differ"
                        ));
                    }
                } else if stack_cut(our_overflow, their_overflow, peer) {
                    if exact_depth(peer) {
                        // The value stacks are sized so that only the (equal) frame limits
                        // decide; if this still happens the depth accounting differs (not
                        // necessarily a bug): note it and do not compare.
                        println!(
                            "{label}: note: function {name:?}: stack overflow in one engine only: ours {r:x?}; {name_of_peer} {pr:x?}"
                        );
                    }
                    cut = Some(Cut::Stack);
                } else if let Err(PeerError::OutOfFuel) = pr {
                    cut = Some(Cut::Fuel);
                }
            }
            if verbose {
                println!("  call {name:?}{args:x?} -> ours {r:x?}; {name_of_peer} {pr:x?}");
            }
            schedule.push(cut.is_some());
            if let Some(c) = cut {
                count_cut(stats, &c);
                if verbose {
                    println!("  (not compared; all instances replaced by fresh ones)");
                }
                compare_twins(&exports, &pair).map_err(|m| Stop::ObserverChanged(format!("{label}: {m}")))?;
                pair = match fresh(stats)? {
                    Ok(p) => p,
                    Err(_) => {
                        return diverged(
                            &tainted,
                            "re-instantiation did not succeed as the first one did".into(),
                        );
                    }
                };
                continue;
            }
            inc(&stats.calls_compared);
            if threads {
                inc(&stats.threads_calls);
            }
            let used = after.instructions - before.instructions;
            stats.max_compared_run.fetch_max(used, Ordering::Relaxed);
            if used > budget() / 5 {
                inc(&stats.long_runs);
            }
            match (r, pr) {
                (Ok(vals), Ok(theirs)) => {
                    inc(&stats.calls_returned);
                    if threads {
                        inc(&stats.threads_returned);
                    }
                    for (i, (a, b)) in vals.iter().zip(&theirs).enumerate() {
                        if let Err(m) = compare_value(&Val::from(*a), b, canonical, &mut nan_seen, peer) {
                            return diverged(
                                &tainted,
                                format!("function {name:?} args {args:x?}: result {i} differs: {m}"),
                            );
                        }
                    }
                }
                (Err(ExecError::Trap(t)), Err(PeerError::Trap { kind, message })) => {
                    inc(&stats.calls_trapped);
                    if !same_kind(t.kind, kind) {
                        inc(&stats.trap_kind_differs);
                        println!(
                            "{label}: note: function {name:?}: trap kinds differ: ours {t}; {name_of_peer} {message}"
                        );
                    }
                }
                (Ok(vals), Err(w)) => {
                    return diverged(
                        &tainted,
                        format!(
                            "function {name:?} args {args:x?}: ours returns {vals:x?}, {name_of_peer} fails: {w}"
                        ),
                    );
                }
                (Err(e), Ok(theirs)) => {
                    return diverged(
                        &tainted,
                        format!(
                            "function {name:?} args {args:x?}: ours fails ({e}), {name_of_peer} returns {theirs:x?}"
                        ),
                    );
                }
                (Err(e), Err(w)) => {
                    return diverged(
                        &tainted,
                        format!(
                            "function {name:?} args {args:x?}: ours fails ({e}), {name_of_peer} fails ({w})"
                        ),
                    );
                }
            }
            if (canonical || verbose)
                && let Err(m) = timed(&stats.us_compare, || compare_state(&exports, &mut pair, peer))
            {
                if canonical {
                    return diverged(&tainted, format!("after function {name:?} args {args:x?}: {m}"));
                }
                println!("  (NaNs not canonical) after {name:?}: {m}");
            }
        }
    }
    compare_twins(&exports, &pair).map_err(|m| Stop::ObserverChanged(format!("{label}: at the end: {m}")))?;
    if !canonical {
        return Ok(());
    }
    // Final state (also compared after every call, but a module without calls has only this).
    inc(&stats.states_compared);
    compare_state(&exports, &mut pair, peer).or_else(|m| diverged(&tainted, format!("at the end: {m}")))
}

/// The exported memories' bytes and globals' values of one of our instances, with their names.
pub fn our_state(exports: &[ours::Export], o: &Ours) -> Vec<(String, Result<Vec<u8>, Val>)> {
    let mut out = Vec::new();
    for e in exports {
        match o.store.get_export(o.inst, &e.name) {
            Some(ours::Extern::Memory(m)) => out.push((e.name.clone(), Ok(o.store.memory_data(m).to_vec()))),
            Some(ours::Extern::Global(g)) => {
                out.push((e.name.clone(), Err(Val::from(o.store.global_get(g)))))
            }
            _ => {}
        }
    }
    out
}

/// Plain and observed instance must end in the same state.
pub fn compare_twins(exports: &[ours::Export], pair: &Pair) -> Result<(), String> {
    let (a, b) = (our_state(exports, &pair.plain), our_state(exports, &pair.observed));
    match a.iter().zip(&b).find(|(x, y)| x != y) {
        Some((x, _)) => Err(format!("the observed twin's export {:?} differs from the plain run's", x.0)),
        None => Ok(()),
    }
}

/// Compares the exported memories' bytes and the exported globals' values, ours (plain) and
/// the peer's.
pub fn compare_state(exports: &[ours::Export], pair: &mut Pair, peer: Engine) -> Result<(), String> {
    let Pair { plain, peer: theirs, .. } = pair;
    let name = peer.name();
    for e in exports {
        match e.kind {
            ExternalKind::Memory => {
                let Some(ours::Extern::Memory(m)) = plain.store.get_export(plain.inst, &e.name) else {
                    return Err(format!("export {:?} is not a memory in ours", e.name));
                };
                let a = plain.store.memory_data(m);
                let Some(b) = theirs.memory(&e.name) else {
                    return Err(format!("export {:?} is not a memory in {name}", e.name));
                };
                if a.len() != b.len() {
                    return Err(format!("memory {:?}: size ours {} vs {name} {}", e.name, a.len(), b.len()));
                }
                if a != &b[..] {
                    let i = a.iter().zip(b.iter()).position(|(x, y)| x != y).unwrap_or(0);
                    return Err(format!(
                        "memory {:?}: first difference at byte {i}: ours {:02x?} vs {name} {:02x?}",
                        e.name,
                        &a[i..(i + 16).min(a.len())],
                        &b[i..(i + 16).min(b.len())]
                    ));
                }
            }
            ExternalKind::Global => {
                let Some(ours::Extern::Global(g)) = plain.store.get_export(plain.inst, &e.name) else {
                    return Err(format!("export {:?} is not a global in ours", e.name));
                };
                let a = Val::from(plain.store.global_get(g));
                let Some(b) = theirs.global(&e.name) else {
                    return Err(format!("export {:?} is not a global in {name}", e.name));
                };
                let mut dummy = false;
                if let Err(m) = compare_value(&a, &b, true, &mut dummy, peer) {
                    return Err(format!("global {:?} differs: {m}", e.name));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Verdicts.

/// What one seed (or module) showed.
pub enum Verdict {
    /// Ours and the peer agree (or nothing could be compared).
    Agree,
    /// Ours disagrees with wasmi, wasmtime agrees with ours: wasmi's bug (the message).
    PeerWrong(String),
    /// wasmi panicked; ours agrees with wasmtime.
    PeerCrashed(String),
    /// Ours is wrong: against both peers, against itself observed, or it panicked.
    OursWrong(String),
    /// wasmi and ours disagree and wasmtime could not decide: it panicked too, or could not
    /// compare the same calls (fuel, stack depth).
    Undecided(String),
}

/// Runs `f`, turning a panic into `Err` with its message.
pub fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| peer::panic_message(&*p))
}

/// Compares the module with the seed's peer ([`peer_of`]: wasmi by default), and with
/// wasmtime when that comparison diverges or the peer crashes. A module that uses threads
/// ([`uses_threads`]) is compared with wasmtime directly: wasmi does not run threads.
pub fn judge(label: &str, seed: u64, bytes: &[u8], canonical: bool, stats: &Stats, verbose: bool) -> Verdict {
    let first = if uses_threads(bytes) {
        inc(&stats.threads);
        Engine::Wasmtime
    } else {
        peer_of(seed)
    };
    let mut schedule = Vec::new();
    let first_run =
        caught(|| run_module(label, seed, bytes, canonical, first, None, &mut schedule, stats, verbose));
    let (message, crashed) = match first_run {
        Err(p) => return Verdict::OursWrong(format!("{label}: panicked: {p}")),
        Ok(Ok(())) => return Verdict::Agree,
        Ok(Err(Stop::ObserverChanged(m))) => return Verdict::OursWrong(m),
        Ok(Err(Stop::Undecided(m))) => return Verdict::Undecided(m),
        Ok(Err(Stop::Diverged(m))) => (m, false),
        Ok(Err(Stop::PeerCrashed(m))) => (m, true),
    };
    if first == Engine::Wasmtime {
        return if crashed { Verdict::Undecided(message) } else { Verdict::OursWrong(message) };
    }
    inc(&stats.arbitrations);
    if verbose {
        println!("{label}: {message}\n{label}: arbitrating with wasmtime");
    }
    let arbiter = Stats::default();
    let replay = Some(&schedule[..]);
    let arbitrated = caught(|| {
        run_module(
            label,
            seed,
            bytes,
            canonical,
            Engine::Wasmtime,
            replay,
            &mut Vec::new(),
            &arbiter,
            verbose,
        )
    });
    match arbitrated {
        Err(p) => Verdict::OursWrong(format!("{label}: panicked while wasmtime arbitrated: {p}")),
        Ok(Ok(())) if crashed => Verdict::PeerCrashed(message),
        Ok(Ok(())) => Verdict::PeerWrong(message),
        Ok(Err(Stop::Diverged(m) | Stop::ObserverChanged(m))) => {
            Verdict::OursWrong(format!("{m}\n    (against wasmi: {message})"))
        }
        Ok(Err(Stop::PeerCrashed(m) | Stop::Undecided(m))) => {
            Verdict::Undecided(format!("{message}\n    (wasmtime: {m})"))
        }
    }
}

/// The engine every seed is compared with: wasmi, or wasmtime with `DIFF_PEER=wasmtime`.
pub fn default_peer() -> Engine {
    match std::env::var("DIFF_PEER").as_deref() {
        Ok("wasmtime") => Engine::Wasmtime,
        Ok("wasmi") | Err(_) => Engine::Wasmi,
        Ok(other) => panic!("DIFF_PEER must be wasmi or wasmtime, not {other:?}"),
    }
}

pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{name} must be a number")))
}
