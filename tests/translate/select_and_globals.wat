;; `select`, globals, and generic (not hot) binops and unops.
(module
  (global $g (mut i32) (i32.const 0))
  (func (param i32 i32 i32) (result i32)
    local.get 0
    local.get 1
    local.get 2
    select
    global.get $g
    i32.rotl
    i32.clz
    global.set $g
    global.get $g))
