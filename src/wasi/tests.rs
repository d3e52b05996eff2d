//! Tests of the WASI host: small guest modules (WAT) calling the functions, every expected
//! byte and error code derived by hand from the witx (`typenames.witx`: `$errno` 8 = badf,
//! 21 = fault, 28 = inval, 32 = loop, 44 = noent, 57 = notsock, 58 = notsup, 63 = perm,
//! 70 = spipe; record layouts as `abi.rs` derives them) and from docs/counting.md.

use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;
use std::path::{Path, PathBuf};

use super::*;
use crate::wasm::{ExecError, Extern, ImportType, Instance, Limits, Module, Observer, Store, TrapKind};

/// A directory under the system's temporary directory, removed on drop.
pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use core::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("qip-wasi-{tag}-{}-{n}", std::process::id()));
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

/// A module that imports each named function with the witx's type and exports a wrapper of
/// the same name and type that passes its parameters through.
pub(crate) fn wrappers(names: &[&str]) -> String {
    let (mut imports, mut funcs) = (String::new(), String::new());
    for n in names {
        let ty = Wasi::signature(n).unwrap();
        let params: Vec<&str> = ty.params().iter().map(|t| t.name()).collect();
        let results = if ty.results().is_empty() { "" } else { "(result i32)" };
        let gets: String = (0..params.len()).map(|i| format!("local.get {i} ")).collect();
        let params = params.join(" ");
        imports +=
            &format!("(import \"wasi_snapshot_preview1\" \"{n}\" (func ${n} (param {params}) {results}))\n");
        funcs += &format!("(func (export \"{n}\") (param {params}) {results} {gets} call ${n})\n");
    }
    format!("(module {imports} (memory (export \"memory\") 1) {funcs})")
}

/// An instantiated guest and its host.
pub(crate) struct Run {
    pub store: Store,
    pub inst: Instance,
    pub wasi: Wasi,
}

impl Run {
    pub fn new(wat: &str, config: Config) -> Run {
        let wasm = wat::parse_str(wat).unwrap();
        let module = Module::new(&wasm, &Limits::default()).unwrap();
        let wasi = Wasi::new(config).unwrap();
        let mut store = Store::new(Limits::default());
        let mut imports = Vec::new();
        for imp in module.imports() {
            let ImportType::Func(t) = imp.ty else { panic!("{}", imp.name) };
            let ty = module.type_at(t).unwrap().clone();
            assert_eq!(imp.module, MODULE);
            imports.push(Extern::Func(wasi.link(&mut store, &imp.name, &ty).unwrap()));
        }
        let inst = store.instantiate(Arc::new(module), &imports).unwrap();
        Run { store, inst, wasi }
    }

    /// Calls export `name` with `i32`/`i64` arguments given as `i64` (each converted to the
    /// parameter's type).
    pub fn call(&mut self, name: &str, args: &[i64]) -> Result<Vec<Value>, ExecError> {
        let f = self.store.get_func(self.inst, name).unwrap();
        let ty = self.store.func_type(f).clone();
        let args: Vec<Value> = args
            .iter()
            .zip(ty.params())
            .map(|(&a, t)| if *t == ValType::I64 { Value::I64(a) } else { Value::I32(a as i32) })
            .collect();
        self.store.call(f, &args)
    }

    /// Calls export `name` and returns its errno.
    pub fn errno(&mut self, name: &str, args: &[i64]) -> i32 {
        match self.call(name, args).unwrap()[..] {
            [Value::I32(e)] => e,
            ref other => panic!("{name}: {other:?}"),
        }
    }

    pub fn mem(&self) -> &[u8] {
        self.store.memory_data(self.store.instance_memory(self.inst).unwrap())
    }

    pub fn mem_mut(&mut self) -> &mut [u8] {
        let m = self.store.instance_memory(self.inst).unwrap();
        self.store.memory_data_mut(m)
    }

    pub fn put(&mut self, addr: usize, bytes: &[u8]) {
        self.mem_mut()[addr..addr + bytes.len()].copy_from_slice(bytes);
    }

    /// Puts an iovec array at `addr`: `(buf, len)` pairs.
    pub fn iovecs(&mut self, addr: usize, list: &[(u32, u32)]) {
        for (i, (buf, len)) in list.iter().enumerate() {
            self.put(addr + 8 * i, &buf.to_le_bytes());
            self.put(addr + 8 * i + 4, &len.to_le_bytes());
        }
    }

    pub fn u32_at(&self, addr: usize) -> u32 {
        u32::from_le_bytes(self.mem()[addr..addr + 4].try_into().unwrap())
    }

    pub fn u64_at(&self, addr: usize) -> u64 {
        u64::from_le_bytes(self.mem()[addr..addr + 8].try_into().unwrap())
    }
}

use crate::wasm::{ValType, Value};

