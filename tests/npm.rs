//! The npm package (docs/npm.md) as a user gets it: the tarball `make npm` packs
//! (`target/npm/qip-memory-VERSION.tgz`, a prerequisite of `make test`), installed with
//! `npm install --offline` into an empty directory (offline: the package has no dependencies to
//! fetch). Its `as-heap-analyzer` and `qip-memory` commands are compared with the native CLI
//! byte for byte, exit status included; its JavaScript API with the CLI's outputs; capture in
//! plain Node with `heap capture` of the same program; and the README's npm section runs as
//! written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/assemblyscript/build")
}

/// The packed tarball.
fn tarball() -> PathBuf {
    let tgz = root().join(format!("target/npm/qip-memory-{}.tgz", env!("CARGO_PKG_VERSION")));
    assert!(
        tgz.is_file(),
        "{} is missing: `make npm` packs it (a prerequisite of `make test`)",
        tgz.display()
    );
    tgz
}

/// A fresh directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qip-memory-npm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The package installed into an empty directory (once per test process), with the heap
/// fixtures copied into its `work/` and the test scripts beside `node_modules`.
fn installed() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("install");
        let o = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--offline"])
            .arg(tarball())
            .current_dir(&dir)
            .output()
            .expect("npm runs");
        assert!(o.status.success(), "npm install failed: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::create_dir_all(dir.join("work/sub")).unwrap();
        for entry in std::fs::read_dir(fixtures()).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join("work").join(path.file_name().unwrap())).unwrap();
        }
        std::fs::copy(root().join("tests/targets/url-to-qr-svg.wasm"), dir.join("work/url-to-qr-svg.wasm"))
            .unwrap();
        let dump = std::fs::read(fixtures().join("leak.2.dump")).unwrap();
        std::fs::write(dir.join("work/truncated.dump"), &dump[..1000]).unwrap();
        for script in ["api.mjs", "capture.mjs"] {
            std::fs::copy(root().join("tests/npm").join(script), dir.join(script)).unwrap();
        }
        dir
    })
}

/// The native binary under WARPO's name (a link named `as-heap-analyzer`), as the npm
/// package's `as-heap-analyzer` starts the same program.
fn native_as_heap_analyzer() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = scratch("bin");
        let link = dir.join("as-heap-analyzer");
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_qip-memory"), &link).unwrap();
        link
    })
}

fn run(program: &Path, args: &[&str], cwd: &Path) -> Output {
    Command::new(program).args(args).current_dir(cwd).output().expect("the command runs")
}

fn npx(bin: &str, args: &[&str], cwd: &Path) -> Output {
    Command::new("npx").arg("--no-install").arg(bin).args(args).current_dir(cwd).output().expect("npx runs")
}

/// Stdout, stderr and exit status, for comparison.
fn seen(o: &Output) -> (String, String, Option<i32>) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

#[test]
fn the_tarball_has_no_dependencies_and_declares_both_commands() {
    let o = Command::new("tar").arg("-xOzf").arg(tarball()).arg("package/package.json").output().unwrap();
    assert!(o.status.success());
    let p: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(p["name"], "qip-memory");
    assert_eq!(p["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["type"], "module");
    assert_eq!(p["engines"]["node"], ">=20");
    assert_eq!(p["bin"]["qip-memory"], "bin/qip-memory.js");
    assert_eq!(p["bin"]["as-heap-analyzer"], "bin/as-heap-analyzer.js");
    assert_eq!(p["exports"]["."]["types"], "./index.d.ts");
    for key in ["dependencies", "optionalDependencies", "peerDependencies", "scripts", "gypfile"] {
        assert!(p.get(key).is_none(), "package.json has {key}: {}", p[key]);
    }
    let list = Command::new("tar").arg("-tzf").arg(tarball()).output().unwrap();
    let mut files: Vec<String> = String::from_utf8(list.stdout).unwrap().lines().map(str::to_owned).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "package/README.md",
            "package/bin/as-heap-analyzer.js",
            "package/bin/qip-memory.js",
            "package/index.d.ts",
            "package/index.js",
            "package/lib/api.js",
            "package/lib/capture.js",
            "package/lib/cli.js",
            "package/package.json",
            "package/qip-memory.wasm",
        ]
    );
}

