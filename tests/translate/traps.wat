;; Trapping operations are their own kinds: division (`TrapBinop`), truncation (`TrapUnop`),
;; `unreachable`.
(module
  (func (param i32 i32 f64) (result i32)
    local.get 0
    local.get 1
    i32.div_s
    local.get 2
    i32.trunc_f64_s
    i32.add
    drop
    unreachable))
