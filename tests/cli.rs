//! The `qip-memory` binary end to end on small WAT modules: the `-F` body of `run` byte for
//! byte (docs/request.md), the host's memory policy, type tracking, uniforms, result decoding
//! and output writing (docs/content.md); `page-writes --stats` and its rejection
//! line. Every expected value is written out by hand.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test.
fn qip_memory(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A fresh directory for one test's files.
fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the module for `wat` to `dir/name` and returns the path as a string.
fn module(dir: &Path, name: &str, wat: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, wat::parse_str(wat).expect("valid WAT")).unwrap();
    p.to_str().unwrap().to_owned()
}

fn file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Asserts exit status 1 and exactly one stderr line, and returns it (without `\n`).
fn one_line_failure(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(o));
    let e = stderr(o);
    assert!(e.ends_with('\n') && e.matches('\n').count() == 1, "not one line: {e:?}");
    e.trim_end().to_owned()
}

/// `run`'s arguments go through clap like every subcommand's: a usage error is clap's message
/// (`error: …`, then the usage) on stderr and exit status 2.
fn usage_error(args: &[&str], message: &str) {
    let o = qip_memory(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    let e = stderr(&o);
    assert!(e.starts_with(&format!("error: {message}")), "{args:?}: {e}");
    assert!(o.stdout.is_empty());
}

/// Bytes in, the same bytes out: input at 0 (capacity 64 KiB), output `[0, len)`, no declared
/// types (so `-F` bodies pass through untouched and `-o` receives them verbatim).
const ECHO: &str = r#"(module
  (memory (export "memory") 1 1)
  (func (export "input_ptr") (result i32) i32.const 0)
  (func (export "input_bytes_cap") (result i32) i32.const 65536)
  (func (export "output_bytes_cap") (result i32) i32.const 65536)
  (func (export "render") (param i32) (result i64)
    local.get 0
    i64.extend_i32_u))"#;

/// Render stores one byte at address 0 (page 0 becomes the heat map's one tile) and returns
/// one byte of output.
const STORE_BYTE: &str = r#"(module (memory (export "memory") 1 1)
  (func (export "output_bytes_cap") (result i32) i32.const 8)
  (func (export "render") (param i32) (result i64) i32.const 0 i32.const 1 i32.store8 i64.const 1))"#;

/// UTF-8 echo that declares `text/markdown` in and out (the type string at 60,000).
const MARKDOWN_ECHO: &str = r#"(module
  (memory (export "memory") 1 1)
  (data (i32.const 60000) "text/markdown")
  (func (export "input_ptr") (result i32) i32.const 0)
  (func (export "input_utf8_cap") (result i32) i32.const 1024)
  (func (export "output_utf8_cap") (result i32) i32.const 1024)
  (func (export "input_content_type_ptr") (result i32) i32.const 60000)
  (func (export "input_content_type_size") (result i32) i32.const 13)
  (func (export "output_content_type_ptr") (result i32) i32.const 60000)
  (func (export "output_content_type_size") (result i32) i32.const 13)
  (func (export "render") (param i32) (result i64)
    local.get 0
    i64.extend_i32_u))"#;

/// Runs `-F` arguments through the echo stage and returns the body it received (`-o`).
fn body_of(d: &Path, forms: &[&str]) -> Vec<u8> {
    let echo = module(d, "echo.wasm", ECHO);
    let out = d.join("body.bin");
    let mut args = vec!["run"];
    for f in forms {
        args.extend(["-F", f]);
    }
    args.extend([echo.as_str(), "-o", out.to_str().unwrap()]);
    let o = qip_memory(&args);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "-o writes nothing to stdout");
    std::fs::read(out).unwrap()
}

/// As `qip run`: what is piped to stdin is the first stage's input when neither `-F` nor `-i`
/// gives one (the echo stage returns it); with `-F`, stdin is not read.
#[test]
fn run_reads_piped_stdin_as_qip_run_does() {
    use std::io::Write as _;
    use std::process::Stdio;
    let d = dir("run_piped_stdin");
    let echo = module(&d, "echo.wasm", ECHO);
    let out = d.join("out.bin");
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"piped bytes").unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    };
    run(&["run", &echo, "-o", out.to_str().unwrap()]);
    assert_eq!(std::fs::read(&out).unwrap(), b"piped bytes");
    run(&["run", "-F", "input=x", &echo, "-o", out.to_str().unwrap()]);
    let body = std::fs::read(&out).unwrap();
    assert!(body.starts_with(b"--uuid-") && !body.windows(11).any(|w| w == b"piped bytes"));
}

#[test]
fn form_text_field() {
    let d = dir("form_text_field");
    // "--" B CRLF, the disposition line, an empty line, the body, CRLF, the closing line.
    let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"input\"\r\n\
        \r\n\
        https://example.com\r\n\
        --uuid-00000000-0000-0000-0000-000000000000--\r\n";
    assert_eq!(body_of(&d, &["input=https://example.com"]), expected);
}

#[test]
fn form_empty_value() {
    let d = dir("form_empty_value");
    let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"input\"\r\n\
        \r\n\
        \r\n\
        --uuid-00000000-0000-0000-0000-000000000000--\r\n";
    assert_eq!(body_of(&d, &["input="]), expected);
}

#[test]
fn form_at_file_has_filename_and_content_type() {
    let d = dir("form_at_file");
    let payload = file(&d, "payload.bin", b"\0asm\x01\0\0\0\r\n");
    let arg = format!("component=@{payload}");
    // The filename is the last path segment; the octet-stream line follows the disposition.
    let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"component\"; filename=\"payload.bin\"\r\n\
        Content-Type: application/octet-stream\r\n\
        \r\n\
        \0asm\x01\0\0\0\r\n\r\n\
        --uuid-00000000-0000-0000-0000-000000000000--\r\n";
    assert_eq!(body_of(&d, &[&arg]), expected);
}

#[test]
fn form_lt_file_has_disposition_only() {
    let d = dir("form_lt_file");
    let payload = file(&d, "payload.bin", b"x=1");
    let arg = format!("input=<{payload}");
    let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"input\"\r\n\
        \r\n\
        x=1\r\n\
        --uuid-00000000-0000-0000-0000-000000000000--\r\n";
    assert_eq!(body_of(&d, &[&arg]), expected);
}

#[test]
fn form_fields_keep_their_order() {
    let d = dir("form_order");
    let payload = file(&d, "t.wasm", b"T");
    let arg = format!("component=@{payload}");
    // Order as given; `=` inside a value is part of the value (split at the first `=`).
    let expected: &[u8] = b"--uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"uniforms[b]\"\r\n\
        \r\n\
        a=b\r\n\
        --uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"component\"; filename=\"t.wasm\"\r\n\
        Content-Type: application/octet-stream\r\n\
        \r\n\
        T\r\n\
        --uuid-00000000-0000-0000-0000-000000000000\r\n\
        Content-Disposition: form-data; name=\"input\"\r\n\
        \r\n\
        hi\r\n\
        --uuid-00000000-0000-0000-0000-000000000000--\r\n";
    assert_eq!(body_of(&d, &["uniforms[b]=a=b", &arg, "input=hi"]), expected);
}

