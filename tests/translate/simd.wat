;; SIMD: a `v128.const` lives in a side table; lane ops carry their lane; shuffles their lanes.
(module
  (func (param v128) (result i32)
    local.get 0
    v128.const i32x4 1 2 3 4
    i32x4.add
    local.get 0
    i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31
    local.get 0
    i32x4.mul
    i32x4.extract_lane 2))
