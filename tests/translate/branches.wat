;; A comparison feeding `br_if` or `if` is fused into one conditional branch (the `i32` result
;; is never stored); a taken branch's `charge` is its target block's count minus the charged
;; rest of its own block; a loop's back edge is `BrLoop`, a forward `br` is `Br`; an `if`
;; without a fused comparison is `JumpIfZero`, with one `JumpIfNotCmp` (or `...Imm`).
(module
  (func (param $n i32) (result i32) (local $i i32)
    block
      loop
        local.get $i
        local.get $n
        i32.ge_u
        br_if 1
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br 0
      end
    end
    local.get $i)
  (func (param i32) (result i32)
    local.get 0
    if (result i32)
      i32.const 1
    else
      i32.const 2
    end)
  (func (param $x i32) (result i32)
    block
      local.get $x
      i32.eqz
      br_if 0
      local.get $x
      i32.const 1
      i32.sub
      local.set $x
      br 0
    end
    local.get $x
    i32.const 5
    i32.lt_s
    if (result i32)
      i32.const 1
    else
      i32.const 2
    end))
