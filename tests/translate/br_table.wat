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
      (i32.const 9)))
  ;; `br_if` that carries values, and `br_if` to the function label: their charges are in their
  ;; target entries (a negative one for the return: the rest of its block). A `br` that carries
  ;; values is a `Copy` per value and a direct `Br`.
  (func (param i32) (result i32)
    (block (result i32)
      (i32.const 6)
      (i32.const 1)
      (local.get 0)
      (br_if 0)
      (drop)
      (drop)
      (i32.const 2)
      (i32.const 3)
      (br 0))
    (local.get 0)
    (br_if 0)
    (drop)
    (i32.const 4)))
