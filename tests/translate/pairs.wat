;; Superinstructions for pairs of ops that run often together. Two copies in a row become one
;; `Copy2` (a register rotation: c = b, b = a); an `i32.rotl` by a constant whose temporary
;; only feeds an `i32.xor` becomes `I32XorRotlImm` (dst = a ^ rotl(b, imm)), with the
;; rotation on either side of the xor. A rotation stored into a local is not fused: the
;; local must hold it. The fused op carries the second instruction's position.
(module
  (func (param i32 i32 i32) (result i32)
    local.get 1
    local.set 2
    local.get 0
    local.set 1
    local.get 2
    local.get 0
    i32.const 7
    i32.rotl
    i32.xor
    local.get 1
    i32.const 13
    i32.rotl
    local.get 2
    i32.xor
    i32.add
    local.get 0
    i32.const 3
    i32.rotl
    local.tee 2
    i32.xor))
