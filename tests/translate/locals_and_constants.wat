;; `local.get` costs no op (its consumer reads the local's slot); a constant right operand is
;; folded into the op (`I32AddImm`); `local.set` after a pure producer retargets the producer's
;; destination instead of copying; i64 constants are split into two 32-bit halves.
(module
  (func (param $a i32) (param $b i32) (result i32) (local $t i32)
    local.get $a
    local.get $b
    i32.mul
    local.set $t
    local.get $t
    i32.const 7
    i32.add)
  (func (result i64)
    i64.const 0x1122334455667788))
