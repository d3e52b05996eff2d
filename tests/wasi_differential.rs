//! `qip_memory::wasi` against wasmtime's own preview-1 host (`wasmtime_wasi::p1`): the same
//! guests, the same preopened tree, and the answers compared.
//!
//! * The signatures: wasmtime's linker holds the same 46 functions with the same core types.
//! * Scripts: a module exporting a wrapper per function (same name and type, passing its
//!   parameters to the import) is driven call by call from here under both hosts, each with a
//!   fresh copy of one directory tree: every call's errno must agree, and so must what it
//!   wrote back (a new descriptor, a count, an offset, bytes read, a file type and size, a
//!   listing as a set of names and types, a link's text); afterwards stdout and the trees
//!   (names, types, contents, link targets) must be equal.
//! * A guest program (`_start`) that does its own file work and writes each errno to stdout
//!   in decimal, then exits with `proc_exit`: stdout, exit code and tree compared.
//!
//! Known differences (docs/wasi.md) are kept out of the scripts: wasmtime moves only the
//! first non-empty buffer of an iovec array per call, traps on a pointer outside memory, and
//! gives `d_ino`/`ino` as a hash; those are tested in `src/wasi/tests.rs` on their own.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use qip_memory::wasi::{self, Config, Output, Preopen, Wasi};
use qip_memory::wasm::{
    self as ours, ExecError, Extern, ImportType, Limits, Store, TrapKind, ValType, Value,
};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

/// A temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("qip-wasi-diff-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The tree every run starts from, under `root`.
fn populate(root: &Path) {
    std::fs::create_dir_all(root.join("d/e")).unwrap();
    std::fs::write(root.join("hello.txt"), b"hello, world\n").unwrap();
    std::fs::write(root.join("d/inner.txt"), b"inner").unwrap();
    std::fs::write(root.join("d/e/deep.txt"), b"deep").unwrap();
    #[cfg(unix)]
    {
        let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, root.join(name)).unwrap();
        link("hello.txt", "to_hello");
        link("d", "to_d");
        link("/", "to_root");
        link("..", "up");
        link("d/../..", "sneaky");
        link("loop2", "loop1");
        link("loop1", "loop2");
        link("missing", "dangling");
    }
}

