;; Division and remainder by a constant fold the constant into the op (`TrapBinopImm`); the op
;; still traps where the operation does (by zero; `i32.div_s` of the minimum by -1).
(module
  (func (param i32) (result i32)
    local.get 0
    i32.const 65521
    i32.rem_u
    i32.const 0
    i32.div_s))
