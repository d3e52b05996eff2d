;; One step of a Mandelbrot iteration: `f64.add`, `f64.sub`, `f64.mul` and `f64.le` have ops of
;; their own (`F64Add` ...); `f64.div` and `f64.min`, less frequent, stay generic (`Binop`).
;; `br_if` on `f64.le` is one compare-and-branch op, back to a loop (`BrIfLoopF64Le`) or
;; forward out of a block (`BrIfF64Le`); `br_if` on `f64.lt` stays the generic
;; compare-and-branch (`BrIfCmp`).
(module
  (func (param $x f64) (param $y f64) (param $cx f64) (result i32)
    (local $t f64)
    local.get $x
    local.get $x
    f64.mul
    local.get $y
    local.get $y
    f64.mul
    f64.sub
    local.get $cx
    f64.add
    local.set $t
    local.get $t
    local.get $t
    f64.div
    local.get $y
    f64.min
    f64.const 4
    f64.le)
  (func (param $x f64) (result i32)
    (local $k i32)
    loop
      local.get $k
      i32.const 1
      i32.add
      local.set $k
      local.get $x
      local.get $x
      f64.mul
      local.tee $x
      f64.const 4
      f64.le
      br_if 0
    end
    block
      local.get $x
      f64.const 2
      f64.le
      br_if 0
      local.get $x
      f64.const 1
      f64.lt
      br_if 0
      local.get $k
      i32.const 1
      i32.add
      local.set $k
    end
    local.get $k))
