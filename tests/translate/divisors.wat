;; Division and remainder by a constant fold the constant into the op (`TrapBinopImm`); the op
;; still traps where the operation does (by zero; `i32.div_s` of the minimum by -1).
;; Unsigned 32-bit division and remainder by a constant from 2 to 65535 multiply by the
;; divisor's reciprocal `m` = ceil(2^64 / d) instead (`I32DivUMagic`, `I32RemUMagic`): for 10,
;; 2^64 / 10 = 1844674407370955161.6; for 65521, 281539415969071.75; 1 and 65536 keep the
;; divide.
(module
  (func (param i32) (result i32)
    local.get 0
    i32.const 65521
    i32.rem_u
    i32.const 0
    i32.div_s)
  (func (param i32) (result i32)
    local.get 0
    i32.const 10
    i32.div_u
    i32.const 1
    i32.div_u
    i32.const 65536
    i32.rem_u))