#[test]
fn form_errors() {
    let d = dir("form_errors");
    let echo = module(&d, "echo.wasm", ECHO);
    let input = file(&d, "in.txt", b"x");
    let fails = |args: &[&str]| one_line_failure(&qip_memory(args));
    assert_eq!(fails(&["run", "-F", "noequals", &echo]), "qip-memory: -F noequals: expected NAME=VALUE");
    assert_eq!(fails(&["run", "-F", "=x", &echo]), "qip-memory: -F =x: empty field name");
    assert_eq!(fails(&["run", "-F", "a=@", &echo]), "qip-memory: -F a=@: empty path");
    assert_eq!(fails(&["run", "-F", "a=<", &echo]), "qip-memory: -F a=<: empty path");
    assert_eq!(
        fails(&["run", "-F", "a\"b=x", &echo]),
        "qip-memory: -F a\"b=x: a form field name must be printable ASCII without '\"' or '\\' (field 0) (at offset 0x1)"
    );
    usage_error(
        &["run", "-F", "a=x", "-i", &input, &echo],
        "the argument '--form <NAME=VALUE>' cannot be used with '--input <PATH>'",
    );
    let missing = d.join("missing.bin");
    let line = fails(&["run", "-F", &format!("a=@{}", missing.display()), &echo]);
    assert!(line.starts_with(&format!("qip-memory: cannot read {}: ", missing.display())), "{line}");
    // A body holding a delimiter line of the boundary is refused.
    let delim = "x\r\n--uuid-00000000-0000-0000-0000-000000000000\r\ny";
    // The argument is shown with its CR and LF escaped, so the reason stays on one line.
    assert_eq!(
        fails(&["run", "-F", &format!("input={delim}"), &echo]),
        r"qip-memory: -F input=x\r\n--uuid-00000000-0000-0000-0000-000000000000\r\ny: a form field contains the multipart boundary as a delimiter line (field 0) (at offset 0x1)"
    );
}

#[test]
fn memory_grow_and_imports_are_refused() {
    let d = dir("policy");
    // memory.grow even with min == max.
    let grow = module(
        &d,
        "grow.wasm",
        r#"(module
          (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 0)
          (func (export "render") (param i32) (result i64)
            i32.const 0
            memory.grow
            drop
            i64.const 0))"#,
    );
    let line = one_line_failure(&qip_memory(&["run", &grow]));
    assert!(line.starts_with(&format!("qip-memory: {grow}: contains memory.grow (at offset 0x")), "{line}");
    let import = module(
        &d,
        "import.wasm",
        r#"(module
          (import "env" "f" (func))
          (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 0)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &import])),
        format!("qip-memory: {import}: imports env::f; a Content component must have no imports")
    );
    // The library's contract checker speaks for the contract.
    let no_render = module(&d, "norender.wasm", r#"(module (memory (export "memory") 1 1))"#);
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &no_render])),
        format!("qip-memory: {no_render}: Content contract: must export render(i32) -> i64")
    );
}

#[test]
fn utf8_output_gets_a_newline_and_types_are_tracked() {
    let d = dir("types");
    let md = module(&d, "md.wasm", MARKDOWN_ECHO);
    let echo = module(&d, "echo.wasm", ECHO);
    let input = file(&d, "in.md", "# Título\n".as_bytes());
    // -i carries no type: the first stage adopts its declared type; UTF-8 output + "\n".
    let o = qip_memory(&["run", "-i", &input, &md]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, "# Título\n\n".as_bytes());
    // text/markdown -> text/markdown: types match.
    let o = qip_memory(&["run", "-i", &input, &md, &md]);
    assert_eq!(o.stdout, "# Título\n\n".as_bytes());
    // -o writes the exact bytes, without the newline.
    let out = d.join("out.md");
    let o = qip_memory(&["run", "-i", &input, &md, "-o", out.to_str().unwrap()]);
    assert!(o.status.success() && o.stdout.is_empty());
    assert_eq!(std::fs::read(&out).unwrap(), "# Título\n".as_bytes());
    // Bytes output is written verbatim.
    let o = qip_memory(&["run", "-i", &input, &echo]);
    assert_eq!(o.stdout, "# Título\n".as_bytes());
    // -F sets the multipart type, which a typed stage refuses.
    assert_eq!(
        one_line_failure(&qip_memory(&["run", "-F", "input=x", &md])),
        format!(
            "qip-memory: {md}: expected text/markdown, got \
             multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000"
        )
    );
    // An untyped bytes stage leaves the type unspecified; a later typed stage refuses it.
    assert_eq!(
        one_line_failure(&qip_memory(&["run", "-i", &input, &echo, &md])),
        format!("qip-memory: {md}: expected text/markdown, but the pipeline content type is unspecified")
    );
    // The first stage's UTF-8 input is validated: "ab" then 0xff at offset 2.
    let bad = file(&d, "bad.md", b"ab\xffcd");
    assert_eq!(
        one_line_failure(&qip_memory(&["run", "-i", &bad, &md])),
        format!("qip-memory: {md}: input is not valid UTF-8 (first bad byte at offset 2)")
    );
    // A stage that declares UTF-8 output and returns "ab" then 0xfe (a generator whose data
    // segment is its output) is refused before stdout or the next stage sees it.
    let liar = module(
        &d,
        "liar.wasm",
        r#"(module
          (memory (export "memory") 1 1)
          (data (i32.const 16) "ab\fe")
          (func (export "output_utf8_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64) i64.const 0x10_0000_0003))"#,
    );
    for args in [&["run", &liar][..], &["run", &liar, &echo][..]] {
        assert_eq!(
            one_line_failure(&qip_memory(args)),
            format!(
                "qip-memory: {liar}: output is not valid UTF-8 but the stage declares output_utf8_cap \
                 (first bad byte at output offset 2)"
            )
        );
    }
    // Input larger than the capacity (1,024 bytes).
    let big = file(&d, "big.md", &[b'a'; 1025]);
    assert_eq!(
        one_line_failure(&qip_memory(&["run", "-i", &big, &md])),
        format!("qip-memory: {md}: input of 1025 bytes exceeds the input capacity of 1024 bytes")
    );
}

/// A generator whose output type is the multipart slot with UUID 1111…, and a consumer that
/// declares the default slot (at 1,000) and returns its slot's 70 bytes as output.
const SLOT_PRODUCER: &str = r#"(module
  (memory (export "memory") 1 1)
  (data (i32.const 1000) "multipart/form-data;boundary=uuid-11111111-2222-3333-4444-555555555555")
  (func (export "output_bytes_cap") (result i32) i32.const 0)
  (func (export "output_content_type_ptr") (result i32) i32.const 1000)
  (func (export "output_content_type_size") (result i32) i32.const 70)
  (func (export "render") (param i32) (result i64) i64.const 0))"#;
const SLOT_CONSUMER: &str = r#"(module
  (memory (export "memory") 1 1)
  (data (i32.const 1000) "multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000")
  (func (export "input_ptr") (result i32) i32.const 0)
  (func (export "input_bytes_cap") (result i32) i32.const 512)
  (func (export "output_bytes_cap") (result i32) i32.const 70)
  (func (export "input_content_type_ptr") (result i32) i32.const 1000)
  (func (export "input_content_type_size") (result i32) i32.const 70)
  (func (export "render") (param i32) (result i64) i64.const 0x000003e800000046))"#;

