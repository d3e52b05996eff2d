//! What the WASI fuzz target and its ordinary test (`tests/wasi_fuzz.rs`) share: a sandbox on
//! disk, and an input read as a sequence of preview-1 calls with arbitrary arguments run
//! against it.
//!
//! The sandbox: `BASE/pre` is the preopened directory (fd 3), holding files, a directory and
//! symbolic links that lead out (`..`, `/`, `../canary.txt`, a loop); beside it
//! `BASE/canary.txt` holds a marker and `BASE/outside/` a file. After the calls, nothing
//! outside `pre` may differ (names, types, sizes, contents, modification times), and the
//! marker may appear neither in the guest's memory nor on its stdout (nothing outside was
//! read). Every call must return (no panic); `proc_exit` ends a sequence.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use qip_memory::wasi::{Config, Output, Preopen, Stdin, Wasi};
use qip_memory::wasm::{Extern, ImportType, Limits, Module, Store, ValType, Value};

/// The canary's marker: read from outside, it would show up in memory or on stdout.
pub const MARKER: &[u8] = b"CANARY-5e1f0c37a9d2-must-not-be-read";

/// The module: each preview-1 function imported with its witx type and exported as a wrapper
/// of the same name and type.
pub fn module_wat() -> String {
    let (mut imports, mut funcs) = (String::new(), String::new());
    for n in Wasi::functions() {
        let ty = Wasi::signature(n).unwrap();
        let params: Vec<&str> = ty.params().iter().map(|t| t.name()).collect();
        let results = if ty.results().is_empty() { "" } else { "(result i32)" };
        let gets: String = (0..params.len()).map(|i| format!("local.get {i} ")).collect();
        let params = params.join(" ");
        writeln!(
            imports,
            "(import \"wasi_snapshot_preview1\" \"{n}\" (func ${n} (param {params}) {results}))"
        )
        .unwrap();
        writeln!(funcs, "(func (export \"{n}\") (param {params}) {results} {gets} call ${n})").unwrap();
    }
    format!("(module {imports} (memory (export \"memory\") 1) {funcs})")
}

/// Creates the sandbox under `base` (which must exist and be empty).
pub fn setup(base: &Path) {
    let pre = base.join("pre");
    std::fs::create_dir_all(pre.join("a/b")).unwrap();
    std::fs::write(pre.join("f.txt"), b"inside file").unwrap();
    std::fs::write(pre.join("a/g.txt"), b"nested").unwrap();
    std::fs::write(base.join("canary.txt"), MARKER).unwrap();
    std::fs::create_dir(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/x.txt"), MARKER).unwrap();
    #[cfg(unix)]
    {
        let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, pre.join(name)).unwrap();
        link("..", "up");
        link("/", "root");
        link("../canary.txt", "out");
        link("a/../..", "sneaky");
        link("loop2", "loop1");
        link("loop1", "loop2");
        link("a", "to_a");
        link("f.txt", "to_f");
    }
}

/// Everything under `base` but `pre`: path, type, size, contents, modification time.
pub fn outside(base: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p == base.join("pre") {
                continue;
            }
            let m = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let mtime = m.modified().ok();
            if m.is_dir() {
                out.push(format!("{rel}/ {mtime:?}"));
                walk(base, &p, out);
            } else {
                let contents = std::fs::read(&p).unwrap_or_default();
                out.push(format!("{rel} {} {mtime:?} {contents:?}", m.len()));
            }
        }
    }
    let mut out = Vec::new();
    walk(base, base, &mut out);
    out
}

/// Reads the input a byte at a time (zeros past its end).
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    fn done(&self) -> bool {
        self.0.is_empty()
    }
}

/// Paths the fuzzer picks from: inside, outside, through links, odd.
const PATHS: &[&str] = &[
    "f.txt",
    "a",
    "a/b",
    "a/g.txt",
    "new",
    "a/new",
    "a/b/new",
    ".",
    "..",
    "../canary.txt",
    "/",
    "/etc/passwd",
    "up",
    "up/canary.txt",
    "up/outside/x.txt",
    "root/etc/passwd",
    "out",
    "sneaky",
    "sneaky/canary.txt",
    "loop1",
    "loop1/x",
    "to_a/g.txt",
    "to_a/../..",
    "to_f",
    "a/../../canary.txt",
    "a/..",
    "a/b/../../..",
    "",
    "a//b/",
    "f.txt/",
    "new/",
    "..//canary.txt",
    "./up/..",
    "x\0y",
];

/// Where arguments point.
const PATH_AT: u32 = 4096;
const IOV_AT: u32 = 512;
const BUF_AT: u32 = 8192;

/// A pointer: mostly useful ones, sometimes out of bounds or wrapping.
fn pointer(i: &mut Input<'_>) -> u32 {
    match i.byte() % 8 {
        0 => 0,
        1 => IOV_AT,
        2 => BUF_AT,
        3 => 65_536 - u32::from(i.byte() % 16),
        4 => 0xFFFF_FFF0,
        5 => u32::from(i.byte()) * 256,
        _ => BUF_AT + u32::from(i.byte()),
    }
}