fn capture() -> (Output, Rc<RefCell<Vec<u8>>>) {
    let buf = Rc::new(RefCell::new(Vec::new()));
    (Output::Capture(buf.clone()), buf)
}

const ALL: &[&str] = &[
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "clock_res_get",
    "clock_time_get",
    "fd_advise",
    "fd_allocate",
    "fd_close",
    "fd_datasync",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_fdstat_set_rights",
    "fd_filestat_get",
    "fd_filestat_set_size",
    "fd_filestat_set_times",
    "fd_pread",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "fd_pwrite",
    "fd_read",
    "fd_readdir",
    "fd_renumber",
    "fd_seek",
    "fd_sync",
    "fd_tell",
    "fd_write",
    "path_create_directory",
    "path_filestat_get",
    "path_filestat_set_times",
    "path_link",
    "path_open",
    "path_readlink",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
    "poll_oneoff",
    "proc_exit",
    "proc_raise",
    "sched_yield",
    "random_get",
    "sock_accept",
    "sock_recv",
    "sock_send",
    "sock_shutdown",
];

#[test]
fn the_46_functions_and_their_types() {
    // The witx's list, in its order.
    assert_eq!(Wasi::functions().collect::<Vec<_>>(), ALL);
    let ty = |p: &[ValType], r: &[ValType]| FuncType::new(p.iter().copied(), r.iter().copied());
    use ValType::{I32 as I, I64 as L};
    // path_open: fd, dirflags, path (ptr, len), oflags, rights_base (u64), rights_inheriting
    // (u64), fdflags, then the result `$fd` through a pointer; `$errno` returned.
    assert_eq!(Wasi::signature("path_open"), Some(ty(&[I, I, I, I, I, L, L, I, I], &[I])));
    // fd_seek: fd, offset (`$filedelta` s64), whence (u8 enum), → newoffset.
    assert_eq!(Wasi::signature("fd_seek"), Some(ty(&[I, L, I, I], &[I])));
    // poll_oneoff: in, out, nsubscriptions, → nevents.
    assert_eq!(Wasi::signature("poll_oneoff"), Some(ty(&[I, I, I, I], &[I])));
    // sock_recv: fd, ri_data (ptr, len), ri_flags, → (size, roflags): two result pointers.
    assert_eq!(Wasi::signature("sock_recv"), Some(ty(&[I, I, I, I, I, I], &[I])));
    // proc_exit is `noreturn`: no result.
    assert_eq!(Wasi::signature("proc_exit"), Some(ty(&[I], &[])));
    assert_eq!(Wasi::signature("sched_yield"), Some(ty(&[], &[I])));
    assert_eq!(Wasi::signature("fd_close_all"), None);

    let wasi = Wasi::new(Config::default()).unwrap();
    let mut store = Store::new(Limits::default());
    assert_eq!(wasi.link(&mut store, "nope", &ty(&[], &[I])), Err(LinkError::Unknown));
    let err = wasi.link(&mut store, "fd_close", &ty(&[L], &[I])).unwrap_err();
    assert_eq!(err, LinkError::Type { expected: ty(&[I], &[I]) });
    assert_eq!(err.to_string(), "declared with another type than the witx's [i32] -> [i32]");
}

#[test]
fn args_and_environ() {
    let config = Config {
        args: vec![b"prog.wasm".to_vec(), b"a b".to_vec()],
        env: vec![(b"X".to_vec(), b"1".to_vec()), (b"EMPTY".to_vec(), Vec::new())],
        ..Config::default()
    };
    let mut g =
        Run::new(&wrappers(&["args_sizes_get", "args_get", "environ_sizes_get", "environ_get"]), config);
    assert_eq!(g.errno("args_sizes_get", &[0, 4]), 0);
    // 2 arguments; "prog.wasm\0" is 10 bytes, "a b\0" 4: 14.
    assert_eq!((g.u32_at(0), g.u32_at(4)), (2, 14));
    assert_eq!(g.errno("args_get", &[16, 64]), 0);
    assert_eq!((g.u32_at(16), g.u32_at(20)), (64, 74));
    assert_eq!(&g.mem()[64..78], b"prog.wasm\0a b\0");
    assert_eq!(g.errno("environ_sizes_get", &[0, 4]), 0);
    // "X=1\0" 4 bytes, "EMPTY=\0" 7: 11.
    assert_eq!((g.u32_at(0), g.u32_at(4)), (2, 11));
    assert_eq!(g.errno("environ_get", &[16, 128]), 0);
    assert_eq!((g.u32_at(16), g.u32_at(20)), (128, 132));
    assert_eq!(&g.mem()[128..139], b"X=1\0EMPTY=\0");
    // The buffer would end past memory (65,536 bytes): fault, nothing written.
    assert_eq!(g.errno("args_get", &[200, 65_530]), 21);
    assert_eq!(g.u32_at(200), 0);
}