/// WARPO's documented commands (its flags, defaults, errors), run from a subdirectory with
/// relative paths through `..`, as a Node CLI is used.
const WARPO_COMMANDS: &[&[&str]] = &[
    &["analyze", "../leak.2.dump", "--wasm", "../leak.wasm"],
    &["analyze", "../leak.2.dump", "--wasm", "../leak.no-dwarf.wasm", "--sort", "shallow", "--top", "3"],
    &["analyze", "../dwarf_fixture.1.dump", "--wasm", "../dwarf_fixture.wasm", "--sort", "count"],
    &["analyze", "../sessions.1.dump", "--wasm", "../sessions.no-dwarf.wasm", "--top", "2"],
    &["diff", "../leak.1.dump", "../leak.2.dump", "--wasm", "../leak.wasm"],
    &[
        "diff",
        "../leak.1.dump",
        "../leak.2.dump",
        "--wasm",
        "../leak.no-dwarf.wasm",
        "--sort",
        "freed",
        "--top",
        "1",
    ],
    &[
        "diff",
        "../alloc_free.1.dump",
        "../alloc_free.2.dump",
        "--wasm",
        "../alloc_free.wasm",
        "--sort",
        "alloc",
    ],
    &["analyze", "../leak.2.dump", "--wasm", "../leak.wasm", "--sort", "bogus"],
    &["analyze", "../leak.2.dump", "--wasm", "../leak.wasm", "--top", "0"],
    &["analyze", "../missing.dump", "--wasm", "../leak.wasm"],
    &["analyze", "../truncated.dump", "--wasm", "../leak.wasm"],
    &["analyze", "../leak.2.dump"],
    &["--version"],
    &[],
];

#[test]
fn as_heap_analyzer_from_npm_prints_what_the_native_cli_prints() {
    let cwd = installed().join("work/sub");
    for args in WARPO_COMMANDS {
        let ours = npx("as-heap-analyzer", args, &cwd);
        let native = run(native_as_heap_analyzer(), args, &cwd);
        assert_eq!(seen(&ours), seen(&native), "as-heap-analyzer {}", args.join(" "));
        // And what `qip-memory heap` prints on stdout, with the same status.
        let mut heap = vec!["heap"];
        heap.extend_from_slice(args);
        let native_heap = run(Path::new(env!("CARGO_BIN_EXE_qip-memory")), &heap, &cwd);
        assert_eq!(
            (ours.stdout.clone(), ours.status.code()),
            (native_heap.stdout.clone(), native_heap.status.code()),
            "qip-memory heap {}",
            args.join(" ")
        );
    }
    // The JSON is there, and the errors are WARPO's one line.
    let ok = npx("as-heap-analyzer", WARPO_COMMANDS[0], &cwd);
    assert!(String::from_utf8_lossy(&ok.stdout).starts_with("{\n  \"totalHeapSize\": "));
    let bad = npx("as-heap-analyzer", WARPO_COMMANDS[7], &cwd);
    assert_eq!(
        (String::from_utf8_lossy(&bad.stderr).as_ref(), bad.status.code()),
        ("Invalid constructor sort field: bogus. Must be retained, shallow, or count.\n", Some(1))
    );
}

#[test]
fn qip_memory_from_npm_prints_what_the_native_cli_prints() {
    let cwd = installed().join("work/sub");
    let commands: &[&[&str]] = &[
        &["heap", "retainers", "../leak.2.dump", "--wasm", "../leak.wasm", "--class", "leak/Session"],
        &[
            "heap",
            "retainers",
            "../leak.2.dump",
            "--wasm",
            "../leak.wasm",
            "--class",
            "Session",
            "--format",
            "table",
        ],
        &["heap", "dominators", "../leak.2.dump", "--wasm", "../leak.no-dwarf.wasm", "--format", "table"],
        &["heap", "analyze", "../truncated.dump", "--wasm", "../leak.wasm"],
        &["heap", "--version"],
        &["page-writes", "../url-to-qr-svg.wasm", "--input", "https://example.com"],
    ];
    for args in commands {
        let ours = npx("qip-memory", args, &cwd);
        let native = run(Path::new(env!("CARGO_BIN_EXE_qip-memory")), args, &cwd);
        assert_eq!(seen(&ours), seen(&native), "qip-memory {}", args.join(" "));
    }
    // A file written where the user points, relative to the working directory.
    let args = ["heap", "snapshot", "../leak.2.dump", "--wasm", "../leak.wasm", "-o", "../leak.heapsnapshot"];
    let ours = npx("qip-memory", &args, &cwd);
    assert_eq!(ours.status.code(), Some(0), "{}", String::from_utf8_lossy(&ours.stderr));
    let from_node = std::fs::read(installed().join("work/leak.heapsnapshot")).unwrap();
    let native = run(Path::new(env!("CARGO_BIN_EXE_qip-memory")), &args, &cwd);
    assert_eq!(native.status.code(), Some(0));
    assert_eq!(from_node, std::fs::read(installed().join("work/leak.heapsnapshot")).unwrap());
}