#[test]
fn multipart_boundary_is_copied_between_stages() {
    let d = dir("slot");
    let producer = module(&d, "producer.wasm", SLOT_PRODUCER);
    let consumer = module(&d, "consumer.wasm", SLOT_CONSUMER);
    // The host copies the producer's 36 UUID bytes into the consumer's slot.
    let o = qip_memory(&["run", &producer, &consumer]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"multipart/form-data;boundary=uuid-11111111-2222-3333-4444-555555555555");
    // With -F the type is the default slot: nothing to rewrite.
    let o = qip_memory(&["run", "-F", "input=x", &consumer]);
    assert_eq!(o.stdout, b"multipart/form-data;boundary=uuid-00000000-0000-0000-0000-000000000000");
}

/// Setters append their key's first letter at the byte `global 0` points to; render returns
/// the log `[200, 200 + global 0 - 200)`. Global 0 starts at 200. `uniform_set_x` also stores
/// its value (an unsigned i32) little-endian.
const UNIFORMS: &str = r#"(module
  (memory (export "memory") 1 1)
  (global $at (mut i32) (i32.const 200))
  (func $log (param i32)
    global.get $at
    local.get 0
    i32.store8
    global.get $at
    i32.const 1
    i32.add
    global.set $at)
  (func (export "output_bytes_cap") (result i32) i32.const 1024)
  (func (export "uniform_set_beta") (param i32) (result i32)
    i32.const 98 call $log local.get 0)
  (func (export "uniform_set_alpha") (param i64) (result i64)
    i32.const 97 call $log local.get 0)
  (func (export "uniform_set_x") (param i32) (result i32)
    i32.const 120 call $log
    global.get $at
    local.get 0
    i32.store
    global.get $at
    i32.const 4
    i32.add
    global.set $at
    local.get 0)
  (func (export "uniform_set_bad") (param i32 i32) (result i32) i32.const 0)
  (func (export "uniform_set_boom") (param i32) (result i32) unreachable)
  (func (export "render") (param i32) (result i64)
    i64.const 200
    i64.const 32
    i64.shl
    global.get $at
    i32.const 200
    i32.sub
    i64.extend_i32_u
    i64.or))"#;

#[test]
fn uniforms_sorted_last_wins_and_errors() {
    let d = dir("uniforms");
    let m = module(&d, "u.wasm", UNIFORMS);
    // Applied in key order alpha, beta, x whatever the command line says; x=0x10 twice: the
    // last value (0x0102) wins: 'x' then 02 01 00 00.
    let o = qip_memory(&["run", &m, "-u", "x=0x10", "-u", "beta=1", "-u", "alpha=-5", "-u", "x=0x0102"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"abx\x02\x01\x00\x00");
    let fails = |args: &[&str]| one_line_failure(&qip_memory(args));
    assert_eq!(
        fails(&["run", &m, "-u", "gamma=1"]),
        format!("qip-memory: {m}: has no uniform \"gamma\" (no export uniform_set_gamma)")
    );
    assert_eq!(
        fails(&["run", &m, "-u", "beta=-1"]),
        format!(
            "qip-memory: {m}: uniform beta=\"-1\": uniform value is not a number of the setter's type (at offset 0x0)"
        )
    );
    assert_eq!(
        fails(&["run", &m, "-u", "bad=1"]),
        format!("qip-memory: {m}: uniform_set_bad is not a (T) -> T setter of a scalar type")
    );
    // The trap names the function (no name-section entry: its export's name, as the
    // interpreter's tools say it) and where wasmtime located it.
    let ops = operator_offsets(&std::fs::read(&m).unwrap(), 6);
    let line = fails(&["run", &m, "-u", "boom=1"]);
    let at = line
        .strip_prefix(&format!(
            "qip-memory: {m}: uniform boom: wasm trap: wasm `unreachable` instruction executed in \
             `uniform_set_boom`, near module offset 0x"
        ))
        .unwrap_or_else(|| panic!("{line}"));
    // wasmtime's location of the trap: within the function's code (its body's local
    // declarations come just before the first operator).
    let at = usize::from_str_radix(at, 16).unwrap();
    assert!((ops[0] - 1..=ops[ops.len() - 1]).contains(&at), "{line}: outside {ops:x?}");
    assert_eq!(
        fails(&["run", "-u", "a=1", &m]),
        "qip-memory: run: -u a=1 must follow the stage it configures"
    );
    assert_eq!(fails(&["run", &m, "-u", "=1"]), "qip-memory: -u =1: empty uniform key");
    usage_error(&["run"], "the following required arguments were not provided:\n  <STAGE.wasm>...");
    usage_error(&["run", "--bogus", &m], "unexpected argument '--bogus' found");
}

#[test]
fn rejections_and_traps() {
    let d = dir("rejections");
    // Rejection with detail 7 and 2 failure modes per offset: offset 3, mode 1.
    let rej = module(
        &d,
        "rej.wasm",
        r#"(module
          (memory (export "memory") 1 1)
          (func (export "input_ptr") (result i32) i32.const 0)
          (func (export "input_bytes_cap") (result i32) i32.const 64)
          (func (export "output_bytes_cap") (result i32) i32.const 64)
          (func (export "failure_modes_per_input_offset") (result i32) i32.const 2)
          (func (export "render") (param i32) (result i64)
            i64.const 0x8000000000000007))"#,
    );
    let five = file(&d, "five.bin", b"12345");
    assert_eq!(
        one_line_failure(&qip_memory(&["run", "-i", &five, &rej])),
        format!("qip-memory: {rej} rejected input at offset 3 (mode 1)")
    );
    // Offset 3 lies past a 2-byte input.
    let two = file(&d, "two.bin", b"12");
    assert_eq!(
        one_line_failure(&qip_memory(&["run", "-i", &two, &rej])),
        format!("qip-memory: {rej}: rejected input at offset 3, past the input's 2 bytes (mode 1)")
    );
    let trap = module(
        &d,
        "trap.wasm",
        r#"(module
          (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 0)
          (func (export "render") (param i32) (result i64)
            (if (i32.eqz (local.get 0)) (then unreachable))
            i64.const 0))"#,
    );
    // `render` is function 1; with empty input its `unreachable` traps. wasmtime locates the
    // trap near it, within `render`'s code (operator offsets by wasmparser).
    let ops = operator_offsets(&std::fs::read(&trap).unwrap(), 1);
    let line = one_line_failure(&qip_memory(&["run", &trap]));
    let at = line
        .strip_prefix(&format!(
            "qip-memory: {trap}: wasm trap: wasm `unreachable` instruction executed in `render`, near module \
             offset 0x"
        ))
        .unwrap_or_else(|| panic!("{line}"));
    let at = usize::from_str_radix(at, 16).unwrap();
    assert!((ops[0]..=ops[ops.len() - 1]).contains(&at), "{line}: outside {ops:x?}");
    // Success with size 65 > capacity 64.
    let big = module(
        &d,
        "big.wasm",
        r#"(module
          (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 64)
          (func (export "render") (param i32) (result i64) i64.const 65))"#,
    );
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &big])),
        format!("qip-memory: {big}: output of 65 bytes exceeds the declared output capacity of 64 bytes")
    );
}