/// A length or count.
fn length(i: &mut Input<'_>) -> u32 {
    match i.byte() % 6 {
        0 => 0,
        1 => u32::from(i.byte() % 8),
        2 => u32::from(i.byte()) * 64,
        3 => 65_536,
        4 => u32::MAX,
        _ => i.u32(),
    }
}

/// A descriptor: stdio, the preopen, opened ones, or not open.
fn fd(i: &mut Input<'_>) -> u32 {
    match i.byte() % 8 {
        0..=3 => 3,
        4 | 5 => u32::from(i.byte() % 10),
        6 => u32::MAX,
        _ => i.u32(),
    }
}

/// Runs the calls the input describes against a sandbox created under `base` and checks
/// that nothing outside the preopened directory changed or was read.
pub fn run(data: &[u8], wasm: &[u8], base: &Path) {
    setup(base);
    let before = outside(base);
    let out = Rc::new(RefCell::new(Vec::new()));
    let config = Config {
        args: vec![b"fuzz".to_vec()],
        dirs: vec![Preopen { host: base.join("pre"), guest: ".".into() }],
        stdin: Stdin::Bytes(b"stdin bytes".to_vec()),
        stdout: Output::Capture(out.clone()),
        stderr: Output::Capture(out.clone()),
        seed: 1,
        ..Config::default()
    };
    let wasi = Wasi::new(config).unwrap();
    let module = Module::new(wasm, &Limits::default()).unwrap();
    let mut store = Store::new(Limits::default());
    let mut imports = Vec::new();
    for imp in module.imports() {
        let ImportType::Func(t) = imp.ty else { unreachable!() };
        let ty = module.type_at(t).unwrap().clone();
        imports.push(Extern::Func(wasi.link(&mut store, &imp.name, &ty).unwrap()));
    }
    let inst = store.instantiate(Arc::new(module), &imports).unwrap();
    let mem = store.instance_memory(inst).unwrap();
    let names: Vec<&str> = Wasi::functions().collect();
    let mut input = Input(data);
    let mut steps = 0;
    while !input.done() && steps < 64 {
        steps += 1;
        // Memory for this call: a path, an iovec array of up to 4 entries, data.
        let path = PATHS[usize::from(input.byte()) % PATHS.len()];
        let memory = store.memory_data_mut(mem);
        memory[PATH_AT as usize..PATH_AT as usize + path.len()].copy_from_slice(path.as_bytes());
        for k in 0..4 {
            let at = IOV_AT as usize + 8 * k;
            let (buf, len) = (BUF_AT + 64 * k as u32, [5u32, 0, 64, 3][k]);
            memory[at..at + 4].copy_from_slice(&buf.to_le_bytes());
            memory[at + 4..at + 8].copy_from_slice(&len.to_le_bytes());
        }
        let name = names[usize::from(input.byte()) % names.len()];
        let f = store.get_func(inst, name).unwrap();
        let ty = store.func_type(f).clone();
        let mut args = Vec::new();
        let params = ty.params();
        let mut k = 0;
        while k < params.len() {
            let v = if params[k] == ValType::I64 {
                Value::I64(match input.byte() % 4 {
                    0 => 0,
                    1 => i64::from(input.byte()),
                    2 => -i64::from(input.byte()),
                    _ => i64::from(input.u32()) << (input.byte() % 33),
                })
            } else {
                // Pointer-and-length pairs of paths get the path most of the time.
                // The first parameter is a descriptor in most functions.
                let choice = input.byte();
                let choice = if k == 0 && choice % 4 != 0 { 3 } else { choice };
                let v = match choice % 8 {
                    0..=2 => {
                        if k + 1 < params.len() && params[k + 1] == ValType::I32 && choice % 16 < 11 {
                            args.push(Value::I32(PATH_AT as i32));
                            k += 1;
                            path.len() as u32
                        } else {
                            PATH_AT
                        }
                    }
                    3 => fd(&mut input),
                    4 => pointer(&mut input),
                    5 => length(&mut input),
                    6 => u32::from(input.byte() % 16),
                    _ => input.u32(),
                };
                Value::I32(v as i32)
            };
            args.push(v);
            k += 1;
        }
        args.truncate(params.len());
        if store.call(f, &args).is_err() {
            // proc_exit (or a trap): the program is over.
            break;
        }
    }
    let memory = store.memory_data(mem);
    assert!(!memory.windows(MARKER.len()).any(|w| w == MARKER), "the canary was read into memory");
    assert!(!out.borrow().windows(MARKER.len()).any(|w| w == MARKER), "the canary reached stdout");
    assert_eq!(outside(base), before, "something outside the preopened directory changed");
}
