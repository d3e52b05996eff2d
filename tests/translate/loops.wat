;; A loop's counting tail, `i += step` then a branch back while `i <u n` (or `<s`, `!=`), is
;; one op (`IncBrIfLoop*`) when the add writes the local the comparison reads. A step that does
;; not fit 16 bits, or a comparison of another kind, stays two ops.
(module
  (memory 1)
  (func (param $n i32) (local $i i32)
    loop
      local.get $i
      i32.const 0
      i32.store8
      local.get $i
      i32.const 1
      i32.add
      local.tee $i
      local.get $n
      i32.lt_u
      br_if 0
    end)
  (func (param $n i32) (local $i i32)
    loop
      local.get $i
      i32.const -4
      i32.add
      local.tee $i
      local.get $n
      i32.ne
      br_if 0
    end)
  (func (param $n i32) (local $i i32)
    loop
      local.get $i
      i32.const 100000
      i32.add
      local.tee $i
      local.get $n
      i32.lt_s
      br_if 0
    end
    loop
      local.get $i
      i32.const 1
      i32.add
      local.tee $i
      local.get $n
      i32.gt_u
      br_if 0
    end))