/// The tree under `root`: every entry's path, type and contents (a link's target).
fn snapshot(root: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                out.push(format!("{rel} -> {}", std::fs::read_link(&p).unwrap().display()));
            } else if m.is_dir() {
                out.push(format!("{rel}/"));
                walk(base, &p, out);
            } else {
                out.push(format!("{rel}: {:?}", String::from_utf8_lossy(&std::fs::read(&p).unwrap())));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

/// A module importing every preview-1 function with its witx type and exporting a wrapper of
/// the same name and type.
fn wrappers() -> String {
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

/// One host under test.
trait Host {
    /// Calls export `name`; `Ok(errno)`, or `Err` with the trap's text.
    fn call(&mut self, name: &str, args: &[i64]) -> Result<i32, String>;
    fn mem(&mut self) -> Vec<u8>;
    fn put(&mut self, addr: usize, bytes: &[u8]);
    fn stdout(&self) -> Vec<u8>;
    fn exit_code(&self) -> Option<u32>;
}

struct Ours {
    store: Store,
    inst: ours::Instance,
    wasi: Wasi,
    out: Rc<RefCell<Vec<u8>>>,
}

impl Ours {
    fn new(wat: &str, root: &Path) -> Ours {
        let out = Rc::new(RefCell::new(Vec::new()));
        let config = Config {
            args: vec![b"prog".to_vec()],
            dirs: vec![Preopen { host: root.to_path_buf(), guest: ".".into() }],
            stdout: Output::Capture(out.clone()),
            ..Config::default()
        };
        let wasi = Wasi::new(config).unwrap();
        let module = ours::Module::new(&wat::parse_str(wat).unwrap(), &Limits::default()).unwrap();
        let mut store = Store::new(Limits::default());
        let mut imports = Vec::new();
        for imp in module.imports() {
            let ImportType::Func(t) = imp.ty else { panic!() };
            let ty = module.type_at(t).unwrap().clone();
            imports.push(Extern::Func(wasi.link(&mut store, &imp.name, &ty).unwrap()));
        }
        let inst = store.instantiate(Arc::new(module), &imports).unwrap();
        Ours { store, inst, wasi, out }
    }
}

impl Host for Ours {
    fn call(&mut self, name: &str, args: &[i64]) -> Result<i32, String> {
        let f = self.store.get_func(self.inst, name).unwrap();
        let ty = self.store.func_type(f).clone();
        let args: Vec<Value> = args
            .iter()
            .zip(ty.params())
            .map(|(&a, t)| if *t == ValType::I64 { Value::I64(a) } else { Value::I32(a as i32) })
            .collect();
        match self.store.call(f, &args) {
            Ok(r) => match r[..] {
                [Value::I32(e)] => Ok(e),
                _ => Ok(0),
            },
            Err(ExecError::Trap(t)) if t.kind == TrapKind::Exit => Err("exit".into()),
            Err(e) => Err(e.to_string()),
        }
    }
    fn mem(&mut self) -> Vec<u8> {
        self.store.memory_data(self.store.instance_memory(self.inst).unwrap()).to_vec()
    }
    fn put(&mut self, addr: usize, bytes: &[u8]) {
        let m = self.store.instance_memory(self.inst).unwrap();
        self.store.memory_data_mut(m)[addr..addr + bytes.len()].copy_from_slice(bytes);
    }
    fn stdout(&self) -> Vec<u8> {
        self.out.borrow().clone()
    }
    fn exit_code(&self) -> Option<u32> {
        self.wasi.exit_code()
    }
}

struct Theirs {
    store: wasmtime::Store<WasiP1Ctx>,
    inst: wasmtime::Instance,
    out: MemoryOutputPipe,
    exit: Option<u32>,
}

impl Theirs {
    fn new(wat: &str, root: &Path) -> Theirs {
        let engine = wasmtime::Engine::default();
        let module = wasmtime::Module::new(&engine, wat::parse_str(wat).unwrap()).unwrap();
        let mut linker: wasmtime::Linker<WasiP1Ctx> = wasmtime::Linker::new(&engine);
        wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |t| t).unwrap();
        let out = MemoryOutputPipe::new(1 << 20);
        let ctx = WasiCtxBuilder::new()
            .args(&["prog"])
            .stdout(out.clone())
            .preopened_dir(root, ".", FsPerms::ReadWrite)
            .unwrap()
            .build_p1();
        let mut store = wasmtime::Store::new(&engine, ctx);
        let inst = linker.instantiate(&mut store, &module).unwrap();
        Theirs { store, inst, out, exit: None }
    }
}

impl Host for Theirs {
    fn call(&mut self, name: &str, args: &[i64]) -> Result<i32, String> {
        let f = self.inst.get_func(&mut self.store, name).unwrap();
        let ty = f.ty(&self.store);
        let args: Vec<wasmtime::Val> = args
            .iter()
            .zip(ty.params())
            .map(|(&a, t)| match t {
                wasmtime::ValType::I64 => wasmtime::Val::I64(a),
                _ => wasmtime::Val::I32(a as i32),
            })
            .collect();
        let mut results = vec![wasmtime::Val::I32(0); ty.results().len()];
        match f.call(&mut self.store, &args, &mut results) {
            Ok(()) => Ok(results.first().and_then(wasmtime::Val::i32).unwrap_or(0)),
            Err(e) => match e.downcast_ref::<I32Exit>() {
                Some(code) => {
                    self.exit = Some(code.0 as u32);
                    Err("exit".into())
                }
                None => Err(format!("{e:#}")),
            },
        }
    }
    fn mem(&mut self) -> Vec<u8> {
        let m = self.inst.get_memory(&mut self.store, "memory").unwrap();
        m.data(&self.store).to_vec()
    }
    fn put(&mut self, addr: usize, bytes: &[u8]) {
        let m = self.inst.get_memory(&mut self.store, "memory").unwrap();
        m.data_mut(&mut self.store)[addr..addr + bytes.len()].copy_from_slice(bytes);
    }
    fn stdout(&self) -> Vec<u8> {
        self.out.contents().to_vec()
    }
    fn exit_code(&self) -> Option<u32> {
        self.exit
    }
}

/// An argument of a script step.
#[derive(Clone, Copy)]
enum A {
    /// An integer.
    I(i64),
    /// A string placed in memory: its pointer and length.
    S(&'static str),
}

/// Where results land.
const R: i64 = 1024;
/// Where iovec arrays go, and their buffers.
const IOV: i64 = 2048;
const BUF: i64 = 3072;
/// Where step strings go.
const STR: usize = 8192;

/// `$rights`: fd_read | fd_seek | fd_tell | fd_write | fd_readdir.
const RW: i64 = (1 << 1) | (1 << 2) | (1 << 5) | (1 << 6) | (1 << 14);
/// fd_read | fd_readdir: for directories.
const RD: i64 = (1 << 1) | (1 << 14);

/// What a call wrote back, in terms that do not depend on the host (no inode numbers, no
/// times, a listing as a sorted set).
fn view(name: &str, mem: &[u8]) -> String {
    let r = R as usize;
    let u32_at = |a: usize| u32::from_le_bytes(mem[a..a + 4].try_into().unwrap());
    let u64_at = |a: usize| u64::from_le_bytes(mem[a..a + 8].try_into().unwrap());
    match name {
        "path_open" | "fd_write" | "fd_pwrite" | "args_sizes_get" | "environ_sizes_get" => {
            format!("{}", u32_at(r))
        }
        "fd_read" | "fd_pread" => {
            let n = u32_at(r) as usize;
            format!("{n} {:?}", String::from_utf8_lossy(&mem[BUF as usize..BUF as usize + n]))
        }
        "fd_seek" | "fd_tell" => format!("{}", u64_at(r)),
        "fd_filestat_get" | "path_filestat_get" => {
            format!("type {} nlink {} size {}", mem[r + 16], u64_at(r + 24), u64_at(r + 32))
        }
        "fd_fdstat_get" => {
            format!(
                "type {} flags {} base {:#x} inh {:#x}",
                mem[r],
                mem[r + 2],
                u64_at(r + 8),
                u64_at(r + 16)
            )
        }
        "fd_prestat_get" => format!("{} {}", mem[r], u32_at(r + 4)),
        "path_readlink" => {
            let n = u32_at(r) as usize;
            format!("{:?}", String::from_utf8_lossy(&mem[BUF as usize..BUF as usize + n]))
        }
        "fd_readdir" => {
            let used = u32_at(r) as usize;
            let (mut at, mut list) = (BUF as usize, Vec::new());
            while at + 24 <= BUF as usize + used {
                let len = u32_at(at + 16) as usize;
                let name = String::from_utf8_lossy(&mem[at + 24..at + 24 + len]).to_string();
                list.push(format!("{name}:{}", mem[at + 20]));
                at += 24 + len;
            }
            list.sort();
            format!("{used} {list:?}")
        }
        _ => String::new(),
    }
}

/// Runs `steps` under a host: per step its errno (or trap) and what it wrote back.
fn run(host: &mut dyn Host, steps: &[(&str, Vec<A>)], puts: &[(usize, &[u8])]) -> Vec<String> {
    for (addr, bytes) in puts {
        host.put(*addr, bytes);
    }
    let mut log = Vec::new();
    for (k, (name, args)) in steps.iter().enumerate() {
        // Results are cleared first, so that a failing call shows nothing stale.
        host.put(R as usize, &[0; 64]);
        let mut at = STR + 256 * (k % 64);
        let mut flat = Vec::new();
        for a in args {
            match *a {
                A::I(v) => flat.push(v),
                A::S(s) => {
                    host.put(at, s.as_bytes());
                    flat.push(at as i64);
                    flat.push(s.len() as i64);
                    at += s.len();
                }
            }
        }
        let line = match host.call(name, &flat) {
            Ok(errno) => {
                let v = if errno == 0 { view(name, &host.mem()) } else { String::new() };
                format!("{name} → {errno} {v}")
            }
            Err(trap) => format!("{name} → trap {trap}"),
        };
        log.push(line);
    }
    log
}

/// Runs `steps` under both hosts on copies of the tree; compares everything.
fn differential(tag: &str, steps: &[(&str, Vec<A>)], puts: &[(usize, &[u8])]) {
    let wat = wrappers();
    let (a, b) = (TempDir::new(&format!("{tag}-ours")), TempDir::new(&format!("{tag}-theirs")));
    let (ra, rb) = (a.0.join("root"), b.0.join("root"));
    for r in [&ra, &rb] {
        std::fs::create_dir(r).unwrap();
        populate(r);
        std::fs::write(r.parent().unwrap().join("outside.txt"), b"secret").unwrap();
    }
    let mut ours = Ours::new(&wat, &ra);
    let mut theirs = Theirs::new(&wat, &rb);
    let la = run(&mut ours, steps, puts);
    let lb = run(&mut theirs, steps, puts);
    if std::env::var_os("WASI_DIFF_LOG").is_some() {
        eprintln!("{tag}:\n{}", la.join("\n"));
    }
    for (i, (x, y)) in la.iter().zip(&lb).enumerate() {
        assert_eq!(x, y, "{tag}: step {i} differs (ours, then wasmtime's)");
    }
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout()),
        String::from_utf8_lossy(&theirs.stdout()),
        "{tag}: stdout"
    );
    assert_eq!(snapshot(&a.0), snapshot(&b.0), "{tag}: trees");
    assert_eq!(ours.exit_code(), theirs.exit_code(), "{tag}: exit code");
}

