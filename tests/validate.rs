//! Our decoder and validator (`qip_memory::wasm::binary`) against `wasmparser`'s, restricted to
//! what the interpreter runs: WebAssembly 2.0 and the threads proposal
//! (`WasmFeatures::WASM2 | WasmFeatures::THREADS`, [`RUNS`]), as an independent second opinion
//! on what is a valid module:
//!
//! * modules `wasm-smith` generates with 2.0's features: both accept every one;
//! * modules it generates with threads (shared memories, atomics): both accept every one, and
//!   their mutations are compared as the 2.0 modules' are;
//! * modules it generates with a feature beyond those switched on (tail calls, exceptions,
//!   64-bit memories, extended constants, several memories, ...): both reject the ones that use
//!   it and accept the others;
//! * each generated module mutated (a byte changed, bytes dropped or inserted, the module cut
//!   short): both accept or both reject.
//!
//! Where both reject, the offsets are compared too and the share that agrees is printed; the
//! test requires agreement on accept/reject only, since two correct validators may notice one
//! problem at different bytes. A generated module beyond 2.0 that wasmparser accepts once the
//! feature is switched on must be refused by ours in the proposal's name
//! (`Invalid::Proposal`, docs/interpreter.md "Proposals after 2.0"), and one hand-written
//! module per proposal checks the name, the message and the offset exactly. A module that our limits refuse (`docs/limits.md`: more locals,
//! functions or memory than the interpreter takes) is not compared: loading stops at the limit,
//! before it would see a later problem.
//!
//! `VALIDATE_SEEDS` (default 3,000) and `VALIDATE_SEED_START` (default 0) choose the seeds;
//! `VALIDATE_VERBOSE=1` prints every rejection with both reasons.

#[path = "differential/engine.rs"]
#[allow(dead_code)]
mod engine;

use qip_memory::wasm::{Invalid, Limits, LoadErrorKind, Module, Proposal};
use wasmparser::{Validator, WasmFeatures};

use engine::SplitMix64 as Rng;
use engine::uses_threads;

/// A number below `n` (0 for `n` = 0).
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next() % n.max(1) as u64) as usize
}

/// `Some(Ok(()))` if the module is valid for us, `Some(Err((offset, reason)))` if not, `None`
/// if it exceeds one of our limits.
fn ours(bytes: &[u8]) -> Option<Result<(), (u32, String)>> {
    let limits = Limits { max_module_bytes: usize::MAX, ..Limits::default() };
    match Module::new(bytes, &limits) {
        Ok(_) => Some(Ok(())),
        Err(e) if matches!(e.kind, LoadErrorKind::Limit(_)) => None,
        Err(e) => Some(Err((e.offset.0, e.kind.to_string()))),
    }
}

/// What the interpreter runs, in wasmparser's terms: WebAssembly 2.0 and the proposals it
/// implements (docs/interpreter.md, "Proposals after 2.0").
const RUNS_FEATURES: WasmFeatures = WasmFeatures::WASM2
    .union(WasmFeatures::THREADS)
    .union(WasmFeatures::EXCEPTIONS)
    .union(WasmFeatures::LEGACY_EXCEPTIONS)
    .union(WasmFeatures::TAIL_CALL)
    .union(WasmFeatures::EXTENDED_CONST);

/// How a refusal of a later proposal ends, in `{RUNS}` of the messages below.
const RUNS: &str = "WebAssembly 2.0 with threads, exceptions, tail calls and extended constants";

/// wasmparser's verdict with the features the interpreter runs. A constant expression may read
/// any earlier immutable global (the rule, WebAssembly 3.0's), which wasmparser allows
/// only with GC: a module it refuses for that alone is judged again with GC on.
fn theirs(bytes: &[u8]) -> Result<(), (u32, String)> {
    let judge = |f: WasmFeatures| {
        let mut v = Validator::new_with_features(f);
        v.validate_all(bytes).map(|_| ()).map_err(|e| (e.offset() as u32, e.message().to_string()))
    };
    match judge(RUNS_FEATURES) {
        Err((_, m)) if m.contains("global.get of locally defined global") => {
            judge(RUNS_FEATURES | WasmFeatures::GC | WasmFeatures::FUNCTION_REFERENCES)
        }
        verdict => verdict,
    }
}

