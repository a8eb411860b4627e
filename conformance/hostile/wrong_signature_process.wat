;; wrong_signature_process: exports ws_process returning an i64
;; Export signatures are checked at load, before any guest code runs.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i64) (i64.const 0))
)