/// A run of the interpreter inside the package: Node 20's `node:wasi` crashed now and then
/// (SIGSEGV, about one run in two) when a host call followed the memory growth every run of a
/// target with a memory makes; the launcher turns V8's fast API calls off (npm/lib/cli.js).
/// Twenty runs in a row must all give the native output.
#[test]
fn twenty_runs_of_a_target_with_memory_exit_cleanly() {
    let dir = scratch("memory-runs");
    // One page of memory, and a function whose run is 2 instructions (`i32.const`, `end`).
    std::fs::write(
        dir.join("one.wat"),
        "(module (memory 1) (func (export \"f\") (result i32) i32.const 42))",
    )
    .unwrap();
    let native =
        run(Path::new(env!("CARGO_BIN_EXE_qip-memory")), &["count", "one.wat", "--invoke", "f"], &dir);
    assert!(String::from_utf8_lossy(&native.stdout).contains("instructions 2\n"));
    let bin = installed().join("node_modules/.bin/qip-memory");
    for n in 0..20 {
        let ours = run(&bin, &["count", "one.wat", "--invoke", "f"], &dir);
        assert_eq!(
            (ours.status.code(), &ours.stdout),
            (native.status.code(), &native.stdout),
            "run {n}: {}",
            String::from_utf8_lossy(&ours.stderr)
        );
    }
}