use A::{I, S};

#[test]
fn signatures_match_wasmtime() {
    let engine = wasmtime::Engine::default();
    let mut linker: wasmtime::Linker<WasiP1Ctx> = wasmtime::Linker::new(&engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |t| t).unwrap();
    let mut store = wasmtime::Store::new(&engine, WasiCtxBuilder::new().build_p1());
    let theirs: Vec<String> = linker
        .iter(&mut store)
        .filter(|(m, _, _)| *m == wasi::MODULE)
        .map(|(_, n, _)| n.to_string())
        .collect();
    assert_eq!(theirs.len(), 46);
    for name in Wasi::functions() {
        let Ok(wasmtime::Extern::Func(f)) = linker.get(&mut store, wasi::MODULE, name) else {
            panic!("wasmtime has no {name}")
        };
        let ty = f.ty(&store);
        let conv = |t: wasmtime::ValType| match t {
            wasmtime::ValType::I32 => ValType::I32,
            wasmtime::ValType::I64 => ValType::I64,
            other => panic!("{name}: {other}"),
        };
        let expected = ours::FuncType::new(ty.params().map(conv), ty.results().map(conv));
        assert_eq!(Wasi::signature(name), Some(expected), "{name}");
    }
}

#[test]
fn files_and_descriptors() {
    let steps = vec![
        ("fd_prestat_get", vec![I(3), I(R)]),
        ("fd_prestat_get", vec![I(4), I(R)]),
        ("fd_fdstat_get", vec![I(3), I(R)]),
        // Open, read, seek, tell, pread.
        ("path_open", vec![I(3), I(1), S("hello.txt"), I(0), I(RW), I(RW), I(0), I(R)]),
        ("fd_read", vec![I(4), I(IOV), I(1), I(R)]),
        ("fd_tell", vec![I(4), I(R)]),
        ("fd_seek", vec![I(4), I(-6), I(2), I(R)]),
        ("fd_read", vec![I(4), I(IOV), I(1), I(R)]),
        ("fd_seek", vec![I(4), I(-100), I(1), I(R)]),
        ("fd_pread", vec![I(4), I(IOV), I(1), I(7), I(R)]),
        ("fd_filestat_get", vec![I(4), I(R)]),
        ("fd_fdstat_get", vec![I(4), I(R)]),
        // Create, write, append, truncate.
        ("path_open", vec![I(3), I(0), S("new.txt"), I(1 | 4), I(RW), I(RW), I(0), I(R)]),
        ("fd_write", vec![I(5), I(IOV), I(1), I(R)]),
        ("path_open", vec![I(3), I(0), S("new.txt"), I(1 | 4), I(RW), I(RW), I(0), I(R)]),
        ("fd_fdstat_set_flags", vec![I(5), I(1)]),
        ("fd_write", vec![I(5), I(IOV), I(1), I(R)]),
        ("fd_tell", vec![I(5), I(R)]),
        ("fd_pwrite", vec![I(5), I(IOV), I(1), I(2), I(R)]),
        ("fd_fdstat_get", vec![I(5), I(R)]),
        ("fd_fdstat_set_flags", vec![I(5), I(2)]),
        ("fd_filestat_set_size", vec![I(5), I(3)]),
        ("fd_filestat_get", vec![I(5), I(R)]),
        ("fd_allocate", vec![I(5), I(0), I(10)]),
        ("fd_advise", vec![I(5), I(0), I(10), I(1)]),
        ("fd_sync", vec![I(5)]),
        ("fd_datasync", vec![I(5)]),
        ("fd_fdstat_set_rights", vec![I(5), I(0), I(0)]),
        ("fd_fdstat_set_rights", vec![I(1), I(0), I(0)]),
        // Renumber and close; the freed number is reused.
        ("fd_renumber", vec![I(5), I(4)]),
        ("fd_filestat_get", vec![I(4), I(R)]),
        ("fd_close", vec![I(5)]),
        ("fd_close", vec![I(4)]),
        ("path_open", vec![I(3), I(0), S("d"), I(2), I(RD), I(RD), I(0), I(R)]),
        ("fd_fdstat_get", vec![I(5), I(R)]),
        ("fd_readdir", vec![I(5), I(BUF), I(512), I(0), I(R)]),
        ("fd_readdir", vec![I(5), I(BUF), I(512), I(2), I(R)]),
        ("fd_readdir", vec![I(5), I(BUF), I(512), I(9), I(R)]),
        ("fd_readdir", vec![I(3), I(BUF), I(1024), I(0), I(R)]),
        ("path_open", vec![I(5), I(0), S("e/deep.txt"), I(0), I(RW), I(RW), I(0), I(R)]),
        ("fd_read", vec![I(4), I(IOV), I(1), I(R)]),
        // Directory work through the opened directory.
        ("path_create_directory", vec![I(5), S("made")]),
        ("path_create_directory", vec![I(5), S("made")]),
        ("path_create_directory", vec![I(5), S("made/")]),
        ("path_rename", vec![I(5), S("inner.txt"), I(3), S("moved.txt")]),
        ("path_rename", vec![I(3), S("moved.txt"), I(5), S("made/back.txt")]),
        ("path_link", vec![I(5), I(0), S("made/back.txt"), I(3), S("hard.txt")]),
        ("path_link", vec![I(5), I(1), S("made/back.txt"), I(3), S("hard2.txt")]),
        ("path_filestat_get", vec![I(3), I(0), S("hard.txt"), I(R)]),
        ("path_remove_directory", vec![I(5), S("made")]),
        ("path_unlink_file", vec![I(5), S("made/back.txt")]),
        ("path_remove_directory", vec![I(5), S("made")]),
        ("path_unlink_file", vec![I(3), S("d")]),
        ("path_remove_directory", vec![I(3), S("hard.txt")]),
        ("path_unlink_file", vec![I(3), S("nothing")]),
        ("fd_close", vec![I(5)]),
        ("fd_close", vec![I(4)]),
        // Stdout, stdio answers.
        ("fd_write", vec![I(1), I(IOV), I(1), I(R)]),
        ("fd_seek", vec![I(1), I(0), I(0), I(R)]),
        ("fd_tell", vec![I(0), I(R)]),
        ("fd_pread", vec![I(0), I(IOV), I(1), I(0), I(R)]),
        ("fd_filestat_set_size", vec![I(1), I(0)]),
        ("fd_read", vec![I(3), I(IOV), I(1), I(R)]),
        ("fd_readdir", vec![I(1), I(BUF), I(100), I(0), I(R)]),
        ("fd_prestat_dir_name", vec![I(3), I(BUF), I(0)]),
        ("fd_prestat_dir_name", vec![I(1), I(BUF), I(10)]),
        ("fd_close", vec![I(99)]),
        ("fd_renumber", vec![I(1), I(99)]),
        ("sock_accept", vec![I(1), I(0), I(R)]),
        ("sock_shutdown", vec![I(99), I(1)]),
        ("proc_raise", vec![I(2)]),
        ("sched_yield", vec![]),
        ("clock_res_get", vec![I(1), I(R)]),
        ("args_sizes_get", vec![I(R), I(R + 4)]),
    ];
    // One iovec: 5 bytes at BUF ("abcde" for writes; reads land there too).
    let iov: Vec<u8> = [BUF as u32, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
    differential("files", &steps, &[(IOV as usize, &iov), (BUF as usize, b"abcde")]);
}

#[test]
fn path_resolution_and_escapes() {
    let open = |path: &'static str, lookup: i64, oflags: i64| {
        ("path_open", vec![I(3), I(lookup), S(path), I(oflags), I(RD), I(RD), I(0), I(R)])
    };
    let stat = |path: &'static str, lookup: i64| ("path_filestat_get", vec![I(3), I(lookup), S(path), I(R)]);
    let mut steps = vec![
        open("../outside.txt", 1, 0),
        open("/etc/passwd", 1, 0),
        open("to_root/etc/passwd", 1, 0),
        open("to_root", 1, 0),
        open("to_root", 0, 0),
        open("up/outside.txt", 1, 0),
        open("up", 0, 0),
        open("sneaky/outside.txt", 1, 0),
        open("d/../../outside.txt", 1, 0),
        open("d/./e/../../hello.txt", 1, 0),
        open("to_d/e/deep.txt", 1, 0),
        open("to_hello", 1, 0),
        open("to_hello", 0, 0),
        open("loop1", 1, 0),
        open("loop1/x", 0, 0),
        open("dangling", 1, 0),
        open("hello.txt/", 1, 0),
        open("d/", 1, 2),
        open("hello.txt", 1, 2),
        open("", 1, 0),
        open(".", 1, 2),
        open("..", 1, 0),
        open("nothing/x", 1, 0),
        open("d//e///deep.txt", 1, 0),
        open("d", 1, 1 | 2),
        stat("to_hello", 0),
        stat("to_hello", 1),
        stat("to_root", 0),
        stat("to_root", 1),
        stat("up", 1),
        stat("d/..", 1),
        stat("d/../..", 1),
        stat("dangling", 0),
        stat("dangling", 1),
        stat("loop1", 0),
        stat("loop1", 1),
        ("path_readlink", vec![I(3), S("to_root"), I(BUF), I(64), I(R)]),
        ("path_readlink", vec![I(3), S("sneaky"), I(BUF), I(3), I(R)]),
        ("path_readlink", vec![I(3), S("hello.txt"), I(BUF), I(64), I(R)]),
        ("path_create_directory", vec![I(3), S("../escaped")]),
        ("path_create_directory", vec![I(3), S("up/escaped")]),
        ("path_create_directory", vec![I(3), S("to_d/made")]),
        ("path_create_directory", vec![I(3), S(".")]),
        ("path_rename", vec![I(3), S("hello.txt"), I(3), S("../stolen.txt")]),
        ("path_rename", vec![I(3), S("up/outside.txt"), I(3), S("stolen.txt")]),
        ("path_link", vec![I(3), I(0), S("up/outside.txt"), I(3), S("stolen.txt")]),
        ("path_link", vec![I(3), I(0), S("to_root"), I(3), S("root_link")]),
        ("path_symlink", vec![S("/etc"), I(3), S("etc")]),
        ("path_symlink", vec![S("x"), I(3), S("../x")]),
        ("path_symlink", vec![S("x"), I(3), S("hello.txt")]),
        open("etc/passwd", 1, 0),
        ("path_unlink_file", vec![I(3), S("to_root")]),
        ("path_unlink_file", vec![I(3), S("up/outside.txt")]),
        ("path_unlink_file", vec![I(3), S("to_d")]),
        ("path_remove_directory", vec![I(3), S("up")]),
        ("path_remove_directory", vec![I(3), S("..")]),
        ("path_filestat_set_times", vec![I(3), I(1), S("up/outside.txt"), I(0), I(0), I(0)]),
        ("path_filestat_set_times", vec![I(3), I(1), S("hello.txt"), I(0), I(0), I(1 | 2)]),
    ];
    // A directory descriptor below the preopen: `..` from it is a way out too.
    steps.push(open("d", 0, 2));
    steps.push(("path_open", vec![I(4), I(1), S("../hello.txt"), I(0), I(RD), I(RD), I(0), I(R)]));
    steps.push(("path_open", vec![I(4), I(1), S("e/../inner.txt"), I(0), I(RD), I(RD), I(0), I(R)]));
    steps.push(("path_open", vec![I(4), I(1), S("e/../../hello.txt"), I(0), I(RD), I(RD), I(0), I(R)]));
    differential("paths", &steps, &[]);
}

