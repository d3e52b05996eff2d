;; `throw` takes its values in consecutive slots from `args` and ends its fuel block; a
;; `try_table` is a block whose clauses are branch targets (here the label's end); a legacy
;; `catch` starts the fuel block an exception lands on, counting itself, and the end of the
;; `try` body jumps over it to the `end`; the clause keeps the caught exception at the
;; block's base (s1), below its values, where `rethrow` reads it, and a clause's results move
;; down over it to the block's result slot at its end.
(module
  (tag $e (param i32 i32))
  (func (param i32) (result i32)
    (block $h (result i32 i32)
      (try_table (catch $e $h)
        (throw $e (local.get 0) (i32.const 2)))
      (unreachable))
    (i32.add))
  (func (param i32) (result i32)
    try (result i32)
      (throw $e (local.get 0) (i32.const 1))
    catch $e
      drop
      rethrow 0
    end)
  (func (param i32) (result i32)
    try (result i32)
      local.get 0
    catch_all
      i32.const 5
    end))
