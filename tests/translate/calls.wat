;; `call` passes its arguments in consecutive slots starting at `args`; results come back in the
;; same place. `return` is a branch to the function label.
(module
  (type $t (func (param i32) (result i32)))
  (table 1 funcref)
  (func $double (type $t)
    local.get 0
    local.get 0
    i32.add
    return)
  (func (param i32) (result i32)
    local.get 0
    call $double
    i32.const 0
    call_indirect (type $t)))