#[test]
fn clocks_count_instructions_and_sleeps() {
    let wat = r#"(module
      (import "wasi_snapshot_preview1" "clock_time_get" (func $time (param i32 i64 i32) (result i32)))
      (import "wasi_snapshot_preview1" "clock_res_get" (func $res (param i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (func (export "run")
        ;; 1-4: three consts and the call: monotonic = 4 at address 0.
        (drop (call $time (i32.const 1) (i64.const 0) (i32.const 0)))
        ;; 5 drop, 6-8 consts, 9 call: realtime = EPOCH_NS + 9 at 8.
        (drop (call $time (i32.const 0) (i64.const 0) (i32.const 8)))
        ;; 10 drop, 11-14 consts, 15 call: sleeps 1000 ns (the subscription at 64).
        (drop (call $poll (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 16)))
        ;; 16 drop, 17-19, 20 call: process clock = 20 + 1000 at 24.
        (drop (call $time (i32.const 2) (i64.const 0) (i32.const 24)))
        ;; the resolution of the thread clock at 32.
        (drop (call $res (i32.const 3) (i32.const 32)))))"#;
    let mut g = Run::new(wat, Config::default());
    // Subscription at 64: userdata 0x1122334455667788, tag 0 (clock), id 1 (monotonic),
    // timeout 1000, flags 0 (relative).
    g.put(64, &0x1122_3344_5566_7788u64.to_le_bytes());
    g.put(64 + 16, &1u32.to_le_bytes());
    g.put(64 + 24, &1000u64.to_le_bytes());
    g.call("run", &[]).unwrap();
    assert_eq!(g.u64_at(0), 4);
    assert_eq!(g.u64_at(8), EPOCH_NS + 9);
    assert_eq!(g.u32_at(16), 1, "one event");
    // The event at 128: userdata, error 0 (u16 at 8), type 0 (clock, u8 at 10).
    assert_eq!(g.u64_at(128), 0x1122_3344_5566_7788);
    assert_eq!(&g.mem()[136..139], &[0, 0, 0]);
    assert_eq!(g.u64_at(24), 1020);
    assert_eq!(g.u64_at(32), 1);
}

#[test]
fn random_is_seeded() {
    let bytes = |seed| {
        let mut g = Run::new(&wrappers(&["random_get"]), Config { seed, ..Config::default() });
        assert_eq!(g.errno("random_get", &[100, 16]), 0);
        g.mem()[100..116].to_vec()
    };
    // SplitMix64 from 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4 (the reference outputs),
    // little-endian.
    let mut expected = 0xE220_A839_7B1D_CDAFu64.to_le_bytes().to_vec();
    expected.extend_from_slice(&0x6E78_9E6A_A1B9_65F4u64.to_le_bytes());
    assert_eq!(bytes(0), expected);
    assert_eq!(bytes(0), bytes(0));
    assert_ne!(bytes(0), bytes(1));
    let mut g = Run::new(&wrappers(&["random_get"]), Config::default());
    assert_eq!(g.errno("random_get", &[65_530, 7]), 21);
}

#[test]
fn stdout_and_stdin() {
    let (out, buf) = capture();
    let config = Config { stdout: out, stdin: Stdin::Bytes(b"abcdefgh".to_vec()), ..Config::default() };
    let mut g =
        Run::new(&wrappers(&["fd_write", "fd_read", "fd_fdstat_get", "fd_seek", "fd_pwrite"]), config);
    g.put(64, b"hello ");
    g.put(80, b"world\n");
    g.iovecs(16, &[(64, 6), (80, 6)]);
    assert_eq!(g.errno("fd_write", &[1, 16, 2, 8]), 0);
    assert_eq!(g.u32_at(8), 12);
    assert_eq!(&buf.borrow()[..], b"hello world\n");
    // Reading 8 bytes of stdin into buffers of 3, 0 and 10 bytes: "abc", nothing, "defgh".
    g.iovecs(16, &[(200, 3), (210, 0), (220, 10)]);
    assert_eq!(g.errno("fd_read", &[0, 16, 3, 8]), 0);
    assert_eq!(g.u32_at(8), 8);
    assert_eq!(&g.mem()[200..203], b"abc");
    assert_eq!(&g.mem()[220..225], b"defgh");
    // At the end: 0 bytes.
    assert_eq!(g.errno("fd_read", &[0, 16, 3, 8]), 0);
    assert_eq!(g.u32_at(8), 0);
    // fdstat of stdout (a capture, not a terminal): filetype 0, flags 0, rights fd_write
    // (bit 6 = 64) both base and inheriting.
    assert_eq!(g.errno("fd_fdstat_get", &[1, 300]), 0);
    assert_eq!(g.mem()[300], 0);
    assert_eq!((g.u64_at(308), g.u64_at(316)), (64, 64));
    // stdio does not seek: spipe (70); pwrite to stdout neither.
    assert_eq!(g.errno("fd_seek", &[1, 0, 0, 8]), 70);
    assert_eq!(g.errno("fd_pwrite", &[1, 16, 1, 0, 8]), 70);
    // Writing stdin, reading stdout: badf.
    assert_eq!(g.errno("fd_write", &[0, 16, 1, 8]), 8);
    assert_eq!(g.errno("fd_read", &[1, 16, 1, 8]), 8);
}

#[test]
fn bad_descriptors_and_values() {
    let mut g = Run::new(&wrappers(ALL), Config::default());
    g.iovecs(16, &[(64, 1)]);
    for (name, args) in [
        ("fd_write", &[99, 16, 1, 8][..]),
        ("fd_read", &[99, 16, 1, 8]),
        ("fd_close", &[99]),
        ("fd_fdstat_get", &[99, 8]),
        ("fd_prestat_get", &[3, 8]), // no preopens: fd 3 is not open
        ("path_open", &[3, 0, 64, 1, 0, 0, 0, 0, 8]),
        ("sock_shutdown", &[99, 0]),
        ("fd_renumber", &[1, 99]),
    ] {
        assert_eq!(g.errno(name, args), 8, "{name} of a closed descriptor is badf");
    }
    // Enum and flag values outside the witx's: inval (28).
    assert_eq!(g.errno("fd_seek", &[1, 0, 3, 8]), 28, "whence 3");
    assert_eq!(g.errno("clock_time_get", &[4, 0, 8]), 28, "clock 4");
    assert_eq!(g.errno("fd_advise", &[1, 0, 0, 6]), 28, "advice 6");
    assert_eq!(g.errno("proc_raise", &[31]), 28, "signal 31");
    assert_eq!(g.errno("poll_oneoff", &[64, 128, 0, 8]), 28, "no subscription");
    // No sockets: notsock (57) for an open descriptor.
    assert_eq!(g.errno("sock_send", &[1, 16, 1, 0, 8]), 57);
    assert_eq!(g.errno("sock_recv", &[0, 16, 1, 0, 8, 12]), 57);
    assert_eq!(g.errno("sock_accept", &[1, 0, 8]), 57);
    // proc_raise: notsup (58); sched_yield: success.
    assert_eq!(g.errno("proc_raise", &[2]), 58);
    assert_eq!(g.errno("sched_yield", &[]), 0);
    // Closing stdin, then reading it: badf.
    assert_eq!(g.errno("fd_close", &[0]), 0);
    assert_eq!(g.errno("fd_read", &[0, 16, 1, 8]), 8);
}

#[test]
fn out_of_bounds_is_efault() {
    let (out, buf) = capture();
    let mut g = Run::new(&wrappers(ALL), Config { stdout: out, ..Config::default() });
    // Memory is 65,536 bytes. The iovec array (8 bytes) at 65,532 ends past it.
    assert_eq!(g.errno("fd_write", &[1, 65_532, 1, 8]), 21);
    // A buffer past the end, after a good one: nothing is written.
    g.iovecs(16, &[(64, 4), (65_535, 2)]);
    assert_eq!(g.errno("fd_write", &[1, 16, 2, 8]), 21);
    // A result pointer past the end: nothing is written either.
    g.iovecs(16, &[(64, 4)]);
    assert_eq!(g.errno("fd_write", &[1, 16, 1, 65_534]), 21);
    assert!(buf.borrow().is_empty());
    // Pointers near 2³²: no wrap-around.
    assert_eq!(g.errno("random_get", &[0xFFFF_FFF0, 0x20]), 21);
    // fd 0 is no preopened directory: notdir (54), before the pointer is looked at.
    assert_eq!(g.errno("fd_prestat_dir_name", &[0, -16, 0x20]), 54);
    assert_eq!(g.errno("clock_time_get", &[0, 0, 65_529]), 21);
    assert_eq!(g.errno("args_sizes_get", &[65_536, 0]), 21);
    assert_eq!(g.errno("poll_oneoff", &[65_500, 0, 1, 8]), 21);
}

#[test]
fn proc_exit_ends_the_run() {
    let mut g = Run::new(&wrappers(&["proc_exit"]), Config::default());
    assert_eq!(g.wasi.exit_code(), None);
    match g.call("proc_exit", &[7]) {
        Err(ExecError::Trap(t)) => assert_eq!(t.kind, TrapKind::Exit),
        other => panic!("{other:?}"),
    }
    assert_eq!(g.wasi.exit_code(), Some(7));
}

/// Records the host's memory events.
#[derive(Default)]
struct HostIo(Vec<(&'static str, u64, u64)>);

impl Observer for HostIo {
    fn host_read(&mut self, addr: u64, len: u64, _instructions: u64) {
        self.0.push(("read", addr, len));
    }
    fn host_write(&mut self, addr: u64, len: u64, _instructions: u64) {
        self.0.push(("write", addr, len));
    }
}

#[test]
fn observers_see_every_buffer() {
    let (out, _buf) = capture();
    let config = Config { stdout: out, stdin: Stdin::Bytes(b"0123456789".to_vec()), ..Config::default() };
    let mut g = Run::new(&wrappers(&["fd_write", "fd_read"]), config);
    g.iovecs(16, &[(64, 5), (80, 3)]);
    let f = g.store.get_func(g.inst, "fd_write").unwrap();
    let mut obs = HostIo::default();
    let args = [Value::I32(1), Value::I32(16), Value::I32(2), Value::I32(100)];
    g.store.call_observed(f, &args, &mut obs).unwrap();
    // The array (2 × 8 bytes at 16), each buffer, then the 4-byte result at 100.
    assert_eq!(obs.0, [("read", 16, 16), ("read", 64, 5), ("read", 80, 3), ("write", 100, 4)]);
    let f = g.store.get_func(g.inst, "fd_read").unwrap();
    let mut obs = HostIo::default();
    let args = [Value::I32(0), Value::I32(16), Value::I32(2), Value::I32(200)];
    g.store.call_observed(f, &args, &mut obs).unwrap();
    // Ten bytes of stdin: 5 into the first buffer, 3 into the second.
    assert_eq!(obs.0, [("read", 16, 16), ("write", 64, 5), ("write", 80, 3), ("write", 200, 4)]);
    assert_eq!(g.u32_at(200), 8);
    assert_eq!(g.wasi.io_ranges(), [(16, 32), (64, 69), (80, 83), (100, 104), (200, 204)]);
}

/// Writes the guest string `s` at `addr`, returns `(addr, len)` as arguments.
fn s(g: &mut Run, addr: usize, s: &str) -> [i64; 2] {
    g.put(addr, s.as_bytes());
    [addr as i64, s.len() as i64]
}

/// `$rights` fd_read (bit 1) | fd_seek (2) | fd_tell (5) | fd_write (6) | fd_readdir (14).
const RW: i64 = (1 << 1) | (1 << 2) | (1 << 5) | (1 << 6) | (1 << 14);
/// `$oflags`.
const CREAT: i64 = 1;
const DIRECTORY: i64 = 2;
const EXCL: i64 = 4;

/// A preopened directory `root` beside a canary file `outside.txt`, in a temporary sandbox.
fn sandbox(tag: &str) -> (TempDir, PathBuf, Config) {
    let t = TempDir::new(tag);
    let root = t.0.join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(t.0.join("outside.txt"), b"secret").unwrap();
    let config =
        Config { dirs: vec![Preopen { host: root.clone(), guest: String::from(".") }], ..Config::default() };
    (t, root, config)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn file_round_trip() {
    let (_t, root, config) = sandbox("files");
    let mut g = Run::new(&wrappers(ALL), config);
    // The preopen: fd 3, `$prestat` tag 0 (dir) and name length 1 (".").
    assert_eq!(g.errno("fd_prestat_get", &[3, 8]), 0);
    assert_eq!((g.mem()[8], g.u32_at(12)), (0, 1));
    assert_eq!(g.errno("fd_prestat_dir_name", &[3, 16, 0]), 37, "nametoolong");
    assert_eq!(g.errno("fd_prestat_dir_name", &[3, 16, 1]), 0);
    assert_eq!(g.mem()[16], b'.');
    // Create `f.txt` read-write: the next descriptor is 4.
    let [p, n] = s(&mut g, 1000, "f.txt");
    assert_eq!(g.errno("path_open", &[3, 0, p, n, CREAT, RW, RW, 0, 8]), 0);
    assert_eq!(g.u32_at(8), 4);
    g.put(64, b"hello world");
    g.iovecs(16, &[(64, 11)]);
    assert_eq!(g.errno("fd_write", &[4, 16, 1, 8]), 0);
    assert_eq!(g.u32_at(8), 11);
    assert_eq!(std::fs::read(root.join("f.txt")).unwrap(), b"hello world");
    assert_eq!(g.errno("fd_tell", &[4, 8]), 0);
    assert_eq!(g.u64_at(8), 11);
    // Seek to 6 from the start, read "world" into buffers of 2 and 10.
    assert_eq!(g.errno("fd_seek", &[4, 6, 0, 8]), 0);
    assert_eq!(g.u64_at(8), 6);
    g.iovecs(16, &[(200, 2), (210, 10)]);
    assert_eq!(g.errno("fd_read", &[4, 16, 2, 8]), 0);
    assert_eq!(g.u32_at(8), 5);
    assert_eq!((&g.mem()[200..202], &g.mem()[210..213]), (&b"wo"[..], &b"rld"[..]));
    // Seek −5 from the end (11 − 5 = 6); before the start is inval.
    assert_eq!(g.errno("fd_seek", &[4, -5, 2, 8]), 0);
    assert_eq!(g.u64_at(8), 6);
    assert_eq!(g.errno("fd_seek", &[4, -7, 1, 8]), 28);
    // pread at 0 leaves the offset at 6.
    g.iovecs(16, &[(300, 5)]);
    assert_eq!(g.errno("fd_pread", &[4, 16, 1, 0, 8]), 0);
    assert_eq!(&g.mem()[300..305], b"hello");
    assert_eq!(g.errno("fd_tell", &[4, 8]), 0);
    assert_eq!(g.u64_at(8), 6);
    // `$filestat`: filetype (u8 at 16) 4 = regular file, size (u64 at 32) 11.
    assert_eq!(g.errno("fd_filestat_get", &[4, 400]), 0);
    assert_eq!((g.mem()[416], g.u64_at(432)), (4, 11));
    let [p, n] = s(&mut g, 1000, "f.txt");
    assert_eq!(g.errno("path_filestat_get", &[3, 1, p, n, 500]), 0);
    assert_eq!((g.mem()[516], g.u64_at(532)), (4, 11));
    // A directory beside it, then the listing.
    let [p, n] = s(&mut g, 1000, "sub");
    assert_eq!(g.errno("path_create_directory", &[3, p, n]), 0);
    assert_eq!(g.errno("fd_readdir", &[3, 2000, 4096, 0, 8]), 0);
    // ".", "..", "f.txt", "sub": 4 records of 24 bytes and names of 1 + 2 + 5 + 3 bytes.
    assert_eq!(g.u32_at(8), 4 * 24 + 11);
    let mut at = 2000;
    for (i, (name, kind)) in [(".", 3), ("..", 3), ("f.txt", 4), ("sub", 3)].iter().enumerate() {
        assert_eq!(g.u64_at(at), i as u64 + 1, "d_next of {name}");
        assert_eq!(g.u32_at(at + 16) as usize, name.len());
        assert_eq!(g.mem()[at + 20], *kind, "d_type of {name}");
        assert_eq!(&g.mem()[at + 24..at + 24 + name.len()], name.as_bytes());
        at += 24 + name.len();
    }
    // From cookie 3: "sub" only; a 30-byte buffer cuts it after 30 bytes (bufused = 30).
    assert_eq!(g.errno("fd_readdir", &[3, 2000, 4096, 3, 8]), 0);
    assert_eq!(g.u32_at(8), 27);
    assert_eq!(g.errno("fd_readdir", &[3, 2000, 30, 0, 8]), 0);
    assert_eq!(g.u32_at(8), 30);
    // Rename, unlink, rmdir.
    let [p, n] = s(&mut g, 1000, "f.txt");
    let [q, m] = s(&mut g, 1100, "sub/g.txt");
    assert_eq!(g.errno("path_rename", &[3, p, n, 3, q, m]), 0);
    assert_eq!(names(&root), ["sub"]);
    assert_eq!(names(&root.join("sub")), ["g.txt"]);
    let [p, n] = s(&mut g, 1000, "sub");
    assert_eq!(g.errno("path_remove_directory", &[3, p, n]), 55, "notempty");
    let [q, m] = s(&mut g, 1100, "sub/g.txt");
    assert_eq!(g.errno("path_unlink_file", &[3, q, m]), 0);
    assert_eq!(g.errno("path_remove_directory", &[3, p, n]), 0);
    assert!(names(&root).is_empty());
    // The descriptor still reads the unlinked file; closing it frees 4, reused next.
    assert_eq!(g.errno("fd_close", &[4]), 0);
    assert_eq!(g.errno("fd_close", &[4]), 8);
    let [p, n] = s(&mut g, 1000, "new");
    assert_eq!(g.errno("path_open", &[3, 0, p, n, CREAT | EXCL, RW, RW, 0, 8]), 0);
    assert_eq!(g.u32_at(8), 4);
    assert_eq!(g.errno("path_open", &[3, 0, p, n, CREAT | EXCL, RW, RW, 0, 8]), 20, "exist");
    assert_eq!(g.errno("path_open", &[3, 0, p, n, DIRECTORY, RW, RW, 0, 8]), 54, "notdir");
    // A file opened for reading only is not written: badf from the OS.
    assert_eq!(g.errno("path_open", &[3, 0, p, n, 0, 2, 2, 0, 8]), 0);
    assert_eq!(g.u32_at(8), 5);
    g.iovecs(16, &[(64, 3)]);
    assert_eq!(g.errno("fd_write", &[5, 16, 1, 8]), 8);
    assert_eq!(std::fs::read(root.join("new")).unwrap(), b"");
}

/// Every way out of the preopened directory fails with the errno wasmtime gives and leaves
/// the sandbox outside it as it was.
#[test]
#[cfg(unix)]
fn escapes_are_refused() {
    let (t, root, config) = sandbox("escapes");
    std::fs::create_dir(root.join("a")).unwrap();
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, root.join(name)).unwrap();
    link("/", "to_root");
    link("../..", "up2");
    link("..", "up1");
    link("loop_b", "loop_a");
    link("loop_a", "loop_b");
    link("a", "to_a");
    let before_outside = names(&t.0);
    let mut g = Run::new(&wrappers(ALL), config);
    let open = |g: &mut Run, path: &str, lookup: i64, oflags: i64| {
        let [p, n] = s(g, 1000, path);
        g.errno("path_open", &[3, lookup, p, n, oflags, RW, RW, 0, 8])
    };
    for (path, want) in [
        ("../x", 63),
        ("/etc/passwd", 63),
        ("to_root/etc/passwd", 63),
        ("up2/outside.txt", 63),
        ("up1/outside.txt", 63),
        ("a/../../x", 63),
        ("a/../../outside.txt", 63),
        ("..", 63),
        ("loop_a", 32),
        ("to_root", 63),
    ] {
        assert_eq!(open(&mut g, path, 1, CREAT), want, "open {path:?} following links");
    }
    // Not following a last link: loop (as O_NOFOLLOW answers), however far it points.
    assert_eq!(open(&mut g, "to_root", 0, 0), 32);
    assert_eq!(open(&mut g, "loop_a", 0, 0), 32);
    // A link inside, to a directory inside: fine.
    assert_eq!(open(&mut g, "to_a/f", 0, CREAT), 0);
    assert!(root.join("a/f").exists());
    // Stat of a link not followed: `$filetype` 7 (symbolic link).
    let [p, n] = s(&mut g, 1000, "to_root");
    assert_eq!(g.errno("path_filestat_get", &[3, 0, p, n, 500]), 0);
    assert_eq!(g.mem()[516], 7);
    assert_eq!(g.errno("path_filestat_get", &[3, 1, p, n, 500]), 63);
    // Reading a link's text is allowed, but not an absolute one (wasmtime's rule).
    assert_eq!(g.errno("path_readlink", &[3, p, n, 600, 10, 8]), 63);
    let [p, n] = s(&mut g, 1000, "up2");
    assert_eq!(g.errno("path_readlink", &[3, p, n, 600, 10, 8]), 0);
    assert_eq!((g.u32_at(8), &g.mem()[600..605]), (5, &b"../.."[..]));
    // The other calls, each way out.
    let [p, n] = s(&mut g, 1000, "../newdir");
    assert_eq!(g.errno("path_create_directory", &[3, p, n]), 63);
    let [p, n] = s(&mut g, 1000, "up1/outside.txt");
    assert_eq!(g.errno("path_unlink_file", &[3, p, n]), 63);
    let [q, m] = s(&mut g, 1100, "stolen");
    assert_eq!(g.errno("path_link", &[3, 0, p, n, 3, q, m]), 63);
    assert_eq!(g.errno("path_rename", &[3, p, n, 3, q, m]), 63);
    let [p, n] = s(&mut g, 1000, "a");
    let [q, m] = s(&mut g, 1100, "../moved");
    assert_eq!(g.errno("path_rename", &[3, p, n, 3, q, m]), 63);
    let [p, n] = s(&mut g, 1000, "../../tmp");
    assert_eq!(g.errno("path_remove_directory", &[3, p, n]), 63);
    let [p, n] = s(&mut g, 1000, "../evil");
    let [q, m] = s(&mut g, 1100, "/");
    assert_eq!(g.errno("path_symlink", &[q, m, 3, p, n]), 63);
    // A link made by the guest that points out is refused when used.
    let [p, n] = s(&mut g, 1000, "evil");
    let [q, m] = s(&mut g, 1100, "../outside.txt");
    assert_eq!(g.errno("path_symlink", &[q, m, 3, p, n]), 0);
    assert_eq!(open(&mut g, "evil", 1, 0), 63);
    assert_eq!(g.errno("path_filestat_set_times", &[3, 1, p, n, 0, 0, 1 << 1]), 63);
    // A directory opened below: `..` from it is refused even though its parent is inside.
    let [p, n] = s(&mut g, 1000, "a");
    // Rights fd_read (bit 1) and fd_readdir (14): a directory is not opened for writing.
    let r = (1 << 1) | (1 << 14);
    assert_eq!(g.errno("path_open", &[3, 0, p, n, DIRECTORY, r, r, 0, 8]), 0);
    let afd = i64::from(g.u32_at(8));
    let [p, n] = s(&mut g, 1000, "../to_a");
    assert_eq!(g.errno("path_filestat_get", &[afd, 1, p, n, 500]), 63);
    let [p, n] = s(&mut g, 1000, "f");
    assert_eq!(g.errno("path_filestat_get", &[afd, 1, p, n, 500]), 0);
    // Outside: the same names, and the canary unchanged.
    assert_eq!(names(&t.0), before_outside);
    assert_eq!(std::fs::read(t.0.join("outside.txt")).unwrap(), b"secret");
}

#[test]
fn preopen_errors_name_the_directory() {
    let t = TempDir::new("setup");
    let missing = t.0.join("missing");
    let config = Config {
        dirs: vec![Preopen { host: missing.clone(), guest: String::from("/data") }],
        ..Config::default()
    };
    let e = Wasi::new(config).unwrap_err();
    assert_eq!(e.host, missing);
    assert!(matches!(e.kind, SetupErrorKind::Os { kind: std::io::ErrorKind::NotFound, .. }));
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("cannot preopen directory {} (as \"/data\"): ", missing.display())),
        "{text}"
    );
    std::fs::write(t.0.join("file"), b"").unwrap();
    let config = Config {
        dirs: vec![Preopen { host: t.0.join("file"), guest: String::from(".") }],
        ..Config::default()
    };
    assert_eq!(Wasi::new(config).unwrap_err().kind, SetupErrorKind::NotADirectory);
}

/// wasi-threads' `thread-spawn` spawns nothing: a command that asks for a thread gets −6
/// (`errno::again`, negated) and, as a program that can go on without it should, does the
/// work itself. Run through the command runner, so the import is linked as a front end links
/// it: `_start` calls `thread-spawn` (the answer is negative, so the else arm puts the
/// fallback's 19 bytes in the iovec), writes them with `fd_write`, then exits with the
/// negated answer of a second call: stdout "on the only thread\n", exit code 6, 4 calls.
#[cfg(not(feature = "only-2-0"))]
#[test]
fn thread_spawn_fails_and_the_program_falls_back() {
    use crate::run::{Command, End, Imports, Program, Run};
    let wat = r#"(module
      (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
      (memory (export "memory") 1 1 shared)
      (data (i32.const 16) "in a thread\n")
      (data (i32.const 32) "on the only thread\n")
      (func (export "wasi_thread_start") (param i32 i32))
      (func (export "_start")
        (if (i32.ge_s (call $spawn (i32.const 1234)) (i32.const 0))
          (then (i32.store (i32.const 0) (i32.const 16)) (i32.store (i32.const 4) (i32.const 12)))
          (else (i32.store (i32.const 0) (i32.const 32)) (i32.store (i32.const 4) (i32.const 19))))
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
        (call $exit (i32.sub (i32.const 0) (call $spawn (i32.const 0))))))"#;
    let wasm = wat::parse_str(wat).unwrap();
    let stdout = Rc::new(RefCell::new(Vec::new()));
    let config = Config { stdout: Output::Capture(stdout.clone()), ..Config::default() };
    let imports = Imports { wasi: Some(config), stubs: Vec::new() };
    let program = Program::Command(Command { module: &wasm, loaded: None, imports });
    let mut run = Run { program, budget: None, limits: Limits::default() };
    let finished = run.execute(&mut crate::wasm::NoObserver).unwrap();
    assert_eq!(finished.end, End::Exit(6));
    assert_eq!(stdout.borrow().as_slice(), b"on the only thread\n");
    assert_eq!(finished.counters.calls, 4);
    assert_eq!(THREAD_SPAWN_ERROR, -6);
}

/// `thread-spawn` links under its one name and type; other modules are not WASI's.
#[test]
fn thread_spawn_links_by_name_and_type() {
    use crate::wasm::{FuncType, ValType::I32};
    let wasi = Wasi::new(Config::default()).unwrap();
    let mut store = Store::new(Limits::default());
    let spawn = FuncType::new([I32], [I32]);
    assert!(wasi.link_import(&mut store, THREADS_MODULE, THREAD_SPAWN, &spawn).unwrap().is_ok());
    let err = wasi.link_thread_spawn(&mut store, "thread_spawn", &spawn).unwrap_err();
    assert_eq!(
        (err.clone(), err.to_string()),
        (LinkError::UnknownThreads, "not thread-spawn, the one function of wasi".into())
    );
    let err = wasi.link_thread_spawn(&mut store, THREAD_SPAWN, &FuncType::new([I32], [])).unwrap_err();
    assert_eq!(err, LinkError::Type { expected: spawn.clone() });
    assert!(wasi.link_import(&mut store, "env", THREAD_SPAWN, &spawn).is_none());
    assert_eq!(wasi.link_import(&mut store, MODULE, "nope", &spawn), Some(Err(LinkError::Unknown)));
}