/// The native CLI's stdout for `args`, run in `dir`.
fn native_stdout(dir: &Path, args: &[&str]) -> String {
    let o = run(Path::new(env!("CARGO_BIN_EXE_qip-memory")), args, dir);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_javascript_api_returns_what_the_cli_prints() {
    let dir = installed();
    let work = dir.join("work");
    let o = Command::new("node").arg("api.mjs").arg(&work).current_dir(dir).output().unwrap();
    assert!(o.status.success(), "api.mjs: {}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "api.mjs printed on stderr: {}", String::from_utf8_lossy(&o.stderr));
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cli = |args: &[&str]| {
        let mut all = vec!["heap"];
        all.extend_from_slice(args);
        native_stdout(&work, &all)
    };
    assert_eq!(got["analyze"], json(&cli(&["analyze", "leak.2.dump", "--wasm", "leak.wasm"])));
    assert_eq!(
        got["analyzeShallowTop2"],
        json(&cli(&["analyze", "leak.2.dump", "--wasm", "leak.wasm", "--sort", "shallow", "--top", "2"]))
    );
    assert_eq!(got["analyzeShallowTop2"]["constructors"].as_array().unwrap().len(), 2);
    assert_eq!(
        got["analyzeTable"],
        cli(&[
            "analyze",
            "dwarf_fixture.1.dump",
            "--wasm",
            "dwarf_fixture.wasm",
            "--top",
            "3",
            "--format",
            "table"
        ])
    );
    assert_eq!(
        got["analyzeNoDwarf"],
        json(&cli(&["analyze", "leak.2.dump", "--wasm", "leak.no-dwarf.wasm", "--top", "3"]))
    );
    assert_eq!(
        got["diff"],
        json(&cli(&[
            "diff",
            "leak.1.dump",
            "leak.2.dump",
            "--wasm",
            "leak.wasm",
            "--sort",
            "alloc",
            "--top",
            "2"
        ]))
    );
    assert_eq!(
        got["retainers"],
        json(&cli(&[
            "retainers",
            "leak.2.dump",
            "--wasm",
            "leak.wasm",
            "--class",
            "leak/Session",
            "--paths",
            "2"
        ]))
    );
    assert_eq!(
        got["dominators"],
        json(&cli(&["dominators", "leak.2.dump", "--wasm", "leak.wasm", "--depth", "2", "--top", "3"]))
    );
    cli(&["snapshot", "leak.2.dump", "--wasm", "leak.wasm", "-o", "api.heapsnapshot"]);
    assert_eq!(
        got["snapshot"].as_str().unwrap(),
        std::fs::read_to_string(work.join("api.heapsnapshot")).unwrap()
    );

    // Errors carry the CLI's line for the same files under the API's names.
    let named = scratch("api-errors");
    let dump = std::fs::read(work.join("leak.2.dump")).unwrap();
    std::fs::write(named.join("dump"), &dump[..1000]).unwrap();
    std::fs::copy(work.join("leak.wasm"), named.join("module.wasm")).unwrap();
    let refused = run(
        Path::new(env!("CARGO_BIN_EXE_qip-memory")),
        &["heap", "analyze", "dump", "--wasm", "module.wasm"],
        &named,
    );
    let line = String::from_utf8(refused.stderr).unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(got["truncated"]["message"], line.trim_end());
    assert_eq!(
        (got["truncated"]["qip"].as_bool(), got["truncated"]["exitCode"].as_i64()),
        (Some(true), Some(1))
    );
    assert_eq!(got["truncated"]["name"], "QipMemoryError");
    std::fs::write(named.join("dump"), &dump).unwrap();
    let sort = run(
        Path::new(env!("CARGO_BIN_EXE_qip-memory")),
        &["heap", "analyze", "dump", "--wasm", "module.wasm", "--sort", "size"],
        &named,
    );
    assert_eq!(got["badSort"]["message"], String::from_utf8(sort.stderr).unwrap().trim_end());
    assert_eq!(
        got["badSort"]["message"],
        "qip-memory: Invalid constructor sort field: size. Must be retained, shallow, or count."
    );
    assert_eq!(got["unknownOption"]["type"], true);
    assert_eq!(got["unknownOption"]["message"], "unknown option sorted: expected sort, top, format");
    assert_eq!(got["nullOptions"], got["analyze"]);
    let hyphen = run(
        Path::new(env!("CARGO_BIN_EXE_qip-memory")),
        &["heap", "analyze", "dump", "--wasm", "module.wasm", "--sort=--format=table"],
        &named,
    );
    assert_eq!(got["hyphenSort"]["message"], String::from_utf8(hyphen.stderr).unwrap().trim_end());
    assert_eq!(
        got["hyphenSort"]["message"],
        "qip-memory: Invalid constructor sort field: --format=table. Must be retained, shallow, or count."
    );
    assert_eq!(got["snapshotOption"]["message"], "unknown option bogus: this function takes none");
    // `Session` is short for the one live class `leak/Session`.
    assert_eq!(got["shortClass"], got["retainers"]);
    assert_eq!(got["notBytes"]["type"], true);
    assert_eq!(got["notBytes"]["message"], "dump must be a Uint8Array, an ArrayBuffer or a typed array view");
}

/// The module's globals as wasmparser reads them (not our code): (value type, mutable).
fn globals(wasm: &[u8]) -> Vec<(wasmparser::ValType, bool)> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        match payload.unwrap() {
            wasmparser::Payload::ImportSection(r) => {
                for import in r.into_imports() {
                    if let wasmparser::TypeRef::Global(g) = import.unwrap().ty {
                        out.push((g.content_type, g.mutable));
                    }
                }
            }
            wasmparser::Payload::GlobalSection(r) => {
                for g in r {
                    let g = g.unwrap();
                    out.push((g.ty.content_type, g.ty.mutable));
                }
            }
            _ => {}
        }
    }
    out
}

/// Every section of the module but the export section, as (id, bytes), by wasmparser.
fn sections_but_exports(wasm: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let Some((id, range)) = payload.unwrap().as_section()
            && id != 7
        {
            out.push((id, wasm[range.start as usize..range.end as usize].to_vec()));
        }
    }
    out
}

