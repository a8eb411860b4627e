;; unknown_wasi_function: imports a WASI function that does not exist
;; wasi_snapshot_preview1 imports pass the first check; instantiating the module for the
;; version check fails on the unknown name.
(module
  (import "wasi_snapshot_preview1" "no_such_call" (func $nope (param i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
