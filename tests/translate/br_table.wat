;; `br_table` with values to carry: its entries are branch targets with moves, the last one the
;; default.
(module
  (func (param i32) (result i32)
    (block (result i32)
      (block (result i32)
        (i32.const 7)
        (local.get 0)
        (br_table 0 1 1))
      (drop)
      (i32.const 9))))