/// A generator for `page-writes`: memory 2 pages, no data, no globals; the setter returns its
/// argument; render stores 4 bytes at 70,000 (page 1, since 70,000 / 65,536 = 1) and returns
/// an empty success.
const STORE_TARGET: &str = r#"(module
  (memory (export "memory") 2 2)
  (func (export "output_bytes_cap") (result i32) i32.const 16)
  (func (export "uniform_set_k") (param i32) (result i32)
    local.get 0)                 ;; 1, end 2
  (func (export "render") (param i32) (result i64)
    i32.const 70000              ;; 1
    i32.const 7                  ;; 2
    i32.store                    ;; 3  (one write of 4 bytes)
    i64.const 0))                ;; 4, end 5"#;

const HEADER: &str = "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio";

#[test]
fn page_writes_csv_and_stats() {
    let d = dir("page_writes_stats");
    let t = module(&d, "store.wasm", STORE_TARGET);
    let o = qip_memory(&["page-writes", &t, "-u", "k=5", "--stats"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Page 1: no range overlaps it ("other"); 1 write of 4 bytes, 4 distinct, ratio 1.00. The
    // CSV has no trailing newline; the CLI adds one.
    assert_eq!(String::from_utf8(o.stdout.clone()).unwrap(), format!("{HEADER}\n1,other,0,0,0,1,4,4,1.00\n"));
    // Setter: local.get + end = 2 instructions, 1 return; render: 5 instructions, 1 return,
    // 1 memory write. Together: 7 instructions, 2 returns.
    assert_eq!(
        stderr(&o),
        "instructions 7\ncalls 0\nindirect_calls 0\nreturns 2\nbranches 0\nloop_iterations 0\n\
         memory_reads 0\nmemory_writes 1\n"
    );
    // Without --stats nothing goes to stderr.
    let o = qip_memory(&["page-writes", &t]);
    assert!(o.status.success() && o.stderr.is_empty());
    // Budget 4 (< 5 render instructions): exhausted in render before its `end`, mode 5. The
    // line names the function and the module offset in hex (the `end`'s, read by wasmparser);
    // --stats prints the counters of the run so far first: 4 instructions, 1 write.
    let bytes = std::fs::read(&t).unwrap();
    let end = operator_offsets(&bytes, 2)[4];
    let o = qip_memory(&["page-writes", &t, "--instruction-budget", "4", "--stats"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "instructions 4\ncalls 0\nindirect_calls 0\nreturns 0\nbranches 0\nloop_iterations 0\n\
             memory_reads 0\nmemory_writes 1\n\
             qip-memory: {t}: instruction budget of 4 instructions exhausted in `render` (next instruction \
             at module offset 0x{end:x}); raise it with --instruction-budget N (at most 1000000000) \
             (request offset {}, mode 5)\n",
            COMPONENT_START + end
        )
    );
}

/// The request's component part starts after this header block: the CLI sends every target as
/// the file `target.wasm`, whatever its path.
const COMPONENT_START: usize = "--uuid-00000000-0000-0000-0000-000000000000\r\n\
    Content-Disposition: form-data; name=\"component\"; filename=\"target.wasm\"\r\n\
    Content-Type: application/octet-stream\r\n\r\n"
    .len();

/// The module offset of every operator of defined function `index`, read by wasmparser.
fn operator_offsets(module: &[u8], index: usize) -> Vec<usize> {
    let mut bodies = Vec::new();
    for p in wasmparser::Parser::new(0).parse_all(module) {
        if let wasmparser::Payload::CodeSectionEntry(body) = p.unwrap() {
            bodies.push(body);
        }
    }
    let mut ops = bodies[index].get_operators_reader().unwrap();
    let mut out = Vec::new();
    while !ops.eof() {
        out.push(ops.read_with_offset().unwrap().1 as usize);
    }
    out
}

/// A trap names the function by its `name`-section entry, else `func[N]`, with the module
/// offset in hex and the instructions executed of the budget.
#[test]
fn traps_name_the_function() {
    let d = dir("trap_names");
    let wat = |callee: &str, id: &str| {
        format!(
            r#"(module
  (memory (export "memory") 1 1)
  (func (export "output_bytes_cap") (result i32) i32.const 16)
  (func (export "render") (param i32) (result i64)
    call {callee}                ;; 1
    i64.const 0)
  (func {id} unreachable))       ;; 2, the trap"#
        )
    };
    for (file, callee, id, said) in
        [("named.wasm", "$boom", "$boom", "`boom`"), ("unnamed.wasm", "2", "", "func[2]")]
    {
        let t = module(&d, file, &wat(callee, id));
        let at = operator_offsets(&std::fs::read(&t).unwrap(), 2)[0];
        let line = one_line_failure(&qip_memory(&["page-writes", &t]));
        assert_eq!(
            line,
            format!(
                "qip-memory: {t}: target trapped in {said} at module offset 0x{at:x}: unreachable, after 2 of \
                 1000000 instructions (request offset {}, mode 4)",
                COMPONENT_START + at
            )
        );
    }
}

/// Target uniforms follow QIP's Content interpreter (docs/uniforms.md): `1_000` is 1000 for
/// an `i32` setter (Go `qip run` would refuse it). The setter traps unless it gets 1000.
#[test]
fn target_uniforms_are_parsed_like_the_content_interpreter() {
    let d = dir("target_uniforms");
    let t = module(
        &d,
        "want1000.wasm",
        r#"(module
  (memory (export "memory") 1 1)
  (func (export "output_bytes_cap") (result i32) i32.const 16)
  (func (export "uniform_set_k") (param i32) (result i32)
    local.get 0 i32.const 1000 i32.ne if unreachable end local.get 0)
  (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    for value in ["1000", "1_000", "0x3e8", "0x3_e8"] {
        let o = qip_memory(&["page-writes", &t, "-u", &format!("k={value}")]);
        assert!(o.status.success(), "k={value}: {}", stderr(&o));
    }
    let line = one_line_failure(&qip_memory(&["page-writes", &t, "-u", "k=1_001"]));
    assert!(line.ends_with(", mode 4)"), "a trap in the setter: {line}");
    let line = one_line_failure(&qip_memory(&["page-writes", &t, "-u", "k=_1000"]));
    assert!(line.ends_with(", mode 3)") && line.contains("not a number of the setter's type"), "{line}");
}

/// `thermal -o` writes KTX2 bytes, so a name with another extension is refused before
/// anything runs, pointing at `--view` and `--png`; a clamped `--instruction-budget` is said.
#[test]
fn thermal_output_names_and_clamped_budgets_are_said() {
    let d = dir("thermal_names");
    let t = module(&d, "store.wasm", STORE_TARGET);
    let png = d.join("qr.png");
    let line = one_line_failure(&qip_memory(&["thermal", &t, "-o", png.to_str().unwrap()]));
    let p = png.display();
    assert_eq!(
        line,
        format!(
            "qip-memory: -o {p} would hold KTX2 bytes (the measurement image): name it .ktx2, or use \
             --view {p} for the labelled picture or --png {p} for the same pixels as PNG"
        )
    );
    assert!(!png.exists());
    // A path that is not a regular file takes the bytes whatever its name.
    let o = qip_memory(&["thermal", &t, "-o", "/dev/null"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    // Any case of .ktx2 is a KTX2 name; the file starts with the KTX2 identifier.
    let ktx2 = d.join("heat.KTX2");
    let o = qip_memory(&["thermal", &t, "-o", ktx2.to_str().unwrap()]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(&std::fs::read(&ktx2).unwrap()[..12], b"\xabKTX 20\xbb\r\n\x1a\n");
    // 0 and 2,000,000,000 are clamped to the component's range, and the CLI says so; a budget
    // of 1 runs out in render's 5 instructions (mode 5).
    let o = qip_memory(&["page-writes", &t, "--instruction-budget", "0"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.starts_with("qip-memory: --instruction-budget 0 is below the least, 1: using 1\n"), "{e}");
    assert!(e.contains(": instruction budget of 1 instructions exhausted in `render`"), "{e}");
    assert!(e.ends_with(", mode 5)\n"), "{e}");
    let o = qip_memory(&["page-writes", &t, "--instruction-budget", "2000000000"]);
    assert!(o.status.success());
    assert_eq!(
        stderr(&o),
        "qip-memory: --instruction-budget 2000000000 is above the most, 1000000000: using 1000000000\n"
    );
}

#[test]
fn page_writes_rejections_are_one_line() {
    let d = dir("page_writes_rejections");
    let t = module(&d, "gen.wasm", STORE_TARGET);
    let component_start = COMPONENT_START;
    // Input for a generator: mode 2 at the component part's start.
    let o = qip_memory(&["page-writes", &t, "--input", "x"]);
    assert_eq!(
        one_line_failure(&o),
        format!(
            "qip-memory: {t}: the target is a generator (no input_ptr) but input was given \
             (request offset {component_start}, mode 2)"
        )
    );
    // An invalid uniform key is a malformed request (mode 0) at the start of its part, which
    // follows the component body and its CRLF and delimiter line.
    let module_len = std::fs::metadata(&t).unwrap().len() as usize;
    let part_start =
        component_start + module_len + "\r\n--uuid-00000000-0000-0000-0000-000000000000\r\n".len();
    let line = one_line_failure(&qip_memory(&["page-writes", &t, "-u", "Bad=1"]));
    assert!(line.starts_with(&format!("qip-memory: {t}: malformed multipart request")), "{line}");
    assert!(line.ends_with(&format!(" (request offset {part_start}, mode 0)")), "{line}");
    // A file that does not exist: exit 1, the path named.
    let missing = d.join("missing.wasm");
    let line = one_line_failure(&qip_memory(&["page-writes", missing.to_str().unwrap()]));
    assert!(line.starts_with(&format!("qip-memory: cannot read {}: ", missing.display())), "{line}");
}

#[test]
fn thermal_usage_and_failures() {
    let d = dir("thermal_usage");
    let m = module(&d, "echo.wasm", ECHO);
    let png = d.join("out.png");
    let png = png.to_str().unwrap();
    // No output file: a usage error (clap, exit 2).
    assert_eq!(qip_memory(&["thermal", &m]).status.code(), Some(2));
    // normalize is 0 or 1.
    assert_eq!(qip_memory(&["thermal", &m, "--normalize", "2", "--png", png]).status.code(), Some(2));
    // A missing target: one line naming it.
    let missing = d.join("missing.wasm");
    let o = qip_memory(&["thermal", missing.to_str().unwrap(), "--png", png]);
    assert!(one_line_failure(&o).starts_with(&format!("qip-memory: cannot read {}: ", missing.display())));
    // The echo target reads and writes nothing without input: mode 8 at the request's end.
    let o = qip_memory(&["thermal", &m, "--png", png]);
    let line = one_line_failure(&o);
    assert!(line.contains(": nothing to report") && line.ends_with(", mode 8)"), "{line}");
    assert!(!Path::new(png).exists());
    // An unwritable output path: one line naming it.
    let store = module(&d, "store.wasm", STORE_BYTE);
    let o = qip_memory(&["thermal", &store, "--png", d.join("no/such/dir.png").to_str().unwrap()]);
    let line = one_line_failure(&o);
    assert!(line.starts_with("qip-memory: cannot write "), "{line}");
}

#[test]
fn thermal_writes_both_files_or_neither() {
    let d = dir("thermal_outputs");
    let store = module(&d, "store.wasm", STORE_BYTE);
    let (ktx2, png) = (d.join("out.ktx2"), d.join("out.png"));
    let (ktx2, png) = (ktx2.to_str().unwrap(), png.to_str().unwrap());
    // The PNG cannot be written: the KTX2 file is not left behind either, nor a temporary.
    let bad = d.join("no/such/dir.png");
    let o = qip_memory(&["thermal", &store, "-o", ktx2, "--png", bad.to_str().unwrap()]);
    assert_eq!(
        one_line_failure(&o),
        format!("qip-memory: cannot write {}: No such file or directory", bad.display())
    );
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["store.wasm"], "files left behind");
    // The same file named twice: refused before anything is written.
    let o = qip_memory(&["thermal", &store, "-o", ktx2, "--png", ktx2]);
    assert_eq!(one_line_failure(&o), format!("qip-memory: {ktx2} is named as two outputs"));
    assert!(!Path::new(ktx2).exists());
    // Both written: one 256 × 256 tile, 224 + 262,144 bytes of KTX2.
    let o = qip_memory(&["thermal", &store, "-o", ktx2, "--png", png]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(ktx2).unwrap().len(), 224 + 4 * 256 * 256);
    assert!(std::fs::read(png).unwrap().starts_with(b"\x89PNG\r\n\x1a\n"));
    // A symbolic link (like /dev/null or a FIFO: not a regular file) is written through,
    // not replaced by a rename.
    #[cfg(unix)]
    {
        let real = d.join("real.ktx2");
        let link = d.join("link.ktx2");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let o = qip_memory(&["thermal", &store, "-o", link.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::metadata(&real).unwrap().len(), 224 + 4 * 256 * 256);
        // The link and its target are one file: refused as two outputs, and so is a path
        // through a linked directory to a file not yet there; nothing is written.
        std::fs::remove_file(&real).unwrap();
        let o =
            qip_memory(&["thermal", &store, "-o", real.to_str().unwrap(), "--png", link.to_str().unwrap()]);
        assert_eq!(one_line_failure(&o), format!("qip-memory: {} is named as two outputs", link.display()));
        assert!(!real.exists());
        std::os::unix::fs::symlink(&d, d.join("same-dir")).unwrap();
        let (a, b) = (d.join("new.ktx2"), d.join("same-dir/new.ktx2"));
        let o = qip_memory(&["thermal", &store, "-o", a.to_str().unwrap(), "--png", b.to_str().unwrap()]);
        assert_eq!(one_line_failure(&o), format!("qip-memory: {} is named as two outputs", b.display()));
        assert!(!a.exists());
        // A dangling link with a relative target, through `..`: the same file as its target.
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::os::unix::fs::symlink("../rel-target.ktx2", d.join("sub/rel.ktx2")).unwrap();
        let (a, b) = (d.join("rel-target.ktx2"), d.join("sub/rel.ktx2"));
        let o = qip_memory(&["thermal", &store, "-o", a.to_str().unwrap(), "--png", b.to_str().unwrap()]);
        assert_eq!(one_line_failure(&o), format!("qip-memory: {} is named as two outputs", b.display()));
        assert!(!a.exists());
        // A device takes any number of writes: /dev/null twice is not refused.
        let o = qip_memory(&["thermal", &store, "-o", "/dev/null", "--png", "/dev/null"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // --first-page is the component's i32 range.
    let o = qip_memory(&["thermal", &store, "--first-page", "2147483648", "-o", ktx2]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("2147483648 is not in 0..=2147483647"), "{}", stderr(&o));
    // --metric chooses what --view draws: without --view it is a usage error, not ignored.
    let o = qip_memory(&["thermal", &store, "--png", png, "--metric", "loops"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .starts_with("error: the following required arguments were not provided:\n  --view <OUT.png>"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn count_arguments_use_the_text_format_ranges() {
    let d = dir("count_args");
    let id = module(
        &d,
        "id.wasm",
        r#"(module
          (func (export "id32") (param i32) (result i32) local.get 0)
          (func (export "id64") (param i64) (result i64) local.get 0)
          (func (export "idf32") (param f32) (result f32) local.get 0)
          (func (export "idf64") (param f64) (result f64) local.get 0))"#,
    );
    let result = |f: &str, arg: &str| {
        let o = qip_memory(&["count", &id, "--invoke", f, "--arg", arg]);
        let out = String::from_utf8(o.stdout.clone()).unwrap();
        (o.status.code(), out.lines().last().unwrap_or("").to_owned(), stderr(&o))
    };
    // Signed, or unsigned up to 2^N − 1 as the same bits; hex and `_` as in a .wat file.
    assert_eq!(result("id32", "i32:-2147483648").1, "result i32:-2147483648");
    assert_eq!(result("id32", "i32:4294967295").1, "result i32:-1");
    assert_eq!(result("id32", "i32:0x7fff_ffff").1, "result i32:2147483647");
    assert_eq!(result("id64", "i64:18446744073709551615").1, "result i64:-1");
    assert_eq!(result("idf32", "f32:nan:0x200000").1, "result f32:nan:0x200000");
    assert_eq!(result("idf32", "f32:0x1.8p0").1, "result f32:1.5");
    assert_eq!(result("idf64", "f64:-inf").1, "result f64:-inf");
    assert_eq!(result("idf64", "f64:0.1").1, "result f64:0.1");
    // Out of range (f32:1e39 too, no silent infinity): one line, nothing run, no counters.
    for (f, arg, reason) in [
        ("id32", "i32:4294967296", "(constant out of range)"),
        ("id32", "i32:-2147483649", "(constant out of range)"),
        ("id64", "i64:18446744073709551616", "(constant out of range)"),
        ("idf32", "f32:1e39", "(constant out of range)"),
    ] {
        let (code, out, err) = result(f, arg);
        assert_eq!(code, Some(1), "{arg}");
        assert_eq!(out, "", "{arg}");
        let (ty, v) = arg.split_once(':').unwrap();
        assert!(
            err.starts_with(&format!(
                "qip-memory: argument {arg:?}: {v:?} is not a valid {ty} constant of the text format ("
            )),
            "{err}"
        );
        assert!(err.contains(reason), "{arg}: {err}");
        assert_eq!(err.matches('\n').count(), 1, "{err}");
    }
}

/// `count` reads text modules; a wrong `--invoke` lists what the module exports; a call that
/// never starts (wrong arguments) prints its error alone, no counters or timing.
#[test]
fn count_takes_wat_and_says_what_it_can_call() {
    let d = dir("count_wat");
    let wat = d.join("add.wat");
    std::fs::write(
        &wat,
        "(module (func (export \"add\") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)\n\
         (func (export \"pi\") (result f64) f64.const 3.25) (memory (export \"m\") 1))",
    )
    .unwrap();
    let w = wat.to_str().unwrap();
    let o = qip_memory(&["count", w, "--invoke", "add", "--arg", "i32:2", "--arg", "i32:0x28"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("instructions 4\n"), "{out}");
    assert!(out.ends_with("result i32:42\n"), "{out}");
    let o = qip_memory(&["count", w, "--invoke", "pi"]);
    assert!(String::from_utf8(o.stdout).unwrap().ends_with("result f64:3.25\n"));
    let line = one_line_failure(&qip_memory(&["count", w, "--invoke", "sub"]));
    assert_eq!(
        line,
        format!(
            "qip-memory: {w}: no exported function \"sub\" (exported: add (i32, i32) -> (i32), pi () -> (f64))"
        )
    );
    let o = qip_memory(&["count", w, "--invoke", "add", "--arg", "i32:2"]);
    let line = one_line_failure(&o);
    assert!(line.starts_with(&format!("qip-memory: {w}: add: ")), "{line}");
    assert!(o.stdout.is_empty());
    // Text that does not compile: one line with wat's line and column.
    let broken = file(&d, "broken.wat", b"(module (func (result i32) i32.const))");
    let line = one_line_failure(&qip_memory(&["count", &broken, "--invoke", "f"]));
    assert!(line.starts_with(&format!("qip-memory: {broken}:1:")), "{line}");
}

/// `count` names the function a trap or an exhausted budget stopped in, with the module
/// offset in hex (read by wasmparser) and the instructions executed.
#[test]
fn count_traps_and_budgets_name_the_function() {
    let d = dir("count_names");
    let t = module(
        &d,
        "stop.wasm",
        r#"(module
          (func $spin (export "spin") (loop br 0))
          (func $div (export "div") (result i32) i32.const 1 i32.const 0 i32.div_s))"#,
    );
    let bytes = std::fs::read(&t).unwrap();
    let last = |o: &Output| stderr(o).lines().last().unwrap_or("").to_owned();
    // i32.const, i32.const, i32.div_s: the third traps.
    let o = qip_memory(&["count", &t, "--invoke", "div"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        last(&o),
        format!(
            "qip-memory: {t}: div: trapped in `div` at module offset 0x{:x}: integer divide by zero, \
             after 3 instructions",
            operator_offsets(&bytes, 1)[2]
        )
    );
    // loop, then br 0 nine times: the next instruction is the br again.
    let o = qip_memory(&["count", &t, "--invoke", "spin", "--instruction-budget", "10"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8(o.stdout.clone()).unwrap().starts_with("instructions 10\n"));
    assert_eq!(
        last(&o),
        format!(
            "qip-memory: {t}: spin: instruction budget of 10 instructions exhausted in `spin` (next \
             instruction at module offset 0x{:x}); raise it with --instruction-budget N",
            operator_offsets(&bytes, 0)[1]
        )
    );
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // `| head` closes the pipe: exit 0, nothing on stderr (as ripgrep); a full disk is a
    // one-line failure.
    let d = dir("closed_stdout");
    let id = module(&d, "id.wasm", r#"(module (func (export "f") (result i32) i32.const 7))"#);
    let mut child = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
        .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
        .args(["count", &id, "--invoke", "f"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    if Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
            .args(["count", &id, "--invoke", "f"])
            .stdout(full)
            .output()
            .unwrap();
        // `count` prints its timing line on stderr first.
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        let last = err.lines().last().unwrap();
        assert_eq!(last, "qip-memory: writing to stdout: No space left on device", "{err}");
    }
}

#[test]
fn module_errors_are_one_line() {
    // A file that is not a module (here a heap dump): one line naming its first bytes.
    let d = dir("bad_magic");
    let not_wasm = file(&d, "x.wasm", b"ASHD\x02\0\0\0");
    let o = qip_memory(&["count", &not_wasm, "--invoke", "f"]);
    assert_eq!(
        one_line_failure(&o),
        format!(
            "qip-memory: {not_wasm}: magic header not detected: a module starts with 00 61 73 6d, \
             this one with 41 53 48 44 (at offset 0x0)"
        )
    );
    // A module built with a proposal after 2.0 that the interpreter does not run: the proposal
    // by name, at the byte of its sign (the memory's limits flags, after the header, the
    // section's id and size and the count). (Threads, which it runs, are no such proposal.)
    let memory64 = module(&d, "memory64.wasm", "(module (memory i64 1))");
    let o = qip_memory(&["count", &memory64, "--invoke", "f"]);
    assert_eq!(
        one_line_failure(&o),
        format!(
            "qip-memory: {memory64}: uses memory64 (a 64-bit memory); the interpreter runs WebAssembly 2.0 with \
             threads, exceptions, tail calls and extended constants (at offset 0xb)"
        )
    );
}

/// An exception that escapes the invoked export is reported like a trap, at the throwing
/// instruction, naming its tag by its export name when it has one, else by its index.
#[test]
fn an_uncaught_exception_names_its_tag() {
    let d = dir("uncaught");
    // Type section 8..=0x11 (01 08 02 60 01 7f 00 60 00 00), function 0x12..=0x15, tag section
    // 0x16..=0x1c (0d 05 02 00 00 00 00), export section 0x1d..=0x2a (07 0c 02, "boom" tag 0,
    // "f" func 0), code: id 0x2b, size 0x2c, count 0x2d, body size 0x2e, locals 0x2f,
    // `i32.const 7` 0x30..=0x31, `throw 0` at 0x32.
    let m = module(
        &d,
        "exn.wasm",
        r#"(module (tag $boom (export "boom") (param i32)) (tag $quiet (param i32))
             (func (export "f") (throw $boom (i32.const 7))))"#,
    );
    let o = qip_memory(&["count", &m, "--invoke", "f"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).lines().last().unwrap_or(""),
        format!(
            "qip-memory: {m}: f: trapped in `f` at module offset 0x32: uncaught exception of tag 0, \
             exported as \"boom\", after 2 instructions"
        )
    );
    // Counted up to the throw: `i32.const` and `throw`, no return.
    assert!(
        String::from_utf8(o.stdout.clone())
            .unwrap()
            .starts_with("instructions 2\ncalls 0\nindirect_calls 0\nreturns 0\n")
    );
}

/// Any file name works (the target goes out as `target.wasm`), and the request offsets do not
/// depend on the path typed: a non-ASCII name and a long path give the same line after the
/// path that starts it.
#[test]
fn any_target_name_works_and_offsets_do_not_depend_on_it() {
    let d = dir("target_name");
    let m = module(&d, "café.wasm", STORE_TARGET);
    std::fs::create_dir_all(d.join("a/much/longer/path")).unwrap();
    let long = module(&d, "a/much/longer/path/store.wasm", STORE_TARGET);
    let o = qip_memory(&["page-writes", &m]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = [&m, &long]
        .iter()
        .map(|t| {
            let line = one_line_failure(&qip_memory(&["page-writes", t, "--input", "x"]));
            line.strip_prefix(&format!("qip-memory: {t}: ")).expect(&line).to_string()
        })
        .collect();
    assert_eq!(lines[0], lines[1]);
    assert!(lines[0].ends_with(&format!("(request offset {COMPONENT_START}, mode 2)")), "{}", lines[0]);
}

#[test]
fn input_file_dash_reads_stdin() {
    use std::io::Write as _;
    let d = dir("stdin_input");
    // Copies its input to 1,000 and reads it back: the page table depends on the input's length.
    let m = module(
        &d,
        "copy.wasm",
        r#"(module (memory (export "memory") 1 1)
          (func (export "input_ptr") (result i32) i32.const 0)
          (func (export "input_bytes_cap") (result i32) i32.const 512)
          (func (export "output_bytes_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64)
            i32.const 1000 i32.const 0 local.get 0 memory.copy i64.const 0))"#,
    );
    let with_stdin = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/cache"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    let piped = with_stdin(&["page-writes", &m, "--input-file", "-"], b"hello");
    assert!(piped.status.success(), "{}", stderr(&piped));
    let text = qip_memory(&["page-writes", &m, "--input", "hello"]);
    assert_eq!(String::from_utf8(piped.stdout).unwrap(), String::from_utf8(text.stdout).unwrap());
    // One stdin only.
    let o = with_stdin(&["page-writes", "-", "--input-file", "-"], b"");
    assert_eq!(one_line_failure(&o), "qip-memory: the target and --input-file cannot both be - (stdin)");
}

/// A stage whose `render` never returns.
const LOOP_FOREVER: &str = r#"(module (memory (export "memory") 1 1)
  (func (export "output_bytes_cap") (result i32) i32.const 8)
  (func (export "render") (param i32) (result i64) (loop br 0) i64.const 0))"#;

#[test]
fn run_stops_a_stage_at_its_time_limit() {
    let d = dir("timeout");
    let spin = module(&d, "spin.wasm", LOOP_FOREVER);
    let out = d.join("out.bin");
    let t = std::time::Instant::now();
    let o = qip_memory(&["run", &spin, "--timeout-ms", "1000", "-o", out.to_str().unwrap()]);
    let took = t.elapsed();
    assert_eq!(
        one_line_failure(&o),
        format!("qip-memory: {spin}: stopped after the time limit of 1000 ms (raise it with --timeout-ms)")
    );
    // Within twice the limit, the whole process included (compiling a tiny module is ms).
    assert!(
        took >= std::time::Duration::from_millis(1000) && took < std::time::Duration::from_millis(2000),
        "{took:?}"
    );
    assert!(!out.exists(), "no partial output file");
    // A start function that loops is stopped the same way, in the stage's instantiation.
    let start = module(
        &d,
        "start.wasm",
        r#"(module (memory (export "memory") 1 1)
          (func $spin (loop br 0))
          (start $spin)
          (func (export "output_bytes_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &start, "--timeout-ms=200"])),
        format!(
            "qip-memory: {start}: cannot instantiate: stopped after the time limit of 200 ms (raise it with --timeout-ms)"
        )
    );
    // The limit is per stage: two fast stages under a limit each of them meets.
    let echo = module(&d, "echo.wasm", ECHO);
    let input = file(&d, "in.txt", b"abc");
    let o = qip_memory(&["run", "-i", &input, &echo, &echo, "--timeout-ms", "1000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"abc");
    usage_error(&["run", &echo, "--timeout-ms", "0"], "invalid value '0' for '--timeout-ms <MS>'");
}

#[test]
fn run_max_memory_and_memory_grow() {
    let d = dir("max-memory");
    // 4 GiB, fixed: refused before anything is compiled or allocated.
    let huge = module(
        &d,
        "huge.wasm",
        r#"(module (memory (export "memory") 65536 65536)
          (func (export "output_bytes_cap") (result i32) i32.const 0)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &huge, "--max-memory", "16777216"])),
        format!(
            "qip-memory: {huge}: memory 0 declares a minimum of 65536 pages (4294967296 bytes), more than --max-memory 16777216"
        )
    );
    // A maximum above the limit, and no maximum at all.
    let wide = module(
        &d,
        "wide.wasm",
        r#"(module (memory (export "memory") 1 300)
          (func (export "output_bytes_cap") (result i32) i32.const 0)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &wide, "--max-memory=16777216"])),
        format!(
            "qip-memory: {wide}: memory 0 declares a maximum of 300 pages (19660800 bytes), more than --max-memory 16777216"
        )
    );
    let open = module(
        &d,
        "open.wasm",
        r#"(module (memory (export "memory") 1)
          (func (export "output_bytes_cap") (result i32) i32.const 0)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    );
    assert_eq!(
        one_line_failure(&qip_memory(&["run", &open, "--max-memory", "65536"])),
        format!(
            "qip-memory: {open}: memory 0 declares no maximum; with --max-memory 65536 every memory needs one"
        )
    );
    // Exactly at the limit: runs.
    let o = qip_memory(&["run", &module(&d, "echo.wasm", ECHO), "--max-memory", "65536"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // memory.grow: refused by default, allowed with --allow-memory-grow up to the declared
    // maximum. The stage grows 1 → 2 pages, then fails to grow past its maximum of 2 (-1),
    // and returns both results as its 8-byte output: 1 (the old size), then -1.
    let grow = module(
        &d,
        "grow.wasm",
        r#"(module (memory (export "memory") 1 2)
          (func (export "output_bytes_cap") (result i32) i32.const 8)
          (func (export "render") (param i32) (result i64)
            i32.const 0 i32.const 1 memory.grow i32.store
            i32.const 4 i32.const 1 memory.grow i32.store
            i64.const 8))"#,
    );
    let line = one_line_failure(&qip_memory(&["run", &grow]));
    assert!(line.ends_with("(--allow-memory-grow with --max-memory allows it)"), "{line}");
    usage_error(
        &["run", &grow, "--allow-memory-grow"],
        "the following required arguments were not provided:\n  --max-memory <BYTES>",
    );
    let out = d.join("grow.bin");
    let o = qip_memory(&[
        "run",
        &grow,
        "--allow-memory-grow",
        "--max-memory",
        "131072",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
}

#[test]
fn run_caches_compiled_modules() {
    let d = dir("cache");
    let echo = module(&d, "echo.wasm", ECHO);
    let input = file(&d, "in.txt", b"cached");
    let cache = d.join("cache-home");
    let run = |cache_home: &Path, extra: &[&str]| {
        let mut args = vec!["run", "--timing", "-i", &input, &echo];
        args.extend_from_slice(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
            .env("XDG_CACHE_HOME", cache_home)
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(o.stdout, b"cached");
        stderr(&o)
    };
    let says = |text: &str, what: &str| {
        assert!(
            text.starts_with(&format!("{echo}: compile ")) && text.contains(&format!("({what}), run ")),
            "{text}"
        );
    };
    says(&run(&cache, &[]), "compiled, cached");
    says(&run(&cache, &[]), "from the cache");
    says(&run(&cache, &["--no-cache"]), "compiled, no cache");
    // Every cached file corrupted: compiled again, and the run succeeds.
    let mut files = vec![cache.join("qip-memory")];
    let mut corrupted = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else {
            std::fs::write(&p, b"not a cache entry").unwrap();
            corrupted += 1;
        }
    }
    assert!(corrupted > 0, "the cache holds files");
    says(&run(&cache, &[]), "compiled, cached");
    says(&run(&cache, &[]), "from the cache");
    // A cache directory that cannot be created (its parent is a file): no cache, no failure.
    let blocked = file(&d, "a-file", b"");
    says(&run(Path::new(&blocked), &[]), "compiled, no cache");
}

/// `count --dump-ir FUNC` prints the listing of a function found by name (with or without the
/// text format's `$`), by its export's name, by index or as `func[N]`, and runs nothing; a
/// wrong name or an imported function is one line naming what exists.
#[test]
fn count_dump_ir() {
    let d = dir("count_dump_ir");
    let wat = r#"(module (import "env" "f" (func $imp)) (func $add (export "run") (param i32) (result i32)
      local.get 0
      i32.const 5
      i32.add))"#;
    let m = module(&d, "add.wasm", wat);
    // Hand-checked listing: one fuel block of the 4 instructions; the constant folds into the
    // add, which writes the first operand-stack slot (s1) after the parameter (s0). Offsets of
    // the instructions (local.get, i32.add, end) from wasmparser.
    let at = operator_offsets(&std::fs::read(&m).unwrap(), 0);
    let want = format!(
        "; {m} `add`\n\
         func[1]: 1 params, 0 locals, frame 3 slots, 3 ops, 4 instructions\n\
         \x20   pc  instr  cum   offset  op\n\
         \x20    0      0    0 {:>8}  Fuel n=4 first=0\n\
         \x20    1      2    3 {:>8}  I32AddImm dst=s1 a=s0 imm=5\n\
         \x20    2      3    4 {:>8}  FuncEnd src=s1 n=1\n",
        format!("{:#x}", at[0]),
        format!("{:#x}", at[2]),
        format!("{:#x}", at[3]),
    );
    for name in ["add", "$add", "run", "1", "func[1]"] {
        let o = qip_memory(&["count", &m, "--dump-ir", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(String::from_utf8(o.stdout).unwrap(), want, "{name}");
    }
    let o = qip_memory(&["count", &m, "--dump-ir", "nope"]);
    assert_eq!(
        one_line_failure(&o),
        format!("qip-memory: {m}: no function named \"nope\" (give an index, func[N], or one of: imp, add)")
    );
    let o = qip_memory(&["count", &m, "--dump-ir", "0"]);
    assert_eq!(
        one_line_failure(&o),
        format!("qip-memory: {m}: function 0 is imported, it has no code (2 functions)")
    );
}
