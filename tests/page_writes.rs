//! The page table tool end to end at library level (`qip_memory::tools::page_writes`, the code
//! path the component and the CLI share): CSV rows of WAT targets counted by hand, and every
//! rejection mode of docs/rejections.md produced by a crafted request with its offset.

mod common;
use common::instruction_offsets;
use common::{ATOMICS_TARGET, request};
use qip_memory::content::form::DEFAULT_CONTENT_TYPE;
use qip_memory::tools::Rejection;
use qip_memory::tools::page_writes::page_writes;

/// Where `needle` starts in `hay` (used to find part bodies without the parser under test).
fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).expect("present")
}

fn run(req: &[u8], budget: u32) -> Result<String, Rejection> {
    page_writes(req, DEFAULT_CONTENT_TYPE.as_bytes(), budget).map(|p| p.csv)
}

/// Memory 4 pages. Data "hello" at 65_536 (page 1). Input at 196_608 (page 3), capacity 1,024.
/// Global 0 (the stack pointer) starts at 131_072. The setter writes 4 bytes at 100 (page 0).
const TARGET: &str = r#"(module
  (memory (export "memory") 4 4)
  (global $sp (mut i32) (i32.const 131072))
  (global $scale (mut i32) (i32.const 1))
  (data (i32.const 65536) "hello")
  (func (export "input_ptr") (result i32) i32.const 196608)
  (func (export "input_utf8_cap") (result i32) i32.const 1024)
  (func (export "output_utf8_cap") (result i32) i32.const 64)
  (func (export "uniform_set_scale") (param i32) (result i32)
    (i32.store (i32.const 100) (local.get 0))
    (global.set $scale (local.get 0))
    (local.get 0))
  (func (export "render") (param $len i32) (result i64)
    (global.set $sp (i32.sub (global.get $sp) (i32.const 16)))    ;; sp = 131,056: stack [131,056, 131,072)
    (i32.store (global.get $sp) (i32.const 7))                   ;; page 1, 4 bytes
    (i32.store (global.get $sp) (i32.const 8))                   ;; page 1, the same 4 bytes again
    (i32.store (i32.const 131070) (i32.const -1))                ;; 131,070..131,074: 2 bytes on page 1, 2 on page 2
    (drop (i32.load8_u (i32.const 196608)))                      ;; page 3: read 1 byte
    (memory.copy (i32.const 200000) (i32.const 196608) (local.get $len)) ;; page 3: read len, write len
    (memory.copy (i32.const 0) (i32.const 0) (i32.const 0))      ;; zero length: nothing
    (memory.fill (i32.const 65536) (i32.const 0) (i32.const 0))  ;; zero length: nothing
    (global.set $sp (i32.add (global.get $sp) (i32.const 16)))
    (i64.or (i64.shl (i64.const 200000) (i64.const 32)) (i64.extend_i32_u (local.get $len)))))"#;

#[test]
fn hand_counted_rows() {
    let module = wat::parse_str(TARGET).unwrap();
    // Input "abc": initialized 3 bytes at 196,608 (page 3); output [200,000, 200,003).
    // page 0: only the setter's 4-byte store (other).
    // page 1: data "hello" (5 initialized), stack [131,056, 131,072); writes: two stack stores
    //         and the crossing store = 3, bytes 4 + 4 + 2 = 10, distinct 4 + 2 = 6,
    //         ratio 10 / 6 = 1.666… → 1.67.
    // page 2: the crossing store's other 2 bytes (other; the stack ends at 131,072).
    // page 3: reads: the load and the copy source = 2, bytes 1 + 3 = 4; one write of 3 bytes.
    let req = request(&module, Some(b"abc"), &[("scale", "5")]);
    assert_eq!(
        run(&req, 1_000).unwrap(),
        "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio\n\
         0,other,0,0,0,1,4,4,1.00\n\
         1,data+stack,5,0,0,3,10,6,1.67\n\
         2,other,0,0,0,1,2,2,1.00\n\
         3,input+output,3,2,4,1,3,3,1.00"
    );
    // Without the uniform page 0 has no row; without input the copy is zero-length and page 3
    // keeps only the load (and the input label: the region exists whether input is sent).
    let req = request(&module, None, &[]);
    assert_eq!(
        run(&req, 1_000).unwrap(),
        "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio\n\
         1,data+stack,5,0,0,3,10,6,1.67\n\
         2,other,0,0,0,1,2,2,1.00\n\
         3,input,0,1,1,0,0,0,"
    );
}

fn rejection(req: &[u8], budget: u32) -> (u32, u32) {
    let r = run(req, budget).expect_err("expected a rejection");
    (r.offset, r.mode)
}

#[test]
fn mode_0_malformed_request() {
    assert_eq!(rejection(b"not a multipart body", 1000), (0, 0));
}

#[test]
fn mode_1_invalid_module() {
    let module = wat::parse_str("(module (func (result i32) i64.const 1))").unwrap();
    let req = request(&module, None, &[]);
    let start = find(&req, b"\0asm");
    let expected = match wasmparser::Validator::new().validate_all(&module) {
        Err(e) => e.offset() as usize,
        Ok(_) => panic!("the module must be invalid"),
    };
    assert_eq!(rejection(&req, 1000), ((start + expected) as u32, 1));
}