/// Whether wasmparser accepts the module with `features` on top of what the interpreter runs.
fn theirs_with(bytes: &[u8], features: WasmFeatures) -> bool {
    Validator::new_with_features(RUNS_FEATURES | features).validate_all(bytes).is_ok()
}

#[derive(Default)]
struct Tally {
    compared: u64,
    limited: u64,
    accepted: u64,
    rejected: u64,
    same_offset: u64,
    /// Generated modules refused by name, per proposal.
    named: std::collections::BTreeMap<&'static str, u64>,
    disagreements: Vec<String>,
}

impl Tally {
    fn compare(&mut self, what: &str, bytes: &[u8]) {
        let Some(a) = ours(bytes) else {
            self.limited += 1;
            return;
        };
        self.compared += 1;
        let b = theirs(bytes);
        match (&a, &b) {
            (Ok(()), Ok(())) => self.accepted += 1,
            (Err((oa, ma)), Err((ob, mb))) => {
                self.rejected += 1;
                self.same_offset += u64::from(oa == ob);
                if std::env::var_os("VALIDATE_VERBOSE").is_some() {
                    println!("{what}: ours {ma} at {oa:#x}; wasmparser {mb} at {ob:#x}");
                }
            }
            _ => {
                let path = std::env::temp_dir().join(format!("validate-{}.wasm", self.disagreements.len()));
                let _ = std::fs::write(&path, bytes);
                self.disagreements.push(format!(
                    "{what}: ours {a:?}, wasmparser {b:?} (module written to {})",
                    path.display()
                ));
            }
        }
    }
}

impl Tally {
    /// A module of a config with `proposal` switched on: if it is not 2.0 but is valid with the
    /// proposal's `features`, ours must refuse it in the proposal's name.
    fn named(&mut self, what: &str, bytes: &[u8], proposal: Proposal, features: WasmFeatures) {
        let Some(Err((offset, reason))) = ours(bytes) else { return };
        if theirs(bytes).is_ok() || !theirs_with(bytes, features) {
            return;
        }
        let named = Module::new(bytes, &Limits { max_module_bytes: usize::MAX, ..Limits::default() })
            .err()
            .and_then(|e| e.kind.proposal());
        if named == Some(proposal) {
            *self.named.entry(proposal.name()).or_default() += 1;
        } else {
            self.disagreements
                .push(format!("{what}: valid with {}, ours {reason} at {offset:#x}", proposal.name()));
        }
    }
}

/// One random change: a byte replaced, a run deleted, bytes inserted, or the end cut off.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = bytes.to_vec();
    // Leave the header alone most of the time: past it is where the rules are.
    let lo = if below(rng, 16) == 0 { 0 } else { 8.min(m.len()) };
    let at = lo + below(rng, m.len().saturating_sub(lo));
    match below(rng, 5) {
        0 | 1 => {
            if at < m.len() {
                m[at] = rng.next() as u8;
            }
        }
        2 => {
            let n = 1 + below(rng, 4);
            m.drain(at..(at + n).min(m.len()));
        }
        3 => {
            let n = 1 + below(rng, 4);
            for _ in 0..n {
                m.insert(at.min(m.len()), rng.next() as u8);
            }
        }
        _ => m.truncate(at),
    }
    m
}

/// A module from `wasm-smith` for `seed`, with the config `configure` adjusts.
fn generate(seed: u64, configure: impl FnOnce(&mut wasm_smith::Config)) -> Option<Vec<u8>> {
    let mut config = engine::smith_config(seed);
    configure(&mut config);
    let mut rng = Rng(seed);
    let data: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    let mut u = arbitrary::Unstructured::new(&data);
    wasm_smith::Module::new(config, &mut u).ok().map(|m| m.to_bytes())
}

