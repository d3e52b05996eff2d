;; Loads and stores keep their static offset; each width and extension is its own op.
(module
  (memory 1)
  (func (param $p i32) (result i64)
    local.get $p
    local.get $p
    i32.load8_s offset=3
    i32.store16 offset=8
    local.get $p
    i64.load32_u offset=16)
  (func (param $p i32)
    local.get $p
    i32.const 0
    i32.const 4
    memory.fill
    i32.const 1
    memory.grow
    drop))