#[test]
fn mode_2_contract() {
    let module =
        wat::parse_str("(module (memory 1) (func (export \"render\") (param i32) (result i64) i64.const 0))")
            .unwrap();
    let req = request(&module, None, &[]);
    assert_eq!(rejection(&req, 1000), (find(&req, b"\0asm") as u32, 2));
}

#[test]
fn mode_3_uniform() {
    let module = wat::parse_str(TARGET).unwrap();
    let req = request(&module, Some(b"x"), &[("scale", "5"), ("zoom", "2")]);
    // The part body of `uniforms[zoom]` starts after its header block.
    let zoom = find(&req, b"name=\"uniforms[zoom]\"\r\n\r\n") + b"name=\"uniforms[zoom]\"\r\n\r\n".len();
    assert_eq!(rejection(&req, 1000), (zoom as u32, 3));
    // A value that does not parse as the setter's i32: its own body start.
    let req = request(&module, Some(b"x"), &[("scale", "-1")]);
    let scale = find(&req, b"name=\"uniforms[scale]\"\r\n\r\n") + b"name=\"uniforms[scale]\"\r\n\r\n".len();
    assert_eq!(rejection(&req, 1000), (scale as u32, 3));
}

const TRAPPING: &str = r#"(module (memory (export "memory") 1 1)
  (func (export "output_utf8_cap") (result i32) i32.const 16)
  (func (export "render") (param i32) (result i64)
    nop
    unreachable))"#;

#[test]
fn mode_4_trap() {
    let module = wat::parse_str(TRAPPING).unwrap();
    let req = request(&module, None, &[]);
    let at = find(&req, b"\0asm") + instruction_offsets(&module, 1)[1];
    assert_eq!(rejection(&req, 1000), (at as u32, 4));
}

#[test]
fn mode_5_budget() {
    let module = wat::parse_str(
        r#"(module (memory (export "memory") 1 1)
          (func (export "output_utf8_cap") (result i32) i32.const 16)
          (func (export "render") (param i32) (result i64) (loop br 0) i64.const 0))"#,
    )
    .unwrap();
    let req = request(&module, None, &[]);
    // After `loop` (instruction 0) the next instruction is always the `br` (instruction 1).
    let at = find(&req, b"\0asm") + instruction_offsets(&module, 1)[1];
    assert_eq!(rejection(&req, 100), (at as u32, 5));
}

#[test]
fn mode_6_target_rejection() {
    let module = wat::parse_str(
        r#"(module (memory (export "memory") 1 1)
          (func (export "input_ptr") (result i32) i32.const 1024)
          (func (export "input_bytes_cap") (result i32) i32.const 64)
          (func (export "output_bytes_cap") (result i32) i32.const 16)
          (func (export "failure_modes_per_input_offset") (result i32) i32.const 4)
          ;; rejects at input offset 2 with mode 3: detail 2 * 4 + 3 = 11
          (func (export "render") (param i32) (result i64) i64.const 0x800000000000000b))"#,
    )
    .unwrap();
    let req = request(&module, Some(b"hello"), &[]);
    let input = find(&req, b"hello");
    assert_eq!(rejection(&req, 1000), ((input + 2) as u32, 6));
}

#[test]
fn mode_7_invalid_output() {
    // Size 17 > output capacity 16.
    let module = wat::parse_str(
        r#"(module (memory (export "memory") 1 1)
          (func (export "output_bytes_cap") (result i32) i32.const 16)
          (func (export "render") (param i32) (result i64) i64.const 17))"#,
    )
    .unwrap();
    let req = request(&module, None, &[]);
    assert_eq!(rejection(&req, 1000), (find(&req, b"\0asm") as u32, 7));
}

#[test]
fn mode_9_limit() {
    // 4,000 pages = 250 MiB > our 192 MiB.
    let module = wat::parse_str(
        r#"(module (memory (export "memory") 4000 4000)
          (func (export "output_bytes_cap") (result i32) i32.const 16)
          (func (export "render") (param i32) (result i64) i64.const 0))"#,
    )
    .unwrap();
    let req = request(&module, None, &[]);
    assert_eq!(rejection(&req, 1000), (find(&req, b"\0asm") as u32, 9));
}

#[test]
fn detail_encoding() {
    let r = Rejection::new(123, 4, String::new());
    assert_eq!(r.detail(), 1234);
    assert_eq!(r.render_result(), 0x8000_0000_0000_04d2);
}

/// The page table of [`ATOMICS_TARGET`], by hand: page 1 holds the 2 input bytes, 5 reads of 4
/// bytes (the add, both compare-exchanges, the load, the wait) and 4 writes of 4 bytes (the
/// store, the add, both compare-exchanges, the failed one included) to the same 4 bytes:
/// 16 bytes written, 4 distinct, ratio 4.00.
#[test]
fn atomics_are_reads_and_writes_of_their_width() {
    let module = wat::parse_str(ATOMICS_TARGET).unwrap();
    let req = request(&module, Some(b"ab"), &[]);
    assert_eq!(
        run(&req, 1_000).unwrap(),
        "page,region,initialized_bytes,reads,bytes_read,writes,bytes_written,distinct_bytes_written,rewrite_ratio\n\
         1,input+output,2,5,20,4,16,4,4.00"
    );
}
