;; `return_call` and `return_call_indirect` take their arguments in consecutive slots from
;; `args`, as `call` does, and end their fuel block: nothing after them runs.
(module
  (type $t (func (param i32 i32) (result i32)))
  (table 1 funcref)
  (func $sub (type $t)
    (i32.sub (local.get 0) (local.get 1)))
  (func (param i32) (result i32)
    (if (i32.eqz (local.get 0))
      (then (return_call $sub (i32.const 7) (local.get 0))))
    (return_call_indirect (type $t) (local.get 0) (i32.const 1) (i32.const 0))))