/// The `className` → `count` rows of WARPO's constructor view.
fn counts(view: &serde_json::Value) -> Vec<(String, u64)> {
    view["constructors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["className"].as_str().unwrap().to_owned(), c["count"].as_u64().unwrap()))
        .collect()
}

#[test]
fn capture_in_node_equals_heap_capture_and_keeps_the_global_roots() {
    let program = fixtures().join("global_tree.wasm");
    let wasm = std::fs::read(&program).unwrap();
    let (node_dir, seed_dir, native_dir) =
        (scratch("capture-node"), scratch("capture-seed"), scratch("capture-native"));
    // Global 0 imported (mutable i32, 7 from the host), global 1 defined (mutable i32, 5), and
    // the three region globals (immutable): 100, 200, 300.
    let importing = node_dir.join("importing.wasm");
    let importing_wat = r#"(module (import "host" "g" (global (mut i32))) (global (mut i32) (i32.const 5))
        (global (export "__data_end") i32 (i32.const 100))
        (global (export "__heap_base") i32 (i32.const 200))
        (global (export "__stack_pointer") i32 (i32.const 300)) (memory 1))"#;
    std::fs::write(&importing, wat::parse_str(importing_wat).unwrap()).unwrap();
    let o = Command::new("node")
        .arg("capture.mjs")
        .args([&program, &node_dir, &seed_dir, &importing])
        .current_dir(installed())
        .output()
        .unwrap();
    assert!(o.status.success(), "capture.mjs: {}", String::from_utf8_lossy(&o.stderr));
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();

    // The rewritten module: the same sections but the exports, which gain one per global (by
    // wasmparser's reading of the globals), memory 0, and the three region globals.
    let prepared = std::fs::read(node_dir.join("prepared.wasm")).unwrap();
    wasmparser::Validator::new().validate_all(&prepared).expect("the prepared module validates");
    assert_eq!(sections_but_exports(&prepared), sections_but_exports(&wasm));
    let types = globals(&wasm);
    let mut want = got["originalExports"].as_array().unwrap().clone();
    for (i, (ty, mutable)) in types.iter().enumerate() {
        assert_eq!(*ty, wasmparser::ValType::I32, "asc's globals are i32");
        let name = format!("__qip_memory_global_{i}_i32_{}", if *mutable { "var" } else { "const" });
        want.push(serde_json::json!({ "name": name, "kind": "global" }));
    }
    want.push(serde_json::json!({ "name": "__qip_memory_memory", "kind": "memory" }));
    for role in ["__data_end", "__heap_base", "__stack_pointer"] {
        want.push(serde_json::json!({ "name": format!("__qip_memory_role{role}"), "kind": "global" }));
    }
    assert_eq!(got["preparedExports"], serde_json::Value::Array(want));
    assert_eq!((got["importsKept"].as_bool(), got["again"].as_bool()), (Some(true), Some(true)));
    // "ASHD", version 2, 100, 200, 300, N = 1 (the defined global only), its value 5.
    assert_eq!(
        got["importedGlobalHeader"],
        ["41534844", "02000000", "64000000", "c8000000", "2c010000", "01000000", "05000000"].concat()
    );
    assert_eq!(got["importingExports"][3], "__qip_memory_global_0_i32_var_imported");
    assert_eq!(got["importingExports"][4], "__qip_memory_global_1_i32_var");
    // Cut anywhere, the module is refused with an offset, except where a section ends (8: the
    // header alone).
    let mut ends = vec![8u64];
    for payload in wasmparser::Parser::new(0).parse_all(&wasm) {
        if let Some((_, range)) = payload.unwrap().as_section() {
            ends.push(range.end);
        }
    }
    ends.pop(); // the last section ends the module, which is not cut there
    let kept: Vec<u64> = got["cutsKept"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(kept, ends);
    assert_eq!(got["cutsRefused"].as_u64().unwrap() as usize, wasm.len() - ends.len());

    // The dumps equal `heap capture`'s, byte for byte.
    let o = run(
        Path::new(env!("CARGO_BIN_EXE_qip-memory")),
        &["heap", "capture", program.to_str().unwrap(), "--dump-dir", native_dir.to_str().unwrap()],
        root(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mutable_i32 = types.iter().filter(|(t, m)| *t == wasmparser::ValType::I32 && *m).count() as u32;
    for n in [1, 2] {
        let name = format!("tree-{n}.dump");
        let ours = std::fs::read(node_dir.join(&name)).unwrap();
        assert_eq!(ours, std::fs::read(native_dir.join(&name)).unwrap(), "{name}");
        assert_eq!(&ours[..8], b"ASHD\x02\0\0\0");
        assert_eq!(u32::from_le_bytes(ours[20..24].try_into().unwrap()), mutable_i32, "{name}: N");
    }
    assert_eq!(&got["writeDump"].as_str().unwrap()[40..48], hex(mutable_i32));

    // Analysed: the 64 nodes the global holds, then the 32 left after pruning; the seed's
    // writer (no globals) leaves every node unreachable.
    let analyze = |dump: &Path| {
        json(&native_stdout(
            root(),
            &["heap", "analyze", dump.to_str().unwrap(), "--wasm", program.to_str().unwrap()],
        ))
    };
    let node = "global_tree/TreeNode".to_owned();
    assert!(counts(&analyze(&node_dir.join("tree-1.dump"))).contains(&(node.clone(), 64)));
    assert!(counts(&analyze(&node_dir.join("tree-2.dump"))).contains(&(node.clone(), 32)));
    let seed = std::fs::read(seed_dir.join("tree-1.dump")).unwrap();
    assert_eq!(u32::from_le_bytes(seed[20..24].try_into().unwrap()), 0);
    assert!(!counts(&analyze(&seed_dir.join("tree-1.dump"))).iter().any(|(c, _)| *c == node));

    // Paths out of the dump directory are refused with `heap capture`'s words.
    assert_eq!(
        got["escape"],
        "the guest asked for a dump at \"../escape.dump\": `..` may not leave the dump directory"
    );
    assert_eq!(
        got["absolute"],
        "the guest asked for a dump at the absolute path \"/tmp/absolute.dump\": paths must be relative to the dump directory"
    );
    assert!(!node_dir.join("../escape.dump").exists() && !Path::new("/tmp/absolute.dump").exists());
    // A missing dump directory is made; a dangling link out of it is refused.
    assert_eq!(
        std::fs::read(node_dir.join("fresh/sub/tree-1.dump")).unwrap(),
        std::fs::read(node_dir.join("tree-1.dump")).unwrap()
    );
    assert_eq!(
        got["danglingLink"],
        "the guest asked for a dump at \"tree-1.dump\": a symbolic link leads out of the dump directory"
    );
    assert!(!node_dir.join("outside").exists());
}

/// `n` as the hex of its little-endian u32.
fn hex(n: u32) -> String {
    n.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// The README's npm section (between `<!-- npm:begin -->` and `<!-- npm:end -->`) as one shell
/// script: its `sh` blocks in order, each `js` block written to the file its first line names
/// (`// capture.mjs`) in the directory the script is in at that point. `make npm` is left out:
/// the tarball is already packed.
fn npm_section_script(readme: &str) -> String {
    let start = readme.find("<!-- npm:begin -->").expect("the README has an npm section");
    let end = readme.find("<!-- npm:end -->").expect("the npm section ends");
    let mut script = String::from("set -euo pipefail\n");
    let mut lines = readme[start..end].lines();
    while let Some(line) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        match lang {
            "sh" => {
                for l in body.iter().filter(|l| !l.starts_with("make npm")) {
                    script.push_str(l);
                    script.push('\n');
                }
            }
            "js" => {
                let file =
                    body[0].strip_prefix("// ").and_then(|l| l.split(':').next()).expect("// FILE: first");
                script.push_str(&format!(
                    "cat > {file} <<'QIP_MEMORY_README_EOF'\n{}\nQIP_MEMORY_README_EOF\n",
                    body.join("\n")
                ));
            }
            _ => {}
        }
    }
    script
}

#[test]
fn the_readme_npm_section_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let script = npm_section_script(&readme);
    assert!(script.contains("npm install ") && script.contains("node capture.mjs"), "{script}");
    let dir = scratch("readme");
    std::os::unix::fs::symlink(root().join("tests"), dir.join("tests")).unwrap();
    std::os::unix::fs::symlink(root().join("target"), dir.join("target")).unwrap();
    let o = Command::new("bash").arg("-c").arg(&script).current_dir(&dir).output().unwrap();
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "the README's npm section failed:\n{script}\n{printed}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Its capture wrote the dump the analysis read: the tree the global holds is there.
    assert!(printed.contains("global_tree/TreeNode"), "{printed}");
    assert!(dir.join("my-app/dumps/tree-1.dump").is_file());
}