/// A program of its own: creates a file, writes, reads it back, lists the directory, prints
/// each errno (and the bytes it read) to stdout, and exits with code 3.
#[test]
fn a_guest_program() {
    let wat = r#"(module
      (import "wasi_snapshot_preview1" "path_open"
        (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_seek" (func $seek (param i32 i64 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_close" (func $close (param i32) (result i32)))
      (import "wasi_snapshot_preview1" "path_unlink_file" (func $unlink (param i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
      (memory (export "memory") 1)
      (data (i32.const 100) "out.txt")
      (data (i32.const 120) "written by the guest\n")
      (data (i32.const 160) "../escape.txt")
      ;; Prints errno `e` as two decimal digits and a newline.
      (func $print (param $e i32)
        (i32.store8 (i32.const 600) (i32.add (i32.const 48) (i32.div_u (local.get $e) (i32.const 10))))
        (i32.store8 (i32.const 601) (i32.add (i32.const 48) (i32.rem_u (local.get $e) (i32.const 10))))
        (i32.store8 (i32.const 602) (i32.const 10))
        (i32.store (i32.const 608) (i32.const 600))
        (i32.store (i32.const 612) (i32.const 3))
        (drop (call $write (i32.const 1) (i32.const 608) (i32.const 1) (i32.const 616))))
      (func (export "_start")
        (local $fd i32)
        ;; Create out.txt (creat | trunc) with rights read, seek, tell, write.
        (call $print (call $open (i32.const 3) (i32.const 1) (i32.const 100) (i32.const 7)
          (i32.const 9) (i64.const 102) (i64.const 102) (i32.const 0) (i32.const 0)))
        (local.set $fd (i32.load (i32.const 0)))
        (i32.store (i32.const 8) (i32.const 120))
        (i32.store (i32.const 12) (i32.const 21))
        (call $print (call $write (local.get $fd) (i32.const 8) (i32.const 1) (i32.const 16)))
        (call $print (call $seek (local.get $fd) (i64.const 8) (i32.const 0) (i32.const 24)))
        ;; Read the rest back to 300 and echo it to stdout.
        (i32.store (i32.const 32) (i32.const 300))
        (i32.store (i32.const 36) (i32.const 64))
        (call $print (call $read (local.get $fd) (i32.const 32) (i32.const 1) (i32.const 40)))
        (i32.store (i32.const 36) (i32.load (i32.const 40)))
        (call $print (call $write (i32.const 1) (i32.const 32) (i32.const 1) (i32.const 44)))
        (call $print (call $close (local.get $fd)))
        (call $print (call $close (local.get $fd)))
        ;; A way out, and unlinking what is not there.
        (call $print (call $open (i32.const 3) (i32.const 1) (i32.const 160) (i32.const 13)
          (i32.const 1) (i64.const 64) (i64.const 64) (i32.const 0) (i32.const 0)))
        (call $print (call $unlink (i32.const 3) (i32.const 160) (i32.const 13)))
        ;; "out" (the first 3 bytes of "out.txt"): not there.
        (call $print (call $unlink (i32.const 3) (i32.const 100) (i32.const 3)))
        (call $exit (i32.const 3))))"#;
    let (a, b) = (TempDir::new("prog-ours"), TempDir::new("prog-theirs"));
    let (ra, rb) = (a.0.join("root"), b.0.join("root"));
    for r in [&ra, &rb] {
        std::fs::create_dir(r).unwrap();
        populate(r);
    }
    let mut ours = Ours::new(wat, &ra);
    let mut theirs = Theirs::new(wat, &rb);
    assert_eq!(ours.call("_start", &[]), Err("exit".into()));
    assert_eq!(theirs.call("_start", &[]), Err("exit".into()));
    let expected = "00\n00\n00\n00\nby the guest\n00\n00\n08\n63\n63\n44\n";
    assert_eq!(String::from_utf8_lossy(&theirs.stdout()), expected, "wasmtime, as derived by hand");
    assert_eq!(String::from_utf8_lossy(&ours.stdout()), expected);
    assert_eq!((ours.exit_code(), theirs.exit_code()), (Some(3), Some(3)));
    assert_eq!(snapshot(&a.0), snapshot(&b.0));
    assert_eq!(std::fs::read(ra.join("out.txt")).unwrap(), b"written by the guest\n");
}

/// The documented differences that are errors in one host and traps in the other: an enum
/// value outside the witx's (`whence` 3) and an iovec array outside memory. wasmtime traps on
/// both; we return `EINVAL` (28) and `EFAULT` (21) and the run goes on (docs/wasi.md).
#[test]
fn known_differences_trap_in_wasmtime() {
    let wat = wrappers();
    let (a, b) = (TempDir::new("known-ours"), TempDir::new("known-theirs"));
    let mut ours = Ours::new(&wat, &a.0);
    let mut theirs = Theirs::new(&wat, &b.0);
    for (name, args, errno) in [("fd_seek", &[1, 0, 3, R][..], 28), ("fd_write", &[1, 65_532, 1, R], 21)] {
        assert_eq!(ours.call(name, args), Ok(errno), "{name}");
        assert!(theirs.call(name, args).is_err(), "{name}: wasmtime traps");
    }
}