/// A feature beyond WebAssembly 2.0 switched on over the 2.0 config, one per seed: one the
/// interpreter runs (both validators must then agree on every module), or one it refuses, with
/// its proposal and wasmparser's features for it.
fn beyond_2_0(seed: u64, c: &mut wasm_smith::Config) -> Option<(Proposal, WasmFeatures)> {
    match seed % 7 {
        0 => {
            c.tail_call_enabled = true;
            None
        }
        1 => {
            c.exceptions_enabled = true;
            None
        }
        2 => {
            c.threads_enabled = true;
            None
        }
        3 => {
            c.memory64_enabled = true;
            Some((Proposal::Memory64, WasmFeatures::MEMORY64))
        }
        4 => {
            c.extended_const_enabled = true;
            None
        }
        5 => {
            c.max_memories = 3;
            Some((Proposal::MultiMemory, WasmFeatures::MULTI_MEMORY))
        }
        _ => {
            c.relaxed_simd_enabled = true;
            Some((Proposal::RelaxedSimd, WasmFeatures::RELAXED_SIMD))
        }
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn our_validator_agrees_with_wasmparser() {
    let (start, n) = (env("VALIDATE_SEED_START", 0), env("VALIDATE_SEEDS", 3000));
    let mut t = Tally::default();
    let mut valid = 0u64;
    let (mut threads, mut threads_valid, mut threads_used) = (0u64, 0u64, 0u64);
    for seed in start..start + n {
        // The seed's configuration turns the proposals the interpreter runs on for some seeds
        // (tests/differential.rs): off here, where the 2.0 modules are meant; those modules
        // come below.
        let only_2_0 = |c: &mut wasm_smith::Config| {
            c.threads_enabled = false;
            c.tail_call_enabled = false;
            c.extended_const_enabled = false;
        };
        if let Some(m) = generate(seed, only_2_0) {
            t.compare(&format!("seed {seed}"), &m);
            valid += u64::from(matches!(ours(&m), Some(Ok(()))));
            let mut rng = Rng(seed ^ 0x5EED);
            for k in 0..8 {
                let mutated = mutate(&m, &mut rng);
                t.compare(&format!("seed {seed} mutation {k}"), &mutated);
            }
        }
        let mut beyond = None;
        if let Some(m) = generate(seed, |c| beyond = Some(beyond_2_0(seed, c))) {
            let what = format!("seed {seed} beyond 2.0");
            t.compare(&what, &m);
            match beyond.expect("the config was made") {
                Some((proposal, features)) => t.named(&what, &m, proposal, features),
                None => {
                    // A proposal the interpreter runs: valid in both, and mutated as the 2.0
                    // modules are.
                    if seed % 7 == 2 {
                        threads += 1;
                        threads_valid += u64::from(matches!(ours(&m), Some(Ok(()))));
                        threads_used += u64::from(uses_threads(&m));
                    }
                    let mut rng = Rng(seed ^ 0x7EAD5);
                    for k in 0..8 {
                        let mutated = mutate(&m, &mut rng);
                        t.compare(&format!("{what} mutation {k}"), &mutated);
                    }
                }
            }
        }
    }
    println!(
        "validate: {} modules compared ({} more past our limits), {} accepted by both, {} rejected by both \
         ({} at the same offset), {} disagreements; {valid} of the 2.0 modules valid",
        t.compared,
        t.limited,
        t.accepted,
        t.rejected,
        t.same_offset,
        t.disagreements.len()
    );
    println!(
        "validate: {threads} modules generated with threads, {threads_valid} valid, {threads_used} using a \
         shared memory or an atomic"
    );
    println!("validate: generated modules refused by the name of their proposal: {:?}", t.named);
    for d in t.disagreements.iter().take(20) {
        println!("  {d}");
    }
    assert!(t.disagreements.is_empty(), "{} disagreements with wasmparser", t.disagreements.len());
    // Both must see real work: most generated modules valid, most mutations caught.
    assert!(t.accepted > n, "too few valid modules: {}", t.accepted);
    assert!(t.rejected > n, "too few rejected modules: {}", t.rejected);
    // Each of the seven features gets a seventh of the seeds; most of its modules use it. The
    // three refused are named; the modules of the four run are valid, and many of the threads
    // ones use the proposal.
    if n >= 700 {
        assert_eq!(t.named.len(), 3, "a proposal never named: {:?}", t.named);
        assert!(threads_used > threads / 4, "{threads_used} of {threads} use threads");
    }
}

// ---------------------------------------------------------------- proposals after 2.0, by hand

/// The module `wat` (text) is refused for using `proposal`: wasmparser refuses it as 2.0 and,
/// with `features` (`None` where no module can use the sign validly: it would need a second
/// memory first), accepts it; ours names the proposal in `message` at `offset`, which the
/// caller worked out from the encoding.
fn refused(wat: &str, proposal: Proposal, features: Option<WasmFeatures>, offset: u32, message: &str) {
    let bytes = wat::parse_str(wat).expect("the text encodes");
    refused_bytes(&bytes, proposal, features, offset, message);
}

fn refused_bytes(
    bytes: &[u8],
    proposal: Proposal,
    features: Option<WasmFeatures>,
    offset: u32,
    message: &str,
) {
    assert!(theirs(bytes).is_err(), "wasmparser accepts it as 2.0");
    if let Some(f) = features {
        assert!(theirs_with(bytes, f), "wasmparser refuses it with the feature: {:?}", {
            let mut v = Validator::new_with_features(WasmFeatures::WASM2 | f);
            v.validate_all(bytes).err()
        });
    }
    let e = Module::new(bytes, &Limits::default()).map(|_| ()).expect_err("ours refuses it");
    assert!(matches!(e.kind, LoadErrorKind::Invalid(Invalid::Proposal(_))), "{e:?}");
    assert_eq!(e.kind.proposal(), Some(proposal), "{e}");
    assert_eq!(e.offset.0, offset, "{e}");
    assert_eq!(e.to_string(), message.replace("{RUNS}", RUNS));
}

// ---------------------------------------------------------------- proposals the interpreter runs

/// The module `wat` is valid for both validators (and not for 2.0 alone).
fn runs(wat: &str, feature: WasmFeatures) {
    let bytes = wat::parse_str(wat).expect("the text encodes");
    assert!(Validator::new_with_features(WasmFeatures::WASM2).validate_all(&bytes).is_err(), "{wat} is 2.0");
    assert!(
        Validator::new_with_features(WasmFeatures::WASM2 | feature).validate_all(&bytes).is_ok(),
        "{wat}"
    );
    if let Err(e) = Module::new(&bytes, &Limits::default()) {
        panic!("{wat}: {e}");
    }
}

#[test]
fn tail_calls_and_extended_constants_load() {
    runs("(module (func return_call 0))", WasmFeatures::TAIL_CALL);
    runs(
        "(module (type (func)) (table 1 funcref) (func (return_call_indirect (type 0) (i32.const 0))))",
        WasmFeatures::TAIL_CALL,
    );
    runs("(module (global i32 (i32.add (i32.const 1) (i32.const 2))))", WasmFeatures::EXTENDED_CONST);
    runs(
        "(module (import \"m\" \"g\" (global i64)) (memory 1) (global i64 (i64.mul (global.get 0) (i64.const 8))))",
        WasmFeatures::EXTENDED_CONST,
    );
    runs(
        "(module (memory 1) (data (offset (i32.sub (i32.const 16) (i32.const 8))) \"x\"))",
        WasmFeatures::EXTENDED_CONST,
    );
    // An earlier global the module defines: wasmparser allows it with GC, the issue for all.
    runs(
        "(module (global i32 (i32.const 1)) (global i32 (global.get 0)))",
        WasmFeatures::GC | WasmFeatures::FUNCTION_REFERENCES,
    );
}

/// The module `wat` is refused by both validators; ours says `message` at `offset`, which the
/// caller worked out from the encoding.
fn refuse(wat: &str, offset: u32, message: &str) {
    let bytes = wat::parse_str(wat).expect("the text encodes");
    assert!(theirs(&bytes).is_err(), "wasmparser accepts {wat}");
    let e = Module::new(&bytes, &Limits::default()).map(|_| ()).expect_err(wat);
    assert_eq!((e.offset.0, e.to_string()), (offset, format!("{message} (at offset {offset:#x})")), "{wat}");
}

/// Wrong tail calls and constant expressions are refused with 2.0's words, at the instruction:
/// offsets worked out from the encoding.
#[test]
fn tail_calls_and_extended_constants_refused() {
    // Type section 8..=0x11 (01 08 02 60 00 01 7f 60 00 00), function 0x12..=0x16 (03 03 02 00
    // 01), code: id 0x17, size 0x18, count 0x19, body 0 (size 0x1a, locals 0x1b, `i32.const
    // 0` 0x1c..=0x1d, end 0x1e), body 1: size 0x1f, locals 0x20, `return_call 0` at 0x21. Its
    // callee returns an i32 and it returns nothing.
    refuse(
        "(module (func (result i32) i32.const 0) (func return_call 0))",
        0x21,
        "type mismatch: unexpected i32",
    );
    // Global section: id 8, size 9, count 0xa, type 0xb, mutability 0xc, `i32.const 1` at 0xd,
    // `i64.const 2` at 0xf, `i32.add` at 0x11 pops the i64.
    refuse(
        "(module (global i32 (i32.add (i32.const 1) (i64.const 2))))",
        0x11,
        "type mismatch: expected i32, found i64",
    );
    // `global.get 1` at 0x0d while global 0 is being defined: a later global is unknown.
    refuse("(module (global i32 (global.get 1)) (global i32 (i32.const 0)))", 0xd, "unknown global 1");
}

// Offsets: the header is bytes 0..8, so the first section's id is at 8, its size at 9 and
// its contents from 10 (0xa); one-byte sizes and counts throughout.

/// The threads proposal, which the interpreter runs: hand-written modules that both validators
/// accept, and the two rules it adds, each refused by both, ours at the offset worked out from
/// the encoding.
#[test]
fn threads_are_valid() {
    for wat in [
        "(module (memory 1 1 shared))",
        "(module (memory 0 0 shared) (export \"m\" (memory 0)))",
        "(module (import \"m\" \"m\" (memory 1 2 shared)))",
        // Atomics on a memory that is not shared are valid (a wait traps when it runs).
        "(module (memory 1)
           (func (param i32 i64) (result i32)
             local.get 0 local.get 1 i64.const -1 memory.atomic.wait64
             local.get 0 i32.const 1 memory.atomic.notify i32.add
             local.get 0 i32.atomic.load16_u i32.add
             local.get 0 local.get 1 i64.atomic.store32
             local.get 0 local.get 1 local.get 1 i64.atomic.rmw8.cmpxchg_u i32.wrap_i64 i32.add
             local.get 0 i32.const 5 i32.atomic.rmw.xchg i32.add
             atomic.fence))",
    ] {
        let bytes = wat::parse_str(wat).expect("the text encodes");
        assert_eq!(theirs(&bytes), Ok(()), "{wat}");
        assert_eq!(ours(&bytes), Some(Ok(())), "{wat}");
    }
    // Memory section: id 8, size 9, count 0xa, the flags 0x02 (shared, no maximum) at 0xb.
    let bytes = wat::parse_str("(module (memory 1 shared))").expect("the text encodes");
    assert!(theirs(&bytes).is_err());
    assert_eq!(
        Module::new(&bytes, &Limits::default()).map(|_| ()).unwrap_err().to_string(),
        "shared memory must have maximum (at offset 0xb)"
    );
    // Type section 8..=0xe (01 05 01 60 00 01 7f), function 0xf..=0x12, memory 0x13..=0x18
    // (05 04 01 03 01 01), code: id 0x19, size 0x1a, count 0x1b, body size 0x1c, locals 0x1d,
    // i32.const 0x1e..=0x1f, then `i32.atomic.load` (fe 10) at 0x20 with an alignment of 2 or
    // 8 bytes where 4 are natural: both refused.
    for align in [2, 8] {
        let wat = format!(
            "(module (memory 1 1 shared) (func (result i32) i32.const 0 i32.atomic.load align={align}))"
        );
        let bytes = wat::parse_str(&wat).expect("the text encodes");
        assert!(theirs(&bytes).is_err(), "{wat}");
        assert_eq!(
            Module::new(&bytes, &Limits::default()).map(|_| ()).unwrap_err().to_string(),
            "atomic alignment must be natural (at offset 0x20)"
        );
    }
}

#[test]
fn exceptions_load() {
    let eh = WasmFeatures::EXCEPTIONS;
    runs("(module (tag))", eh);
    runs("(module (tag (param i32 f64)) (func (throw 0 (i32.const 1) (f64.const 2))))", eh);
    runs("(module (import \"m\" \"t\" (tag (param i64))) (export \"t\" (tag 0)))", eh);
    runs(
        "(module (tag (param i32)) (func (result i32 exnref) \
         (block (result i32 exnref) (try_table (catch_ref 0 0) (throw 0 (i32.const 7))) unreachable)))",
        eh,
    );
    runs("(module (func (param exnref) (throw_ref (local.get 0))))", eh);
    runs(
        "(module (func (result exnref) (ref.null exn)) (global exnref (ref.null exn)) (table 1 exnref))",
        eh,
    );
    let legacy = WasmFeatures::LEGACY_EXCEPTIONS | WasmFeatures::EXCEPTIONS;
    runs("(module (tag) (func try throw 0 catch 0 rethrow 0 catch_all end))", legacy);
    runs("(module (func block try nop delegate 0 end))", legacy);
}

/// Wrong uses of tags and handlers are refused with wasmparser, at the instruction or entry:
/// offsets worked out from the encoding.
#[test]
fn exceptions_refused() {
    // Type section 8..=0xe (01 05 01 60 00 01 7f), tag section: id 0xf, size 0x10, count 0x11,
    // attribute 0x12, type index 0x13: a tag type with a result.
    refuse("(module (tag (result i32)))", 0x13, "non-empty tag result type");
    // Type 8..=0xd (01 04 01 60 00 00), function 0xe..=0x11, code: id 0x12, size 0x13, count
    // 0x14, body size 0x15, locals 0x16, `throw 0` at 0x17 with no tag.
    refuse("(module (func (throw 0)))", 0x17, "unknown tag 0");
    // `throw_ref` at 0x17 with an empty stack.
    refuse("(module (func (throw_ref)))", 0x17, "type mismatch: expected exnref, found nothing");
    // Type 8..=0xd, function 0xe..=0x11, tag 0x12..=0x16 (0d 03 01 00 00), code: id 0x17,
    // size 0x18, count 0x19, body size 0x1a, locals 0x1b, `try_table` at 0x1c: its `catch_ref`
    // hands an exnref to a label of no values.
    refuse(
        "(module (tag) (func (block (try_table (catch_ref 0 0)))))",
        0x1e,
        "type mismatch: unexpected exnref",
    );
}

#[test]
fn memory64_by_name() {
    refused(
        "(module (memory i64 1))",
        Proposal::Memory64,
        Some(WasmFeatures::MEMORY64),
        0xb,
        "uses memory64 (a 64-bit memory); the interpreter runs {RUNS} (at offset 0xb)",
    );
    // Table section: id 8, size 9, count 0xa, element type 0xb, limits flags 0x04 at 0xc.
    refused(
        "(module (table i64 1 funcref))",
        Proposal::Memory64,
        Some(WasmFeatures::MEMORY64),
        0xc,
        "uses memory64 (a 64-bit table); the interpreter runs {RUNS} (at offset 0xc)",
    );
}

#[test]
fn multi_memory_by_name() {
    // Memory section: count 2 at 0xa, the first memory's flags 0xb and minimum 0xc, the second
    // memory from 0xd.
    refused(
        "(module (memory 1) (memory 1))",
        Proposal::MultiMemory,
        Some(WasmFeatures::MULTI_MEMORY),
        0xd,
        "uses multi-memory (a second memory); the interpreter runs {RUNS} (at offset 0xd)",
    );
    // `memory.size 1` in a module of one memory (spec binary.wast's malformed module): invalid
    // with multi-memory too, so wasmparser is not asked to accept it. Type 8..=0xe (01 05 01 60
    // 00 01 7f), function 0xf..=0x12, memory 0x13..=0x17, code: id 0x18, size 0x19, count
    // 0x1a, body size 0x1b, locals 0x1c, memory.size 0x1d, its memory index at 0x1e.
    let module = [
        &b"\0asm\x01\0\0\0"[..],
        &[0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7F],
        &[0x03, 0x02, 0x01, 0x00],
        &[0x05, 0x03, 0x01, 0x00, 0x01],
        &[0x0A, 0x06, 0x01, 0x04, 0x00, 0x3F, 0x01, 0x0B],
    ]
    .concat();
    refused_bytes(
        &module,
        Proposal::MultiMemory,
        None,
        0x1e,
        "uses multi-memory (memory index 1); the interpreter runs {RUNS} (at offset 0x1e)",
    );
    // Bit 6 of a memarg's alignment: a memory index follows. Type 8..=0xd, function 0xe..=0x11,
    // memory 0x12..=0x16, code: id 0x17, size 0x18, count 0x19, body size 0x1a, locals 0x1b,
    // i32.const 0x1c, then `i32.load` at 0x1e with flags 0x42, memory 0, offset 0. As 2.0 the
    // alignment is too large, which validation finds at the instruction.
    let memarg = [
        &b"\0asm\x01\0\0\0"[..],
        &[0x01, 0x04, 0x01, 0x60, 0x00, 0x00],
        &[0x03, 0x02, 0x01, 0x00],
        &[0x05, 0x03, 0x01, 0x00, 0x01],
        &[0x0A, 0x0B, 0x01, 0x09, 0x00, 0x41, 0x00, 0x28, 0x42, 0x00, 0x00, 0x1A, 0x0B],
    ]
    .concat();
    refused_bytes(
        &memarg,
        Proposal::MultiMemory,
        Some(WasmFeatures::MULTI_MEMORY),
        0x1e,
        "uses multi-memory (a memarg with a memory index); the interpreter runs {RUNS} \
         (at offset 0x1e)",
    );
    // A zero written in two bytes is not a memory index of another memory: 2.0's reason stays.
    let mut padded = module.clone();
    padded.splice(0x1e..0x1f, [0x80, 0x00]);
    padded[0x19] += 1;
    padded[0x1b] += 1;
    let e = Module::new(&padded, &Limits::default()).unwrap_err();
    assert_eq!(e.to_string(), "zero byte expected (at offset 0x1e)");
}

#[test]
fn typed_function_references_by_name() {
    // Type section: count 2 at 0xa, `(func)` 0xb..=0xd, then 60 01 and the parameter's
    // `ref null` byte 0x63 at 0x10.
    refused(
        "(module (type (func)) (func (param (ref null 0))))",
        Proposal::FunctionReferences,
        Some(WasmFeatures::FUNCTION_REFERENCES),
        0x10,
        "uses typed function references (a (ref null $t) type); the interpreter runs {RUNS} \
         (at offset 0x10)",
    );
}

#[test]
fn gc_by_name() {
    let gc = WasmFeatures::GC | WasmFeatures::FUNCTION_REFERENCES;
    // Type section: count 0xa, the struct form 0x5f at 0xb.
    refused(
        "(module (type (struct)))",
        Proposal::Gc,
        Some(gc),
        0xb,
        "uses garbage collection (a struct type); the interpreter runs {RUNS} (at offset 0xb)",
    );
}

#[test]
fn relaxed_simd_by_name() {
    // Type section 8..=0xf (01 06 01 60 01 7b 01 7b), function 0x10..=0x13, code: id 0x14,
    // size 0x15, count 0x16, body size 0x17, locals 0x18, two local.get 0x19..=0x1c, then
    // `i8x16.relaxed_swizzle` (fd 80 02) at 0x1d.
    refused(
        "(module (func (param v128) (result v128) local.get 0 local.get 0 i8x16.relaxed_swizzle))",
        Proposal::RelaxedSimd,
        Some(WasmFeatures::RELAXED_SIMD),
        0x1d,
        "uses relaxed SIMD (a relaxed SIMD instruction, opcode 0xfd 0x100); the interpreter runs \
         {RUNS} (at offset 0x1d)",
    );
}

#[test]
fn wide_arithmetic_by_name() {
    // Type section 8..=0x13 (01 0a 01 60 04 7e 7e 7e 7e 02 7e 7e), function 0x14..=0x17,
    // code: id 0x18, size 0x19, count 0x1a, body size 0x1b, locals 0x1c, four local.get
    // 0x1d..=0x24, then `i64.add128` (fc 13) at 0x25.
    refused(
        "(module (func (param i64 i64 i64 i64) (result i64 i64)
           local.get 0 local.get 1 local.get 2 local.get 3 i64.add128))",
        Proposal::WideArithmetic,
        Some(WasmFeatures::WIDE_ARITHMETIC),
        0x25,
        "uses wide arithmetic (i64.add128, opcode 0xfc 0x13); the interpreter runs {RUNS} \
         (at offset 0x25)",
    );
}

#[test]
fn custom_page_sizes_by_name() {
    // Memory section: limits flags 0x08 (a page size follows the minimum) at 0xb.
    refused(
        "(module (memory 1 (pagesize 1)))",
        Proposal::CustomPageSizes,
        Some(WasmFeatures::CUSTOM_PAGE_SIZES),
        0xb,
        "uses custom page sizes (a memory with a custom page size); the interpreter runs {RUNS} \
         (at offset 0xb)",
    );
}

#[test]
fn stack_switching_by_name() {
    // Type section: count 2 at 0xa, `(func)` 0xb..=0xd, the continuation form 0x5d at 0xe.
    refused(
        "(module (type $f (func)) (type (cont $f)))",
        Proposal::StackSwitching,
        Some(WasmFeatures::STACK_SWITCHING | WasmFeatures::FUNCTION_REFERENCES | WasmFeatures::EXCEPTIONS),
        0xe,
        "uses stack switching (a continuation type); the interpreter runs {RUNS} (at offset 0xe)",
    );
}
