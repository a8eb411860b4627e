;; alloc_returns_zero: ws_alloc returns 0
;; 0 is never a buffer: BAD_POINTER, reported for ws_alloc before any record.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 0))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
