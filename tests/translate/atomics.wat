;; The atomics of the threads proposal: one `Atomic` op each, whose kind is the class and the
;; width in bits, with the address, the operands after it (an unused one repeats the address)
;; and the static offset; constant operands are written to their slots first. `atomic.fence`
;; is counted and emits no op. The store's `dst` repeats the address: it writes no slot.
(module
  (memory 1 1 shared)
  (func (param $p i32) (param $v i64) (result i32)
    local.get $p
    local.get $v
    i64.atomic.store32 offset=4
    local.get $p
    local.get $v
    local.get $v
    i64.atomic.rmw16.cmpxchg_u offset=2
    drop
    atomic.fence
    local.get $p
    i32.const 5
    i64.const -1
    memory.atomic.wait32
    i32.const 1
    memory.atomic.notify
    i32.atomic.load8_u offset=16))
