;; Benchmark workload: a compute-heavy checksum loop (benches/interp.rs).
;;
;; `run(rounds)`: each round fills a 64 KiB buffer in memory with xorshift32 output (seeded by
;; the round and the running checksum), then checksums it twice, with FNV-1a (byte at a time)
;; and with Adler-32 (byte at a time, `i32.rem_u` per byte), and folds both into the result.
;; About 2.3 million instructions per round; no imports, no floats.
(module
  (memory (export "memory") 2)

  (global $buf i32 (i32.const 1024))
  (global $len i32 (i32.const 65536))

  ;; Fills `len` bytes at `buf` with xorshift32 words from `seed` (made odd).
  (func $fill (param $seed i32)
    (local $p i32) (local $end i32) (local $x i32)
    (local.set $x (i32.or (local.get $seed) (i32.const 1)))
    (local.set $p (global.get $buf))
    (local.set $end (i32.add (global.get $buf) (global.get $len)))
    (loop $next
      (local.set $x (i32.xor (local.get $x) (i32.shl (local.get $x) (i32.const 13))))
      (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 17))))
      (local.set $x (i32.xor (local.get $x) (i32.shl (local.get $x) (i32.const 5))))
      (i32.store (local.get $p) (local.get $x))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br_if $next (i32.lt_u (local.get $p) (local.get $end)))))

  ;; FNV-1a, 32 bits, over the buffer.
  (func $fnv1a (result i32)
    (local $p i32) (local $end i32) (local $h i32)
    (local.set $h (i32.const 0x811c9dc5))
    (local.set $p (global.get $buf))
    (local.set $end (i32.add (global.get $buf) (global.get $len)))
    (loop $next
      (local.set $h
        (i32.mul
          (i32.xor (local.get $h) (i32.load8_u (local.get $p)))
          (i32.const 0x01000193)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $p) (local.get $end))))
    (local.get $h))

  ;; Adler-32 over the buffer, reducing modulo 65521 at every byte.
  (func $adler32 (result i32)
    (local $p i32) (local $end i32) (local $a i32) (local $b i32)
    (local.set $a (i32.const 1))
    (local.set $p (global.get $buf))
    (local.set $end (i32.add (global.get $buf) (global.get $len)))
    (loop $next
      (local.set $a
        (i32.rem_u (i32.add (local.get $a) (i32.load8_u (local.get $p))) (i32.const 65521)))
      (local.set $b
        (i32.rem_u (i32.add (local.get $b) (local.get $a)) (i32.const 65521)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $p) (local.get $end))))
    (i32.or (i32.shl (local.get $b) (i32.const 16)) (local.get $a)))

  (func (export "run") (param $rounds i32) (result i32)
    (local $r i32) (local $acc i32)
    (block $done
      (loop $round
        (br_if $done (i32.ge_u (local.get $r) (local.get $rounds)))
        (call $fill (i32.add (i32.mul (local.get $r) (i32.const 0x9e3779b9)) (local.get $acc)))
        (local.set $acc
          (i32.add
            (i32.mul (local.get $acc) (i32.const 31))
            (i32.xor (call $fnv1a) (i32.rotl (call $adler32) (i32.const 7)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $round)))
    (local.get $acc)))
